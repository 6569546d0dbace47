//! How each piece of TypeScript is blanked: spaces of the same length, line
//! breaks kept, with a `;` or a moved `(`/`)` in place of one blank where
//! plain spaces would let JavaScript read the rest differently (the `strip`
//! module doc lists when).

use oxc_ast::ast::{ArrowFunctionExpression, Class, Decorator, PropertyKey};
use oxc_span::{GetSpan, Span};

use super::text::{has_line_break, member_head, skip_trivia, word_at};
use super::Stripper;

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

impl Stripper<'_> {
    pub(super) fn blank(&mut self, start: u32, end: u32) {
        self.splices
            .blank(self.source, start as usize, end as usize);
    }

    pub(super) fn blank_span(&mut self, span: Span) {
        self.blank(span.start, span.end);
    }

    /// Blanks `start..end` but puts `lead` on its first blanked byte and
    /// `trail` on its last one (never on a line break), so the blank still
    /// separates or closes what it must. One edit of the same length, so it
    /// wins over smaller edits the rewrite makes inside it (the `export` of
    /// `export interface`).
    pub(super) fn blank_keeping(
        &mut self,
        start: u32,
        end: u32,
        lead: Option<u8>,
        trail: Option<u8>,
    ) {
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
    pub(super) fn erase(&mut self, span: Span) {
        self.blank_keeping(span.start, span.end, Some(b';'), None);
    }

    /// Blanks `span` and a `,` right after it (a `this` parameter, a `type`
    /// export specifier), so no empty list item is left.
    pub(super) fn blank_with_comma(&mut self, span: Span) {
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
    pub(super) fn blank_mark_after(&mut self, name_end: u32, computed: bool, mark: u8) {
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

    /// Blanks the TypeScript modifiers of a class member, from after its
    /// decorators up to its `key`, taking [`Stripper::member_after_open_field`]
    /// (a leading modifier becomes `;` only when no decorator comes first).
    /// Returns the span of the key.
    pub(super) fn blank_member_modifiers(
        &mut self,
        span: Span,
        decorators: &[Decorator<'_>],
        key: &PropertyKey<'_>,
    ) -> Span {
        let after_open_field = std::mem::take(&mut self.member_after_open_field);
        let head = member_head(span, decorators);
        let key = key.span();
        self.blank_modifiers(head, key.start, after_open_field && decorators.is_empty());
        key
    }

    /// `x as T` / `x satisfies T`: the type goes with the keyword, leaving
    /// `;` when TypeScript ended the statement there by ASI.
    pub(super) fn blank_type_tail(&mut self, expression_end: u32, end: u32) {
        if self.asi_ends.contains(&end) {
            self.blank_keeping(expression_end, end, Some(b';'), None);
        } else {
            self.blank(expression_end, end);
        }
    }

    /// `abstract` before `class`, found among the words that lead the class.
    pub(super) fn blank_abstract_keyword(&mut self, head: u32) {
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
    pub(super) fn blank_implements(&mut self, class: &Class<'_>, head: u32) {
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
    pub(super) fn blank_arrow_type_parameters(&mut self, it: &ArrowFunctionExpression<'_>) {
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
    pub(super) fn blank_arrow_return_type(&mut self, it: &ArrowFunctionExpression<'_>) {
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
}
