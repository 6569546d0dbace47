//! The console rewrite: what turns a block into the body of the function the
//! realm runs, so it behaves like a top-level program typed into the best
//! console.
//!
//! The realm runs the prepared code as an `AsyncFunction` body (so `await`
//! works at the top level). The realm scope is one object per realm holding
//! the lexical names (`let`, `const`, `class`, `import`) of earlier blocks as
//! accessors; a block that uses such names runs inside `with (<realm
//! scope>) { … }` (see `prepare::assemble` for when). So:
//! - a block's own `let`/`const`/`class` stay real block-scoped declarations
//!   (fast, with TDZ and `const` checks); after each such statement an
//!   accessor pair for its names is put on the scope object, so later blocks
//!   (and closures) read and write the same live binding;
//! - names of earlier blocks resolve through `with`, dynamically, so a
//!   reload that lost them gives the usual `ReferenceError`;
//! - `var` and `function` become properties of the global object, as in a
//!   console (`var` declarations turn into assignments);
//! - static `import` becomes `await import()`, with `./`, `../` and `/`
//!   specifiers resolved against the realm's own URL (dynamic `import()` in
//!   evaluated code would resolve against the adapter's script otherwise);
//! - the last expression statement's value is the result.
//!
//! Every change is a splice ([`super::splice`]), so positions map back to the
//! block for stack traces. `vars.rs` holds the `var` rewrite, `imports.rs`
//! the `import` one, `calls.rs` how the block's calls and functions go
//! through the global object; this file the walk, declarations, exports
//! and the completion value.

use oxc_ast::ast::{
    BindingPattern, Declaration, Directive, ExportDefaultDeclarationKind, Expression,
    ImportExpression, ImportMeta, Statement, VariableDeclaration, VariableDeclarationKind,
};
use oxc_ast_visit::{walk, Visit};
use oxc_span::GetSpan;
use oxc_syntax::reference::ReferenceId;
use oxc_syntax::scope::ScopeFlags;

use std::collections::{HashMap, HashSet};

use oxc_semantic::Semantic;

use super::splice::Splices;

mod calls;
mod completion;
mod imports;
mod scope;
mod vars;

pub use super::names::{EXPORT, FUNCTION, GLOBAL, RESOLVE, RESULT, SCOPE};

/// Something the console rewrite cannot give a meaning to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// Byte offset in the source.
    pub at: usize,
    /// What cannot run and what to write instead.
    pub message: String,
}

/// The names the block declares, for the code around it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Globals {
    /// Top-level `let`, `const` and `class` names with their kind
    /// (`"let"` for `let` and `class`, `"const"`), in the realm scope. A
    /// REPL may declare one again in a later block only with its kind.
    pub lexical: Vec<(String, &'static str)>,
    /// Whether the block starts with a `'use strict'` directive.
    pub strict: bool,
    /// `var` names: created on the global object before the block runs.
    pub vars: Vec<String>,
    /// Top-level function declarations: put on the global object as the
    /// block starts (they are hoisted).
    pub functions: Vec<String>,
}

/// Records the console rewrite of the block's top-level statements `body`
/// and `directives` (parsed from `source`, with its `semantic` analysis;
/// see `prepare::reading`) in `splices`. `free` lists the names the block
/// uses without declaring them.
pub fn rewrite<'a>(
    body: &oxc_allocator::Vec<'a, Statement<'a>>,
    directives: &[Directive<'a>],
    semantic: &Semantic<'_>,
    free: &[&str],
    source: &str,
    splices: &mut Splices,
) -> Result<Globals, Refused> {
    let mut r = Rewriter {
        source,
        splices,
        free,
        globals: Globals::default(),
        refused: None,
        shorthands: HashSet::new(),
        function_references: HashSet::new(),
        imports: 0,
        statement_starts: HashSet::new(),
        captured: HashSet::new(),
        called: HashSet::new(),
        plain_function_depth: 0,
        closure_depth: 0,
        top_arguments: unresolved(semantic, |n| n == "arguments"),
        helper_references: unresolved(semantic, super::helpers::is_helper),
        lexical_references: HashSet::new(),
        handled: HashSet::new(),
    };
    r.globals.strict = directives.iter().any(|d| d.directive == "use strict");
    for statement in body {
        r.top_level(statement);
    }
    r.completion(body, directives);
    r.mark_function_references(body, semantic);
    r.mark_lexical_references(body, semantic);
    r.visit_statements(body);
    match r.refused {
        Some(refused) => Err(refused),
        None => Ok(r.globals),
    }
}

