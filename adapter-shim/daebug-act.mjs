// daebug-act.mjs: actions in a page or an iframe (docs/actions.md):
// `daebug.click`, `fill`, `press`, `hover`, `check`, `uncheck`, `select`,
// `drag`, `upload` and `settle`. Imported by the loader on a block's first
// action (daebug.js, `addActions`), so a page that never acts never loads
// it: the loader every page pays for stays small.
//
// An action finds its target (an element, or a locator in the words people
// use for UIs), waits until it can act as a person would (attached,
// visible, stable, enabled, not covered; a server-rendered page hydrated),
// acts, then waits until what it started is done (`settle`). With the
// hub's browser bridge the input is the browser's own (trusted: `Input.*`
// through the hub, `env.input`); without it, the events a framework
// listens for, said once a block to be synthetic. Either way the events
// carry the running block's cause (`env.early.acting`), so the requests
// they start are the block's and not "after click" as if a person had
// acted (docs/log-format.md, "Causes").
//
// `actions(kit, env)`: env is `{ early, input, warn }`: the loader's hooks
// (the job's cause, its requests still on their way), the toolkit's ask
// for trusted input and its warning for the reply.

// How long an action waits for its target, and `settle` for quiet, when
// the block gives no `timeout`; the DOM counts as quiet after QUIET_MS
// without a change.
const WAIT_MS = 5000;
const QUIET_MS = 100;
const POLL_MS = 25;
// The words for "no bridge here" the hub answers (server/src/hub/log_task.rs).
const NO_BRIDGE = /^trusted input needs the browser bridge/;

