//! How a block is read: the one rule. A console (V8's REPL mode) runs what
//! is typed as a script whose top level may `await`: sloppy unless it says
//! `'use strict'`, `await` always the keyword, a `return` allowed (daebug
//! ends the block with it). That is exactly the body of a sloppy async
//! function, which is also how the realm runs the prepared code: so a
//! block is parsed as the body of `(async function () { … })`, once.
//!
//! What no function body may hold is module syntax: a static `import`,
//! `export`, `import.meta`, and TypeScript's top-level declarations
//! (`declare`, `namespace`). daebug gives those a meaning (an `import`
//! runs as `await import()`) or a clear refusal, so a block that does not
//! read as a function body is read as a module instead; if it does not
//! read as one either, the function body's error is the block's.
//!
//! Two readings of what the console types stay the console's own input
//! handling, not the language's: a block that is one object literal
//! (`{ a: 1 }`) is read in parentheses, as DevTools does, and a `#!` line
//! is blanked.

use oxc_allocator::{Allocator, Vec as ArenaVec};
use oxc_ast::ast::{Directive, Expression, Program, Statement};
use oxc_diagnostics::OxcDiagnostic;
use oxc_parser::{ParseOptions, Parser};
use oxc_span::SourceType;

use crate::lang::Lang;

/// What the block is read inside (its text starts after it).
const OPENING: &str = "(async function () {";
/// What closes it: on a line of its own, after a last-line comment.
const CLOSING: &str = "\n})";

/// A block, read.
pub struct Reading<'a> {
    pub program: Program<'a>,
    /// The text parsed: the block, maybe in parentheses, maybe inside
    /// [`OPENING`] and [`CLOSING`].
    pub text: &'a str,
    /// Where the block's own text starts in [`Self::text`] (what the
    /// realm runs of `text` is `text[start..end]`, edited).
    pub start: usize,
    pub end: usize,
    /// Read as a function body (else as a module).
    pub in_function: bool,
    /// Where the block starts in `text` counting an object literal's
    /// `(`, which stays in the code run: the offset of source positions.
    pub source_at: usize,
}

impl<'a> Reading<'a> {
    /// The block's top-level statements and directives.
    pub fn body(&self) -> (&ArenaVec<'a, Statement<'a>>, &ArenaVec<'a, Directive<'a>>) {
        let function = match self.program.body.first() {
            Some(Statement::ExpressionStatement(e)) if self.in_function => {
                match e.expression.get_inner_expression() {
                    Expression::FunctionExpression(f) => f.body.as_deref(),
                    _ => None,
                }
            }
            _ => None,
        };
        match function {
            Some(body) => (&body.statements, &body.directives),
            None => (&self.program.body, &self.program.directives),
        }
    }
}

/// Reads `source` by the rule above: the reading, or the parser's first
/// error with the offset its positions have in the text read.
pub fn read<'a>(
    allocator: &'a Allocator,
    source: &str,
    lang: Lang,
) -> Result<Reading<'a>, (OxcDiagnostic, usize)> {
    let (script, module) = match lang {
        Lang::Js => (SourceType::script(), SourceType::mjs()),
        Lang::Ts => (
            SourceType::ts().with_script(true),
            SourceType::ts().with_module(true),
        ),
    };
    let block = without_hashbang(source);
    let (block, parens) = match object_literal(&block, script) {
        Some(o) => (o, 1),
        None => (block, 0),
    };
    let text = allocator.alloc_str(&format!("{OPENING}{block}{CLOSING}"));
    let start = OPENING.len();
    let end = start + block.len();
    let as_body = parse(allocator, text, script);
    if as_body.diagnostics.is_empty() && !as_body.panicked {
        let reading = Reading {
            program: as_body.program,
            text,
            start,
            end,
            in_function: true,
            source_at: start + parens,
        };
        // The parser takes `import`/`export` inside a function (the
        // semantic check refuses them): module syntax is read as a module.
        let module_syntax = as_body.module_record.has_module_syntax
            || reading
                .body()
                .0
                .iter()
                .any(Statement::is_module_declaration);
        if !module_syntax {
            return Ok(reading);
        }
    }
    let plain = allocator.alloc_str(&block);
    let as_module = parse(allocator, plain, module);
    if as_module.diagnostics.is_empty() && !as_module.panicked {
        return Ok(Reading {
            program: as_module.program,
            text: plain,
            start: 0,
            end: plain.len(),
            in_function: false,
            source_at: parens,
        });
    }
    let first = as_body
        .diagnostics
        .into_iter()
        .next()
        .unwrap_or_else(|| OxcDiagnostic::error("the block could not be read"));
    // An error past the block's end (`let n = (` meets the closing `}`) is
    // said better by the block alone (`Expected ')' but found EOF`).
    if at_of(&first) >= end {
        let alone = parse(allocator, plain, script);
        if let Some(d) = alone.diagnostics.into_iter().next() {
            return Err((d, parens));
        }
    }
    Err((first, start + parens))
}

/// Where a diagnostic points (its primary label, else its last).
fn at_of(d: &OxcDiagnostic) -> usize {
    let label = d.labels.iter().find(|l| l.primary()).or(d.labels.last());
    label.map_or(0, |l| l.offset() as usize)
}

