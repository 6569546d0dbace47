//! Blocks other doors submitted (the HTTP API, MCP, `daebug eval`, the
//! fan-out log): queued until the log has nothing of its own to run,
//! written below the footer as if appended, and answered with their reply
//! (held for the new document's line when the block reloaded the page).
//! The engine's door-calls part.

use std::collections::VecDeque;

use super::effect::Answer;
use super::fan_out::Submission;
use super::input::JobId;
use super::time::Millis;

/// How long a door call whose block reloaded the page waits for the new
/// document's line before it is answered without it.
pub const RELOAD_ANSWER_WAIT_MS: u64 = 10_000;

/// A job after which the realm's document reloads.
#[derive(Debug, Clone)]
struct Reload {
    job: JobId,
    /// Its door's answer, held for the new document's line.
    answer: Option<(u64, Answer)>,
    /// When the answer goes without the line.
    deadline: Millis,
}

/// See the module docs.
#[derive(Debug, Clone, Default)]
pub struct DoorCalls {
    /// Submitted, not written yet, in order.
    queue: VecDeque<Submission>,
    /// The ticket of the submission just written, and its chunk, for the
    /// job that takes it.
    written: Option<(u64, String)>,
    /// Running submitted jobs and their tickets.
    tickets: Vec<(JobId, u64)>,
    /// The realm said its document reloads after this job.
    reload: Option<Reload>,
}

impl DoorCalls {
    /// A door submitted a block.
    pub fn handle_submit(&mut self, s: Submission) {
        self.queue.push_back(s);
    }

    /// The next submission to write, taken from the queue.
    pub fn poll_submission(&mut self) -> Option<Submission> {
        self.queue.pop_front()
    }

    /// A submission taken that cannot be written now: first again.
    pub fn put_back(&mut self, s: Submission) {
        self.queue.push_front(s);
    }

    /// A submission was written as `chunk`, for the job that takes it.
    pub fn handle_written(&mut self, ticket: u64, chunk: String) {
        self.written = Some((ticket, chunk));
    }

    /// The submission just written, taken by the job that starts now (or
    /// given up: it did not read as a block).
    pub fn take_written(&mut self) -> Option<(u64, String)> {
        self.written.take()
    }

    /// `job` runs a submitted block: its reply answers `ticket`.
    pub fn handle_started(&mut self, job: JobId, ticket: u64) {
        self.tickets.push((job, ticket));
    }

    /// The realm's document reloads after `job`: its door's answer waits
    /// for the new document's line.
    pub fn handle_reloading(&mut self, job: JobId, now: Millis) {
        self.reload = Some(Reload {
            job,
            answer: None,
            deadline: now.plus(RELOAD_ANSWER_WAIT_MS),
        });
    }

    /// `job`'s reply is written: its door's answer to send now, if it is a
    /// door's job and is not held for a new document's line.
    pub fn answer(&mut self, job: JobId, make: impl FnOnce() -> Answer) -> Option<(u64, Answer)> {
        let i = self.tickets.iter().position(|(j, _)| *j == job)?;
        let (_, ticket) = self.tickets.remove(i);
        let answer = make();
        // The page reloads after this block: its door waits for the new
        // document's line (see [`DoorCalls::handle_document`]).
        match self.reload.as_mut().filter(|r| r.job == job) {
            Some(r) => {
                r.answer = Some((ticket, answer));
                None
            }
            None => Some((ticket, answer)),
        }
    }

    /// A new document's line (and its prelude notes) is written: a held
    /// answer goes, with it.
    pub fn handle_document(&mut self, lines: &str) -> Option<(u64, Answer)> {
        let (ticket, mut answer) = self.reload.take()?.answer?;
        answer.reply.push('\n');
        answer.reply.push_str(lines);
        Some((ticket, answer))
    }

    /// The new document did not come in time: a held answer goes without
    /// its line.
    pub fn handle_tick(&mut self, now: Millis) -> Option<(u64, Answer)> {
        self.reload.take_if(|r| now >= r.deadline)?.answer
    }

    /// When a held answer goes without its line.
    pub fn deadline(&self) -> Option<Millis> {
        self.reload
            .as_ref()
            .filter(|r| r.answer.is_some())
            .map(|r| r.deadline)
    }
}
