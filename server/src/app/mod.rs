//! The running hub: binds the port, then runs the hub's tasks
//! (`crate::hub`), the HTTP surface (`crate::http` with the doors' routes:
//! [`router`]) and the browser bridge until shutdown.
//!
//! Shutdown is a future passed in (as in mini-redis): when it resolves, a
//! cancellation token tells every task; realms get a `bye`, log tasks
//! finish the input they are handling, and the registry is rewritten to
//! say the hub stopped.

pub mod router;

use std::future::{Future, IntoFuture};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::serve::ListenerExt;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::HubConfig;
use crate::http::guard::Guard;
use crate::http::state::HttpState;
use crate::hub::directory::Directory;
use crate::hub::log_task::LogSettings;
use crate::hub::{clock, fsio, messages, node_loader, realm, watcher};

/// How long open HTTP connections may take to finish once shutdown began.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Why the hub could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    #[error("port {port} on {host} is already in use; stop the other program or choose another port with --port N (--port 0 picks a free one)")]
    PortBusy { host: std::net::IpAddr, port: u16 },
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("root {path}: {source}")]
    Root {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot watch {path}: {source}")]
    Watch {
        path: PathBuf,
        source: notify::Error,
    },
    #[error("a hub listening on {0} needs a token (--token) so only your pages can connect")]
    TokenRequired(std::net::IpAddr),
    #[error("--token must not be empty")]
    EmptyToken,
    #[error("serving failed: {0}")]
    Serve(std::io::Error),
    #[error("{0} is a file; daebug keeps its logs in a folder of that name: move or rename the file, or choose another --root")]
    DebugIsAFile(PathBuf),
    #[error("{0} is a link to nothing; daebug keeps its logs in a folder of that name: remove the link or make it point to a folder")]
    DebugIsABrokenLink(PathBuf),
}

/// A hub bound to its port, not yet serving.
pub struct Hub {
    config: HubConfig,
    /// The canonical root.
    root: PathBuf,
    listener: TcpListener,
    addr: SocketAddr,
    /// Made at bind, so a caller holds the doors before the hub runs
    /// (`daebug mcp` serves its tools in-process).
    wiring: Wiring,
}

/// The channels and the shutdown token the hub's tasks and doors share.
struct Wiring {
    dir_tx: mpsc::UnboundedSender<messages::DirMsg>,
    dir_rx: mpsc::UnboundedReceiver<messages::DirMsg>,
    events: tokio::sync::broadcast::Sender<daebug_protocol::door::HubEvent>,
    /// The one shutdown token: every task and connection watches it.
    shutdown: CancellationToken,
    doors: crate::doors::Doors,
    /// Told once the hub serves, its files in `debug/` written.
    serving: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Hub {
    /// Checks the root and binds the port (so `--port 0` knows its port
    /// before anything is printed).
    pub async fn bind(config: HubConfig) -> Result<Hub, HubError> {
        let root = config
            .root
            .canonicalize()
            .and_then(|p| {
                if p.is_dir() {
                    Ok(p)
                } else {
                    Err(std::io::Error::other("not a directory"))
                }
            })
            .map_err(|source| HubError::Root {
                path: config.root.clone(),
                source,
            })?;
        // Before anything says it is serving: the logs' folder must be
        // one (a link to a folder is one), and what a killed hub left
        // half-written goes: in `debug/`, `debug/archive/`, and the
        // registry's in the root (the root's other files are the
        // project's).
        let logs_dir = root.join("debug");
        if logs_dir.metadata().is_ok_and(|m| !m.is_dir()) {
            return Err(HubError::DebugIsAFile(logs_dir));
        }
        if logs_dir.symlink_metadata().is_ok() && logs_dir.metadata().is_err() {
            return Err(HubError::DebugIsABrokenLink(logs_dir));
        }
        let removed = fsio::remove_leftover_temps(&logs_dir, |_| true)
            + fsio::remove_leftover_temps(&logs_dir.join("archive"), |_| true)
            + fsio::remove_leftover_temps(&root, |name| name == "debug.md");
        if removed > 0 {
            tracing::info!(
                "removed {removed} temp file(s) a stopped hub left in {}",
                root.display()
            );
        }
        if !config.addr.ip().is_loopback() && config.token.is_none() {
            return Err(HubError::TokenRequired(config.addr.ip()));
        }
        if config.token.as_deref().is_some_and(|t| t.trim().is_empty()) {
            return Err(HubError::EmptyToken);
        }
        let listener =
            TcpListener::bind(config.addr)
                .await
                .map_err(|source| match source.kind() {
                    std::io::ErrorKind::AddrInUse => HubError::PortBusy {
                        host: config.addr.ip(),
                        port: config.addr.port(),
                    },
                    _ => HubError::Bind {
                        addr: config.addr,
                        source,
                    },
                })?;
        let addr = listener.local_addr().map_err(|source| HubError::Bind {
            addr: config.addr,
            source,
        })?;
        let (dir_tx, dir_rx) = mpsc::unbounded_channel();
        let (events, _) = tokio::sync::broadcast::channel(crate::doors::EVENTS_BUFFER);
        let shutdown = CancellationToken::new();
        let doors = crate::doors::Doors::new(
            dir_tx.clone(),
            events.clone(),
            root.join("debug"),
            shutdown.clone(),
        );
        Ok(Hub {
            config,
            root,
            listener,
            addr,
            wiring: Wiring {
                dir_tx,
                dir_rx,
                events,
                shutdown,
                doors,
                serving: None,
            },
        })
    }

    /// Resolves once the hub serves: `debug/.hub` and the Node loader
    /// written (a command run beside the hub needs the loader first,
    /// `cmd/beside.rs`). Dropped unresolved when the hub fails to start.
    pub fn serving(&mut self) -> tokio::sync::oneshot::Receiver<()> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.wiring.serving = Some(tx);
        rx
    }

