//! The benchmark suite, with real parts: the built hub (release), headless
//! Chromium, a page and a module worker, blocks appended to their logs as
//! an agent's editor appends them. Run on demand, not in CI:
//!
//! ```sh
//! cargo bench -p daebug-e2e --bench realtime
//! ```
//!
//! Prints a table and writes it, with the machine and the date, to
//! `BENCH.md` at the repository root.

#[path = "../tests/support/mod.rs"]
mod support;

#[path = "realtime/doors.rs"]
mod doors;

#[path = "realtime/network.rs"]
mod network;

#[path = "realtime/bridge.rs"]
mod bridge;

#[path = "realtime/node.rs"]
mod node_realms;

#[path = "realtime/volume.rs"]
mod volume;

#[path = "realtime/stages.rs"]
mod stages;

#[path = "realtime/mcp.rs"]
mod mcp;

#[path = "realtime/testing.rs"]
mod testing;

#[path = "realtime/page_cost.rs"]
mod page_cost;

#[path = "realtime/proxy.rs"]
mod proxy;

#[path = "realtime/attach.rs"]
mod attach;

#[path = "realtime/zero_edits.rs"]
mod zero_edits;

use std::fmt::Write as _;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use support::{append, stems_in, wait_for, Engine, World, Write};

/// Jobs measured per realm, after the warm-up.
const JOBS: usize = 100;
const WARM_UP: usize = 5;
/// Time between an agent's saves in the large-log scenario: a turn of an
/// agent takes seconds; this leaves the disk time to take the last write
/// of a 10 MB log (each is a whole new file) before the next job.
const AGENT_PAUSE: Duration = Duration::from_millis(300);
/// The end of a log whose realm is idle.
const FOOTER: &str = "execute against this page.";

/// How to read the table, written under it.
const NOTES: &str = "\
- *Save* is the moment before the bench appends the block, as an agent's edit tool would.
  *Reply on disk* is when the bench, polling every 0.2 ms, reads the reply and the footer back.
- *Block starts* is the block's own reading of `performance.timeOrigin + performance.now()`.
  It is set against the bench's wall clock through the same block's `Date.now()`, averaged over the 100 jobs.
- The hub reads a large log only from an anchor near its end and sends a job before writing the log.
  A log past 4 MiB has its history moved, byte for byte, to `debug/archive/<stem>-history-<n>.md` on its next write,
  so the 10 MB and 100 MB logs are tail-sized after the first write: *written a job* is what the hub passed to
  `write` calls per job (`wchar` of `/proc/<pid>/io`).
- The doors' rows send `1+1` to one page through each way in, taking turns on the same log (so each sees the same
  log sizes). The round trip is from the call to its answer in hand: the reply on disk for the file; the process's exit
  for `daebug eval`; the JSON answer for the API, on one kept-alive connection (reqwest); the tool's result for MCP (the
  SDK's client, one session; over stdio to `daebug mcp --attach`, which calls the hub's API for each tool call).
  *Bytes the hub writes a call* is everything the hub passed to `write` calls from the call's start to the next call's
  (`wchar`): the log's write (the same reply on every path), the job to the page, and the door's answer.
  For comparison, chrome-devtools-mcp's `evaluate_script` was measured on this machine at 210 ms by default and
  4.5 ms in its `--slim` mode (its `evaluate` is measured beside daebug by `-- mcp_python`).
- *Zero edits* (`-- zero_edits`): each way is timed from the spawn of its command to `1+1`'s reply on disk in the realm's log
  (appended as soon as `debug.md` lists the realm, as an agent watching it would), in one headless Chromium already open
  that goes to the app's URL once it answers; everything is stopped and `debug/` removed between runs. chrome-devtools-mcp
  is timed the same way, from its spawn to its first `evaluate_script` answer (it launches a Chromium of its own).
";

/// A scenario adds its rows to the table.
type Scenario = fn(&mut Vec<Row>);

/// One row of the table.
struct Row {
    what: String,
    value: String,
    goal: String,
}

