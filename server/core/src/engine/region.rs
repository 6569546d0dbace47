//! The running job's executing region: progress, presence and the
//! placeholder's elapsed time rewritten in it, a `cancel` line or a
//! timeout ending the wait, the realm leaving while it ran.

use super::*;

impl LogEngine {
    /// The running job's events so far (the whole list).
    pub(super) fn progress(&mut self, text: &str, p: JobProgress, now: Now, out: &mut Output) {
        match self.job.as_mut() {
            Some(j) if j.id == p.job => {
                j.news.events = p.events;
                j.news.drops = Drops::new(p.dropped, p.limited);
                self.update_region(text, true, now, out);
            }
            _ => out.effects.push(Effect::Notice(format!(
                "{}: progress for job {}, which is not running, ignored",
                self.stem, p.job
            ))),
        }
    }

    /// The realm's document is gone: the running job's reply says so now.
    pub(super) fn left(&mut self, text: &str, what: &str, now: Now, out: &mut Output) {
        let Some(j) = &self.job else { return };
        let elapsed = now.mono.since(j.time.started);
        let error = JobError {
            name: "Error".into(),
            message: format!("{what} while this block ran, so its result is lost; append the block again to re-run it in the new document"),
            stack: None,
        };
        out.effects.push(Effect::Cancel { job: j.id });
        let verdict = Verdict::Error(elapsed);
        self.complete(text, verdict, Some(Outcome::Error(error)), now, out);
    }

    /// Why the realm cannot run jobs now (`None`: it can): the running
    /// job's placeholder says so.
    pub(super) fn presence(
        &mut self,
        text: &str,
        away: Option<String>,
        now: Now,
        out: &mut Output,
    ) {
        self.away = away.clone();
        let Some(j) = self.job.as_mut() else { return };
        if j.wait.away != away {
            if j.wait.away.is_none() {
                j.wait.away_since = Some(now.clock);
            }
            j.wait.away = away;
            self.update_region(text, true, now, out);
        }
    }

    /// Finds the executing region and rewrites it when `always` (new
    /// events, a placeholder refresh) or when a person damaged it; abandons
    /// the job when it cannot be found nor put back.
    pub(super) fn update_region(&mut self, text: &str, always: bool, now: Now, out: &mut Output) {
        match self.region_work(text) {
            Some((w, r)) if self.cancelled(&w, &r) => {
                let job = self
                    .job
                    .as_ref()
                    .map(|j| (j.id, now.mono.since(j.time.started)));
                if let Some((id, elapsed)) = job {
                    out.effects.push(Effect::Cancel { job: id });
                    let error = JobError {
                        name: "CancelledError".into(),
                        message: "cancelled by a `cancel` line. The realm stopped waiting and takes the next block; a late result is added below if one comes.".into(),
                        stack: None,
                    };
                    let outcome = Some(Outcome::Error(error));
                    self.complete(text, Verdict::Cancelled(elapsed), outcome, now, out);
                }
            }
            Some((mut w, r)) => {
                if !r.placeholder {
                    if let Some(j) = self.job.as_mut() {
                        j.wait.line_deleted = true;
                    }
                }
                if always || !r.placeholder {
                    self.rewrite_region(&mut w, &r, now);
                }
                self.finish(text, w, out);
            }
            None => self.abandon(text, now, out),
        }
    }

    /// Whether a `cancel` line was appended after the running chunk since
    /// the job started (see [`Running::cancels`]). One deleted since
    /// lowers the count, so the next one counts again.
    pub(super) fn cancelled(&mut self, w: &Work, r: &Region) -> bool {
        let now = cancels_after(&w.buf, r.rest.end);
        let Some(job) = self.job.as_mut() else {
            return false;
        };
        if now > job.wait.cancels {
            return true;
        }
        job.wait.cancels = now;
        false
    }

    pub(super) fn tick(&mut self, text: &str, now: Now, out: &mut Output) {
        // The new document did not come in time: the door is answered
        // without its line.
        if let Some((ticket, answer)) = self.door_calls.handle_tick(now.mono) {
            out.effects.push(Effect::Answered { ticket, answer });
        }
        // Reruns that did not answer in time: the line goes with what is
        // known (one write per input: a job's tick waits for the next).
        if let Some(lines) = self.preludes.handle_tick(now.mono) {
            return self.write_lifecycle(text, lines, now, out);
        }
        let Some(job) = &self.job else { return };
        if now.mono >= job.deadline() {
            let (id, timeout_ms) = (job.id, job.time.timeout_ms);
            out.effects.push(Effect::Cancel { job: id });
            self.complete(text, Verdict::Timeout(timeout_ms), None, now, out);
        } else if now.mono.since(job.time.shown_at) >= PLACEHOLDER_REFRESH_MS {
            self.update_region(text, true, now, out);
        }
    }

