//! daebug — a local realtime hub that runs JavaScript inside live browser
//! pages and Web Workers, driven by fenced code blocks appended to Markdown
//! chat logs (the contract as built is in `docs/`).
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
//! - [`prepare`]: pure as well: a block's source → the code its realm runs
//!   (parsed with oxc, types stripped, rewritten to behave like a console),
//!   or the syntax error to answer at once; and the map back from the
//!   prepared code's positions to the block's, for stack traces.
//! - [`hub`]: the shell: one task per log file owning its engine, one per
//!   realm WebSocket, the directory of realms and the registry, the file
//!   watcher.
//! - [`http`]: the axum router: static files with the adapter injected, the
//!   embedded adapter, the Host/Origin guard and the token check.
//! - [`doors`]: the HTTP API, CLI, MCP and dashboard's way in: blocks
//!   written into a realm's log as its agent's, answered with its reply.
//! - [`cdp`]: the optional browser bridge (`--cdp`): what only the
//!   browser knows about the realms, over the DevTools protocol.
//! - [`config`]: what a hub needs to start; `main.rs` is the command line.
//!
//! The wire types shared with the realm adapter live in the
//! [`daebug_protocol`] crate.

pub mod cdp;
pub mod config;
pub mod doors;
pub mod engine;
pub mod http;
pub mod hub;
pub mod lang;
pub mod prepare;
pub mod sourcemap;

pub use config::HubConfig;
pub use hub::{Hub, HubError};
