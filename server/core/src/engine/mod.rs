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
mod idle;
pub mod input;
pub mod ledger;
pub mod lifecycle;
mod lines;
pub mod markdown;
pub mod picture;
pub mod prelude;
mod reconcile;
mod region;
pub mod registry;
pub mod registry_notes;
pub mod render;
mod reply;
pub mod rerun;
mod running;
mod start;
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
use time::format_duration;

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
use running::{JobNews, JobPlace, JobTime, JobWait, Running, Verdict};

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
        let job = self.job.as_ref().map(|j| {
            j.deadline()
                .min(j.time.shown_at.plus(PLACEHOLDER_REFRESH_MS))
        });
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
                        && window[f.body_start..f.body_end].replace("\r\n", "\n") == *t.code =>
                {
                    t.place.at()
                }
                _ => None,
            }
        };
        match &self.job {
            Some(j) => {
                let taken = self.ledger.iter().find(|t| t.job == Some(j.id))?;
                Some(block(taken)?.min(at(j.place.region_hint?, &j.place.exec_header)?))
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
                let request = j.place.request_hint.filter(|h| {
                    h.checked_sub(base)
                        .and_then(|h| line_is(window, h, &j.place.request_header))
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
            j.place.request_hint = j.place.request_hint.and_then(&by);
            j.place.region_hint = j.place.region_hint.and_then(&by);
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
                    j.wait.begun = true;
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
                    code: code.into(),
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

    /// A block another door sent: written when the log is idle.
    fn submitted(&mut self, text: &str, s: fan_out::Submission, now: Now, out: &mut Output) {
        self.door_calls.handle_submit(s);
        if self.job.is_none() {
            self.idle_changed(text, now, out);
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

    fn finish(&mut self, text: &str, w: Work, out: &mut Output) {
        if let Some(edit) = diff(w.base, &text[w.base..], &w.buf) {
            out.edits.push(edit);
        }
    }

    // ----- idle ---------------------------------------------------------

    // ----- running ------------------------------------------------------

    // ----- rendering ----------------------------------------------------
}

/// The note under a failed block's reply about the blocks after it.
fn skip_note(skipped: usize) -> String {
    let blocks = if skipped == 1 { "block" } else { "blocks" };
    format!("(skipped the {skipped} later {blocks} of this request because this one failed)")
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
