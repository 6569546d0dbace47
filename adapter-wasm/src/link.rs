//! The realm's side of the WebSocket protocol, as a pure state machine
//! (socket events and job completions in, [`Action`]s out), so every rule
//! is tested natively; the browser binding only moves bytes and timers.
//!
//! - On open: hello, listing the jobs still running here (after a dropped
//!   connection the hub keeps waiting for them instead of reporting them
//!   interrupted).
//! - A job id is run once, whatever the hub resends.
//! - A cancelled job is no longer waited for: its events so far go out as
//!   background at once; if it settles later, its result is still sent (the
//!   hub writes it as late).
//! - Results that settle while disconnected are sent after the next
//!   welcome, and the hello lists their jobs (so the hub waits for them
//!   instead of reporting them interrupted). Results are never dropped;
//!   background events wait too (the oldest go past a bound), progress does
//!   not (the result carries every event anyway).
//! - A closed socket is reopened after a growing, jittered wait.
//! - A page going away (`pagehide`) says so and closes its socket, so a
//!   page kept in the back/forward cache never looks alive; it connects
//!   again when shown (`pageshow`).

use daebug_protocol::{HubMsg, JobId, JobResult, Outcome, RealmKind, RealmMsg, PROTOCOL_VERSION};

use crate::backoff::Backoff;
use crate::buffer::{Batch, Outgoing};

/// Job ids remembered to refuse a second run.
const REMEMBERED: usize = 256;
/// Messages kept while disconnected; the oldest go first.
const OUTBOX: usize = 64;

/// What the realm says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub kind: RealmKind,
    pub name: String,
    pub url: String,
    /// The tab id (may be empty: the hub then gives one).
    pub id: String,
    /// A worker: its page's tab id (empty for a page).
    pub tab: String,
    /// How this document or worker came (see the hello's `navigation`);
    /// sent until the first welcome, so the hub hears of it once.
    pub navigation: Option<String>,
    /// A Node process's pid.
    pub pid: Option<u32>,
}

/// What the binding must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send this message on the open socket.
    Send(RealmMsg),
    /// Start running a job (the binding reports back with
    /// [`Link::job_done`]).
    Run {
        job: JobId,
        code: String,
        /// Fence options `depth=N` and `full` (see [`crate::reply`]).
        depth: Option<u32>,
        full: bool,
    },
    /// Remember this tab id (sessionStorage), so a reload continues the
    /// same log.
    KeepId(String),
    /// Open the socket again after this many milliseconds.
    Reconnect { after_ms: u64 },
    /// Close the socket (the hub said goodbye); a reconnect follows the
    /// close event.
    Close,
    /// The hub gave up on this job: end its event window now (the events
    /// so far are sent as background).
    EndJob(JobId),
    /// Something the hub refused; worth a line on the original console.
    Warn(String),
    /// The hub's answer to a screenshot the realm asked for.
    Screenshot(daebug_protocol::ScreenshotAnswer),
    /// The hub's answer to `getEventListeners` / `queryObjects`.
    Inspected(daebug_protocol::InspectAnswer),
    /// What was sent before the flush with this `seq` is in the log.
    Flushed(u64),
    /// A person acted in the dashboard: for the toolkit's panel module.
    Person(String),
}

/// See the module docs.
#[derive(Debug)]
pub struct Link {
    identity: Identity,
    backoff: Backoff,
    /// Welcomed on the current socket.
    welcomed: bool,
    /// Jobs started here and not settled.
    running: Vec<JobId>,
    /// Job ids already run.
    seen: Vec<JobId>,
    /// Results and background batches waiting for a welcome.
    outbox: Vec<RealmMsg>,
    /// The page is hidden (`pagehide`): a closed socket stays closed.
    hidden: bool,
    /// The stem of the log the hub gave this realm (empty before).
    stem: String,
}

impl Link {
    pub fn new(identity: Identity) -> Link {
        Link {
            identity,
            backoff: Backoff::default(),
            welcomed: false,
            running: Vec::new(),
            seen: Vec::new(),
            outbox: Vec::new(),
            hidden: false,
            stem: String::new(),
        }
    }

    /// The tab id in use.
    pub fn id(&self) -> &str {
        &self.identity.id
    }

    /// The stem of this realm's log, as the last welcome said.
    pub fn stem(&self) -> &str {
        &self.stem
    }

    /// Whether the hub has welcomed the current socket.
    pub fn welcomed(&self) -> bool {
        self.welcomed
    }