pub fn parse<'a>(
    allocator: &'a Allocator,
    text: &'a str,
    source_type: SourceType,
) -> oxc_parser::ParserReturn<'a> {
    Parser::new(allocator, text, source_type)
        .with_options(ParseOptions {
            allow_return_outside_function: true,
            parse_regular_expression: true,
            ..ParseOptions::default()
        })
        .parse()
}

/// `source` with a leading `#!` line blanked (positions kept): it is only
/// allowed at the very start of a script.
fn without_hashbang(source: &str) -> String {
    match source.strip_prefix("#!") {
        Some(_) => {
            let end = source.find('\n').unwrap_or(source.len());
            format!("{}{}", " ".repeat(end), &source[end..])
        }
        None => source.to_string(),
    }
}

/// `(source)` when the block starts with `{`, ends with `}` and reads as
/// one expression in parentheses, as both consoles read `{ a: 1 }` (an
/// object literal, not a block statement with a label), see
/// docs/log-format.md ("Evaluation"). It is read where the block runs, in
/// an async function, so `{ a: await p }` is one too.
fn object_literal(source: &str, source_type: SourceType) -> Option<String> {
    let t = source.trim();
    if !(t.starts_with('{') && t.ends_with('}')) {
        return None;
    }
    let wrapped = format!("({source})");
    let text = format!("{OPENING}{wrapped}{CLOSING}");
    let allocator = Allocator::default();
    let parsed = parse(&allocator, &text, source_type);
    if !parsed.diagnostics.is_empty() || parsed.panicked {
        return None;
    }
    let body = match parsed.program.body.as_slice() {
        [Statement::ExpressionStatement(e)] => match e.expression.get_inner_expression() {
            Expression::FunctionExpression(f) => f.body.as_deref(),
            _ => None,
        },
        _ => None,
    };
    let one_expression = body.is_some_and(|b| {
        b.directives.is_empty()
            && matches!(b.statements.as_slice(), [Statement::ExpressionStatement(_)])
    });
    one_expression.then_some(wrapped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(source: &str) -> &'static str {
        let allocator = Allocator::default();
        match read(&allocator, source, Lang::Js) {
            Ok(r) if r.in_function => "function body",
            Ok(_) => "module",
            Err(_) => "error",
        }
    }

    #[test]
    fn a_block_is_a_function_body_and_module_syntax_a_module() {
        for (source, want) in [
            ("await (async () => 1)()", "function body"),
            ("let [a, b] = await ([1, 2])", "function body"),
            ("const n = f(await\nkoo())", "function body"),
            ("with (o) { await x }", "function body"),
            ("return 5", "function body"),
            ("010 + await p", "function body"),
            ("import { a } from './a.js'\na", "module"),
            ("export const x = 1", "module"),
            ("import.meta.url", "module"),
            ("let await = 1", "error"),
            ("let x = ;", "error"),
        ] {
            assert_eq!(kind(source), want, "{source}");
        }
    }

    #[test]
    fn the_body_is_the_blocks_own_statements() {
        let allocator = Allocator::default();
        let r = read(&allocator, "'use strict';\nlet a = 1\na", Lang::Js).unwrap();
        let (body, directives) = r.body();
        assert_eq!(body.len(), 2);
        assert_eq!(directives.len(), 1);
        assert_eq!(&r.text[r.start..r.end], "'use strict';\nlet a = 1\na");
        let r = read(&allocator, "{ a: 1 }", Lang::Js).unwrap();
        assert_eq!(&r.text[r.start..r.end], "({ a: 1 })");
        assert_eq!(r.source_at, r.start + 1);
        let r = read(&allocator, "#!/usr/bin/env node\n1", Lang::Js).unwrap();
        assert_eq!(&r.text[r.start..r.end], "                   \n1");
    }

    /// docs/log-format.md ("Evaluation"): a block that starts with `{`, ends
    /// with `}` and reads as an expression in parentheses is an object
    /// literal, as both consoles read it; anything else keeps its reading.
    #[test]
    fn a_block_in_braces_is_an_object_literal_when_it_reads_as_one() {
        let allocator = Allocator::default();
        for (source, lang, literal) in [
            ("{ a: 1 }", Lang::Js, true),
            ("{a: 1, b: 2}", Lang::Js, true),
            ("{ x }", Lang::Js, true),
            ("{ a: await Promise.resolve(1) }", Lang::Js, true),
            ("  {\n  a: await p,\n  b: [await q]\n}\n", Lang::Js, true),
            ("{ [await k]: 1, ...(await rest) }", Lang::Js, true),
            ("{ a: 1 as number }", Lang::Ts, true),
            ("{}", Lang::Js, true),
            ("{ let x = 1; x + 1 }", Lang::Js, false),
            ("{ await null; 'in block' }", Lang::Js, false),
            ("{ a: 1 } // a comment", Lang::Js, false),
            ("{ a: 1 }\n{ b: 2 }", Lang::Js, false),
            ("{ 'use strict' }", Lang::Js, false),
            ("{ a: 1 };", Lang::Js, false),
        ] {
            let r = read(&allocator, source, lang).unwrap();
            let text = &r.text[r.start..r.end];
            let wrapped = text == format!("({source})");
            assert_eq!(wrapped, literal, "{source:?} read as {text:?}");
            assert_eq!(r.source_at, r.start + usize::from(literal), "{source:?}");
        }
    }
}
