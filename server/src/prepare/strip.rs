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

use oxc_ast::ast::{
    AccessorProperty, AccessorPropertyType, ArrowFunctionExpression, BinaryExpression,
    BinaryOperator, Class, ClassBody, ClassElement, Declaration, Decorator,
    ExportDefaultDeclarationKind, ExportSpecifier, Expression, ExpressionStatement,
    FormalParameter, ImportDeclaration, JSXElement, JSXFragment, MethodDefinition,
    MethodDefinitionType, Program, PropertyDefinition, PropertyDefinitionType, PropertyKey,
    ReturnStatement, Statement, TSAsExpression, TSModuleReference, TSNamespaceDeclaration,
    TSNamespaceDeclarationBody, TSNamespaceDeclarationKind, TSNonNullExpression,
    TSSatisfiesExpression, TSThisParameter, TSTypeAnnotation, TSTypeAssertion,
    TSTypeParameterDeclaration, TSTypeParameterInstantiation, ThrowStatement, VariableDeclarator,
    YieldExpression,
};
use oxc_ast_visit::{walk, Visit};
use oxc_span::{GetSpan, Span};

use super::splice::Splices;

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

/// Modifiers that exist only in TypeScript; `static`, `async`, `accessor`,
/// `get` and `set` are JavaScript and stay.
const TS_MODIFIERS: [&str; 7] = [
    "public",
    "private",
    "protected",
    "readonly",
    "override",
    "declare",
    "abstract",
];

/// What becomes of a statement.
enum Verdict {
    /// JavaScript, possibly with types inside: walk it.
    Keep,
    /// Only types: blank it whole.
    Erase,
    /// Runtime TypeScript: refuse the block.
    Refuse(Unsupported),
}

/// Where an expression starts in a spot that blanking a prefix assertion
/// (`<T>value`) in front of it could change the meaning of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spot {
    /// The start of an expression statement: `{`, `function`, `class` or
    /// `let [` there would start something else.
    StatementStart,
    /// A concise arrow body: `{` there would start a block.
    ArrowBody,
    /// Right after `return`, `throw` or `yield`: a line break there ends
    /// the statement.
    AfterRestrictedKeyword,
}

