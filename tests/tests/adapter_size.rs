//! The adapter's cost to the page (docs/architecture.md, "The adapter's budget"): the committed `.wasm` and
//! its wasm-bindgen glue, each gzipped at level 9 (flate2's
//! `Compression::best()`, as `gzip -9`), summed.
//!
//! The budget is 64 KB (65,536 bytes), and this test fails above it.
//! Issue 30 brought the adapter back under it, from 102 KB: what reads
//! and lays out values, the pictures, the toolkit and the person in the
//! loop are plain JavaScript the loader carries (`adapter-shim/`), the
//! loader's contract typed bindings, text searched and sliced without
//! core's searchers and panics (`daebug_protocol::text`).

use std::io::Write;
use std::path::Path;

use flate2::write::GzEncoder;
use flate2::Compression;

/// the adapter's budget (docs/architecture.md) for `.wasm` + glue, gzipped.
const BUDGET: usize = 64 * 1024;

/// The files a page loads for the adapter (the loader aside, which the
/// hub writes per request), as committed in `www/adapter/`.
const FILES: [&str; 2] = ["daebug_adapter_bg.wasm", "daebug_adapter.js"];

fn gzipped(bytes: &[u8]) -> usize {
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    gz.write_all(bytes).expect("gzip in memory");
    gz.finish().expect("gzip in memory").len()
}

/// Each file's raw and gzipped size, and the gzipped total.
fn measure(dir: &Path) -> (Vec<(String, usize, usize)>, usize) {
    let sizes: Vec<(String, usize, usize)> = FILES
        .iter()
        .map(|name| {
            let bytes = std::fs::read(dir.join(name))
                .unwrap_or_else(|e| panic!("{}: {e}", dir.join(name).display()));
            (name.to_string(), bytes.len(), gzipped(&bytes))
        })
        .collect();
    let total = sizes.iter().map(|(_, _, gz)| gz).sum();
    (sizes, total)
}

/// The size check itself: `Err` says by how much `total` is over `limit`.
fn check(total: usize, limit: usize) -> Result<(), String> {
    match total > limit {
        true => Err(format!(
            "the adapter is {total} bytes gzipped, {} over its limit of {limit} (budget {BUDGET})",
            total - limit
        )),
        false => Ok(()),
    }
}

#[test]
fn the_adapter_stays_within_its_size_limit() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../www/adapter");
    let (sizes, total) = measure(&dir);
    for (name, raw, gz) in &sizes {
        println!("{name}: {raw} bytes, {gz} gzipped");
    }
    println!("total: {total} bytes gzipped; budget {BUDGET}");
    if let Err(e) = check(total, BUDGET) {
        panic!("{e}: run scripts/build-adapter.sh and see what grew (twiggy top)");
    }
}

#[test]
fn the_check_fails_above_the_limit() {
    assert!(check(BUDGET, BUDGET).is_ok());
    assert!(check(BUDGET + 1, BUDGET)
        .unwrap_err()
        .contains("1 over its limit of 65536"));
}
