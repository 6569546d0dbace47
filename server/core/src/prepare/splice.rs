//! Edits of a block's source as data, and the map they leave behind.
//!
//! The rewrite never re-prints the program: it splices a few pieces of text
//! into the agent's own source (like `magic-string`), so the prepared code
//! reads like the block and every position in it maps back exactly. Two
//! kinds of edit exist:
//! - a *blank* turns text into spaces of the same length, keeping line
//!   breaks (TypeScript types go this way, so lines and columns stay put);
//! - a *replace* swaps a range (possibly empty: an insertion) for new text.
//!
//! [`Splices::apply`] keeps an edit only when it does not overlap one kept
//! before it (by start, longest first), so an edit inside a range that is
//! replaced wholesale (a type inside a rewritten `import`) simply drops out.

/// One edit of the source: `source[start..end]` becomes `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Splice {
    /// The range of the source replaced (empty: an insertion).
    start: usize,
    end: usize,
    /// What stands there instead.
    text: String,
    /// Same length as the range it replaces, so positions inside it map
    /// one to one (blanks).
    same_length: bool,
    /// Order of recording, so insertions at one spot keep their order.
    seq: usize,
}

/// The edits to make to one source text.
#[derive(Debug, Default)]
pub struct Splices {
    list: Vec<Splice>,
}

impl Splices {
    pub fn new() -> Splices {
        Splices::default()
    }

    /// Replaces `start..end` by `text`.
    pub fn replace(&mut self, start: usize, end: usize, text: impl Into<String>) {
        let seq = self.list.len();
        self.list.push(Splice {
            start,
            end,
            text: text.into(),
            same_length: false,
            seq,
        });
    }

    /// Inserts `text` at `at`; insertions at one position keep the order in
    /// which they were made.
    pub fn insert(&mut self, at: usize, text: impl Into<String>) {
        self.replace(at, at, text);
    }

    /// Turns `source[start..end]` into spaces, keeping line breaks, so the
    /// code after it keeps its lines and columns. A multi-byte character
    /// becomes as many spaces as it has bytes (columns after it on that line
    /// may then move, which the map accounts for).
    pub fn blank(&mut self, source: &str, start: usize, end: usize) {
        if start >= end {
            return;
        }
        let text: String = source[start..end]
            .bytes()
            .map(|b| match b {
                b'\n' | b'\r' => b as char,
                _ => ' ',
            })
            .collect();
        let seq = self.list.len();
        self.list.push(Splice {
            start,
            end,
            text,
            same_length: true,
            seq,
        });
    }

    /// The edited text and the map from its offsets back to `source`'s.
    pub fn apply(mut self, source: &str) -> (String, SpliceMap) {
        // At one position: insertions first (they go before a range that
        // starts there), then longer ranges before shorter, so an edit
        // nested in a kept one comes after it and is dropped.
        self.list
            .sort_by_key(|s| (s.start, s.start != s.end, std::cmp::Reverse(s.end), s.seq));
        let mut out = String::with_capacity(source.len() + 256);
        let mut segments = Vec::with_capacity(self.list.len());
        let mut copied = 0;
        for s in self.list {
            if s.start < copied || s.end > source.len() {
                continue;
            }
            out.push_str(&source[copied..s.start]);
            let generated = out.len();
            out.push_str(&s.text);
            segments.push(Segment {
                source: s.start,
                source_end: s.end,
                generated,
                generated_end: out.len(),
                same_length: s.same_length,
            });
            copied = s.end;
        }
        out.push_str(&source[copied..]);
        (out, SpliceMap { segments })
    }
}

/// Where an applied edit sits in the source and in the edited text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Segment {
    /// The range of the source the edit replaced.
    source: usize,
    source_end: usize,
    /// The range of the edited text it produced.
    generated: usize,
    generated_end: usize,
    /// A blank: offsets inside map one to one.
    same_length: bool,
}

/// Maps offsets of the edited text back to offsets of the source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpliceMap {
    /// Applied edits, ordered by position (in both texts).
    segments: Vec<Segment>,
}

impl SpliceMap {
    /// The source offset that produced `generated`. Text the rewrite
    /// inserted maps to where it was inserted.
    pub fn to_source(&self, generated: usize) -> usize {
        let i = self.segments.partition_point(|s| s.generated <= generated);
        let Some(s) = i.checked_sub(1).map(|i| &self.segments[i]) else {
            return generated;
        };
        if generated < s.generated_end {
            if s.same_length {
                s.source + (generated - s.generated)
            } else {
                s.source
            }
        } else {
            s.source_end + (generated - s.generated_end)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(source: &str, build: impl FnOnce(&mut Splices)) -> (String, SpliceMap) {
        let mut s = Splices::new();
        build(&mut s);
        s.apply(source)
    }

    #[test]
    fn no_edits_is_the_identity() {
        let (out, map) = apply("let a = 1", |_| {});
        assert_eq!(out, "let a = 1");
        assert_eq!(map.to_source(4), 4);
    }

    #[test]
    fn blanks_keep_line_breaks_and_positions() {
        let src = "let a: {\n  x: number\n} = f()";
        let (out, map) = apply(src, |s| s.blank(src, 5, 22));
        assert_eq!(out, "let a   \n           \n  = f()");
        assert_eq!(out.len(), src.len());
        assert_eq!(map.to_source(10), 10);
        assert_eq!(map.to_source(26), 26);
    }

    #[test]
    fn insertions_shift_what_follows() {
        let src = "a + b";
        let (out, map) = apply(src, |s| {
            s.insert(0, "r = (");
            s.insert(5, ")");
        });
        assert_eq!(out, "r = (a + b)");
        assert_eq!(map.to_source(5), 0, "the `a`");
        assert_eq!(map.to_source(9), 4, "the `b`");
        assert_eq!(map.to_source(2), 0, "inserted text maps to its spot");
        assert_eq!(map.to_source(10), 5, "the inserted `)` maps to its spot");
    }

    #[test]
    fn insertions_at_one_spot_keep_their_order() {
        let (out, _) = apply("x", |s| {
            s.insert(1, ";a");
            s.insert(1, ";b");
        });
        assert_eq!(out, "x;a;b");
    }

    #[test]
    fn an_edit_inside_a_replaced_range_drops_out() {
        let src = "import { type T, a } from 'm'; a";
        let (out, map) = apply(src, |s| {
            s.blank(src, 9, 16);
            s.replace(0, 30, "const { a } = await import('m');");
        });
        assert_eq!(out, "const { a } = await import('m'); a");
        assert_eq!(map.to_source(33), 31);
    }

    #[test]
    fn insertions_around_a_replacement_are_kept() {
        let (out, _) = apply("const a = 1", |s| {
            s.insert(0, "<");
            s.replace(0, 5, "let  ");
            s.insert(11, ">");
        });
        assert_eq!(out, "<let   a = 1>");
    }
}
