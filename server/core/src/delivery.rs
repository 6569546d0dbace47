//! Job delivery for one log, pure: which job the realm was sent, which
//! waits for a realm, which went ahead of its write, and when the realm is
//! told to stop one. Inputs come in through `handle_*` (time passed in);
//! what to do comes out of [`Delivery::poll`]. The log task performs it
//! (`log_task.rs`) and owns nothing of this state.
//!
//! The rules that live here (docs/log-format.md, "Job identity"):
//! - **At most once.** A job id reaches a realm once: a job sent ahead of
//!   its write is not sent again by that write; a write that did not stand
//!   cannot lend the id to other code ([`Early::SkipPast`]), and the job
//!   sent for it is cancelled.
//! - **Nothing left running unseen.** A job the log gave up on (timeout,
//!   cancel, a write that did not stand) or one a realm still runs from
//!   before a reconnect that this log no longer waits for is cancelled in
//!   the realm; a job lost with a reloaded realm is reported as lost.

use std::collections::VecDeque;

use crate::engine::Millis;
use daebug_protocol::{HubMsg, JobId};

use crate::engine::Effect;

/// A realm connection's number, as the hub gives them.
pub type ConnId = u64;

/// A job as the realm receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobMsg {
    pub job: JobId,
    pub code: String,
    pub timeout_ms: u64,
    /// Fence options `depth=N` and `full`.
    pub depth: Option<u32>,
    pub full: bool,
}

impl JobMsg {
    /// The message the realm gets.
    pub fn msg(&self) -> HubMsg {
        HubMsg::Job {
            job: self.job,
            code: self.code.clone(),
            timeout_ms: self.timeout_ms,
            depth: self.depth,
            full: self.full,
        }
    }

    /// The prelude one effect runs again, if it is one.
    pub fn prelude(effect: &Effect) -> Option<JobMsg> {
        JobMsg::sent_by(effect, true)
    }

    /// The job an engine's effects dispatch, if any.
    pub fn dispatched(effects: &[Effect]) -> Option<JobMsg> {
        effects.iter().find_map(JobMsg::of)
    }

    /// The job one effect dispatches, if it is a dispatch.
    fn of(effect: &Effect) -> Option<JobMsg> {
        JobMsg::sent_by(effect, false)
    }

    /// The message of a dispatch (or, with `prelude`, of a prelude): the
    /// two carry the same job.
    fn sent_by(effect: &Effect, prelude: bool) -> Option<JobMsg> {
        match (effect, prelude) {
            (
                Effect::Dispatch {
                    job,
                    prepared,
                    timeout_ms,
                    depth,
                    full,
                },
                false,
            )
            | (
                Effect::Prelude {
                    job,
                    prepared,
                    timeout_ms,
                    depth,
                    full,
                },
                true,
            ) => Some(JobMsg {
                job: *job,
                code: prepared.code.clone(),
                timeout_ms: *timeout_ms,
                depth: *depth,
                full: *full,
            }),
            _ => None,
        }
    }
}

/// What the log task is to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivered {
    /// Send `msg` on connection `conn` (without waiting: a full or closed
    /// connection is reported back with [`Delivery::handle_send_failed`]).
    Send { conn: ConnId, msg: HubMsg },
    /// The realm reloaded while running `job`: the engine gets it as a
    /// result that says so.
    Lost { job: JobId, duration_ms: u64 },
    /// Ids up to `job` were used for a run that did not stand: the engine
    /// must not hand them out again.
    SkipPast(JobId),
}

/// What a write about to happen may do, see [`Delivery::handle_decided`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Early {
    /// Go on and write.
    Go,
    /// A job with this id (or a later one) was already sent for other
    /// code: run the engine again with ids past it.
    SkipPast(JobId),
}

/// A job that was sent to a realm and has not ended yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sent {
    job: JobId,
    conn: ConnId,
    at: Millis,
}

