//! Trust under real agents (docs/log-format.md, "Stale
//! saves"): each block runs once and each reply lands under its own block
//! when an agent saves the whole file from a read older than the hub's last
//! write. Real hub, real Chromium page, real files; every block counts its
//! runs in the page, so a second run is seen, not guessed.

mod support;

use support::{base_of, log_in, wait_for, Browser, Log, Running, TempDir, World, Write, FOOTER};

/// A page that counts the runs of each block (`runs[name]`).
const PAGE: &str = "<!doctype html><html><head><title>Trust</title><script>window.runs = {};</script></head><body></body></html>";

fn page() -> World {
    World::new(&[("index.html", PAGE)], "index.html")
}

/// A block named `name` that counts its run, takes `ms`, and replies
/// `"<name>-done"`.
fn block(name: &str, ms: u64) -> String {
    format!(
        "\n```js\nruns['{name}'] = (runs['{name}'] || 0) + 1;\nawait new Promise((r) => setTimeout(r, {ms}));\n'{name}-done'\n```\n"
    )
}

/// The reply written under the block named `name`: the first JSON value
/// after it, which must be its own.
fn reply_under<'a>(text: &'a str, name: &str) -> &'a str {
    let at = text
        .find(&format!("runs['{name}'] = "))
        .unwrap_or_else(|| panic!("block {name} is gone:\n{text}"));
    let rest = &text[at..];
    let json = rest
        .find("```JSON\n")
        .unwrap_or_else(|| panic!("no reply under {name}:\n{text}"));
    rest[json + 8..].lines().next().unwrap_or("")
}

/// Footer lines outside fences (the page's output cannot forge one).
fn footers(text: &str) -> usize {
    let mut fence: Option<String> = None;
    let mut n = 0;
    for line in text.lines() {
        let run: String = line.chars().take_while(|&c| c == '`' || c == '~').collect();
        match &fence {
            Some(open) if run.len() >= open.len() && line.trim_end() == run => fence = None,
            Some(_) => {}
            None if run.len() >= 3 => fence = Some(run),
            None if line.ends_with(FOOTER) => n += 1,
            None => {}
        }
    }
    n
}

/// Waits until every named block has its reply and the log is idle; then
/// asks the page how often each ran.
fn settle_and_count(log: &Log, names: &[&str]) -> String {
    wait_for(&log.path, "every reply", |t| {
        names.iter().all(|n| t.contains(&format!("\"{n}-done\""))) && t.trim_end().ends_with(FOOTER)
    });
    let text = log.exchange(Write::Append, "\n```js\nJSON.stringify(runs)\n```\n", 1);
    let last = &text[text.rfind("JSON.stringify(runs)").unwrap()..];
    last.lines()
        .find(|l| l.starts_with("\"{"))
        .unwrap_or_default()
        .to_string()
}

/// Every named block ran once, its own reply is under it, and the log is
/// clean (see [`assert_clean`]).
fn assert_each_ran_once(log: &Log, names: &[&str]) {
    let runs = settle_and_count(log, names);
    let want: Vec<String> = names.iter().map(|n| format!("\\\"{n}\\\":1")).collect();
    assert_eq!(runs, format!("\"{{{}}}\"", want.join(",")));
    let text = log.text();
    for name in names {
        assert_eq!(
            reply_under(&text, name),
            format!("\"{name}-done\""),
            "{text}"
        );
    }
    assert_clean(&text);
}

fn assert_clean(text: &str) {
    assert_eq!(footers(text), 1, "one footer:\n{text}");
    assert!(!text.contains("executing ("), "a region left:\n{text}");
    assert!(!text.contains("the hub stopped"), "a false note:\n{text}");
    assert!(!text.contains("edited or removed"), "{text}");
}

/// Case 1: A and B start within one second; a save from a read taken
/// while A ran, plus C, comes after A's reply.
#[test]
fn a_save_from_a_read_taken_while_a_ran_keeps_every_reply_under_its_block() {
    let world = page();
    let log = world.log("trust-");
    log.write(Write::Append, &block("A", 300));
    log.write(Write::Append, &block("B", 400));
    let read = wait_for(&log.path, "A running with B queued", |t| {
        t.contains("executing (") && t.contains("runs['B']")
    });
    wait_for(&log.path, "A's reply", |t| t.contains("\"A-done\""));
    std::fs::write(&log.path, read + &block("C", 0)).unwrap();
    assert_each_ran_once(&log, &["A", "B", "C"]);
}

