// debugger.js: logpoints, `monitor` and `daebug.scopes` through a debugger
// that never pauses (docs/log-format.md, "Logpoints"), in plain JavaScript
// spliced into both loaders after hooks.js. `debugging(kit, hooks)` adds
// what it provides to the toolkit object `kit`.
//
// Every breakpoint set here has a condition that hands its values to this
// file and answers `false`, so it never pauses; a pause that comes anyway
// (a `debugger;` statement while a logpoint is set) is resumed at once.
// Each hit is one line for the log (`Text logpoint`, `Text monitor`),
// given to the adapter through the toolkit's `Symbol.for("daebug.line")`.
// The debugger is Node's own in a Node process (`node:inspector`, a
// session in process on the main thread, whose answers come at once), and
// in a page or a worker the browser's, through the hub's browser bridge
// (`--cdp`): each command crosses the hub (the toolkit's
// `Symbol.for("daebug.cdp")`), which refuses in one line where there is
// no bridge.
function debugging(kit, hooks) {
  const g = globalThis;
  // Where the breakpoints' conditions find this file's hit functions.
  const HIT = 'globalThis[Symbol.for("daebug.logpoint")]';
  const CALLED = 'globalThis[Symbol.for("daebug.monitor")]';
  const MAX = 100;
  const kind = kit.realm ? kit.realm.kind : "";
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
  const isPromise = (v) => v != null && typeof v.then === "function";
  // Runs `steps` in order, each given the one before's value: at once
  // while the debugger answers at once (Node, so `monitor(f); f()` logs
  // that call), else as a promise; `fail` has what went wrong.
  function chain(steps, fail) {
    const from = (i, v) => {
      try {
        for (; i < steps.length; i++) {
          v = steps[i](v);
          if (isPromise(v)) return v.then((x) => from(i + 1, x), fail);
        }
        return v;
      } catch (e) {
        return fail(e);
      }
    };
    return from(0, undefined);
  }

  // `post(method, params)`: the debugger's answer (Node), or a promise of
  // it (the browser's, through the hub).
  let post;
  // Node: the scripts the debugger reported, each with its source map's
  // URL ("" when none), for places in an original source.
  const parsed = new Map();
  if (kind === "node") {
    let session = null;
    post = (method, params) => {
      if (!session) {
        const inspector = process.getBuiltinModule?.("node:inspector");
        if (!inspector || typeof inspector.Session !== "function") {
          throw new Error(`this Node (${process.version}) has no node:inspector in process; daebug.probe([object, "method"]) wraps a function in place instead`);
        }
        session = new inspector.Session();
        session.connect();
        // Never paused: a `debugger;` statement met while the debugger
        // is on goes on at once.
        session.on("Debugger.paused", () => {
          try {
            post("Debugger.resume");
          } catch {}
        });
        session.on("Debugger.scriptParsed", (m) => {
          const p = m && m.params;
          if (p && p.url && !p.url.startsWith("node:")) parsed.set(p.url, p.sourceMapURL || "");
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
    };
  } else {
    const cdp = kit[Symbol.for("daebug.cdp")];
    post = (method, params) => {
      if (typeof cdp !== "function") throw new Error("this realm's adapter is older than its hub; reload it");
      return cdp({ method, params: params || {} });
    };
  }

  // The debugger's handle on a live value, in `group` (each call that
  // reads values has its own, released when it is done, so one call's
  // release never takes another's handles): the value waits on the
  // global object under a key of its own while the debugger reads it.
  let handles = 0;
  const group = () => `daebug-${++handles}`;
  function remote(value, group) {
    const key = `daebug.debuggee.${++handles}`;
    Object.defineProperty(g, Symbol.for(key), { value, configurable: true });
    const done = () => delete g[Symbol.for(key)];
    return chain(
      [() => post("Runtime.evaluate", { expression: `globalThis[Symbol.for(${JSON.stringify(key)})]`, objectGroup: group, silent: true }), (r) => (done(), r.result)],
      (e) => {
        done();
        throw e;
      },
    );
  }
  const release = (group) => {
    try {
      const r = post("Runtime.releaseObjectGroup", { objectGroup: group });
      if (isPromise(r)) r.catch(() => {});
    } catch {}
  };

  // The debugger is on while a logpoint or a monitor is set: off, it
  // costs the program nothing.
  let on = false;
  const points = new Map();
  const monitors = new Map();
  const debuggerOn = () => {
    if (on) return;
    on = true;
    return post("Debugger.enable");
  };
  const debuggerOffIfIdle = () => {
    if (!on || points.size || monitors.size) return;
    on = false;
    try {
      const r = post("Debugger.disable");
      if (isPromise(r)) r.catch(() => {});
    } catch {}
  };
  let ids = 0;

  // A page keeps its logpoints across reloads: the bridge's breakpoints
  // stay with the tab, and what this file knows of them is kept in the
  // tab's sessionStorage for the next document.
  const KEPT = "daebug.logpoints";
  const storage = (() => {
    try {
      return kind === "page" && g.sessionStorage ? g.sessionStorage : null;
    } catch {
      return null;
    }
  })();
  const keep = () => {
    try {
      if (!storage) return;
      const all = [...points.values()].map((lp) => ({ ...lp, id: lp.id, label: lp.label, names: lp.names, breakpointId: lp.breakpointId }));
      if (all.length) storage.setItem(KEPT, JSON.stringify(all));
      else storage.removeItem(KEPT);
    } catch {}
  };

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
      if (storage) keep();
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

  // A logpoint as blocks see it; `remove()` takes it off.
  function logpointOf(d) {
    const lp = {
      at: d.at,
      log: d.log,
      ...(d.when ? { when: d.when } : {}),
      hits: d.hits || 0,
      max: d.max,
      ...(d.pending ? { pending: d.pending } : {}),
      ...(d.mapped ? { mapped: d.mapped } : {}),
      remove() {
        if (!points.has(d.id)) return false;
        points.delete(d.id);
        keep();
        return chain(
          [() => post("Debugger.removeBreakpoint", { breakpointId: d.breakpointId }), () => (debuggerOffIfIdle(), true)],
          () => (debuggerOffIfIdle(), true),
        );
      },
    };
    // Not on the object the block sees: what a hit and a reload read.
    Object.defineProperties(lp, {
      id: { value: d.id },
      label: { value: d.label },
      names: { value: d.names },
      breakpointId: { value: d.breakpointId },
    });
    return lp;
  }
  if (storage) {
    try {
      for (const d of JSON.parse(storage.getItem(KEPT) || "[]")) {
        points.set(d.id, logpointOf(d));
        ids = Math.max(ids, d.id);
        on = true;
      }
    } catch {}
  }

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
    // Where daebug is not (another realm running the same script), the
    // hit function is missing: nothing is logged, and it never pauses.
    const condition = `try { ${when ? `(${when}) && ` : ""}${hit} } catch (e) { try { ${HIT}(${id}, e, true) } catch {} }\nfalse`;
    try {
      new Function(condition);
    } catch (e) {
      if (e instanceof SyntaxError) throw new SyntaxError(`daebug.logpoint: ${e.message} (in ${JSON.stringify(when ? `${when} / ${expressions}` : String(expressions))})`);
      // A page whose CSP forbids making functions: the browser reads it.
    }
    const path = m[1].replace(/^\.?\//, "").replace(/\?.*$/, "");
    const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\//g, "[/\\\\]");
    const params = { urlRegex: `(^|[/\\\\])${escaped}(\\?.*)?(#.*)?$`, lineNumber: Number(m[2]) - 1, condition };
    if (m[3]) params.columnNumber = Number(m[3]) - 1;
    // The place is the original source: where a loaded script's source
    // map says it is in the script that runs (a bundle, Vite's
    // transformed module, a compiled TypeScript file).
    let mapped = null;
    const failed = (e) => {
      if (!points.size && !monitors.size) on = false;
      return new Error(`daebug.logpoint(${JSON.stringify(where)}): ${e.message}`);
    };
    {
      // Node's debugger tells its scripts once it is on.
      if (kind === "node") {
        try {
          await debuggerOn();
        } catch (e) {
          throw failed(e);
        }
      }
      try {
        mapped = await generated(new RegExp(`(^|[/\\\\])${escaped}$`), params.lineNumber, m[3] ? params.columnNumber : 0);
      } catch {}
      if (mapped) {
        const [url, line, column] = mapped;
        const bare = url.split(/[?#]/)[0].replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        Object.assign(params, { urlRegex: `^${bare}(\\?.*)?(#.*)?$`, lineNumber: line, columnNumber: column });
      }
    }
    let set;
    try {
      await debuggerOn();
      set = await post("Debugger.setBreakpointByUrl", params);
    } catch (e) {
      throw failed(e);
    }
    const lp = logpointOf({
      id,
      at: `${path}:${m[2]}${m[3] ? ":" + m[3] : ""}`,
      label: `${path.split("/").pop()}:${m[2]}`,
      names,
      log: names.join(", "),
      when,
      max,
      breakpointId: set.breakpointId,
      pending: set.locations && set.locations.length ? "" : `no script loaded yet ends with ${path}: set when one loads`,
      mapped: mapped ? `${mapped[0].split(/[?#]/)[0]}:${mapped[1] + 1}:${mapped[2] + 1}` : "",
    });
    points.set(id, lp);
    keep();
    return lp;
  };
  Object.defineProperty(kit, "logpoints", {
    get: () => [...points.values()],
    configurable: true,
    enumerable: true,
  });

  // `monitor(fn)`: every call of `fn`, through any reference, as a `Text
  // monitor` line, as DevTools' `monitor` does (a breakpoint on its calls
  // whose condition logs and answers false). In Node it is set when
  // `monitor` returns; in a page or a worker, when its promise resolves.
  kit.monitor = function monitor(fn) {
    if (typeof fn !== "function") throw new TypeError("monitor: pass a function, like monitor(save)");
    if (monitors.has(fn)) return;
    const m = { id: ++ids, name: nameOf(fn), breakpointId: "" };
    monitors.set(fn, m);
    // An arrow function has no `arguments`: its parameters by name, when
    // they are plain names (else the call is logged without them).
    const params = arrowParams(fn);
    const args = params === undefined ? "arguments" : params ? `[${params}]` : "null";
    const handles = group();
    return chain(
      [
        debuggerOn,
        () => remote(fn, handles),
        (target) =>
          post("Debugger.setBreakpointOnFunctionCall", {
            objectId: target.objectId,
            condition: `try { ${CALLED}(${m.id}, ${args}) } catch {}\nfalse`,
          }),
        (set) => {
          m.breakpointId = set.breakpointId;
          release(handles);
        },
      ],
      (e) => {
        monitors.delete(fn);
        release(handles);
        debuggerOffIfIdle();
        throw new Error(`monitor(${m.name === "(anonymous)" ? "" : m.name}): ${e.message}`);
      },
    );
  };
  kit.unmonitor = function unmonitor(fn) {
    const m = monitors.get(fn);
    if (!m) return;
    monitors.delete(fn);
    return chain([() => post("Debugger.removeBreakpoint", { breakpointId: m.breakpointId }), () => void debuggerOffIfIdle()], () => void debuggerOffIfIdle());
  };

  // `await daebug.scopes(fn)`: the variables `fn` closes over, by scope
  // (`closure`, `module`, `script`, `block`; the global scope left out),
  // as live values, read through the debugger without pausing.
  kit.scopes = async function scopes(fn) {
    if (typeof fn !== "function") throw new TypeError("daebug.scopes: pass a function, like daebug.scopes(save)");
    const out = {};
    const handles = group();
    const put = (scope, names, ...vs) => {
      names.forEach((name, i) => (out[scope][name] = vs[i]));
    };
    try {
      let target = (await remote(fn, handles)).objectId;
      let inner = (await post("Runtime.getProperties", { objectId: target, ownProperties: false })).internalProperties || [];
      // A bound function: the function it calls.
      for (let bound = inner.find((p) => p.name === "[[TargetFunction]]"); bound; bound = inner.find((p) => p.name === "[[TargetFunction]]")) {
        target = bound.value.objectId;
        inner = (await post("Runtime.getProperties", { objectId: target, ownProperties: false })).internalProperties || [];
      }
      const list = inner.find((p) => p.name === "[[Scopes]]");
      if (!list) throw new Error("it closes over nothing daebug can read (native code?)");
      const putter = (await remote(put, handles)).objectId;
      const found = (await post("Runtime.getProperties", { objectId: list.value.objectId, ownProperties: true })).result;
      for (const s of found) {
        if (!/^\d+$/.test(s.name) || !s.value || !s.value.objectId) continue;
        const description = String(s.value.description || "Scope");
        const kind = description.split(" ")[0].toLowerCase();
        if (kind === "global") continue;
        let key = kind in out ? description.charAt(0).toLowerCase() + description.slice(1) : kind;
        for (let n = 2; key in out; n++) key = `${kind} ${n}`;
        out[key] = {};
        const vars = (await post("Runtime.getProperties", { objectId: s.value.objectId, ownProperties: true })).result.filter((v) => v.value);
        // One call a scope: its names, then their values as arguments.
        await post("Runtime.callFunctionOn", {
          objectId: putter,
          functionDeclaration: "function (s, names, ...vs) { this(s, names, ...vs) }",
          arguments: [{ value: key }, { value: vars.map((v) => v.name) }, ...vars.map((v) => argument(v.value))],
          silent: true,
        });
      }
    } catch (e) {
      throw new Error(`daebug.scopes(${nameOf(fn)}): ${e.message}`);
    } finally {
      release(handles);
    }
    return out;
  };

  // The scripts this page or worker loaded (resource timing entries
  // other than fetch/XHR/beacon, a page's script elements, a worker's
  // own script), newest first, each once.
  function loaded() {
    if (kind === "node") return [...parsed.keys()].reverse();
    const urls = [];
    try {
      for (const e of g.performance.getEntriesByType("resource").reverse()) {
        if (!["fetch", "xmlhttprequest", "beacon"].includes(e.initiatorType)) urls.push(e.name);
      }
    } catch {}
    try {
      for (const s of g.document.querySelectorAll("script[src]")) urls.push(s.src);
    } catch {}
    try {
      if (g.document == null && g.location != null) urls.push(g.location.href);
    } catch {}
    return [...new Set(urls.filter((u) => typeof u === "string" && /^https?:/.test(u)))];
  }
  // daebug's own reads (a script, its map) are not the block's requests:
  // under a cause of their own (hooks.js's `causes`), as components.js's.
  const READING = { why: "daebug.logpoint reading a source map", own: true };
  async function get(url) {
    const c = hooks && hooks.causes;
    const was = c ? c.now() : null;
    if (c) c.hold(READING);
    try {
      return await g.fetch(url);
    } finally {
      if (c) c.hold(was);
    }
  }
  // The source map of the script at `url` (`sourceMappingURL`, a file or
  // a `data:` URL), once per script; `base` what its sources are
  // relative to.
  const maps = new Map();
  function mapOf(url) {
    if (kind === "node") return nodeMap(url);
    if (!maps.has(url)) {
      const made = (async () => {
        const text = await (await get(url)).text();
        const ref = /\/\/[#@] sourceMappingURL=(\S+)\s*$/.exec(text);
        if (!ref) return null;
        const at = new URL(ref[1], url).href;
        const map = await (await get(at)).json();
        const base = at.startsWith("data:") ? url : at;
        map.base = map.sourceRoot ? new URL(map.sourceRoot, base).href : base;
        return map;
      })().catch(() => null);
      maps.set(url, made);
    }
    return maps.get(url);
  }
  // Node: the map the debugger named for the script at `url` (a file
  // beside it, or a `data:` URL), read once.
  function nodeMap(url) {
    if (maps.has(url)) return maps.get(url);
    let map = null;
    try {
      const ref = parsed.get(url);
      if (ref) {
        const file = /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : process.getBuiltinModule("node:url").pathToFileURL(url).href;
        const at = new URL(ref, file).href;
        const data = /^data:[^,]*?(;base64)?,(.*)$/s.exec(at);
        const text = data
          ? data[1] ? Buffer.from(data[2], "base64").toString("utf8") : decodeURIComponent(data[2])
          : process.getBuiltinModule("node:fs").readFileSync(new URL(at), "utf8");
        map = JSON.parse(text);
        const base = data ? file : at;
        map.base = map.sourceRoot ? new URL(map.sourceRoot, base).href : base;
      }
    } catch {
      map = null;
    }
    maps.set(url, map);
    return map;
  }
  // Where line `line` (0-based; from `column`) of the source whose path
  // ends as `ends` says runs, in the first loaded script whose map has
  // it (a script served under that path first): [url, line, column],
  // 0-based; null when no map has it, or a script of that path has none
  // (its lines are the source's).
  async function generated(ends, line, column) {
    const urls = loaded();
    const named = (u) => ends.test(u.split(/[?#]/)[0]);
    for (const url of [...urls.filter(named), ...urls.filter((u) => !named(u))].slice(0, 200)) {
      const map = await mapOf(url);
      if (!map && named(url)) return null;
      if (!map || !Array.isArray(map.sources)) continue;
      const source = map.sources.findIndex((s) => {
        try {
          return ends.test(String(s).split(/[?#]/)[0]) || ends.test(new URL(s, map.base).pathname);
        } catch {
          return false;
        }
      });
      if (source < 0) continue;
      const at = reverse(map, source, line, column);
      if (at) return [url, ...at];
    }
    return null;
  }
  // The first generated [line, column] of `source`'s line `line` (from
  // `column`), or of the next line that has code within 5 lines.
  function reverse(map, source, line, column) {
    let best = null;
    let s = 0, ol = 0, oc = 0;
    (map.mappings || "").split(";").forEach((l, gl) => {
      let gc = 0;
      for (const seg of l.split(",")) {
        const d = seg ? vlq(seg) : [];
        if (!d.length) continue;
        gc += d[0];
        if (d.length < 4) continue;
        s += d[1];
        ol += d[2];
        oc += d[3];
        if (s !== source || ol < line || ol > line + 5 || (ol === line && oc < column)) continue;
        if (!best || ol < best[0] || (ol === best[0] && (gl < best[1] || (gl === best[1] && gc < best[2])))) best = [ol, gl, gc];
      }
    });
    return best && [best[1], best[2]];
  }

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
