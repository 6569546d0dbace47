//! Service workers as realms (docs/zero-edits.md, "Service workers").
//!
//! A service worker may not `import()` (the line every other worker gets,
//! `inject.rs`), and `importScripts` works only while its script first
//! runs. So a script fetched with `Sec-Fetch-Dest: serviceworker` gets,
//! after its last line, a line that loads `/daebug-sw.js` as it runs: a
//! classic script `importScripts` it inside a `try` (the browser keeps it
//! with the worker's own scripts, so a worker it starts again later, the
//! hub down or not, finds it), a module statically imports it (a module
//! graph the hub serves; hoisted, it runs before the worker's own code).
//! The request does not say which of the two a script is (both come with
//! `Sec-Fetch-Mode: same-origin`): its syntax does (`import`, `export`,
//! `import.meta` make a module; a classic script with them does not run).
//!
//! `/daebug-sw.js` is the loader (`daebug.js`) with the adapter's glue
//! inside it, made a classic script: no `import()` needed to start.

use oxc_allocator::Allocator;
use oxc_parser::Parser;
use oxc_span::SourceType;

/// Where `daebug.js` imports the glue; replaced by the glue itself here.
const GLUE_IMPORT: &str = "/* daebug:glue */ import(new URL(\"./daebug_adapter.js\", self))";

/// A service worker's script with the line that loads `/daebug-sw.js`
/// (`src`, with the token when there is one) after its last line: every
/// line and column of its own code stays where it was.
pub fn with_service_worker_adapter(script: &str, src: &str) -> String {
    let quoted = serde_json::to_string(src).unwrap_or_else(|_| "\"/daebug-sw.js\"".into());
    let line = match is_module(script) {
        true => format!(";import {quoted};"),
        false => format!(";try {{ importScripts({quoted}); }} catch {{}}"),
    };
    format!("{script}\n{line} // daebug (README, \"Connect … a worker\")\n")
}

/// Whether `script` is module code: it has `import`/`export` declarations
/// or `import.meta`. One that does not parse is taken as classic (the
/// `try` keeps either kind running).
pub fn is_module(script: &str) -> bool {
    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, script, SourceType::unambiguous()).parse();
    !parsed.panicked && parsed.module_record.has_module_syntax
}

/// `/daebug-sw.js`: `loader` (the served `daebug.js`, its URL written in)
/// with `glue` (wasm-bindgen's ES module) inside it as a plain function,
/// or `None` when the glue has a shape this does not know (the route then
/// answers 500 and the worker runs without daebug).
pub fn service_worker_loader(loader: &str, glue: &str) -> Option<String> {
    if !loader.contains(GLUE_IMPORT) {
        return None;
    }
    let glue = classic_glue(glue)?;
    // The glue outside the loader's function, where `self` is the
    // worker's global and not the loader's own URL.
    let loader = loader.replacen(GLUE_IMPORT, "Promise.resolve(daebugGlue)", 1);
    Some(format!(
        "// daebug-sw.js: daebug.js and the adapter's glue, for a service worker (docs/zero-edits.md).\n\
         (() => {{\nconst daebugGlue = (() => {{\n{glue}\n}})();\n{loader}\n}})();\n"
    ))
}

/// wasm-bindgen's `--target web` glue as a function body that returns its
/// exports: `export function f` becomes `function f`, the closing
/// `export { a, b as default }` the object returned, and `import.meta.url`
/// (only a default the loader never uses: it names the `.wasm`) the
/// worker's own URL. `None` for any other `export` or `import`.
fn classic_glue(glue: &str) -> Option<String> {
    let mut body = String::with_capacity(glue.len() + 256);
    let mut names: Vec<(String, String)> = Vec::new();
    for line in glue.lines() {
        if let Some(rest) = line.strip_prefix("export function ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            names.push((name.clone(), name));
            body.push_str("function ");
            body.push_str(rest);
        } else if let Some(list) = line
            .strip_prefix("export {")
            .and_then(|l| l.trim_end().strip_suffix("};"))
        {
            for item in list.split(',').map(str::trim).filter(|i| !i.is_empty()) {
                let (local, public) = item.split_once(" as ").unwrap_or((item, item));
                names.push((public.trim().to_owned(), local.trim().to_owned()));
            }
        } else if line.starts_with("export ") || line.starts_with("import ") {
            return None;
        } else {
            body.push_str(&line.replace("import.meta.url", "location.href"));
        }
        body.push('\n');
    }
    let fields: Vec<String> = names
        .iter()
        .map(|(public, local)| format!("{public:?}: {local}"))
        .collect();
    body.push_str(&format!("return {{ {} }};", fields.join(", ")));
    Some(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GLUE: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../www/adapter/daebug_adapter.js"
    ));

    #[test]
    fn classic_and_module_scripts_get_their_own_line() {
        let classic = "\"use strict\";\nself.addEventListener('fetch', () => {});";
        let out = with_service_worker_adapter(classic, "/daebug-sw.js");
        assert!(out.starts_with(classic), "{out}");
        assert_eq!(
            &out[classic.len()..],
            "\n;try { importScripts(\"/daebug-sw.js\"); } catch {} // daebug (README, \"Connect … a worker\")\n"
        );
        for module in [
            "import { x } from './x.js';\nself.onfetch = () => x;",
            "export const v = 1;",
            "const here = import.meta.url;",
        ] {
            let out = with_service_worker_adapter(module, "/daebug-sw.js?token=t");
            assert!(
                out.ends_with("\n;import \"/daebug-sw.js?token=t\"; // daebug (README, \"Connect … a worker\")\n"),
                "{out}"
            );
        }
        // Not module syntax: a dynamic import, a name, text in a string,
        // a script that does not parse.
        for classic in [
            "const m = import('./m.js');",
            "var importScripts2 = 1; var x = 'import x from \"y\"';",
            "self.oninstall = (",
            "with (self) { x = 1 }",
        ] {
            assert!(!is_module(classic), "{classic}");
        }
    }

    #[test]
    fn the_glue_becomes_a_function_of_its_exports() {
        let body = classic_glue(GLUE).expect("the committed glue's shape");
        assert!(!body.contains("import.meta"), "no import.meta left");
        assert!(
            !body.lines().any(|l| l.starts_with("export ")),
            "no export left"
        );
        let last = body.lines().last().unwrap_or("");
        assert!(last.starts_with("return {"), "{last}");
        for name in ["\"start\": start", "\"default\": __wbg_init"] {
            assert!(last.contains(name), "{last}");
        }
        // It parses as a function body, as a script.
        let wrapped = format!("(() => {{\n{body}\n}})();");
        let allocator = Allocator::default();
        let parsed = Parser::new(&allocator, &wrapped, SourceType::script()).parse();
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert_eq!(classic_glue("export const x = 1;"), None);
    }

    #[test]
    fn the_loader_takes_the_glue_in_place_of_its_import() {
        let loader = format!("(() => {{ const self = \"u\"; const p = {GLUE_IMPORT}.then((g) => g.start(self)); }})();");
        let out = service_worker_loader(&loader, GLUE).expect("made");
        assert!(!out.contains("import("), "no import() in a service worker");
        assert!(out.contains("Promise.resolve(daebugGlue)"));
        let allocator = Allocator::default();
        let parsed = Parser::new(&allocator, &out, SourceType::script()).parse();
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert_eq!(service_worker_loader("no marker", GLUE), None);
    }
}
