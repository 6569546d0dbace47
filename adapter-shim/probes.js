// probes.js: `daebug.probe` and `daebug.probes` (docs/log-format.md,
// "Probes"): live functions wrapped in place, each call streamed, in plain
// JavaScript spliced into both loaders after hooks.js. `probes(kit,
// hooks)` adds what it provides to the toolkit object `kit`.
//
// A probe replaces the property that holds the function with a Proxy of
// it (apply and construct traps): `this`, `new.target`, `name`, `length`,
// `prototype` and `instanceof` stay the original's, and each call is one
// `Text probe` line (`hooks.probe`, the adapter's `probe` method) in the
// realm's log, in the running block's reply during one. The Proxy is
// another object than the original: a reference taken before the probe
// (a callback registered earlier, a module's own binding) still reaches
// the original, unprobed; seeing every call through any reference takes
// the debugger (monitor). A module's exports are read-only from outside,
// so "path#export" names a method on an object the module exports
// ("/src/cart.js#cart.addItem", "#Cart.addItem" for a class's method).
function probes(kit, hooks) {
  const live = [];
  // Each live probe's Proxy, to its probe.
  const proxies = new WeakMap();
  // Values in a line: 2 levels deep, 10 items, 200 characters a string;
  // a value is cut at 300 characters, a line at 2,000.
  const LIMITS = [2, 10, 200, 2000, 1024 * 1024];
  const VALUE = 300;
  const LINE = 2000;
  const OPTIONS = ["args", "result", "throws", "max", "name"];
  const g = globalThis;
  const own = Reflect.getOwnPropertyDescriptor;
  const protoOf = Reflect.getPrototypeOf;
  const then = Promise.prototype.then;
  const now = () => performance.now();
  let view = null;
  // While a line is made or sent: a probed function daebug itself calls
  // then passes through unseen.
  let busy = false;

  const cut = (s, n) => (s.length > n ? s.slice(0, n - 1) + "…" : s);
  // A value on one line, as the log shows values (JSON when plain).
  function shown(v) {
    if (v === undefined || v === null || typeof v === "boolean" || (typeof v === "number" && !Object.is(v, -0))) return String(v);
    try {
      const t = (view ??= values((s) => s)).now(v, LIMITS).text;
      return cut(t.replace(/\n\s*/g, " "), VALUE);
    } catch {
      return "[unreadable]";
    }
  }
  // What was thrown: `TypeError: qty must be positive` (an error's first
  // line, its stack left out), else the value.
  function thrown(e) {
    let error = false;
    try {
      error = e instanceof Error;
    } catch {}
    if (!error) return shown(e);
    try {
      const t = (view ??= values((s) => s)).now(e, [0, 0, 200, 10, 4096]).text;
      return cut(t.split("\n")[0], VALUE);
    } catch {
      return "[unreadable]";
    }
  }
  const ms = (d) => (d < 10 ? d.toFixed(1) : String(Math.round(d))) + " ms";
  function emit(text) {
    busy = true;
    try {
      if (typeof hooks.probe === "function") hooks.probe(cut(text, LINE));
    } catch {
    } finally {
      busy = false;
    }
  }
  // `name` as code reads it: `cart.addItem`, `cart["add-item"]`, `[Symbol(x)]`.
  function member(base, key) {
    const k = typeof key === "symbol" ? "[" + String(key) + "]" : /^[A-Za-z_$][\w$]*$/.test(key) ? key : "[" + JSON.stringify(key) + "]";
    if (!base) return k.startsWith("[") ? String(k.slice(1, -1)) : k;
    return k.startsWith("[") ? base + k : base + "." + k;
  }
  // What an object is called in a line: the global variable that holds
  // it (`cart`), else a function's (or class's) name, a class instance's
  // or prototype's class, nothing for a plain object or the global object.
  function called(holder) {
    try {
      if (holder === g) return "";
      for (const k of Reflect.ownKeys(g)) {
        const d = typeof k === "string" && /^[A-Za-z_$][\w$]*$/.test(k) ? own(g, k) : undefined;
        if (d && d.value === holder) return k;
      }
      if (typeof holder === "function") {
        const d = own(holder, "name");
        return d && typeof d.value === "string" ? d.value : "";
      }
      for (let o = holder; o; o = protoOf(o)) {
        const d = own(o, "constructor");
        if (d && typeof d.value === "function") {
          const n = own(d.value, "name");
          return n && typeof n.value === "string" && n.value !== "Object" ? n.value : "";
        }
      }
    } catch {}
    return "";
  }
  // The property `key` of `holder` or of its prototype chain: [descriptor,
  // the object that has it].
  function lookup(holder, key) {
    for (let o = holder; o; o = protoOf(o)) {
      const d = own(o, key);
      if (d) return [d, o];
    }
    return [undefined, null];
  }
  const isNamespace = (o) => {
    try {
      const d = own(o, Symbol.toStringTag);
      return !!d && d.value === "Module" && protoOf(o) === null;
    } catch {
      return false;
    }
  };
  // `an object`, `a number`, `undefined`, `null`.
  const kindOf = (v) => (v == null ? String(v) : typeof v === "object" ? "an object" : typeof v === "undefined" ? "undefined" : "a " + typeof v);
  const fail = (what, why) => {
    throw new Error("daebug.probe(" + what + "): " + why);
  };

  class Probe {
    constructor(name, max) {
      this.name = name;
      this.calls = 0;
      this.max = max;
      this.removed = false;
    }
    // Puts the original back if the property still holds the probe's
    // Proxy; says so either way. Later calls through a Proxy someone kept
    // reach the original, unlogged.
    remove() {
      const done = detach(this);
      if (done === null) return "probe " + this.name + " was removed already";
      return "probe " + this.name + " removed after " + plural(this.calls) + (done ? "; the original is back" : "; " + this.name + " was replaced since (it holds another value now), so it was left as it is");
    }
  }
  const plural = (n) => n + (n === 1 ? " call" : " calls");
  // Each probe's place: [holder, key, its own descriptor before (undefined:
  // it was inherited), the Proxy].
  const places = new WeakMap();

  // Restores the original: true when it was back in place, false when
  // something else holds the property now, null when removed already.
  function detach(p) {
    if (p.removed) return null;
    p.removed = true;
    const i = live.indexOf(p);
    if (i >= 0) live.splice(i, 1);
    const [holder, key, before, proxy] = places.get(p);
    try {
      const d = own(holder, key);
      if (!d || d.value !== proxy) return false;
      return before ? Reflect.defineProperty(holder, key, before) : Reflect.deleteProperty(holder, key);
    } catch {
      return false;
    }
  }

  // Wraps `holder[key]` in place; `what` names the target in errors.
  function wrap(holder, key, name, options, what) {
    if (holder === null || holder === undefined) fail(what, "the object is " + holder);
    if (typeof holder !== "object" && typeof holder !== "function") fail(what, "the object is " + kindOf(holder) + " (" + shown(holder) + "), not an object");
    if (typeof key !== "string" && typeof key !== "symbol") fail(what, 'name the method as a string: [object, "method"]');
    if (isNamespace(holder)) fail(what, member("", key) + " is a module's export: an export binding cannot be replaced from outside the module (DevTools cannot either); pass \"path#export\" to have daebug look for an object that holds it");
    let found;
    try {
      found = lookup(holder, key);
    } catch (e) {
      fail(what, "its properties could not be read (" + thrown(e) + ")");
    }
    const [d, at] = found;
    const label = name || member(called(holder), key);
    if (!d) fail(what, label + " is not there: the object has no property " + JSON.stringify(String(key)) + methodsOf(holder));
    if (d.get || d.set) fail(what, label + " is an accessor (get/set), not a method: a probe replaces a function held in a property; probe the object its getter returns");
    const original = d.value;
    if (typeof original !== "function") fail(what, label + " is " + kindOf(original) + " (" + shown(original) + "), not a function");
    if (proxies.has(original)) fail(what, label + " is probed already (daebug.probes); remove that probe first");
    const inherited = at !== holder;
    if (!inherited && !d.writable && !d.configurable) {
      fail(what, label + " cannot be replaced: the property is read-only and not configurable (a frozen object, or a built-in's constant)");
    }
    if (inherited && !Object.isExtensible(holder)) {
      fail(what, label + " is inherited and the object is not extensible (frozen, sealed or preventExtensions), so no own property can take it; probe it where it is defined (its prototype: every instance)");
    }
    const p = new Probe(label, options.max);
    const show = { args: options.args, result: options.result, throws: options.throws };
    const proxy = new Proxy(original, {
      apply(target, self, args) {
        return through(p, show, args, () => Reflect.apply(target, self, args), "");
      },
      construct(target, args, newTarget) {
        // `new.target` is the original, as for an unprobed `new`.
        const nt = newTarget === proxy ? target : newTarget;
        return through(p, show, args, () => Reflect.construct(target, args, nt), "new ");
      },
    });
    // An own property (one that shadows an inherited method too) with the
    // attributes it had.
    const attributes = inherited
      ? { value: proxy, writable: d.writable, enumerable: d.enumerable, configurable: true }
      : { value: proxy, writable: d.writable, enumerable: d.enumerable, configurable: d.configurable };
    let ok = false;
    try {
      ok = Reflect.defineProperty(holder, key, attributes);
    } catch {}
    if (!ok) fail(what, label + " could not be replaced: the object refused the new property (a Proxy, or an exotic object)");
    proxies.set(proxy, p);
    places.set(p, [holder, key, inherited ? undefined : d, proxy]);
    live.push(p);
    return p;
  }

  // One call through a probe: run it, log it (async: when it settles).
  function through(p, show, args, run, prefix) {
    if (p.removed || busy) return run();
    const n = ++p.calls;
    // The last call it logs: the original is put back before it runs.
    const last = n >= p.max;
    const restored = last ? detach(p) : null;
    let head = "";
    try {
      busy = true;
      head = "probe " + prefix + p.name + "(" + (show.args ? Array.prototype.map.call(args, shown).join(", ") : "…") + ")";
    } catch {
      head = "probe " + prefix + p.name + "(…)";
    } finally {
      busy = false;
    }
    const ended = (line) => {
      emit(line);
      if (!last) return;
      const left = restored === false ? "; " + p.name + " was replaced since, so it was left as it is" : "";
      emit("probe " + p.name + " removed itself after " + plural(n) + " (max " + p.max + ")" + left);
    };
    const start = now();
    let out;
    try {
      out = run();
    } catch (e) {
      ended(head + " threw" + (show.throws ? " " + thrown(e) : "") + " (" + ms(now() - start) + ")");
      throw e;
    }
    let promise = false;
    try {
      promise = out instanceof Promise;
    } catch {}
    if (!promise) {
      ended(head + (show.result ? " → " + shown(out) : "") + " (" + ms(now() - start) + ")");
      return out;
    }
    // The caller gets the promise chained on the original: the same value
    // or reason, and a rejection nobody handles is still reported.
    return then.call(
      out,
      (v) => {
        ended(head + " → resolved" + (show.result ? " " + shown(v) : "") + " (" + ms(now() - start) + ")");
        return v;
      },
      (e) => {
        ended(head + " → rejected" + (show.throws ? " " + thrown(e) : "") + " (" + ms(now() - start) + ")");
        throw e;
      },
    );
  }
  // The methods an object has (its own and its class's), for an error.
  function methodsOf(holder) {
    const names = [];
    try {
      for (let o = holder; o && o !== Object.prototype && o !== Function.prototype && names.length < 12; o = protoOf(o)) {
        for (const k of Reflect.ownKeys(o)) {
          const d = own(o, k);
          if (typeof k === "string" && k !== "constructor" && d && typeof d.value === "function" && !names.includes(k)) names.push(k);
        }
      }
    } catch {}
    return names.length ? " (its methods: " + names.slice(0, 12).join(", ") + ")" : "";
  }

  // The option object, checked: unknown names and wrong types say so.
  function optionsOf(options, what) {
    const o = { args: true, result: true, throws: true, max: 100, name: "" };
    if (options === undefined || options === null) return o;
    if (typeof options !== "object") fail(what, "options are an object: { args, result, throws, max, name }");
    for (const k of Object.keys(options)) {
      if (!OPTIONS.includes(k)) fail(what, "unknown option " + JSON.stringify(k) + " (args, result, throws, max, name)");
    }
    for (const k of ["args", "result", "throws"]) if (options[k] !== undefined) o[k] = !!options[k];
    if (options.max !== undefined) {
      const m = options.max;
      if (typeof m !== "number" || !(m >= 1) || (m !== Infinity && !Number.isInteger(m))) fail(what, "max is a whole number of calls, 1 or more (or Infinity)");
      o.max = m;
    }
    if (options.name !== undefined) o.name = String(options.name);
    return o;
  }

  // "/src/cart.js#cart.addItem": the module instance the realm uses
  // (`daebug.module`; in Node, imported as the entry would), then the
  // path after `#` walked from its namespace; a class's method when the
  // class has no static one of that name.
  async function fromModule(spec, options, what) {
    const hash = spec.lastIndexOf("#");
    const path = spec.slice(0, hash);
    const names = spec.slice(hash + 1).split(".");
    if (!path || names.some((n) => !n)) fail(what, 'pass "path#export" or "path#export.method", like "/src/cart.js#cart.addItem"');
    const node = g[Symbol.for("daebug.node")];
    const ns = node && typeof node.compile === "function" ? await node.compile("return await import(" + JSON.stringify(node.resolve(path)) + ")")() : await kit.module(path);
    const stem = path.split(/[?#]/)[0].split("/").pop().replace(/\.[^.]*$/, "") || "module";
    const label = options.name || names.map((n, i) => (i === 0 && n === "default" ? stem : n)).join(".");
    if (names.length === 1) {
      const name = names[0];
      if (!(name in ns)) fail(what, path + " has no export " + JSON.stringify(name) + exportsOf(ns));
      const v = ns[name];
      if (typeof v !== "function") {
        fail(what, path + "'s export " + name + " is " + kindOf(v) + ", not a function; name one of its methods: \"" + path + "#" + name + ".method\"" + methodsOf(v));
      }
      const elsewhere = holdersOf(ns, v, path, name);
      fail(what, name + " is a function " + path + " exports, and a module's export binding cannot be replaced from outside the module (DevTools cannot either): the module's own calls reach it directly. " + (elsewhere ? "The same function is held by " + elsewhere + ": probing there sees the calls made through it; " : "Probe the object whose method calls it; ") + "in a Node realm, monitor(fn) (its debugger) sees calls through any reference");
    }
    let holder = ns;
    for (const n of names.slice(0, -1)) {
      const next = holder === null || holder === undefined ? undefined : holder[n];
      if (next === null || next === undefined) fail(what, names.slice(0, names.indexOf(n) + 1).join(".") + " is " + next + " in " + path);
      holder = next;
    }
    const key = names[names.length - 1];
    // `Cart.addItem` for a class's method: its prototype's.
    if (typeof holder === "function" && !(key in holder) && holder.prototype && key in holder.prototype) holder = holder.prototype;
    return wrap(holder, key, label, options, what);
  }
  // The exports, for an error: `(its exports: a, b, c)`.
  function exportsOf(ns) {
    const keys = Object.keys(ns);
    return keys.length ? " (its exports: " + keys.slice(0, 20).join(", ") + (keys.length > 20 ? ", …" : "") + ")" : "";
  }
  // Where else `fn` is a property: the module's other exports (and a
  // CommonJS module's `default`, its `module.exports`) and the global
  // object, as probe targets.
  function holdersOf(ns, fn, path, name) {
    const out = [];
    const look = (o, show) => {
      try {
        for (const k of Reflect.ownKeys(o).slice(0, 500)) {
          const d = own(o, k);
          if (d && d.value === fn && typeof k === "string") out.push(show(k));
        }
      } catch {}
    };
    for (const e of Object.keys(ns)) {
      const v = ns[e];
      if (v && (typeof v === "object" || typeof v === "function") && v !== fn) {
        look(v, (k) => 'daebug.probe("' + path + "#" + e + "." + k + '")');
      }
    }
    look(g, (k) => "daebug.probe([globalThis, " + JSON.stringify(k) + "])");
    return out.slice(0, 3).join(", ");
  }

  // `daebug.probe([object, "method"] | "path#export.method", options)`:
  // the probe (a promise of it for a module path).
  kit.probe = function probe(target, options) {
    const what = typeof target === "string" ? JSON.stringify(target) : Array.isArray(target) ? "[object, " + shownKey(target[1]) + "]" : shown(target);
    const o = optionsOf(options, what);
    if (typeof target === "string") {
      if (!target.includes("#")) fail(what, 'a module path names the export after "#": "/src/cart.js#cart.addItem"; for a live object pass [object, "method"]');
      return fromModule(target, o, what);
    }
    if (!Array.isArray(target) || target.length !== 2) fail(what, 'pass [object, "method"] or "/src/cart.js#cart.addItem"');
    return wrap(target[0], target[1], o.name, o, what);
  };
  const shownKey = (k) => (typeof k === "string" ? JSON.stringify(k) : typeof k === "symbol" ? String(k) : shown(k));
  // `daebug.probes`: the live probes, oldest first.
  Reflect.defineProperty(kit, "probes", { get: () => live.slice(), enumerable: true, configurable: true });
}