fn main() {
    // `cargo bench -p daebug-e2e --bench realtime -- large` runs the
    // scenarios whose name contains `large`, and writes no BENCH.md.
    let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let scenarios: [(&str, Scenario); 26] = [
        ("latency", latency),
        ("where_the_time_goes", stages::where_the_time_goes),
        ("realm_stages", stages::realm_stages),
        ("log_growth", stages::log_growth),
        ("doors", doors::doors),
        ("mcp_python", mcp::mcp_python),
        ("engines", engines),
        ("navigation_mid_job", navigation_mid_job),
        ("large_log", large_log),
        ("flood_into_large_log", flood_into_large_log),
        ("write_volume", volume::write_volume),
        ("many_realms", many_realms),
        ("console_flood", console_flood),
        ("request_hooks", request_hooks),
        ("network_cost", network::network_cost),
        ("first_line", first_line),
        ("page_cost", page_cost::page_cost),
        ("proxy_cost", proxy::proxy_cost),
        ("zero_edits", zero_edits::zero_edits),
        ("pictures", pictures),
        ("bridge", bridge::bridge),
        ("attach", attach::attach),
        ("node", node_realms::node_realms),
        ("node_console", node_realms::node_console),
        ("tests_in_realm", testing::tests_in_realm),
        ("adapter_size", adapter_size),
    ];
    let mut rows = Vec::new();
    for (name, run) in scenarios {
        if only.as_deref().is_none_or(|o| name.contains(o)) {
            run(&mut rows);
        }
    }

    let mut table = String::from("| measure | value | goal |\n|---|---|---|\n");
    for r in &rows {
        let _ = writeln!(table, "| {} | {} | {} |", r.what, r.value, r.goal);
    }
    println!("{table}");
    if only.is_some() {
        return;
    }
    let report = format!(
        "# daebug benchmarks\n\n\
         Measured {} on {}.\n\n\
         `cargo bench -p daebug-e2e --bench realtime` (the hub built in release, Debian's headless Chromium).\n\n\
         {table}\n{NOTES}",
        command_line("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
        machine()
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../BENCH.md");
    // Sections other benches keep in the file (`## …`) stay.
    let kept = std::fs::read_to_string(&path)
        .ok()
        .and_then(|old| old.find("\n## ").map(|i| old[i..].to_string()))
        .unwrap_or_default();
    let report = format!("{}{kept}", report.trim_end_matches('\n').to_string() + "\n");
    std::fs::write(&path, report).expect("write BENCH.md");
    println!("written to {}", path.display());
}

/// Save → reply on disk for `1+1`, in a page and in a module worker.
fn latency(rows: &mut Vec<Row>) {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Bench</title></head><body>\
                 <script>new Worker('/worker.js', { type: 'module' })</script></body></html>",
            ),
            ("worker.js", "import '/daebug.js?name=bench-worker';\n"),
        ],
        "index.html",
    );
    let root = &world.root;
    let registry = root.path().join("debug.md");
    let listed = wait_for(&registry, "the page and its worker", |t| {
        stems_in(t).len() >= 2
    });
    for stem in stems_in(&listed) {
        let kind = if stem.starts_with("bench-worker-") {
            "worker"
        } else {
            "page"
        };
        let log = root.path().join("debug").join(format!("{stem}.md"));
        wait_for(&log, "the footer", |t| t.trim_end().ends_with(FOOTER));
        let mut times: Vec<Duration> = (0..WARM_UP + JOBS)
            .map(|_| save_to_reply(&log, &stem))
            .skip(WARM_UP)
            .collect();
        times.sort();
        rows.push(Row {
            what: format!("save → reply on disk, `1+1`, {kind} (median / p99 of {JOBS})"),
            value: format!("{} / {}", ms(times[JOBS / 2]), ms(times[JOBS * 99 / 100])),
            goal: "median < 20 ms (the best file-based peer: ~160 ms)".into(),
        });
    }
}

/// Save → reply on disk for `1+1` in a page and a module worker of each
/// engine, one after the other in one run (WebKit's page runs its blocks
/// from a blob script, so its number includes loading that script).
fn engines(rows: &mut Vec<Row>) {
    const RUNS: usize = 50;
    // A Firefox page's first few dozen jobs after its load are slower
    // (13.6 ms against 4.1 ms with 5 of warm-up): measure it warm.
    const WARM_UP: usize = 30;
    for engine in [Engine::Chromium, Engine::Firefox, Engine::WebKit] {
        let world = World::new_in(
            engine,
            &[
                (
                    "index.html",
                    "<!doctype html><html><head><title>Bench</title></head><body>\
                     <script>new Worker('/worker.js', { type: 'module' })</script></body></html>",
                ),
                ("worker.js", "import '/daebug.js?name=crunch';\n"),
            ],
            "index.html",
        );
        for (kind, prefix) in [("page", "bench-"), ("worker", "crunch-")] {
            let log = world.log(prefix);
            let mut times: Vec<Duration> = (0..WARM_UP + RUNS)
                .map(|_| save_to_reply(&log.path, &log.stem))
                .skip(WARM_UP)
                .collect();
            times.sort();
            rows.push(Row {
                what: format!(
                    "save → reply on disk, `1+1`, {kind}, {} (median / p99 of {RUNS})",
                    engine.name()
                ),
                value: format!("{} / {}", ms(times[RUNS / 2]), ms(times[RUNS * 99 / 100])),
                goal: "median < 20 ms".into(),
            });
        }
    }
}