struct Stripper<'s> {
    source: &'s str,
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
    fn refuse(&mut self, unsupported: Unsupported) {
        self.unsupported.get_or_insert(unsupported);
    }

    fn blank(&mut self, start: u32, end: u32) {
        self.splices
            .blank(self.source, start as usize, end as usize);
    }

    fn blank_span(&mut self, span: Span) {
        self.blank(span.start, span.end);
    }

    /// Blanks `start..end` but puts `lead` on its first blanked byte and
    /// `trail` on its last one (never on a line break), so the blank still
    /// separates or closes what it must. One edit of the same length, so it
    /// wins over smaller edits the rewrite makes inside it (the `export` of
    /// `export interface`).
    fn blank_keeping(&mut self, start: u32, end: u32, lead: Option<u8>, trail: Option<u8>) {
        let (start, end) = (start as usize, end as usize);
        if start >= end {
            return;
        }
        let mut bytes: Vec<u8> = self.source.as_bytes()[start..end]
            .iter()
            .map(|&b| if b == b'\n' || b == b'\r' { b } else { b' ' })
            .collect();
        if let Some(c) = lead {
            if let Some(i) = bytes.iter().position(|&b| b == b' ') {
                bytes[i] = c;
            }
        }
        if let Some(c) = trail {
            if let Some(i) = bytes.iter().rposition(|&b| b == b' ') {
                bytes[i] = c;
            }
        }
        let text: String = bytes.into_iter().map(char::from).collect();
        self.splices.replace(start, end, text);
    }

    /// A statement or class member that is only types: blanks led by `;` so
    /// the code before it does not run on into the code after it.
    fn erase(&mut self, span: Span) {
        self.blank_keeping(span.start, span.end, Some(b';'), None);
    }

    /// Blanks `span` and a `,` right after it (a `this` parameter, a `type`
    /// export specifier), so no empty list item is left.
    fn blank_with_comma(&mut self, span: Span) {
        let next = skip_trivia(self.source, span.end as usize);
        let end = if self.source.as_bytes().get(next) == Some(&b',') {
            next + 1
        } else {
            span.end as usize
        };
        self.splices.blank(self.source, span.start as usize, end);
    }

    /// Blanks the `?` or `!` that follows a name (`x?: T`, `let x!: T`,
    /// `m?()`), skipping the `]` of a computed key.
    fn blank_mark_after(&mut self, name_end: u32, computed: bool, mark: u8) {
        let bytes = self.source.as_bytes();
        let mut at = skip_trivia(self.source, name_end as usize);
        if computed && bytes.get(at) == Some(&b']') {
            at = skip_trivia(self.source, at + 1);
        }
        if bytes.get(at) == Some(&mark) {
            self.splices.blank(self.source, at, at + 1);
        }
    }

    /// Blanks the TypeScript modifiers among the words from `from` up to
    /// `key` (the member's name). When the member starts with one and
    /// follows an open field, it becomes `;`, which ends that field.
    fn blank_modifiers(&mut self, from: u32, key: u32, after_open_field: bool) {
        let mut at = from as usize;
        let mut first = true;
        loop {
            at = skip_trivia(self.source, at);
            if at >= key as usize {
                break;
            }
            let word = word_at(self.source, at);
            if word.is_empty() {
                break;
            }
            let end = at + word.len();
            if TS_MODIFIERS.contains(&word) {
                let lead = (first && after_open_field).then_some(b';');
                self.blank_keeping(at as u32, end as u32, lead, None);
            }
            first = false;
            at = end;
        }
    }

    /// Whether a statement or field ending at `end` has no `;` and the next
    /// line starts with something that would continue it once a type at its
    /// end is blanked.
    fn needs_asi_guard(&self, end: u32) -> bool {
        let end = end as usize;
        let bytes = self.source.as_bytes();
        if end == 0 || bytes.get(end - 1) == Some(&b';') {
            return false;
        }
        let next = skip_trivia(self.source, end);
        matches!(bytes.get(next), Some(b'(' | b'[' | b'`'))
    }

    fn with_asi_guard(&mut self, end: u32, visit: impl FnOnce(&mut Self)) {
        let guard = self.needs_asi_guard(end);
        if guard {
            self.asi_ends.push(end);
        }
        visit(self);
        if guard {
            self.asi_ends.pop();
        }
    }

    fn with_spot(&mut self, at: u32, spot: Spot, visit: impl FnOnce(&mut Self)) {
        self.spots.push((at, spot));
        visit(self);
        self.spots.pop();
    }

    fn spot_at(&self, at: u32) -> Option<Spot> {
        self.spots
            .iter()
            .rev()
            .find(|(start, _)| *start == at)
            .map(|&(_, spot)| spot)
    }

    /// `x as T` / `x satisfies T`: the type goes with the keyword, leaving
    /// `;` when TypeScript ended the statement there by ASI.
    fn blank_type_tail(&mut self, expression_end: u32, end: u32) {
        if self.asi_ends.contains(&end) {
            self.blank_keeping(expression_end, end, Some(b';'), None);
        } else {
            self.blank(expression_end, end);
        }
    }

    /// A field named `get`, `set` or `static`, with no value and no `;`,
    /// whose name only TypeScript syntax follows (`get?: T`). JavaScript
    /// reads such a name as a modifier of the member on the next line.
    fn is_keyword_field_with_types_only(&self, it: &PropertyDefinition<'_>) -> bool {
        let PropertyKey::StaticIdentifier(name) = &it.key else {
            return false;
        };
        matches!(name.name.as_str(), "get" | "set" | "static")
            && it.value.is_none()
            && (it.type_annotation.is_some() || it.optional || it.definite)
            && !self.source[..it.span.end as usize].ends_with(';')
    }

    /// `abstract` before `class`, found among the words that lead the class.
    fn blank_abstract_keyword(&mut self, head: u32) {
        let mut at = head as usize;
        loop {
            at = skip_trivia(self.source, at);
            match word_at(self.source, at) {
                "abstract" => {
                    self.blank(at as u32, (at + "abstract".len()) as u32);
                    return;
                }
                "" | "class" => return,
                word => at += word.len(),
            }
        }
    }

    /// `implements A, B`: from the keyword (the next word from `after` on
    /// that is `implements`) to the end of the last interface.
    fn blank_implements(&mut self, class: &Class<'_>, head: u32) {
        let Some(last) = class.implements.last() else {
            return;
        };
        let mut after = head;
        if let Some(id) = &class.id {
            after = after.max(id.span.end);
        }
        if let Some(tp) = &class.type_parameters {
            after = after.max(tp.span.end);
        }
        if let Some(heritage) = &class.heritage {
            after = after.max(heritage.expression.span().end);
            if let Some(args) = &heritage.type_arguments {
                after = after.max(args.span.end);
            }
        }
        let mut at = after as usize;
        let start = loop {
            at = skip_trivia(self.source, at);
            match word_at(self.source, at) {
                "implements" => break at as u32,
                // Not found (cannot happen for parsed input): blank the
                // interfaces at least.
                "" => break class.implements[0].span.start,
                word => at += word.len(),
            }
        };
        self.blank(start, last.span.end);
    }

    /// `<T>` of an arrow function; for an `async` arrow whose `<…>` spans
    /// lines the `(` moves up to where `<` was.
    fn blank_arrow_type_parameters(&mut self, it: &ArrowFunctionExpression<'_>) {
        let Some(tp) = &it.type_parameters else {
            return;
        };
        let params_start = it.params.span.start;
        let parenthesized = self.source.as_bytes().get(params_start as usize) == Some(&b'(');
        if it.r#async && parenthesized && has_line_break(self.source, tp.span.start, params_start) {
            self.blank_keeping(tp.span.start, params_start + 1, Some(b'('), None);
        } else {
            self.blank_span(tp.span);
        }
    }

    /// `: T` of an arrow function; when it spans lines, the `)` of the
    /// parameters moves to its end, next to `=>`.
    fn blank_arrow_return_type(&mut self, it: &ArrowFunctionExpression<'_>) {
        let Some(return_type) = &it.return_type else {
            return;
        };
        let close_paren = it.params.span.end.saturating_sub(1);
        let parenthesized = self.source.as_bytes().get(close_paren as usize) == Some(&b')');
        if parenthesized && has_line_break(self.source, close_paren, return_type.span.end) {
            self.blank_keeping(close_paren, return_type.span.end, None, Some(b')'));
        } else {
            self.blank_span(return_type.span);
        }
    }

    /// Refuses a prefix assertion whose blanking would change the meaning of
    /// the code after it.
    fn check_prefix_assertion(&mut self, it: &TSTypeAssertion<'_>, spot: Spot) {
        let inner = it.expression.span().start;
        let hazard = match spot {
            Spot::StatementStart => starts_other_statement(self.source, inner as usize),
            Spot::ArrowBody => self.source.as_bytes().get(inner as usize) == Some(&b'{'),
            Spot::AfterRestrictedKeyword => has_line_break(self.source, it.span.start, inner),
        };
        if !hazard {
            return;
        }
        let message = match spot {
            Spot::StatementStart | Spot::ArrowBody => {
                "a `<T>value` type assertion at the start of a statement or arrow body is not supported in ts blocks: once `<T>` is blanked, `{`, `function` or `class` there would start a block or a declaration; write `(value as T)`"
            }
            Spot::AfterRestrictedKeyword => {
                "a `<T>value` type assertion with a line break before the value is not supported after `return`, `throw` or `yield` in ts blocks: once `<T>` is blanked, the statement would end at the line break; write `value as T`"
            }
        };
        self.refuse(Unsupported {
            at: it.span.start as usize,
            message: message.to_string(),
        });
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
        let after_open_field = std::mem::take(&mut self.member_after_open_field);
        let head = member_head(it.span, &it.decorators);
        let key = it.key.span();
        self.blank_modifiers(
            head,
            key.start,
            after_open_field && it.decorators.is_empty(),
        );
        if it.optional {
            self.blank_mark_after(key.end, it.computed, b'?');
        }
        walk::walk_method_definition(self, it);
    }

    fn visit_property_definition(&mut self, it: &PropertyDefinition<'a>) {
        let after_open_field = std::mem::take(&mut self.member_after_open_field);
        let head = member_head(it.span, &it.decorators);
        let key = it.key.span();
        self.blank_modifiers(
            head,
            key.start,
            after_open_field && it.decorators.is_empty(),
        );
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
        let after_open_field = std::mem::take(&mut self.member_after_open_field);
        let head = member_head(it.span, &it.decorators);
        let key = it.key.span();
        self.blank_modifiers(
            head,
            key.start,
            after_open_field && it.decorators.is_empty(),
        );
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

/// Whether `statement` is only types, JavaScript, or refused.
fn statement_verdict(statement: &Statement<'_>) -> Verdict {
    match statement {
        Statement::ExportDeclaration(e) => declaration_verdict(&e.declaration),
        Statement::ExportNamedDeclaration(e) if e.export_kind.is_type() => Verdict::Erase,
        Statement::ExportFromDeclaration(e) if e.export_kind.is_type() => Verdict::Erase,
        Statement::ExportAllDeclaration(e) if e.export_kind.is_type() => Verdict::Erase,
        Statement::ExportDefaultDeclaration(e) => match &e.declaration {
            ExportDefaultDeclarationKind::TSInterfaceDeclaration(_) => Verdict::Erase,
            ExportDefaultDeclarationKind::FunctionDeclaration(f) if f.body.is_none() => {
                Verdict::Erase
            }
            _ => Verdict::Keep,
        },
        Statement::TSNamespaceExportDeclaration(_) => Verdict::Erase,
        Statement::TSExportAssignment(e) => Verdict::Refuse(refusal(
            e.span.start,
            "`export =`",
            "use `export default` (or just a name: a block's top-level declarations persist)",
        )),
        other => match other.as_declaration() {
            Some(declaration) => declaration_verdict(declaration),
            None => Verdict::Keep,
        },
    }
}

fn declaration_verdict(declaration: &Declaration<'_>) -> Verdict {
    let erase_if = |only_types: bool| {
        if only_types {
            Verdict::Erase
        } else {
            Verdict::Keep
        }
    };
    match declaration {
        Declaration::VariableDeclaration(d) => erase_if(d.declare),
        // No body: `declare function` or an overload signature.
        Declaration::FunctionDeclaration(f) => erase_if(f.declare || f.body.is_none()),
        Declaration::ClassDeclaration(c) => erase_if(c.declare),
        Declaration::TSTypeAliasDeclaration(_)
        | Declaration::TSInterfaceDeclaration(_)
        | Declaration::TSGlobalDeclaration(_) => Verdict::Erase,
        Declaration::TSEnumDeclaration(e) if e.declare => Verdict::Erase,
        Declaration::TSEnumDeclaration(e) => Verdict::Refuse(refusal(
            e.span.start,
            if e.r#const { "`const enum`" } else { "`enum`" },
            "use a plain object (`const Color = { Red: 0, ... } as const`)",
        )),
        Declaration::TSNamespaceDeclaration(n) => namespace_verdict(n),
        Declaration::TSExternalModuleDeclaration(m) => {
            let only_types = m.declare
                || m.body
                    .as_ref()
                    .is_none_or(|b| !b.body.iter().any(statement_holds_values));
            if only_types {
                Verdict::Erase
            } else {
                Verdict::Refuse(refusal(
                    m.span.start,
                    "a `module` that holds values",
                    "declare only types in it (`declare module \"name\" { … }`) and put values in a real module",
                ))
            }
        }
        Declaration::TSImportEqualsDeclaration(i) if i.import_kind.is_type() => Verdict::Erase,
        Declaration::TSImportEqualsDeclaration(i) => Verdict::Refuse(match &i.module_reference {
            TSModuleReference::ExternalModuleReference(_) => refusal(
                i.span.start,
                "`import x = require(\"…\")`",
                "use `import x from \"…\"` (or `const x = await import(\"…\")`)",
            ),
            _ => refusal(i.span.start, "`import x = A.B`", "use `const x = A.B`"),
        }),
    }
}

/// A namespace goes when it is `declare`d or holds only types (TypeScript
/// emits nothing for it then); one with values is an object at runtime.
fn namespace_verdict(namespace: &TSNamespaceDeclaration<'_>) -> Verdict {
    if namespace.declare || !namespace_holds_values(&namespace.body) {
        return Verdict::Erase;
    }
    let what = match namespace.kind {
        TSNamespaceDeclarationKind::Namespace => "a `namespace` that holds values",
        TSNamespaceDeclarationKind::Module => "a `module` that holds values",
    };
    Verdict::Refuse(refusal(
        namespace.span.start,
        what,
        "use a plain object (`const NS = { f, x }`) or top-level declarations (a namespace of only types is fine)",
    ))
}

fn namespace_holds_values(body: &TSNamespaceDeclarationBody<'_>) -> bool {
    match body {
        TSNamespaceDeclarationBody::TSNamespaceDeclaration(inner) => {
            namespace_holds_values(&inner.body)
        }
        TSNamespaceDeclarationBody::TSModuleBlock(block) => {
            block.body.iter().any(statement_holds_values)
        }
    }
}

/// TypeScript's own rule for an instantiated namespace: it holds values
/// unless it has only type aliases, interfaces, namespaces without values
/// and unexported `import x = A.B`. Even `declare let x` inside counts, as
/// TypeScript then creates the namespace object (so `N.x` can be read).
fn statement_holds_values(statement: &Statement<'_>) -> bool {
    let declaration = match statement {
        Statement::ExportDeclaration(e) => match &e.declaration {
            Declaration::TSImportEqualsDeclaration(_) => return true,
            declaration => declaration,
        },
        other => match other.as_declaration() {
            Some(declaration) => declaration,
            None => return true,
        },
    };
    match declaration {
        Declaration::TSTypeAliasDeclaration(_)
        | Declaration::TSInterfaceDeclaration(_)
        | Declaration::TSImportEqualsDeclaration(_) => false,
        Declaration::TSNamespaceDeclaration(n) => namespace_holds_values(&n.body),
        _ => true,
    }
}

/// Whether blanking an `as T` (or `satisfies T`) at the end of the left
/// operand of `it` lets `it`'s operator take part of that operand:
/// TypeScript reads `a + b as T * c` as `(a + b) * c`, JavaScript reads
/// `a + b * c`.
fn regroups_once_blanked(it: &BinaryExpression<'_>) -> bool {
    let mut operand = &it.left;
    let mut asserted = false;
    loop {
        match operand {
            Expression::TSAsExpression(e) => operand = &e.expression,
            Expression::TSSatisfiesExpression(e) => operand = &e.expression,
            _ => break,
        }
        asserted = true;
    }
    let Expression::BinaryExpression(inner) = operand else {
        return false;
    };
    let (outer_power, inner_power) = (binding_power(it.operator), binding_power(inner.operator));
    // `**` groups to the right, so even an equal one regroups.
    asserted
        && (outer_power > inner_power
            || (outer_power == inner_power && it.operator == BinaryOperator::Exponential))
}

/// How tightly a binary operator binds (higher binds tighter).
fn binding_power(operator: BinaryOperator) -> u8 {
    match operator {
        BinaryOperator::BitwiseOR => 1,
        BinaryOperator::BitwiseXOR => 2,
        BinaryOperator::BitwiseAnd => 3,
        BinaryOperator::Equality
        | BinaryOperator::Inequality
        | BinaryOperator::StrictEquality
        | BinaryOperator::StrictInequality => 4,
        BinaryOperator::LessThan
        | BinaryOperator::LessEqualThan
        | BinaryOperator::GreaterThan
        | BinaryOperator::GreaterEqualThan
        | BinaryOperator::Instanceof
        | BinaryOperator::In => 5,
        BinaryOperator::ShiftLeft
        | BinaryOperator::ShiftRight
        | BinaryOperator::ShiftRightZeroFill => 6,
        BinaryOperator::Addition | BinaryOperator::Subtraction => 7,
        BinaryOperator::Multiplication | BinaryOperator::Division | BinaryOperator::Remainder => 8,
        BinaryOperator::Exponential => 9,
    }
}

/// Class members that are only types: index signatures, `declare` fields,
/// `abstract` members and overload signatures (methods without a body).
fn member_is_type_only(element: &ClassElement<'_>) -> bool {
    match element {
        ClassElement::TSIndexSignature(_) => true,
        ClassElement::PropertyDefinition(p) => {
            p.declare || p.r#type == PropertyDefinitionType::TSAbstractPropertyDefinition
        }
        ClassElement::MethodDefinition(m) => {
            m.r#type == MethodDefinitionType::TSAbstractMethodDefinition || m.value.body.is_none()
        }
        ClassElement::AccessorProperty(a) => {
            a.r#type == AccessorPropertyType::TSAbstractAccessorProperty
        }
        ClassElement::StaticBlock(_) => false,
    }
}

fn refusal(at: u32, what: &str, instead: &str) -> Unsupported {
    Unsupported {
        at: at as usize,
        message: format!(
            "{what} is not supported in ts blocks: types are only stripped, not compiled; {instead}"
        ),
    }
}

/// Where the modifiers and keywords of a class or member start: after its
/// decorators.
fn member_head(span: Span, decorators: &[Decorator<'_>]) -> u32 {
    decorators
        .last()
        .map_or(span.start, |d| d.span.end.max(span.start))
}

/// The first offset at or after `at` that is not whitespace or a comment.
fn skip_trivia(source: &str, mut at: usize) -> usize {
    let bytes = source.as_bytes();
    while let Some(&b) = bytes.get(at) {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => at += 1,
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                at = source[at..].find('\n').map_or(source.len(), |i| at + i);
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                at = source[at + 2..]
                    .find("*/")
                    .map_or(source.len(), |i| at + 2 + i + 2);
            }
            0x80.. => match source[at..].chars().next() {
                Some(c) if c.is_whitespace() || c == '\u{feff}' => at += c.len_utf8(),
                _ => break,
            },
            _ => break,
        }
    }
    at
}

