//! Preparing a block before dispatch: parse it for real (oxc), answer a
//! syntax error at once, strip TypeScript types, and rewrite it so it runs
//! like a console program (see [`rewrite`]). Pure: source in, code and a
//! position map out.
//!
//! Layout:
//! - [`reading`]: the one rule: a block is the body of a REPL-mode script,
//!   parsed as the body of an async function (module syntax: a module).
//! - [`splice`]: edits as data and the map they leave.
//! - [`strip`]: TypeScript types blanked out (positions kept).
//! - [`rewrite`]: completion value, persistent bindings, imports.
//! - [`deep`]: size and nesting limits, and the deep-stack thread blocks
//!   are prepared on (a stack overflow would abort the hub).
//! - [`cell`]: the prepared code's positions mapped back to the block, and
//!   stack traces rewritten with them.
//!
//! The contract with the realm: `code` is the body of an `AsyncFunction`
//! created with no parameters (`new AsyncFunction(code)`), whose source V8
//! numbers from two header lines (`async function anonymous(` and `) {`).
//! The code names itself `daebug-cell-<job>` with a `sourceURL` comment, so
//! frames of the block (and of functions it defined, called later) say
//! which job they came from.

pub mod cell;
pub mod deep;
pub mod helpers;
pub mod names;
pub mod reading;
pub mod rewrite;
pub mod splice;
pub mod strip;

use oxc_allocator::Allocator;

use daebug_protocol::{JobError, JobId};

pub use cell::CellMap;

use crate::lang::Lang;
use names::{EXPORT, FUNCTION, GLOBAL, RESOLVE, RESULT, SCOPE};
use splice::Splices;

/// A block ready to send to its realm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// The `AsyncFunction` body the realm runs.
    pub code: String,
    /// Positions of `code` mapped back to the block, for stack traces.
    pub map: CellMap,
}

/// Turns a block into what its realm runs: what the log engine is given
/// (so the engine does not call the parser itself).
pub trait Preparer: std::fmt::Debug + Send + Sync {
    /// The code for `job`, or the error to answer the block with at once.
    fn prepare(&self, source: &str, lang: Lang, job: JobId) -> Result<Prepared, JobError>;
}

/// The hub's preparer: [`prepare`] (oxc, on a deep-stack thread).
#[derive(Debug, Clone, Copy, Default)]
pub struct Oxc;

impl Preparer for Oxc {
    fn prepare(&self, source: &str, lang: Lang, job: JobId) -> Result<Prepared, JobError> {
        prepare(source, lang, job)
    }
}

/// A preparer that sends a block as it is, for tests of what does not
/// depend on what a block becomes (the engine's layout, job delivery): no
/// parser needed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Verbatim;

impl Preparer for Verbatim {
    fn prepare(&self, source: &str, _: Lang, _: JobId) -> Result<Prepared, JobError> {
        let whole = std::iter::once(0..source.len()).collect::<Vec<_>>();
        let map = cell::CellMap::new(source, &whole, splice::SpliceMap::default(), source, 0);
        Ok(Prepared {
            code: source.to_string(),
            map,
        })
    }
}

/// Where the adapter keeps the toolkit on the global object
/// (`Symbol.for(TOOLKIT)`), see `adapter-wasm/src/toolkit.rs`.
pub const TOOLKIT: &str = "daebug.toolkit";

/// The name the prepared code of `job` gives itself in stack traces.
pub fn cell_url(job: JobId) -> String {
    format!("{}{}", cell::CELL_PREFIX, job.0)
}

/// Parses and rewrites one block. A syntax error (or a construct a block
/// cannot run) comes back as the `SyntaxError` to show, with the line and
/// column in the block; a block beyond the limits of [`deep`] as a
/// `RangeError`. Runs on a thread with a deep stack (see [`deep`]).
pub fn prepare(source: &str, lang: Lang, job: JobId) -> Result<Prepared, JobError> {
    deep::prepare_within_limits(source, lang, job)
}

