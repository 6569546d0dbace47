//! One task per chat log: the IO shell of its [`LogCore`]. It reads and
//! writes `debug/<stem>.md`, holds the realm connection's sender and one
//! timer ([`LogTask::next_timeout`]: the core's `poll_timeout`, a look
//! into a replaced file, the bridge's held lines), sends what the core's
//! `poll_send` gives and performs its chores (docs/architecture.md, "The
//! machine").
//!
//! Everything that concerns one log arrives in its inbox (file changed,
//! messages of its realm, the realm coming and going), so no lock guards a
//! log's state: the task handles one message at a time, start to finish:
//! it tells the core, then runs the inputs the core queued through the
//! file ([`LogTask::drain`], the one transaction loop; the file side of
//! each is [`super::log_file`]).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use daebug_protocol::{
    BackgroundEvent, HubMsg, Inspect, InspectAnswer, InspectAsk, JobError, JobId, JobProgress,
    Outcome, RealmImage, RealmKind, RealmMsg, ScreenshotAnswer, ScreenshotAsk, Value,
    MAX_IMAGE_BYTES,
};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, Semaphore};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::browser_seen::BrowserSeen;
use super::clock::{wall, Clock};
use super::fsio::write_atomic;
use super::image_file::{over_limit, ImageFiles, ImageMeta};
use super::log_file::{Later, LogFile, UnwrittenRun};
use super::messages::{DirMsg, LogHandle, LogMsg, RealmLetter, REALM_INBOX};
use super::timing::JobTimes;
use crate::sourcemap::SourceMaps;
use daebug_core::chore::Chore;
use daebug_core::delivery::ConnId;
use daebug_core::delivery::Early;
use daebug_core::effects::take_effects;
use daebug_core::engine::effect::Answer;
use daebug_core::engine::lifecycle::Lifecycle;
use daebug_core::engine::picture::Picture;
use daebug_core::engine::{Config, Effect, Input};
use daebug_core::intake::{Deferral, Health};
use daebug_core::log_core::{Aside, LogCore, ToRealm};
use daebug_core::prepare::cell::Cells;
use daebug_protocol::door::HubEvent;

/// When to look into the file a write replaced, after the write: late
/// writes through old handles are rescued (see [`LogFile::rescue`]).
const RESCUE_CHECKS: [Duration; 4] = [
    Duration::from_millis(50),
    Duration::from_millis(250),
    Duration::from_millis(1000),
    super::log_file::ORPHAN_LIFE,
];

/// How long to wait before trying again after a read or write failed.
const RETRY_AFTER_ERROR: Duration = Duration::from_secs(1);

/// Why a page or a worker has no debugger for logpoints, `monitor` and
/// `daebug.scopes` (docs/log-format.md, "Logpoints"): the realm puts the
/// call's name before it.
/// Why an action makes its events in the page (docs/actions.md): the
/// adapter's words for "no trusted input here", which it says once.
const NO_TRUSTED_INPUT: &str = "trusted input needs the browser bridge (start the hub with --cdp <a Chromium's DevTools URL>, docs/browser-bridge.md) and a page's own realm";
const NO_DEBUGGER: &str = "pages and workers need the browser bridge for this: start the hub with --cdp <a Chromium's DevTools URL> (docs/browser-bridge.md); Firefox and WebKit have none: daebug.probe([object, \"method\"]) wraps a function in place instead";

/// The realm connection serving a log: where [`ToRealm`] goes.
#[derive(Debug)]
struct RealmLink {
    conn: ConnId,
    tx: mpsc::Sender<HubMsg>,
}

/// The first job id of a log task: the wall clock in milliseconds times
/// a thousand. Ids only need to differ within one log (they name its
/// archive files), also across hub restarts: a restart comes at least
/// milliseconds later, and a log never runs a thousand jobs a millisecond.
/// (Stays below 2^53, so the adapter's JavaScript reads it exactly.)
fn first_job() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_millis() as u64)
        .saturating_mul(1000)
}

/// Settings shared by all log tasks.
#[derive(Debug, Clone)]
pub struct LogSettings {
    /// The `debug/` folder.
    pub dir: PathBuf,
    pub default_timeout: Duration,
    pub clock: Clock,
    /// Where state changes and notices go.
    pub directory: mpsc::UnboundedSender<DirMsg>,
    pub shutdown: CancellationToken,
    /// Page scripts' source maps, for the frames of stacks (one cache for
    /// the hub: a page's scripts are the same in all its logs).
    pub sourcemaps: Arc<SourceMaps>,
    /// Where a written log is announced (the doors' `/api/events`).
    pub events: tokio::sync::broadcast::Sender<HubEvent>,
    /// The browser bridge, when the hub has one (`--cdp`): screenshots.
    pub cdp: Option<crate::cdp::CdpHandle>,
}

/// The state a log task owns.
struct LogTask {
    stem: String,
    settings: LogSettings,
    /// The log's behaviour: engine, delivery, presence, intake.
    core: LogCore,
    file: LogFile,
    /// Where jobs and answers go: the serving connection (the core's
    /// [`LogCore::serving`]).
    link: Option<RealmLink>,
    /// The next look into the replaced file, and how many were done.
    rescue_at: Option<Instant>,
    rescue_step: usize,
    /// Position maps of recent jobs' prepared code, for their stacks.
    cells: Cells,
    /// The browser bridge's lines, waiting to be told apart from what the
    /// adapter reported.
    browser: BrowserSeen,
    /// Where a job's time went, when asked for (`timing.rs`).
    timing: JobTimes,
    /// Realms waiting to hear that what they sent is written.
    flushes: Vec<(u64, mpsc::Sender<HubMsg>)>,
    /// Blocks other doors submitted, by ticket: who waits for the reply.
    submitted: HashMap<u64, oneshot::Sender<Answer>>,
    next_ticket: u64,
    /// The fan-out log (`debug/all.md`): no realm of its own; its jobs go
    /// to the directory, and their answers come back to `inbox` (as a
    /// screenshot the bridge took does, in every log).
    fan_out: bool,
    inbox: Option<mpsc::WeakUnboundedSender<LogMsg>>,
    /// Where the realm's pictures are saved.
    images: ImageFiles,
}

