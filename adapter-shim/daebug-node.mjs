// daebug-node.mjs: makes this Node process a daebug realm, with its own
// log in debug/ next to this file. The hub writes this file at every start
// (its address is below); run your program with it:
//   node --import ./debug/daebug-node.mjs server.js
// It hooks the console, fetch and the process's fatal events at once and
// keeps what they see until the adapter (the WebAssembly a page runs,
// loaded from the hub) takes over. Nothing here keeps the process alive:
// a program that would end, ends. Node 22 or later (a global WebSocket).
import http from "node:http";
import http2 from "node:http2";
import https from "node:https";
import module from "node:module";
import net from "node:net";
import path from "node:path";
import url from "node:url";
import vm from "node:vm";

// The hub writes the adapter's URL here (`?token=` included).
const SELF = "__DAEBUG_SELF__";
// The scripts of package managers, as `process.argv[1]` names them.
const LAUNCHERS = new Set(["npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg", "npm-cli.js", "npx-cli.js", "pnpm.cjs", "pnpm.mjs", "yarn.js", "yarn.cjs"]);
// How long the log may take to get the last word of a process that ends.
const LAST_WORD_MS = 3000;

start();

function start() {
  const started = Symbol.for("daebug.adapter");
  if (globalThis[started]) return;
  const entry = process.argv[1] ? path.resolve(process.argv[1]) : path.join(process.cwd(), "[eval]");
  // A package manager's own process (the `npm` of `npm run dev`) only
  // starts the app's: it is no realm; what it runs is (docs/zero-edits.md,
  // "One command").
  if (LAUNCHERS.has(path.basename(entry))) return;
  const major = Number(process.versions.node.split(".")[0]);
  // `in`, not `typeof`: Node makes its WebSocket on first use (some 20 ms),
  // which waits until the program's first turn is done.
  if (major < 22 || !("WebSocket" in globalThis)) {
    process.stderr.write(
      `daebug: Node 22 or later is needed (this is Node ${process.version}); ${path.basename(entry)} runs without daebug\n`,
    );
    return;
  }
  const fetch0 = globalThis.fetch;
  const early = (globalThis[Symbol.for("daebug.early")] = hooks(SELF));
  const served = serve(early);
  const realm = nodeRealm(entry);
  globalThis[Symbol.for("daebug.node")] = realm;
  globalThis[Symbol.for("daebug.resolve")] = realm.resolve;
  const scope = (globalThis[Symbol.for("daebug.scope")] ??= Object.create(null));
  scope.require = module.createRequire(entry);
  // After the program's first turn: loading the adapter (fetch, its
  // WebAssembly) does not delay the program's first line.
  const adapter = new Promise((next) => setImmediate(next))
    .then(() => load(fetch0))
    .then((glue) => {
      glue.start(SELF);
      addTests(early);
      addServed(served, early);
      addWatching(early);
      return glue;
    })
    .catch((e) => {
      early.stop();
      served.stop();
      const script = path.basename(entry);
      const warn = (line) => early.originals.warn.call(console, line);
      if (e && e.cause && e.cause.code === "ECONNREFUSED") {
        warn(`daebug: no hub at ${new URL(SELF).origin} (start it first); ${script} runs without daebug`);
      } else {
        const why = e && e.cause ? `${e.message} (${e.cause.code || e.cause.message})` : String(e && e.message ? e.message : e);
        warn(`daebug: the adapter did not start: ${why}; ${script} runs without daebug`);
      }
      return null;
    });
  globalThis[started] = adapter;
  lastWords(early, adapter);
}

// `daebug.test(spec, options)` (docs/log-format.md, "Tests in the realm") runs the files with Node's own
// node:test; the runner is written beside this file and imported on first
// use.
function addTests(early) {
  const kit = globalThis[Symbol.for("daebug.toolkit")];
  if (!kit || kit.test) return;
  kit.test = (spec, options) =>
    import(new URL("./daebug-test-node.mjs", import.meta.url)).then((m) => m.runTests(spec, options, early.report));
}

