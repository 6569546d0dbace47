//! Stack text as the three engines write it, read the same way by the
//! adapter (which folds its own frames away before sending) and the hub
//! (which cleans every stack again, maps cells and source maps). Pure.
//!
//! Two frame syntaxes (real stacks in the tests below, captured from
//! Chromium 156, Firefox ESR 153 and WebKitGTK 2.50):
//!
//! ```text
//!     at thrower (daebug-cell-17:11:28)                          V8
//!     at http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[1042]:0x2e581
//! thrower@daebug-cell-17:11:28                                   SpiderMonkey
//! @http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[1042]:0x2e581
//! real@http://127.0.0.1:8411/daebug_adapter.js:656:20
//! thrower@                                                       JavaScriptCore
//! 1042@<?>:wasm-function[1042]
//! ```

use crate::text;
use std::borrow::Cow;

/// One frame line, split: `{indent}at {name} ({location})`,
/// `{indent}at {location}` (V8) or `{indent}{name}@{location}`
/// (SpiderMonkey, JavaScriptCore; the name may be empty, and so may
/// JavaScriptCore's location).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    name: Option<&'a str>,
    /// Where the location starts and ends in the line (bytes).
    location: (usize, usize),
    line: &'a str,
}

impl<'a> Frame<'a> {
    // Slices by `get`, not indexing: no slicing panic in the adapter's
    // .wasm (see crate::text).
    /// The frame a line is, if it is one (a message line is not).
    pub fn parse(line: &'a str) -> Option<Frame<'a>> {
        Self::parse_v8(line).or_else(|| Self::parse_at(line))
    }

    fn parse_v8(line: &'a str) -> Option<Frame<'a>> {
        let body_at = line.len() - line.trim_start().len();
        let body = line.get(body_at..)?.strip_prefix("at ")?;
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
                        let name = inner.get(..i).unwrap_or_default().trim_end();
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

    /// `name@location`, only when the location has a frame's shape, so a
    /// message with an `@` in it (`Error: mail a@b failed`) is no frame.
    fn parse_at(line: &'a str) -> Option<Frame<'a>> {
        let body_at = line.len() - line.trim_start().len();
        let rest = line.get(body_at..)?;
        let at = body_at + rest.find('@')?;
        let name = rest.get(..at - body_at)?;
        // No engine writes `: ` in a function name; messages do.
        if text::contains(name, ": ") || name.starts_with("at ") {
            return None;
        }
        let start = at + 1;
        let location = line.get(start..)?.trim_end();
        if !is_location(location) {
            return None;
        }
        Some(Frame {
            name: (!name.is_empty()).then_some(name),
            location: (start, start + location.len()),
            line,
        })
    }

    /// The function's name as the engine wrote it (`Object.load [as l]`,
    /// `async*thrower`, `anonymous/<`), if any.
    pub fn name(&self) -> Option<&'a str> {
        self.name
    }

    /// The line the frame was read from.
    pub fn line(&self) -> &'a str {
        self.line
    }

    /// Where the location sits in the line (byte range).
    pub fn location_range(&self) -> (usize, usize) {
        self.location
    }

    pub fn location(&self) -> &'a str {
        self.line
            .get(self.location.0..self.location.1)
            .unwrap_or_default()
    }

    /// Where the code runs: for a V8 eval frame (`eval at f (…),
    /// <anonymous>:3:7`) the part after the eval's origin.
    pub fn place(&self) -> &'a str {
        let location = self.location();
        match location.starts_with("eval at ") {
            true => text::rsplit_once(location, ", ").map_or(location, |(_, p)| p),
            false => location,
        }
    }

    /// A frame of daebug's own code: its loader, its glue (also code the
    /// glue made with `eval` or `Function`, as SpiderMonkey names it:
    /// `…/daebug_adapter.js line 9 > Function:1:5`), its wasm, the
    /// wasm-bindgen wrappers.
    pub fn is_daebug(&self) -> bool {
        let place = self.place();
        let url = place.split(['?', '#']).next().unwrap_or(place);
        text::contains(url, "daebug_adapter")
            || url.ends_with("/daebug-panel.mjs")
            || text::contains(url, "/daebug-panel.mjs:")
            || url.ends_with("/daebug.js")
            || text::contains(url, "/daebug.js:")
            || text::contains(url, "/daebug-node.mjs:")
            || text::contains(url, "/daebug.js line ")
            || self
                .name
                .is_some_and(|n| text::contains(n, "__wbg_") || text::contains(n, "__wbindgen"))
    }

    /// A wasm frame with no module URL (V8's
    /// `wasm://wasm/1a2b:wasm-function[5]:0x12`, JavaScriptCore's
    /// `5@<?>:wasm-function[5]`): whose it is shows only from its
    /// neighbours.
    pub fn is_anonymous_wasm(&self) -> bool {
        let place = self.place();
        place.starts_with("wasm://") || place.starts_with("<?>:wasm-function[")
    }