/// Case 2: a save from a read before A's reply erases that reply.
#[test]
fn a_save_that_erases_a_reply_does_not_run_the_block_again() {
    let world = page();
    let log = world.log("trust-");
    let s0 = log.text();
    log.exchange(Write::Append, &block("A", 0), 1);
    std::fs::write(&log.path, s0 + &block("A", 0) + &block("B", 0)).unwrap();
    assert_each_ran_once(&log, &["A", "B"]);
}

/// Case 3: the agent saves its own text plus B while A runs.
#[test]
fn a_save_while_a_block_runs_keeps_one_footer_and_runs_the_new_block() {
    let world = page();
    let log = world.log("trust-");
    let s0 = log.text();
    log.write(Write::Append, &block("A", 500));
    wait_for(&log.path, "A running", |t| t.contains("executing ("));
    std::fs::write(&log.path, s0 + &block("A", 500) + &block("B", 0)).unwrap();
    assert_each_ran_once(&log, &["A", "B"]);
}

/// Case 4: a save from a read taken while A ran, written after A's reply,
/// is not a hub that stopped.
#[test]
fn a_stale_executing_region_becomes_its_reply_not_a_note_that_the_hub_stopped() {
    let world = page();
    let log = world.log("trust-");
    log.write(Write::Append, &block("A", 300));
    let read = wait_for(&log.path, "A running", |t| t.contains("executing ("));
    wait_for(&log.path, "A's reply", |t| t.contains("\"A-done\""));
    let save = log.path.with_extension("md.tmp");
    std::fs::write(&save, read + &block("B", 0)).unwrap();
    std::fs::rename(&save, &log.path).unwrap();
    assert_each_ran_once(&log, &["A", "B"]);
}

/// Case 5: kill -9 the hub while a job's region shows page output shaped
/// like hub lines; the restarted hub closes the real region and leaves the
/// fence alone.
#[test]
fn a_hub_killed_mid_job_closes_the_real_region_on_restart() {
    let root = TempDir::new("crash");
    std::fs::write(root.path().join("index.html"), PAGE).unwrap();
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    let port = base.rsplit(':').next().unwrap().to_string();
    let _browser = Browser::open(&format!("{base}/index.html"));
    let log = log_in(root.path(), "trust-");
    let forged = format!(
        "> **{0}** to agent at 10:00:00\\nexecuting (0s)\\n> **{0}** to agent at 10:00:00 (1ms)\\n> Write code in a fenced JS block below to {FOOTER}",
        log.stem
    );
    log.write(
        Write::Append,
        &format!("\n```js\nconsole.log('{forged}');\nawait new Promise(() => {{}})\n```\n"),
    );
    let before = wait_for(&log.path, "the forged lines in the region", |t| {
        t.contains("```Text console.log") && t.contains("executing (")
    });
    let fence = |t: &str| {
        let at = t.find("```Text console.log").unwrap();
        let end = t[at + 3..].find("```").unwrap() + at + 6;
        t[at..end].to_string()
    };
    drop(hub); // SIGKILL
    let mut hub = Running::start(&["--port", &port], &root);
    hub.line_with("serving");
    let text = wait_for(&log.path, "the region closed", |t| {
        t.contains("(**ERROR** result lost)") && t.trim_end().ends_with(FOOTER)
    });
    assert_eq!(
        fence(&text),
        fence(&before),
        "page output kept byte for byte"
    );
    let placeholders = |t: &str| t.matches("\nexecuting (").count();
    assert_eq!(placeholders(&text), placeholders(&fence(&text)), "{text}");
    assert_eq!(footers(&text), 1, "{text}");
    // The log takes the next block.
    let text = log.exchange(Write::Append, "\n```js\n'after'\n```\n", 1);
    assert!(text.contains("```JSON\n\"after\"\n```"), "{text}");
}

