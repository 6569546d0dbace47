// daebug-panel.mjs: panels, `ask` and `pick` (docs/log-format.md, "Panels"), served by the
// hub and imported by the toolkit (`person.js` in the adapter) the first
// time a block uses one, so the adapter every page loads stays small.
//
// In a page, panels and asks are drawn in a shadow root in the page's
// corner (the page's styles neither leak in nor out). In a worker or a
// Node process there is no page: the `ui` function builds plain nodes
// (`{t, p, c}`), the hub shows them in the dashboard and sends back what
// the person did there. Either way the logic runs here, in the realm:
// the data, the validation, the callbacks and the promises.
//
// Only a person can answer: a submit, a choice or a pick is taken only from
// an event whose `isTrusted` is true (a real click or key press), or from
// the dashboard, whose own trusted click the hub vouches for.

const S = Symbol.for;
const FAILED = "This panel failed to load";

export function start({ toolkit, send, kind }) {
  const page = kind === "page" && typeof document !== "undefined";
  const waits = new Map();
  let next = 1;

  // Everything that waits for a person, to the hub (list_realms, the API
  // and the dashboard show it).
  const sync = () =>
    send(
      JSON.stringify({
        type: "waiting",
        waits: [...waits.values()].map((w) => ({
          id: w.id,
          kind: w.kind,
          title: w.title,
          view: page ? null : (w.view ?? null),
        })),
      }),
    );
  // One `> **human** answered "…"` line and its value in the log.
  const answered = (title, value) =>
    send(JSON.stringify({ type: "answered", title, value: value === undefined ? null : value }));

  const w8 = (kind, title) => {
    const w = { id: next++, kind, title: String(title ?? "") };
    waits.set(w.id, w);
    return w;
  };
  const done = (w) => {
    waits.delete(w.id);
    w.card?.remove();
    sync();
  };

  function mount(o, p) {
    const settle = p[S("daebug.settle")];
    const w = w8("panel", o.title ?? "Panel");
    const schema = o.outputSchema;
    const props = (schema && typeof schema.safeParse !== "function" && schema.properties) || {};
    const values = {};
    let errors = {};
    let closed = false;
    let failed = false;
    const rerender = () => closed || failed || render();
    const data = reactive(o.data ?? {}, rerender);
    p.data = data;
    // A block may change the object it passed (`data.progress = 50`), not
    // only `p.data`: no proxy sees that, so a cheap look while it is open.
    let seen = snap(o.data);
    const look = setInterval(() => {
      const now = snap(o.data);
      if (now !== seen) (seen = now), rerender();
    }, 100);
    look.unref?.(); // a Node process that would end, ends
    const unwatch = watch(o.streamedData, rerender);
    const coerce = (k, v) => {
      const t = props[k]?.type;
      if ((t === "number" || t === "integer") && typeof v === "string") return v.trim() === "" ? undefined : Number(v);
      return v;
    };
    const output = new Proxy(
      {},
      {
        get: (_, k) =>
          typeof k !== "string"
            ? undefined
            : {
                value: values[k] ?? (props[k]?.type === "boolean" ? false : ""),
                error: errors[k] ?? null,
                onChange: (e) => {
                  values[k] = coerce(k, read(e));
                },
              },
      },
    );
    const close = (why) => {
      if (closed) return;
      closed = true;
      clearInterval(look);
      unwatch();
      done(w);
      if (why) settle.no(new Error(why));
    };
    p.$ = { close: () => close("daebug.mount: the panel was closed before a person submitted it") };
    const submit = (e) => {
      if (!e?.isTrusted || closed) return;
      const value = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
      const r = validate(schema, value);
      if (!r.ok) {
        errors = r.errors;
        return render();
      }
      answered(w.title, r.value);
      close();
      settle.ok(r.value);
    };
    const fail = (e) => {
      failed = true;
      console.error(`daebug.mount: ${FAILED}:`, e);
      settle.no(e);
      waits.delete(w.id);
      sync();
      return e;
    };
    function render() {
      const handlers = [submit];
      const hh = page ? h : vh(handlers);
      let ui;
      try {
        const args = { data, streamedData: o.streamedData, output, callbacks: o.callbacks ?? {}, h: hh };
        ui = o.ui ? o.ui(args) : form(hh, props, output);
        if (page) ui = nodes(ui);
      } catch (e) {
        const err = fail(e);
        if (page) return draw(w, [h("p", { class: "failed" }, FAILED), h("pre", null, String(err?.message ?? err))]);
        w.view = { failed: FAILED, error: String(err?.message ?? err) };
        return sync();
      }
      const label = schema ? "Submit" : "Done";
      if (page) {
        const card = draw(w, ui, h("button", { class: "submit", type: "submit", onClick: submit }, label));
        shownErrors(card, errors);
        ownForms(card, submit);
        return card;
      }
      w.view = { ui, errors: unshown(ui, errors), submit: label };
      w.handlers = handlers;
      sync();
    }
    render();
    if (page) requestAnimationFrame(() => performance.mark("daebug:panel-painted"));
    sync();
  }

  function ask(text, { choices } = {}) {
    const list = Array.isArray(choices) && choices.length ? choices.map(String) : ["Continue"];
    const w = w8("ask", text);
    return new Promise((resolve) => {
      const handlers = [];
      const hh = page ? h : vh(handlers);
      const choose = (c) => (e) => {
        if (!e?.isTrusted) return;
        answered(w.title, c);
        done(w);
        resolve(c);
      };
      const ui = [hh("p", { class: "text" }, w.title), hh("div", { class: "choices" }, ...list.map((c) => hh("button", { onClick: choose(c) }, c)))];
      if (page) draw(w, ui, null, "ask");
      else (w.view = { ui }), (w.handlers = handlers);
      sync();
    });
  }

  function pick(prompt) {
    if (!page) return Promise.reject(new Error(`daebug.pick() needs a page to point at; this realm is a ${kind}`));
    const w = w8("pick", prompt ?? "Pick an element");
    return new Promise((resolve, reject) => {
      const box = h("div", { class: "highlight" });
      draw(w, [h("p", { class: "text" }, w.title), h("p", { class: "hint" }, "Click an element (or press Enter) to pick it; Escape cancels.")], null, "ask");
      shadow().append(box);
      let under = null;
      const ours = (el) => el === root?.host;
      const at = (x, y) => document.elementsFromPoint(x, y).find((el) => !ours(el)) ?? null;
      const show = (el) => {
        under = el;
        const r = el?.getBoundingClientRect();
        Object.assign(box.style, r ? { display: "block", left: r.left + "px", top: r.top + "px", width: r.width + "px", height: r.height + "px" } : { display: "none" });
      };
      const stop = () => {
        removeEventListener("pointermove", move, true);
        removeEventListener("click", click, true);
        removeEventListener("keydown", key, true);
        box.remove();
        done(w);
      };
      const move = (e) => e.isTrusted && show(at(e.clientX, e.clientY));
      const take = async (el) => {
        stop();
        if (!el) return reject(new Error("daebug.pick: nothing was under the pointer"));
        const found = await describe(el, toolkit);
        globalThis[S("daebug.$0")] = el;
        // The human line: what was picked, its component by name and source.
        const c = found.component;
        answered(w.title, { ...found, component: c.framework ? { framework: c.framework, name: c.name, source: c.source } : c });
        // The reply shows a picture of it (the same pipeline as daebug.image).
        try {
          await toolkit.snapshot?.(el);
        } catch {}
        resolve({ ...found, element: el });
      };
      const click = (e) => {
        if (!e.isTrusted || ours(e.target)) return;
        e.preventDefault();
        e.stopImmediatePropagation();
        take(at(e.clientX, e.clientY) ?? e.target);
      };
      const key = (e) => {
        if (!e.isTrusted) return;
        if (e.key === "Escape") {
          e.preventDefault();
          stop();
          reject(new Error("daebug.pick: the person cancelled (Escape)"));
        } else if (e.key === "Enter" && under) {
          e.preventDefault();
          take(under);
        }
      };
      addEventListener("pointermove", move, true);
      addEventListener("click", click, true);
      addEventListener("keydown", key, true);
      sync();
    });
  }

  // A person acted on a worker's or Node process's panel in the dashboard.
  function hub(json) {
    let act;
    try {
      act = JSON.parse(json);
    } catch {
      return;
    }
    const f = waits.get(act.id)?.handlers?.[act.handler];
    if (typeof f !== "function") return;
    const value = act.value;
    const target = { value, checked: value === true };
    f({ type: act.event || "click", isTrusted: true, target, currentTarget: target, preventDefault() {}, stopPropagation() {} });
  }

  // ----- the page's card ----------------------------------------------------

  let root = null;
  function shadow() {
    if (root?.host.isConnected) return root;
    const host = document.createElement("daebug-panels");
    host.style.cssText = "all:initial;position:fixed;right:16px;bottom:16px;z-index:2147483647;display:block";
    root = host.attachShadow({ mode: "open" });
    root.append(h("style", null, STYLESHEET));
    (document.body ?? document.documentElement).append(host);
    return root;
  }
  function draw(w, body, foot, cls = "panel") {
    let card = w.card;
    if (!card?.isConnected) {
      card = w.card = h("section", { class: "card " + cls, role: "dialog", "aria-label": w.title, "data-wait": String(w.id) });
      shadow().append(card);
    }
    card.replaceChildren(...[cls === "panel" ? h("header", null, w.title) : null, h("div", { class: "body" }, ...nodes(body)), h("div", { class: "errors" }), foot].filter(Boolean));
    return card;
  }

  return { mount, ask, pick, hub };
}

