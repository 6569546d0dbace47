//! Moving a large log's history out of the way, so a write costs what the
//! active tail costs (docs/log-format.md, "History files").
//!
//! When a log grows past [`ROTATE_AT`], the text between its head (title,
//! intro, earlier history links) and the engine's horizon is moved, byte
//! for byte, into `debug/archive/<stem>-history-<n>.md`, and a link line
//! to it goes into the head. Pure text rules here; the file side is in
//! [`super::log_file`].

#[cfg(test)]
use daebug_core::engine::template::head_end;
use daebug_core::engine::template::HISTORY_LINK_START as LINK_START;

/// A log larger than this (bytes) has its history moved on its next write.
pub const ROTATE_AT: usize = 4 << 20;
/// Less history than this (bytes) is not worth a file of its own.
pub const MIN_HISTORY: usize = 1 << 20;

/// The link line to a history file (`rel` relative to the log), without
/// a line ending.
pub fn link_line(rel: &str, bytes: usize, clock: &str) -> String {
    format!(
        "{LINK_START}[{rel}]({rel}) ({}, moved at {clock})",
        size(bytes)
    )
}

/// `12.3 MB`, `512 KB`.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / (1 << 20) as f64)
    } else {
        format!("{} KB", bytes.div_ceil(1 << 10))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use daebug_core::engine::template::{title, INTRO};

    #[test]
    fn the_head_is_title_intro_links_and_blanks() {
        let stem = "shop-3f2a";
        let head = format!("{}\n{INTRO}\n\n", title(stem));
        let body = "> **agent** to shop-3f2a at 10:00:00\n```js\n1\n```\n";
        let text = format!("{head}{body}");
        assert_eq!(head_end(&text, stem), (head.len(), head.len() - 1));
        let linked = format!(
            "{}\n{INTRO}\n{}\n\n{body}",
            title(stem),
            link_line("archive/shop-3f2a-history-1.md", 5 << 20, "10:00:00")
        );
        let (end, lines) = head_end(&linked, stem);
        assert_eq!(&linked[end..], body);
        assert_eq!(&linked[lines..end], "\n");
        // A log whose head an agent edited ends its head there.
        assert_eq!(head_end("prose\n", stem), (0, 0));
    }

    #[test]
    fn link_lines_say_where_and_how_much() {
        assert_eq!(
            link_line("archive/s-history-2.md", 104_857_600, "10:00:05"),
            "> Earlier history of this log: [archive/s-history-2.md](archive/s-history-2.md) (100.0 MB, moved at 10:00:05)"
        );
        assert_eq!(size(1000), "1 KB");
    }
}