    /// Where the hub writes the Node loader (`debug/daebug-node.mjs`).
    pub fn node_loader(&self) -> PathBuf {
        self.root.join("debug").join(node_loader::FILE_NAME)
    }

    /// What the doors (HTTP API, MCP...) ask this hub, once it runs.
    pub fn doors(&self) -> crate::doors::Doors {
        self.wiring.doors.clone()
    }

    /// The address actually bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://host:port`, with a loopback host when bound to all
    /// interfaces (a browser cannot open `0.0.0.0`).
    pub fn base_url(&self) -> String {
        let mut addr = self.addr;
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        format!("http://{addr}")
    }

    /// The adapter's URL, carrying the token when there is one.
    pub fn script_url(&self) -> String {
        match &self.config.token {
            Some(t) => format!(
                "{}/daebug.js?{}",
                self.base_url(),
                crate::http::token::query_param(t)
            ),
            None => format!("{}/daebug.js", self.base_url()),
        }
    }

    /// The dashboard's URL (docs/doors.md), carrying the token when
    /// there is one: opening it sets the cookie its requests carry.
    pub fn dashboard_url(&self) -> String {
        let page = format!("{}{}", self.base_url(), crate::doors::dashboard::PATH);
        match &self.config.token {
            Some(t) => format!("{page}?{}", crate::http::token::query_param(t)),
            None => page,
        }
    }

    /// What `debug/.hub` says about this hub.
    pub fn hub_file(&self) -> daebug_protocol::door::HubFile {
        daebug_protocol::door::HubFile {
            url: self.base_url(),
            host: self.addr.ip().to_string(),
            port: self.addr.port(),
            pid: std::process::id(),
            token: self.config.token.clone(),
        }
    }

    /// Source maps read only from the origins a page may connect from
    /// (loopback, `--allow-origin`): a realm names any URL it likes in a
    /// stack, and the hub is no proxy to the network. (The hub's own pages
    /// under a non-loopback address need its token: not read either.)
    fn sourcemaps(&self) -> Arc<crate::sourcemap::SourceMaps> {
        let guard = Guard::new(self.addr, &self.config.allow_origins);
        crate::sourcemap::SourceMaps::reading(Box::new(move |origin| {
            let header = axum::http::HeaderValue::from_str(origin).ok();
            header.is_some_and(|h| guard.origin_allowed(Some(&h)))
        }))
    }