    /// The socket opened.
    pub fn on_open(&mut self) -> Vec<Action> {
        self.welcomed = false;
        vec![Action::Send(RealmMsg::Hello {
            version: PROTOCOL_VERSION,
            kind: self.identity.kind,
            name: self.identity.name.clone(),
            url: self.identity.url.clone(),
            id: self.identity.id.clone(),
            tab: self.identity.tab.clone(),
            navigation: self.identity.navigation.clone(),
            pid: self.identity.pid,
            // Running here, or settled with the result still to send.
            jobs: self
                .running
                .iter()
                .copied()
                .chain(self.outbox.iter().filter_map(|m| match m {
                    RealmMsg::Result(r) => Some(r.job),
                    _ => None,
                }))
                .collect(),
        })]
    }

    /// A message arrived (the binding parses the frame).
    pub fn on_message(&mut self, msg: HubMsg) -> Vec<Action> {
        match msg {
            HubMsg::Welcome { id, stem, .. } => {
                self.welcomed = true;
                self.stem = stem;
                self.backoff.reset();
                self.identity.id = id.clone();
                self.identity.navigation = None;
                let mut actions = vec![Action::KeepId(id)];
                actions.extend(self.outbox.drain(..).map(Action::Send));
                actions
            }
            HubMsg::Job {
                job,
                code,
                depth,
                full,
                ..
            } => {
                if self.seen.contains(&job) {
                    return Vec::new();
                }
                if self.seen.len() >= REMEMBERED {
                    self.seen.remove(0);
                }
                self.seen.push(job);
                self.running.push(job);
                vec![Action::Run {
                    job,
                    code,
                    depth,
                    full,
                }]
            }
            HubMsg::Cancel { job } => match self.running.contains(&job) {
                true => vec![Action::EndJob(job)],
                false => Vec::new(),
            },
            HubMsg::Ping { seq } => vec![Action::Send(RealmMsg::Pong { seq })],
            HubMsg::Error { message } => vec![Action::Warn(format!("daebug hub: {message}"))],
            HubMsg::Bye { .. } => vec![Action::Close],
            HubMsg::Screenshot(answer) => vec![Action::Screenshot(answer)],
            HubMsg::Inspected(answer) => vec![Action::Inspected(answer)],
            HubMsg::Flushed { seq } => vec![Action::Flushed(seq)],
            HubMsg::Person { json } => vec![Action::Person(json)],
        }
    }

    /// The socket closed (or could not open). `random` in `[0, 1)`.
    pub fn on_close(&mut self, random: f64) -> Vec<Action> {
        self.welcomed = false;
        if self.hidden {
            return Vec::new();
        }
        vec![Action::Reconnect {
            after_ms: self.backoff.next_delay(random),
        }]
    }

    /// The page is going away (`pagehide`), to `navigated_to` when it
    /// knows: the hub hears it now, and the socket closes.
    pub fn on_hide(&mut self, navigated_to: Option<String>) -> Vec<Action> {
        self.hidden = true;
        let mut actions = Vec::new();
        if self.welcomed {
            actions.push(Action::Send(RealmMsg::Leaving { navigated_to }));
        }
        self.welcomed = false;
        actions.push(Action::Close);
        actions
    }

    /// The page is shown again (`pageshow` from the back/forward cache).
    pub fn on_show(&mut self) -> Vec<Action> {
        if !std::mem::take(&mut self.hidden) {
            return Vec::new();
        }
        self.backoff.reset();
        vec![Action::Reconnect { after_ms: 0 }]
    }

    /// A job settled here, with the events captured while it ran.
    pub fn job_done(
        &mut self,
        job: JobId,
        outcome: Outcome,
        duration_ms: u64,
        events: Batch,
    ) -> Vec<Action> {
        self.running.retain(|j| *j != job);
        self.deliver(RealmMsg::Result(JobResult {
            job,
            outcome,
            events: events.events,
            dropped: events.dropped,
            limited: events.limited,
            duration_ms,
        }))
    }

    /// A picture the job made, encoded: it goes ahead of the job's result
    /// (kept in the outbox like a result while the hub is away).
    pub fn image(&mut self, image: daebug_protocol::RealmImage) -> Vec<Action> {
        self.deliver(RealmMsg::Image(image))
    }

