//! Requests the realm made (`fetch`, `XMLHttpRequest`), as the log needs
//! them: a line for each that failed or answered 400 or more, and the list
//! of those a job started, for the `Text network` fence under its reply.
//! Pure: ids and times (milliseconds, any monotonic scale) come in.

use crate::browser_lines::{request, RequestOutcome};

/// Requests awaiting their answer that are remembered; older ones are let
/// go (their answer then makes no line).
const OPEN: usize = 256;
/// Requests of one job listed in full; the rest are counted.
const PER_JOB: usize = 1_000;
/// A long list shows its first and last ones, as background events do.
const HEAD: usize = 2;
const TAIL: usize = 8;

/// A request on its way.
#[derive(Debug, Clone)]
struct Open {
    id: u32,
    method: String,
    url: String,
    start: f64,
}

/// One request of a job: its line once answered.
#[derive(Debug, Clone)]
struct Listed {
    id: u32,
    method: String,
    url: String,
    line: Option<String>,
}

/// See the module docs.
#[derive(Debug, Default)]
pub struct Requests {
    open: Vec<Open>,
    /// The running job's requests, while one runs.
    job: Option<Vec<Listed>>,
    /// Requests of the running job not listed (over [`PER_JOB`]).
    unlisted: usize,
}

impl Requests {
    /// A job starts: requests from now on are its own.
    pub fn start_job(&mut self) {
        self.job = Some(Vec::new());
        self.unlisted = 0;
    }

    /// A request went out.
    pub fn started(&mut self, id: u32, method: &str, url: &str, at: f64) {
        if self.open.len() >= OPEN {
            self.open.remove(0);
        }
        self.open.push(Open {
            id,
            method: method.to_string(),
            url: url.to_string(),
            start: at,
        });
        if let Some(list) = self.job.as_mut() {
            if list.len() < PER_JOB {
                list.push(Listed {
                    id,
                    method: method.to_string(),
                    url: url.to_string(),
                    line: None,
                });
            } else {
                self.unlisted += 1;
            }
        }
    }

    /// A request ended: its line when it is worth an event of its own
    /// (it failed, or answered 400 or more).
    pub fn ended(&mut self, id: u32, outcome: &RequestOutcome, at: f64) -> Option<String> {
        let i = self.open.iter().position(|o| o.id == id)?;
        let open = self.open.remove(i);
        let line = request(&open.method, &open.url, outcome, at - open.start);
        if let Some(listed) = self
            .job
            .as_mut()
            .and_then(|list| list.iter_mut().find(|l| l.id == id))
        {
            listed.line = Some(line.clone());
        }
        outcome.is_failure().then_some(line)
    }

    /// The job ended: the requests it started, one a line (`→ pending`
    /// for those still on their way), first 2 / … / last 8 when long.
    /// `None` when it made none.
    pub fn finish_job(&mut self) -> Option<String> {
        let list = self.job.take()?;
        if list.is_empty() {
            return None;
        }
        let lines: Vec<String> = list
            .into_iter()
            .map(|l| {
                l.line
                    .unwrap_or_else(|| format!("{} {} → pending", l.method, l.url))
            })
            .collect();
        let hidden = lines.len().saturating_sub(HEAD + TAIL) + self.unlisted;
        let mut out: Vec<String> = Vec::new();
        if lines.len() > HEAD + TAIL {
            out.extend_from_slice(&lines[..HEAD]);
            out.push(format!("... ({hidden} more requests) ..."));
            out.extend_from_slice(&lines[lines.len() - TAIL..]);
        } else {
            out = lines;
            if hidden > 0 {
                out.push(format!("... ({hidden} more requests) ..."));
            }
        }
        Some(out.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: u16, text: &str) -> RequestOutcome {
        RequestOutcome::Status(code, text.into())
    }

    #[test]
    fn failures_make_lines_and_a_job_lists_what_it_started() {
        let mut r = Requests::default();
        r.started(1, "GET", "http://h/before", 0.0);
        r.start_job();
        r.started(2, "GET", "http://h/missing.json", 10.0);
        r.started(3, "POST", "http://h/save", 11.0);
        r.started(4, "GET", "http://h/slow", 12.0);
        assert_eq!(
            r.ended(2, &status(404, "Not Found"), 22.4),
            Some("GET http://h/missing.json → 404 Not Found (12 ms)".into())
        );
        assert_eq!(r.ended(3, &status(201, "Created"), 15.0), None);
        // One started before the job is not the job's.
        assert_eq!(r.ended(1, &status(200, "OK"), 30.0), None);
        assert_eq!(
            r.finish_job().as_deref(),
            Some(
                "GET http://h/missing.json → 404 Not Found (12 ms)\n\
                 POST http://h/save → 201 Created (4 ms)\n\
                 GET http://h/slow → pending"
            )
        );
        // A failure after the job still makes its line.
        assert_eq!(
            r.ended(4, &RequestOutcome::Failed("AbortError".into()), 40.0),
            Some("GET http://h/slow → failed: AbortError (28 ms)".into())
        );
        r.start_job();
        assert_eq!(r.finish_job(), None);
        assert_eq!(r.ended(99, &status(500, ""), 1.0), None, "unknown id");
    }

    #[test]
    fn a_long_list_keeps_its_first_and_last() {
        let mut r = Requests::default();
        r.start_job();
        for i in 0..25 {
            r.started(i, "GET", &format!("http://h/{i}"), 0.0);
            r.ended(i, &status(200, "OK"), 1.0);
        }
        let summary = r.finish_job().unwrap();
        let lines: Vec<&str> = summary.lines().collect();
        assert_eq!(lines.len(), 11);
        assert_eq!(lines[0], "GET http://h/0 → 200 OK (1 ms)");
        assert_eq!(lines[2], "... (15 more requests) ...");
        assert_eq!(lines[10], "GET http://h/24 → 200 OK (1 ms)");
    }

    #[test]
    fn memory_is_bounded() {
        let mut r = Requests::default();
        for i in 0..(OPEN as u32 + 10) {
            r.started(i, "GET", "http://h/", 0.0);
        }
        assert_eq!(r.open.len(), OPEN);
        assert_eq!(r.ended(0, &status(500, ""), 1.0), None, "let go");
        r.start_job();
        for i in 0..(PER_JOB as u32 + 5) {
            r.started(10_000 + i, "GET", "http://h/", 0.0);
        }
        let summary = r.finish_job().unwrap();
        assert!(summary.contains(&format!("({} more requests)", PER_JOB - 10 + 5)));
    }
}
