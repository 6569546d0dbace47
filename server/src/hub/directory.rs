//! The directory: one task that knows every realm and every log task,
//! assigns stems, routes file changes to log tasks and keeps the registry
//! `debug.md` up to date.
//!
//! Connection tasks and the watcher talk to it through its inbox; it never
//! waits on them, so a slow realm cannot stall the hub.

use std::collections::HashMap;
use std::path::PathBuf;

use daebug_protocol::person::Waiting;
use daebug_protocol::{HubMsg, JobId, RealmKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::task::TaskTracker;

use super::clock::wall;
use super::log_task::{self, LogSettings};
use super::messages::{DirMsg, Hello, ListedRealm, LogHandle, LogMsg, Unresolved, Welcome};
use super::names;
use super::registry_file::{RegistryFile, Synced};
use daebug_core::delivery::ConnId;
use daebug_core::engine::earlier;
use daebug_core::engine::lifecycle::Lifecycle;
use daebug_core::engine::registry::{self, HubStatus, RealmEntry, RealmStatus};
use daebug_core::engine::registry_notes::answer_blocks;
use daebug_core::engine::{ClockTime, Input, LogState};
use daebug_protocol::door::HubEvent;

/// At most this many realms are remembered; the oldest disconnected ones
/// are forgotten first (their logs stay on disk).
const MAX_REALMS: usize = 150;
/// When `debug.md` cannot be written (a full disk), it is tried again
/// this often.
const REGISTRY_RETRY: std::time::Duration = std::time::Duration::from_secs(1);

/// One realm the registry lists.
#[derive(Debug)]
struct Realm {
    stem: String,
    /// The name it gave (`?name=`, its title, its script's name).
    name: String,
    /// Its tab id: the same id after a reload finds this record again.
    id: String,
    /// A worker: its page's tab id and its name, which a new instance of
    /// it after a reload has too (see [`names::worker_id`]).
    parent: Option<(String, String)>,
    kind: RealmKind,
    url: String,
    /// A Node process's pid (the registry line shows it).
    pid: Option<u32>,
    /// When it last did something (connected, answered a block, left):
    /// the `last` of the registry and of the doors, the same value, so
    /// the registry need not be rewritten on heartbeats to agree.
    last_seen: ClockTime,
    /// Its last heartbeat (a pong), for the doors' `heard`.
    heard: ClockTime,
    /// The live connection, if any.
    conn: Option<ConnId>,
    responsive: bool,
    log_state: LogState,
    /// Why its log cannot be written now, if it cannot.
    unwritten: Option<String>,
    /// When its connection closed (it leaves the list ten minutes later).
    gone_since: Option<Instant>,
    /// Its panels, asks and picks waiting for a person (docs/log-format.md, "Panels").
    waiting: Vec<Waiting>,
}

impl Realm {
    fn entry(&self) -> RealmEntry {
        let state = match (self.conn, self.responsive) {
            (None, _) => RealmStatus::Disconnected,
            (Some(_), false) => RealmStatus::Unresponsive,
            (Some(_), true) => RealmStatus::Log(self.log_state),
        };
        RealmEntry {
            stem: self.stem.clone(),
            kind: self.kind,
            url: self.url.clone(),
            pid: self.pid,
            last_seen: self.last_seen,
            state,
            unwritten: self.unwritten.clone(),
        }
    }
}

/// The directory task's state.
pub struct Directory {
    /// `debug.md`.
    registry_path: PathBuf,
    /// The script tag the registry tells people to paste.
    script: String,
    restart: String,
    settings: LogSettings,
    tracker: TaskTracker,
    /// In the order they first connected.
    realms: Vec<Realm>,
    logs: HashMap<String, LogHandle>,
    /// `debug.md`: the hub's part, and what an agent wrote below it,
    /// kept (with a note under each block, which does not run there).
    registry: RegistryFile,
    /// The registry could not be written now: try again then.
    registry_again: Option<Instant>,
    /// Kept here to watch `debug/` again when it is recreated.
    watcher: Option<RecommendedWatcher>,
}

impl Directory {
    pub fn new(
        registry_path: PathBuf,
        script: String,
        restart: String,
        settings: LogSettings,
        tracker: TaskTracker,
        watcher: Option<RecommendedWatcher>,
    ) -> Directory {
        Directory {
            watcher,
            registry_path: registry_path.clone(),
            script,
            restart,
            settings,
            tracker,
            realms: Vec::new(),
            logs: HashMap::new(),
            registry: RegistryFile::new(registry_path),
            registry_again: None,
        }
    }

    /// Takes over the logs already in `debug/` (restart recovery runs in
    /// each), writes the registry, then serves the inbox until shutdown.
    pub async fn run(mut self, mut inbox: mpsc::UnboundedReceiver<DirMsg>) {
        let all = log_task::spawn_fan_out(self.settings.clone(), &self.tracker);
        self.logs.insert(names::FAN_OUT_STEM.to_string(), all);
        self.adopt_existing_logs();
        self.write_registry();
        let shutdown = self.settings.shutdown.clone();
        loop {
            // A realm gone for ten minutes leaves the list then.
            let prune =
                earlier::next_change(&self.seen(Instant::now())).map(|d| Instant::now() + d);
            tokio::select! {
                biased;
                () = shutdown.cancelled() => break,
                () = sleep_until(prune), if prune.is_some() => self.write_registry(),
                () = sleep_until(self.registry_again), if self.registry_again.is_some() => {
                    self.write_registry();
                }
                msg = inbox.recv() => match msg {
                    Some(msg) => {
                        if self.on(msg) {
                            self.write_registry();
                        }
                    }
                    None => break,
                },
            }
        }
        self.write_stopped();
    }

    fn adopt_existing_logs(&mut self) {
        let entries = match std::fs::read_dir(&self.settings.dir) {
            Ok(e) => e,
            Err(e) => {
                tracing::error!("cannot list {}: {e}", self.settings.dir.display());
                return;
            }
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if let Some(stem) = name.to_str().and_then(names::log_stem) {
                self.log(stem, RealmKind::Page, None);
            }
        }
    }

    /// The task of `stem`'s log, started if needed.
    fn log(&mut self, stem: &str, kind: RealmKind, first: Option<LogMsg>) -> LogHandle {
        if let Some(h) = self.logs.get(stem) {
            if let Some(msg) = first {
                let _ = h.tx.send(msg);
            }
            return h.clone();
        }
        let h = log_task::spawn(
            stem.to_string(),
            kind,
            self.settings.clone(),
            &self.tracker,
            first,
        );
        self.logs.insert(stem.to_string(), h.clone());
        h
    }

    /// Handles one message; true when the registry may need rewriting.
    fn on(&mut self, msg: DirMsg) -> bool {
        match msg {
            DirMsg::Hello {
                conn,
                hello,
                tx,
                reply,
            } => {
                let welcome = self.hello(conn, hello, tx);
                let _ = reply.send(welcome);
                true
            }
            DirMsg::Gone { conn } => {
                self.gone(conn);
                true
            }
            DirMsg::Responsive { conn, responsive } => {
                if let Some(r) = self.realm_of(conn) {
                    r.responsive = responsive;
                    let stem = r.stem.clone();
                    self.tell(&stem, LogMsg::Responsive { conn, responsive });
                }
                true
            }
            DirMsg::Seen { conn } => {
                if let Some(r) = self.realm_of(conn) {
                    r.heard = wall();
                }
                false
            }
            DirMsg::Waiting { stem, waits } => {
                if let Some(r) = self.realms.iter_mut().find(|r| r.stem == stem) {
                    r.waiting = waits;
                    // The registry's text may not change: say it anyway.
                    let _ = self.settings.events.send(HubEvent::Realms);
                }
                false
            }
            DirMsg::LogUnwritten { stem, why } => {
                if let Some(r) = self.realms.iter_mut().find(|r| r.stem == stem) {
                    r.unwritten = why;
                }
                true
            }
            DirMsg::LogState { stem, state } => {
                self.log_state(&stem, state);
                true
            }
            DirMsg::FileChanged { file_name, removed } => {
                self.file_changed(&file_name, removed);
                false
            }
            // Read (what the agent added is kept and answered) and
            // written again when needed.
            DirMsg::RegistryChanged => true,
            DirMsg::Realms { reply } => {
                let _ = reply.send(self.listed());
                false
            }
            DirMsg::Resolve { realm, reply } => {
                let found = self.resolve(&realm).and_then(|stem| {
                    let log = self.logs.get(&stem).ok_or(Unresolved::NoSuch)?;
                    Ok((stem, log.tx.clone()))
                });
                let _ = reply.send(found);
                false
            }
            DirMsg::FanOut {
                job,
                agent,
                info,
                code,
                to,
            } => {
                self.fan_out(job, agent, info, code, to);
                false
            }
            DirMsg::Browser { stem, line } => {
                self.tell(&stem, LogMsg::Browser(line));
                false
            }
            DirMsg::Effect { to, event } => {
                self.tell(&to, LogMsg::Effect(event));
                false
            }
            DirMsg::DebugDirCreated => {
                self.debug_dir_created();
                false
            }
        }
    }

    /// Sends `msg` to `stem`'s log task when it has one.
    fn tell(&self, stem: &str, msg: LogMsg) {
        if let Some(h) = self.logs.get(stem) {
            let _ = h.tx.send(msg);
        }
    }

    /// A realm's connection closed.
    fn gone(&mut self, conn: ConnId) {
        let Some(r) = self.realm_of(conn) else {
            return;
        };
        r.conn = None;
        // Its panels went with its connection; a realm that comes back
        // says again what still waits.
        r.waiting.clear();
        r.gone_since = Some(Instant::now());
        r.last_seen = wall();
        let stem = r.stem.clone();
        self.tell(&stem, LogMsg::Detach { conn });
    }

    /// A log's task says where its log stands.
    fn log_state(&mut self, stem: &str, state: LogState) {
        if let Some(r) = self.realms.iter_mut().find(|r| r.stem == stem) {
            r.log_state = state;
            // A result is the realm speaking: the line written now says it
            // was heard now, not at its last heartbeat.
            if r.conn.is_some() && matches!(state, LogState::Completed | LogState::Failed) {
                r.last_seen = wall();
            }
        }
    }

    /// A file in the logs' folder changed (or went).
    fn file_changed(&mut self, file_name: &str, removed: bool) {
        let all = file_name.strip_suffix(".md") == Some(names::FAN_OUT_STEM);
        let Some(stem) = names::log_stem(file_name).or(all.then_some(names::FAN_OUT_STEM)) else {
            return;
        };
        // A removal reaches only a task that exists; it never starts one (a
        // deleted log stays deleted).
        match self.logs.get(stem) {
            Some(h) => {
                let _ = h.tx.send(LogMsg::Changed);
            }
            None if !removed => {
                let h = self.log(stem, RealmKind::Page, None);
                let _ = h.tx.send(LogMsg::Changed);
            }
            None => {}
        }
    }

    /// The realms `debug.md` lists now, for the doors.
    fn listed(&self) -> Vec<ListedRealm> {
        let pruned = earlier::prune(&self.seen(Instant::now()), &[]);
        pruned
            .listed
            .iter()
            .map(|&i| {
                let r = &self.realms[i];
                ListedRealm {
                    entry: r.entry(),
                    heard: r.heard,
                    name: r.name.clone(),
                    waiting: r.waiting.clone(),
                }
            })
            .collect()
    }

    /// The logs' folder appeared after the hub started: watch it, and take
    /// the logs written into it before the watch began.
    fn debug_dir_created(&mut self) {
        if let Some(w) = self.watcher.as_mut() {
            if let Err(e) = w.watch(&self.settings.dir, RecursiveMode::NonRecursive) {
                tracing::error!("cannot watch {}: {e}", self.settings.dir.display());
            }
        }
        self.adopt_existing_logs();
        for h in self.logs.values() {
            let _ = h.tx.send(LogMsg::Changed);
        }
    }

    /// Submits a fan-out job's block to the log of every connected realm,
    /// in the registry's order; each reply goes back to `to` as it comes.
    fn fan_out(
        &mut self,
        job: JobId,
        agent: String,
        info: String,
        code: String,
        to: mpsc::UnboundedSender<LogMsg>,
    ) {
        let stems: Vec<String> = self
            .realms
            .iter()
            .filter(|r| r.conn.is_some() && self.logs.contains_key(&r.stem))
            .map(|r| r.stem.clone())
            .collect();
        // Before any answer: whom to wait for.
        let _ = to.send(LogMsg::Hub(Input::FannedOut {
            job,
            stems: stems.clone(),
        }));
        for stem in stems {
            let (answer, answered) = oneshot::channel();
            let submit = LogMsg::Submit {
                agent: agent.clone(),
                info: info.clone(),
                code: code.clone(),
                answer,
            };
            if let Some(h) = self.logs.get(&stem) {
                let _ = h.tx.send(submit);
            }
            let to = to.clone();
            self.tracker.spawn(async move {
                // A log task that stopped (the hub stops) answers nothing.
                if let Ok(a) = answered.await {
                    let _ = to.send(LogMsg::Hub(Input::Answer {
                        job,
                        stem,
                        reply: a.reply,
                        ok: a.state == LogState::Completed,
                    }));
                }
            });
        }
    }

    /// The stem a door means by `realm`: a stem, or the start of exactly
    /// one (of the connected realms, when it starts several).
    fn resolve(&self, realm: &str) -> Result<String, Unresolved> {
        if let Some(r) = self.realms.iter().find(|r| r.stem == realm) {
            return Ok(r.stem.clone());
        }
        let matching: Vec<&Realm> = self
            .realms
            .iter()
            .filter(|r| !realm.is_empty() && r.stem.starts_with(realm))
            .collect();
        let connected: Vec<&Realm> = matching
            .iter()
            .copied()
            .filter(|r| r.conn.is_some())
            .collect();
        match (matching.as_slice(), connected.as_slice()) {
            ([one], _) | (_, [one]) => Ok(one.stem.clone()),
            ([], _) => Err(Unresolved::NoSuch),
            (many, _) => Err(Unresolved::Several(
                many.iter().map(|r| r.stem.clone()).collect(),
            )),
        }
    }

    fn realm_of(&mut self, conn: ConnId) -> Option<&mut Realm> {
        self.realms.iter_mut().find(|r| r.conn == Some(conn))
    }

    fn hello(&mut self, conn: ConnId, hello: Hello, tx: mpsc::Sender<HubMsg>) -> Welcome {
        // A worker started by a page's loader names its page's tab; a Node
        // process is known by its script (its absolute path) and name, so
        // the same script in the same folder keeps its log across restarts.
        let parent = match hello.kind {
            RealmKind::Worker if names::is_tab_id(&hello.tab) => {
                Some((hello.tab.clone(), hello.name.clone()))
            }
            RealmKind::Node => Some((format!("node {}", hello.url), hello.name.clone())),
            _ => None,
        };
        let id = self.identity(&hello, parent.as_ref());
        let index = self.realm_index(&id, &parent, &hello);
        let realm = &mut self.realms[index];
        realm.conn = Some(conn);
        realm.gone_since = None;
        realm.kind = hello.kind;
        realm.url = hello.url.clone();
        realm.pid = hello.pid;
        realm.name = hello.name.clone();
        realm.responsive = true;
        realm.last_seen = wall();
        realm.heard = realm.last_seen;
        if parent.is_some() {
            realm.parent = parent;
        }
        let stem = realm.stem.clone();
        tracing::info!(%stem, "realm connected");
        let document = self.document_line(&stem, &hello);
        let attach = LogMsg::Attach {
            conn,
            kind: hello.kind,
            tx,
            in_flight: hello.jobs,
            document,
        };
        let log = self.log(&stem, hello.kind, Some(attach));
        Welcome { stem, id, log }
    }

    /// The realm id a hello gets: its own when no live realm holds it, else
    /// the worker's or Node process's id under its parent, else a new one.
    fn identity(&self, hello: &Hello, parent: Option<&(String, String)>) -> String {
        // A live realm with this id is either this very realm coming back
        // before its old connection was seen to drop (it still runs jobs
        // of that log, or the old connection stopped answering), or a
        // duplicated tab that copied its opener's sessionStorage.
        let comeback = !hello.jobs.is_empty();
        let taken = |realms: &[Realm], id: &str| {
            realms
                .iter()
                .any(|r| r.id == id && r.conn.is_some() && r.responsive && !comeback)
        };
        if names::is_tab_id(&hello.id) && !taken(&self.realms, &hello.id) {
            return hello.id.clone();
        }
        let under_parent = parent.and_then(|pair| {
            let (tab, name) = pair;
            // The first of this tab's ids for this worker that no other
            // realm holds and no live instance of it uses: a reload finds
            // its log again, a second live instance gets its own.
            (0..64).map(|n| names::worker_id(tab, name, n)).find(|id| {
                match self.realms.iter().find(|r| r.id == *id) {
                    None => true,
                    Some(r) => r.parent.as_ref() == Some(pair) && !taken(&self.realms, id),
                }
            })
        });
        // Else a new tab, or a duplicated one that copied its opener's id.
        under_parent.unwrap_or_else(|| loop {
            let id = names::tab_id();
            if !self.realms.iter().any(|r| r.id == id) {
                break id;
            }
        })
    }

    /// The index of the realm `id`, added (with its stem) when new.
    fn realm_index(&mut self, id: &str, parent: &Option<(String, String)>, hello: &Hello) -> usize {
        if let Some(i) = self.realms.iter().position(|r| r.id == id) {
            return i;
        }
        let fallback = match hello.kind {
            RealmKind::Page => "page",
            RealmKind::Worker => "worker",
            RealmKind::Node => "node",
        };
        self.forget_old_realms();
        self.realms.push(Realm {
            stem: names::stem(&hello.name, fallback, id),
            name: hello.name.clone(),
            id: id.to_string(),
            parent: parent.clone(),
            kind: hello.kind,
            url: String::new(),
            pid: None,
            last_seen: wall(),
            heard: wall(),
            conn: None,
            responsive: true,
            log_state: LogState::Idle,
            unwritten: None,
            gone_since: None,
            waiting: Vec::new(),
        });
        self.realms.len() - 1
    }

    /// A new document of a realm whose log exists (this run, or a log
    /// adopted at start) gets a lifecycle line; a first one does not.
    fn document_line(&self, stem: &str, hello: &Hello) -> Option<(Lifecycle, String)> {
        let nav = hello.navigation.as_deref()?;
        if !self.logs.contains_key(stem) {
            return None;
        }
        Some(match (hello.kind, nav) {
            (RealmKind::Node, _) => (
                Lifecycle::Restarted,
                hello.pid.map(|p| p.to_string()).unwrap_or_default(),
            ),
            (RealmKind::Worker, _) | (_, "reload") => {
                (Lifecycle::Reloaded, realm_url(&self.realms, stem))
            }
            _ => (Lifecycle::Navigated, realm_url(&self.realms, stem)),
        })
    }

    fn forget_old_realms(&mut self) {
        while self.realms.len() >= MAX_REALMS {
            match self.realms.iter().position(|r| r.conn.is_none()) {
                Some(i) => {
                    self.realms.remove(i);
                }
                None => break,
            }
        }
    }

    fn write_registry(&mut self) {
        let status = HubStatus::Running {
            script: self.script.clone(),
        };
        self.write(&status);
    }

    fn write_stopped(&mut self) {
        for r in &mut self.realms {
            r.conn = None;
        }
        let status = HubStatus::Stopped {
            at: wall(),
            restart: self.restart.clone(),
        };
        self.write(&status);
    }

    /// The realms as the registry's pruning sees them at `now`.
    fn seen(&self, now: Instant) -> Vec<earlier::Seen<'_>> {
        self.realms
            .iter()
            .map(|r| earlier::Seen {
                stem: &r.stem,
                gone_for: r.gone_since.map(|t| now.saturating_duration_since(t)),
            })
            .collect()
    }

    fn write(&mut self, status: &HubStatus) {
        // Logs of no realm this run knows (adopted at start): linked
        // after the realms that left, by name.
        let mut others: Vec<&str> = self
            .logs
            .keys()
            .map(String::as_str)
            .filter(|s| *s != names::FAN_OUT_STEM)
            .collect();
        others.sort_unstable();
        let pruned = earlier::prune(&self.seen(Instant::now()), &others);
        let entries: Vec<RealmEntry> = pruned
            .listed
            .iter()
            .map(|&i| self.realms[i].entry())
            .collect();
        let hub = registry::render(status, &entries) + &earlier::section(&pruned.earlier);
        let stems: Vec<&str> = self
            .realms
            .iter()
            .filter(|r| r.conn.is_some())
            .map(|r| r.stem.as_str())
            .collect();
        let clock = wall().to_string();
        let answer = |part: &str| answer_blocks(part, &stems, &clock);
        let stopping = matches!(status, HubStatus::Stopped { .. });
        let mut synced = self
            .registry
            .sync(&hub, &answer, Instant::now().into_std(), !stopping);
        if stopping {
            // A save in progress gets its moment, once, then the hub's
            // last word is written.
            if let Ok(Synced::Again(at)) = synced {
                std::thread::sleep(at.saturating_duration_since(std::time::Instant::now()));
                synced = self.registry.sync(&hub, &answer, at, false);
            }
        }
        self.registry_again = None;
        match synced {
            Ok(Synced::Done { wrote }) => {
                if wrote {
                    let _ = self.settings.events.send(HubEvent::Realms);
                }
            }
            Ok(Synced::Again(at)) => self.registry_again = Some(Instant::from_std(at)),
            Err(e) => {
                tracing::error!("cannot write {}: {e}", self.registry_path.display());
                self.registry_again = Some(Instant::now() + REGISTRY_RETRY);
            }
        }
    }
}

