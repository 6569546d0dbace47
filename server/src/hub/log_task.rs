//! One task per chat log: it owns the log's [`LogEngine`], reads and
//! writes `debug/<stem>.md`, and performs the engine's effects.
//!
//! Everything that concerns one log arrives in its inbox (file changed,
//! messages of its realm, the realm coming and going), so no lock guards a
//! log's state: the task handles one input at a time, start to finish.
//!
//! The file side of each input (read, engine, careful write) is
//! [`super::log_file`]. An input that cannot be applied now (the file is
//! mid-write, or unreadable) waits in order in `deferred` and is tried
//! again; later inputs queue behind it, so nothing is dropped or reordered.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::time::Duration;

use daebug_protocol::{
    BackgroundEvent, HubMsg, InspectAnswer, InspectAsk, JobError, JobId, JobProgress, JobResult,
    Outcome, RealmImage, RealmKind, RealmMsg, ScreenshotAnswer, ScreenshotAsk, Value,
    MAX_IMAGE_BYTES,
};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, Semaphore};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::browser_seen::BrowserSeen;
use super::clock::{wall, Clock};
use super::delivery::{Delivered, Delivery, Early, JobMsg};
use super::flood::BackgroundGate;
use super::fsio::write_atomic;
use super::image_file::{over_limit, ImageFiles, ImageMeta};
use super::log_file::{Later, LogFile, Step};
use super::messages::{Answered, ConnId, DirMsg, LogHandle, LogMsg, RealmLetter, REALM_INBOX};
use super::timing::JobTimes;
use crate::doors::api::HubEvent;
use crate::engine::lifecycle::Lifecycle;
use crate::engine::picture::Picture;
use crate::engine::{Config, Effect, Input, LogEngine};
use crate::prepare::cell::Cells;
use crate::sourcemap::SourceMaps;
use daebug_core::presence::{kind_name, Presence, Said};

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

