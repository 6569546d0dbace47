//! TypeScript types stripped by *blanking*: every TypeScript-only piece of a
//! block becomes spaces of the same length (line breaks stay), like
//! Bloomberg's `ts-blank-space` or Node's `--experimental-strip-types`. The
//! JavaScript left behind keeps every line and column, so stack traces and
//! syntax errors point into the block as written, and no printer is needed.
//!
//! Blanking a whole statement (`interface I {}`, `type T = …`, `declare …`,
//! an overload signature) must not let the lines around it join: in
//! `foo\ntype T = 1\n(bar)` TypeScript sees two statements, but
//! `foo\n\n(bar)` is a call. So a blanked statement (or class member)
//! starts with `;` instead of a space, as in `ts-blank-space`. Other spots
//! where plain blanks would change how JavaScript reads the rest get a
//! character in place of one blank, so lengths still match:
//! - `x as T` (or `satisfies T`) ending a statement that TypeScript ended by
//!   automatic semicolon insertion, right before a line starting with `(`,
//!   `[` or a template, leaves a `;` where `as` was;
//! - a TypeScript modifier that starts a class member (`public`, `readonly`,
//!   …) after a field with no `;` becomes `;`, so the field's value does not
//!   run on into the next member (`x = a\npublic [k] = 1`); likewise the
//!   type of a field named `get`, `set` or `static`, which JavaScript would
//!   otherwise read as a modifier of the next member;
//! - an arrow function whose return type spans lines gets its `)` moved to
//!   the end of the blanked type, since JavaScript forbids a line break
//!   between `)` and `=>`;
//! - an `async` arrow whose type parameters span lines gets its `(` moved to
//!   where `<` was, since `async` must be on the line of its `(`.
//!
//! Such an edit is one replacement of the whole range, so it wins over the
//! smaller edits the console rewrite makes inside it (the `export` of
//! `export interface I {}`), which then drop out.
//!
//! Some TypeScript cannot be blanked without changing what the JavaScript
//! means, and no character in place could help; it is refused with what to
//! write instead:
//! - syntax with runtime meaning: `enum` and `const enum` (unless
//!   `declare`d), namespaces and modules that TypeScript would create an
//!   object for (anything in them but types, type-only namespaces and
//!   unexported `import x = A.B`), constructor parameter properties,
//!   `import x = …` and `export =`;
//! - a prefix assertion (`<T>value`, blanked elsewhere) at the start of a
//!   statement or arrow body, where `<T>{}` would turn into a block, or
//!   after `return`/`throw`/`yield` with a line break before the value,
//!   where the statement would end early;
//! - `a ** b as T ** c` and the like: the type acts as parentheses in
//!   TypeScript, and the operators would group differently without it.
//!
//! Imports are left to the rewrite (which turns them into `await
//! import()`), `import type` included, and so is `export` before a value
//! declaration; only type-only exports are blanked here. Decorators stay:
//! they are JavaScript.
//!
//! The walk itself (`Stripper` and its visitor) is here; the rest is split
//! by question: `verdict` decides what is erased whole or refused, `hazards`
//! finds where plain blanks would change the meaning, `blank` writes the
//! blanks, and `text` scans the source text around them.

mod blank;
mod hazards;
#[cfg(test)]
mod tests;
mod text;
mod verdict;

use oxc_ast::ast::{
    AccessorProperty, ArrowFunctionExpression, BinaryExpression, Class, ClassBody, ClassElement,
    ExportSpecifier, Expression, ExpressionStatement, FormalParameter, ImportDeclaration,
    JSXElement, JSXFragment, MethodDefinition, Program, PropertyDefinition, ReturnStatement,
    Statement, TSAsExpression, TSNonNullExpression, TSSatisfiesExpression, TSThisParameter,
    TSTypeAnnotation, TSTypeAssertion, TSTypeParameterDeclaration, TSTypeParameterInstantiation,
    ThrowStatement, VariableDeclarator, YieldExpression,
};
use oxc_ast_visit::{walk, Visit};
use oxc_span::GetSpan;

use super::splice::Splices;
use hazards::{regroups_once_blanked, Spot};
use text::member_head;
use verdict::{member_is_type_only, refusal, statement_verdict, Verdict};

/// TypeScript syntax that cannot be erased (it has runtime meaning).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// Byte offset in the source where the construct starts.
    pub at: usize,
    /// What it is and how to write it instead, e.g. "`enum` is not supported in ts blocks: types are only stripped, not compiled; use a plain object (`const Color = { Red: 0, ... } as const`)".
    pub message: String,
}

