//! One log's behaviour, sans IO: the [`LogEngine`] and the small machines
//! beside it, [`Delivery`] (which job a realm has), [`Presence`] (which
//! connection serves the log, and its `closed` line) and [`Intake`] (the
//! inputs in the order they are applied). `handle_*` take what happened
//! and `now`; what to do comes out of [`LogCore::poll_input`] (the next
//! input to run through the file) and [`LogCore::poll_send`] (messages for
//! a realm connection). The log task (`hub/log_task.rs`) owns the file,
//! the connections and the timers, and performs them in one loop:
//!
//! ```text
//! core.handle_*(…)                 // what happened
//! while let Some(input) = core.poll_input() {
//!     run input through the file:  // core.transact(text, base, input, now):
//!         edits and effects; a job it dispatches is already queued:
//!         send what poll_send gives, then write
//!     core.handle_applied(effects) → perform what poll_chore gives,
//!         send what poll_send gives
//! }
//! ```
//!
//! A realm's message enters once, in the wire's own type
//! ([`LogCore::handle_realm`]); what needs IO (a picture to save, a
//! screenshot or inspection for the browser bridge, a flush to answer)
//! comes back as an [`Aside`].
//!
//! Architecture Invariant: the shell applies every input the core queues
//! before it tells the core the next thing that happened (the order of
//! lines in the log is the order things happened in). [`LogCore::handle_attach`]
//! is the one call in two halves: the new document's line is written
//! before the connection gets its jobs ([`LogCore::handle_attached`]).

use std::collections::VecDeque;

use daebug_protocol::person::{PersonNews, Waiting};
use daebug_protocol::{
    BackgroundEvent, HubMsg, Inspect, InspectAnswer, InspectAsk, JobError, JobId, JobResult,
    Outcome, RealmImage, RealmKind, RealmMsg, ScreenshotAnswer, ScreenshotAsk,
};

use crate::chore::Chore;
use crate::delivery::{ConnId, Delivered, Delivery, Early, JobMsg};
use crate::engine::lifecycle::Lifecycle;
use crate::engine::picture::Picture;
use crate::engine::{Config, Effect, Input, LogEngine, Millis, Now, Output};
use crate::intake::{Deferral, Health, Intake};
use crate::machine::{LogMachine, Snapshot};
use crate::presence::{kind_name, Presence, Said};
use crate::unwritten::Unwritten;

/// A realm's message the core cannot finish without IO.
#[derive(Debug, Clone, PartialEq)]
pub enum Aside {
    /// A picture to save; its [`Picture`] comes back with
    /// [`LogCore::handle_pictures`].
    Image(RealmImage),
    /// `daebug.screenshot()`, for the browser bridge.
    Screenshot(ScreenshotAsk),
    /// `getEventListeners` / `queryObjects`, for the browser bridge.
    Inspect(InspectAsk),
    /// The realm waits to hear that what it sent before is written: answer
    /// once [`LogCore::is_settled`].
    Flush(u64),
    /// What waits for a person in the realm now: for the realm's entry in
    /// the directory (`list_realms`, the API, the dashboard).
    Waiting(Vec<Waiting>),
    /// A request's or response's body to save as `debug/archive/<name>`
    /// (docs/log-format.md, "Request bodies"), before the line linking it.
    Body { name: String, text: String },
    /// A message the realm sent that the hub cannot read: answered with an
    /// error, as a malformed envelope is.
    Unreadable(String),
}

/// A message for a realm connection.
#[derive(Debug, Clone, PartialEq)]
pub struct ToRealm {
    pub conn: ConnId,
    pub msg: HubMsg,
}

/// How many times one input is run again with fresh ids (one is enough:
/// a guard, never reached).
const MAX_SKIPS: usize = 4;

/// See the module docs.
#[derive(Debug)]
pub struct LogCore {
    /// Private: every input reaches it through [`LogMachine::transact`].
    engine: LogEngine,
    delivery: Delivery,
    presence: Presence,
    intake: Intake,
    /// Sends, in order, for [`LogCore::poll_send`].
    sends: VecDeque<ToRealm>,
    /// The shell's part of applied inputs, for [`LogCore::poll_chore`].
    chores: VecDeque<Chore>,
    /// The preludes of the last applied input, sent outside delivery: one
    /// that cannot be sent is not held for the next document (its line
    /// says it had no result).
    preludes: Vec<JobId>,
    /// While the log cannot be written: the log as it would be.
    unwritten: Option<Unwritten>,
    /// A panel, `ask` or `pick` waits for a person in the realm: no
    /// trusted input goes to it through the bridge meanwhile.
    person_asked: bool,
}

/// Why an action's trusted input (docs/actions.md) is refused: only a
/// running block acts, and never while a person is asked (only their own
/// input answers a panel).
const INPUT_BETWEEN_JOBS: &str =
    "trusted input: only a running block's action sends the browser input";
const INPUT_WHILE_ASKED: &str = "trusted input: a person is being asked in this page (a panel, ask or pick); only their own input answers it, so no action sends the browser input until they have";

