//! What the hub's tasks tell each other: the inboxes of the directory
//! and of the log tasks. A leaf of its own, so that the tasks depend on
//! these messages and not on each other.

use daebug_protocol::{
    HubMsg, InspectAnswer, InspectAsk, JobId, RealmImage, RealmKind, ScreenshotAsk,
};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit, Semaphore};

use crate::cdp::lines::BrowserLine;
use crate::doors::api::{DoorError, RealmInfo};
use crate::engine::lifecycle::Lifecycle;
use crate::engine::{Input, LogState};

/// What a realm says about itself in its hello.
#[derive(Debug, Clone)]
pub struct Hello {
    pub kind: RealmKind,
    pub name: String,
    pub url: String,
    pub id: String,
    pub jobs: Vec<JobId>,
    /// A worker: the tab id of its page.
    pub tab: String,
    /// The first hello of a new document or worker: how it came.
    pub navigation: Option<String>,
    /// A Node process's pid.
    pub pid: Option<u32>,
}

/// The directory's answer to a hello.
#[derive(Debug)]
pub struct Welcome {
    pub stem: String,
    pub id: String,
    pub log: LogHandle,
}

/// What the directory is told.
#[derive(Debug)]
pub enum DirMsg {
    /// A realm connected.
    Hello {
        conn: ConnId,
        hello: Hello,
        tx: mpsc::Sender<HubMsg>,
        reply: oneshot::Sender<Welcome>,
    },
    /// Its connection closed.
    Gone { conn: ConnId },
    /// It stopped or resumed answering pings.
    Responsive { conn: ConnId, responsive: bool },
    /// It answered a ping (only the remembered time changes; the registry
    /// is not rewritten for heartbeats).
    Seen { conn: ConnId },
    /// A log's state changed.
    LogState { stem: String, state: LogState },
    /// The watcher saw this file in `debug/` change (or go).
    FileChanged { file_name: String, removed: bool },
    /// `debug/` was created again after someone deleted it.
    DebugDirCreated,
    /// The registry `debug.md` changed (the hub's own writes included).
    RegistryChanged,
    /// A door asks for the realms, as the registry lists them.
    Realms {
        reply: oneshot::Sender<Vec<RealmInfo>>,
    },
    /// A door names a realm (its stem, or a unique start of it): which
    /// log is it?
    Resolve {
        realm: String,
        reply: oneshot::Sender<Result<(String, mpsc::UnboundedSender<LogMsg>), DoorError>>,
    },
    /// The fan-out log's `job`: run this block in every connected realm
    /// and tell `to` whom it asked, then each reply.
    FanOut {
        job: JobId,
        agent: String,
        info: String,
        code: String,
        to: mpsc::UnboundedSender<LogMsg>,
    },
    /// The browser bridge heard this about the realm of `stem`.
    Browser { stem: String, line: BrowserLine },
}

/// How a block another door submitted to a log ended.
pub use crate::engine::effect::Answer as Answered;

/// Identifies one WebSocket connection (a realm can reconnect).
pub use daebug_core::delivery::ConnId;

/// What a log task is told.
#[derive(Debug)]
pub enum LogMsg {
    /// The watcher saw the file change.
    Changed,
    /// A message from the realm about this log's jobs, holding one of the
    /// log's [`REALM_INBOX`] slots until it is handled.
    Realm(Input, OwnedSemaphorePermit),
    /// A picture a job of the realm made (in order with its messages:
    /// before the job's result); the log task saves it.
    Image(RealmImage, OwnedSemaphorePermit),
    /// A realm connection now serves this log.
    Attach {
        conn: ConnId,
        kind: RealmKind,
        tx: mpsc::Sender<HubMsg>,
        /// Jobs the realm says it is still running (after a dropped
        /// connection, not a reload).
        in_flight: Vec<JobId>,
        /// A new document of a realm whose log existed: the lifecycle
        /// line to write (reloaded or navigated) and its URL.
        document: Option<(Lifecycle, String)>,
    },
    /// That connection closed.
    Detach { conn: ConnId },
    /// That page reloads after its next result (`daebug.reload()`): no
    /// job is sent on it any more.
    Reloading { conn: ConnId },
    /// That Node process is ending (`code 0`): the log
    /// says it exited, now, and no `closed` line follows.
    Exiting { conn: ConnId, how: String },
    /// The realm waits for `HubMsg::Flushed { seq }` on `answer`: everything
    /// it sent before is written (in order: one inbox).
    Flush {
        seq: u64,
        answer: mpsc::Sender<HubMsg>,
    },
    /// That connection stopped (or resumed) answering pings.
    Responsive { conn: ConnId, responsive: bool },
    /// Another door asks this log to run a block, written as if `agent`
    /// had appended it; `answer` gets its reply.
    Submit {
        agent: String,
        info: String,
        code: String,
        answer: oneshot::Sender<Answered>,
    },
    /// An input from the hub itself: whom a fan-out job was sent to, and
    /// their answers ([`Input::FannedOut`], [`Input::Answer`]).
    Hub(Input),
    /// What the browser bridge heard about this log's realm; written
    /// unless the adapter reported it too (`browser_seen.rs`).
    Browser(BrowserLine),
    /// The realm asks for a screenshot (`daebug.screenshot()`).
    Screenshot(ScreenshotAsk),
    /// The browser bridge took it (the PNG), or why not.
    Shot {
        ask: ScreenshotAsk,
        taken: Result<Vec<u8>, String>,
    },
    /// The realm asks the browser bridge (`getEventListeners`,
    /// `queryObjects`).
    Inspect(InspectAsk),
    /// The bridge answered it: the realm hears.
    Inspected(InspectAnswer),
}

/// How many messages of its realm a log task holds unread. A realm that
/// sends faster than its log is written waits for a slot (its connection
/// stops being read, so the socket pushes back): memory stays bounded and
/// nothing is dropped here (floods are thinned where they are written,
/// `flood.rs`). One channel keeps every message in order (a realm's
/// `leaving` before its detach, a detach before the next attach).
pub const REALM_INBOX: usize = 256;

/// The sending side of a log task's inbox.
#[derive(Debug, Clone)]
pub struct LogHandle {
    pub tx: mpsc::UnboundedSender<LogMsg>,
    /// The slots for realm messages ([`REALM_INBOX`]).
    pub realm_slots: Arc<Semaphore>,
}

impl LogHandle {
    /// Sends a realm's message, waiting while the log's slots are taken.
    /// False when the log task is gone.
    pub async fn realm(&self, input: Input) -> bool {
        match self.realm_slots.clone().acquire_owned().await {
            Ok(slot) => self.tx.send(LogMsg::Realm(input, slot)).is_ok(),
            Err(_) => false,
        }
    }

    /// Sends a realm's picture, as [`LogHandle::realm`].
    pub async fn image(&self, image: RealmImage) -> bool {
        match self.realm_slots.clone().acquire_owned().await {
            Ok(slot) => self.tx.send(LogMsg::Image(image, slot)).is_ok(),
            Err(_) => false,
        }
    }
}
