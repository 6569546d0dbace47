//! Where the time of a `1+1` through the log file goes: the hub, started
//! with `RUST_LOG=daebug::timing=debug`, logs when its log task heard the
//! change, sent the job, got the result and had the reply written
//! (`server/src/hub/timing.rs`, wall-clock µs); the block reports when it
//! started (the realm's clock, set against the wall clock as in the
//! latency rows); the bench knows when it saved and when it saw the reply.

use super::support::World;
use super::{timed_job, Row, Sample, FOOTER, JOBS, WARM_UP};

/// One job's hub moments, in wall-clock µs (`answered`: a door's call
/// got its answer; 0 for the file).
pub struct HubTimes {
    pub heard: f64,
    pub sent: f64,
    pub result: f64,
    pub written: f64,
    pub answered: f64,
}

/// The timing lines of `stem`'s jobs in the hub's output, in order.
pub fn hub_times(output: &str, stem: &str) -> Vec<HubTimes> {
    let tag = format!("timing stem={stem} ");
    output
        .lines()
        .filter_map(|l| l.split_once(&tag).map(|(_, rest)| rest))
        .map(|rest| {
            let field = |name: &str| {
                rest.split_whitespace()
                    .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or(0.0)
            };
            HubTimes {
                heard: field("heard"),
                sent: field("sent"),
                result: field("result"),
                written: field("written"),
                answered: field("answered"),
            }
        })
        .collect()
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub fn where_the_time_goes(rows: &mut Vec<Row>) {
    // The hub inherits the bench's environment.
    std::env::set_var("RUST_LOG", "daebug=info,daebug::timing=debug");
    let world = World::new(
        &[(
            "index.html",
            "<!doctype html><html><head><title>Stages</title></head><body></body></html>",
        )],
        "index.html",
    );
    std::env::remove_var("RUST_LOG");
    let log = world.log("stages-");
    super::wait_tail(&log.path, |t| t.trim_end().ends_with(FOOTER));
    let samples: Vec<Sample> = (0..WARM_UP + JOBS)
        .map(|n| timed_job(&log.path, &log.stem, n))
        .collect();
    let hub = wait_hub_times(&world, &log.stem, samples.len());
    // The realm's clock against the wall clock (see `medians_of`).
    let offset = samples.iter().map(|s| s.began - s.wall).sum::<f64>() / samples.len() as f64 - 0.5;
    let jobs: Vec<Vec<f64>> = samples
        .iter()
        .zip(hub)
        .skip(WARM_UP)
        .map(|(s, h)| {
            let saved = s.saved * 1000.0;
            let began = (s.began - offset) * 1000.0;
            let seen = saved + s.replied.as_secs_f64() * 1e6;
            vec![
                h.heard - saved,
                h.sent - h.heard,
                began - h.sent,
                h.result - began,
                h.written - h.result,
                seen - h.written,
                seen - saved,
            ]
        })
        .collect();
    let names = [
        "save → the log's task hears the change (inotify, the watcher, the directory)",
        "→ the job sent (read, engine, prepare, the dispatch write)",
        "→ the block starts in the page (WebSocket, the adapter)",
        "→ the result at the log's task (the block, the value's rendering, WebSocket)",
        "→ the reply written (engine, the write)",
        "→ the bench sees it (its poll, every 0.2 ms)",
        "save → reply seen, in all",
    ];
    rows.push(Row {
        what: format!(
            "where the time of a `1+1` goes, through the log file, a page (medians of {JOBS}, µs)"
        ),
        value: stage_cells(&jobs, &names),
        goal: "save → reply ≤ 1.0 ms".into(),
    });
}

/// The last `n` timing lines of `stem`'s jobs in the hub's output. The
/// hub's stderr is read by a thread of its own: the last lines may still
/// be on their way.
pub fn wait_hub_times(world: &World, stem: &str, n: usize) -> Vec<HubTimes> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut hub = loop {
        let hub = hub_times(&world.hub.output(), stem);
        if hub.len() >= n || std::time::Instant::now() > deadline {
            break hub;
        }
        std::thread::sleep(std::time::Duration::from_millis(5)); // the poll's resolution
    };
    assert!(hub.len() >= n, "a timing line a job: {} of {n}", hub.len());
    hub.split_off(hub.len() - n)
}

/// Each stage's median over the jobs (one row of stage durations a job,
/// in µs), named, as a table cell.
pub fn stage_cells(jobs: &[Vec<f64>], names: &[&str]) -> String {
    names
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let stage = jobs.iter().map(|j| j[k]).collect();
            format!("{name}: {:.0} µs", median(stage))
        })
        .collect::<Vec<_>>()
        .join("<br>")
}
