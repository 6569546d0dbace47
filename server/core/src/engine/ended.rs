//! Jobs that ended, remembered for the results that still come: one that
//! ended without its result (timeout, cancel, a lost region) takes a late
//! result as a late reply to its agent; one with its reply refuses a
//! second. The engine's ended-jobs part; the last [`REMEMBERED_JOBS`] of
//! each kind are kept.

use std::collections::VecDeque;

use super::input::JobId;

/// How many ended jobs of each kind are remembered.
pub const REMEMBERED_JOBS: usize = 64;

/// See the module docs.
#[derive(Debug, Clone, Default)]
pub struct EndedJobs {
    /// Ended without their result, with the agent a late one answers.
    unanswered: VecDeque<(JobId, String)>,
    /// Replied: a second result is refused.
    replied: VecDeque<JobId>,
}

impl EndedJobs {
    /// `job` ended without its result; `agent` asked for it.
    pub fn handle_unanswered(&mut self, job: JobId, agent: String) {
        remember(&mut self.unanswered, (job, agent));
    }

    /// `job` has its reply.
    pub fn handle_replied(&mut self, job: JobId) {
        remember(&mut self.replied, job);
    }

    /// The agent a late result of `job` answers, if it ended unanswered.
    pub fn late_agent(&self, job: JobId) -> Option<&str> {
        self.unanswered
            .iter()
            .find(|(id, _)| *id == job)
            .map(|(_, agent)| agent.as_str())
    }

    /// A late result of `job` came: its agent, and from now on it counts
    /// as replied. `None` when it did not end unanswered.
    pub fn take_late(&mut self, job: JobId) -> Option<String> {
        let i = self.unanswered.iter().position(|(id, _)| *id == job)?;
        let (_, agent) = self.unanswered.remove(i)?;
        self.handle_replied(job);
        Some(agent)
    }

    /// Whether `job` has its reply.
    pub fn has_reply(&self, job: JobId) -> bool {
        self.replied.contains(&job)
    }
}

fn remember<T>(list: &mut VecDeque<T>, item: T) {
    if list.len() == REMEMBERED_JOBS {
        list.pop_front();
    }
    list.push_back(item);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_late_result_is_taken_once_and_old_jobs_are_forgotten() {
        let mut ended = EndedJobs::default();
        ended.handle_unanswered(JobId(1), "agent".into());
        assert_eq!(ended.late_agent(JobId(1)), Some("agent"));
        assert_eq!(ended.take_late(JobId(1)).as_deref(), Some("agent"));
        assert_eq!(ended.take_late(JobId(1)), None, "once");
        assert!(ended.has_reply(JobId(1)));
        for n in 2..2 + REMEMBERED_JOBS as u64 {
            ended.handle_replied(JobId(n));
        }
        assert!(!ended.has_reply(JobId(1)), "the oldest went");
        assert!(ended.has_reply(JobId(2)));
    }
}