/// Records blanks in `splices` that erase every TypeScript-only piece of `program` (parsed from `source`).
pub fn strip_types(
    program: &Program<'_>,
    source: &str,
    splices: &mut Splices,
) -> Result<(), Unsupported> {
    let mut stripper = Stripper {
        source,
        splices,
        unsupported: None,
        asi_ends: Vec::new(),
        spots: Vec::new(),
        member_after_open_field: false,
    };
    stripper.visit_program(program);
    match stripper.unsupported {
        Some(unsupported) => Err(unsupported),
        None => Ok(()),
    }
}

/// The walk over a parsed block that records its blanks.
struct Stripper<'s> {
    /// The block's source, which the spans point into.
    source: &'s str,
    /// Where the blanks are recorded.
    splices: &'s mut Splices,
    /// The first construct refused; the rest of the walk is then moot.
    unsupported: Option<Unsupported>,
    /// Ends of the statements and class fields being visited that have no
    /// `;` and are followed by a line starting with `(`, `[` or a template,
    /// so that an `as T` ending one of them must leave a `;` behind.
    asi_ends: Vec<u32>,
    /// Expression starts in a [`Spot`], innermost last.
    spots: Vec<(u32, Spot)>,
    /// The class member about to be visited follows a field not ended by
    /// `;` (set by the class body, taken by the member).
    member_after_open_field: bool,
}

impl Stripper<'_> {
    /// Keeps the first refusal: the walk stops at it.
    fn refuse(&mut self, unsupported: Unsupported) {
        self.unsupported.get_or_insert(unsupported);
    }
}

