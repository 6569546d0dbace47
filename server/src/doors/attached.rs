//! `daebug mcp` attached to a hub that already runs (docs/doors.md,
//! "MCP"): the MCP tools' [`Door`] over that hub's HTTP API
//! ([`HubClient`]), so the tools answer the same texts and refusals
//! either way. The running hub writes the blocks into its logs; this
//! process only relays.
//!
//! - [`AttachedHub::find`]: the hub the flags name (`--host`, a `--port`
//!   other than 0), else the one the root's `debug/.hub` names, whichever
//!   answers `GET /api/realms`.
//! - [`door_error`]: a client's error as the door's refusal the
//!   in-process [`super::Doors`] would have returned.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::client::{ClientError, HubClient};
use super::door::Door;
use super::json::{DoorError, EvalReply, EvalRequest, RealmInfo};
use super::reading::{LogQuery, LogRead};

/// How long a hub has to answer the first `GET /api/realms` before
/// `daebug mcp` takes it that none runs there (a live hub on loopback
/// answers in a millisecond; a stopped one refuses the connection at once).
const PROBE: Duration = Duration::from_secs(3);

/// A running hub, reached over its HTTP API, on a connection kept
/// between calls. When a call cannot reach it, the hub is found again
/// (the flags' address, or `debug/.hub` read anew) and the call made once
/// more, so a hub restarted on the same root, even on another port, is
/// still the one the tools reach.
#[derive(Debug, Clone)]
pub struct AttachedHub {
    root: PathBuf,
    host: Option<String>,
    port: Option<u16>,
    token: Option<String>,
    /// Where it was found first, for the line that says so.
    url: String,
    /// The client of the hub as last found.
    found: std::sync::Arc<std::sync::Mutex<Option<HubClient>>>,
}

impl AttachedHub {
    /// The hub at `host`/`port` when either names one (port 0 names
    /// none: it asks for a new hub on any free port) and it answers `GET
    /// /api/realms`; else the one `root/debug/.hub` names, when it does
    /// (a second hub on a root already served would write the same logs).
    /// [`ClientError::NoHub`] when none is there to answer; any other
    /// error when something answered, but not as a hub this client may
    /// use (another server on that port, a token it lacks).
    pub async fn find(
        root: &Path,
        host: Option<&str>,
        port: Option<u16>,
        token: Option<String>,
    ) -> Result<AttachedHub, ClientError> {
        let port = port.filter(|&p| p != 0);
        if host.is_none() && port.is_none() {
            return AttachedHub::answering(root, None, None, token).await;
        }
        match AttachedHub::answering(root, host, port, token.clone()).await {
            Err(ClientError::NoHub(why)) => AttachedHub::answering(root, None, None, token)
                .await
                .map_err(|_| ClientError::NoHub(why)),
            found => found,
        }
    }

    /// The hub `HubClient::find` names, once it has answered.
    async fn answering(
        root: &Path,
        host: Option<&str>,
        port: Option<u16>,
        token: Option<String>,
    ) -> Result<AttachedHub, ClientError> {
        let hub = AttachedHub::named(root, host, port, token)?;
        let client = hub
            .client(false)
            .map_err(|_| ClientError::NoHub(hub.url.clone()))?;
        match tokio::time::timeout(PROBE, client.realms()).await {
            Ok(Ok(_)) => Ok(hub),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(ClientError::NoHub(format!(
                "{} did not answer within {}s",
                hub.url,
                PROBE.as_secs()
            ))),
        }
    }

    /// The hub `host`/`port` name, else the one `root/debug/.hub` names,
    /// without asking it anything first (the CLI's one call finds out
    /// soon enough). [`ClientError::NoHub`] when there is no `debug/.hub`
    /// to read.
    pub fn named(
        root: &Path,
        host: Option<&str>,
        port: Option<u16>,
        token: Option<String>,
    ) -> Result<AttachedHub, ClientError> {
        let client = HubClient::find(root, host, port, token.clone())?;
        Ok(AttachedHub {
            root: root.to_path_buf(),
            host: host.map(str::to_owned),
            port,
            token,
            url: client.url(),
            found: std::sync::Arc::new(std::sync::Mutex::new(Some(client))),
        })
    }

