// debugger.js: logpoints, `monitor` and `daebug.scopes` through a debugger
// that never pauses (docs/log-format.md, "Logpoints"), in plain JavaScript
// spliced into both loaders after hooks.js. `debugging(kit, hooks)` adds
// what it provides to the toolkit object `kit`.
//
// In Node the debugger is the process's own (`node:inspector`, a session
// in process, on the main thread): every breakpoint set here has a
// condition that hands its values to this file and answers `false`, so it
// never pauses; a pause that comes anyway (a `debugger;` statement while a
// logpoint is set) is resumed at once. Each hit is one line for the log
// (`Text logpoint`, `Text monitor`), given to the adapter through the
// toolkit's `Symbol.for("daebug.line")`. Pages and workers have no
// debugger here yet: each call says so in one line.
function debugging(kit, hooks) {
  const g = globalThis;
  // Where the breakpoints' conditions find this file's hit functions,
  // and where a value waits for the debugger to name it.
  const HIT = 'globalThis[Symbol.for("daebug.logpoint")]';
  const CALLED = 'globalThis[Symbol.for("daebug.monitor")]';
  const VALUE = Symbol.for("daebug.debuggee");
  const GROUP = "daebug";
  const MAX = 100;
  const inNode = kit.realm && kit.realm.kind === "node";
  const say = (text, kind) => {
    try {
      const line = kit[Symbol.for("daebug.line")];
      if (typeof line === "function") line(text, kind);
    } catch {}
  };
  // A value on a line: as the console shows its arguments, shorter, on
  // one line.
  let view = null;
  const shown = (v) => {
    try {
      view ??= values((s) => s);
      return view.now(v, [1, 10, 200, 1000, 1 << 20]).text.replace(/\n\s*/g, " ");
    } catch {
      return "[unreadable]";
    }
  };
  const nameOf = (fn) => {
    try {
      return typeof fn.name === "string" && fn.name ? fn.name : "(anonymous)";
    } catch {
      return "(anonymous)";
    }
  };

  if (!inNode) {
    const none = (what) =>
      new Error(`${what} needs a debugger: daebug has one in Node processes only so far (pages and workers have none here, with --cdp too); daebug.probe([object, "method"]) wraps a function in place instead`);
    kit.logpoint = async () => {
      throw none("daebug.logpoint");
    };
    kit.scopes = async () => {
      throw none("daebug.scopes");
    };
    kit.monitor = () => {
      throw none("monitor()");
    };
    kit.unmonitor = () => {};
    Object.defineProperty(kit, "logpoints", { get: () => [], configurable: true, enumerable: true });
    return;
  }

  // The process's own debugger: one session, made on first use; its
  // answers come at once (same thread), so `post` is synchronous.
  let session = null;
  function post(method, params) {
    if (!session) {
      const inspector = process.getBuiltinModule?.("node:inspector");
      if (!inspector || typeof inspector.Session !== "function") {
        throw new Error(`this Node (${process.version}) has no node:inspector in process; daebug.probe([object, "method"]) wraps a function in place instead`);
      }
      session = new inspector.Session();
      session.connect();
      // Never paused: a `debugger;` statement met while the debugger is
      // on goes on at once.
      session.on("Debugger.paused", () => {
        try {
          post("Debugger.resume");
        } catch {}
      });
    }
    let answer, failed, done = false;
    session.post(method, params || {}, (e, r) => {
      failed = e;
      answer = r;
      done = true;
    });
    if (!done) throw new Error(`the debugger did not answer ${method} at once`);
    if (failed) throw new Error(String(failed.message || failed));
    return answer;
  }
  // The debugger's handle on a live value (released with GROUP).
  function remote(value) {
    Object.defineProperty(g, VALUE, { value, configurable: true });
    try {
      const r = post("Runtime.evaluate", { expression: "globalThis[Symbol.for(\"daebug.debuggee\")]", objectGroup: GROUP, silent: true });
      return r.result;
    } finally {
      delete g[VALUE];
    }
  }
  const release = () => {
    try {
      post("Runtime.releaseObjectGroup", { objectGroup: GROUP });
    } catch {}
  };

  // The debugger is on while a logpoint or a monitor is set: off, it
  // costs the program nothing.
  let on = false;
  const points = new Map();
  const monitors = new Map();
  function debuggerOn() {
    if (!on) post("Debugger.enable");
    on = true;
  }
  function debuggerOffIfIdle() {
    if (!on || points.size || monitors.size) return;
    on = false;
    try {
      post("Debugger.disable");
    } catch {}
  }
  let ids = 0;

  // A hit, from a logpoint's condition: its values (or what its
  // expressions threw), one line for the log.
  Object.defineProperty(g, Symbol.for("daebug.logpoint"), {
    configurable: true,
    value(id, got, threw) {
      const lp = points.get(id);
      if (!lp || lp.hits >= lp.max) return;
      lp.hits++;
      let text = lp.label + " ";
      if (threw) text += "threw " + (got && got.message !== undefined ? `${got.name}: ${got.message}` : shown(got));
      else text += lp.names.map((n, i) => n + "=" + shown(got[i])).join(" ");
      if (lp.hits >= lp.max) {
        text += ` (hit ${lp.hits}, its max: removed)`;
        // Not from inside the debugger's own evaluation.
        setTimeout(() => lp.remove(), 0).unref?.();
      }
      say(text, "logpoint");
    },
  });
  // A call of a monitored function, from its breakpoint's condition.
  Object.defineProperty(g, Symbol.for("daebug.monitor"), {
    configurable: true,
    value(id, args) {
      const m = [...monitors.values()].find((m) => m.id === id);
      if (!m) return;
      const list = args ? Array.prototype.map.call(args, shown).join(", ") : "";
      say(`function ${m.name} called${args && args.length ? " with arguments: " + list : ""}`, "monitor");
    },
  });

  // `daebug.logpoint("src/server/stats.js:33", "id, todo, seen.size",
  // { max, when })`: the expressions, evaluated in that line's scope each
  // time it runs (when `when` is true there), as `Text logpoint` lines,
  // until `remove()` or `max` hits (100 unless told).
  kit.logpoint = async function logpoint(where, expressions, options) {
    const m = /^(.+?):(\d+)(?::(\d+))?$/.exec(typeof where === "string" ? where.trim() : "");
    if (!m || Number(m[2]) < 1) throw new TypeError('daebug.logpoint: pass the place as "path:line", like "src/server/stats.js:33"');
    const names = Array.isArray(expressions) ? expressions.map(String) : typeof expressions === "string" ? split(expressions) : [];
    if (!names.length) throw new TypeError('daebug.logpoint: pass what to log, like "id, todo, seen.size"');
    const o = options !== null && typeof options === "object" ? options : {};
    const max = o.max === undefined ? MAX : Number(o.max);
    if (!(max >= 1)) throw new TypeError("daebug.logpoint: max is a number of hits, 1 or more");
    const when = o.when === undefined ? "" : String(o.when);
    const id = ++ids;
    const hit = `${HIT}(${id}, [${names.join(", ")}])`;
    const condition = `try { ${when ? `(${when}) && ` : ""}${hit} } catch (e) { ${HIT}(${id}, e, true) }\nfalse`;
    try {
      new Function(condition);
    } catch (e) {
      throw new SyntaxError(`daebug.logpoint: ${e.message} (in ${JSON.stringify(when ? `${when} / ${expressions}` : String(expressions))})`);
    }
    const path = m[1].replace(/^\.?\//, "").replace(/\?.*$/, "");
    const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\//g, "[/\\\\]");
    const params = { urlRegex: `(^|[/\\\\])${escaped}(\\?.*)?$`, lineNumber: Number(m[2]) - 1, condition };
    if (m[3]) params.columnNumber = Number(m[3]) - 1;
    debuggerOn();
    let set;
    try {
      set = post("Debugger.setBreakpointByUrl", params);
    } catch (e) {
      debuggerOffIfIdle();
      throw new Error(`daebug.logpoint(${JSON.stringify(where)}): ${e.message}`);
    }
    const base = path.split("/").pop();
    const lp = {
      at: `${path}:${m[2]}${m[3] ? ":" + m[3] : ""}`,
      log: names.join(", "),
      ...(when ? { when } : {}),
      hits: 0,
      max,
      remove() {
        if (!points.has(id)) return false;
        points.delete(id);
        try {
          post("Debugger.removeBreakpoint", { breakpointId: set.breakpointId });
        } catch {}
        debuggerOffIfIdle();
        return true;
      },
    };
    // Not on the object the block sees: what the hit reads.
    Object.defineProperties(lp, {
      label: { value: `${base}:${m[2]}` },
      names: { value: names },
    });
    if (!set.locations.length) {
      lp.pending = `no script loaded yet ends with ${path}: set when one loads`;
    }
    points.set(id, lp);
    return lp;
  };
  Object.defineProperty(kit, "logpoints", {
    get: () => [...points.values()],
    configurable: true,
    enumerable: true,
  });

  // `monitor(fn)`: every call of `fn`, through any reference, as a `Text
  // monitor` line, as DevTools' `monitor` does (a breakpoint on its calls
  // whose condition logs and answers false).
  kit.monitor = function monitor(fn) {
    if (typeof fn !== "function") throw new TypeError("monitor: pass a function, like monitor(save)");
    if (monitors.has(fn)) return;
    const id = ++ids;
    // An arrow function has no `arguments`: its parameters by name, when
    // they are plain names (else the call is logged without them).
    const params = arrowParams(fn);
    const args = params === undefined ? "arguments" : params ? `[${params}]` : "null";
    debuggerOn();
    try {
      const target = remote(fn);
      const set = post("Debugger.setBreakpointOnFunctionCall", {
        objectId: target.objectId,
        condition: `try { ${CALLED}(${id}, ${args}) } catch {}\nfalse`,
      });
      monitors.set(fn, { id, name: nameOf(fn), breakpointId: set.breakpointId });
    } catch (e) {
      debuggerOffIfIdle();
      throw new Error(`monitor(${nameOf(fn)}): ${e.message}`);
    } finally {
      release();
    }
  };
  kit.unmonitor = function unmonitor(fn) {
    const m = monitors.get(fn);
    if (!m) return;
    monitors.delete(fn);
    try {
      post("Debugger.removeBreakpoint", { breakpointId: m.breakpointId });
    } catch {}
    debuggerOffIfIdle();
  };

  // `await daebug.scopes(fn)`: the variables `fn` closes over, by scope
  // (`closure`, `module`, `script`, `block`; the global scope left out),
  // as live values, read through the debugger without pausing.
  kit.scopes = async function scopes(fn) {
    if (typeof fn !== "function") throw new TypeError("daebug.scopes: pass a function, like daebug.scopes(save)");
    const out = {};
    const put = (scope, name, value) => {
      out[scope][name] = value;
    };
    try {
      let target = remote(fn).objectId;
      let inner = post("Runtime.getProperties", { objectId: target, ownProperties: false }).internalProperties || [];
      // A bound function: the function it calls.
      for (let bound = inner.find((p) => p.name === "[[TargetFunction]]"); bound; bound = inner.find((p) => p.name === "[[TargetFunction]]")) {
        target = bound.value.objectId;
        inner = post("Runtime.getProperties", { objectId: target, ownProperties: false }).internalProperties || [];
      }
      const list = inner.find((p) => p.name === "[[Scopes]]");
      if (!list) throw new Error(`daebug.scopes(${nameOf(fn)}): it closes over nothing daebug can read (native code?)`);
      const putter = remote(put).objectId;
      const found = post("Runtime.getProperties", { objectId: list.value.objectId, ownProperties: true }).result;
      for (const s of found) {
        if (!/^\d+$/.test(s.name) || !s.value || !s.value.objectId) continue;
        const description = String(s.value.description || "Scope");
        const kind = description.split(" ")[0].toLowerCase();
        if (kind === "global") continue;
        let key = kind in out ? description.charAt(0).toLowerCase() + description.slice(1) : kind;
        for (let n = 2; key in out; n++) key = `${kind} ${n}`;
        out[key] = {};
        const vars = post("Runtime.getProperties", { objectId: s.value.objectId, ownProperties: true }).result;
        for (const v of vars) {
          if (!v.value) continue;
          post("Runtime.callFunctionOn", {
            objectId: putter,
            functionDeclaration: "function (s, k, v) { this(s, k, v) }",
            arguments: [{ value: key }, { value: v.name }, argument(v.value)],
            silent: true,
          });
        }
      }
    } finally {
      release();
    }
    return out;
  };

  // How the debugger is handed a value back.
  function argument(r) {
    if (r.objectId) return { objectId: r.objectId };
    if (r.unserializableValue) return { unserializableValue: r.unserializableValue };
    if (r.type === "undefined") return {};
    return { value: r.value };
  }

  // An arrow function's parameters, when they are plain names (`(a, b)`,
  // `a`, `(a, ...rest)`), as a list; "" when they are not plain;
  // undefined when `fn` is not an arrow function (it has `arguments`).
  function arrowParams(fn) {
    let source;
    try {
      if ("prototype" in fn) return undefined;
      source = Function.prototype.toString.call(fn);
    } catch {
      return undefined;
    }
    const m = /^(?:async\s*)?(?:\(([^()]*)\)|([A-Za-z_$][\w$]*))\s*=>/.exec(source);
    if (!m) return /^(?:async\s*)?(?:\(|[A-Za-z_$][\w$]*\s*=>)/.test(source) ? "" : undefined;
    const list = (m[1] ?? m[2]).split(",").map((p) => p.trim()).filter(Boolean);
    return list.every((p) => /^(\.\.\.)?[A-Za-z_$][\w$]*$/.test(p)) ? list.join(", ") : "";
  }

  // "id, todo, seen.size" as ["id", "todo", "seen.size"]: split at the
  // commas outside brackets and strings.
  function split(text) {
    const out = [];
    let depth = 0, quote = "", start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (quote) {
        if (c === "\\") i++;
        else if (c === quote) quote = "";
      } else if (c === '"' || c === "'" || c === "`") quote = c;
      else if ("([{".includes(c)) depth++;
      else if (")]}".includes(c)) depth--;
      else if (c === "," && depth === 0) {
        out.push(text.slice(start, i).trim());
        start = i + 1;
      }
    }
    out.push(text.slice(start).trim());
    return out.filter(Boolean);
  }
}
