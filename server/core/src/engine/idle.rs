//! The idle log: pending blocks above the footer, then the chunks below
//! it taken in order (a `rerun`, a door's submission) until one runs.

use super::*;

impl LogEngine {
    pub(super) fn idle_changed(&mut self, text: &str, now: Now, out: &mut Output) {
        if text.trim().is_empty() {
            // The log was emptied or is new: give it its head and footer.
            let mut w = Work::new(text, 0);
            w.buf = w.eol.convert(&template::new_log_of(&self.stem, self.kind));
            self.footer_hint = w.buf.find(FOOTER);
            self.settle(&mut w, 0, now, out);
            return self.finish(text, w, out);
        }
        // Where the footer and the tail are was found by reconcile, which
        // reads fences: no search here may take page output for them.
        let (mut w, from) = match self.footer_hint.and_then(|h| line_is(text, h, FOOTER)) {
            // From the line above the footer, so taking the footer out sees
            // whether a blank line is already there (one blank at the seam).
            Some(f) => (
                Work::new(text, line_start(text, f.start.saturating_sub(1))),
                0,
            ),
            None => {
                let p = self.tail_from.min(text.len());
                let w = Work::new(text, p.saturating_sub(1));
                let from = p - w.base;
                (w, from)
            }
        };
        self.settle(&mut w, from, now, out);
        self.finish(text, w, out);
    }

    /// The idle loop: put pending blocks above the footer, then take chunks
    /// below it in order until one is dispatched or only prose and drafts
    /// are left.
    pub(super) fn settle(&mut self, w: &mut Work, from: usize, now: Now, out: &mut Output) {
        for _ in 0..MAX_CHUNKS_PER_INPUT {
            let hint = self.footer_hint.and_then(|h| h.checked_sub(w.base));
            let footer = hint
                .and_then(|h| line_is(&w.buf, h, FOOTER))
                .map(|l| tail::Span {
                    start: l.start,
                    next: l.next,
                });
            if let (Some(f), false) = (footer, self.pending.is_empty()) {
                let blocks = self.take_pending(w.eol);
                w.buf.insert_str(f.start, &blocks);
                self.footer_hint = Some(w.base + f.start + blocks.len());
                continue;
            }
            let from = footer.map_or(from, |f| f.next);
            let list = chunks(&w.buf, from, &self.stem);
            // A `rerun` line before any block: the blocks the last failure
            // skipped are written under it, and run as the chunk's.
            if self.answer_rerun(w, &list) {
                continue;
            }
            let first = list.iter().position(|c| c.draft || c.runnable());
            match first.map(|i| &list[i]) {
                Some(c) if c.runnable() => {
                    let mut c = c.clone();
                    if let Some(f) = footer {
                        c = self.footer_out(w, f, c);
                    }
                    if self.accept(w, c, now, out) {
                        return;
                    }
                }
                other => {
                    if let Some((ticket, _)) = self.door_calls.take_written() {
                        // What was written for it did not read as a block.
                        out.effects.push(Effect::Notice(format!(
                            "{}: submitted block {ticket} could not be written as a block",
                            self.stem
                        )));
                    }
                    let stop = other.map_or(w.buf.len(), |c| c.start);
                    let prose = list
                        .iter()
                        .take_while(|c| c.start < stop)
                        .any(|c| c.first_content.is_some());
                    match footer {
                        Some(f) if prose => {
                            // Prose only: it becomes history, the footer
                            // moves below it.
                            w.buf.replace_range(f.start..f.next, "");
                            self.place_footer(w, stop - (f.next - f.start));
                        }
                        Some(_) => {}
                        None => self.place_footer(w, stop),
                    }
                    // Nothing of the agent's to run: a submitted block is
                    // written below the footer, as if appended, and taken.
                    // Not while the agent writes a draft: it would become
                    // part of that chunk.
                    match self.door_calls.poll_submission() {
                        Some(s) if other.is_none() => self.write_submission(w, s, now),
                        Some(s) => {
                            self.door_calls.put_back(s);
                            return;
                        }
                        None => return,
                    }
                }
            }
        }
    }

    /// A `rerun` line before any block: the blocks the last failure
    /// skipped are written under it, and run as the chunk's. Whether one
    /// was answered.
    pub(super) fn answer_rerun(&mut self, w: &mut Work, list: &[tail::Chunk]) -> bool {
        let ask = list
            .iter()
            .take_while(|c| !c.runnable() && !c.draft)
            .find_map(|c| rerun::asked(&w.buf, c));
        let Some((at, terminated)) = ask else {
            return false;
        };
        let text = match rerun::skipped(&self.ledger, self.reran) {
            Some(r) => {
                self.reran = Some(r.first);
                r.text()
            }
            None => rerun::nothing(),
        };
        let nl = if terminated { "" } else { w.nl() };
        let text = format!("{nl}{}", w.eol.convert(&text));
        w.buf.insert_str(at, &text);
        true
    }

