//! A fence-aware walk over the active part of a log: which executable
//! blocks are there, which hub reply (or executing region) sits under each,
//! which hub blocks stand alone, and where footer lines are.
//!
//! It walks forward from a line the engine knows is outside any fence
//! (its horizon, or the start of the text), so page output inside a fence
//! that looks like a hub line — a header, the footer, `executing (…)` — is
//! never taken for one (docs/log-format.md, "Fence-aware everywhere").

use super::markdown::{blocks, exec_info, parse_header, Block, HeaderKind};
use super::picture::is_image_line;
use super::tail::{is_note, ExecBlock, Span};
use super::template::FOOTER;

/// A block of lines the hub wrote for this log: a header line of the
/// log's own stem and the fences and notes that belong to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubBlock {
    /// Start of the header line.
    pub start: usize,
    /// Start of the header's next line.
    pub header_next: usize,
    /// After its last fence, note or placeholder.
    pub end: usize,
    /// A `to <agent>` header without a suffix: an executing region.
    pub executing: bool,
    /// A `to <agent>` header (a reply or a region), not a background block.
    pub reply: bool,
}

/// An executable block and what the hub wrote under it, if anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SurveyedBlock {
    pub block: ExecBlock,
    /// A reply or executing region right under the block (blank lines
    /// between are allowed).
    pub answer: Option<HubBlock>,
}

/// What [`survey`] found, in text order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Survey {
    pub blocks: Vec<SurveyedBlock>,
    /// Hub blocks that do not answer a block: background events, late
    /// replies, regions whose block was edited.
    pub loose: Vec<HubBlock>,
    /// Footer lines outside fences.
    pub footers: Vec<Span>,
    /// Request header lines (of agents) outside fences.
    pub requests: Vec<usize>,
}

impl Survey {
    /// The end of the last thing the hub wrote or answered: the active tail
    /// of a log without a footer starts here.
    pub fn hub_end(&self, from: usize) -> usize {
        let answered = self
            .blocks
            .iter()
            .filter_map(|b| b.answer.as_ref().map(|a| a.end));
        let loose = self.loose.iter().map(|h| h.end);
        answered.chain(loose).fold(from, usize::max)
    }
}

/// Walks `text` from `start` (a line start outside any fence) to its end.
pub fn survey(text: &str, start: usize, stem: &str) -> Survey {
    let mut out = Survey::default();
    let mut pos = start;
    // The block whose answer may still follow (only blank lines since).
    let mut waiting: Option<usize> = None;
    while let Some(b) = blocks(text, pos).next() {
        match b {
            Block::Fence(f) if f.closed => {
                waiting = None;
                if let Some(info) = exec_info(f.info) {
                    waiting = Some(out.blocks.len());
                    out.blocks.push(SurveyedBlock {
                        block: ExecBlock {
                            start: f.start,
                            next: f.next,
                            terminated: f.terminated,
                            body: f.body_start..f.body_end,
                            info,
                        },
                        answer: None,
                    });
                }
                pos = f.next;
            }
            Block::Fence(f) => pos = f.next,
            Block::Line(l) if l.is_blank() => pos = l.next,
            Block::Line(l) if l.text == FOOTER => {
                waiting = None;
                out.footers.push(Span {
                    start: l.start,
                    next: l.next,
                });
                pos = l.next;
            }
            Block::Line(l) => {
                let header = parse_header(l.text);
                match header {
                    Some(h) if h.from == stem => {
                        let (executing, reply) = match h.kind {
                            HeaderKind::To { suffix, .. } => (suffix.is_empty(), true),
                            HeaderKind::Background { .. } | HeaderKind::Lifecycle { .. } => {
                                (false, false)
                            }
                        };
                        let hub = HubBlock {
                            start: l.start,
                            header_next: l.next,
                            end: hub_block_extent(text, l.next, executing, stem).0,
                            executing,
                            reply,
                        };
                        pos = hub.end;
                        match waiting.take() {
                            Some(i) if reply => out.blocks[i].answer = Some(hub),
                            _ => out.loose.push(hub),
                        }
                    }
                    Some(h) => {
                        if matches!(h.kind, HeaderKind::To { suffix: "", .. }) {
                            out.requests.push(l.start);
                        }
                        waiting = None;
                        pos = l.next;
                    }
                    None => {
                        waiting = None;
                        pos = l.next;
                    }
                }
            }
        }
        if pos >= text.len() {
            break;
        }
    }
    out
}

