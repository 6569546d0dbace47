// toolkit.js: the toolkit every block sees as `daebug` (docs/log-format.md,
// "The toolkit"), in plain JavaScript: the hub splices it into both loaders
// after hooks.js (at the same marker), `hooks()` hands `toolkit` to the
// adapter (`Hooks::toolkit` in adapter-wasm/src/bind.rs), and the adapter
// calls it once (adapter-wasm/src/toolkit.rs). What only the adapter can
// do goes back to it through `host(which, a, b)`: 2 reload (it knows
// whether a job runs), 3 a warning for the reply, 4 image, 5 snapshot,
// 6 screenshot, 7 copy, 8 listeners, 9 objects, 10 whether the hub is
// there (attached), 11 a dialog's line for the log, 12 a line of kind `b`
// for the log (`Text logpoint`: debugger.js), 13 a command of the
// browser's debugger through the bridge (debugger.js), 14 an action's
// trusted input through the bridge (daebug-act.mjs). Kept out of the .wasm,
// whose size is budgeted (docs/architecture.md, "The adapter's budget").
//
// `toolkit(kind, host)` puts the object on the global object under
// `Symbol.for("daebug.toolkit")` (where the hub's prepared code reads it,
// so blocks see it also when the page has a `daebug` of its own) and as the
// global `daebug` when the page has none, and returns { object, realm,
// welcomed(stem), dialogs(), remove() }. No source is made but `import()`'s (syntax,
// in a function made on first use, as running a block itself is): a page
// whose CSP forbids `eval` still gets the rest.
function toolkit(kind, host) {
  const g = globalThis;
  const key = Symbol.for("daebug.toolkit");
  // How long `waitFor` waits when the block gives no timeout, and how
  // often it calls a function while its value is falsy.
  const WAIT_MS = 5000;
  const POLL_MS = 50;
  const realm = { stem: "", kind };
  if (kind !== "node") realm.url = g.location ? g.location.href : "";
  const now = () => (g.performance && typeof g.performance.now === "function" ? g.performance.now() : Date.now());
  const sleep = (ms) => new Promise((resolve) => g.setTimeout(resolve, typeof ms === "number" && ms > 0 ? ms : 0));
  const ask = (which) => (a, b) => host(which, a, b);
  let imports = null;

  // A function's source on one line, cut to 60 characters with `…`, so an
  // error names the function without quoting a page of code.
  function brief(source) {
    const line = source.trim().split(/\s+/).join(" ");
    const chars = Array.from(line);
    return chars.length > 60 ? chars.slice(0, 60).join("") + "…" : line;
  }

  // `daebug.waitFor(selectorOrFunction, { timeout })`: the first truthy
  // value, looked for again at each change of the document (a selector) or
  // every 50 ms (a function).
  async function waitFor(target, options) {
    let timeout = options !== null && typeof options === "object" ? options.timeout : undefined;
    if (typeof timeout !== "number" || !(timeout >= 0)) timeout = WAIT_MS;
    const selector = typeof target === "string";
    let what;
    if (selector) what = JSON.stringify(target);
    else if (typeof target === "function") what = brief(String(target.toString()));
    else throw new TypeError("daebug.waitFor: pass a CSS selector or a function");
    const document = g.document;
    if (selector && document == null) throw new Error("waitFor(" + what + "): a worker has no document; pass a function");
    let wake = null;
    const observer = selector ? new g.MutationObserver(() => wake && (wake(), (wake = null))) : null;
    try {
      if (observer) observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
      const deadline = now() + timeout;
      for (;;) {
        let value = selector ? document.querySelector(target) : target();
        if (!selector && value !== null && (typeof value === "object" || typeof value === "function") && typeof value.then === "function") {
          value = await value;
        }
        if (value) return value;
        const left = deadline - now();
        if (left <= 0) {
          const missing = selector ? "no element matched" : "no truthy value";
          throw new Error("waitFor(" + what + "): " + missing + " within " + Math.floor(timeout) + " ms");
        }
        await (observer ? Promise.race([new Promise((r) => (wake = r)), sleep(left)]) : sleep(Math.min(left, POLL_MS)));
      }
    } finally {
      if (observer) observer.disconnect();
    }
  }

  // The URLs the realm loaded scripts from, newest first: resource timing
  // entries (not fetch, XHR or beacon requests), then a page's module
  // scripts.
  function loadedUrls() {
    const urls = [];
    try {
      for (const e of g.performance.getEntriesByType("resource").reverse()) {
        if (!["fetch", "xmlhttprequest", "beacon"].includes(e.initiatorType)) urls.push(e.name);
      }
    } catch {}
    try {
      for (const s of Array.from(g.document.querySelectorAll("script[type=module][src]")).reverse()) urls.push(s.src);
    } catch {}
    // A worker's own entry module is in its page's timeline, not its own:
    // its URL is the worker's location.
    try {
      if (g.document == null && g.location != null) urls.push(g.location.href);
    } catch {}
    return urls.filter((u) => typeof u === "string");
  }

  // The URL the page loaded for the module at `resolved`: the newest that
  // is the same file, with any query a dev server added
  // (`/src/store.js?t=…`); when `resolved` has a query of its own, only
  // that exact URL counts. It is returned whole: a module's instance is
  // keyed by its URL with the fragment (a worker's entry may carry one),
  // and another fragment would be another instance.
  function loadedAs(resolved) {
    const bare = (u) => u.split("#")[0];
    resolved = bare(resolved);
    const exact = resolved.includes("?");
    return loadedUrls().find((u) => (exact ? bare(u) === resolved : bare(u).split("?")[0] === resolved));
  }

  // `daebug.module(path)`: the instance the page uses (a worker's entry
  // module included), or a fresh import with a warning in the reply. A
  // bare name (not `/…`, `./…`, `../…` or a URL with a scheme) is an
  // import map's: `import` finds what the page finds. `{ fresh: true }`
  // imports a copy of its own (a query of daebug's on the URL), whose
  // top-level code runs again; the reply says so.
  let freshCopies = 0;
  async function module(path, options) {
    if (typeof path !== "string") throw new TypeError('daebug.module: pass a path, like "/src/store.js"');
    if (options != null && options.fresh === true) {
      const base = g.document != null ? g.document.baseURI : g.location != null ? g.location.href : undefined;
      const url = new g.URL(path, base);
      url.searchParams.set("daebug-fresh", String(++freshCopies));
      host(3, 'daebug.module("' + path + '", { fresh: true }): a fresh copy, as asked: its top-level code ran again, apart from the realm\'s instance');
      imports = imports || new g.Function("u", "return import(u)");
      return imports(url.href);
    }
    let url = path;
    const colon = path.indexOf(":");
    const bare = !/^(\/|\.\/|\.\.\/)/.test(path) && !(colon > 0 && !path.slice(0, colon).includes("/"));
    if (!bare) {
      const base = g.document != null ? g.document.baseURI : g.location != null ? g.location.href : undefined;
      const resolved = new g.URL(path, base).href;
      url = loadedAs(resolved);
      if (url === undefined) {
        url = resolved;
        host(3, 'daebug.module("' + path + '"): the page has not loaded it; this is a fresh copy, not the page\'s instance (its top-level code ran); pass { fresh: true } to ask for one');
      }
    }
    imports = imports || new g.Function("u", "return import(u)");
    return imports(url);
  }

  // A JSON string literal, as the log quotes a dialog's text.
  const quote = (t) =>
    '"' + t.replace(/["\\\u0000-\u001f]/g, (c) =>
      ({ '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" })[c] ||
      "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")) + '"';
  // `String(value)`, as the browser shows a dialog's message (`42`,
  // `[object Object]`); "" for undefined or a value whose conversion throws.
  const text = (v) => {
    if (v === undefined) return "";
    try {
      return String(v);
    } catch {
      return "";
    }
  };
  let restore = null;

  // Dialogs never freeze the agent (docs/log-format.md, "Dialogs"): while
  // the page is attached to the hub, `alert`, `confirm` and `prompt`
  // return at once and are recorded (`confirm("Sure?") → true`). Answers:
  // `alert` nothing, `confirm` true, `prompt` its default ("" without
  // one), unless a block queued others with `daebug.dialogs.answer(value)`
  // (one per `confirm` or `prompt`). Detached, the browser's own show.
  function dialogs() {
    if (typeof g.confirm !== "function") return;
    const queue = [];
    const replaced = [];
    for (const kind of ["alert", "confirm", "prompt"]) {
      const native = g[kind];
      const f = function (message, given) {
        if (!host(10)) {
          // With the arguments the page gave: `alert()` is not
          // `alert(undefined)`, which shows "undefined".
          if (given !== undefined) return native(message, given);
          return message === undefined ? native() : native(message);
        }
        const fallback = given === undefined ? undefined : text(given);
        let answer, shown;
        if (kind === "confirm") {
          answer = queue.length ? !!queue.shift() : true;
          shown = String(answer);
        } else if (kind === "prompt") {
          if (!queue.length) answer = fallback === undefined ? "" : fallback;
          else {
            const v = queue.shift();
            answer = v === null || v === undefined || v === false ? null : text(v);
          }
          shown = answer === null ? "null" : quote(answer);
        }
        let line = kind + "(" + quote(text(message)) + (fallback === undefined ? "" : ", " + quote(fallback)) + ")";
        if (shown !== undefined) line += " → " + shown;
        host(11, line);
        return answer;
      };
      replaced.push([kind, native, f]);
      g[kind] = f;
    }
    object.dialogs = { answer: (value) => queue.push(value) };
    // Puts the originals back (unless someone replaced them again since).
    restore = () => {
      for (const [kind, native, f] of replaced) if (g[kind] === f) g[kind] = native;
      delete object.dialogs;
    };
  }

  const object = {
    realm,
    sleep,
    waitFor,
    // A page reloads now, or (during a job) once the job's result is sent:
    // the reply says `reloaded` and the next block waits for the new
    // document. The adapter knows which.
    reload() {
      if (kind !== "page") {
        throw new Error("daebug.reload() reloads a page; a worker goes with its page (reload that), and a Node process restarts by its own means (`node --watch`)");
      }
      host(2);
      return "reloaded";
    },
    module,
    image: ask(4),
    snapshot: ask(5),
    screenshot: ask(6),
    copy: ask(7),
    listeners: ask(8),
    objects: ask(9),
  };
  // A line of kind `kind` for the log (a background event, or the running
  // block's), for the parts spliced in after this file; not a method
  // blocks see.
  Reflect.defineProperty(object, Symbol.for("daebug.line"), { value: ask(12) });
  Reflect.defineProperty(object, Symbol.for("daebug.cdp"), { value: ask(13) });
  // An action's trusted input through the bridge, and a warning for the
  // running block's reply (daebug-act.mjs, loaded on first use).
  Reflect.defineProperty(object, Symbol.for("daebug.input"), { value: ask(14) });
  Reflect.defineProperty(object, Symbol.for("daebug.warn"), { value: ask(3) });
  Reflect.defineProperty(g, key, { value: object, configurable: true });
  if (!("daebug" in g)) Reflect.set(g, "daebug", object);
  return {
    object,
    realm,
    // The hub welcomed this realm: `daebug.realm` names its log.
    welcomed(stem) {
      realm.stem = stem;
      if (g.location != null) realm.url = g.location.href;
    },
    // Replaces the global scope's dialogs, and adds `dialogs` (pages).
    dialogs,
    // Takes it all away again (the global only while it is ours).
    remove() {
      if (restore) restore();
      Reflect.deleteProperty(g, key);
      if (g.daebug === object) Reflect.deleteProperty(g, "daebug");
    },
  };
}