/// Starts the task of `debug/<stem>.md`; it runs until shutdown.
/// `first` is handled before the log is first read (the attach of the
/// realm whose hello created the task), so a request waiting in the file
/// goes straight to it.
pub fn spawn(
    stem: String,
    kind: RealmKind,
    settings: LogSettings,
    tracker: &tokio_util::task::TaskTracker,
    first: Option<LogMsg>,
) -> LogHandle {
    let (tx, rx) = mpsc::unbounded_channel();
    let realm_slots = Arc::new(Semaphore::new(REALM_INBOX));
    let config = Config {
        default_timeout_ms: settings.default_timeout.as_millis() as u64,
        first_job: first_job(),
        ..Config::default()
    };
    let mut task = LogTask::new(stem, kind, settings, config);
    // Screenshots come back this way.
    task.inbox = Some(tx.downgrade());
    tracker.spawn(task.run(rx, first));
    LogHandle { tx, realm_slots }
}

/// Starts the task of the fan-out log `debug/all.md` (created if it is
/// missing): its blocks run in every connected realm.
pub fn spawn_fan_out(settings: LogSettings, tracker: &tokio_util::task::TaskTracker) -> LogHandle {
    let (tx, rx) = mpsc::unbounded_channel();
    let realm_slots = Arc::new(Semaphore::new(REALM_INBOX));
    let config = Config {
        default_timeout_ms: settings.default_timeout.as_millis() as u64,
        first_job: first_job(),
        fan_out: true,
        ..Config::default()
    };
    let stem = super::names::FAN_OUT_STEM.to_string();
    let mut task = LogTask::new(stem, RealmKind::Page, settings, config);
    task.fan_out = true;
    task.inbox = Some(tx.downgrade());
    tracker.spawn(task.run(rx, None));
    LogHandle { tx, realm_slots }
}

impl LogTask {
    fn new(stem: String, kind: RealmKind, settings: LogSettings, config: Config) -> LogTask {
        // What every realm's adapter said, for the bridge's lines.
        let said = settings.cdp.as_ref().map(|c| c.said()).unwrap_or_default();
        LogTask {
            images: ImageFiles::new(&settings.dir, &stem),
            file: LogFile::new(settings.dir.join(format!("{stem}.md"))),
            core: LogCore::new(stem.clone(), kind, config),
            stem,
            settings,
            rescue_at: None,
            rescue_step: 0,
            link: None,
            cells: Cells::default(),
            browser: BrowserSeen::new(said),
            flushes: Vec::new(),
            timing: JobTimes::default(),
            submitted: HashMap::new(),
            next_ticket: 1,
            fan_out: false,
            inbox: None,
        }
    }

    async fn run(mut self, mut inbox: mpsc::UnboundedReceiver<LogMsg>, first: Option<LogMsg>) {
        if let Some(msg) = first {
            self.on(msg);
        }
        self.core.handle_start(!self.fan_out);
        self.drain();
        let shutdown = self.settings.shutdown.clone();
        loop {
            let next = self.next_timeout();
            tokio::select! {
                biased;
                () = shutdown.cancelled() => break,
                msg = inbox.recv() => match msg {
                    Some(msg) => {
                        let (msg, next) = coalesce(msg, &mut inbox);
                        self.load_maps(&msg).await;
                        self.on(msg);
                        if let Some(next) = next {
                            self.load_maps(&next).await;
                            self.on(next);
                        }
                    }
                    None => break,
                },
                () = sleep_until(next), if next.is_some() => self.on_timeout().await,
            }
        }
        // Results that already arrived are written before the task ends.
        while let Ok(msg) = inbox.try_recv() {
            self.on(msg);
        }
        // The log's last line says the hub stopped, and when (what the
        // realm sent before goes in first).
        if !self.fan_out {
            self.feed(Input::HubStopped);
        }
        for (seq, answer) in self.flushes.drain(..) {
            let _ = answer.try_send(HubMsg::Flushed { seq });
        }
        if !self.core.is_settled() {
            let waiting: Vec<&str> = self.core.waiting().map(input_kind).collect();
            tracing::warn!(stem = %self.stem, "stopping with {} input(s) not written: {waiting:?}", waiting.len());
        }
        tracing::debug!(stem = %self.stem, "log task stopped");
    }

    fn on(&mut self, msg: LogMsg) {
        match msg {
            LogMsg::Changed => {
                self.timing.heard();
                self.feed(Input::FileChanged)
            }
            // The slot is given back when the message is handled.
            LogMsg::FromRealm(letter) => self.on_letter(letter),
            LogMsg::Attach {
                conn,
                kind,
                tx,
                in_flight,
                document,
            } => self.attach(conn, kind, tx, in_flight, document),
            LogMsg::Detach { conn } => {
                if self.core.handle_detach(conn, self.settings.clock.now()) {
                    self.link = None;
                }
                self.drain();
            }
            LogMsg::Submit {
                agent,
                info,
                code,
                answer,
            } => {
                self.timing.heard();
                let ticket = self.next_ticket;
                self.next_ticket += 1;
                self.submitted.insert(ticket, answer);
                self.feed(Input::Submit {
                    ticket,
                    agent,
                    info,
                    code,
                });
            }
            LogMsg::Hub(input) => self.feed(input),
            LogMsg::Browser(line) => self.browser.handle_line(line, Instant::now().into_std()),
            LogMsg::Effect(event) => {
                let now = self.settings.clock.now();
                self.core.handle_background(vec![event], 0, 0, now);
                self.drain();
            }
            LogMsg::Shot { ask, taken } => self.shot(ask, taken),
            LogMsg::Inspected(answer) => {
                self.core.handle_inspected(answer);
                self.send_out();
            }
            LogMsg::Person { json, sent } => {
                let ok = self.core.handle_person(json) && self.send_out();
                let _ = sent.send(ok);
            }
            LogMsg::Responsive { conn, responsive } => {
                // Only the connection serving this log counts; jobs still go
                // to it while it is silent.
                self.core.handle_responsive(conn, responsive);
                self.drain();
            }
        }
    }

