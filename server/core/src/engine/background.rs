//! Background events (what a realm logged outside any job, the bridge's
//! lines, a dev server's hot updates) as the log shows them: a
//! `background` block above the footer, hot updates as lines of their own
//! (docs/log-format.md, "Hot updates").

use super::render::{self, Drops};
use super::{lifecycle, BackgroundEvent, LogEngine, Now, Output};

impl LogEngine {
    /// Writes a batch of background events (held for a write of many).
    pub(super) fn background(
        &mut self,
        text: &str,
        events: Vec<BackgroundEvent>,
        drops: Drops,
        over_rate: u32,
        now: Now,
        out: &mut Output,
    ) {
        // A hot update is a line of its own, in its place among the events.
        let (hot, events): (Vec<_>, Vec<_>) = events
            .into_iter()
            .partition(|e| e.source.as_deref() == Some(render::HOT_SOURCE));
        let mut hot_lines = self.hot_lines(&hot, now);
        let quiet = events.is_empty() && drops.is_none() && over_rate == 0;
        if quiet {
            if !hot_lines.is_empty() {
                self.above_footer(text, hot_lines, now, out);
            }
            return;
        }
        let header = format!("> **{}** background at {}\n", self.stem, now.clock);
        if !hot_lines.is_empty() {
            hot_lines.push('\n');
        }
        let mut block = hot_lines + &header + &render::events(&events, drops);
        if over_rate > 0 {
            block.push_str(&render::over_rate_note(over_rate));
        }
        match &self.job {
            // The new document's events before the block began in it stand
            // with its line, above the block: the log keeps the order
            // things happened in.
            Some(j) if !j.wait.begun && j.wait.in_new_document => {
                self.line_above_running(text, block, now, out)
            }
            _ => self.above_footer(text, block, now, out),
        }
    }

    /// The hot update lines, each its own paragraph (a blank line between),
    /// as headers are.
    fn hot_lines(&self, hot: &[BackgroundEvent], now: Now) -> String {
        let mut lines = String::new();
        for e in hot {
            if !lines.is_empty() {
                lines.push('\n');
            }
            lines.push_str(&lifecycle::hot_updated(&self.stem, &e.message, now.clock));
            lines.push('\n');
        }
        lines
    }
}
