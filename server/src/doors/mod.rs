//! The doors besides the log file (docs/doors.md): the HTTP API, the CLI,
//! MCP and the dashboard all come in through a [`Doors`] handle. The log
//! stays the record: a block sent through a door is written into the
//! realm's log as if its agent had appended it (`engine/fan_out.rs`,
//! `Input::Submit`), and the door's answer is that log's reply.
//!
//! - [`json`]: the JSON the doors speak (plain data).
//! - [`api`]: the HTTP API under `/api` and `/_daebug/api` (the one
//!   `--proxy` keeps): JSON, no CORS, no foreign `Origin`.
//! - [`dashboard`]: the dashboard at `/_daebug/` (and at `/` when the
//!   root has no `index.html`), embedded in the binary.
//! - [`log_html`]: a log rendered as HTML, for the dashboard and the
//!   API's `?format=html`.
//! - [`person`]: `POST /_daebug/person`, a person's answer from the
//!   dashboard (the person's door, never an agent's).
//! - [`Doors`]: asks the directory for realms, submits blocks to a
//!   realm's log task and waits for the reply, reads logs, and hands out
//!   the hub's change events.
//! - [`door`]: [`door::Door`], the one façade every door asks a hub
//!   through, in-process ([`Doors`]) or attached ([`attached`]).
//! - [`reading`]: a log read as a budget of tokens (tail, cursor), and
//!   [`digest`] a text over its budget, summarised.
//! - [`mcp`]: the MCP tools over a [`door::Door`], at `/mcp` and over stdio;
//!   [`mcp_tools`] what an agent reads of them before a call.
//! - [`attached`]: the same tools' calls over a running hub's HTTP API
//!   (`daebug mcp` attached to it).

pub mod api;
pub mod attached;
pub mod client;
pub mod dashboard;
pub mod digest;
pub mod door;
pub mod json;
pub mod log_html;
pub mod mcp;
pub mod mcp_tools;
pub mod person;
pub mod reading;
pub mod run_tests;

use std::path::PathBuf;

use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::hub::messages::{DirMsg, ListedRealm, LogMsg, Unresolved};
use daebug_protocol::RealmKind;
use json::{DoorError, EvalReply, EvalRequest, HubEvent, RealmInfo};

/// How many change events wait for a slow reader before it misses some
/// (it is told it lagged and reads the state again).
pub const EVENTS_BUFFER: usize = 256;

/// What every door asks the hub. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Doors {
    directory: mpsc::UnboundedSender<DirMsg>,
    events: broadcast::Sender<HubEvent>,
    /// The `debug/` folder, where the logs are read.
    logs: PathBuf,
    /// Cancelled when the hub begins to stop: long answers (the event
    /// stream, MCP sessions) end then, so the hub's graceful shutdown is
    /// not held open (axum does not wait for them).
    shutdown: CancellationToken,
}

impl Doors {
    pub fn new(
        directory: mpsc::UnboundedSender<DirMsg>,
        events: broadcast::Sender<HubEvent>,
        logs: PathBuf,
        shutdown: CancellationToken,
    ) -> Doors {
        Doors {
            directory,
            events,
            logs,
            shutdown,
        }
    }

    /// Cancelled when the hub begins to stop.
    pub fn shutdown(&self) -> &CancellationToken {
        &self.shutdown
    }

    /// Resolves once the hub begins to stop.
    pub async fn stopping(&self) {
        self.shutdown.cancelled().await
    }

    /// Whether the hub has begun to stop.
    pub fn is_stopping(&self) -> bool {
        self.shutdown.is_cancelled()
    }

    /// The realms the registry lists, in its order.
    pub async fn realms(&self) -> Result<Vec<RealmInfo>, DoorError> {
        let (reply, answer) = oneshot::channel();
        self.ask(DirMsg::Realms { reply })?;
        let listed = answer.await.map_err(|_| DoorError::Stopping)?;
        Ok(listed.into_iter().map(realm_info).collect())
    }

    /// The realm named `realm` or whose stem it starts uniquely, as
    /// [`Doors::realms`] lists it.
    pub async fn realm(&self, realm: &str) -> Result<RealmInfo, DoorError> {
        let stem = self.resolve(realm).await?;
        self.realms()
            .await?
            .into_iter()
            .find(|r| r.stem == stem)
            .ok_or(DoorError::NoSuchRealm {
                realm: realm.to_string(),
            })
    }

    /// A person acted on a panel or ask of `realm` in the dashboard
    /// (`doors/person.rs`): the realm hears it. Deliberately not on
    /// [`door::Door`]: no agent's door (the API, MCP, the CLI) can answer
    /// for a person. Whether a realm serves the log now to hear it.
    pub async fn person_act(
        &self,
        realm: &str,
        act: &daebug_protocol::person::PersonAct,
    ) -> Result<bool, DoorError> {
        let (_, log) = self.find(realm).await?;
        let (sent, heard) = oneshot::channel();
        let json = serde_json::to_string(act).map_err(|e| DoorError::BadRequest {
            message: e.to_string(),
        })?;
        log.send(LogMsg::Person { json, sent })
            .map_err(|_| DoorError::Stopping)?;
        Ok(heard.await.unwrap_or(false))
    }

    /// The stem of the realm named `realm` or whose stem it starts
    /// uniquely (a connected one wins over disconnected ones).
    pub async fn resolve(&self, realm: &str) -> Result<String, DoorError> {
        Ok(self.find(realm).await?.0)
    }

