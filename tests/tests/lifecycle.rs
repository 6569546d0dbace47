//! The chat-log lifecycle of docs/log-format.md with real parts: the built hub,
//! headless Chromium, and chunks written the three ways an agent's tools
//! write them (append, whole-file rewrite, temp file + rename).

mod support;

use support::{wait_for, World, Write, FOOTER};

fn page() -> World {
    World::new(
        &[(
            "index.html",
            "<!doctype html><html><head><title>Life</title></head><body><p id=hello>Hello</p></body></html>",
        )],
        "index.html",
    )
}

#[test]
fn requests_replies_and_chunks_as_the_design_says() {
    let world = page();
    let log = world.log("life-");

    // An expression, appended: the hub inserts the request header.
    let text = log.exchange(Write::Append, "\n```js\n6 * 7\n```\n", 1);
    assert!(text.contains("> **agent** to life-"), "{text}");
    assert!(text.contains("```JSON\n42\n```"), "{text}");

    // A string, by a named agent, rewriting the whole file.
    let text = log.exchange(
        Write::Rewrite,
        "\n> **claude** to life at 12:00:00\n```js\ndocument.querySelector('#hello').textContent\n```\n",
        1,
    );
    assert!(
        text.contains(&format!("> **{}** to claude at ", log.stem)),
        "{text}"
    );
    assert!(text.contains("```JSON\n\"Hello\"\n```"), "{text}");

    // An error with its stack, saved as temp file + rename.
    let text = log.exchange(Write::Rename, "\n```js\nnull.marker1\n```\n", 1);
    assert!(text.contains("(**ERROR** after "), "{text}");
    assert!(
        text.contains(
            "TypeError: Cannot read properties of null (reading 'marker1')\n    at <cell>:1:6"
        ),
        "{text}"
    );

    // Several blocks with prose between them: prose is kept, blocks run in
    // order, and after a failing block the rest are skipped.
    let chunk = "\nFirst a value, then a failure.\n```js\n'm2-first'\n```\nSome prose.\n```js\nthrow new Error('m2-stop')\n```\n```js\n'm2-never'\n```\n";
    let text = log.exchange(Write::Append, chunk, 2);
    assert!(text.contains("Some prose.\n"), "{text}");
    assert!(text.contains("```JSON\n\"m2-first\"\n```"), "{text}");
    assert!(text.contains("Error: m2-stop"), "{text}");
    assert!(
        text.contains("(skipped the 1 later block of this request because this one failed)"),
        "{text}"
    );
    assert!(!text.contains("```JSON\n\"m2-never\"\n```"), "{text}");

    // A non-JS fence is prose; a draft (no closing fence) waits until it
    // is closed.
    log.write(
        Write::Append,
        "\n```sh\necho not run\n```\n\n```js\n'm3-draft'\n",
    );
    // (That the draft waits for its closing fence is settled in the
    // engine's fixture 12; here the count below shows it ran once.)
    let text = log.exchange(Write::Append, "```\n", 1);
    assert!(!text.contains("echo not run\n```\n\n> **"), "{text}");
    assert!(text.contains("```JSON\n\"m3-draft\"\n```"), "{text}");
    assert_eq!(
        text.matches(&format!("> **{}** to ", log.stem)).count(),
        6,
        "the shell fence got no reply:\n{text}"
    );
}

#[test]
fn a_chunk_written_while_a_job_runs_waits_its_turn() {
    let world = page();
    let log = world.log("life-");
    log.write(
        Write::Append,
        "\n```js\nawait new Promise((r) => setTimeout(r, 1000));\n'm4-slow'\n```\n",
    );
    wait_for(&log.path, "the job running", |t| t.contains("executing ("));
    log.write(Write::Append, "\n```js\n'm4-next'\n```\n");
    let text = wait_for(&log.path, "both replies", |t| {
        log.replies(t) == 2 && t.trim_end().ends_with(FOOTER)
    });
    let slow = text.find("\"m4-slow\"").expect("the slow reply");
    let next = text.find("\"m4-next\"").expect("the queued reply");
    assert!(slow < next, "{text}");
}

