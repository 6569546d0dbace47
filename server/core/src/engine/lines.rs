//! Lines about the realm and the hub (a new document with its preludes'
//! reruns, `closed`, the hub's stop, a person's answer): in the running
//! job's region or above it, else above the footer.

use super::*;

impl LogEngine {
    /// The hub's stop line: after the running job's region (its reply
    /// never comes from this hub), else above the footer.
    pub(super) fn hub_stopped(&mut self, text: &str, now: Now, out: &mut Output) {
        let line = format!("> **hub** stopped at {}\n", now.clock);
        if self.job.is_none() {
            return self.above_footer(text, line, now, out);
        }
        let mut w = Work::new(text, text.len());
        let nl = w.nl();
        if !w.buf.is_empty() && !w.buf.ends_with('\n') {
            w.buf.push_str(nl);
        }
        w.buf.push_str(nl);
        w.buf.push_str(&w.eol.convert(&line));
        self.finish(text, w, out);
    }

    /// A lifecycle line (`reloaded`, `navigated`, `closed`, …) at `at`; a
    /// new document reruns the preludes first.
    pub(super) fn lifecycle(
        &mut self,
        text: &str,
        what: lifecycle::Lifecycle,
        url: &str,
        at: ClockTime,
        now: Now,
        out: &mut Output,
    ) {
        let line = lifecycle::line(&self.stem, what, url, at) + "\n";
        let reruns = !matches!(
            what,
            lifecycle::Lifecycle::Closed | lifecycle::Lifecycle::Exited
        );
        if let Some(lines) = self.rerun_preludes(line, reruns, now, out) {
            self.write_lifecycle(text, lines, now, out);
        }
    }

    /// A person's answer: in the running job's region (the block that
    /// awaits it, as a rule), else above the footer.
    pub(super) fn human_answered(&mut self, text: &str, lines: String, now: Now, out: &mut Output) {
        match self.job.as_mut() {
            Some(j) => {
                j.news.lifecycle.push_str(&lines);
                self.update_region(text, true, now, out);
            }
            None => self.above_footer(text, lines, now, out),
        }
    }

    /// Dispatches a rerun of each prelude still standing as written (in
    /// the new document); the line waits for their answers. The text to
    /// write now, when there is no rerun to wait for.
    pub(super) fn rerun_preludes(
        &mut self,
        line: String,
        reruns: bool,
        now: Now,
        out: &mut Output,
    ) -> Option<String> {
        // Edited or deleted: the last whole survey did not find its block.
        let ledger = &self.ledger;
        let standing = |job: JobId| {
            ledger
                .iter()
                .find(|t| t.job == Some(job))
                .is_none_or(|t| t.place != Place::Gone)
        };
        let (next_job, preparer) = (&mut self.next_job, &self.config.preparer);
        let rerun = |p: &prelude::Prelude| {
            let id = JobId(*next_job);
            *next_job += 1;
            let prepared = preparer.prepare(&p.code, p.lang, id).ok()?;
            out.effects.push(Effect::Prelude {
                job: id,
                prepared,
                timeout_ms: p.timeout_ms,
                depth: p.depth,
                full: p.full,
            });
            Some(id)
        };
        self.preludes
            .handle_document(line, reruns, standing, rerun, now.mono)
    }

    /// Writes a lifecycle line (and its prelude notes) where it happened:
    /// into the region of a job running when it happened; above a job
    /// that has not started yet (it runs in the new document); else above
    /// the footer. A door call whose block reloaded the page gets the
    /// line in its answer.
    pub(super) fn write_lifecycle(
        &mut self,
        text: &str,
        lines: String,
        now: Now,
        out: &mut Output,
    ) {
        if let Some((ticket, answer)) = self.door_calls.handle_document(&lines) {
            out.effects.push(Effect::Answered { ticket, answer });
        }
        match self.job.as_mut() {
            Some(j) if j.wait.begun => {
                j.news.lifecycle.push_str(&lines);
                self.update_region(text, true, now, out);
            }
            Some(_) => {
                if let Some(j) = self.job.as_mut() {
                    j.wait.in_new_document = true;
                }
                self.line_above_running(text, lines, now, out)
            }
            None => {
                self.pending.push(lines);
                self.idle_changed(text, now, out);
            }
        }
    }

