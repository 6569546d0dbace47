//! The log engine: the pure, sans-IO heart of the hub.
//!
//! A [`LogEngine`] owns the state of one chat log (`debug/<stem>.md`). It is
//! driven like a protocol state machine: the shell calls
//! [`LogEngine::handle`] with the file's current text, an [`Input`] and the
//! current time ([`Now`]), and gets back an [`Output`]: edits to apply to
//! that text and [`Effect`]s to perform (dispatch a job, cancel one, wake me
//! at, archive a large reply, the log's state changed). There is no tokio,
//! no filesystem and no clock in here, so every rule of docs/log-format.md is
//! tested with before/after Markdown fixtures.
//!
//! Layout:
//! - [`time`]: milliseconds, `HH:MM:SS`, duration and timeout formats.
//! - [`text`]: lines, line endings, edits and the minimal diff.
//! - [`markdown`]: fences, info strings, request/reply header lines.
//! - [`tail`]: finding the footer, the active tail and its chunks.
//! - [`render`]: values, errors and background events as fenced blocks.
//! - [`template`]: the footer and a new log's head.
//! - [`registry`]: the `debug.md` registry.
//!
//! How a log moves (see docs/architecture.md, "Invariants"): idle logs end with the
//! footer; a runnable chunk below it is accepted in one edit (footer out,
//! request header in, executing region under the first block); progress
//! swaps the region; completion replaces it with the reply and either starts
//! the chunk's next block or puts the footer back after the chunk, then looks
//! for a queued chunk. Every scan walks forward and fence-aware from a place
//! known to be outside fences ([`LogEngine::horizon`]: the last block the
//! engine took, checked whole before use; else the text's start), so page
//! output is never taken for a hub line and the cost of an input follows
//! the size of the tail, not the size of the file (docs/log-format.md).

pub mod agent_data;
mod background;
pub mod door_calls;
pub mod earlier;
pub mod effect;
pub mod ended;
pub mod fan_out;
pub mod human;
pub mod input;
pub mod ledger;
pub mod lifecycle;
pub mod markdown;
pub mod picture;
pub mod prelude;
mod reconcile;
pub mod registry;
pub mod registry_notes;
pub mod render;
pub mod rerun;
pub mod survey;
pub mod tail;
pub mod template;
pub mod text;
pub mod time;
pub mod url_text;

use std::ops::Range;

use daebug_protocol::{BackgroundEvent, RealmKind};

use crate::prepare::{self, Prepared};

pub use effect::{Effect, LogState, Output};
pub use input::{Input, JobError, JobId, JobProgress, JobResult, Outcome, Value};
pub use markdown::Lang;
pub use text::{apply, TextEdit};
pub use time::{ClockTime, Millis, Now};

use ledger::{Ledger, Place, Taken, TakenState};
use markdown::{blocks, exec_info, Block};
use render::Drops;
use tail::{chunks, end_base, line_is, next_request, ExecBlock};
use template::FOOTER;
use text::{blank_run_start, diff, line_start, lines_back, lines_from, Eol};
use time::{format_duration, format_timeout};

/// How often the executing placeholder's elapsed time may be rewritten.
pub const PLACEHOLDER_REFRESH_MS: u64 = 5_000;
/// A guard against a loop in [`LogEngine::settle`]; each turn consumes a
/// chunk, so real logs never come near it.
const MAX_CHUNKS_PER_INPUT: usize = 10_000;

/// Settings of one engine.
#[derive(Debug, Clone)]
pub struct Config {
    /// Turns a block into the code its realm runs (oxc in the hub; tests
    /// of the engine alone may give a simpler one).
    pub preparer: std::sync::Arc<dyn prepare::Preparer>,
    /// Timeout of a block without a `timeout=` option (`--timeout`).
    pub default_timeout_ms: u64,
    /// Replies longer than this many bytes are cut and archived.
    pub inline_limit: usize,
    /// The first job id; the shell seeds it so ids differ across restarts
    /// (archive file names are made from them).
    pub first_job: u64,
    /// A fan-out log (`debug/all.md`): its blocks run in every connected
    /// realm ([`Effect::FanOut`]) instead of one.
    pub fan_out: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            preparer: std::sync::Arc::new(prepare::Oxc),
            default_timeout_ms: 60_000,
            inline_limit: 32 * 1024,
            first_job: 1,
            fan_out: false,
        }
    }
}