    /// `daebug.screenshot()`: the bridge takes it on its own task, and
    /// the answer comes back to this inbox in order ([`LogMsg::Shot`]).
    fn screenshot(&mut self, ask: ScreenshotAsk) {
        let refuse = |why: &str| LogMsg::Shot {
            ask: ask.clone(),
            taken: Err(why.to_string()),
        };
        let back = self.inbox.as_ref().and_then(|w| w.upgrade());
        let (Some(back), Some(cdp)) = (back, self.settings.cdp.clone()) else {
            let why = "daebug.screenshot() needs the browser bridge: start the hub with --cdp <a Chromium's DevTools URL> (docs/browser-bridge.md); daebug.snapshot() draws the page without it";
            self.on(refuse(why));
            return;
        };
        if self.core.kind() == RealmKind::Worker {
            self.on(refuse("a worker has no pixels of its own: take the screenshot in its page, or daebug.image() of an OffscreenCanvas"));
            return;
        }
        let stem = self.stem.clone();
        tokio::spawn(async move {
            let taken = cdp.screenshot(&stem, ask.selector.clone()).await;
            let _ = back.send(LogMsg::Shot { ask, taken });
        });
    }

    /// `getEventListeners` / `queryObjects`: the bridge answers on its own
    /// task, and the answer goes to the realm through this inbox
    /// ([`LogMsg::Inspected`]), in order with what it sends it.
    fn inspect(&mut self, ask: InspectAsk) {
        let helper = ask.what.helper();
        let refuse = |why: String| {
            LogMsg::Inspected(InspectAnswer {
                ask: ask.ask,
                error: Some(why),
            })
        };
        let back = self.inbox.as_ref().and_then(|w| w.upgrade());
        let (Some(back), Some(cdp)) = (back, self.settings.cdp.clone()) else {
            self.on(refuse(match ask.what {
                Inspect::Debugger => NO_DEBUGGER.into(),
                Inspect::Input => NO_TRUSTED_INPUT.into(),
                _ => format!("{helper}() needs the browser bridge: start the hub with --cdp <a Chromium's DevTools URL> (docs/browser-bridge.md)"),
            }));
            return;
        };
        match (ask.what, self.core.kind()) {
            // The debugger is a page's or a worker's own target's.
            (Inspect::Debugger, RealmKind::Node) => {
                self.on(refuse("a Node process has a debugger of its own".into()));
                return;
            }
            (Inspect::Debugger, _) | (_, RealmKind::Page) => {}
            (Inspect::Input, _) => {
                self.on(refuse(NO_TRUSTED_INPUT.into()));
                return;
            }
            _ => {
                self.on(refuse(format!(
                    "{helper}() works in pages: the browser bridge reaches a page's own realm only"
                )));
                return;
            }
        }
        let stem = self.stem.clone();
        tokio::spawn(async move {
            let error = cdp.inspect(&stem, ask.ask, ask.what).await.err();
            let _ = back.send(LogMsg::Inspected(InspectAnswer {
                ask: ask.ask,
                error,
            }));
        });
    }

    /// A screenshot taken (saved now, shown in its job's reply) or not;
    /// either way the realm hears, after the reply has it.
    fn shot(&mut self, ask: ScreenshotAsk, taken: Result<Vec<u8>, String>) {
        let mut answer = ScreenshotAnswer {
            ask: ask.ask,
            path: None,
            width: 0,
            height: 0,
            error: None,
        };
        match taken {
            Ok(png) => {
                let (width, height) = crate::cdp::shot::png_size(&png).unwrap_or((0, 0));
                let meta = ImageMeta {
                    label: "screenshot",
                    mime: "image/png",
                    width,
                    height,
                };
                let picture = off_the_worker(true, || self.images.save(&png, &meta));
                match &picture {
                    Picture::Saved { path, .. } => {
                        answer.path = Some(path.clone());
                        answer.width = width;
                        answer.height = height;
                    }
                    Picture::Refused { why, .. } => answer.error = Some(why.clone()),
                }
                self.core.handle_pictures(ask.job, vec![picture]);
                self.drain();
            }
            Err(why) => answer.error = Some(why),
        }
        self.core.handle_screenshot(answer);
        self.send_out();
    }