/// A page navigating away while its block runs: from the save of a block
/// that navigates at once to its reply on disk (`the page navigated to
/// …`), against a plain `1+1` in the same page.
fn navigation_mid_job(rows: &mut Vec<Row>) {
    const RUNS: usize = 20;
    let page = |title: &str| {
        format!("<!doctype html><html><head><title>{title}</title></head><body></body></html>")
    };
    let (a, b) = (page("Nav"), page("Nav"));
    let world = World::new(&[("a.html", a.as_str()), ("b.html", b.as_str())], "a.html");
    let log = world.log("nav-");
    let path = &log.path;
    let errors = |t: &str| t.matches("(**ERROR** after ").count();
    let mut times = Vec::with_capacity(RUNS);
    for i in 0..RUNS {
        let next = if i % 2 == 0 { "b" } else { "a" };
        let before = errors(&std::fs::read_to_string(path).unwrap_or_default());
        let start = Instant::now();
        append(
            path,
            &format!("\n```js\nsetTimeout(() => {{ location.href = '/{next}.html' }});\nawait new Promise(() => {{}})\n```\n"),
        );
        let deadline = start + Duration::from_secs(30);
        loop {
            let t = std::fs::read_to_string(path).unwrap_or_default();
            if errors(&t) > before && t.trim_end().ends_with(FOOTER) {
                break;
            }
            assert!(Instant::now() < deadline, "no reply to the navigation");
            // The resolution of this measurement.
            std::thread::sleep(Duration::from_micros(200));
        }
        times.push(start.elapsed());
        // The new document is connected before the next run.
        save_to_reply(path, &log.stem);
    }
    times.sort();
    let plain = save_to_reply(path, &log.stem);
    rows.push(Row {
        what: format!(
            "a page navigating away mid-job: save → reply saying so on disk (median / max of {RUNS}; a plain `1+1` after)"
        ),
        value: format!(
            "{} / {} ({})",
            ms(times[RUNS / 2]),
            ms(times[RUNS - 1]),
            ms(plain)
        ),
        goal: "as soon as the hub knows, not a timeout".into(),
    });
}