/// The URL the realm of `stem` said it is at.
fn realm_url(realms: &[Realm], stem: &str) -> String {
    realms
        .iter()
        .find(|r| r.stem == stem)
        .map_or(String::new(), |r| r.url.clone())
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::sync::oneshot;
    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::hub::clock::Clock;
    use crate::sourcemap::SourceMaps;

    fn directory(root: &std::path::Path) -> Directory {
        let dir = root.join("debug");
        std::fs::create_dir_all(&dir).unwrap();
        let (tx, _rx) = mpsc::unbounded_channel();
        let settings = LogSettings {
            dir,
            default_timeout: Duration::from_secs(60),
            clock: Clock::start(),
            directory: tx,
            shutdown: CancellationToken::new(),
            sourcemaps: SourceMaps::new(),
            events: tokio::sync::broadcast::channel(1).0,
            cdp: None,
        };
        let registry = root.join("debug.md");
        Directory::new(
            registry,
            String::new(),
            String::new(),
            settings,
            TaskTracker::new(),
            None,
        )
    }

    fn hello(dir: &mut Directory, conn: ConnId, name: &str) -> String {
        let (tx, _rx) = mpsc::channel(4);
        let (reply, mut welcome) = oneshot::channel();
        let hello = Hello {
            kind: RealmKind::Page,
            name: name.into(),
            url: "http://h/".into(),
            id: String::new(),
            jobs: vec![],
            tab: String::new(),
            navigation: Some("navigate".into()),
            pid: None,
        };
        dir.on(DirMsg::Hello {
            conn,
            hello,
            tx,
            reply,
        });
        welcome.try_recv().unwrap().stem
    }

    fn node_hello(dir: &mut Directory, conn: ConnId, script: &str, pid: u32) -> String {
        let (tx, _rx) = mpsc::channel(4);
        let (reply, mut welcome) = oneshot::channel();
        let hello = Hello {
            kind: RealmKind::Node,
            name: "server".into(),
            url: script.into(),
            id: String::new(),
            jobs: vec![],
            tab: String::new(),
            navigation: Some("start".into()),
            pid: Some(pid),
        };
        dir.on(DirMsg::Hello {
            conn,
            hello,
            tx,
            reply,
        });
        welcome.try_recv().unwrap().stem
    }

    /// The same script in the same folder keeps its log across restarts;
    /// a second live process of it, or another script, gets its own.
    #[tokio::test]
    async fn node_processes_are_known_by_their_script() {
        let root = tempfile::tempdir().unwrap();
        let mut dir = directory(root.path());
        let first = node_hello(&mut dir, 1, "/srv/a/server.js", 100);
        assert!(first.starts_with("server-"), "{first}");
        let twin = node_hello(&mut dir, 2, "/srv/a/server.js", 101);
        assert_ne!(twin, first);
        let other = node_hello(&mut dir, 3, "/srv/b/server.js", 102);
        assert_ne!(other, first);
        assert_ne!(other, twin);
        dir.on(DirMsg::Gone { conn: 1 });
        assert_eq!(node_hello(&mut dir, 4, "/srv/a/server.js", 103), first);
        let line = dir.realms.iter().find(|r| r.stem == first).unwrap().entry();
        assert_eq!(line.pid, Some(103));
    }

    /// A door names a realm by its stem or a unique start of it; among
    /// several, the one connected wins.
    #[tokio::test]
    async fn doors_name_realms_by_stem_or_unique_prefix() {
        let root = tempfile::tempdir().unwrap();
        let mut dir = directory(root.path());
        let shop = hello(&mut dir, 1, "Shop");
        let shop2 = hello(&mut dir, 2, "Shop");
        let cart = hello(&mut dir, 3, "Cart");
        assert_eq!(dir.resolve(&cart), Ok(cart.clone()));
        assert_eq!(dir.resolve("cart"), Ok(cart.clone()));
        assert_eq!(
            dir.resolve("shop"),
            Err(Unresolved::Several(vec![shop.clone(), shop2.clone()]))
        );
        assert_eq!(dir.resolve("nope"), Err(Unresolved::NoSuch));
        assert!(dir.resolve("").is_err());
        dir.on(DirMsg::Gone { conn: 1 });
        assert_eq!(dir.resolve("shop"), Ok(shop2));
    }

    /// A realm gone for more than ten minutes leaves the list for the
    /// "Earlier logs" line; the loop rewrites the registry when the first
    /// one passes the mark (`next_change`).
    #[tokio::test(start_paused = true)]
    async fn realms_gone_for_ten_minutes_leave_the_registry() {
        let root = tempfile::tempdir().unwrap();
        let mut dir = directory(root.path());
        let gone = hello(&mut dir, 1, "Gone");
        let live = hello(&mut dir, 2, "Live");
        dir.on(DirMsg::Gone { conn: 1 });
        dir.write_registry();
        let text = std::fs::read_to_string(root.path().join("debug.md")).unwrap();
        assert!(text.contains(&format!("* [{gone}]")), "{text}");
        let wait = earlier::next_change(&dir.seen(Instant::now())).unwrap();
        assert_eq!(wait, earlier::GONE_FOR + Duration::from_millis(1));
        tokio::time::advance(wait).await;
        dir.write_registry();
        let text = std::fs::read_to_string(root.path().join("debug.md")).unwrap();
        assert!(!text.contains(&format!("* [{gone}]")), "{text}");
        assert!(text.contains(&format!("* [{live}]")), "{text}");
        assert!(
            text.ends_with(&format!("\nEarlier logs: [{gone}](debug/{gone}.md)\n")),
            "{text}"
        );
        assert_eq!(earlier::next_change(&dir.seen(Instant::now())), None);
    }
}
