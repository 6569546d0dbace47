// daebug.js: connects this page or worker to the daebug hub that serves
// this file. Put it first in <head>, as a classic script, so it captures
// from the page's first line:
//   <script src="http://127.0.0.1:8302/daebug.js"></script>
//   import "http://127.0.0.1:8302/daebug.js";   // in a module worker
// It hooks the console, requests and global errors at once and keeps what
// they see until the adapter (Rust compiled to WebAssembly, loaded from next
// to this file) takes over; all formatting and sending lives in the adapter.
(() => {
  const started = Symbol.for("daebug.adapter");
  if (globalThis[started]) return;
  // The hub writes this file's own URL here (query included): a classic
  // script has no import.meta.
  const self = "__DAEBUG_SELF__";
  const early = (globalThis[Symbol.for("daebug.early")] = hooks());
  globalThis[started] = import(new URL("./daebug_adapter.js", self))
    .then(async (glue) => {
      await glue.default({ module_or_path: new URL("./daebug_adapter_bg.wasm", self) });
      glue.start(self);
    })
    .catch((e) => {
      early.detach();
      early.originals.warn.call(console, "daebug: the adapter did not start:", e);
    });

  // Console, fetch and XMLHttpRequest wrappers that stay (a reference a
  // page took early keeps working), and listeners that buffer until the
  // adapter attaches.
  function hooks() {
    const records = [];
    const originals = {};
    let sink = null;
    let netSink = null;
    let dropped = 0;
    const keep = (r) => (records.length < 1000 ? records.push(r) : dropped++);
    const methods = ["log", "info", "warn", "error", "debug", "trace", "assert", "table", "dir",
      "count", "countReset", "time", "timeLog", "timeEnd", "group", "groupCollapsed", "groupEnd"];
    for (const m of methods) {
      const orig = console[m];
      if (typeof orig !== "function") continue;
      originals[m] = orig;
      console[m] = function (...args) {
        try {
          const trace = m === "trace" ? new Error() : undefined;
          if (sink) sink(m, args, trace);
          else keep({ m, args, trace, at: performance.now() });
        } catch {}
        return orig.apply(this, args);
      };
    }
    // Requests: an id, the method and URL when one goes out, the status
    // (0: none, with the reason) when it ends, and the times.
    let ids = 0;
    const net = (...r) => {
      try {
        if (netSink) netSink(...r);
        else keep({ net: r });
      } catch {}
    };
    const fetch0 = globalThis.fetch;
    if (typeof fetch0 === "function") {
      globalThis.fetch = function (input, init) {
        const id = ++ids;
        try {
          const req = input instanceof Request ? input : null;
          net("start", id, (init && init.method) || (req ? req.method : "GET"), req ? req.url : String(input), performance.now());
        } catch {}
        const p = fetch0.apply(this, arguments);
        p.then(
          (r) => net("end", id, r.status, r.statusText, performance.now()),
          (e) => net("end", id, 0, String(e), performance.now()),
        );
        return p;
      };
    }
    const XHR = globalThis.XMLHttpRequest;
    if (typeof XHR === "function") {
      const { open, send } = XHR.prototype;
      const calls = new WeakMap();
      // Listeners go on at the first `open`, before the page's own as a
      // rule, so an answer is seen before the page acts on it: a status
      // when the request is done, a failure (status 0) once its reason
      // (`abort`, `timeout`, else an error) is known.
      const watch = (x, c) => {
        const end = (text) => c.id && (net("end", c.id, x.status, text, performance.now()), (c.id = 0));
        x.addEventListener("readystatechange", () => x.readyState === 4 && x.status && end(x.statusText));
        x.addEventListener("abort", () => end("aborted"));
        x.addEventListener("timeout", () => end("timed out"));
        x.addEventListener("loadend", () => end("network error"));
      };
      XHR.prototype.open = function (method, url) {
        let c = calls.get(this);
        if (!c) calls.set(this, (c = { id: 0 })), watch(this, c);
        c.method = method;
        c.url = url;
        return open.apply(this, arguments);
      };
      XHR.prototype.send = function () {
        const c = calls.get(this);
        if (c) net("start", (c.id = ++ids), String(c.method), String(c.url), performance.now());
        return send.apply(this, arguments);
      };
    }
    // Capture phase: a resource that fails to load (img, script, link)
    // fires `error` on its element, which does not bubble.
    const kinds = ["error", "unhandledrejection", "securitypolicyviolation"];
    const listen = (event) => keep({ event });
    for (const k of kinds) addEventListener(k, listen, true);
    return {
      originals,
      // The adapter takes over: calls go to `s` and requests to `n` from
      // now on, and what was kept is handed over once.
      attach(s, n) {
        sink = s;
        netSink = n;
        for (const k of kinds) removeEventListener(k, listen, true);
        const out = { records: records.splice(0), dropped };
        dropped = 0;
        return out;
      },
      detach() {
        sink = null;
        netSink = null;
      },
    };
  }
})();
