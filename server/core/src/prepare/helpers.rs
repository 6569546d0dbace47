//! The console's command-line helpers (docs/log-format.md, "Evaluation"): `$`, `$$`, `$x`,
//! `$_`, `$0`, `keys`, `values`, `dir`, `dirxml`, `table`, `clear`,
//! `inspect`, `monitorEvents`, `unmonitorEvents`, `copy`,
//! `getEventListeners`, `queryObjects`, `debug`, `undebug`, `monitor`,
//! `unmonitor`.
//!
//! As DevTools does (V8's `CommandLineAPIScope`), a block that uses one of
//! these names puts it on the global object while it runs, unless the
//! realm has a global of that name (a page's `$`, jQuery's), and takes it
//! off when it ends. So the page's own `$` wins, also one it makes during
//! the block; `window.$$` is the helper while the block runs; `delete
//! window.$` takes a helper away. An earlier block's binding of the name
//! wins too (it is in the realm scope, read through `with`). The helper
//! itself is made once per realm, so `$ === $` from block to block.
//!
//! A function the block defines reads a helper through [`HELPER`] (the
//! realm scope's, else the global's, else the helper), so it still works
//! when it runs after the block (a listener, a timer): DevTools has the
//! helpers only while the console evaluates.
//!
//! The DOM helpers are there only in realms with a `document`; elsewhere
//! the name stays undefined. Written as JavaScript source here rather than
//! in the adapter: only the blocks that use a helper carry it, and the
//! adapter stays under its size budget.

use super::names::{GLOBAL, HELPER, SCOPE};

/// Where the realm keeps the previous block's value (`$_`) and the last
/// element a block returned or `inspect` was given (`$0`).
pub const LAST: &str = "daebug.last";
pub const ELEMENT: &str = "daebug.$0";

/// The realm's helpers and how many running blocks put each on the
/// global object (`Symbol.for` key on the global).
const REGISTRY: &str = "$daebug$helpers";
/// The helpers this block put on the global object.
const INSTALLED: &str = "$daebug$installed";

