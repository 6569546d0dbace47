//! The blocks this engine has taken, and how a block in the file is known
//! to be one of them (docs/log-format.md, "Job identity").
//!
//! A job is the block it runs: its code, in its place among the blocks the
//! engine took. An agent's save may be based on a read older than the
//! hub's last write, so the text under a block may be missing, or be an
//! executing region that has since become a reply. The ledger lets the
//! engine recognise its blocks in such a text and put back what belongs
//! under them, so that no block it dispatched is dispatched again.

use std::collections::VecDeque;
use std::sync::Arc;

use super::input::JobId;
use super::survey::{Survey, SurveyedBlock};

/// How many taken blocks are remembered. A save based on a read older
/// than this many blocks can make the oldest run again.
pub const REMEMBERED_BLOCKS: usize = 128;

/// What became of a block the engine took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TakenState {
    /// Dispatched; its result has not come yet.
    Running,
    /// Its reply, as written under it (LF endings).
    Replied(Arc<str>),
    /// A block before it in its request failed; the note is under that one.
    Skipped,
    /// Above the footer when this engine first read the log (a stopped
    /// hub's history): known by its place, with nothing to put back.
    Found,
}

/// Where a taken block stands, as the engine last knew it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Its opening fence starts here (in the text being handled).
    At(usize),
    /// Before the text the engine is given: above the window the shell
    /// read (the text there is what the engine saw), or moved to a
    /// history file. It stands; it is never looked for.
    Above,
    /// A scan that covered its place did not find it (removed or edited).
    Gone,
}

impl Place {
    /// The position, when known.
    pub fn at(self) -> Option<usize> {
        match self {
            Place::At(p) => Some(p),
            Place::Above | Place::Gone => None,
        }
    }
}

/// One block the engine took. Its texts are shared (`Arc<str>`): the
/// shell snapshots the engine before every run, and a clone of a full
/// ledger then copies pointers, not 128 blocks' code and replies (which
/// made each input's cost grow with the jobs a log had run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    /// The job that ran it (none for a skipped block).
    pub job: Option<JobId>,
    /// The block's code (LF endings).
    pub code: Arc<str>,
    /// Its opening fence line, to check a remembered position.
    pub opener: Arc<str>,
    /// Where its opening fence starts, as last seen.
    pub place: Place,
    /// `> **stem** to agent at HH:MM:SS`: the first line of its executing
    /// region, and of its reply before the suffix (empty when skipped).
    pub header: Arc<str>,
    pub state: TakenState,
    /// Which block this is, for hub blocks written after it; set by the
    /// ledger when the block is added.
    pub seq: u64,
    /// A block another door sent (`engine/fan_out.rs`): the chunk the hub
    /// wrote for it (request header and block, LF endings). The hub wrote
    /// it, so a save that drops it gets it back, with its answer.
    pub chunk: Option<Arc<str>>,
    /// Its job was cancelled because a save removed the block (or its
    /// region), and the agent was told to append it again: a copy with
    /// nothing under it is new and runs; with this job's own region or
    /// reply under it (a save from an older read), it is this block, and
    /// does not run again.
    pub released: bool,
}

/// How many hub blocks written after replies (late results, background
/// events, notes) are remembered, to be put back when a save removes them.
pub const REMEMBERED_WRITES: usize = 64;

/// A hub block the engine wrote above the footer, after a taken block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubWrite {
    /// The block as written (LF endings).
    pub text: Arc<str>,
    /// The taken block it followed ([`Taken::seq`]).
    pub after: u64,
}

impl Taken {
    /// Whether `answer_header` (the first line of what the file has under
    /// the block) can be this block's region or reply.
    fn owns(&self, answer_header: &str) -> bool {
        match self.state {
            TakenState::Skipped | TakenState::Found => false,
            _ => {
                answer_header == &*self.header
                    || answer_header
                        .strip_prefix(&*self.header)
                        .is_some_and(|s| s.starts_with(" ("))
            }
        }
    }
}

/// The taken blocks, in the order they stand in the log.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    list: VecDeque<Taken>,
    /// Hub blocks written after the taken blocks, oldest first.
    writes: VecDeque<HubWrite>,
    next_seq: u64,
}

impl Ledger {
    /// Adds a block taken after every other.
    pub fn push(&mut self, mut taken: Taken) {
        taken.seq = self.seq();
        if self.list.len() == REMEMBERED_BLOCKS {
            self.list.pop_front();
        }
        self.list.push_back(taken);
    }

    fn seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    /// Remembers a hub block written (above the footer) after the last
    /// taken block. Without a taken block there is nothing to place it by.
    pub fn wrote(&mut self, text: String) {
        // A released block is not in the log (a save removed it): what
        // follows is placed after the block before it.
        let Some(after) = self.list.iter().rev().find(|t| !t.released).map(|t| t.seq) else {
            return;
        };
        if self.writes.len() == REMEMBERED_WRITES {
            self.writes.pop_front();
        }
        self.writes.push_back(HubWrite {
            text: text.into(),
            after,
        });
    }

