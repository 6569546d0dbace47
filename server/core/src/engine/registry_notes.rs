//! Blocks written into the registry (`debug.md`) do not run there: the
//! hub keeps what the agent added below its own part and answers each
//! executable block with a one-line note naming the page logs
//! (docs/log-format.md, "The registry"). Pure: text in, text out.

use std::time::Duration;

use super::time::Millis;

use super::markdown::{blocks, exec_info, Block};
use super::text::lines_from;

/// How long an emptied registry is taken for someone's save in progress
/// (an editor's truncate comes before its write), as a log's is.
pub const SETTLE: Duration = Duration::from_millis(500);

/// The registry as the hub knows it: what it last read or wrote, its own
/// part of that, and the agent's part (answered). The file side
/// (`hub/registry_file.rs`) reads it under a write lease, so a text given
/// here is never someone's write half done.
#[derive(Debug, Default)]
pub struct RegistryText {
    /// The text last read or written.
    seen: String,
    /// The hub's part of `seen`.
    hub: String,
    /// What the agent wrote below the hub's part, with its notes.
    agent: String,
    /// The file was found empty then: a save in progress, for a while.
    empty_since: Option<Millis>,
}

/// What to do with the registry file after a read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistryNext {
    /// Write this (it may equal what was read: nothing to do).
    Write(String),
    /// Leave the file alone until then, and read it again.
    Wait(Millis),
}

impl RegistryText {
    /// The file holds `text`; the hub's part should now be `hub`;
    /// `answer` notes each block of the agent's part
    /// ([`answer_blocks`]). Whatever the agent added since the last read
    /// or write is kept.
    pub fn handle_read(
        &mut self,
        text: &str,
        hub: &str,
        answer: impl Fn(&str) -> String,
        now: Millis,
    ) -> RegistryNext {
        if text != self.seen {
            if text.is_empty() && !self.seen.is_empty() {
                let since = *self.empty_since.get_or_insert(now);
                if now < since + SETTLE {
                    return RegistryNext::Wait(since + SETTLE);
                }
            }
            let part = agent_part(&self.hub, &self.seen, text).unwrap_or_default();
            self.agent = answer(&part);
            self.seen = text.to_string();
        }
        self.empty_since = None;
        RegistryNext::Write(format!("{hub}{}", self.agent))
    }

    /// `text`, whose hub part is `hub`, is what the file holds now.
    pub fn handle_written(&mut self, hub: &str, text: String) {
        self.hub = hub.to_string();
        self.seen = text;
    }
}

/// The start of every note the hub writes under a block in `debug.md`.
pub const NOTE_START: &str = "> **daebug** at ";

/// What the agent added to the registry: the text after the hub's part
/// `hub` when the file still starts with it (an append), else from the
/// first line where the file and `written` (the hub's last write) part
/// (a whole-file save from an older read). `None` when there is nothing.
pub fn agent_part(hub: &str, written: &str, now: &str) -> Option<String> {
    if now == written {
        return None;
    }
    // Before the hub's first write (`hub` empty: a hub starting on the
    // file an earlier hub left) the file's leading hub lines are the
    // earlier hub's, not the agent's.
    let appended = (!hub.is_empty()).then(|| now.strip_prefix(hub)).flatten();
    let tail = match appended {
        Some(tail) => tail,
        None => {
            // The old read's registry lines (a state, a time since
            // changed) differ too: they are the hub's, not the agent's.
            let same = now
                .split_inclusive('\n')
                .zip(written.split_inclusive('\n'))
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a.len())
                .sum::<usize>();
            let rest = &now[same.min(hub.len())..];
            let hubs = rest
                .split_inclusive('\n')
                .take_while(|l| is_hub_line(l))
                .map(str::len)
                .sum::<usize>();
            &rest[hubs..]
        }
    };
    (!tail.trim().is_empty()).then(|| tail.to_string())
}

