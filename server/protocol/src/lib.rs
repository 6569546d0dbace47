//! The wire contract shared by hub and adapter, versioned; DESIGN.md §4.
//!
//! Everything that crosses the WebSocket between the `daebug` hub and a realm
//! adapter is defined here, once, as serde types. Bump [`PROTOCOL_VERSION`]
//! on any change a peer built against the previous version would misread.

pub mod event;

pub use event::{BackgroundEvent, EventType, Level};

/// Version of the wire contract, exchanged in the realm's `hello`.
pub const PROTOCOL_VERSION: u32 = 1;