/// Dispatch latency (save → the block starts in the realm) and save →
/// reply with a 10 MB log against a 10 KB one, jobs alternating between
/// two workers of one page.
fn large_log(rows: &mut Vec<Row>) {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Large</title></head><body><script>\
                 new Worker('/small.js', { type: 'module' });\
                 new Worker('/large.js', { type: 'module' });\
                 new Worker('/huge.js', { type: 'module' })</script></body></html>",
            ),
            ("small.js", "import '/daebug.js?name=small';\n"),
            ("large.js", "import '/daebug.js?name=large';\n"),
            ("huge.js", "import '/daebug.js?name=huge';\n"),
        ],
        "index.html",
    );
    let registry = world.root.path().join("debug.md");
    let listed = wait_for(&registry, "the workers", |t| {
        let stems = stems_in(t);
        ["small-", "large-", "huge-"]
            .iter()
            .all(|p| stems.iter().any(|s| s.starts_with(p)))
    });
    let mut logs = Vec::new();
    let sizes = [
        ("small-", 10 * 1024usize),
        ("large-", 10 * 1024 * 1024),
        ("huge-", 100 * 1024 * 1024),
    ];
    for (prefix, size) in sizes {
        let stem = stems_in(&listed)
            .into_iter()
            .find(|s| s.starts_with(prefix))
            .expect("worker listed");
        let path = world.root.path().join("debug").join(format!("{stem}.md"));
        wait_for(&path, "the footer", |t| t.trim_end().ends_with(FOOTER));
        let have = std::fs::metadata(&path).map_or(0, |m| m.len() as usize);
        append(&path, &history(size.saturating_sub(have)));
        // The hub moves the footer below the history: once, a whole read.
        wait_tail(&path, |t| t.trim_end().ends_with(FOOTER));
        let label = match size >> 20 {
            0 => format!("{} KB", size >> 10),
            mb => format!("{mb} MB"),
        };
        logs.push((label, size, stem, path));
    }
    for pause in [AGENT_PAUSE, Duration::ZERO] {
        let mut medians = Vec::new();
        for (label, size, stem, path) in &logs {
            // One log after the other: a large log's writes keep the disk
            // busy for a while after its reply, which a small log's job
            // right after would be charged with.
            let mut written = 0;
            let samples: Vec<Sample> = (0..WARM_UP + JOBS)
                .map(|n| {
                    std::thread::sleep(pause); // the agent's turn, not a wait
                    if n == WARM_UP {
                        written = written_bytes(world.hub.pid());
                    }
                    timed_job(path, stem, n)
                })
                .skip(WARM_UP)
                .collect();
            let per_job = (written_bytes(world.hub.pid()) - written) / JOBS as u64;
            let (dispatch, reply) = medians_of(&samples);
            medians.push(dispatch);
            if pause.is_zero() {
                continue;
            }
            let on_disk = std::fs::metadata(path).map_or(0, |m| m.len());
            rows.push(Row {
                what: format!(
                    "{label} log ({} KB at the end), jobs {} ms apart: save → block starts / save → reply on disk (medians of {JOBS})",
                    on_disk / 1024,
                    pause.as_millis()
                ),
                value: format!(
                    "{} / {}; {} KB written a job",
                    ms(dispatch),
                    ms(reply),
                    per_job / 1024
                ),
                goal: if *size > 1024 * 1024 {
                    "see the ratio".into()
                } else {
                    "—".into()
                },
            });
        }
        for (i, label) in [(1, "10 MB"), (2, "100 MB")] {
            let ratio = medians[i].as_secs_f64() / medians[0].as_secs_f64();
            rows.push(Row {
                what: match pause.is_zero() {
                    false => format!(
                        "dispatch latency ratio, {label} log / 10 KB log, jobs {} ms apart",
                        pause.as_millis()
                    ),
                    true => format!(
                        "the same for {label}, jobs back to back ({} / {})",
                        ms(medians[i]),
                        ms(medians[0])
                    ),
                },
                value: format!("{ratio:.2}"),
                goal: "< 1.5".into(),
            });
        }
    }
}

/// Medians of save → block starts and save → reply on disk.
fn medians_of(samples: &[Sample]) -> (Duration, Duration) {
    // The realm's `performance` clock against the wall clock: its
    // `Date.now()` read at the same moment is the wall clock cut to whole
    // milliseconds, half a millisecond short on average.
    let offset = samples.iter().map(|s| s.began - s.wall).sum::<f64>() / samples.len() as f64 - 0.5;
    let mut dispatch: Vec<Duration> = samples
        .iter()
        .map(|s| Duration::from_secs_f64(((s.began - offset - s.saved) / 1000.0).max(0.0)))
        .collect();
    let mut reply: Vec<Duration> = samples.iter().map(|s| s.replied).collect();
    dispatch.sort();
    reply.sort();
    (dispatch[dispatch.len() / 2], reply[reply.len() / 2])
}

use daebug_test_files::agent_history as history;

/// One timed job: the wall clock when its block was saved, the realm's
/// clocks when it started, and how long until its reply was on disk.
struct Sample {
    saved: f64,
    /// `performance.timeOrigin + performance.now()` (fine, its own origin).
    began: f64,
    /// `Date.now()` right after (the wall clock, whole milliseconds).
    wall: f64,
    replied: Duration,
}

/// Appends a block that reports when it started, and waits for its reply.
/// Only the log's end is read while polling, so a large log costs the
/// poller nothing.
fn timed_job(path: &PathBuf, stem: &str, n: usize) -> Sample {
    let marker = format!(" n={n}\"");
    let saved = wall_ms();
    let start = Instant::now();
    append(
        path,
        &format!(
            "\n```js\n`t=${{performance.timeOrigin + performance.now()}} d=${{Date.now()}} n={n}`\n```\n"
        ),
    );
    let text = wait_tail(path, |t| {
        t.contains(&marker) && t.trim_end().ends_with(FOOTER)
    });
    let replied = start.elapsed();

    let at = text.rfind(&marker).expect("marker");
    let line = &text[text[..at].rfind("\"t=").expect("the reply") + 3..at];
    let numbers: Vec<f64> = line
        .split(" d=")
        .filter_map(|x| x.trim().parse().ok())
        .collect();
    let [began, wall] = numbers[..] else {
        panic!("no start time in the reply of {stem}: {line}")
    };
    Sample {
        saved,
        began,
        wall,
        replied,
    }
}