/// Whether a line is one the registry's hub part can hold (see
/// `registry::render` and `earlier::section`), or blank.
fn is_hub_line(line: &str) -> bool {
    let l = line.trim_end();
    l.is_empty()
        || [
            "# 👾 daebug",
            "> Master registry",
            "> The hub stopped",
            "No pages",
            "* [",
            "* … and ",
            "Earlier logs: ",
        ]
        .iter()
        .any(|p| l.starts_with(p))
}

/// `part` with a note under each executable block that has none yet:
/// `> **daebug** at 10:00:05: blocks do not run in debug.md; append this
/// one at the bottom of a page's log: [shop-3f2a](debug/shop-3f2a.md)`.
pub fn answer_blocks(part: &str, stems: &[&str], clock: &str) -> String {
    let logs = match stems.is_empty() {
        true => "none is connected yet; load daebug.js in a page".to_string(),
        false => stems
            .iter()
            .map(|s| format!("[{s}](debug/{s}.md)"))
            .collect::<Vec<_>>()
            .join(", "),
    };
    let note = format!(
        "{NOTE_START}{clock}: blocks do not run in debug.md; append this one at the bottom of a page's log: {logs}\n"
    );
    let mut out = String::with_capacity(part.len());
    let mut from = 0;
    for block in blocks(part, 0) {
        let Block::Fence(f) = block else { continue };
        if !f.closed || exec_info(f.info).is_none() {
            continue;
        }
        let answered = lines_from(part, f.next)
            .find(|l| !l.is_blank())
            .is_some_and(|l| l.text.starts_with(NOTE_START));
        if answered {
            continue;
        }
        out.push_str(&part[from..f.next]);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&note);
        from = f.next;
    }
    out.push_str(&part[from..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const HUB: &str = "# daebug\n\n* [shop-3f2a](debug/shop-3f2a.md)\n";

    /// A hub starting on the registry an earlier hub left: the earlier
    /// hub's part is not the agent's (a restart wrote the old list again
    /// under the new one); what the agent wrote below it is.
    #[test]
    fn a_restart_keeps_the_agents_part_only() {
        let old_hub = "# 👾 daebug — connected pages\n> Master registry of connected pages and states.\n\n\
                       > The hub stopped at 08:53:14. Start it again with `daebug --root .`; open pages reconnect by themselves.\n\n\
                       * [shop-3f2a](debug/shop-3f2a.md) (http://localhost:5173/) · state: idle\n\
                       Earlier logs: [cart-1b2c](debug/cart-1b2c.md)\n";
        assert_eq!(agent_part("", "", old_hub), None);
        let agents = "\nmy notes\n```js\n1+1\n```\n";
        assert_eq!(
            agent_part("", "", &format!("{old_hub}{agents}")).as_deref(),
            Some(agents.trim_start_matches('\n'))
        );
        let empty = "# 👾 daebug — connected pages\n\nNo pages connected yet. Load the adapter in a page: `<script src=\"x\"></script>`\n";
        assert_eq!(agent_part("", "", empty), None);
    }

    #[test]
    fn what_the_agent_added() {
        let written = format!("{HUB}\nkept note\n");
        assert_eq!(agent_part(HUB, &written, &written), None);
        let appended = format!("{written}```js\n1\n```\n");
        assert_eq!(
            agent_part(HUB, &written, &appended).as_deref(),
            Some("\nkept note\n```js\n1\n```\n")
        );
        // A save from an older read: the hub's part differs (a realm came
        // since); what follows the first differing line is the agent's.
        let stale = "# daebug\n\nmy block:\n```js\n2\n```\n";
        assert_eq!(
            agent_part(HUB, &written, stale).as_deref(),
            Some("my block:\n```js\n2\n```\n")
        );
        assert_eq!(agent_part(HUB, &written, HUB), None, "emptied tail");
        // A save from a read of the registry as the hub wrote it then:
        // its old lines (no page yet, another state) are not the agent's.
        let old = "# 👾 daebug — connected pages\n> Master registry of connected pages.\n\nNo pages connected yet. Load the adapter in a page: `<script>`\n";
        let now = format!("{old}\n```js\n3\n```\n");
        let hub = "# 👾 daebug — connected pages\n> Master registry of connected pages.\n\n* [shop-3f2a](debug/shop-3f2a.md) state: idle\n";
        assert_eq!(
            agent_part(hub, hub, &now).as_deref(),
            Some("```js\n3\n```\n")
        );
    }

    fn write(next: RegistryNext) -> String {
        match next {
            RegistryNext::Write(text) => text,
            other => panic!("{other:?}"),
        }
    }

    /// The registry's text through reads and writes: the agent's part is
    /// kept through the hub's rewrites; an emptied file waits [`SETTLE`]
    /// (a save in progress), then is written afresh.
    #[test]
    fn the_agents_part_survives_the_hubs_rewrites() {
        let t0 = Millis(1_000);
        let note = |part: &str| answer_blocks(part, &["shop-3f2a"], "10:00:05");
        let mut reg = RegistryText::default();
        let first = write(reg.handle_read("", HUB, note, t0));
        assert_eq!(first, HUB);
        reg.handle_written(HUB, first.clone());
        // The agent appends a block; a realm comes meanwhile.
        let hub2 =
            "# daebug\n\n* [shop-3f2a](debug/shop-3f2a.md)\n* [cart-1b2c](debug/cart-1b2c.md)\n";
        let saved = format!("{first}\n```js\n1\n```\n");
        let next = write(reg.handle_read(&saved, hub2, note, t0));
        assert!(
            next.starts_with(hub2) && next.contains("```js\n1\n```\n\n> **daebug** at 10:00:05"),
            "{next}"
        );
        reg.handle_written(hub2, next.clone());
        // An editor's truncate, read before its write: wait, then again.
        let soon = t0 + Duration::from_millis(100);
        assert_eq!(
            reg.handle_read("", hub2, note, soon),
            RegistryNext::Wait(soon + SETTLE)
        );
        let later = soon + Duration::from_millis(200);
        assert_eq!(
            reg.handle_read("", hub2, note, later),
            RegistryNext::Wait(soon + SETTLE)
        );
        // The write came: its text (the block and a second one) is kept.
        let saved = format!("{next}\n```js\n2\n```\n");
        let after = write(reg.handle_read(&saved, hub2, note, later));
        assert_eq!(after.matches("> **daebug** at").count(), 2, "{after}");
        assert!(after.contains("```js\n2\n```"), "{after}");
        reg.handle_written(hub2, after.clone());
        // A rewrite of the hub's part keeps it all; nothing new to answer.
        let again = write(reg.handle_read(&after, HUB, note, later));
        assert_eq!(again, format!("{HUB}{}", &after[hub2.len()..]));
        // Emptied for good: the hub's part alone, after the wait.
        reg.handle_written(HUB, again);
        let gone = later + Duration::from_millis(10);
        assert!(matches!(
            reg.handle_read("", HUB, note, gone),
            RegistryNext::Wait(_)
        ));
        assert_eq!(write(reg.handle_read("", HUB, note, gone + SETTLE)), HUB);
    }

    #[test]
    fn each_block_gets_one_note() {
        let part = "\n```js\n1+1\n```\ntext\n```text\nnot code\n```\n";
        let once = answer_blocks(part, &["shop-3f2a", "crunch-1b2c"], "10:00:05");
        assert_eq!(
            once,
            "\n```js\n1+1\n```\n\n> **daebug** at 10:00:05: blocks do not run in debug.md; append this one at the bottom of a page's log: [shop-3f2a](debug/shop-3f2a.md), [crunch-1b2c](debug/crunch-1b2c.md)\ntext\n```text\nnot code\n```\n"
        );
        assert_eq!(answer_blocks(&once, &["shop-3f2a"], "10:00:09"), once);
        let none = answer_blocks("```ts\nx\n```", &[], "10:00:05");
        assert!(
            none.ends_with("none is connected yet; load daebug.js in a page\n"),
            "{none}"
        );
    }
}
