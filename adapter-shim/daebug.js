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
  passTabToWorkers();
  globalThis[started] = import(new URL("./daebug_adapter.js", self))
    .then(async (glue) => {
      await glue.default({ module_or_path: new URL("./daebug_adapter_bg.wasm", self) });
      glue.start(self);
      addTests();
    })
    .catch((e) => {
      early.stop();
      early.originals.warn.call(console, "daebug: the adapter did not start:", e);
    });

  // `daebug.test(spec, options)` (DESIGN §15): the runner is a module the
  // hub serves beside this file, imported on first use (the adapter's
  // WebAssembly stays small); results reach the log as `Text test` lines.
  function addTests() {
    const kit = globalThis[Symbol.for("daebug.toolkit")];
    if (!kit || kit.test) return;
    kit.test = (spec, options) =>
      import(new URL("./daebug-test.mjs", self)).then((m) => m.runTests(spec, options, early.report, self));
  }

  // A worker keeps its log across its page's reloads: the hub derives its
  // id from the page's tab id and the worker's name or script. A worker
  // cannot read the page's sessionStorage, so the id goes with the worker
  // URL's fragment (`w.js#daebug-tab=3f2a`: the same script loads, and the
  // adapter reports the URL without it). `Worker` stays the same function
  // to page code (a Proxy: prototype, name and instanceof unchanged).
  function passTabToWorkers() {
    const W = globalThis.Worker;
    if (typeof W !== "function") return;
    globalThis.Worker = new Proxy(W, {
      construct(target, args, newTarget) {
        try {
          const id = tabId();
          const u = args[0];
          if (id && (typeof u === "string" || u instanceof URL)) {
            const base = typeof document === "undefined" ? location.href : document.baseURI;
            const url = new URL(u, base);
            if (!url.hash && url.protocol !== "data:") {
              url.hash = "daebug-tab=" + id;
              args = [url.href, ...Array.prototype.slice.call(args, 1)];
            }
          }
        } catch {}
        return Reflect.construct(target, args, newTarget);
      },
    });
  }

  // The tab id: a page's from sessionStorage (made here on a tab's first
  // load, so the workers it starts at once have it too; the hub replaces
  // one a live tab already uses), a worker's from its own URL.
  function tabId() {
    const hex = /^[0-9a-f]{4}$/;
    if (typeof document === "undefined") {
      const m = /#daebug-tab=([0-9a-f]{4})$/.exec(location.href);
      return m ? m[1] : "";
    }
    let id = sessionStorage.getItem("daebug.tab");
    if (!hex.test(id || "")) {
      id = ((Math.random() * 0x10000) | 0).toString(16).padStart(4, "0");
      sessionStorage.setItem("daebug.tab", id);
    }
    return id;
  }

  // Console, fetch and XMLHttpRequest wrappers that stay (a reference a
  // page took early keeps working), and listeners that buffer until the
  // adapter attaches.
  function hooks() {
    const records = [];
    const originals = {};
    let sink = null;
    let netSink = null;
    let dropped = 0;
    let stopped = false;
    const keep = (r) => (stopped ? 0 : records.length < 1000 ? records.push(r) : dropped++);
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
    // Requests, each as [method, url, start, end, status, text] (end 0:
    // on its way; status 0: no answer, and the text says why), kept here
    // in plain JavaScript: only one that failed or answered 400 or more
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
        // The page gets the chained promise: its rejection stays the page's
        // to handle (an unhandled one is still reported as such).
        return p.then(
          (res) => (ended(r, res.status, res.statusText), res),
          (e) => {
            ended(r, 0, e);
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
          // One listener, from the first `open` (before the page's own as
          // a rule, so an answer is seen before the page acts on it): every
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
    // Capture phase: a resource that fails to load (img, script, link)
    // fires `error` on its element, which does not bubble.
    const kinds = ["error", "unhandledrejection", "securitypolicyviolation"];
    const listen = (event) => keep({ event });
    for (const k of kinds) addEventListener(k, listen, true);
    return {
      originals,
      // The adapter takes over: calls go to `s` and failed requests to `n`
      // from now on, and what was kept is handed over once.
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
      // A test run's lines (`daebug.test`), as a `Text test` event of the
      // running block.
      report(text) {
        if (sink) sink("test", [String(text)]);
      },
      // The adapter will not come: keep nothing (no page objects held for
      // the page's life), listen to nothing; the wrappers pass through.
      stop() {
        this.detach();
        stopped = true;
        records.length = 0;
        for (const k of kinds) removeEventListener(k, listen, true);
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
})();
