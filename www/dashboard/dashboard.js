// The daebug dashboard: the realms, the selected realm's log (rendered to
// HTML by the hub, `GET /_daebug/api/realms/{stem}/log?format=html`), live through
// `/_daebug/api/events`, and a box that sends a block as agent `dashboard`.
//
// Plain JavaScript, no build step. Every request is same-origin: when the
// hub has a token, opening the page with `?token=…` made the hub set its
// cookie, which fetch and EventSource send from then on.

import { renderPerson } from "/_daebug/person.js";

const AGENT = "dashboard";
// Coalesces a burst of log writes (a job's progress, its reply) into one fetch.
const LOG_DEBOUNCE_MS = 100;
// How often a running job's elapsed time is redrawn.
const TICK_MS = 100;
// The log's last lines the page shows (the hub cuts where a block starts):
// a log grows to 4 MiB before its history moves, too much to render live.
const TAIL_LINES = 3000;
// Within this many pixels of the bottom, the log follows what is written.
const STICKY_PX = 40;

const $ = (id) => document.getElementById(id);

const view = {
  realms: [],
  selected: null,
  // The log on screen is this realm's (its first render scrolls to the end).
  shown: null,
  logTimer: null,
  logBusy: false,
  logDirty: false,
  // A running job's start on this page's clock, by its reply header: the
  // hub refreshes `executing (Ns)` at most every 5 s, so the page keeps
  // the earliest start it has seen and counts from there.
  started: new Map(),
  pending: 0,
};

function setHubStatus(state, text) {
  const el = $("hub-status");
  el.dataset.state = state;
  el.textContent = text;
}

function setSendStatus(kind, text) {
  const el = $("send-status");
  el.dataset.kind = kind;
  el.textContent = text;
}

// A refusal's words: the API answers `{error, message}`; anything else
// (a 401 from the token check is plain text) is shown as it came.
async function refusal(res) {
  const body = await res.text();
  try {
    const json = JSON.parse(body);
    if (json && json.message) return `${res.status}: ${json.message}`;
  } catch (_) {
    // not JSON
  }
  return `${res.status}: ${body.trim() || res.statusText}`;
}

// ----- realms ----------------------------------------------------------

async function refreshRealms() {
  let res;
  try {
    res = await fetch("/_daebug/api/realms", { cache: "no-store" });
  } catch (e) {
    setHubStatus("down", "the hub is not reachable");
    return;
  }
  if (!res.ok) {
    setHubStatus("down", await refusal(res));
    return;
  }
  const before = view.realms;
  view.realms = await res.json();
  // Pick a realm when none is, or when the one shown left the list; a
  // stem asked for by the address stays (its log answers why not).
  const left =
    before.some((r) => r.stem === view.selected) &&
    !view.realms.some((r) => r.stem === view.selected);
  if (!view.selected || left) {
    const fromHash = decodeURIComponent(location.hash.slice(1));
    const pick =
      view.realms.find((r) => r.stem === fromHash) ||
      view.realms.find((r) => r.state !== "disconnected") ||
      view.realms[0];
    if (pick) select(pick.stem);
  }
  renderRealms();
}

function renderRealms() {
  const list = $("realms");
  list.replaceChildren(
    ...view.realms.map((realm) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "realm";
      button.dataset.stem = realm.stem;
      button.dataset.state = realm.state;
      if (realm.stem === view.selected) button.setAttribute("aria-current", "true");
      const top = document.createElement("div");
      top.className = "realm-top";
      const stem = document.createElement("span");
      stem.className = "stem";
      stem.textContent = realm.stem;
      const kind = document.createElement("span");
      kind.className = "kind";
      kind.textContent = realm.kind;
      const state = document.createElement("span");
      state.className = "state";
      state.textContent = realm.state;
      top.append(stem, kind, state);
      if (realm.waiting && realm.waiting.length) {
        const waiting = document.createElement("span");
        waiting.className = "waiting";
        waiting.textContent = "waiting for a person";
        top.append(waiting);
      }
      if (realm.log_error) {
        // Replies are kept and written when the log can be written again.
        const unwritten = document.createElement("span");
        unwritten.className = "waiting";
        unwritten.textContent = "log not written";
        unwritten.title = `the log is not being written: ${realm.log_error}`;
        top.append(unwritten);
      }
      const where = document.createElement("div");
      where.className = "where";
      where.textContent = realm.name ? `${realm.name} — ${realm.url}` : realm.url;
      where.title = `${realm.url} (last heard ${realm.last})`;
      button.append(top, where);
      button.addEventListener("click", () => select(realm.stem));
      item.append(button);
      return item;
    }),
  );
  renderPerson($("person"), view.realms.find((r) => r.stem === view.selected));
  const none = view.realms.length === 0;
  $("no-realms").hidden = !none;
  if (none) $("connect").open = true;
}

function select(stem) {
  if (view.selected === stem) return;
  view.selected = stem;
  if (location.hash.slice(1) !== encodeURIComponent(stem)) {
    history.replaceState(null, "", `#${encodeURIComponent(stem)}`);
  }
  const realm = view.realms.find((r) => r.stem === stem);
  $("log-title").textContent = stem;
  $("log-path").textContent = realm ? realm.log : `debug/${stem}.md`;
  for (const b of document.querySelectorAll(".realm")) {
    if (b.dataset.stem === stem) b.setAttribute("aria-current", "true");
    else b.removeAttribute("aria-current");
  }
  renderPerson($("person"), realm);
  scheduleLog(0);
}

// ----- the log ---------------------------------------------------------

function scheduleLog(delay = LOG_DEBOUNCE_MS) {
  if (view.logTimer !== null) return;
  view.logTimer = setTimeout(() => {
    view.logTimer = null;
    loadLog();
  }, delay);
}