/// Each helper's name and its value in the realm (`%G` stands for the
/// global object, `%E` for [`EVENT_GROUPS`]);
/// `undefined` where it does not apply.
const HELPERS: &[(&str, &str)] = &[
    (
        "$",
        "%G.document ? (selector, start) => (start ?? %G.document).querySelector(selector) : undefined",
    ),
    (
        "$$",
        "%G.document ? (selector, start) => [...(start ?? %G.document).querySelectorAll(selector)] : undefined",
    ),
    (
        "$x",
        "%G.document ? (path, start) => { const r = %G.document.evaluate(path, start ?? %G.document, null, 0, null); \
         switch (r.resultType) { case 1: return r.numberValue; case 2: return r.stringValue; case 3: return r.booleanValue; \
         default: { const nodes = []; for (let n = r.iterateNext(); n; n = r.iterateNext()) nodes.push(n); return nodes } } } : undefined",
    ),
    ("keys", "(object) => Object.keys(object)"),
    ("values", "(object) => Object.values(object)"),
    ("dir", "(...args) => %G.console.dir(...args)"),
    ("dirxml", "(...args) => %G.console.dirxml(...args)"),
    ("table", "(...args) => %G.console.table(...args)"),
    ("clear", "() => %G.console.clear()"),
    // DevTools shows the object in its panel, which makes an element `$0`.
    (
        "inspect",
        "(object) => { %G.Element && object instanceof %G.Element && (%G[Symbol.for(\"daebug.$0\")] = object); return object }",
    ),
    // The events are logged as the console logs them (`type`, then the
    // event): while no block runs they reach the log as background events.
    (
        "monitorEvents",
        "(target, types) => { if (!target || typeof target.addEventListener !== \"function\") throw new TypeError(\"monitorEvents: pass an event target, like monitorEvents($('button'), 'click')\"); \
         const groups = %E; const named = types === undefined ? Object.keys(groups) : [types].flat(); \
         const all = named.flatMap((t) => groups[t] ?? [t]); \
         const monitored = %G[Symbol.for(\"daebug.monitored\")] ??= new WeakMap(); \
         const mine = monitored.get(target) ?? new Map(); monitored.set(target, mine); \
         for (const type of all) { if (mine.has(type)) continue; const log = (event) => %G.console.log(event.type, event); mine.set(type, log); target.addEventListener(type, log, true) } }",
    ),
    (
        "unmonitorEvents",
        "(target, types) => { const mine = %G[Symbol.for(\"daebug.monitored\")]?.get(target); if (!mine) return; \
         const groups = %E; const all = types === undefined ? [...mine.keys()] : [types].flat().flatMap((t) => groups[t] ?? [t]); \
         for (const type of all) { const log = mine.get(type); if (log) { target.removeEventListener(type, log, true); mine.delete(type) } } }",
    ),
    // The value whole, in a file of the log's archive that the reply links.
    (
        "copy",
        "(value) => { const t = %G[Symbol.for(\"daebug.toolkit\")]; if (!t?.copy) throw new Error(\"copy: this realm's adapter is older than its hub; reload it\"); t.copy(value) }",
    ),
    // Asked of the hub's browser bridge (`--cdp`): a promise (DevTools
    // answers at once; here the answer crosses the hub).
    (
        "getEventListeners",
        "%G.document ? (target) => { const t = %G[Symbol.for(\"daebug.toolkit\")]; if (!t?.listeners) throw new Error(\"getEventListeners: this realm's adapter is older than its hub; reload it\"); return t.listeners(target) } : undefined",
    ),
    (
        "queryObjects",
        "(constructor) => { const t = %G[Symbol.for(\"daebug.toolkit\")]; if (!t?.objects) throw new Error(\"queryObjects: this realm's adapter is older than its hub; reload it\"); return t.objects(constructor) }",
    ),
    // DevTools' pausing helpers: daebug never pauses a realm.
    (
        "debug",
        "() => { throw new Error(\"debug() pauses in DevTools' debugger; daebug never pauses a realm: log what you need from inside the function instead\") }",
    ),
    (
        "undebug",
        "() => { throw new Error(\"undebug(): daebug sets no breakpoints (debug() is not there either)\") }",
    ),
    // Through the realm's debugger, which never pauses (docs/log-format.md,
    // "Logpoints"): the toolkit says where there is none.
    (
        "monitor",
        "(fn) => { const t = %G[Symbol.for(\"daebug.toolkit\")]; if (!t?.monitor) throw new Error(\"monitor: this realm's adapter is older than its hub; reload it\"); return t.monitor(fn) }",
    ),
    (
        "unmonitor",
        "(fn) => { const t = %G[Symbol.for(\"daebug.toolkit\")]; if (!t?.unmonitor) throw new Error(\"unmonitor: this realm's adapter is older than its hub; reload it\"); return t.unmonitor(fn) }",
    ),
];

/// The event groups `monitorEvents` and `unmonitorEvents` know (`%E`), as
/// DevTools names them.
const EVENT_GROUPS: &str = "{ mouse: [\"click\", \"dblclick\", \"mousedown\", \"mouseenter\", \"mouseleave\", \"mousemove\", \"mouseout\", \"mouseover\", \"mouseup\", \"wheel\"], \
     key: [\"keydown\", \"keyup\", \"keypress\", \"textInput\"], \
     touch: [\"touchstart\", \"touchmove\", \"touchend\", \"touchcancel\"], \
     pointer: [\"pointerover\", \"pointerout\", \"pointerenter\", \"pointerleave\", \"pointerdown\", \"pointerup\", \"pointermove\", \"pointercancel\", \"gotpointercapture\", \"lostpointercapture\"], \
     control: [\"resize\", \"scroll\", \"zoom\", \"focus\", \"blur\", \"select\", \"change\", \"submit\", \"reset\"] }";

/// Helpers whose value is read anew each time (not a function).
const VALUES: &[(&str, &str)] = &[
    ("$_", "%G[Symbol.for(\"daebug.last\")]"),
    ("$0", "%G[Symbol.for(\"daebug.$0\")]"),
];

/// Whether `name` is one of the console's helpers.
pub fn is_helper(name: &str) -> bool {
    HELPERS.iter().chain(VALUES).any(|(n, _)| *n == name)
}

