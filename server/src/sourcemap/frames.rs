//! Stack lines as the engines write them (the frame grammar is shared with
//! the adapter: `daebug_protocol::stack`), read and rewritten without IO:
//! the frames of daebug itself dropped ([`clean`]), the page scripts a
//! stack names ([`scripts`]), and frames moved to their original source
//! ([`map_frames`]), in V8's `at f (url:L:C)` and in SpiderMonkey's and
//! JavaScriptCore's `f@url:L:C`.
//!
//! The frame shapes, as Chromium writes them (seen in `tests/tests/stacks.rs`):
//!
//! ```text
//!     at Object.load (http://127.0.0.1:39135/dist/stats.js:11:11)
//!     at Object.load [as loadInline] (http://127.0.0.1:39135/dist/inline.js:11:11)
//!     at http://127.0.0.1:39135/daebug_adapter.js:99:30
//!     at handleError (http://127.0.0.1:39135/daebug_adapter.js:484:18)
//!     at __wbg_call_40b008ba32f73991 (http://127.0.0.1:39135/daebug_adapter.js:98:58)
//!     at http://127.0.0.1:39135/daebug_adapter_bg.wasm:wasm-function[810]:0x23117
//!     at eval (eval at run (http://h/daebug_adapter.js:120:9), <anonymous>:3:7)
//!     at async Promise.all (index 0)
//! ```

use std::borrow::Cow;

use daebug_protocol::stack::Frame;

/// `stack` without daebug's frames, in any engine's syntax (see
/// [`daebug_protocol::stack::clean`]).
pub fn clean(stack: &str) -> Cow<'_, str> {
    daebug_protocol::stack::clean(stack)
}

/// The http(s) scripts `stack`'s frames run in (daebug's own left out),
/// each once, in order.
pub fn scripts(stack: &str) -> Vec<&str> {
    let mut urls: Vec<&str> = Vec::new();
    for line in stack.split('\n') {
        let Some(frame) = Frame::parse(line) else {
            continue;
        };
        if frame.is_daebug() {
            continue;
        }
        if let Some((url, _, _)) = frame.script_position() {
            if !urls.contains(&url) {
                urls.push(url);
            }
        }
    }
    urls
}

/// Where a generated position came from: the source as shown, its 1-based
/// line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Original<'a> {
    pub source: &'a str,
    pub line: u32,
    pub column: u32,
}

/// `stack` with each frame of an http(s) script that `lookup(url, line,
/// column)` (1-based, as V8 writes them) knows rewritten to its original
/// place: `at load (http://h/dist/stats.js:11:11)` → `at load
/// (src/stats.ts:22:11)`. Other lines stay as they are.
pub fn map_frames<'s, 'm>(
    stack: &'s str,
    mut lookup: impl FnMut(&str, u32, u32) -> Option<Original<'m>>,
) -> Cow<'s, str> {
    if !stack.contains("http") {
        return Cow::Borrowed(stack);
    }
    let mut out: Option<String> = None;
    for (i, line) in stack.split('\n').enumerate() {
        let mapped = Frame::parse(line).and_then(|frame| {
            let (url, l, c) = frame.script_position()?;
            let original = lookup(url, l, c)?;
            let place = frame.place();
            let place_end = frame.location_range().1;
            let place_start = place_end - place.len();
            Some(format!(
                "{}{}:{}:{}{}",
                &line[..place_start],
                original.source,
                original.line,
                original.column,
                &line[place_end..]
            ))
        });
        match (&mut out, mapped) {
            (None, None) => {}
            (None, Some(m)) => {
                // The first mapped line: copy the lines before it.
                let before: usize = stack.split('\n').take(i).map(|l| l.len() + 1).sum();
                let mut s = String::with_capacity(stack.len());
                s.push_str(&stack[..before]);
                s.push_str(&m);
                out = Some(s);
            }
            (Some(s), m) => {
                s.push('\n');
                s.push_str(m.as_deref().unwrap_or(line));
            }
        }
    }
    match out {
        Some(s) => Cow::Owned(s),
        None => Cow::Borrowed(stack),
    }
}

/// Before each frame of the code that made a request, on its line
/// (docs/log-format.md, "Initiators"): the loader writes the frames as the
/// engine did (`⟵ at saveAction (http://h/dist/todo.js:3:10)`), the hub
/// shows them mapped and short (`⟵ saveAction (src/todo/api.js:40)`).
pub const INITIATOR: &str = " ⟵ ";

/// The initiator frames written inline in `text`, as byte ranges.
fn initiator_frames(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find(INITIATOR) {
        let start = from + i + INITIATOR.len();
        match frame_end(&text[start..]) {
            Some(n) => {
                out.push((start, start + n));
                from = start + n;
            }
            None => from = start,
        }
    }
    out
}

