//! Every value kind of docs/log-format.md, walked in a real page and
//! laid out: a table of JavaScript expressions and the text the log gets.
#![cfg(target_arch = "wasm32")]

use daebug_adapter::reply::Rendered;
use daebug_adapter::values::{show, WalkLimits};
use js_sys::Function;
use wasm_bindgen_test::*;

mod common;

wasm_bindgen_test_configure!(run_in_browser);

/// Evaluates `body` (a function body) in the page.
fn eval(body: &str) -> wasm_bindgen::JsValue {
    Function::new_no_args(body)
        .call0(&wasm_bindgen::JsValue::UNDEFINED)
        .expect("the case's code runs")
}

async fn shown(value: &wasm_bindgen::JsValue, limits: WalkLimits) -> Rendered {
    common::install_values();
    show(value, limits).await
}

async fn rendered(body: &str) -> Rendered {
    shown(&eval(body), WalkLimits::default()).await
}

/// Every case of a table of function bodies and what the log gets,
/// failing with all the cases that differ.
async fn check_table(cases: &[(&str, Rendered)]) {
    let mut failures = Vec::new();
    for (body, want) in cases {
        let got = rendered(body).await;
        if &got != want {
            failures.push(format!("{body}\n  want {want:?}\n  got  {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn json(s: &str) -> Rendered {
    Rendered::Json(s.into())
}

fn text(s: &str) -> Rendered {
    Rendered::Text(s.into())
}

#[wasm_bindgen_test]
async fn the_table() {
    let cases: &[(&str, Rendered)] = &[
        ("return 1 + 1", json("2")),
        ("return 'Shop'", json("\"Shop\"")),
        ("return {a: 1, b: [true, null, 'x']}", json(r#"{"a":1,"b":[true,null,"x"]}"#)),
        ("return {}", json("{}")),
        ("return undefined", text("undefined")),
        ("return 12n", text("12n")),
        ("return NaN", text("NaN")),
        ("return -0", text("-0")),
        ("return -Infinity", text("-Infinity")),
        ("return Symbol('id')", text("Symbol(id)")),
        (
            "return new Map([['a', 1], ['b', 2]])",
            text(r#"Map(2) {"a" => 1, "b" => 2}"#),
        ),
        ("return new Set([1])", text("Set(1) {1}")),
        ("return function load(url) { return url }", text("ƒ load(url)")),
        ("return async (a, b) => a + b", text("ƒ (anonymous)(a, b)")),
        ("return class Point {}", text("class Point")),
        (
            "return new Date(Date.UTC(2026, 10, 22, 10))",
            text("Date(2026-11-22T10:00:00.000Z)"),
        ),
        ("return new Date(NaN)", text("Invalid Date")),
        ("return /a+b/gi", text("/a+b/gi")),
        (
            "class Point { constructor() { this.x = 1; this.y = 2 } }; return new Point()",
            text("Point { x: 1, y: 2 }"),
        ),
        ("return new (class Widget {})()", text("Widget {}")),
        ("return Object.create(null)", json("{}")),
        ("return [1, undefined]", text("[1, undefined]")),
        (
            "const a = {name: 'a'}; a.self = a; return a",
            text(r#"<ref *1> { name: "a", self: [Circular *1] }"#),
        ),
        ("return new Uint8Array([1, 2, 3])", text("Uint8Array(3) [1, 2, 3]")),
        (
            "const b = document.createElement('button'); b.id = 'save'; b.className = 'btn'; b.textContent = ' Save '; return b",
            text(r#"<button#save.btn> "Save""#),
        ),
        (
            "const ul = document.createElement('ul'); ul.innerHTML = '<li>a</li><li>b</li><li>c</li>'; return ul.querySelectorAll('li')",
            text(r#"NodeList(3) [<li> "a", <li> "b", <li> "c"]"#),
        ),
        ("return Promise.resolve(42)", text("Promise { 42 }")),
        ("return new Promise(() => {})", text("Promise { <pending> }")),
        (
            "return [[[[[1]]]]]",
            text("[[[[[Array]]]]]\n(cut at depth 4: depth=5 shows more)"),
        ),
    ];
    check_table(cases).await;
}

/// The layout's edges: a long container breaks into indented lines, a
/// stack stands for its message, JSON is only what JSON keeps.
#[wasm_bindgen_test]
async fn layout_and_json_edges() {
    let (x, y) = ("x".repeat(40), "y".repeat(40));
    let cases: &[(&str, Rendered)] = &[
        (
            "class Point { constructor() { this.x = 1 } }; return [{ first: 'x'.repeat(40), second: 'y'.repeat(40), inner: new Point() }, undefined]",
            text(&format!("[\n  {{\n    first: \"{x}\",\n    second: \"{y}\",\n    inner: Point {{ x: 1 }}\n  }},\n  undefined\n]")),
        ),
        (
            "const e = new TypeError('boom', { cause: new Error('root') }); e.stack = 'TypeError: boom\\n    at <cell>:1:7\\n'; Object.defineProperty(e.cause, 'stack', { value: undefined }); return e",
            text("TypeError: boom\n    at <cell>:1:7 { [cause]: Error: root }"),
        ),
        (
            "return { size: 1, 'odd key': 2, $_9: 3, '9a': 4, u: undefined }",
            text(r#"{ size: 1, "odd key": 2, $_9: 3, "9a": 4, u: undefined }"#),
        ),
        ("return new Map()", text("Map(0) {}")),
        ("return [undefined]", text("[undefined]")),
        ("return { a: NaN }", text("{ a: NaN }")),
        ("return 1e21", json("1e+21")),
        ("return 0.1 + 0.2", json("0.30000000000000004")),
        ("return 'a\"b\\n\\u0001'", json(r#""a\"b\n\u0001""#)),
        ("return [-0]", text("[-0]")),
        ("return new BigInt64Array([1n, -2n])", text("BigInt64Array(2) [1n, -2n]")),
        ("return Promise.reject(new Error('no')).catch(() => {}) && [Promise.reject(7)]", text("[Promise { <rejected> 7 }]")),
        ("return function (a,\n   b) {}", text("ƒ (anonymous)(a, b)")),
        ("return async x => x", text("ƒ (anonymous)(x)")),
        ("return { f() {} }", text("{ f: ƒ f() }")),
        ("return [1, , 3]", text("[1, undefined, 3]")),
    ];
    check_table(cases).await;
}

#[wasm_bindgen_test]
async fn getters_are_never_run() {
    let v = eval(
        "window.__calls = 0; return { get size() { window.__calls++; throw new Error('ran') }, ok: 1 }",
    );
    let got = shown(&v, WalkLimits::default()).await;
    assert_eq!(got, text("{ size: [Getter], ok: 1 }"));
    assert_eq!(eval("return window.__calls").as_f64(), Some(0.0));
}

#[wasm_bindgen_test]
async fn a_hostile_proxy_cannot_throw_into_the_walk() {
    let v = eval(
        "const h = { get() { throw new Error('trap') }, ownKeys() { throw new Error('trap') }, getOwnPropertyDescriptor() { throw new Error('trap') }, getPrototypeOf() { throw new Error('trap') } }; return new Proxy({}, h)",
    );
    let got = shown(&v, WalkLimits::default()).await;
    assert_eq!(got, text("[unreadable]"));
}

#[wasm_bindgen_test]
async fn limits_bound_the_work() {
    let limits = WalkLimits {
        depth: 4,
        items: 3,
        string: 5,
    };
    let got = shown(&eval("return [1, 2, 3, 4, 5]"), limits).await;
    assert_eq!(got, text("[1, 2, 3, ... 2 more items]"));
    let got = shown(&eval("return 'abcdefgh'"), limits).await;
    assert_eq!(got, text(r#""abcde"... (3 more characters)"#));
    let got = shown(&eval("return new Map([[1,1],[2,2],[3,3],[4,4]])"), limits).await;
    assert_eq!(
        got,
        text("Map(4) {1 => 1, 2 => 2, 3 => 3, ... 1 more item}")
    );
}

#[wasm_bindgen_test]
async fn errors_keep_their_cause() {
    let v = eval("return new Error('boom', { cause: new TypeError('root') })");
    match shown(&v, WalkLimits::default()).await {
        Rendered::Text(t) => {
            // A frame under the message, in this engine's syntax.
            let frame = t
                .strip_prefix("Error: boom\n")
                .and_then(|r| r.lines().next());
            assert!(
                frame.is_some_and(|f| daebug_protocol::stack::Frame::parse(f).is_some()),
                "{t}"
            );
            assert!(t.contains("{ [cause]: TypeError: root"), "{t}");
        }
        other => panic!("{other:?}"),
    }
}

#[wasm_bindgen_test]
async fn exotic_values_never_throw_run_page_code_or_run_away() {
    // A revoked proxy, alone and inside an array.
    let got = rendered("const p = Proxy.revocable({}, {}); p.revoke(); return [1, p.proxy]").await;
    assert!(
        matches!(got, Rendered::Text(ref t) if t.starts_with("[1, ")),
        "{got:?}"
    );
    // Getters on an error and a class's static name are not run.
    let got = rendered(
        "window.__ran = 0; class K { static get name() { window.__ran++; return 'X' } }; \
         const e = new Error('kept'); Object.defineProperty(e, 'cause', { get() { window.__ran++ } }); \
         return [new K(), e]",
    )
    .await;
    assert_eq!(eval("return window.__ran").as_f64(), Some(0.0), "{got:?}");
    // A huge string is cut inside JavaScript.
    let got = rendered("return 'x'.repeat(5e7)").await;
    assert!(
        matches!(got, Rendered::Text(ref t) if t.ends_with("... (49990000 more characters)")),
        "{:?}",
        match &got {
            Rendered::Text(t) | Rendered::Json(t) => &t[t.len().saturating_sub(60)..],
        }
    );
    // Many long strings: the walk copies about a million characters at most.
    let got = rendered("return Array.from({length: 300}, () => 'y'.repeat(10000))").await;
    match got {
        Rendered::Text(t) => assert!(t.len() < 1_100_000, "{}", t.len()),
        Rendered::Json(t) => panic!("cut strings are not JSON: {}", t.len()),
    }
    // A value too big to walk stops at the budget.
    let got = rendered(
        "const row = () => Array.from({length: 100}, (_, i) => i); \
         return Array.from({length: 100}, () => Array.from({length: 100}, row))",
    )
    .await;
    assert!(matches!(got, Rendered::Text(ref t) if t.contains("[…]")));
}

/// A job's limits (fence options `depth=N`, `full`): strings whole,
/// `depth=8` shows what the default depth cuts, `full` every item.
#[wasm_bindgen_test]
async fn job_limits_follow_the_fence_options() {
    let deep = "let o = { v: 'bottom' }; for (let i = 0; i < 7; i++) o = { n: o }; return o";
    let at = |depth, full| async move {
        match shown(&eval(deep), WalkLimits::job(depth, full)).await {
            Rendered::Json(t) | Rendered::Text(t) => t,
        }
    };
    let default = at(None, false).await;
    assert!(
        default.contains("[Object]") && !default.contains("bottom"),
        "{default}"
    );
    let eight = at(Some(8), false).await;
    assert!(
        eight.contains("bottom") && !eight.contains("[Object]"),
        "{eight}"
    );
    assert_eq!(at(None, true).await, eight);
    // Strings are whole in a job (the hub archives what is long).
    let long = eval("return 'x'.repeat(300000) + '\\u00e9\\u{1F600}'");
    match shown(&long, WalkLimits::job(None, false)).await {
        Rendered::Json(j) => {
            let back: String = serde_json::from_str(&j).unwrap();
            assert_eq!(back, format!("{}é\u{1F600}", "x".repeat(300_000)));
        }
        other => panic!("{other:?}"),
    }
    // `full` has no item limit; the default shows 100.
    let many = "return Array.from({ length: 250 }, (_, i) => i)";
    let all = shown(&eval(many), WalkLimits::job(None, true)).await;
    let want: Vec<String> = (0..250).map(|i| i.to_string()).collect();
    assert_eq!(all, Rendered::Json(format!("[{}]", want.join(","))));
    let cut = shown(&eval(many), WalkLimits::job(None, false)).await;
    assert!(
        matches!(&cut, Rendered::Text(t) if t.ends_with("... 150 more items\n]")),
        "{cut:?}"
    );
    // Still cycle-safe.
    let cyc = shown(
        &eval("const a = { name: 'a' }; a.self = a; return a"),
        WalkLimits::job(None, true),
    )
    .await;
    assert_eq!(cyc, text(r#"<ref *1> { name: "a", self: [Circular *1] }"#));
}

/// A key outside ASCII is bare exactly when Rust's `char::is_alphanumeric`
/// says each of its characters is a letter or number (the browser's
/// Unicode property escapes decide it in the `.wasm`, Rust's tables in
/// native builds).
#[wasm_bindgen_test]
async fn keys_outside_ascii_are_bare_as_rust_would_have_them() {
    let keys = [
        "é", "日本", "Ⅻ", "٣x", "½", "a-b", "ü$_", "x\u{301}", "😀", "\u{345}", "Ωmega",
    ];
    for k in keys {
        let bare = k
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$');
        let shown = match bare {
            true => k.to_string(),
            false => format!("\"{k}\""),
        };
        let body = format!("return {{ [{k:?}]: undefined }}");
        assert_eq!(
            rendered(&body).await,
            text(&format!("{{ {shown}: undefined }}")),
            "{k}"
        );
    }
}
