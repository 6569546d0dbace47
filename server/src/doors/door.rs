//! The doors' one façade: [`Door`], what every door (MCP, the CLI, the
//! HTTP API) asks of a hub, in-process ([`Doors`]) or over the hub's HTTP
//! API (`attached.rs`).

use std::future::Future;

use super::json::{DoorError, EvalReply, EvalRequest, RealmInfo};
use super::reading::{LogQuery, LogRead};
use super::Doors;

/// The agent a block sent through a [`Door`] is written as when its
/// request names none (each door names its own: `mcp`, `cli`, …).
pub const UNNAMED: &str = "door";

/// What a door asks of a hub: the one façade of the doors. [`Doors`]
/// answers in-process; `AttachedHub` (`attached.rs`) over a running hub's
/// HTTP API, so `daebug mcp` (and any other door) serves a hub that runs
/// elsewhere with the same texts and refusals.
pub trait Door: Clone + Send + Sync + 'static {
    /// The realms the registry lists, in its order.
    fn realms(&self) -> impl Future<Output = Result<Vec<RealmInfo>, DoorError>> + Send;

    /// Runs `req` in `realm` (a stem or the unique start of one) through
    /// its log and returns the log's reply. `req.agent` is the request
    /// header's name (the MCP tools give `mcp`).
    fn eval(
        &self,
        realm: &str,
        req: EvalRequest,
    ) -> impl Future<Output = Result<EvalReply, DoorError>> + Send;

    /// `realm`'s log as `query` asks (the whole of it when it asks for
    /// no `tail` and no `since`).
    fn read_log(
        &self,
        realm: &str,
        query: LogQuery,
    ) -> impl Future<Output = Result<LogRead, DoorError>> + Send;

    /// The bytes of a picture a reply shows (`path` relative to `debug/`,
    /// as [`EvalReply::images`] names it); `None` when this door cannot
    /// read it (`eval` then gives the reply's link alone).
    fn picture(&self, path: &str) -> impl Future<Output = Option<Vec<u8>>> + Send {
        let _ = path;
        async { None }
    }
}

impl Door for Doors {
    async fn realms(&self) -> Result<Vec<RealmInfo>, DoorError> {
        Doors::realms(self).await
    }

    async fn eval(&self, realm: &str, req: EvalRequest) -> Result<EvalReply, DoorError> {
        Doors::eval(self, realm, req, UNNAMED).await
    }

    async fn read_log(&self, realm: &str, query: LogQuery) -> Result<LogRead, DoorError> {
        Doors::read_log(self, realm, &query, None).await
    }

    async fn picture(&self, path: &str) -> Option<Vec<u8>> {
        Doors::picture(self, path).await
    }
}
