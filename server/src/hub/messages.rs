//! What the hub's tasks tell each other: the inboxes of the directory
//! and of the log tasks. A leaf of its own, so that the tasks depend on
//! these messages and not on each other.

use daebug_protocol::{HubMsg, InspectAnswer, JobId, RealmKind, RealmMsg, ScreenshotAsk};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit, Semaphore};

use crate::cdp::lines::BrowserLine;
use daebug_core::engine::lifecycle::Lifecycle;
use daebug_core::engine::registry::RealmEntry;
use daebug_core::engine::{Input, LogState};

/// A realm as the directory lists it: its registry entry and the name
/// it gave.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedRealm {
    pub entry: RealmEntry,
    /// Its last heartbeat.
    pub heard: daebug_core::engine::ClockTime,
    pub name: String,
    /// Its panels, asks and picks waiting for a person, as it sent them.
    pub waiting: Vec<daebug_protocol::person::Waiting>,
}

/// Why a name a door gave is no realm's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresolved {
    /// No stem is it or starts with it.
    NoSuch,
    /// It starts these stems (none connected, or several).
    Several(Vec<String>),
}

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
    /// A log's file cannot be written (`Some(why)`), or can again.
    LogUnwritten { stem: String, why: Option<String> },
    /// What waits for a person in the realm of a log now.
    Waiting {
        stem: String,
        waits: Vec<daebug_protocol::person::Waiting>,
    },
    /// The watcher saw this file in `debug/` change (or go).
    FileChanged { file_name: String, removed: bool },
    /// `debug/` was created again after someone deleted it.
    DebugDirCreated,
    /// The registry `debug.md` changed (the hub's own writes included).
    RegistryChanged,
    /// A door asks for the realms, as the registry lists them (the doors
    /// turn them into their own JSON: no door type enters an inbox).
    Realms {
        reply: oneshot::Sender<Vec<ListedRealm>>,
    },
    /// A door names a realm (its stem, or a unique start of it): which
    /// log is it?
    Resolve {
        realm: String,
        reply: oneshot::Sender<Result<(String, mpsc::UnboundedSender<LogMsg>), Unresolved>>,
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
    /// What a Node realm did serving a block of `to`'s (docs/actions.md,
    /// "Effects in every realm"), for `to`'s log.
    Effect {
        to: String,
        event: daebug_protocol::BackgroundEvent,
    },
}

use daebug_core::delivery::ConnId;
use daebug_core::engine::effect::Answer;

/// What a log task is told.
#[derive(Debug)]
pub enum LogMsg {
    /// The watcher saw the file change.
    Changed,
    /// A message of a realm connection serving this log, in the wire's
    /// own type: it enters the log task once, and the task alone decides
    /// what it means (one arm per message).
    FromRealm(RealmLetter),
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
    /// That connection stopped (or resumed) answering pings.
    Responsive { conn: ConnId, responsive: bool },
    /// Another door asks this log to run a block, written as if `agent`
    /// had appended it; `answer` gets its reply.
    Submit {
        agent: String,
        info: String,
        code: String,
        answer: oneshot::Sender<Answer>,
    },
    /// An input from the hub itself: whom a fan-out job was sent to, and
    /// their answers ([`Input::FannedOut`], [`Input::Answer`]).
    Hub(Input),
    /// What the browser bridge heard about this log's realm; written
    /// unless the adapter reported it too (`browser_seen.rs`).
    Browser(BrowserLine),
    /// What a Node realm did serving one of this realm's blocks' requests
    /// (`daebug_core::effects`): a `Text served` event of this log.
    Effect(daebug_protocol::BackgroundEvent),
    /// The browser bridge took it (the PNG), or why not.
    Shot {
        ask: ScreenshotAsk,
        taken: Result<Vec<u8>, String>,
    },
    /// The bridge answered an `inspect`: the realm hears.
    Inspected(InspectAnswer),
    /// A person acted on a panel in the dashboard: the realm hears (a
    /// `person::PersonAct` as JSON text). False to `sent` when no realm
    /// serves the log now.
    Person {
        json: String,
        sent: oneshot::Sender<bool>,
    },
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

/// A realm's message on its way to its log.
#[derive(Debug)]
pub struct RealmLetter {
    pub conn: ConnId,
    pub msg: RealmMsg,
    /// The connection, for what is answered to it alone (`flushed`).
    pub answer: mpsc::Sender<HubMsg>,
    /// One of the log's [`REALM_INBOX`] slots, held until the message is
    /// handled, for what a realm can send without end (progress, results,
    /// background events, pictures).
    pub slot: Option<OwnedSemaphorePermit>,
}

impl LogHandle {
    /// Sends a realm's message; one that can come without end waits while
    /// the log's slots are taken. False when the log task is gone.
    pub async fn from_realm(
        &self,
        conn: ConnId,
        msg: RealmMsg,
        answer: &mpsc::Sender<HubMsg>,
    ) -> bool {
        let bounded = matches!(
            msg,
            RealmMsg::Started { .. }
                | RealmMsg::Progress(_)
                | RealmMsg::Result(_)
                | RealmMsg::Background { .. }
                | RealmMsg::Leaving { .. }
                | RealmMsg::Image(_)
                | RealmMsg::Body { .. }
        );
        let slot = match bounded {
            true => match self.realm_slots.clone().acquire_owned().await {
                Ok(slot) => Some(slot),
                Err(_) => return false,
            },
            false => None,
        };
        let letter = RealmLetter {
            conn,
            msg,
            answer: answer.clone(),
            slot,
        };
        self.tx.send(LogMsg::FromRealm(letter)).is_ok()
    }
}