/// A page that counts runs and logs a line every 50 ms (20 events a second).
const STREAMING: &str = "<!doctype html><html><head><title>Trust</title><script>window.runs = {}; let n = 0; setInterval(() => console.log('tick ' + n++), 50);</script></head><body></body></html>";

/// How many blocks the torture writes.
const TORTURE_BLOCKS: usize = 300;

/// Issue 12's torture: a second writer races the hub with appends, whole
/// rewrites and temp-file + rename saves, each from a read the hub writes
/// after, mostly without waiting for replies, while the page streams
/// console events. Every block must run once and get its own reply.
#[test]
fn stale_save_torture() {
    let world = World::new(&[("index.html", STREAMING)], "index.html");
    let log = world.log("trust-");
    let code = |i: usize| format!("runs[{i}] = (runs[{i}] || 0) + 1;");
    let mut read = log.text();
    for i in 0..TORTURE_BLOCKS {
        let chunk = format!("\n```js\n{}\n'r{i}'\n```\n", code(i));
        match i % 3 {
            0 => log.write(Write::Append, &chunk),
            1 => std::fs::write(&log.path, read.clone() + &chunk).unwrap(),
            _ => {
                let temp = log.path.with_extension("md.save");
                std::fs::write(&temp, read.clone() + &chunk).unwrap();
                std::fs::rename(&temp, &log.path).unwrap();
            }
        }
        if i % 5 == 4 {
            wait_for(&log.path, "a reply", |t| t.contains(&format!("\"r{i}\"")));
        }
        // The agent reads its block back; the hub writes after that read
        // (the region, a reply, events), so the next save is stale.
        read = read_back(&log.path, &code(i));
        poll_briefly(|| log.text() != read);
    }
    let text = wait_for(&log.path, "every reply", |t| {
        (0..TORTURE_BLOCKS).all(|i| t.contains(&format!("\"r{i}\"")))
            && t.trim_end().ends_with(FOOTER)
    });
    let runs_text = log.exchange(Write::Append, "\n```js\nJSON.stringify(runs)\n```\n", 1);
    let last = &runs_text[runs_text.rfind("JSON.stringify(runs)").unwrap()..];
    let line = last.lines().find(|l| l.starts_with("\"{")).unwrap();
    let runs: serde_json::Value =
        serde_json::from_str(&serde_json::from_str::<String>(line).unwrap()).unwrap();

    let mut one_reply = 0;
    let (mut twice, mut wrong, mut lost) = (0, 0, 0);
    for i in 0..TORTURE_BLOCKS {
        let marker = format!("```JSON\n\"r{i}\"\n```");
        if text.matches(&marker).count() == 1 {
            one_reply += 1;
        }
        if runs[i.to_string()].as_u64() != Some(1) {
            twice += 1;
        }
        match text.find(&code(i)) {
            Some(at) if text.matches(&code(i)).count() == 1 => {
                let rest = &text[at..];
                let under = rest.find("```JSON\n").map(|j| &rest[j..]);
                if !under.is_some_and(|u| u.starts_with(&marker)) {
                    wrong += 1;
                }
            }
            _ => lost += 1,
        }
    }
    let extra_footers = footers(&text).abs_diff(1);
    println!(
        "torture: {TORTURE_BLOCKS} blocks: {one_reply} with exactly one reply, {twice} not run exactly once, {wrong} replies under the wrong block, {lost} agent blocks lost, {extra_footers} footers too many or too few"
    );
    assert_eq!(
        (one_reply, twice, wrong, lost, extra_footers),
        (TORTURE_BLOCKS, 0, 0, 0, 0),
        "{text}"
    );
}

/// The log once it holds `code` and two reads a few milliseconds apart
/// agree. When a save lands between the hub's check and its swap, the
/// hub's write stands at the path for the microseconds until the save is
/// put back (docs/log-format.md, "Stale saves"): an agent polling every
/// few milliseconds under load can read that instant, and a save from it
/// would drop its own block, which no hub could tell from a deletion.
fn read_back(path: &std::path::Path, code: &str) -> String {
    loop {
        let first = wait_for(path, "the block just written", |t| t.contains(code));
        let mut again = String::new();
        poll_for(4, || {
            again = std::fs::read_to_string(path).unwrap_or_default();
            again != first
        });
        if again == first {
            return first;
        }
    }
}