#[test]
fn console_and_errors_outside_jobs_become_background_blocks() {
    let world = page();
    let log = world.log("life-");
    // Logged after the result: a background block, written on its own.
    log.exchange(
        Write::Append,
        "\n```js\nsetTimeout(() => console.log('m5' + '-after'), 20);\n'm5-returned'\n```\n",
        1,
    );
    let text = wait_for(&log.path, "the background block", |t| {
        t.contains("m5-after") && t.trim_end().ends_with(FOOTER)
    });
    assert!(
        text.contains(&format!("> **{}** background at ", log.stem)),
        "{text}"
    );
    // A timer's error and an unhandled rejection, with nothing running.
    log.exchange(
        Write::Append,
        "\n```js\nsetTimeout(() => { throw new Error('m6' + '-timer') }, 20);\nsetTimeout(() => Promise.reject(new Error('m6' + '-rejected')), 30);\n1\n```\n",
        1,
    );
    let text = wait_for(&log.path, "both background errors", |t| {
        t.contains("m6-timer") && t.contains("m6-rejected") && t.trim_end().ends_with(FOOTER)
    });
    assert!(text.contains("Error: m6-timer"), "{text}");
    assert!(text.contains("Error: m6-rejected"), "{text}");
}

#[test]
fn fifteen_events_keep_the_first_two_and_the_last_eight() {
    let world = page();
    let log = world.log("life-");
    let text = log.exchange(
        Write::Append,
        "\n```js\nfor (let i = 1; i <= 15; i++) console.log('m7 event', i);\n'm7-done'\n```\n",
        1,
    );
    for kept in [1, 2, 8, 15] {
        assert!(
            text.contains(&format!("m7 event {kept}\n")),
            "{kept}: {text}"
        );
    }
    for omitted in [3, 7] {
        assert!(
            !text.contains(&format!("m7 event {omitted}\n")),
            "{omitted}: {text}"
        );
    }
    assert!(text.contains("(5 more"), "{text}");
}

/// 1,000 logs in one block: the realm keeps 100 a second and 50 a job.
/// The reply says how many the rate limit dropped, apart from those left
/// out of the display, so the loop does not look as if it stopped at 99.
#[test]
fn a_console_flood_counts_rate_limit_drops_apart() {
    let world = page();
    let log = world.log("life-");
    let text = log.exchange(
        Write::Append,
        "\n```js\nfor (let i = 0; i < 1000; i++) console.log('m9 row', i);\n'm9-done'\n```\n",
        1,
    );
    assert!(
        text.contains("more background events omitted; 900 dropped at the 100/s limit) ..."),
        "{text}"
    );
    assert!(
        text.contains("m9 row 0\n") && text.contains("m9 row 99\n"),
        "{text}"
    );
}

