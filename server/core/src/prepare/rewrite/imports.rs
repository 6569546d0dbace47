//! Static `import` in a block: it becomes `await import()` of the same
//! module, resolved against the realm's URL, and its names persist to later
//! blocks, read live from the module namespace.

use oxc_ast::ast::{
    ImportDeclaration, ImportDeclarationSpecifier, ImportOrExportKind, ModuleExportName,
};

use super::{Rewriter, EXPORT, RESOLVE};

impl Rewriter<'_> {
    /// `import d, { a as b } from "./m.js"` →
    /// `const { default: d, a: b } = await import($resolve("./m.js"));`,
    /// padded with the line breaks it replaced.
    pub(super) fn import(&mut self, i: &ImportDeclaration<'_>) {
        // `import { type A, type B } from …` is only types, as TypeScript
        // reads it: nothing to load.
        let only_types = i.specifiers.as_ref().is_some_and(|list| {
            !list.is_empty()
                && list.iter().all(|s| {
                    matches!(s, ImportDeclarationSpecifier::ImportSpecifier(s) if s.import_kind == ImportOrExportKind::Type)
                })
        });
        if i.import_kind == ImportOrExportKind::Type || only_types {
            self.blank_statement(i.span.start, i.span.end);
            return;
        }
        if i.phase.is_some() {
            return self.refuse(
                i.span.start,
                "`import source`/`import defer` cannot run in a block; write `await import(\"…\")`",
            );
        }
        let span = |s: oxc_span::Span| &self.source[s.start as usize..s.end as usize];
        let specifier = span(i.source.span);
        let options = i
            .with_clause
            .as_ref()
            .map(|w| format!(", {{ with: {} }}", attributes(span(w.span))))
            .unwrap_or_default();
        let load = format!("await import({RESOLVE}({specifier}){options})");
        let Bindings {
            default,
            namespace,
            named,
        } = self.bindings(i);
        // The module namespace, kept so later blocks read the live exports.
        self.imports += 1;
        let namespace_var = format!("$daebug$import{}", self.imports);
        let mut live = Vec::new();
        let mut pattern = Vec::new();
        if let Some(d) = &default {
            pattern.push(format!("default: {d}"));
            live.push((d.clone(), format!("{namespace_var}.default")));
        }
        for (imported, local) in &named {
            pattern.push(if imported == local {
                local.clone()
            } else {
                format!("{imported}: {local}")
            });
            live.push((
                local.clone(),
                format!("{namespace_var}[{}]", js_string(imported)),
            ));
        }
        let mut parts = vec![format!("{namespace_var} = {load}")];
        if let Some(ns) = &namespace {
            parts.push(format!("{ns} = {namespace_var}"));
            live.insert(0, (ns.clone(), namespace_var.clone()));
        }
        if !pattern.is_empty() {
            parts.push(format!("{{ {} }} = {namespace_var}", pattern.join(", ")));
        }
        let code = match i.specifiers {
            None => format!("{load};"),
            Some(_) => format!("const {};", parts.join(", ")),
        };
        let breaks = span(i.span).matches('\n').count();
        let code = code + &"\n".repeat(breaks);
        self.splices
            .replace(i.span.start as usize, i.span.end as usize, code);
        if !live.is_empty() {
            let accessors: Vec<String> = live
                .iter()
                .map(|(local, read)| {
                    format!(
                        "get {local}() {{ return {read} }}, set {local}($daebug$value) {{ throw new TypeError(\"Assignment to constant variable.\") }}"
                    )
                })
                .collect();
            self.splices.insert(
                i.span.end as usize,
                format!(";{EXPORT}({{ {} }});", accessors.join(", ")),
            );
        }
    }
}

/// The names an `import` binds.
#[derive(Default)]
struct Bindings {
    /// `import d from …`
    default: Option<String>,
    /// `import * as ns from …`
    namespace: Option<String>,
    /// `import { a as b } from …`: (imported, local), types left out.
    named: Vec<(String, String)>,
}

impl Rewriter<'_> {
    fn bindings(&self, i: &ImportDeclaration<'_>) -> Bindings {
        let span = |s: oxc_span::Span| &self.source[s.start as usize..s.end as usize];
        let mut b = Bindings::default();
        for s in i.specifiers.iter().flatten() {
            match s {
                ImportDeclarationSpecifier::ImportDefaultSpecifier(d) => {
                    b.default = Some(d.local.name.as_str().to_string())
                }
                ImportDeclarationSpecifier::ImportNamespaceSpecifier(n) => {
                    b.namespace = Some(n.local.name.as_str().to_string())
                }
                ImportDeclarationSpecifier::ImportSpecifier(s) => {
                    if s.import_kind == ImportOrExportKind::Type {
                        continue;
                    }
                    let imported = match &s.imported {
                        ModuleExportName::StringLiteral(l) => span(l.span).to_string(),
                        other => other.name().as_str().to_string(),
                    };
                    b.named.push((imported, s.local.name.as_str().to_string()));
                }
            }
        }
        b
    }
}

/// `text` as a JavaScript string literal.
fn js_string(text: &str) -> String {
    if text.starts_with(['"', '\'']) {
        return text.to_string();
    }
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into())
}

/// The `{ type: "json" }` of `with { type: "json" }`.
fn attributes(with_clause: &str) -> &str {
    let t = with_clause.trim_start();
    let t = t
        .strip_prefix("with")
        .or_else(|| t.strip_prefix("assert"))
        .unwrap_or(t);
    t.trim()
}