export function actions(kit, env) {
  const g = globalThis;
  const doc = g.document;
  const now = () => g.performance.now();
  const sleep = (ms) => new Promise((r) => g.setTimeout(r, ms));
  // Whether the bridge makes this realm's input (null: not tried yet), and
  // the job that was told its actions are synthetic.
  let bridge = g.top === g ? null : false;
  let bridgeWhy = g.top === g ? "" : "an iframe's events are made in the frame (the bridge's input goes to the top page)";
  let toldJob = null;

  // ---- Locators -------------------------------------------------------

  const norm = (s) => String(s == null ? "" : s).replace(/\s+/g, " ").trim();
  const quoteOf = (s) => JSON.stringify(s);
  // What to match: `text=…`, `role=button[name="…"]`, `label=…`,
  // `placeholder=…`, `testid=…`, `css=…`, else CSS. A quoted value is
  // exact and case-sensitive; else whole-text (any case) first, then a
  // part of the text.
  function parse(target) {
    const m = /^(text|role|label|placeholder|testid|css)=([\s\S]*)$/.exec(target);
    if (!m) return { kind: "css", value: target };
    const [, kind, raw] = m;
    if (kind === "role") {
      const r = /^([a-z]+)\s*(?:\[\s*name\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*'|[^\]]*)\s*\])?$/i.exec(raw.trim());
      if (!r) throw new Error(`${quoteOf(target)}: a role locator reads role=button or role=button[name="Save"]`);
      const name = r[2] === undefined ? null : unquote(r[2]);
      return { kind, role: r[1].toLowerCase(), ...(name || { value: null }) };
    }
    if (kind === "css") return { kind, value: raw };
    return { kind, ...unquote(raw) };
  }
  function unquote(v) {
    v = v.trim();
    if (/^"(?:[^"\\]|\\.)*"$/.test(v)) return { value: JSON.parse(v), exact: true };
    if (/^'[^']*'$/.test(v)) return { value: v.slice(1, -1), exact: true };
    return { value: v, exact: false };
  }
  // Matches of `text` against `want`: 2 whole, 1 a part, 0 none.
  function score(text, want) {
    if (want.value == null) return 2;
    const t = norm(text);
    if (want.exact) return t === want.value ? 2 : 0;
    const a = t.toLowerCase();
    const b = norm(want.value).toLowerCase();
    return a === b ? 2 : b && a.includes(b) ? 1 : 0;
  }
  // Every element of the document and its open shadow roots, daebug's own
  // panels (and what is never shown) left out.
  function elements() {
    const out = [];
    const skip = new Set(["daebug-panels", "script", "style", "template", "head", "noscript", "title", "meta", "link"]);
    const visit = (root) => {
      for (const el of root.querySelectorAll("*")) {
        // (A skipped element's shadow root is not visited either.)
        if (skip.has(el.localName)) continue;
        out.push(el);
        if (el.shadowRoot) visit(el.shadowRoot);
      }
    };
    visit(doc);
    return out;
  }

  const INTERACTIVE = "button, a[href], label, summary, option, select, textarea, input, [role=button], [role=link], [role=checkbox], [role=radio], [role=tab], [role=menuitem], [role=option], [role=switch], [contenteditable=''], [contenteditable=true]";
  // An element's text as a person reads it (an input button's value, an
  // image's alt).
  function textOf(el) {
    if (el.localName === "input") {
      const t = (el.type || "").toLowerCase();
      if (["button", "submit", "reset"].includes(t)) return el.value || (t === "submit" ? "Submit" : t === "reset" ? "Reset" : "");
      if (t === "image") return el.alt || "";
      return "";
    }
    if (el.localName === "img") return el.alt || "";
    let out = "";
    for (const c of el.childNodes) {
      if (c.nodeType === 3) out += c.data;
      else if (c.nodeType === 1 && !["script", "style", "template"].includes(c.localName)) out += " " + textOf(c) + " ";
    }
    if (el.shadowRoot && !out.trim()) out = textOf(el.shadowRoot);
    return out;
  }

  // The element's role: its own `role`, else the one HTML gives it.
  function roleOf(el) {
    const own = (el.getAttribute && el.getAttribute("role")) || "";
    if (own.trim()) return own.trim().split(/\s+/)[0].toLowerCase();
    const tag = el.localName;
    const type = (el.getAttribute("type") || "").toLowerCase();
    switch (tag) {
      case "a":
      case "area":
        return el.hasAttribute("href") ? "link" : "";
      case "button":
        return "button";
      case "input":
        if (["button", "submit", "reset", "image"].includes(type)) return "button";
        if (type === "checkbox") return "checkbox";
        if (type === "radio") return "radio";
        if (type === "range") return "slider";
        if (type === "number") return "spinbutton";
        if (type === "search") return el.hasAttribute("list") ? "combobox" : "searchbox";
        if (type === "hidden" || type === "file" || type === "color" || type === "date" || type === "time") return "";
        return el.hasAttribute("list") ? "combobox" : "textbox";
      case "textarea":
        return "textbox";
      case "select":
        return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "option":
        return "option";
      case "h1": case "h2": case "h3": case "h4": case "h5": case "h6":
        return "heading";
      case "ul": case "ol": case "menu":
        return "list";
      case "li":
        return "listitem";
      case "nav":
        return "navigation";
      case "main":
        return "main";
      case "dialog":
        return "dialog";
      case "img":
        return el.getAttribute("alt") === "" ? "presentation" : "img";
      case "table":
        return "table";
      case "tr":
        return "row";
      case "td":
        return "cell";
      case "th":
        return "columnheader";
      case "form":
        return "form";
      case "article":
        return "article";
      case "aside":
        return "complementary";
      case "fieldset": case "details":
        return "group";
      case "progress":
        return "progressbar";
      case "hr":
        return "separator";
      case "section":
        return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : "";
      default:
        return "";
    }
  }
  // Its accessible name, as far as people read one: aria-labelledby,
  // aria-label, a control's labels, its text for roles named by content,
  // title, placeholder.
  const FROM_CONTENT = new Set(["button", "link", "heading", "checkbox", "radio", "option", "tab", "menuitem", "switch", "cell", "columnheader", "listitem", "treeitem", "row"]);
  function nameOf(el) {
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const t = by.split(/\s+/).map((id) => doc.getElementById(id)).filter(Boolean).map(textOf).join(" ");
      if (norm(t)) return norm(t);
    }
    const label = el.getAttribute("aria-label");
    if (label && norm(label)) return norm(label);
    if (el.labels && el.labels.length && !["button", "submit", "reset"].includes((el.type || "").toLowerCase())) {
      const t = Array.from(el.labels).map((l) => textWithout(l, el)).join(" ");
      if (norm(t)) return norm(t);
    }
    if (el.localName === "input" || FROM_CONTENT.has(roleOf(el))) {
      const t = norm(textOf(el));
      if (t) return t;
    }
    return norm(el.getAttribute("title") || el.getAttribute("placeholder") || el.getAttribute("alt") || "");
  }
  // A label's text without its control's (a label that wraps its input).
  function textWithout(label, control) {
    if (!label.contains(control)) return textOf(label);
    let out = "";
    for (const c of label.childNodes) {
      if (c === control) continue;
      out += c.nodeType === 3 ? c.data : c.nodeType === 1 && !c.contains(control) ? " " + textOf(c) + " " : c.nodeType === 1 ? textWithout(c, control) : "";
    }
    return out;
  }

  // The elements a locator matches, best matches only: an exact match
  // wins over a part; of nested matches the innermost, taken up to the
  // control or button it is part of.
  function find(loc) {
    if (loc.kind === "css") {
      try {
        return Array.from(doc.querySelectorAll(loc.value)).filter((el) => !el.closest("daebug-panels"));
      } catch (e) {
        throw new Error(`${quoteOf(loc.value)} is neither a locator (text=…, role=…, label=…, placeholder=…, testid=…) nor a CSS selector: ${e.message}`);
      }
    }
    if (loc.kind === "testid") return elements().filter((el) => el.getAttribute("data-testid") === loc.value);
    const best = (scored) => {
      const top = Math.max(0, ...scored.map(([, s]) => s));
      return top ? scored.filter(([, s]) => s === top).map(([el]) => el) : [];
    };
    const els = elements();
    if (loc.kind === "placeholder") {
      return best(els.filter((el) => el.hasAttribute("placeholder")).map((el) => [el, score(el.getAttribute("placeholder"), loc)]));
    }
    if (loc.kind === "label") {
      const controls = els.filter((el) => isControl(el));
      return best(controls.map((el) => [el, score(labelOf(el), loc)]));
    }
    if (loc.kind === "role") {
      return best(els.filter((el) => roleOf(el) === loc.role && visible(el)).map((el) => [el, loc.value == null ? 2 : score(nameOf(el), loc)]));
    }
    // text=: the innermost elements whose text matches.
    const scored = els.filter(visible).map((el) => [el, score(textOf(el), loc)]).filter(([, s]) => s);
    const inner = best(scored);
    const innermost = inner.filter((el) => !inner.some((o) => o !== el && el.contains(o)));
    const up = innermost.map((el) => (el.closest && el.closest(INTERACTIVE)) || el);
    return [...new Set(up)];
  }
  const isControl = (el) =>
    ["input", "textarea", "select"].includes(el.localName) && (el.type || "") !== "hidden" ||
    el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable) ||
    ["textbox", "combobox", "checkbox", "radio", "switch", "slider", "spinbutton", "searchbox"].includes(el.getAttribute("role") || "");
  function labelOf(el) {
    const by = el.getAttribute("aria-labelledby");
    const parts = [];
    if (by) parts.push(by.split(/\s+/).map((id) => doc.getElementById(id)).filter(Boolean).map(textOf).join(" "));
    if (el.getAttribute("aria-label")) parts.push(el.getAttribute("aria-label"));
    if (el.labels) for (const l of el.labels) parts.push(textWithout(l, el));
    return norm(parts.join(" "));
  }

  // `<button#save.primary> "Save" (role button)`: what a person would
  // recognise it by.
  function describe(el) {
    let tag = el.localName;
    if (el.id) tag += "#" + el.id;
    else if (typeof el.className === "string" && el.className.trim()) tag += el.className.trim().split(/\s+/).slice(0, 2).map((c) => "." + c).join("");
    const type = el.localName === "input" && el.type ? `[type=${el.type}]` : "";
    const name = norm(nameOf(el) || (isControl(el) ? "" : textOf(el)));
    const shown = name ? ` ${quoteOf(name.length > 40 ? name.slice(0, 39) + "…" : name)}` : "";
    const role = roleOf(el);
    return `<${tag}${type}>${shown}${role ? ` (role ${role})` : ""}`;
  }
  // What the page offers instead, when nothing matched: the visible
  // elements of the role asked for, or the controls, or the buttons and
  // links, at most 6.
  function offered(loc) {
    const els = elements().filter(visible);
    let some;
    if (loc.kind === "role") some = els.filter((el) => roleOf(el) === loc.role);
    else if (loc.kind === "label" || loc.kind === "placeholder") some = els.filter(isControl);
    else {
      // Buttons and links first: what a text locator usually means.
      const rank = ["button", "link", "tab", "menuitem", "checkbox", "radio", "textbox", "combobox"];
      some = els.filter((el) => rank.includes(roleOf(el))).sort((a, b) => rank.indexOf(roleOf(a)) - rank.indexOf(roleOf(b)));
    }
    if (!some.length) return "";
    const shown = some.slice(0, 6).map(describe).join(", ");
    return `; the page has ${shown}${some.length > 6 ? ` and ${some.length - 6} more` : ""}`;
  }

  // ---- Waiting until it can act ---------------------------------------

  function visible(el) {
    if (!el.isConnected) return false;
    if (typeof el.checkVisibility === "function" && !el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true })) return false;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) {
      // `display: contents` has no box of its own.
      return g.getComputedStyle(el).display === "contents" && Array.from(el.children).some(visible);
    }
    return g.getComputedStyle(el).visibility !== "hidden";
  }
  function disabled(el) {
    if (el.disabled === true) return true;
    const set = el.closest("fieldset[disabled]");
    if (set && !(set.querySelector(":scope > legend") || { contains: () => false }).contains(el)) return true;
    for (let p = el; p; p = p.parentElement) if (p.getAttribute("aria-disabled") === "true") return true;
    return false;
  }
  // A frame drawn, or 100 ms (a hidden tab draws none).
  const frame = () => new Promise((r) => {
    const t = g.setTimeout(r, 100);
    if (typeof g.requestAnimationFrame === "function") g.requestAnimationFrame(() => (g.clearTimeout(t), r()));
  });
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return [r.x, r.y, r.width, r.height].map((n) => Math.round(n * 10) / 10).join(",");
  };
  // The element at the middle of `el`'s box, through open shadow roots.
  function hitAt(el) {
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    let hit = doc.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return { hit, x, y };
  }
  const reaches = (el, hit) => hit && (hit === el || el.contains(hit) || (hit.localName === "label" && hit.control === el) || (el.shadowRoot && el.shadowRoot.contains(hit)));
  function inView(el) {
    const r = el.getBoundingClientRect();
    const w = g.innerWidth || doc.documentElement.clientWidth;
    const h = g.innerHeight || doc.documentElement.clientHeight;
    return r.top + r.height / 2 >= 0 && r.left + r.width / 2 >= 0 && r.top + r.height / 2 < h && r.left + r.width / 2 < w;
  }

  // A server-rendered page not yet hydrated: the framework that will
  // take it over, or "" when none is pending (React, Vue/Nuxt, Preact,
  // SvelteKit by their own marks on the page and its elements).
  function hydrating(el) {
    const keys = (n) => {
      try {
        return Object.keys(n);
      } catch {
        return [];
      }
    };
    const owned = (test) => {
      for (let n = el; n; n = n.parentElement || (n.getRootNode && n.getRootNode().host)) if (keys(n).some(test)) return true;
      return false;
    };
    if (doc.getElementById("__NEXT_DATA__") || g.__next_f || doc.querySelector("[data-reactroot]")) {
      if (!owned((k) => k.startsWith("__reactFiber$") || k.startsWith("__reactContainer$") || k === "_reactRootContainer")) return "React";
    }
    if (g.__NUXT__ || doc.getElementById("__nuxt") || doc.querySelector("[data-server-rendered]")) {
      if (!owned((k) => k === "__vue_app__" || k === "__vueParentComponent" || k === "__vnode")) return "Vue";
    }
    if (keys(g).some((k) => k.startsWith("__sveltekit_")) && doc.readyState !== "complete") return "SvelteKit";
    if (doc.readyState === "loading") return "the document";
    return "";
  }

  // Finds the one element `target` means and waits until `need` holds
  // for it: `reach` (not covered), `edit` (not read-only). Returns it, or
  // throws what it found or waited for.
  async function ready(verb, target, options, need) {
    const timeout = typeof options.timeout === "number" && options.timeout >= 0 ? options.timeout : WAIT_MS;
    const what = typeof target === "string" ? quoteOf(target) : target && target.nodeType === 1 ? describe(target) : null;
    if (what === null) throw new TypeError(`daebug.${verb}: pass an element or a locator ('text=Sign in', 'role=button[name="Save"]', 'label=Email', 'placeholder=…', 'testid=…', or CSS)`);
    const loc = typeof target === "string" ? parse(target) : null;
    const deadline = now() + timeout;
    let why = "";
    let el = null;
    let last = null;
    for (;;) {
      if (loc) {
        const found = find(loc);
        const shown = found.filter(visible);
        if (found.length > 1 && shown.length !== 1) {
          const list = (shown.length ? shown : found).slice(0, 8).map(describe).join(", ");
          throw new Error(`daebug.${verb}(${what}): ${found.length} elements match: ${list}; name one (a closer locator, role=…[name="…"], or CSS)`);
        }
        el = found.length > 1 ? shown[0] : found[0] || null;
      } else el = target;
      why = el ? blocked(el, need) : "nothing matches";
      if (el) last = box(el);
      if (!why) {
        // Stable: the same box a frame later.
        await frame();
        if (el.isConnected && box(el) === last) {
          why = blocked(el, need);
          if (!why) return el;
        } else why = "moving";
      }
      if (now() >= deadline) {
        const waited = `daebug.${verb}(${what}) waited ${Math.round(timeout)} ms`;
        if (!el) throw new Error(`${waited}: ${why}${loc ? offered(loc) : ""}`);
        throw new Error(`${waited}${loc ? ` for ${describe(el)}` : ""}: it is ${why}`);
      }
      await (why === "moving" ? Promise.resolve() : sleep(Math.min(POLL_MS * 2, Math.max(0, deadline - now()))));
    }
  }
  // Why `el` cannot be acted on yet, or "".
  function blocked(el, need) {
    if (!el.isConnected) return "not attached to the document";
    const pending = hydrating(el);
    if (pending) return `on a server-rendered page ${pending} has not hydrated yet (a click now would be the browser's own, not the app's)`;
    if (!visible(el)) return "not visible";
    if (need.enabled !== false && disabled(el)) return "disabled";
    if (need.edit && (el.readOnly || el.getAttribute("aria-readonly") === "true")) return "read-only";
    if (need.reach) {
      if (!inView(el)) el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      const { hit } = hitAt(el);
      if (!reaches(el, hit)) return hit ? `covered by ${describe(hit)}` : "outside the page's view";
    }
    return "";
  }

  // ---- Input: the browser's own, or made here --------------------------

  // Sends one trusted input command through the hub; false when this realm
  // has no bridge (said once per block), and a refusal as an error.
  async function trusted(method, params) {
    if (bridge === false) return false;
    try {
      await env.input({ method, params });
      bridge = true;
      return true;
    } catch (e) {
      const message = String((e && e.message) || e);
      if (bridge === null && NO_BRIDGE.test(message)) {
        bridge = false;
        bridgeWhy = "there is no browser bridge: start the hub with --cdp for trusted input";
        return false;
      }
      throw new Error(message);
    }
  }
  // The block's actions are synthetic: said once in its reply.
  function synthetic() {
    const job = env.early.job();
    if (!job || toldJob === job) return;
    toldJob = job;
    env.warn(`daebug actions: synthetic events, isTrusted false (${bridgeWhy}); :hover styles and native widgets do not follow them`);
  }
  // Runs `f` with the events it makes carrying the block's cause.
  async function acting(f) {
    env.early.acting(true);
    try {
      return await f();
    } finally {
      env.early.acting(false);
    }
  }
  const point = (el) => {
    const { x, y } = hitAt(el);
    return { x, y };
  };
  const mouse = (type, x, y, extra) => ({ type, x, y, button: "none", modifiers: 0, ...extra });
  function fire(el, type, init, Ctor) {
    const C = Ctor || g.Event;
    const e = new C(type, { bubbles: true, cancelable: true, composed: true, ...init });
    return el.dispatchEvent(e);
  }
  function pointerInit(el, x, y, buttons) {
    return { clientX: x, clientY: y, screenX: x, screenY: y, view: g, button: 0, buttons, detail: 1, pointerId: 1, pointerType: "mouse", isPrimary: true };
  }
  let hovered = null;
  function syntheticHover(el, x, y) {
    const P = g.PointerEvent || g.MouseEvent;
    const init = pointerInit(el, x, y, 0);
    if (hovered && hovered !== el && hovered.isConnected) {
      fire(hovered, "pointerout", init, P);
      fire(hovered, "mouseout", init, g.MouseEvent);
      fire(hovered, "pointerleave", { ...init, bubbles: false }, P);
      fire(hovered, "mouseleave", { ...init, bubbles: false }, g.MouseEvent);
    }
    if (hovered !== el) {
      fire(el, "pointerover", init, P);
      fire(el, "pointerenter", { ...init, bubbles: false }, P);
      fire(el, "mouseover", init, g.MouseEvent);
      fire(el, "mouseenter", { ...init, bubbles: false }, g.MouseEvent);
    }
    hovered = el;
    fire(el, "pointermove", init, P);
    fire(el, "mousemove", init, g.MouseEvent);
  }
  function syntheticClick(el, x, y, count = 1) {
    const P = g.PointerEvent || g.MouseEvent;
    const { hit } = hitAt(el);
    const target = reaches(el, hit) ? hit : el;
    syntheticHover(target, x, y);
    const down = pointerInit(target, x, y, 1);
    const up = pointerInit(target, x, y, 0);
    fire(target, "pointerdown", down, P);
    const go = fire(target, "mousedown", down, g.MouseEvent);
    if (go) focusOf(target);
    fire(target, "pointerup", up, P);
    fire(target, "mouseup", up, g.MouseEvent);
    fire(target, "click", { ...up, detail: count }, g.MouseEvent);
    if (count === 2) fire(target, "dblclick", { ...up, detail: 2 }, g.MouseEvent);
  }
  // Focus moves where a person's press would put it.
  function focusOf(el) {
    const f = el.closest && el.closest("input, textarea, select, button, a[href], [tabindex], [contenteditable=''], [contenteditable=true], summary");
    if (f && typeof f.focus === "function" && doc.activeElement !== f) f.focus({ preventScroll: true });
  }

  // The text of the part of the page an action works in (its dialog, else
  // the page: what a form's submit shows often lands outside the form), to
  // say what appeared and went: lines, in order.
  function regionOf(el) {
    return (el.closest && el.closest("dialog, [role=dialog]")) || doc.body;
  }
  const linesOf = (el) => {
    try {
      return (el && el.isConnected ? el.innerText || "" : "").split("\n").map(norm).filter(Boolean);
    } catch {
      return [];
    }
  };

  // ---- Settle ---------------------------------------------------------

  // Waits until what code started since `since` is done: the block's
  // requests answered, a navigation started (its document is going), a
  // frame drawn and the DOM quiet for QUIET_MS; at most `timeout`.
  // Returns { ms, navigating?, pending?: [...] }.
  async function settled(options, since) {
    const timeout = options && typeof options.timeout === "number" && options.timeout >= 0 ? options.timeout : WAIT_MS;
    const start = now();
    let changed = start;
    let navigating = "";
    const observer = new g.MutationObserver((list) => {
      if (list.some((m) => !(m.target.closest ? m.target.closest("daebug-panels") : m.target.parentElement && m.target.parentElement.closest("daebug-panels")))) changed = now();
    });
    observer.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
    const nav = g.navigation;
    const onNavigate = (e) => {
      try {
        if (!e.destination.sameDocument) navigating = e.destination.url;
      } catch {}
    };
    const onUnload = () => (navigating ||= "another page");
    if (nav && typeof nav.addEventListener === "function") nav.addEventListener("navigate", onNavigate);
    g.addEventListener("beforeunload", onUnload);
    try {
      await frame();
      for (;;) {
        if (navigating) return { ms: now() - start, navigating };
        const pending = env.early.pending(since);
        const quiet = now() - changed >= QUIET_MS;
        if (!pending.length && quiet) return { ms: now() - start };
        if (now() - start >= timeout) {
          if (!quiet) pending.push("the page still changing");
          return { ms: now() - start, pending };
        }
        await sleep(POLL_MS);
      }
    } finally {
      observer.disconnect();
      if (nav && typeof nav.removeEventListener === "function") nav.removeEventListener("navigate", onNavigate);
      g.removeEventListener("beforeunload", onUnload);
    }
  }
  // An action's answer for the reply: `clicked <button#b> "Sign in"
  // (trusted) · settled in 64 ms · appeared "Welcome, alice" · gone
  // "Sign in"`; a settle that gave up is also a warning.
  function answer(verb, el, how, s, before, region, tail) {
    const after = linesOf(region.isConnected ? region : doc.body);
    const had = new Set(before);
    const has = new Set(after);
    const show = (list) => {
      const cut = list.slice(0, 3).map((t) => quoteOf(t.length > 60 ? t.slice(0, 59) + "…" : t)).join(", ");
      return list.length > 3 ? `${cut} +${list.length - 3} more` : cut;
    };
    const parts = [`${verb} ${describe(el)}${tail} (${how})`];
    if (s.navigating) parts.push(`navigating to ${s.navigating}`);
    else if (s.pending) {
      const left = `not settled after ${Math.round(s.ms)} ms: still pending ${s.pending.join(", ")}`;
      parts.push(left);
      env.warn(`daebug.${verb}: ${left}`);
    } else parts.push(`settled in ${Math.round(s.ms)} ms`);
    const appeared = after.filter((t) => !had.has(t));
    const gone = before.filter((t) => !has.has(t));
    if (appeared.length) parts.push(`appeared ${show(appeared)}`);
    if (gone.length) parts.push(`gone ${show(gone)}`);
    return parts.join(" · ");
  }
  // One action: find, wait, act (`act(el)` says how: "trusted" or
  // "synthetic"), settle, answer (`tail` after the target: drag's `to …`).
  async function run(verb, past, target, options, need, act, tail = "") {
    const el = await ready(verb, target, options || {}, need);
    const region = regionOf(el);
    const before = linesOf(region);
    const since = now();
    const how = await acting(() => act(el));
    if (how === "synthetic") synthetic();
    const s = await settled(options, since);
    return answer(past, el, how, s, before, region, tail);
  }

  // ---- The actions ----------------------------------------------------

  async function clickIt(el, count = 1) {
    const { x, y } = point(el);
    if (await trusted("Input.dispatchMouseEvent", mouse("mouseMoved", x, y))) {
      for (let i = 1; i <= count; i++) {
        await trusted("Input.dispatchMouseEvent", mouse("mousePressed", x, y, { button: "left", buttons: 1, clickCount: i }));
        await trusted("Input.dispatchMouseEvent", mouse("mouseReleased", x, y, { button: "left", buttons: 0, clickCount: i }));
      }
      return "trusted";
    }
    syntheticClick(el, x, y, count);
    return "synthetic";
  }
  const click = (target, options) =>
    run("click", "clicked", target, options, { reach: true }, (el) => clickIt(el, options && options.count === 2 ? 2 : 1));

  const hover = (target, options) =>
    run("hover", "hovered", target, options, { reach: true, enabled: false }, async (el) => {
      const { x, y } = point(el);
      if (await trusted("Input.dispatchMouseEvent", mouse("mouseMoved", x, y))) return "trusted";
      syntheticHover(el, x, y);
      return "synthetic";
    });

  // The native setter of `value` (a framework's own setter on the element
  // must not see it: React tracks the value it set).
  function setValue(el, value) {
    const proto = el.localName === "textarea" ? g.HTMLTextAreaElement.prototype : el.localName === "select" ? g.HTMLSelectElement.prototype : g.HTMLInputElement.prototype;
    const set = Object.getOwnPropertyDescriptor(proto, "value").set;
    set.call(el, value);
  }
  const TYPED = new Set(["", "text", "search", "email", "url", "tel", "password", "number"]);
  async function fillIt(el, text) {
    const type = el.localName === "input" ? (el.type || "").toLowerCase() : "";
    if (el.localName === "select") return chooseIn(el, [text]);
    if (type === "checkbox" || type === "radio") return setChecked(el, text !== false && text !== "" && text !== "false" && text != null);
    const editable = el.isContentEditable;
    focusOf(el);
    if (doc.activeElement !== el && !editable && typeof el.focus === "function") el.focus({ preventScroll: true });
    const typed = editable || el.localName === "textarea" || TYPED.has(type);
    if (typed) {
      selectAllOf(el);
      const done = text === "" ? await trusted("Input.dispatchKeyEvent", key("rawKeyDown", KEYS.Delete, 0)).then((ok) => ok && trusted("Input.dispatchKeyEvent", key("keyUp", KEYS.Delete, 0))) : await trusted("Input.insertText", { text });
      if (done) return "trusted";
    }
    // A date, colour or range input takes its value whole, as a picker
    // gives it; so does any input without the bridge.
    if (editable) {
      el.textContent = text;
      fire(el, "input", { inputType: "insertText", data: text }, g.InputEvent);
    } else {
      setValue(el, text);
      fire(el, "input", { inputType: "insertText", data: text }, g.InputEvent || g.Event);
      fire(el, "change", {});
    }
    return typed ? "synthetic" : "set as a picker does";
  }
  function selectAllOf(el) {
    if (el.isContentEditable) {
      const range = doc.createRange();
      range.selectNodeContents(el);
      const sel = g.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
    } else if (typeof el.select === "function") el.select();
  }
  const fill = (target, text, options) =>
    run("fill", "filled", target, options, { edit: true }, (el) => fillIt(el, text === undefined || text === null ? "" : typeof text === "boolean" ? text : String(text)));

  async function setChecked(el, want) {
    const box = el.localName === "input" ? el : el.querySelector && (el.querySelector("input[type=checkbox], input[type=radio]") || el);
    const state = () => (box.getAttribute("role") && !("checked" in box) ? box.getAttribute("aria-checked") === "true" : !!box.checked);
    if (state() === want) return "trusted-none";
    if (!want && box.type === "radio") throw new Error(`daebug.uncheck(${describe(box)}): a radio button is unchecked by checking another`);
    const how = await clickIt(visible(box) ? box : (box.labels && box.labels[0]) || el);
    if (state() !== want) {
      await frame();
      if (state() !== want) throw new Error(`daebug.${want ? "check" : "uncheck"}(${describe(box)}): clicking it left it ${want ? "unchecked" : "checked"}`);
    }
    return how;
  }
  const checker = (want) => (target, options) =>
    run(want ? "check" : "uncheck", want ? "checked" : "unchecked", target, options, { reach: false }, async (el) => {
      const how = await setChecked(el, want);
      return how === "trusted-none" ? "already so" : how;
    });

  // `<select>`: the options whose value or text is each of `wanted`.
  function chooseIn(el, wanted) {
    if (el.localName !== "select") throw new Error(`daebug.select(${describe(el)}): not a <select>; click its options instead`);
    const list = wanted.flat().map((w) => (w && typeof w === "object" ? w : { either: String(w) }));
    const picked = [];
    for (const w of list) {
      const o = Array.from(el.options).find((o) =>
        w.value !== undefined ? o.value === String(w.value) : w.label !== undefined ? norm(o.label || o.text) === norm(w.label) : o.value === w.either || norm(o.text) === norm(w.either));
      if (!o) {
        const have = Array.from(el.options).slice(0, 8).map((o) => quoteOf(norm(o.text))).join(", ");
        throw new Error(`daebug.select(${describe(el)}): no option ${quoteOf(w.value ?? w.label ?? w.either)}; it has ${have}`);
      }
      if (o.disabled) throw new Error(`daebug.select(${describe(el)}): the option ${quoteOf(norm(o.text))} is disabled`);
      picked.push(o);
    }
    if (picked.length > 1 && !el.multiple) throw new Error(`daebug.select(${describe(el)}): one option only (not a multiple select)`);
    focusOf(el);
    for (const o of el.options) o.selected = picked.includes(o);
    fire(el, "input", {});
    fire(el, "change", {});
    return "set as a picker does";
  }
  const select = (target, values, options) =>
    run("select", "selected", target, options, {}, (el) => chooseIn(el, Array.isArray(values) ? values : [values]));

  // Keys: `Enter`, `Tab`, `a`, `Control+a`, `Shift+Tab`, `ArrowDown`.
  const KEYS = {
    Enter: ["Enter", "Enter", 13, "\r"], Tab: ["Tab", "Tab", 9, ""], Escape: ["Escape", "Escape", 27, ""],
    Backspace: ["Backspace", "Backspace", 8, ""], Delete: ["Delete", "Delete", 46, ""], " ": [" ", "Space", 32, " "],
    Space: [" ", "Space", 32, " "], ArrowUp: ["ArrowUp", "ArrowUp", 38, ""], ArrowDown: ["ArrowDown", "ArrowDown", 40, ""],
    ArrowLeft: ["ArrowLeft", "ArrowLeft", 37, ""], ArrowRight: ["ArrowRight", "ArrowRight", 39, ""], Home: ["Home", "Home", 36, ""],
    End: ["End", "End", 35, ""], PageUp: ["PageUp", "PageUp", 33, ""], PageDown: ["PageDown", "PageDown", 34, ""],
    Shift: ["Shift", "ShiftLeft", 16, ""], Control: ["Control", "ControlLeft", 17, ""], Alt: ["Alt", "AltLeft", 18, ""], Meta: ["Meta", "MetaLeft", 91, ""],
  };
  const MODS = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };
  function keyOf(name) {
    if (KEYS[name]) return KEYS[name];
    if (/^F([1-9]|1[0-2])$/.test(name)) return [name, name, 111 + Number(name.slice(1)), ""];
    if ([...name].length === 1) {
      const up = name.toUpperCase();
      const code = /[a-z]/i.test(name) ? "Key" + up : /[0-9]/.test(name) ? "Digit" + name : "";
      return [name, code, /[a-z0-9]/i.test(name) ? up.charCodeAt(0) : 0, name];
    }
    throw new Error(`daebug.press(${quoteOf(name)}): not a key daebug knows (Enter, Tab, Escape, Backspace, Delete, Space, Arrow…, Home, End, PageUp, PageDown, F1–F12, one character, with Control+, Shift+, Alt+, Meta+)`);
  }
  const key = (type, [k, code, vk, text], modifiers) => ({
    type, key: k, code, windowsVirtualKeyCode: vk, nativeVirtualKeyCode: vk, modifiers,
    ...(text && type === "keyDown" && !(modifiers & (MODS.Control | MODS.Alt | MODS.Meta)) ? { text, unmodifiedText: text } : {}),
  });
  async function pressIn(el, combo) {
    const names = String(combo).split("+").map((p, i, a) => (p === "" && i === a.length - 1 ? "+" : p)).filter((p) => p !== "");
    if (!names.length) throw new Error("daebug.press(''): name a key ('Enter', 'Control+a')");
    const keys = names.map(keyOf);
    const main = keys[keys.length - 1];
    const mods = names.slice(0, -1).reduce((m, n) => m | (MODS[n] || 0), 0);
    if (bridge !== false) {
      let m = 0;
      let ok = true;
      for (const [i, k] of keys.slice(0, -1).entries()) {
        m |= MODS[names[i]] || 0;
        ok = ok && (await trusted("Input.dispatchKeyEvent", key("rawKeyDown", k, m)));
      }
      if (ok) {
        const down = key(main[3] && !(mods & (MODS.Control | MODS.Alt | MODS.Meta)) ? "keyDown" : "rawKeyDown", main, mods);
        if (mods & (MODS.Control | MODS.Meta) && main[0].toLowerCase() === "a") down.commands = ["selectAll"];
        await trusted("Input.dispatchKeyEvent", down);
        await trusted("Input.dispatchKeyEvent", key("keyUp", main, mods));
        for (const [i, k] of [...keys.slice(0, -1).entries()].reverse()) {
          m &= ~(MODS[names[i]] || 0);
          await trusted("Input.dispatchKeyEvent", key("keyUp", k, m));
        }
        return "trusted";
      }
    }
    syntheticPress(el, main, mods);
    return "synthetic";
  }
  // The events of a key press, and what the browser would do for the few
  // keys whose default a block relies on: a character typed into a text
  // field, Backspace, select-all, Enter submitting its form, Tab moving on.
  function syntheticPress(el, [k, code, vk, text], mods) {
    const init = { key: k, code, keyCode: vk, which: vk, ctrlKey: !!(mods & 2), altKey: !!(mods & 1), metaKey: !!(mods & 4), shiftKey: !!(mods & 8), view: g };
    const go = fire(el, "keydown", init, g.KeyboardEvent);
    const plain = !(mods & 7);
    if (go && text && plain) fire(el, "keypress", { ...init, charCode: text.charCodeAt(0) }, g.KeyboardEvent);
    if (go) {
      const field = el.localName === "textarea" || (el.localName === "input" && TYPED.has((el.type || "").toLowerCase()));
      if (k === "a" && (mods & 6)) selectAllOf(el);
      else if (k === "Enter" && el.localName === "input" && el.form) {
        const submitter = el.form.querySelector("button:not([type]), button[type=submit], input[type=submit]");
        if (typeof el.form.requestSubmit === "function") el.form.requestSubmit(submitter || undefined);
      } else if (k === "Tab") moveFocus(el, mods & 8 ? -1 : 1);
      else if (field && plain && (text && k !== "Enter" || k === "Backspace")) {
        const [s, e] = [el.selectionStart ?? el.value.length, el.selectionEnd ?? el.value.length];
        const from = k === "Backspace" && s === e ? Math.max(0, s - 1) : s;
        const insert = k === "Backspace" ? "" : text;
        setValue(el, el.value.slice(0, from) + insert + el.value.slice(e));
        try {
          el.setSelectionRange(from + insert.length, from + insert.length);
        } catch {}
        fire(el, "input", { inputType: k === "Backspace" ? "deleteContentBackward" : "insertText", data: insert || null }, g.InputEvent || g.Event);
      }
    }
    fire(el, "keyup", init, g.KeyboardEvent);
  }
  function moveFocus(el, step) {
    const order = elements().filter((e) => visible(e) && !disabled(e) && e.tabIndex >= 0 && e.matches("input, select, textarea, button, a[href], [tabindex], [contenteditable='' i], [contenteditable=true i], summary"));
    const i = order.indexOf(el);
    const next = order[(i + step + order.length) % order.length];
    if (next) next.focus();
  }
  // press(key) on what has focus, or press(target, key).
  const press = (target, combo, options) => {
    if (combo === undefined || (combo !== null && typeof combo === "object")) {
      options = combo;
      combo = target;
      const el = doc.activeElement && doc.activeElement !== doc.body ? doc.activeElement : doc.body;
      return run("press", `pressed ${combo} on`, el, options, { enabled: false }, (e) => pressIn(e, combo));
    }
    return run("press", `pressed ${combo} on`, target, options, {}, (el) => {
      focusOf(el);
      if (doc.activeElement !== el && typeof el.focus === "function") el.focus({ preventScroll: true });
      return pressIn(el, combo);
    });
  };

  // drag(from, to): the mouse pressed on one and let go over the other; an
  // HTML drag (`draggable`) also gets the drag-and-drop events.
  async function drag(from, to, options) {
    const dest = await ready("drag", to, options || {}, { reach: true, enabled: false });
    return run("drag", `dragged`, from, options, { reach: true }, async (el) => {
      const a = point(el);
      const b = point(dest);
      const html = el.closest && el.closest("[draggable=true]");
      if (!html && (await trusted("Input.dispatchMouseEvent", mouse("mouseMoved", a.x, a.y)))) {
        await trusted("Input.dispatchMouseEvent", mouse("mousePressed", a.x, a.y, { button: "left", buttons: 1, clickCount: 1 }));
        for (let i = 1; i <= 5; i++) {
          const x = a.x + ((b.x - a.x) * i) / 5;
          const y = a.y + ((b.y - a.y) * i) / 5;
          await trusted("Input.dispatchMouseEvent", mouse("mouseMoved", x, y, { button: "left", buttons: 1 }));
        }
        await trusted("Input.dispatchMouseEvent", mouse("mouseReleased", b.x, b.y, { button: "left", buttons: 0, clickCount: 1 }));
        return "trusted";
      }
      const P = g.PointerEvent || g.MouseEvent;
      fire(el, "pointerdown", pointerInit(el, a.x, a.y, 1), P);
      fire(el, "mousedown", pointerInit(el, a.x, a.y, 1), g.MouseEvent);
      if (html) {
        const data = new g.DataTransfer();
        const d = (type, target, at) => fire(target, type, { ...pointerInit(target, at.x, at.y, 1), dataTransfer: data }, g.DragEvent);
        d("dragstart", html, a);
        d("dragenter", dest, b);
        d("dragover", dest, b);
        d("drop", dest, b);
        d("dragend", html, b);
      } else {
        fire(dest, "pointermove", pointerInit(dest, b.x, b.y, 1), P);
        fire(dest, "mousemove", pointerInit(dest, b.x, b.y, 1), g.MouseEvent);
      }
      fire(dest, "pointerup", pointerInit(dest, b.x, b.y, 0), P);
      fire(dest, "mouseup", pointerInit(dest, b.x, b.y, 0), g.MouseEvent);
      return html && bridge === true ? "drag events made here" : "synthetic";
    }, ` to ${describe(dest)}`);
  }

  // upload(target, files): File or Blob objects, `{ name, type, text }`
  // or `{ name, type, base64 }`, or URLs fetched as the page would; set on
  // the file input as its picker would set them.
  async function filesOf(list) {
    const out = [];
    for (const f of Array.isArray(list) ? list : [list]) {
      if (f instanceof g.File) out.push(f);
      else if (f instanceof g.Blob) out.push(new g.File([f], "blob", { type: f.type }));
      else if (typeof f === "string") {
        const res = await g.fetch(f);
        if (!res.ok) throw new Error(`daebug.upload: ${f} answered ${res.status}`);
        const blob = await res.blob();
        out.push(new g.File([blob], decodeURIComponent(new g.URL(f, doc.baseURI).pathname.split("/").pop() || "file"), { type: blob.type }));
      } else if (f && typeof f === "object" && typeof f.name === "string") {
        const body = f.base64 !== undefined ? Uint8Array.from(g.atob(f.base64), (c) => c.charCodeAt(0)) : String(f.text ?? "");
        out.push(new g.File([body], f.name, { type: f.type || "" }));
      } else throw new TypeError("daebug.upload: pass files as File objects, { name, type, text }, { name, type, base64 } or URLs");
    }
    return out;
  }
  async function upload(target, list, options) {
    const files = await filesOf(list);
    return run("upload", `uploaded ${files.length} file${files.length === 1 ? "" : "s"} to`, target, options, { reach: false }, (el) => {
      const input = el.localName === "input" && el.type === "file" ? el : (el.labels === undefined && el.querySelector && el.querySelector("input[type=file]")) || (el.control && el.control.type === "file" ? el.control : null);
      if (!input) throw new Error(`daebug.upload(${describe(el)}): not a file input (nor a label of one)`);
      if (!input.multiple && files.length > 1) throw new Error(`daebug.upload(${describe(input)}): one file only (no \`multiple\`)`);
      const data = new g.DataTransfer();
      for (const f of files) data.items.add(f);
      input.files = data.files;
      fire(input, "input", {});
      fire(input, "change", {});
      return "set as a picker does";
    });
  }

  // settle(): the same wait as an action's, for any code of the block.
  async function settle(options) {
    const s = await settled(options, 0);
    if (s.navigating) return `navigating to ${s.navigating}`;
    if (s.pending) {
      const left = `not settled after ${Math.round(s.ms)} ms: still pending ${s.pending.join(", ")}`;
      env.warn(`daebug.settle: ${left}`);
      return left;
    }
    return `settled in ${Math.round(s.ms)} ms`;
  }

  return { click, fill, press, hover, check: checker(true), uncheck: checker(false), select, drag, upload, settle, locate: (t) => find(parse(t)) };
}