    /// A realm's message, in the wire's type: its stacks mapped, then to
    /// the core; what needs IO comes back as an [`Aside`].
    fn on_letter(&mut self, letter: RealmLetter) {
        let RealmLetter {
            conn,
            mut msg,
            answer,
            ..
        } = letter;
        self.map_stacks(&mut msg);
        // What a Node realm did for a page's block goes to that page's log.
        for effect in take_effects(&mut msg, self.core.kind()) {
            let _ = self.settings.directory.send(DirMsg::Effect {
                to: effect.to,
                event: effect.event,
            });
        }
        // What the adapter reported, for the bridge's lines to be told
        // apart from (kept only when the hub has a bridge).
        let told = match &msg {
            RealmMsg::Background { events, .. } => Some(events.as_slice()),
            RealmMsg::Progress(p) => Some(p.events.as_slice()),
            RealmMsg::Result(r) => Some(r.events.as_slice()),
            _ => None,
        };
        if let Some(told) = told.filter(|_| self.settings.cdp.is_some()) {
            self.browser.handle_adapter(told, Instant::now().into_std());
        }
        let result = match &msg {
            RealmMsg::Result(r) => Some(r.job),
            RealmMsg::Reloading => {
                tracing::debug!(stem = %self.stem, conn, "the page reloads after its result");
                None
            }
            _ => None,
        };
        if let Some(job) = result {
            self.timing.result(job);
        }
        let aside = self.core.handle_realm(conn, msg, self.settings.clock.now());
        self.forget_gone_link();
        match aside {
            None => {}
            // Saved now: the file is there before any reply links it.
            Some(Aside::Image(image)) => {
                let job = image.job;
                let picture = off_the_worker(true, || self.save_image(&image));
                self.core.handle_pictures(job, vec![picture]);
            }
            Some(Aside::Screenshot(ask)) => self.screenshot(ask),
            // Saved now, before the line that links it is written.
            Some(Aside::Body { name, text }) => match body_name(&name) {
                Some(rel) => {
                    let dir = self.settings.dir.clone();
                    let path = dir.join(&rel);
                    // A name is the realm's: one file never replaces another.
                    if !path.exists() && text.len() <= BODY_MAX {
                        off_the_worker(true, || write_archive(&dir, &self.stem, &rel, &text));
                    }
                }
                None => {
                    tracing::warn!(stem = %self.stem, "a request body's name was refused: {name:?}")
                }
            },
            Some(Aside::Inspect(ask)) => self.inspect(ask),
            Some(Aside::Flush(seq)) => self.flushes.push((seq, answer)),
            Some(Aside::Waiting(waits)) => {
                let _ = self.settings.directory.send(DirMsg::Waiting {
                    stem: self.stem.clone(),
                    waits,
                });
            }
            Some(Aside::Unreadable(message)) => {
                let _ = answer.try_send(HubMsg::Error { message });
            }
        }
        self.drain();
        if let Some(job) = result {
            self.timing.written(job, &self.stem);
        }
    }

    /// The core no longer counts the connection as serving the log (its
    /// document left): nothing more goes to it.
    fn forget_gone_link(&mut self) {
        if self
            .link
            .as_ref()
            .is_some_and(|l| self.core.serving() != Some(l.conn))
        {
            self.link = None;
        }
    }

    fn save_image(&mut self, image: &RealmImage) -> Picture {
        let meta = ImageMeta {
            label: &image.label,
            mime: &image.mime,
            width: image.width,
            height: image.height,
        };
        let refused = |why: String| Picture::Refused {
            label: image.label.clone(),
            why,
        };
        if let Some(e) = &image.error {
            // The page's words, on one line and cut: they end up in a note.
            let e: String = e.split_whitespace().collect::<Vec<_>>().join(" ");
            return refused(e.chars().take(300).collect());
        }
        let Some(data) = image.data.as_deref() else {
            // The realm knew it was too large and did not send it.
            return refused(over_limit(image.bytes));
        };
        // Before decoding: base64 is 4 bytes for 3.
        if (data.len() as u64 / 4).saturating_mul(3) > MAX_IMAGE_BYTES + 3 {
            return refused(over_limit(data.len() as u64 / 4 * 3));
        }
        match base64_simd::STANDARD.decode_to_vec(data) {
            Ok(bytes) => self.images.save(&bytes, &meta),
            Err(_) => refused("the realm sent it garbled (not base64)".into()),
        }
    }

    /// Waits for the source maps a realm message's stacks need and the
    /// cache lacks (at most [`crate::sourcemap::LOAD_TIME`]); messages
    /// behind it wait in the inbox, so their order holds. Most messages
    /// name no unknown script and pass without IO.
    async fn load_maps(&self, msg: &LogMsg) {
        if let LogMsg::FromRealm(letter) = msg {
            let stacks = realm_stacks(&letter.msg);
            // Request lines' initiators (docs/log-format.md, "Initiators").
            let initiators: Vec<String> = stacks
                .iter()
                .filter_map(|s| crate::sourcemap::frames::initiator_stack(s))
                .collect();
            let all = stacks
                .into_iter()
                .chain(initiators.iter().map(String::as_str));
            self.load_maps_of(all.collect()).await;
        }
    }

    /// The same for the stacks of one message.
    async fn load_maps_of(&self, stacks: Vec<&str>) {
        let maps = &self.settings.sourcemaps;
        let unknown = maps.unknown(stacks, std::time::Instant::now());
        if !unknown.is_empty() {
            maps.load(unknown).await;
        }
    }

    /// Frames of evaluated code point at the blocks' own lines, daebug's
    /// own frames go, and page scripts' frames point at their sources.
    fn map_stacks(&self, msg: &mut RealmMsg) {
        for_each_stack(msg, |stack, current| self.map_stack(stack, current));
    }

    /// [`LogTask::map_stacks`] for events outside a realm's message.
    fn map_event_stacks(&self, events: &mut [BackgroundEvent], current: Option<u64>) {
        for e in events {
            self.map_stack(&mut e.message, current);
            if let Some(stack) = e.stack.as_mut() {
                self.map_stack(stack, current);
            }
        }
    }

    fn map_stack(&self, stack: &mut String, current: Option<u64>) {
        // Text with nothing to rewrite is left as it is, uncopied.
        if stack.contains(daebug_core::prepare::cell::CELL_PREFIX) {
            *stack = self.cells.map_stack(stack, current);
        }
        let now = std::time::Instant::now();
        if let std::borrow::Cow::Owned(mapped) = self.settings.sourcemaps.map(stack, now) {
            *stack = mapped;
        }
        // A request line's initiator frames (docs/log-format.md,
        // "Initiators"); the cells in them are mapped above.
        if stack.contains(crate::sourcemap::frames::INITIATOR) {
            let maps = &self.settings.sourcemaps;
            let mapped = crate::sourcemap::frames::map_initiators(stack, |frame| {
                maps.map(frame, now).into_owned()
            });
            if let std::borrow::Cow::Owned(mapped) = mapped {
                *stack = mapped;
            }
        }
    }

