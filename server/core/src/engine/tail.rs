//! Cutting the active tail of a log into chunks, and line helpers.
//!
//! Chunks are cut walking forward, fence-aware, from a place the caller
//! knows to be outside fences (the footer or the end of what the hub
//! answered, found by [`super::survey`]), so the cost follows the size of
//! the tail, not the file.

use super::markdown::{blocks, exec_info, parse_header, Block, ExecInfo, HeaderKind};
use super::template::{is_intro, title, FOOTER};
use super::text::{line_start, lines_back, lines_from, Line};

/// Where a line is: its start and the start of the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub next: usize,
}

/// Whether a line at `pos` of `text` is exactly `line` (ignoring `\r`).
pub fn line_is<'a>(text: &'a str, pos: usize, line: &str) -> Option<Line<'a>> {
    if pos > text.len() || (pos > 0 && text.as_bytes().get(pos - 1) != Some(&b'\n')) {
        return None;
    }
    let found = lines_from(text, pos).next()?;
    (found.text == line).then_some(found)
}

/// The last line of `text` equal to `line`, trying `hint` first. The hint
/// is where the engine last left it: still right when the agent only
/// appended, and the way to tell the real line from a copy of it that an
/// agent pasted below inside a code block.
pub fn find_line(text: &str, line: &str, hint: Option<usize>) -> Option<Span> {
    find_line_with(text, line, hint, |_| true)
}

/// Like [`find_line`], keeping only candidates `accept` agrees with.
pub fn find_line_with(
    text: &str,
    line: &str,
    hint: Option<usize>,
    mut accept: impl FnMut(&Line<'_>) -> bool,
) -> Option<Span> {
    let owned = |l: Line<'_>| Span {
        start: l.start,
        next: l.next,
    };
    if let Some(found) = hint.and_then(|h| line_is(text, h, line)) {
        if accept(&found) {
            return Some(owned(found));
        }
    }
    if line.is_empty() {
        return None;
    }
    let mut end = text.len();
    while let Some(i) = text[..end].rfind(line) {
        if let Some(found) = line_is(text, i, line) {
            if accept(&found) {
                return Some(owned(found));
            }
        }
        end = i;
    }
    None
}

/// How many footer-looking lines [`find_footer`] checks without a hint.
const FOOTER_CANDIDATES: usize = 8;

/// The footer line, if the file has one. Without a valid hint (a hub that
/// just started), a copy of the footer line inside an agent's code block is
/// told from the real one by what follows it: below the real footer every
/// fence closes, below a copy the block's closing fence opens a new one.
pub fn find_footer(text: &str, hint: Option<usize>) -> Option<Span> {
    if let Some(found) = hint.and_then(|h| line_is(text, h, FOOTER)) {
        return Some(Span {
            start: found.start,
            next: found.next,
        });
    }
    let mut first = None;
    let mut checked = 0;
    let clean = find_line_with(text, FOOTER, None, |l| {
        first.get_or_insert(Span {
            start: l.start,
            next: l.next,
        });
        checked += 1;
        checked > FOOTER_CANDIDATES
            || blocks(text, l.next).all(|b| !matches!(b, Block::Fence(f) if !f.closed))
    });
    clean.or(first)
}

/// Where the active tail of a log without a footer begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailStart {
    /// After the last hub-written block (or at the start of a file the hub
    /// never wrote to).
    At(usize),
    /// At an executing region no running job owns: a hub stopped while it
    /// ran.
    Orphan(usize),
}

/// Is this line something only the hub writes for `stem`?
fn hub_line(line: &str, stem: &str) -> Option<bool> {
    if is_intro(line) || line == title(stem) {
        return Some(false);
    }
    let h = parse_header(line)?;
    if h.from != stem {
        return None;
    }
    Some(matches!(h.kind, HeaderKind::To { suffix: "", .. }))
}

/// Whether a line is one of the hub's notes under a reply.
pub fn is_note(line: &str) -> bool {
    (line.starts_with("... (") && line.ends_with(") ..."))
        || (line.starts_with('(') && line.ends_with(')'))
}

/// Finds the tail of a log that has no footer: whatever follows the last
/// block the hub wrote, so a request that already has a reply never runs
/// again.
pub fn tail_without_footer(text: &str, stem: &str) -> TailStart {
    let Some((line, executing)) =
        lines_back(text, text.len()).find_map(|l| hub_line(l.text, stem).map(|e| (l, e)))
    else {
        return TailStart::At(0);
    };
    if executing {
        return TailStart::Orphan(line.start);
    }
    TailStart::At(end_of_hub_block(text, line.next))
}

/// The end of the hub's fences, notes and pictures' lines that follow a
/// hub header line.
pub fn end_of_hub_block(text: &str, from: usize) -> usize {
    let mut end = from;
    for block in blocks(text, from) {
        match block {
            Block::Fence(f) if f.closed => end = f.next,
            Block::Line(l)
                if is_intro(l.text) || is_note(l.text) || super::picture::is_image_line(l.text) =>
            {
                end = l.next
            }
            _ => break,
        }
    }
    end
}

/// A request header: `> **agent** to <anything> at HH:MM:SS` from someone
/// other than the log's own stem.
pub fn request_agent<'a>(line: &'a str, stem: &str) -> Option<&'a str> {
    let h = parse_header(line)?;
    match h.kind {
        HeaderKind::To { suffix: "", .. } if h.from != stem => Some(h.from),
        _ => None,
    }
}