/// [`prepare`] on the caller's stack.
fn prepare_here(source: &str, lang: Lang, job: JobId) -> Result<Prepared, JobError> {
    let allocator = Allocator::default();
    let reading =
        reading::read(&allocator, source, lang).map_err(|(d, at)| diagnostic(source, &d, at))?;
    let (text, at) = (reading.text, reading.source_at);
    let semantic = oxc_semantic::SemanticBuilder::new()
        .with_check_syntax_error(true)
        .build(&reading.program);
    if let Some(d) = semantic.diagnostics.first() {
        return Err(diagnostic(source, d, at));
    }
    // Names the block uses but does not declare: earlier blocks' bindings,
    // or globals.
    let mut free: Vec<&str> = semantic
        .semantic
        .scoping()
        .root_unresolved_references()
        .keys()
        .map(|name| name.as_str())
        .collect();
    free.sort_unstable();
    let mut splices = Splices::new();
    // The function the block was read in is not part of the code run.
    splices.replace(0, reading.start, "");
    splices.replace(reading.end, text.len(), "");
    if let Err(e) = strip::strip_types(&reading.program, text, &mut splices) {
        return Err(syntax_error(source, e.at.saturating_sub(at), &e.message));
    }
    let (body, directives) = reading.body();
    let globals = rewrite::rewrite(
        body,
        directives,
        &semantic.semantic,
        &free,
        text,
        &mut splices,
    )
    .map_err(|e| syntax_error(source, e.at.saturating_sub(at), &e.message))?;
    let (body, splice_map) = splices.apply(text);

    let (code, copies) = assemble(&globals, &free, &body, job);
    let map = CellMap::new(&code, &copies, splice_map, source, at);
    Ok(Prepared { code, map })
}

/// The prepared code around the block's (edited) text, and where copies of
/// that text start and end in it.
///
/// The earlier blocks' names are reached through `with (scope)`, which makes
/// every name the block looks up dynamic (a global like `Math` costs about
/// 40 times more, in the block and in functions it defines). So a copy of
/// the block runs inside `with` when a name it uses but does not declare is
/// an earlier block's, or nothing yet (a later block may declare it);
/// when every such name is a global (checked as the block starts), a plain
/// copy runs at full speed.
fn assemble(
    globals: &rewrite::Globals,
    free: &[&str],
    body: &str,
    job: JobId,
) -> (String, Vec<std::ops::Range<usize>>) {
    // The helpers go in front once the rest shows which it uses.
    let mut code = String::with_capacity(2 * body.len() + 1000);
    // The toolkit the adapter keeps under a symbol: the block sees it as
    // `daebug` also when the page has a global `daebug` of its own (which
    // the page keeps). An earlier block's `daebug` (in the scope) wins.
    if free.contains(&"daebug") {
        code.push_str(&format!(
            " const daebug = {GLOBAL}[Symbol.for(\"{TOOLKIT}\")] ?? {GLOBAL}.daebug;"
        ));
    }
    // The console's command-line helpers the block uses (`$$`, `keys`, …).
    code.push_str(&helpers::install(free));
    code.push_str(&redeclaration_checks(globals));
    // The block's `let`, `const` and `class` names new to the realm are in
    // the realm scope from the start, in their TDZ, as a console's are; a
    // name declared again keeps its earlier value until its declaration
    // runs (V8's REPL mode reuses the binding), see `rewrite::export_after`.
    let mut prologue = String::new();
    if !globals.lexical.is_empty() {
        let names: Vec<&str> = globals.lexical.iter().map(|(n, _)| n.as_str()).collect();
        prologue.push_str(&format!(" {EXPORT}({}, true);", rewrite::accessors(&names)));
    }
    for f in &globals.functions {
        prologue.push_str(&format!(" {FUNCTION}({}, {f});", js_name(f)));
    }
    // A `'use strict'` block runs as a strict arrow inside the (sloppy)
    // wrapper, which may hold `with`; a `return` in it ends the block.
    let (strict_open, strict_close) = match globals.strict {
        true => (
            format!(" const {NONE} = {{}}, {OUTCOME} = await (async () => {{ \"use strict\";"),
            format!("\n;return {NONE}\n}})(); if ({OUTCOME} !== {NONE}) return {OUTCOME};"),
        ),
        false => (String::new(), String::new()),
    };
    // The helpers come off the global object however the block ends.
    let removal = helpers::removal(free);
    if !removal.is_empty() {
        code.push_str(" try {");
    }
    let mut copies = Vec::with_capacity(2);
    let mut copy = |code: &mut String, opening: &str| {
        code.push_str(opening);
        code.push_str(&strict_open);
        code.push_str(&prologue);
        code.push('\n');
        let start = code.len();
        code.push_str(body);
        copies.push(start..code.len());
        code.push_str(&strict_close);
    };
    if !free.is_empty() {
        let names = serde_json::to_string(free).unwrap_or_else(|_| "[]".into());
        // A name that is neither an earlier block's nor a global yet may be
        // declared by a later block (`function f() { return items }`
        // before `const items`): that copy must see the scope too.
        let opening = format!(
            " if ({names}.some((n) => n in {SCOPE} || !(n in {GLOBAL}))) with ({SCOPE}) {{"
        );
        copy(&mut code, &opening);
        code.push('\n');
        copy(&mut code, "} else {");
    } else {
        copy(&mut code, " {");
    }
    code.push_str("\n}");
    if !removal.is_empty() {
        code.push_str(&format!(" }} finally {{ {removal} }}"));
    }
    // The value is the next block's `$_` (and an element its `$0`).
    code.push_str(&format!(
        "\n;return ({}, {RESULT})\n//# sourceURL={}",
        helpers::remember(RESULT),
        cell_url(job)
    ));
    let front = helpers(globals, &code);
    code.insert_str(0, &front);
    let copies = copies
        .into_iter()
        .map(|r| r.start + front.len()..r.end + front.len())
        .collect();
    (code, copies)
}

