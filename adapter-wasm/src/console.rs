//! The state behind the console methods that are more than a message:
//! counters (`count`, `countReset`), timers (`time`, `timeLog`,
//! `timeEnd`) and group nesting (`group`, `groupCollapsed`, `groupEnd`),
//! and the text table of `console.table`. Pure: labels, times and cells
//! come in, text comes out ([`crate::capture`] reads the JavaScript
//! values).

use daebug_protocol::text;

/// Counters, timers and the group depth of one realm's console. (Lists,
/// not hash maps: a page has a few labels, and the adapter's size counts.)
#[derive(Debug, Default)]
pub struct ConsoleState {
    counts: Vec<(String, u64)>,
    /// Start of each timer, in milliseconds on any monotonic scale.
    timers: Vec<(String, f64)>,
    depth: usize,
}

/// The label a console method uses: its first argument, `default` when
/// there is none.
pub fn label(first: Option<String>) -> String {
    first.unwrap_or_else(|| "default".into())
}

impl ConsoleState {
    /// `console.count(label)`: `label: 3`.
    pub fn count(&mut self, label: &str) -> String {
        let n = match self.counts.iter_mut().find(|(l, _)| l == label) {
            Some((_, n)) => n,
            None => {
                self.counts.push((label.to_string(), 0));
                &mut self.counts.last_mut().expect("just pushed").1
            }
        };
        *n += 1;
        format!("{label}: {n}")
    }

    /// `console.countReset(label)`; says so when there was no counter.
    pub fn count_reset(&mut self, label: &str) -> Option<String> {
        match self.counts.iter_mut().find(|(l, _)| l == label) {
            Some((_, n)) => {
                *n = 0;
                None
            }
            None => Some(format!("Count for '{label}' does not exist")),
        }
    }

    /// `console.time(label)`; says so when that timer already runs.
    pub fn time(&mut self, label: &str, now: f64) -> Option<String> {
        if self.timers.iter().any(|(l, _)| l == label) {
            return Some(format!("Timer '{label}' already exists"));
        }
        self.timers.push((label.to_string(), now));
        None
    }

    /// `console.timeLog(label)` (`end` false) or `console.timeEnd(label)`:
    /// `label: 182.4 ms`, or that there is no such timer.
    pub fn time_log(&mut self, label: &str, now: f64, end: bool) -> String {
        let at = self.timers.iter().position(|(l, _)| l == label);
        let start = match (at, end) {
            (Some(i), true) => Some(self.timers.remove(i).1),
            (Some(i), false) => Some(self.timers[i].1),
            (None, _) => None,
        };
        match start {
            Some(start) => format!("{label}: {}", millis(now - start)),
            None => format!("Timer '{label}' does not exist"),
        }
    }

    /// A group starts after its label is shown.
    pub fn group(&mut self) {
        self.depth += 1;
    }

