//! The block rewrite, table-driven: each block, the text the realm runs
//! in place of it (between the prologue line and the closing `return`),
//! and how its positions map back. The values these give in a real page
//! and worker are checked by `tests/tests/evaluation.rs`.

use daebug_core::engine::Lang;
use daebug_core::prepare::{cell_url, prepare, CellMap};
use daebug_protocol::JobId;

const R: &str = "$daebug$result";

#[path = "support/block.rs"]
mod block;

/// The block's part of the prepared code of `source`.
fn rewritten(lang: Lang, source: &str) -> String {
    let prepared = prepare(source, lang, JobId(1))
        .unwrap_or_else(|e| panic!("{source:?} did not prepare: {e:?}"));
    let copy = block::block(&prepared.code);
    // Where the block uses names it does not declare, the same text is
    // there twice: once inside `with`, once without.
    if prepared.code.contains("} else {") {
        assert_eq!(prepared.code.matches(copy).count(), 2, "{}", prepared.code);
    }
    copy.to_string()
}

fn export(names: &[&str]) -> String {
    let accessors: Vec<String> = names
        .iter()
        .map(|n| {
            format!("get {n}() {{ return {n} }}, set {n}($daebug$value) {{ {n} = $daebug$value }}")
        })
        .collect();
    format!(";$daebug$export({{ {} }});", accessors.join(", "))
}

/// The namespace of a block's first static import.
const NS: &str = "$daebug$import1";

/// Accessors reading imports live from the namespace: (local, export name
/// or `*` for the namespace itself).
fn live(names: &[(&str, &str)]) -> String {
    let accessors: Vec<String> = names
        .iter()
        .map(|(local, export)| {
            let read = match *export {
                "*" => NS.to_string(),
                "default" => format!("{NS}.default"),
                e => format!("{NS}[\"{e}\"]"),
            };
            format!("get {local}() {{ return {read} }}, set {local}($daebug$value) {{ throw new TypeError(\"Assignment to constant variable.\") }}")
        })
        .collect();
    format!(";$daebug$export({{ {} }});", accessors.join(", "))
}