    /// Finds the executing region (or puts it back under the running block
    /// when a person removed it) and the rest of the running chunk.
    pub(super) fn region_work(&mut self, text: &str) -> Option<(Work, Region)> {
        let stem = self.stem.clone();
        let job = self.job.as_mut()?;
        // Reconcile found the region under the job's own block (or put it
        // back there), fence-aware: the hint is where it is.
        let found = job
            .place
            .region_hint
            .and_then(|h| line_is(text, h, &job.place.exec_header))
            .map(|l| l.start);
        if let Some(start) = found {
            job.place.region_hint = Some(start);
            let w = Work::new(text, start);
            let (end, placeholder) = survey::hub_block_extent(
                &w.buf,
                lines_from(&w.buf, 0).next().map_or(0, |l| l.next),
                true,
                &stem,
            );
            let after = if job.place.sep {
                skip_one_blank(&w.buf, end)
            } else {
                end
            };
            let rest_end = if w.buf[after..].starts_with(&job.place.rest) {
                // The rest may have ended mid-line (no final newline) and
                // the agent continued that line: the whole line is the rest's.
                let end = to_line_end(&w.buf, after + job.place.rest.len());
                job.place.rest = w.buf[after..end].to_string();
                end
            } else {
                // The agent edited the rest of its chunk: take it as it is
                // now, up to the next request header.
                let e = next_request(&w.buf, after, &stem);
                job.place.rest = w.buf[after..e].to_string();
                e
            };
            return Some((
                w,
                Region {
                    start: 0,
                    end,
                    placeholder,
                    rest: after..rest_end,
                },
            ));
        }
        None
    }

    pub(super) fn rewrite_region(&mut self, w: &mut Work, r: &Region, now: Now) {
        let Some(job) = self.job.as_mut() else { return };
        if now.mono.since(job.time.shown_at) >= PLACEHOLDER_REFRESH_MS {
            job.time.shown_secs = now.mono.since(job.time.started) / 1000;
            job.time.shown_at = now.mono;
        }
        let region = w.eol.convert(&job.region_text());
        w.buf.replace_range(r.start..r.end, &region);
    }

    /// The executing region cannot be found nor put back: say so in the
    /// log, cancel the job and restore the footer.
    pub(super) fn abandon(&mut self, text: &str, now: Now, out: &mut Output) {
        let Some(job) = self.job.take() else { return };
        let error = JobError {
            name: "Error".into(),
            message: format!(
                "the executing reply of this request was edited or removed from the log, so job {} was cancelled; append the block again to re-run it",
                job.id
            ),
            stack: None,
        };
        let elapsed = now.mono.since(job.time.started);
        let (verdict, outcome) = (Verdict::Error(elapsed), Outcome::Error(error));
        // A fan-out job keeps the replies it gathered.
        let reply = self.final_reply(&job, now.clock, &verdict, &outcome, 0, out);
        self.answer(job.id, &reply, &verdict, &outcome, &job.news.events, out);
        self.pending.insert(0, reply.clone());
        // The note and the footer go above the first chunk the agent added
        // after the hub's part of the log (reconcile found where that
        // ends): that chunk stays new and runs, not taken for answered.
        // Never in the log's head: a save with no hub block left has its
        // tail from the text's start.
        let head = template::head_end(text, &self.stem).0;
        let from = self.tail_from.min(text.len()).max(head);
        let new_chunk = chunks(text, from, &self.stem)
            .into_iter()
            .find(|c| c.draft || c.runnable())
            .map(|c| c.start);
        let mut w = Work::new(
            text,
            new_chunk.map_or(end_base(text), |at| at.saturating_sub(1)),
        );
        let pos = new_chunk.map_or(w.buf.len(), |at| at - w.base);
        // The agent is told to append the block again: that must run (a
        // copy with nothing under it is new). A save from an older read
        // that brings the block back with its region is this block: it
        // gets this reply and does not run again.
        if let Some(t) = self.ledger.of_job(job.id) {
            t.state = TakenState::Replied(reply.as_str().into());
            t.released = true;
        }
        self.place_footer(&mut w, pos);
        out.effects.push(Effect::Cancel { job: job.id });
        out.effects.push(Effect::State(LogState::Failed));
        out.effects.push(Effect::Notice(format!(
            "{}: lost the executing region of job {}; cancelled it",
            self.stem, job.id
        )));
        self.ended.handle_unanswered(job.id, job.agent);
        self.settle(&mut w, pos, now, out);
        self.finish(text, w, out);
    }
}