struct Rewriter<'s> {
    /// The parsed text the spans point into.
    source: &'s str,
    /// Where the rewrite's edits go.
    splices: &'s mut Splices,
    /// What the code around the block must set up.
    globals: Globals,
    /// The first construct refused; the rest of the walk is then moot.
    refused: Option<Refused>,
    /// The names the block uses without declaring them (they may resolve
    /// through `with` to the realm scope).
    free: &'s [&'s str],
    /// Where shorthand properties (`{ f }`) name a value, so a rewritten
    /// reference keeps its key.
    shorthands: HashSet<u32>,
    /// References to the block's top-level functions (they read the
    /// global object's property).
    function_references: HashSet<ReferenceId>,
    /// Static imports seen, to name each one's namespace.
    imports: usize,
    /// Where expression statements in statement lists start (not those
    /// that are the body of an `if` or a loop), except the one captured as
    /// the result: a `;` may go there.
    statement_starts: HashSet<u32>,
    /// Where the expressions captured as the result start.
    captured: HashSet<u32>,
    /// Callees already rewritten as calls (`(0, f)(`).
    called: HashSet<u32>,
    /// How many ordinary functions (and class bodies) the walk is inside:
    /// outside them, `arguments` and `new.target` are the block's, and a
    /// console's top level has neither.
    plain_function_depth: usize,
    /// How many functions of any kind (arrows too) the walk is inside:
    /// code that may run after the block.
    closure_depth: usize,
    /// References to `arguments` the block does not declare, and whether
    /// each writes it.
    top_arguments: HashMap<ReferenceId, bool>,
    /// References to the block's top-level `let` and `const` names, read
    /// from the realm scope inside functions (see [`Self::mark_lexical_references`]).
    lexical_references: HashSet<ReferenceId>,
    /// References to the console's helpers (not declared by the block),
    /// and whether each writes the name.
    helper_references: HashMap<ReferenceId, bool>,
    /// Identifiers whose expression around them was rewritten already.
    handled: HashSet<u32>,
}