// Watching without editing (docs/log-format.md, "Components", "Probes",
// "Logpoints"): each part adds its own to the toolkit; one that fails
// leaves the others.
function addWatching(early) {
  const kit = globalThis[Symbol.for("daebug.toolkit")];
  if (!kit) return;
  for (const add of [components, probes, debugging]) {
    try {
      add(kit, early);
    } catch {}
  }
}

// `daebug.network.served({ url, status })` (docs/log-format.md, "Requests a
// Node realm serves"), beside what the toolkit's `network` has.
function addServed(served, early) {
  const kit = globalThis[Symbol.for("daebug.toolkit")];
  if (!kit) return;
  if (!kit.network || typeof kit.network !== "object") kit.network = {};
  if (!kit.network.served) kit.network.served = served.find;
  // This process's own requests (`fetch`): docs/log-format.md, "Request bodies".
  for (const k of ["last", "list", "clear"]) kit.network[k] ??= early.network[k];
}

// The requests this process serves through `http`, `https` and `http2`
// servers (Express, Fastify, Koa and Next's server use them), recorded as
// docs/log-format.md, "Requests a Node realm serves", says. The program
// is not changed: a request's body is seen where its stream emits 'data'
// (no listener is added, so a stream is read when and as the program reads
// it), a response's in its own `write` and `end`, and everything passes
// through as it was given. Nothing here holds a handle.
const SERVED_KEPT = 500;
// Bodies over this are recorded by size and type only.
const BODY_MAX = 1024 * 1024;
// A body up to this many characters is shown whole on the line.
const BODY_SHOWN = 200;
// The kept records' bodies together: past this, the oldest lose theirs.
const BODIES_KEPT = 32 * 1024 * 1024;