    /// A connection serves the log: the new document's line is written
    /// first (preludes rerun on it), then the connection gets its jobs.
    fn attach(
        &mut self,
        conn: ConnId,
        kind: RealmKind,
        tx: mpsc::Sender<HubMsg>,
        in_flight: Vec<JobId>,
        document: Option<(Lifecycle, String)>,
    ) {
        self.link = Some(RealmLink { conn, tx });
        self.core.handle_attach(conn, kind, document);
        self.drain();
        self.core
            .handle_attached(conn, &in_flight, self.settings.clock.now());
        self.drain();
    }

    /// The task's one timer: the earliest of the core's deadline, the next
    /// look into a replaced file and the bridge's held lines.
    fn next_timeout(&self) -> Option<Instant> {
        let core = self
            .core
            .poll_timeout()
            .map(|at| self.settings.clock.instant(at));
        let browser = self.browser.next_wake().map(Instant::from_std);
        [core, self.rescue_at, browser].into_iter().flatten().min()
    }

    /// The timer fired: each part does what is due.
    async fn on_timeout(&mut self) {
        let now = Instant::now();
        if self.rescue_at.is_some_and(|at| at <= now) {
            self.rescue();
        }
        if self
            .browser
            .next_wake()
            .is_some_and(|at| at <= now.into_std())
        {
            self.browser_lines(now).await;
        }
        self.core.handle_timeout(self.settings.clock.now());
        self.drain();
    }

    /// The bridge's lines the adapter did not report, once their wait ran
    /// out: not the adapter's word, they settle no held line.
    async fn browser_lines(&mut self, now: Instant) {
        let (lines, dropped) = self.browser.poll(now.into_std());
        if lines.is_empty() && dropped == 0 {
            return;
        }
        let at = wall().to_string();
        let mut events: Vec<BackgroundEvent> = lines
            .into_iter()
            .map(|l| l.into_event(at.clone()))
            .collect();
        self.load_maps_of(stacks_of(&events, None)).await;
        self.map_event_stacks(&mut events, None);
        let now = self.settings.clock.now();
        self.core.handle_background(events, dropped, 0, now);
    }

    /// Tells the core of one input, then applies what it can.
    fn feed(&mut self, input: Input) {
        self.core.handle_input(input, self.settings.clock.now());
        self.drain();
    }

    /// Flushes are answered once nothing waits to be written (or at the
    /// task's end: the realm is told either way, and never waits on us).
    fn answer_flushes(&mut self) {
        if self.core.is_settled() {
            for (seq, answer) in self.flushes.drain(..) {
                let _ = answer.try_send(HubMsg::Flushed { seq });
            }
        }
    }

    /// The one transaction loop: runs the inputs the core queued through
    /// the file, in order, until one has to wait; performs their effects
    /// and sends what the core gives.
    fn drain(&mut self) {
        self.send_out();
        while let Some(input) = self.core.poll_input() {
            let large = self.file.is_large();
            let outcome = off_the_worker(large, || self.transaction(&input));
            let saved = matches!(input, Input::FileChanged);
            match outcome {
                Ok((mut effects, archived, wrote)) => {
                    if wrote || saved {
                        let stem = self.stem.clone();
                        let _ = self.settings.events.send(HubEvent::Log { stem });
                    }
                    if self.file.has_orphan() {
                        self.rescue_step = 0;
                        self.rescue_at = Some(Instant::now() + RESCUE_CHECKS[0]);
                    }
                    // Archives of a write that stood were written before it.
                    if archived {
                        effects.retain(|e| !matches!(e, Effect::Archive { .. }));
                    }
                    let now = self.settings.clock.now();
                    if self.core.handle_applied(effects, now) == Health::Recovered {
                        tracing::info!(stem = %self.stem, "the log can be written again");
                        let _ = self.settings.directory.send(DirMsg::LogUnwritten {
                            stem: self.stem.clone(),
                            why: None,
                        });
                    }
                    self.perform_chores();
                    self.send_out();
                }
                Err(Later::Settling(at)) => {
                    let at = self.settings.clock.millis_at(at);
                    self.core.handle_deferred(input, Deferral::Settling(at));
                    break;
                }
                Err(Later::Failed(e)) => {
                    self.defer_failed(input, &e);
                    break;
                }
                Err(Later::Unwritten(run)) => {
                    self.defer_failed(input, &run.error);
                    let why = format!(
                        "the log could not be written: {}; the reply is kept and written when it can",
                        run.error
                    );
                    let UnwrittenRun {
                        ran, text, effects, ..
                    } = *run;
                    self.core
                        .handle_unwritten(ran, text.base, text.text, &effects, why);
                    break;
                }
            }
        }
        // While the log cannot be written, doors hear their replies from
        // the log as it would be.
        let clock = self.settings.clock;
        self.core.handle_unwritten_answers(|| clock.now());
        self.perform_chores();
        self.answer_flushes();
    }

    /// Sends what the core gives (see [`send_out`]); whether all of it went.
    fn send_out(&mut self) -> bool {
        send_out(&mut self.core, &self.link, &mut self.timing, &self.stem)
    }

