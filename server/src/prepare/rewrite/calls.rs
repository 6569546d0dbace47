//! How the block calls: its own top-level functions are read from the
//! global object (so a later definition is what older closures call), and
//! names that may resolve through `with` are called without the scope
//! object as `this`.

use oxc_ast::ast::{Declaration, Expression, IdentifierReference, Program, Statement};
use oxc_semantic::Semantic;

use super::{Rewriter, GLOBAL};

impl Rewriter<'_> {
    /// A top-level function is a property of the global object, as in a
    /// console: the block's own references to it read that property, so a
    /// later block that defines the function again changes what this
    /// block's closures call. Marks those references for the walk.
    pub(super) fn mark_function_references(
        &mut self,
        program: &Program<'_>,
        semantic: &Semantic<'_>,
    ) {
        for statement in &program.body {
            let f = match statement {
                Statement::FunctionDeclaration(f) => f,
                Statement::ExportDeclaration(e) => match &e.declaration {
                    Declaration::FunctionDeclaration(f) => f,
                    _ => continue,
                },
                _ => continue,
            };
            if let (Some(id), Some(_)) = (&f.id, &f.body) {
                if let Some(symbol) = id.symbol_id.get() {
                    let ids = semantic.scoping().get_resolved_reference_ids(symbol);
                    self.function_references.extend(ids.iter().copied());
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
        if !self.function_references.contains(&id) {
            return;
        }
        let name = it.name.as_str();
        let key = match self.shorthands.contains(&it.span.start) {
            true => format!("{name}: "),
            false => String::new(),
        };
        self.splices.replace(
            it.span.start as usize,
            it.span.end as usize,
            format!("{key}{GLOBAL}.{name}"),
        );
    }

    pub(super) fn unbind_callee(&mut self, callee: &Expression<'_>) {
        if let Expression::Identifier(id) = callee {
            let name = id.name.as_str();
            if name != "eval" && self.free.contains(&name) {
                self.splices.insert(id.span.start as usize, "(0, ");
                self.splices.insert(id.span.end as usize, ")");
            }
        }
    }
}
