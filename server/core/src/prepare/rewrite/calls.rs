//! How the block calls: its own top-level functions are read from the
//! global object (so a later definition is what older closures call), and
//! names that may resolve through `with` are called without the scope
//! object as `this`.

use oxc_ast::ast::{Declaration, Expression, IdentifierReference, Statement};
use oxc_semantic::Semantic;

use super::{references_to, top_level_declaration, Rewriter, GLOBAL, SCOPE};

impl Rewriter<'_> {
    /// A top-level function is a property of the global object, as in a
    /// console: the block's own references to it read that property, so a
    /// later block that defines the function again changes what this
    /// block's closures call. Marks those references for the walk.
    pub(super) fn mark_function_references(
        &mut self,
        body: &[Statement<'_>],
        semantic: &Semantic<'_>,
    ) {
        for d in body.iter().filter_map(top_level_declaration) {
            if let Declaration::FunctionDeclaration(f) = d {
                if let (Some(id), Some(_)) = (&f.id, &f.body) {
                    let ids = references_to(semantic, id);
                    self.function_references.extend(ids);
                }
            }
        }
    }

    /// `f` → `$global.f` (`{ f }` → `{ f: $global.f }`), for references
    /// marked by [`Self::mark_function_references`].
    pub(super) fn through_global(&mut self, it: &IdentifierReference<'_>) {
        let Some(id) = it.reference_id.get() else {
            return;
        };
        if !self.function_references.contains(&id) || self.called.contains(&it.span.start) {
            return;
        }
        self.replace_reference(it, &format!("{GLOBAL}.{}", it.name));
    }

    /// `f(…)` → `(0, f)(…)` when `f` may resolve through `with` (the scope
    /// object would be its `this`) or is one of the block's functions (read
    /// from the global object, which would be its `this`):
    /// `(0, $global.f)(…)`. Looks through parentheses and TypeScript
    /// wrappers (`(f as any)(…)`). Not for `eval`, which must stay a direct
    /// call.
    pub(super) fn unbind_callee(&mut self, callee: &Expression<'_>) {
        let Some(id) = bare_identifier(callee) else {
            return;
        };
        let name = id.name.as_str();
        let free = self.free.binary_search(&name).is_ok();
        let own = id
            .reference_id
            .get()
            .is_some_and(|r| self.function_references.contains(&r));
        let scoped = self.through_scope_here(id);
        let helper = self.through_helper_here(id);
        if name == "eval" || name == "arguments" || !(free || own || scoped) {
            return;
        }
        // Starting a statement, `(` would continue the line above when it
        // has no `;` (`init()\n(0, render)()`): a `;` goes first.
        let semicolon = match self.statement_starts.contains(&id.span.start) {
            true => ";",
            false => "",
        };
        let target = match (own, scoped, helper) {
            (true, _, _) => format!("{GLOBAL}.{name}"),
            (false, true, _) => format!("{SCOPE}.{name}"),
            (false, false, true) => Self::helper_expression(name),
            (false, false, false) => name.to_string(),
        };
        self.called.insert(id.span.start);
        let (start, end) = (id.span.start as usize, id.span.end as usize);
        let bare = matches!(callee, Expression::Identifier(_));
        if bare && self.source.as_bytes().get(end) == Some(&b'(') {
            // One edit through the `(`: V8 reports a call at its `(`, which
            // then maps back to the callee's start, as for `f(…)`.
            self.splices
                .replace(start, end + 1, format!("{semicolon}(0, {target})("));
        } else {
            self.splices.insert(start, format!("{semicolon}(0, "));
            if own || scoped || helper {
                self.splices.replace(start, end, target);
            }
            self.splices.insert(end, ")");
        }
    }
}

/// The identifier a callee is, through parentheses and type wrappers.
fn bare_identifier<'e, 'a>(e: &'e Expression<'a>) -> Option<&'e IdentifierReference<'a>> {
    match e {
        Expression::Identifier(id) => Some(id),
        Expression::ParenthesizedExpression(p) => bare_identifier(&p.expression),
        Expression::TSAsExpression(t) => bare_identifier(&t.expression),
        Expression::TSSatisfiesExpression(t) => bare_identifier(&t.expression),
        Expression::TSNonNullExpression(t) => bare_identifier(&t.expression),
        Expression::TSTypeAssertion(t) => bare_identifier(&t.expression),
        _ => None,
    }
}