function serve(early) {
  const kept = [];
  let keptBytes = 0;
  let on = true;
  const TAPPED = Symbol.for("daebug.served");
  const tap = (proto) => {
    if (!proto || Object.prototype.hasOwnProperty.call(proto, TAPPED)) return;
    const emit = proto.emit;
    if (typeof emit !== "function") return;
    hidden(proto, TAPPED, true);
    hidden(proto, "emit", function (type, req, res) {
      let r = null;
      if (on && type === "request" && req && res && typeof res.end === "function") {
        try {
          r = watch(req, res);
        } catch {}
      }
      if (!r || !r.cause) return emit.apply(this, arguments);
      // The program serves it in the request's own context: what it
      // prints is held for the request's line, what it fetches names it.
      return early.causes.run(r.cause, () => emit.apply(this, arguments));
    });
  };
  tap(http.Server.prototype);
  tap(https.Server.prototype);
  // http2's server classes are not exported: their prototypes are those
  // of a server made and never listened on.
  for (const make of [() => http2.createServer(), () => http2.createSecureServer({})]) {
    try {
      tap(Object.getPrototypeOf(make()));
    } catch {}
  }

  function watch(req, res) {
    const r = {
      method: String(req.method || "GET"),
      url: String(req.url ?? ""),
      at: new Date(),
      start: performance.now(),
      ms: 0,
      status: 0,
      statusText: "",
      failed: "",
      duringJob: early.inJob(),
      request: part(req.headers),
      response: part(null),
      shown: ["", ""],
      // The page's log, when a page or worker of the hub's made it
      // (docs/log-format.md, "Page and server").
      from: fromPage(req.headers["daebug-cause"]),
      cause: null,
      held: [],
    };
    r.cause = { why: `while serving ${r.method} ${oneLine(r.url).split("?")[0]}`, held: (m, shown, trace) => hold(r, m, shown, trace) };
    const own = ownStem();
    if (r.from && own && !res.headersSent && typeof res.setHeader === "function") {
      try {
        res.setHeader("daebug-served", own);
      } catch {}
    }
    const reqEmit = req.emit;
    // Its events reach the program in the request's context too (Node's
    // parser emits them from the connection's): a body read with
    // `req.on('data')` and what follows it are still serving it.
    hidden(req, "emit", function (type, chunk) {
      if (type === "data") add(r.request, chunk);
      return early.causes.run(r.cause, () => reqEmit.apply(this, arguments));
    });
    // http2's `end` calls `write`: a chunk counts once.
    let ending = false;
    const write = res.write;
    const end = res.end;
    hidden(res, "write", function (chunk, encoding) {
      if (!ending) add(r.response, chunk, encoding);
      return write.apply(this, arguments);
    });
    hidden(res, "end", function (chunk, encoding) {
      if (!ending && typeof chunk !== "function") add(r.response, chunk, encoding);
      ending = true;
      try {
        return end.apply(this, arguments);
      } finally {
        ending = false;
      }
    });
    const resEmit = res.emit;
    let done = false;
    hidden(res, "emit", function (type) {
      if (!done && (type === "finish" || type === "close")) {
        done = true;
        try {
          ended(r, req, res, type === "finish" || res.writableFinished);
        } catch {}
      }
      return resEmit.apply(this, arguments);
    });
    return r;
  }

  // A console call made while serving `r`: held (true) until its line is
  // written, so it goes under it; at most 200, and for 2 s.
  function hold(r, m, shown, trace) {
    if (!r.held || r.held.length >= 200) return false;
    if (!r.held.length) setTimeout(() => release(r), 2000).unref();
    r.held.push([m, shown, trace]);
    return true;
  }
  // The held calls to the log, in order, after the request's line if
  // there is one; from now on its calls go as they come.
  function release(r) {
    const held = r.held || [];
    r.held = null;
    for (const [m, shown, trace] of held) early.say(m, shown, trace);
  }

  function ended(r, req, res, finished) {
    r.ms = performance.now() - r.start;
    r.duringJob = r.duringJob || early.inJob();
    r.status = Number(res.statusCode) || 0;
    // HTTP/2 has no status message (its getter warns): the code's own.
    const message = res instanceof http.ServerResponse ? res.statusMessage : "";
    r.statusText = String(message || http.STATUS_CODES[r.status] || "");
    if (!finished) r.failed = "the connection closed before the answer ended";
    const headers = typeof res.getHeaders === "function" ? res.getHeaders() : {};
    r.response.headers = redacted(headers);
    r.response.type = typeOf(headers);
    r.response.coding = codingOf(headers);
    for (const p of [r.request, r.response]) settle(p);
    r.shown = [shown(r.request), shown(r.response)];
    if (logged(r)) early.served(line(r));
    if (r.from && r.from.job) tellPage(r);
    release(r);
    kept.push(r);
    keptBytes += r.request.bytes + r.response.bytes;
    if (kept.length > SERVED_KEPT) {
      const old = kept.shift();
      keptBytes -= old.request.bytes + old.response.bytes;
    }
    for (let i = 0; keptBytes > BODIES_KEPT && i < kept.length; i++) {
      for (const p of [kept[i].request, kept[i].response]) {
        keptBytes -= p.bytes;
        p.bytes = 0;
        if (p.text !== undefined) (p.text = undefined), (p.omitted = "dropped: kept bodies over 32 MiB");
      }
    }
  }

  // One side of a request: its headers (redacted), type, size and the
  // chunks seen so far (`null` once over BODY_MAX).
  function part(headers) {
    return {
      headers: headers ? redacted(headers) : {},
      type: headers ? typeOf(headers) : "",
      coding: headers ? codingOf(headers) : "",
      size: 0,
      chunks: [],
      text: undefined,
      omitted: "",
      bytes: 0,
    };
  }

  function add(p, chunk, encoding) {
    try {
      if (chunk == null || !on) return;
      const enc = typeof encoding === "string" && Buffer.isEncoding(encoding) ? encoding : "utf8";
      const n = typeof chunk === "string" ? Buffer.byteLength(chunk, enc) : Number(chunk.byteLength) || 0;
      p.size += n;
      if (!p.chunks) return;
      if (p.size > BODY_MAX) p.chunks = null;
      else if (typeof chunk === "string") p.chunks.push(Buffer.from(chunk, enc));
      else if (ArrayBuffer.isView(chunk)) p.chunks.push(Buffer.from(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
    } catch {}
  }

  // The body as text when it is text, within BODY_MAX and not compressed.
  function settle(p) {
    const chunks = p.chunks;
    p.chunks = null;
    if (!p.size) return;
    if (!chunks) return void (p.omitted = "over 1 MiB");
    if (p.coding || !textual(p.type)) return void (p.omitted = "not text");
    p.text = scrub(Buffer.concat(chunks).toString("utf8"));
    p.bytes = p.text.length;
  }

  const json = jsonOf;

  // A body's digest on the line: itself when short, else its size and type
  // (and, for JSON, its shape).
  function shown(p) {
    if (!p.size) return "";
    const kind = [sizeOf(p.size), p.type, p.coding].filter(Boolean).join(" ");
    if (p.text === undefined) return `(${kind})`;
    const j = json(p);
    const text = j ? JSON.stringify(j.value) : p.text;
    if (text.length <= BODY_SHOWN) return oneLine(text);
    return j ? `${shape(j.value, 0)} (${kind})` : `(${kind})`;
  }

  // A page block's request served: its line and what was printed while
  // serving it, for the page's log too, where the block's reply lists
  // them (docs/actions.md, "Effects in every realm"); the hub routes it.
  function tellPage(r) {
    const own = ownStem();
    if (!own) return;
    const printed = (r.held || []).slice(0, 8).map(([m, shown]) => `  console.${m} ${early.brief(shown)}`);
    const more = (r.held || []).length > 8 ? [`  … ${r.held.length - 8} more lines in [${own}](${own}.md)`] : [];
    const text = [`[${own}](${own}.md) served ${line(r, false)}`, ...printed, ...more].join("\n");
    early.effect(JSON.stringify({ to: r.from.stem, text }));
  }

  // Failed, answered 400 or more, served while a job ran, or asked by a
  // job of a page's: its line is in the log.
  const logged = (r) => Boolean(r.failed || r.status >= 400 || r.duringJob || (r.from && r.from.job));

  // `daebug-cause: shop-3f2a` or `shop-3f2a job` (a job of that page's
  // made it): its log, or null for anything else.
  function fromPage(value) {
    const m = /^([a-z0-9][a-z0-9.-]{0,63})( job)?$/.exec(String(value || ""));
    return m ? { stem: m[1], job: !!m[2], at: new Date().toTimeString().slice(0, 8) } : null;
  }
  const ownStem = () => {
    const kit = globalThis[Symbol.for("daebug.toolkit")];
    return (kit && kit.realm && kit.realm.stem) || "";
  };

  // The served line; `linked` false leaves out where it came from (the
  // page's own log shows it).
  function line(r, linked = true) {
    const [sent, answer] = r.shown;
    const head = `${r.method} ${oneLine(r.url)}${sent ? " " + sent : ""} → `;
    const ms = `(${Math.round(Math.max(0, r.ms))} ms)`;
    const from = r.from && linked ? ` · from [${r.from.stem} ${r.from.at}](${r.from.stem}.md)` : "";
    if (r.failed) return `${head}failed: ${r.failed} ${ms}${from}`;
    const status = `${r.status}${r.statusText ? " " + r.statusText : ""}`;
    return `${head}${status}${answer ? " " + answer : ""} ${ms}${from}`;
  }

  const view = bodyView;

  // `daebug.network.served({ url, status })`: url a part of it, status a
  // number or a range ('4xx'); the matching records, newest last.
  function find(query) {
    const q = typeof query === "string" ? { url: query } : query || {};
    const wants = (r) =>
      (q.url == null || r.url.includes(String(q.url))) && statusIs(r.status, q.status);
    return kept.filter(wants).map((r) => ({
      method: r.method,
      url: r.url,
      status: r.status,
      statusText: r.statusText,
      ...(r.failed ? { failed: r.failed } : {}),
      ms: Math.round(r.ms * 10) / 10,
      at: r.at.toISOString(),
      logged: logged(r),
      ...(r.from ? { from: r.from.stem } : {}),
      line: line(r),
      request: view(r.request),
      response: view(r.response),
    }));
  }

  return {
    find,
    // No hub: nothing more is recorded, nothing kept.
    stop() {
      on = false;
      kept.length = 0;
      keptBytes = 0;
    },
  };
}

// An own property the program does not see in `Object.keys` or a copy.
function hidden(target, key, value) {
  Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: false });
}

