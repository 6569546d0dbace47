#!/usr/bin/env bash
# Builds the realm adapter (adapter-wasm, Rust -> wasm32) into the files the
# hub embeds: www/adapter/daebug_adapter.js (wasm-bindgen glue) and
# www/adapter/daebug_adapter_bg.wasm. The built files are committed, so that
# `cargo run` works with only the Rust toolchain; scripts/test.sh rebuilds
# them into a temp folder and fails if the committed copy is stale.
#
#   scripts/build-adapter.sh [OUT_DIR]     (default: www/adapter)
#
# Needs the wasm32-unknown-unknown target and wasm-bindgen-cli 0.2.130
# (scripts/test.sh installs both), and Node (scripts/short-names.mjs). No wasm-opt: Debian's binaryen 108 breaks
# wasm-bindgen 0.2.130 output.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:-www/adapter}"
mkdir -p "$out"

# Paths are remapped so the .wasm is the same on every machine, wherever
# the checkout and the cargo registry are.
export RUSTFLAGS="--remap-path-prefix=$PWD=/daebug --remap-path-prefix=${CARGO_HOME:-$HOME/.cargo}=/cargo"
# Size over speed for the adapter only (its own target dir, so the hub's
# release build is untouched).
export CARGO_PROFILE_RELEASE_OPT_LEVEL=z CARGO_PROFILE_RELEASE_LTO=fat \
  CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 CARGO_PROFILE_RELEASE_PANIC=abort \
  CARGO_PROFILE_RELEASE_STRIP=debuginfo
cargo build --quiet -p daebug-adapter --release --target wasm32-unknown-unknown \
  --target-dir target/adapter-build
wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section --out-dir "$out" --out-name daebug_adapter \
  target/adapter-build/wasm32-unknown-unknown/release/daebug_adapter.wasm
# The imports' and closures' hashed names, shortened in the .wasm and the
# glue alike (about 4 KB gzipped of the adapter's 64 KB budget).
node scripts/short-names.mjs "$out"