/// Polls the last 64 KB of a file until `done` holds; returns them.
fn wait_tail(path: &PathBuf, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut text = String::new();
        if let Ok(mut f) = std::fs::File::open(path) {
            let len = f.metadata().map_or(0, |m| m.len());
            let _ = f.seek(SeekFrom::Start(len.saturating_sub(64 * 1024)));
            let mut bytes = Vec::new();
            let _ = f.read_to_end(&mut bytes);
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
        if done(&text) {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "timed out on {}: {text}",
            path.display()
        );
        // The resolution of this measurement.
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// The wall clock in milliseconds, as the realm's `performance.timeOrigin
/// + performance.now()` counts them.
fn wall_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// 20 realms sent a job at once, and a hub holding 50 realms: its memory
/// and its CPU while nothing happens.
fn many_realms(rows: &mut Vec<Row>) {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Many</title></head><body><script>\
                 for (let i = 0; i < 50; i++) new Worker('/worker.js', { type: 'module' })\
                 </script></body></html>",
            ),
            ("worker.js", "import '/daebug.js?name=w';\n"),
        ],
        "index.html",
    );
    let root = &world.root;
    let registry = root.path().join("debug.md");
    let listed = wait_for(&registry, "51 realms", |t| stems_in(t).len() >= 51);
    let logs: Vec<(String, PathBuf)> = stems_in(&listed)
        .into_iter()
        .filter(|s| s.starts_with("w-"))
        .take(20)
        .map(|s| {
            let path = root.path().join("debug").join(format!("{s}.md"));
            wait_for(&path, "the footer", |t| t.trim_end().ends_with(FOOTER));
            (s, path)
        })
        .collect();
    let start = Instant::now();
    for (_, path) in &logs {
        append(path, "\n```js\n1+1\n```\n");
    }
    for (stem, path) in &logs {
        wait_for(path, "the reply", |t| {
            t.contains(&format!("> **{stem}** to agent at ")) && t.trim_end().ends_with(FOOTER)
        });
    }
    rows.push(Row {
        what: "20 realms sent `1+1` at once: all replies on disk".into(),
        value: ms(start.elapsed()),
        goal: "—".into(),
    });

    let pid = world.hub.pid();
    let cpu_before = cpu_ticks(pid);
    let idle = Duration::from_secs(10);
    std::thread::sleep(idle); // the idle period measured, not a wait
    let cpu = cpu_ticks(pid).saturating_sub(cpu_before);
    let ticks_per_second = command_line("getconf", &["CLK_TCK"])
        .parse::<f64>()
        .unwrap_or(100.0);
    rows.push(Row {
        what: "hub with 51 realms (50 workers + page): RSS / idle CPU over 10 s".into(),
        value: format!(
            "{} MB / {:.2} %",
            rss_kb(pid) / 1024,
            100.0 * cpu as f64 / ticks_per_second / idle.as_secs_f64()
        ),
        goal: "—".into(),
    });
}

/// A page logging 100,000 lines in a loop: what the hooked console costs a
/// call (against the page's own console, from an iframe without daebug),
/// how big the log gets, the hub's memory, and whether the page answers.
fn console_flood(rows: &mut Vec<Row>) {
    let world = World::new(
        &[(
            "index.html",
            "<!doctype html><html><head><title>Flood</title></head><body></body></html>",
        )],
        "index.html",
    );
    let flood = world.log("flood-");
    let (stem, log) = (flood.stem.clone(), flood.path.clone());
    append(
        &log,
        "\n```js\nconst frame = document.createElement('iframe');\ndocument.body.append(frame);\n\
         const perCall = (c) => { const t0 = performance.now(); for (let i = 0; i < 100000; i++) c.log('line', i); return (performance.now() - t0) * 10; };\n\
         // Each twice: the first rounds warm the JIT up.\n\
         [perCall(frame.contentWindow.console), perCall(console), perCall(frame.contentWindow.console), perCall(console)]\n```\n",
    );
    let text = wait_for(&log, "the flood's reply", |t| {
        t.contains(&format!("> **{stem}** to agent at ")) && t.trim_end().ends_with(FOOTER)
    });
    let reply = &text[text.rfind("```JSON\n").map_or(0, |i| i + 8)..];
    let numbers: Vec<f64> = reply
        .trim_start_matches('[')
        .split([',', ']'])
        .take(2)
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let (raw, hooked) = (
        numbers.first().copied().unwrap_or(0.0),
        numbers.get(1).copied().unwrap_or(0.0),
    );
    rows.push(Row {
        what: "100,000 `console.log` calls in a loop: ns a call, own console / hooked".into(),
        value: format!("{raw:.0} / {hooked:.0}"),
        goal: "—".into(),
    });
    let respond = save_to_reply(&log, &stem);
    rows.push(Row {
        what: "after the flood: log size, hub RSS, next `1+1` save → reply".into(),
        value: format!(
            "{} KB, {} MB, {}",
            std::fs::metadata(&log).map_or(0, |m| m.len()) / 1000,
            rss_kb(world.hub.pid()) / 1024,
            ms(respond)
        ),
        goal: "the page stays responsive".into(),
    });
}