// What the adapter reads of this realm (`daebug.realm`, its hello), and
// the Node ways it runs a block.
function nodeRealm(entry) {
  // A block is compiled as the entry script's own code: its `import()`
  // resolves bare names and `node:` as the entry's imports do. Its frames
  // keep the block's name (`//# sourceURL=daebug-cell-N`). Node calls the
  // default loader option experimental and warns once a process, at the
  // first `import()` through it: daebug's machinery, not the program's
  // (issue 26: it showed as the app's console.error). One `import()` is
  // made here with that warning taken, unseen; Node then never says it
  // again, and every other warning is the program's as before.
  const options = { filename: entry, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER };
  const emit = process.emitWarning;
  process.emitWarning = function (w, ...rest) {
    if (String((w && w.message) || w).includes("USE_MAIN_CONTEXT_DEFAULT_LOADER")) return;
    return emit.call(this, w, ...rest);
  };
  try {
    new vm.Script("import('node:path').catch(() => {})", options).runInThisContext();
  } catch {
    // An older Node without the option: nothing to take.
  } finally {
    process.emitWarning = emit;
  }
  let agent;
  return {
    name: process.env.DAEBUG_NAME || path.basename(entry, path.extname(entry)),
    url: entry,
    pid: process.pid,
    argv: process.argv.slice(),
    // As `new AsyncFunction(code)` makes it: two header lines, so the
    // hub's map of the block's lines holds.
    compile(code) {
      return new vm.Script(`(async function anonymous(\n) {\n${code}\n})`, options).runInThisContext();
    },
    // `./x.js`, `../x.js` and `/x.js` against the working directory;
    // the rest as the entry script would import it.
    resolve(s) {
      return typeof s === "string" && /^\.{0,2}\//.test(s) ? url.pathToFileURL(path.resolve(process.cwd(), s)).href : s;
    },
    // The hub's socket, unref'd: it never keeps the process up. Node's
    // WebSocket (undici) takes a dispatcher; one of the global's kind
    // whose sockets are unref'd.
    socket(address) {
      if (agent === undefined) agent = unrefAgent();
      return agent ? new WebSocket(address, { dispatcher: agent }) : new WebSocket(address);
    },
  };
}