    /// `daebug.screenshot()`: the hub takes it (its answer comes as
    /// [`Action::Screenshot`]).
    pub fn screenshot(&mut self, ask: daebug_protocol::ScreenshotAsk) -> Vec<Action> {
        self.deliver(RealmMsg::Screenshot(ask))
    }

    /// `getEventListeners` / `queryObjects`: the hub asks its browser
    /// bridge (its answer comes as [`Action::Inspected`]).
    pub fn inspect(&mut self, ask: daebug_protocol::InspectAsk) -> Vec<Action> {
        self.deliver(RealmMsg::Inspect(ask))
    }

    /// The page reloads after the result it sends next: the hub hears it
    /// first, so it sends no job this document would not run.
    pub fn reloading(&mut self) -> Vec<Action> {
        self.deliver(RealmMsg::Reloading)
    }

    /// A Node process ends with `code`: said to the hub (now, or at the
    /// next welcome).
    pub fn exiting(&mut self, code: i32) -> Vec<Action> {
        self.deliver(RealmMsg::Exiting { code })
    }

    /// Ask the hub to answer `seq` once what was sent before is written.
    pub fn flush(&mut self, seq: u64) -> Vec<Action> {
        self.deliver(RealmMsg::Flush { seq })
    }

    /// Whether a hub welcomed this realm at some point: one that did and
    /// is not connected now went away (a process ending then does not
    /// wait for it).
    pub fn was_welcomed(&self) -> bool {
        !self.stem.is_empty()
    }

    /// Events the buffer wants sent.
    pub fn events(&mut self, out: Outgoing) -> Vec<Action> {
        match out {
            Outgoing::Background(b) => self.deliver(RealmMsg::Background {
                events: b.events,
                dropped: b.dropped,
                limited: b.limited,
            }),
            // Progress is only worth something now.
            Outgoing::Progress(p) if self.welcomed => vec![Action::Send(RealmMsg::Progress(p))],
            Outgoing::Progress(_) => Vec::new(),
        }
    }