impl Rewriter<'_> {
    fn refuse(&mut self, at: u32, message: impl Into<String>) {
        self.refused.get_or_insert(Refused {
            at: at as usize,
            message: message.into(),
        });
    }

    fn top_level(&mut self, statement: &Statement<'_>) {
        match statement {
            Statement::VariableDeclaration(d) => self.declaration_statement(d),
            Statement::FunctionDeclaration(f) => {
                if let (Some(id), Some(_)) = (&f.id, &f.body) {
                    push_unique(&mut self.globals.functions, id.name.as_str());
                }
            }
            Statement::ClassDeclaration(c) => {
                if let (Some(id), false) = (&c.id, c.declare) {
                    let names = [id.name.as_str().to_string()];
                    self.lexical(&names, "let");
                    self.export_after(c.span.end, &names);
                }
            }
            Statement::ImportDeclaration(i) => self.import(i),
            // Type-only exports are blanked with the other types.
            Statement::ExportNamedDeclaration(e) if e.export_kind.is_type() => {}
            Statement::ExportFromDeclaration(e) if e.export_kind.is_type() => {}
            Statement::ExportAllDeclaration(e) if e.export_kind.is_type() => {}
            Statement::ExportNamedDeclaration(e) => self.refuse(
                e.span.start,
                "`export { … }` has no meaning in a block: top-level declarations already persist to later blocks",
            ),
            Statement::ExportFromDeclaration(e) => self.refuse(
                e.span.start,
                "`export … from` has no meaning in a block; to use a module, write `const { name } = await import(\"./module.js\")`",
            ),
            Statement::ExportAllDeclaration(e) => self.refuse(
                e.span.start,
                "`export * from` has no meaning in a block; to use a module, write `const ns = await import(\"./module.js\")`",
            ),
            Statement::ExportDefaultDeclaration(e) => self.export_default(e),
            Statement::ExportDeclaration(e) => {
                // `export const x = 1` pasted from a module: the `export`
                // goes, the declaration stays (and persists).
                let at = e.declaration.span().start;
                self.splices
                    .blank(self.source, e.span.start as usize, at as usize);
                match &e.declaration {
                    Declaration::VariableDeclaration(d) => self.declaration_statement(d),
                    Declaration::FunctionDeclaration(f) => {
                        if let (Some(id), Some(_)) = (&f.id, &f.body) {
                            push_unique(&mut self.globals.functions, id.name.as_str());
                        }
                    }
                    Declaration::ClassDeclaration(c) => {
                        if let Some(id) = &c.id {
                            let names = [id.name.as_str().to_string()];
                            self.lexical(&names, "let");
                            self.export_after(c.span.end, &names);
                        }
                    }
                    _ => {}
                }
            }
            other => self.nested_vars(other),
        }
    }

    fn export_default(&mut self, e: &oxc_ast::ast::ExportDefaultDeclaration<'_>) {
        let inner = e.declaration.span().start as usize;
        match &e.declaration {
            ExportDefaultDeclarationKind::FunctionDeclaration(f) if f.id.is_some() => {
                self.splices.blank(self.source, e.span.start as usize, inner);
                if let (Some(id), Some(_)) = (&f.id, &f.body) {
                    push_unique(&mut self.globals.functions, id.name.as_str());
                }
            }
            ExportDefaultDeclarationKind::ClassDeclaration(c) if c.id.is_some() => {
                self.splices.blank(self.source, e.span.start as usize, inner);
                if let Some(id) = &c.id {
                    let names = [id.name.as_str().to_string()];
                    self.lexical(&names, "let");
                    self.export_after(c.span.end, &names);
                }
            }
            ExportDefaultDeclarationKind::TSInterfaceDeclaration(_) => {}
            _ => self.refuse(
                e.span.start,
                "`export default` has no meaning in a block; give the value a name (`const value = …`) or leave it as the last expression to see it",
            ),
        }
    }

    /// A `let`/`const`/`var` statement at the top level.
    fn declaration_statement(&mut self, d: &VariableDeclaration<'_>) {
        if d.declare {
            return;
        }
        match d.kind {
            VariableDeclarationKind::Var => self.var_statement(d),
            VariableDeclarationKind::Let | VariableDeclarationKind::Const => {
                let kind = match d.kind {
                    VariableDeclarationKind::Const => "const",
                    _ => "let",
                };
                let names = bound_names(d);
                self.lexical(&names, kind);
                self.export_after(d.span.end, &names);
            }
            // `using` disposes its value at the end of the block: nothing
            // outlives it to persist.
            VariableDeclarationKind::Using | VariableDeclarationKind::AwaitUsing => {}
        }
    }

    fn lexical(&mut self, names: &[String], kind: &'static str) {
        for name in names {
            if !self.globals.lexical.iter().any(|(n, _)| n == name) {
                self.globals.lexical.push((name.clone(), kind));
            }
        }
    }

    /// Puts live accessors for `names` on the realm scope right after the
    /// statement ending at `end` (a name new to the realm has them from the
    /// block's start, in its TDZ: see `prepare::assemble`).
    /// The setter of a `const` throws by itself (`x = v` on a const).
    fn export_after(&mut self, end: u32, names: &[String]) {
        if names.is_empty() {
            return;
        }
        self.splices
            .insert(end as usize, format!(";{EXPORT}({});", accessors(names)));
    }

    /// `name` → `value` at a reference to `name`; a shorthand property
    /// (`{ name }`) keeps its key (`{ name: value }`).
    fn replace_reference(&mut self, it: &oxc_ast::ast::IdentifierReference<'_>, value: &str) {
        let key = match self.shorthands.contains(&it.span.start) {
            true => format!("{}: ", it.name),
            false => String::new(),
        };
        self.splices.replace(
            it.span.start as usize,
            it.span.end as usize,
            format!("{key}{value}"),
        );
    }

    /// A statement that is only types: spaces, led by `;` so the lines
    /// around it do not join.
    fn blank_statement(&mut self, start: u32, end: u32) {
        let (start, end) = (start as usize, end as usize);
        self.splices.replace(start, start + 1, ";");
        self.splices.blank(self.source, start + 1, end);
    }

    /// The value of the last expression statement becomes the result, when
    /// only declarations follow it (a console shows `1+1; const a = 2`
    /// as 2, and `x; if (c) {}` as the `if`'s value, which is not kept).
    /// `a + b` → `$result = (a + b)`; `x => x` → `$result = (0, x => x)`,
    /// where the comma keeps an anonymous function or class from taking
    /// the name `$result`.
    fn capture(&mut self, e: &Expression<'_>) {
        let span = e.span();
        self.captured.insert(span.start);
        let open = match is_anonymous_function(e) {
            true => format!("{RESULT} = (0, "),
            false => format!("{RESULT} = ("),
        };
        self.splices.insert(span.start as usize, open);
        self.splices.insert(span.end as usize, ")");
    }
}