/// What the loader's `fetch` and `XMLHttpRequest` hooks cost a request:
/// 1,000 requests of a `data:` URL (no network, so the hook is not lost in
/// it) started in a loop, then awaited, through the page's hooked
/// functions and through those of an iframe without daebug. The loop's
/// time a call is what the page's code waits for; the time until all are
/// done adds what the answers cost.
fn request_hooks(rows: &mut Vec<Row>) {
    let world = World::new(
        &[(
            "index.html",
            "<!doctype html><html><head><title>Hooks</title></head><body></body></html>",
        )],
        "index.html",
    );
    let log = world.log("hooks-");
    let code = "\n```js timeout=120s\nconst frame = document.createElement('iframe');\ndocument.body.append(frame);\n\
         const w = frame.contentWindow;\nconst url = 'data:application/json,{}';\n\
         const time = async (start) => { const t0 = performance.now(); const all = []; for (let i = 0; i < 1000; i++) all.push(start()); const t1 = performance.now(); await Promise.all(all); return [t1 - t0, performance.now() - t0]; };\n\
         const viaFetch = (f) => time(() => f(url));\n\
         const viaXhr = (X) => time(() => new Promise((done) => { const x = new X(); x.open('GET', url); x.onloadend = done; x.send(); }));\n\
         const round = async () => [await viaFetch(w.fetch.bind(w)), await viaFetch(fetch), await viaXhr(w.XMLHttpRequest), await viaXhr(XMLHttpRequest)];\n\
         // The first rounds warm up.\n\
         await round(); await round();\n\
         (await round()).flat().map((ms) => Math.round(ms))\n```\n";
    let text = log.exchange(Write::Append, code, 1);
    let reply = &text[text.rfind("```JSON\n").map_or(0, |i| i + 8)..];
    let n: Vec<f64> = reply
        .trim_start_matches('[')
        .split([',', ']'])
        .take(8)
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    // Milliseconds for 1,000 calls = microseconds a call.
    let at = |i: usize| n.get(i).copied().unwrap_or(0.0);
    rows.push(Row {
        what:
            "1,000 `fetch` of a `data:` URL: µs a call in the loop / until answered, own → hooked"
                .into(),
        value: format!("{:.0} / {:.0} → {:.0} / {:.0}", at(0), at(1), at(2), at(3)),
        goal: "almost nothing over the original".into(),
    });
    rows.push(Row {
        what: "1,000 `XMLHttpRequest` of a `data:` URL: µs a call in the loop / until answered, own → hooked".into(),
        value: format!("{:.0} / {:.0} → {:.0} / {:.0}", at(4), at(5), at(6), at(7)),
        goal: "almost nothing over the original".into(),
    });
}

