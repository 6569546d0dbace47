//! A log whose write failed (a full disk): the engine and the text as
//! they would be had the write stood, so that a door hears its reply as
//! soon as the realm gives it, with why the log does not show it yet.
//! The inputs waiting behind the one that failed run here too, on this
//! copy; the log itself gets them all, in order, once it can be written
//! (its door answers then find no one waiting: each door is answered
//! once).

use crate::engine::effect::Answer;
use crate::engine::{apply, Effect, Input, LogEngine, Now};

/// See the module docs.
#[derive(Debug)]
pub struct Unwritten {
    engine: LogEngine,
    /// Where `text` starts in the file.
    base: usize,
    /// The text that could not be written, and what ran on it since.
    text: String,
    /// How many waiting inputs (from the front, the failed one first)
    /// ran here.
    applied: usize,
    /// Why the log does not show the reply.
    why: String,
    /// Door answers not yet taken.
    answers: Vec<(u64, Answer)>,
}

impl Unwritten {
    /// The run of the input at the front of the queue gave `engine` and
    /// `text` (from `base` in the file) and `effects`, but could not be
    /// written, because of `why`.
    pub fn new(
        engine: LogEngine,
        base: usize,
        text: String,
        effects: &[Effect],
        why: String,
    ) -> Unwritten {
        let mut u = Unwritten {
            engine,
            base,
            text,
            applied: 1,
            why,
            answers: Vec::new(),
        };
        u.take_answers(effects);
        u
    }

    /// Runs the inputs that wait (the front first) and have not run here
    /// yet; returns the door answers that came of them.
    pub fn poll_answers<'a>(
        &mut self,
        waiting: impl Iterator<Item = &'a Input>,
        now: impl Fn() -> Now,
    ) -> Vec<(u64, Answer)> {
        for input in waiting.skip(self.applied) {
            let out = self
                .engine
                .handle_at(&self.text, self.base, input.clone(), now());
            self.text = apply(&self.text, &out.edits);
            self.applied += 1;
            self.take_answers(&out.effects);
        }
        std::mem::take(&mut self.answers)
    }

    fn take_answers(&mut self, effects: &[Effect]) {
        for effect in effects {
            if let Effect::Answered { ticket, answer } = effect {
                let mut answer = answer.clone();
                answer.unwritten = Some(self.why.clone());
                self.answers.push((*ticket, answer));
            }
        }
    }
}