    /// A new document's line, above the running block that will run in
    /// it: above its chunk's request header when it is the chunk's first
    /// block, else right above it (after the reply of the block before).
    /// Remembered after the block before it, so a save that drops it gets
    /// it back there.
    pub(super) fn line_above_running(
        &mut self,
        text: &str,
        lines: String,
        now: Now,
        out: &mut Output,
    ) {
        let Some(j) = self.job.as_ref() else { return };
        let taken = self.ledger.iter().position(|t| t.job == Some(j.id));
        let block_at = taken.and_then(|k| {
            let t = self.ledger.get(k);
            line_is(text, t.place.at()?, &t.opener).map(|l| l.start)
        });
        let (Some(k), Some(block_at)) = (taken, block_at) else {
            // The block is not where the engine left it: the line goes in
            // the region, which reconcile found.
            if let Some(j) = self.job.as_mut() {
                j.news.lifecycle.push_str(&lines);
            }
            return self.update_region(text, true, now, out);
        };
        let before = (k > 0).then(|| self.ledger.get(k - 1));
        let header_at = j
            .place
            .request_hint
            .and_then(|h| line_is(text, h, &j.place.request_header))
            .map(|l| l.start);
        let first_of_chunk = header_at.is_some_and(|h| {
            h <= block_at && before.and_then(|b| b.place.at()).is_none_or(|b| b < h)
        });
        let at = match (first_of_chunk, header_at) {
            (true, Some(h)) => h,
            _ => block_at,
        };
        let after = before.map_or(0, |b| b.seq);
        let mut w = Work::new(text, at);
        let nl = w.nl();
        let mut insert = String::new();
        if at > 0 && lines_back(text, at).next().is_some_and(|l| !l.is_blank()) {
            insert.push_str(nl);
        }
        insert.push_str(&w.eol.convert(&lines));
        insert.push_str(nl);
        w.buf.insert_str(at - w.base, &insert);
        let len = insert.len();
        self.ledger.wrote_after(after, lines);
        // What stands from `at` on moved down.
        let shift = |h: usize| if h >= at { h + len } else { h };
        for t in self.ledger.iter_mut() {
            if let Place::At(h) = t.place {
                t.place = Place::At(shift(h));
            }
        }
        if let Some(j) = self.job.as_mut() {
            j.place.region_hint = j.place.region_hint.map(shift);
            j.place.request_hint = j.place.request_hint.map(shift);
        }
        self.tail_from = shift(self.tail_from);
        self.redate_waiting(&mut w, now);
        self.finish(text, w, out);
    }

    /// The job that waited for a new document runs in it from now: its
    /// region's header (and so its reply's) takes this time, never earlier
    /// than the document's line above it.
    pub(super) fn redate_waiting(&mut self, w: &mut Work, now: Now) {
        let Some(j) = self.job.as_mut() else { return };
        let Some((who, _)) = j.place.exec_header.rsplit_once(" at ") else {
            return;
        };
        let header = format!("{who} at {}", now.clock);
        let Some(rel) = j.place.region_hint.and_then(|h| h.checked_sub(w.base)) else {
            return;
        };
        if header == j.place.exec_header || !w.buf[rel..].starts_with(&j.place.exec_header) {
            return;
        }
        w.buf
            .replace_range(rel..rel + j.place.exec_header.len(), &header);
        for t in self.ledger.iter_mut().filter(|t| t.job == Some(j.id)) {
            t.header = header.as_str().into();
        }
        j.place.exec_header = header;
        j.place.exec_clock = now.clock;
    }
}
