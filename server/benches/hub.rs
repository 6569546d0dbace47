//! Hub latency, end to end on loopback: the real hub, real files, a fake
//! realm on a real WebSocket.
//!
//! - dispatch: from the agent's append to the log until the job frame
//!   reaches the realm;
//! - reply: from the realm sending its result until the reply (and the
//!   footer after it) is on disk.
//!
//! Run: `cargo bench -p daebug --bench hub` (prints a table). The reply is
//! seen through inotify plus a read of the file's tail, so the measurement
//! neither spins a core nor rereads a 10 MB file.

#[path = "../tests/support/mod.rs"]
mod support;

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};
use support::{append, js, TestHub};
use tokio::sync::mpsc;

const JOBS: usize = 200;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    println!("hub latency over {JOBS} jobs (fake realm on loopback WebSocket)\n");
    println!("| log size | dispatch median | dispatch p99 | reply median | reply p99 |");
    println!("|---:|---:|---:|---:|---:|");
    for (label, history) in [("10 KB", 10_000usize), ("10 MB", 10_000_000)] {
        let (dispatch, reply) = rt.block_on(run(history));
        println!(
            "| {label} | {} | {} | {} | {} |",
            ms(pct(&dispatch, 50)),
            ms(pct(&dispatch, 99)),
            ms(pct(&reply, 50)),
            ms(pct(&reply, 99)),
        );
    }
}

async fn run(history: usize) -> (Vec<Duration>, Vec<Duration>) {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Bench", "beef").await;
    let log = hub.log(&realm.stem);
    let footer = "> Write code in a fenced JS block below to execute against this page.\n";
    let head = hub.wait_file(&log, |t| t.ends_with(footer)).await;

    // A long history above the footer, written as an agent's editor would.
    let line = "earlier conversation that the hub must not rescan on every job\n";
    let mut text = head[..head.len() - footer.len()].to_string();
    while text.len() < history {
        text.push_str(line);
    }
    text.push('\n');
    text.push_str(footer);
    support::save_atomically(&log, &text);

    let (tx, mut changes) = mpsc::unbounded_channel();
    let mut watcher = notify::recommended_watcher(move |_res| {
        let _ = tx.send(());
    })
    .expect("watcher");
    watcher
        .watch(
            log.parent().expect("debug dir"),
            RecursiveMode::NonRecursive,
        )
        .expect("watch");

    let mut dispatch = Vec::with_capacity(JOBS);
    let mut reply = Vec::with_capacity(JOBS);
    for i in 0..JOBS {
        let t0 = Instant::now();
        append(&log, &js(&format!("{i}")));
        let (job, code) = realm.job().await;
        dispatch.push(t0.elapsed());
        assert_eq!(code, format!("{i}\n"));

        let want = format!("\"r{i}\"\n```\n\n{footer}");
        while changes.try_recv().is_ok() {}
        let t1 = Instant::now();
        realm.ok(job, &format!("\"r{i}\""), 1).await;
        while !tail(&log).ends_with(&want) {
            tokio::time::timeout(support::DEADLINE, changes.recv())
                .await
                .expect("reply within the deadline");
        }
        reply.push(t1.elapsed());
    }
    drop(watcher);
    hub.stop().await;
    (dispatch, reply)
}

/// The last 4 KiB of a file.
fn tail(path: &Path) -> String {
    let Ok(mut f) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map_or(0, |m| m.len());
    let _ = f.seek(SeekFrom::Start(len.saturating_sub(4096)));
    let mut buf = Vec::new();
    let _ = f.read_to_end(&mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

fn pct(samples: &[Duration], p: usize) -> Duration {
    let mut v = samples.to_vec();
    v.sort();
    v[(v.len() * p / 100).min(v.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}
