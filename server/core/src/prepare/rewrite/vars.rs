//! `var` in a block: every `var` outside functions becomes an assignment to
//! a global (the names are created on the global object before the block
//! runs), as a console's top-level `var` makes a global property.

use oxc_ast::ast::{
    BindingPattern, ForStatementInit, ForStatementLeft, Statement, VariableDeclaration,
    VariableDeclarationKind,
};

use super::{push_unique, Rewriter};

impl Rewriter<'_> {
    /// `var a = 1, b;` → `void (a = 1, void 0);` (the names are created on
    /// the global object beforehand). `void` keeps a pattern's `{` from
    /// starting a block and never continues the line above.
    pub(super) fn var_statement(&mut self, d: &VariableDeclaration<'_>) {
        let keyword_end = d.span.start as usize + "var".len();
        self.splices
            .replace(d.span.start as usize, keyword_end, "void (");
        self.var_declarators(d);
        if let Some(last) = d.declarations.last() {
            // Without its own `;`, the next line could continue the
            // expression (`void (x = void 0)\n[1, 2].forEach(…)`).
            let ends_statement = self.source[..d.span.end as usize].ends_with(';');
            let close = if ends_statement { ")" } else { ");" };
            self.splices.insert(last.span.end as usize, close);
        }
    }

    /// Declarators without a value become `void 0`; every name is recorded.
    fn var_declarators(&mut self, d: &VariableDeclaration<'_>) {
        for declarator in &d.declarations {
            for id in declarator.id.get_binding_identifiers() {
                push_unique(&mut self.globals.vars, id.name.as_str());
            }
            if declarator.init.is_none() {
                self.splices.replace(
                    declarator.span.start as usize,
                    declarator.span.end as usize,
                    "void 0",
                );
            }
        }
    }

    /// `var` in a loop head: `for (var i = 0; …)` → `for (    i = 0; …)`.
    fn var_in_head(&mut self, d: &VariableDeclaration<'_>) {
        if d.kind != VariableDeclarationKind::Var || d.declare {
            return;
        }
        let start = d.span.start as usize;
        self.splices.blank(self.source, start, start + "var".len());
        for declarator in &d.declarations {
            for id in declarator.id.get_binding_identifiers() {
                push_unique(&mut self.globals.vars, id.name.as_str());
            }
        }
    }

    /// `var` anywhere outside functions belongs to the top level too.
    pub(super) fn nested_vars(&mut self, statement: &Statement<'_>) {
        match statement {
            Statement::VariableDeclaration(d)
                if d.kind == VariableDeclarationKind::Var && !d.declare =>
            {
                self.var_statement(d)
            }
            Statement::BlockStatement(b) => b.body.iter().for_each(|s| self.nested_vars(s)),
            Statement::IfStatement(s) => {
                self.nested_vars(&s.consequent);
                if let Some(alternate) = &s.alternate {
                    self.nested_vars(alternate);
                }
            }
            Statement::ForStatement(s) => {
                if let Some(ForStatementInit::VariableDeclaration(d)) = &s.init {
                    self.var_in_head(d);
                }
                self.nested_vars(&s.body);
            }
            Statement::ForInStatement(s) => {
                if let ForStatementLeft::VariableDeclaration(d) = &s.left {
                    if d.declarations.iter().any(|v| v.init.is_some()) {
                        return self.refuse(
                            d.span.start,
                            "an initialiser in a `for (var … in …)` head is legacy syntax a block cannot run; assign before the loop",
                        );
                    }
                    self.var_in_head(d);
                }
                self.nested_vars(&s.body);
            }
            Statement::ForOfStatement(s) => {
                if let ForStatementLeft::VariableDeclaration(d) = &s.left {
                    self.var_in_head(d);
                    // `for (async of …)` is not JavaScript; `for ((async) of …)` is.
                    if let [v] = d.declarations.as_slice() {
                        if matches!(&v.id, BindingPattern::BindingIdentifier(id) if id.name == "async")
                        {
                            self.splices.insert(v.span.start as usize, "(");
                            self.splices.insert(v.span.end as usize, ")");
                        }
                    }
                }
                self.nested_vars(&s.body);
            }
            Statement::WhileStatement(s) => self.nested_vars(&s.body),
            Statement::DoWhileStatement(s) => self.nested_vars(&s.body),
            Statement::LabeledStatement(s) => self.nested_vars(&s.body),
            Statement::WithStatement(s) => self.nested_vars(&s.body),
            Statement::TryStatement(s) => {
                s.block.body.iter().for_each(|s| self.nested_vars(s));
                if let Some(h) = &s.handler {
                    h.body.body.iter().for_each(|s| self.nested_vars(s));
                }
                if let Some(f) = &s.finalizer {
                    f.body.iter().for_each(|s| self.nested_vars(s));
                }
            }
            Statement::SwitchStatement(s) => {
                for case in &s.cases {
                    case.consequent.iter().for_each(|s| self.nested_vars(s));
                }
            }
            // Annex B: a plain function declared in a block (an `if`, a
            // `switch` case) also makes a `var` of its name, set when the
            // declaration is reached. In a console that `var` is a global:
            // created as the block starts, the function once it ran.
            Statement::FunctionDeclaration(f) if !f.r#async && !f.generator && !f.declare => {
                if let (Some(id), Some(_)) = (&f.id, &f.body) {
                    let name = id.name.as_str();
                    if !self.globals.vars.iter().any(|v| v == name) {
                        self.globals.vars.push(name.to_string());
                    }
                    let quoted = serde_json::to_string(name).unwrap_or_default();
                    self.splices.insert(
                        f.span.end as usize,
                        format!(";{}({quoted}, {name});", super::FUNCTION),
                    );
                }
            }
            _ => {}
        }
    }
}