impl LogCore {
    pub fn new(stem: impl Into<String>, kind: RealmKind, config: Config) -> LogCore {
        LogCore {
            engine: {
                let mut engine = LogEngine::new(stem, config);
                engine.set_kind(kind);
                engine
            },
            delivery: Delivery::default(),
            presence: Presence::new(kind),
            intake: Intake::default(),
            sends: VecDeque::new(),
            chores: VecDeque::new(),
            preludes: Vec::new(),
            unwritten: None,
            person_asked: false,
        }
    }

    /// The realm's kind, as its last hello said.
    pub fn kind(&self) -> RealmKind {
        self.presence.kind()
    }

    /// The job running now, if any.
    pub fn running(&self) -> Option<JobId> {
        self.engine.running()
    }

    /// The connection serving the log, if one does.
    pub fn serving(&self) -> Option<ConnId> {
        self.presence.conn()
    }

    /// The log is first read: a realm that has not connected yet is away.
    /// (The fan-out log has no realm of its own: `with_realm` false.)
    pub fn handle_start(&mut self, with_realm: bool) {
        if with_realm {
            if let Some(said) = self.presence.handle_start() {
                self.say(said);
            }
        }
        self.intake.handle_input(Input::Startup);
    }

    /// Something for the engine that is neither the realm's nor the
    /// presence's business (the file changed, a tick, a submitted block,
    /// a fan-out's answers, a note of the hub). A hub note about the
    /// realm's connection goes after what the realm sent before it, and so
    /// does a block the agent appended or a door sent: what the realm
    /// logged before it was written stands above it, not after its reply;
    /// the hub's stop line comes last.
    pub fn handle_input(&mut self, input: Input, now: Now) {
        if matches!(
            input,
            Input::HubNote { .. } | Input::FileChanged | Input::Submit { .. } | Input::HubStopped
        ) {
            self.intake.flush_background(now.mono);
        }
        self.intake.handle_input(input);
    }

    /// A connection now serves the log (its hello), with the document's
    /// line when it is a new document. The shell applies the queued
    /// inputs, then calls [`LogCore::handle_attached`].
    pub fn handle_attach(
        &mut self,
        conn: ConnId,
        kind: RealmKind,
        document: Option<(Lifecycle, String)>,
    ) {
        self.presence.handle_attach(conn, kind);
        self.engine.set_kind(kind);
        if let Some((what, url)) = document {
            // Before the jobs: preludes rerun on this connection first,
            // and a job that waited for the realm runs in this document
            // (its region says so).
            self.intake.handle_input(Input::Lifecycle {
                what,
                url,
                at: None,
            });
        }
    }

    /// The second half of [`LogCore::handle_attach`]: the connection gets
    /// its jobs. `in_flight`: the jobs the realm says it still runs.
    pub fn handle_attached(&mut self, conn: ConnId, in_flight: &[JobId], now: Now) {
        let running = self.engine.running();
        self.delivery
            .handle_attach(conn, in_flight, running, now.mono);
        self.deliver();
        let back = self.presence.back();
        self.say(back);
    }

    /// A connection closed. Whether it served the log (the shell forgets
    /// its sender then).
    pub fn handle_detach(&mut self, conn: ConnId, now: Now) -> bool {
        if !self.delivery.handle_detach(conn) {
            return false;
        }
        let said = self.presence.handle_dropped(now);
        self.say(said);
        true
    }

    /// The connection stopped (or started again) answering pings.
    pub fn handle_responsive(&mut self, conn: ConnId, responsive: bool) {
        if let Some(said) = self.presence.handle_responsive(conn, responsive) {
            self.say(said);
        }
    }

