//! Where a job's time goes inside the realm, for the bench's "where the
//! time goes" table (BENCH.md; docs/wire-protocol.md, "Stage marks"): with
//! the loader's `?stages` option, each job's moments (its message heard,
//! decoded, its function compiled, run, its value rendered, its end
//! gathered, its result encoded and sent) go to the loader's
//! `hooks.stage`, which reads `performance.now()` and keeps the rows
//! (`adapter-shim/hooks.js`). Off (the default), a mark costs one check of
//! a `Cell`; the bookkeeping is the loader's, out of the budgeted `.wasm`.

use std::cell::Cell;

use daebug_protocol::JobId;

/// A job's moments, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// A hub message came (its job not known yet).
    Heard = 0,
    Decoded,
    Compiled,
    Ran,
    Rendered,
    Gathered,
    Encoded,
    Sent,
}

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
}

/// Marks are taken from now on (the loader's `?stages`).
pub fn enable() {
    ON.set(true);
}

/// `job` reached `stage` now.
pub fn mark(job: JobId, stage: Stage) {
    if ON.get() {
        if let Some(h) = crate::bind::hooks() {
            h.stage(job.0 as f64, stage as u32);
        }
    }
}
