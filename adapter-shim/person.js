// person.js: the person in the loop (docs/log-format.md, "Panels"), in the realm's own
// JavaScript: `StreamedData`, `mount`, `ask` and `pick` on the toolkit.
// The hub splices it into both loaders after hooks.js (at the same
// marker), `hooks()` hands `person` to the adapter (`Hooks::person` in
// adapter-wasm/src/bind.rs), and the adapter calls it once
// (adapter-wasm/src/person.rs) with the toolkit, a function sending JSON
// text to the hub, the adapter's URL and the realm's kind. Only what must
// answer at once lives here: `StreamedData` (a data fence sets a target in
// the block's own task; reads go straight through to the value, as
// `stats.count`) and the handle `mount` returns at once (`p.result`,
// `p.close()`). `mount`, `ask` and `pick` then import `daebug-panel.mjs`
// from the hub (a Node process fetches it and imports it as a `data:`
// URL). It returns the hook for the hub's messages.
function person(t, send, url, kind) {
  const S = Symbol.for;
  const targets = new Map();
  const q = JSON.stringify;
  class StreamedData {
    constructor(id) {
      id = String(id);
      const had = targets.get(id);
      if (had) return had.proxy;
      const t = { value: undefined, watchers: new Set() };
      const of = () => (t.value !== null && typeof t.value === "object" ? t.value : {});
      t.proxy = new Proxy(Object.create(null), {
        get: (_, k) =>
          k === S("daebug.value") ? t.value : k === S("daebug.watch") ? t.watchers : k === Symbol.toPrimitive ? () => t.value : of()[k],
        has: (_, k) => k in of(),
        ownKeys: () => Reflect.ownKeys(of()),
        getOwnPropertyDescriptor: (_, k) => {
          const d = Reflect.getOwnPropertyDescriptor(of(), k);
          return d && { value: d.value, enumerable: d.enumerable, writable: true, configurable: true };
        },
        set: () => false,
      });
      t.id = id;
      targets.set(id, t);
      return t.proxy;
    }
  }
  StreamedData[S("daebug.data")] = (id, value) => {
    const t = targets.get(id);
    if (!t) return "unknown_target: " + q(id);
    t.value = value;
    for (const w of t.watchers) try { w(value); } catch {}
    return "agent.data " + q(id) + " set";
  };
  t.StreamedData = StreamedData;

  const src = new URL("daebug-panel.mjs", url).href;
  let lib;
  const load = () =>
    (lib ??= (kind === "node"
      ? fetch(src).then((r) => r.text()).then((s) => import("data:text/javascript," + encodeURIComponent(s)))
      : import(src)
    ).then((m) => m.start({ toolkit: t, send, kind })));

  t.mount = (options) => {
    let settle;
    const result = new Promise((ok, no) => (settle = { ok, no }));
    result.catch(() => {});
    const p = { result, close: () => p.$?.close(), [S("daebug.settle")]: settle };
    load().then((m) => m.mount(options || {}, p), settle.no);
    return p;
  };
  t.ask = (text, options) => load().then((m) => m.ask(text, options || {}));
  t.pick = (prompt) => load().then((m) => m.pick(prompt));
  return (json) => load().then((m) => m.hub(json));
}
