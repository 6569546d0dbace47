//! The names a console's top level does not have, and the block's own
//! `let` and `const` as one binding per realm (V8's REPL mode keeps one
//! slot per name: a later block that declares the name again sets what
//! every earlier closure reads).

use oxc_ast::ast::{
    Declaration, Expression, IdentifierReference, Statement, UnaryExpression, UnaryOperator,
    VariableDeclarationKind,
};
use oxc_semantic::Semantic;

use super::super::names::HELPER;
use super::{references_to, top_level_declaration, Rewriter, GLOBAL, SCOPE};

impl Rewriter<'_> {
    /// Marks the references to the block's top-level `let` and `const`
    /// names made inside functions: those read the realm scope (the name's
    /// accessors), so a later block's declaration of the name is what they
    /// see, as in a console. The block's own top-level code keeps the
    /// fast local binding. (`class` keeps its own: inside its body a class
    /// name means that class, in a console too.)
    pub(super) fn mark_lexical_references(
        &mut self,
        body: &[Statement<'_>],
        semantic: &Semantic<'_>,
    ) {
        for d in body.iter().filter_map(top_level_declaration) {
            let Declaration::VariableDeclaration(d) = d else {
                continue;
            };
            let lexical = matches!(
                d.kind,
                VariableDeclarationKind::Let | VariableDeclarationKind::Const
            );
            if d.declare || !lexical {
                continue;
            }
            for declarator in &d.declarations {
                for id in declarator.id.get_binding_identifiers() {
                    let ids = references_to(semantic, id);
                    self.lexical_references.extend(ids);
                }
            }
        }
    }

    /// Whether `it` is read from the realm scope (see
    /// [`Self::mark_lexical_references`]).
    pub(super) fn through_scope_here(&self, it: &IdentifierReference<'_>) -> bool {
        self.closure_depth > 0
            && it
                .reference_id
                .get()
                .is_some_and(|id| self.lexical_references.contains(&id))
    }

    /// `x` → `$scope.x` inside a function, for the block's top-level
    /// `let`/`const` (`{ x }` → `{ x: $scope.x }`).
    pub(super) fn through_scope(&mut self, it: &IdentifierReference<'_>) {
        if !self.through_scope_here(it) || self.called.contains(&it.span.start) {
            return;
        }
        self.replace_reference(it, &format!("{SCOPE}.{}", it.name));
    }

    /// Whether `it` reads a console helper inside a function (see
    /// `prepare::helpers`, [`HELPER`]).
    pub(super) fn through_helper_here(&self, it: &IdentifierReference<'_>) -> bool {
        self.closure_depth > 0
            && it
                .reference_id
                .get()
                .and_then(|id| self.helper_references.get(&id))
                .is_some_and(|write| !write)
    }

    /// The expression a function of the block reads the helper `name` with.
    pub(super) fn helper_expression(name: &str) -> String {
        let quoted = serde_json::to_string(name).unwrap_or_default();
        format!("{HELPER}({quoted})")
    }

    /// `$` → `$helper("$")` inside a function: it may run after the block,
    /// when the helper is no longer on the global object.
    pub(super) fn through_helper(&mut self, it: &IdentifierReference<'_>) {
        if !self.through_helper_here(it) || self.called.contains(&it.span.start) {
            return;
        }
        self.replace_reference(it, &Self::helper_expression(&it.name));
    }

    /// `arguments` outside functions is the wrapper's: a console's top
    /// level has none (`ReferenceError`, or the global of that name).
    pub(super) fn no_arguments(&mut self, it: &IdentifierReference<'_>) {
        if self.plain_function_depth > 0 {
            return;
        }
        let Some(write) = it
            .reference_id
            .get()
            .and_then(|id| self.top_arguments.get(&id).copied())
        else {
            return;
        };
        let value = match write {
            true => format!("{GLOBAL}.arguments"),
            false => format!(
                "(\"arguments\" in {GLOBAL} ? {GLOBAL}.arguments : (() => {{ throw new ReferenceError(\"arguments is not defined\") }})())"
            ),
        };
        self.replace_reference(it, &value);
    }

    /// `typeof arguments` at the top level reads the global (no error);
    /// `delete x` of a name that is an earlier block's `let` is `false`, as
    /// a binding cannot be deleted (through `with`, the realm scope's
    /// accessor would go); `delete x` of a `let` read from the realm
    /// scope stays as written.
    pub(super) fn unary(&mut self, it: &UnaryExpression<'_>) {
        let Expression::Identifier(id) = it.argument.get_inner_expression() else {
            return;
        };
        let name = id.name.as_str();
        match it.operator {
            UnaryOperator::Typeof
                if self.plain_function_depth == 0
                    && id
                        .reference_id
                        .get()
                        .is_some_and(|r| self.top_arguments.contains_key(&r)) =>
            {
                self.handled.insert(id.span.start);
                self.splices.replace(
                    id.span.start as usize,
                    id.span.end as usize,
                    format!("{GLOBAL}.arguments"),
                );
            }
            UnaryOperator::Delete if self.through_scope_here(id) => {
                self.handled.insert(id.span.start);
            }
            UnaryOperator::Delete if self.free.binary_search(&name).is_ok() => {
                let quoted = serde_json::to_string(name).unwrap_or_default();
                self.splices.insert(
                    it.span.start as usize,
                    format!("({quoted} in {SCOPE} ? false : "),
                );
                self.splices.insert(it.span.end as usize, ")");
            }
            _ => {}
        }
    }
}