/// A job sent as soon as the engine decided on it, before the write that
/// shows it running stood (for a large log that write costs a copy of the
/// whole file).
#[derive(Debug, Clone, PartialEq, Eq)]
struct SentEarly {
    job: JobMsg,
    conn: ConnId,
    at: Millis,
    /// Its result came while its write waited: the write must not make
    /// it the job the realm runs.
    answered: bool,
}

/// The delivery state of one log.
#[derive(Debug, Default)]
pub struct Delivery {
    /// The connection serving the log.
    link: Option<ConnId>,
    /// The connection that served it until its page said it reloads after
    /// its next result (`daebug.reload()`): its running job still answers
    /// there, but a new job waits for the next document.
    reloading: Option<ConnId>,
    /// A job dispatched while no realm was there; sent when one attaches.
    held: Option<JobMsg>,
    sent: Option<Sent>,
    early: Option<SentEarly>,
    out: VecDeque<Delivered>,
}

impl Delivery {
    /// The next thing to do.
    pub fn poll(&mut self) -> Option<Delivered> {
        self.out.pop_front()
    }

    pub fn link(&self) -> Option<ConnId> {
        self.link
    }

    /// A connection now serves the log. `in_flight`: the jobs the realm
    /// says it still runs; `running`: the engine's running job.
    pub fn handle_attach(
        &mut self,
        conn: ConnId,
        in_flight: &[JobId],
        running: Option<JobId>,
        now: Millis,
    ) {
        self.link = Some(conn);
        self.reloading = None;
        match self.sent {
            // Sent on an earlier connection, and the realm no longer runs
            // it (it reloaded): it will never answer.
            Some(s) if s.conn != conn && !in_flight.contains(&s.job) => {
                self.sent = None;
                self.out.push_back(Delivered::Lost {
                    job: s.job,
                    duration_ms: now.saturating_duration_since(s.at).as_millis() as u64,
                });
            }
            Some(ref mut s) => s.conn = conn,
            None => {}
        }
        // A job sent ahead whose write waits: the realm still runs it on
        // this connection.
        if let Some(e) = self
            .early
            .as_mut()
            .filter(|e| in_flight.contains(&e.job.job))
        {
            e.conn = conn;
        }
        let early = self.early.as_ref().map(|e| e.job.job);
        // Jobs the realm still runs that this log gave up on (it timed out
        // while the realm was away) are told to stop.
        for &job in in_flight {
            if self.sent.is_none_or(|s| s.job != job) && running != Some(job) && early != Some(job)
            {
                self.send(conn, HubMsg::Cancel { job });
            }
        }
        if let Some(job) = self.held.take() {
            self.send_job(job, now);
        }
    }

    /// A connection closed. Whether it was the one serving the log.
    pub fn handle_detach(&mut self, conn: ConnId) -> bool {
        let ours = self.link == Some(conn) || self.reloading == Some(conn);
        if ours {
            self.link = None;
            self.reloading = None;
        }
        ours
    }

    /// The page on `conn` reloads once it has sent its next result: no job
    /// goes there any more (one sent now would reach a document about to
    /// go, and be reported interrupted); the next waits for the new one.
    pub fn handle_reloading(&mut self, conn: ConnId) {
        if self.link == Some(conn) {
            self.reloading = self.link.take();
        }
    }

    /// The engine decided on `job` in a run whose write is about to happen:
    /// it is sent now, ahead of the write. The same job decided again (the
    /// write was run again on newer text) is not sent twice; its id decided
    /// for other code asks for a run with fresh ids.
    pub fn handle_decided(&mut self, job: Option<JobMsg>, now: Millis) -> Early {
        let Some(job) = job else {
            return Early::Go;
        };
        if let Some(e) = &self.early {
            if e.job == job {
                return Early::Go;
            }
            if e.job.job >= job.job {
                return Early::SkipPast(e.job.job);
            }
        }
        // No realm: the write's own dispatch holds the job for the next.
        let Some(conn) = self.link else {
            return Early::Go;
        };
        // An older early job lost to this one: the realm stops it.
        if let Some(old) = self.early.take() {
            self.send(conn, HubMsg::Cancel { job: old.job.job });
        }
        self.send(conn, job.msg());
        self.early = Some(SentEarly {
            job,
            conn,
            at: now,
            answered: false,
        });
        Early::Go
    }

