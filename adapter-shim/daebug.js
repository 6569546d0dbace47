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
  // The hub writes this file's own URL here (query included): a classic
  // script has no import.meta.
  const self = "__DAEBUG_SELF__";
  // Loaded once. A loader the browser bridge put in first (docs/zero-edits.md,
  // "Attach to a browser", marked by `daebug.attach`) takes the URL of the
  // page's own tag, or a worker's own line, when it has options, as long
  // as it has not started: `?name=` names the realm as without the bridge.
  const named = Symbol.for("daebug.named");
  const mark = Symbol.for("daebug.attach");
  const attached = globalThis[mark] === true;
  delete globalThis[mark];
  if (globalThis[started]) {
    try {
      if (!attached && self.includes("?")) globalThis[named]?.(self);
    } catch {}
    return;
  }
  let given = self;
  globalThis[named] = (url) => {
    given = url;
  };
  const early = (globalThis[Symbol.for("daebug.early")] = hooks(self));
  // Workers and their tab ids (`passTabToWorkers`): the channel's name,
  // the workers started here whose loaders have not asked yet (for 30 s at
  // most), the channel answering them, and a worker's own tab id.
  const TABS = "daebug.tabs";
  const EXPECT_MS = 30000;
  const expected = [];
  let answering = null;
  let learnt = "";
  // A service worker (`/daebug-sw.js`, server/src/http/service_worker.rs)
  // serves every tab of its scope and may not `import()`: the hub hands
  // it this loader with the adapter's glue inside (the marker below).
  const serviceWorker = typeof ServiceWorkerGlobalScope === "function" && globalThis instanceof ServiceWorkerGlobalScope;
  passTabToWorkers();
  const tab = serviceWorker ? Promise.resolve(scopeId()) : askTab();
  const listening = serviceWorker ? listenNow() : (run) => run();
  globalThis[started] = /* daebug:glue */ import(new URL("./daebug_adapter.js", self))
    .then(async (glue) => {
      await glue.default({ module_or_path: new URL("./daebug_adapter_bg.wasm", self) });
      const id = await tab;
      // Put in by the bridge ahead of the page: the page's own tag, if it
      // has one, has run once the document is parsed.
      if (attached && typeof document !== "undefined" && document.readyState === "loading") {
        await new Promise((done) => document.addEventListener("DOMContentLoaded", done, { once: true }));
      }
      globalThis[named] = () => {};
      listening(() => glue.start(id ? given + "#daebug-tab=" + id : given));
      addTests();
      addActions();
      addNetwork();
      addWatching();
    })
    .catch((e) => {
      early.stop();
      // A service worker the browser started from its cache while the
      // hub is down: its console stays as without daebug.
      if (!serviceWorker) early.originals.warn.call(console, "daebug: the adapter did not start:", e);
    });

  // A service worker takes a global event's listener only while its
  // script first runs (Chrome warns of one added later): the adapter's
  // `error`, `unhandledrejection` and `securitypolicyviolation` listeners,
  // added once its WebAssembly is loaded, are called by ones added now;
  // `pagehide` and `pageshow` (a page's, never a worker's) are not added.
  // Returns: run `start` with those kinds held here.
  function listenNow() {
    const pageOnly = ["pagehide", "pageshow"];
    const held = new Map(["error", "unhandledrejection", "securitypolicyviolation"].map((k) => [k, []]));
    for (const [k, fs] of held) {
      addEventListener(k, function (e) {
        for (const f of fs) {
          try {
            typeof f === "function" ? f.call(this, e) : f.handleEvent(e);
          } catch {}
        }
      }, true);
    }
    return (start) => {
      const own = Object.getOwnPropertyDescriptor(globalThis, "addEventListener");
      const add = globalThis.addEventListener;
      globalThis.addEventListener = function (type, f, options) {
        if (this === globalThis && held.has(type) && f) return void held.get(type).push(f);
        if (this === globalThis && pageOnly.includes(type)) return;
        return add.call(this, type, f, options);
      };
      try {
        return start();
      } finally {
        if (own) Object.defineProperty(globalThis, "addEventListener", own);
        else delete globalThis.addEventListener;
      }
    };
  }

  // A service worker's identity is its scope, not a tab (it serves many,
  // and none may be open when the browser starts it): 4 hex digits of an
  // FNV-1a hash of the scope stand where a worker's tab id goes, so the
  // hub finds the same log each time the browser starts it again after
  // stopping it when idle (docs/zero-edits.md, "Service workers").
  function scopeId() {
    let h = 0x811c9dc5;
    const scope = String((globalThis.registration && globalThis.registration.scope) || location.href);
    for (let i = 0; i < scope.length; i++) h = Math.imul(h ^ scope.charCodeAt(i), 0x01000193) >>> 0;
    return ((h ^ (h >>> 16)) & 0xffff).toString(16).padStart(4, "0");
  }

  // `daebug.test(spec, options)` (docs/log-format.md, "Tests in the realm"): the runner is a module the
  // hub serves beside this file, imported on first use (the adapter's
  // WebAssembly stays small); results reach the log as `Text test` lines.
  function addTests() {
    const kit = globalThis[Symbol.for("daebug.toolkit")];
    if (!kit || kit.test) return;
    kit.test = (spec, options) =>
      import(new URL("./daebug-test.mjs", self)).then((m) => m.runTests(spec, options, early.report, self));
  }

  // Actions (docs/actions.md): `daebug.click`, `fill`, `press`, `hover`,
  // `check`, `uncheck`, `select`, `drag`, `upload` and `settle`, a module
  // the hub serves beside this file, imported on a block's first action. A
  // worker has no document: its calls say so.
  function addActions() {
    const kit = globalThis[Symbol.for("daebug.toolkit")];
    if (!kit || kit.click) return;
    const names = ["click", "fill", "press", "hover", "check", "uncheck", "select", "drag", "upload", "settle"];
    if (typeof document === "undefined") {
      for (const name of names) {
        kit[name] = () => Promise.reject(new Error(`daebug.${name}() acts in a page or an iframe; a worker has no document (act in its page's log)`));
      }
      return;
    }
    const env = { early, input: kit[Symbol.for("daebug.input")], warn: kit[Symbol.for("daebug.warn")] };
    let loaded = null;
    const load = () => (loaded ??= import(new URL("./daebug-act.mjs", self)).then((m) => m.actions(kit, env)));
    for (const name of names) kit[name] = (...args) => load().then((a) => a[name](...args));
  }

  // `daebug.network.last(urlPart)`, `list({ since, url, status })` and
  // `clear()` (docs/log-format.md, "Request bodies"): the requests this
  // page or worker made, with their bodies.
  function addNetwork() {
    const kit = globalThis[Symbol.for("daebug.toolkit")];
    if (!kit) return;
    if (!kit.network || typeof kit.network !== "object") kit.network = {};
    for (const k of ["last", "list", "clear"]) kit.network[k] ??= early.network[k];
    kit.fresh ??= early.fresh;
  }

  // Watching without editing (docs/log-format.md, "Components", "Probes",
  // "Logpoints"): each part adds its own to the toolkit; one that fails
  // leaves the others.
  function addWatching() {
    const kit = globalThis[Symbol.for("daebug.toolkit")];
    if (!kit) return;
    for (const add of [components, probes, debugging]) {
      try {
        add(kit, early);
      } catch {}
    }
  }

  // Every worker this page (or worker) starts is a realm without a line
  // of daebug in it (README, "Connect … a worker"): a script the hub
  // serves (or proxies) to a worker comes with the loader after its last
  // line (server/src/http/inject.rs); a `blob:` script made here gets the
  // same line here (`blobsWithAdapter`). Its own URL stays its own.
  //
  // A worker keeps its log across its page's reloads: the hub derives its
  // id from the page's tab id and the worker's name or script. A worker
  // cannot read the page's sessionStorage, and its URL is not ours to
  // change (a fragment would be in its `location` and `import.meta.url`):
  // its loader asks for the tab id over a BroadcastChannel, and the page
  // that started a worker of that URL and name answers (`expectWorker`).
  // `Worker` and `SharedWorker` stay the same functions to page code (a
  // Proxy: prototype, name and instanceof unchanged).
  function passTabToWorkers() {
    const line = "\n;import(" + JSON.stringify(self) + ').catch(() => {}); // daebug (README, "Connect … a worker")\n';
    const blobs = blobsWithAdapter(line);
    for (const name of ["Worker", "SharedWorker"]) {
      const W = globalThis[name];
      if (typeof W !== "function") continue;
      globalThis[name] = new Proxy(W, {
        construct(target, args, newTarget) {
          try {
            const u = args[0];
            if (typeof u === "string" || u instanceof URL) {
              const base = typeof document === "undefined" ? location.href : document.baseURI;
              const given = new URL(u, base);
              const url = given.protocol === "blob:" ? blobs(given.href) : given.href;
              if (url !== given.href) args = [url, ...Array.prototype.slice.call(args, 1)];
              const o = args[1];
              const named = typeof o === "string" ? o : o != null && o.name != null ? String(o.name) : "";
              if (given.protocol !== "data:") expectWorker(url, named);
            }
          } catch {}
          return Reflect.construct(target, args, newTarget);
        },
      });
    }
  }

  // A worker started here whose loader has not asked for the tab id yet
  // (`expected`); the channel is open only while there are some.
  function expectWorker(href, name) {
    const tab = tabId();
    if (!tab || typeof BroadcastChannel !== "function") return;
    expected.push({ href, name, tab, until: Date.now() + EXPECT_MS });
    setTimeout(forget, EXPECT_MS + 10);
    if (answering) return;
    answering = new BroadcastChannel(TABS);
    answering.onmessage = (e) => {
      const m = e.data;
      if (!m || typeof m.ask !== "string") return;
      forget();
      // Its URL, else (a script that redirected) its name.
      let i = expected.findIndex((w) => w.href === m.href && w.name === m.name);
      if (i < 0 && m.name) i = expected.findIndex((w) => w.name === m.name);
      if (i < 0) return;
      const [w] = expected.splice(i, 1);
      answering.postMessage({ answer: m.ask, tab: w.tab });
      forget();
    };
  }
  function forget() {
    const now = Date.now();
    for (let i = expected.length - 1; i >= 0; i--) if (expected[i].until <= now) expected.splice(i, 1);
    if (!expected.length && answering) {
      answering.close();
      answering = null;
    }
  }

  // A worker's tab id: asked at once of whoever started it (above), the
  // answer awaited before the adapter starts (a millisecond, or 5 s when
  // no page with daebug answers). "" in a page, or when the worker's URL
  // has it already (a page's older loader put it in the fragment).
  function askTab() {
    const none = Promise.resolve("");
    if (typeof document !== "undefined" || typeof location === "undefined") return none;
    if (typeof BroadcastChannel !== "function" || /#daebug-tab=[0-9a-f]{4}$/.test(location.href)) return none;
    return new Promise((done) => {
      let channel = null;
      let timer = 0;
      const end = (tab) => {
        clearTimeout(timer);
        try {
          channel.close();
        } catch {}
        learnt = tab;
        done(tab);
      };
      // Long enough for a page that is itself still starting (a reload
      // on a busy machine) to answer.
      timer = setTimeout(() => end(""), 5000);
      try {
        const ask = Math.random().toString(36).slice(2);
        channel = new BroadcastChannel(TABS);
        channel.onmessage = (e) => {
          const m = e.data;
          if (m && m.answer === ask && /^[0-9a-f]{4}$/.test(m.tab)) end(m.tab);
        };
        channel.postMessage({ ask, href: location.href, name: String(globalThis.name || "") });
      } catch {
        end("");
      }
    });
  }

  // `blob:` workers: a Blob of JavaScript (`type` `text/javascript` or the
  // like, as bundlers make an inline worker's) gets the loader's line
  // after its text when it becomes a URL, so the worker's URL is the one
  // the page holds (the Blob object itself is left as it is). A Blob with
  // no type is known to be a script only when a worker starts from its URL:
  // that worker starts from a URL of the same text with the line (its
  // `location` is that URL, and a blob: URL resolves no relative URL either
  // way). Returns: a blob: URL made here → the URL to start a worker from.
  function blobsWithAdapter(line) {
    const U = globalThis.URL;
    const create = U && U.createObjectURL;
    const revoke = U && U.revokeObjectURL;
    if (typeof create !== "function" || typeof revoke !== "function" || typeof Blob !== "function") {
      return (href) => href;
    }
    const script = /^\s*(text|application)\/(x-)?(java|ecma)script\s*(;|$)/i;
    // An untyped Blob's URL → the Blob, then the URL with the line.
    const untyped = new Map();
    U.createObjectURL = new Proxy(create, {
      apply(target, that, args) {
        const blob = args[0];
        try {
          if (blob instanceof Blob && script.test(blob.type) && !fromAdapter()) {
            return Reflect.apply(target, that, [new Blob([blob, line], { type: blob.type }), ...Array.prototype.slice.call(args, 1)]);
          }
        } catch {}
        const url = Reflect.apply(target, that, args);
        try {
          if (blob instanceof Blob && !blob.type) untyped.set(url, blob);
        } catch {}
        return url;
      },
    });
    U.revokeObjectURL = new Proxy(revoke, {
      apply(target, that, args) {
        try {
          const made = untyped.get(String(args[0]));
          untyped.delete(String(args[0]));
          if (typeof made === "string") revoke.call(U, made);
        } catch {}
        return Reflect.apply(target, that, args);
      },
    });
    // The adapter's own blob: scripts (a WebKit page's blocks) are left
    // as they are: the frame that called is in its glue.
    const fromAdapter = () => {
      const frames = String(new Error().stack).split("\n").filter((l) => /:\d+:\d+\)?$/.test(l));
      return /\/daebug_adapter\.js[?#:]/.test(frames[1] || "");
    };
    return (href) => {
      const made = untyped.get(href);
      if (!made || typeof made === "string") return made || href;
      const url = create.call(U, new Blob([made, line]));
      untyped.set(href, url);
      return url;
    };
  }

  // The tab id: a page's from sessionStorage (made here on a tab's first
  // load, so the workers it starts at once have it too; the hub replaces
  // one a live tab already uses), a worker's as it learnt it.
  function tabId() {
    const hex = /^[0-9a-f]{4}$/;
    if (typeof document === "undefined") {
      const m = /#daebug-tab=([0-9a-f]{4})$/.exec(location.href);
      return m ? m[1] : learnt;
    }
    let id = sessionStorage.getItem("daebug.tab");
    if (!hex.test(id || "")) {
      id = ((Math.random() * 0x10000) | 0).toString(16).padStart(4, "0");
      sessionStorage.setItem("daebug.tab", id);
    }
    return id;
  }

  // Console, fetch and XMLHttpRequest wrappers that stay, and listeners
  // that buffer until the adapter attaches: `hooks()`, shared with the
  // Node loader, spliced in here by the hub (adapter-shim/hooks.js).
  /* daebug:hooks */
})();