impl<'a> Visit<'a> for Rewriter<'_> {
    fn visit_function(&mut self, it: &oxc_ast::ast::Function<'a>, flags: ScopeFlags) {
        self.plain_function_depth += 1;
        self.closure_depth += 1;
        walk::walk_function(self, it, flags);
        self.plain_function_depth -= 1;
        self.closure_depth -= 1;
    }

    fn visit_class(&mut self, it: &oxc_ast::ast::Class<'a>) {
        self.plain_function_depth += 1;
        self.closure_depth += 1;
        walk::walk_class(self, it);
        self.plain_function_depth -= 1;
        self.closure_depth -= 1;
    }

    fn visit_identifier_reference(&mut self, it: &oxc_ast::ast::IdentifierReference<'a>) {
        if self.handled.contains(&it.span.start) {
            return;
        }
        self.through_global(it);
        self.through_scope(it);
        self.through_helper(it);
        self.no_arguments(it);
    }

    /// `new.target` outside functions: the block's wrapper would answer;
    /// a console's top level refuses it.
    fn visit_new_target(&mut self, it: &oxc_ast::ast::NewTarget) {
        if self.plain_function_depth == 0 {
            self.refuse(it.span.start, "new.target expression is not allowed here");
        }
    }

    fn visit_unary_expression(&mut self, it: &oxc_ast::ast::UnaryExpression<'a>) {
        self.unary(it);
        walk::walk_unary_expression(self, it);
    }

    /// `import(x)` → `import($resolve(x))`, anywhere in the block.
    fn visit_import_expression(&mut self, it: &ImportExpression<'a>) {
        let span = it.source.span();
        self.splices
            .insert(span.start as usize, format!("{RESOLVE}("));
        self.splices.insert(span.end as usize, ")");
        walk::walk_import_expression(self, it);
    }

    /// `f()` where `f` may come through `with`: `(0, f)()`, or the realm
    /// scope object would be `f`'s `this` (and `setTimeout` stored in a
    /// `const` would throw "Illegal invocation"). Not for `eval`, which
    /// must stay a direct call.
    fn visit_call_expression(&mut self, it: &oxc_ast::ast::CallExpression<'a>) {
        self.unbind_callee(&it.callee);
        walk::walk_call_expression(self, it);
    }

    fn visit_tagged_template_expression(
        &mut self,
        it: &oxc_ast::ast::TaggedTemplateExpression<'a>,
    ) {
        self.unbind_callee(&it.tag);
        walk::walk_tagged_template_expression(self, it);
    }

    fn visit_statements(&mut self, it: &oxc_allocator::Vec<'a, Statement<'a>>) {
        for statement in it {
            if let Statement::ExpressionStatement(e) = statement {
                if !self.captured.contains(&e.span.start) {
                    self.statement_starts.insert(e.span.start);
                }
            }
        }
        walk::walk_statements(self, it);
    }

    fn visit_arrow_function_expression(&mut self, it: &oxc_ast::ast::ArrowFunctionExpression<'a>) {
        self.closure_depth += 1;
        walk::walk_arrow_function_expression(self, it);
        self.closure_depth -= 1;
    }

    /// `({ f } = o)` assigns to a name: a shorthand like `{ f }` in a literal.
    fn visit_assignment_target_property_identifier(
        &mut self,
        it: &oxc_ast::ast::AssignmentTargetPropertyIdentifier<'a>,
    ) {
        self.shorthands.insert(it.binding.span.start);
        walk::walk_assignment_target_property_identifier(self, it);
    }

    fn visit_object_property(&mut self, it: &oxc_ast::ast::ObjectProperty<'a>) {
        if it.shorthand {
            self.shorthands.insert(it.value.span().start);
        }
        walk::walk_object_property(self, it);
    }

    fn visit_decorator(&mut self, it: &oxc_ast::ast::Decorator<'a>) {
        self.refuse(
            it.span.start,
            "decorators do not run in today's browsers; apply the function by hand (`C = decorate(C)`)",
        );
    }

    fn visit_accessor_property(&mut self, it: &oxc_ast::ast::AccessorProperty<'a>) {
        self.refuse(
            it.span.start,
            "`accessor` fields do not run in today's browsers; write a getter and a setter",
        );
    }

    fn visit_import_meta(&mut self, it: &ImportMeta) {
        self.refuse(
            it.span.start,
            "`import.meta` exists only in modules; a block runs as a function in the realm (use `location.href` for the page's URL)",
        );
    }
}