/// The ASCII word (keyword) at `at`, or `""`.
fn word_at(source: &str, at: usize) -> &str {
    let rest = source.get(at..).unwrap_or("");
    let len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$')
        .count();
    &rest[..len]
}

fn has_line_break(source: &str, start: u32, end: u32) -> bool {
    source
        .get(start as usize..end as usize)
        .is_some_and(|s| s.contains(['\n', '\r', '\u{2028}', '\u{2029}']))
}

/// Whether an expression statement starting at `at` would read as
/// something else: a block, a declaration, or `let [`.
fn starts_other_statement(source: &str, at: usize) -> bool {
    if source.as_bytes().get(at) == Some(&b'{') {
        return true;
    }
    match word_at(source, at) {
        "function" | "class" => true,
        "let" => source.as_bytes().get(skip_trivia(source, at + 3)) == Some(&b'['),
        "async" => {
            let next = skip_trivia(source, at + 5);
            word_at(source, next) == "function" && !has_line_break(source, at as u32, next as u32)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxc_allocator::Allocator;
    use oxc_parser::{ParseOptions, Parser};
    use oxc_span::SourceType;

    fn parse<'a>(
        allocator: &'a Allocator,
        src: &'a str,
        ty: SourceType,
    ) -> oxc_parser::ParserReturn<'a> {
        Parser::new(allocator, src, ty)
            .with_options(ParseOptions {
                allow_return_outside_function: true,
                ..ParseOptions::default()
            })
            .parse()
    }

    fn strip(src: &str) -> Result<String, Unsupported> {
        let allocator = Allocator::default();
        let parsed = parse(&allocator, src, SourceType::ts().with_unambiguous(true));
        assert!(
            parsed.diagnostics.is_empty(),
            "the TypeScript does not parse: {src:?}\n{:?}",
            parsed.diagnostics
        );
        let mut splices = Splices::new();
        strip_types(&parsed.program, src, &mut splices)?;
        Ok(splices.apply(src).0)
    }

    /// `before` strips to `after`, keeping length and lines, and the result
    /// is plain JavaScript.
    fn check(before: &str, after: &str) {
        let out = strip(before).unwrap_or_else(|e| panic!("refused {before:?}: {e:?}"));
        assert_eq!(out, after, "\nstripping {before:?}");
        assert_eq!(out.len(), before.len(), "length of {before:?}");
        assert_eq!(
            out.lines().count(),
            before.lines().count(),
            "lines of {before:?}"
        );
        let allocator = Allocator::default();
        let js = parse(&allocator, &out, SourceType::unambiguous());
        assert!(
            js.diagnostics.is_empty(),
            "not JavaScript: {out:?}\n{:?}",
            js.diagnostics
        );
    }

    fn check_all(cases: &[(&str, &str)]) {
        for (before, after) in cases {
            check(before, after);
        }
    }

    /// `source` is refused at `at` with a message containing `message`.
    fn check_refused(source: &str, at: usize, message: &str) {
        match strip(source) {
            Ok(out) => panic!("not refused: {source:?} gave {out:?}"),
            Err(e) => {
                assert!(e.message.contains(message), "{source:?}: {}", e.message);
                assert_eq!(e.at, at, "{source:?}: {}", e.message);
            }
        }
    }

    #[test]
    fn annotations() {
        check_all(&[
            ("let x: number = 1;", "let x         = 1;"),
            ("let x!: number;", "let x         ;"),
            ("let a: A, b!: B;", "let a   , b    ;"),
            (
                "function f(a: string, b?: number): void {}",
                "function f(a        , b         )       {}",
            ),
            (
                "function f(...r: number[]) {}",
                "function f(...r          ) {}",
            ),
            (
                "function f({ a }: { a: number } = {}) {}",
                "function f({ a }                = {}) {}",
            ),
            (
                "const f = (a: number): string => String(a);",
                "const f = (a        )         => String(a);",
            ),
            (
                "const f = async (a?: A) => a;",
                "const f = async (a    ) => a;",
            ),
            (
                "const o = { m(a: A): B { return a } };",
                "const o = { m(a   )    { return a } };",
            ),
            (
                "class A { get x(): number { return 1 } set x(v: number) {} }",
                "class A { get x()         { return 1 } set x(v        ) {} }",
            ),
            (
                "class A { x: number = 1; y?: string; z!: Z }",
                "class A { x         = 1; y         ; z     }",
            ),
            ("class A { m?(): void {} }", "class A { m ()       {} }"),
            ("class A { [k]?(): void {} }", "class A { [k] ()       {} }"),
            ("class A { #p: number = 1 }", "class A { #p         = 1 }"),
            (
                "class A { accessor x: number = 1 }",
                "class A { accessor x         = 1 }",
            ),
            (
                "try {} catch (e: unknown) {}",
                "try {} catch (e         ) {}",
            ),
            (
                "function isS(x: unknown): x is string { return true }",
                "function isS(x         )              { return true }",
            ),
            (
                "for (let i: number = 0; i < 1; i++) {}",
                "for (let i         = 0; i < 1; i++) {}",
            ),
        ]);
    }

    #[test]
    fn this_parameter() {
        check_all(&[
            (
                "function f(this: Window, a) {}",
                "function f(              a) {}",
            ),
            ("function f(this: Window) {}", "function f(            ) {}"),
            (
                "const g = function (this: X, a: A) {};",
                "const g = function (         a   ) {};",
            ),
        ]);
    }

    #[test]
    fn generics() {
        check_all(&[
            (
                "function id<T>(x: T): T { return x }",
                "function id   (x   )    { return x }",
            ),
            ("const f = <T,>(x: T) => x;", "const f =     (x   ) => x;"),
            (
                "const f = async <T>(x: T) => x;",
                "const f = async    (x   ) => x;",
            ),
            (
                "class Box<T extends object = {}> {}",
                "class Box                        {}",
            ),
            (
                "class A { m<T, U>(x: T) {} }",
                "class A { m      (x   ) {} }",
            ),
            ("f<string>();", "f        ();"),
            ("a?.b<T>(c);", "a?.b   (c);"),
            ("new Map<string, number>();", "new Map                ();"),
            ("tag<T>`x`;", "tag   `x`;"),
            (
                "class B extends A<string> {}",
                "class B extends A         {}",
            ),
            (
                "const C = class extends A<T> {};",
                "const C = class extends A    {};",
            ),
            ("const g = f<string>;", "const g = f        ;"),
            (
                "function f<const T extends readonly unknown[]>() {}",
                "function f                                    () {}",
            ),
        ]);
    }

    #[test]
    fn assertions() {
        check_all(&[
            ("const a = x as number;", "const a = x          ;"),
            ("const b = y satisfies Y;", "const b = y            ;"),
            ("const c = [1] as const;", "const c = [1]         ;"),
            ("const d = (x as any).y;", "const d = (x       ).y;"),
            ("x!.y;", "x .y;"),
            ("a!.b!.c();", "a .b .c();"),
            ("x! = 1;", "x  = 1;"),
            ("(x as any) = 1;", "(x       ) = 1;"),
            ("a?.b!.c;", "a?.b .c;"),
            ("const d = <number>z;", "const d =         z;"),
            ("f(<any>x, <T>y);", "f(     x,    y);"),
            ("return <T>x;", "return    x;"),
            (
                "const e = x as unknown as Y;",
                "const e = x                ;",
            ),
        ]);
    }

    #[test]
    fn type_only_statements() {
        check_all(&[
            ("interface I {}", ";             "),
            ("type X = string;", ";               "),
            ("type X<T> = { a: T };", ";                    "),
            ("declare const x: number;", ";                       "),
            (
                "declare let x: number, y: string;",
                ";                                ",
            ),
            ("declare function f(): void;", ";                          "),
            (
                "declare class C { m(): void }",
                ";                            ",
            ),
            ("declare enum E { A }", ";                   "),
            ("declare const enum E { A }", ";                         "),
            (
                "declare module 'm' { export const x: 1 }",
                ";                                       ",
            ),
            (
                "declare namespace N { const x: 1 }",
                ";                                 ",
            ),
            (
                "declare global { interface Window { a: 1 } }",
                ";                                           ",
            ),
            (
                "namespace N { export type T = 1; interface I {} }",
                ";                                                ",
            ),
            (
                "namespace A.B { type T = 1 }",
                ";                           ",
            ),
            ("namespace N {}", ";             "),
            ("module M { type T = 1 }", ";                      "),
            (
                "function f(a: string): void;\nfunction f(a) {}",
                ";                           \nfunction f(a) {}",
            ),
            (
                "import type T = require('t');",
                ";                            ",
            ),
            ("export as namespace Lib;", ";                       "),
        ]);
    }

    #[test]
    fn type_only_exports() {
        check_all(&[
            ("export interface I { a: 1 }", ";                          "),
            ("export type T = 1;", ";                 "),
            (
                "export declare const x: number;",
                ";                              ",
            ),
            (
                "export declare function f(): void;",
                ";                                 ",
            ),
            (
                "export function f(): void;\nexport function f() {}",
                ";                         \nexport function f() {}",
            ),
            (
                "export namespace N { export interface I {} }",
                ";                                           ",
            ),
            (
                "export default interface I {}",
                ";                            ",
            ),
            ("export type { A, B };", ";                    "),
            (
                "export type { A } from './a';",
                ";                            ",
            ),
            ("export type * from './a';", ";                        "),
            (
                "export type * as ns from './a';",
                ";                              ",
            ),
            ("export { type A, b };", "export {         b };"),
            ("export { b, type A };", "export { b,        };"),
            (
                "export { type A as B } from './a';",
                "export {             } from './a';",
            ),
            // Value exports are the rewrite's: only their types go.
            ("export const x: number = 1;", "export const x         = 1;"),
        ]);
    }

    #[test]
    fn class_members() {
        check_all(&[
            ("abstract class A {}", "         class A {}"),
            ("export abstract class A {}", "export          class A {}"),
            (
                "export default abstract class {}",
                "export default          class {}",
            ),
            (
                "abstract class A { abstract m(): void; abstract x: number; n() {} }",
                "         class A { ;                   ;                   n() {} }",
            ),
            (
                "class A { public x = 1; private y; protected z; readonly w = 2 }",
                "class A {        x = 1;         y;           z;          w = 2 }",
            ),
            (
                "class A { public static override readonly x = 1 }",
                "class A {        static                   x = 1 }",
            ),
            (
                "class A { private async *m() {} protected get g() { return 1 } }",
                "class A {         async *m() {}           get g() { return 1 } }",
            ),
            (
                "class A { public constructor() {} }",
                "class A {        constructor() {} }",
            ),
            (
                "class A { declare x: number; y = 1 }",
                "class A { ;                  y = 1 }",
            ),
            (
                "class A { [k: string]: any; y = 1 }",
                "class A { ;                 y = 1 }",
            ),
            (
                "class A { static [k: string]: any }",
                "class A { ;                       }",
            ),
            (
                "class A { m(a: string): void; m(a) {} }",
                "class A { ;                   m(a) {} }",
            ),
            (
                "class A { constructor(a: string); constructor(a) {} }",
                "class A { ;                       constructor(a) {} }",
            ),
            (
                "class A implements I, J<T> { }",
                "class A                    { }",
            ),
            (
                "class A<T> extends B<T> implements I {}",
                "class A    extends B                 {}",
            ),
            (
                "const C = class implements I {};",
                "const C = class              {};",
            ),
            (
                "class A { @dec public x = 1; @dec private m() {} }",
                "class A { @dec        x = 1; @dec         m() {} }",
            ),
            (
                "class A { readonly readonly = 1 }",
                "class A {          readonly = 1 }",
            ),
            (
                "class A { public accessor x = 1 }",
                "class A {        accessor x = 1 }",
            ),
            (
                "class A { override m(): void {} }",
                "class A {          m()       {} }",
            ),
        ]);
    }

    #[test]
    fn multi_line_types() {
        check_all(&[
            (
                "let o: {\n  a: number\n  b: string\n} = f()",
                "let o   \n           \n           \n  = f()",
            ),
            (
                "function f(\n  a: number,\n  b: {\n    c: string\n  },\n): Promise<\n  void\n> {}",
                "function f(\n  a        ,\n  b   \n             \n   ,\n)          \n      \n  {}",
            ),
            (
                "type U =\n  | 'a'\n  | 'b'\nlet x = 1",
                ";       \n       \n       \nlet x = 1",
            ),
            (
                "const x = y as {\n  a: 1\n};",
                "const x = y     \n      \n ;",
            ),
        ]);
    }

    #[test]
    fn statements_do_not_join_the_next_line() {
        check_all(&[
            // From ts-blank-space's ASI fixture.
            ("foo\ntype x = 1;\n(1);", "foo\n;          \n(1);"),
            ("foo\ninterface I {}\n`t`;", "foo\n;             \n`t`;"),
            (
                "let a = b\ndeclare const c: C\n[1].map(f)",
                "let a = b\n;                 \n[1].map(f)",
            ),
            (
                "f()\nfunction g(): void\n(h)",
                "f()\n;                 \n(h)",
            ),
            // `as T` ended the statement in TypeScript (ASI before `(`).
            ("a = b as T\n(c)", "a = b;    \n(c)"),
            (
                "let v = w satisfies T\n[1].map(f)",
                "let v = w;           \n[1].map(f)",
            ),
            ("x as T\n`t`", "x;    \n`t`"),
            // Binary operators continue in both, so no `;` is needed.
            ("a = b as T\n+ c", "a = b     \n+ c"),
            ("a = b as T", "a = b     "),
            // A field that no `;` ends is not continued by the next member.
            (
                "class A {\n  x = 1\n  declare y: T\n  ['z'] = 2\n}",
                "class A {\n  x = 1\n  ;           \n  ['z'] = 2\n}",
            ),
            (
                "class A {\n  x = 1\n  public ['z'] = 2\n}",
                "class A {\n  x = 1\n  ;      ['z'] = 2\n}",
            ),
            (
                "class A {\n  x = 1\n  public *g() {}\n}",
                "class A {\n  x = 1\n  ;      *g() {}\n}",
            ),
            (
                "class A {\n  x = a as T\n  ['z']() {}\n}",
                "class A {\n  x = a;    \n  ['z']() {}\n}",
            ),
            (
                "class A {\n  m() {}\n  public ['z'] = 2\n}",
                "class A {\n  m() {}\n         ['z'] = 2\n}",
            ),
        ]);
    }

    #[test]
    fn arrows_keep_their_line_rules() {
        check_all(&[
            // JavaScript forbids a line break between `)` and `=>`.
            (
                "const f = (a: A): {\n  b: B\n} => g(a);",
                "const f = (a       \n      \n) => g(a);",
            ),
            (
                "const f = (): Promise<\n  void\n> => g();",
                "const f = (           \n      \n) => g();",
            ),
            // `async` must stay on the line of its `(`.
            (
                "const b = async <\n    T\n>/**/(/**/v: T) => {};",
                "const b = async (\n     \n      /**/v   ) => {};",
            ),
            (
                "const c = async <\n    T\n>(v: T): Promise<\n    T\n> => v;",
                "const c = async (\n     \n  v              \n     \n) => v;",
            ),
            (
                "const d = <\n  T,\n>(v: T) => v;",
                "const d =  \n    \n (v   ) => v;",
            ),
        ]);
    }

    #[test]
    fn odd_corners() {
        check_all(&[
            // Blanks count bytes, so columns after a multi-byte name move
            // on that line only; the lines stay.
            ("let é: Ünïcode = 1;\nf()", "let é            = 1;\nf()"),
            (
                "let a /* c */ : /* d */ T = 1;",
                "let a /* c */             = 1;",
            ),
            ("@dec abstract class A {}", "@dec          class A {}"),
            ("class A { x? = 1 }", "class A { x  = 1 }"),
            (
                "class A {\n  get: T\n  m() {}\n  static?: S\n  n() {}\n}",
                "class A {\n  get;  \n  m() {}\n  static;   \n  n() {}\n}",
            ),
            (
                "const o = {\n  a: 1,\n} satisfies {\n  a: number\n};",
                "const o = {\n  a: 1,\n}            \n           \n ;",
            ),
            (
                "class A extends (B as any) implements I {}",
                "class A extends (B       )              {}",
            ),
            (
                "function* g() { yield <T>x }",
                "function* g() { yield    x }",
            ),
        ]);
    }

    #[test]
    fn leaves_imports_decorators_and_javascript_alone() {
        // Imports are the rewrite's, `type` ones included.
        for source in [
            "import type { T } from './t';",
            "import { type T, a } from './t'; a",
        ] {
            assert_eq!(strip(source), Ok(source.to_string()));
        }
        check_all(&[
            (
                "@dec class A { @dec m() {} }",
                "@dec class A { @dec m() {} }",
            ),
            ("@dec() export class A {}", "@dec() export class A {}"),
            ("const a = b < c && d > (e);", "const a = b < c && d > (e);"),
            (
                "label: for (;;) break label;",
                "label: for (;;) break label;",
            ),
        ]);
    }

    #[test]
    fn realistic_snippet() {
        let before = "\
interface Shape {
  area(): number;
}
type Point = { x: number; y: number };

class Circle<T extends Point = Point> implements Shape {
  private readonly center: T;
  static count: number = 0;
  constructor(center: T, public radius?: number) {
    this.center = center;
  }
  area(): number {
    return Math.PI * (this.radius ?? 1) ** 2;
  }
}

const byArea = <S extends Shape>(shapes: S[]): S[] =>
  [...shapes].sort((a: S, b: S) => a.area() - b.area());
const circles = [new Circle<Point>({ x: 0, y: 0 }, 2)] as Circle[];
const largest = byArea(circles).at(-1)!;
export type { Shape };
";
        // A parameter property has runtime meaning: refused.
        check_refused(
            before,
            before.find("public radius").unwrap(),
            "parameter property",
        );

        let before = before.replace("public radius?: number", "radius?: number");
        let before = before.replace(
            "this.center = center;",
            "this.center = center; this.radius = radius;",
        );
        let before = before.replace("  static count", "  radius?: number;\n  static count");
        let after = "\
;                
                 
 
;                                     

class Circle                                           {
                   center   ;
  radius         ;
  static count         = 0;
  constructor(center   , radius         ) {
    this.center = center; this.radius = radius;
  }
  area()         {
    return Math.PI * (this.radius ?? 1) ** 2;
  }
}

const byArea =                  (shapes     )      =>
  [...shapes].sort((a   , b   ) => a.area() - b.area());
const circles = [new Circle       ({ x: 0, y: 0 }, 2)]            ;
const largest = byArea(circles).at(-1) ;
;                     
";
        check(&before, after);
    }

    #[test]
    fn refuses_runtime_typescript() {
        let cases: &[(&str, usize, &str)] = &[
            ("enum Color { Red }", 0, "`enum` is not supported in ts blocks: types are only stripped, not compiled; use a plain object"),
            ("const enum E { A }", 0, "`const enum` is not supported"),
            ("let a = 1\nexport enum E { A }", 17, "`enum`"),
            ("function f() { enum E { A } }", 15, "`enum`"),
            ("namespace N { export const x = 1 }", 0, "`namespace` that holds values"),
            ("namespace N { enum E { A } }", 0, "`namespace` that holds values"),
            ("namespace A.B { export function f() {} }", 0, "`namespace` that holds values"),
            ("module M { export let x = 1 }", 0, "`module` that holds values"),
            ("class A { constructor(private x: number) {} }", 22, "declare the field in the class body"),
            ("class A { constructor(readonly x) {} }", 22, "parameter property"),
            ("class A { constructor(public override x) {} }", 22, "parameter property"),
            ("import fs = require('fs');", 0, "use `import x from"),
            ("import X = A.B;", 0, "use `const x = A.B`"),
            ("export import X = A.B;", 7, "`import x = A.B`"),
            ("export = x;", 0, "use `export default`"),
            ("const f = () => <T>{ a: 1 };", 16, "write `(value as T)`"),
            ("const f = () => <T>{ p: 1 }.p ?? 2;", 16, "write `(value as T)`"),
            ("<T>{ a: 1 }.a;", 0, "write `(value as T)`"),
            ("<T>function () {}();", 0, "start of a statement"),
            ("function f() { return <T>\n  x }", 22, "write `value as T`"),
            ("function f() { throw <A><B>\n  x }", 24, "line break before the value"),
            ("function* g() { yield <T>\n  x }", 22, "write `value as T`"),
            ("enum A { X }\nenum B { Y }", 0, "`enum`"),
            ("let a = 1\nnamespace N { export const x = a }\nenum E {}", 10, "namespace"),
        ];
        for (source, at, message) in cases {
            check_refused(source, *at, message);
        }
    }

    #[test]
    fn prefix_assertions_that_keep_their_meaning() {
        check_all(&[
            ("const f = () => <T>x;", "const f = () =>    x;"),
            ("const f = () => (<T>{});", "const f = () => (   {});"),
            ("<T>x;", "   x;"),
            (
                "function f() { return <T>x }",
                "function f() { return    x }",
            ),
        ]);
    }
    #[test]
    fn operator_grouping() {
        // Same grouping either way.
        check_all(&[
            (
                "x = a - b satisfies number - c;",
                "x = a - b                  - c;",
            ),
            ("x = a ** b as number;", "x = a ** b          ;"),
            ("x = (a + b as number) * 2;", "x = (a + b          ) * 2;"),
        ]);
        // `**` groups to the right: `(2 ** 3) ** 2` would become `2 ** (3 ** 2)`.
        check_refused(
            "x = 2 ** 3 as number ** 2;",
            4,
            "add parentheses (`(a + b as T) * c`)",
        );
        check_refused("x = a ** b as any as number ** 2;", 4, "group differently");
    }

    #[test]
    fn namespaces_follow_typescripts_rule() {
        check_all(&[
            (
                "namespace B { import x = A.x }",
                ";                             ",
            ),
            (
                "namespace N { export declare namespace M { type T = 1 } }",
                ";                                                        ",
            ),
        ]);
        // TypeScript creates the namespace object for these.
        for source in [
            "namespace D { declare let x: number }",
            "namespace J { {} }",
            "namespace I { export import X = E.T }",
            "namespace F { export namespace Inner { 3 } }",
        ] {
            check_refused(source, 0, "`namespace` that holds values");
        }
    }
}
