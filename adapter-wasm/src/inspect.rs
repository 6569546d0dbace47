//! How a completion value is written: JSON when it is plain JSON, else an
//! inspect-style text that is never `{}` (docs/log-format.md).
//!
//! Pure: the browser side walks a JavaScript value into a [`Node`] tree
//! (applying the depth, item and string limits, marking cycles, never
//! running getters); this module decides JSON or not and lays the tree
//! out, on one line when it fits in [`WIDTH`] columns, else indented by
//! two spaces per level.

use daebug_protocol::text;
use std::fmt::Write;

/// Columns a one-line rendering may take.
pub const WIDTH: usize = 80;

/// A JavaScript value as the walker saw it.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Undefined,
    Null,
    Bool(bool),
    Number(f64),
    /// Digits of a BigInt, without the `n`.
    BigInt(String),
    Str(String),
    /// A string cut by the string limit: the kept part and the cut length.
    LongStr(String, usize),
    /// `Symbol(desc)`.
    Symbol(String),
    /// `ƒ name(params)`, or `class Name`.
    Function {
        signature: String,
        class: bool,
    },
    /// `more`: items beyond the item limit.
    Array {
        items: Vec<Node>,
        more: usize,
    },
    /// A plain object (`ctor` `None` or `"Object"`) or a class instance.
    Object {
        ctor: Option<String>,
        entries: Vec<(String, Node)>,
        more: usize,
    },
    Map {
        entries: Vec<(Node, Node)>,
        size: usize,
    },
    Set {
        items: Vec<Node>,
        size: usize,
    },
    /// ISO text, or `None` for an invalid date.
    Date(Option<String>),
    /// `/source/flags`.
    RegExp(String),
    Error {
        name: String,
        message: String,
        stack: Option<String>,
        cause: Option<Box<Node>>,
    },
    /// A DOM element: `<tag#id.class> "text"`.
    Element {
        tag: String,
        id: String,
        classes: Vec<String>,
        text: String,
    },
    /// `NodeList`, `HTMLCollection`... with `len` items in all.
    Collection {
        kind: String,
        items: Vec<Node>,
        len: usize,
    },
    /// `Uint8Array(3) [1, 2, 3]`: numbers already as text.
    Typed {
        kind: String,
        items: Vec<String>,
        len: usize,
    },
    Promise(PromiseState),
    /// Marks the object a [`Node::Circular`] points back to.
    Ref(usize, Box<Node>),
    /// `[Circular *n]`.
    Circular(usize),
    /// An accessor property (its getter is not run).
    Getter,
    /// Beyond the depth limit: `[Object]`, `[Array]`, `[Point]`...
    Deep(String),
}

/// What a promise had settled to when it was looked at.
#[derive(Debug, Clone, PartialEq)]
pub enum PromiseState {
    Pending,
    Fulfilled(Box<Node>),
    Rejected(Box<Node>),
}

/// How a value is written into the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rendered {
    /// Plain JSON text.
    Json(String),
    /// Inspect-style text.
    Text(String),
}

/// JSON when the whole value is plain JSON, else inspect-style text.
pub fn render(node: &Node) -> Rendered {
    match json(node) {
        Some(j) => Rendered::Json(j),
        None => Rendered::Text(inspect(node)),
    }
}

/// The value as JSON, if it is plain JSON: `null`, booleans, finite
/// numbers other than `-0`, whole strings, arrays and plain objects of
/// those. Anything JSON would change or drop (`undefined`, `NaN`, a Map,
/// a cut string, a class instance) makes it `None`.
pub fn json(node: &Node) -> Option<String> {
    let mut s = String::new();
    write_json(node, &mut s).then_some(s)
}

fn write_json(node: &Node, s: &mut String) -> bool {
    match node {
        Node::Null => s.push_str("null"),
        Node::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
        Node::Number(n) if n.is_finite() && !(*n == 0.0 && n.is_sign_negative()) => {
            s.push_str(&number(*n))
        }
        Node::Str(t) => quote(t, s),
        Node::Array { items, more: 0 } => {
            s.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                if !write_json(item, s) {
                    return false;
                }
            }
            s.push(']');
        }
        Node::Object {
            ctor,
            entries,
            more: 0,
        } if ctor.as_deref().is_none_or(|c| c == "Object") => {
            s.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                quote(k, s);
                s.push(':');
                if !write_json(v, s) {
                    return false;
                }
            }
            s.push('}');
        }
        _ => return false,
    }
    true
}