    async fn find(
        &self,
        realm: &str,
    ) -> Result<(String, mpsc::UnboundedSender<LogMsg>), DoorError> {
        let (reply, answer) = oneshot::channel();
        self.ask(DirMsg::Resolve {
            realm: realm.to_string(),
            reply,
        })?;
        answer
            .await
            .map_err(|_| DoorError::Stopping)?
            .map_err(|why| match why {
                Unresolved::NoSuch => DoorError::NoSuchRealm {
                    realm: realm.to_string(),
                },
                Unresolved::Several(stems) => DoorError::Ambiguous {
                    realm: realm.to_string(),
                    stems,
                },
            })
    }

    /// Runs `req` in `realm` through its log: written there as the
    /// agent's block (agent `door` unless the request names one), and
    /// answered once its reply is written. Waits as long as the log
    /// takes: behind the blocks it runs and queues, then the block's
    /// timeout.
    pub async fn eval(
        &self,
        realm: &str,
        req: EvalRequest,
        door: &str,
    ) -> Result<EvalReply, DoorError> {
        if req.code.trim().is_empty() {
            return Err(DoorError::BadRequest {
                message: "`code` is empty: give the JavaScript to run".into(),
            });
        }
        let info = json::fence_info(req.lang.as_deref(), req.timeout.as_ref())?;
        let agent = json::agent_name(req.agent.as_deref(), door);
        let (stem, log) = self.find(realm).await?;
        let (answer, answered) = oneshot::channel();
        log.send(LogMsg::Submit {
            agent,
            info,
            code: req.code,
            answer,
        })
        .map_err(|_| DoorError::Stopping)?;
        let answer = answered.await.map_err(|_| DoorError::Stopping)?;
        Ok(json::eval_reply(&stem, answer))
    }

    /// `realm`'s log as `query` asks (see [`reading`]); with neither
    /// `tail` nor `since`, its last `default_tail` lines (all of it when
    /// `None`).
    pub async fn read_log(
        &self,
        realm: &str,
        query: &reading::LogQuery,
        default_tail: Option<usize>,
    ) -> Result<reading::LogRead, DoorError> {
        let stem = self.resolve(realm).await?;
        let path = self.logs.join(format!("{stem}.md"));
        let text = tokio::fs::read_to_string(&path).await.unwrap_or_default();
        let (body_start, lines_end) = daebug_core::engine::template::head_end(&text, &stem);
        // What the history files named in the head hold.
        let mut archived = 0;
        for line in text[..lines_end].lines() {
            let Some(rest) = line.strip_prefix(daebug_core::engine::template::HISTORY_LINK_START)
            else {
                continue;
            };
            let rel = rest
                .strip_prefix('[')
                .and_then(|r| r.split_once(']'))
                .map(|(rel, _)| rel);
            if let Some(rel) = rel.filter(|r| !r.contains("..")) {
                archived += tokio::fs::metadata(self.logs.join(rel))
                    .await
                    .map_or(0, |m| m.len());
            }
        }
        let log = reading::LogText {
            stem: &stem,
            text: &text,
            body_start,
            archived,
        };
        Ok(reading::read(log, query, default_tail))
    }

    /// The text of `realm`'s log, or its last `tail` lines.
    pub async fn log(&self, realm: &str, tail: Option<usize>) -> Result<String, DoorError> {
        let stem = self.resolve(realm).await?;
        let path = self.logs.join(format!("{stem}.md"));
        let text = tokio::fs::read_to_string(&path).await.unwrap_or_default();
        Ok(match tail {
            Some(n) => last_lines(&text, n).to_string(),
            None => text,
        })
    }

    /// The bytes of a picture a reply shows: `path` is relative to
    /// `debug/` and must name a file in its archive folder, as a picture's
    /// line does; anything else is `None`.
    pub async fn picture(&self, path: &str) -> Option<Vec<u8>> {
        let image = format!("![]({path})");
        let copied = format!("[]({path})");
        daebug_core::engine::picture::image_path(&image)
            .or_else(|| daebug_core::engine::picture::image_path(&copied))?;
        tokio::fs::read(self.logs.join(path)).await.ok()
    }

    /// The hub's change events from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<HubEvent> {
        self.events.subscribe()
    }

    fn ask(&self, msg: DirMsg) -> Result<(), DoorError> {
        self.directory.send(msg).map_err(|_| DoorError::Stopping)
    }
}

/// The last `n` lines of `text` (all of it when it has fewer).
pub fn last_lines(text: &str, n: usize) -> &str {
    if n == 0 {
        return "";
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    match body.rmatch_indices('\n').nth(n - 1) {
        Some((i, _)) => &text[i + 1..],
        None => text,
    }
}

/// A realm as the doors list it (`GET /api/realms`, `list_realms`).
fn realm_info(listed: ListedRealm) -> RealmInfo {
    let ListedRealm {
        entry,
        heard,
        name,
        waiting,
    } = listed;
    RealmInfo {
        kind: match entry.kind {
            RealmKind::Page => "page",
            RealmKind::Worker => "worker",
            RealmKind::Node => "node",
        }
        .into(),
        name,
        url: entry.url,
        state: entry.state.as_str().into(),
        last: entry.last_seen.to_string(),
        heard: heard.to_string(),
        log: daebug_protocol::door::log_path(&entry.stem),
        log_error: entry.unwritten,
        stem: entry.stem,
        waiting,
    }
}

#[cfg(test)]
mod tests {
    use super::last_lines;

    #[test]
    fn the_last_lines_of_a_log() {
        let table = [
            ("a\nb\nc\n", 2, "b\nc\n"),
            ("a\nb\nc", 2, "b\nc"),
            ("a\nb\nc\n", 3, "a\nb\nc\n"),
            ("a\nb\nc\n", 9, "a\nb\nc\n"),
            ("a\nb\nc\n", 0, ""),
            ("", 4, ""),
        ];
        for (text, n, want) in table {
            assert_eq!(last_lines(text, n), want, "{text:?} {n}");
        }
    }
}