/// An executable fenced block of a chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecBlock {
    /// Start of the opening fence line.
    pub start: usize,
    /// Start of the line after the closing fence (or the text's end).
    pub next: usize,
    /// Whether the closing fence line ends with a newline.
    pub terminated: bool,
    /// The code between the fences.
    pub body: std::ops::Range<usize>,
    pub info: ExecInfo,
}

/// One request (or stretch of prose) of the tail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub start: usize,
    pub end: usize,
    /// The agent named by the chunk's request header, and the header line.
    pub header: Option<(String, usize)>,
    /// Where the first line with content starts.
    pub first_content: Option<usize>,
    /// Complete executable blocks, in order.
    pub exec: Vec<ExecBlock>,
    /// Has an unclosed fence: the agent is still writing it.
    pub draft: bool,
}

impl Chunk {
    pub fn runnable(&self) -> bool {
        !self.draft && !self.exec.is_empty()
    }
}

/// Cuts `text[from..]` into chunks: each request header line starts one.
pub fn chunks(text: &str, from: usize, stem: &str) -> Vec<Chunk> {
    let mut out: Vec<Chunk> = Vec::new();
    let new = |start: usize| Chunk {
        start,
        end: start,
        header: None,
        first_content: None,
        exec: Vec::new(),
        draft: false,
    };
    let mut cur = new(from);
    for block in blocks(text, from) {
        if let Block::Line(l) = block {
            if let Some(agent) = request_agent(l.text, stem) {
                if cur.first_content.is_some() || cur.header.is_some() {
                    out.push(std::mem::replace(&mut cur, new(l.start)));
                }
                cur.header = Some((agent.to_string(), l.start));
            }
        }
        match block {
            Block::Line(l) if l.is_blank() => {}
            Block::Line(l) => {
                cur.first_content.get_or_insert(l.start);
            }
            Block::Fence(f) => {
                cur.first_content.get_or_insert(f.start);
                if !f.closed {
                    cur.draft = true;
                } else if let Some(info) = exec_info(f.info) {
                    cur.exec.push(ExecBlock {
                        start: f.start,
                        next: f.next,
                        terminated: f.terminated,
                        body: f.body_start..f.body_end,
                        info,
                    });
                }
            }
        }
        cur.end = block.next();
    }
    cur.end = cur.end.max(text.len()).max(cur.start);
    if cur.first_content.is_some() || cur.header.is_some() || out.is_empty() {
        out.push(cur);
    } else if let Some(last) = out.last_mut() {
        last.end = text.len();
    }
    out
}

/// Start of the next request header line at or after `from`, or the end.
pub fn next_request(text: &str, from: usize, stem: &str) -> usize {
    blocks(text, from)
        .find_map(|b| match b {
            Block::Line(l) if request_agent(l.text, stem).is_some() => Some(l.start),
            _ => None,
        })
        .unwrap_or(text.len())
}

/// A reasonable place to start working near the end of a text: the start of
/// its last line with content, so newline and blank-line decisions can see
/// what precedes the end.
pub fn end_base(text: &str) -> usize {
    let content_end = super::text::blank_run_start(text, text.len());
    line_start(text, content_end.saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footer_hint_beats_a_pasted_copy() {
        let text = format!("a\n{FOOTER}\n```js\n{FOOTER}\n```\n");
        let real = text.find(FOOTER).unwrap();
        assert_eq!(find_footer(&text, Some(real)).unwrap().start, real);
        // Without a hint, the copy is known by the fence its block leaves open.
        assert_eq!(find_footer(&text, None).unwrap().start, real);
        assert_eq!(find_footer(&text, Some(3)).unwrap().start, real);
        // A real draft below the only footer still finds that footer.
        let draft = format!("{FOOTER}\n```js\nunfinished\n");
        assert_eq!(find_footer(&draft, None).unwrap().start, 0);
        assert!(find_footer("no footer here", None).is_none());
        assert!(
            find_footer(&format!("x{FOOTER}\n"), None).is_none(),
            "must start a line"
        );
    }

    #[test]
    fn chunk_split_on_request_headers() {
        let t = "prose\n\n> **a** to s at 10:00:00\n```js\n1\n```\n> **b** to s at 10:00:01\n```\n2\n```\n```js\n3\n";
        let c = chunks(t, 0, "s");
        assert_eq!(c.len(), 3);
        assert!(c[0].exec.is_empty() && !c[0].draft);
        assert_eq!(c[1].header.as_ref().unwrap().0, "a");
        assert!(c[1].runnable());
        assert_eq!(c[2].exec.len(), 1);
        assert!(c[2].draft);
        assert_eq!(c[2].end, t.len());
    }

    #[test]
    fn tail_after_last_reply() {
        let t = "> **s** to agent at 10:00:00 (3ms)\n```JSON\n1\n```\n(note)\nafter\n";
        assert_eq!(
            tail_without_footer(t, "s"),
            TailStart::At(t.find("after").unwrap())
        );
        let t = "x\n> **s** to agent at 10:00:00\nexecuting (0s)\n";
        assert_eq!(tail_without_footer(t, "s"), TailStart::Orphan(2));
        assert_eq!(tail_without_footer("just text", "s"), TailStart::At(0));
    }
}