/// A JSON string literal.
pub fn quote(t: &str, s: &mut String) {
    s.push('"');
    for c in t.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
}

/// A number as JavaScript prints it (for the values this module meets:
/// integers without `.0`, `-0`, `NaN`, `Infinity`).
fn number(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if n == 0.0 && n.is_sign_negative() {
        "-0".into()
    } else {
        finite(n)
    }
}

/// A finite number's shortest round-trip text. In the browser that is
/// JavaScript's own `Number.prototype.toString` (exactly what a console
/// prints, and it keeps Rust's float formatting out of the `.wasm`).
#[cfg(target_arch = "wasm32")]
fn finite(n: f64) -> String {
    String::from(
        js_sys::Number::from(n)
            .to_string_with_radix(10)
            .unwrap_or_default(),
    )
}

/// Natively (tests), Rust's formatting, which agrees with JavaScript for
/// integers below 1e21 and plain decimals.
#[cfg(not(target_arch = "wasm32"))]
fn finite(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e21 {
        format!("{}", n as i64 as i128)
    } else {
        format!("{n}")
    }
}

/// Whether every character of `k` is alphanumeric (`char::is_alphanumeric`:
/// Unicode's Alphabetic property or a number), `_` or `$`. In the browser
/// JavaScript's own Unicode property escapes say so: Rust's tables for
/// them are about 2 KB of the `.wasm` (DESIGN §13's budget).
#[cfg(target_arch = "wasm32")]
fn word(k: &str) -> bool {
    js_sys::RegExp::new("^[\\p{Alphabetic}\\p{N}_$]+$", "u").test(k)
}

