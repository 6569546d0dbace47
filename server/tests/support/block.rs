//! Reading the block back out of prepared code (shared by test crates).

/// The block's own (rewritten) text inside the prepared code of a job: its
/// last copy (the one run without `with`), before the closing `return`.
pub fn block(code: &str) -> &str {
    let end = code.rfind("\n}\n;return ").unwrap_or(code.len());
    let opening = code[..end].rfind("\n} else {").map_or(0, |i| i + 1);
    let start = code[opening..end]
        .find('\n')
        .map_or(end, |i| opening + i + 1);
    &code[start..end]
}