    /// `(url, line, column)` of a frame in an http(s) script (not code an
    /// `eval` in it made, which SpiderMonkey names `url line 5 > eval`).
    pub fn script_position(&self) -> Option<(&'a str, u32, u32)> {
        let place = self.place();
        if !(place.starts_with("http://") || place.starts_with("https://")) {
            return None;
        }
        let (rest, col) = place.rsplit_once(':')?;
        let (url, line) = rest.rsplit_once(':')?;
        if url.contains(' ') {
            return None;
        }
        Some((url, line.parse().ok()?, col.parse().ok()?))
    }
}

/// What follows `@` in a frame, the whole of it: nothing (JavaScriptCore's
/// code without a source URL), `[native code]`, a wasm function
/// (`<?>:wasm-function[5]`, `url:wasm-function[5]:0x1a`), or a place
/// ending in `:line:column`. Anchored at the end, so a string in a value
/// that merely contains a stack is no frame.
fn is_location(location: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let wasm_function = |s: &str| {
        text::rsplit_once(s, "wasm-function[")
            .and_then(|(_, n)| n.strip_suffix(']'))
            .is_some_and(digits)
    };
    if location.is_empty() || location == "[native code]" || wasm_function(location) {
        return true;
    }
    if let Some((head, offset)) = text::rsplit_once(location, ":0x") {
        if offset.bytes().all(|b| b.is_ascii_hexdigit()) && wasm_function(head) {
            return true;
        }
    }
    let mut parts = location.rsplitn(3, ':');
    let line_col = parts.next().is_some_and(digits) && parts.next().is_some_and(digits);
    line_col && parts.next().is_some_and(|p| !p.is_empty())
}

