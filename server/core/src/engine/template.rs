//! The fixed lines the hub writes: a new log's head and the footer.

use daebug_protocol::RealmKind;

/// The append anchor: the last line of an idle log, at most one per file.
pub const FOOTER: &str = "> Write code in a fenced JS block below to execute against this page.";

/// The instructive line under a page's log's title.
pub const INTRO: &str = "> This file is a REPL presented as a chat between you and a live page. Add a fenced JavaScript block at the bottom and the connected page will run it; the result will be printed below. Please do not edit server-inserted replies or the append anchor.";
/// ... a worker's.
const WORKER_INTRO: &str = "> This file is a REPL presented as a chat between you and a live worker. Add a fenced JavaScript block at the bottom and the connected worker will run it; the result will be printed below. Please do not edit server-inserted replies or the append anchor.";
/// ... a Node process's.
const NODE_INTRO: &str = "> This file is a REPL presented as a chat between you and a live Node process. Add a fenced JavaScript block at the bottom and the connected process will run it; the result will be printed below. Please do not edit server-inserted replies or the append anchor.";

/// The instructive line under the title of a log of a realm of `kind`.
pub fn intro(kind: RealmKind) -> &'static str {
    match kind {
        RealmKind::Page => INTRO,
        RealmKind::Worker => WORKER_INTRO,
        RealmKind::Node => NODE_INTRO,
    }
}

/// Whether `line` is a log's instructive line, of any realm kind.
pub fn is_intro(line: &str) -> bool {
    [INTRO, WORKER_INTRO, NODE_INTRO].contains(&line)
}

/// The title line of a log.
pub fn title(stem: &str) -> String {
    format!("# 👾 {stem}")
}

/// The text of a new log for `stem`, a page's (LF endings).
pub fn new_log(stem: &str) -> String {
    new_log_of(stem, RealmKind::Page)
}

/// The text of a new log for `stem`, a realm of `kind` (LF endings).
pub fn new_log_of(stem: &str, kind: RealmKind) -> String {
    format!("{}\n{}\n\n{FOOTER}\n", title(stem), intro(kind))
}

/// The start of every history link line.
pub const HISTORY_LINK_START: &str = "> Earlier history of this log: ";

/// Where the head of a log ends and its body starts: after the title, the
/// intro and history link lines, and the blank lines after them. Also
/// returns where the last of those head lines ends (before the blanks).
pub fn head_end(text: &str, stem: &str) -> (usize, usize) {
    let (mut at, mut lines_end) = (0, 0);
    let title = title(stem);
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        let head_line = lines_end == at
            && (bare == title || is_intro(bare) || bare.starts_with(HISTORY_LINK_START));
        if head_line {
            lines_end = at + line.len();
        } else if !bare.trim().is_empty() || !line.ends_with('\n') {
            break;
        }
        at += line.len();
    }
    (at, lines_end)
}
