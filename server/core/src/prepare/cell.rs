//! Positions in the prepared code mapped back to the block, and stack
//! traces rewritten with them: `at f (daebug-cell-17:5:21)` becomes
//! `at f (<cell>:2:13)`, the block's own line and column.

use super::splice::SpliceMap;

/// Lines V8 puts before an `AsyncFunction` body: `async function
/// anonymous(` and `) {`.
const FUNCTION_HEADER_LINES: usize = 2;
/// The name prepared code gives itself, before the job id.
pub const CELL_PREFIX: &str = "daebug-cell-";

/// How to map positions of one job's prepared code back to its block.
/// Holds the edited block once (its copies in the code are identical), not
/// the prepared code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellMap {
    /// The 0-based line of the function body where each copy of the block
    /// starts (see `prepare::assemble`: one runs inside `with`, one
    /// without).
    copies: Vec<usize>,
    /// The block's text as edited by the rewrite.
    edited: String,
    /// Where each line of `edited` starts, lines ended as JavaScript ends
    /// them (also `\r`, U+2028, U+2029), since V8 numbers lines so.
    edited_lines: Vec<usize>,
    /// From `edited` back to the parsed text.
    splices: SpliceMap,
    /// The block as the agent wrote it.
    source: String,
    /// Bytes the parsed text had in front of `source` (`(` of an object
    /// literal).
    prefix_len: usize,
}

impl CellMap {
    /// `code` is the prepared code, `copies` where the edited block sits in
    /// it (every range holds the same text).
    pub fn new(
        code: &str,
        copies: &[std::ops::Range<usize>],
        splices: SpliceMap,
        source: &str,
        prefix_len: usize,
    ) -> CellMap {
        let edited = copies.first().map_or("", |r| &code[r.clone()]).to_string();
        let mut counted = (0, 0); // (bytes scanned, lines before them)
        let copies = copies
            .iter()
            .map(|r| {
                counted.1 += js_line_starts(&code[counted.0..r.start]).len() - 1;
                counted.0 = r.start;
                counted.1
            })
            .collect();
        CellMap {
            copies,
            edited_lines: js_line_starts(&edited),
            edited,
            splices,
            source: source.to_string(),
            prefix_len,
        }
    }

    /// The block as the agent wrote it.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Bytes held, to bound what a log keeps.
    pub fn weight(&self) -> usize {
        self.edited.len() + self.source.len() + 8 * self.edited_lines.len()
    }

    /// The block's 1-based line and column for a frame position as the
    /// realm reports it (1-based line of the function's source, 1-based
    /// column in UTF-16 units).
    pub fn to_block(&self, line: usize, col: usize) -> (usize, usize) {
        let body_line = line.saturating_sub(FUNCTION_HEADER_LINES + 1);
        let lines = self.edited_lines.len();
        let copy = self
            .copies
            .iter()
            .find(|&&first| (first..first + lines).contains(&body_line));
        let Some(&first) = copy else {
            // The code around the copies: the nearest end of the block.
            return match self.copies.first() {
                Some(&first) if body_line < first => (1, 1),
                _ => line_col(&self.source, self.source.len()),
            };
        };
        let index = body_line - first;
        let start = self.edited_lines[index];
        let end = self
            .edited_lines
            .get(index + 1)
            .map_or(self.edited.len(), |&e| e);
        let text = self.edited[start..end].trim_end_matches(['\n', '\r', '\u{2028}', '\u{2029}']);
        let at = start + utf16_to_byte(text, col.saturating_sub(1));
        let parsed = self.splices.to_source(at);
        let mut offset = parsed
            .saturating_sub(self.prefix_len)
            .min(self.source.len());
        while !self.source.is_char_boundary(offset) {
            offset -= 1;
        }
        line_col(&self.source, offset)
    }
}

/// Where each line starts, counting the line terminators of JavaScript:
/// `\n`, `\r\n`, `\r`, U+2028 and U+2029.
pub fn js_line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\r' if chars.peek().is_some_and(|&(_, n)| n == '\n') => {}
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => starts.push(i + c.len_utf8()),
            _ => {}
        }
    }
    starts
}

/// 1-based line and column (in UTF-16 units, as V8 counts) of a byte
/// offset.
pub fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].encode_utf16().count() + 1;
    (line, col)
}

fn utf16_to_byte(line: &str, units: usize) -> usize {
    let mut counted = 0;
    for (i, c) in line.char_indices() {
        if counted >= units {
            return i;
        }
        counted += c.len_utf16();
    }
    line.len()
}

/// Rewrites every `daebug-cell-<job>:<line>:<col>` in `stack` with
/// `lookup(job)`: the cell's map and the name to show (`<cell>` for the
/// running block). A frame for a job with no map left reads `<cell ?>` with
/// the position as reported. V8's name for the
/// block's own top-level frame, `eval`, goes: `at eval (X)` → `at X`.
pub fn map_stack<'m>(stack: &str, lookup: impl Fn(u64) -> Option<(&'m CellMap, String)>) -> String {
    if !stack.contains(CELL_PREFIX) {
        return stack.to_string();
    }
    let mut out = String::with_capacity(stack.len());
    for (i, line) in stack.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&map_line(line, &lookup));
    }
    out
}