    /// The input could not be applied: it waits, and is tried again soon.
    fn defer_failed(&mut self, input: Input, e: &std::io::Error) {
        let at = self.settings.clock.millis() + RETRY_AFTER_ERROR;
        if self.core.handle_deferred(input, Deferral::Failed(at)) == Health::Failing {
            tracing::error!(stem = %self.stem, "{}: {e}; will try again", self.file.path.display());
            let _ = self.settings.directory.send(DirMsg::LogUnwritten {
                stem: self.stem.clone(),
                why: Some(e.to_string()),
            });
        }
    }

    /// One input through the file. Between the engine's run and its write,
    /// archives go to disk (before the reply that links them) and a job to
    /// the realm (before the write that shows it running). Also returns
    /// whether archives were written, and whether the log was.
    fn transaction(&mut self, input: &Input) -> Result<(Vec<Effect>, bool, bool), Later> {
        let clock = self.settings.clock;
        let mut archived = false;
        let mut wrote = false;
        let (dir, stem) = (&self.settings.dir, &self.stem);
        let (link, timing) = (&self.link, &mut self.timing);
        let effects = self.file.transact(
            &mut self.core,
            |core| core,
            input,
            || clock.now(),
            |core, effects| {
                for effect in effects {
                    if let Effect::Archive { path, text } = effect {
                        write_archive(dir, stem, path, text);
                        archived = true;
                    }
                }
                // A job the run dispatches goes out ahead of the write.
                send_out(core, link, timing, stem);
                wrote = true;
                Early::Go
            },
        )?;
        Ok((effects, archived, wrote))
    }

    /// One scheduled look into the file the last write replaced.
    fn rescue(&mut self) {
        self.file.rescue();
        self.rescue_step += 1;
        self.rescue_at = match (RESCUE_CHECKS.get(self.rescue_step), self.file.has_orphan()) {
            (Some(after), true) => Some(Instant::now() + *after),
            _ => None,
        };
        // A save that landed in the replaced file is the agent's: it is
        // read as the change it is.
        if self.file.has_late_save() {
            self.feed(Input::FileChanged);
        }
    }

    /// Does what the core left to the shell of the inputs it applied.
    fn perform_chores(&mut self) {
        while let Some(chore) = self.core.poll_chore() {
            self.perform(chore);
        }
    }

    fn perform(&mut self, chore: Chore) {
        match chore {
            // The core sent it; its stacks are mapped here.
            Chore::Remember { job, map } => {
                let at = self.settings.clock.now().clock.to_string();
                self.cells.remember(job.0, map, at);
            }
            Chore::Archive { path, text } => {
                write_archive(&self.settings.dir, &self.stem, &path, &text)
            }
            Chore::State(state) => {
                let _ = self.settings.directory.send(DirMsg::LogState {
                    stem: self.stem.clone(),
                    state,
                });
            }
            Chore::Notice(n) => tracing::info!(stem = %self.stem, "{n}"),
            Chore::FanOut {
                job,
                agent,
                info,
                code,
            } => {
                if let Some(to) = self.inbox.as_ref().and_then(|w| w.upgrade()) {
                    let _ = self.settings.directory.send(DirMsg::FanOut {
                        job,
                        agent,
                        info,
                        code,
                        to,
                    });
                }
            }
            Chore::Answered { ticket, answer } => {
                self.timing.answered(answer.job);
                if let Some(tx) = self.submitted.remove(&ticket) {
                    let _ = tx.send(answer);
                }
            }
        }
    }
}

/// Sends what the core gives to the serving connection; a message for
/// another connection, or one the connection cannot take now (it is going
/// away; its detach follows), goes back to the core, which holds a job
/// (with its timeout) for the next. Whether every message went.
fn send_out(
    core: &mut LogCore,
    link: &Option<RealmLink>,
    timing: &mut JobTimes,
    stem: &str,
) -> bool {
    let mut all = true;
    while let Some(ToRealm { conn, msg }) = core.poll_send() {
        let Some(link) = link.as_ref().filter(|l| l.conn == conn) else {
            core.handle_send_failed(msg);
            all = false;
            continue;
        };
        if let HubMsg::Job { job, .. } = &msg {
            timing.sent(*job);
        }
        if let Err(e) = link.tx.try_send(msg) {
            tracing::warn!(stem, "realm connection busy or closed; job held");
            core.handle_send_failed(e.into_inner());
            all = false;
        }
    }
    all
}

/// Writes a reply's full text to `debug/<rel>` (its link is in the reply).
/// A request body's file is at most this (the realm saves larger ones by
/// size and type only; a JSON body is laid out, so some room is left).
const BODY_MAX: usize = 4 * 1024 * 1024;

/// `archive/<name>` for a request body's name (docs/log-format.md,
/// "Request bodies"): letters, digits, `-`, `_` and `.`, ending `.json`
/// or `.txt`, never a path.
fn body_name(name: &str) -> Option<String> {
    let ok = (6..=160).contains(&name.len())
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.contains("..")
        && (name.ends_with(".json") || name.ends_with(".txt"));
    ok.then(|| format!("archive/{name}"))
}

fn write_archive(dir: &std::path::Path, stem: &str, rel: &str, text: &str) {
    let path = dir.join(rel);
    let result = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| write_atomic(&path, text));
    if let Err(e) = result {
        tracing::error!(stem, "cannot archive to {}: {e}", path.display());
    }
}

/// Runs file work that blocks for long (a large log's write copies the
/// whole file) without holding up the tasks it wakes. A task woken on a
/// worker thread waits in that worker's LIFO slot, which no other worker
/// takes from, until the running task yields: a job sent to the realm
/// ahead of the write would leave only after it. On a multi-thread
/// runtime the worker first hands its queue to another thread.
fn off_the_worker<T>(long: bool, work: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    let multi =
        Handle::try_current().is_ok_and(|h| h.runtime_flavor() == RuntimeFlavor::MultiThread);
    match long && multi {
        true => tokio::task::block_in_place(work),
        false => work(),
    }
}