/// The state of one chat log. See the module docs. Cloning is cheap (no
/// text of the log is kept), so the shell can snapshot it and re-run an
/// input on newer text when the file changed under a write.
#[derive(Debug, Clone)]
pub struct LogEngine {
    /// The log's name, as in `debug/<stem>.md` and reply headers.
    stem: String,
    config: Config,
    /// Id of the next job to dispatch.
    next_job: u64,
    /// The block running now, if any: at most one per log.
    job: Option<Running>,
    /// Where the footer was left; checked before use, so an agent's copy
    /// of the footer line lower down is never taken for it.
    footer_hint: Option<usize>,
    /// Jobs that ended, for the results that still come (late, or a
    /// second one).
    ended: ended::EndedJobs,
    /// Blocks (late results, background events) waiting for the footer to
    /// be written, because a chunk is running. LF line endings.
    pending: Vec<String>,
    /// Why the realm is not there to run jobs, if it is not (see
    /// [`Input::Presence`]).
    away: Option<String>,
    /// The blocks this engine took: how it knows them again in a text an
    /// agent saved from an older read (at most once, replies in place).
    ledger: Ledger,
    /// The first of the skipped blocks a `rerun` ran again (see
    /// [`rerun::skipped`]): they run again once.
    reran: Option<u64>,
    /// The realm's kind: a new log's head names it.
    kind: RealmKind,
    /// Whether a text was surveyed yet: the first survey puts the blocks
    /// of a stopped hub's history in the ledger.
    read_once: bool,
    /// Where the active tail begins when the log has no footer, as the
    /// last reconcile found it (a position in the text being handled).
    tail_from: usize,
    /// Blocks with the `prelude` option, and a new document's lifecycle
    /// line waiting for their reruns.
    preludes: prelude::Preludes,
    /// Blocks other doors asked for, and their answers.
    door_calls: door_calls::DoorCalls,
    /// Pictures the hub saved for jobs whose reply is not written yet
    /// ([`Input::Images`]), oldest first; a reply takes its job's.
    pictures: picture::WaitingPictures,
}

pub use door_calls::RELOAD_ANSWER_WAIT_MS;

/// What the engine remembers about the running block.
#[derive(Debug, Clone)]
struct Running {
    id: JobId,
    /// Who the replies go to.
    agent: String,
    /// The request header line of the chunk, to find it again if the
    /// executing region is edited away (recovery).
    request_header: String,
    request_hint: Option<usize>,
    /// `> **stem** to agent at HH:MM:SS`: the executing region's first line,
    /// unique because finished replies always carry a suffix.
    exec_header: String,
    exec_clock: ClockTime,
    region_hint: Option<usize>,
    /// Whether a blank line was inserted between the region and `rest`.
    sep: bool,
    /// The rest of the running chunk (its later blocks and prose) as it was
    /// when this block started: what follows it was appended later and is a
    /// queued chunk, not part of this one.
    rest: String,
    started: Millis,
    timeout_ms: u64,
    /// Background events of this job so far (the latest progress).
    events: Vec<BackgroundEvent>,
    drops: Drops,
    /// The elapsed seconds the placeholder shows, and when it was written.
    shown_secs: u64,
    shown_at: Millis,
    /// Why the realm cannot run it now (disconnected...), shown in the
    /// placeholder so the agent knows the wait is not the code's.
    away: Option<String>,
    /// Since when (hub time) it has been away, for a timeout's reply.
    away_since: Option<ClockTime>,
    /// How many `cancel` lines stood after its chunk when it started:
    /// one more appended while it runs cancels it (an older one was meant
    /// for an earlier job).
    cancels: usize,
    /// Someone deleted the `executing (…)` line: it is back, and says why
    /// and how to stop waiting instead.
    line_deleted: bool,
    /// Lifecycle lines of what happened to the realm while it ran (LF
    /// endings): in its region, then at the end of its reply.
    lifecycle: String,
    /// A fan-out log's job: the realms' replies so far, in its region.
    gathering: Option<fan_out::Gathering>,
    /// Whether a realm said it started it ([`Input::Started`]). A new
    /// document's line that comes before goes above the block: the block
    /// runs in that document.
    begun: bool,
    /// It waited for a new document, whose line stands above it: that
    /// document's background events before the block began go there too.
    in_new_document: bool,
    /// A data fence's job: its reply is the realm's note, not a value.
    data: bool,
}

impl Running {
    fn deadline(&self) -> Millis {
        self.started.plus(self.timeout_ms)
    }
}

/// A block about to start: what is known of it before its region is
/// written.
struct Starting {
    id: JobId,
    /// The door call waiting on it, and the chunk it sent.
    ticket: Option<u64>,
    chunk: Option<String>,
    agent: String,
    /// What the realm runs, or the error it is answered with at once.
    prepared: Result<Prepared, JobError>,
    code: String,
    opener: String,
    exec_header: String,
}

/// Where the executing region and the chunk's rest are in a [`Work`] buffer.
#[derive(Debug, Clone)]
struct Region {
    start: usize,
    end: usize,
    /// False when a person deleted the placeholder line.
    placeholder: bool,
    rest: Range<usize>,
}

/// The tail of the text being edited: `buf` replaces `text[base..]`.
struct Work {
    base: usize,
    buf: String,
    eol: Eol,
}

impl Work {
    fn new(text: &str, base: usize) -> Work {
        let base = line_start(text, base);
        Work {
            base,
            buf: text[base..].to_string(),
            eol: Eol::detect(text),
        }
    }

    fn nl(&self) -> &'static str {
        self.eol.as_str()
    }
}

/// How a reply header ends.
enum Verdict {
    Ok(u64),
    Error(u64),
    Timeout(u64),
    /// A `cancel` line stopped the wait after this long.
    Cancelled(u64),
}

impl Verdict {
    /// The duration its header shows.
    fn ms(&self) -> u64 {
        match *self {
            Verdict::Ok(ms)
            | Verdict::Error(ms)
            | Verdict::Timeout(ms)
            | Verdict::Cancelled(ms) => ms,
        }
    }