/// From a page's first `console.log` (an inline script right after the
/// loader, before the adapter's WebAssembly has loaded) to its event on
/// disk: the page logs its wall-clock time, the bench notes when the line
/// shows up in the log.
fn first_line(rows: &mut Vec<Row>) {
    let mut times = Vec::new();
    for _ in 0..5 {
        let world = World::new(
            &[(
                "index.html",
                "<!doctype html><html><head><title>First</title>\
                 <script>console.log('first line at', Date.now())</script></head><body></body></html>",
            )],
            "index.html",
        );
        let registry = world.root.path().join("debug.md");
        let listed = wait_for(&registry, "the page", |t| !stems_in(t).is_empty());
        let stem = stems_in(&listed).remove(0);
        let path = world.root.path().join("debug").join(format!("{stem}.md"));
        let deadline = Instant::now() + Duration::from_secs(30);
        let (text, seen) = loop {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if text.contains("first line at ") {
                break (text, std::time::SystemTime::now());
            }
            assert!(
                Instant::now() < deadline,
                "no first line in {}",
                path.display()
            );
            // The resolution of this measurement.
            std::thread::sleep(Duration::from_micros(200));
        };
        let logged: u64 = text
            .split("first line at ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let seen_ms = seen
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        times.push(Duration::from_millis(seen_ms.saturating_sub(logged)));
    }
    times.sort();
    rows.push(Row {
        what: "a page's first `console.log` (before the adapter loads) → its event on disk, median of 5 page loads".into(),
        value: ms(times[times.len() / 2]),
        goal: "—".into(),
    });
}

/// A page logging 20 events a second into a 100 MB log: what the hub
/// writes a second (its history moved away on the first write).
fn flood_into_large_log(rows: &mut Vec<Row>) {
    let world = World::new(
        &[(
            "index.html",
            "<!doctype html><html><head><title>Ticker</title></head><body><script>\
             let n = 0; setInterval(() => console.log('tick', n++), 50)</script></body></html>",
        )],
        "index.html",
    );
    let log = world.log("ticker-");
    append(&log.path, &history(100 * 1024 * 1024));
    // Its next write moves the history out.
    wait_for(&log.path, "the history moved", |t| {
        t.contains("Earlier history of this log")
    });
    let pid = world.hub.pid();
    let (before, start) = (written_bytes(pid), Instant::now());
    std::thread::sleep(Duration::from_secs(5)); // the span measured, not a wait
    let per_second = (written_bytes(pid) - before) as f64 / start.elapsed().as_secs_f64();
    let size = std::fs::metadata(&log.path).map_or(0, |m| m.len());
    rows.push(Row {
        what: "a page logging 20 events/s into a 100 MB log: bytes the hub writes a second (log size after)".into(),
        value: format!("{:.0} KB/s ({} KB)", per_second / 1024.0, size / 1024),
        goal: "near the tail's size a write".into(),
    });
}

/// Bytes `pid` passed to write calls so far (`wchar` of `/proc/<pid>/io`;
/// copies inside the kernel are not counted).
fn written_bytes(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/io"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("wchar:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// The resident memory of `pid`, in KiB.
fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// User + system CPU time of `pid`, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the `(comm)`, which may hold spaces: utime and stime are
    // the 12th and 13th of them.
    let rest = stat.rsplit_once(") ").map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(11) + field(12)
}

/// Appends one block and waits for its reply; the time in between.
fn save_to_reply(log: &PathBuf, stem: &str) -> Duration {
    let replies = |t: &str| t.matches(&format!("> **{stem}** to agent at ")).count();
    let before = replies(&std::fs::read_to_string(log).unwrap_or_default());
    let start = Instant::now();
    append(log, "\n```js\n1+1\n```\n");
    let deadline = start + Duration::from_secs(30);
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if replies(&text) > before && text.trim_end().ends_with(FOOTER) {
            return start.elapsed();
        }
        assert!(Instant::now() < deadline, "no reply in {}", log.display());
        // The resolution of this measurement.
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Save → reply on disk with the picture saved, for a 1920×1080 canvas
/// (a chart-like drawing, and noise: the largest PNG such a canvas makes)
/// and for `daebug.snapshot()` of a page of 200 styled rows.
fn pictures(rows: &mut Vec<Row>) {
    let rows_html: String = (0..200)
        .map(|i| format!("<div style=\"padding:2px;border:1px solid #ccc;color:hsl({}, 60%, 40%)\">row {i}</div>", i * 7 % 360))
        .collect();
    let page = format!(
        "<!doctype html><html><head><title>Pics</title></head><body>{rows_html}</body></html>"
    );
    let world = World::new(&[("index.html", page.as_str())], "index.html");
    let log = world.log("pics-");
    let canvas = "const c = document.createElement('canvas'); c.width = 1920; c.height = 1080;\n\
        const x = c.getContext('2d');";
    let chart = format!(
        "{canvas}\nconst g = x.createLinearGradient(0, 0, 1920, 1080); g.addColorStop(0, '#124'); g.addColorStop(1, '#fa3');\n\
         x.fillStyle = g; x.fillRect(0, 0, 1920, 1080);\n\
         for (let i = 0; i < 200; i++) {{ x.fillStyle = `hsl(${{i * 7}}, 70%, 50%)`; x.fillRect(i * 9, 1080 - i * 5, 8, i * 5); }}\n\
         await daebug.image(c)"
    );
    let noise = format!(
        "{canvas}\nconst d = x.createImageData(1920, 1080); crypto.getRandomValues(d.data.subarray(0, 65536));\n\
         for (let o = 65536; o < d.data.length; o += 65536) d.data.copyWithin(o, (o * 7919) % 65536 & ~3, Math.min(d.data.length, o + 65536));\n\
         for (let i = 3; i < d.data.length; i += 4) d.data[i] = 255;\n\
         x.putImageData(d, 0, 0); await daebug.image(c)"
    );
    let cases = [
        ("a 1920×1080 canvas, drawn (gradient and 200 bars)", chart),
        ("a 1920×1080 canvas of noise", noise),
        (
            "`daebug.snapshot()` of a page of 200 styled rows",
            "await daebug.snapshot()".to_string(),
        ),
    ];
    for (what, code) in cases {
        let mut times = Vec::new();
        let mut size = 0;
        for _ in 0..6 {
            let (t, bytes) = save_to_picture(&world, &log, &code);
            times.push(t);
            size = bytes;
        }
        // The first one warms the page up.
        let mut times = times.split_off(1);
        times.sort();
        rows.push(Row {
            what: format!(
                "{what}: save → reply with the picture on disk (median / max of 5; the file)"
            ),
            value: format!("{} / {} ({} KB)", ms(times[2]), ms(times[4]), size / 1000),
            goal: "—".into(),
        });
    }
}

/// Appends a block that makes one picture and waits for its reply; the
/// time in between and the size of the file it links.
fn save_to_picture(world: &World, log: &support::Log, code: &str) -> (Duration, u64) {
    let stem = &log.stem;
    let replies = |t: &str| t.matches(&format!("> **{stem}** to agent at ")).count();
    let before = replies(&log.text());
    let start = Instant::now();
    append(&log.path, &format!("\n```js\n{code}\n```\n"));
    let deadline = start + Duration::from_secs(60);
    loop {
        let text = log.text();
        if replies(&text) > before && text.trim_end().ends_with(FOOTER) {
            let elapsed = start.elapsed();
            let reply = &text[text.rfind("> **agent** to ").unwrap_or(0)..];
            let path = reply
                .lines()
                .find_map(|l| l.strip_prefix("![")?.split_once("](")?.1.strip_suffix(')'))
                .unwrap_or_else(|| panic!("no picture in the reply:\n{reply}"));
            let file = world.root.path().join("debug").join(path);
            return (elapsed, std::fs::metadata(file).map_or(0, |m| m.len()));
        }
        assert!(
            Instant::now() < deadline,
            "no reply in {}",
            log.path.display()
        );
        // The resolution of this measurement.
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// The adapter a realm downloads, raw and gzipped.
fn adapter_size(rows: &mut Vec<Row>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../www/adapter");
    let files = ["daebug_adapter_bg.wasm", "daebug_adapter.js"];
    let raw: u64 = files
        .iter()
        .map(|f| std::fs::metadata(dir.join(f)).map_or(0, |m| m.len()))
        .sum();
    let gzipped: usize = files
        .iter()
        .map(|f| {
            Command::new("gzip")
                .args(["-9", "-c"])
                .arg(dir.join(f))
                .output()
                .map_or(0, |o| o.stdout.len())
        })
        .sum();
    // The loader a page also loads: `daebug.js` with the pieces the hub
    // splices into it (`http/assets.rs`), gzipped as one file.
    let shim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapter-shim");
    let pieces = [
        "daebug.js",
        "hooks.js",
        "values.js",
        "pictures.js",
        "toolkit.js",
        "person.js",
    ];
    let loader: Vec<u8> = pieces
        .iter()
        .flat_map(|f| std::fs::read(shim.join(f)).unwrap_or_default())
        .collect();
    let loader_gz = {
        use std::io::Write as _;
        let mut gzip = std::process::Command::new("gzip")
            .args(["-9", "-c"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("gzip");
        let mut stdin = gzip.stdin.take().expect("stdin");
        stdin.write_all(&loader).expect("gzip's stdin");
        drop(stdin);
        gzip.wait_with_output().map_or(0, |o| o.stdout.len())
    };
    rows.push(Row {
        what: format!(
            "adapter (`.wasm` + glue), raw / gzip -9 (the loader aside: {:.1} KB gzipped, with the hooks, values, pictures, toolkit and person the hub splices into it)",
            loader_gz as f64 / 1000.0
        ),
        value: format!("{raw} / {gzipped} bytes"),
        goal: "≤ 65,536 bytes (64 KB) gzipped".into(),
    });
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn machine() -> String {
    format!(
        "{} ({} cores), {}",
        command_line("uname", &["-srm"]),
        command_line("nproc", &[]),
        command_line("/usr/bin/chromium", &["--version"])
    )
}

fn command_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "?".into())
}
