//! What a log's transaction runs an input through: the text in, edits
//! and effects out, with a snapshot to undo a run whose write did not
//! stand (docs/architecture.md, "The machine"). [`crate::log_core::LogCore`]
//! is the machine the hub runs; a bare [`LogEngine`] is one too, for the
//! engine's own tests.

use crate::engine::{Input, JobId, LogEngine, Now, Output};

/// A machine as it was before a run: given back with
/// [`LogMachine::restore`] when the run's write did not stand. Opaque:
/// only the machine reads it.
#[derive(Debug, Clone)]
pub struct Snapshot(pub(crate) LogEngine);

/// See the module docs.
pub trait LogMachine {
    /// The one path from an input to edits and effects: `window` is the
    /// log's text from byte `base` on (a line start at or before
    /// [`LogMachine::horizon`]).
    fn transact(&mut self, window: &str, base: usize, input: Input, now: Now) -> Output;
    /// The machine as it is now, to undo a run.
    fn snapshot(&self) -> Snapshot;
    /// Undoes the runs since `snapshot`.
    fn restore(&mut self, snapshot: Snapshot);
    /// The earliest position the next run looks at (a shell that shows
    /// the text before it is unchanged may pass only the rest).
    fn horizon(&self, window: &str, base: usize) -> Option<usize>;
    /// Where the log's history may end (all before it is answered).
    fn history_cut(&self, window: &str, base: usize) -> Option<usize>;
    /// The text before `cut` moved to a history file, and the log's head,
    /// `head` bytes, now stands before what followed it.
    fn moved_history(&mut self, cut: usize, head: usize);
    /// The next job's id is past `job` (one sent ahead of a write that
    /// did not stand).
    fn skip_jobs_through(&mut self, job: JobId);
}

impl LogMachine for LogEngine {
    fn transact(&mut self, window: &str, base: usize, input: Input, now: Now) -> Output {
        self.handle_at(window, base, input, now)
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot(self.clone())
    }

    fn restore(&mut self, snapshot: Snapshot) {
        *self = snapshot.0;
    }

    fn horizon(&self, window: &str, base: usize) -> Option<usize> {
        LogEngine::horizon(self, window, base)
    }

    fn history_cut(&self, window: &str, base: usize) -> Option<usize> {
        LogEngine::history_cut(self, window, base)
    }

    fn moved_history(&mut self, cut: usize, head: usize) {
        LogEngine::moved_history(self, cut, head)
    }

    fn skip_jobs_through(&mut self, job: JobId) {
        LogEngine::skip_jobs_through(self, job)
    }
}
