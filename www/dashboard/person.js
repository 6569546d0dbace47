// The person in the loop in the dashboard (docs/log-format.md, "Panels"): what waits for a
// person in the selected realm; the panels and asks of workers and Node
// processes drawn here and answered here. A realm sends its panel as plain
// nodes ({t, p, c}, handlers as {$h: n}); what the person does goes back
// through POST /_daebug/person, sent only from a trusted event (a real
// click or key press), with this page's key (see server/src/doors/person.rs).

// What a realm may draw here: plain content and form controls, no links,
// frames, scripts or media of its own.
const TAGS = new Set(("div span p h1 h2 h3 h4 h5 h6 strong em b i u s code pre ul ol li label input select " +
  "option textarea button small table thead tbody tr td th progress meter br hr section header footer " +
  "fieldset legend output form").split(" "));
const ATTRS = new Set("id class type name placeholder min max step rows cols value checked selected disabled title role for aria-label".split(" "));

let shown = "";

/// Draws the waits of `realm` into `box` (only when they changed, so the
/// person's typing keeps its focus).
export function renderPerson(box, realm) {
  const waits = (realm && realm.waiting) || [];
  const key = JSON.stringify([realm && realm.stem, waits]);
  if (key === shown) return;
  shown = key;
  const focus = pathOf(document.activeElement, box);
  box.hidden = waits.length === 0;
  box.replaceChildren(...waits.map((w) => card(realm, w)));
  if (focus) restore(box, focus);
}

function card(realm, w) {
  const c = el("section", "card");
  c.dataset.wait = String(w.id);
  c.dataset.kind = w.kind;
  const head = el("header", "card-head");
  head.append(el("span", "waiting", "waiting for a person"), el("strong", "title", w.title));
  c.append(head);
  const v = w.view;
  if (!v) {
    c.append(el("p", "muted", `The ${w.kind} is shown in the page: answer it there.`));
    return c;
  }
  if (v.failed) {
    c.append(el("p", "failed", v.failed), el("pre", "", v.error || ""));
    return c;
  }
  const post = poster(realm.stem, w.id);
  const body = el("div", "body");
  body.append(...build(v.ui, post));
  // A form of the panel's own: its submit is the card's, when a person's
  // click or Enter caused it.
  let person = false;
  // Only for the task of the person's event: the browser submits in it.
  const mark = (yes) => yes && ((person = true), setTimeout(() => (person = false)));
  body.addEventListener("click", (e) => mark(e.isTrusted && !!e.target.closest?.("form")), true);
  body.addEventListener("keydown", (e) => mark(e.isTrusted && e.key === "Enter"), true);
  body.addEventListener("submit", (e) => {
    e.preventDefault();
    if (person) post(0, "submit", null);
    person = false;
  });
  c.append(body);
  for (const [k, m] of Object.entries(v.errors || {})) c.append(el("p", "error", k ? `${k}: ${m}` : m));
  if (v.submit) {
    const b = el("button", "submit", v.submit);
    b.type = "button";
    b.addEventListener("click", (e) => e.isTrusted && post(0, "submit", null));
    c.append(b);
  }
  return c;
}

function poster(stem, id) {
  return (handler, event, value) =>
    fetch("/_daebug/person", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ stem, id, handler, event, value }),
    }).catch(() => {});
}

function build(node, post) {
  if (node == null || node === false) return [];
  if (Array.isArray(node)) return node.flatMap((n) => build(n, post));
  if (typeof node !== "object") return [document.createTextNode(String(node))];
  const tag = TAGS.has(node.t) ? node.t : "span";
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(node.p || {})) {
    if (v && typeof v === "object" && "$h" in v) {
      if (!/^on[A-Z]/.test(k)) continue;
      const type = k === "onChange" ? "input" : k.slice(2).toLowerCase();
      e.addEventListener(type, (ev) => {
        if (!ev.isTrusted) return;
        const t = ev.target;
        post(v.$h, ev.type, t && t.type === "checkbox" ? !!t.checked : t && "value" in t ? t.value : null);
      });
    } else if (k === "className") e.className = String(v);
    else if (k === "style" && typeof v === "object") Object.assign(e.style, v);
    else if (k === "value" || k === "checked" || k === "selected") e[k] = v;
    else if (ATTRS.has(k) || k.startsWith("data-")) e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of node.c || []) e.append(...build(c, post));
  return [e];
}

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text != null) e.textContent = text;
  return e;
}

function pathOf(node, box) {
  const path = [];
  for (let n = node; n && n !== box; n = n.parentElement) {
    if (!n.parentElement) return null;
    path.unshift([...n.parentElement.children].indexOf(n));
  }
  return node && box.contains(node) ? { path, at: node.selectionStart } : null;
}

function restore(box, { path, at }) {
  let n = box;
  for (const i of path) n = n && n.children[i];
  if (!n) return;
  n.focus();
  if (typeof at === "number" && n.setSelectionRange) n.setSelectionRange(at, at);
}