    /// The log's state after a block ended so.
    fn state(&self) -> LogState {
        match self {
            Verdict::Ok(_) => LogState::Completed,
            Verdict::Error(_) | Verdict::Cancelled(_) => LogState::Failed,
            Verdict::Timeout(_) => LogState::Timeout,
        }
    }

    /// The parenthesised end of the reply header.
    fn suffix(&self) -> String {
        match *self {
            Verdict::Ok(ms) => format!("({})", format_duration(ms)),
            Verdict::Error(ms) => format!("(**ERROR** after {})", format_duration(ms)),
            Verdict::Timeout(ms) => format!("(**TIMEOUT** after {})", format_timeout(ms)),
            Verdict::Cancelled(ms) => format!("(**CANCELLED** after {})", format_timeout(ms)),
        }
    }
}

impl LogEngine {
    pub fn new(stem: impl Into<String>, config: Config) -> LogEngine {
        LogEngine {
            stem: stem.into(),
            next_job: config.first_job,
            config,
            job: None,
            footer_hint: None,
            ended: ended::EndedJobs::default(),
            pending: Vec::new(),
            away: None,
            ledger: Ledger::default(),
            reran: None,
            kind: RealmKind::Page,
            read_once: false,
            tail_from: 0,
            preludes: prelude::Preludes::default(),
            door_calls: door_calls::DoorCalls::default(),
            pictures: picture::WaitingPictures::default(),
        }
    }

    /// The realm's kind (its hello's): a new log's head names it.
    pub fn set_kind(&mut self, kind: RealmKind) {
        self.kind = kind;
    }

    pub fn stem(&self) -> &str {
        &self.stem
    }

    /// The job running now, if any.
    pub fn running(&self) -> Option<JobId> {
        self.job.as_ref().map(|j| j.id)
    }

    /// When the engine next needs a [`Input::Tick`].
    pub fn next_wake(&self) -> Option<Millis> {
        let job = self
            .job
            .as_ref()
            .map(|j| j.deadline().min(j.shown_at.plus(PLACEHOLDER_REFRESH_MS)));
        let reruns = self.preludes.deadline();
        let reload = self.door_calls.deadline();
        job.into_iter().chain(reruns).chain(reload).min()
    }

    /// Makes the next job's id greater than `job`: a job the shell sent
    /// ahead of a write that did not stand must not share its id with a
    /// different block (a realm runs an id once).
    pub fn skip_jobs_through(&mut self, job: JobId) {
        self.next_job = self.next_job.max(job.0 + 1);
    }

    /// The earliest position of the text the engine will look at first
    /// on the next input: its footer, or the running chunk's request
    /// header and executing region. A shell that can show that the text
    /// up to there is unchanged may pass only the text from (a little
    /// before) there on, with [`LogEngine::handle_at`]. `window` is the
    /// text from byte `base` on, as the engine last left it: a position
    /// whose line is not what the engine expects there is no horizon.
    pub fn horizon(&self, window: &str, base: usize) -> Option<usize> {
        let at =
            |hint: usize, line: &str| line_is(window, hint.checked_sub(base)?, line).map(|_| hint);
        // A taken block is checked whole (opener, code, closing fence): an
        // edit above it shifts the text, and its opener line alone may then
        // stand at the old place inside a reply (page output).
        let block = |t: &Taken| {
            let pos = at(t.place.at()?, &t.opener)? - base;
            match blocks(window, pos).next()? {
                Block::Fence(f)
                    if f.closed
                        && window[f.body_start..f.body_end].replace("\r\n", "\n") == t.code =>
                {
                    t.place.at()
                }
                _ => None,
            }
        };
        match &self.job {
            Some(j) => {
                let taken = self.ledger.iter().find(|t| t.job == Some(j.id))?;
                Some(block(taken)?.min(at(j.region_hint?, &j.exec_header)?))
            }
            None => {
                let footer = self.footer_hint.and_then(|h| at(h, FOOTER));
                match self.ledger.last_placed() {
                    Some(t) => {
                        let b = block(t)?;
                        Some(footer.map_or(b, |f| f.min(b)))
                    }
                    None => footer,
                }
            }
        }
    }

    /// [`LogEngine::handle`] for the part of the file's text that starts at
    /// byte `base` (a line start). The edits are positions in `window`.
    /// The caller makes sure `base` is at or before [`LogEngine::horizon`]
    /// and that the text before it is what the engine saw there.
    pub fn handle_at(&mut self, window: &str, base: usize, input: Input, now: Now) -> Output {
        if base == 0 {
            return self.handle(window, input, now);
        }
        // Blocks before the window stand where they were (the caller made
        // sure of it): above the text for this input, then back in place.
        let above: Vec<(u64, usize)> = self
            .ledger
            .iter()
            .filter_map(|t| t.place.at().filter(|&h| h < base).map(|h| (t.seq, h)))
            .collect();
        self.shift_hints(|h| h.checked_sub(base));
        let out = self.handle(window, input, now);
        self.shift_hints(|h| h.checked_add(base));
        for t in self.ledger.iter_mut() {
            if let Some(&(_, h)) = above.iter().find(|(seq, _)| *seq == t.seq) {
                if t.place == Place::Above {
                    t.place = Place::At(h);
                }
            }
        }
        out
    }

