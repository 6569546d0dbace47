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

pub mod event;
pub mod job;
pub mod wire;

pub use event::{BackgroundEvent, EventType, Level};
pub use job::{JobError, JobId, JobProgress, JobResult, Outcome, Value};
pub use wire::{HubMsg, RealmKind, RealmMsg};

/// Version of the wire contract, exchanged in the realm's `hello`.
pub const PROTOCOL_VERSION: u32 = 1;

/// Events a realm sends a second at most; the rest are counted as
/// `limited` (docs/wire-protocol.md).
pub const REALM_EVENTS_PER_SECOND: u32 = 100;

/// For serde: a count of zero is left out of the JSON.
fn is_zero(n: &u32) -> bool {
    *n == 0
}
