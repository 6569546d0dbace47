//! What the hub's tasks tell each other: the inboxes of the directory
//! and of the log tasks. A leaf of its own, so that the tasks depend on
//! these messages and not on each other.

use daebug_protocol::{HubMsg, JobId, RealmKind};
use tokio::sync::{mpsc, oneshot};

use crate::engine::{Input, LogState};

/// What a realm says about itself in its hello.
#[derive(Debug, Clone)]
pub struct Hello {
    pub kind: RealmKind,
    pub name: String,
    pub url: String,
    pub id: String,
    pub jobs: Vec<JobId>,
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
}

/// Identifies one WebSocket connection (a realm can reconnect).
pub type ConnId = u64;

/// What a log task is told.
#[derive(Debug)]
pub enum LogMsg {
    /// The watcher saw the file change.
    Changed,
    /// A realm connection now serves this log.
    Attach {
        conn: ConnId,
        kind: RealmKind,
        tx: mpsc::Sender<HubMsg>,
        /// Jobs the realm says it is still running (after a dropped
        /// connection, not a reload).
        in_flight: Vec<JobId>,
    },
    /// That connection closed.
    Detach { conn: ConnId },
    /// That connection stopped (or resumed) answering pings.
    Responsive { conn: ConnId, responsive: bool },
}

/// How many messages of its realm a log task holds unread. A realm that
/// sends faster than its log is written waits (its connection stops being
/// read, so the socket pushes back): memory stays bounded and nothing is
/// dropped here (floods are thinned where they are written, `flood.rs`).
pub const REALM_INBOX: usize = 256;

/// The sending sides of a log task's inboxes.
#[derive(Debug, Clone)]
pub struct LogHandle {
    /// Changes, attaches and detaches: few, and never waited on.
    pub tx: mpsc::UnboundedSender<LogMsg>,
    /// What the realm says about this log's jobs (bounded: [`REALM_INBOX`]).
    pub realm: mpsc::Sender<Input>,
}
