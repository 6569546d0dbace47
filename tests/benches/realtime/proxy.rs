//! What `--proxy` adds to a page load (docs/proxy.md): the realistic page
//! of `page_cost` (HTML, CSS, two scripts, two images), its tag already in
//! it, served by `python3 -m http.server`, loaded in turns straight from
//! that server and through a hub started with `--proxy` in front of it,
//! in one headless Chromium over CDP. Both loads connect a realm to the
//! same hub; what differs is the path of every request (each proxied one
//! on a connection of its own to the server, the page buffered and
//! scanned for the tag).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::json;

use super::page_cost::{load, Load, FIXTURE};
use super::stages::median;
use super::support::cdp::DevtoolsBrowser;
use super::support::{base_of, Running, TempDir};
use super::Row;

/// Loads measured per way and cache mode, after the warm-up.
const LOADS: usize = 20;
const WARM_UP: usize = 2;

pub fn proxy_cost(rows: &mut Vec<Row>) {
    let site = TempDir::new("bench-proxy-site");
    let mut python = Command::new("python3")
        .args([
            "-u",
            "-m",
            "http.server",
            "0",
            "--bind",
            "127.0.0.1",
            "--directory",
        ])
        .arg(site.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 -m http.server");
    let mut first = String::new();
    BufReader::new(python.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("its first line");
    // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
    let port = first
        .split("port ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .expect("its port")
        .to_owned();
    let direct = format!("http://127.0.0.1:{port}");

    let root = TempDir::new("bench-proxy");
    let mut hub = Running::start(&["--port", "0", "--proxy", &direct], &root);
    let proxied = base_of(&hub.line_with("serving"));
    for (name, text) in FIXTURE.iter().skip(1) {
        std::fs::write(site.path().join(name), text).unwrap();
    }
    // The hub's absolute tag, so the page connects the same way from both
    // origins (the proxy leaves a page that loads the hub's script as it is).
    let tag = format!("<script src=\"{proxied}/daebug.js\"></script>");
    std::fs::write(
        site.path().join("index.html"),
        FIXTURE[0].1.replace("<!--TAG-->", &tag),
    )
    .unwrap();

    let mut chromium = DevtoolsBrowser::open("about:blank");
    for first_visit in [false, true] {
        if first_visit {
            chromium.call("Network.enable", json!({}));
            chromium.call("Network.setCacheDisabled", json!({ "cacheDisabled": true }));
        }
        let (mut straight, mut through) = (Vec::new(), Vec::new());
        for n in 0..WARM_UP + LOADS {
            // In turns, so a slow spell of the machine falls on both.
            let a = load(&mut chromium, &format!("{direct}/index.html"), true);
            let b = load(&mut chromium, &format!("{proxied}/index.html"), true);
            if n >= WARM_UP {
                straight.push(a);
                through.push(b);
            }
        }
        let visit = match first_visit {
            false => "a second visit (cache revalidated)",
            true => "a first visit (cache disabled)",
        };
        let of = |v: &[Load], f: fn(&Load) -> f64| median(v.iter().map(f).collect());
        let added = |f: fn(&Load) -> f64| {
            median(
                straight
                    .iter()
                    .zip(&through)
                    .map(|(a, b)| f(b) - f(a))
                    .collect(),
            )
        };
        let welcome = |l: &Load| l.tag.as_ref().map_or(f64::NAN, |t| t.welcomed);
        rows.push(Row {
            what: format!("`--proxy`: the realistic page of `page_cost`, tag in it, from `python3 -m http.server`, {visit}: load event / the hub's welcome, straight from the server → through the hub's proxy (medians of {LOADS} loads each, in turns; what the proxy adds, the median of the pairs' differences)"),
            value: format!(
                "{:.1} / {:.1} ms → {:.1} / {:.1} ms; {:+.1} / {:+.1} ms",
                of(&straight, |l| l.load),
                of(&straight, welcome),
                of(&through, |l| l.load),
                of(&through, welcome),
                added(|l| l.load),
                added(welcome),
            ),
            goal: "—".into(),
        });
    }
    drop(chromium);
    drop(hub);
    let _ = python.kill();
    let _ = python.wait();
}
