//! Stacks as the agent should read them: the adapter's own frames (its
//! JavaScript glue and its WebAssembly) folded away, so what is left is
//! the evaluated code and the page code it called. Every engine's syntax
//! (V8's `    at f (url:L:C)`, SpiderMonkey's and JavaScriptCore's
//! `f@url:L:C`): the grammar is `daebug_protocol::stack`, which the hub
//! cleans with too.

use daebug_protocol::stack::{clean, Frame};
use daebug_protocol::text;

/// `stack` without the adapter's frames. Lines that are not frames (the
/// first line `Name: message`) and frames of evaluated code
/// (`<anonymous>`, even when V8 names the glue that created them) are
/// kept. Frames of blocks run from a blob script (WebKit pages) get their
/// cell's name back.
pub fn fold(stack: &str) -> String {
    named(&clean(stack))
}

/// Blob URLs of blocks' scripts → their cells' names (see
/// `script_cell`; natively there are none).
fn named(stack: &str) -> String {
    #[cfg(target_arch = "wasm32")]
    return crate::script_cell::name_cells(stack);
    #[cfg(not(target_arch = "wasm32"))]
    return stack.to_string();
}

/// The frames of a stack made inside a wrapper of ours (`console.trace`'s),
/// without the message line V8 puts first and the wrapper's own frame,
/// folded; `None` when nothing is left.
pub fn caller_frames(stack: &str) -> Option<String> {
    let frames: Vec<&str> = stack
        .lines()
        .filter(|l| Frame::parse(l).is_some())
        .skip(1)
        .collect();
    let folded = fold(&text::join(&frames, "\n"));
    (!folded.trim().is_empty()).then_some(folded)
}

#[cfg(test)]
mod tests {
    use super::{caller_frames, fold};

    #[test]
    fn adapter_frames_are_folded_away() {
        let stack = "TypeError: x is undefined
    at eval (eval at run (http://127.0.0.1:8302/daebug_adapter.js:120:9), <anonymous>:3:7)
    at http://127.0.0.1:8302/daebug_adapter.js:300:20
    at daebug_adapter.wasm.run (wasm://wasm/0012abcd:wasm-function[55]:0x1234)
    at __wbg_call_123 (http://127.0.0.1:8302/daebug_adapter.js:40:5)
    at load (http://localhost:5173/app.js:10:3)";
        assert_eq!(
            fold(stack),
            "TypeError: x is undefined
    at eval (eval at run (http://127.0.0.1:8302/daebug_adapter.js:120:9), <anonymous>:3:7)
    at load (http://localhost:5173/app.js:10:3)"
        );
    }

    /// Firefox ESR 153 and WebKitGTK 2.50: a block's error, as thrown
    /// from the block's first synchronous part.
    #[test]
    fn adapter_frames_are_folded_away_in_firefox_and_webkit() {
        let firefox = "thrower@daebug-cell-17:11:28
anonymous@daebug-cell-17:12:143
__wbg_get_imports/__wbg_call_40b008ba32f73991/<@http://127.0.0.1:8411/daebug_adapter.js:115:30
handleError@http://127.0.0.1:8411/daebug_adapter.js:634:18
@http://127.0.0.1:8411/daebug_adapter_bg.wasm:wasm-function[1042]:0x2e581
wasm_bindgen__convert__closures_____invoke__h2a3099ec6d2740d7@http://127.0.0.1:8411/daebug_adapter.js:574:22
real@http://127.0.0.1:8411/daebug_adapter.js:656:20
";
        assert_eq!(
            fold(firefox),
            "thrower@daebug-cell-17:11:28\nanonymous@daebug-cell-17:12:143\n"
        );
        let webkit = "thrower@
anonymous@
@http://127.0.0.1:8411/daebug_adapter.js:115:34
handleError@http://127.0.0.1:8411/daebug_adapter.js:634:23
1042@<?>:wasm-function[1042]
real@http://127.0.0.1:8411/daebug_adapter.js:656:21";
        assert_eq!(fold(webkit), "thrower@\nanonymous@");
    }

    #[test]
    fn a_message_mentioning_the_adapter_is_kept() {
        let stack = "Error: daebug_adapter.js failed\n    at f (http://h/app.js:1:1)";
        assert_eq!(fold(stack), stack);
    }

    #[test]
    fn a_traces_caller_is_what_follows_the_wrapper() {
        let cases = [
            (
                "Error\n    at console.trace (http://h/daebug.js:9:40)\n    at go (daebug-cell-3:4:9)\n    at http://h/daebug_adapter.js:115:30",
                Some("    at go (daebug-cell-3:4:9)"),
            ),
            (
                "trace@http://h/daebug.js:9:40\ngo@daebug-cell-3:4:9\nreal@http://h/daebug_adapter.js:656:20\n",
                Some("go@daebug-cell-3:4:9"),
            ),
            ("trace@http://h/daebug.js:9:40\n", None),
        ];
        for (stack, want) in cases {
            assert_eq!(caller_frames(stack).as_deref(), want, "{stack}");
        }
    }
}