    /// A realm's message, in the wire's type (its stacks already mapped
    /// by the shell).
    pub fn handle_realm(&mut self, conn: ConnId, msg: RealmMsg, now: Now) -> Option<Aside> {
        match msg {
            RealmMsg::Started { job } => self.job_news(Input::Started { job }, now),
            RealmMsg::Progress(p) => self.job_news(Input::Progress(p), now),
            RealmMsg::Result(r) => self.job_news(Input::Result(r), now),
            RealmMsg::Background {
                events,
                dropped,
                limited,
            } => self.handle_background(events, dropped, limited, now),
            // Only a page says it is leaving (a worker goes with its page).
            RealmMsg::Leaving { navigated_to } => {
                let what = match navigated_to {
                    Some(url) => format!("the page navigated to {url}"),
                    None => "the page was closed".into(),
                };
                self.job_news(Input::Left { what }, now)
            }
            // A picture comes before its job's result (one channel).
            RealmMsg::Image(image) => return Some(Aside::Image(image)),
            RealmMsg::Screenshot(ask) => return Some(Aside::Screenshot(ask)),
            RealmMsg::Body { name, text } => return Some(Aside::Body { name, text }),
            RealmMsg::Inspect(ask) if ask.what == Inspect::Input => {
                let refused = match (self.running(), self.person_asked) {
                    (None, _) => Some(INPUT_BETWEEN_JOBS),
                    (Some(_), true) => Some(INPUT_WHILE_ASKED),
                    (Some(_), false) => None,
                };
                let Some(why) = refused else {
                    return Some(Aside::Inspect(ask));
                };
                self.send_to_serving(HubMsg::Inspected(InspectAnswer {
                    ask: ask.ask,
                    error: Some(why.into()),
                }));
            }
            RealmMsg::Inspect(ask) => return Some(Aside::Inspect(ask)),
            RealmMsg::Reloading => {
                self.delivery.handle_reloading(conn);
                // Its door call is answered with the new document's line.
                if self.presence.serves(conn) {
                    self.intake.handle_input(Input::Reloading);
                }
            }
            RealmMsg::Exiting { code } => self.handle_exiting(conn, &format!("code {code}"), now),
            RealmMsg::Flush { seq } => {
                // Inputs before it are queued in order; what is held for a
                // write of many goes now.
                self.intake.flush_background(now.mono);
                return Some(Aside::Flush(seq));
            }
            RealmMsg::Person { json } => {
                match serde_json::from_str::<daebug_protocol::person::PersonNews>(&json) {
                    Ok(PersonNews::Answered { title, value }) if self.presence.serves(conn) => {
                        self.job_news(Input::Human { title, value }, now)
                    }
                    Ok(PersonNews::Answered { .. }) => {}
                    Ok(PersonNews::Waiting { waits }) => {
                        self.person_asked = !waits.is_empty();
                        return Some(Aside::Waiting(waits));
                    }
                    Err(e) => return Some(Aside::Unreadable(format!("person: {e}"))),
                }
            }
            // The connection's own business (`realm.rs`).
            RealmMsg::Hello { .. } | RealmMsg::Pong { .. } => {}
        }
        None
    }

    /// Background events (the realm's, or the browser bridge's lines the
    /// adapter did not report): held for a write of many (see `flood`).
    pub fn handle_background(
        &mut self,
        events: Vec<BackgroundEvent>,
        dropped: u32,
        limited: u32,
        now: Now,
    ) {
        self.intake
            .handle_background(events, dropped, limited, now.mono);
    }

    /// Pictures the hub saved for a job (or could not).
    pub fn handle_pictures(&mut self, job: JobId, pictures: Vec<Picture>) {
        self.intake.handle_input(Input::Images { job, pictures });
    }

    /// A Node process said it ends (`how`: its code): a job it was running
    /// is lost with it, and the log says it exited, now (a `closed` line
    /// never follows: its socket's close is that same end).
    pub fn handle_exiting(&mut self, conn: ConnId, how: &str, now: Now) {
        let Some((left, line)) = self.presence.handle_exiting(conn, how) else {
            return;
        };
        self.job_news(Input::Left { what: left }, now);
        self.say(line);
    }

    /// The time [`LogCore::poll_timeout`] gave came (or passed): what is
    /// due then is queued (a deferred input's retry, the held background
    /// events, the `closed` line, the engine's tick).
    pub fn handle_timeout(&mut self, now: Now) {
        let due = |at: Option<Millis>| at.is_some_and(|at| at <= now.mono);
        self.intake.handle_retry(now.mono);
        if due(self.intake.background_due(now.mono)) {
            self.intake.flush_background(now.mono);
        }
        if let Some(said) = self.presence.poll_closed(now.mono) {
            self.say(said);
        }
        if due(self.wake_at()) {
            self.intake.handle_input(Input::Tick);
        }
    }