    /// Where a log's history may end: everything before it is answered
    /// and no longer needed. While a job runs, its request (header and
    /// block); when idle, the footer (everything above it is done).
    pub fn history_cut(&self, window: &str, base: usize) -> Option<usize> {
        match &self.job {
            // The running chunk's request header stays with its block.
            Some(j) => {
                let at = self.horizon(window, base)?;
                let request = j.request_hint.filter(|h| {
                    h.checked_sub(base)
                        .and_then(|h| line_is(window, h, &j.request_header))
                        .is_some()
                });
                Some(request.map_or(at, |r| r.min(at)))
            }
            None => {
                let h = self.footer_hint?;
                line_is(window, h.checked_sub(base)?, FOOTER).map(|_| h)
            }
        }
    }

    /// The text before `cut` was moved out of the log (to a history
    /// file) and the log's head, `head` bytes long, now stands before what
    /// followed it: positions move with the text, and blocks before `cut`
    /// stand above it for good (never looked for, never put back).
    pub fn moved_history(&mut self, cut: usize, head: usize) {
        self.shift_hints(|h| h.checked_sub(cut).map(|p| p + head));
    }

    /// Moves every remembered position; one that does not fit is dropped
    /// (hints are checked before use, so a lost one costs a search). A
    /// taken block moved out of the text stands above it.
    fn shift_hints(&mut self, by: impl Fn(usize) -> Option<usize>) {
        self.footer_hint = self.footer_hint.and_then(&by);
        for t in self.ledger.iter_mut() {
            if let Place::At(h) = t.place {
                t.place = by(h).map_or(Place::Above, Place::At);
            }
        }
        if let Some(j) = self.job.as_mut() {
            j.request_hint = j.request_hint.and_then(&by);
            j.region_hint = j.region_hint.and_then(&by);
        }
    }

    /// Handles one input against the file's current `text`.
    pub fn handle(&mut self, text: &str, input: Input, now: Now) -> Output {
        let mut out = Output::default();
        let fixed = self.reconcile(text, now, &mut out);
        let current = fixed.as_deref().unwrap_or(text);
        self.handle_input(current, input, now, &mut out);
        if let Some(fixed) = fixed {
            // One edit from the text that was passed in to the result.
            let done = apply(&fixed, &out.edits);
            out.edits = text::diff(0, text, &done).into_iter().collect();
        }
        if let Some(at) = self.next_wake() {
            out.effects.push(Effect::WakeAt(at));
        }
        out
    }

    /// [`LogEngine::handle`] on a text that agrees with the engine.
    fn handle_input(&mut self, text: &str, input: Input, now: Now, out: &mut Output) {
        match input {
            Input::Startup | Input::FileChanged => match self.job {
                Some(_) => self.update_region(text, false, now, out),
                None => self.idle_changed(text, now, out),
            },
            Input::Started { job } => {
                if let Some(j) = self.job.as_mut().filter(|j| j.id == job) {
                    j.begun = true;
                }
            }
            Input::Reloading => {
                if let Some(j) = &self.job {
                    self.door_calls.handle_reloading(j.id, now.mono);
                }
            }
            Input::Progress(p) => self.progress(text, p, now, out),
            Input::Result(JobResult {
                job,
                outcome,
                events,
                dropped,
                limited,
                duration_ms,
            }) => {
                let drops = Drops::new(dropped, limited);
                self.result(text, job, outcome, events, drops, duration_ms, now, out)
            }
            Input::Background {
                events,
                dropped,
                limited,
                over_rate,
            } => {
                let drops = Drops::new(dropped, limited);
                self.background(text, events, drops, over_rate, now, out)
            }
            Input::Images { job, pictures } => self.pictures.handle_saved(job, pictures),
            Input::Tick => self.tick(text, now, out),
            Input::Left { what } => self.left(text, &what, now, out),
            Input::HubStopped => self.hub_stopped(text, now, out),
            Input::HubNote { text: note } => {
                let header = format!("> **{}** background at {}\n", self.stem, now.clock);
                self.above_footer(text, format!("{header}({note})\n"), now, out);
            }
            Input::Lifecycle { what, url, at } => {
                let at = at.as_deref().and_then(ClockTime::parse);
                self.lifecycle(text, what, &url, at.unwrap_or(now.clock), now, out)
            }
            Input::Submit {
                ticket,
                agent,
                info,
                code,
            } => {
                let submission = fan_out::Submission {
                    ticket,
                    agent,
                    info,
                    code,
                };
                self.submitted(text, submission, now, out)
            }
            Input::FannedOut { job, stems } => self.fanned_out(text, job, stems, now, out),
            Input::Answer {
                job,
                stem,
                reply,
                ok,
            } => self.realm_answered(text, job, &stem, reply, ok, now, out),
            Input::Presence { away } => self.presence(text, away, now, out),
            Input::Human { title, value } => {
                let lines = human::answer(&title, &value, now.clock);
                self.human_answered(text, lines, now, out)
            }
        }
    }

