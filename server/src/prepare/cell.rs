//! Positions in the prepared code mapped back to the block, and stack
//! traces rewritten with them: `at f (daebug-cell-17:5:21)` becomes
//! `at f (<cell>:2:13)`, the block's own line and column.

use super::splice::SpliceMap;

/// Lines V8 puts before an `AsyncFunction` body: `async function
/// anonymous(` and `) {`.
const FUNCTION_HEADER_LINES: usize = 2;
/// The name prepared code gives itself, before the job id.
const CELL_PREFIX: &str = "daebug-cell-";

/// How to map positions of one job's prepared code back to its block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellMap {
    /// Byte offset of each line start of the prepared code.
    code_lines: Vec<usize>,
    /// The prepared code, to count UTF-16 columns within a line.
    code: String,
    /// Where copies of the block's (edited) text sit in `code` (see
    /// `prepare::assemble`: one runs inside `with`, one without).
    user: Vec<std::ops::Range<usize>>,
    /// From the edited text back to the parsed text.
    splices: SpliceMap,
    /// The block as the agent wrote it.
    source: String,
    /// Bytes the parsed text had in front of `source` (`(` of an object
    /// literal).
    shift: usize,
}

impl CellMap {
    pub fn new(
        code: &str,
        user: Vec<std::ops::Range<usize>>,
        splices: SpliceMap,
        source: &str,
        shift: usize,
    ) -> CellMap {
        let code_lines = std::iter::once(0)
            .chain(code.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        CellMap {
            code_lines,
            code: code.to_string(),
            user,
            splices,
            source: source.to_string(),
            shift,
        }
    }

    /// The block's 1-based line and column for a frame position as the
    /// realm reports it (1-based line of the function's source, 1-based
    /// column in UTF-16 units).
    pub fn to_block(&self, line: usize, col: usize) -> (usize, usize) {
        let body_line = line.saturating_sub(FUNCTION_HEADER_LINES).max(1);
        let Some(&start) = self.code_lines.get(body_line - 1) else {
            return line_col(&self.source, self.source.len());
        };
        let end = self
            .code_lines
            .get(body_line)
            .map_or(self.code.len(), |e| e - 1);
        let at = start + utf16_to_byte(&self.code[start..end], col.saturating_sub(1));
        // Code around the copies maps to the nearest end of the block.
        let Some(copy) = self.user.iter().find(|r| at < r.end) else {
            return line_col(&self.source, self.source.len());
        };
        if at < copy.start {
            return (1, 1);
        }
        let parsed = self.splices.to_source(at - copy.start);
        let offset = parsed.saturating_sub(self.shift).min(self.source.len());
        let mut offset = offset;
        while !self.source.is_char_boundary(offset) {
            offset -= 1;
        }
        line_col(&self.source, offset)
    }
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
        // `at eval (daebug-cell-…)` is the block itself: `at <cell>:2:1`.
        let frame_of_block = ["at eval (", "at async eval ("]
            .iter()
            .find(|p| before.ends_with(*p));
        match (frame_of_block, after.strip_prefix(')')) {
            (Some(p), Some(tail)) => {
                out.push_str(&before[..before.len() - p.len()]);
                out.push_str(&p[..p.len() - "eval (".len()]);
                out.push_str(&place);
                rest = tail;
            }
            _ => {
                out.push_str(before);
                out.push_str(&place);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
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

/// How many jobs' maps a log keeps, so frames of functions that earlier
/// blocks defined (called later, or from a timer) still map.
const REMEMBERED: usize = 64;

/// The maps of a log's recent jobs.
#[derive(Debug, Default)]
pub struct Cells {
    /// Job id, map, and when it was dispatched (`HH:MM:SS`), oldest first.
    recent: std::collections::VecDeque<(u64, CellMap, String)>,
}

impl Cells {
    pub fn remember(&mut self, job: u64, map: CellMap, at: String) {
        if self.recent.len() == REMEMBERED {
            self.recent.pop_front();
        }
        self.recent.push_back((job, map, at));
    }

    /// `stack` with the cells' positions mapped: frames of `current` (the
    /// job the stack belongs to) read `<cell>`, those of earlier blocks
    /// `<cell HH:MM:SS>`, after the time that block ran.
    pub fn map_stack(&self, stack: &str, current: Option<u64>) -> String {
        map_stack(stack, |job| {
            let (_, map, at) = self.recent.iter().rev().find(|(j, _, _)| *j == job)?;
            let name = match current == Some(job) {
                true => "<cell>".to_string(),
                false => format!("<cell {at}>"),
            };
            Some((map, name))
        })
    }
}