#[test]
fn blocks_are_rewritten_as_the_table_says() {
    let x = export(&["x"]);
    let table: Vec<(&str, Lang, &str, String)> = vec![
        ("a bare expression is the result", Lang::Js, "1 + 1", format!("{R} = (1 + 1)")),
        (
            "the last expression statement is the result",
            Lang::Js,
            "const x = 1;\nx + 1;",
            format!("const x = 1;{x}\n{R} = (x + 1);"),
        ),
        (
            "declarations after it keep it",
            Lang::Js,
            "f();\nconst x = 2;",
            format!("{R} = ((0, f)());\nconst x = 2;{x}"),
        ),
        (
            "an `if` after it gives the value: its branch's, else undefined",
            Lang::Js,
            "f();\nif (a) b();",
            format!(";(0, f)();\n;{R} = void 0; if (a) {R} = ((0, b)());"),
        ),
        (
            "a value before a declaration is the value (`1; let q = 2`)",
            Lang::Js,
            "1; let q = 2",
            format!("{R} = (1); let q = 2{}", export(&["q"])),
        ),
        (
            "every branch and loop body that may end the block gives the value; `finally` does not",
            Lang::Js,
            "for (const x of xs) x\ntry { a } catch { b } finally { c }",
            format!("for (const x of xs) x\n;{R} = void 0; try {{ {R} = (a) }} catch {{ {R} = (b) }} finally {{ c }}"),
        ),
        (
            "a labelled loop is reset before its label; a statement in a branch in braces",
            Lang::Js,
            "l: for (;;) { if (a) while (b) c; break l }",
            format!(";{R} = void 0; l: for (;;) {{ ;{R} = void 0; if (a) {{ {R} = void 0; while (b) {R} = (c); }} break l }}"),
        ),
        (
            "Annex B: a function declared in a block is a global once reached",
            Lang::Js,
            "{ function g() { return 2 } }",
            "{ function g() { return 2 };$daebug$function(\"g\", g); }".to_string(),
        ),
        (
            "a top-level return is left to return",
            Lang::Js,
            "return 5",
            "return 5".to_string(),
        ),
        (
            "an object literal is an object, not a block",
            Lang::Js,
            "{ a: 1 }",
            format!("{R} = (({{ a: 1 }}))"),
        ),
        (
            "a block statement stays one, its last expression the value",
            Lang::Js,
            "{ let a = 1; a }",
            format!("{{ let a = 1; {R} = (a) }}"),
        ),
        (
            "let and const persist through live accessors, patterns too",
            Lang::Js,
            "let { a, b: [c] } = o, d;",
            format!("let {{ a, b: [c] }} = o, d;{}", export(&["a", "c", "d"])),
        ),
        (
            "a class persists like let",
            Lang::Js,
            "class K {}",
            format!("class K {{}}{}", export(&["K"])),
        ),
        (
            "functions are left in place (the prologue makes them global)",
            Lang::Js,
            "function f() {}",
            "function f() {}".to_string(),
        ),
        (
            "var becomes assignments to globals",
            Lang::Js,
            "var a = 1, { b } = o, c;",
            "void ( a = 1, { b } = o, void 0);".to_string(),
        ),
        (
            "var in loop heads, outside functions, too",
            Lang::Js,
            "for (var i = 0; i < 2; i++) { var j = i }\nfunction f() { var local = 1 }",
            format!(";{R} = void 0; for (    i = 0; i < 2; i++) {{ void ( j = i); }}\nfunction f() {{ var local = 1 }}"),
        ),
        (
            "a static import becomes await import(), resolved by the realm",
            Lang::Js,
            "import d, { a as b, c } from './m.js'",
            format!(
                "const {NS} = await import($daebug$resolve('./m.js')), {{ default: d, a: b, c }} = {NS};{}",
                live(&[("d", "default"), ("b", "a"), ("c", "c")])
            ),
        ),
        (
            "a namespace import, and a side-effect import",
            Lang::Js,
            "import * as ns from \"m\";\nimport \"./side.js\";",
            format!(
                "const {NS} = await import($daebug$resolve(\"m\")), ns = {NS};{}\nawait import($daebug$resolve(\"./side.js\"));",
                live(&[("ns", "*")])
            ),
        ),
        (
            "an import over several lines keeps the line count",
            Lang::Js,
            "import {\n  a,\n} from './m.js';\na",
            format!(
                "const {NS} = await import($daebug$resolve('./m.js')), {{ a }} = {NS};\n\n{}\n{R} = (a)",
                live(&[("a", "a")])
            ),
        ),
        (
            "import attributes are passed on",
            Lang::Js,
            "import data from './d.json' with { type: 'json' };",
            format!(
                "const {NS} = await import($daebug$resolve('./d.json'), {{ with: {{ type: 'json' }} }}), {{ default: data }} = {NS};{}",
                live(&[("data", "default")])
            ),
        ),
        (
            "dynamic import() resolves against the realm as well",
            Lang::Js,
            "await import('./x.js')",
            format!("{R} = (await import($daebug$resolve('./x.js')))"),
        ),
        (
            "export in front of a declaration is dropped",
            Lang::Js,
            "export const x = 1",
            format!("       const x = 1{x}"),
        ),
        (
            "`await` may be a name inside a plain function",
            Lang::Js,
            "function f(await) { return await }",
            "function f(await) { return await }".to_string(),
        ),
        (
            "using is fine (the block runs as a function body) and stays local",
            Lang::Js,
            "using r = open();",
            "using r = (0, open)();".to_string(),
        ),
        (
            "strict-only rules do not apply (the block is sloppy code)",
            Lang::Js,
            "await 0;\nvar zz = 1;\ndelete zz",
            format!("await 0;\nvoid ( zz = 1);\n{R} = (delete zz)"),
        ),
        (
            "an anonymous function keeps no name",
            Lang::Js,
            "(x) => x",
            format!("{R} = (0, (x) => x)"),
        ),
        (
            "a var without `;` does not run into the next line",
            Lang::Js,
            "var h\n[1, 2].forEach((n) => (h = n))",
            format!("void ( void 0);\n{R} = ([1, 2].forEach((n) => (h = n)))"),
        ),
        (
            "a call of a name that may come through `with` gets no `this`",
            Lang::Js,
            "st(() => 1, 5);\ntag`x`;\neval('1');\n",
            format!(";(0, st)(() => 1, 5);\n;(0, tag)`x`;\n{R} = (eval('1'));\n"),
        ),
        (
            "a block's own functions are read from the global object",
            Lang::Js,
            "function p() { return 1 }\nfunction q() { return p() + [{ p }].length }",
            "function p() { return 1 }\nfunction q() { return (0, $daebug$global.p)() + [{ p: $daebug$global.p }].length }".to_string(),
        ),
        (
            "a call starting a statement gets a `;` first (the line above may have none)",
            Lang::Js,
            "console.log(1)\nparseInt('4')\n5",
            format!("console.log(1)\n;(0, parseInt)('4')\n{R} = (5)"),
        ),
        (
            "a callee in parentheses or a type wrapper is seen",
            Lang::Ts,
            "(st)(1);\n(st as any)(2);",
            format!("((0, st))(1);\n{R} = (((0, st)       )(2));"),
        ),
        (
            "a block's own function is called without a `this`",
            Lang::Js,
            "function h() { 'use strict'; return this }\nh()",
            format!("function h() {{ 'use strict'; return this }}\n{R} = ((0, $daebug$global.h)())"),
        ),
        (
            "a destructuring assignment to a function keeps its key",
            Lang::Js,
            "function f() {}\n({ f = 3 } = {});",
            format!("function f() {{}}\n{R} = (({{ f: $daebug$global.f = 3 }} = {{}}));"),
        ),
        (
            "`await` is a name again in a plain arrow",
            Lang::Js,
            "const g = () => { var await = 1 };",
            format!("const g = () => {{ var await = 1 }};{}", export(&["g"])),
        ),
        (
            "an import of only types loads nothing",
            Lang::Ts,
            "import { type P } from './p';\n1",
            format!(";                            \n{R} = (1)"),
        ),
        (
            "for (var async of …) stays JavaScript",
            Lang::Js,
            "for (var async of [1]);",
            format!(";{R} = void 0; for (    (async) of [1]);"),
        ),
        (
            "a hashbang line is blanked",
            Lang::Js,
            "#!/usr/bin/env node\n1",
            format!("                   \n{R} = (1)"),
        ),
        (
            "a lone string is the result (it parses as a directive)",
            Lang::Js,
            "'no strict'",
            format!("{R} = ('no strict')"),
        ),
        (
            "TypeScript types are blanked, positions kept",
            Lang::Ts,
            "const x: number = 1;\nx as number",
            format!("const x         = 1;{x}\n{R} = (x          )"),
        ),
        (
            "TypeScript-only statements are blanked",
            Lang::Ts,
            "interface P { x: number }\ntype T = P;\n1",
            format!(";                        \n;          \n{R} = (1)"),
        ),
        (
            "import type goes entirely",
            Lang::Ts,
            "import type { P } from './p';\n1",
            format!(";                            \n{R} = (1)"),
        ),
        (
            "type-only exports are blanked",
            Lang::Ts,
            "type P = 1;\nexport type { P };\n2",
            format!(";          \n;                 \n{R} = (2)"),
        ),
        (
            "type-only specifiers are left out",
            Lang::Ts,
            "import { type P, a } from './p';",
            format!(
                "const {NS} = await import($daebug$resolve('./p')), {{ a }} = {NS};{}",
                live(&[("a", "a")])
            ),
        ),
    ];
    let mut failures = Vec::new();
    for (what, lang, source, want) in &table {
        let got = rewritten(*lang, source);
        if &got != want {
            failures.push(format!(
                "{what}:\n  block: {source:?}\n  want:  {want:?}\n  got:   {got:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_prologue_sets_up_globals_and_the_realm_scope() {
    let code = prepare("var a = 1;\nfunction f() {}\nf()", Lang::Js, JobId(9))
        .unwrap()
        .code;
    let prologue = code.lines().next().unwrap();
    assert!(prologue.contains("globalThis[Symbol.for(\"daebug.scope\")] ??= Object.create(null)"));
    assert!(prologue.contains(
        "delete $daebug$scope[\"a\"]; \"a\" in $daebug$global || Object.defineProperty($daebug$global, \"a\", { value: void 0, writable: true, enumerable: true });"
    ));
    // A `var` or function may not take a name an earlier block declared
    // with `let`, `const` or `class`, as in a console.
    assert!(
        prologue.contains("for (const n of [\"a\",\"f\"]) if (n in kinds) declared(n);"),
        "{prologue}"
    );
    // Every name the block uses it declares itself: no `with` needed.
    assert!(
        prologue.ends_with("declared(n); } { $daebug$function(\"f\", f);"),
        "{prologue}"
    );
    // The value is kept as the next block's `$_` (and an element as `$0`).
    assert!(code.ends_with(&format!(
        "\n}}\n;return ($daebug$global[Symbol.for(\"daebug.last\")] = {R}, $daebug$global.Element && {R} instanceof $daebug$global.Element && ($daebug$global[Symbol.for(\"daebug.$0\")] = {R}), {R})\n//# sourceURL={}",
        cell_url(JobId(9))
    )), "{code}");
}

#[test]
fn the_console_helpers_a_block_uses_are_on_the_global_object_while_it_runs() {
    let code = prepare(
        "$$('li').length + keys({ a: 1 }).length\nconst later = () => $('#x')",
        Lang::Js,
        JobId(3),
    )
    .unwrap()
    .code;
    let prologue = code.lines().next().unwrap();
    // Put on the global object, as DevTools does, unless the realm has the
    // name; made once per realm.
    assert!(
        prologue.contains("[\"$\",\"$$\",\"keys\"].filter((n) => "),
        "{prologue}"
    );
    assert!(
        prologue.contains("$daebug$helpers.get[\"keys\"] ??= "),
        "{prologue}"
    );
    assert!(!prologue.contains("get[\"values\"]"), "{prologue}");
    // Taken off however the block ends.
    assert!(
        code.contains("} finally { for (const n of $daebug$installed)"),
        "{code}"
    );
    // The block's top level uses the name; its functions read the helper
    // through `$daebug$helper`, as they may run after the block.
    let copy = block::block(&code);
    assert!(
        copy.contains("(0, $$)('li').length + (0, keys)({ a: 1 }).length"),
        "{copy}"
    );
    assert!(
        copy.contains("() => (0, $daebug$helper(\"$\"))('#x')"),
        "{copy}"
    );
    // A block that declares the name itself uses no helper.
    let code = prepare("const $ = 1; $", Lang::Js, JobId(4)).unwrap().code;
    assert!(!code.contains("$daebug$helpers"), "{code}");
}

#[test]
fn a_block_using_names_it_does_not_declare_checks_the_realm_scope_for_them() {
    let code = prepare(
        "function f() { return Math.max(x, 1) }\nf()",
        Lang::Js,
        JobId(9),
    )
    .unwrap()
    .code;
    let prologue = code.lines().next().unwrap();
    assert!(
        prologue.ends_with(
            "if ([\"Math\",\"x\"].some((n) => n in $daebug$scope || !(n in $daebug$global))) with ($daebug$scope) { $daebug$function(\"f\", f);"
        ),
        "{prologue}"
    );
    assert!(
        code.contains("\n} else { $daebug$function(\"f\", f);\n"),
        "{code}"
    );
}

#[test]
fn a_block_that_uses_daebug_binds_the_toolkit_and_leaves_the_global_alone() {
    let binding =
        " const daebug = $daebug$global[Symbol.for(\"daebug.toolkit\")] ?? $daebug$global.daebug;";
    let code = prepare("await daebug.sleep(1)", Lang::Js, JobId(3))
        .unwrap()
        .code;
    let prologue = code.lines().next().unwrap();
    assert!(prologue.contains(binding), "{prologue}");
    // In the function, outside `with`: an earlier block's `daebug` in the
    // realm scope still wins there.
    assert!(
        prologue.find(binding) < prologue.find("with ("),
        "{prologue}"
    );
    assert_eq!(
        daebug_core::prepare::TOOLKIT,
        "daebug.toolkit",
        "the adapter keeps it under this key"
    );
    for own in ["const daebug = 1; daebug", "var daebug = 1", "1 + 1"] {
        let code = prepare(own, Lang::Js, JobId(3)).unwrap().code;
        assert!(
            !code.contains("Symbol.for(\"daebug.toolkit\")"),
            "{own}: {code}"
        );
    }
}

/// (block, line, column, message part)
#[test]
fn syntax_errors_point_at_the_block_line_and_column() {
    let table: &[(&str, Lang, usize, usize, &str)] = &[
        ("let a = ;", Lang::Js, 1, 9, "Unexpected token"),
        ("const ok = 1;\n  foo(;", Lang::Js, 2, 7, "Unexpected token"),
        (
            "let a = 1;\nlet a = 2;",
            Lang::Js,
            2,
            5,
            "`a` has already been declared",
        ),
        ("break;", Lang::Js, 1, 1, "Illegal break"),
        ("let x: number = 1", Lang::Js, 1, 6, "semicolon"),
        (
            "const s = 'é';\nlet = ;",
            Lang::Js,
            2,
            7,
            "Unexpected token",
        ),
        ("enum Color { Red }", Lang::Ts, 1, 1, "enum"),
        ("export default 1", Lang::Js, 1, 1, "export default"),
        ("import.meta.url", Lang::Js, 1, 1, "import.meta"),
        (
            "let y = 1;\nlet x = await;",
            Lang::Js,
            2,
            14,
            "Unexpected token",
        ),
        (
            "await: for (;;) break await;",
            Lang::Js,
            1,
            6,
            "Unexpected token",
        ),
        (
            "const ok = 1;\n'x'.match(/a(b/)",
            Lang::Js,
            2,
            13,
            "Invalid regular expression",
        ),
    ];
    for (source, lang, line, col, part) in table {
        let e = prepare(source, *lang, JobId(1)).expect_err(source);
        assert_eq!(e.name, "SyntaxError", "{source}");
        assert!(e.message.contains(part), "{source}: {}", e.message);
        let stack = e.stack.unwrap();
        assert!(
            stack.contains(&format!("at <cell>:{line}:{col}\n")),
            "{source}: {stack}"
        );
        // The line is shown with a caret under the column.
        let shown = source.lines().nth(line - 1).unwrap();
        assert!(stack.contains(&format!("{line} | {shown}")), "{stack}");
    }
}

/// Where V8 would report `generated_at` (a byte offset in the prepared
/// code): 1-based line counting the function's two header lines and every
/// JavaScript line terminator, 1-based column in UTF-16 units.
fn v8_position(code: &str, generated_at: usize) -> (usize, usize) {
    let starts = daebug_core::prepare::cell::js_line_starts(code);
    let line = starts.partition_point(|&s| s <= generated_at);
    let line_start = starts[line - 1];
    (
        line + 2,
        code[line_start..generated_at].encode_utf16().count() + 1,
    )
}

/// Where `marker` is in the copies of the block (after the first line,
/// which lists the names the block uses).
fn in_copies(code: &str, marker: &str) -> Vec<usize> {
    let after = code.find('\n').unwrap() + 1;
    code[after..]
        .match_indices(marker)
        .map(|(i, _)| after + i)
        .collect()
}

fn block_position(source: &str, at: usize) -> (usize, usize) {
    let before = &source[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].encode_utf16().count() + 1)
}

#[test]
fn every_kept_token_maps_back_to_where_the_agent_wrote_it() {
    let blocks: &[(Lang, &str, &[&str])] = &[
        (
            Lang::Js,
            "const a = 1, b = fail();\nvar v = 2, w = boom();\nimport { x } from './x.js';\nthrower(a + b)",
            &["fail", "boom", "thrower", "b)"],
        ),
        (
            Lang::Ts,
            "const p: { x: number } = make();\nfunction f<T>(q: T): T { return q.oops() }\nf(p) as any",
            &["make", "oops", "p)"],
        ),
        (Lang::Js, "{ a: explode() }", &["explode"]),
        (Lang::Js, "const s = 'ünï😀';\ns.nope()", &["nope"]),
        // V8 ends lines at these too; the agent's editor may not.
        (
            Lang::Js,
            "const sep = 'a\u{2028}b\u{2029}c';\nnull.boom;\rlater.x",
            &["boom", "later"],
        ),
    ];
    for (lang, source, markers) in blocks {
        let prepared = prepare(source, *lang, JobId(3)).unwrap();
        for marker in *markers {
            let in_source = source.find(marker).unwrap();
            // Each copy of the block (with and without `with`) maps back.
            let copies = in_copies(&prepared.code, marker);
            assert!(!copies.is_empty(), "{marker} in {}", prepared.code);
            for in_code in copies {
                let (line, col) = v8_position(&prepared.code, in_code);
                assert_eq!(
                    prepared.map.to_block(line, col),
                    block_position(source, in_source),
                    "{marker} in {source:?}"
                );
            }
        }
    }
}

#[test]
fn stacks_name_the_cell_and_its_lines() {
    let source = "function thrower() {\n  throw new Error('x');\n}\nthrower();";
    let prepared = prepare(source, Lang::Js, JobId(17)).unwrap();
    let throw_at = v8_position(&prepared.code, prepared.code.find("new Error").unwrap());
    let call_at = v8_position(
        &prepared.code,
        prepared.code.find("$daebug$global.thrower)()").unwrap(),
    );
    let stack = format!(
        "Error: x\n    at thrower (daebug-cell-17:{}:{})\n    at eval (daebug-cell-17:{}:{})\n    at async eval (daebug-cell-17:{}:{})\n    at load (http://h/app.js:1:2)",
        throw_at.0, throw_at.1, call_at.0, call_at.1, call_at.0, call_at.1
    );
    let map: &CellMap = &prepared.map;
    let mapped = daebug_core::prepare::cell::map_stack(&stack, |job| {
        (job == 17).then(|| (map, "<cell>".to_string()))
    });
    assert_eq!(
        mapped,
        "Error: x\n    at thrower (<cell>:2:9)\n    at <cell>:4:1\n    at async <cell>:4:1\n    at load (http://h/app.js:1:2)"
    );
    // Node, where the loader compiles the block as its entry's code,
    // names the block's own frame `anonymous`, as `new AsyncFunction` does.
    let node = format!(
        "Error: x\n    at thrower (daebug-cell-17:{}:{})\n    at anonymous (daebug-cell-17:{}:{})\n    at process.processTicksAndRejections (node:internal/process/task_queues:103:5)",
        throw_at.0, throw_at.1, call_at.0, call_at.1
    );
    assert_eq!(
        daebug_core::prepare::cell::map_stack(&node, |job| (job == 17).then(|| (map, "<cell>".to_string()))),
        "Error: x\n    at thrower (<cell>:2:9)\n    at <cell>:4:1\n    at process.processTicksAndRejections (node:internal/process/task_queues:103:5)"
    );
    // A cell whose map is gone keeps its line, without the prologue's.
    let unknown = daebug_core::prepare::cell::map_stack("    at f (daebug-cell-5:6:3)", |_| None);
    assert_eq!(unknown, "    at f (<cell ?>:3:3)");
}

#[test]
fn earlier_cells_are_named_by_when_they_ran() {
    let mut cells = daebug_core::prepare::cell::Cells::default();
    let first = prepare("function f() {\n  oops();\n}", Lang::Js, JobId(1)).unwrap();
    let oops = v8_position(&first.code, in_copies(&first.code, "oops")[1]);
    cells.remember(1, first.map, "10:00:01".into());
    let second = prepare("f()", Lang::Js, JobId(2)).unwrap();
    cells.remember(2, second.map, "10:00:02".into());
    let stack = format!("    at f (daebug-cell-1:{}:{})", oops.0, oops.1);
    assert_eq!(
        cells.map_stack(&stack, Some(2)),
        "    at f (<cell 10:00:01>:2:3)"
    );
    assert_eq!(cells.map_stack(&stack, Some(1)), "    at f (<cell>:2:3)");
}

/// The same block's stacks as Chromium 156 and Firefox ESR 153 wrote
/// them (read inside the block, before and after an `await`), mapped to
/// the block's lines in each engine's own syntax.
#[test]
fn stacks_of_each_engine_name_the_cell_in_its_syntax() {
    let source = "function thrower() { throw new Error(\"boom\"); }\nlet sync; try { thrower(); } catch (e) { sync = e.stack; }\nawait 0;\nlet after; try { thrower(); } catch (e) { after = e.stack; }\n[navigator.userAgent, sync, after]\n";
    let job = 1795470455738000;
    let prepared = prepare(source, Lang::Js, JobId(job)).unwrap();
    let map: &CellMap = &prepared.map;
    let lookup = |j: u64| (j == job).then(|| (map, "<cell>".to_string()));
    let cases = [
        (
            "Error: boom\n    at thrower (daebug-cell-1795470455738000:11:28)\n    at eval (daebug-cell-1795470455738000:12:143)",
            "Error: boom\n    at thrower (<cell>:1:28)\n    at <cell>:2:17",
        ),
        (
            "Error: boom\n    at thrower (daebug-cell-1795470455738000:11:28)\n    at eval (daebug-cell-1795470455738000:14:148)",
            "Error: boom\n    at thrower (<cell>:1:28)\n    at <cell>:4:18",
        ),
        (
            "thrower@daebug-cell-1795470455738000:11:28\nanonymous@daebug-cell-1795470455738000:12:143\n",
            "thrower@<cell>:1:28\n@<cell>:2:17\n",
        ),
        (
            "thrower@daebug-cell-1795470455738000:11:28\nasync*anonymous@daebug-cell-1795470455738000:14:148\n",
            "thrower@<cell>:1:28\nasync*@<cell>:4:18\n",
        ),
        // Only a frame whose whole name is `anonymous` is the block's.
        (
            "my_anonymous@daebug-cell-1795470455738000:11:28",
            "my_anonymous@<cell>:1:28",
        ),
    ];
    for (stack, want) in cases {
        assert_eq!(
            daebug_core::prepare::cell::map_stack(stack, lookup),
            want,
            "{stack}"
        );
    }
}
