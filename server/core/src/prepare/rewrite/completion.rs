//! The block's value: the completion value of its statements, as a
//! console gives it (ECMAScript's completion values: `if (ok) { v }` is
//! `v`, a loop's is its last iteration's, `try`'s is its block's or its
//! handler's, `1; let q = 2` is `1`, `if (false) 1` is `undefined`).
//!
//! Done with assignments to the result as the code runs: expression
//! statements that may give the value assign it, and a statement that
//! always has a value of its own (`if`, loops, `switch`, `try`, `with`)
//! first sets it to `undefined`. Only the statements that may still decide
//! the value are touched: from the end of each statement list back to the
//! first that always gives one.

use oxc_ast::ast::{Directive, Statement};
use oxc_ast_visit::{walk, Visit};
use oxc_span::GetSpan;
use oxc_syntax::scope::ScopeFlags;

use super::{is_declaration, Rewriter, RESULT};

impl Rewriter<'_> {
    /// Captures the completion value of the block's `body`.
    pub(super) fn completion(&mut self, body: &[Statement<'_>], directives: &[Directive<'_>]) {
        let before = self.captured.len();
        self.list(body);
        if self.captured.len() > before || body.iter().any(|s| !is_declaration(s)) {
            return;
        }
        // Only declarations: a lone string literal parses as a directive.
        if let Some(d) = directives.last() {
            let span = d.expression.span;
            self.splices
                .insert(span.start as usize, format!("{RESULT} = ("));
            self.splices.insert(span.end as usize, ")");
        }
    }

    /// A statement list, from its end back to the first statement that
    /// always gives a value.
    fn list(&mut self, statements: &[Statement<'_>]) {
        // What follows a `break`, `continue`, `return` or `throw` of this
        // list never runs.
        let end = statements
            .iter()
            .position(|s| {
                matches!(
                    s,
                    Statement::BreakStatement(_)
                        | Statement::ContinueStatement(_)
                        | Statement::ReturnStatement(_)
                        | Statement::ThrowStatement(_)
                )
            })
            .map_or(statements.len(), |i| i + 1);
        let statements = &statements[..end];
        let mut decided = statements.len();
        for (i, s) in statements.iter().enumerate().rev() {
            if self.statement(s, true) {
                decided = i;
                break;
            }
        }
        // A statement before that one can still end the list by `break` or
        // `continue` (out of a loop around it), and its value is then the
        // loop's: `if (x === 2) break; x` ends its loop with `undefined`.
        for s in &statements[..decided] {
            if resets(s) && jumps(s) {
                self.statement(s, true);
            }
        }
    }

    /// One statement in a completion position (`in_list`: standing in a
    /// statement list, else the body of an `if`, a loop or a label).
    /// Returns whether it always gives a value (earlier statements of its
    /// list cannot).
    fn statement(&mut self, s: &Statement<'_>, in_list: bool) -> bool {
        match s {
            Statement::ExpressionStatement(e) => {
                self.capture(&e.expression);
                true
            }
            Statement::BlockStatement(b) => {
                self.list(&b.body);
                // An empty block gives nothing: the statement before it may.
                false
            }
            Statement::LabeledStatement(l) if resets(&l.body) => {
                self.reset(l.span.start, l.span.end, in_list);
                self.inside(&l.body);
                true
            }
            Statement::LabeledStatement(l) => self.statement(&l.body, false),
            s if resets(s) => {
                let span = s.span();
                self.reset(span.start, span.end, in_list);
                self.inside(s);
                true
            }
            // Declarations, `;`, `debugger`, `break` and `continue` give
            // nothing; `return` and `throw` end the block.
            Statement::ReturnStatement(_) | Statement::ThrowStatement(_) => true,
            _ => false,
        }
    }

    /// The parts of a statement that always gives a value that may give it.
    fn inside(&mut self, s: &Statement<'_>) {
        match s {
            Statement::IfStatement(i) => {
                self.statement(&i.consequent, false);
                if let Some(a) = &i.alternate {
                    self.statement(a, false);
                }
            }
            Statement::ForStatement(f) => _ = self.statement(&f.body, false),
            Statement::ForInStatement(f) => _ = self.statement(&f.body, false),
            Statement::ForOfStatement(f) => _ = self.statement(&f.body, false),
            Statement::WhileStatement(w) => _ = self.statement(&w.body, false),
            Statement::DoWhileStatement(d) => _ = self.statement(&d.body, false),
            Statement::WithStatement(w) => _ = self.statement(&w.body, false),
            Statement::SwitchStatement(sw) => {
                // The value is the last case body's that ran: each case's
                // statements may give it.
                for case in &sw.cases {
                    self.list(&case.consequent);
                }
            }
            // A `finally` block's value is never the statement's.
            Statement::TryStatement(t) => {
                self.list(&t.block.body);
                if let Some(h) = &t.handler {
                    self.list(&h.body.body);
                }
            }
            _ => {}
        }
    }

    /// `undefined` as the value before the statement at `start..end` runs.
    fn reset(&mut self, start: u32, end: u32, in_list: bool) {
        match in_list {
            true => self
                .splices
                .insert(start as usize, format!(";{RESULT} = void 0; ")),
            // The body of an `if` or a loop: one statement, so a block.
            false => {
                self.splices
                    .insert(start as usize, format!("{{ {RESULT} = void 0; "));
                self.splices.insert(end as usize, " }");
            }
        }
    }
}

/// Whether `s` always gives a value of its own (`undefined` when its parts
/// give none).
fn resets(s: &Statement<'_>) -> bool {
    matches!(
        s,
        Statement::IfStatement(_)
            | Statement::ForStatement(_)
            | Statement::ForInStatement(_)
            | Statement::ForOfStatement(_)
            | Statement::WhileStatement(_)
            | Statement::DoWhileStatement(_)
            | Statement::SwitchStatement(_)
            | Statement::TryStatement(_)
            | Statement::WithStatement(_)
    )
}

/// Whether `s` holds a `break` or `continue` (outside functions it
/// defines).
fn jumps(s: &Statement<'_>) -> bool {
    #[derive(Default)]
    struct Jumps(bool);
    impl<'a> Visit<'a> for Jumps {
        fn visit_break_statement(&mut self, _: &oxc_ast::ast::BreakStatement<'a>) {
            self.0 = true;
        }
        fn visit_continue_statement(&mut self, _: &oxc_ast::ast::ContinueStatement<'a>) {
            self.0 = true;
        }
        fn visit_function(&mut self, _: &oxc_ast::ast::Function<'a>, _: ScopeFlags) {}
        fn visit_arrow_function_expression(
            &mut self,
            _: &oxc_ast::ast::ArrowFunctionExpression<'a>,
        ) {
        }
        fn visit_class(&mut self, _: &oxc_ast::ast::Class<'a>) {}
    }
    let mut v = Jumps::default();
    walk::walk_statement(&mut v, s);
    v.0
}