/// The code that puts the helpers among `free` (the names a block uses
/// without declaring them) on the global object for the block, and
/// [`HELPER`]; empty when the block uses none.
pub fn install(free: &[&str]) -> String {
    let used: Vec<&str> = free.iter().copied().filter(|n| is_helper(n)).collect();
    if used.is_empty() {
        return String::new();
    }
    let mut out = format!(
        " const {REGISTRY} = {GLOBAL}[Symbol.for(\"daebug.helpers\")] ??= {{ get: Object.create(null), uses: Object.create(null) }};"
    );
    for name in &used {
        let quoted = serde_json::to_string(name).unwrap_or_default();
        if let Some((_, value)) = VALUES.iter().find(|(n, _)| n == name) {
            let value = value.replace("%G", GLOBAL);
            out.push_str(&format!(" {REGISTRY}.get[{quoted}] ??= () => {value};"));
        } else if let Some((_, value)) = HELPERS.iter().find(|(n, _)| n == name) {
            let value = value.replace("%G", GLOBAL).replace("%E", EVENT_GROUPS);
            out.push_str(&format!(
                " {REGISTRY}.get[{quoted}] ??= ((value) => () => value)({value});"
            ));
        }
    }
    let names = serde_json::to_string(&used).unwrap_or_else(|_| "[]".into());
    out.push_str(&format!(
        " const {INSTALLED} = {names}.filter((n) => {{ const get = {REGISTRY}.get[n]; \
         if (!(n in {GLOBAL}) && (n === \"$_\" || n === \"$0\" || get() !== undefined)) Object.defineProperty({GLOBAL}, n, {{ get, set(v) {{ Object.defineProperty({GLOBAL}, n, {{ value: v, writable: true, enumerable: true, configurable: true }}) }}, configurable: true }}); \
         if (Object.getOwnPropertyDescriptor({GLOBAL}, n)?.get !== get) return false; \
         {REGISTRY}.uses[n] = ({REGISTRY}.uses[n] ?? 0) + 1; return true }}), \
         {HELPER} = (n) => n in {SCOPE} ? {SCOPE}[n] : n in {GLOBAL} ? {GLOBAL}[n] : {REGISTRY}.get[n]();"
    ));
    out
}

/// The code that takes the block's helpers off the global object when it
/// ends (the last block that put one there takes it off, and only while
/// it is still the helper).
pub fn removal(free: &[&str]) -> String {
    if !free.iter().any(|n| is_helper(n)) {
        return String::new();
    }
    format!(
        "for (const n of {INSTALLED}) if (--{REGISTRY}.uses[n] === 0 && Object.getOwnPropertyDescriptor({GLOBAL}, n)?.get === {REGISTRY}.get[n]) delete {GLOBAL}[n];"
    )
}

/// An expression that keeps the block's `result` as the next block's
/// `$_`, and an element as `$0` (the prepared code returns it after).
pub fn remember(result: &str) -> String {
    format!(
        "{GLOBAL}[Symbol.for(\"{LAST}\")] = {result}, \
         {GLOBAL}.Element && {result} instanceof {GLOBAL}.Element && ({GLOBAL}[Symbol.for(\"{ELEMENT}\")] = {result})"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_helpers_a_block_uses_and_none_for_a_block_without() {
        assert_eq!(install(&["document", "x"]), "");
        assert_eq!(removal(&["document", "x"]), "");
        let d = install(&["$$", "keys", "$_"]);
        assert!(
            d.contains("$daebug$helpers.get[\"$$\"] ??= ((value) => () => value)($daebug$global.document ?"),
            "{d}"
        );
        assert!(d.contains("$daebug$helpers.get[\"keys\"] ??= ((value) => () => value)((object) => Object.keys(object));"), "{d}");
        assert!(d.contains("$daebug$helpers.get[\"$_\"] ??= () => $daebug$global[Symbol.for(\"daebug.last\")];"), "{d}");
        assert!(d.contains("[\"$$\",\"keys\",\"$_\"].filter("), "{d}");
        assert!(!d.contains("get[\"$\"]"), "{d}");
        assert!(!d.contains("%G"), "{d}");
        let events = install(&["monitorEvents", "unmonitorEvents"]);
        assert_eq!(events.matches("pointerdown").count(), 2, "{events}");
        assert!(!events.contains("%E"), "{events}");
        assert!(removal(&["$$"]).starts_with("for (const n of $daebug$installed)"));
    }

    #[test]
    fn the_bridge_helpers_ask_the_toolkit() {
        let d = install(&["getEventListeners", "queryObjects"]);
        assert!(d.contains("return t.listeners(target)"), "{d}");
        assert!(d.contains("return t.objects(constructor)"), "{d}");
    }

    #[test]
    fn monitor_and_unmonitor_ask_the_toolkit() {
        let d = install(&["monitor", "unmonitor"]);
        assert!(d.contains("return t.monitor(fn)"), "{d}");
        assert!(d.contains("return t.unmonitor(fn)"), "{d}");
    }
}