// A `ui` with a `<form>` of its own: its submit is the panel's, when a
// person's click or Enter caused it (the `submit` event itself is the
// browser's, trusted even when a script's `.click()` caused it).
function ownForms(card, submit) {
  if (card.$forms) return;
  card.$forms = true;
  let person = false;
  // Only for the task of the person's event: the browser submits in it.
  const mark = (yes) => yes && ((person = true), setTimeout(() => (person = false)));
  card.addEventListener("click", (e) => mark(e.isTrusted && !!e.target.closest?.("form")), true);
  card.addEventListener("keydown", (e) => mark(e.isTrusted && e.key === "Enter"), true);
  card.addEventListener("submit", (e) => {
    e.preventDefault();
    const was = person;
    person = false;
    if (was) submit({ isTrusted: true });
  });
}

// ----- building nodes ---------------------------------------------------------

// `h(tag, props, ...children)` in a page: DOM elements. `onChange` is the
// `input` event (every keystroke, as in React), other `onX` their event.
export function h(tag, props, ...children) {
  if (typeof tag === "function") return tag({ ...props, children });
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v == null || v === false) continue;
    if (/^on[A-Z]/.test(k) && typeof v === "function") el.addEventListener(k === "onChange" ? "input" : k.slice(2).toLowerCase(), v);
    else if (k === "style" && typeof v === "object") Object.assign(el.style, v);
    else if (k === "value" || k === "checked" || k === "selected") el[k] = v;
    else el.setAttribute(k === "className" ? "class" : k, v === true ? "" : String(v));
  }
  el.append(...nodes(children));
  return el;
}

