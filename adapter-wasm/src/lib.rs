//! daebug-adapter — the realm adapter, compiled to wasm32 and loaded into
//! pages and Web Workers by the `/daebug.js` shim.
//!
//! As in the hub, the logic is split in two: pure modules (buffering,
//! truncation, formatting) that also compile and are tested natively, and
//! thin browser bindings that are tested in headless Chromium
//! (`tests/web.rs`, `tests/worker.rs`).
//!
//! - [`backoff`]: reconnection waits with jitter.
//! - [`browser_lines`]: resources that did not load and the browser's reports as
//!   the log's lines.
//! - [`buffer`]: captured events, caps, rate limit, and when they are sent
//!   (progress while a job runs, background flushes otherwise).
//! - `adapter` (wasm32 only): `start(script_url)`, the running adapter:
//!   socket, timers, listeners and jobs around the link and the buffer.
//! - `codec` (wasm32 only): the envelopes to and from JSON through the
//!   browser's `JSON`, in the protocol crate's exact format.
//! - `capture` (wasm32 only): console hooks and global error listeners as
//!   a RAII object feeding the buffer.
//! - `job` (wasm32 only): run a job's code once as an async function,
//!   timed in the realm, its value or error rendered.
//! - `values` (wasm32 only): a value as JSON or inspect-style text, by
//!   the loader's `adapter-shim/values.js` (the walk and the layout),
//!   within a job's or a console call's limits.
//! - [`identity`]: display names, tab ids, `?name=`/`?token=` options.
//! - [`link`]: the realm's side of the protocol as a pure state machine
//!   (hello, jobs once, cancels, pings, reconnects, outbox).
//! - [`network`]: the loader's request lines and a job's summary as
//!   `Text network` events, a failure the summary lists shown once.
//! - `pictures` (wasm32 only): `daebug.image`, `daebug.snapshot` and a
//!   value that is a picture, encoded by the browser (`adapter-shim/pictures.js`, from the loader) and
//!   sent ahead of their job's result.
//! - `person` (wasm32 only): panels, `ask`, `pick` and streamed data, put
//!   on the toolkit by the loader's `adapter-shim/person.js`, and their
//!   messages to and from the hub.
//! - [`reply`]: the walk's limits for `depth=N` and `full`, and the cap on
//!   a reply's size.
//! - [`stack`]: the adapter's own frames folded out of a stack.
//! - `stages` (wasm32 only): with the loader's `?stages`, each job's
//!   moments inside the realm, for the bench.
//! - `toolkit` (wasm32 only): the `daebug` object blocks see (`waitFor`,
//!   `reload`, `module`, `sleep`, `realm`), made by the loader's
//!   `adapter-shim/toolkit.js`, and what it asks of the adapter.
//! - [`script_cell`]: blocks run from a `blob:` script where `Function` code
//!   has no positions (WebKit pages), and their frames named back.
//! - [`truncate`]: keep the first and last items of a long list.
//! - [`version`]: the adapter's version, exported to JavaScript.

use wasm_bindgen::prelude::*;

#[cfg(target_arch = "wasm32")]
pub mod adapter;
pub mod backoff;
#[cfg(target_arch = "wasm32")]
pub mod bind;
pub mod browser_lines;
pub mod buffer;
#[cfg(target_arch = "wasm32")]
pub mod capture;
#[cfg(target_arch = "wasm32")]
pub mod codec;
pub mod console;
#[cfg(target_arch = "wasm32")]
pub mod devtools;
pub mod identity;
#[cfg(target_arch = "wasm32")]
pub mod job;
pub mod link;
pub mod network;
#[cfg(target_arch = "wasm32")]
pub mod node;
#[cfg(target_arch = "wasm32")]
pub mod person;
#[cfg(target_arch = "wasm32")]
pub mod pictures;
pub mod reply;
#[cfg(target_arch = "wasm32")]
pub mod script_cell;
pub mod stack;
#[cfg(target_arch = "wasm32")]
pub mod stages;
#[cfg(target_arch = "wasm32")]
pub mod toolkit;
pub mod truncate;
#[cfg(target_arch = "wasm32")]
pub mod values;

/// Talc rather than the standard library's dlmalloc: a few KB less of the
/// `.wasm` (docs/architecture.md, "The adapter's budget"). The adapter is single-threaded (no
/// `atomics`).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The adapter's crate version, as sent in the realm's `hello`.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_is_the_crate_version() {
        assert_eq!(super::version(), env!("CARGO_PKG_VERSION"));
    }
}