/// The end of a hub block of `stem`'s log whose header line ends at
/// `from`: its fences (never an executable one: the hub writes none),
/// notes, pictures' lines and lifecycle lines, the replies of other realms it gathered
/// (`debug/all.md`), and for an executing region its placeholder line.
/// Also whether that placeholder was there.
pub fn hub_block_extent(text: &str, from: usize, executing: bool, stem: &str) -> (usize, bool) {
    let mut end = from;
    for block in blocks(text, from) {
        match block {
            Block::Fence(f) if f.closed && exec_info(f.info).is_none() => end = f.next,
            Block::Line(l) if executing && is_placeholder(l.text) => return (l.next, true),
            Block::Line(l) if is_note(l.text) || is_lifecycle(l.text) => end = l.next,
            Block::Line(l) if is_image_line(l.text) => end = l.next,
            Block::Line(l) if is_gathered_reply(l.text, stem) => end = l.next,
            _ => break,
        }
    }
    (end, false)
}

/// Whether a line is the header of another realm's finished reply (with
/// its suffix): one the fan-out log gathered under its own.
fn is_gathered_reply(line: &str, stem: &str) -> bool {
    parse_header(line).is_some_and(|h| {
        h.from != stem && matches!(h.kind, HeaderKind::To { suffix, .. } if !suffix.is_empty())
    })
}

/// Whether a line is a lifecycle line (of any realm): inside a job's
/// region and reply it is part of the hub's block.
pub fn is_lifecycle(line: &str) -> bool {
    parse_header(line).is_some_and(|h| matches!(h.kind, HeaderKind::Lifecycle { .. }))
}

/// The last line of an executing region: `executing (3s)` or
/// `executing (3s; page disconnected, …)`.
pub fn is_placeholder(line: &str) -> bool {
    line.starts_with("executing (") && line.ends_with(')')
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "# 👾 s\n> intro\n\n";

    #[test]
    fn hub_lines_inside_fences_are_page_output() {
        let t = format!(
            "{HEAD}```js\nconsole.log('x')\n```\n\n> **s** to agent at 10:00:00\n```Text console.log\n> **s** to agent at 10:00:01 (3ms)\n{FOOTER}\nexecuting (0s)\n```\nexecuting (2s)\n"
        );
        let s = survey(&t, 0, "s");
        assert_eq!(s.blocks.len(), 1);
        let a = s.blocks[0].answer.as_ref().expect("answered");
        assert!(a.executing);
        assert_eq!(a.end, t.len());
        assert!(s.footers.is_empty(), "the footer is inside a fence");
        assert!(s.loose.is_empty());
    }

    #[test]
    fn answers_loose_blocks_and_footers() {
        let t = format!(
            "{HEAD}> **agent** to s at 10:00:00\n```js\n1\n```\n\n> **s** to agent at 10:00:00 (1ms)\n```JSON\n1\n```\n(a note)\n\n> **s** background at 10:00:02\n```Text console.log\nhi\n```\n\n{FOOTER}\n```js\n2\n```\n"
        );
        let s = survey(&t, 0, "s");
        assert_eq!(s.blocks.len(), 2);
        let a = s.blocks[0].answer.as_ref().unwrap();
        assert!(!a.executing && a.reply);
        assert_eq!(&t[a.end - 9..a.end], "(a note)\n");
        assert!(s.blocks[1].answer.is_none());
        assert_eq!(s.loose.len(), 1);
        assert!(!s.loose[0].reply);
        assert_eq!(s.footers.len(), 1);
        assert_eq!(s.requests.len(), 1);
        assert_eq!(s.hub_end(0), s.loose[0].end);
    }

    #[test]
    fn an_agent_block_right_after_a_reply_is_not_part_of_it() {
        let t =
            "```js\n1\n```\n> **s** to agent at 10:00:00 (1ms)\n```JSON\n1\n```\n```js\n2\n```\n";
        let s = survey(t, 0, "s");
        assert_eq!(s.blocks.len(), 2);
        assert!(s.blocks[1].answer.is_none());
    }

    #[test]
    fn prose_between_block_and_header_detaches_it() {
        let t = "```js\n1\n```\nprose\n> **s** to agent at 10:00:00\nexecuting (0s)\n";
        let s = survey(t, 0, "s");
        assert!(s.blocks[0].answer.is_none());
        assert_eq!(s.loose.len(), 1);
        assert!(s.loose[0].executing);
    }
}
