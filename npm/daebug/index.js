// The path of the daebug hub's binary for this platform: the optional
// package `@daebug/<platform>-<arch>` npm installed beside this one (as
// esbuild and Biome ship theirs), or `DAEBUG_BINARY`. See README.md.
"use strict";
const path = require("node:path");
const fs = require("node:fs");

const exe = process.platform === "win32" ? "daebug.exe" : "daebug";

function binaryPath() {
  const given = process.env.DAEBUG_BINARY;
  if (given) return given;
  const name = `@daebug/${process.platform}-${process.arch}`;
  let dir;
  try {
    dir = path.dirname(require.resolve(`${name}/package.json`));
  } catch {
    throw new Error(
      `daebug: no prebuilt hub for ${process.platform}-${process.arch} (the optional package ${name} is not installed). ` +
        "Reinstall without --no-optional, or build it: cargo install --git <the daebug repository> daebug, then set DAEBUG_BINARY.",
    );
  }
  const file = path.join(dir, "bin", exe);
  if (!fs.existsSync(file)) throw new Error(`daebug: ${name} has no ${path.join("bin", exe)}`);
  return file;
}

module.exports = { binaryPath };
