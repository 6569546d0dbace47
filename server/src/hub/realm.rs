//! One task per realm connection: the `/ws` endpoint.
//!
//! The task reads the realm's hello, asks the directory for its log, and
//! then relays: realm messages to the log task, jobs and cancels from the
//! log task to the realm, pings on a timer. It is generic over the
//! socket's `Sink`/`Stream` halves (as in axum's testing-websockets
//! example) so the relay logic does not depend on the transport.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{close_code, CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use daebug_protocol::{HubMsg, RealmMsg, PROTOCOL_VERSION};
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{interval, Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use super::messages::{DirMsg, Hello, LogHandle, LogMsg};
use crate::http::guard::Guard;
use daebug_core::delivery::ConnId;
use daebug_core::engine::Input;

/// A realm has this long to say hello after the upgrade.
const HELLO_WITHIN: Duration = Duration::from_secs(10);
/// How long a connection closed for a message over the limit stays open
/// after its close frame (see [`linger`]).
const LINGER: Duration = Duration::from_millis(500);

/// What the `/ws` route needs.
#[derive(Clone)]
pub struct SocketState {
    pub directory: mpsc::UnboundedSender<DirMsg>,
    pub guard: Arc<Guard>,
    pub ping_every: Duration,
    pub unresponsive_after: Duration,
    /// Largest message a realm may send ([`crate::config::MAX_FRAME`] unless a test
    /// sets it lower).
    pub max_frame: usize,
    pub shutdown: CancellationToken,
    pub tracker: tokio_util::task::TaskTracker,
}

/// The router holding `/ws`.
pub fn router(state: SocketState) -> Router {
    Router::new().route("/ws", get(upgrade)).with_state(state)
}

/// Distinguishes connections, so a stale one's messages are recognised.
static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

async fn upgrade(
    State(state): State<SocketState>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    let origin = headers.get(header::ORIGIN);
    if !state.guard.request_origin_allowed(&headers) {
        let shown = origin.and_then(|o| o.to_str().ok()).unwrap_or("?");
        tracing::warn!(origin = shown, "refused a realm from a foreign origin");
        return crate::http::guard::plain_text(
            StatusCode::FORBIDDEN,
            format!("daebug: refused the WebSocket from origin {shown:?}; start the hub with --allow-origin {shown} to admit it"),
        );
    }
    let tracker = state.tracker.clone();
    ws.max_message_size(state.max_frame)
        .max_frame_size(state.max_frame)
        .on_upgrade(move |socket: WebSocket| {
            let (sink, stream) = socket.split();
            // Tracked, so shutdown waits for the goodbye to be sent
            // (axum's graceful shutdown does not wait for upgraded
            // connections).
            tracker.spawn(serve(state, sink, stream));
            std::future::ready(())
        })
}

/// Why a connection ended before its hello was accepted.
#[derive(Debug, thiserror::Error)]
enum HelloError {
    #[error("expected a hello message first: {0}")]
    NotHello(String),
    #[error("no hello within {}s", HELLO_WITHIN.as_secs())]
    Silent,
    #[error("this hub speaks protocol version {PROTOCOL_VERSION}, the realm {0}; reload the page to get the hub's adapter")]
    Version(u32),
    #[error("the connection closed")]
    Closed,
    /// A message over the frame limit; the close reason.
    #[error("{0}")]
    TooBig(String),
}

/// Relays one realm connection until it closes or the hub shuts down.
pub async fn serve<W, R, E>(state: SocketState, mut sink: W, mut stream: R)
where
    W: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, E>> + Unpin,
    E: std::fmt::Display,
{
    let conn = NEXT_CONN.fetch_add(1, Ordering::Relaxed);
    let hello = match read_hello(&state, &mut stream).await {
        Ok(h) => h,
        Err(e) => return refuse(&state, &mut sink, conn, e).await,
    };
    let (tx, outbox) = mpsc::channel::<HubMsg>(64);
    // A flush is answered on this connection even after the log let go of
    // it (a process that said it exits still waits for its answer).
    let answer = tx.clone();
    let (reply, welcome) = oneshot::channel();
    let asked = state.directory.send(DirMsg::Hello {
        conn,
        hello,
        tx,
        reply,
    });
    let Ok(welcome) = (match asked {
        Ok(()) => welcome.await.map_err(|_| ()),
        Err(_) => Err(()),
    }) else {
        return; // the hub is shutting down
    };
    let hi = HubMsg::Welcome {
        version: PROTOCOL_VERSION,
        stem: welcome.stem.clone(),
        id: welcome.id,
    };
    if send(&mut sink, &hi).await.is_ok() {
        let relay = Relay {
            state: &state,
            conn,
            stem: &welcome.stem,
            log: &welcome.log,
            answer: &answer,
        };
        relay.run(&mut sink, &mut stream, outbox).await;
    }
    tracing::info!(stem = %welcome.stem, "realm disconnected");
    let _ = state.directory.send(DirMsg::Gone { conn });
}

/// Says why a hello was refused, and closes (with the reason as the close
/// frame's when a message was over the limit).
async fn refuse<W: Sink<Message> + Unpin>(
    state: &SocketState,
    sink: &mut W,
    conn: ConnId,
    e: HelloError,
) {
    tracing::warn!(conn, "realm refused: {e}");
    let _ = send(
        sink,
        &HubMsg::Error {
            message: e.to_string(),
        },
    )
    .await;
    let close = match &e {
        HelloError::TooBig(why) => Some(CloseFrame {
            code: close_code::SIZE,
            reason: why.clone().into(),
        }),
        _ => None,
    };
    let too_big = close.is_some();
    let _ = sink.send(Message::Close(close)).await;
    if too_big {
        linger(state).await;
    }
}

/// A welcomed realm's connection: what its frames go to.
struct Relay<'a> {
    state: &'a SocketState,
    conn: ConnId,
    stem: &'a str,
    log: &'a LogHandle,
    answer: &'a mpsc::Sender<HubMsg>,
}