    fn deliver(&mut self, mut msg: RealmMsg) -> Vec<Action> {
        if self.welcomed {
            return vec![Action::Send(msg)];
        }
        // Past the bound, the oldest background batch goes (its events are
        // context); a result is never dropped.
        if self.outbox.len() >= OUTBOX {
            if let Some(i) = self
                .outbox
                .iter()
                .position(|m| matches!(m, RealmMsg::Background { .. }))
            {
                // Its events are counted in the next background batch:
                // every limit says what it dropped.
                if let RealmMsg::Background {
                    events, dropped, ..
                } = self.outbox.remove(i)
                {
                    let lost = u32::try_from(events.len()).unwrap_or(u32::MAX);
                    let lost = lost.saturating_add(dropped);
                    let next = self
                        .outbox
                        .iter_mut()
                        .chain(std::iter::once(&mut msg))
                        .find_map(|m| match m {
                            RealmMsg::Background { dropped, .. } => Some(dropped),
                            _ => None,
                        });
                    match next {
                        Some(d) => *d = d.saturating_add(lost),
                        None => self.outbox.push(RealmMsg::Background {
                            events: Vec::new(),
                            dropped: lost,
                            limited: 0,
                        }),
                    }
                }
            }
        }
        self.outbox.push(msg);
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use daebug_protocol::Value;

    fn link() -> Link {
        Link::new(Identity {
            kind: RealmKind::Page,
            name: "Shop".into(),
            url: "http://127.0.0.1:8302/".into(),
            id: "3f2a".into(),
            tab: String::new(),
            navigation: Some("reload".into()),
            pid: None,
        })
    }

    fn welcome(id: &str) -> String {
        format!(r#"{{"type":"welcome","version":1,"stem":"shop-{id}","id":"{id}"}}"#)
    }

    /// Parses a frame as the binding does.
    fn msg(text: &str) -> HubMsg {
        serde_json::from_str(text).expect("a hub message")
    }

    fn ok(v: &str) -> Outcome {
        Outcome::Ok(Value::Json(v.into()))
    }

    #[test]
    fn only_the_first_welcomed_hello_says_how_the_document_came() {
        let mut l = link();
        let navigation = |actions: &[Action]| match actions {
            [Action::Send(RealmMsg::Hello { navigation, .. })] => navigation.clone(),
            other => panic!("{other:?}"),
        };
        // A socket that closes before its welcome: the next hello says it again.
        assert_eq!(navigation(&l.on_open()).as_deref(), Some("reload"));
        l.on_close(0.5);
        assert_eq!(navigation(&l.on_open()).as_deref(), Some("reload"));
        l.on_message(msg(&welcome("3f2a")));
        l.on_close(0.5);
        assert_eq!(navigation(&l.on_open()), None);
    }

    #[test]
    fn hello_then_welcome_keeps_the_id_the_hub_gives() {
        let mut l = link();
        match &l.on_open()[..] {
            [Action::Send(RealmMsg::Hello { id, jobs, .. })] => {
                assert_eq!(id, "3f2a");
                assert!(jobs.is_empty());
            }
            other => panic!("{other:?}"),
        }
        // A duplicated tab: the hub hands out another id.
        assert_eq!(
            l.on_message(msg(&welcome("beef"))),
            vec![Action::KeepId("beef".into())]
        );
        assert_eq!(l.id(), "beef");
        assert_eq!(l.stem(), "shop-beef");
        assert!(l.welcomed());
    }

    #[test]
    fn a_reload_is_announced_before_the_result_even_while_away() {
        let mut l = link();
        l.on_open();
        l.on_message(msg(&welcome("3f2a")));
        l.on_message(msg(
            r#"{"type":"job","job":4,"code":"1","timeout_ms":1000}"#,
        ));
        assert_eq!(l.reloading(), vec![Action::Send(RealmMsg::Reloading)]);
        // Away: both wait for the welcome, in order.
        l.on_close(0.5);
        assert!(l.reloading().is_empty());
        assert!(l
            .job_done(JobId(4), ok("1"), 1, Batch::default())
            .is_empty());
        l.on_open();
        match &l.on_message(msg(&welcome("3f2a")))[..] {
            [Action::KeepId(_), Action::Send(RealmMsg::Reloading), Action::Send(RealmMsg::Result(r))] =>
            {
                assert_eq!(r.job, JobId(4))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_jobs_fence_options_reach_its_run() {
        let mut l = link();
        l.on_open();
        l.on_message(msg(&welcome("3f2a")));
        let job = r#"{"type":"job","job":8,"code":"x","timeout_ms":60000,"depth":8,"full":true}"#;
        assert_eq!(
            l.on_message(msg(job)),
            vec![Action::Run {
                job: JobId(8),
                code: "x".into(),
                depth: Some(8),
                full: true,
            }]
        );
    }

    #[test]
    fn a_job_runs_once_and_its_result_is_sent() {
        let mut l = link();
        l.on_open();
        l.on_message(msg(&welcome("3f2a")));
        let job = r#"{"type":"job","job":7,"code":"1 + 1","timeout_ms":60000}"#;
        assert_eq!(
            l.on_message(msg(job)),
            vec![Action::Run {
                job: JobId(7),
                code: "1 + 1".into(),
                depth: None,
                full: false,
            }]
        );
        assert_eq!(
            l.on_message(msg(job)),
            vec![],
            "a resent job does not run again"
        );
        let done = l.job_done(JobId(7), ok("2"), 3, Batch::default());
        match &done[..] {
            [Action::Send(RealmMsg::Result(r))] => {
                assert_eq!((r.job, r.duration_ms), (JobId(7), 3));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_hidden_page_says_it_leaves_closes_and_comes_back_when_shown() {
        let mut l = link();
        l.on_open();
        l.on_message(msg(&welcome("ab12")));
        let a = l.on_hide(Some("http://x/next".into()));
        assert_eq!(
            a,
            vec![
                Action::Send(RealmMsg::Leaving {
                    navigated_to: Some("http://x/next".into())
                }),
                Action::Close
            ]
        );
        assert!(l.on_close(0.5).is_empty(), "no reconnect while hidden");
        assert_eq!(l.on_show(), vec![Action::Reconnect { after_ms: 0 }]);
        assert!(l.on_show().is_empty(), "shown once");
        assert!(matches!(l.on_close(0.5)[..], [Action::Reconnect { .. }]));
    }

    #[test]
    fn pings_are_answered_and_bye_closes() {
        let mut l = link();
        assert_eq!(
            l.on_message(msg(r#"{"type":"ping","seq":4}"#)),
            vec![Action::Send(RealmMsg::Pong { seq: 4 })]
        );
        assert_eq!(
            l.on_message(msg(r#"{"type":"bye","reason":"x"}"#)),
            vec![Action::Close]
        );
        assert!(matches!(
            &l.on_message(msg(r#"{"type":"error","message":"no"}"#))[..],
            [Action::Warn(_)]
        ));
    }

    #[test]
    fn a_cancel_ends_the_event_window_and_a_late_result_is_still_sent() {
        let mut l = link();
        l.on_open();
        l.on_message(msg(&welcome("3f2a")));
        l.on_message(msg(r#"{"type":"job","job":1,"code":"x","timeout_ms":1}"#));
        assert_eq!(
            l.on_message(msg(r#"{"type":"cancel","job":1}"#)),
            vec![Action::EndJob(JobId(1))]
        );
        assert_eq!(l.on_message(msg(r#"{"type":"cancel","job":99}"#)), vec![]);
        assert!(matches!(
            &l.job_done(JobId(1), ok("1"), 5, Batch::default())[..],
            [Action::Send(RealmMsg::Result(r))] if r.job == JobId(1)
        ));
    }

    #[test]
    fn results_are_never_dropped_while_disconnected() {
        let mut l = link();
        l.on_message(msg(r#"{"type":"job","job":5,"code":"x","timeout_ms":1}"#));
        l.job_done(JobId(5), ok("5"), 1, Batch::default());
        for _ in 0..200 {
            l.events(Outgoing::Background(Batch {
                events: vec![],
                dropped: 1,
                limited: 0,
            }));
        }
        match &l.on_open()[..] {
            [Action::Send(RealmMsg::Hello { jobs, .. })] => assert_eq!(jobs, &[JobId(5)]),
            other => panic!("{other:?}"),
        }
        let actions = l.on_message(msg(&welcome("3f2a")));
        assert!(actions
            .iter()
            .any(|a| matches!(a, Action::Send(RealmMsg::Result(r)) if r.job == JobId(5))));
        assert!(actions.len() <= OUTBOX + 1, "{}", actions.len());
        // The batches that did not fit are still counted, all 200.
        let counted: u32 = actions
            .iter()
            .map(|a| match a {
                Action::Send(RealmMsg::Background {
                    events, dropped, ..
                }) => events.len() as u32 + dropped,
                _ => 0,
            })
            .sum();
        assert_eq!(counted, 200);
    }

    #[test]
    fn after_a_drop_the_hello_lists_running_jobs_and_results_wait_for_the_welcome() {
        let mut l = link();
        l.on_open();
        l.on_message(msg(&welcome("3f2a")));
        l.on_message(msg(
            r#"{"type":"job","job":9,"code":"x","timeout_ms":1000}"#,
        ));
        assert!(matches!(
            l.on_close(1.0)[..],
            [Action::Reconnect { after_ms: 250 }]
        ));
        assert!(matches!(
            l.on_close(1.0)[..],
            [Action::Reconnect { after_ms: 500 }]
        ));
        // The job settles while the socket is down: kept.
        assert_eq!(l.job_done(JobId(9), ok("1"), 5, Batch::default()), vec![]);
        l.on_message(msg(
            r#"{"type":"job","job":10,"code":"y","timeout_ms":1000}"#,
        ));
        match &l.on_open()[..] {
            // 10 still runs; 9 settled and its result waits to be sent.
            [Action::Send(RealmMsg::Hello { jobs, .. })] => {
                assert_eq!(jobs, &[JobId(10), JobId(9)])
            }
            other => panic!("{other:?}"),
        }
        let actions = l.on_message(msg(&welcome("3f2a")));
        assert!(matches!(
            &actions[..],
            [Action::KeepId(_), Action::Send(RealmMsg::Result(r))] if r.job == JobId(9)
        ));
        // The backoff starts over after a welcome.
        assert!(matches!(
            l.on_close(1.0)[..],
            [Action::Reconnect { after_ms: 250 }]
        ));
    }

    #[test]
    fn progress_is_dropped_while_disconnected_background_is_kept() {
        let mut l = link();
        let progress = Outgoing::Progress(daebug_protocol::JobProgress {
            job: JobId(1),
            events: vec![],
            dropped: 0,
            limited: 0,
            elapsed_ms: 1,
        });
        assert_eq!(l.events(progress), vec![]);
        assert_eq!(
            l.events(Outgoing::Background(Batch {
                events: vec![],
                dropped: 2,
                limited: 0,
            })),
            vec![]
        );
        l.on_open();
        let actions = l.on_message(msg(&welcome("3f2a")));
        assert!(matches!(
            &actions[..],
            [
                Action::KeepId(_),
                Action::Send(RealmMsg::Background { dropped: 2, .. })
            ]
        ));
    }
}