    /// A write stood with these effects: its dispatch and cancels happen
    /// (a job already sent ahead is not sent again). A job sent ahead for
    /// a run that did not stand is cancelled and its id skipped.
    pub fn handle_written(&mut self, effects: &[Effect], now: Millis) {
        for effect in effects {
            match (JobMsg::of(effect), effect) {
                (Some(job), _) => self.dispatch(job, now),
                (None, Effect::Cancel { job }) => self.cancel(*job),
                _ => {}
            }
        }
        if let Some(e) = self.early.take() {
            if let Some(conn) = self.link {
                self.send(conn, HubMsg::Cancel { job: e.job.job });
            }
            self.out.push_back(Delivered::SkipPast(e.job.job));
        }
    }

    /// The realm answered `job`.
    pub fn handle_result(&mut self, job: JobId) {
        if self.sent.is_some_and(|s| s.job == job) {
            self.sent = None;
        }
        if let Some(e) = self.early.as_mut().filter(|e| e.job.job == job) {
            e.answered = true;
        }
    }

    /// Whether a job reached the realm and has not ended (sent, or sent
    /// ahead of its write), as opposed to none, or one held for the next.
    pub fn job_sent(&self) -> bool {
        self.sent.is_some() || self.early.is_some()
    }

    /// The page went away (navigated, closed): its job's reply says so
    /// now, a new document is not told it was interrupted, and nothing
    /// more is sent on its connection (a job waits for the next one).
    /// Whether a connection served the log.
    pub fn handle_left(&mut self) -> bool {
        self.sent = None;
        self.link.take().or(self.reloading.take()).is_some()
    }

    /// A [`Delivered::Send`] could not be sent (the connection is busy or
    /// closing; its detach follows). A job waits for the next connection.
    pub fn handle_send_failed(&mut self, msg: HubMsg) {
        let HubMsg::Job {
            job,
            code,
            timeout_ms,
            depth,
            full,
        } = msg
        else {
            return;
        };
        if self.early.as_ref().is_some_and(|e| e.job.job == job) {
            // The write's own dispatch deals with it.
            self.early = None;
            return;
        }
        if self.sent.is_some_and(|s| s.job == job) {
            self.sent = None;
        }
        self.held = Some(JobMsg {
            job,
            code,
            timeout_ms,
            depth,
            full,
        });
    }

    fn dispatch(&mut self, job: JobMsg, now: Millis) {
        if let Some(e) = self.early.take_if(|e| e.job.job == job.job) {
            if e.answered {
                return;
            }
            if self.link == Some(e.conn) {
                self.sent = Some(Sent {
                    job: job.job,
                    conn: e.conn,
                    at: e.at,
                });
                return;
            }
        }
        self.send_job(job, now);
    }

    fn send_job(&mut self, job: JobMsg, now: Millis) {
        let Some(conn) = self.link else {
            self.held = Some(job);
            return;
        };
        self.sent = Some(Sent {
            job: job.job,
            conn,
            at: now,
        });
        self.send(conn, job.msg());
    }

    fn cancel(&mut self, job: JobId) {
        if self.held.as_ref().is_some_and(|h| h.job == job) {
            self.held = None;
        }
        if self.sent.is_some_and(|s| s.job == job) {
            self.sent = None;
            if let Some(conn) = self.link {
                self.send(conn, HubMsg::Cancel { job });
            }
        }
    }