impl<'a> Visit<'a> for Stripper<'_> {
    fn visit_statement(&mut self, it: &Statement<'a>) {
        if self.unsupported.is_some() {
            return;
        }
        match statement_verdict(it) {
            Verdict::Erase => self.erase(it.span()),
            Verdict::Refuse(unsupported) => self.refuse(unsupported),
            Verdict::Keep => {
                self.with_asi_guard(it.span().end, |s| walk::walk_statement(s, it));
            }
        }
    }

    fn visit_expression(&mut self, it: &Expression<'a>) {
        if self.unsupported.is_none() {
            walk::walk_expression(self, it);
        }
    }

    fn visit_binary_expression(&mut self, it: &BinaryExpression<'a>) {
        if regroups_once_blanked(it) {
            return self.refuse(Unsupported {
                at: it.span.start as usize,
                message: "an `as`/`satisfies` expression as the left operand of a stronger operator (`a + b as T * c`) is not supported in ts blocks: once the type is blanked the operators would group differently; add parentheses (`(a + b as T) * c`)".to_string(),
            });
        }
        walk::walk_binary_expression(self, it);
    }

    fn visit_expression_statement(&mut self, it: &ExpressionStatement<'a>) {
        let start = it.expression.span().start;
        self.with_spot(start, Spot::StatementStart, |s| {
            walk::walk_expression_statement(s, it);
        });
    }

    fn visit_return_statement(&mut self, it: &ReturnStatement<'a>) {
        if let Some(argument) = &it.argument {
            let start = argument.span().start;
            self.with_spot(start, Spot::AfterRestrictedKeyword, |s| {
                s.visit_expression(argument);
            });
        }
    }

    fn visit_throw_statement(&mut self, it: &ThrowStatement<'a>) {
        let start = it.argument.span().start;
        self.with_spot(start, Spot::AfterRestrictedKeyword, |s| {
            s.visit_expression(&it.argument);
        });
    }

    fn visit_yield_expression(&mut self, it: &YieldExpression<'a>) {
        if let Some(argument) = &it.argument {
            let start = argument.span().start;
            self.with_spot(start, Spot::AfterRestrictedKeyword, |s| {
                s.visit_expression(argument);
            });
        }
    }

    /// Imports belong to the rewrite, `import type` included.
    fn visit_import_declaration(&mut self, _it: &ImportDeclaration<'a>) {}

    fn visit_export_specifier(&mut self, it: &ExportSpecifier<'a>) {
        if it.export_kind.is_type() {
            self.blank_with_comma(it.span);
        }
    }

    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if it.definite {
            self.blank_mark_after(it.id.span().end, false, b'!');
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_formal_parameter(&mut self, it: &FormalParameter<'a>) {
        if it.accessibility.is_some() || it.readonly || it.r#override {
            return self.refuse(refusal(
                it.span.start,
                "a constructor parameter property (`constructor(private x: T)`)",
                "declare the field in the class body and assign it in the constructor (`x: T; constructor(x: T) { this.x = x }`)",
            ));
        }
        if it.optional {
            self.blank_mark_after(it.pattern.span().end, false, b'?');
        }
        walk::walk_formal_parameter(self, it);
    }

    fn visit_ts_this_parameter(&mut self, it: &TSThisParameter<'a>) {
        self.blank_with_comma(it.span);
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        self.blank_arrow_type_parameters(it);
        self.visit_formal_parameters(&it.params);
        self.blank_arrow_return_type(it);
        match it.get_expression() {
            Some(body) => {
                self.with_spot(body.span().start, Spot::ArrowBody, |s| {
                    s.visit_expression(body);
                });
            }
            None => self.visit_arrow_function_body(&it.body),
        }
    }

    fn visit_class(&mut self, it: &Class<'a>) {
        self.visit_decorators(&it.decorators);
        let head = member_head(it.span, &it.decorators);
        if it.r#abstract {
            self.blank_abstract_keyword(head);
        }
        if let Some(tp) = &it.type_parameters {
            self.blank_span(tp.span);
        }
        if let Some(heritage) = &it.heritage {
            self.visit_class_heritage(heritage);
        }
        self.blank_implements(it, head);
        self.visit_class_body(&it.body);
    }

    fn visit_class_body(&mut self, it: &ClassBody<'a>) {
        let mut after_open_field = false;
        for element in &it.body {
            if self.unsupported.is_some() {
                return;
            }
            if member_is_type_only(element) {
                self.erase(element.span());
            } else {
                self.member_after_open_field = after_open_field;
                self.visit_class_element(element);
                self.member_after_open_field = false;
            }
            after_open_field = matches!(
                element,
                ClassElement::PropertyDefinition(_) | ClassElement::AccessorProperty(_)
            ) && !self.source[..element.span().end as usize].ends_with(';');
        }
    }

    fn visit_method_definition(&mut self, it: &MethodDefinition<'a>) {
        let key = self.blank_member_modifiers(it.span, &it.decorators, &it.key);
        if it.optional {
            self.blank_mark_after(key.end, it.computed, b'?');
        }
        walk::walk_method_definition(self, it);
    }

    fn visit_property_definition(&mut self, it: &PropertyDefinition<'a>) {
        let key = self.blank_member_modifiers(it.span, &it.decorators, &it.key);
        if self.is_keyword_field_with_types_only(it) {
            // `get: T` then `m() {}` on the next line: blanked to `get`
            // alone, JavaScript would read a getter `m`; the `;` keeps the
            // field a field.
            self.visit_decorators(&it.decorators);
            self.blank_keeping(key.end, it.span.end, Some(b';'), None);
            return;
        }
        if it.optional {
            self.blank_mark_after(key.end, it.computed, b'?');
        }
        if it.definite {
            self.blank_mark_after(key.end, it.computed, b'!');
        }
        self.with_asi_guard(it.span.end, |s| walk::walk_property_definition(s, it));
    }

    fn visit_accessor_property(&mut self, it: &AccessorProperty<'a>) {
        let key = self.blank_member_modifiers(it.span, &it.decorators, &it.key);
        if it.definite {
            self.blank_mark_after(key.end, it.computed, b'!');
        }
        self.with_asi_guard(it.span.end, |s| walk::walk_accessor_property(s, it));
    }

    fn visit_ts_type_annotation(&mut self, it: &TSTypeAnnotation<'a>) {
        self.blank_span(it.span);
    }

    fn visit_ts_type_parameter_declaration(&mut self, it: &TSTypeParameterDeclaration<'a>) {
        self.blank_span(it.span);
    }

    fn visit_ts_type_parameter_instantiation(&mut self, it: &TSTypeParameterInstantiation<'a>) {
        self.blank_span(it.span);
    }

    fn visit_ts_as_expression(&mut self, it: &TSAsExpression<'a>) {
        self.visit_expression(&it.expression);
        self.blank_type_tail(it.expression.span().end, it.span.end);
    }

    fn visit_ts_satisfies_expression(&mut self, it: &TSSatisfiesExpression<'a>) {
        self.visit_expression(&it.expression);
        self.blank_type_tail(it.expression.span().end, it.span.end);
    }

    fn visit_ts_non_null_expression(&mut self, it: &TSNonNullExpression<'a>) {
        self.visit_expression(&it.expression);
        self.blank(it.span.end - 1, it.span.end);
    }

    fn visit_ts_type_assertion(&mut self, it: &TSTypeAssertion<'a>) {
        let inner = it.expression.span().start;
        self.blank(it.span.start, inner);
        match self.spot_at(it.span.start) {
            Some(spot) => {
                self.check_prefix_assertion(it, spot);
                // The value is now what stands in that spot.
                self.with_spot(inner, spot, |s| s.visit_expression(&it.expression));
            }
            None => self.visit_expression(&it.expression),
        }
    }

    fn visit_jsx_element(&mut self, _it: &JSXElement<'a>) {}

    fn visit_jsx_fragment(&mut self, _it: &JSXFragment<'a>) {}
}
