//! daebug — a local realtime hub that runs JavaScript inside live browser
//! pages and Web Workers, driven by fenced code blocks appended to Markdown
//! chat logs (the contract as built is in `docs/`).
//!
//! # Layout
//!
//! The heart of the hub is a pure, sans-IO log engine; everything that
//! touches the outside world (files, sockets, clocks) wraps around it.
//!
//! - [`engine`], [`prepare`], [`lang`]: the pure parts, in the crate
//!   `daebug-core` (`server/core/`): the log engine (text, input and `now`
//!   in; edits and effects out) and the block preparer. No filesystem, no
//!   clock, no tokio, which that crate's dependencies make certain.
//! - [`app`]: the running hub ([`app::Hub`]): binds the port and runs the
//!   tasks, the HTTP surface and the bridge until shutdown; its router
//!   puts the doors' routes beside the hub's own.
//! - [`doors`]: the HTTP API, CLI, MCP and dashboard's way in: blocks
//!   written into a realm's log as its agent's, answered with its reply.
//! - [`hub`]: the shell: one task per log file owning its engine, one per
//!   realm WebSocket, the directory of realms and the registry, the file
//!   watcher.
//! - [`http`]: the hub's own HTTP side: static files with the adapter
//!   injected, the embedded adapter, the Host/Origin guard and the token
//!   check.
//! - [`cdp`]: the optional browser bridge (`--cdp`): what only the
//!   browser knows about the realms, over the DevTools protocol.
//! - [`config`]: what a hub needs to start; `main.rs` is the command line.
//!
//! The wire types shared with the realm adapter live in the
//! [`daebug_protocol`] crate.

pub mod app;
pub mod cdp;
pub mod config;
pub mod doors;
pub mod http;
pub mod hub;
pub mod sourcemap;

// The pure per-log behaviour lives in its own crate, `daebug_core`, so
// the compiler keeps it free of tokio, files and clocks; the hub names it
// by its own paths (`daebug_core::engine`, `daebug_core::delivery`, …).
