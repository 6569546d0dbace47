//! Intake: the inputs of one log, in the order they are applied to the
//! file, pure. An input that cannot be applied now (the file is mid-write,
//! or unreadable) waits at the front and is tried again at a time; later
//! inputs queue behind it, so nothing is dropped or reordered. Background
//! events wait in the [`BackgroundGate`] for a write of many, and go into
//! the queue ahead of the next input of their realm.
//!
//! Architecture Invariant: an input is never dropped, only merged into an
//! equal one waiting (one pending re-scan or tick covers any number; a
//! newer progress report of a job replaces the one waiting behind it, as
//! each carries all events so far).

use crate::engine::Millis;
use std::collections::VecDeque;

use daebug_protocol::{BackgroundEvent, JobProgress};

use crate::engine::Input;
use crate::flood::BackgroundGate;

/// Why the input at the front could not be applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deferral {
    /// The file is empty (probably mid-write): try at this time.
    Settling(Millis),
    /// Reading or writing failed: try at this time.
    Failed(Millis),
}

/// What the shell should report about the log's health, at most once per
/// run of failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Health {
    /// Nothing new to say.
    Same,
    /// The first failure of a run.
    Failing,
    /// The first success after failures.
    Recovered,
}

/// See the module docs.
#[derive(Debug, Default)]
pub struct Intake {
    waiting: VecDeque<Input>,
    /// While set, nothing is applied before this time.
    retry: Option<Millis>,
    failing: bool,
    background: BackgroundGate,
}

impl Intake {
    /// Queues one input behind any that wait.
    pub fn handle_input(&mut self, input: Input) {
        let repeat = matches!(input, Input::FileChanged | Input::Tick)
            && self
                .waiting
                .iter()
                .any(|d| std::mem::discriminant(d) == std::mem::discriminant(&input));
        if repeat {
            return;
        }
        if let Input::Progress(JobProgress { job, .. }) = &input {
            if let Some(Input::Progress(JobProgress { job: j, .. })) = self.waiting.back() {
                if j == job {
                    self.waiting.pop_back();
                }
            }
        }
        self.waiting.push_back(input);
    }

    /// A realm's background events: held for a write of many (see
    /// [`crate::flood`]).
    pub fn handle_background(
        &mut self,
        events: Vec<BackgroundEvent>,
        dropped: u32,
        limited: u32,
        now: Millis,
    ) {
        self.background.idle(now);
        self.background.offer(events, dropped, limited, now);
    }

    /// What is held of the background goes into the queue now (when due,
    /// or ahead of another input of the realm: the log keeps the order
    /// things happened in).
    pub fn flush_background(&mut self, now: Millis) {
        if let Some(f) = self.background.take(now) {
            self.handle_input(Input::Background {
                events: f.events,
                dropped: f.dropped,
                limited: f.limited,
                over_rate: f.over_rate,
            });
        }
    }

    /// The next input to apply; `None` when none waits, or the one at the
    /// front must wait for its retry (see [`Intake::handle_retry`]).
    pub fn poll_input(&mut self) -> Option<Input> {
        match self.retry {
            Some(_) => None,
            None => self.waiting.pop_front(),
        }
    }

    /// The input from [`Intake::poll_input`] was applied.
    pub fn handle_applied(&mut self) -> Health {
        match std::mem::take(&mut self.failing) {
            true => Health::Recovered,
            false => Health::Same,
        }
    }

    /// The input from [`Intake::poll_input`] could not be applied: it goes
    /// back to the front, to be tried again at the deferral's time.
    pub fn handle_deferred(&mut self, input: Input, why: Deferral) -> Health {
        self.waiting.push_front(input);
        let (at, failed) = match why {
            Deferral::Settling(at) => (at, false),
            Deferral::Failed(at) => (at, true),
        };
        self.retry = Some(at);
        match failed && !std::mem::replace(&mut self.failing, true) {
            true => Health::Failing,
            false => Health::Same,
        }
    }

    /// The retry time came (or passed).
    pub fn handle_retry(&mut self, now: Millis) {
        if self.retry.is_some_and(|at| now >= at) {
            self.retry = None;
        }
    }

    /// When to try the waiting inputs again.
    pub fn retry_at(&self) -> Option<Millis> {
        self.retry
    }

    /// When the held background events are due.
    pub fn background_due(&self, now: Millis) -> Option<Millis> {
        self.background.due(now)
    }