/// Every console method reaches the log with its own fence info.
#[test]
fn every_console_method_has_its_fence_info() {
    let world = page();
    let log = world.log("life-");
    let text = log.exchange(
        Write::Append,
        "\n```js\nconsole.count('c'); console.count('c');\nconsole.assert(false, 'm10 broken');\nconsole.time('m10'); console.timeEnd('m10');\nconsole.group('m10 group'); console.log('m10 inside'); console.groupEnd();\nconsole.table([{ a: 1 }]);\nconsole.trace('m10 trace');\n'm10-done'\n```\n",
        1,
    );
    for want in [
        "```Text console.count\nc: 2\n```",
        "```Error console.assert\nAssertion failed: m10 broken\n```",
        "```Text console.timeEnd\nm10: ",
        "```Text console.group\nm10 group\n```",
        "```Text console.log\n  m10 inside\n```",
        "```Text console.table\n┌─────────┬───┐\n│ (index) │ a │\n",
        "```Text console.trace\nm10 trace\n    at ",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
}

#[test]
fn a_long_job_shows_its_console_while_it_runs() {
    let world = page();
    let log = world.log("life-");
    log.write(
        Write::Append,
        "\n```js\nfor (let i = 0; i < 5; i++) {\n  console.log('m8 tick', i);\n  await new Promise((r) => setTimeout(r, 1000));\n}\n'm8-done'\n```\n",
    );
    // Ticks appear in the executing region before the job ends.
    let running = wait_for(&log.path, "a tick while running", |t| {
        t.contains("m8 tick 1") && t.contains("executing (")
    });
    assert!(!running.contains("\"m8-done\""), "{running}");
    let text = wait_for(&log.path, "the end of the job", |t| {
        t.contains("\"m8-done\"") && t.trim_end().ends_with(FOOTER)
    });
    assert!(text.contains("m8 tick 4"), "{text}");
}

#[test]
fn a_timeout_leaves_the_realm_working_and_a_late_result_still_comes() {
    let world = page();
    let log = world.log("life-");
    let text = log.exchange(
        Write::Append,
        "\n```js timeout=300ms\nawait new Promise((r) => setTimeout(() => r('m9-late'), 1500));\n```\n",
        1,
    );
    assert!(text.contains("(**TIMEOUT** after "), "{text}");
    let text = log.exchange(Write::Append, "\n```js\n'm9-next'\n```\n", 1);
    assert!(text.contains("```JSON\n\"m9-next\"\n```"), "{text}");
    let text = wait_for(&log.path, "the late result", |t| {
        t.contains("\"m9-late\"") && t.trim_end().ends_with(FOOTER)
    });
    assert!(text.contains("(late, "), "{text}");
}

#[test]
fn a_very_large_result_is_archived_and_linked() {
    let world = page();
    let log = world.log("life-");
    // Five strings of 9,000 characters: past the 32 KiB a reply shows.
    let text = log.exchange(
        Write::Append,
        "\n```js\nArray.from({ length: 5 }, (_, i) => 'm10-' + i + '.'.repeat(9000))\n```\n",
        1,
    );
    assert!(text.contains("(cut at "), "{text}");
    let start = text.find("](archive/").expect("a link to the archive") + 2;
    let end = text[start..].find(')').unwrap() + start;
    let archived = std::fs::read_to_string(log.path.parent().unwrap().join(&text[start..end]))
        .expect("the archive file");
    for i in 0..5 {
        assert!(archived.contains(&format!("m10-{i}.")), "{i}");
    }
}

#[test]
fn an_iframe_is_a_realm_of_its_own() {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Outer</title></head><body><iframe src=\"/frame.html\"></iframe></body></html>",
            ),
            (
                "frame.html",
                "<!doctype html><html><head><title>Inner</title></head><body></body></html>",
            ),
        ],
        "index.html",
    );
    let inner = world.log("inner-");
    let text = inner.exchange(
        Write::Append,
        "\n```js\n[document.title, window.parent !== window]\n```\n",
        1,
    );
    assert!(text.contains("```JSON\n[\"Inner\",true]\n```"), "{text}");
    let outer = world.log("outer-");
    let text = outer.exchange(Write::Append, "\n```js\ndocument.title\n```\n", 1);
    assert!(text.contains("```JSON\n\"Outer\"\n```"), "{text}");
}

