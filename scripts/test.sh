#!/usr/bin/env bash
# The one test command: installs what is missing (Chromium + chromedriver,
# Firefox ESR, WebKitGTK's MiniBrowser + xvfb, Node 22 and 20, the wasm32
# target, wasm-bindgen-cli 0.2.130), then runs fmt, clippy, the native tests (engine,
# protocol, hub, adapter's pure parts, end-to-end, the core of it in all
# three browsers) and the adapter's in-browser tests in headless Chromium.
# Idempotent.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# cargo install puts the CLI here; make sure this shell sees it.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# A CI run builds once from a fresh clone: incremental caches would only
# double the target dir (a full disk once failed a CI link with a bus error).
if [ "${CI:-}" = true ]; then
    export CARGO_INCREMENTAL=0
fi

WASM_BINDGEN_VERSION=0.2.130
WASM_TARGET=wasm32-unknown-unknown

step() { printf '\n==> %s\n' "$*"; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "error: need root (or sudo) to run: $*" >&2
        exit 1
    fi
}

# The browsers the end-to-end tests open (tests/tests/engines.rs runs the
# core in all three), each installed only when missing, after one update.
chromium=()
[ -x /usr/bin/chromium ] || chromium+=(chromium)
[ -x /usr/bin/chromedriver ] || chromium+=(chromium-driver)
others=()
[ -x /usr/bin/firefox-esr ] || others+=(firefox-esr)
ls /usr/lib/*/webkit2gtk-4.1/MiniBrowser >/dev/null 2>&1 || others+=(libwebkit2gtk-4.1-0)
[ -x /usr/bin/xvfb-run ] || others+=(xvfb)
command -v xauth >/dev/null 2>&1 || others+=(xauth)
if [ "$(( ${#chromium[@]} + ${#others[@]} ))" -gt 0 ]; then
    as_root apt-get update
fi
if [ "${#chromium[@]}" -gt 0 ]; then
    step "installing ${chromium[*]} (apt)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${chromium[@]}"
fi
if [ "${#others[@]}" -gt 0 ]; then
    # Headless use needs none of their recommends (fonts, codecs, ...).
    step "installing ${others[*]} (apt)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${others[@]}"
fi

for component in rustfmt clippy; do
    if ! rustup component list --installed | grep -q "^$component"; then
        step "adding rust component $component"
        rustup component add "$component"
    fi
done

if ! rustup target list --installed | grep -qx "$WASM_TARGET"; then
    step "adding rust target $WASM_TARGET"
    rustup target add "$WASM_TARGET"
fi

if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
    step "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION"
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

# Node processes as realms (tests/tests/node.rs) need a Node 22, and a Node
# 20 for the line an older one gets: the machine's `node` when it is that
# version, else the npm registry's `node@N` package in target/node-runtimes.
node_of() {
    local major="$1" dir="target/node-runtimes/node$1"
    if [ "$(node --version 2>/dev/null | cut -d. -f1)" = "v$major" ]; then
        command -v node
        return
    fi
    if [ ! -x "$dir/node_modules/node/bin/node" ]; then
        step "installing Node $major (npm: node@$major)" >&2
        mkdir -p "$dir"
        npm install --prefix "$dir" --no-save --no-audit --no-fund --silent "node@$major" >&2
    fi
    echo "$PWD/$dir/node_modules/node/bin/node"
}
DAEBUG_NODE22="$(node_of 22)"
DAEBUG_NODE20="$(node_of 20)"
export DAEBUG_NODE22 DAEBUG_NODE20

# wasm-bindgen-test-runner finds the driver here; Chromium flags come from
# adapter-wasm/webdriver.json (see .cargo/config.toml).
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"

# Every test runner's output also goes here, to print one total at the end.
results="$(mktemp)"
trap 'rm -f "$results"' EXIT
run_tests() { "$@" 2>&1 | tee -a "$results"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "clippy (native, whole workspace)"
cargo clippy --workspace --all-targets -- -D warnings

step "comments cite docs/, not the design document (it is not in the repo)"
if git grep -n 'DESIGN [§]' -- ':!*.lock'; then
  echo "cite docs/ instead of the design document's sections: it is not in this repository" >&2
  exit 1
fi

step "the committed adapter (www/adapter) matches its source"
fresh="$(mktemp -d)"
scripts/build-adapter.sh "$fresh"
for f in daebug_adapter.js daebug_adapter_bg.wasm; do
  if ! cmp -s "$fresh/$f" "www/adapter/$f"; then
    echo "www/adapter/$f is stale: run scripts/build-adapter.sh and commit www/adapter" >&2
    exit 1
  fi
done
rm -rf "$fresh"

step "native tests (engine, protocol, hub, adapter's pure parts, end-to-end)"
run_tests cargo test --workspace

step "clippy (adapter, $WASM_TARGET)"
cargo clippy -p daebug-adapter --target "$WASM_TARGET" --all-targets -- -D warnings

step "in-browser adapter tests (headless Chromium)"
# --tests: the crate's unit tests are native-only (run above).
run_tests cargo test -p daebug-adapter --target "$WASM_TARGET" --tests

printf '\nall tests passed\n'
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "%d passed, %d failed\n", p, f }' "$results"
