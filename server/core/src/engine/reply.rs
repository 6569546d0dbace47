//! The running job's reply: a result (or a timeout, a cancel, the realm
//! gone) rendered under its block, a door's answer, a fan-out's gathered
//! replies; then the chunk's next block, or the footer back.

use super::*;

impl LogEngine {
    /// A fan-out log's job went to these realms.
    pub(super) fn fanned_out(
        &mut self,
        text: &str,
        job: JobId,
        stems: Vec<String>,
        now: Now,
        out: &mut Output,
    ) {
        let gathering = self.job.as_mut().filter(|j| j.id == job);
        match gathering.and_then(|j| j.news.gathering.as_mut()) {
            Some(g) => {
                g.asked = Some(stems);
                self.gathered(text, now, out);
            }
            None => out.effects.push(Effect::Notice(format!(
                "{}: job {job}, which is not gathering answers, was sent out",
                self.stem
            ))),
        }
    }

    /// One realm's reply to a fan-out log's job.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn realm_answered(
        &mut self,
        text: &str,
        job: JobId,
        stem: &str,
        reply: String,
        ok: bool,
        now: Now,
        out: &mut Output,
    ) {
        let added = self
            .job
            .as_mut()
            .filter(|j| j.id == job)
            .and_then(|j| j.news.gathering.as_mut())
            .is_some_and(|g| g.add(stem, &reply, ok));
        let late = match self.config.fan_out {
            true => self.ended.late_agent(job),
            false => None,
        };
        match (added, late.map(str::to_string)) {
            (true, _) => self.gathered(text, now, out),
            // After the fan-out job stopped waiting: the realm's reply goes
            // above the footer, as a late result would, under a header of
            // this log's (so a save that drops it gets it back, and it is
            // not taken for another's).
            (false, Some(agent)) => {
                let header = format!("> **{}** to {agent} at {} (late)\n", self.stem, now.clock);
                self.above_footer(text, header + &reply, now, out);
            }
            (false, None) => out.effects.push(Effect::Notice(format!(
                "{}: the reply of {stem} to job {job} came when it was no longer awaited; it is in {stem}'s log",
                self.stem
            ))),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn result(
        &mut self,
        text: &str,
        job: JobId,
        outcome: Outcome,
        events: Vec<BackgroundEvent>,
        drops: Drops,
        duration_ms: u64,
        now: Now,
        out: &mut Output,
    ) {
        if let Some(done) = self.preludes.handle_result(job, &outcome) {
            if let Some(lines) = done {
                self.write_lifecycle(text, lines, now, out);
            }
            return;
        }
        if self.job.as_ref().is_some_and(|j| j.id == job) {
            let verdict = match outcome {
                Outcome::Ok(_) => Verdict::Ok(duration_ms),
                Outcome::Error(_) => Verdict::Error(duration_ms),
            };
            if let Some(j) = self.job.as_mut() {
                j.news.events = events;
                j.news.drops = drops;
            }
            return self.complete(text, verdict, Some(outcome), now, out);
        }
        if let Some(agent) = self.ended.take_late(job) {
            let suffix = format!("(late, {})", format_duration(duration_ms));
            let shown = self.pictures.take(job);
            let reply = self.reply(
                &agent, now.clock, &suffix, &outcome, &shown, &events, drops, 0, out,
            );
            return self.above_footer(text, reply, now, out);
        }
        let why = if self.ended.has_reply(job) {
            "already has its reply"
        } else {
            "is unknown"
        };
        out.effects.push(Effect::Notice(format!(
            "{}: result for job {job} ignored: the job {why}",
            self.stem
        )));
    }

    /// Ends the running block: its reply replaces the executing region,
    /// then the chunk's next block starts, or the footer goes back.
    pub(super) fn complete(
        &mut self,
        text: &str,
        verdict: Verdict,
        outcome: Option<Outcome>,
        now: Now,
        out: &mut Output,
    ) {
        // A timeout whose region is gone leaves no reply in the log (there
        // is nothing to say that the region's loss did not), only its answer.
        let written = outcome.is_some();
        let Some(outcome) = outcome.or_else(|| {
            let job = self.job.as_ref()?;
            Some(Outcome::Error(job.timeout_error(&verdict)))
        }) else {
            return;
        };
        let Some((mut w, r)) = self.region_work(text) else {
            // Nowhere to put it: the reply goes above the footer instead.
            let Some(job) = self.job.take() else { return };
            let reply = self.final_reply(&job, now.clock, &verdict, &outcome, 0, out);
            self.answer(job.id, &reply, &verdict, &outcome, &job.news.events, out);
            if written {
                if let Some(t) = self.ledger.of_job(job.id) {
                    t.state = TakenState::Replied(reply.as_str().into());
                }
                self.pending.push(reply);
            }
            self.ended.handle_unanswered(job.id, job.agent);
            return self.idle_changed(text, now, out);
        };
        let Some(job) = self.job.take() else { return };
        let later = exec_blocks(&w.buf, r.rest.clone());
        let ok = matches!(verdict, Verdict::Ok(_));
        let skipped = if ok { 0 } else { later.len() };
        let reply = self.final_reply(&job, job.place.exec_clock, &verdict, &outcome, skipped, out);
        if let Some(t) = self.ledger.of_job(job.id) {
            t.state = TakenState::Replied(reply.as_str().into());
        }
        self.answer(job.id, &reply, &verdict, &outcome, &job.news.events, out);
        let reply = w.eol.convert(&reply);
        let delta = reply.len() as isize - (r.end - r.start) as isize;
        w.buf.replace_range(r.start..r.end, &reply);
        let rest_end = r.rest.end.saturating_add_signed(delta);
        if !ok {
            for b in &later {
                let mut b = b.clone();
                shift_block(&mut b, delta);
                let mut t = reconcile::skipped(&w.buf, &b);
                t.place = Place::At(w.base + b.start);
                self.ledger.push(t);
            }
        }
        match verdict {
            // A late result still comes: it is written as late.
            Verdict::Timeout(_) | Verdict::Cancelled(_) => {
                self.ended.handle_unanswered(job.id, job.agent.clone())
            }
            _ => self.ended.handle_replied(job.id),
        }
        if ok {
            if let Some(mut next) = later.into_iter().next() {
                shift_block(&mut next, delta);
                let request = (job.place.request_header, job.place.request_hint);
                if !self.start_block(&mut w, &next, rest_end, job.agent, request, now, out) {
                    self.settle(&mut w, 0, now, out);
                }
                return self.finish(text, w, out);
            }
        }
        out.effects.push(Effect::State(verdict.state()));
        self.place_footer(&mut w, rest_end);
        self.settle(&mut w, 0, now, out);
        self.finish(text, w, out);
    }

    /// Tells the door that submitted `job`, if one did, how it ended.
    pub(super) fn answer(
        &mut self,
        job: JobId,
        reply: &str,
        verdict: &Verdict,
        outcome: &Outcome,
        events: &[BackgroundEvent],
        out: &mut Output,
    ) {
        let answer = || effect::Answer {
            job,
            reply: reply.to_string(),
            state: verdict.state(),
            outcome: outcome.clone(),
            events: events.to_vec(),
            duration_ms: verdict.ms(),
            unwritten: None,
        };
        if let Some((ticket, answer)) = self.door_calls.answer(job, answer) {
            out.effects.push(Effect::Answered { ticket, answer });
        }
    }

    /// A fan-out job's answers changed: it ends when every realm asked
    /// has answered (at once when none was asked), else its region shows
    /// the replies so far.
    pub(super) fn gathered(&mut self, text: &str, now: Now, out: &mut Output) {
        let Some(job) = &self.job else { return };
        let Some(g) = job.news.gathering.as_ref().filter(|g| g.complete()) else {
            return self.update_region(text, true, now, out);
        };
        let elapsed = now.mono.since(job.time.started);
        let verdict = match g.asked.as_ref().is_some_and(Vec::is_empty) || g.failed > 0 {
            true => Verdict::Error(elapsed),
            false => Verdict::Ok(elapsed),
        };
        // The replies are the body (see `final_reply`).
        let outcome = Outcome::Ok(Value::Text(String::new()));
        self.complete(text, verdict, Some(outcome), now, out);
    }

    /// The reply that replaces a job's region (LF endings): its outcome,
    /// events and notes, and the lifecycle lines written while it ran; a
    /// fan-out job's is the realms' replies instead of its outcome.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn final_reply(
        &mut self,
        job: &Running,
        at: ClockTime,
        verdict: &Verdict,
        outcome: &Outcome,
        skipped: usize,
        out: &mut Output,
    ) -> String {
        let Some(g) = &job.news.gathering else {
            // The dev server's hot updates while it ran are lines after
            // it, as lifecycle lines are (docs/log-format.md, "Hot
            // updates").
            let (hot, events): (Vec<_>, Vec<_>) = job
                .news
                .events
                .iter()
                .cloned()
                .partition(|e| e.source.as_deref() == Some(render::HOT_SOURCE));
            let hot: String = hot
                .iter()
                .map(|e| {
                    let when = ClockTime::parse(&e.ts).unwrap_or(at);
                    lifecycle::hot_updated(&self.stem, &e.message, when) + "\n"
                })
                .collect();
            let lifecycle = job.news.lifecycle.clone() + &hot;
            let (events, drops) = (&events[..], job.news.drops);
            let suffix = verdict.suffix();
            let note = match outcome {
                Outcome::Ok(Value::Json(v)) if job.data => agent_data::note(v),
                _ => None,
            };
            let reply = match note {
                // A data fence's reply: its note (and what it logged).
                Some(note) => format!(
                    "> **{}** to {} at {at} {suffix}\n{}{note}\n",
                    self.stem,
                    job.agent,
                    render::events(events, drops)
                ),
                None => {
                    let shown = self.pictures.take(job.id);
                    self.reply(
                        &job.agent, at, &suffix, outcome, &shown, events, drops, skipped, out,
                    )
                }
            };
            // What happened to the realm while it ran, after a blank line.
            return match lifecycle.is_empty() {
                true => reply,
                false => reply + "\n" + &lifecycle,
            };
        };
        let mut s = format!(
            "> **{}** to {} at {at} {}\n",
            self.stem,
            job.agent,
            verdict.suffix()
        );
        s.push_str(&g.replies);
        let missing = match &g.asked {
            None => vec!["the realms"],
            Some(_) => g.missing(),
        };
        let error = match verdict {
            _ if g.asked.as_ref().is_some_and(Vec::is_empty) => Some(fan_out::no_realm()),
            _ if missing.is_empty() => None,
            Verdict::Timeout(ms) => Some(fan_out::missing(&missing, Some(*ms))),
            Verdict::Cancelled(_) => Some(fan_out::missing(&missing, None)),
            // The code itself failed before anything was sent.
            _ => match outcome {
                Outcome::Error(e) => Some(e.clone()),
                Outcome::Ok(_) => None,
            },
        };
        if let Some(e) = error {
            s.push_str(&render::fenced("Error", &render::error_text(&e)));
        }
        if skipped > 0 {
            s.push_str(&skip_note(skipped));
            s.push('\n');
        }
        s
    }

    /// A whole reply: header, result fence, the job's pictures, background
    /// events and notes (LF endings).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn reply(
        &mut self,
        agent: &str,
        at: ClockTime,
        suffix: &str,
        outcome: &Outcome,
        pictures: &[picture::Picture],
        events: &[BackgroundEvent],
        drops: Drops,
        skipped: usize,
        out: &mut Output,
    ) -> String {
        let mut s = format!("> **{}** to {agent} at {at} {suffix}\n", self.stem);
        let mut notes = Vec::new();
        match outcome {
            Outcome::Ok(v) => {
                let (info, content) = render::value(v, self.config.inline_limit);
                match render::cut(&content, self.config.inline_limit) {
                    (kept, true) => {
                        let path = format!("archive/{}-{}.txt", self.stem, self.next_job);
                        self.next_job += 1;
                        s.push_str(&render::fenced("Text", kept));
                        notes.push(format!(
                            "(cut at {} of {} bytes; the whole reply is in [{path}]({path}))",
                            kept.len(),
                            content.len()
                        ));
                        out.effects.push(Effect::Archive {
                            path,
                            text: content,
                        });
                    }
                    (_, false) => s.push_str(&render::fenced(info, &content)),
                }
            }
            Outcome::Error(e) => s.push_str(&render::fenced("Error", &render::error_text(e))),
        }
        for p in pictures {
            s.push_str(&p.line());
            s.push('\n');
        }
        s.push_str(&render::events(events, drops));
        if skipped > 0 {
            notes.push(skip_note(skipped));
        }
        for n in notes {
            s.push_str(&n);
            s.push('\n');
        }
        s
    }
}
