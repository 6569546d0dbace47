//! The console's command-line helpers (DESIGN §12): `$`, `$$`, `$x`,
//! `$_`, `$0`, `keys`, `values`, `dir`, `dirxml`, `table`, `clear`.
//!
//! A block that uses one of these names without declaring it gets a
//! constant of that name around its code (closures it defines keep it).
//! The realm's own global of that name wins (a page's `$`, jQuery's), and
//! an earlier block's binding of it wins too (it is in the realm scope,
//! which the block reads through `with`). The DOM helpers are there only
//! in realms with a `document`; elsewhere the name is `undefined`.
//!
//! Written as JavaScript source here rather than in the adapter: the
//! helpers are a few lines each, only the blocks that use them pay for
//! them, and the adapter stays under its size budget.

use super::rewrite::GLOBAL;

/// Where the realm keeps the previous block's value (`$_`) and the last
/// element a block returned (`$0`).
pub const LAST: &str = "daebug.last";
pub const ELEMENT: &str = "daebug.$0";

/// Each helper's name and the value it has when the realm has no global
/// of that name (`%G` stands for the global object).
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
    ("$_", "%G[Symbol.for(\"daebug.last\")]"),
    ("$0", "%G[Symbol.for(\"daebug.$0\")]"),
    ("keys", "(object) => Object.keys(object)"),
    ("values", "(object) => Object.values(object)"),
    ("dir", "(...args) => %G.console.dir(...args)"),
    ("dirxml", "(...args) => %G.console.dirxml(...args)"),
    ("table", "(...args) => %G.console.table(...args)"),
    ("clear", "() => %G.console.clear()"),
];

/// The declarations of the helpers among `free` (the names a block uses
/// without declaring them), for the code around the block.
pub fn declarations(free: &[&str]) -> String {
    let mut out = String::new();
    for (name, value) in HELPERS.iter().filter(|(n, _)| free.contains(n)) {
        let quoted = serde_json::to_string(name).unwrap_or_default();
        let value = value.replace("%G", GLOBAL);
        out.push_str(&format!(
            " const {name} = {quoted} in {GLOBAL} ? {GLOBAL}[{quoted}] : {value};"
        ));
    }
    out
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
    fn only_the_helpers_a_block_uses_and_the_realms_own_win() {
        assert_eq!(declarations(&["document", "x"]), "");
        let d = declarations(&["$$", "keys"]);
        assert!(d.contains("const $$ = \"$$\" in $daebug$global ? $daebug$global[\"$$\"] : $daebug$global.document ?"), "{d}");
        assert!(d.contains("const keys = \"keys\" in $daebug$global ? $daebug$global[\"keys\"] : (object) => Object.keys(object);"), "{d}");
        assert!(!d.contains("const $ ="), "{d}");
        assert!(!d.contains("%G"), "{d}");
    }
}
