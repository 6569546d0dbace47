//! What the shell does once an input is applied: the engine's effects
//! that need the world (a file, the directory, a door's answer), and
//! none the core finishes itself (a job's send and cancel are delivery's,
//! a prelude's send the core's, the next tick its timeout).

use crate::engine::effect::{Answer, LogState};
use crate::engine::{Effect, JobId};
use crate::prepare::cell::CellMap;

/// See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub enum Chore {
    /// A job (or prelude) went to the realm: its prepared code's
    /// positions, to map the stacks it sends back to its block.
    Remember { job: JobId, map: CellMap },
    /// The fan-out log's block, for every connected realm
    /// ([`Effect::FanOut`]).
    FanOut {
        job: JobId,
        agent: String,
        info: String,
        code: String,
    },
    /// The door waiting on `ticket` gets its answer.
    Answered { ticket: u64, answer: Answer },
    /// Write `text` to `path`, relative to the log's folder.
    Archive { path: String, text: String },
    /// The log's state changed (for the registry).
    State(LogState),
    /// Something worth a line on the hub's console.
    Notice(String),
}

impl Chore {
    /// The shell's part of an effect, if it has one.
    pub fn of(effect: Effect) -> Option<Chore> {
        Some(match effect {
            Effect::Dispatch { job, prepared, .. } | Effect::Prelude { job, prepared, .. } => {
                Chore::Remember {
                    job,
                    map: prepared.map,
                }
            }
            Effect::FanOut {
                job,
                agent,
                info,
                code,
            } => Chore::FanOut {
                job,
                agent,
                info,
                code,
            },
            Effect::Answered { ticket, answer } => Chore::Answered { ticket, answer },
            Effect::Archive { path, text } => Chore::Archive { path, text },
            Effect::State(state) => Chore::State(state),
            Effect::Notice(n) => Chore::Notice(n),
            Effect::Cancel { .. } | Effect::WakeAt(_) => return None,
        })
    }
}
