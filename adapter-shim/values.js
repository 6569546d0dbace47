// values.js: how a value is written into the log (docs/log-format.md,
// "Values"), in the realm's own JavaScript: JSON when the whole value is
// plain JSON, else an inspect-style text that is never `{}`. The hub
// splices it into both loaders after hooks.js (at the same marker),
// `hooks()` hands `values` to the adapter (`Hooks::values` in
// adapter-wasm/src/bind.rs), and the adapter calls it once with its stack
// folder (adapter-wasm/src/values.rs). Kept out of the .wasm, whose size
// is budgeted (docs/architecture.md, "The adapter's budget"): reading a value is what JavaScript does best.
//
// `values(fold)` returns { now(value, limits), later(value, limits) }:
// each gives { json, text }; `now` shows promises as pending (console
// arguments are shown at once), `later` learns their states first.
// `limits` is `[depth, items, string, nodes, bytes]`: nesting levels shown
// below the value, items per collection, UTF-16 units per string, nodes
// one walk may visit and string bytes it may copy in all.
//
// Safe by construction: properties are read through their descriptors, so
// a getter is never run; every reflective call that could throw (a
// Proxy's trap, a revoked proxy) is caught and shown as `[unreadable]`;
// the limits bound the work; cycles become `[Circular *n]` with
// `<ref *n>` on their target. The built-ins are the ones this realm had
// when the adapter started, not what a page put in their place later.
function values(fold) {
  const g = globalThis;
  const ownDescriptor = Object.getOwnPropertyDescriptor;
  const protoOf = Object.getPrototypeOf;
  const same = Object.is;
  const { ownKeys, apply } = Reflect;
  const isArray = Array.isArray;
  const isView = ArrayBuffer.isView;
  const race = Promise.race.bind(Promise);
  const resolved = Promise.resolve.bind(Promise);
  const sourceOf = Function.prototype.toString;
  const getTime = Date.prototype.getTime;
  const toISO = Date.prototype.toISOString;
  const regexpText = RegExp.prototype.toString;
  const mapEntries = Map.prototype.entries;
  const setValues = Set.prototype.values;
  const { Element } = g;
  // Characters kept of an error's message and stack.
  const ERROR_TEXT = 10000;
  // Columns a one-line rendering may take.
  const WIDTH = 80;
  // A read that threw (a Proxy's trap, a primitive's missing property).
  const THREW = {};

  const get = (target, key) => {
    try {
      return Reflect.get(target, key);
    } catch {
      return THREW;
    }
  };
  const is = (value, ctor) => {
    try {
      return typeof ctor === "function" && value instanceof ctor;
    } catch {
      return false;
    }
  };
  const call = (f, value) => {
    try {
      return apply(f, value, []);
    } catch {
      return THREW;
    }
  };
  const count = (x) => (typeof x === "number" && x > 0 ? Math.floor(x) : 0);
  const chars = (s) => {
    let n = 0;
    for (const _ of s) n++;
    return n;
  };
  const firstChars = (s, n) => {
    let out = "";
    let i = 0;
    for (const c of s) {
      if (i++ === n) break;
      out += c;
    }
    return out;
  };
  // Bytes of `s` as UTF-8 (a lone surrogate is written as U+FFFD).
  const utf8 = (s) => {
    let n = 0;
    for (const c of s) {
      const u = c.codePointAt(0);
      n += u < 0x80 ? 1 : u < 0x800 ? 2 : u < 0x10000 ? 3 : 4;
    }
    return n;
  };
  const words = (s) => s.split(/\s+/).filter(Boolean).join(" ");

  // The constructor name from the prototype's own `constructor` data
  // property and that function's own `name` data property (an accessor
  // is not run in either place).
  function ctorName(value) {
    try {
      const proto = protoOf(value);
      if (proto === null) return null;
      const name = ownDescriptor(ownDescriptor(proto, "constructor").value, "name").value;
      return typeof name === "string" && name ? name : null;
    } catch {
      return null;
    }
  }

  // An own data value of `target[key]`: { value }, or the node shown
  // instead ({ shown }: a getter, or a descriptor that could not be read).
  function ownValue(target, key) {
    let d;
    try {
      d = ownDescriptor(target, key);
    } catch {
      return { shown: { t: "deep", kind: "unreadable" } };
    }
    if (d === undefined) return { value: undefined };
    if (d.get !== undefined) return { shown: { t: "getter" } };
    return { value: d.value };
  }

  // `ƒ name(params)` or `class Name`, from the function's source text.
  function functionNode(value) {
    let name = "";
    try {
      const n = ownDescriptor(value, "name").value;
      if (typeof n === "string") name = n;
    } catch {}
    const s = call(sourceOf, value);
    const source = typeof s === "string" ? s : "";
    if (!name) name = "(anonymous)";
    if (source.startsWith("class")) return { t: "function", signature: name, class: true };
    return { t: "function", signature: name + "(" + paramsOf(source) + ")", class: false };
  }

  // The parameter list of a function's source: the text in the first
  // balanced parentheses, or the lone parameter of `x => ...`.
  function paramsOf(source) {
    const arrow = source.indexOf("=>");
    const head = arrow < 0 ? source : source.slice(0, arrow);
    const open = head.indexOf("(");
    let params;
    if (open >= 0) {
      let depth = 0;
      let end = -1;
      for (let i = open; i < head.length; i++) {
        const c = head[i];
        if (c === "(") depth++;
        else if (c === ")" && --depth === 0) {
          end = i;
          break;
        }
      }
      if (end < 0) return "";
      params = head.slice(open + 1, end);
    } else if (arrow >= 0) {
      params = head.trim();
      while (params.startsWith("async ")) params = params.slice(6);
    } else {
      return "";
    }
    params = words(params);
    return chars(params) > 60 ? firstChars(params, 60) + "…" : params;
  }

  // `<tag#id.class> "text"` data of a DOM element.
  function elementNode(value) {
    const text = (k) => {
      const v = get(value, k);
      return typeof v === "string" ? v : "";
    };
    return {
      t: "element",
      tag: text("tagName"),
      id: text("id"),
      classes: text("className").split(/\s+/).filter(Boolean),
      // Only a short, visible text: what a person would recognise.
      text: firstChars(text("textContent"), 200),
    };
  }

  class Walker {
    // The limits are read at once: the adapter passes a view of its own
    // memory, valid only during the call.
    constructor([depth, items, string, nodes, bytes]) {
      this.limits = { depth, items, string };
      // The objects being walked, outermost first (cycle detection).
      this.ancestors = [];
      // Ref numbers given to ancestors that a cycle points back to.
      this.refs = [];
      // Promise nodes met, in walk order, with their promises.
      this.promises = [];
      this.budget = nodes;
      this.bytes = bytes;
      // Whether the depth limit left something out, and the deepest
      // level a container was opened at (see `later`).
      this.cutAtDepth = false;
      this.reach = -1;
    }

    // A container at `depth` is opened: `null`; past the limit: the node
    // shown instead (`[Object]`), and the walk knows it cut.
    deep(depth, kind) {
      if (depth >= this.limits.depth) {
        this.cutAtDepth = true;
        return { t: "deep", kind };
      }
      if (depth > this.reach) this.reach = depth;
      return null;
    }

    // `value` when it is a string, cut to `limit` UTF-16 units, with its
    // whole length.
    cut(value, limit) {
      if (typeof value !== "string") return null;
      return { kept: value.length > limit ? value.slice(0, limit) : value, len: value.length };
    }

    node(value, depth) {
      if (this.budget === 0) return { t: "deep", kind: "…" };
      this.budget--;
      switch (typeof value) {
        case "boolean":
          return { t: "bool", value };
        case "number":
          return { t: "number", value };
        case "string": {
          const { kept, len } = this.cut(value, Math.min(this.limits.string, this.bytes));
          this.bytes = Math.max(0, this.bytes - utf8(kept));
          return kept.length < len ? { t: "longstr", text: kept, len } : { t: "str", text: kept };
        }
        case "bigint":
          return { t: "bigint", digits: String(value) };
        case "symbol":
          return { t: "symbol", desc: value.description ?? "" };
        case "function":
          return functionNode(value);
      }
      if (value === undefined) return { t: "undefined" };
      if (value === null) return { t: "null" };
      // An object: cycles first.
      const i = this.ancestors.findIndex((a) => same(a, value));
      if (i >= 0) {
        const target = this.ancestors[i];
        let ref = this.refs.find((r) => same(r[0], target));
        if (!ref) this.refs.push((ref = [target, this.refs.length + 1]));
        return { t: "circular", n: ref[1] };
      }
      this.ancestors.push(value);
      const node = this.object(value, depth);
      this.ancestors.pop();
      const ref = this.refs.find((r) => same(r[0], value));
      return ref ? { t: "ref", n: ref[1], inner: node } : node;
    }

    object(value, depth) {
      const ctor = ctorName(value);
      const limits = this.limits;
      if (is(value, Promise)) {
        const node = { t: "promise", state: "pending" };
        this.promises.push([node, value]);
        return node;
      }
      if (is(value, Date)) {
        const time = call(getTime, value);
        const iso = typeof time === "number" && !Number.isNaN(time) ? call(toISO, value) : null;
        return { t: "date", iso: typeof iso === "string" ? iso : null };
      }
      if (is(value, RegExp)) {
        const text = call(regexpText, value);
        return { t: "regexp", text: typeof text === "string" ? text : "/(unreadable)/" };
      }
      if (is(value, Error)) return this.error(value, depth);
      if (is(value, Element)) return elementNode(value);
      let array = false;
      try {
        array = isArray(value);
      } catch {}
      if (array) {
        const deep = this.deep(depth, "Array");
        if (deep) return deep;
        const len = count(get(value, "length"));
        const shown = Math.min(len, limits.items);
        const items = [];
        for (let i = 0; i < shown; i++) {
          const v = ownValue(value, i);
          items.push("shown" in v ? v.shown : this.node(v.value, depth + 1));
        }
        return { t: "array", items, more: len - shown };
      }
      const map = is(value, Map);
      if (map || is(value, Set)) {
        const kind = map ? "Map" : "Set";
        const deep = this.deep(depth, kind);
        if (deep) return deep;
        const size = count(get(value, "size"));
        // The built-in iterator of this realm, not one the value carries;
        // every step can throw (a Proxy), and is caught.
        const found = [];
        const iter = call(map ? mapEntries : setValues, value);
        const next = iter === THREW ? THREW : get(iter, "next");
        while (typeof next === "function" && found.length < limits.items) {
          let step;
          try {
            step = apply(next, iter, []);
          } catch {
            break;
          }
          const done = get(step, "done");
          if (done === THREW || done) break;
          const v = get(step, "value");
          found.push(v === THREW ? undefined : v);
        }
        if (map) {
          const at = (pair, i) => {
            const v = get(pair, i);
            return v === THREW ? undefined : v;
          };
          const entries = found.map((pair) => {
            const k = this.node(at(pair, 0), depth + 1);
            return [k, this.node(at(pair, 1), depth + 1)];
          });
          return { t: "map", entries, size };
        }
        return { t: "set", items: found.map((v) => this.node(v, depth + 1)), size };
      }
      if (isView(value) && !is(value, DataView)) return this.typed(value, ctor || "TypedArray");
      if (ctor === "NodeList" || ctor === "HTMLCollection" || ctor === "HTMLAllCollection") {
        const deep = this.deep(depth, ctor);
        if (deep) return deep;
        const len = count(get(value, "length"));
        const items = [];
        for (let i = 0; i < Math.min(len, limits.items); i++) {
          const v = get(value, i);
          items.push(this.node(v === THREW ? undefined : v, depth + 1));
        }
        return { t: "collection", kind: ctor, items, len };
      }
      const deep = this.deep(depth, ctor || "Object");
      if (deep) return deep;
      let keys;
      try {
        keys = ownKeys(value);
      } catch {
        return { t: "deep", kind: "unreadable" };
      }
      const entries = [];
      let total = 0;
      for (const key of keys) {
        if (typeof key !== "string") continue; // symbols
        let d;
        try {
          d = ownDescriptor(value, key);
        } catch {
          continue;
        }
        if (!d || !d.enumerable) continue;
        total++;
        if (entries.length >= limits.items) continue;
        entries.push([key, d.get !== undefined ? { t: "getter" } : this.node(d.value, depth + 1)]);
      }
      return { t: "object", ctor, entries, more: total - entries.length };
    }

    error(value, depth) {
      // Own data properties only: a getter the page put there is not run.
      const own = (k) => {
        const v = ownValue(value, k);
        return "shown" in v ? undefined : v.value;
      };
      const text = (v, limit) => {
        const c = this.cut(v, limit);
        return c ? c.kept : "";
      };
      const c = own("cause");
      const cause = c !== undefined && !this.deep(depth, "cause") ? this.node(c, depth + 1) : null;
      // `name` lives on the prototype; `stack` is the engine's own.
      const name = text(get(value, "name"), 200);
      // An error's text keeps its own cut, whole strings or not.
      const limit = Math.min(this.limits.string, ERROR_TEXT);
      const message = text(own("message"), limit);
      // Folded here, before the value's text is laid out around it.
      const s = this.cut(get(value, "stack"), limit);
      return { t: "error", name, message, stack: s ? fold(s.kept) : null, cause };
    }

    typed(value, kind) {
      const len = count(get(value, "length"));
      const items = [];
      for (let i = 0; i < Math.min(len, this.limits.items); i++) {
        const v = get(value, i);
        items.push(
          typeof v === "number" ? number(v) : inspect(this.node(v === THREW ? undefined : v, this.limits.depth)),
        );
      }
      return { t: "typed", kind, items, len };
    }
  }

  // A promise's state, learned by racing it against one already resolved.
  async function settled(p) {
    const marker = {};
    try {
      const v = await race([p, resolved(marker)]);
      return v === marker ? null : { state: "fulfilled", v };
    } catch (e) {
      return { state: "rejected", v: e };
    }
  }

  // How a walked tree is written: JSON when it is plain JSON, else
  // inspect text.
  function shown(node) {
    const out = [];
    return writeJson(node, out) ? { json: true, text: out.join("") } : { json: false, text: inspect(node) };
  }

  // Plain JSON only: `null`, booleans, finite numbers other than `-0`,
  // whole strings, arrays and plain objects of those. Anything JSON would
  // change or drop (`undefined`, `NaN`, a Map, a cut string, a class
  // instance) makes it false.
  function writeJson(node, out) {
    switch (node.t) {
      case "null":
        out.push("null");
        return true;
      case "bool":
        out.push(String(node.value));
        return true;
      case "number":
        if (!Number.isFinite(node.value) || same(node.value, -0)) return false;
        out.push(number(node.value));
        return true;
      case "str":
        out.push(quote(node.text));
        return true;
      case "array":
        if (node.more) return false;
        out.push("[");
        for (let i = 0; i < node.items.length; i++) {
          if (i) out.push(",");
          if (!writeJson(node.items[i], out)) return false;
        }
        out.push("]");
        return true;
      case "object":
        if (node.more || (node.ctor !== null && node.ctor !== "Object")) return false;
        out.push("{");
        for (let i = 0; i < node.entries.length; i++) {
          if (i) out.push(",");
          out.push(quote(node.entries[i][0]), ":");
          if (!writeJson(node.entries[i][1], out)) return false;
        }
        out.push("}");
        return true;
    }
    return false;
  }

  // The escapes JSON writes by name; other control characters as `\u00XX`.
  const escapes = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

  // A JSON string literal (only `"`, `\` and control characters escaped).
  function quote(t) {
    return (
      '"' +
      t.replace(/["\\\u0000-\u001f]/g, (c) => escapes[c] || "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")) +
      '"'
    );
  }

  // A number as JavaScript prints it, `-0` included.
  const number = (n) => (same(n, -0) ? "-0" : String(n));

  // An object key as JavaScript would need it written: bare when it is
  // letters, digits, `_` and `$` (not starting with a digit), quoted
  // otherwise.
  const key = (k) => (/^[\p{Alphabetic}\p{N}_$]+$/u.test(k) && !/^[0-9]/.test(k) ? k : quote(k));

  // The inspect-style text of a walked tree, `indent` levels in.
  function inspect(node, indent = 0) {
    const inner = indent + 1;
    const child = (n) => inspect(n, inner);
    switch (node.t) {
      case "undefined":
      case "null":
        return node.t;
      case "bool":
        return String(node.value);
      case "number":
        return number(node.value);
      case "bigint":
        return node.digits + "n";
      case "str":
        return quote(node.text);
      case "longstr":
        return quote(node.text) + "... (" + Math.max(0, node.len - chars(node.text)) + " more characters)";
      case "symbol":
        return "Symbol(" + node.desc + ")";
      case "function":
        return (node.class ? "class " : "ƒ ") + node.signature;
      case "date":
        return node.iso === null ? "Invalid Date" : "Date(" + node.iso + ")";
      case "regexp":
        return node.text;
      case "error": {
        const { name, message, stack, cause } = node;
        let s =
          stack === null
            ? name + ": " + message
            : stack.includes(message)
              ? stack.trimEnd()
              : name + ": " + message + "\n" + stack.trimEnd();
        if (cause) s += " { [cause]: " + inspect(cause, indent) + " }";
        return s;
      }
      case "element": {
        let s = "<" + node.tag.replace(/[A-Z]+/g, (c) => c.toLowerCase());
        if (node.id) s += "#" + node.id;
        for (const c of node.classes) s += "." + c;
        s += ">";
        const text = words(node.text);
        if (text) s += " " + quote(chars(text) > 40 ? firstChars(text, 40) + "…" : text);
        return s;
      }
      case "promise": {
        const state = node.state;
        const inside =
          state === "pending"
            ? "<pending>"
            : state === "fulfilled"
              ? child(node.value)
              : "<rejected> " + child(node.value);
        return "Promise { " + inside + " }";
      }
      case "ref":
        return "<ref *" + node.n + "> " + inspect(node.inner, indent);
      case "circular":
        return "[Circular *" + node.n + "]";
      case "getter":
        return "[Getter]";
      case "deep":
        return "[" + node.kind + "]";
      case "array":
        return layout("", "[", node.items.map(child), node.items.length + node.more, "]", false, indent);
      case "object": {
        const prefix = node.ctor === null || node.ctor === "Object" ? "" : node.ctor + " ";
        const items = node.entries.map(([k, v]) => key(k) + ": " + child(v));
        return layout(prefix, "{", items, node.entries.length + node.more, "}", true, indent);
      }
      case "map": {
        const items = node.entries.map(([k, v]) => child(k) + " => " + child(v));
        return layout("Map(" + node.size + ") ", "{", items, node.size, "}", false, indent);
      }
      case "set":
        return layout("Set(" + node.size + ") ", "{", node.items.map(child), node.size, "}", false, indent);
      case "collection":
        return layout(node.kind + "(" + node.len + ") ", "[", node.items.map(child), node.len, "]", false, indent);
      case "typed":
        return layout(node.kind + "(" + node.len + ") ", "[", node.items.slice(), node.len, "]", false, indent);
    }
    return "";
  }

  // A container: one line when it fits in WIDTH columns (and no item
  // spans lines), else one item a line, indented by two spaces a level.
  // Objects are written `{ a: 1 }`; arrays, maps and sets `[1]`, `{1}`.
  function layout(prefix, open, items, total, close, spaced, indent) {
    if (total > items.length) {
      const n = total - items.length;
      items.push("... " + n + " more item" + (n === 1 ? "" : "s"));
    }
    if (!items.length) return prefix + open + close;
    const one = spaced ? open + " " + items.join(", ") + " " + close : open + items.join(", ") + close;
    if (indent * 2 + chars(prefix) + chars(one) <= WIDTH && !one.includes("\n")) return prefix + one;
    const pad = "  ".repeat(indent + 1);
    return prefix + open + "\n" + items.map((item) => pad + item).join(",\n") + "\n" + "  ".repeat(indent) + close;
  }

  // The most `depth=` shows (`MAX_DEPTH` in server/protocol/src/lib.rs).
  const MAX_DEPTH = 20;

  // `(cut at depth 4: depth=6 shows more)`: the depth that shows the whole
  // value, found by walking it again (strings not copied) as deep as
  // `depth=` goes; up to 20, and 2 more than `depth` when that walk ran
  // out of nodes before it saw deeper.
  function cutNote(value, met, states, depth, items, nodes) {
    if (depth >= MAX_DEPTH) return "(cut at depth " + depth + ", the deepest a reply shows)";
    const probe = new Walker([MAX_DEPTH, items, 0, nodes, 0]);
    probe.node(value, 0);
    met.forEach((_, i) => states[i] && probe.node(states[i].v, 1));
    const whole = probe.cutAtDepth ? MAX_DEPTH : probe.reach + 1;
    const more = whole > depth ? whole : Math.min(depth + 2, MAX_DEPTH);
    return "(cut at depth " + depth + ": depth=" + more + " shows more)";
  }

  return {
    now(value, limits) {
      return shown(new Walker(limits).node(value, 0));
    },
    // A job's value: with a last line that says so when the depth limit
    // cut it (docs/log-format.md, "Values"). Shown at once when it holds
    // no promise (most values: no turn of the microtask queue), else a
    // promise of it, their states learned.
    later(value, limits) {
      const [depth, items, , nodes] = limits;
      const w = new Walker(limits);
      const node = w.node(value, 0);
      const met = w.promises.splice(0);
      const done = (states) => {
        // Settled values are walked without looking into their own promises.
        met.forEach(([promise], i) => {
          const s = states[i];
          if (!s) return;
          promise.state = s.state;
          promise.value = w.node(s.v, 1);
        });
        const out = shown(node);
        if (w.cutAtDepth) out.text += "\n" + cutNote(value, met, states, depth, items, nodes);
        return out;
      };
      if (!met.length) return done([]);
      return (async () => {
        const states = [];
        for (const [, p] of met) states.push(await settled(p));
        return done(states);
      })();
    },
  };
}
