//! Evaluation semantics (docs/log-format.md) in a real page and a real module
//! worker: the built hub prepares each block, headless Chromium runs it.
//! One table of steps runs in both realms, in order, each step a block
//! appended to the realm's log and the reply it must get.

mod support;

use support::{World, Write};

/// One block and what its reply must contain (every string).
struct Step {
    what: &'static str,
    fence: &'static str,
    code: &'static str,
    want: &'static [&'static str],
}

const fn step(
    what: &'static str,
    fence: &'static str,
    code: &'static str,
    want: &'static [&'static str],
) -> Step {
    Step {
        what,
        fence,
        code,
        want,
    }
}

/// In order: later steps use the bindings of earlier ones.
const STEPS: &[Step] = &[
    step("a bare expression", "js", "1 + 1", &["```JSON\n2\n```"]),
    step(
        "completion after statements",
        "js",
        "const a = 1;\nlet b = a + 1;\na + b",
        &["```JSON\n3\n```"],
    ),
    step(
        "declarations after the last expression keep its value",
        "js",
        "a * 10;\nconst unused = 0;",
        &["```JSON\n10\n```"],
    ),
    step("an object literal", "js", "{ x: 1, y: [2] }", &["```JSON\n{\"x\":1,\"y\":[2]}\n```"]),
    step(
        "an object literal that awaits (not a label and a block)",
        "js",
        "{ a: await Promise.resolve(1) }",
        &["```JSON\n{\"a\":1}\n```"],
    ),
    step("an object literal of two", "js", "{a: 1, b: 2}", &["```JSON\n{\"a\":1,\"b\":2}\n```"]),
    step("a shorthand object literal", "js", "{ a }", &["```JSON\n{\"a\":1}\n```"]),
    step(
        "a block statement stays one",
        "js",
        "{ let x = 1; x + 1 }",
        &["```JSON\n2\n```"],
    ),
    step(
        "a top-level return",
        "js",
        "if (a === 1) return 'early';\n'late'",
        &["```JSON\n\"early\"\n```"],
    ),
    step(
        "top-level await, destructuring and for await",
        "js",
        "const { v } = await new Promise((r) => setTimeout(() => r({ v: 4 }), 5));\n\
         let total = 0;\n\
         for await (const n of (async function* () { yield 1; yield 2; })()) total += n;\n\
         v + total",
        &["```JSON\n7\n```"],
    ),
    step(
        "bindings persist across blocks, live",
        "js",
        "const base = 40;\nlet counter = 0;\nfunction bump() { return ++counter; }\nclass Box { constructor(v) { this.v = v; } }",
        &["\nundefined\n```"],
    ),
    step(
        "and are read, called and assigned by a later block",
        "js",
        "bump(); bump();\ncounter += 0;\n[base + counter, new Box(5).v, typeof bump]",
        &["```JSON\n[42,5,\"function\"]\n```"],
    ),
    step(
        "a const stays constant",
        "js",
        "base = 1",
        &["TypeError: Assignment to constant variable."],
    ),
    step(
        "var and function become globals, let does not",
        "js",
        "var shared = 'g';\n[globalThis.shared, typeof globalThis.bump, typeof globalThis.counter]",
        &["```JSON\n[\"g\",\"function\",\"undefined\"]\n```"],
    ),
    step(
        "a function may use a name a later block declares",
        "js",
        "function countItems() { return items.length; }",
        &["\nundefined\n```"],
    ),
    step(
        "declared by the next block",
        "js",
        "const items = [1, 2, 3];\ncountItems()",
        &["```JSON\n3\n```"],
    ),
    step(
        "a binding initialised before a throw",
        "js",
        "const kept = 'still here';\nthrow new Error('boom')",
        &["Error: boom", "(**ERROR** after"],
    ),
    step("stays available", "js", "kept", &["```JSON\n\"still here\"\n```"]),
    step(
        "a class and a function declared again",
        "js",
        "class Box { get v() { return 'new'; } }\nfunction bump() { return 'bumped again'; }\n[new Box().v, bump()]",
        &["```JSON\n[\"new\",\"bumped again\"]\n```"],
    ),
    step(
        "a let declared again",
        "js",
        "let counter = 'fresh';\ncounter",
        &["```JSON\n\"fresh\"\n```"],
    ),
    step(
        "TypeScript has its types stripped",
        "ts",
        "interface Point { x: number; y: number }\n\
         const p: Point = { x: 3, y: 4 };\n\
         function norm<T extends Point>(q: T): number { return Math.hypot(q.x, q.y); }\n\
         norm(p) as number",
        &["```JSON\n5\n```"],
    ),
    step(
        "a syntax error is answered with line and column, without running",
        "js",
        "globalThis.ran = true;\nconst ok = 1;\nconst bad = ;",
        &[
            "SyntaxError: Unexpected token",
            "at <cell>:3:13",
            "3 | const bad = ;",
        ],
    ),
    step(
        "nothing of the bad block ran",
        "js",
        "typeof ran",
        &["```JSON\n\"undefined\"\n```"],
    ),
    step(
        "stack frames point at the block's lines",
        "js",
        "// a comment line\nfunction thrower() {\n  throw new Error('mapped');\n}\nthrower();",
        &[
            "Error: mapped",
            "at thrower (<cell>:3:9)",
            "at <cell>:5:1",
        ],
    ),
    step(
        "a static import becomes a dynamic one, resolved against the realm",
        "js",
        "import label, { answer } from './lib.js';\n[label, answer]",
        &["```JSON\n[\"from lib\",42]\n```"],
    ),
    step(
        "imported names persist",
        "js",
        "answer + 1",
        &["```JSON\n43\n```"],
    ),
    step(
        "and stay live, as module bindings do",
        "js",
        "import { count, bump } from './lib.js';",
        &["\nundefined\n```"],
    ),
    step("after a call", "js", "bump();\ncount", &["```JSON\n1\n```"]),
    step(
        "a function kept in a const is called without the scope as `this`",
        "js",
        "const later = setTimeout;",
        &["\nundefined\n```"],
    ),
    step(
        "(a browser function would throw Illegal invocation)",
        "js",
        "await new Promise((r) => later(r, 1));\n'called'",
        &["```JSON\n\"called\"\n```"],
    ),
    step(
        "a function defined again is what older closures call",
        "js",
        "function helper() { return 1; }\nfunction caller() { return helper(); }",
        &["\nundefined\n```"],
    ),
    step(
        "as in a console",
        "js",
        "function helper() { return 2; }\ncaller()",
        &["```JSON\n2\n```"],
    ),
    step(
        "a var with no `;` does not run into the next line",
        "js",
        "var h1\n[1, 2].forEach((n) => (h1 = n))\nh1",
        &["```JSON\n2\n```"],
    ),
    step(
        "calls on lines without `;` stay separate statements",
        "js",
        "const one = () => 1, two = () => 2;",
        &["\nundefined\n```"],
    ),
    step("(each call its own line)", "js", "one()\ntwo()\n3", &["```JSON\n3\n```"]),
    step(
        "an anonymous function keeps no name of ours",
        "js",
        "(x) => x",
        &["ƒ (anonymous)(x)"],
    ),
];

#[test]
fn blocks_behave_like_a_console_in_a_page_and_a_worker() {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Eval</title></head><body>\
                 <script>new Worker('/worker.js', { type: 'module' })</script></body></html>",
            ),
            ("worker.js", "import '/daebug.js?name=crunch';\n"),
            (
                "lib.js",
                "export const answer = 42;\nexport default 'from lib';\nexport let count = 0;\nexport function bump() { count++; }\n",
            ),
        ],
        "index.html",
    );
    for log in [world.log("eval-"), world.log("crunch-")] {
        for step in STEPS {
            let chunk = format!("\n```{}\n{}\n```\n", step.fence, step.code);
            let text = log.exchange(Write::Append, &chunk, 1);
            // The last request and its reply.
            let reply = &text[text.rfind("> **agent** to ").unwrap_or(0)..];
            for want in step.want {
                assert!(
                    reply.contains(want),
                    "{}, {}: the reply lacks {want:?}:\n{reply}",
                    log.stem,
                    step.what
                );
            }
        }
    }
}