    /// Remembers a hub block written right after the taken block `seq`
    /// (0: before every block), above blocks taken later.
    pub fn wrote_after(&mut self, after: u64, text: String) {
        if self.writes.len() == REMEMBERED_WRITES {
            self.writes.pop_front();
        }
        self.writes.push_back(HubWrite {
            text: text.into(),
            after,
        });
    }

    /// Whether any hub block written after the taken blocks is remembered.
    pub fn has_writes(&self) -> bool {
        !self.writes.is_empty()
    }

    /// The hub blocks written after the taken block `seq`, in order.
    pub fn writes_after(&self, seq: u64) -> impl Iterator<Item = &HubWrite> {
        self.writes.iter().filter(move |w| w.after == seq)
    }

    /// Adds a block found in the text (a stopped hub's), in text order.
    pub fn insert(&mut self, mut taken: Taken) {
        taken.seq = self.seq();
        let at = taken.place.at().map_or(self.list.len(), |h| {
            self.list
                .iter()
                .position(|t| t.place.at().is_some_and(|o| o > h))
                .unwrap_or(self.list.len())
        });
        if self.list.len() == REMEMBERED_BLOCKS {
            if at == 0 {
                return;
            }
            self.list.pop_front();
            self.list.insert(at - 1, taken);
        } else {
            self.list.insert(at, taken);
        }
    }

    pub fn get(&self, i: usize) -> &Taken {
        &self.list[i]
    }

    pub fn get_mut(&mut self, i: usize) -> &mut Taken {
        &mut self.list[i]
    }