function unrefAgent() {
  try {
    const Agent = globalThis[Symbol.for("undici.globalDispatcher.1")].constructor;
    return new Agent({
      connect(opts, callback) {
        const s = net.connect({ host: String(opts.hostname).replace(/^\[|\]$/g, ""), port: Number(opts.port) });
        s.setNoDelay(true);
        s.unref();
        s.once("connect", () => callback(null, s));
        s.once("error", (e) => callback(e, null));
      },
    });
  } catch {
    return null;
  }
}

// The adapter's glue from the hub, imported under its own URL (so its
// frames read as in a page, and are left out of stacks alike): Node does
// not import http: URLs, so a module hook hands Node the fetched text for
// that one URL, and is taken off again where Node allows it.
async function load(fetch0) {
  const glueUrl = new URL("./daebug_adapter.js", SELF).href;
  const wasm = fetch0(new URL("./daebug_adapter_bg.wasm", SELF));
  // Awaited below; should the glue fail first, its failure is the one said.
  wasm.catch(() => {});
  const answer = await fetch0(glueUrl);
  if (!answer.ok) throw new Error(`${glueUrl} answered ${answer.status}`);
  const source = await answer.text();
  let glue;
  if (typeof module.registerHooks === "function") {
    const hooks = module.registerHooks({
      resolve: (s, c, next) => (s === glueUrl ? { url: glueUrl, format: "module", shortCircuit: true } : next(s, c)),
      load: (u, c, next) => (u === glueUrl ? { format: "module", source, shortCircuit: true } : next(u, c)),
    });
    try {
      glue = await import(glueUrl);
    } finally {
      hooks.deregister();
    }
  } else {
    const offThread = `let u, s;
export function initialize(d) { u = d.url; s = d.source; }
export async function resolve(x, c, next) { return x === u ? { url: u, format: "module", shortCircuit: true } : next(x, c); }
export async function load(x, c, next) { return x === u ? { format: "module", source: s, shortCircuit: true } : next(x, c); }`;
    module.register("data:text/javascript," + encodeURIComponent(offThread), { data: { url: glueUrl, source } });
    glue = await import(glueUrl);
  }
  await glue.default({ module_or_path: await wasm });
  return glue;
}

