//! Stacks as the agent should read them: the adapter's own frames (its
//! JavaScript glue and its WebAssembly) folded away, so what is left is
//! the evaluated code and the page code it called.

/// `stack` without the adapter's frames. The first line (`Name: message`)
/// and frames of evaluated code (`<anonymous>`, even when Chrome names the
/// glue that created them) are kept.
pub fn fold(stack: &str) -> String {
    stack
        .lines()
        .filter(|line| {
            let frame = line.trim_start().starts_with("at ");
            let evaluated = line.contains("<anonymous>");
            let ours = line.contains("daebug_adapter")
                || line.contains("daebug.js")
                || line.contains("wasm://")
                || line.contains("__wbg_");
            !(frame && ours && !evaluated)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::fold;

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

    #[test]
    fn a_message_mentioning_the_adapter_is_kept() {
        let stack = "Error: daebug_adapter.js failed\n    at f (http://h/app.js:1:1)";
        assert_eq!(fold(stack), stack);
    }
}
