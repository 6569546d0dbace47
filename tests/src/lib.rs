//! End-to-end tests for daebug live in `tests/`: they run the real `daebug`
//! binary (and, once the hub lands, drive headless Chromium against it).
//!
//! The binary belongs to another package, so Cargo's `CARGO_BIN_EXE_*` is not
//! available here; tests build it with `cargo build -p daebug --bin daebug`
//! (a no-op when it is fresh) and take its path from Cargo's JSON output,
//! which stays right for any `--target-dir`/`build-dir` layout.