    /// Accepting removes the footer `f`: it is never above an agent's
    /// chunk. When both the line above it and the chunk's first line are
    /// blank, the hub's blank line goes too, so the seam keeps one.
    /// Returns the chunk `c` where it now stands.
    pub(super) fn footer_out(
        &mut self,
        w: &mut Work,
        f: tail::Span,
        c: tail::Chunk,
    ) -> tail::Chunk {
        let above_blank = lines_back(&w.buf, f.start)
            .next()
            .is_some_and(|l| l.is_blank());
        let below_blank = lines_from(&w.buf, f.next)
            .next()
            .is_some_and(|l| l.is_blank());
        let start = if above_blank && below_blank {
            line_start(&w.buf, f.start - 1)
        } else {
            f.start
        };
        w.buf.replace_range(start..f.next, "");
        self.footer_hint = None;
        shift_chunk(c, f.next - start)
    }

    /// Writes a submitted block as a chunk right below the footer (the
    /// end of the log: the agent has no draft there); the next turn of
    /// [`LogEngine::settle`] takes it.
    pub(super) fn write_submission(&mut self, w: &mut Work, s: fan_out::Submission, now: Now) {
        let Some(f) = self
            .footer_hint
            .and_then(|h| h.checked_sub(w.base))
            .and_then(|h| line_is(&w.buf, h, FOOTER))
        else {
            return;
        };
        let nl = w.nl();
        let mut text = String::new();
        if !w.buf[..f.next].ends_with('\n') {
            text.push_str(nl);
        }
        text.push_str(nl);
        let chunk = fan_out::chunk(&self.stem, &s, now.clock);
        text.push_str(&w.eol.convert(&chunk));
        w.buf.insert_str(f.next, &text);
        // A save from an older read drops it: it is put back, with its
        // reply (see `reconcile::lost_writes`).
        self.door_calls.handle_written(s.ticket, chunk);
    }

    /// Accepts a runnable chunk (the footer is already gone): inserts the
    /// request header when missing and starts the first block. Returns
    /// whether a job is now running (false when the chunk was answered at
    /// once and the footer is back below it).
    pub(super) fn accept(
        &mut self,
        w: &mut Work,
        mut c: tail::Chunk,
        now: Now,
        out: &mut Output,
    ) -> bool {
        let (agent, header_at) = match c.header.clone() {
            Some((agent, at)) => (agent, at),
            None => {
                let at = c.first_content.unwrap_or(c.start);
                let line = format!("> **agent** to {} at {}{}", self.stem, now.clock, w.nl());
                w.buf.insert_str(at, &line);
                c.exec
                    .iter_mut()
                    .for_each(|b| shift_block(b, line.len() as isize));
                c.end += line.len();
                ("agent".to_string(), at)
            }
        };
        let request_header = lines_from(&w.buf, header_at)
            .next()
            .map_or(String::new(), |l| l.text.to_string());
        let request = (request_header, Some(w.base + header_at));
        let block = c.exec[0].clone();
        self.start_block(w, &block, c.end, agent, request, now, out)
    }

    /// Writes the footer at `at` (a line start, or the end of the buffer),
    /// with pending blocks above it and one blank line before them.
    pub(super) fn place_footer(&mut self, w: &mut Work, at: usize) {
        let nl = w.nl();
        let pending = self.take_pending(w.eol);
        if at >= w.buf.len() {
            // At the end, trailing blank lines collapse to exactly one.
            let content_end = blank_run_start(&w.buf, w.buf.len());
            let mut s = String::new();
            if content_end > 0 && !w.buf[..content_end].ends_with('\n') {
                s.push_str(nl);
            }
            if content_end > 0 {
                s.push_str(nl);
            }
            s.push_str(&pending);
            let footer_at = content_end + s.len();
            s.push_str(FOOTER);
            s.push_str(nl);
            w.buf.replace_range(content_end.., &s);
            self.footer_hint = Some(w.base + footer_at);
        } else {
            let blank_before =
                at == 0 || lines_back(&w.buf, at).next().is_none_or(|l| l.is_blank());
            let mut s = String::new();
            if !blank_before {
                s.push_str(nl);
            }
            s.push_str(&pending);
            let footer_at = at + s.len();
            s.push_str(FOOTER);
            s.push_str(nl);
            w.buf.insert_str(at, &s);
            self.footer_hint = Some(w.base + footer_at);
        }
    }

    /// Pending blocks, each followed by a blank line, in the file's ending.
    pub(super) fn take_pending(&mut self, eol: Eol) -> String {
        let mut s = String::new();
        for p in std::mem::take(&mut self.pending) {
            s.push_str(&eol.convert(&p));
            s.push_str(eol.as_str());
            // A save from an older read may drop it: it is put back.
            self.ledger.wrote(p);
        }
        s
    }
}