/// What a strict block's arrow returns when it ends without `return`, and
/// what it returned (see `assemble`).
const NONE: &str = "$daebug$none";
const OUTCOME: &str = "$daebug$outcome";

/// The checks a console makes before a script runs (V8's REPL mode): a
/// `let`/`const`/`class` name may be declared again only with its kind,
/// and not over a `var`, a function or a global that cannot be removed
/// (`location`, `undefined`); a `var` or function not over a lexical name.
/// Each lexical name's kind is recorded as the block starts (a block that
/// fails still leaves its names, in their TDZ, as in a console).
fn redeclaration_checks(globals: &rewrite::Globals) -> String {
    if globals.lexical.is_empty() && globals.vars.is_empty() && globals.functions.is_empty() {
        return String::new();
    }
    let mut out = format!(
        " {{ const kinds = {SCOPE}[Symbol.for(\"daebug.kinds\")] ??= Object.create(null), \
         declared = (n) => {{ throw new SyntaxError(`Identifier '${{n}}' has already been declared`) }};"
    );
    let lexical = serde_json::to_string(&globals.lexical).unwrap_or_else(|_| "[]".into());
    if !globals.lexical.is_empty() {
        out.push_str(&format!(
            " for (const [n, k] of {lexical}) if (n in kinds ? kinds[n] !== k : Object.getOwnPropertyDescriptor({GLOBAL}, n)?.configurable === false) declared(n);"
        ));
    }
    let vars: Vec<&String> = globals.vars.iter().chain(&globals.functions).collect();
    if !vars.is_empty() {
        let vars = serde_json::to_string(&vars).unwrap_or_else(|_| "[]".into());
        out.push_str(&format!(
            " for (const n of {vars}) if (n in kinds) declared(n);"
        ));
    }
    if !globals.lexical.is_empty() {
        out.push_str(&format!(" for (const [n, k] of {lexical}) kinds[n] = k;"));
    }
    out.push_str(" }");
    out
}