// An uncaught error or rejection is in the log before Node ends the
// process as it would have (exit code 1), unless DAEBUG_KEEP_ALIVE=1 or
// the program listens for it itself; how the process ends is the log's
// last line.
function lastWords(early, adapter) {
  const keepAlive = process.env.DAEBUG_KEEP_ALIVE === "1";
  const flags = process.execArgv.join(" ") + " " + (process.env.NODE_OPTIONS || "");
  const rejectionsEnd = !/--unhandled-rejections[= ](warn|none|warn-with-error-code)\b/.test(flags);
  let said = false;
  let loaded = null;
  adapter.then((glue) => (loaded = glue));
  // The log has everything so far and how the process ends, or the time
  // for it is up (a hub that does not answer keeps nobody waiting long).
  const tell = (code) => {
    said = true;
    const hold = setTimeout(() => {}, LAST_WORD_MS);
    const told = adapter.then((glue) => glue && glue.last_word(code ?? 0));
    const late = new Promise((r) => setTimeout(r, LAST_WORD_MS).unref());
    return Promise.race([told, late]).catch(() => {}).finally(() => clearTimeout(hold));
  };
  const ours = () => {
    process.off("uncaughtException", onException);
    process.off("unhandledRejection", onRejection);
  };
  function onException(error, origin) {
    const kind = origin === "unhandledRejection" ? "unhandledRejection" : "uncaughtException";
    early.node(kind, error);
    if (keepAlive || said || process.listenerCount("uncaughtException") > 1) return;
    tell(1).then(() => {
      ours();
      // Node shows this line above the error: it says why.
      process.nextTick(() => { throw error; /* daebug: re-raised once the log had it, so Node ends as it would have */ });
    });
  }
  function onRejection(reason) {
    early.node("unhandledRejection", reason);
    if (keepAlive || said || !rejectionsEnd || process.listenerCount("unhandledRejection") > 1) return;
    tell(1).then(() => {
      ours();
      Promise.reject(reason); /* daebug: re-raised once the log had it, so Node ends as it would have */
    });
  }
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  // Nothing left to do: the log gets what the program said last, and its
  // exit, before Node lets it go.
  process.on("beforeExit", (code) => {
    if (!said) tell(code);
  });
  // `process.exit()`: no time to wait; what can be sent is sent.
  process.on("exit", (code) => {
    if (said) return;
    said = true;
    if (loaded) loaded.last_word_now(code);
  });
}

// Console and fetch wrappers that stay (a reference the program took early
// keeps working), and the process's fatal events, kept until the adapter
// attaches: `hooks()`, shared with the page loader, spliced in here by the
// hub (adapter-shim/hooks.js).
/* daebug:hooks */