    pub fn iter(&self) -> impl Iterator<Item = &Taken> {
        self.list.iter()
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Taken> {
        self.list.iter_mut()
    }

    pub fn of_job(&mut self, job: JobId) -> Option<&mut Taken> {
        self.list.iter_mut().find(|t| t.job == Some(job))
    }

    /// The last block with a known position.
    pub fn last_placed(&self) -> Option<&Taken> {
        self.list.iter().rev().find(|t| t.place.at().is_some())
    }

    /// For each taken block, whether a survey from `start` covers its
    /// place. See [`covered`].
    pub fn covered(&self, start: usize) -> Vec<bool> {
        covered(&self.list.iter().collect::<Vec<_>>(), start)
    }

    /// For each block of `survey` (which starts at `start`), the index of
    /// the taken block it is, if any. See [`match_blocks`].
    pub fn matches(&self, text: &str, survey: &Survey, start: usize) -> Vec<Option<usize>> {
        match_blocks(&self.list, text, &survey.blocks, start)
    }
}

/// For each taken block (in log order), whether a survey from `start`
/// covers its place: one at an offset from `start` on; one not found last
/// time when the nearest earlier block with a known offset is from `start`
/// on (it stood below that one), or in a whole scan; never one above the
/// text the engine was given.
pub fn covered(taken: &[&Taken], start: usize) -> Vec<bool> {
    let mut last_at: Option<usize> = None;
    taken
        .iter()
        .map(|t| match t.place {
            Place::At(h) => {
                last_at = Some(h);
                h >= start
            }
            Place::Gone => start == 0 || last_at.is_some_and(|h| h >= start),
            Place::Above => false,
        })
        .collect()
}

/// Matches blocks found in a text to taken blocks, in order: each found
/// block is the first taken block not matched yet (and not above `start`)
/// with the same code whose region or reply is what stands under it, or
/// that has nothing under it. Taken blocks never match out of order, so a
/// block appended again below its first copy is new, while a block whose
/// reply a stale save erased is still known.
pub fn match_blocks<'a>(
    taken: impl IntoIterator<Item = &'a Taken>,
    text: &str,
    found: &[SurveyedBlock],
    start: usize,
) -> Vec<Option<usize>> {
    let taken: Vec<&Taken> = taken.into_iter().collect();
    let covered = covered(&taken, start);
    let taken: Vec<(usize, &Taken)> = taken
        .into_iter()
        .enumerate()
        .filter(|(k, _)| covered[*k])
        .collect();
    let mut next = 0;
    found
        .iter()
        .map(|b| {
            let code = text[b.block.body.clone()].replace("\r\n", "\n");
            let answer = b.answer.as_ref().map(|a| {
                let header = text[a.start..a.header_next].trim_end_matches(['\r', '\n']);
                (header, a.executing)
            });
            // Under a skipped block the hub may have written a late result
            // or background events: they are not the block's own. A found
            // block's reply is whatever the stopped hub wrote.
            let fits = |t: &Taken| match answer {
                None => !t.released,
                Some((h, executing)) => {
                    t.owns(h)
                        || (matches!(t.state, TakenState::Skipped | TakenState::Found)
                            && !executing)
                }
            };
            // A released block (its job cancelled, the agent told to
            // append it again) is this one only when no block still owned
            // by its job fits: the same code of the same second under the
            // same agent is the later, live one.
            let candidates = &taken[next..];
            let k = candidates
                .iter()
                .position(|(_, t)| *t.code == *code && fits(t) && !t.released)
                .or_else(|| {
                    candidates
                        .iter()
                        .position(|(_, t)| *t.code == *code && fits(t))
                })?;
            let (i, _) = taken[next + k];
            next += k + 1;
            Some(i)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::survey::survey;

    fn taken(code: &str, header: &str, state: TakenState) -> Taken {
        Taken {
            job: Some(JobId(1)),
            code: format!("{code}\n").into(),
            opener: "```js".into(),
            place: Place::At(0),
            header: header.into(),
            state,
            seq: 0,
            chunk: None,
            released: false,
        }
    }

    const H1: &str = "> **s** to agent at 10:00:00";

    /// What a case shows, the text, the taken blocks, and the expected match.
    type Case = (&'static str, String, Vec<Taken>, Vec<Option<usize>>);

    /// (text, taken blocks) → which taken block each block of the text is.
    #[test]
    fn blocks_are_matched_in_order_by_code_and_what_is_under_them() {
        let replied = || TakenState::Replied(format!("{H1} (1ms)\n").into());
        let cases: Vec<Case> = vec![
            (
                "a reply erased by a stale save",
                "```js\nA\n```\n```js\nB\n```\n".into(),
                vec![taken("A", H1, replied())],
                vec![Some(0), None],
            ),
            (
                "the same code appended again is new",
                format!("```js\nA\n```\n\n{H1} (1ms)\n```JSON\n1\n```\n\n```js\nA\n```\n"),
                vec![taken("A", H1, replied())],
                vec![Some(0), None],
            ),
            (
                "an old reply of other time is not ours",
                "```js\nA\n```\n\n> **s** to agent at 09:00:00 (1ms)\n```JSON\n1\n```\n\n```js\nA\n```\n"
                    .into(),
                vec![taken("A", H1, replied())],
                vec![None, Some(0)],
            ),
            (
                "a stale executing region under a replied block",
                format!("```js\nA\n```\n\n{H1}\nexecuting (0s)\n```js\nB\n```\n"),
                vec![
                    taken("A", H1, replied()),
                    taken("B", H1, TakenState::Running),
                ],
                vec![Some(0), Some(1)],
            ),
            (
                "a skipped block has nothing under it",
                "```js\nA\n```\n```js\nB\n```\n".into(),
                vec![
                    taken("A", H1, replied()),
                    taken("B", "", TakenState::Skipped),
                ],
                vec![Some(0), Some(1)],
            ),
            (
                "a late result under a skipped block is not its own, and not new",
                "```js\nA\n```\n\n> **s** to agent at 10:00:09 (late, 1ms)\n```JSON\n1\n```\n".into(),
                vec![taken("A", "", TakenState::Skipped)],
                vec![Some(0)],
            ),
            (
                "a stopped hub's block is known whatever its reply",
                format!("```js\nA\n```\n\n{H1} (1ms)\n```JSON\n1\n```\n\n```js\nA\n```\n"),
                vec![
                    taken("A", "", TakenState::Found),
                    taken("A", H1, TakenState::Running),
                ],
                vec![Some(0), Some(1)],
            ),
            (
                "but not with an executing region under it (that one is closed)",
                format!("```js\nA\n```\n\n{H1}\nexecuting (0s)\n"),
                vec![taken("A", "", TakenState::Found)],
                vec![None],
            ),
            (
                "edited code is a new block",
                "```js\nA2\n```\n".into(),
                vec![taken("A", H1, replied())],
                vec![None],
            ),
        ];
        for (what, text, list, want) in cases {
            let s = survey(&text, 0, "s");
            assert_eq!(match_blocks(&list, &text, &s.blocks, 0), want, "{what}");
        }
    }

    #[test]
    fn hub_writes_follow_the_last_taken_block() {
        let mut l = Ledger::default();
        l.wrote("before any block\n".into());
        l.push(taken("A", H1, TakenState::Running));
        l.wrote("late\n".into());
        l.push(taken("B", H1, TakenState::Running));
        l.wrote("bg\n".into());
        let (a, b) = (l.get(0).seq, l.get(1).seq);
        assert_ne!(a, b);
        let after = |seq| {
            l.writes_after(seq)
                .map(|w| w.text.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(after(a), vec!["late\n"]);
        assert_eq!(after(b), vec!["bg\n"]);
    }

    #[test]
    fn blocks_above_the_start_are_not_candidates() {
        let mut a = taken("A", H1, TakenState::Replied("".into()));
        a.place = Place::At(0);
        let text = "x\n```js\nA\n```\n";
        let s = survey(text, 2, "s");
        assert_eq!(match_blocks([&a], text, &s.blocks, 2), vec![None]);
        // Nor is one whose place is unknown, but in a whole scan.
        a.place = Place::Gone;
        assert_eq!(match_blocks([&a], text, &s.blocks, 2), vec![None]);
        // Nor, ever, one above the text (a window's base, a history file).
        a.place = Place::Above;
        let s0 = survey(text, 0, "s");
        assert_eq!(match_blocks([&a], text, &s0.blocks, 0), vec![None]);
        a.place = Place::Gone;
        let s = survey(text, 0, "s");
        assert_eq!(match_blocks([&a], text, &s.blocks, 0), vec![Some(0)]);
    }
}
