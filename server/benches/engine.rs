//! Accept + complete on a small and a large log: the engine's cost must
//! follow the size of the active tail, not of the file.
//!
//! `cargo bench -p daebug --bench engine` prints a table. The engine time
//! (both `handle` calls) is reported apart from applying the edits, which
//! copies the whole text and belongs to the shell.

use std::time::{Duration, Instant};

use daebug_core::engine::template::new_log;
use daebug_core::engine::{
    apply, ClockTime, Config, Input, JobId, JobResult, LogEngine, Millis, Now, Outcome, Value,
};

const STEM: &str = "shop-3f2a";
const ROUNDS: usize = 200;

/// A log of about `size` bytes of finished requests and replies.
fn history(size: usize) -> String {
    let mut text = new_log(STEM);
    let footer = text.split_off(text.rfind("> Write code").unwrap());
    let mut i = 0;
    while text.len() < size {
        text.push_str(&format!(
            "> **agent** to {STEM} at 09:00:00\n```js\nitems[{i}].name\n```\n\n> **{STEM}** to agent at 09:00:00 (2ms)\n```JSON\n\"item number {i} with a name long enough to be realistic\"\n```\n\n"
        ));
        i += 1;
    }
    text + &footer
}

fn now(ms: u64) -> Now {
    Now {
        mono: Millis(ms),
        clock: ClockTime {
            hour: 10,
            minute: 0,
            second: 0,
        },
    }
}

struct Sample {
    engine: Duration,
    apply: Duration,
    /// The shell's snapshot of the engine before a run (a clone).
    snapshot: Duration,
}

fn run(size: usize) -> Vec<Sample> {
    let mut text = history(size);
    let mut engine = LogEngine::new(STEM, Config::default());
    let mut samples = Vec::with_capacity(ROUNDS);
    for round in 0..ROUNDS as u64 {
        text.push_str("```js\ndocument.title\n```\n");
        let ts = Instant::now();
        let snapshot = std::hint::black_box(engine.clone());
        let snapshot_took = ts.elapsed();
        drop(snapshot);
        let t0 = Instant::now();
        let accepted = engine.handle(&text, Input::FileChanged, now(round * 10));
        let engine_accept = t0.elapsed();
        let t1 = Instant::now();
        text = apply(&text, &accepted.edits);
        let apply_accept = t1.elapsed();
        let job = engine.running().unwrap_or(JobId(0));
        let result = Input::Result(JobResult {
            job,
            outcome: Outcome::Ok(Value::Json("\"Shop\"".into())),
            events: vec![],
            dropped: 0,
            limited: 0,
            duration_ms: 2,
        });
        let t2 = Instant::now();
        let completed = engine.handle(&text, result, now(round * 10 + 5));
        let engine_complete = t2.elapsed();
        let t3 = Instant::now();
        text = apply(&text, &completed.edits);
        let apply_complete = t3.elapsed();
        assert!(
            engine.running().is_none(),
            "round {round}: the job did not complete"
        );
        samples.push(Sample {
            engine: engine_accept + engine_complete,
            apply: apply_accept + apply_complete,
            snapshot: snapshot_took,
        });
    }
    samples
}

fn percentile(mut v: Vec<Duration>, p: f64) -> Duration {
    v.sort();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    println!("engine: accept + complete of one block, {ROUNDS} rounds each\n");
    println!("| log size | engine median | engine p99 | apply edits median (shell) | snapshot median (shell) |");
    println!("|---------:|--------------:|-----------:|---------------------------:|------------------------:|");
    let mut medians = Vec::new();
    for (label, size) in [("10 KB", 10 * 1024), ("10 MB", 10 * 1024 * 1024)] {
        let samples = run(size);
        let engine: Vec<_> = samples.iter().map(|s| s.engine).collect();
        let apply: Vec<_> = samples.iter().map(|s| s.apply).collect();
        let snapshot: Vec<_> = samples.iter().map(|s| s.snapshot).collect();
        let median = percentile(engine.clone(), 0.5);
        medians.push(median);
        println!(
            "| {label} | {:.1} µs | {:.1} µs | {:.1} µs | {:.1} µs |",
            median.as_secs_f64() * 1e6,
            percentile(engine, 0.99).as_secs_f64() * 1e6,
            percentile(apply, 0.5).as_secs_f64() * 1e6,
            percentile(snapshot, 0.5).as_secs_f64() * 1e6
        );
    }
    println!(
        "\nengine median ratio 10 MB / 10 KB: {:.2}",
        medians[1].as_secs_f64() / medians[0].as_secs_f64()
    );
}