    fn send(&mut self, conn: ConnId, msg: HubMsg) {
        self.out.push_back(Delivered::Send { conn, msg });
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::engine::{Effect, JobId};
    use crate::lang::Lang;
    use crate::prepare::{Preparer, Verbatim};

    fn job(id: u64, code: &str) -> JobMsg {
        JobMsg {
            job: JobId(id),
            code: code.into(),
            timeout_ms: 1000,
            depth: None,
            full: false,
        }
    }

    fn dispatch(id: u64, code: &str) -> Effect {
        let prepared = Verbatim.prepare(code, Lang::Js, JobId(id)).unwrap();
        Effect::Dispatch {
            job: JobId(id),
            prepared,
            timeout_ms: 1000,
            depth: None,
            full: false,
        }
    }

    /// Everything polled, as short strings.
    fn drain(d: &mut Delivery) -> Vec<String> {
        std::iter::from_fn(|| d.poll())
            .map(|o| match o {
                Delivered::Send {
                    conn,
                    msg: HubMsg::Job { job, code, .. },
                } => format!("send {conn} job {job} {code}"),
                Delivered::Send {
                    conn,
                    msg: HubMsg::Cancel { job },
                } => format!("send {conn} cancel {job}"),
                Delivered::Send { conn, msg } => format!("send {conn} {msg:?}"),
                Delivered::Lost { job, duration_ms } => format!("lost {job} after {duration_ms}"),
                Delivered::SkipPast(job) => format!("skip past {job}"),
            })
            .collect()
    }

    /// A step of a table test: what happens, and what comes out.
    type Step = (
        &'static str,
        fn(&mut Delivery, Millis),
        &'static [&'static str],
    );

    fn run(what: &str, steps: &[Step]) {
        let mut d = Delivery::default();
        let t0 = Millis(1_000);
        for (i, (name, step, want)) in steps.iter().enumerate() {
            step(&mut d, t0 + Duration::from_millis(100 * i as u64));
            assert_eq!(drain(&mut d), *want, "{what}: after {name}");
        }
    }

    #[test]
    fn jobs_reach_the_realm_once() {
        run(
            "sent ahead of its write, a job is not sent again by the write",
            &[
                ("attach", |d, t| d.handle_attach(1, &[], None, t), &[]),
                (
                    "decided",
                    |d, t| assert_eq!(d.handle_decided(Some(job(1, "a")), t), Early::Go),
                    &["send 1 job 1 a"],
                ),
                (
                    "decided again on newer text",
                    |d, t| assert_eq!(d.handle_decided(Some(job(1, "a")), t), Early::Go),
                    &[],
                ),
                (
                    "written",
                    |d, t| d.handle_written(&[dispatch(1, "a")], t),
                    &[],
                ),
                ("result", |d, _| d.handle_result(JobId(1)), &[]),
            ],
        );
        run(
            "answered while its write waited, a job sent ahead is done",
            &[
                ("attach", |d, t| d.handle_attach(1, &[], None, t), &[]),
                (
                    "decided",
                    |d, t| assert_eq!(d.handle_decided(Some(job(1, "a")), t), Early::Go),
                    &["send 1 job 1 a"],
                ),
                ("result", |d, _| d.handle_result(JobId(1)), &[]),
                (
                    "written",
                    |d, t| d.handle_written(&[dispatch(1, "a")], t),
                    &[],
                ),
                ("detach", |d, _| assert!(d.handle_detach(1)), &[]),
                (
                    "attach without it: nothing lost",
                    |d, t| d.handle_attach(2, &[], None, t),
                    &[],
                ),
            ],
        );
        run(
            "a realm reconnecting while a job sent ahead waits for its write keeps running it",
            &[
                ("attach", |d, t| d.handle_attach(1, &[], None, t), &[]),
                (
                    "decided",
                    |d, t| assert_eq!(d.handle_decided(Some(job(1, "a")), t), Early::Go),
                    &["send 1 job 1 a"],
                ),
                ("detach", |d, _| assert!(d.handle_detach(1)), &[]),
                (
                    "attach with it in flight: not cancelled",
                    |d, t| d.handle_attach(2, &[JobId(1)], None, t),
                    &[],
                ),
                (
                    "written: not sent again",
                    |d, t| d.handle_written(&[dispatch(1, "a")], t),
                    &[],
                ),
                ("result", |d, _| d.handle_result(JobId(1)), &[]),
            ],
        );
    }