// The same in a worker or Node: plain nodes, handlers as numbers.
function vh(handlers) {
  return function h(tag, props, ...children) {
    if (typeof tag === "function") return tag({ ...props, children });
    const p = {};
    for (const [k, v] of Object.entries(props ?? {})) {
      if (typeof v === "function") p[k] = { $h: handlers.push(v) - 1 };
      else if (v != null && v !== false) p[k] = v;
    }
    return { t: String(tag), p, c: flat(children).map((c) => (typeof c === "object" ? c : String(c))) };
  };
}

const flat = (x) => [x].flat(Infinity).filter((c) => c != null && c !== false && c !== true);
const nodes = (x) => flat(x).map((c) => (typeof Node !== "undefined" && c instanceof Node ? c : document.createTextNode(String(c))));
const read = (e) => (e && typeof e === "object" && e.target ? (e.target.type === "checkbox" ? !!e.target.checked : e.target.value) : e);
const snap = (x) => {
  try {
    return JSON.stringify(x);
  } catch {
    return "";
  }
};

// `data` as a proxy whose writes (at any depth) re-render.
function reactive(obj, changed, seen = new WeakMap()) {
  if (obj === null || typeof obj !== "object") return obj;
  if (seen.has(obj)) return seen.get(obj);
  const p = new Proxy(obj, {
    get: (t, k) => reactive(Reflect.get(t, k), changed, seen),
    set: (t, k, v) => (Reflect.set(t, k, v), queueMicrotask(changed), true),
    deleteProperty: (t, k) => (Reflect.deleteProperty(t, k), queueMicrotask(changed), true),
  });
  seen.set(obj, p);
  return p;
}

