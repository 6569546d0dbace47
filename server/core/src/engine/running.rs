//! The running block, as the engine remembers it: at most one per log,
//! its parts grouped by what they are for, with what it renders itself
//! (its executing region, a timeout's error) and how its reply's header
//! ends ([`Verdict`]).

use daebug_protocol::BackgroundEvent;

use super::effect::LogState;
use super::fan_out;
use super::input::{JobError, JobId};
use super::render::{self, Drops};
use super::time::{format_duration, format_timeout, ClockTime, Millis};

/// See the module docs.
#[derive(Debug, Clone)]
pub(super) struct Running {
    pub(super) id: JobId,
    /// Who the replies go to.
    pub(super) agent: String,
    /// A data fence's job: its reply is the realm's note, not a value.
    pub(super) data: bool,
    pub(super) place: JobPlace,
    pub(super) time: JobTime,
    pub(super) news: JobNews,
    pub(super) wait: JobWait,
}

impl Running {
    /// When the job times out.
    pub(super) fn deadline(&self) -> Millis {
        self.time.started.plus(self.time.timeout_ms)
    }

    /// Its executing region (LF endings).
    pub(super) fn region_text(&self) -> String {
        let deleted = match self.wait.line_deleted {
            true => "; this line was deleted and is back: the block still runs, append a line `cancel` to stop waiting",
            false => "",
        };
        format!(
            "{}\n{}{}{}executing ({}s{}{deleted})\n",
            self.place.exec_header,
            render::events(&self.news.events, self.news.drops),
            self.news
                .gathering
                .as_ref()
                .map_or("", |g| g.replies.as_str()),
            self.news.lifecycle,
            self.time.shown_secs,
            self.wait
                .away
                .as_ref()
                .map_or(String::new(), |a| format!("; {a}"))
        )
    }

    /// The error of a job that timed out (or was cancelled): the realm's
    /// absence when it was away, else the code's slowness.
    pub(super) fn timeout_error(&self, verdict: &Verdict) -> JobError {
        let limit = match verdict {
            Verdict::Timeout(ms) | Verdict::Cancelled(ms) => format_timeout(*ms),
            _ => String::new(),
        };
        let message = match (&self.wait.away, self.wait.away_since) {
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
}

/// How a reply header ends.
pub(super) enum Verdict {
    Ok(u64),
    Error(u64),
    Timeout(u64),
    /// A `cancel` line stopped the wait after this long.
    Cancelled(u64),
}

impl Verdict {
    /// The duration its header shows.
    pub(super) fn ms(&self) -> u64 {
        match *self {
            Verdict::Ok(ms)
            | Verdict::Error(ms)
            | Verdict::Timeout(ms)
            | Verdict::Cancelled(ms) => ms,
        }
    }

    /// The log's state after a block ended so.
    pub(super) fn state(&self) -> LogState {
        match self {
            Verdict::Ok(_) => LogState::Completed,
            Verdict::Error(_) | Verdict::Cancelled(_) => LogState::Failed,
            Verdict::Timeout(_) => LogState::Timeout,
        }
    }

    /// The parenthesised end of the reply header.
    pub(super) fn suffix(&self) -> String {
        match *self {
            Verdict::Ok(ms) => format!("({})", format_duration(ms)),
            Verdict::Error(ms) => format!("(**ERROR** after {})", format_duration(ms)),
            Verdict::Timeout(ms) => format!("(**TIMEOUT** after {})", format_timeout(ms)),
            Verdict::Cancelled(ms) => format!("(**CANCELLED** after {})", format_timeout(ms)),
        }
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

/// Where the job's request and region stand in the log (hints are checked
/// before use), and the rest of its chunk.
#[derive(Debug, Clone)]
pub(super) struct JobPlace {
    /// The request header line of the chunk, to find it again if the
    /// executing region is edited away (recovery).
    pub(super) request_header: String,
    pub(super) request_hint: Option<usize>,
    /// `> **stem** to agent at HH:MM:SS`: the executing region's first
    /// line, unique because finished replies always carry a suffix.
    pub(super) exec_header: String,
    pub(super) exec_clock: ClockTime,
    pub(super) region_hint: Option<usize>,
    /// Whether a blank line was inserted between the region and `rest`.
    pub(super) sep: bool,
    /// The rest of the running chunk (its later blocks and prose) as it
    /// was when this block started: what follows it was appended later and
    /// is a queued chunk, not part of this one.
    pub(super) rest: String,
}

/// The job's time: its start and limit, and what the placeholder shows.
#[derive(Debug, Clone)]
pub(super) struct JobTime {
    pub(super) started: Millis,
    pub(super) timeout_ms: u64,
    /// The elapsed seconds the placeholder shows, and when it was written.
    pub(super) shown_secs: u64,
    pub(super) shown_at: Millis,
}

/// What was heard of the job so far, for its region and then its reply.
#[derive(Debug, Clone, Default)]
pub(super) struct JobNews {
    /// Background events of this job so far (the latest progress).
    pub(super) events: Vec<BackgroundEvent>,
    pub(super) drops: Drops,
    /// Lifecycle lines of what happened to the realm while it ran (LF
    /// endings): in its region, then at the end of its reply.
    pub(super) lifecycle: String,
    /// A fan-out log's job: the realms' replies so far, in its region.
    pub(super) gathering: Option<fan_out::Gathering>,
}

/// How the wait stands: the realm away, `cancel` lines, the placeholder
/// deleted, the document the block runs in.
#[derive(Debug, Clone, Default)]
pub(super) struct JobWait {
    /// Why the realm cannot run it now (disconnected...), shown in the
    /// placeholder so the agent knows the wait is not the code's.
    pub(super) away: Option<String>,
    /// Since when (hub time) it has been away, for a timeout's reply.
    pub(super) away_since: Option<ClockTime>,
    /// How many `cancel` lines stood after its chunk when it started:
    /// one more appended while it runs cancels it (an older one was meant
    /// for an earlier job).
    pub(super) cancels: usize,
    /// Someone deleted the `executing (…)` line: it is back, and says why
    /// and how to stop waiting instead.
    pub(super) line_deleted: bool,
    /// Whether a realm said it started it ([`super::Input::Started`]). A
    /// new document's line that comes before goes above the block: the
    /// block runs in that document.
    pub(super) begun: bool,
    /// It waited for a new document, whose line stands above it: that
    /// document's background events before the block began go there too.
    pub(super) in_new_document: bool,
}
