//! The fixed lines the hub writes: a new log's head and the footer.

/// The append anchor: the last line of an idle log, at most one per file.
pub const FOOTER: &str = "> Write code in a fenced JS block below to execute against this page.";

/// The instructive line under a log's title.
pub const INTRO: &str = "> This file is a REPL presented as a chat between you and a live page. Add a fenced JavaScript block at the bottom and the connected page will run it; the result will be printed below. Please do not edit server-inserted replies or the append anchor.";

/// The title line of a log.
pub fn title(stem: &str) -> String {
    format!("# 👾 {stem}")
}

/// The text of a new log for `stem` (LF endings).
pub fn new_log(stem: &str) -> String {
    format!("{}\n{INTRO}\n\n{FOOTER}\n", title(stem))
}