/// The start of the prepared code: the realm scope and the helpers that
/// `rest` (the code after it) uses, and `var` names created on the global
/// object. Only what is used is defined: a realm compiles every block
/// cold, and V8's compile time follows the code's size (a `1+1` with every
/// helper was 1.1 KB, and its compile the largest part of the block's
/// time in the page).
fn helpers(globals: &rewrite::Globals, rest: &str) -> String {
    let export = rest.contains(EXPORT);
    let resolve = rest.contains(RESOLVE);
    let function = rest.contains(FUNCTION);
    let scope = export || function || !globals.vars.is_empty() || rest.contains(SCOPE);
    let mut p = String::from("const ");
    if scope {
        p.push_str(&format!(
            "{SCOPE} = globalThis[Symbol.for(\"daebug.scope\")] ??= Object.create(null), "
        ));
    }
    p.push_str(&format!("{GLOBAL} = globalThis"));
    if export {
        p.push_str(&format!(
            ", {EXPORT} = (o, fresh) => {{ const d = Object.getOwnPropertyDescriptors(o); if (fresh) for (const n in d) if (n in {SCOPE}) delete d[n]; Object.defineProperties({SCOPE}, d) }}"
        ));
    }
    if resolve {
        p.push_str(&format!(
            ", {RESOLVE} = {GLOBAL}[Symbol.for(\"daebug.resolve\")] ?? ((s) => typeof s === \"string\" && /^\\.{{0,2}}\\//.test(s) ? new URL(s, {GLOBAL}.document?.baseURI ?? {GLOBAL}.location.href).href : s)"
        ));
    }
    if function {
        p.push_str(&format!(
            ", {FUNCTION} = (n, f) => {{ delete {SCOPE}[n]; const d = Object.getOwnPropertyDescriptor({GLOBAL}, n); Object.defineProperty({GLOBAL}, n, d === undefined || d.configurable ? {{ value: f, writable: true, enumerable: true, configurable: false }} : {{ value: f }}) }}"
        ));
    }
    p.push_str(&format!("; let {RESULT};"));
    // A `var` makes a global (the realm scope's name of that name goes, as
    // the global is what the block now means), not configurable, as a
    // script's `var` is (`delete` fails).
    for v in &globals.vars {
        let quoted = js_name(v);
        p.push_str(&format!(
            " delete {SCOPE}[{quoted}]; {quoted} in {GLOBAL} || Object.defineProperty({GLOBAL}, {quoted}, {{ value: void 0, writable: true, enumerable: true }});"
        ));
    }
    p
}

fn js_name(name: &str) -> String {
    serde_json::to_string(name).unwrap_or_default()
}

/// The `SyntaxError` of an oxc diagnostic, at its primary label (or its
/// last: for "declared twice" that is the second declaration).
fn diagnostic(source: &str, d: &oxc_diagnostics::OxcDiagnostic, prefix_len: usize) -> JobError {
    let label = d.labels.iter().find(|l| l.primary()).or(d.labels.last());
    let at = label.map_or(0, |l| l.offset() as usize);
    let mut message = d.message.to_string();
    if let Some(help) = &d.help {
        message = format!("{message} ({help})");
    }
    syntax_error(source, at.saturating_sub(prefix_len), &message)
}

/// A `SyntaxError` pointing at `at` (a byte offset in `source`), with the
/// line shown under it.
fn syntax_error(source: &str, at: usize, message: &str) -> JobError {
    // "Unexpected end of input" points past the last line: show that line.
    let at = floor_char_boundary(source, at.min(source.trim_end().len()));
    let (line, col) = cell::line_col(source, at);
    let line_start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[at..].find('\n').map_or(source.len(), |i| at + i);
    // V8's other line ends would break the log's line; shown as spaces.
    let text: String = source[line_start..line_end]
        .trim_end_matches('\r')
        .chars()
        .map(|c| match c {
            '\r' | '\u{2028}' | '\u{2029}' => ' ',
            c => c,
        })
        .collect();
    let gutter = " ".repeat(line.to_string().len());
    let caret: String = source[line_start..at]
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    JobError {
        name: "SyntaxError".into(),
        message: message.to_string(),
        stack: Some(format!(
            "SyntaxError: {message}\n    at <cell>:{line}:{col}\n  {line} | {text}\n  {gutter} | {caret}^"
        )),
    }
}

fn floor_char_boundary(s: &str, mut at: usize) -> usize {
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}
