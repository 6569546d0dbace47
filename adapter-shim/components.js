// components.js: `daebug.component(el)` (docs/log-format.md, "Components"):
// the framework component that rendered an element, in plain JavaScript
// spliced into both loaders after hooks.js. `components(kit, hooks)` adds
// what it provides to the toolkit object `kit`.
//
// It reads what each framework's development build leaves on the DOM:
// React's fibers (`__reactFiber$…`, hooks from `memoizedState` named by
// `_debugHookTypes`), Vue 3's `__vueParentComponent`, Svelte 5's
// `__svelte_meta`, and Preact's vnode tree from its root (`__k`). What it
// returns is plain data (no fiber, no vnode, no instance), at once; it is
// also a thenable whose value is the same with every `source` mapped
// through the script's source map and a name the bundler renamed (`Item2`)
// recovered from the original source (`Item`): `await` it (a block's value
// is awaited anyway). `pick` (www/panel/daebug-panel.mjs) returns the
// awaited value as its `component`.
function components(kit, hooks) {
  const g = globalThis;
  // What caused the code running now (hooks.js), for daebug's own reads.
  const causes = hooks?.causes;
  const none = (reason) => ({ framework: null, reason });
  // A React element, a Vue vnode or a Preact vnode in props, as `<Item />`:
  // their owners and stacks are not data.
  const REACT_ELEMENT = [Symbol.for("react.transitional.element"), Symbol.for("react.element")];
  const el2s = (t, key) => "<" + (typeof t === "string" ? t : nameOf(t) || "Anonymous") + (key != null ? ' key="' + key + '"' : "") + " />";
  function tidy(v, depth = 4) {
    if (v === null || typeof v !== "object") return v;
    try {
      while (v.__v_raw && v.__v_raw !== v) v = v.__v_raw;
      if (REACT_ELEMENT.includes(v.$$typeof)) return el2s(v.type, v.key);
      if (v.__v_isVNode) return el2s(v.type, v.key);
      if ("__k" in v && "__e" in v && "type" in v && "props" in v) return el2s(v.type, v.key);
      if (v.__v_isRef) return tidy(v.value, depth);
      if (depth <= 0) return v;
      if (Array.isArray(v)) return v.map((x) => tidy(x, depth - 1));
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return v;
      const out = {};
      for (const k of Object.keys(v)) out[k] = tidy(v[k], depth - 1);
      return out;
    } catch {
      return v;
    }
  }
  function nameOf(t) {
    if (typeof t === "function") return t.displayName || t.name || null;
    if (t && typeof t === "object") return t.displayName || t.name || t.__name || nameOf(t.render) || nameOf(t.type) || null;
    return null;
  }
  // `src/App.jsx:12:7`: the project's path when it has a `src/`, else as
  // given (a URL of the page's own origin without it).
  function place(file, line, column) {
    let f = String(file);
    try {
      const u = new URL(f);
      if (u.origin === g.location?.origin) f = u.pathname.slice(1);
    } catch {}
    const i = f.lastIndexOf("/src/");
    if (i >= 0) f = f.slice(i + 1);
    return line == null ? f : column == null ? f + ":" + line : f + ":" + line + ":" + column;
  }
  const base = (f) => (f ? String(f).split(/[\\/]/).pop().replace(/\.\w+$/, "") : null);

  // ----- React (development builds) -----------------------------------------
  const FORWARD = Symbol.for("react.forward_ref");
  const MEMO = Symbol.for("react.memo");
  const isComponent = (f) => f && typeof f.tag === "number" && (typeof f.type === "function" || (f.type && (f.type.$$typeof === FORWARD || f.type.$$typeof === MEMO)));
  // The fiber of the committed tree: `f` or its alternate. One is current
  // when each step up is in its parent's children, up to the root's
  // current fiber.
  function current(f) {
    const ok = (x) => {
      for (let n = 0; x && n < 10000; n++) {
        if (x.tag === 3) return x.stateNode?.current === x;
        const p = x.return;
        let c = p?.child;
        while (c && c !== x) c = c.sibling;
        if (!c) return false;
        x = p;
      }
      return false;
    };
    return ok(f) || !f.alternate || !ok(f.alternate) ? f : f.alternate;
  }
  // The component whose render made fiber `f`: its `_debugOwner` (a fiber,
  // or a server component's info), else the nearest component above it.
  function ownerOf(f) {
    const o = f._debugOwner;
    if (o && typeof o.tag === "number") return current(o);
    if (o && typeof o.name === "string") return o;
    for (let p = f.return; p; p = p.return) if (isComponent(p)) return current(p);
    return null;
  }
  // Where `f` was made, and the frames to map later: `_debugSource`
  // (React 18 and older) at once; React 19's `_debugStack` as its first
  // frame that is not React's.
  function sourceOf(f) {
    const s = f?._debugSource;
    if (s?.fileName) return [place(s.fileName, s.lineNumber, s.columnNumber), null];
    const stack = f?._debugStack?.stack ?? f?.stack;
    if (typeof stack !== "string") return [null, null];
    const frames = framesOf(stack);
    const own = frames.find((x) => !REACTS.test(x.url));
    return [own ? place(own.url, own.line, own.column) : null, frames];
  }
  // A hook's kind → how many entries of the `memoizedState` list it takes.
  const SLOTS = { useContext: 0, useDebugValue: 0, use: 0, useTransition: 2, useActionState: 3, useFormState: 3 };
  const STATES = ["useState", "useReducer", "useActionState", "useFormState", "useOptimistic"];
  function reactHooks(f) {
    const types = f._debugHookTypes;
    const hooks = [];
    let h = f.memoizedState;
    let ctx = f.dependencies?.firstContext;
    const effect = (s) => s && typeof s === "object" && "create" in s && "deps" in s;
    if (Array.isArray(types)) {
      for (const kind of types) {
        const n = SLOTS[kind] ?? 1;
        const s = n ? h?.memoizedState : undefined;
        let value = s;
        let deps = null;
        if (kind === "useContext") (value = ctx?.memoizedValue), (ctx = ctx?.next);
        else if (n === 0) continue;
        else if (effect(s)) (value = s.create), (deps = s.deps ?? null);
        else if (kind === "useMemo" || kind === "useCallback") (value = s?.[0]), (deps = s?.[1] ?? null);
        else if (kind === "useEffectEvent" && s && typeof s === "object") value = s.impl ?? s;
        for (let i = 0; i < n; i++) h = h?.next;
        hooks.push({ kind, value: tidy(value), deps: tidy(deps) });
      }
      return hooks;
    }
    // No names (a production build): each entry by its shape.
    for (; h && typeof h === "object" && "next" in h; h = h.next) {
      const s = h.memoizedState;
      if (effect(s)) hooks.push({ kind: "effect", value: s.create, deps: tidy(s.deps ?? null) });
      else if (h.queue) hooks.push({ kind: "useState", value: tidy(s), deps: null });
      else if (Array.isArray(s) && s.length === 2 && (s[1] === null || Array.isArray(s[1]))) hooks.push({ kind: "useMemo", value: tidy(s[0]), deps: tidy(s[1]) });
      else hooks.push({ kind: "hook", value: tidy(s), deps: null });
    }
    return hooks;
  }
  function react(fiber) {
    const chain = [];
    for (let f = current(fiber), o; chain.length < 100 && (o = ownerOf(f)); f = o) {
      const [source, frames] = sourceOf(f);
      if (typeof o.tag !== "number") {
        chain.push({ name: o.name, source, frames });
        break;
      }
      // Its own frames (where its element was made, in its owner's code)
      // tell a renamed name.
      chain.push({ name: nameOf(o.type), source, frames, own: sourceOf(o)[1], fiber: o });
    }
    if (!chain[0]?.fiber) return null;
    const f = chain[0].fiber;
    const cls = f.type?.prototype?.isReactComponent;
    const hooks = cls ? [] : reactHooks(f);
    const state = cls ? tidy(f.memoizedState) : hooks.filter((x) => STATES.includes(x.kind)).map((x) => x.value);
    return made("react", chain, tidy(f.memoizedProps), state, hooks);
  }

  // ----- Vue 3 ---------------------------------------------------------------
  function vue(instance) {
    const chain = [];
    for (let i = instance; i && chain.length < 100; i = i.parent) {
      const t = i.type ?? {};
      chain.push({ name: nameOf(t) || base(t.__file), source: t.__file ? place(t.__file) : null });
    }
    const raw = instance.devtoolsRawSetupState ?? instance.setupState ?? {};
    const hooks = [];
    const state = {};
    try {
      for (const k of Object.keys(raw)) {
        const v = raw[k];
        if (typeof v === "function") continue;
        let kind = "value";
        if (v?.__v_isRef) kind = typeof v.fn === "function" || v.effect ? "computed" : v.__v_isShallow ? "shallowRef" : "ref";
        else if (v?.__v_isReactive) kind = v.__v_isReadonly ? "readonly" : "reactive";
        const value = tidy(v);
        state[k] = value;
        hooks.push({ kind, name: k, value, deps: null });
      }
      const data = instance.data;
      if (data && typeof data === "object") for (const k of Object.keys(data)) state[k] = tidy(data[k]);
    } catch {}
    const props = {};
    try {
      for (const k of Object.keys(instance.props ?? {})) props[k] = tidy(instance.props[k]);
    } catch {}
    return made("vue", chain, props, state, hooks);
  }

  // ----- Svelte 5 ------------------------------------------------------------
  // Its development build says where each element was written
  // (`__svelte_meta.loc`) and, in newer versions, which components rendered
  // it (`parent`); props and state stay inside its compiled code.
  function svelte(meta) {
    // Lines count from 1, columns from 0.
    const loc = meta.loc ?? {};
    const chain = [{ name: base(loc.file), source: loc.file ? place(loc.file, loc.line, (loc.column ?? 0) + 1) : null }];
    for (let p = meta.parent; p && chain.length < 100; p = p.parent) {
      if (p.type !== "component") continue;
      if (p.componentTag) chain[chain.length - 1].name = p.componentTag;
      chain.push({ name: base(p.file), source: p.file ? place(p.file, p.line, (p.column ?? 0) + 1) : null });
    }
    return made("svelte", chain, null, null, [], "Svelte 5 keeps a component's props and state inside its compiled code");
  }

  // ----- Preact --------------------------------------------------------------
  // Preact keeps no link from a node to its vnode: the tree is walked from
  // its root (`container.__k`) to the vnode whose node (`__e`) it is.
  function preactVnode(el) {
    const host = new Map();
    const walk = (v, n) => {
      if (!v || typeof v !== "object" || n > 5000) return;
      if (typeof v.type === "string" && v.__e) host.set(v.__e, v);
      for (const c of v.__k ?? []) walk(c, n + 1);
    };
    for (let e = el; e; e = e.parentNode) {
      const root = e.__k;
      if (root && typeof root === "object" && "__e" in root && "props" in root) {
        walk(root, 0);
        for (let x = el; x && x !== e.parentNode; x = x.parentNode) if (host.has(x)) return host.get(x);
        return null;
      }
    }
    return null;
  }
  function preactHooks(c) {
    const list = c?.__H?.__ ?? [];
    return list.map((s) => {
      if (s.c && typeof s.c.__c === "string") return { kind: "useContext", value: tidy(c.context?.[s.c.__c]?.props.value ?? s.c.__), deps: null };
      if (s.__c && typeof s.t === "function" && Array.isArray(s.__)) {
        // useState's reducer: `(state, next) => typeof next == "function" ? next(state) : next`.
        const useState = s.t.length === 2 && /["']function["']\s*===?\s*typeof|typeof\s+\w+\s*===?\s*["']function["']/.test(String(s.t));
        return { kind: useState ? "useState" : "useReducer", value: tidy((s.__N ?? s.__)[0]), deps: null };
      }
      if ("__h" in s && typeof s.__h === "function") {
        const v = s.__;
        const kind = v && typeof v === "object" && Object.keys(v).join() === "current" && s.__H?.length === 0 ? "useRef" : typeof v === "function" ? "useCallback" : "useMemo";
        return { kind, value: tidy(v), deps: tidy(s.__H ?? null) };
      }
      if (typeof s.__ === "function") return { kind: "effect", value: s.__, deps: tidy(s.__H ?? s.u ?? null) };
      if (typeof s.__ === "string" && Object.keys(s).length === 1) return { kind: "useId", value: s.__, deps: null };
      return { kind: "hook", value: tidy(s.__), deps: null };
    });
  }
  function preact(vnode) {
    const chain = [];
    let from = vnode;
    // Preact's own: a context's Provider (the context itself, or its `__`) and
    // Consumer, and `Fragment` (returns its children).
    const own = (t) =>
      t.Provider === t || t.__?.Provider === t || (t.contextType && !t.prototype?.render && t.length > 1) || t.name === "Fragment" || /^function\s*\w*\((\w+)\)\s*\{\s*return\s+\1\.children;?\s*\}$/.test(String(t));
    for (let v = vnode.__; v && chain.length < 100; v = v.__) {
      if (typeof v.type !== "function" || own(v.type)) continue;
      const s = from.__source;
      chain.push({ name: nameOf(v.type), source: s?.fileName ? place(s.fileName, s.lineNumber, s.columnNumber) : null, vnode: v });
      from = v;
    }
    if (!chain.length) return null;
    const v = chain[0].vnode;
    const c = v.__c;
    const cls = v.type.prototype?.render;
    const hooks = cls ? [] : preactHooks(c);
    const state = cls ? tidy(c?.state) : hooks.filter((x) => x.kind === "useState" || x.kind === "useReducer").map((x) => x.value);
    return made("preact", chain, tidy(v.props), state, hooks);
  }

  // ----- the object --------------------------------------------------------
  // `chain`: the component, then its owners up to the root, each `{ name,
  // source }` and what `settle` maps (`frames`, `own`).
  function made(framework, chain, props, state, hooks, note) {
    const shape = ([me, ...owners]) => ({
      framework,
      ...me,
      props,
      state,
      hooks,
      owner: owners[0] ?? null,
      owners,
      ...(note ? { note } : {}),
    });
    const c = shape(chain.map((x) => ({ name: x.name, source: x.source })));
    let done = null;
    Reflect.defineProperty(c, "then", {
      // The caller's cause (a block's) again once settled: the answers to
      // daebug's own reads held theirs meanwhile (see `get`).
      value: (ok, no) => {
        const was = causes?.now() ?? null;
        const back = (f) => (v) => (causes?.hold(was), f(v));
        return (done ??= settle(chain).then(shape)).then(back(ok), back(no));
      },
      configurable: true,
    });
    return c;
  }
  // Each entry with its source mapped and a renamed name recovered: the
  // original text where its element was made reads `<Item` where the
  // bundle calls it `Item2`.
  function settle(chain) {
    return Promise.all(
      chain.map(async (at) => {
        let { name, source } = at;
        try {
          // No frame of the app's own (all React's, or none: JavaScriptCore
          // drops the frame of a render that returns its JSX, a tail call).
          if (at.frames) source = (await fromFrames(at.frames))?.source ?? null;
          if (at.own && /\D\d+$/.test(name ?? "")) {
            const text = (await fromFrames(at.own))?.text;
            const m = text && /^<?\s*([A-Za-z_$][\w$]*)/.exec(text);
            if (m && m[1] !== name && name.replace(/\d+$/, "") === m[1]) return { name: m[1], bundledName: name, source };
          }
        } catch {}
        return { name, source };
      }),
    );
  }

  // ----- stacks and source maps ----------------------------------------------
  // React's own frames: its runtime's function names, or its files.
  const REACTS = /\/node_modules\/|react-dom|react_jsx|jsx-dev-runtime|jsx-runtime|\/react\.development|\/react\.js/;
  const REACT_FNS = /^(?:async |new )?(?:exports\.)?(?:jsxDEV|jsxs?|jsxDEVImpl|createElement|react-stack-top-frame|Object\.[\w-]+|react[-_]stack[-_]bottom[-_]frame)$/;
  function framesOf(stack) {
    const out = [];
    for (const line of stack.split("\n")) {
      const m = /^(?:at\s+(?:(.*?)\s+\()?|(\S*)@)(\w+:\/\/[^\s()]+?):(\d+):(\d+)\)?$/.exec(line.trim());
      if (!m || REACT_FNS.test(m[1] ?? m[2] ?? "")) continue;
      out.push({ url: m[3], line: +m[4], column: +m[5] });
    }
    return out;
  }
  // The first frame of the app's own code (one that maps into no
  // `node_modules`, nor React's files), mapped, with the original text
  // from that place on.
  async function fromFrames(frames) {
    for (const f of frames) {
      const hit = await mapped(f.url, f.line, f.column);
      if (hit) {
        if (!/\/node_modules\//.test(hit.file)) return { source: place(hit.file, hit.line, hit.column), text: hit.text };
      } else if (!REACTS.test(f.url)) return { source: place(f.url, f.line, f.column), text: null };
    }
    return null;
  }
  const maps = new Map();
  // daebug's own reads (a script, its map) are not the block's requests:
  // made under a cause of their own (`causes`), they stay out
  // of its reply; one that fails is still logged, saying so
  // (docs/log-format.md, "Components").
  const READING = { why: "daebug.component reading a source map", own: true };
  function get(u) {
    const was = causes?.now() ?? null;
    causes?.hold(READING);
    try {
      return g.fetch(u);
    } finally {
      causes?.hold(was === READING ? null : was);
    }
  }
  // The source map of the script at `url`, from its `sourceMappingURL` (a
  // file or a `data:` URL), once per script.
  function mapOf(url) {
    if (!maps.has(url))
      maps.set(
        url,
        (async () => {
          const text = await (await get(url)).text();
          const ref = /\/\/[#@] sourceMappingURL=(\S+)\s*$/.exec(text);
          if (!ref) return null;
          const at = new URL(ref[1], url).href;
          const map = await (await get(at)).json();
          // Sources are relative to the map's file; an inline map's (Vite's
          // `data:` URLs) to the script's.
          const from = at.startsWith("data:") ? url : at;
          map.at = map.sourceRoot ? new URL(map.sourceRoot, from).href : from;
          return map;
        })().catch(() => null),
      );
    return maps.get(url);
  }
  // Where line:column (1-based) of the script at `url` was written, and the
  // text there (`sourcesContent`).
  async function mapped(url, line, column) {
    const map = await mapOf(url);
    const hit = map && lookup(map, line, column - 1);
    if (!hit) return null;
    const file = new URL(map.sources[hit[0]], map.at).href;
    const text = map.sourcesContent?.[hit[0]]?.split("\n")[hit[1]]?.slice(hit[2]) ?? null;
    return { file, line: hit[1] + 1, column: hit[2] + 1, text };
  }
  // [source, line, column] (0-based) of the last segment at or before the
  // generated `line` (1-based) and `column` (0-based). The running values
  // at each line's start are found once per map (a bundle's map is large).
  function lookup(map, line, column) {
    if (!map.lines) {
      const lines = (map.mappings ?? "").split(";");
      const starts = new Int32Array(lines.length * 3);
      let s = 0,
        ol = 0,
        oc = 0;
      lines.forEach((l, i) => {
        starts.set([s, ol, oc], i * 3);
        for (const seg of l.split(",")) {
          const d = seg ? vlq(seg) : [];
          if (d.length >= 4) (s += d[1]), (ol += d[2]), (oc += d[3]);
        }
      });
      Object.assign(map, { lines, starts });
    }
    const i = line - 1;
    if (!(i >= 0 && i < map.lines.length)) return null;
    let [source, ol, oc] = map.starts.subarray(i * 3, i * 3 + 3);
    let gc = 0;
    let best = null;
    for (const seg of map.lines[i].split(",")) {
      const d = seg ? vlq(seg) : [];
      if (!d.length || (gc += d[0]) > column) break;
      if (d.length < 4) continue;
      source += d[1];
      ol += d[2];
      oc += d[3];
      best = [source, ol, oc];
    }
    return best;
  }

  // ----- daebug.component(el) ------------------------------------------------
  kit.component = (el) => {
    const doc = g.document;
    if (!doc || typeof g.Node !== "function")
      return none("daebug.component() reads a page's elements; this realm (" + (kit.realm?.kind ?? "node") + ") has no DOM");
    if (typeof el === "string") {
      const sel = el;
      el = doc.querySelector(sel);
      if (!el) return none("no element matches " + JSON.stringify(sel));
    }
    if (!(el instanceof g.Node)) return none("daebug.component(el): pass an element (or a CSS selector)");
    const said = (x) => (x.nodeType === 1 ? "<" + x.tagName.toLowerCase() + (x.id ? ' id="' + x.id + '"' : "") + ">" : x.nodeName);
    // A framework's internals that do not read as expected: the reason says
    // which and what went wrong, never a throw from daebug.
    const read = (name, f, x) => {
      try {
        return f(x) ?? none(said(el) + " was rendered by " + name + " outside any component");
      } catch (e) {
        return none("reading " + name + "'s data for " + said(el) + " failed: " + (e?.message ?? e));
      }
    };
    for (let e = el; e; e = e.parentNode) {
      const key = Object.keys(e).find((k) => k.startsWith("__reactFiber$") || k.startsWith("__reactInternalInstance$"));
      if (key) return read("React", react, e[key]);
      if (e.__vueParentComponent) return read("Vue", vue, e.__vueParentComponent);
      if (e.__svelte_meta) return read("Svelte", svelte, e.__svelte_meta);
    }
    let v = null;
    try {
      v = preactVnode(el);
    } catch {}
    if (v) return read("Preact", preact, v);
    return none(said(el) + " was rendered by no React (development build), Vue 3, Svelte 5 or Preact component");
  };
}
