//! Stack lines as V8 writes them, read and rewritten without IO: the
//! frames of daebug itself dropped ([`clean`]), the page scripts a stack
//! names ([`scripts`]), and frames moved to their original source
//! ([`map_frames`]).
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

/// One frame line, split: `{indent}at {name} ({location})` or
/// `{indent}at {location}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Frame<'a> {
    name: Option<&'a str>,
    /// Where the location starts and ends in the line (bytes).
    location: (usize, usize),
    line: &'a str,
}

impl<'a> Frame<'a> {
    fn parse(line: &'a str) -> Option<Frame<'a>> {
        let body_at = line.len() - line.trim_start().len();
        let body = line[body_at..].strip_prefix("at ")?;
        let start = line.len() - body.len();
        let body = body.trim_end();
        let end = start + body.len();
        if let Some(inner) = body.strip_suffix(')') {
            // The `(` that matches the last `)`: eval frames nest them.
            let mut depth = 0usize;
            for (i, c) in inner.char_indices().rev() {
                match c {
                    ')' => depth += 1,
                    '(' if depth == 0 => {
                        let name = inner[..i].trim_end();
                        if !name.is_empty() {
                            return Some(Frame {
                                name: Some(name),
                                location: (start + i + 1, end - 1),
                                line,
                            });
                        }
                        break;
                    }
                    '(' => depth -= 1,
                    _ => {}
                }
            }
        }
        Some(Frame {
            name: None,
            location: (start, end),
            line,
        })
    }

    fn location(&self) -> &'a str {
        &self.line[self.location.0..self.location.1]
    }

    /// Where the code runs: for an eval frame (`eval at f (…), <anonymous>:3:7`)
    /// the part after the eval's origin.
    fn place(&self) -> &'a str {
        let location = self.location();
        match location.starts_with("eval at ") {
            true => location.rsplit(", ").next().unwrap_or(location),
            false => location,
        }
    }

    /// A frame of daebug's own code: its loader, its glue, its wasm, the
    /// wasm-bindgen wrappers.
    fn is_daebug(&self) -> bool {
        let place = self.place();
        let url = place.split(['?', '#']).next().unwrap_or(place);
        url.contains("daebug_adapter")
            || url.ends_with("/daebug.js")
            || url.contains("/daebug.js:")
            || self
                .name
                .is_some_and(|n| n.contains("__wbg_") || n.contains("__wbindgen"))
    }

    /// A wasm frame with no module URL (`wasm://wasm/1a2b:wasm-function[5]:0x12`):
    /// whose it is shows only from its neighbours.
    fn is_anonymous_wasm(&self) -> bool {
        self.place().starts_with("wasm://")
    }

    /// `(url, line, column)` of a frame in an http(s) script.
    fn script_position(&self) -> Option<(&'a str, u32, u32)> {
        let place = self.place();
        if !(place.starts_with("http://") || place.starts_with("https://")) {
            return None;
        }
        let (rest, col) = place.rsplit_once(':')?;
        let (url, line) = rest.rsplit_once(':')?;
        Some((url, line.parse().ok()?, col.parse().ok()?))
    }
}

/// `stack` without daebug's frames. Lines that are not frames (the
/// message, a value's text around an error) stay; a `wasm://` frame with
/// no name of its own goes when it follows one of daebug's.
pub fn clean(stack: &str) -> Cow<'_, str> {
    let marked = ["daebug", "__wbg_", "__wbindgen"];
    if !marked.iter().any(|m| stack.contains(m)) {
        return Cow::Borrowed(stack);
    }
    let mut out = String::with_capacity(stack.len());
    let mut previous_ours = false;
    let mut first = true;
    for line in stack.split('\n') {
        if let Some(frame) = Frame::parse(line) {
            let ours = frame.is_daebug() || (previous_ours && frame.is_anonymous_wasm());
            previous_ours = ours;
            if ours {
                continue;
            }
        } else {
            previous_ours = false;
        }
        if !first {
            out.push('\n');
        }
        first = false;
        out.push_str(line);
    }
    Cow::Owned(out)
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
            let place_end = frame.location.1;
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

#[cfg(test)]
mod tests {
    use super::*;

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