    /// When the core next needs [`LogCore::handle_timeout`]: the earliest
    /// of its parts' deadlines.
    pub fn poll_timeout(&self) -> Option<Millis> {
        // Held background events with no write before them are due at
        // once: any time passed counts as now.
        let background = self.intake.background_due(Millis(0));
        [
            self.intake.retry_at(),
            background,
            self.presence.deadline(),
            self.wake_at(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// The next input to run through the file, if one may run now.
    pub fn poll_input(&mut self) -> Option<Input> {
        self.intake.poll_input()
    }

    /// The input is applied (its write stood, or there was none) with
    /// these effects; the shell performs what [`LogCore::poll_chore`]
    /// gives, then sends what [`LogCore::poll_send`] gives.
    pub fn handle_applied(&mut self, effects: Vec<Effect>, now: Now) -> Health {
        self.send_preludes(&effects);
        self.delivery.handle_written(&effects, now.mono);
        self.deliver();
        self.chores
            .extend(effects.into_iter().filter_map(Chore::of));
        let health = self.intake.handle_applied();
        if health == Health::Recovered {
            self.unwritten = None;
        }
        health
    }

    /// The input at the front ran (to `engine`, `text` from `base`, and
    /// `effects`) but its write failed, because of `why`: it waits, and
    /// doors are answered from the log as it would be (see
    /// [`LogCore::poll_unwritten_answers`]). A failure again of the same
    /// input keeps the copy that is ahead.
    pub fn handle_unwritten(
        &mut self,
        ran: Snapshot,
        base: usize,
        text: String,
        effects: &[Effect],
        why: String,
    ) {
        if self.unwritten.is_none() {
            self.unwritten = Some(Unwritten::new(ran.0, base, text, effects, why));
        }
    }

    /// While the log cannot be written: the door answers the waiting
    /// inputs give on the log as it would be, each saying why the log
    /// does not show it yet, queued as [`Chore::Answered`].
    pub fn handle_unwritten_answers(&mut self, now: impl Fn() -> Now) {
        let Some(u) = self.unwritten.as_mut() else {
            return;
        };
        let answers = u.poll_answers(self.intake.waiting(), now);
        self.chores.extend(
            answers
                .into_iter()
                .map(|(ticket, answer)| Chore::Answered { ticket, answer }),
        );
    }

    /// The input could not be applied now: it waits at the front.
    pub fn handle_deferred(&mut self, input: Input, why: Deferral) -> Health {
        self.intake.handle_deferred(input, why)
    }

    /// A message from [`LogCore::poll_send`] could not be sent (the
    /// connection is busy or closing; its detach follows).
    pub fn handle_send_failed(&mut self, msg: HubMsg) {
        if matches!(&msg, HubMsg::Job { job, .. } if self.preludes.contains(job)) {
            return;
        }
        self.delivery.handle_send_failed(msg);
    }

    /// The browser bridge's answer to the realm's [`Aside::Inspect`].
    pub fn handle_inspected(&mut self, answer: InspectAnswer) {
        self.send_to_serving(HubMsg::Inspected(answer));
    }

    /// The bridge's screenshot for [`Aside::Screenshot`] (its picture, if
    /// any, came first with [`LogCore::handle_pictures`] and is applied).
    pub fn handle_screenshot(&mut self, answer: ScreenshotAnswer) {
        self.send_to_serving(HubMsg::Screenshot(answer));
    }

    /// A person's answer from the dashboard, for the realm's panel:
    /// whether a realm serves the log to take it.
    pub fn handle_person(&mut self, json: String) -> bool {
        self.send_to_serving(HubMsg::Person { json })
    }

    /// Queues `msg` for the serving connection; whether one serves.
    fn send_to_serving(&mut self, msg: HubMsg) -> bool {
        let Some(conn) = self.presence.conn() else {
            return false;
        };
        self.sends.push_back(ToRealm { conn, msg });
        true
    }

    /// Preludes go to the document that just came, ahead of any job
    /// delivery sends it; outside delivery (they are no block's job).
    fn send_preludes(&mut self, effects: &[Effect]) {
        self.preludes.clear();
        for prelude in effects.iter().filter_map(JobMsg::prelude) {
            self.preludes.push(prelude.job);
            self.send_to_serving(prelude.msg());
        }
    }

    /// The next thing for the shell to do of an applied input.
    pub fn poll_chore(&mut self) -> Option<Chore> {
        self.chores.pop_front()
    }

    /// The next message for a realm connection.
    pub fn poll_send(&mut self) -> Option<ToRealm> {
        self.sends.pop_front()
    }

    /// Whether everything the log was told is applied (flushes are
    /// answered then).
    pub fn is_settled(&self) -> bool {
        self.intake.is_empty()
    }

    /// The inputs waiting, oldest first.
    pub fn waiting(&self) -> impl Iterator<Item = &Input> {
        self.intake.waiting()
    }

    /// When the engine wants its next tick; none while inputs wait (the
    /// retry drives then).
    fn wake_at(&self) -> Option<Millis> {
        match self.intake.is_empty() {
            true => self.engine.next_wake(),
            false => None,
        }
    }

    /// A message of the realm about this log's jobs: what it sent before
    /// goes first; a result settles delivery's job; the document's leaving
    /// ends the connection's service.
    fn job_news(&mut self, input: Input, now: Now) {
        self.intake.flush_background(now.mono);
        if let Input::Result(JobResult { job, .. }) = &input {
            self.delivery.handle_result(*job);
        }
        let left = matches!(input, Input::Left { .. });
        let served = self.lost_with_realm(input);
        // The document is gone: nothing more goes to its connection; a
        // job waits for the next document.
        if left && served {
            let said = self.presence.handle_left(now);
            self.say(said);
        }
    }

    /// Queues a job's news; for [`Input::Left`], only when a job reached
    /// the realm (one held for the next document never reached this one),
    /// and ends delivery's service. Whether a connection served the log.
    fn lost_with_realm(&mut self, input: Input) -> bool {
        if !matches!(input, Input::Left { .. }) {
            self.intake.handle_input(input);
            return false;
        }
        if self.delivery.job_sent() {
            self.intake.handle_input(input);
        }
        self.delivery.handle_left()
    }

    /// What the presence machine says, to the engine.
    fn say(&mut self, said: Said) {
        self.intake.handle_input(match said {
            Said::Away(away) => Input::Presence { away },
            Said::Line { what, how, at } => Input::Lifecycle {
                what,
                url: how,
                at: at.map(|t| t.to_string()),
            },
        });
    }

    /// What delivery decided: sends, results for lost jobs, ids to skip.
    fn deliver(&mut self) {
        while let Some(d) = self.delivery.poll() {
            match d {
                Delivered::Send { conn, msg } => self.sends.push_back(ToRealm { conn, msg }),
                Delivered::Lost { job, duration_ms } => {
                    let what = kind_name(self.presence.kind());
                    self.intake.handle_input(Input::Result(JobResult {
                        job,
                        outcome: Outcome::Error(JobError {
                            name: "Interrupted".into(),
                            message: format!(
                                "the {what} reloaded or reconnected while this block ran, so its result is lost; append the block again to re-run it"
                            ),
                            stack: None,
                        }),
                        events: Vec::new(),
                        dropped: 0,
                        limited: 0,
                        duration_ms,
                    }));
                }
                Delivered::SkipPast(job) => self.engine.skip_jobs_through(job),
            }
        }
    }
}

/// The core is the machine a log's transaction runs: its engine takes the
/// text, behind it.
impl LogMachine for LogCore {
    /// The engine's run, and delivery's decision on a job it dispatches:
    /// sent now, ahead of the write that shows it running (the shell
    /// sends what [`LogCore::poll_send`] gives before it writes). When its
    /// id was already sent ahead for other code (a run that did not
    /// stand), the run is done again with ids past it: a realm runs an id
    /// once.
    fn transact(&mut self, window: &str, base: usize, input: Input, now: Now) -> Output {
        for _ in 0..MAX_SKIPS {
            let before = self.engine.snapshot();
            let out = self.engine.transact(window, base, input.clone(), now);
            let job = JobMsg::dispatched(&out.effects);
            match self.delivery.handle_decided(job, now.mono) {
                Early::Go => {
                    self.deliver();
                    return out;
                }
                Early::SkipPast(job) => {
                    self.engine.restore(before);
                    self.engine.skip_jobs_through(job);
                }
            }
        }
        // Unreachable: a run past the id sent ahead does not clash again.
        self.engine.transact(window, base, input, now)
    }

    fn snapshot(&self) -> Snapshot {
        self.engine.snapshot()
    }

    fn restore(&mut self, snapshot: Snapshot) {
        self.engine.restore(snapshot)
    }

    fn horizon(&self, window: &str, base: usize) -> Option<usize> {
        self.engine.horizon(window, base)
    }

    fn history_cut(&self, window: &str, base: usize) -> Option<usize> {
        self.engine.history_cut(window, base)
    }

    fn moved_history(&mut self, cut: usize, head: usize) {
        self.engine.moved_history(cut, head)
    }

    fn skip_jobs_through(&mut self, job: JobId) {
        self.engine.skip_jobs_through(job)
    }
}

/// The whole per-log behaviour without tokio or a file: the log is a
/// string, the transaction loop the one the log task runs, time is moved
/// by hand.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{apply, template, ClockTime};
    use crate::presence::DROPPED_GRACE;
    use daebug_protocol::{EventType, Level, Value};

    const STEM: &str = "shop-3f2a";

    /// A log task without IO: a text, a core, a clock, and what went to
    /// the realm.
    struct Desk {
        text: String,
        core: LogCore,
        ms: u64,
        sent: Vec<ToRealm>,
        /// Which connections take messages (the others fail).
        open: Vec<ConnId>,
    }

    impl Desk {
        fn new() -> Desk {
            let mut desk = Desk {
                text: template::new_log(STEM),
                core: LogCore::new(STEM, RealmKind::Page, Config::default()),
                ms: 0,
                sent: Vec::new(),
                open: Vec::new(),
            };
            desk.core.handle_start(true);
            desk.drain();
            desk
        }

        fn now(&self) -> Now {
            Now {
                mono: Millis(self.ms),
                clock: ClockTime {
                    hour: 12,
                    minute: 0,
                    second: (self.ms / 1000 % 60) as u8,
                },
            }
        }

        /// The shell's one timer: what is due at the desk's time.
        fn timeout(&mut self) {
            let now = self.now();
            self.core.handle_timeout(now);
            self.drain();
        }

        fn advance(&mut self, ms: u64) {
            self.ms += ms;
        }

        /// The log task's loop: each queued input through the text.
        fn drain(&mut self) {
            self.send_out();
            while let Some(input) = self.core.poll_input() {
                let now = self.now();
                let out = self.core.transact(&self.text, 0, input, now);
                self.send_out();
                self.text = apply(&self.text, &out.edits);
                self.core.handle_applied(out.effects, self.now());
                while self.core.poll_chore().is_some() {}
                self.send_out();
            }
        }

        fn send_out(&mut self) {
            while let Some(to) = self.core.poll_send() {
                match self.open.contains(&to.conn) {
                    true => self.sent.push(to),
                    false => self.core.handle_send_failed(to.msg),
                }
            }
        }

        fn append(&mut self, text: &str) {
            self.text.push_str(text);
            let now = self.now();
            self.core.handle_input(Input::FileChanged, now);
            self.drain();
        }

        fn attach(&mut self, conn: ConnId, in_flight: &[JobId], document: Option<Lifecycle>) {
            self.open.push(conn);
            let document = document.map(|d| (d, "http://localhost/".to_string()));
            self.core.handle_attach(conn, RealmKind::Page, document);
            self.drain();
            let now = self.now();
            self.core.handle_attached(conn, in_flight, now);
            self.drain();
        }

        fn realm(&mut self, conn: ConnId, msg: RealmMsg) -> Option<Aside> {
            let now = self.now();
            let aside = self.core.handle_realm(conn, msg, now);
            self.drain();
            aside
        }

        /// The jobs sent so far, as `conn:job`.
        fn jobs(&self) -> Vec<String> {
            self.sent
                .iter()
                .filter_map(|s| match &s.msg {
                    HubMsg::Job { job, .. } => Some(format!("{}:{}", s.conn, job.0)),
                    _ => None,
                })
                .collect()
        }

        fn last_job(&self) -> JobId {
            self.sent
                .iter()
                .rev()
                .find_map(|s| match &s.msg {
                    HubMsg::Job { job, .. } => Some(*job),
                    _ => None,
                })
                .expect("a job was sent")
        }
    }

    fn block(code: &str) -> String {
        format!("\n```js\n{code}\n```\n")
    }

    fn result(job: JobId, value: &str) -> RealmMsg {
        RealmMsg::Result(JobResult {
            job,
            outcome: Outcome::Ok(Value::Json(value.into())),
            events: Vec::new(),
            dropped: 0,
            limited: 0,
            duration_ms: 1,
        })
    }

    fn console(message: &str) -> BackgroundEvent {
        BackgroundEvent {
            kind: EventType::Console,
            level: Level::Log,
            source: None,
            ts: String::new(),
            message: message.into(),
            stack: None,
        }
    }

    /// A block appended before any realm is there waits; the realm's
    /// hello brings it; its result is the reply.
    #[test]
    fn a_job_waits_for_the_realm_and_its_result_is_written() {
        let mut desk = Desk::new();
        desk.append(&block("1 + 1"));
        assert!(desk.jobs().is_empty(), "no realm yet");
        assert!(desk.text.contains("waiting for it"), "{}", desk.text);
        desk.attach(7, &[], None);
        assert_eq!(desk.jobs().len(), 1, "sent on attach");
        let job = desk.last_job();
        assert!(desk.realm(7, result(job, "2")).is_none());
        assert!(desk.text.contains("\n2\n"), "{}", desk.text);
        assert!(desk.core.is_settled());
    }

    /// With the realm there, a job goes out before the write that shows
    /// it running (the shell sends what `transact` queued first).
    #[test]
    fn a_job_goes_out_ahead_of_its_write() {
        let mut desk = Desk::new();
        desk.attach(1, &[], None);
        desk.text.push_str(&block("2 + 2"));
        let now = desk.now();
        desk.core.handle_input(Input::FileChanged, now);
        let input = desk.core.poll_input().expect("the change");
        let out = desk.core.transact(&desk.text, 0, input, now);
        desk.send_out();
        assert_eq!(desk.jobs().len(), 1, "before the write");
        desk.text = apply(&desk.text, &out.edits);
        desk.core.handle_applied(out.effects, now);
        desk.send_out();
        assert_eq!(desk.jobs().len(), 1, "not sent twice");
    }

    /// A run whose write did not stand (the file changed under it) sent
    /// its job ahead; the run again on the newer text, with other code,
    /// takes a fresh id, and the realm is told to stop the first.
    #[test]
    fn an_id_sent_ahead_is_not_lent_to_other_code() {
        let mut desk = Desk::new();
        desk.attach(1, &[], None);
        let now = desk.now();
        desk.core.handle_input(Input::FileChanged, now);
        let input = desk.core.poll_input().expect("the change");
        let before = desk.core.snapshot();
        let first = format!("{}{}", desk.text, block("1 + 1"));
        desk.core.transact(&first, 0, input.clone(), now);
        desk.send_out();
        let sent = desk.last_job();
        desk.core.restore(before);
        let newer = format!("{}{}", desk.text, block("2 + 2"));
        let out = desk.core.transact(&newer, 0, input, now);
        let dispatched = JobMsg::dispatched(&out.effects).expect("a dispatch");
        assert!(dispatched.job > sent, "{dispatched:?} after {sent}");
        desk.send_out();
        desk.text = apply(&newer, &out.edits);
        desk.core.handle_applied(out.effects, now);
        desk.send_out();
        let cancelled = desk
            .sent
            .iter()
            .any(|s| matches!(s.msg, HubMsg::Cancel { job } if job == sent));
        assert!(cancelled, "{:?}", desk.sent);
        assert_eq!(desk.core.running(), Some(dispatched.job));
    }

    /// Background events the realm sent before a result go in before it
    /// (held for a write of many until then).
    #[test]
    fn what_the_realm_sent_first_goes_in_first() {
        let mut desk = Desk::new();
        desk.attach(1, &[], None);
        desk.append(&block("3 + 3"));
        let job = desk.last_job();
        let now = desk.now();
        desk.core
            .handle_background(vec![console("before the result")], 0, 0, now);
        assert!(desk.core.is_settled(), "held for a write of many");
        desk.core.handle_realm(1, result(job, "6"), now);
        let order: Vec<&str> = desk
            .core
            .waiting()
            .map(|i| match i {
                Input::Background { .. } => "background",
                Input::Result(_) => "result",
                _ => "other",
            })
            .collect();
        assert_eq!(order, ["background", "result"]);
        desk.drain();
        assert!(desk.text.contains("before the result"), "{}", desk.text);
        assert!(desk.text.contains("\n6\n"), "{}", desk.text);
    }

    /// What the realm logged before the agent appended a block goes in
    /// before the block is taken: above it, not after its reply.
    #[test]
    fn what_the_realm_logged_before_an_append_goes_in_before_it() {
        let mut desk = Desk::new();
        desk.attach(1, &[], None);
        let now = desk.now();
        desk.core
            .handle_background(vec![console("at load")], 0, 0, now);
        assert!(desk.core.is_settled(), "held for a write of many");
        desk.append(&block("4 + 4"));
        let text = &desk.text;
        let (logged, block_at) = (text.find("at load").unwrap(), text.find("4 + 4").unwrap());
        assert!(logged < block_at, "{text}");
    }

    /// The page navigates away while its job runs: the reply says so now;
    /// the `closed` line comes after the grace; a job appended meanwhile
    /// waits and goes to the next document, after its line.
    #[test]
    fn a_page_that_leaves_mid_job_is_answered_and_closed_after_the_grace() {
        let mut desk = Desk::new();
        desk.attach(1, &[], None);
        desk.append(&block("await new Promise(() => {})"));
        desk.realm(
            1,
            RealmMsg::Leaving {
                navigated_to: Some("http://localhost/next".into()),
            },
        );
        assert!(
            desk.text
                .contains("the page navigated to http://localhost/next"),
            "{}",
            desk.text
        );
        assert_eq!(desk.core.serving(), None);
        assert!(!desk.core.handle_detach(1, desk.now()), "already gone");
        let due = desk.core.poll_timeout().expect("a closed line is due");
        desk.advance(1000);
        desk.timeout();
        assert!(!desk.text.contains(" closed at "), "not before the grace");
        desk.ms = due.0;
        desk.timeout();
        assert!(desk.text.contains(" closed at "), "{}", desk.text);
        desk.append(&block("4 + 4"));
        let before = desk.jobs().len();
        desk.attach(2, &[], Some(Lifecycle::Navigated));
        assert_eq!(desk.jobs().len(), before + 1, "the waiting job went");
        assert!(desk.jobs().last().unwrap().starts_with("2:"));
    }

    /// A realm that reconnects without the job it ran (it reloaded) lost
    /// it: the reply says so; one that still runs it keeps it.
    #[test]
    fn a_reconnect_keeps_or_loses_the_running_job() {
        for (in_flight, lost) in [(true, false), (false, true)] {
            let mut desk = Desk::new();
            desk.attach(1, &[], None);
            desk.append(&block("await new Promise(() => {})"));
            let job = desk.last_job();
            assert!(desk.core.handle_detach(1, desk.now()));
            desk.drain();
            let running: &[JobId] = if in_flight { &[job] } else { &[] };
            desk.attach(2, running, Some(Lifecycle::Reloaded));
            assert_eq!(
                desk.text.contains("Interrupted"),
                lost,
                "in flight: {in_flight}\n{}",
                desk.text
            );
            assert_eq!(desk.core.running().is_some(), !lost);
            if !lost {
                desk.realm(2, result(job, "5"));
                assert!(desk.text.contains("\n5\n"), "{}", desk.text);
            }
        }
    }

    /// A connection that cannot take its job (closing) leaves it held for
    /// the next, which gets it.
    #[test]
    fn a_send_that_fails_holds_the_job_for_the_next_connection() {
        let mut desk = Desk::new();
        desk.attach(1, &[], None);
        desk.open.clear();
        desk.append(&block("5 + 5"));
        assert!(desk.jobs().is_empty());
        desk.core.handle_detach(1, desk.now());
        desk.drain();
        desk.attach(2, &[], Some(Lifecycle::Reloaded));
        assert_eq!(desk.jobs().len(), 1);
        assert!(desk.jobs()[0].starts_with("2:"));
        let job = desk.last_job();
        desk.realm(2, result(job, "10"));
        assert!(desk.text.contains("\n10\n"), "{}", desk.text);
    }

    /// What needs IO comes back as an aside; a flush is answered once the
    /// log is settled.
    #[test]
    fn asides_are_the_shells_business() {
        let mut desk = Desk::new();
        desk.attach(1, &[], None);
        let now = desk.now();
        desk.core.handle_background(vec![console("x")], 0, 0, now);
        let aside = desk.realm(1, RealmMsg::Flush { seq: 3 });
        assert_eq!(aside, Some(Aside::Flush(3)));
        assert!(desk.core.is_settled());
        assert!(desk.text.contains("x"), "the held events went first");
        let ask = ScreenshotAsk {
            ask: 1,
            job: JobId(1),
            selector: None,
        };
        assert_eq!(
            desk.realm(1, RealmMsg::Screenshot(ask.clone())),
            Some(Aside::Screenshot(ask))
        );
    }

    /// Answers for the realm (a person's, the bridge's) leave through
    /// `poll_send`, to the connection serving the log; with none, nothing.
    #[test]
    fn answers_for_the_realm_leave_through_poll_send() {
        let mut desk = Desk::new();
        assert!(!desk.core.handle_person("{}".into()), "no realm serves");
        desk.attach(3, &[], None);
        assert!(desk.core.handle_person("{}".into()));
        desk.core.handle_inspected(InspectAnswer {
            ask: 1,
            error: None,
        });
        desk.core.handle_screenshot(ScreenshotAnswer {
            ask: 2,
            path: None,
            width: 0,
            height: 0,
            error: Some("no bridge".into()),
        });
        desk.send_out();
        let sent: Vec<String> = desk
            .sent
            .iter()
            .map(|s| {
                let what = match &s.msg {
                    HubMsg::Person { .. } => "person",
                    HubMsg::Inspected(_) => "inspected",
                    HubMsg::Screenshot(_) => "screenshot",
                    _ => "other",
                };
                format!("{}:{what}", s.conn)
            })
            .collect();
        assert_eq!(sent, ["3:person", "3:inspected", "3:screenshot"]);
    }

    /// An action's trusted input goes to the bridge only while a block
    /// runs and no person is asked; a refusal is answered to the realm.
    #[test]
    fn trusted_input_only_for_a_running_block_and_never_while_a_person_is_asked() {
        let input = |ask| {
            RealmMsg::Inspect(InspectAsk {
                ask,
                what: Inspect::Input,
            })
        };
        let refusals = |desk: &mut Desk| -> Vec<String> {
            desk.send_out();
            desk.sent
                .drain(..)
                .filter_map(|s| match s.msg {
                    HubMsg::Inspected(a) => {
                        Some(format!("{}:{}", a.ask, a.error.unwrap_or_default()))
                    }
                    _ => None,
                })
                .collect()
        };
        let mut desk = Desk::new();
        desk.attach(1, &[], None);
        assert_eq!(desk.realm(1, input(1)), None);
        assert_eq!(refusals(&mut desk), [format!("1:{INPUT_BETWEEN_JOBS}")]);
        desk.append(&block("await daebug.click('text=Save')"));
        assert_eq!(desk.jobs().len(), 1);
        let ask = InspectAsk {
            ask: 2,
            what: Inspect::Input,
        };
        assert_eq!(desk.realm(1, input(2)), Some(Aside::Inspect(ask)));
        let asked = r#"{"type":"waiting","waits":[{"id":1,"kind":"ask","title":"Continue?"}]}"#;
        let aside = desk.realm(1, RealmMsg::Person { json: asked.into() });
        assert!(matches!(aside, Some(Aside::Waiting(_))), "{aside:?}");
        assert_eq!(desk.realm(1, input(3)), None);
        assert_eq!(refusals(&mut desk), [format!("3:{INPUT_WHILE_ASKED}")]);
        let answered = r#"{"type":"waiting","waits":[]}"#;
        desk.realm(
            1,
            RealmMsg::Person {
                json: answered.into(),
            },
        );
        assert!(desk.realm(1, input(4)).is_some());
    }

    /// Held background events are due at once after a quiet spell; the
    /// one timeout writes them.
    #[test]
    fn the_one_timeout_writes_held_events() {
        let mut desk = Desk::new();
        desk.attach(1, &[], None);
        let now = desk.now();
        desk.core
            .handle_background(vec![console("held")], 0, 0, now);
        assert!(desk.core.poll_timeout().is_some_and(|at| at <= now.mono));
        desk.timeout();
        assert!(desk.text.contains("held"), "{}", desk.text);
        assert_eq!(desk.core.poll_timeout(), None);
    }

    /// A silent close: the longer grace.
    #[test]
    fn a_silent_close_waits_the_longer_grace() {
        let mut desk = Desk::new();
        desk.attach(1, &[], None);
        assert!(desk.core.handle_detach(1, desk.now()));
        assert_eq!(
            desk.core.poll_timeout(),
            Some(desk.now().mono + DROPPED_GRACE)
        );
    }
}
