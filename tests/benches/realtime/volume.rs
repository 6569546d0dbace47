//! What the hub writes for the work it does (docs/log-format.md,
//! "Writes that follow the change"): bytes passed to `write` calls (`wchar`: the job sent to
//! the page included; a copy made inside the kernel, as the whole-file
//! swap's copy of a log's start, is not counted) per `1+1` job, against
//! what the job adds to its log, and per second while a page logs 20
//! events a second, for logs of 10 KB, 1 MB, 3.9 MB (under the 4 MiB
//! archive threshold) and 100 MB (its history moved on the first write).

use std::time::{Duration, Instant};

use super::support::{append, World};
use super::{history, timed_job, wait_tail, written_bytes, Row, FOOTER};

const JOBS: usize = 20;
/// The span the flood is measured over.
const FLOOD: Duration = Duration::from_secs(4);

pub fn write_volume(rows: &mut Vec<Row>) {
    for (label, size) in [
        ("10 KB", 10 << 10),
        ("1 MB", 1 << 20),
        ("3.9 MB", 3_900_000),
        ("100 MB", 100 << 20),
    ] {
        let world = World::new(
            &[(
                "index.html",
                "<!doctype html><html><head><title>Volume</title></head><body><script>\
                 let n = 0; window.tick = () => setInterval(() => console.log('tick', n++), 50)</script></body></html>",
            )],
            "index.html",
        );
        let log = world.log("volume-");
        let have = std::fs::metadata(&log.path).map_or(0, |m| m.len() as usize);
        append(&log.path, &history(size - have.min(size)));
        // The hub moves the footer below the history (and a 100 MB log's
        // history away): once.
        wait_tail(&log.path, |t| t.trim_end().ends_with(FOOTER));
        for n in 0..3 {
            timed_job(&log.path, &log.stem, n);
        }
        let pid = world.hub.pid();
        let (before, len_before) = (written_bytes(pid), file_len(&log.path));
        for n in 3..3 + JOBS {
            timed_job(&log.path, &log.stem, n);
        }
        let per_job = (written_bytes(pid) - before) / JOBS as u64;
        let added = (file_len(&log.path) - len_before) / JOBS as u64;
        rows.push(Row {
            what: format!("{label} log: bytes the hub writes a `1+1` job (what the job adds to the log), mean of {JOBS}"),
            value: format!("{:.1} KB ({added} bytes)", per_job as f64 / 1024.0),
            goal: format!("≤ {:.1} KB (16 KiB + 2× added)", (16384 + 2 * added) as f64 / 1024.0),
        });
        // 20 events a second, while no block runs.
        append(&log.path, "\n```js\ntick(); 'ticking'\n```\n");
        wait_tail(&log.path, |t| {
            t.contains("\"ticking\"") && t.trim_end().ends_with(FOOTER)
        });
        let (before, start) = (written_bytes(pid), Instant::now());
        std::thread::sleep(FLOOD); // the span measured, not a wait
        let per_second = (written_bytes(pid) - before) as f64 / start.elapsed().as_secs_f64();
        rows.push(Row {
            what: format!("{label} log, a page logging 20 events/s: bytes the hub writes a second"),
            value: format!("{:.1} KB/s", per_second / 1024.0),
            goal: "≤ 100 KB/s".into(),
        });
    }
}

fn file_len(path: &std::path::Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}
