//! daebug — a local realtime hub that runs JavaScript inside live browser
//! pages and Web Workers, driven by fenced code blocks appended to Markdown
//! chat logs (see `DESIGN.md` for the contract).
//!
//! # Layout
//!
//! The heart of the hub is a pure, sans-IO log engine; everything that
//! touches the outside world (files, sockets, clocks) wraps around it.
//!
//! - [`engine`]: the pure log engine. Given a log's text, an input (file
//!   changed, job started, progress, result, timeout, tick) and `now`, it
//!   returns edits to the text and effects (dispatch, cancel, wake-at). No
//!   filesystem, no clock, no tokio; tested with before/after fixtures.
//! - `main.rs`: the `daebug` command line (`--root`, `--port`, `--host`).
//!
//! Still to come, each in its own module: the file watcher, one actor task
//! per log file that owns that file's state and runs the engine, the
//! WebSocket hub that owns realm connections, and the HTTP layer that serves
//! `--root`, `/daebug.js` and the embedded adapter.
//!
//! The wire types shared with the realm adapter live in the
//! [`daebug_protocol`] crate.

pub mod config;
pub mod engine;
pub mod http;
pub mod hub;
pub mod prepare;

pub use config::HubConfig;
pub use hub::{Hub, HubError};
