// `daebug/vite`: a Vite plugin that makes the dev server's pages realms
// with no edit to the app (docs/zero-edits.md): in dev only (`vite` /
// `vite dev`, never a build), it finds the hub that serves this project
// (`debug/.hub` under the root) or starts one, and adds the hub's tag first
// in `<head>` of every page Vite serves. Its workers and the Node side are
// README.md's other recipes.
//
//   // vite.config.js
//   import daebug from "daebug/vite";
//   export default { plugins: [daebug()] };
//
// Options: `root` (where `debug.md` and `debug/` go; Vite's root by
// default), `port` (the hub's, 8302 by default; a free one when taken).
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { spawn } = require("node:child_process");
const { binaryPath } = require("./index.js");

function daebug(options = {}) {
  let hub = null;
  return {
    name: "daebug",
    apply: "serve",
    async configureServer(server) {
      const root = path.resolve(options.root || server.config.root);
      const log = server.config.logger;
      try {
        hub = await running(root);
        if (hub) log.info(`daebug: the hub at ${hub.url} serves ${root}`);
        else {
          hub = await start(root, options.port ?? 8302);
          log.info(`daebug: started the hub at ${hub.url} (logs in ${path.join(root, "debug")})`);
          const stop = () => hub.child && hub.child.kill();
          if (server.httpServer) server.httpServer.once("close", stop);
          process.once("exit", stop);
        }
      } catch (e) {
        // The app runs as without daebug.
        log.warn(`daebug: no hub (${e.message}); pages are served without the tag`);
        hub = null;
      }
    },
    transformIndexHtml: {
      order: "pre",
      handler() {
        if (!hub) return [];
        const query = hub.token ? `?token=${encodeURIComponent(hub.token)}` : "";
        return [{ tag: "script", attrs: { src: `${hub.url}/daebug.js${query}` }, injectTo: "head-prepend" }];
      },
    },
  };
}

// The hub `debug/.hub` names, if it answers.
async function running(root) {
  let file;
  try {
    file = JSON.parse(fs.readFileSync(path.join(root, "debug", ".hub"), "utf8"));
  } catch {
    return null;
  }
  try {
    const res = await fetch(`${file.url}/daebug.js`, { method: "HEAD", signal: AbortSignal.timeout(1000) });
    return res.ok ? { url: file.url, token: file.token || null, child: null } : null;
  } catch {
    return null;
  }
}

// Starts the hub on `port` (any free one when it is taken) and resolves
// with its URL once it serves.
function start(root, port) {
  const tryPort = (p) =>
    new Promise((resolve, reject) => {
      const child = spawn(binaryPath(), ["--root", root, "--port", String(p)], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      const seen = (chunk) => {
        out += chunk;
        const m = /serving .* at (http:\/\/\S+?)\/?\s/.exec(out);
        if (m) {
          child.stdout.removeAllListeners("data");
          child.stderr.removeAllListeners("data");
          // Its later output is not Vite's to show; keep it flowing.
          child.stdout.resume();
          child.stderr.resume();
          resolve({ url: m[1], token: null, child });
        }
      };
      child.stdout.on("data", seen);
      child.stderr.on("data", seen);
      child.on("error", reject);
      child.on("exit", (code) => reject(Object.assign(new Error(out.trim().split("\n").pop() || `exited with ${code}`), { out })));
    });
  return tryPort(port).catch((e) => (/in use|address/i.test(e.message + (e.out || "")) ? tryPort(0) : Promise.reject(e)));
}

module.exports = daebug;
module.exports.default = daebug;