/// A progress report carries every event of the job so far, so of several
/// queued back to back only the last needs writing: a realm streaming
/// faster than the disk costs one rewrite, not one per frame. Returns the
/// message to handle and the one after it that ended the run, if any.
fn coalesce(
    mut msg: LogMsg,
    inbox: &mut mpsc::UnboundedReceiver<LogMsg>,
) -> (LogMsg, Option<LogMsg>) {
    while let LogMsg::FromRealm(RealmLetter {
        msg: RealmMsg::Progress(JobProgress { job, .. }),
        ..
    }) = &msg
    {
        let job = *job;
        match inbox.try_recv() {
            Ok(LogMsg::FromRealm(
                next @ RealmLetter {
                    msg: RealmMsg::Progress(JobProgress { job: j, .. }),
                    ..
                },
            )) if j == job => {
                msg = LogMsg::FromRealm(next);
            }
            Ok(other) => return (msg, Some(other)),
            Err(_) => break,
        }
    }
    (msg, None)
}

/// Sleeps until `at`; never resolves for `None` (the branch is disabled).
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

fn input_kind(input: &Input) -> &'static str {
    match input {
        Input::Startup => "startup",
        Input::FileChanged => "file changed",
        Input::Started { .. } => "started",
        Input::Reloading => "reloading",
        Input::Progress(_) => "progress",
        Input::Result(_) => "result",
        Input::Background { .. } => "background",
        Input::Tick => "tick",
        Input::Presence { .. } => "presence",
        Input::Left { .. } => "left",
        Input::Lifecycle { .. } => "lifecycle",
        Input::HubNote { .. } => "hub note",
        Input::HubStopped => "the hub's stop line",
        Input::Submit { .. } => "submit",
        Input::FannedOut { .. } => "fanned out",
        Input::Answer { .. } => "answer",
        Input::Images { .. } => "images",
        Input::Human { .. } => "human",
    }
}

/// The stacks of a realm's message: a thrown error's, those of errors
/// inside a value shown as text, and the events' (also in their message:
/// `console.error(err)` shows the error's stack in the text of its
/// arguments).
fn realm_stacks(msg: &RealmMsg) -> Vec<&str> {
    match msg {
        RealmMsg::Result(r) => stacks_of(&r.events, Some(&r.outcome)),
        RealmMsg::Progress(p) => stacks_of(&p.events, None),
        RealmMsg::Background { events, .. } => stacks_of(events, None),
        _ => Vec::new(),
    }
}

/// The stacks in `events` and in a result's `outcome`.
fn stacks_of<'a>(events: &'a [BackgroundEvent], outcome: Option<&'a Outcome>) -> Vec<&'a str> {
    let mut all: Vec<&str> = events
        .iter()
        .flat_map(|e| [Some(e.message.as_str()), e.stack.as_deref()])
        .flatten()
        .collect();
    match outcome {
        Some(Outcome::Error(JobError { stack: Some(s), .. })) => all.push(s),
        Some(Outcome::Ok(Value::Text(t))) => all.push(t),
        _ => {}
    }
    all
}