    /// Whether nothing waits to be applied (held background aside).
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// The kinds of the waiting inputs, oldest first (for a message).
    pub fn waiting(&self) -> impl Iterator<Item = &Input> {
        self.waiting.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use daebug_protocol::{EventType, JobId, Level};
    use std::time::Duration;

    fn progress(job: u64, n: usize) -> Input {
        Input::Progress(JobProgress {
            job: JobId(job),
            events: (0..n).map(event).collect(),
            dropped: 0,
            limited: 0,
            elapsed_ms: 0,
        })
    }

    fn event(i: usize) -> BackgroundEvent {
        BackgroundEvent {
            kind: EventType::Console,
            level: Level::Log,
            source: None,
            ts: String::new(),
            message: format!("line {i}"),
            stack: None,
        }
    }

    /// An input as a short word, for the tables.
    fn word(input: &Input) -> String {
        match input {
            Input::FileChanged => "changed".into(),
            Input::Tick => "tick".into(),
            Input::Startup => "startup".into(),
            Input::Progress(p) => format!("progress{}:{}", p.job.0, p.events.len()),
            Input::Background { events, .. } => format!("background:{}", events.len()),
            Input::Reloading => "reloading".into(),
            other => format!("{other:?}"),
        }
    }

    fn drained(intake: &mut Intake) -> Vec<String> {
        std::iter::from_fn(|| intake.poll_input())
            .map(|i| word(&i))
            .collect()
    }

    /// What is applied, in order, after a sequence of inputs.
    #[test]
    fn inputs_merge_only_into_an_equal_one_waiting() {
        let table: &[(&str, Vec<Input>, &[&str])] = &[
            (
                "one re-scan covers many",
                vec![Input::FileChanged, Input::FileChanged, Input::FileChanged],
                &["changed"],
            ),
            (
                "a re-scan behind other inputs still covers a later one",
                vec![Input::FileChanged, Input::Reloading, Input::FileChanged],
                &["changed", "reloading"],
            ),
            (
                "one tick covers many",
                vec![Input::Tick, Input::FileChanged, Input::Tick],
                &["tick", "changed"],
            ),
            (
                "a newer progress of the same job replaces the one behind",
                vec![progress(1, 1), progress(1, 2), progress(1, 3)],
                &["progress1:3"],
            ),
            (
                "progress of another job is kept",
                vec![progress(1, 1), progress(2, 1)],
                &["progress1:1", "progress2:1"],
            ),
            (
                "progress not at the back is kept (order holds)",
                vec![progress(1, 1), Input::Reloading, progress(1, 2)],
                &["progress1:1", "reloading", "progress1:2"],
            ),
            (
                "startup is never merged",
                vec![Input::Startup, Input::Startup],
                &["startup", "startup"],
            ),
        ];
        for (name, inputs, want) in table {
            let mut intake = Intake::default();
            for i in inputs.clone() {
                intake.handle_input(i);
            }
            assert_eq!(drained(&mut intake), *want, "{name}");
        }
    }

    /// A deferred input goes back to the front; nothing is applied until
    /// its retry; health is reported once per run of failures.
    #[test]
    fn a_deferred_input_waits_at_the_front_for_its_retry() {
        let t0 = Millis(1_000);
        let later = t0 + Duration::from_secs(1);
        let mut intake = Intake::default();
        intake.handle_input(Input::Startup);
        intake.handle_input(Input::Reloading);
        let first = intake.poll_input().unwrap();
        assert_eq!(
            intake.handle_deferred(first, Deferral::Failed(later)),
            Health::Failing
        );
        intake.handle_input(Input::Tick);
        assert_eq!(intake.poll_input().map(|i| word(&i)), None, "waits");
        intake.handle_retry(t0);
        assert_eq!(intake.poll_input().map(|i| word(&i)), None, "not yet");
        intake.handle_retry(later);
        let again = intake.poll_input().unwrap();
        assert_eq!(word(&again), "startup");
        assert_eq!(
            intake.handle_deferred(again, Deferral::Failed(later)),
            Health::Same,
            "said once a run"
        );
        intake.handle_retry(later);
        assert_eq!(word(&intake.poll_input().unwrap()), "startup");
        assert_eq!(intake.handle_applied(), Health::Recovered);
        assert_eq!(drained(&mut intake), ["reloading", "tick"]);
        assert_eq!(intake.handle_applied(), Health::Same);
        // Settling is no failure.
        intake.handle_input(Input::Startup);
        let s = intake.poll_input().unwrap();
        assert_eq!(
            intake.handle_deferred(s, Deferral::Settling(later)),
            Health::Same
        );
        assert_eq!(intake.retry_at(), Some(later));
    }

    /// Background events wait for a write of many, and go in ahead of the
    /// realm's next input when flushed.
    #[test]
    fn background_goes_in_when_flushed_in_order() {
        let t0 = Millis(1_000);
        let mut intake = Intake::default();
        intake.handle_background(vec![event(0)], 0, 0, t0);
        assert_eq!(
            intake.background_due(t0),
            Some(t0),
            "a lone batch goes at once"
        );
        assert!(intake.is_empty());
        intake.flush_background(t0);
        intake.handle_background(vec![event(1), event(2)], 0, 0, t0);
        assert!(
            intake.background_due(t0).unwrap() > t0,
            "the next one waits for the spacing"
        );
        // A result of the realm comes: what it sent before goes first.
        intake.flush_background(t0);
        intake.handle_input(Input::Reloading);
        assert_eq!(
            drained(&mut intake),
            ["background:1", "background:2", "reloading"]
        );
        intake.flush_background(t0);
        assert!(intake.is_empty(), "nothing held: nothing queued");
    }
}
