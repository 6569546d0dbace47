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
function hooks() {
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
        if (sink) sink(m, shown, trace);
        else keep({ m, args: shown, trace, at: performance.now() });
      } catch {}
      return orig.apply(this, args);
    };
  }
  // What shows values (`values(fold)`, values.js): the adapter's once it
  // made one, else one made here (a call before the adapter starts).
  let view = null;
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
  // Requests, each as [method, url, start, end, status, text] (end 0: on
  // its way; status 0: no answer, and the text says why), kept here in
  // plain JavaScript: only one that failed or answered 400 or more
  // reaches the adapter at once, and those started while a job runs are
  // listed for it (see `requests`).
  let listed = null;
  let unlisted = 0;
  const started = (method, url) => {
    const r = [String(method || "GET"), String(url), performance.now(), 0, 0, ""];
    if (listed && listed.length < 1000) listed.push(r);
    else if (listed) unlisted++;
    return r;
  };
  const ended = (r, status, text) => {
    try {
      if (r[3]) return;
      r[3] = performance.now();
      r[4] = status;
      r[5] = String(text);
      if (status === 0 || status >= 400) {
        if (netSink) netSink(r);
        else keep({ net: r });
      }
    } catch {}
  };
  const fetch0 = globalThis.fetch;
  if (typeof fetch0 === "function") {
    globalThis.fetch = function (input, init) {
      let r;
      try {
        const req = input instanceof Request ? input : null;
        r = started((init && init.method) || (req && req.method), req ? req.url : input);
      } catch {}
      const p = fetch0.apply(this, arguments);
      if (!r) return p;
      // The caller gets the chained promise: its rejection stays the
      // caller's to handle (an unhandled one is still reported as such).
      return p.then(
        (res) => (ended(r, res.status, res.statusText), res),
        (e) => {
          // Node says why in the cause (`ECONNREFUSED`); a browser's
          // fetch errors have none.
          ended(r, 0, e && e.cause ? `${e.message}: ${e.cause.code || e.cause.message}` : e);
          throw e;
        },
      );
    };
  }
  const XHR = globalThis.XMLHttpRequest;
  if (typeof XHR === "function") {
    const { open, send, abort } = XHR.prototype;
    const calls = new WeakMap();
    XHR.prototype.open = function (method, url) {
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
          ended(c.r, x.status, x.status ? x.statusText : why);
          c.r = null;
        });
      }
      c.m = method;
      c.u = url;
      return open.apply(this, arguments);
    };
    XHR.prototype.send = function () {
      const c = calls.get(this);
      if (c) (c.r = started(c.m, c.u)), (c.aborted = false);
      return send.apply(this, arguments);
    };
    XHR.prototype.abort = function () {
      const c = calls.get(this);
      if (c) c.aborted = true;
      return abort.apply(this, arguments);
    };
  }
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
    values: (fold) => (view = values(fold)),
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
    // Whether a job is running now (its requests are being listed).
    inJob() {
      return listed !== null;
    },
    // The adapter will not come: keep nothing (no objects held for the
    // realm's life), listen to nothing; the wrappers pass through.
    stop() {
      this.detach();
      stopped = true;
      records.length = 0;
      unlisten();
    },
    // A job starts (`true`: list its requests from now on) or ends: the
    // requests listed so far, those still on their way too.
    requests(on) {
      const out = { list: listed || [], unlisted };
      listed = on ? [] : null;
      unlisted = 0;
      return out;
    },
  };
}