    /// What the browser bridge puts into the pages and workers it reaches
    /// (`--match`, else the origins the hub admits; docs/zero-edits.md,
    /// "Attach to a browser"): the loader as this hub serves it.
    fn injection(&self) -> crate::cdp::inject::Injection {
        let guard = Guard::new(self.addr, &self.config.allow_origins);
        let admit: crate::cdp::reach::Admit = Box::new(move |origin| {
            let header = axum::http::HeaderValue::from_str(origin).ok();
            header.is_some_and(|h| guard.origin_allowed(Some(&h)))
        });
        let reach = crate::cdp::reach::Reach::new(
            self.config.cdp_match.clone(),
            self.config.allow_origins.clone(),
            admit,
        );
        let url = self.script_url();
        let loader = crate::http::loader::Loader::get().at(&url);
        crate::cdp::inject::Injection::new(reach, &loader, &url)
    }

    /// The line to paste into a page: a classic script, which runs as
    /// the parser reaches it, so capture starts before the page's own
    /// scripts (a module script would wait for the whole document).
    pub fn script_tag(&self) -> String {
        crate::http::files::script_tag(&self.script_url())
    }

    /// Serves until `signal` resolves, then stops every task cleanly.
    pub async fn run(
        mut self,
        signal: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), HubError> {
        let debug = self.root.join("debug");
        std::fs::create_dir_all(&debug).map_err(|source| HubError::Root {
            path: debug.clone(),
            source,
        })?;
        let (_, none) = mpsc::unbounded_channel();
        let dir_rx = std::mem::replace(&mut self.wiring.dir_rx, none);
        let shutdown = self.wiring.shutdown.clone();
        let tracker = TaskTracker::new();
        let directory = self.directory(&debug, &tracker)?;
        let directory = tokio::spawn(directory.run(dir_rx));
        let app = self.app(&tracker);
        let hub_file = self.root.join(daebug_protocol::door::HUB_FILE);
        self.write_found_files(&hub_file);
        tracing::info!("serving {} at {}/", self.root.display(), self.base_url());
        if let Some(serving) = self.wiring.serving.take() {
            let _ = serving.send(());
        }
        let served = serve_until(self.listener, app, signal, shutdown.clone()).await;
        shutdown.cancel();
        tracker.close();
        if tokio::time::timeout(SHUTDOWN_GRACE, tracker.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                "some tasks did not stop within {}s",
                SHUTDOWN_GRACE.as_secs()
            );
        }
        let _ = directory.await;
        remove_hub_file(&hub_file);
        tracing::info!("hub stopped");
        served.map_err(HubError::Serve)
    }

    /// The directory of realms and logs, with the browser bridge when
    /// `--cdp` names one and the watch on the root.
    fn directory(&self, debug: &Path, tracker: &TaskTracker) -> Result<Directory, HubError> {
        let dir_tx = self.wiring.dir_tx.clone();
        let shutdown = self.wiring.shutdown.clone();
        let cdp = self.config.cdp.clone().map(|endpoint| {
            let to = dir_tx.clone();
            let report: crate::cdp::Report = Box::new(move |stem, line| {
                let _ = to.send(messages::DirMsg::Browser { stem, line });
            });
            crate::cdp::spawn(
                endpoint,
                self.injection(),
                report,
                shutdown.clone(),
                tracker,
            )
        });
        let settings = LogSettings {
            dir: debug.to_path_buf(),
            default_timeout: self.config.default_timeout,
            clock: clock::Clock::start(),
            directory: dir_tx.clone(),
            shutdown,
            sourcemaps: self.sourcemaps(),
            events: self.wiring.events.clone(),
            cdp,
        };
        let watch = watcher::watch(&self.root, dir_tx).map_err(|source| HubError::Watch {
            path: debug.to_path_buf(),
            source,
        })?;
        Ok(Directory::new(
            self.root.join("debug.md"),
            self.script_tag(),
            self.config.restart_command.clone(),
            settings,
            tracker.clone(),
            Some(watch),
        ))
    }

    /// The HTTP routes: the realms' WebSocket, the files, the doors and
    /// the proxied dev server.
    fn app(&self, tracker: &TaskTracker) -> axum::Router {
        let guard = Arc::new(Guard::new(self.addr, &self.config.allow_origins));
        let realms = realm::router(realm::SocketState {
            directory: self.wiring.dir_tx.clone(),
            guard: guard.clone(),
            ping_every: self.config.ping_every,
            unresponsive_after: self.config.unresponsive_after,
            max_frame: self.config.max_frame,
            shutdown: self.wiring.shutdown.clone(),
            tracker: tracker.clone(),
        });
        router::router(
            HttpState {
                root: self.root.clone(),
                guard,
                script_url: self.script_url(),
                token: self.config.token.clone(),
                left_alone: Default::default(),
            },
            Some(self.wiring.doors.clone()),
            realms,
            self.config.proxy.clone(),
        )
    }

    /// Writes the files others find the hub by: `debug/.hub` (the CLI's)
    /// and the Node loader and test runner in `debug/`.
    fn write_found_files(&self, hub_file: &Path) {
        if let Err(e) = write_hub_file(hub_file, &self.hub_file()) {
            tracing::warn!(
                "cannot write {} (the CLI finds the hub there): {e}",
                hub_file.display()
            );
        }
        // Node processes load the adapter through this file (README, "Connect … a Node process").
        let secret = self.config.token.is_some();
        let debug_dir = self.root.join("debug");
        if let Err(e) = node_loader::write(&debug_dir, &self.script_url(), secret) {
            tracing::warn!(
                "cannot write {} (Node processes load daebug with it): {e}",
                debug_dir.join(node_loader::FILE_NAME).display()
            );
        }
        if let Err(e) = node_loader::write_test_runner(&debug_dir) {
            tracing::warn!("cannot write daebug.test's Node runner into debug/: {e}");
        }
    }
}