    /// An id sent ahead of a write that did not stand is skipped, and a
    /// job sent for a write that shows none is cancelled.
    #[test]
    fn ids_sent_ahead_are_never_lent_again() {
        run(
            "an id sent for other code is not lent again",
            &[
                ("attach", |d, t| d.handle_attach(1, &[], None, t), &[]),
                (
                    "decided",
                    |d, t| assert_eq!(d.handle_decided(Some(job(1, "a")), t), Early::Go),
                    &["send 1 job 1 a"],
                ),
                (
                    "the write did not stand; the rerun picks id 1 for b",
                    |d, t| {
                        assert_eq!(
                            d.handle_decided(Some(job(1, "b")), t),
                            Early::SkipPast(JobId(1))
                        )
                    },
                    &[],
                ),
                (
                    "with fresh ids: 2 for b, and 1 is stopped",
                    |d, t| assert_eq!(d.handle_decided(Some(job(2, "b")), t), Early::Go),
                    &["send 1 cancel 1", "send 1 job 2 b"],
                ),
                (
                    "written",
                    |d, t| d.handle_written(&[dispatch(2, "b")], t),
                    &[],
                ),
            ],
        );
        run(
            "a job sent ahead for a write that shows no job is cancelled and skipped",
            &[
                ("attach", |d, t| d.handle_attach(1, &[], None, t), &[]),
                (
                    "decided",
                    |d, t| assert_eq!(d.handle_decided(Some(job(1, "a")), t), Early::Go),
                    &["send 1 job 1 a"],
                ),
                (
                    "written without it",
                    |d, t| d.handle_written(&[], t),
                    &["send 1 cancel 1", "skip past 1"],
                ),
            ],
        );
    }

    #[test]
    fn jobs_wait_for_a_realm_and_stop_when_given_up() {
        run(
            "no realm: held, sent on attach",
            &[
                (
                    "written",
                    |d, t| d.handle_written(&[dispatch(1, "a")], t),
                    &[],
                ),
                (
                    "attach",
                    |d, t| d.handle_attach(7, &[], Some(JobId(1)), t),
                    &["send 7 job 1 a"],
                ),
            ],
        );
        run(
            "a held job cancelled (timed out while away) is never sent",
            &[
                (
                    "written",
                    |d, t| d.handle_written(&[dispatch(1, "a")], t),
                    &[],
                ),
                (
                    "cancelled",
                    |d, t| d.handle_written(&[Effect::Cancel { job: JobId(1) }], t),
                    &[],
                ),
                ("attach", |d, t| d.handle_attach(7, &[], None, t), &[]),
            ],
        );
        run(
            "a sent job that timed out is cancelled in the realm",
            &[
                ("attach", |d, t| d.handle_attach(1, &[], None, t), &[]),
                (
                    "written",
                    |d, t| d.handle_written(&[dispatch(1, "a")], t),
                    &["send 1 job 1 a"],
                ),
                (
                    "timed out, next starts",
                    |d, t| {
                        d.handle_written(&[Effect::Cancel { job: JobId(1) }, dispatch(2, "b")], t)
                    },
                    &["send 1 cancel 1", "send 1 job 2 b"],
                ),
            ],
        );
        run(
            "a busy connection: the job waits for the next one",
            &[
                ("attach", |d, t| d.handle_attach(1, &[], None, t), &[]),
                (
                    "written",
                    |d, t| d.handle_written(&[dispatch(1, "a")], t),
                    &["send 1 job 1 a"],
                ),
                (
                    "the send failed",
                    |d, _| {
                        d.handle_send_failed(job(1, "a").msg());
                        assert!(d.handle_detach(1));
                    },
                    &[],
                ),
                (
                    "attach",
                    |d, t| d.handle_attach(2, &[], None, t),
                    &["send 2 job 1 a"],
                ),
            ],
        );
    }

