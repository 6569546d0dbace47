//! The wire contract shared by hub and adapter, versioned; docs/wire-protocol.md.
//!
//! Everything that crosses the WebSocket between the `daebug` hub and a realm
//! adapter is defined here, once, as serde types. Bump [`PROTOCOL_VERSION`]
//! on any change a peer built against the previous version would misread.
//!
//! - [`event`]: background events (console calls, global errors).
//! - [`job`]: job ids, outcomes, rendered values and thrown errors.
//! - [`wire`]: the envelopes, [`RealmMsg`] (realm → hub) and [`HubMsg`]
//!   (hub → realm).
//! - `door` (feature `door`): the JSON the hub's doors speak (HTTP API,
//!   CLI, MCP), beside the wire, for the hub and its clients.
//! - [`stack`]: the frame syntaxes of stack text (V8's, SpiderMonkey's and
//!   JavaScriptCore's) and daebug's own frames in them, read alike by both.
//! - [`text`]: substring search without core's two-way searcher (size).

#[cfg(feature = "door")]
pub mod door;
pub mod event;
pub mod job;
#[cfg(feature = "door")]
pub mod person;
pub mod stack;
pub mod text;
pub mod wire;

pub use event::{BackgroundEvent, EventType, Level};
pub use job::{
    Inspect, InspectAnswer, InspectAsk, JobError, JobId, JobProgress, JobResult, Outcome,
    RealmImage, ScreenshotAnswer, ScreenshotAsk, Value,
};
pub use wire::{HubMsg, RealmKind, RealmMsg};

/// Version of the wire contract, exchanged in the realm's `hello`.
pub const PROTOCOL_VERSION: u32 = 1;

/// Events a realm sends a second at most; the rest are counted as
/// `limited` (docs/wire-protocol.md).
pub const REALM_EVENTS_PER_SECOND: u32 = 100;

/// Nesting levels a value shows without a `depth=` fence option.
pub const DEFAULT_DEPTH: u32 = 4;

/// The deepest `depth=` a fence may ask for.
pub const MAX_DEPTH: u32 = 20;

/// String text one reply may carry, in bytes as they go on the wire (the
/// realm stops copying strings there and says how much it left out); the
/// hub archives what does not fit inline. The hub's frame limit leaves
/// room above it for the rest of the message.
pub const MAX_REPLY_BYTES: usize = 64 * 1024 * 1024;

/// The largest picture a realm sends and the hub saves, encoded: one
/// over it is refused with a note in the reply (docs/log-format.md,
/// "Images"); in base64 it stays well within the hub's frame limit.
pub const MAX_IMAGE_BYTES: u64 = 16 * 1024 * 1024;

/// For serde: `false` is left out of the JSON.
fn is_false(b: &bool) -> bool {
    !*b
}

/// For serde: a count of zero is left out of the JSON.
fn is_zero(n: &u32) -> bool {
    *n == 0
}