/// Serves `app` on `listener` until `signal` resolves or `shutdown` is
/// cancelled, then gives open connections a moment before dropping them.
async fn serve_until(
    listener: TcpListener,
    app: axum::Router,
    signal: impl Future<Output = ()> + Send + 'static,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let serve = {
        let shutdown = shutdown.clone();
        axum::serve(
            listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            }),
            app,
        )
        .with_graceful_shutdown(async move {
            tokio::select! {
                () = signal => {}
                () = shutdown.cancelled() => {}
            }
            // Upgraded WebSockets are not waited for by axum: tell their
            // tasks now, and wait for them below.
            shutdown.cancel();
        })
        .into_future()
    };
    // A client that sent half a request would hold the graceful shutdown
    // open forever: give open connections a moment, then drop them.
    let grace = async {
        shutdown.cancelled().await;
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    tokio::select! {
        r = serve => r,
        () = grace => {
            tracing::warn!("closing connections still open after {}s", SHUTDOWN_GRACE.as_secs());
            Ok(())
        }
    }
}

/// Writes `debug/.hub` in one step, readable by its owner only (it may
/// hold the token).
fn write_hub_file(
    path: &std::path::Path,
    hub: &daebug_protocol::door::HubFile,
) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(hub).map_err(std::io::Error::other)? + "\n";
    let tmp = fsio::write_temp(path, &text)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Err(e) = std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600)) {
            fsio::remove_quietly(&tmp);
            return Err(e);
        }
    }
    let renamed = std::fs::rename(&tmp, path);
    if renamed.is_err() {
        fsio::remove_quietly(&tmp);
    }
    renamed
}

/// Removes `debug/.hub` if it still names this process (another hub on
/// the same root may have written it since).
fn remove_hub_file(path: &std::path::Path) {
    let ours = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str::<daebug_protocol::door::HubFile>(&t).ok())
        .is_some_and(|h| h.pid == std::process::id());
    if ours {
        fsio::remove_quietly(path);
    }
}