/// Whether the relay goes on after a frame.
enum Flow {
    Next,
    Text(Utf8Bytes),
    Stop,
}

impl Relay<'_> {
    /// Relays until the connection closes or the hub shuts down: the log's
    /// messages out, the realm's in, pings both ways.
    async fn run<W, R, E>(&self, sink: &mut W, stream: &mut R, mut outbox: mpsc::Receiver<HubMsg>)
    where
        W: Sink<Message> + Unpin,
        R: Stream<Item = Result<Message, E>> + Unpin,
        E: std::fmt::Display,
    {
        let state = self.state;
        let conn = self.conn;
        let mut pings = interval(state.ping_every);
        pings.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut seq = 0u64;
        let mut last_answer = Instant::now();
        let mut responsive = true;
        loop {
            tokio::select! {
                biased;
                () = state.shutdown.cancelled() => {
                    let bye = HubMsg::Bye { reason: "the hub is shutting down".into() };
                    let _ = send(sink, &bye).await;
                    let _ = sink.send(Message::Close(None)).await;
                    break;
                }
                Some(msg) = outbox.recv() => {
                    if send(sink, &msg).await.is_err() {
                        break;
                    }
                }
                frame = stream.next() => {
                    let text = match self.frame(sink, frame).await {
                        Flow::Next => continue,
                        Flow::Stop => break,
                        Flow::Text(text) => text,
                    };
                    last_answer = Instant::now();
                    if !responsive {
                        responsive = true;
                        let _ = state.directory.send(DirMsg::Responsive { conn, responsive });
                    }
                    self.on_text(sink, text.as_str()).await;
                }
                _ = pings.tick() => {
                    if responsive && last_answer.elapsed() >= state.unresponsive_after {
                        responsive = false;
                        tracing::info!(stem = %self.stem, "realm stopped answering pings");
                        let _ = state.directory.send(DirMsg::Responsive { conn, responsive });
                    }
                    seq += 1;
                    if send(sink, &HubMsg::Ping { seq }).await.is_err() {
                        break;
                    }
                }
            }
        }
    }

    /// What one frame from the realm means for the relay.
    async fn frame<W, E>(&self, sink: &mut W, frame: Option<Result<Message, E>>) -> Flow
    where
        W: Sink<Message> + Unpin,
        E: std::fmt::Display,
    {
        match frame {
            Some(Ok(Message::Text(t))) => Flow::Text(t),
            Some(Ok(Message::Binary(_))) => {
                let e = HubMsg::Error {
                    message: "binary frames are not part of the protocol; send JSON text".into(),
                };
                let _ = send(sink, &e).await;
                Flow::Next
            }
            Some(Ok(Message::Close(_))) | None => Flow::Stop,
            Some(Ok(_)) => Flow::Next, // ping/pong frames: handled by the library
            Some(Err(e)) => {
                let e = e.to_string();
                tracing::warn!(stem = %self.stem, "realm connection failed: {e}");
                if let Some(why) = too_big(&e, self.state.max_frame) {
                    // Said to the realm as a close reason and to the agent
                    // in the log: never a bare reset.
                    let close = CloseFrame {
                        code: close_code::SIZE,
                        reason: why.clone().into(),
                    };
                    let _ = sink.send(Message::Close(Some(close))).await;
                    let _ = self.log.tx.send(LogMsg::Hub(Input::HubNote {
                        text: format!("the hub closed this realm's connection: {why} (WebSocket code 1009); it reconnects by itself"),
                    }));
                    linger(self.state).await;
                }
                Flow::Stop
            }
        }
    }

    /// One message from the realm: a pong is the directory's, everything
    /// else the log's, in order (one channel), in the wire's own type.
    async fn on_text<W: Sink<Message> + Unpin>(&self, sink: &mut W, text: &str) {
        match serde_json::from_str::<RealmMsg>(text) {
            Ok(RealmMsg::Pong { .. }) => {
                let _ = self.state.directory.send(DirMsg::Seen { conn: self.conn });
            }
            Ok(RealmMsg::Hello { .. }) => {
                let e = HubMsg::Error {
                    message: "hello was already received on this connection".into(),
                };
                let _ = send(sink, &e).await;
            }
            Ok(msg) => {
                self.log.from_realm(self.conn, msg, self.answer).await;
            }
            Err(e) => {
                tracing::warn!(stem = %self.stem, "malformed message from realm: {e}");
                let e = HubMsg::Error {
                    message: format!("malformed message: {e}"),
                };
                let _ = send(sink, &e).await;
            }
        }
    }
}

