//! A block starts: prepared, then answered at once with its error, or
//! taken and dispatched with its executing region under it.

use super::*;

impl LogEngine {
    /// Inserts the executing region under `block` and dispatches it.
    /// Returns false when the block was answered at once instead (a syntax
    /// error, a bad fence option): its error reply is written, the chunk's
    /// later blocks are skipped and the footer goes back after the chunk.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn start_block(
        &mut self,
        w: &mut Work,
        block: &ExecBlock,
        chunk_end: usize,
        agent: String,
        request: (String, Option<usize>),
        now: Now,
        out: &mut Output,
    ) -> bool {
        let id = JobId(self.next_job);
        self.next_job += 1;
        let (ticket, chunk) = self.door_calls.take_written().unzip();
        let code = w.buf[block.body.clone()].replace("\r\n", "\n");
        let opener = lines_from(&w.buf, block.start)
            .next()
            .map_or(String::new(), |l| l.text.to_string());
        let exec_header = format!("> **{}** to {agent} at {}", self.stem, now.clock);
        let starting = Starting {
            id,
            ticket,
            chunk,
            agent,
            prepared: self.prepare_block(block, &code, id),
            code,
            opener,
            exec_header,
        };
        match starting.prepared.is_ok() {
            true => self.run_block(w, block, chunk_end, starting, request, now, out),
            false => self.refuse_block(w, block, chunk_end, starting, now, out),
        }
    }

    /// What the realm runs for `block`, or the error it is answered with
    /// at once (a bad fence option, a syntax error).
    pub(super) fn prepare_block(
        &self,
        block: &ExecBlock,
        code: &str,
        id: JobId,
    ) -> Result<Prepared, JobError> {
        if let Some(message) = block.info.invalid() {
            return Err(JobError {
                name: "SyntaxError".into(),
                message,
                stack: None,
            });
        }
        match &block.info.data {
            Some(target) => {
                let data = agent_data::code(target, code);
                self.config.preparer.prepare(&data, Lang::Js, id)
            }
            None => self.config.preparer.prepare(code, block.info.lang, id),
        }
    }

    /// A block answered at once with its error: the reply under it, the
    /// chunk's later blocks skipped, the footer back after the chunk.
    pub(super) fn refuse_block(
        &mut self,
        w: &mut Work,
        block: &ExecBlock,
        chunk_end: usize,
        s: Starting,
        now: Now,
        out: &mut Output,
    ) -> bool {
        let Err(error) = s.prepared else {
            return false;
        };
        let later = exec_blocks(&w.buf, block.next..chunk_end.max(block.next));
        let outcome = Outcome::Error(error);
        let verdict = Verdict::Error(0);
        let reply = self.reply(
            &s.agent,
            now.clock,
            &verdict.suffix(),
            &outcome,
            &[],
            &[],
            Drops::default(),
            later.len(),
            out,
        );
        if let Some(ticket) = s.ticket {
            self.door_calls.handle_started(s.id, ticket);
            self.answer(s.id, &reply, &verdict, &outcome, &[], out);
        }
        let (_, inserted, _) = insert_after_block(w, block, &w.eol.convert(&reply));
        self.ledger.push(Taken {
            job: Some(s.id),
            code: s.code.into(),
            opener: s.opener.into(),
            place: Place::At(w.base + block.start),
            header: s.exec_header.into(),
            state: TakenState::Replied(reply.into()),
            seq: 0,
            chunk: s.chunk.map(Into::into),
            released: false,
        });
        for mut b in later {
            shift_block(&mut b, inserted as isize);
            let mut t = reconcile::skipped(&w.buf, &b);
            t.place = Place::At(w.base + b.start);
            self.ledger.push(t);
        }
        self.place_footer(w, chunk_end.max(block.next) + inserted);
        out.effects.push(Effect::State(LogState::Failed));
        false
    }

    /// A prepared block starts: taken, its executing region under it, sent
    /// to the realm (or to every realm, from the fan-out log).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_block(
        &mut self,
        w: &mut Work,
        block: &ExecBlock,
        chunk_end: usize,
        s: Starting,
        request: (String, Option<usize>),
        now: Now,
        out: &mut Output,
    ) -> bool {
        let Ok(prepared) = s.prepared else {
            return false;
        };
        let (id, code) = (s.id, s.code);
        self.ledger.push(Taken {
            job: Some(id),
            code: code.as_str().into(),
            opener: s.opener.as_str().into(),
            place: Place::At(w.base + block.start),
            header: s.exec_header.as_str().into(),
            state: TakenState::Running,
            seq: 0,
            chunk: s.chunk.map(Into::into),
            released: false,
        });
        let mut job = self.new_running(id, s.agent, request, s.exec_header, block, now);
        if let Some(ticket) = s.ticket {
            self.door_calls.handle_started(id, ticket);
        }
        let region = w.eol.convert(&job.region_text());
        let (start, inserted, sep) = insert_after_block(w, block, &region);
        job.place.region_hint = Some(w.base + start);
        job.place.sep = sep;
        let rest_end = chunk_end.max(block.next) + inserted;
        job.place.rest = w.buf[block.next + inserted..rest_end].to_string();
        job.wait.cancels = cancels_after(&w.buf, rest_end);
        let (timeout_ms, agent) = (job.time.timeout_ms, job.agent.clone());
        self.job = Some(job);
        let depth = block.info.depth.clone().and_then(Result::ok);
        out.effects.push(match self.config.fan_out {
            // Each realm's log runs it (a prelude there, when it is one).
            true => Effect::FanOut {
                job: id,
                agent,
                info: opener_info(&s.opener),
                code,
            },
            false => {
                if block.info.prelude {
                    self.preludes.remember(prelude::Prelude {
                        job: id,
                        code: code.into(),
                        lang: block.info.lang,
                        timeout_ms,
                        depth,
                        full: block.info.full,
                    });
                }
                Effect::Dispatch {
                    job: id,
                    prepared,
                    timeout_ms,
                    depth,
                    full: block.info.full,
                }
            }
        });
        out.effects.push(Effect::State(LogState::Executing));
        true
    }

    /// The running job of a block that starts now (its place in the text
    /// is set once its region is written).
    pub(super) fn new_running(
        &self,
        id: JobId,
        agent: String,
        request: (String, Option<usize>),
        exec_header: String,
        block: &ExecBlock,
        now: Now,
    ) -> Running {
        let mut timeout_ms = match block.info.timeout {
            Some(Ok(ms)) => ms,
            _ => self.config.default_timeout_ms,
        };
        if self.config.fan_out {
            // Each realm times the block out by itself, and says so.
            timeout_ms = timeout_ms.saturating_add(fan_out::FAN_OUT_GRACE_MS);
        }
        Running {
            id,
            agent,
            data: block.info.data.is_some(),
            place: JobPlace {
                request_header: request.0,
                request_hint: request.1,
                exec_header,
                exec_clock: now.clock,
                region_hint: None,
                sep: false,
                rest: String::new(),
            },
            time: JobTime {
                started: now.mono,
                timeout_ms,
                shown_secs: 0,
                shown_at: now.mono,
            },
            news: JobNews {
                gathering: self.config.fan_out.then(fan_out::Gathering::default),
                ..JobNews::default()
            },
            wait: JobWait {
                away: self.away.clone(),
                away_since: self.away.as_ref().map(|_| now.clock),
                ..JobWait::default()
            },
        }
    }
}
