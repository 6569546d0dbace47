//! Attach with no tag (docs/zero-edits.md, "Attach to a browser"): how
//! long from starting `daebug --cdp URL --match URL` beside a tab already
//! open on a page with no tag to that tab's first reply on disk; and, on
//! a reload, when the adapter the bridge put in is welcomed by the hub,
//! against the same page with the tag (no bridge for it).

use std::time::{Duration, Instant};

use super::stages::median;
use super::support::cdp::DevtoolsBrowser;
use super::support::{append, base_of, serve_files, stems_in, wait_for, Running, TempDir};
use super::{Row, FOOTER};

/// Hub starts measured.
const STARTS: usize = 5;
/// Reloads measured per page.
const RELOADS: usize = 10;

const PAGE: &str = "<!doctype html><html><head><title>Open</title></head><body>open</body></html>";

/// Spawning the hub → the open tab's reply to `1+1` on disk.
fn start_to_first_reply(chromium: &mut DevtoolsBrowser, app: &str) -> (Duration, Running, TempDir) {
    let root = TempDir::new("bench-attach");
    let cdp = chromium.devtools_url();
    let pattern = format!("{app}/");
    let start = Instant::now();
    let hub = Running::start(&["--port", "0", "--cdp", &cdp, "--match", &pattern], &root);
    let registry = root.path().join("debug.md");
    let listed = wait_for(&registry, "the open tab", |t| {
        stems_in(t).iter().any(|s| s.starts_with("open-"))
    });
    let stem = stems_in(&listed)
        .into_iter()
        .find(|s| s.starts_with("open-"))
        .expect("listed");
    let log = root.path().join("debug").join(format!("{stem}.md"));
    wait_for(&log, "the log", |t| t.trim_end().ends_with(FOOTER));
    append(&log, "\n```js\n1+1\n```\n");
    wait_for(&log, "the reply", |t| {
        t.contains(&format!("> **{stem}** to agent")) && t.trim_end().ends_with(FOOTER)
    });
    (start.elapsed(), hub, root)
}

/// Navigation start → the hub's welcome in the page, over `RELOADS`
/// reloads (ms, the page's own clock).
fn welcome_after_reload(chromium: &mut DevtoolsBrowser) -> f64 {
    let mut times = Vec::new();
    for _ in 0..RELOADS {
        let before = chromium.eval("performance.timeOrigin");
        chromium.call("Page.reload", serde_json::json!({}));
        let at = chromium.wait_until(
            "the welcome in the new document",
            &format!("performance.timeOrigin !== {before} && performance.getEntriesByName('daebug:welcomed')[0]?.startTime"),
        );
        times.push(at.as_f64().expect("a time"));
    }
    median(times)
}

pub fn attach(rows: &mut Vec<Row>) {
    let app = serve_files(vec![("/", PAGE.to_string())]);
    let mut chromium = DevtoolsBrowser::open(&format!("{app}/"));
    let mut starts = Vec::new();
    let mut hub = None;
    for _ in 0..STARTS {
        // The last hub stopped (its bridge's script went with it): a
        // document no bridge touched.
        drop(hub.take());
        let before = chromium.eval("performance.timeOrigin");
        chromium.call("Page.reload", serde_json::json!({}));
        chromium.wait_until(
            "the new document",
            &format!("performance.timeOrigin !== {before} && document.readyState === 'complete'"),
        );
        let (took, running, root) = start_to_first_reply(&mut chromium, &app);
        starts.push(took.as_secs_f64() * 1000.0);
        hub = Some((running, root));
    }
    let (mut hub, _root) = hub.expect("the last hub");
    let injected = welcome_after_reload(&mut chromium);
    let base = base_of(&hub.line_with("serving"));
    let tagged = serve_files(vec![(
        "/",
        format!(
            "<!doctype html><html><head><title>Tagged</title><script src=\"{base}/daebug.js\"></script></head><body>open</body></html>"
        ),
    )]);
    chromium.navigate(&format!("{tagged}/"));
    let with_tag = welcome_after_reload(&mut chromium);
    rows.push(Row {
        what: format!("`daebug --cdp URL --match URL` beside a tab already open on a page with no tag: the hub spawned → the tab's reply to `1+1` on disk (median of {STARTS})"),
        value: format!("{:.0} ms", median(starts)),
        goal: "—".into(),
    });
    rows.push(Row {
        what: format!("a reload of that page: navigation start → the hub's welcome, the adapter put in by the bridge → by the tag in the page (medians of {RELOADS})"),
        value: format!("{injected:.1} ms → {with_tag:.1} ms"),
        goal: "no slower than the tag".into(),
    });
}