// Re-render when a StreamedData target (or one of an object of them) is set.
function watch(sd, changed) {
  const sets = [];
  const add = (t) => {
    const w = t?.[S("daebug.watch")];
    if (w instanceof Set) w.add(changed), sets.push(w);
  };
  if (sd && typeof sd === "object") {
    add(sd);
    if (!sets.length) Object.values(sd).forEach(add);
  }
  return () => sets.forEach((w) => w.delete(changed));
}

// A form for a JSON Schema's properties, when the panel has no `ui`.
function form(h, props, output) {
  return Object.entries(props).map(([k, s]) => {
    const f = output[k];
    const label = s.title ?? k;
    const input =
      s.type === "boolean"
        ? h("input", { type: "checkbox", name: k, checked: f.value, onChange: f.onChange })
        : Array.isArray(s.enum)
          ? h("select", { name: k, onChange: f.onChange }, h("option", { value: "" }, ""), ...s.enum.map((v) => h("option", { value: String(v), selected: f.value === v }, String(v))))
          : h("input", { type: s.type === "number" || s.type === "integer" ? "number" : "text", name: k, value: f.value, onChange: f.onChange });
    return h("label", { class: "field" }, h("span", null, label), input, f.error ? h("small", { class: "error" }, f.error) : null);
  });
}

// ----- validation: a JSON Schema subset, or any `safeParse` ------------------

export function validate(schema, value) {
  if (!schema) return { ok: true, value };
  if (typeof schema.safeParse === "function") {
    const r = schema.safeParse(value);
    if (r?.success) return { ok: true, value: r.data };
    const errors = {};
    for (const i of r?.error?.issues ?? []) errors[String(i.path?.[0] ?? "")] ??= i.message;
    return { ok: false, errors };
  }
  const errors = {};
  const empty = (v) => v === undefined || v === null || v === "";
  for (const k of schema.required ?? []) if (empty(value[k])) errors[k] = "required";
  for (const [k, s] of Object.entries(schema.properties ?? {})) {
    if (errors[k] || value[k] === undefined) continue;
    const e = check(s, value[k]);
    if (e) errors[k] = e;
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, value };
}

function check(s, v) {
  const t = s.type;
  if (t === "string" && typeof v !== "string") return "must be a string";
  if ((t === "number" || t === "integer") && (typeof v !== "number" || Number.isNaN(v))) return "must be a number";
  if (t === "integer" && !Number.isInteger(v)) return "must be a whole number";
  if (t === "boolean" && typeof v !== "boolean") return "must be true or false";
  if (Array.isArray(s.enum) && !s.enum.includes(v)) return "must be one of " + s.enum.map((x) => JSON.stringify(x)).join(", ");
  if ("const" in s && s.const !== v) return "must be " + JSON.stringify(s.const);
  if (typeof v === "string") {
    if (s.minLength != null && v.length < s.minLength) return `must be at least ${s.minLength} characters`;
    if (s.maxLength != null && v.length > s.maxLength) return `must be at most ${s.maxLength} characters`;
    if (s.pattern && !new RegExp(s.pattern, "u").test(v)) return `must match ${s.pattern}`;
    if (s.format === "email" && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v)) return "must be an email address";
  }
  if (typeof v === "number") {
    if (s.minimum != null && v < s.minimum) return `must be at least ${s.minimum}`;
    if (s.maximum != null && v > s.maximum) return `must be at most ${s.maximum}`;
    if (s.exclusiveMinimum != null && v <= s.exclusiveMinimum) return `must be more than ${s.exclusiveMinimum}`;
    if (s.exclusiveMaximum != null && v >= s.exclusiveMaximum) return `must be less than ${s.exclusiveMaximum}`;
  }
  return null;
}

