#!/usr/bin/env bash
# The adapter's in-browser tests (adapter-wasm/tests) in headless Firefox
# ESR, as `wasm-pack test --headless --firefox` runs them: the same
# wasm-bindgen-test-runner scripts/test.sh uses for Chromium, given
# geckodriver. Not part of scripts/test.sh: `cargo install geckodriver`
# compiles for minutes on a cold machine (see the README, "Browsers").
# Installs what is missing (firefox-esr with apt, geckodriver with cargo);
# run scripts/test.sh once first for the wasm32 target and wasm-bindgen-cli.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

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

if [ ! -x /usr/bin/firefox-esr ]; then
    step "installing firefox-esr (apt)"
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends firefox-esr
fi

if ! command -v geckodriver >/dev/null 2>&1; then
    step "installing geckodriver (cargo install)"
    cargo install geckodriver --locked
fi

step "in-browser adapter tests (headless Firefox ESR)"
# GECKODRIVER picks Firefox (the runner takes the first *DRIVER variable
# set); the Firefox binary and prefs come from adapter-wasm/webdriver.json.
env -u CHROMEDRIVER GECKODRIVER="$(command -v geckodriver)" \
    cargo test -p daebug-adapter --target wasm32-unknown-unknown --tests