    /// `http://host:port` of the hub as first found.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Whether it was found through `debug/.hub` (no address given).
    pub fn found_by_hub_file(&self) -> bool {
        self.host.is_none() && self.port.is_none()
    }

    /// The hub's client: as last found, or found anew (`again`).
    fn client(&self, again: bool) -> Result<HubClient, DoorError> {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(client) = found.as_ref().filter(|_| !again) {
            return Ok(client.clone());
        }
        let client = HubClient::find(
            &self.root,
            self.host.as_deref(),
            self.port,
            self.token.clone(),
        )
        .map_err(door_error)?;
        *found = Some(client.clone());
        Ok(client)
    }

    /// `call` on the hub's client; once more on the hub found anew when
    /// it could not reach the hub.
    async fn with_client<T, F>(&self, call: impl Fn(HubClient) -> F) -> Result<T, DoorError>
    where
        F: std::future::Future<Output = Result<T, ClientError>>,
    {
        match call(self.client(false)?).await {
            Err(ClientError::NoHub(_)) => call(self.client(true)?).await.map_err(door_error),
            other => other.map_err(door_error),
        }
    }
}

impl Door for AttachedHub {
    async fn realms(&self) -> Result<Vec<RealmInfo>, DoorError> {
        self.with_client(|c| async move { c.realms().await }).await
    }

    async fn eval(&self, realm: &str, req: EvalRequest) -> Result<EvalReply, DoorError> {
        // Again only when the block never reached the hub: one that broke
        // mid-call may have run.
        match self.client(false)?.eval(realm, &req).await {
            Err(e) if HubClient::unsent(&e) => self
                .client(true)?
                .eval(realm, &req)
                .await
                .map_err(door_error),
            Err(e @ ClientError::NoHub(_)) => {
                let _ = self.client(true);
                Err(door_error(e))
            }
            other => other.map_err(door_error),
        }
    }

    async fn read_log(&self, realm: &str, query: LogQuery) -> Result<LogRead, DoorError> {
        let r = self
            .with_client(|c| {
                let query = query.clone();
                async move { c.read_log(realm, &query).await }
            })
            .await?;
        Ok(LogRead {
            text: r.text,
            left_out: r.left_out,
            cursor: r.cursor,
            digest: r.digest,
            note: r.note,
        })
    }
}