    /// The hub's stop line: after the running job's region (its reply
    /// never comes from this hub), else above the footer.
    fn hub_stopped(&mut self, text: &str, now: Now, out: &mut Output) {
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
    fn lifecycle(
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

    /// A block another door sent: written when the log is idle.
    fn submitted(&mut self, text: &str, s: fan_out::Submission, now: Now, out: &mut Output) {
        self.door_calls.handle_submit(s);
        if self.job.is_none() {
            self.idle_changed(text, now, out);
        }
    }

    /// A person's answer: in the running job's region (the block that
    /// awaits it, as a rule), else above the footer.
    fn human_answered(&mut self, text: &str, lines: String, now: Now, out: &mut Output) {
        match self.job.as_mut() {
            Some(j) => {
                j.lifecycle.push_str(&lines);
                self.update_region(text, true, now, out);
            }
            None => self.above_footer(text, lines, now, out),
        }
    }

    /// A block for above the footer (background events, a note, a late
    /// reply): written now when idle, else once the footer is back.
    fn above_footer(&mut self, text: &str, block: String, now: Now, out: &mut Output) {
        self.pending.push(block);
        if self.job.is_none() {
            self.idle_changed(text, now, out);
        }
    }

    /// The running job's events so far (the whole list).
    fn progress(&mut self, text: &str, p: JobProgress, now: Now, out: &mut Output) {
        match self.job.as_mut() {
            Some(j) if j.id == p.job => {
                j.events = p.events;
                j.drops = Drops::new(p.dropped, p.limited);
                self.update_region(text, true, now, out);
            }
            _ => out.effects.push(Effect::Notice(format!(
                "{}: progress for job {}, which is not running, ignored",
                self.stem, p.job
            ))),
        }
    }

    /// The realm's document is gone: the running job's reply says so now.
    fn left(&mut self, text: &str, what: &str, now: Now, out: &mut Output) {
        let Some(j) = &self.job else { return };
        let elapsed = now.mono.since(j.started);
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
    fn presence(&mut self, text: &str, away: Option<String>, now: Now, out: &mut Output) {
        self.away = away.clone();
        let Some(j) = self.job.as_mut() else { return };
        if j.away != away {
            if j.away.is_none() {
                j.away_since = Some(now.clock);
            }
            j.away = away;
            self.update_region(text, true, now, out);
        }
    }

    /// A fan-out log's job went to these realms.
    fn fanned_out(
        &mut self,
        text: &str,
        job: JobId,
        stems: Vec<String>,
        now: Now,
        out: &mut Output,
    ) {
        let gathering = self.job.as_mut().filter(|j| j.id == job);
        match gathering.and_then(|j| j.gathering.as_mut()) {
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
    fn realm_answered(
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
            .and_then(|j| j.gathering.as_mut())
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

    /// Dispatches a rerun of each prelude still standing as written (in
    /// the new document); the line waits for their answers. The text to
    /// write now, when there is no rerun to wait for.
    fn rerun_preludes(
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
    fn write_lifecycle(&mut self, text: &str, lines: String, now: Now, out: &mut Output) {
        if let Some((ticket, answer)) = self.door_calls.handle_document(&lines) {
            out.effects.push(Effect::Answered { ticket, answer });
        }
        match self.job.as_mut() {
            Some(j) if j.begun => {
                j.lifecycle.push_str(&lines);
                self.update_region(text, true, now, out);
            }
            Some(_) => {
                if let Some(j) = self.job.as_mut() {
                    j.in_new_document = true;
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
    fn line_above_running(&mut self, text: &str, lines: String, now: Now, out: &mut Output) {
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
                j.lifecycle.push_str(&lines);
            }
            return self.update_region(text, true, now, out);
        };
        let before = (k > 0).then(|| self.ledger.get(k - 1));
        let header_at = j
            .request_hint
            .and_then(|h| line_is(text, h, &j.request_header))
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
            j.region_hint = j.region_hint.map(shift);
            j.request_hint = j.request_hint.map(shift);
        }
        self.tail_from = shift(self.tail_from);
        self.redate_waiting(&mut w, now);
        self.finish(text, w, out);
    }

    /// The job that waited for a new document runs in it from now: its
    /// region's header (and so its reply's) takes this time, never earlier
    /// than the document's line above it.
    fn redate_waiting(&mut self, w: &mut Work, now: Now) {
        let Some(j) = self.job.as_mut() else { return };
        let Some((who, _)) = j.exec_header.rsplit_once(" at ") else {
            return;
        };
        let header = format!("{who} at {}", now.clock);
        let Some(rel) = j.region_hint.and_then(|h| h.checked_sub(w.base)) else {
            return;
        };
        if header == j.exec_header || !w.buf[rel..].starts_with(&j.exec_header) {
            return;
        }
        w.buf.replace_range(rel..rel + j.exec_header.len(), &header);
        for t in self.ledger.iter_mut().filter(|t| t.job == Some(j.id)) {
            t.header = header.clone();
        }
        j.exec_header = header;
        j.exec_clock = now.clock;
    }

    fn finish(&mut self, text: &str, w: Work, out: &mut Output) {
        if let Some(edit) = diff(w.base, &text[w.base..], &w.buf) {
            out.edits.push(edit);
        }
    }

    // ----- idle ---------------------------------------------------------

    fn idle_changed(&mut self, text: &str, now: Now, out: &mut Output) {
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
    fn settle(&mut self, w: &mut Work, from: usize, now: Now, out: &mut Output) {
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
    fn answer_rerun(&mut self, w: &mut Work, list: &[tail::Chunk]) -> bool {
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
    fn footer_out(&mut self, w: &mut Work, f: tail::Span, c: tail::Chunk) -> tail::Chunk {
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
    fn write_submission(&mut self, w: &mut Work, s: fan_out::Submission, now: Now) {
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
    fn accept(&mut self, w: &mut Work, mut c: tail::Chunk, now: Now, out: &mut Output) -> bool {
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

    /// Inserts the executing region under `block` and dispatches it.
    /// Returns false when the block was answered at once instead (a syntax
    /// error, a bad fence option): its error reply is written, the chunk's
    /// later blocks are skipped and the footer goes back after the chunk.
    #[allow(clippy::too_many_arguments)]
    fn start_block(
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
    fn prepare_block(
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
    fn refuse_block(
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
            code: s.code,
            opener: s.opener,
            place: Place::At(w.base + block.start),
            header: s.exec_header,
            state: TakenState::Replied(reply),
            seq: 0,
            chunk: s.chunk,
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
    fn run_block(
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
            code: code.clone(),
            opener: s.opener.clone(),
            place: Place::At(w.base + block.start),
            header: s.exec_header.clone(),
            state: TakenState::Running,
            seq: 0,
            chunk: s.chunk,
            released: false,
        });
        let mut job = self.new_running(id, s.agent, request, s.exec_header, block, now);
        if let Some(ticket) = s.ticket {
            self.door_calls.handle_started(id, ticket);
        }
        let region = w.eol.convert(&region_text(&job));
        let (start, inserted, sep) = insert_after_block(w, block, &region);
        job.region_hint = Some(w.base + start);
        job.sep = sep;
        let rest_end = chunk_end.max(block.next) + inserted;
        job.rest = w.buf[block.next + inserted..rest_end].to_string();
        job.cancels = cancels_after(&w.buf, rest_end);
        let (timeout_ms, agent) = (job.timeout_ms, job.agent.clone());
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
                        code,
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
    fn new_running(
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
            request_header: request.0,
            request_hint: request.1,
            exec_header,
            exec_clock: now.clock,
            region_hint: None,
            sep: false,
            rest: String::new(),
            started: now.mono,
            timeout_ms,
            events: Vec::new(),
            drops: Drops::default(),
            shown_secs: 0,
            shown_at: now.mono,
            away: self.away.clone(),
            away_since: self.away.as_ref().map(|_| now.clock),
            cancels: 0,
            line_deleted: false,
            lifecycle: String::new(),
            gathering: self.config.fan_out.then(fan_out::Gathering::default),
            begun: false,
            in_new_document: false,
            data: block.info.data.is_some(),
        }
    }

    /// Writes the footer at `at` (a line start, or the end of the buffer),
    /// with pending blocks above it and one blank line before them.
    fn place_footer(&mut self, w: &mut Work, at: usize) {
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
    fn take_pending(&mut self, eol: Eol) -> String {
        let mut s = String::new();
        for p in std::mem::take(&mut self.pending) {
            s.push_str(&eol.convert(&p));
            s.push_str(eol.as_str());
            // A save from an older read may drop it: it is put back.
            self.ledger.wrote(p);
        }
        s
    }

    // ----- running ------------------------------------------------------

    /// Finds the executing region and rewrites it when `always` (new
    /// events, a placeholder refresh) or when a person damaged it; abandons
    /// the job when it cannot be found nor put back.
    fn update_region(&mut self, text: &str, always: bool, now: Now, out: &mut Output) {
        match self.region_work(text) {
            Some((w, r)) if self.cancelled(&w, &r) => {
                let job = self.job.as_ref().map(|j| (j.id, now.mono.since(j.started)));
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
                        j.line_deleted = true;
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
    fn cancelled(&mut self, w: &Work, r: &Region) -> bool {
        let now = cancels_after(&w.buf, r.rest.end);
        let Some(job) = self.job.as_mut() else {
            return false;
        };
        if now > job.cancels {
            return true;
        }
        job.cancels = now;
        false
    }

    fn tick(&mut self, text: &str, now: Now, out: &mut Output) {
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
            let (id, timeout_ms) = (job.id, job.timeout_ms);
            out.effects.push(Effect::Cancel { job: id });
            self.complete(text, Verdict::Timeout(timeout_ms), None, now, out);
        } else if now.mono.since(job.shown_at) >= PLACEHOLDER_REFRESH_MS {
            self.update_region(text, true, now, out);
        }
    }

    /// Finds the executing region (or puts it back under the running block
    /// when a person removed it) and the rest of the running chunk.
    fn region_work(&mut self, text: &str) -> Option<(Work, Region)> {
        let stem = self.stem.clone();
        let job = self.job.as_mut()?;
        // Reconcile found the region under the job's own block (or put it
        // back there), fence-aware: the hint is where it is.
        let found = job
            .region_hint
            .and_then(|h| line_is(text, h, &job.exec_header))
            .map(|l| l.start);
        if let Some(start) = found {
            job.region_hint = Some(start);
            let w = Work::new(text, start);
            let (end, placeholder) = survey::hub_block_extent(
                &w.buf,
                lines_from(&w.buf, 0).next().map_or(0, |l| l.next),
                true,
                &stem,
            );
            let after = if job.sep {
                skip_one_blank(&w.buf, end)
            } else {
                end
            };
            let rest_end = if w.buf[after..].starts_with(&job.rest) {
                // The rest may have ended mid-line (no final newline) and
                // the agent continued that line: the whole line is the rest's.
                let end = to_line_end(&w.buf, after + job.rest.len());
                job.rest = w.buf[after..end].to_string();
                end
            } else {
                // The agent edited the rest of its chunk: take it as it is
                // now, up to the next request header.
                let e = next_request(&w.buf, after, &stem);
                job.rest = w.buf[after..e].to_string();
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

    fn rewrite_region(&mut self, w: &mut Work, r: &Region, now: Now) {
        let Some(job) = self.job.as_mut() else { return };
        if now.mono.since(job.shown_at) >= PLACEHOLDER_REFRESH_MS {
            job.shown_secs = now.mono.since(job.started) / 1000;
            job.shown_at = now.mono;
        }
        let region = w.eol.convert(&region_text(job));
        w.buf.replace_range(r.start..r.end, &region);
    }

    /// The executing region cannot be found nor put back: say so in the
    /// log, cancel the job and restore the footer.
    fn abandon(&mut self, text: &str, now: Now, out: &mut Output) {
        let Some(job) = self.job.take() else { return };
        let error = JobError {
            name: "Error".into(),
            message: format!(
                "the executing reply of this request was edited or removed from the log, so job {} was cancelled; append the block again to re-run it",
                job.id
            ),
            stack: None,
        };
        let elapsed = now.mono.since(job.started);
        let (verdict, outcome) = (Verdict::Error(elapsed), Outcome::Error(error));
        // A fan-out job keeps the replies it gathered.
        let reply = self.final_reply(&job, now.clock, &verdict, &outcome, 0, out);
        self.answer(job.id, &reply, &verdict, &outcome, &job.events, out);
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
            t.state = TakenState::Replied(reply.clone());
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

    #[allow(clippy::too_many_arguments)]
    fn result(
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
                j.events = events;
                j.drops = drops;
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
    fn complete(
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
            Some(Outcome::Error(timeout_error(job, &verdict)))
        }) else {
            return;
        };
        let Some((mut w, r)) = self.region_work(text) else {
            // Nowhere to put it: the reply goes above the footer instead.
            let Some(job) = self.job.take() else { return };
            let reply = self.final_reply(&job, now.clock, &verdict, &outcome, 0, out);
            self.answer(job.id, &reply, &verdict, &outcome, &job.events, out);
            if written {
                if let Some(t) = self.ledger.of_job(job.id) {
                    t.state = TakenState::Replied(reply.clone());
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
        let reply = self.final_reply(&job, job.exec_clock, &verdict, &outcome, skipped, out);
        if let Some(t) = self.ledger.of_job(job.id) {
            t.state = TakenState::Replied(reply.clone());
        }
        self.answer(job.id, &reply, &verdict, &outcome, &job.events, out);
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
                let request = (job.request_header, job.request_hint);
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
    fn answer(
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
    fn gathered(&mut self, text: &str, now: Now, out: &mut Output) {
        let Some(job) = &self.job else { return };
        let Some(g) = job.gathering.as_ref().filter(|g| g.complete()) else {
            return self.update_region(text, true, now, out);
        };
        let elapsed = now.mono.since(job.started);
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
    fn final_reply(
        &mut self,
        job: &Running,
        at: ClockTime,
        verdict: &Verdict,
        outcome: &Outcome,
        skipped: usize,
        out: &mut Output,
    ) -> String {
        let Some(g) = &job.gathering else {
            // The dev server's hot updates while it ran are lines after
            // it, as lifecycle lines are (docs/log-format.md, "Hot
            // updates").
            let (hot, events): (Vec<_>, Vec<_>) = job
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
            let lifecycle = job.lifecycle.clone() + &hot;
            let (events, drops) = (&events[..], job.drops);
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

    // ----- rendering ----------------------------------------------------

    /// A whole reply: header, result fence, the job's pictures, background
    /// events and notes (LF endings).
    #[allow(clippy::too_many_arguments)]
    fn reply(
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

/// The error of a job that timed out (or was cancelled): the realm's
/// absence when it was away, else the code's slowness.
fn timeout_error(job: &Running, verdict: &Verdict) -> JobError {
    let limit = match verdict {
        Verdict::Timeout(ms) | Verdict::Cancelled(ms) => format_timeout(*ms),
        _ => String::new(),
    };
    let message = match (&job.away, job.away_since) {
        // The realm was gone or silent: that is the news, not the
        // code's slowness, and it is not taking the next block.
        (Some(away), Some(since)) => format!(
            "no result within {limit}, and the realm was not there to give one: {} at {since}. A late result is added below if it comes back with one.",
            away_what(away)
        ),
        _ => format!(
            "no result within {limit}. The realm stopped waiting and takes the next block; a late result is added below if one comes. For more time, write e.g. `js timeout=120s` as the fence's info string."
        ),
    };
    JobError {
        name: "TimeoutError".into(),
        message,
        stack: None,
    }
}

/// What a Presence note says happened, without how the hub waits: `page
/// disconnected, waiting…` → `the page disconnected`, `the page stopped
/// answering (busy…); still waiting` → `the page stopped answering`.
fn away_what(away: &str) -> String {
    let what = away
        .split([',', ';'])
        .next()
        .unwrap_or(away)
        .split(" (")
        .next()
        .unwrap_or(away)
        .trim();
    match what.starts_with("the ") {
        true => what.to_string(),
        false => format!("the {what}"),
    }
}

/// The note under a failed block's reply about the blocks after it.
fn skip_note(skipped: usize) -> String {
    let blocks = if skipped == 1 { "block" } else { "blocks" };
    format!("(skipped the {skipped} later {blocks} of this request because this one failed)")
}

/// The executing region of a job (LF endings).
fn region_text(job: &Running) -> String {
    let deleted = match job.line_deleted {
        true => "; this line was deleted and is back: the block still runs, append a line `cancel` to stop waiting",
        false => "",
    };
    format!(
        "{}\n{}{}{}executing ({}s{}{deleted})\n",
        job.exec_header,
        render::events(&job.events, job.drops),
        job.gathering.as_ref().map_or("", |g| g.replies.as_str()),
        job.lifecycle,
        job.shown_secs,
        job.away
            .as_ref()
            .map_or(String::new(), |a| format!("; {a}"))
    )
}

/// The info string of a fence's opening line (` ```js timeout=5s` →
/// `js timeout=5s`).
fn opener_info(opener: &str) -> String {
    opener
        .trim_start()
        .trim_start_matches(['`', '~'])
        .trim()
        .to_string()
}

/// `at` when it is a line start (or the end), else the start of the next line.
fn to_line_end(text: &str, at: usize) -> usize {
    if at == 0 || at >= text.len() || text.as_bytes()[at - 1] == b'\n' {
        return at.min(text.len());
    }
    lines_from(text, line_start(text, at))
        .next()
        .map_or(text.len(), |l| l.next)
}

/// `at`, or the start of the next line when the line at `at` is blank.
fn skip_one_blank(text: &str, at: usize) -> usize {
    match lines_from(text, at).next() {
        Some(l) if l.is_blank() => l.next,
        _ => at,
    }
}

/// Complete executable blocks that lie wholly in `range`.
fn exec_blocks(text: &str, range: Range<usize>) -> Vec<ExecBlock> {
    blocks(text, range.start)
        .take_while(|b| b.start() < range.end)
        .filter_map(|b| match b {
            Block::Fence(f) if f.closed && f.next <= range.end => {
                exec_info(f.info).map(|info| ExecBlock {
                    start: f.start,
                    next: f.next,
                    terminated: f.terminated,
                    body: f.body_start..f.body_end,
                    info,
                })
            }
            _ => None,
        })
        .collect()
}

/// Inserts `text` (already in the file's line ending) as a reply region
/// under `block`: a blank line before it and, when the agent's next line
/// has content, one after it. Returns where the region starts, how many
/// bytes went in, and whether the blank line after was added.
fn insert_after_block(w: &mut Work, block: &ExecBlock, text: &str) -> (usize, usize, bool) {
    let nl = w.nl();
    let at = block.next;
    let mut s = String::new();
    if !block.terminated {
        s.push_str(nl);
    }
    s.push_str(nl);
    let start = at + s.len();
    s.push_str(text);
    let sep = lines_from(&w.buf, at).next().is_some_and(|l| !l.is_blank());
    if sep {
        s.push_str(nl);
    }
    w.buf.insert_str(at, &s);
    (start, s.len(), sep)
}

/// Moves a block's offsets by `by` bytes (text was inserted or removed
/// before it).
fn shift_block(b: &mut ExecBlock, by: isize) {
    let m = |p: usize| p.saturating_add_signed(by);
    b.start = m(b.start);
    b.next = m(b.next);
    b.body = m(b.body.start)..m(b.body.end);
}

/// How many `cancel` lines stand in `text` from `from` on: lines outside
/// fences that read `cancel`, in any case, and nothing else.
fn cancels_after(text: &str, from: usize) -> usize {
    blocks(text, from)
        .filter(|b| matches!(b, Block::Line(l) if l.text.trim().eq_ignore_ascii_case("cancel")))
        .count()
}

/// A chunk found before `removed` bytes in front of it were deleted.
fn shift_chunk(mut c: tail::Chunk, removed: usize) -> tail::Chunk {
    c.start -= removed;
    c.end -= removed;
    if let Some((_, at)) = c.header.as_mut() {
        *at -= removed;
    }
    if let Some(at) = c.first_content.as_mut() {
        *at -= removed;
    }
    for b in &mut c.exec {
        shift_block(b, -(removed as isize));
    }
    c
}
