#!/usr/bin/env node
// `npx daebug --root .`: runs the prebuilt hub with the arguments given;
// its exit code is this one's, and Ctrl-C (or a signal) reaches it.
"use strict";
const { spawn } = require("node:child_process");
const { binaryPath } = require("../index.js");

let file;
try {
  file = binaryPath();
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
const child = spawn(file, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (e) => {
  console.error(`daebug: could not run ${file}: ${e.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // Ends as the hub did (our own handler out of the way).
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  else process.exit(code ?? 1);
});
