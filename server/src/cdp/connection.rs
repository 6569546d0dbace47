//! One Chrome DevTools Protocol connection: JSON-RPC over a WebSocket
//! (tokio-tungstenite, already under axum's WebSocket support). Commands
//! go out with an id (and a session id for a flattened target session);
//! a reader task hands each answer to its caller and every event to one
//! channel, in order. A thin client rather than a CDP crate: the bridge
//! uses a dozen methods, and the crates that model all of CDP add
//! minutes of build time for types it would not use.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

/// Why a command got no answer.
#[derive(Debug, thiserror::Error)]
pub enum CdpError {
    #[error("connecting to {url}: {source}")]
    Connect {
        url: String,
        source: tokio_tungstenite::tungstenite::Error,
    },
    #[error("the browser closed the DevTools connection")]
    Closed,
    #[error("{method}: {message}")]
    Command { method: String, message: String },
}

/// An event the browser sent: its method, params and the session it
/// came from (`None`: the browser itself).
#[derive(Debug, Clone)]
pub struct CdpEvent {
    pub method: String,
    pub params: Value,
    pub session: Option<String>,
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>>;

/// The sending half, cheap to clone: every task of the bridge calls
/// through it.
#[derive(Clone)]
pub struct CdpCommands {
    out: mpsc::UnboundedSender<Message>,
    pending: Pending,
    next_id: Arc<AtomicU64>,
}

impl CdpCommands {
    /// Sends `method` (to `session`, else to the browser) and waits for
    /// its answer.
    pub async fn call(
        &self,
        method: &str,
        params: Value,
        session: Option<&str>,
    ) -> Result<Value, CdpError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut frame = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            frame["sessionId"] = Value::String(s.to_string());
        }
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("pending").insert(id, tx);
        if self.out.send(Message::text(frame.to_string())).is_err() {
            self.pending.lock().expect("pending").remove(&id);
            return Err(CdpError::Closed);
        }
        match rx.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(message)) => Err(CdpError::Command {
                method: method.to_string(),
                message,
            }),
            Err(_) => Err(CdpError::Closed),
        }
    }
}

/// Connects to a DevTools WebSocket URL (`ws://…/devtools/browser/…`).
/// The events channel ends when the connection does.
pub async fn connect(
    ws_url: &str,
) -> Result<(CdpCommands, mpsc::UnboundedReceiver<CdpEvent>), CdpError> {
    let (socket, _) = tokio_tungstenite::connect_async_with_config(
        ws_url,
        // Screenshots of a large page are big frames.
        Some(
            tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
                .max_message_size(Some(256 << 20))
                .max_frame_size(Some(256 << 20)),
        ),
        true,
    )
    .await
    .map_err(|source| CdpError::Connect {
        url: ws_url.to_string(),
        source,
    })?;
    let (mut sink, mut stream) = socket.split();
    let (out, mut out_rx) = mpsc::unbounded_channel::<Message>();
    let (events_tx, events) = mpsc::unbounded_channel();
    let pending: Pending = Arc::default();
    tokio::spawn(async move {
        while let Some(m) = out_rx.recv().await {
            if sink.send(m).await.is_err() {
                break;
            }
        }
    });
    let routes = pending.clone();
    tokio::spawn(async move {
        while let Some(Ok(m)) = stream.next().await {
            let Message::Text(text) = m else { continue };
            let Ok(v) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            route(v, &routes, &events_tx);
        }
        // Callers waiting on a dead connection hear so.
        routes.lock().expect("pending").clear();
    });
    Ok((
        CdpCommands {
            out,
            pending,
            next_id: Arc::new(AtomicU64::new(1)),
        },
        events,
    ))
}

/// An answer to its caller, an event to the channel.
fn route(mut v: Value, pending: &Pending, events: &mpsc::UnboundedSender<CdpEvent>) {
    if let Some(id) = v.get("id").and_then(Value::as_u64) {
        let Some(tx) = pending.lock().expect("pending").remove(&id) else {
            return;
        };
        let answer = match v.get_mut("error") {
            Some(e) => Err(e
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("error")
                .to_string()),
            None => Ok(v.get_mut("result").map(Value::take).unwrap_or(Value::Null)),
        };
        let _ = tx.send(answer);
        return;
    }
    let Some(method) = v.get("method").and_then(Value::as_str) else {
        return;
    };
    let _ = events.send(CdpEvent {
        method: method.to_string(),
        params: v.get_mut("params").map(Value::take).unwrap_or(Value::Null),
        session: v
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_string),
    });
}