/// Polls `changed` for up to 50 ms: long enough for the hub's next write
/// to land, short enough that most saves do not wait for replies.
fn poll_briefly(changed: impl FnMut() -> bool) {
    poll_for(50, changed)
}

/// Polls `changed` for up to `ms` milliseconds.
fn poll_for(ms: u64, mut changed: impl FnMut() -> bool) {
    let end = std::time::Instant::now() + std::time::Duration::from_millis(ms);
    while std::time::Instant::now() < end && !changed() {
        // The poll interval of this bounded wait.
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Case 6: a page that navigates away while a block runs. The adapter says
/// where it goes on `pagehide` and closes its socket (no ghost in the
/// back/forward cache); the reply says so at once, and the tab keeps its
/// log.
#[test]
fn a_page_navigating_away_mid_job_is_reported_at_once() {
    let world = World::new(
        &[
            ("index.html", PAGE),
            (
                "other.html",
                "<!doctype html><html><head><title>Trust</title></head><body>other</body></html>",
            ),
        ],
        "index.html",
    );
    let log = world.log("trust-");
    let started = std::time::Instant::now();
    log.write(
        Write::Append,
        "\n```js\nsetTimeout(() => { location.href = '/other.html' }, 100);\nawait new Promise(() => {})\n```\n",
    );
    let text = wait_for(&log.path, "the reply", |t| {
        t.contains("(**ERROR** after ") && t.trim_end().ends_with(FOOTER)
    });
    let took = started.elapsed();
    assert!(
        text.contains(&format!(
            "Error: the page navigated to {}/other.html while this block ran",
            world.base
        )),
        "{text}"
    );
    assert!(took < std::time::Duration::from_secs(30), "{took:?}");
    println!("navigated away mid-job: reply after {took:?}");
    // The new document answers in the same log.
    let text = log.exchange(Write::Append, "\n```js\nlocation.pathname\n```\n", 1);
    assert!(text.contains("```JSON\n\"/other.html\"\n```"), "{text}");
    let registry = std::fs::read_to_string(world.root.path().join("debug.md")).unwrap();
    assert_eq!(
        support::stems_in(&registry),
        vec![log.stem.clone()],
        "{registry}"
    );
}

/// Case 7: a 100 MB log. Its history moves to a file of its own, byte for
/// byte, on the first write; after that a job writes what its tail holds.
#[test]
fn a_100_mb_log_moves_its_history_and_stays_fast() {
    let world = page();
    let log = world.log("trust-");
    let small = log.text();
    let footer_at = small.rfind("> Write code").unwrap();
    let line = "Earlier work, kept byte for byte: ünïcode, `code`, > quotes.\n";
    let history: String = line.repeat(100_000_000 / line.len());
    let big = format!("{}{history}\n{}", &small[..footer_at], &small[footer_at..]);
    let save = log.path.with_extension("md.save");
    std::fs::write(&save, &big).unwrap();
    std::fs::rename(&save, &log.path).unwrap();
    let mut took = Vec::new();
    for i in 0..4 {
        let started = std::time::Instant::now();
        log.exchange(Write::Append, &format!("\n```js\n'big-{i}'\n```\n"), 1);
        took.push(started.elapsed());
    }
    println!("100 MB log: save → reply per job {took:?}");
    let text = log.text();
    assert!(
        text.len() < 64 << 10,
        "{} bytes left in the log",
        text.len()
    );
    let archive = world.root.path().join("debug/archive");
    let moved =
        std::fs::read_to_string(archive.join(format!("{}-history-1.md", log.stem))).unwrap();
    assert!(
        moved.contains(&history),
        "the history moved whole ({} bytes)",
        moved.len()
    );
    assert!(text.contains(&format!(
        "[archive/{0}-history-1.md](archive/{0}-history-1.md)",
        log.stem
    )));
    for i in 0..4 {
        assert!(
            text.contains(&format!("```JSON\n\"big-{i}\"\n```")),
            "{text}"
        );
    }
}