// Errors the `ui` did not show itself go under it, so the person sees them.
function shownErrors(card, errors) {
  const body = card.querySelector(".body")?.textContent ?? "";
  const list = card.querySelector(".errors");
  for (const [k, m] of Object.entries(errors)) if (!body.includes(m)) list.append(h("p", { class: "error" }, k ? `${k}: ${m}` : m));
}
function unshown(ui, errors) {
  const text = JSON.stringify(ui);
  return Object.fromEntries(Object.entries(errors).filter(([, m]) => !text.includes(JSON.stringify(m).slice(1, -1))));
}

// ----- pick: what the person pointed at ------------------------------------

async function describe(el, toolkit) {
  const r = el.getBoundingClientRect();
  const cs = getComputedStyle(el);
  const styles = {};
  for (const k of ["display", "position", "color", "background-color", "font-family", "font-size", "font-weight", "margin", "padding", "border", "width", "height"]) styles[k] = cs.getPropertyValue(k);
  // `daebug.component(el)` awaited (adapter-shim/components.js): sources
  // mapped through source maps.
  const component = (await toolkit.component?.(el)) ?? { framework: null, reason: "daebug.component is missing" };
  return {
    selector: selector(el),
    tag: el.tagName.toLowerCase(),
    text: (el.innerText ?? el.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 200),
    rect: { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) },
    styles,
    source: component.source ?? null,
    component,
  };
}

// A CSS selector that matches this element alone.
export function selector(el) {
  const esc = (s) => (globalThis.CSS?.escape ? CSS.escape(s) : s.replace(/[^\w-]/g, "\\$&"));
  const unique = (sel) => {
    try {
      return document.querySelectorAll(sel).length === 1;
    } catch {
      return false;
    }
  };
  if (el.id && unique("#" + esc(el.id))) return "#" + esc(el.id);
  const parts = [];
  for (let e = el; e && e.nodeType === 1 && e !== document.documentElement; e = e.parentElement) {
    if (e !== el && e.id && unique("#" + esc(e.id))) {
      parts.unshift("#" + esc(e.id));
      break;
    }
    let part = e.tagName.toLowerCase();
    const same = e.parentElement ? [...e.parentElement.children].filter((c) => c.tagName === e.tagName) : [];
    if (same.length > 1) part += `:nth-of-type(${same.indexOf(e) + 1})`;
    parts.unshift(part);
    if (unique(parts.join(" > "))) break;
  }
  return parts.join(" > ");
}

// The card's stylesheet (not `CSS`: that name is the browser's, whose `escape` `selector` uses).
const STYLESHEET = `
:host { all: initial; }
.card { font: 14px/1.4 system-ui, sans-serif; color: #111; background: #fff; border: 1px solid #bbb; border-radius: 8px;
  box-shadow: 0 4px 16px rgba(0,0,0,.2); padding: 12px; margin-top: 8px; width: 320px; max-height: 70vh; overflow: auto; }
.card header { font-weight: 600; margin-bottom: 8px; }
.field { display: block; margin: 6px 0; }
.field > span { display: block; font-size: 12px; color: #444; }
input, select, textarea { font: inherit; padding: 4px 6px; box-sizing: border-box; }
input:not([type=checkbox]), select, textarea { width: 100%; }
button { font: inherit; padding: 6px 12px; margin: 8px 8px 0 0; cursor: pointer; }
.submit { background: #2563eb; color: #fff; border: 0; border-radius: 4px; }
.error, .failed { color: #b91c1c; }
.ask .text { font-weight: 600; margin: 0; }
.hint { font-size: 12px; color: #555; margin: 4px 0 0; }
.highlight { position: fixed; pointer-events: none; outline: 2px solid #2563eb; background: rgba(37,99,235,.15); display: none; }
`;
