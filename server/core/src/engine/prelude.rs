//! Preludes: blocks with the fence option `prelude` run as usual, and again
//! in every new document of their realm (after a reload or a navigation),
//! before the blocks waiting for it. Each rerun adds a line under the
//! document's lifecycle line: `(prelude ran: ok)` or its error.
//!
//! The engine remembers a log's preludes in the order they first ran (at
//! most [`MAX_PRELUDES`]). A prelude stops being one when its block is no
//! longer found as written: edited or deleted (the ledger then has no
//! place for it). A rerun's line waits for every rerun's result (or its
//! timeout), so the lifecycle line and its notes are written at once.

use super::input::{JobId, Outcome};
use super::time::{format_timeout, Millis};
use crate::lang::Lang;

/// At most this many preludes per log; the oldest goes first.
pub const MAX_PRELUDES: usize = 16;
/// Longest error text a note shows, in characters.
const MAX_NOTE: usize = 200;

/// A block with the `prelude` option, as it first ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prelude {
    /// The job of its first run: its block in the ledger.
    pub job: JobId,
    /// The block's code (LF endings), shared: the engine's snapshot
    /// before each run copies the list (up to 16 blocks of 256 KiB).
    pub code: std::sync::Arc<str>,
    pub lang: Lang,
    pub timeout_ms: u64,
    pub depth: Option<u32>,
    pub full: bool,
}

/// A lifecycle line held until its preludes' reruns answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Awaiting {
    /// The lifecycle line (LF ending).
    pub line: String,
    /// Each rerun's job and, once known, its note.
    pub runs: Vec<(JobId, Option<String>)>,
    /// When the runs that did not answer are given up.
    pub deadline: Millis,
    /// The longest timeout of the runs, for the note of one given up.
    pub timeout_ms: u64,
}

impl Awaiting {
    /// Records a rerun's outcome; false when `job` is not one of them.
    pub fn answer(&mut self, job: JobId, outcome: &Outcome) -> bool {
        match self.runs.iter_mut().find(|(j, n)| *j == job && n.is_none()) {
            Some((_, note)) => {
                *note = Some(ran(outcome));
                true
            }
            None => false,
        }
    }

    pub fn done(&self) -> bool {
        self.runs.iter().all(|(_, n)| n.is_some())
    }

    /// The line and a note per rerun; a rerun without an answer is given up.
    pub fn text(&self) -> String {
        let mut s = self.line.clone();
        for (_, note) in &self.runs {
            let given_up = || {
                format!(
                    "(prelude ran: no result within {})\n",
                    format_timeout(self.timeout_ms)
                )
            };
            s.push_str(&note.clone().unwrap_or_else(given_up));
        }
        s
    }
}

/// A log's preludes and the lifecycle line waiting for their reruns: the
/// engine's prelude part.
#[derive(Debug, Clone, Default)]
pub struct Preludes {
    /// In the order they first ran.
    list: Vec<Prelude>,
    awaiting: Option<Awaiting>,
}

impl Preludes {
    /// A block with the `prelude` option ran for the first time.
    pub fn remember(&mut self, prelude: Prelude) {
        if self.list.len() == MAX_PRELUDES {
            self.list.remove(0);
        }
        self.list.push(prelude);
    }

    /// When reruns that did not answer are given up.
    pub fn deadline(&self) -> Option<Millis> {
        self.awaiting.as_ref().map(|a| a.deadline)
    }

    /// A new document's lifecycle `line` (LF ending): the text to write
    /// now, or `None` while it waits for the reruns `rerun` dispatched
    /// (it gives a rerun's job, `None` when the code no longer prepares).
    /// `standing`: whether a prelude's block is still found as written;
    /// one that is not stops being a prelude. `reruns`: false for a
    /// document that closed (nothing reruns there).
    pub fn handle_document(
        &mut self,
        line: String,
        reruns: bool,
        standing: impl Fn(JobId) -> bool,
        mut rerun: impl FnMut(&Prelude) -> Option<JobId>,
        now: Millis,
    ) -> Option<String> {
        // A document that came before the last one's preludes answered:
        // that line goes first, with what is known.
        let line = match self.awaiting.take() {
            Some(earlier) => earlier.text() + &line,
            None => line,
        };
        if !reruns {
            return Some(line);
        }
        self.list.retain(|p| standing(p.job));
        let mut runs = Vec::new();
        let mut longest = 0;
        for p in &self.list {
            if let Some(job) = rerun(p) {
                runs.push((job, None));
                longest = longest.max(p.timeout_ms);
            }
        }
        if runs.is_empty() {
            return Some(line);
        }
        self.awaiting = Some(Awaiting {
            line,
            runs,
            deadline: now.plus(longest),
            timeout_ms: longest,
        });
        None
    }

    /// A result: `None` when it is no rerun's; `Some(None)` when it is and
    /// others are still out; `Some(Some(text))` when it was the last, with
    /// the line and its notes to write.
    pub fn handle_result(&mut self, job: JobId, outcome: &Outcome) -> Option<Option<String>> {
        let a = self.awaiting.as_mut()?;
        if !a.answer(job, outcome) {
            return None;
        }
        if !a.done() {
            return Some(None);
        }
        Some(self.awaiting.take().map(|a| a.text()))
    }

    /// Time passed: reruns that did not answer by their deadline are given
    /// up, and the line goes with what is known.
    pub fn handle_tick(&mut self, now: Millis) -> Option<String> {
        self.awaiting
            .take_if(|a| now >= a.deadline)
            .map(|a| a.text())
    }
}

/// `(prelude ran: ok)` or `(prelude ran: Name: message)`: the realm's text
/// on one line (a note: it starts with `(` and ends with `)`, so it cannot
/// be taken for a header, a fence or the footer), cut at 200 characters.
fn ran(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Ok(_) => "(prelude ran: ok)\n".to_string(),
        Outcome::Error(e) => {
            let text: String = format!("{}: {}", e.name, e.message)
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            let text = match text.char_indices().nth(MAX_NOTE) {
                Some((cut, _)) => format!("{}…", &text[..cut]),
                None => text,
            };
            format!("(prelude ran: {text})\n")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::input::{JobError, Value};

    #[test]
    fn notes_say_ok_or_the_error_on_one_line() {
        let mut a = Awaiting {
            line: "> **s** reloaded at 10:00:05 — u (bindings of earlier blocks are gone)\n".into(),
            runs: vec![(JobId(7), None), (JobId(8), None), (JobId(9), None)],
            deadline: Millis(0),
            timeout_ms: 60_000,
        };
        assert!(a.answer(JobId(7), &Outcome::Ok(Value::Json("1".into()))));
        assert!(
            !a.answer(JobId(7), &Outcome::Ok(Value::Json("1".into()))),
            "once"
        );
        assert!(!a.answer(JobId(1), &Outcome::Ok(Value::Json("1".into()))));
        let error = JobError {
            name: "ReferenceError".into(),
            message: "x is not defined\n```\n> **s** to agent at 10:00:00".into(),
            stack: None,
        };
        assert!(a.answer(JobId(8), &Outcome::Error(error)));
        assert!(!a.done());
        assert_eq!(
            a.text(),
            "> **s** reloaded at 10:00:05 — u (bindings of earlier blocks are gone)\n\
             (prelude ran: ok)\n\
             (prelude ran: ReferenceError: x is not defined ``` > **s** to agent at 10:00:00)\n\
             (prelude ran: no result within 60.0s)\n"
        );
    }
}