/// The realm connection serving a log: where [`Delivered::Send`] goes.
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
    engine: LogEngine,
    file: LogFile,
    /// Inputs not applied yet, oldest first.
    deferred: VecDeque<Input>,
    /// When to try `deferred` again.
    retry: Option<Instant>,
    /// Whether the last attempt failed (an error is logged once per run
    /// of failures, not once per retry).
    failing: bool,
    /// Which connection serves the log, and its `closed` line once it
    /// left (`daebug-core`'s presence machine).
    presence: Presence,
    /// Where jobs and answers go: the serving connection.
    link: Option<RealmLink>,
    /// Which job the realm has, waits for, or got ahead of its write.
    delivery: Delivery,
    /// When the engine wants its next tick (always its `next_wake`).
    wake: Option<Instant>,
    /// The next look into the replaced file, and how many were done.
    rescue_at: Option<Instant>,
    rescue_step: usize,
    /// Position maps of recent jobs' prepared code, for their stacks.
    cells: Cells,
    /// Background events waiting for their write (rate-limited, spaced).
    background: BackgroundGate,
    /// The browser bridge's lines, waiting to be told apart from what the
    /// adapter reported.
    browser: BrowserSeen,
    /// Where a job's time went, when asked for (`timing.rs`).
    timing: JobTimes,
    /// Realms waiting to hear that what they sent is written.
    flushes: Vec<(u64, mpsc::Sender<HubMsg>)>,
    /// Blocks other doors submitted, by ticket: who waits for the reply.
    submitted: HashMap<u64, oneshot::Sender<Answered>>,
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
        LogTask {
            images: ImageFiles::new(&settings.dir, &stem),
            file: LogFile::new(settings.dir.join(format!("{stem}.md"))),
            engine: LogEngine::new(stem.clone(), config),
            stem,
            settings,
            deferred: VecDeque::new(),
            retry: None,
            failing: false,
            rescue_at: None,
            rescue_step: 0,
            presence: Presence::new(kind),
            link: None,
            delivery: Delivery::default(),
            wake: None,
            cells: Cells::default(),
            background: BackgroundGate::default(),
            browser: BrowserSeen::default(),
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
        if !self.fan_out {
            if let Some(said) = self.presence.handle_start() {
                self.say(said);
            }
        }
        self.feed(Input::Startup);
        let shutdown = self.settings.shutdown.clone();
        loop {
            let (wake, retry, rescue) = (self.wake, self.retry, self.rescue_at);
            let closing = self.presence.deadline().map(Instant::from_std);
            let flush = self.background.due(pure_now()).map(Instant::from_std);
            let browser = self.browser.next_wake().map(Instant::from_std);
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
                () = sleep_until(retry), if retry.is_some() => {
                    self.retry = None;
                    self.drain();
                }
                () = sleep_until(wake), if wake.is_some() => self.feed(Input::Tick),
                () = sleep_until(rescue), if rescue.is_some() => self.rescue(),
                () = sleep_until(flush), if flush.is_some() => self.flush_background(),
                () = sleep_until(closing), if closing.is_some() => self.closed(),
                () = sleep_until(browser), if browser.is_some() => {
                    let (lines, dropped) = self.browser.poll(Instant::now().into_std());
                    if !lines.is_empty() || dropped > 0 {
                        let at = wall().to_string();
                        let input = Input::Background {
                            events: lines.into_iter().map(|l| l.into_event(at.clone())).collect(),
                            dropped,
                            limited: 0,
                            over_rate: 0,
                        };
                        self.load_maps_of(stacks(&input)).await;
                        self.on_browser(input);
                    }
                }
            }
        }
        // Results that already arrived are written before the task ends.
        while let Ok(msg) = inbox.try_recv() {
            self.on(msg);
        }
        self.flush_background();
        for (seq, answer) in self.flushes.drain(..) {
            let _ = answer.try_send(HubMsg::Flushed { seq });
        }
        if !self.deferred.is_empty() {
            tracing::warn!(stem = %self.stem, "stopping with {} input(s) not written: {:?}", self.deferred.len(), self.deferred.iter().map(input_kind).collect::<Vec<_>>());
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
                if self.delivery.handle_detach(conn) {
                    let said = self.presence.handle_dropped(pure_now(), wall());
                    self.link = None;
                    self.say(said);
                }
            }
            LogMsg::Submit {
                agent,
                info,
                code,
                answer,
            } => {
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
            LogMsg::Hub(input) => {
                // A note about the realm's connection goes after what the
                // realm sent before it.
                if matches!(input, Input::HubNote { .. }) {
                    self.flush_background();
                }
                self.feed(input)
            }
            LogMsg::Browser(line) => self.browser.handle_line(line, Instant::now().into_std()),
            LogMsg::Shot { ask, taken } => self.shot(ask, taken),
            LogMsg::Inspected(answer) => {
                if let Some(link) = &self.link {
                    let _ = link.tx.try_send(HubMsg::Inspected(answer));
                }
            }
            LogMsg::Responsive { conn, responsive } => {
                // Only the connection serving this log counts; jobs still go
                // to it while it is silent.
                if let Some(said) = self.presence.handle_responsive(conn, responsive) {
                    self.say(said);
                }
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
        if self.presence.kind() == RealmKind::Worker {
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
            self.on(refuse(format!("{helper}() needs the browser bridge: start the hub with --cdp <a Chromium's DevTools URL> (docs/browser-bridge.md)")));
            return;
        };
        if self.presence.kind() != RealmKind::Page {
            self.on(refuse(format!(
                "{helper}() works in pages: the browser bridge reaches a page's own realm only"
            )));
            return;
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
                self.feed(Input::Images {
                    job: ask.job,
                    pictures: vec![picture],
                });
            }
            Err(why) => answer.error = Some(why),
        }
        if let Some(link) = &self.link {
            let _ = link.tx.try_send(HubMsg::Screenshot(answer));
        }
    }

    /// A picture a job made: saved now (the file is there before any
    /// reply links it), shown in the job's reply.
    /// A realm's message: one arm per message of the wire.
    fn on_letter(&mut self, letter: RealmLetter) {
        let RealmLetter {
            conn, msg, answer, ..
        } = letter;
        match msg {
            RealmMsg::Started { job } => self.on_realm(Input::Started { job }),
            RealmMsg::Progress(p) => self.on_realm(Input::Progress(p)),
            RealmMsg::Result(r) => {
                let job = r.job;
                self.timing.result(job);
                self.on_realm(Input::Result(r));
                self.timing.written(job, &self.stem);
            }
            RealmMsg::Background {
                events,
                dropped,
                limited,
            } => self.on_realm(Input::Background {
                events,
                dropped,
                limited,
                over_rate: 0,
            }),
            // Only a page says it is leaving (a worker goes with its page).
            RealmMsg::Leaving { navigated_to } => self.on_realm(Input::Left {
                what: match navigated_to {
                    Some(url) => format!("the page navigated to {url}"),
                    None => "the page was closed".into(),
                },
            }),
            // A picture comes before its job's result (one channel).
            RealmMsg::Image(image) => self.on_image(image),
            RealmMsg::Screenshot(ask) => self.screenshot(ask),
            RealmMsg::Inspect(ask) => self.inspect(ask),
            RealmMsg::Reloading => {
                tracing::debug!(stem = %self.stem, conn, "the page reloads after its result");
                self.delivery.handle_reloading(conn);
                // Its door call is answered with the new document's line.
                if self.presence.serves(conn) {
                    self.feed(Input::Reloading);
                }
            }
            RealmMsg::Exiting { code } => self.exiting(conn, format!("code {code}")),
            RealmMsg::Flush { seq } => {
                // Inputs before it were handled in order; what is held
                // for a write of many goes now.
                self.flush_background();
                self.flushes.push((seq, answer));
                self.answer_flushes();
            }
            // The connection's own business (`realm.rs`).
            RealmMsg::Hello { .. } | RealmMsg::Pong { .. } => {}
        }
    }

    fn on_image(&mut self, image: RealmImage) {
        let picture = off_the_worker(true, || self.save_image(&image));
        let job = image.job;
        self.feed(Input::Images {
            job,
            pictures: vec![picture],
        });
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

    /// A message of the realm about this log's jobs.
    fn on_realm(&mut self, mut input: Input) {
        self.map_stacks(&mut input);
        let now = Instant::now();
        // What the adapter reported, for the bridge's lines to be told
        // apart from (kept only when the hub has a bridge).
        let told = match &input {
            Input::Background { events, .. } => Some(events.as_slice()),
            Input::Progress(p) => Some(p.events.as_slice()),
            Input::Result(r) => Some(r.events.as_slice()),
            _ => None,
        };
        if let Some(told) = told.filter(|_| self.settings.cdp.is_some()) {
            self.browser.handle_adapter(told, now.into_std());
        }
        if let Input::Background {
            events,
            dropped,
            limited,
            ..
        } = input
        {
            // Held for a write of many (see `flood`).
            self.background.idle(now.into_std());
            self.background
                .offer(events, dropped, limited, now.into_std());
            return;
        }
        // What the realm sent before this is written before it.
        self.flush_background();
        let mut lost_with_it = true;
        let left = match &input {
            Input::Result(JobResult { job, .. }) => {
                self.delivery.handle_result(*job);
                false
            }
            Input::Left { .. } => {
                // A job held for the next document (the page said it
                // reloads) never reached this one: it is not lost with it.
                lost_with_it = self.delivery.job_sent();
                self.delivery.handle_left()
            }
            _ => false,
        };
        if lost_with_it {
            self.feed(input);
        }
        // The document is gone: nothing more goes to its connection; a
        // job waits for the next document.
        if left {
            let said = self.presence.handle_left(pure_now(), wall());
            self.link = None;
            self.say(said);
        }
    }

    /// A Node process said it ends: a job it was running is lost with it,
    /// and the log says it exited, now (a `closed` line never follows:
    /// its socket's close is that same end).
    fn exiting(&mut self, conn: ConnId, how: String) {
        let Some((left, line)) = self.presence.handle_exiting(conn, &how) else {
            return;
        };
        self.flush_background();
        self.on_realm(Input::Left { what: left });
        self.say(line);
    }

    /// No document came back within the grace: the `closed` line (a Node
    /// process gone without a word: `exited`).
    fn closed(&mut self) {
        if let Some(said) = self.presence.poll_closed(pure_now()) {
            self.say(said);
        }
    }

    /// What the presence machine says, to the engine.
    fn say(&mut self, said: Said) {
        match said {
            Said::Away(away) => self.feed(Input::Presence { away }),
            Said::Line { what, how, at } => self.feed(Input::Lifecycle {
                what,
                url: how,
                at: at.map(|t| t.to_string()),
            }),
        }
    }

    /// The bridge's lines the adapter did not report, as background
    /// events (not the adapter's word: they settle no held line).
    fn on_browser(&mut self, mut input: Input) {
        self.map_stacks(&mut input);
        if let Input::Background {
            events, dropped, ..
        } = input
        {
            let now = Instant::now();
            self.background.idle(now.into_std());
            self.background.offer(events, dropped, 0, now.into_std());
        }
    }

    /// Writes the background events held, if any.
    fn flush_background(&mut self) {
        if let Some(f) = self.background.take(pure_now()) {
            self.feed(Input::Background {
                events: f.events,
                dropped: f.dropped,
                limited: f.limited,
                over_rate: f.over_rate,
            });
        }
    }

    /// Waits for the source maps a realm message's stacks need and the
    /// cache lacks (at most [`crate::sourcemap::LOAD_TIME`]); messages
    /// behind it wait in the inbox, so their order holds. Most messages
    /// name no unknown script and pass without IO.
    async fn load_maps(&self, msg: &LogMsg) {
        if let LogMsg::FromRealm(letter) = msg {
            self.load_maps_of(realm_stacks(&letter.msg)).await;
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
    fn map_stacks(&self, input: &mut Input) {
        let cells = &self.cells;
        let maps = &self.settings.sourcemaps;
        let now = std::time::Instant::now();
        // Text with nothing to rewrite is left as it is, uncopied.
        let map = |stack: &mut String, current: Option<u64>| {
            if stack.contains(crate::prepare::cell::CELL_PREFIX) {
                *stack = cells.map_stack(stack, current);
            }
            if let std::borrow::Cow::Owned(mapped) = maps.map(stack, now) {
                *stack = mapped;
            }
        };
        for_each_stack(input, map);
    }

    fn attach(
        &mut self,
        conn: ConnId,
        kind: RealmKind,
        tx: mpsc::Sender<HubMsg>,
        in_flight: Vec<JobId>,
        document: Option<(Lifecycle, String)>,
    ) {
        self.presence.handle_attach(conn, kind);
        self.link = Some(RealmLink { conn, tx });
        if let Some((what, url)) = document {
            // Before the jobs: preludes rerun on this connection first,
            // and a job that waited for the realm runs in this document
            // (its region says so).
            self.feed(Input::Lifecycle {
                what,
                url,
                at: None,
            });
        }
        let running = self.engine.running();
        self.delivery
            .handle_attach(conn, &in_flight, running, pure_now());
        self.deliver();
        let back = self.presence.back();
        self.say(back);
    }

    /// Performs what delivery decided: sends, and results for lost jobs.
    fn deliver(&mut self) {
        while let Some(d) = self.delivery.poll() {
            match d {
                Delivered::Send { conn, msg } => {
                    let Some(link) = self.link.as_ref().filter(|l| l.conn == conn) else {
                        self.delivery.handle_send_failed(msg);
                        continue;
                    };
                    if let HubMsg::Job { job, .. } = &msg {
                        self.timing.sent(*job);
                    }
                    if let Err(e) = link.tx.try_send(msg) {
                        // The connection is going away; its detach follows
                        // and a job waits (with its timeout) for the next.
                        tracing::warn!(stem = %self.stem, "realm connection busy or closed; job held");
                        self.delivery.handle_send_failed(e.into_inner());
                    }
                }
                Delivered::Lost { job, duration_ms } => {
                    let what = kind_name(self.presence.kind());
                    self.feed(Input::Result(JobResult {
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

    /// Queues one input behind any that wait, then applies what it can.
    fn feed(&mut self, input: Input) {
        // One pending re-scan or tick covers any number of them.
        let repeat = matches!(input, Input::FileChanged | Input::Tick)
            && self
                .deferred
                .iter()
                .any(|d| std::mem::discriminant(d) == std::mem::discriminant(&input));
        // A waiting progress report is replaced by a newer one of its job
        // (each carries all events so far).
        if let Input::Progress(JobProgress { job, .. }) = &input {
            if let Some(Input::Progress(JobProgress { job: j, .. })) = self.deferred.back() {
                if j == job {
                    self.deferred.pop_back();
                }
            }
        }
        if !repeat {
            self.deferred.push_back(input);
        }
        self.drain();
    }

    /// Flushes are answered once nothing waits to be written (or at the
    /// task's end: the realm is told either way, and never waits on us).
    fn answer_flushes(&mut self) {
        if self.deferred.is_empty() {
            for (seq, answer) in self.flushes.drain(..) {
                let _ = answer.try_send(HubMsg::Flushed { seq });
            }
        }
    }

    /// Applies waiting inputs in order until one has to wait again.
    fn drain(&mut self) {
        while let Some(input) = self.deferred.pop_front() {
            let large = self.file.is_large();
            let outcome = off_the_worker(large, || self.transaction(&input));
            let saved = matches!(input, Input::FileChanged);
            if outcome.is_err() {
                self.deferred.push_front(input);
            }
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
                    if self.failing {
                        self.failing = false;
                        tracing::info!(stem = %self.stem, "the log can be written again");
                    }
                    // Archives of a write that stood were written before it.
                    if archived {
                        effects.retain(|e| !matches!(e, Effect::Archive { .. }));
                    }
                    self.delivery.handle_written(&effects, pure_now());
                    for effect in effects {
                        self.perform(effect);
                    }
                    self.deliver();
                }
                Err(Later::Settling(at)) => {
                    self.retry = Some(at);
                    break;
                }
                Err(Later::Failed(e)) => {
                    if !self.failing {
                        tracing::error!(stem = %self.stem, "{}: {e}; will try again", self.file.path.display());
                        self.failing = true;
                    }
                    self.retry = Some(Instant::now() + RETRY_AFTER_ERROR);
                    break;
                }
            }
        }
        self.answer_flushes();
        // While inputs wait, the retry timer drives; a tick now would only
        // queue behind them (and a past deadline would fire at once).
        let clock = self.settings.clock;
        self.wake = match self.deferred.is_empty() {
            true => self.engine.next_wake().map(|at| clock.instant(at)),
            false => None,
        };
    }

    /// One input through the file. Between the engine's run and its write,
    /// archives go to disk (before the reply that links them) and a job to
    /// the realm (before the write that shows it running). Also returns
    /// whether archives were written, and whether the log was.
    fn transaction(&mut self, input: &Input) -> Result<(Vec<Effect>, bool, bool), Later> {
        let clock = self.settings.clock;
        let now = || clock.now();
        let mut archived = false;
        let mut wrote = false;
        let mut step = self.file.begin(&mut self.engine, input, now)?;
        loop {
            let w = match step {
                Step::Done(effects) => return Ok((effects, archived, wrote)),
                Step::Write(w) => w,
            };
            for effect in w.effects() {
                if let Effect::Archive { path, text } = effect {
                    write_archive(&self.settings.dir, &self.stem, path, text);
                    archived = true;
                }
            }
            let job = JobMsg::dispatched(w.effects());
            step = match self.delivery.handle_decided(job, pure_now()) {
                Early::SkipPast(job) => {
                    let skip = |e: &mut LogEngine| e.skip_jobs_through(job);
                    self.file.redo(&mut self.engine, w, skip, now)?
                }
                Early::Go => {
                    self.deliver();
                    wrote = true;
                    self.file.commit(&mut self.engine, w, now)?
                }
            };
        }
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

    fn perform(&mut self, effect: Effect) {
        match effect {
            // Delivery sends it (see `drain`); its stacks are mapped here.
            Effect::Dispatch { job, prepared, .. } => {
                let at = self.settings.clock.now().clock.to_string();
                self.cells.remember(job.0, prepared.map, at);
            }
            Effect::Prelude {
                job,
                prepared,
                timeout_ms,
                depth,
                full,
            } => {
                let at = self.settings.clock.now().clock.to_string();
                self.cells.remember(job.0, prepared.map, at);
                let msg = HubMsg::Job {
                    job,
                    code: prepared.code,
                    timeout_ms,
                    depth,
                    full,
                };
                // Outside delivery: it is no block's job. Not sent when the
                // realm is already gone again: the line says it had no result.
                if let Some(link) = &self.link {
                    let _ = link.tx.try_send(msg);
                }
            }
            Effect::Cancel { .. } => {}
            // `drain` re-arms the wake from the engine after every input.
            Effect::WakeAt(_) => {}
            Effect::Archive { path, text } => {
                write_archive(&self.settings.dir, &self.stem, &path, &text)
            }
            Effect::State(state) => {
                let _ = self.settings.directory.send(DirMsg::LogState {
                    stem: self.stem.clone(),
                    state,
                });
            }
            Effect::Notice(n) => tracing::info!(stem = %self.stem, "{n}"),
            Effect::FanOut {
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
            Effect::Answered { ticket, answer } => {
                if let Some(tx) = self.submitted.remove(&ticket) {
                    let _ = tx.send(answer);
                }
            }
        }
    }
}

/// Writes a reply's full text to `debug/<rel>` (its link is in the reply).
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
/// Now, for the pure parts (`daebug-core` takes `std` instants): tokio's
/// clock, so paused time in tests moves them too.
fn pure_now() -> std::time::Instant {
    Instant::now().into_std()
}

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
        Input::Submit { .. } => "submit",
        Input::FannedOut { .. } => "fanned out",
        Input::Answer { .. } => "answer",
        Input::Images { .. } => "images",
    }
}

/// The stacks of a realm's message: a thrown error's, those of errors
/// inside a value shown as text, and the events' (also in their message:
/// `console.error(err)` shows the error's stack in the text of its
/// arguments).
fn stacks(input: &Input) -> Vec<&str> {
    match input {
        Input::Result(r) => stacks_of(&r.events, Some(&r.outcome)),
        Input::Progress(p) => stacks_of(&p.events, None),
        Input::Background { events, .. } => stacks_of(events, None),
        _ => Vec::new(),
    }
}

/// The same for a realm's message, before it is an input.
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

/// Calls `f` with each stack of a realm's message (see [`stacks`]) and the
/// job it belongs to.
fn for_each_stack(input: &mut Input, mut f: impl FnMut(&mut String, Option<u64>)) {
    let mut events = |events: &mut Vec<BackgroundEvent>, current: Option<u64>| {
        for e in events {
            f(&mut e.message, current);
            if let Some(stack) = e.stack.as_mut() {
                f(stack, current);
            }
        }
    };
    match input {
        Input::Result(r) => {
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
        Input::Progress(p) => events(&mut p.events, Some(p.job.0)),
        Input::Background { events: list, .. } => events(list, None),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::engine::template;
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
        if task.engine.running().is_some() {
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
        let running = task.engine.running();
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
        task.delivery.handle_attach(1, &[], None, pure_now());
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
        let first = task.engine.running().expect("the first block runs");
        tokio::time::advance(Duration::from_millis(20)).await;
        task.feed(Input::Tick);
        let second = task.engine.running().expect("the next request runs");
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
        let left = pure_now();
        task.on_realm(Input::Left {
            what: "the page navigated to http://h/".into(),
        });
        assert_eq!(task.presence.deadline(), Some(left + LEAVING_GRACE));
        tokio::time::advance(Duration::from_secs(1)).await;
        task.on(LogMsg::Detach { conn: 1 });
        assert_eq!(task.presence.deadline(), Some(left + LEAVING_GRACE));
        let (tx, _rx2) = mpsc::channel(16);
        task.on(LogMsg::Attach {
            conn: 2,
            kind: RealmKind::Page,
            tx,
            in_flight: vec![],
            document: Some((Lifecycle::Reloaded, "http://h/".into())),
        });
        assert_eq!(task.presence.deadline(), None);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("** reloaded at "), "{text}");
        assert!(!text.contains(" closed at "), "{text}");
        // A silent close: the longer grace, then the line, at the time it left.
        let gone = pure_now();
        task.on(LogMsg::Detach { conn: 2 });
        assert_eq!(task.presence.deadline(), Some(gone + DROPPED_GRACE));
        // Not before the grace ran out.
        task.closed();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains(" closed at "), "{text}");
        tokio::time::advance(DROPPED_GRACE).await;
        task.closed();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("** closed at "), "{text}");
    }
}