/// A client's error as a door's refusal: the one the hub's API answered
/// with (as the in-process door would have returned it), else
/// [`DoorError::NoHub`] when none runs there, else
/// [`DoorError::Unanswered`] with what went wrong.
pub fn door_error(e: ClientError) -> DoorError {
    match e {
        ClientError::Api {
            door: Some(door), ..
        } => door,
        ClientError::NoHub(message) => DoorError::NoHub { message },
        other => DoorError::Unanswered {
            message: other.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_the_doors_own() {
        let refused = ClientError::Api {
            status: 404,
            kind: "no_such_realm".into(),
            message: "no realm".into(),
            door: Some(DoorError::NoSuchRealm { realm: "x".into() }),
        };
        assert_eq!(
            door_error(refused),
            DoorError::NoSuchRealm { realm: "x".into() }
        );
        let e = door_error(ClientError::NoHub("cannot reach the hub".into()));
        assert_eq!(e.to_string(), "no hub: cannot reach the hub");
        assert!(matches!(e, DoorError::NoHub { .. }));
        let e = door_error(ClientError::Protocol("not JSON".into()));
        assert!(matches!(e, DoorError::Unanswered { .. }));
    }

    #[tokio::test]
    async fn no_hub_file_is_no_hub() {
        let dir = tempfile::tempdir().expect("tempdir");
        let e = AttachedHub::find(dir.path(), None, Some(0), None)
            .await
            .unwrap_err();
        assert!(matches!(e, ClientError::NoHub(_)), "{e}");
    }

    #[tokio::test]
    async fn nothing_listening_is_no_hub() {
        // A port just freed: nothing listens there.
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
            l.local_addr().expect("addr").port()
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let e = AttachedHub::find(dir.path(), None, Some(port), None)
            .await
            .unwrap_err();
        assert!(matches!(e, ClientError::NoHub(_)), "{e}");
    }

    /// A real hub on loopback, found through its `debug/.hub`: the same
    /// answers and refusals through its API as from its `Doors`.
    #[tokio::test]
    async fn a_running_hub_answers_as_its_doors_do() {
        let dir = tempfile::tempdir().expect("tempdir");
        let hub = crate::app::Hub::bind(crate::config::HubConfig::new(dir.path(), 0))
            .await
            .expect("bind");
        let doors = hub.doors();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = tokio::spawn(hub.run(async move {
            let _ = stopped.await;
        }));
        let hub_file = dir.path().join(crate::doors::json::HUB_FILE);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !hub_file.exists() {
            assert!(tokio::time::Instant::now() < deadline, "no debug/.hub");
            // The file appears once the hub serves: the poll interval.
            tokio::time::sleep(Duration::from_millis(5)).await;
        }

        let attached = AttachedHub::find(dir.path(), None, None, None)
            .await
            .expect("the running hub");
        assert!(attached.found_by_hub_file());
        // A port where nothing listens: the root's hub all the same.
        let free = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
            l.local_addr().expect("addr").port()
        };
        let by_file = AttachedHub::find(dir.path(), None, Some(free), None)
            .await
            .expect("the root's hub");
        assert!(by_file.found_by_hub_file());
        assert_eq!(by_file.url(), attached.url());
        assert_eq!(Door::realms(&attached).await, Door::realms(&doors).await);
        let req = |code: &str, lang: Option<&str>| EvalRequest {
            code: code.into(),
            lang: lang.map(str::to_owned),
            timeout: None,
            agent: Some("mcp".into()),
        };
        for (realm, code, lang) in [
            ("nothing", "1", None),
            ("x", " ", None),
            ("x", "1", Some("py")),
        ] {
            let far = Door::eval(&attached, realm, req(code, lang)).await;
            let near = Door::eval(&doors, realm, req(code, lang)).await;
            assert_eq!(
                far.unwrap_err(),
                near.unwrap_err(),
                "{realm} {code:?} {lang:?}"
            );
        }
        assert_eq!(
            Door::read_log(&attached, "nothing", LogQuery::default())
                .await
                .unwrap_err(),
            Door::read_log(&doors, "nothing", LogQuery::default())
                .await
                .unwrap_err()
        );

        let _ = stop.send(());
        served.await.expect("join").expect("the hub ran");
        let gone = Door::realms(&attached).await.unwrap_err();
        assert!(matches!(gone, DoorError::NoHub { .. }), "{gone}");
        assert!(gone.to_string().contains("no hub"), "{gone}");

        // The hub started again on the same root, on another port: the
        // same attached door reaches it (its `debug/.hub` read anew). The
        // old port is held meanwhile, so the new hub cannot take it again.
        let old_port = attached.url().rsplit(':').next().expect("a port");
        let held = std::net::TcpListener::bind(format!("127.0.0.1:{old_port}")).expect("hold");
        let hub = crate::app::Hub::bind(crate::config::HubConfig::new(dir.path(), 0))
            .await
            .expect("bind again");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = tokio::spawn(hub.run(async move {
            let _ = stopped.await;
        }));
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !hub_file.exists() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "no debug/.hub again"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let again = HubClient::find(dir.path(), None, None, None)
            .expect("the new hub's file")
            .url();
        assert_ne!(again, attached.url(), "the new hub took another port");
        // Let go (a held port would take the old client's connection and
        // never answer it): now nothing listens where the door last was.
        drop(held);
        assert_eq!(Door::realms(&attached).await, Ok(vec![]));
        let _ = stop.send(());
        served.await.expect("join").expect("the hub ran again");
    }
}