    pub fn group_end(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// A message as it stands inside the current groups: every line
    /// indented two spaces a level.
    pub fn indent(&self, message: &str) -> String {
        if self.depth == 0 {
            return message.to_string();
        }
        let pad = "  ".repeat(self.depth);
        let lines: Vec<String> = message
            .split('\n')
            .map(|line| format!("{pad}{line}"))
            .collect();
        text::join(&lines, "\n")
    }
}

/// A duration as the console shows it: `182.4 ms`, `0.012 ms`. Made
/// with integers: float formatting would add tens of KB to the adapter.
fn millis(ms: f64) -> String {
    let ms = ms.max(0.0);
    if ms >= 1.0 {
        let tenths = (ms * 10.0).round() as u64;
        format!("{}.{} ms", tenths / 10, tenths % 10)
    } else {
        let thousandths = (ms * 1000.0).round() as u64;
        format!("0.{thousandths:03} ms")
    }
}

/// Rows shown by `console.table` at most; the rest are counted.
pub const TABLE_ROWS: usize = 100;
/// Columns shown at most (besides the index).
pub const TABLE_COLUMNS: usize = 20;

/// One row of a table: its index and its cells, each a key (`None`: the
/// row is a plain value) and the cell's text.
pub type TableRow = (String, Vec<(Option<String>, String)>);

/// A text table, as Node's `console.table` draws one: `(index)`, then one
/// column per key found in the rows (in order of appearance), and a
/// `Values` column for rows that are not objects. `rows` are (index,
/// cells) where a cell is (key, text) and `None` for the key means a row
/// that is a plain value. `more` rows were left out.
pub fn table(rows: &[TableRow], more: usize) -> String {
    let mut columns: Vec<String> = Vec::new();
    let mut values = false;
    for (_, cells) in rows {
        for (key, _) in cells {
            match key {
                Some(k) if !columns.contains(k) && columns.len() < TABLE_COLUMNS => {
                    columns.push(k.clone())
                }
                Some(_) => {}
                None => values = true,
            }
        }
    }
    let mut head = vec!["(index)".to_string()];
    head.extend(columns.iter().cloned());
    if values {
        head.push("Values".into());
    }
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|(index, cells)| {
            let mut line = vec![index.clone()];
            for c in &columns {
                let cell = cells.iter().find(|(k, _)| k.as_ref() == Some(c));
                line.push(cell.map_or(String::new(), |(_, t)| t.clone()));
            }
            if values {
                let cell = cells.iter().find(|(k, _)| k.is_none());
                line.push(cell.map_or(String::new(), |(_, t)| t.clone()));
            }
            line
        })
        .collect();
    let widths: Vec<usize> = (0..head.len())
        .map(|i| {
            std::iter::once(&head[i])
                .chain(body.iter().map(|r| &r[i]))
                .map(|s| text::chars(s))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let rule = |l: &str, m: &str, r: &str| {
        let parts: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
        format!("{l}{}{r}", text::join(&parts, m))
    };
    let line = |cells: &[String]| {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!(" {c}{} ", " ".repeat(w - text::chars(c))))
            .collect();
        format!("│{}│", text::join(&parts, "│"))
    };
    let mut out = vec![rule("┌", "┬", "┐"), line(&head), rule("├", "┼", "┤")];
    out.extend(body.iter().map(|r| line(r)));
    out.push(rule("└", "┴", "┘"));
    if more > 0 {
        out.push(format!("... {more} more rows"));
    }
    text::join(&out, "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_and_timers() {
        let mut c = ConsoleState::default();
        assert_eq!(c.count("a"), "a: 1");
        assert_eq!(c.count("a"), "a: 2");
        assert_eq!(c.count("default"), "default: 1");
        assert_eq!(c.count_reset("a"), None);
        assert_eq!(c.count("a"), "a: 1");
        assert_eq!(
            c.count_reset("nope").as_deref(),
            Some("Count for 'nope' does not exist")
        );
        assert_eq!(c.time("t", 100.0), None);
        assert!(c.time("t", 110.0).is_some());
        assert_eq!(c.time_log("t", 282.44, false), "t: 182.4 ms");
        assert_eq!(c.time_log("t", 100.012, true), "t: 0.012 ms");
        assert_eq!(c.time_log("t", 300.0, true), "Timer 't' does not exist");
    }

    #[test]
    fn groups_indent_what_is_inside() {
        let mut c = ConsoleState::default();
        assert_eq!(c.indent("a"), "a");
        c.group();
        c.group();
        assert_eq!(c.indent("a\nb"), "    a\n    b");
        c.group_end();
        assert_eq!(c.indent("a"), "  a");
        c.group_end();
        c.group_end();
        assert_eq!(c.indent("a"), "a");
    }

    #[test]
    fn a_table_has_a_column_per_key() {
        let row = |i: &str, cells: &[(Option<&str>, &str)]| {
            (
                i.to_string(),
                cells
                    .iter()
                    .map(|(k, v)| (k.map(String::from), v.to_string()))
                    .collect(),
            )
        };
        let t = table(
            &[
                row("0", &[(Some("a"), "1"), (Some("b"), "'x'")]),
                row("1", &[(Some("a"), "22")]),
                row("2", &[(None, "7")]),
            ],
            3,
        );
        assert_eq!(
            t,
            "┌─────────┬────┬─────┬────────┐\n\
             │ (index) │ a  │ b   │ Values │\n\
             ├─────────┼────┼─────┼────────┤\n\
             │ 0       │ 1  │ 'x' │        │\n\
             │ 1       │ 22 │     │        │\n\
             │ 2       │    │     │ 7      │\n\
             └─────────┴────┴─────┴────────┘\n\
             ... 3 more rows"
        );
    }
}
