//! Test support shared by every daebug test crate (the hub's unit and
//! integration tests, the end-to-end tests, the benchmarks): files written
//! the way agents' tools and editors write them, agent-like history, and a
//! deadline-bounded poll for what the hub writes.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// Appends `text`, as an edit tool that only appends does.
pub fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open log");
    f.write_all(text.as_bytes()).expect("append");
}

/// Writes the whole file again (truncate, then write), as most edit tools
/// save.
pub fn rewrite(path: &Path, text: &str) {
    std::fs::write(path, text).expect("rewrite");
}

/// Saves like an editor: a temp file in the same folder renamed over.
pub fn save_atomically(path: &Path, text: &str) {
    let tmp = path.with_file_name(format!(
        "{}.swp",
        path.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&tmp, text).expect("write temp");
    std::fs::rename(&tmp, path).expect("rename");
}

/// About `size` bytes of history an agent might have written: prose and
/// fenced output that is not JavaScript, so nothing in it runs.
pub fn agent_history(size: usize) -> String {
    let mut out = String::from("\n");
    let mut i = 0;
    while out.len() < size {
        let _ = write!(
            out,
            "Step {i}: looked at the cart totals again; nothing new.\n\n```text\ntotal={i} items={}\n```\n\n",
            i % 7
        );
        i += 1;
    }
    out
}

/// Polls `path` until `pred` holds, at most `within`; panics with the file
/// when the deadline passes.
pub fn wait_for_within(
    path: &Path,
    what: &str,
    within: Duration,
    pred: impl Fn(&str) -> bool,
) -> String {
    let end = Instant::now() + within;
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if pred(&text) {
            return text;
        }
        if Instant::now() > end {
            panic!(
                "timed out waiting for {what} in {}:\n{text}",
                path.display()
            );
        }
        // The poll interval of this deadline-bounded wait.
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_land_and_history_has_no_javascript() {
        let dir = std::env::temp_dir().join(format!("daebug-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.md");
        rewrite(&path, "a\n");
        append(&path, "b\n");
        save_atomically(&path, &(std::fs::read_to_string(&path).unwrap() + "c\n"));
        assert_eq!(
            wait_for_within(&path, "c", Duration::from_secs(1), |t| t.ends_with("c\n")),
            "a\nb\nc\n"
        );
        let h = agent_history(10_000);
        assert!(h.len() >= 10_000 && !h.contains("```js"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
