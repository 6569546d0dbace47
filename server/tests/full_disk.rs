//! The hub on a full disk (a small tmpfs of the test's own, filled by
//! the test): a write that fails leaves the log as it was, the block runs
//! once, and each reply is written once space returns.

mod support;

use support::footer_last;

use support::{append, js, SmallDisk, TestHub};

/// Free bytes in the last 4 KiB page of a file of `len` bytes: what a
/// write can add to it on a full tmpfs.
fn room(len: u64) -> usize {
    (4096 - len % 4096) as usize
}

/// The hub's in-place write of the executing region fills the last free
/// bytes and then fails: the file is put back as the agent left it, so
/// once space returns the block is not read again as a new one (it ran
/// once, and has one reply).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_that_fills_the_disk_leaves_the_log_as_it_was_and_the_block_runs_once() {
    let disk = SmallDisk::mount(2 << 20);
    let root = tempfile::tempdir_in(disk.path()).expect("root");
    let hub = TestHub::start_in(root, |_| {}).await;
    let mut realm = hub.realm("Shop", "0d15").await;
    let log = hub.log(&realm.stem);
    hub.wait_file(&log, footer_last).await;
    let block = js("1 + 1");
    // Prose until the log's last page has room for the chunk below.
    while room(std::fs::metadata(&log).unwrap().len()) < block.len() + 40 {
        let len = std::fs::metadata(&log).unwrap().len();
        append(&log, &format!("\n{}\n", "p".repeat(room(len) + 1)));
        hub.wait_file(&log, footer_last).await;
    }
    let free = room(std::fs::metadata(&log).unwrap().len());
    // The chunk leaves 8 bytes in the page: the executing region does not
    // fit, and every new page is taken.
    let chunk = format!("\n{}\n{block}", "x".repeat(free - 8 - 2 - block.len()));
    disk.fill();
    append(&log, &chunk);
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(
        written.ends_with(&chunk),
        "the agent's append fits the page"
    );
    let (job, code) = realm.job().await;
    assert_eq!(support::block(&code), "$daebug$result = (1 + 1)\n");
    // The failed write was undone (it ran before the job left the hub's
    // send, or is still to come and fails the same way).
    assert_eq!(std::fs::read_to_string(&log).unwrap(), written);
    realm.ok(job, "2", 1).await;

    disk.free();
    let text = hub
        .wait_file(&log, |t| t.contains("(1ms)") && footer_last(t))
        .await;
    let stem = &realm.stem;
    assert_eq!(
        text.matches(&format!("> **{stem}** to agent at ")).count(),
        1,
        "{text}"
    );
    assert_eq!(text.matches("1 + 1").count(), 1, "{text}");
    assert!(text.contains(&chunk), "{text}");
    assert!(text.contains("(1ms)\n```JSON\n2\n```"), "{text}");
    // The next job is the next block, not the first one again.
    append(&log, &js("3"));
    let (next, code) = realm.job().await;
    assert_eq!(support::block(&code), "$daebug$result = (3)\n");
    realm.ok(next, "3", 2).await;
    let text = hub
        .wait_file(&log, |t| t.contains("(2ms)") && footer_last(t))
        .await;
    assert_eq!(text.matches("1 + 1").count(), 1, "{text}");
}

/// Prose appended until the last page of `log` has fewer than `under`
/// bytes free (and at least one).
async fn leave_little_room(hub: &TestHub, log: &std::path::Path, under: usize) {
    for _ in 0..20 {
        let free = room(std::fs::metadata(log).unwrap().len());
        if free < under {
            return;
        }
        let n = free.saturating_sub(under / 2 + 2).max(1);
        append(log, &format!("\n{}\n", "q".repeat(n)));
        hub.wait_file(log, footer_last).await;
    }
    panic!("could not leave less than {under} bytes in the log's last page");
}

/// A door's call while the log cannot be written: the HTTP API answers
/// as soon as the realm gives the reply, with the write error, instead of
/// waiting until its timeout; once space returns the log gets the reply,
/// once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_door_answers_at_once_with_the_write_error_when_the_log_cannot_be_written() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let disk = SmallDisk::mount(2 << 20);
    let root = tempfile::tempdir_in(disk.path()).expect("root");
    let hub = TestHub::start_in(root, |_| {}).await;
    let mut realm = hub.realm("Shop", "0d16").await;
    let log = hub.log(&realm.stem);
    hub.wait_file(&log, footer_last).await;
    leave_little_room(&hub, &log, 16).await;
    disk.fill();
    let before = std::fs::read_to_string(&log).unwrap();

    let body = r#"{"code":"1 + 1","agent":"claude"}"#;
    let request = format!(
        "POST /api/realms/{}/eval HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        realm.stem,
        hub.addr,
        body.len()
    );
    let addr = hub.addr;
    let call = tokio::spawn(async move {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).await.unwrap();
        answer
    });
    let (job, code) = realm.job().await;
    assert_eq!(support::block(&code), "$daebug$result = (1 + 1)\n");
    realm.ok(job, "2", 3).await;
    // Well within the block's 60 s timeout.
    let answer = tokio::time::timeout(support::DEADLINE, call)
        .await
        .expect("the door answers once the realm has")
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(r#""value":2"#), "{answer}");
    assert!(
        answer.contains(r#""log_error":"the log could not be written: No space left on device"#)
            && answer.contains("the reply is kept and written when it can"),
        "{answer}"
    );
    assert!(answer.contains("(3ms)"), "the reply's text: {answer}");
    // Nothing of it reached the log yet, and the realm list says why.
    assert_eq!(std::fs::read_to_string(&log).unwrap(), before);
    let says = |listed: &str| listed.contains(r#""log_error":"No space left on device"#);
    realms_until(&hub, says).await;

    disk.free();
    let text = hub
        .wait_file(&log, |t| t.contains("(3ms)") && footer_last(t))
        .await;
    realms_until(&hub, |listed| !listed.contains("log_error")).await;
    assert_eq!(text.matches("1 + 1").count(), 1, "{text}");
    assert_eq!(
        text.matches(&format!("> **{}** to claude at ", realm.stem))
            .count(),
        1,
        "{text}"
    );
}

/// Polls `GET /api/realms` until `pred` holds of its body.
async fn realms_until(hub: &TestHub, pred: impl Fn(&str) -> bool) {
    let deadline = std::time::Instant::now() + support::DEADLINE;
    loop {
        let (_, listed) = hub.get("/api/realms", &[]).await;
        if pred(&listed) {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{listed}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