async function loadLog() {
  const stem = view.selected;
  if (!stem) return;
  if (view.logBusy) {
    view.logDirty = true;
    return;
  }
  view.logBusy = true;
  try {
    const res = await fetch(
      `/_daebug/api/realms/${encodeURIComponent(stem)}/log?format=html&tail=${TAIL_LINES}`,
      { cache: "no-store" },
    );
    if (stem !== view.selected) return;
    const log = $("log");
    if (!res.ok) {
      log.replaceChildren(paragraph("muted", await refusal(res)));
      return;
    }
    const html = await res.text();
    const first = view.shown !== stem;
    const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < STICKY_PX;
    // The hub rendered it: page output and raw HTML in the log are escaped
    // there, and this page's policy runs no inline script either.
    log.innerHTML = html;
    view.shown = stem;
    if (first || atBottom) log.scrollTop = log.scrollHeight;
    noteRunning(stem);
    tick();
  } catch (e) {
    setHubStatus("down", "the hub is not reachable");
  } finally {
    view.logBusy = false;
    if (view.logDirty) {
      view.logDirty = false;
      scheduleLog();
    }
  }
}

function paragraph(className, text) {
  const p = document.createElement("p");
  p.className = className;
  p.textContent = text;
  return p;
}

// The reply header a placeholder belongs to: the text before it in its
// own paragraph (a lazy continuation of the header's quote), else the
// nearest quote above (events came between).
function headerOf(span) {
  const para = span.closest("p");
  if (para) {
    const before = para.textContent.slice(0, para.textContent.indexOf(span.textContent)).trim();
    if (before) return before;
    for (let el = (para.closest("blockquote") || para).previousElementSibling; el; el = el.previousElementSibling) {
      if (el.tagName === "BLOCKQUOTE") return el.textContent.trim();
    }
  }
  return "";
}

// Remember when each running job started, from the elapsed time the log says.
function noteRunning(stem) {
  const now = performance.now();
  const live = new Set();
  for (const span of document.querySelectorAll("#log .executing")) {
    const key = `${stem}\n${headerOf(span)}`;
    live.add(key);
    span.dataset.key = key;
    span.dataset.text = span.textContent;
    const start = now - Number(span.dataset.elapsedMs || 0);
    const known = view.started.get(key);
    view.started.set(key, known === undefined ? start : Math.min(known, start));
  }
  for (const key of [...view.started.keys()]) {
    if (key.startsWith(`${stem}\n`) && !live.has(key)) view.started.delete(key);
  }
}

// Redraw each running job's elapsed time, one decimal.
function tick() {
  const now = performance.now();
  for (const span of document.querySelectorAll("#log .executing")) {
    const start = view.started.get(span.dataset.key);
    if (start === undefined) continue;
    const seconds = ((now - start) / 1000).toFixed(1);
    span.textContent = span.dataset.text.replace(/^executing \(\d+s/, `executing (${seconds}s`);
  }
}

// ----- the box ---------------------------------------------------------

async function send(event) {
  event.preventDefault();
  const box = $("code");
  const code = box.value;
  const stem = view.selected;
  if (!stem) {
    setSendStatus("error", "pick a realm first");
    return;
  }
  if (!code.trim()) {
    setSendStatus("error", "write some code first");
    return;
  }
  const lang = $("lang").value;
  // Cleared at once (the block shows up in the log), put back if refused.
  box.value = "";
  view.pending += 1;
  setSendStatus("pending", `sent to ${stem}; waiting for its reply…`);
  const giveBack = (why) => {
    if (!box.value.trim()) box.value = code;
    setSendStatus("error", why);
  };
  try {
    const res = await fetch(`/_daebug/api/realms/${encodeURIComponent(stem)}/eval`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code, lang, agent: AGENT }),
    });
    if (!res.ok) {
      giveBack(`not sent: ${await refusal(res)}`);
      return;
    }
    const reply = await res.json();
    const took = reply.duration_ms < 2000 ? `${reply.duration_ms}ms` : `${(reply.duration_ms / 1000).toFixed(1)}s`;
    setSendStatus(reply.ok ? "ok" : "failed", `${stem}: ${reply.state} (${took})`);
  } catch (e) {
    giveBack(`not sent: the hub is not reachable (${e.message})`);
  } finally {
    view.pending -= 1;
    if (stem === view.selected) scheduleLog();
  }
}

function sendOnShortcut(event) {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    $("send").requestSubmit();
  }
}

// ----- live ------------------------------------------------------------

function listen() {
  const events = new EventSource("/_daebug/api/events");
  events.onopen = () => {
    setHubStatus("live", "live");
    refreshRealms();
    scheduleLog(0);
  };
  events.onmessage = (message) => {
    let event;
    try {
      event = JSON.parse(message.data);
    } catch (_) {
      return;
    }
    if (event.type === "realms") refreshRealms();
    else if (event.type === "log" && event.stem === view.selected) scheduleLog();
  };
  events.onerror = () => {
    if (events.readyState === EventSource.CLOSED) {
      // Refused (no token?) or gone: try again on our own.
      setHubStatus("down", "not connected to the hub; retrying…");
      setTimeout(listen, 3000);
    } else {
      setHubStatus("down", "the hub went away; reconnecting…");
    }
  };
}

function start() {
  $("send").addEventListener("submit", send);
  $("code").addEventListener("keydown", sendOnShortcut);
  window.addEventListener("hashchange", () => {
    const stem = decodeURIComponent(location.hash.slice(1));
    if (stem) select(stem);
  });
  setInterval(tick, TICK_MS);
  refreshRealms();
  listen();
}

start();
