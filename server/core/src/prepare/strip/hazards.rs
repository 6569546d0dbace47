//! Where blanking a type would change what the JavaScript left behind
//! means: statements that automatic semicolon insertion ended, prefix
//! assertions in a spot where `{` or a line break matters, operators that
//! would regroup, field names JavaScript reads as modifiers. The walk asks
//! here before it blanks, and either guards the blank or refuses.

use oxc_ast::ast::{
    BinaryExpression, BinaryOperator, Expression, PropertyDefinition, PropertyKey, TSTypeAssertion,
};
use oxc_span::GetSpan;

use super::text::{has_line_break, skip_trivia, word_at};
use super::{Stripper, Unsupported};

/// Where an expression starts in a spot that blanking a prefix assertion
/// (`<T>value`) in front of it could change the meaning of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Spot {
    /// The start of an expression statement: `{`, `function`, `class` or
    /// `let [` there would start something else.
    StatementStart,
    /// A concise arrow body: `{` there would start a block.
    ArrowBody,
    /// Right after `return`, `throw` or `yield`: a line break there ends
    /// the statement.
    AfterRestrictedKeyword,
}

impl Stripper<'_> {
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

    /// Runs `visit` with `end` among [`Stripper::asi_ends`] when
    /// [`Self::needs_asi_guard`] says so.
    pub(super) fn with_asi_guard(&mut self, end: u32, visit: impl FnOnce(&mut Self)) {
        let guard = self.needs_asi_guard(end);
        if guard {
            self.asi_ends.push(end);
        }
        visit(self);
        if guard {
            self.asi_ends.pop();
        }
    }

    /// Runs `visit` with an expression starting at `at` marked as in `spot`.
    pub(super) fn with_spot(&mut self, at: u32, spot: Spot, visit: impl FnOnce(&mut Self)) {
        self.spots.push((at, spot));
        visit(self);
        self.spots.pop();
    }

    /// The innermost [`Spot`] an expression starting at `at` stands in.
    pub(super) fn spot_at(&self, at: u32) -> Option<Spot> {
        self.spots
            .iter()
            .rev()
            .find(|(start, _)| *start == at)
            .map(|&(_, spot)| spot)
    }

    /// A field named `get`, `set` or `static`, with no value and no `;`,
    /// whose name only TypeScript syntax follows (`get?: T`). JavaScript
    /// reads such a name as a modifier of the member on the next line.
    pub(super) fn is_keyword_field_with_types_only(&self, it: &PropertyDefinition<'_>) -> bool {
        let PropertyKey::StaticIdentifier(name) = &it.key else {
            return false;
        };
        matches!(name.name.as_str(), "get" | "set" | "static")
            && it.value.is_none()
            && (it.type_annotation.is_some() || it.optional || it.definite)
            && !self.source[..it.span.end as usize].ends_with(';')
    }

    /// Refuses a prefix assertion whose blanking would change the meaning of
    /// the code after it.
    pub(super) fn check_prefix_assertion(&mut self, it: &TSTypeAssertion<'_>, spot: Spot) {
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

/// Whether blanking an `as T` (or `satisfies T`) at the end of the left
/// operand of `it` lets `it`'s operator take part of that operand:
/// TypeScript reads `a + b as T * c` as `(a + b) * c`, JavaScript reads
/// `a + b * c`.
pub(super) fn regroups_once_blanked(it: &BinaryExpression<'_>) -> bool {
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
