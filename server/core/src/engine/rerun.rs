//! `rerun`: a chunk that is just the line `rerun` runs again the blocks
//! the last failure skipped, in order (docs/log-format.md, "Several
//! blocks in one chunk"). The hub writes them into the chunk, under the
//! agent's line and a note saying what they are, so they run and are
//! answered as any block the agent appends; the agent's line stays.

use super::ledger::{Ledger, TakenState};
use super::tail::Chunk;
use super::text::lines_from;

/// The start of the note the hub writes under a `rerun` line.
const NOTE_START: &str = "(rerun: ";

/// Where the hub's text goes in a chunk that asks for a rerun (right after
/// its `rerun` line), and whether that line ends with a newline, when the
/// chunk holds nothing but that line (after its request header) and the
/// hub has not answered it yet.
pub fn asked(text: &str, c: &Chunk) -> Option<(usize, bool)> {
    if c.draft || !c.exec.is_empty() {
        return None;
    }
    let header = c.header.as_ref().map(|(_, at)| *at);
    let mut lines = lines_from(text, c.start)
        .take_while(|l| l.start < c.end)
        .filter(|l| Some(l.start) != header && !l.is_blank());
    let line = lines.next()?;
    if !line.text.trim().eq_ignore_ascii_case("rerun") || lines.next().is_some() {
        return None;
    }
    Some((line.next, line.terminated))
}

/// The blocks the last failure skipped: the last run of skipped blocks
/// the ledger holds, and the reply header of the block that failed. `None`
/// when there are none, or they were run again already (`done`: the first
/// one's seq, as [`Rerun::first`] gave it).
pub fn skipped(ledger: &Ledger, done: Option<u64>) -> Option<Rerun> {
    let list: Vec<_> = ledger.iter().collect();
    let last = list.iter().rposition(|t| t.state == TakenState::Skipped)?;
    let first = list[..=last]
        .iter()
        .rposition(|t| t.state != TakenState::Skipped)
        .map_or(0, |i| i + 1);
    if done == Some(list[first].seq) {
        return None;
    }
    let failed_at = first
        .checked_sub(1)
        .and_then(|i| list[i].header.rsplit_once(" at "))
        .map(|(_, at)| at.to_string());
    Some(Rerun {
        first: list[first].seq,
        blocks: list[first..=last]
            .iter()
            .map(|t| (t.opener.to_string(), t.code.to_string()))
            .collect(),
        failed_at,
    })
}

/// Blocks to run again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rerun {
    /// The first block's seq in the ledger (the same blocks run again only
    /// once).
    pub first: u64,
    /// Each block's opening fence line and code.
    pub blocks: Vec<(String, String)>,
    /// When the block that failed was answered (`HH:MM:SS`).
    pub failed_at: Option<String>,
}

impl Rerun {
    /// The text written under the `rerun` line (LF endings): the note,
    /// then each block, as it was written.
    pub fn text(&self) -> String {
        let n = self.blocks.len();
        let blocks = if n == 1 { "block" } else { "blocks" };
        let when = self
            .failed_at
            .as_deref()
            .map_or(String::new(), |at| format!(" at {at}"));
        let mut s = format!(
            "{NOTE_START}the {n} {blocks} the failure{when} skipped, run again in order)\n"
        );
        for (opener, code) in &self.blocks {
            let fence: String = opener
                .trim_start()
                .chars()
                .take_while(|c| *c == '`' || *c == '~')
                .collect();
            s.push('\n');
            s.push_str(opener.trim_start());
            s.push('\n');
            s.push_str(code);
            if !code.is_empty() && !code.ends_with('\n') {
                s.push('\n');
            }
            s.push_str(&fence);
            s.push('\n');
        }
        s
    }
}

/// The note under a `rerun` line when nothing was skipped (LF endings).
pub fn nothing() -> String {
    format!(
        "{NOTE_START}no block was skipped by a failure since the last rerun, so nothing runs)\n"
    )
}
