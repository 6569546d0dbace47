//! daebug's per-log behaviour, pure (docs/architecture.md, "Code map").
//!
//! - [`engine`]: the log engine. Given a log's text, an input (file
//!   changed, job started, progress, result, timeout, tick) and `now`, it
//!   returns edits to the text and effects (dispatch, cancel, wake-at).
//! - [`prepare`]: a block's source → the code its realm runs (parsed with
//!   oxc, types stripped, rewritten to behave like a console), or the
//!   syntax error to answer at once; and the map back from the prepared
//!   code's positions to the block's, for stack traces.
//! - [`lang`]: what a runnable fence is, as both of them see it.
//! - [`delivery`]: which job a realm was sent, and what waits for it.
//! - [`effects`]: what a Node realm did for a page's block, for that page.
//! - [`flood`]: background events bounded on their way to a log.
//! - [`presence`]: which connection serves a log, and its `closed` line.
//! - [`intake`]: a log's inputs in the order they are applied.
//! - [`chore`]: what the shell does once an input is applied.
//! - [`machine`]: what a log's transaction runs an input through.
//! - [`log_core`]: one log's behaviour, the above together: what happened
//!   in, inputs to run through the file and messages for the realm out.
//!
//! Architecture Invariant: this crate depends on no tokio, no filesystem
//! and no clock; time comes in as `now`. Its manifest is the proof: none
//! of those is a dependency. The hub (`daebug`) names these modules by
//! their own paths (`daebug_core::engine`, `daebug_core::delivery`, …).

pub mod check;
pub mod chore;
pub mod delivery;
pub mod effects;
pub mod engine;
pub mod flood;
pub mod intake;
pub mod lang;
pub mod log_core;
pub mod machine;
pub mod prepare;
pub mod presence;
pub mod unwritten;