fn map_line<'m>(line: &str, lookup: &impl Fn(u64) -> Option<(&'m CellMap, String)>) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find(CELL_PREFIX) {
        let (before, at) = rest.split_at(i);
        let Some((job, l, c, len)) = parse_position(&at[CELL_PREFIX.len()..]) else {
            out.push_str(before);
            out.push_str(CELL_PREFIX);
            rest = &at[CELL_PREFIX.len()..];
            continue;
        };
        let after = &at[CELL_PREFIX.len() + len..];
        let place = match lookup(job) {
            Some((map, name)) => {
                let (line, col) = map.to_block(l, c);
                format!("{name}:{line}:{col}")
            }
            None => format!(
                "<cell ?>:{}:{c}",
                l.saturating_sub(FUNCTION_HEADER_LINES + 1)
            ),
        };
        // `at eval (daebug-cell-…)` is the block itself: `at <cell>:2:1`
        // (in Node, where the loader compiles it, `at anonymous (…)`, the
        // name `new AsyncFunction` gives); so is SpiderMonkey's
        // `anonymous@daebug-cell-…` (the `AsyncFunction`'s name):
        // `@<cell>:2:1`, as it writes top-level code.
        let frame_of_block = [
            ("at eval (", "eval ("),
            ("at async eval (", "eval ("),
            ("at anonymous (", "anonymous ("),
            ("at async anonymous (", "anonymous ("),
        ]
        .iter()
        .find(|(p, _)| before.ends_with(*p));
        match (frame_of_block, after.strip_prefix(')')) {
            (Some((p, name)), Some(tail)) => {
                out.push_str(&before[..before.len() - p.len()]);
                out.push_str(&p[..p.len() - name.len()]);
                out.push_str(&place);
                rest = tail;
            }
            _ => {
                out.push_str(&block_frame_unnamed(before));
                out.push_str(&place);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The text before a cell position with SpiderMonkey's name for the
/// block's own function dropped: `anonymous@` (or `async*anonymous@`) at
/// the start of a frame → `@`. Other text is returned as it is.
fn block_frame_unnamed(before: &str) -> std::borrow::Cow<'_, str> {
    match before.strip_suffix("anonymous@") {
        Some(head) if head.is_empty() || head.ends_with(['\n', ' ', '\t', '*']) => {
            format!("{head}@").into()
        }
        _ => before.into(),
    }
}

/// `17:5:21…` → (17, 5, 21, bytes read).
fn parse_position(s: &str) -> Option<(u64, usize, usize, usize)> {
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let a = digits(s);
    let job = s[..a].parse().ok()?;
    let s2 = s[a..].strip_prefix(':')?;
    let b = digits(s2);
    let line = s2[..b].parse().ok()?;
    let s3 = s2[b..].strip_prefix(':')?;
    let c = digits(s3);
    let col = s3[..c].parse().ok()?;
    Some((job, line, col, a + 1 + b + 1 + c))
}

/// How many jobs' maps a log keeps at most, so frames of functions that
/// earlier blocks defined (called later, or from a timer) still map...
const REMEMBERED: usize = 64;
/// ...and how many bytes of them (a few large blocks count for many).
const REMEMBERED_BYTES: usize = 16 << 20;

/// One job's map, as a log remembers it.
#[derive(Debug)]
struct Cell {
    job: u64,
    map: CellMap,
    /// When the block was sent to its realm (`HH:MM:SS`), to name its
    /// frames in stacks of later jobs.
    sent_at: String,
}

/// The maps of a log's recent jobs.
#[derive(Debug, Default)]
pub struct Cells {
    /// Oldest first.
    recent: std::collections::VecDeque<Cell>,
    /// The sum of their weights.
    bytes: usize,
}

impl Cells {
    pub fn remember(&mut self, job: u64, map: CellMap, sent_at: String) {
        self.bytes += map.weight();
        self.recent.push_back(Cell { job, map, sent_at });
        while self.recent.len() > REMEMBERED
            || (self.bytes > REMEMBERED_BYTES && self.recent.len() > 1)
        {
            if let Some(old) = self.recent.pop_front() {
                self.bytes -= old.map.weight();
            }
        }
    }

    /// `stack` with the cells' positions mapped: frames of `current` (the
    /// job the stack belongs to) read `<cell>`, those of earlier blocks
    /// `<cell HH:MM:SS>`, after the time that block was sent.
    pub fn map_stack(&self, stack: &str, current: Option<u64>) -> String {
        map_stack(stack, |job| {
            let cell = self.recent.iter().rev().find(|c| c.job == job)?;
            let name = match current == Some(job) {
                true => "<cell>".to_string(),
                false => format!("<cell {}>", cell.sent_at),
            };
            Some((&cell.map, name))
        })
    }
}