    #[test]
    fn reconnects_keep_or_lose_the_running_job() {
        run(
            "a reloaded realm lost its job",
            &[
                ("attach", |d, t| d.handle_attach(1, &[], None, t), &[]),
                (
                    "written",
                    |d, t| d.handle_written(&[dispatch(1, "a")], t),
                    &["send 1 job 1 a"],
                ),
                ("detach", |d, _| assert!(d.handle_detach(1)), &[]),
                (
                    "attach without it",
                    |d, t| d.handle_attach(2, &[], Some(JobId(1)), t),
                    &["lost 1 after 200"],
                ),
            ],
        );
        run(
            "a reconnected realm still runs it: it stays sent, on the new connection",
            &[
                ("attach", |d, t| d.handle_attach(1, &[], None, t), &[]),
                (
                    "written",
                    |d, t| d.handle_written(&[dispatch(1, "a")], t),
                    &["send 1 job 1 a"],
                ),
                (
                    "attach with it",
                    |d, t| d.handle_attach(2, &[JobId(1)], Some(JobId(1)), t),
                    &[],
                ),
                (
                    "timed out",
                    |d, t| d.handle_written(&[Effect::Cancel { job: JobId(1) }], t),
                    &["send 2 cancel 1"],
                ),
            ],
        );
        run(
            "a realm still running a job this log gave up on is told to stop",
            &[(
                "attach",
                |d, t| d.handle_attach(3, &[JobId(9)], None, t),
                &["send 3 cancel 9"],
            )],
        );
    }

    /// A page that left, or reloads after its result, is sent nothing more.
    #[test]
    fn a_page_that_leaves_or_reloads_gets_no_job_it_cannot_run() {
        run(
            "a page that left is not told later",
            &[
                ("attach", |d, t| d.handle_attach(1, &[], None, t), &[]),
                (
                    "written",
                    |d, t| d.handle_written(&[dispatch(1, "a")], t),
                    &["send 1 job 1 a"],
                ),
                (
                    "left",
                    |d, _| {
                        assert!(d.job_sent());
                        assert!(d.handle_left());
                    },
                    &[],
                ),
                (
                    "the next job waits for the next document",
                    |d, t| d.handle_written(&[dispatch(2, "b")], t),
                    &[],
                ),
                ("detach", |d, _| assert!(!d.handle_detach(1)), &[]),
                (
                    "attach",
                    |d, t| d.handle_attach(2, &[], Some(JobId(2)), t),
                    &["send 2 job 2 b"],
                ),
            ],
        );
        run(
            "a page that reloads after its result gets no job before it goes",
            &[
                ("attach", |d, t| d.handle_attach(1, &[], None, t), &[]),
                (
                    "written",
                    |d, t| d.handle_written(&[dispatch(1, "daebug.reload()")], t),
                    &["send 1 job 1 daebug.reload()"],
                ),
                ("reloading", |d, _| d.handle_reloading(1), &[]),
                ("result", |d, _| d.handle_result(JobId(1)), &[]),
                (
                    "the next job is decided at once: it waits",
                    |d, t| {
                        assert_eq!(d.handle_decided(Some(job(2, "b")), t), Early::Go);
                        d.handle_written(&[dispatch(2, "b")], t);
                    },
                    &[],
                ),
                (
                    "left: the job held is not lost with the page",
                    |d, _| {
                        assert!(!d.job_sent());
                        assert!(d.handle_left());
                    },
                    &[],
                ),
                ("detach", |d, _| assert!(!d.handle_detach(1)), &[]),
                (
                    "the new document gets it",
                    |d, t| d.handle_attach(2, &[], Some(JobId(2)), t),
                    &["send 2 job 2 b"],
                ),
            ],
        );
        run(
            "a reloading page that stays and reconnects gets the job held",
            &[
                ("attach", |d, t| d.handle_attach(1, &[], None, t), &[]),
                ("reloading", |d, _| d.handle_reloading(1), &[]),
                (
                    "written",
                    |d, t| d.handle_written(&[dispatch(2, "b")], t),
                    &[],
                ),
                (
                    "a stale reloading is ignored",
                    |d, _| d.handle_reloading(7),
                    &[],
                ),
                ("detach", |d, _| assert!(d.handle_detach(1)), &[]),
                (
                    "attach",
                    |d, t| d.handle_attach(3, &[], Some(JobId(2)), t),
                    &["send 3 job 2 b"],
                ),
            ],
        );
    }
}
