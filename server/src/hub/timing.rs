//! Where a job's time goes in the hub, for the bench's "where the time
//! goes" table (BENCH.md): with `RUST_LOG=daebug::timing=debug`, each
//! job's reply written logs the wall-clock microseconds at which its log
//! task heard of it (the file change, or a door's submission), sent the
//! job, got the result, had the reply written, and (a door's call) gave
//! the door its answer (and `doors/mcp.rs`, when an in-process MCP tool
//! call was entered and left). Off (the default), it costs one check an
//! event.

use std::time::{SystemTime, UNIX_EPOCH};

use daebug_protocol::JobId;

/// The moments of the jobs under way.
#[derive(Debug, Default)]
pub struct JobTimes {
    /// The last file change the task heard.
    heard: Option<u64>,
    jobs: Vec<Moments>,
}

/// One job's moments, wall-clock µs.
#[derive(Debug)]
struct Moments {
    job: JobId,
    heard: Option<u64>,
    sent: u64,
    result: Option<u64>,
    /// A door's call got its answer.
    answered: Option<u64>,
}

/// Whether the timing lines are asked for.
pub fn on() -> bool {
    tracing::enabled!(target: "daebug::timing", tracing::Level::DEBUG)
}

/// Now on the wall clock, in µs (the bench sets the lines against its own).
pub fn wall_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

impl JobTimes {
    pub fn heard(&mut self) {
        if on() {
            self.heard = Some(wall_us());
        }
    }

    pub fn sent(&mut self, job: JobId) {
        if on() {
            self.jobs.retain(|m| m.job != job);
            self.jobs.push(Moments {
                job,
                heard: self.heard.take(),
                sent: wall_us(),
                result: None,
                answered: None,
            });
            // A log whose jobs never answer keeps a handful at most.
            if self.jobs.len() > 16 {
                self.jobs.remove(0);
            }
        }
    }

    pub fn result(&mut self, job: JobId) {
        if on() {
            if let Some(m) = self.jobs.iter_mut().find(|m| m.job == job) {
                m.result = Some(wall_us());
            }
        }
    }

    /// A door's call got its answer (before the reply's line is logged).
    pub fn answered(&mut self, job: JobId) {
        if on() {
            if let Some(m) = self.jobs.iter_mut().find(|m| m.job == job) {
                m.answered = Some(wall_us());
            }
        }
    }

    pub fn written(&mut self, job: JobId, stem: &str) {
        if !on() {
            return;
        }
        let Some(i) = self.jobs.iter().position(|m| m.job == job) else {
            return;
        };
        let Moments {
            heard,
            sent,
            result,
            answered,
            ..
        } = self.jobs.remove(i);
        tracing::debug!(
            target: "daebug::timing",
            "timing stem={stem} job={} heard={} sent={sent} result={} written={} answered={}",
            job.0,
            heard.unwrap_or(0),
            result.unwrap_or(0),
            wall_us(),
            answered.unwrap_or(0)
        );
    }
}