/// Where a frame written inline ends: after its first `:line:column` (and
/// the `)` closing it) that a space, a newline or the text's end follows.
fn frame_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    for i in 0..b.len() {
        match b[i] {
            b'\n' => return None,
            b':' => {
                let j = digits(i + 1);
                if j == i + 1 || b.get(j) != Some(&b':') {
                    continue;
                }
                let k = digits(j + 1);
                if k == j + 1 {
                    continue;
                }
                let end = k + usize::from(b.get(k) == Some(&b')'));
                if matches!(b.get(end), None | Some(b' ' | b'\n')) {
                    return Some(end);
                }
            }
            _ => {}
        }
    }
    None
}

/// The initiator frames in `text` as a stack, one frame a line (`None`:
/// there are none), for the source maps they need.
pub fn initiator_stack(text: &str) -> Option<String> {
    let frames = initiator_frames(text);
    if frames.is_empty() {
        return None;
    }
    let lines: Vec<String> = frames
        .iter()
        .map(|&(a, b)| format!("    {}", &text[a..b]))
        .collect();
    Some(lines.join("\n"))
}

/// `text` with each initiator frame passed through `map` (a one-frame
/// stack in, as [`map_frames`] and the cells' mapping give it back) and
/// shown short: `at Object.save (src/api.js:40:5)` → `Object.save
/// (src/api.js:40)`, `at <cell>:2:1` → `<cell>:2`. A frame `map` drops
/// goes with its arrow.
pub fn map_initiators(text: &str, mut map: impl FnMut(&str) -> String) -> Cow<'_, str> {
    let frames = initiator_frames(text);
    if frames.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (a, b) in frames {
        let mapped = map(&format!("    {}", &text[a..b]));
        let arrow = a - INITIATOR.len();
        out.push_str(&text[at..arrow]);
        if let Some(frame) = Frame::parse(mapped.trim_end()) {
            let place = frame.place();
            let place = match place.rsplit_once(':') {
                Some((head, col))
                    if head.rsplit_once(':').is_some_and(|(_, l)| {
                        !l.is_empty() && l.bytes().all(|c| c.is_ascii_digit())
                    }) && col.bytes().all(|c| c.is_ascii_digit()) =>
                {
                    head
                }
                _ => place,
            };
            out.push_str(INITIATOR);
            // A block's unnamed function takes the name of what the
            // prepared code assigns it to (`$daebug$result`): none shown.
            match frame.name().filter(|n| !n.contains("$daebug$")) {
                Some(name) => out.push_str(&format!("{name} ({place})")),
                None => out.push_str(place),
            }
        }
        at = b;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initiators_are_read_inline_and_shown_short() {
        let line = "PATCH http://h/api/todos/6 {\"completed\":true} → 404 Not Found (3 ms) \
⟵ at saveAction (http://h/dist/todo.js:3:10) ⟵ at toggle (http://h/dist/todo.js:6:10) \
⟵ at <cell>:1:7 [body](archive/p-1.txt)";
        assert_eq!(
            initiator_stack(line).as_deref(),
            Some("    at saveAction (http://h/dist/todo.js:3:10)\n    at toggle (http://h/dist/todo.js:6:10)\n    at <cell>:1:7")
        );
        let mapped = map_initiators(line, |f| {
            map_frames(f, |_, l, c| {
                Some(Original {
                    source: if l == 3 {
                        "src/todo/api.js"
                    } else {
                        "src/todo/item.jsx"
                    },
                    line: l + 37,
                    column: c,
                })
            })
            .into_owned()
        });
        assert_eq!(
            mapped,
            "PATCH http://h/api/todos/6 {\"completed\":true} → 404 Not Found (3 ms) \
⟵ saveAction (src/todo/api.js:40) ⟵ toggle (src/todo/item.jsx:43) ⟵ <cell>:1 [body](archive/p-1.txt)"
        );
        // SpiderMonkey's and JavaScriptCore's syntax; a frame dropped.
        let line = "GET http://h/x → 200 OK (1 ms) ⟵ save@http://h/a.js:1:2 ⟵ @http://h/a.js:9:1\nGET http://h/y → pending";
        let mapped = map_initiators(line, |f| match f.contains(":9:") {
            true => String::new(),
            false => f.to_string(),
        });
        assert_eq!(
            mapped,
            "GET http://h/x → 200 OK (1 ms) ⟵ save (http://h/a.js:1)\nGET http://h/y → pending"
        );
        // A name the prepared block gave goes.
        assert_eq!(
            map_initiators("x ⟵ at $daebug$result (<cell>:3:9)", |f| f.into()),
            "x ⟵ <cell>:3"
        );
        // Text with no frame after its arrow stays.
        assert!(matches!(
            map_initiators("a ⟵ b", |f| f.into()),
            Cow::Borrowed(_)
        ));
    }

    /// Stacks as Chromium wrote them in the e2e test `print_shapes`.
    const NESTED: &str = "Error: in f
    at Object.f (<cell>:1:59)
    at <cell>:1:82
    at http://127.0.0.1:39135/daebug_adapter.js:99:30
    at handleError (http://127.0.0.1:39135/daebug_adapter.js:484:18)
    at __wbg_call_40b008ba32f73991 (http://127.0.0.1:39135/daebug_adapter.js:98:58)
    at http://127.0.0.1:39135/daebug_adapter_bg.wasm:wasm-function[810]:0x23117
    at http://127.0.0.1:39135/daebug_adapter_bg.wasm:wasm-function[434]:0x1d802";

    #[test]
    fn daebug_frames_are_dropped() {
        let cases = [
            (NESTED, "Error: in f\n    at Object.f (<cell>:1:59)\n    at <cell>:1:82"),
            // A value's text: the error sits inside brackets, indented.
            (
                "[\n  Error: nested\n    at <cell>:1:2\n    at http://h:1/daebug_adapter.js:99:30\n    at http://h:1/daebug_adapter_bg.wasm:wasm-function[88]:0x6e0f\n]",
                "[\n  Error: nested\n    at <cell>:1:2\n]",
            ),
            // The loader, an older wasm frame shape, and a page's own wasm.
            (
                "E\n    at start (http://h/daebug.js?v=3:4:1)\n    at wasm://wasm/0012abcd:wasm-function[55]:0x1234\n    at app (http://h/app.js:1:1)\n    at wasm://wasm/99:wasm-function[1]:0x1",
                "E\n    at app (http://h/app.js:1:1)\n    at wasm://wasm/99:wasm-function[1]:0x1",
            ),
            // Evaluated code the glue created is the block's, kept.
            (
                "E\n    at eval (eval at run (http://h/daebug_adapter.js:120:9), <anonymous>:3:7)",
                "E\n    at eval (eval at run (http://h/daebug_adapter.js:120:9), <anonymous>:3:7)",
            ),
            // A message naming the adapter is not a frame.
            ("Error: daebug_adapter.js failed\n    at f (http://h/app.js:1:1)", "Error: daebug_adapter.js failed\n    at f (http://h/app.js:1:1)"),
            ("Error: plain\n    at f (http://h/app.js:1:1)", "Error: plain\n    at f (http://h/app.js:1:1)"),
        ];
        for (stack, want) in cases {
            assert_eq!(clean(stack), want, "{stack}");
        }
    }

    #[test]
    fn scripts_are_the_page_frames_urls() {
        let stack = "Error: x
    at Object.load (http://127.0.0.1:1/dist/stats.js:11:11)
    at Object.load [as loadInline] (http://127.0.0.1:1/dist/inline.js:11:11)
    at g (http://127.0.0.1:1/dist/stats.js:2:1)
    at async Promise.all (index 0)
    at <cell>:1:7
    at http://127.0.0.1:1/daebug_adapter.js:99:30
    at eval (eval at run (http://h/app.js:1:9), <anonymous>:3:7)
    at https://cdn/x.js:1:2";
        assert_eq!(
            scripts(stack),
            [
                "http://127.0.0.1:1/dist/stats.js",
                "http://127.0.0.1:1/dist/inline.js",
                "https://cdn/x.js"
            ]
        );
        assert!(scripts("Error: y\n    at <cell>:1:1").is_empty());
        // Firefox: code an `eval` made is no script to fetch a map for.
        let stack = "load@http://127.0.0.1:1/dist/stats.js:11:11
@http://127.0.0.1:1/app.js line 5 > eval:1:3
real@http://127.0.0.1:1/daebug_adapter.js:656:20
@<cell>:1:7";
        assert_eq!(scripts(stack), ["http://127.0.0.1:1/dist/stats.js"]);
    }

    #[test]
    fn frames_with_a_known_map_move_to_the_original() {
        let lookup = |url: &str, line: u32, column: u32| match (url, line, column) {
            ("http://h/dist/stats.js", 11, 11) => Some(Original {
                source: "src/stats.ts",
                line: 22,
                column: 11,
            }),
            _ => None,
        };
        let cases = [
            (
                "Error: no values\n    at Object.load (http://h/dist/stats.js:11:11)\n    at <cell>:1:7",
                "Error: no values\n    at Object.load (src/stats.ts:22:11)\n    at <cell>:1:7",
            ),
            ("E\n    at http://h/dist/stats.js:11:11", "E\n    at src/stats.ts:22:11"),
            (
                "E\n    at async load [as l] (http://h/dist/stats.js:11:11)",
                "E\n    at async load [as l] (src/stats.ts:22:11)",
            ),
            // SpiderMonkey's and JavaScriptCore's syntax.
            (
                "load@http://h/dist/stats.js:11:11\n@<cell>:1:7",
                "load@src/stats.ts:22:11\n@<cell>:1:7",
            ),
            (
                "async*load@http://h/dist/stats.js:11:11",
                "async*load@src/stats.ts:22:11",
            ),
            // Unknown positions and scripts stay.
            ("E\n    at f (http://h/dist/stats.js:3:1)", "E\n    at f (http://h/dist/stats.js:3:1)"),
            ("E\n    at f (http://h/other.js:11:11)", "E\n    at f (http://h/other.js:11:11)"),
            ("no frames at all", "no frames at all"),
        ];
        for (stack, want) in cases {
            assert_eq!(map_frames(stack, lookup), want, "{stack}");
        }
    }
}