/// Calls `f` with each stack of a realm's message (see [`realm_stacks`])
/// and the job it belongs to.
fn for_each_stack(msg: &mut RealmMsg, mut f: impl FnMut(&mut String, Option<u64>)) {
    let mut events = |events: &mut Vec<BackgroundEvent>, current: Option<u64>| {
        for e in events {
            f(&mut e.message, current);
            if let Some(stack) = e.stack.as_mut() {
                f(stack, current);
            }
        }
    };
    match msg {
        RealmMsg::Result(r) => {
            let job = Some(r.job.0);
            events(&mut r.events, job);
            match &mut r.outcome {
                Outcome::Error(JobError {
                    stack: Some(stack), ..
                }) => f(stack, job),
                Outcome::Ok(Value::Text(text)) => f(text, job),
                _ => {}
            }
        }
        RealmMsg::Progress(p) => events(&mut p.events, Some(p.job.0)),
        RealmMsg::Background { events: list, .. } => events(list, None),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use daebug_core::engine::template;
    use daebug_core::presence::{DROPPED_GRACE, LEAVING_GRACE};

    /// A job sent early for a run the file did not keep is cancelled, and
    /// its id is not handed to another dispatch: the realm runs an id once
    /// (`adapter-wasm/src/link.rs`) and drops a resend.
    #[test]
    fn an_early_job_that_did_not_stand_does_not_lend_its_id_again() {
        // The race needs the agent's truncate to land while the hub copies
        // a large log's start; it nearly always does, so a lost race is
        // tried again (and five lost in a row fail the test).
        for _ in 0..5 {
            if let Some(shown) = early_job_race() {
                assert!(shown.is_empty(), "{shown}");
                return;
            }
        }
        panic!("the agent's write never landed during the hub's write");
    }

    /// One try: `None` when the race was lost, else what went wrong (empty
    /// when nothing did).
    fn early_job_race() -> Option<String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shop-3f2a.md");
        // A large log, so the write (a copy of its start) takes a while.
        let mut text = template::new_log("shop-3f2a");
        while text.len() < 40 << 20 {
            text.push_str("Some earlier prose, long enough to matter.\n\n");
        }
        std::fs::write(&path, &text).unwrap();
        let (mut task, rx) = task(path.clone(), Config::default());
        task.feed(Input::Startup);
        std::fs::write(&path, format!("{text}\n```js\n1+1\n```\n")).unwrap();
        // A reader keeps the log open, so the hub cannot write in place
        // (`in_place.rs`) and swaps a whole file, whose copy the race
        // needs.
        let _reader = std::fs::File::open(&path).unwrap();
        // The agent starts its next whole-file write (truncate, then
        // write) right when the job reaches the realm.
        let p = path.clone();
        let realm = std::thread::spawn(move || {
            let mut rx = rx;
            let first = rx.blocking_recv().unwrap();
            std::fs::OpenOptions::new()
                .write(true)
                .open(&p)
                .unwrap()
                .set_len(0)
                .unwrap();
            (first, rx)
        });
        task.feed(Input::FileChanged);
        let (first, mut rx) = realm.join().unwrap();
        let HubMsg::Job { job: first, .. } = first else {
            return Some(format!("expected a job, got {first:?}"));
        };
        if task.core.running().is_some() {
            return None;
        }
        // The agent's write completes, with the block's code changed.
        std::fs::write(&path, format!("{text}\n```js\n2+2\n```\n")).unwrap();
        task.feed(Input::FileChanged);
        let mut msgs = Vec::new();
        while let Ok(m) = rx.try_recv() {
            msgs.push(m);
        }
        let lent = msgs
            .iter()
            .any(|m| matches!(m, HubMsg::Job { job, .. } if *job == first));
        let cancelled = msgs
            .iter()
            .any(|m| matches!(m, HubMsg::Cancel { job } if *job == first));
        let running = task.core.running();
        Some(match (lent, cancelled, running) {
            (false, true, Some(j)) if j != first => String::new(),
            _ => format!("first sent: {first}; then {msgs:?}; the log runs {running:?}"),
        })
    }

    fn task(path: PathBuf, config: Config) -> (LogTask, mpsc::Receiver<HubMsg>) {
        let (dir_tx, _dir_rx) = mpsc::unbounded_channel();
        let settings = LogSettings {
            dir: path.parent().unwrap().to_path_buf(),
            default_timeout: Duration::from_millis(config.default_timeout_ms),
            clock: Clock::start(),
            directory: dir_tx,
            shutdown: CancellationToken::new(),
            sourcemaps: SourceMaps::new(),
            events: tokio::sync::broadcast::channel(1).0,
            cdp: None,
        };
        let (tx, rx) = mpsc::channel(16);
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let mut task = LogTask::new(stem, RealmKind::Page, settings, config);
        task.link = Some(RealmLink { conn: 1, tx });
        task.core.handle_attach(1, RealmKind::Page, None);
        task.core.handle_attached(1, &[], task.settings.clock.now());
        (task, rx)
    }

    /// A job that timed out is cancelled in the realm (it ends the job's
    /// event window there), also when the next queued request starts in
    /// the same write.
    #[tokio::test(start_paused = true)]
    async fn a_timed_out_job_is_cancelled_when_the_next_one_starts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shop-3f2a.md");
        std::fs::write(&path, template::new_log("shop-3f2a")).unwrap();
        let config = Config {
            default_timeout_ms: 1,
            ..Config::default()
        };
        let (mut task, mut rx) = task(path.clone(), config);
        task.feed(Input::Startup);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"\n```js\nawait new Promise(() => {})\n```\n\n> **agent** to shop-3f2a at 12:00:00\n\n```js\n2+2\n```\n")
            .unwrap();
        task.feed(Input::FileChanged);
        let first = task.core.running().expect("the first block runs");
        tokio::time::advance(Duration::from_millis(20)).await;
        task.feed(Input::Tick);
        let second = task.core.running().expect("the next request runs");
        assert_ne!(first, second);
        let mut msgs = Vec::new();
        while let Ok(m) = rx.try_recv() {
            msgs.push(match m {
                HubMsg::Job { job, .. } => format!("Job {job}"),
                other => format!("{other:?}"),
            });
        }
        assert!(
            msgs.iter()
                .any(|m| m == &format!("Cancel {{ job: JobId({}) }}", first.0)),
            "job {first} timed out; the realm got only {msgs:?}"
        );
    }

    /// The `closed` grace: set when the realm leaves (5 s after `leaving`,
    /// which a close that follows does not lengthen; 12 s after a silent
    /// close), and cleared by the next document, whose line is written.
    #[tokio::test(start_paused = true)]
    async fn a_new_document_within_the_grace_cancels_the_closed_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shop-3f2a.md");
        std::fs::write(&path, template::new_log("shop-3f2a")).unwrap();
        let (mut task, _rx) = task(path.clone(), Config::default());
        task.feed(Input::Startup);
        let left = task.settings.clock.millis();
        task.on(LogMsg::FromRealm(RealmLetter {
            conn: 1,
            msg: RealmMsg::Leaving {
                navigated_to: Some("http://h/".into()),
            },
            answer: mpsc::channel(1).0,
            slot: None,
        }));
        assert_eq!(task.core.poll_timeout(), Some(left + LEAVING_GRACE));
        tokio::time::advance(Duration::from_secs(1)).await;
        task.on(LogMsg::Detach { conn: 1 });
        assert_eq!(task.core.poll_timeout(), Some(left + LEAVING_GRACE));
        let (tx, _rx2) = mpsc::channel(16);
        task.on(LogMsg::Attach {
            conn: 2,
            kind: RealmKind::Page,
            tx,
            in_flight: vec![],
            document: Some((Lifecycle::Reloaded, "http://h/".into())),
        });
        assert_eq!(task.core.poll_timeout(), None);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("** reloaded at "), "{text}");
        assert!(!text.contains(" closed at "), "{text}");
        // A silent close: the longer grace, then the line, at the time it left.
        let gone = task.settings.clock.millis();
        task.on(LogMsg::Detach { conn: 2 });
        assert_eq!(task.core.poll_timeout(), Some(gone + DROPPED_GRACE));
        // Not before the grace ran out.
        task.on_timeout().await;
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains(" closed at "), "{text}");
        tokio::time::advance(DROPPED_GRACE).await;
        task.on_timeout().await;
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("** closed at "), "{text}");
    }
}