/// A log of megabytes: the hub reads and writes only its end once it has
/// read it whole, so every way of saving must still be seen, and the
/// history above must stay byte for byte what the agent wrote there.
#[test]
fn a_large_log_keeps_its_history_and_runs_jobs_at_its_end() {
    let world = page();
    let log = world.log("life-");
    let mut history = String::from("\n");
    let mut i = 0;
    while history.len() < 2 << 20 {
        history.push_str(&format!(
            "Step {i}: café 🙂 checked.\n\n```text\nrow {i}\n```\n\n"
        ));
        i += 1;
    }
    log.write(Write::Append, &history);
    let text = wait_for(&log.path, "the footer below the history", |t| {
        t.len() > history.len() && t.trim_end().ends_with(FOOTER)
    });
    let head = text[..text.find("Step 0:").unwrap()].to_string();
    let kept = |text: &str, history: &str| {
        assert!(text.starts_with(&head), "the head changed");
        assert!(
            text[head.len()..].starts_with(history.trim_start()),
            "the history changed"
        );
    };

    let text = log.exchange(Write::Append, "\n```js\n'big-1'\n```\n", 1);
    assert!(text.contains("```JSON\n\"big-1\"\n```"));
    kept(&text, &history);

    // A rewrite that changes a line of the history but not its length.
    let edited = history.replacen("Step 7: café", "STEP 7: café", 1);
    let whole = log.text().replacen(&history, &edited, 1);
    std::fs::write(&log.path, whole + "\n```js\n'big-2'\n```\n").unwrap();
    let text = wait_for(&log.path, "the second reply", |t| {
        t.contains("```JSON\n\"big-2\"\n```") && t.trim_end().ends_with(FOOTER)
    });
    kept(&text, &edited);

    // A save by rename that adds a line at the top of the history.
    let longer = edited.replacen("Step 0:", "An added line.\n\nStep 0:", 1);
    let whole = log.text().replacen(&edited, &longer, 1);
    let temp = log.path.with_extension("md.tmp");
    std::fs::write(
        &temp,
        whole + "\n```js\nconsole.log('big-3 log'); 'big-3'\n```\n",
    )
    .unwrap();
    std::fs::rename(&temp, &log.path).unwrap();
    let text = wait_for(&log.path, "the third reply", |t| {
        t.contains("```JSON\n\"big-3\"\n```") && t.trim_end().ends_with(FOOTER)
    });
    kept(&text, &longer);
    assert!(text.contains("big-3 log"));
    assert_eq!(log.replies(&text), 3, "each block ran once");
}

/// docs/log-format.md, "Cancel": a line `cancel` appended while a never-settling block
/// runs ends the wait at once; the realm takes the next block.
#[test]
fn cancel_ends_a_never_settling_job_at_once() {
    let world = page();
    let log = world.log("life-");
    log.write(Write::Append, "\n```js\nawait new Promise(() => {})\n```\n");
    wait_for(&log.path, "the job running", |t| t.contains("executing ("));
    // The region's header becomes the reply's: no new reply header.
    let text = log.exchange(Write::Append, "\ncancel\n", 0);
    assert!(text.contains("(**CANCELLED** after "), "{text}");
    assert!(
        text.contains("CancelledError: cancelled by a `cancel` line."),
        "{text}"
    );
    let text = log.exchange(Write::Append, "\n```js\n'after cancel'\n```\n", 1);
    assert!(text.contains("```JSON\n\"after cancel\"\n```"), "{text}");
}

/// docs/log-format.md, "Stale saves": an edit tool that anchors on the footer line replaces it
/// with `block + footer`; the block runs once, as if appended below it.
#[test]
fn a_chunk_inserted_above_the_footer_runs_once() {
    let world = page();
    let log = world.log("life-");
    let text = log.exchange(Write::Append, "\n```js\n'first'\n```\n", 1);
    let footer_line = text.lines().last().unwrap().to_string();
    let edited = text.replacen(
        &footer_line,
        &format!("```js\nwindow.runs = (window.runs || 0) + 1\n```\n\n{footer_line}"),
        1,
    );
    daebug_test_files::save_atomically(&log.path, &edited);
    let text = wait_for(&log.path, "the inserted block's reply", |t| {
        log.replies(t) == 2 && t.trim_end().ends_with(FOOTER)
    });
    assert!(text.contains("```JSON\n1\n```"), "{text}");
    // Another input (a block appended below) does not run it again.
    let text = log.exchange(Write::Append, "\n```js\nwindow.runs\n```\n", 1);
    let last = &text[text.rfind("> **agent** to ").unwrap()..];
    assert!(last.contains("```JSON\n1\n```"), "{text}");
    assert_eq!(log.replies(&text), 3, "{text}");
}