/// Natively (tests), Rust's tables.
#[cfg(not(target_arch = "wasm32"))]
fn word(k: &str) -> bool {
    k.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// The inspect-style text of a value.
pub fn inspect(node: &Node) -> String {
    let mut s = String::new();
    write_node(node, 0, &mut s);
    s
}

/// A container's parts before layout: prefix, opening, items, closing.
struct Parts {
    prefix: String,
    open: &'static str,
    items: Vec<String>,
    close: &'static str,
    /// Objects are written `{ a: 1 }`; arrays, maps and sets `[1]`, `{1}`
    /// (as docs/log-format.md shows them).
    spaced: bool,
}

fn write_node(node: &Node, indent: usize, s: &mut String) {
    match node {
        Node::Undefined => s.push_str("undefined"),
        Node::Null => s.push_str("null"),
        Node::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
        Node::Number(n) => s.push_str(&number(*n)),
        Node::BigInt(d) => {
            s.push_str(d);
            s.push('n');
        }
        Node::Str(t) => quote(t, s),
        Node::LongStr(t, len) => {
            quote(t, s);
            let _ = write!(
                s,
                "... ({} more characters)",
                len.saturating_sub(text::chars(t))
            );
        }
        Node::Symbol(d) => {
            let _ = write!(s, "Symbol({d})");
        }
        Node::Function { signature, class } => {
            s.push_str(if *class { "class " } else { "ƒ " });
            s.push_str(signature);
        }
        Node::Date(iso) => match iso {
            Some(t) => {
                let _ = write!(s, "Date({t})");
            }
            None => s.push_str("Invalid Date"),
        },
        Node::RegExp(r) => s.push_str(r),
        Node::Error {
            name,
            message,
            stack,
            cause,
        } => {
            match stack {
                Some(st) if text::contains(st, message) => s.push_str(st.trim_end()),
                Some(st) => {
                    let _ = write!(s, "{name}: {message}\n{}", st.trim_end());
                }
                None => {
                    let _ = write!(s, "{name}: {message}");
                }
            }
            if let Some(c) = cause {
                s.push_str(" { [cause]: ");
                write_node(c, indent, s);
                s.push_str(" }");
            }
        }
        Node::Element {
            tag,
            id,
            classes,
            text,
        } => element(tag, id, classes, text, s),
        Node::Promise(state) => {
            let inner = match state {
                PromiseState::Pending => "<pending>".to_string(),
                PromiseState::Fulfilled(v) => child(v, indent + 1),
                PromiseState::Rejected(v) => format!("<rejected> {}", child(v, indent + 1)),
            };
            let _ = write!(s, "Promise {{ {inner} }}");
        }
        Node::Ref(n, inner) => {
            let _ = write!(s, "<ref *{n}> ");
            write_node(inner, indent, s);
        }
        Node::Circular(n) => {
            let _ = write!(s, "[Circular *{n}]");
        }
        Node::Getter => s.push_str("[Getter]"),
        Node::Deep(kind) => {
            let _ = write!(s, "[{kind}]");
        }
        Node::Array { .. }
        | Node::Object { .. }
        | Node::Map { .. }
        | Node::Set { .. }
        | Node::Collection { .. }
        | Node::Typed { .. } => layout(&parts(node, indent), indent, s),
    }
}

fn child(node: &Node, indent: usize) -> String {
    let mut s = String::new();
    write_node(node, indent, &mut s);
    s
}

fn more(n: usize) -> String {
    format!("... {n} more item{}", if n == 1 { "" } else { "s" })
}

/// An object key as JavaScript would need it written: bare when it is
/// letters, digits, `_` and `$` (not starting with a digit), quoted
/// otherwise.
fn key(k: &str) -> String {
    let ident = !k.is_empty()
        && !k.starts_with(|c: char| c.is_ascii_digit())
        && match k.is_ascii() {
            true => k
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$'),
            false => word(k),
        };
    if ident {
        k.to_string()
    } else {
        let mut s = String::new();
        quote(k, &mut s);
        s
    }
}

impl Parts {
    /// `shown` items of `total`, with a `... N more items` note for the
    /// rest, between `brackets`.
    fn new(prefix: String, brackets: &'static str, mut items: Vec<String>, total: usize) -> Parts {
        if total > items.len() {
            items.push(more(total - items.len()));
        }
        // `get`, not indexing: no slicing panic in the .wasm (see daebug_protocol::text).
        let (open, close) = brackets
            .split_at_checked(brackets.len() / 2)
            .unwrap_or((brackets, ""));
        Parts {
            prefix,
            open,
            items,
            close,
            spaced: false,
        }
    }
}

fn parts(node: &Node, indent: usize) -> Parts {
    let inner = indent + 1;
    let list = |items: &[Node]| -> Vec<String> { items.iter().map(|i| child(i, inner)).collect() };
    match node {
        Node::Array { items, more: m } => {
            Parts::new(String::new(), "[]", list(items), items.len() + m)
        }
        Node::Object {
            ctor,
            entries,
            more: m,
        } => {
            let items = entries
                .iter()
                .map(|(k, v)| format!("{}: {}", key(k), child(v, inner)))
                .collect();
            let prefix = match ctor.as_deref() {
                None | Some("Object") => String::new(),
                Some(c) => format!("{c} "),
            };
            Parts {
                spaced: true,
                ..Parts::new(prefix, "{}", items, entries.len() + m)
            }
        }
        Node::Map { entries, size } => {
            let items = entries
                .iter()
                .map(|(k, v)| format!("{} => {}", child(k, inner), child(v, inner)))
                .collect();
            Parts::new(format!("Map({size}) "), "{}", items, *size)
        }
        Node::Set { items, size } => Parts::new(format!("Set({size}) "), "{}", list(items), *size),
        Node::Collection { kind, items, len } => {
            Parts::new(format!("{kind}({len}) "), "[]", list(items), *len)
        }
        Node::Typed { kind, items, len } => {
            Parts::new(format!("{kind}({len}) "), "[]", items.clone(), *len)
        }
        _ => Parts::new(String::new(), "", vec![child(node, indent)], 1),
    }
}

/// One line when it fits (and no item spans lines), else one item a line.
fn layout(p: &Parts, indent: usize, s: &mut String) {
    s.push_str(&p.prefix);
    if p.items.is_empty() {
        s.push_str(p.open);
        s.push_str(p.close);
        return;
    }
    let one = match p.spaced {
        true => format!("{} {} {}", p.open, text::join(&p.items, ", "), p.close),
        false => format!("{}{}{}", p.open, text::join(&p.items, ", "), p.close),
    };
    let fits =
        indent * 2 + text::chars(&p.prefix) + text::chars(&one) <= WIDTH && !one.contains('\n');
    if fits {
        s.push_str(&one);
        return;
    }
    let pad = "  ".repeat(indent + 1);
    s.push_str(p.open);
    s.push('\n');
    for (i, item) in p.items.iter().enumerate() {
        s.push_str(&pad);
        s.push_str(item);
        if i + 1 < p.items.len() {
            s.push(',');
        }
        s.push('\n');
    }
    s.push_str(&"  ".repeat(indent));
    s.push_str(p.close);
}

fn element(tag: &str, id: &str, classes: &[String], text: &str, s: &mut String) {
    let _ = write!(s, "<{}", tag.to_ascii_lowercase());
    if !id.is_empty() {
        let _ = write!(s, "#{id}");
    }
    for c in classes.iter().filter(|c| !c.is_empty()) {
        let _ = write!(s, ".{c}");
    }
    s.push('>');
    let text: String = text::join(&text.split_whitespace().collect::<Vec<_>>(), " ");
    if !text.is_empty() {
        const MAX: usize = 40;
        let cut: String = text.chars().take(MAX).collect();
        s.push(' ');
        if text::chars(&text) > MAX {
            quote(&format!("{cut}…"), s);
        } else {
            quote(&cut, s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(v: f64) -> Node {
        Node::Number(v)
    }
    fn st(t: &str) -> Node {
        Node::Str(t.into())
    }
    fn obj(ctor: Option<&str>, entries: &[(&str, Node)]) -> Node {
        Node::Object {
            ctor: ctor.map(Into::into),
            entries: entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            more: 0,
        }
    }
    fn arr(items: &[Node]) -> Node {
        Node::Array {
            items: items.to_vec(),
            more: 0,
        }
    }

    /// The table of docs/log-format.md, plus edge cases.
    #[test]
    fn values() {
        let text = |node: Node, want: &str| {
            assert_eq!(render(&node), Rendered::Text(want.into()), "{node:?}")
        };
        let json = |node: Node, want: &str| {
            assert_eq!(render(&node), Rendered::Json(want.into()), "{node:?}")
        };
        json(n(2.0), "2");
        json(n(0.5), "0.5");
        json(st("Shop"), "\"Shop\"");
        json(Node::Null, "null");
        json(Node::Bool(true), "true");
        json(
            obj(None, &[("a", n(1.0)), ("b", arr(&[st("x"), Node::Null]))]),
            r#"{"a":1,"b":["x",null]}"#,
        );
        text(Node::Undefined, "undefined");
        text(Node::BigInt("12".into()), "12n");
        text(n(f64::NAN), "NaN");
        text(n(-0.0), "-0");
        text(n(f64::INFINITY), "Infinity");
        text(
            Node::Map {
                entries: vec![(st("a"), n(1.0)), (st("b"), n(2.0))],
                size: 2,
            },
            r#"Map(2) {"a" => 1, "b" => 2}"#,
        );
        text(
            Node::Set {
                items: vec![n(1.0)],
                size: 1,
            },
            "Set(1) {1}",
        );
        text(
            Node::Function {
                signature: "load(url)".into(),
                class: false,
            },
            "ƒ load(url)",
        );
        text(
            Node::Function {
                signature: "Point".into(),
                class: true,
            },
            "class Point",
        );
        text(
            Node::Date(Some("2026-11-22T10:00:00.000Z".into())),
            "Date(2026-11-22T10:00:00.000Z)",
        );
        text(Node::Date(None), "Invalid Date");
        text(Node::RegExp("/a+b/gi".into()), "/a+b/gi");
        text(
            Node::Element {
                tag: "BUTTON".into(),
                id: "save".into(),
                classes: vec!["btn".into()],
                text: "  Save \n".into(),
            },
            r#"<button#save.btn> "Save""#,
        );
        let li = Node::Element {
            tag: "LI".into(),
            id: String::new(),
            classes: vec![],
            text: String::new(),
        };
        text(
            Node::Collection {
                kind: "NodeList".into(),
                items: vec![li.clone(), li.clone(), li],
                len: 3,
            },
            "NodeList(3) [<li>, <li>, <li>]",
        );
        text(
            Node::Ref(
                1,
                Box::new(obj(None, &[("name", st("a")), ("self", Node::Circular(1))])),
            ),
            r#"<ref *1> { name: "a", self: [Circular *1] }"#,
        );
        text(
            obj(Some("Point"), &[("x", n(1.0)), ("y", n(2.0))]),
            "Point { x: 1, y: 2 }",
        );
        text(obj(Some("Empty"), &[]), "Empty {}");
        text(obj(None, &[("a", Node::Undefined)]), "{ a: undefined }");
        text(
            obj(None, &[("size", Node::Getter), ("odd key", n(1.0))]),
            r#"{ size: [Getter], "odd key": 1 }"#,
        );
        text(
            Node::Typed {
                kind: "Uint8Array".into(),
                items: vec!["1".into(), "2".into(), "3".into()],
                len: 3,
            },
            "Uint8Array(3) [1, 2, 3]",
        );
        text(
            Node::Promise(PromiseState::Pending),
            "Promise { <pending> }",
        );
        text(
            Node::Promise(PromiseState::Fulfilled(Box::new(n(42.0)))),
            "Promise { 42 }",
        );
        text(Node::Symbol("id".into()), "Symbol(id)");
        text(
            Node::LongStr("abc".into(), 10),
            r#""abc"... (7 more characters)"#,
        );
        text(
            Node::Array {
                items: vec![n(1.0)],
                more: 99,
            },
            "[1, ... 99 more items]",
        );
        text(arr(&[n(1.0), Node::Deep("Object".into())]), "[1, [Object]]");
    }

    #[test]
    fn errors_show_their_stack_and_cause() {
        let root = Node::Error {
            name: "Error".into(),
            message: "root".into(),
            stack: None,
            cause: None,
        };
        let e = Node::Error {
            name: "TypeError".into(),
            message: "boom".into(),
            stack: Some("TypeError: boom\n    at <cell>:1:7\n".into()),
            cause: Some(Box::new(root)),
        };
        assert_eq!(
            inspect(&e),
            "TypeError: boom\n    at <cell>:1:7 { [cause]: Error: root }"
        );
    }

    #[test]
    fn long_containers_break_into_indented_lines() {
        let long = obj(
            None,
            &[
                ("first", st(&"x".repeat(40))),
                ("second", st(&"y".repeat(40))),
                ("inner", obj(Some("Point"), &[("x", n(1.0))])),
            ],
        );
        let node = arr(&[long, Node::Undefined]);
        assert_eq!(
            inspect(&node),
            format!(
                "[\n  {{\n    first: \"{}\",\n    second: \"{}\",\n    inner: Point {{ x: 1 }}\n  }},\n  undefined\n]",
                "x".repeat(40),
                "y".repeat(40)
            )
        );
    }

    #[test]
    fn nothing_is_ever_rendered_as_an_empty_object_unless_it_is_one() {
        // A Map or class instance with no entries still says what it is.
        assert_eq!(
            inspect(&Node::Map {
                entries: vec![],
                size: 0
            }),
            "Map(0) {}"
        );
        assert_eq!(render(&obj(None, &[])), Rendered::Json("{}".into()));
        assert_eq!(
            render(&obj(Some("Widget"), &[])),
            Rendered::Text("Widget {}".into())
        );
    }

    #[test]
    fn json_refuses_what_json_would_change() {
        assert_eq!(json(&arr(&[Node::Undefined])), None);
        assert_eq!(json(&obj(None, &[("a", n(f64::NAN))])), None);
        assert_eq!(json(&Node::LongStr("a".into(), 9)), None);
        assert_eq!(
            json(&Node::Array {
                items: vec![],
                more: 1
            }),
            None
        );
        assert_eq!(json(&st("a\"b\n\u{1}")).unwrap(), r#""a\"b\n\u0001""#);
        assert_eq!(json(&n(1e21)).unwrap(), "1000000000000000000000");
    }
}