/// Whether assigning `e` would name it (an anonymous function, arrow or
/// class, possibly in parentheses).
fn is_anonymous_function(e: &Expression<'_>) -> bool {
    match e {
        Expression::ArrowFunctionExpression(_) => true,
        Expression::FunctionExpression(f) => f.id.is_none(),
        Expression::ClassExpression(c) => c.id.is_none(),
        Expression::ParenthesizedExpression(p) => is_anonymous_function(&p.expression),
        _ => false,
    }
}

/// Statements that leave the completion value alone.
fn is_declaration(s: &Statement<'_>) -> bool {
    matches!(
        s,
        Statement::EmptyStatement(_)
            | Statement::VariableDeclaration(_)
            | Statement::FunctionDeclaration(_)
            | Statement::ClassDeclaration(_)
            | Statement::ImportDeclaration(_)
            | Statement::ExportDeclaration(_)
            | Statement::TSTypeAliasDeclaration(_)
            | Statement::TSInterfaceDeclaration(_)
            | Statement::TSEnumDeclaration(_)
            | Statement::TSExternalModuleDeclaration(_)
            | Statement::TSNamespaceDeclaration(_)
            | Statement::TSGlobalDeclaration(_)
            | Statement::TSImportEqualsDeclaration(_)
    )
}

fn bound_names(d: &VariableDeclaration<'_>) -> Vec<String> {
    d.declarations
        .iter()
        .flat_map(|declarator| pattern_names(&declarator.id))
        .collect()
}

fn pattern_names(p: &BindingPattern<'_>) -> Vec<String> {
    p.get_binding_identifiers()
        .iter()
        .map(|id| id.name.as_str().to_string())
        .collect()
}

/// An object literal of live accessors for `names` (each reads and writes
/// the binding of that name where it stands), for the realm scope.
pub fn accessors<S: AsRef<str>>(names: &[S]) -> String {
    let v = "$daebug$value";
    let pairs: Vec<String> = names
        .iter()
        .map(|n| {
            let n = n.as_ref();
            format!("get {n}() {{ return {n} }}, set {n}({v}) {{ {n} = {v} }}")
        })
        .collect();
    format!("{{ {} }}", pairs.join(", "))
}

/// A top-level statement's declaration, also one pasted with `export`.
fn top_level_declaration<'s, 'a>(statement: &'s Statement<'a>) -> Option<&'s Declaration<'a>> {
    match statement {
        Statement::ExportDeclaration(e) => Some(&e.declaration),
        other => other.as_declaration(),
    }
}

/// The references the analysis resolved to the binding `id`.
fn references_to<'s>(
    semantic: &'s Semantic<'_>,
    id: &oxc_ast::ast::BindingIdentifier<'_>,
) -> impl Iterator<Item = ReferenceId> + 's {
    id.symbol_id.get().into_iter().flat_map(|symbol| {
        semantic
            .scoping()
            .get_resolved_reference_ids(symbol)
            .iter()
            .copied()
    })
}

/// The references the block makes to names it does not declare and
/// `wanted` picks, and whether each writes its name.
fn unresolved(
    semantic: &Semantic<'_>,
    wanted: impl Fn(&str) -> bool,
) -> HashMap<ReferenceId, bool> {
    let scoping = semantic.scoping();
    scoping
        .root_unresolved_references()
        .iter()
        .filter(|(n, _)| wanted(n.as_str()))
        .flat_map(|(_, ids)| ids.iter().copied())
        .map(|id| (id, scoping.get_reference(id).is_write()))
        .collect()
}

fn push_unique(list: &mut Vec<String>, name: &str) {
    if !list.iter().any(|n| n == name) {
        list.push(name.to_string());
    }
}
