//! The running block, as the engine remembers it: at most one per log,
//! its parts grouped by what they are for.

use daebug_protocol::BackgroundEvent;

use super::fan_out;
use super::input::JobId;
use super::render::Drops;
use super::time::{ClockTime, Millis};

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
