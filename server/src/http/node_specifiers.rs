//! `node:test` and `node:assert` in the scripts the hub serves resolve to
//! daebug's own (docs/log-format.md, "Tests in the realm"): `import { test } from "node:test"` is served
//! as `import { test } from "/daebug-test.mjs"`. A browser has no
//! `node:` modules, and an import map would not reach a module worker; a
//! rewrite reaches both. Pure: text in, text out.

/// The specifiers rewritten, and the hub's module each resolves to.
const MAPPED: [(&str, &str); 4] = [
    ("node:test", "/daebug-test.mjs"),
    ("node:assert/strict", "/daebug-assert-strict.mjs"),
    ("node:assert", "/daebug-assert.mjs"),
    ("node:test/reporters", "/daebug-test.mjs"),
];

/// `source` with each mapped specifier rewritten where it is imported
/// (after `from`, `import` or `import(`, in either quote), or `None` when
/// there is none.
pub fn rewrite(source: &str) -> Option<String> {
    if !source.contains("node:") {
        return None;
    }
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    let mut changed = false;
    while let Some(at) = rest.find("node:") {
        let quote_at = at.checked_sub(1);
        let quote = quote_at.and_then(|q| rest[q..].chars().next());
        let hit = match quote {
            Some(q @ ('"' | '\'')) => MAPPED.iter().find(|(name, _)| {
                rest[at..].starts_with(name) && rest[at + name.len()..].starts_with(q)
            }),
            _ => None,
        };
        match hit {
            Some((name, to)) if imported(&rest[..at - 1]) => {
                out.push_str(&rest[..at]);
                out.push_str(to);
                rest = &rest[at + name.len()..];
                changed = true;
            }
            _ => {
                out.push_str(&rest[..at + 5]);
                rest = &rest[at + 5..];
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// Whether the text before a string literal ends with `from`, `import`
/// or `import(` (spaces between): the literal is a module specifier.
fn imported(before: &str) -> bool {
    let t = before.trim_end();
    let t = t.strip_suffix('(').map_or(t, str::trim_end);
    ["from", "import"].iter().any(|k| {
        t.strip_suffix(k)
            .is_some_and(|b| !b.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$'))
    })
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn imports_of_node_test_and_assert_are_rewritten() {
        let cases = [
            (
                "import { test } from 'node:test';",
                Some("import { test } from '/daebug-test.mjs';"),
            ),
            (
                "import assert from \"node:assert/strict\"\nimport a2 from \"node:assert\"",
                Some("import assert from \"/daebug-assert-strict.mjs\"\nimport a2 from \"/daebug-assert.mjs\""),
            ),
            (
                "const t = await import ( 'node:test' )",
                Some("const t = await import ( '/daebug-test.mjs' )"),
            ),
            ("import'node:test'", Some("import'/daebug-test.mjs'")),
            // Not an import: a string that happens to say it.
            ("const s = 'node:test';", None),
            ("log(\"node:assert\")", None),
            // Another node: module is left alone (the browser says why).
            ("import fs from 'node:fs'", None),
            ("import x from 'node:tests'", None),
            ("no node here", None),
        ];
        for (source, want) in cases {
            assert_eq!(rewrite(source).as_deref(), want, "{source}");
        }
    }
}