/// `stack` without daebug's frames, in any engine's syntax. Lines that
/// are not frames (the message, a value's text around an error) stay; a
/// wasm frame with no URL of its own goes when it follows one of daebug's.
pub fn clean(stack: &str) -> Cow<'_, str> {
    let marked = ["daebug", "__wbg_", "__wbindgen"];
    if !marked.iter().any(|m| text::contains(stack, m)) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `thrower()` inside a block, its stack read synchronously (so the
    /// glue that called the block is on it), as each engine wrote it.
    const CHROMIUM: &str = "Error: boom
    at thrower (daebug-cell-1795470449726000:11:28)
    at eval (daebug-cell-1795470449726000:12:143)
    at http://127.0.0.1:8411/daebug_adapter.js:115:30
    at handleError (http://127.0.0.1:8411/daebug_adapter.js:634:18)
    at __wbg_call_40b008ba32f73991 (http://127.0.0.1:8411/daebug_adapter.js:114:58)
    at http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[1042]:0x2e581
    at http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[549]:0x271fb
    at http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[108]:0x49e1
    at http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[214]:0x1a016
    at http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[472]:0x252db";
    const FIREFOX: &str = "thrower@daebug-cell-1795470455738000:11:28
anonymous@daebug-cell-1795470455738000:12:143
__wbg_get_imports/__wbg_call_40b008ba32f73991/<@http://127.0.0.1:8411/daebug_adapter.js:115:30
handleError@http://127.0.0.1:8411/daebug_adapter.js:634:18
__wbg_call_40b008ba32f73991@http://127.0.0.1:8411/daebug_adapter.js:114:58
@http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[1042]:0x2e581
@http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[549]:0x271fb
@http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[108]:0x49e1
@http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[214]:0x1a016
@http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[472]:0x252db
@http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[1116]:0x2ecfc
@http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[929]:0x2d5b7
wasm_bindgen__convert__closures_____invoke__h2a3099ec6d2740d7@http://127.0.0.1:8411/daebug_adapter.js:574:22
real@http://127.0.0.1:8411/daebug_adapter.js:656:20
";
    const WEBKIT: &str = "thrower@
anonymous@
anonymous@
@http://127.0.0.1:8411/daebug_adapter.js:115:34
handleError@http://127.0.0.1:8411/daebug_adapter.js:634:23
1042@<?>:wasm-function[1042]
549@<?>:wasm-function[549]
108@<?>:wasm-function[108]
214@<?>:wasm-function[214]
472@<?>:wasm-function[472]
1116@<?>:wasm-function[1116]
929@<?>:wasm-function[929]
wasm_bindgen__convert__closures_____invoke__h2a3099ec6d2740d7@http://127.0.0.1:8411/daebug_adapter.js:574:83
real@http://127.0.0.1:8411/daebug_adapter.js:656:21";

    #[test]
    fn daebug_frames_go_in_every_engine() {
        let cases = [
            (
                CHROMIUM,
                "Error: boom
    at thrower (daebug-cell-1795470449726000:11:28)
    at eval (daebug-cell-1795470449726000:12:143)",
            ),
            (
                FIREFOX,
                "thrower@daebug-cell-1795470455738000:11:28
anonymous@daebug-cell-1795470455738000:12:143
",
            ),
            (WEBKIT, "thrower@\nanonymous@\nanonymous@"),
            // A value's text: the error sits inside braces, after a key.
            (
                "{\n  e: Error: nested\nanonymous@<cell>:6:16\nhandleError@http://h:1/daebug_adapter.js:634:18\n@http://h:1/daebug_adapter_bg.wasm:wasm-function[1042]:0x2e581\n}",
                "{\n  e: Error: nested\nanonymous@<cell>:6:16\n}",
            ),
            // The loader; code the glue made with `Function` (Firefox); a
            // page's own wasm after a page frame stays.
            (
                "start@http://h/daebug.js?v=3:4:1\ntrace@http://h/daebug_adapter.js line 9 > Function:1:50\napp@http://h/app.js:1:1\n7@<?>:wasm-function[7]",
                "app@http://h/app.js:1:1\n7@<?>:wasm-function[7]",
            ),
            // The panel module and the loader (its `person.js`) go; the
            // block's own frame stays.
            (
                "TypeError: no such field\n    at Object.ui (<cell>:1:63)\n    at render (http://h:1/daebug-panel.mjs:129:23)\n    at t.mount (http://h:1/daebug.js:460:24)",
                "TypeError: no such field\n    at Object.ui (<cell>:1:63)",
            ),
            // A Node process's loader (its toolkit and `person.js`) goes.
            (
                "Error: late\n    at t.mount (file:///srv/app/debug/daebug-node.mjs:512:9)\n    at run (file:///srv/app/server.js:3:1)",
                "Error: late\n    at run (file:///srv/app/server.js:3:1)",
            ),
            // Messages with an `@` or naming the adapter are not frames.
            (
                "Error: mail a@daebug.dev failed\nf@http://h/app.js:1:1",
                "Error: mail a@daebug.dev failed\nf@http://h/app.js:1:1",
            ),
            (
                "Error: daebug_adapter.js failed\n    at f (http://h/app.js:1:1)",
                "Error: daebug_adapter.js failed\n    at f (http://h/app.js:1:1)",
            ),
        ];
        for (stack, want) in cases {
            assert_eq!(clean(stack), want, "{stack}");
        }
    }

    #[test]
    fn frames_of_each_syntax_are_read() {
        /// A line, and its frame's name, place and script position.
        type Case<'a> = (
            &'a str,
            Option<&'a str>,
            &'a str,
            Option<(&'a str, u32, u32)>,
        );
        let cases: [Case; 9] = [
            (
                "    at f (http://h/a.js:3:4)",
                Some("f"),
                "http://h/a.js:3:4",
                Some(("http://h/a.js", 3, 4)),
            ),
            (
                "    at http://h/a.js:3:4",
                None,
                "http://h/a.js:3:4",
                Some(("http://h/a.js", 3, 4)),
            ),
            (
                "    at eval (eval at run (http://h/daebug_adapter.js:120:9), <anonymous>:3:7)",
                Some("eval"),
                "<anonymous>:3:7",
                None,
            ),
            (
                "load@http://h/dist/stats.js:11:11",
                Some("load"),
                "http://h/dist/stats.js:11:11",
                Some(("http://h/dist/stats.js", 11, 11)),
            ),
            (
                "async*load@http://h/a.js:1:2",
                Some("async*load"),
                "http://h/a.js:1:2",
                Some(("http://h/a.js", 1, 2)),
            ),
            (
                "@http://h/a.js line 5 > eval:1:3",
                None,
                "http://h/a.js line 5 > eval:1:3",
                None,
            ),
            (
                "global code@http://h/a.js:1:2",
                Some("global code"),
                "http://h/a.js:1:2",
                Some(("http://h/a.js", 1, 2)),
            ),
            (
                "forEach@[native code]",
                Some("forEach"),
                "[native code]",
                None,
            ),
            ("thrower@", Some("thrower"), "", None),
        ];
        for (line, name, place, position) in cases {
            let frame = Frame::parse(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(
                (frame.name(), frame.place(), frame.script_position()),
                (name, place, position),
                "{line}"
            );
        }
        for message in [
            "Error: boom",
            "TypeError: a@b",
            "  e: Error: nested",
            "\"a@b.c\"",
            "x@y:1",
            // A string in a value holding a whole stack (WebKit's, escaped).
            "  \"f@blob:http://h/1:11:37\\n1@<?>:wasm-function[1]\\nreal@http://h/daebug_adapter.js:6:2\",",
        ] {
            assert_eq!(Frame::parse(message), None, "{message}");
        }
    }
}
