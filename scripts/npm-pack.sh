#!/usr/bin/env bash
# Packs daebug for npm (docs/zero-edits.md, "From npm"): the `daebug`
# package (bin/daebug.js runs the hub, `daebug/vite` the Vite plugin) and
# this machine's `@daebug/<platform>-<arch>` with the hub's binary in it, as
# esbuild and Biome ship theirs. The other platforms' packages are built by
# .github/workflows/release.yml on their own runners.
#
#   scripts/npm-pack.sh [binary] [out-dir]
#
# binary: the hub to ship (default target/release/daebug, built when
# missing); out-dir: where the .tgz files go (default target/npm).
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${1:-target/release/daebug}"
out="${2:-target/npm}"
if [ ! -x "$bin" ] && [ "$bin" = target/release/daebug ]; then
  cargo build --release -p daebug --bin daebug
fi
[ -x "$bin" ] || { echo "no hub binary at $bin" >&2; exit 1; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"

version="$(node -p 'require("./npm/daebug/package.json").version')"
platform="$(node -p 'process.platform + "-" + process.arch')"
os="${platform%-*}"
cpu="${platform#*-}"
exe=daebug
[ "$os" = win32 ] && exe=daebug.exe

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/$platform/bin"
cp "$bin" "$work/$platform/bin/$exe"
chmod 755 "$work/$platform/bin/$exe"
cat > "$work/$platform/package.json" <<JSON
{
  "name": "@daebug/$platform",
  "version": "$version",
  "description": "The daebug hub's binary for $os $cpu (installed by the daebug package).",
  "license": "MIT",
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin/"],
  "preferUnplugged": true
}
JSON
(cd "$work/$platform" && npm pack --silent --pack-destination "$out" >/dev/null)
(cd npm/daebug && npm pack --silent --pack-destination "$out" >/dev/null)
ls -l "$out"/daebug-"$version".tgz "$out"/daebug-"$platform"-"$version".tgz
