// hooks.js: the console, fetch and XMLHttpRequest hooks both loaders put
// in place on their first line (`daebug.js` in pages and workers,
// `daebug-node.mjs` in Node). The hub splices this file into each loader
// at its marker comment (`daebug:hooks`), so a loader stays one file for the
// client and the hooks are written once. It defines one function,
// `hooks()`, that installs them and returns what the adapter attaches to
// (its typed bindings: `Hooks` in adapter-wasm/src/bind.rs). values.js,
// pictures.js, toolkit.js and person.js are spliced in after it, so
// `values`, `pictures`, `toolkit` and `person` are in scope here.
//
// The wrappers stay for the realm's life (a reference its code took early
// keeps working); until the adapter attaches, what they see is kept here.
// `self` is the loader's own URL (the hub's socket is daebug's, not the
// realm's).
function hooks(self) {
  const records = [];
  const originals = {};
  let sink = null;
  let netSink = null;
  let nodeSink = null;
  let dropped = 0;
  let stopped = false;
  const keep = (r) => (stopped ? 0 : records.length < 1000 ? records.push(r) : dropped++);
  // The console methods whose first argument (`assert`: second) may be a
  // format string (Chromium's and Node's alike).
  const FORMATTED = ["log", "info", "warn", "error", "debug", "trace", "group", "groupCollapsed"];
  // The one list of the console methods daebug captures.
  const methods = ["log", "info", "warn", "error", "debug", "trace", "assert", "table", "dir",
    "count", "countReset", "time", "timeLog", "timeEnd", "group", "groupCollapsed", "groupEnd"];
  for (const m of methods) {
    const orig = console[m];
    if (typeof orig !== "function") continue;
    originals[m] = orig;
    console[m] = function (...args) {
      try {
        const trace = m === "trace" ? new Error() : undefined;
        const shown = formatted(m, args);
        // What a Node realm prints while serving a request waits to go
        // under that request's line (docs/log-format.md, "Page and server").
        const c = sink && causes.now();
        if (c && c.held && c.held(m, shown, trace)) {
          // held
        } else if (sink) sink(m, shown, trace);
        else keep({ m, args: shown, trace, at: performance.now() });
      } catch {}
      return orig.apply(this, args);
    };
  }
  // What shows values (`values(fold)`, values.js): the adapter's once it
  // made one, else one made here (a call before the adapter starts).
  let view = null;
  // The adapter's stack folder (its own frames out, a WebKit block's
  // blob URL named as its cell), for initiators.
  let folder = null;
  // Console arguments' limits, as the adapter's `ARG_LIMITS`
  // (adapter-wasm/src/capture.rs): depth 2, 20 items, 2,000 characters,
  // 10,000 nodes and the reply's 64 MiB of strings.
  const ARG_LIMITS = [2, 20, 2000, 10000, 64 * 1024 * 1024];
  const shownValue = (v) => (view ??= values((s) => s)).now(v, ARG_LIMITS).text;
  // Node's console formats as `util.format`; a browser's as Chromium's.
  const nodeRules = (() => {
    try {
      return typeof document === "undefined" && typeof process.versions.node === "string";
    } catch {
      return false;
    }
  })();
  // A call made while one is formatted (a Proxy's trap that logs) is
  // recorded as it is.
  let formatting = false;
  // The console's format specifiers (docs/log-format.md, "Format
  // specifiers"): the arguments as the console prints them, the format
  // string (a string first argument, after `assert`'s condition) made
  // into the text it prints, followed by the arguments it did not use; a
  // formatting that fails records the call unformatted. Only primitives
  // are converted as the console converts them: an object is shown as its
  // value, so no page code (`toString`, `valueOf`) runs for daebug.
  function formatted(m, args) {
    const at = m === "assert" ? 1 : FORMATTED.includes(m) ? 0 : -1;
    const fmt = args[at];
    if (at < 0 || typeof fmt !== "string" || !fmt.includes("%") || formatting) return args;
    formatting = true;
    try {
      return format(args, at, fmt);
    } catch {
      return args;
    } finally {
      formatting = false;
    }
  }
  function format(args, at, fmt) {
    const rest = args.slice(at + 1);
    if (nodeRules && !rest.length) return args;
    const primitive = (v) => v === null || (typeof v !== "object" && typeof v !== "function");
    const number = (n) => (nodeRules && Object.is(n, -0) ? "-0" : String(n));
    const convert = (spec, v) => {
      if (!primitive(v)) return spec === "c" || spec === "_" ? "" : shownValue(v);
      switch (spec) {
        case "s":
          return typeof v === "bigint" && nodeRules ? v + "n" : typeof v === "number" ? number(v) : String(v);
        case "d":
        case "i":
          if (typeof v === "symbol") return "NaN";
          if (typeof v === "bigint" && nodeRules) return v + "n";
          // Chromium: `parseInt(v, 10)` (V8), then `Math.floor` (DevTools);
          // Node: `%d` is `Number(v)`, `%i` `parseInt(v)`.
          if (!nodeRules) return String(Math.floor(parseInt(v, 10)));
          return number(spec === "d" ? Number(v) : parseInt(v));
        case "f":
          return typeof v === "symbol" ? "NaN" : number(parseFloat(v));
        case "j": {
          const j = JSON.stringify(v);
          return j === undefined ? "undefined" : j;
        }
        case "o":
        case "O":
          return shownValue(v);
      }
      return "";
    };
    // Chromium reads what `%s` (or a number) put in the text again, as
    // V8 and DevTools do; Node does not. A specifier with no argument
    // left stays as it is written, `%%` is `%`.
    const specifier = nodeRules ? /%([%sdifjoOc])/ : /%([%_Oocsdfi])/;
    let out = "";
    let text = fmt;
    let used = 0;
    for (let found = specifier.exec(text); found; found = specifier.exec(text)) {
      out += text.slice(0, found.index);
      const spec = found[1];
      let again = "";
      if (spec === "%") out += "%";
      else if (used === rest.length) out += found[0];
      else {
        const v = rest[used++];
        const s = convert(spec, v);
        if (nodeRules || !primitive(v) || spec === "o" || spec === "O") out += s;
        else again = s;
      }
      text = again + text.slice(found.index + found[0].length);
    }
    out += text;
    return [...args.slice(0, at), out, ...rest.slice(used)];
  }
  // What caused the code running now (docs/log-format.md, "Causes"): a
  // job (`{ job, at, late }`), or `{ why }` for a person's input, a timer,
  // daebug's own reads for a block (`own: true`: components.js, debugger.js)
  // or a request a Node realm serves (`after click on li.todo >
  // input.toggle`, `after setInterval (1000 ms)`, `while serving POST
  // /api/orders`); null when not known. Followed by async context, not by
  // time: Node's own (`AsyncLocalStorage`); elsewhere the context of the
  // task that runs, held through its microtasks (a job's code, a timer's
  // callback, a person's input, a request's answer) and carried by the
  // timers and requests that code starts.
  const causes = (() => {
    if (nodeRules) {
      try {
        const { AsyncLocalStorage } = process.getBuiltinModule("node:async_hooks");
        const store = new AsyncLocalStorage();
        return {
          now: () => store.getStore() || null,
          hold: (c) => store.enterWith(c),
          run: (c, f) => store.run(c, f),
        };
      } catch {}
    }
    let current = null;
    let epoch = 0;
    const micro = typeof queueMicrotask === "function" ? queueMicrotask : (f) => Promise.resolve().then(f);
    // Held through the task's microtasks (8 turns of the queue: a chain of
    // awaits), then cleared before the task ends: a context never leaks
    // into the next task unless that task is one of those followed.
    // One chain of turns at a time: a hold while it runs starts its
    // count again (a request answered costs no new chain).
    const HOPS = 8;
    let turns = 0;
    let chained = false;
    const tick = () => {
      if (++turns < HOPS) return micro(tick);
      chained = false;
      current = null;
    };
    const hold = (c) => {
      current = c;
      ++epoch;
      turns = 0;
      if (!chained) (chained = true), micro(tick);
    };
    // A person's input holds for the rest of its task: its dispatch runs
    // every listener (with microtask turns between them); a task of its
    // own clears it after.
    const channel = typeof MessageChannel === "function" ? new MessageChannel() : null;
    if (channel) {
      channel.port1.onmessage = (e) => e.data === epoch && (current = null);
      if (typeof channel.port1.unref === "function") channel.port1.unref();
    }
    const holdTask = (c) => {
      current = c;
      ++epoch;
      if (channel) channel.port2.postMessage(epoch);
    };
    return { now: () => current, hold, holdTask, run: (c, f) => (hold(c), f()) };
  })();
  // A task of daebug's own, out of the way of the page's (the timer as it
  // was, before it carries causes).
  const later = ((own) => (f) => own.call(globalThis, f, 0))(globalThis.setTimeout);
  // The timers a page or worker starts carry the context they were started
  // in, or are the cause themselves (Node's carry theirs already).
  const timer = (name, what) => {
    const own = globalThis[name];
    if (nodeRules || typeof own !== "function") return;
    globalThis[name] = {
      [name](f, ...rest) {
        if (typeof f === "function") {
          // (A running job's when nothing else is known: code of its that
          // came back through a path not followed, as for requests.)
          const c = causes.now() || jobNow || (what && { why: what(rest) });
          const g = f;
          f = function () {
            if (c) causes.hold(c);
            return g.apply(this, arguments);
          };
        }
        return own.call(globalThis, f, ...rest);
      },
    }[name];
  };
  timer("setTimeout", (a) => `after setTimeout (${Number(a[0]) || 0} ms)`);
  timer("setInterval", (a) => `after setInterval (${Number(a[0]) || 0} ms)`);
  timer("requestAnimationFrame", () => "after requestAnimationFrame");
  timer("requestIdleCallback", () => "after requestIdleCallback");
  timer("queueMicrotask", null);
  // A person's input to a page is the cause of what its handlers do (a
  // listener of the window's, first in the capture phase, never in the way).
  if (!nodeRules && typeof addEventListener === "function" && typeof document === "object") {
    const PERSON = ["click", "dblclick", "auxclick", "contextmenu", "pointerdown", "pointerup", "mousedown", "mouseup",
      "keydown", "keyup", "input", "change", "submit", "reset", "paste", "cut", "drop", "touchstart", "touchend", "wheel"];
    const named = (el) => {
      if (!el || el.nodeType !== 1) return "";
      if (el.id) return `${el.localName}#${el.id}`;
      const cls = typeof el.className === "string" ? el.className.trim().split(/\s+/).filter(Boolean).slice(0, 2) : [];
      return el.localName + cls.map((c) => "." + c).join("");
    };
    const where = (el) => {
      const up = el && !el.id && el.parentElement;
      return up && up.localName !== "body" && up.localName !== "html" ? `${named(up)} > ${named(el)}` : named(el) || "the page";
    };
    // An event dispatched by code runs inside that code's context: a
    // block's `.click()` (and the `submit` it makes, which the browser
    // marks trusted), `requestSubmit()`, `dispatchEvent`: it carries that
    // code's cause, never a person's. Only an event the browser
    // dispatches on its own (nothing running but a person's last input)
    // is a person's, unless an action of a block's made it (`acting`:
    // trusted input through the bridge, docs/actions.md).
    const person = (e) => {
      try {
        if (acting) return causes.holdTask(acting);
        const now = causes.now();
        if (now && !now.person) return;
        if (!now && jobNow && jobNow.cell && String(new Error().stack).includes(jobNow.cell)) return causes.hold(jobNow);
        if (e.isTrusted) causes.holdTask({ why: `after ${e.type} on ${where(e.target)}`, person: true });
      } catch {}
    };
    for (const k of PERSON) addEventListener(k, person, { capture: true, passive: true });
  }
  // Requests, each as [method, url, start, end, status, text, sent,
  // answer, links] (end 0: on its way; status 0: no answer, and the text
  // says why; `sent` and `answer` the bodies' digests, `links` the
  // initiator and the archive links) with its `cause`, kept here in plain
  // JavaScript: only the line of one that failed or answered 400 or more
  // reaches the adapter at once, once its answer's body is read, and
  // those a job caused are listed for it (see `requests`), or, once it
  // ended, logged on their own. docs/log-format.md, "Request bodies" and
  // "Causes".
  let listed = null;
  let unlisted = 0;
  // The running job's cause (`{ job, at }`), null between jobs.
  let jobNow = null;
  // While a block's action sends trusted input (docs/actions.md): the
  // cause the browser's events carry, as if the block had dispatched them.
  let acting = null;
  let jobs = 0;
  // The [name, text] bodies the lines sent so far link, for the adapter
  // to send the hub for debug/archive/ before the lines (`bodies()`).
  const toArchive = [];
  // The last 500 records with their bodies (text, redacted), for
  // `daebug.network.last` and `list`; bodies past 32 MiB together are
  // dropped, oldest first.
  const kept = [];
  let keptBytes = 0;
  // Body reads under way (a job's end waits for them a little).
  const reading = new Set();
  let stages = [];
  const tag = Date.now().toString(36).slice(-4) + ((Math.random() * 1296) | 0).toString(36);
  let archived = 0;
  const started = (method, url, headers) => {
    const r = [String(method || "GET").toUpperCase(), scrub(absolute(url)), performance.now(), 0, 0, "", "", "", ""];
    r.at = Date.now();
    // The stack now, read only if the line is logged (see `initiator`),
    // or to tell a running job's code (below).
    r.err = new Error();
    // What caused it: the context now, else the running job (code of the
    // job's that came back through a path not followed); the running job
    // too when its code is on the stack (an `await` of the block's that
    // resumed in a task of another cause).
    let c = causes.now() || jobNow;
    // (A cause marked `own`, daebug's own reads for a block, stays.)
    if (c !== jobNow && !(c && c.own) && jobNow && jobNow.cell && String(r.err.stack).includes(jobNow.cell)) c = jobNow;
    r.cause = c;
    r.inJob = c !== null && c === jobNow;
    r.request = side(headers);
    r.response = side(null);
    // Kept from its start: `daebug.network.last` finds one still on its way.
    if (!stopped) kept.push(r) > 500 && (keptBytes -= bytesOf(kept.shift()));
    if (r.inJob && listed.length < 1000) listed.push(r);
    else if (r.inJob) unlisted++;
    return r;
  };
  const ended = (r, status, text, read) => {
    try {
      if (r[3]) return;
      r[3] = performance.now();
      r[4] = status;
      r[5] = String(text);
      const done = () => {
        try {
          digest(r);
          remember(r);
          const late = r.cause && r.cause.job && r.cause !== jobNow;
          if (r.pendingAt) send(lineOf(r) + ` · pending when the block at ${r.pendingAt} ended`);
          else if (late && !r.inJob && r.cause.late++ < 20) send(lineOf(r));
          else if (late && !r.inJob && r.cause.late === 21) send(`(further requests the block at ${r.cause.at} caused are not logged; daebug.network.list() has them)`);
          else if (failed(r)) send(lineOf(r));
        } catch {}
      };
      const pending = [r.request.pending, read && read()].filter(Boolean);
      if (!pending.length) return done();
      const all = Promise.all(pending).then(done, done);
      reading.add(all);
      all.then(() => reading.delete(all));
    } catch {}
  };
  // No answer (and not a beacon or socket that said how it went), or 400
  // or more.
  const failed = (r) => (r[4] === 0 && !r.said) || r[4] >= 400;
  // A request's line to the adapter (a `Text network` event), or kept
  // until it attaches.
  const send = (line) => {
    if (netSink) netSink(line);
    else keep({ net: line });
  };
  // Its bodies are read: they count against the 32 MiB kept.
  const remember = (r) => {
    if (stopped || !kept.includes(r)) return;
    keptBytes += bytesOf(r);
    for (let i = 0; keptBytes > 32 * 1024 * 1024 && i < kept.length; i++) {
      for (const p of [kept[i].request, kept[i].response]) {
        if (p.text === undefined) continue;
        keptBytes -= p.text.length;
        p.text = undefined;
        p.omitted = "dropped: kept bodies over 32 MiB";
      }
    }
  };
  const bytesOf = (r) => (r.request.text || "").length + (r.response.text || "").length;
  // The code that made a request: its top 3 frames, daebug's own left
  // out, as the engine wrote them, each after ` ⟵ ` (the hub maps them
  // to cells and sources, docs/log-format.md, "Initiators").
  const OURS = /daebug(_adapter|-node\.mjs|-panel\.mjs|\.js)|\(?node:/;
  function initiator(r) {
    if (r.from !== undefined) return r.from;
    const out = [];
    try {
      const stack = String(r.err.stack || "");
      // The adapter's folder only where a block's frames need naming (a
      // WebKit block's blob: script): it is a call into the .wasm.
      for (const l of (folder && stack.includes("blob:") ? folder(stack) : stack).split("\n")) {
        const t = l.trim();
        if (!/:\d+:\d+\)?$/.test(t) || OURS.test(t)) continue;
        if (out.push("⟵ " + t) === 3) break;
      }
    } catch {}
    r.err = undefined;
    return (r.from = out.join(" "));
  }
  // A body's digests on the record, and what goes to debug/archive/ when
  // the line is logged (it failed, or a job lists it) and a body was cut.
  function digest(r) {
    const logged = r.inJob || (r.cause && r.cause.job) || failed(r);
    // The code that made it, what caused it, the server's log that
    // answered it, then the bodies' archive links.
    const links = [logged && initiator(r), causeOf(r), r.served].filter(Boolean);
    r.err = undefined;
    const sides = [
      [r.request, 6, "request body"],
      [r.response, 7, "body"],
    ];
    for (const [p, i, label] of sides) {
      const d = bodyDigest(p);
      r[i] = d.text;
      if (logged && d.cut && p.text !== undefined) {
        const stem = (globalThis[Symbol.for("daebug.toolkit")] || {}).realm;
        const name = `${(stem && stem.stem) || "net"}-${tag}-${++archived}.${d.json ? "json" : "txt"}`;
        if (toArchive.length < 64) toArchive.push([name, d.json ? JSON.stringify(d.json.value, null, 2) : p.text]);
        links.push(`[${label}](archive/${name})`);
      }
    }
    r[8] = links.join(" ");
  }
  // What caused a request, after its initiator: a person's input, a timer
  // or a request being served (`· after click on li.todo > input.toggle`),
  // or a job that has ended (`· from the block at 10:00:04`). A running
  // job's own say nothing: its summary lists them.
  function causeOf(r) {
    const c = r.cause;
    if (!c) return "";
    if (c.why) return `· ${c.why}`;
    return c.job && c !== jobNow && !r.pendingAt ? `· from the block at ${c.at}` : "";
  }
  // A job's `Text network` summary: a line a request, or, past 10, every
  // failed, slow (1 s or more) or pending one and the first of each kind,
  // the rest of a kind counted (`12 more GET /api/tags → 200, 3–9 ms`).
  // One still on its way gets its outcome logged when it ends.
  function summary(list, unlisted, job) {
    if (!list.length && !unlisted) return "";
    for (const r of list) if (!r[3]) (r[8] = initiator(r)), (r.pendingAt = job ? job.at : clock());
    const out = [];
    const kinds = new Map();
    for (const r of list) {
      const ms = r[3] - r[2];
      if (list.length <= 10 || !r[3] || failed(r) || r.frame || ms >= 1000) {
        out.push(lineOf(r));
        continue;
      }
      const key = `${r[0]} ${pathOf(r[1])} → ${r[4]}`;
      const k = kinds.get(key);
      if (!k) kinds.set(key, { n: 0, min: Infinity, max: 0 }), out.push(lineOf(r));
      else (k.n += 1), (k.min = Math.min(k.min, ms)), (k.max = Math.max(k.max, ms));
    }
    for (const [key, k] of kinds) {
      if (!k.n) continue;
      const [a, b] = [Math.round(k.min), Math.round(k.max)];
      out.push(`${k.n} more ${key}, ${a === b ? a : `${a}–${b}`} ms`);
    }
    if (unlisted) out.push(`${unlisted} more requests not listed (over 1,000; daebug.network.list() has the last 500)`);
    return out.join("\n");
  }
  // A request's line: `PATCH http://…/api/todos/6 {"completed":true} →
  // 204 No Content (38 ms) ⟵ saveAction (src/todo/api.js:40)`, or
  // `→ pending` while on its way (docs/log-format.md, "Request bodies").
  function lineOf(r) {
    const url = r[6] ? `${r[1]} ${r[6]}` : r[1];
    const links = r[8] ? " " + r[8] : "";
    if (r.frame) return `${r[0]} ${r.frame} ${url}${links}`;
    if (!r[3]) return `${r[0]} ${url} → pending${links}`;
    const ms = Math.round(Math.max(0, r[3] - r[2]));
    const outcome = r.said || (r[4] === 0 ? `failed: ${r[5]}` : [r[4], r[5], r[7]].filter(Boolean).join(" "));
    return `${r[0]} ${url} → ${outcome} (${ms} ms)${links}`;
  }
  // One side of a request: its headers (redacted), type and body: `text`
  // (redacted) when it is text within 1 MiB, else `size` and `omitted`.
  function side(headers) {
    const h = headersOf(headers);
    return { headers: redacted(h), type: typeOf(h), coding: "", size: 0, text: undefined, omitted: "", pending: null };
  }
  // A request's body as given to fetch or send: strings, JSON and
  // URLSearchParams as text; FormData, Blob, buffers by size and type only.
  function given(p, body) {
    if (body == null) return;
    if (typeof body === "string" || body instanceof URLSearchParams) {
      const text = String(body);
      p.size = text.length;
      if (!p.type && body instanceof URLSearchParams) p.type = "application/x-www-form-urlencoded";
      if (text.length > 1024 * 1024) p.omitted = "over 1 MiB";
      else p.text = scrub(text);
      return;
    }
    if (typeof FormData === "function" && body instanceof FormData) {
      let n = 0;
      for (const [, v] of body) n += typeof v === "string" ? v.length : v.size || 0;
      p.size = n;
      p.type = "multipart/form-data";
      p.omitted = "form data";
    } else if (typeof Blob === "function" && body instanceof Blob) {
      p.size = body.size;
      p.type = p.type || body.type;
      p.omitted = "not text";
    } else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
      p.size = body.byteLength;
      p.omitted = "not text";
    } else {
      p.omitted = "a stream";
    }
  }
  // A response's body, read from a clone in the background (the page's
  // own response is untouched): text within 1 MiB, else size and type.
  function answer(p, res) {
    try {
      const h = {};
      res.headers.forEach((v, k) => (h[k] = v));
      p.headers = redacted(h);
      p.type = typeOf(h);
      p.coding = "";
      const length = Number(h["content-length"]);
      if (!res.body || res.type === "opaque" || /event-stream/.test(p.type)) return null;
      if (length > 1024 * 1024 || !textual(p.type)) {
        p.size = length || 0;
        p.omitted = length > 1024 * 1024 ? "over 1 MiB" : "not text";
        return null;
      }
      const reader = res.clone().body.getReader();
      const chunks = [];
      const pump = () =>
        reader.read().then(({ done, value }) => {
          // A large one decoded and redacted in a task of its own, after
          // the page's own read of its copy has had its turn.
          const decode = () => (p.text = scrub(new TextDecoder().decode(concat(chunks, p.size))));
          if (done && p.size <= 64 * 1024) return void decode();
          if (done) return new Promise((ok) => later(() => (decode(), ok())));
          p.size += value.byteLength;
          if (p.size > 1024 * 1024) {
            p.omitted = "over 1 MiB";
            chunks.length = 0;
            return reader.cancel().catch(() => {});
          }
          chunks.push(value);
          return pump();
        });
      return () => pump().catch(() => {});
    } catch {
      return null;
    }
  }
  function concat(chunks, n) {
    const out = new Uint8Array(n);
    let at = 0;
    for (const c of chunks) out.set(c, at), (at += c.byteLength);
    return out;
  }
  const fetch0 = globalThis.fetch;
  if (typeof fetch0 === "function") {
    globalThis.fetch = function (input, init) {
      // No hub (the adapter did not start): the page's own fetch, as is.
      if (stopped) return arguments.length < 2 ? fetch0.call(this, input) : fetch0.call(this, input, init);
      let r;
      try {
        const req = typeof Request === "function" && input instanceof Request ? input : null;
        const headers = (init && init.headers) || (req && req.headers);
        r = started((init && init.method) || (req && req.method), req ? req.url : input, headers);
        if (init && init.body != null) given(r.request, init.body);
        else if (req && req.body && textual(r.request.type)) {
          const p = r.request;
          p.pending = req
            .clone()
            .text()
            .then((t) => ((p.size = t.length), t.length > 1024 * 1024 ? (p.omitted = "over 1 MiB") : (p.text = scrub(t))))
            .catch(() => {});
        }
      } catch {}
      let stitched = null;
      try {
        stitched = r && stitch(r, input, init);
      } catch {}
      // With the arguments as given (no `arguments` object made).
      const p = stitched
        ? fetch0.apply(this, stitched)
        : arguments.length < 2
          ? fetch0.call(this, input)
          : fetch0.call(this, input, init);
      if (!r) return p;
      // The caller gets the chained promise: its rejection stays the
      // caller's to handle (an unhandled one is still reported as such).
      return p.then(
        (res) => {
          let read = null;
          try {
            if (r.cause) causes.hold(r.cause);
            served(r, res.headers.get("daebug-served"));
            read = answer(r.response, res);
          } catch {}
          ended(r, res.status, res.statusText, read);
          return res;
        },
        (e) => {
          if (r.cause) causes.hold(r.cause);
          // Node says why in the cause (`ECONNREFUSED`); a browser's
          // fetch errors have none.
          ended(r, 0, e && e.cause ? `${e.message}: ${e.cause.code || e.cause.message}` : e);
          throw e;
        },
      );
    };
  }
  // Page and server stitched (docs/log-format.md, "Page and server"): a
  // request to the realm's own origin carries `daebug-cause: <stem>` (its
  // log), so a Node realm serving it links back; never to another origin
  // (a header of daebug's would need a CORS preflight the request did not,
  // and could make it fail). The arguments to call `fetch` with, or null.
  function stitch(r, input, init) {
    if (!sameOrigin(r[1]) || (init && init.mode === "no-cors")) return null;
    const stem = ownStem();
    if (!stem) return null;
    const req = typeof Request === "function" && input instanceof Request ? input : null;
    // A navigation a service worker passes on (`fetch(event.request)`)
    // cannot be copied with new headers: it goes as it came.
    if (req && (req.body || req.mode === "no-cors" || req.mode === "navigate")) return null;
    const h = new Headers((init && init.headers) || (req && req.headers) || undefined);
    if (h.has("daebug-cause")) return null;
    h.set("daebug-cause", causeHeader(r, stem));
    return [input, { ...(init || {}), headers: h }];
  }
  // The server's log that answered (`daebug-served: <stem>`), linked on
  // the request's line.
  function served(r, stem) {
    if (stem && /^[a-z0-9][a-z0-9.-]{0,63}$/.test(stem)) r.served = `· server: [${stem} ${clock()}](${stem}.md)`;
  }
  // `shop-3f2a`, or `shop-3f2a job` when a job caused it (the server logs
  // those as the page does).
  const causeHeader = (r, stem) => (r.cause && r.cause.job ? stem + " job" : stem);
  const ownStem = () => {
    const kit = globalThis[Symbol.for("daebug.toolkit")];
    return (kit && kit.realm && kit.realm.stem) || "";
  };
  // `url` is absolute (see `absolute`): its origin is its start. A
  // document's or worker's origin never changes: read once.
  const origin = (() => {
    try {
      const o = globalThis.location && globalThis.location.origin;
      return o && o !== "null" ? o : "";
    } catch {
      return "";
    }
  })();
  const sameOrigin = (url) => !!origin && (url === origin || url.startsWith(origin + "/"));
  const XHR = globalThis.XMLHttpRequest;
  if (typeof XHR === "function") {
    const { open, send, abort, setRequestHeader } = XHR.prototype;
    const calls = new WeakMap();
    XHR.prototype.open = function (method, url) {
      if (stopped) return open.apply(this, arguments);
      let c = calls.get(this);
      if (!c) {
        calls.set(this, (c = {}));
        // One listener, from the first `open` (before the page's own as a
        // rule, so an answer is seen before the page acts on it): every
        // outcome, an abort or a timeout too, ends in state DONE.
        const x = this;
        x.addEventListener("readystatechange", () => {
          if (x.readyState !== 4 || !c.r) return;
          const late = x.timeout && performance.now() - c.r[2] >= x.timeout;
          const why = c.aborted ? "aborted" : late ? "timed out" : "network error";
          if (c.r.cause) causes.hold(c.r.cause);
          if (x.status) xhrAnswer(c.r.response, x);
          if (x.status && sameOrigin(c.r[1])) served(c.r, x.getResponseHeader("daebug-served"));
          ended(c.r, x.status, x.status ? x.statusText : why);
          c.r = null;
        });
      }
      c.m = method;
      c.u = url;
      c.h = {};
      return open.apply(this, arguments);
    };
    XHR.prototype.setRequestHeader = function (name, value) {
      const c = calls.get(this);
      if (c && c.h) c.h[String(name).toLowerCase()] = String(value);
      return setRequestHeader.apply(this, arguments);
    };
    XHR.prototype.send = function (body) {
      const c = stopped ? null : calls.get(this);
      if (c) {
        try {
          c.r = started(c.m, c.u, c.h);
          given(c.r.request, body);
          const stem = ownStem();
          if (stem && sameOrigin(c.r[1]) && !("daebug-cause" in c.h)) setRequestHeader.call(this, "daebug-cause", causeHeader(c.r, stem));
        } catch {}
        c.aborted = false;
      }
      return send.apply(this, arguments);
    };
    XHR.prototype.abort = function () {
      const c = calls.get(this);
      if (c) c.aborted = true;
      return abort.apply(this, arguments);
    };
  }
  // `navigator.sendBeacon` (docs/log-format.md, "Beacons and sockets"):
  // its body as given; no answer ever reaches the page, so the line says
  // whether the browser queued it.
  const nav = globalThis.navigator;
  if (nav && typeof nav.sendBeacon === "function") {
    const beacon = nav.sendBeacon;
    nav.sendBeacon = function sendBeacon(url, data) {
      if (stopped) return beacon.apply(this, arguments);
      let r;
      try {
        r = started("POST", url, null);
        given(r.request, data);
      } catch {}
      const queued = beacon.apply(this, arguments);
      try {
        if (queued) r.said = "queued as a beacon";
        ended(r, 0, "the browser did not queue the beacon");
      } catch {}
      return queued;
    };
  }
  // WebSocket and EventSource: the connection as a request (`WS ws://…/live
  // → 101 open (8 ms)`, `→ failed: could not connect`), an abnormal close as
  // a line of its own, and each frame a job's code sends (`WS ↑ ws://…
  // {"type":"sub"}`) or receives on a socket it opened, in its summary;
  // every socket's last 100 frames kept for `daebug.network.list`.
  const sockets = (name, kind) => {
    const Ctor = globalThis[name];
    if (typeof Ctor !== "function") return;
    globalThis[name] = new Proxy(Ctor, {
      construct(target, args, newTarget) {
        const s = Reflect.construct(target, args, newTarget);
        try {
          watchSocket(s, kind);
        } catch {}
        return s;
      },
    });
  };
  const hub = (() => {
    try {
      return new URL(self).host;
    } catch {
      return "";
    }
  })();
  const socketOf = new WeakMap();
  function watchSocket(s, kind) {
    if (stopped) return;
    const u = new URL(s.url);
    if (u.host === hub && u.pathname === "/ws") return;
    const r = started(kind === "WS" ? "WS" : "GET", s.url, null);
    r.kind = kind;
    r.frames = [];
    r.counts = [0, 0];
    socketOf.set(s, r);
    let open = false;
    s.addEventListener("open", () => {
      open = true;
      if (r.cause) causes.hold(r.cause);
      r.said = kind === "WS" ? "101 open" : "200 open (EventSource)";
      ended(r, 0, "");
    });
    s.addEventListener("error", () => {
      if (!open && !r[3]) ended(r, 0, kind === "WS" ? "could not connect" : "EventSource could not connect");
    });
    s.addEventListener("message", (e) => {
      if (r.cause) causes.hold(r.cause);
      frame(r, "↓", e.data);
      devServer(s, e.data);
    });
    s.addEventListener("close", (e) => {
      if (!open) return;
      const secs = ((performance.now() - r[3]) / 1000).toFixed(1);
      const clean = e.code === 1000 || e.code === 1001;
      const line = `WS ${r[1]} closed ${e.code}${e.reason ? " " + oneLine(e.reason) : ""} (open ${secs} s; ${r.counts[0]} sent, ${r.counts[1]} received)`;
      if (!clean || (r.cause && r.cause.job)) send(line);
    });
  }
  // A frame: kept on its socket's record; listed for a running job when
  // its code sent it, or it came on a socket the job opened.
  // Every frame is counted and kept as it came (text within 1 MiB, else
  // its size); its digest is made only for a line or a view of it.
  function frame(r, dir, data) {
    r.counts[dir === "↑" ? 0 : 1]++;
    const text = typeof data === "string" && data.length <= 1024 * 1024;
    const size = typeof data === "string" ? data.length : (data && (data.size || data.byteLength)) || 0;
    const kept = { dir: dir === "↑" ? "sent" : "received", at: Date.now(), data: text ? data : null, size };
    if (r.frames.push(kept) > 100) r.frames.shift();
    const c = dir === "↑" ? causes.now() || jobNow : r.cause;
    if (!listed || !c || c !== jobNow) return;
    if (listed.length >= 1000) return void unlisted++;
    const f = [r.kind, r[1], performance.now(), performance.now(), 0, "", bodyDigest(frameSide(kept)).text, "", ""];
    f.frame = dir;
    listed.push(f);
  }
  // A kept frame's body, redacted, as a request's side.
  function frameSide(k) {
    const p = side(null);
    p.size = k.size;
    if (k.data !== null) p.text = scrub(k.data);
    else if (typeof k.size === "number" && k.size > 1024 * 1024) p.omitted = "over 1 MiB";
    else (p.omitted = "not text"), (p.type = "binary");
    return p;
  }
  // The page's dev server, heard on its HMR socket (docs/log-format.md,
  // "Hot updates"): Vite's (subprotocol `vite-hmr`), Next's
  // (`/_next/webpack-hmr`) and webpack-dev-server's (`/ws`). An update is
  // the hub's `hot-updated` line (the modules, one a line), a build error
  // an `Error build` event.
  const servers = new WeakMap();
  function devServer(s, data) {
    // Which dev server, if any, decided at its first message.
    let seen = servers.get(s);
    if (!seen) {
      const path = new URL(s.url).pathname;
      const kind = s.protocol === "vite-hmr" ? "vite" : path.endsWith("/_next/webpack-hmr") ? "next" : path === "/ws" ? "webpack" : "";
      servers.set(s, (seen = { kind }));
    }
    const kind = seen.kind;
    if (!kind || typeof data !== "string" || data.length > 1024 * 1024 || data[0] !== "{") return;
    let m;
    try {
      m = JSON.parse(data);
    } catch {
      return;
    }
    const plain = (t) => String(t == null ? "" : t).replace(/\u001b\[[0-9;]*m/g, "");
    if (kind === "vite") {
      if (m.type === "update" && Array.isArray(m.updates)) {
        const paths = m.updates.map((u) => String(u.path || u.acceptedPath || "").replace(/^\//, ""));
        tell("hot", [...new Set(paths)].filter(Boolean).join("\n"));
      } else if (m.type === "error" && m.err) {
        const e = m.err;
        const at = e.loc ? `\n    at ${plain(e.loc.file || e.id || "")}:${e.loc.line}:${e.loc.column}` : e.id ? `\n    at ${plain(e.id)}` : "";
        tell("build", `${e.plugin ? `[${plain(e.plugin)}] ` : ""}${plain(e.message)}${at}${e.frame ? "\n" + plain(e.frame) : ""}`);
      }
    } else if (kind === "next") {
      const errors = Array.isArray(m.errors) ? m.errors : [];
      if (errors.length && (m.action === "built" || m.action === "sync")) tell("build", errors.map((x) => plain(x.message || x)).join("\n\n"));
      else if (m.action === "built") tell("hot", "");
    } else {
      // webpack-dev-server's, once it said so (`hot`, `liveReload` or
      // `hash` first): an app's own `/ws` is left alone.
      if (m.type === "hot" || m.type === "liveReload" || m.type === "hash") seen.wds = true;
      if (!seen.wds) return;
      if (m.type === "errors" && Array.isArray(m.data)) tell("build", m.data.map((x) => plain(x.message || x)).join("\n\n"));
      else if ((m.type === "ok" || m.type === "still-ok") && seen.ok) tell("hot", "");
      if (m.type === "ok") seen.ok = true;
    }
  }
  const tell = (m, text) => {
    if (m === "hot") for (const w of freshWaits.splice(0)) w(text);
    if (sink) sink(m, [text]);
    else keep({ m, args: [text], at: performance.now() });
  };
  // `await daebug.fresh({ timeout })`: waits for the dev server's next hot
  // update (the one a save just made), then for the modules it loads to
  // settle (no new resource for 50 ms); resolves with what was updated,
  // or says none came within the timeout (5 s).
  const freshWaits = [];
  function fresh(options) {
    const ms = options && options.timeout >= 0 ? Number(options.timeout) : 5000;
    const count = () => (typeof performance.getEntriesByType === "function" ? performance.getEntriesByType("resource").length : 0);
    return new Promise((done) => {
      const timer = setTimeout(() => {
        freshWaits.splice(freshWaits.indexOf(got) >>> 0, 1);
        done(`no hot update within ${ms} ms (the dev server announced no change)`);
      }, ms);
      const got = (paths) => {
        clearTimeout(timer);
        let n = count();
        let quiet = 0;
        const settle = () => {
          const now = count();
          quiet = now === n ? quiet + 25 : 0;
          n = now;
          if (quiet >= 50) done(paths ? `hot-updated: ${paths.split("\n").join(", ")}` : "hot-updated");
          else setTimeout(settle, 25);
        };
        setTimeout(settle, 25);
      };
      freshWaits.push(got);
    });
  }
  sockets("WebSocket", "WS");
  sockets("EventSource", "SSE");
  if (typeof WebSocket === "function") {
    const wsSend = WebSocket.prototype.send;
    WebSocket.prototype.send = function send(data) {
      try {
        const r = socketOf.get(this);
        if (r) frame(r, "↑", data);
      } catch {}
      return wsSend.apply(this, arguments);
    };
  }
  // An XHR's answer as the page has it (its text, or its parsed JSON).
  function xhrAnswer(p, x) {
    try {
      const h = {};
      for (const l of String(x.getAllResponseHeaders() || "").split(/\r?\n/)) {
        const i = l.indexOf(":");
        if (i > 0) h[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      p.headers = redacted(h);
      p.type = typeOf(h);
      const t = x.responseType;
      let text;
      if (t === "" || t === "text") text = x.responseText;
      else if (t === "json") text = x.response == null ? undefined : JSON.stringify(x.response);
      if (text === undefined) {
        const v = x.response;
        p.size = (v && (v.size || v.byteLength)) || Number(h["content-length"]) || 0;
        p.omitted = "not text";
      } else {
        p.size = text.length;
        if (p.size > 1024 * 1024) p.omitted = "over 1 MiB";
        else p.text = scrub(text);
      }
    } catch {}
  }
  // A record as `daebug.network.last` and `list` give it.
  const recordView = (r) => ({
    method: r[0],
    url: r[1],
    status: r[4],
    statusText: r[4] ? r[5] : "",
    ...(r[4] === 0 && r[3] ? { failed: r[5] } : {}),
    ms: Math.round((r[3] - r[2]) * 10) / 10,
    at: new Date(r.at).toISOString(),
    line: lineOf(r),
    ...(r.from ? { initiator: r.from.replace(/^⟵ /, "").split(" ⟵ ") } : {}),
    ...(r.cause && (r.cause.why || r.cause.job) ? { cause: r.cause.why || `from the block at ${r.cause.at}` } : {}),
    request: bodyView(r.request),
    response: bodyView(r.response),
    ...(r.frames ? { frames: r.frames.map((k) => ({ dir: k.dir, at: new Date(k.at).toISOString(), ...bodyView(frameSide(k)) })) } : {}),
  });
  const network = {
    // The last record whose URL has `urlPart` (any when none).
    last(urlPart) {
      for (let i = kept.length - 1; i >= 0; i--) {
        if (urlPart == null || kept[i][1].includes(String(urlPart))) return recordView(kept[i]);
      }
      return null;
    },
    // `{ since, url, status }`: since a Date, a time in ms or an ISO
    // string; url a part of it; status a number or a range ('4xx').
    list(query) {
      const q = typeof query === "string" ? { url: query } : query || {};
      const since = q.since == null ? -Infinity : new Date(q.since).getTime();
      return kept
        .filter((r) => r.at >= since && (q.url == null || r[1].includes(String(q.url))) && statusIs(r[4], q.status))
        .map(recordView);
    },
    clear() {
      const n = kept.length;
      kept.length = 0;
      keptBytes = 0;
      return n;
    },
  };
  // A page's or worker's global errors until the adapter listens itself.
  // Capture phase: a resource that fails to load (img, script, link) fires
  // `error` on its element, which does not bubble. Node has no global
  // events: its loader hands over the process's fatal ones (`node`).
  const kinds = typeof addEventListener === "function" ? ["error", "unhandledrejection", "securitypolicyviolation"] : [];
  const listen = (event) => keep({ event });
  for (const k of kinds) addEventListener(k, listen, true);
  const unlisten = () => {
    for (const k of kinds) removeEventListener(k, listen, true);
  };
  return {
    originals,
    // `pictures()` (pictures.js, spliced in beside this file): the image
    // code stays plain JavaScript the adapter calls, out of the .wasm.
    pictures,
    // `values()` (values.js, spliced in beside this file): how a value is
    // written into the log, plain JavaScript too. What the adapter makes
    // of it also shows the values format specifiers substitute.
    values: (fold) => ((folder = fold), (view = values(fold))),
    // `toolkit()` (toolkit.js, spliced in beside this file): the `daebug`
    // object, plain JavaScript too.
    toolkit,
    // `person()` (person.js, spliced in beside this file): panels, `ask`,
    // `pick` and streamed data on the toolkit, plain JavaScript too.
    person,
    // Node: `uncaughtException` or `unhandledRejection` and what was thrown.
    node(kind, value) {
      try {
        if (nodeSink) nodeSink(kind, value);
        else keep({ node: [kind, value] });
      } catch {}
    },
    // The adapter takes over: console calls go to `s`, failed requests to
    // `n` and Node's fatal events to `e` from now on, and what was kept is
    // handed over once.
    attach(s, n, e) {
      sink = s;
      netSink = n;
      nodeSink = e || null;
      unlisten();
      const out = { records: records.splice(0), dropped };
      dropped = 0;
      return out;
    },
    detach() {
      sink = null;
      netSink = null;
      nodeSink = null;
    },
    // A test run's lines (`daebug.test`), as a `Text test` event of the
    // running block.
    report(text) {
      if (sink) sink("test", [String(text)]);
    },
    // Node: a request this realm served, as a `Text served` line
    // (docs/log-format.md, "Requests a Node realm serves"); kept like a
    // console call until the adapter attaches.
    served(text) {
      try {
        if (sink) sink("served", [String(text)]);
        else keep({ m: "served", args: [String(text)], at: performance.now() });
      } catch {}
    },
    // Node: what serving a page block's request did (its line, what it
    // printed meanwhile), for that page's log (`{ to, text }` as JSON):
    // the hub routes it there (docs/actions.md, "Effects in every realm").
    effect(json) {
      try {
        if (sink) sink("effect", [String(json)]);
      } catch {}
    },
    // A console call's arguments as one short line (`effect`).
    brief(shown) {
      try {
        const t = shown.map((v) => (typeof v === "string" ? v : shownValue(v))).join(" ").replace(/\s*\n\s*/g, " ");
        return t.length > 200 ? t.slice(0, 199) + "…" : t;
      } catch {
        return "";
      }
    },
    // A probed function's call (`daebug.probe`, probes.js), as a `Text
    // probe` line (docs/log-format.md, "Probes").
    probe(text) {
      try {
        if (sink) sink("probe", [String(text)]);
      } catch {}
    },
    // `daebug.network.last`, `list` and `clear` (docs/log-format.md,
    // "Request bodies"): the loaders put them on the toolkit's `network`.
    network,
    // `daebug.fresh()` (docs/log-format.md, "Hot updates").
    fresh,
    // With `?stages` on the loader's URL, the adapter's marks of a job
    // (docs/wire-protocol.md, "Stage marks"): stage 0 a hub message came,
    // 1 it was this job's, … 7 its result was sent. Each job is a row of
    // `globalThis[Symbol.for("daebug.stages")]`: its id, when it came
    // (`timeOrigin + now`, ms), `Date.now()` then, and each stage's µs.
    stage(job, n) {
      const t = performance.now();
      if (n === 0) return void (stages = [0, t, Date.now()]);
      if (n === 1) stages[0] = job;
      if (stages[0] !== job) return;
      stages[n + 2] = t;
      if (n < 7) return;
      const row = [job, performance.timeOrigin + stages[1], stages[2]];
      for (let i = 3, was = stages[1]; i <= 9; was = stages[i++] ?? was) row.push(Math.round(((stages[i] ?? was) - was) * 1000));
      (globalThis[Symbol.for("daebug.stages")] ??= []).push(row);
    },
    // Resolves when the bodies being read are read, or after 300 ms: a
    // job's end waits for it, so its summary has their digests. Nothing
    // (no promise, no timer) when none is being read.
    settled() {
      if (!reading.size) return undefined;
      const all = Promise.all([...reading]);
      return Promise.race([all, new Promise((r) => setTimeout(r, 300))]).then(() => {});
    },
    // Whether a job is running now (its requests are being listed).
    inJob() {
      return listed !== null;
    },
    // Actions (docs/actions.md): the running job's cause (null between
    // jobs), the requests it caused still on their way that started at
    // `since` (performance.now()) or later, as `GET /api/x (1.2 s)`, and
    // the cause trusted input carries while an action sends it (`on`).
    job: () => jobNow,
    pending(since) {
      const out = [];
      if (!listed) return out;
      const t = performance.now();
      for (const r of listed) {
        if (!r[3] && r[2] >= since && !r.frame) out.push(`${r[0]} ${pathOf(r[1])} (${Math.round(t - r[2])} ms)`);
      }
      return out;
    },
    acting(on) {
      acting = on ? jobNow : null;
    },
    // The adapter will not come: keep nothing (no objects held for the
    // realm's life), listen to nothing; the wrappers pass through.
    stop() {
      this.detach();
      stopped = true;
      records.length = 0;
      unlisten();
    },
    // A job starts (`true`: list the requests it causes from now on) or
    // ends: the `Text network` summary of those listed so far, those still
    // on their way too ("" when none). What its code set up keeps its
    // cause after it ends (docs/log-format.md, "Causes").
    requests(on, id) {
      const text = listed ? summary(listed, unlisted, jobNow) : "";
      listed = on ? [] : null;
      unlisted = 0;
      // `at` (the wall clock's time of day) is read only when a line
      // names the block: a job's start skips the local-time lookup.
      const t = Date.now();
      jobNow = on ? { job: ++jobs, get at() { return clock(t); }, late: 0, cell: id ? `daebug-cell-${id}:` : "" } : null;
      if (on) causes.hold(jobNow);
      return text;
    },
    // The [name, text] bodies the lines sent so far link, once.
    bodies() {
      return toArchive.splice(0);
    },
    // The cause machinery, for the Node loader's served requests; `say`
    // hands held console calls to the adapter.
    causes,
    say(m, shown, trace) {
      if (sink) sink(m, shown, trace);
    },
  };
}

// A source map's VLQ segment as its numbers (components.js and debugger.js
// map places through source maps).
const VLQ_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
function vlq(segment) {
  const out = [];
  let value = 0;
  let shift = 0;
  for (const ch of segment) {
    const d = VLQ_DIGITS.indexOf(ch);
    value += (d & 31) << shift;
    if (d & 32) shift += 5;
    else out.push(value & 1 ? -(value >>> 1) : value >>> 1), (value = 0), (shift = 0);
  }
  return out;
}

// A request's URL made absolute against the realm's own (Node's are).
function absolute(url) {
  const s = String(url);
  // Already absolute (a scheme, and for http(s) a lowercase one as the
  // browser writes it): as it is, without parsing it again.
  if (/^(https?:\/\/[^/?#A-Z]*[/?#]|data:|blob:)/.test(s)) return s;
  try {
    return new URL(s, globalThis.location ? globalThis.location.href : undefined).href;
  } catch {
    return s;
  }
}

// A URL's path, with its origin when that is not the realm's own; no
// query (`/api/tags`).
function pathOf(url) {
  try {
    const u = new URL(url);
    return (globalThis.location && u.origin === globalThis.location.origin ? "" : u.origin) + u.pathname;
  } catch {
    return String(url).split("?")[0];
  }
}

// The time of day as the log's headers write it (`10:00:04`).
function clock(t) {
  return (t === undefined ? new Date() : new Date(t)).toTimeString().slice(0, 8);
}

// What both loaders' request records share (docs/log-format.md, "Request
// bodies" and "Requests a Node realm serves"): headers with credentials
// redacted, values that look like tokens masked, a body's digest.
function redacted(headers) {
  const out = {};
  for (const [k, v] of Object.entries(headers || {})) {
    const secret = /^(authorization|cookie|set-cookie|proxy-authorization)$/i.test(k);
    out[k] = !secret ? scrub(String(v)) : Array.isArray(v) ? v.map(hide) : hide(v);
  }
  return out;
}

// A header's credential: `Bearer ****…a91f` (the scheme and the last 4
// characters).
function hide(value) {
  const s = String(value);
  const m = /^([A-Za-z][\w-]*\s+)(\S.*)$/.exec(s);
  const [scheme, secret] = m && !m[1].includes("=") ? [m[1], m[2]] : ["", s];
  return scheme + masked(secret);
}

function masked(secret) {
  return secret.length >= 12 ? `****…${secret.slice(-4)}` : "****";
}

// Values in a text that look like tokens, masked: `Bearer …`, JWTs, and
// the values of JSON fields and query or form parameters named like
// credentials (`token`, `secret`, `password`, `api_key`, `session`).
function scrub(text) {
  const s = String(text);
  if (!/bearer|basic|eyJ|token|secret|passw|api[_-]?key|session|authoriz|cookie|credential/i.test(s)) return s;
  return s
    .replace(/\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/=-]{8,})/gi, (m, a, sp, v) => a + sp + masked(v))
    .replace(/\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*/g, masked)
    .replace(
      /("[\w-]*(?:token|secret|passw(?:or)?d|api[_-]?key|authorization|cookie|session|credential)[\w-]*"\s*:\s*")((?:[^"\\]|\\.)*)"/gi,
      (m, a, v) => (v.startsWith("****") ? m : a + masked(v) + '"'),
    )
    .replace(
      /(^|[?&;\s])([\w-]*(?:token|secret|passw(?:or)?d|api[_-]?key|session|sid)[\w-]*=)([^&;\s"]+)/gi,
      (m, a, k, v) => (v.startsWith("****") ? m : a + k + masked(v)),
    );
}

// Headers given as an object, a Headers or a list of pairs, as an object
// with lowercase names.
function headersOf(h) {
  const out = {};
  try {
    if (!h) return out;
    const pairs = typeof h.forEach === "function" && !Array.isArray(h) ? [] : Array.isArray(h) ? h : Object.entries(h);
    if (!pairs.length && typeof h.forEach === "function" && !Array.isArray(h)) h.forEach((v, k) => pairs.push([k, v]));
    for (const [k, v] of pairs) out[String(k).toLowerCase()] = v;
  } catch {}
  return out;
}

function typeOf(headers) {
  return String((headers && headers["content-type"]) || "").split(";")[0].trim().toLowerCase();
}
function codingOf(headers) {
  const c = String((headers && headers["content-encoding"]) || "").trim().toLowerCase();
  return c === "identity" ? "" : c;
}
function textual(type) {
  return !type || /json|^text\/|xml|javascript|x-www-form-urlencoded|graphql/.test(type);
}
function oneLine(s) {
  return String(s).replace(/[\u0000-\u001f\u007f]+/g, " ");
}
function sizeOf(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

// A JSON value's shape: `[5 × {id, title, completed}]`.
function shape(v, depth) {
  if (Array.isArray(v)) return v.length ? `[${v.length} × ${shape(v[0], depth + 1)}]` : "[]";
  if (v && typeof v === "object") {
    const keys = Object.keys(v);
    if (depth > 1) return keys.length ? "{…}" : "{}";
    const shownKeys = keys.slice(0, 12).map((k) => {
      const x = v[k];
      return Array.isArray(x) && depth === 0 ? `${k}: ${shape(x, depth + 1)}` : k;
    });
    return `{${shownKeys.join(", ")}${keys.length > 12 ? `, … ${keys.length - 12} more` : ""}}`;
  }
  return v === null ? "null" : typeof v;
}

// A body's text parsed, when it is JSON.
function jsonOf(p) {
  if (p.text === undefined || !(/json/.test(p.type) || (!p.type && /^\s*[[{]/.test(p.text)))) return undefined;
  try {
    return { value: JSON.parse(p.text) };
  } catch {
    return undefined;
  }
}

// A body's digest on a line: itself when 200 characters or fewer, else
// its size and type (and, for JSON, its shape first); `cut` when the
// text was not shown whole.
function bodyDigest(p) {
  if (!p.size && !p.text && !p.omitted) return { text: "" };
  const kind = [p.size ? sizeOf(p.size) : "", p.type, p.coding].filter(Boolean).join(" ") || p.omitted;
  if (p.text === undefined) return { text: `(${kind})` };
  const j = jsonOf(p);
  const text = j ? JSON.stringify(j.value) : p.text;
  if (text.length <= 200) return { text: oneLine(text).trim() };
  return { text: j ? `${shape(j.value, 0)} (${kind})` : `(${kind})`, cut: true, json: j };
}

// A body as `daebug.network.last`, `list` and `served` give it: JSON
// parsed, text as it is, else why it was not kept.
function bodyView(p) {
  const out = { headers: p.headers, type: p.type, size: p.size };
  if (p.coding) out.encoding = p.coding;
  const j = jsonOf(p);
  if (j) out.body = j.value;
  else if (p.text !== undefined) out.body = p.text;
  else if (p.omitted) out.omitted = p.omitted;
  return out;
}

function statusIs(status, want) {
  if (want == null) return true;
  if (typeof want === "number") return status === want;
  const s = String(want).trim().toLowerCase();
  let m = /^([1-5])xx$/.exec(s);
  if (m) return Math.floor(status / 100) === Number(m[1]);
  m = /^(\d{3})\s*-\s*(\d{3})$/.exec(s);
  if (m) return status >= Number(m[1]) && status <= Number(m[2]);
  return String(status) === s;
}