async fn read_hello<R, E>(state: &SocketState, stream: &mut R) -> Result<Hello, HelloError>
where
    R: Stream<Item = Result<Message, E>> + Unpin,
    E: std::fmt::Display,
{
    let deadline = tokio::time::Instant::now() + HELLO_WITHIN;
    let first = loop {
        let next = tokio::select! {
            () = state.shutdown.cancelled() => return Err(HelloError::Closed),
            next = tokio::time::timeout_at(deadline, stream.next()) => next,
        };
        match next {
            Err(_) => return Err(HelloError::Silent),
            Ok(Some(Ok(Message::Text(t)))) => break t,
            Ok(Some(Ok(Message::Ping(_) | Message::Pong(_)))) => continue,
            Ok(Some(Ok(_))) => return Err(HelloError::NotHello("not a text frame".into())),
            Ok(Some(Err(e))) => {
                return Err(too_big(&e.to_string(), state.max_frame)
                    .map_or(HelloError::Closed, HelloError::TooBig))
            }
            Ok(None) => return Err(HelloError::Closed),
        }
    };
    match serde_json::from_str::<RealmMsg>(first.as_str()) {
        Ok(RealmMsg::Hello {
            version,
            kind,
            name,
            url,
            id,
            jobs,
            tab,
            navigation,
            pid,
        }) => {
            if version != PROTOCOL_VERSION {
                return Err(HelloError::Version(version));
            }
            Ok(Hello {
                kind,
                name,
                url,
                id,
                jobs,
                tab,
                navigation,
                pid,
            })
        }
        Ok(_) => Err(HelloError::NotHello("got another message type".into())),
        Err(e) => Err(HelloError::NotHello(e.to_string())),
    }
}

/// Keeps a connection closed for a message over the limit open a moment
/// after its close frame, unread, so the realm gets the frame (and its
/// code and reason) before the socket goes: a socket closed with unread
/// data is reset, and a reset may lose what the realm has not read yet.
/// Reading on would buffer the rest of the oversized message.
async fn linger(state: &SocketState) {
    tokio::select! {
        () = tokio::time::sleep(LINGER) => {}
        () = state.shutdown.cancelled() => {}
    }
}

/// The close reason for a read error that is a message over the limit.
/// The WebSocket library reports it as `Message too long: N > MAX` (its
/// error type is not re-exported by axum, so the text is read).
fn too_big(error: &str, max: usize) -> Option<String> {
    let at = error.find("Message too long")?;
    let size = error[at..]
        .split(|c: char| !c.is_ascii_digit())
        .find(|n| !n.is_empty())
        .and_then(|n| n.parse::<u64>().ok());
    let limit = match max {
        m if m >= 1 << 20 && m % (1 << 20) == 0 => format!("{} MiB", m >> 20),
        m if m >= 1 << 10 && m % (1 << 10) == 0 => format!("{} KiB", m >> 10),
        m => format!("{m} bytes"),
    };
    Some(match size {
        Some(n) => format!("a message of {n} bytes is over the {limit} limit"),
        None => format!("a message is over the {limit} limit"),
    })
}

async fn send<W: Sink<Message> + Unpin>(sink: &mut W, msg: &HubMsg) -> Result<(), ()> {
    // Serialising our own enum cannot fail.
    let text = serde_json::to_string(msg).map_err(|_| ())?;
    sink.send(Message::Text(text.into())).await.map_err(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MAX_FRAME;

    #[test]
    fn too_big_reads_the_libraries_error() {
        // As tungstenite words it (through axum's error).
        let e = "Space limit exceeded: Message too long: 1048600 > 65536";
        assert_eq!(
            too_big(e, 64 * 1024).as_deref(),
            Some("a message of 1048600 bytes is over the 64 KiB limit")
        );
        assert_eq!(
            too_big("Message too long", MAX_FRAME).as_deref(),
            Some("a message is over the 72 MiB limit")
        );
        assert_eq!(too_big("Connection reset by peer", MAX_FRAME), None);
        // A close reason fits in 123 bytes.
        let e = format!("Message too long: {} > {}", u64::MAX, usize::MAX);
        assert!(too_big(&e, usize::MAX).unwrap().len() <= 123);
    }
}
