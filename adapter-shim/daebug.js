// daebug.js: connects this page or worker to the daebug hub that serves
// this file. Put it first in <head>, as a classic script, so it captures
// from the page's first line:
//   <script src="http://127.0.0.1:8302/daebug.js"></script>
//   import "http://127.0.0.1:8302/daebug.js";   // in a module worker
// It hooks the console and global errors at once and keeps what they see
// until the adapter (Rust compiled to WebAssembly, loaded from next to this
// file) takes over; all formatting and sending lives in the adapter.
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

  // Console wrappers that stay (a reference a page took early keeps
  // working) and error listeners that buffer until the adapter attaches.
  function hooks() {
    const records = [];
    const originals = {};
    let sink = null;
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
    const kinds = ["error", "unhandledrejection"];
    const listen = (event) => keep({ event });
    for (const k of kinds) addEventListener(k, listen, true);
    return {
      originals,
      // The adapter takes over: calls go to `s` from now on, and what was
      // kept is handed over once.
      attach(s) {
        sink = s;
        for (const k of kinds) removeEventListener(k, listen, true);
        const out = { records: records.splice(0), dropped };
        dropped = 0;
        return out;
      },
      detach() {
        sink = null;
      },
    };
  }
})();
