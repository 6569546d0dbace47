//! Adversarial scenarios for the log engine: stale whole-file saves,
//! identical blocks, CRLF, page output shaped like hub lines, dropped
//! footers, failing chunks, timeouts and late results. Each test drives
//! `LogEngine` directly and checks the contract of docs/log-format.md
//! ("Job identity", "Stale saves", "Fence-aware everywhere").
//!
//! They were written by an adversarial review of the engine; the second
//! group each failed on the engine of the time (the fix is named there).

use daebug_core::engine::markdown::{blocks, Block};
use daebug_core::engine::template::{new_log, FOOTER};
use daebug_core::engine::{
    apply, ClockTime, Config, Effect, Input, JobError, JobId, JobResult, LogEngine, Millis, Now,
    Outcome, Value,
};
use daebug_core::prepare::Verbatim;
use daebug_protocol::{BackgroundEvent, EventType, JobProgress, Level};

const STEM: &str = "shop-3f2a";

/// The engine, the file as the engine last left it, and every dispatch.
struct H {
    e: LogEngine,
    text: String,
    mono: u64,
    /// (job, code) of every Dispatch effect, in order.
    dispatched: Vec<(JobId, String)>,
    notices: Vec<String>,
}

impl H {
    fn new() -> H {
        H::with_text(new_log(STEM))
    }

    fn with_text(text: String) -> H {
        let e = LogEngine::new(
            STEM,
            Config {
                preparer: std::sync::Arc::new(Verbatim),
                ..Config::default()
            },
        );
        H {
            e,
            text,
            mono: 0,
            dispatched: vec![],
            notices: vec![],
        }
    }

    fn now(&self) -> Now {
        let s = self.mono / 1000;
        Now {
            mono: Millis(self.mono),
            clock: ClockTime {
                hour: 10,
                minute: (s / 60 % 60) as u8,
                second: (s % 60) as u8,
            },
        }
    }

    fn step(&mut self, input: Input) {
        self.mono += 100;
        let now = self.now();
        let out = self.e.handle(&self.text, input, now);
        self.text = apply(&self.text, &out.edits);
        for ef in out.effects {
            match ef {
                Effect::Dispatch { job, prepared, .. } => {
                    self.dispatched.push((job, prepared.code))
                }
                Effect::Notice(n) => self.notices.push(n),
                _ => {}
            }
        }
    }

    fn advance(&mut self, ms: u64) {
        self.mono += ms;
    }

    /// The agent's editor saves `text` as the whole file.
    fn save(&mut self, text: String) {
        self.text = text;
        self.step(Input::FileChanged);
    }

    /// The agent appends to the current file.
    fn append(&mut self, s: &str) {
        let t = format!("{}{}", self.text, s);
        self.save(t);
    }

    fn ok(&mut self, v: &str) {
        let job = self.e.running().expect("a job runs");
        self.result(job, Outcome::Ok(Value::Text(v.into())));
    }

    fn fail(&mut self, msg: &str) {
        let job = self.e.running().expect("a job runs");
        self.result(
            job,
            Outcome::Error(JobError {
                name: "Error".into(),
                message: msg.into(),
                stack: None,
            }),
        );
    }

    fn result(&mut self, job: JobId, outcome: Outcome) {
        self.step(Input::Result(JobResult {
            job,
            outcome,
            events: vec![],
            dropped: 0,
            limited: 0,
            duration_ms: 3,
        }));
    }

    fn running(&self) -> Option<JobId> {
        self.e.running()
    }

    fn codes(&self) -> Vec<String> {
        self.dispatched.iter().map(|(_, c)| c.clone()).collect()
    }
}

fn block(code: &str) -> String {
    format!("```js\n{code}\n```\n")
}

/// Footer lines outside fences.
fn footers(text: &str) -> usize {
    blocks(text, 0)
        .filter(|b| matches!(b, Block::Line(l) if l.text.trim_end_matches('\r') == FOOTER))
        .count()
}

/// `executing (` placeholder lines outside fences.
fn placeholders(text: &str) -> usize {
    blocks(text, 0)
        .filter(|b| matches!(b, Block::Line(l) if l.text.starts_with("executing (")))
        .count()
}

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

fn event(msg: &str) -> BackgroundEvent {
    BackgroundEvent {
        kind: EventType::Console,
        level: Level::Log,
        source: None,
        ts: "10:00:00".into(),
        message: msg.into(),
        stack: None,
    }
}

// ---------------------------------------------------------------------
// Cases checked that hold (kept as regression guards).
// ---------------------------------------------------------------------

/// A save from a read taken while block A ran (its region in the copy)
/// plus a new block B: A gets its reply back, is not run again, B runs.
#[test]
fn stale_region_copy_plus_new_block() {
    let mut h = H::new();
    h.append(&block("A"));
    let stale = h.text.clone();
    h.ok("a-result");
    assert!(h.text.contains("a-result"));
    h.save(format!("{stale}\n{}", block("B")));
    assert_eq!(h.codes(), vec!["A\n", "B\n"], "{}", h.text);
    assert_eq!(count(&h.text, "a-result"), 1, "{}", h.text);
    h.ok("b-result");
    assert_eq!(footers(&h.text), 1, "{}", h.text);
    assert_eq!(placeholders(&h.text), 0, "{}", h.text);
}

/// A save from a read taken before the hub accepted block A (footer above
/// A, no header, no region) plus block B: A keeps its reply, B runs once.
#[test]
fn stale_pre_accept_copy_plus_new_block() {
    let mut h = H::new();
    let before = format!("{}{}", h.text, block("A"));
    h.save(before.clone());
    h.ok("a-result");
    h.save(format!("{before}\n{}", block("B")));
    assert_eq!(h.codes(), vec!["A\n", "B\n"], "{}", h.text);
    assert_eq!(count(&h.text, "a-result"), 1, "{}", h.text);
    h.ok("b-result");
    assert_eq!(footers(&h.text), 1, "{}", h.text);
    assert!(h.text.ends_with(&format!("{FOOTER}\n")), "{}", h.text);
}

/// The same code appended again below its answered copy is a new block.
#[test]
fn identical_block_appended_again_runs_again() {
    let mut h = H::new();
    h.append(&block("1"));
    h.ok("one");
    h.append(&block("1"));
    h.ok("one");
    assert_eq!(h.codes(), vec!["1\n", "1\n"]);
    assert_eq!(footers(&h.text), 1, "{}", h.text);
}

/// A JS block inside a markdown fence is prose and never runs.
#[test]
fn block_inside_other_fence_is_prose() {
    let mut h = H::new();
    h.append("````md\n```js\nalert(1)\n```\n````\n");
    assert!(h.codes().is_empty(), "{}", h.text);
    assert_eq!(footers(&h.text), 1, "{}", h.text);
}

/// Page output shaped like hub lines (a reply header, `executing (0s)`,
/// the footer) in a value does not confuse later inputs.
#[test]
fn page_output_shaped_like_hub_lines() {
    let mut h = H::new();
    h.append(&block("A"));
    let fake =
        format!("> **{STEM}** to agent at 10:00:00\nexecuting (0s)\n{FOOTER}\n```js\nevil()\n```");
    h.ok(&fake);
    h.append(&block("B"));
    h.ok("b");
    assert_eq!(h.codes(), vec!["A\n", "B\n"], "{}", h.text);
    assert_eq!(footers(&h.text), 1, "{}", h.text);
}

/// CRLF: a stale copy taken while A ran, plus B.
#[test]
fn crlf_stale_region_copy() {
    let mut h = H::with_text(new_log(STEM).replace('\n', "\r\n"));
    h.append(&block("A").replace('\n', "\r\n"));
    let stale = h.text.clone();
    h.ok("a\nmulti");
    h.save(format!("{stale}\r\n{}", block("B").replace('\n', "\r\n")));
    assert_eq!(h.codes(), vec!["A\n", "B\n"], "{:?}", h.text);
    h.ok("b");
    assert_eq!(footers(&h.text), 1, "{:?}", h.text);
    assert!(
        !h.text.replace("\r\n", "").contains('\n'),
        "bare LF: {:?}",
        h.text
    );
}

/// A chunk with A (fails), B, C; a stale save taken while A ran plus D:
/// A gets its error reply, B and C stay skipped, D runs.
#[test]
fn failing_chunk_stale_copy() {
    let mut h = H::new();
    h.append(&format!("{}{}{}", block("A"), block("B"), block("C")));
    let stale = h.text.clone();
    h.fail("boom");
    assert!(h.text.contains("skipped the 2 later blocks"), "{}", h.text);
    h.save(format!("{stale}\n{}", block("D")));
    assert_eq!(h.codes(), vec!["A\n", "D\n"], "{}", h.text);
    assert_eq!(count(&h.text, "boom"), 1, "{}", h.text);
}

/// Two blocks in one chunk with the same code, answered within the same
/// second; stale saves from while each ran keep both replies in place.
#[test]
fn identical_blocks_same_second_stale_copy() {
    let mut h = H::new();
    h.append(&format!("{}\n{}", block("x"), block("x")));
    let stale = h.text.clone();
    h.ok("first");
    let stale2 = h.text.clone();
    h.ok("second");
    h.save(format!("{stale}\n{}", block("y")));
    assert_eq!(h.codes(), vec!["x\n", "x\n", "y\n"], "{}", h.text);
    h.ok("third");
    assert_eq!(count(&h.text, "first"), 1, "{}", h.text);
    assert_eq!(count(&h.text, "second"), 1, "{}", h.text);
    assert!(h.text.find("first") < h.text.find("second"), "{}", h.text);
    h.save(format!("{stale2}\n{}", block("z")));
    assert_eq!(h.codes(), vec!["x\n", "x\n", "y\n", "z\n"], "{}", h.text);
}

// ---------------------------------------------------------------------
// Cases that broke the contract before they were fixed.
// ---------------------------------------------------------------------

/// After a hub restart, an old chunk [F fails, X skipped] is history the
/// new ledger does not know. The agent appends X again (it runs), then
/// saves from a read taken before the hub accepted it (a whole scan). The
/// OLD skipped X was matched to the new job: X's reply went under the old
/// block and the new X was dispatched a second time. (Fix: the first read
/// puts the blocks above the footer in the ledger as found.)
#[test]
fn restart_old_skipped_block_steals_reply() {
    let mut h = H::new();
    h.append(&format!("{}{}", block("F"), block("X")));
    h.fail("boom");
    assert!(h.text.contains("skipped the 1 later block"), "{}", h.text);
    // The hub restarts: a new engine on the same text.
    let text = h.text.clone();
    let mut h = H::with_text(text);
    h.mono = 10_000;
    h.step(Input::Startup);
    let before = format!("{}\n{}", h.text, block("X"));
    h.save(before.clone());
    assert_eq!(h.codes(), vec!["X\n"], "{}", h.text);
    h.ok("x-result");
    // A whole-file save from the read taken before the hub accepted X.
    h.save(format!("{before}\nprose\n"));
    assert_eq!(h.codes(), vec!["X\n"], "X dispatched again:\n{}", h.text);
    let reply = h.text.find("x-result").unwrap();
    let new_x = h.text.rfind("```js\nX\n```").unwrap();
    assert!(
        reply > new_x,
        "x's reply is under the old skipped X:\n{}",
        h.text
    );
}

/// The horizon (the last block's remembered place) was checked only by its
/// opener line. If the agent deletes a prose line above the last block so
/// that the opener's old offset holds a "```js" line inside that block's
/// reply (page output), the survey started inside a hub fence: the footer
/// was written INSIDE the reply's Text fence and B never ran. (Fix: the
/// block at the horizon is checked whole.)
#[test]
fn shifted_horizon_writes_footer_into_page_output() {
    let page = "intro\n```js\npwned()\n```\nend";
    let probe = {
        let mut p = H::new();
        p.append(&format!("{}\n{}", "P".repeat(10), block("A")));
        p.ok(page);
        let opener = p.text.find("```js\nA").unwrap();
        let inner = p.text.find("```js\npwned").unwrap();
        inner - opener
    };
    let mut h = H::new();
    // A prose line of exactly `probe` bytes (with its newline) above A.
    let line = "P".repeat(probe - 1);
    h.append(&format!("{line}\n{}", block("A")));
    h.ok(page);
    // The agent deletes its prose line and appends B.
    let t = h.text.replacen(&format!("{line}\n"), "", 1);
    h.save(format!("{t}{}", block("B")));
    assert!(
        !h.codes().iter().any(|c| c.contains("pwned")),
        "page output dispatched: {:?}\n{}",
        h.codes(),
        h.text
    );
    assert_eq!(h.codes(), vec!["A\n", "B\n"], "{}", h.text);
}

/// The agent writes its own copy of the footer line below its block (as
/// an agent imitating the format might). After the block ran there were
/// two footer lines outside fences. (Fix: one footer below the hub's part.)
#[test]
fn agent_copy_of_footer_below_block() {
    let mut h = H::new();
    h.append(&format!("{}\n{FOOTER}\n", block("A")));
    h.ok("a");
    h.step(Input::FileChanged);
    assert_eq!(footers(&h.text), 1, "two footers:\n{}", h.text);
}

/// The agent inserts its block just above the footer instead of below it
/// (an edit tool anchoring on the footer). It never ran and nothing said
/// why; it runs as if appended below (docs/log-format.md, "Stale saves").
#[test]
fn block_inserted_above_footer_runs() {
    let mut h = H::new();
    h.append(&block("A"));
    h.ok("a");
    let t = h
        .text
        .replacen(FOOTER, &format!("{}\n{FOOTER}", block("B")), 1);
    h.save(t);
    assert_eq!(h.codes(), vec!["A\n", "B\n"], "{}", h.text);
    h.ok("b");
    assert_eq!(footers(&h.text), 1, "{}", h.text);
    assert!(h.text.find("```js\nB").unwrap() < h.text.find(FOOTER).unwrap());
}

/// A timeout, then a late result (above the footer), then a save from a
/// read taken while the block ran: the late reply was lost for good.
#[test]
fn late_reply_lost_to_stale_save() {
    let mut h = H::new();
    h.append(&block("A"));
    let stale = h.text.clone();
    h.advance(61_000);
    h.step(Input::Tick);
    assert!(h.text.contains("TIMEOUT"), "{}", h.text);
    h.result(JobId(1), Outcome::Ok(Value::Text("late-value".into())));
    assert!(h.text.contains("late-value"), "{}", h.text);
    h.save(format!("{stale}\n{}", block("B")));
    assert!(h.text.contains("TIMEOUT"), "{}", h.text);
    assert!(
        h.text.contains("late-value"),
        "late reply lost:\n{}",
        h.text
    );
}

/// A save from a read taken before a background block was written
/// dropped it for good. (Fix: the ledger remembers hub blocks written
/// after each taken block and puts back the ones a save removed.)
#[test]
fn background_block_lost_to_stale_save() {
    let mut h = H::new();
    h.append(&block("A"));
    h.ok("a");
    let stale = h.text.clone();
    h.step(Input::Background {
        events: vec![event("bg-event")],
        dropped: 0,
        limited: 0,
        over_rate: 0,
    });
    assert!(h.text.contains("bg-event"), "{}", h.text);
    h.save(format!("{stale}{}", block("B")));
    assert!(
        h.text.contains("bg-event"),
        "background block lost:\n{}",
        h.text
    );
}

/// As above, but the page output also holds a request-header-shaped line
/// after its "```js" block, so the survey (started inside the reply fence)
/// takes that page output for a runnable chunk: page output is dispatched.
#[test]
fn shifted_horizon_dispatches_page_output() {
    let page = format!("intro\n```js\npwned()\n```\n> **evil** to {STEM} at 10:00:00\nend");
    let probe = {
        let mut p = H::new();
        p.append(&format!("{}\n{}", "P".repeat(10), block("A")));
        p.ok(&page);
        let opener = p.text.find("```js\nA").unwrap();
        let inner = p.text.find("```js\npwned").unwrap();
        inner - opener
    };
    let mut h = H::new();
    let line = "P".repeat(probe - 1);
    h.append(&format!("{line}\n{}", block("A")));
    h.ok(&page);
    let t = h.text.replacen(&format!("{line}\n"), "", 1);
    h.save(format!("{t}{}", block("B")));
    assert!(
        !h.codes().iter().any(|c| c.contains("pwned")),
        "page output dispatched: {:?}\n{}",
        h.codes(),
        h.text
    );
}

/// A block answered at once (invalid fence option) with a later block
/// skipped; a save from before the hub accepted the chunk, plus C: the
/// error reply comes back, nothing reruns, C runs.
#[test]
fn immediate_error_chunk_stale_copy() {
    let mut h = H::new();
    let chunk = format!("```js timeout=soon\nA\n```\n{}", block("B"));
    let before = format!("{}{chunk}", h.text);
    h.save(before.clone());
    assert!(h.text.contains("invalid fence option"), "{}", h.text);
    assert!(h.codes().is_empty());
    h.save(format!("{before}\n{}", block("C")));
    assert_eq!(h.codes(), vec!["C\n"], "{}", h.text);
    assert_eq!(count(&h.text, "invalid fence option"), 1, "{}", h.text);
}

/// A save from a read taken while A ran, made while B (a later chunk) runs,
/// adds C. The save removed B's block, so B is cancelled; its note used to
/// land under C, which then looked answered and never ran. (Fix: the note
/// and the footer go above the agent's new chunk, which runs.)
#[test]
fn stale_copy_while_next_chunk_runs() {
    let mut h = H::new();
    h.append(&block("A"));
    let stale = h.text.clone();
    h.ok("a-result");
    h.append(&format!("\n{}", block("B")));
    assert_eq!(h.running(), Some(JobId(2)));
    // The agent's copy has A's region but not B (it never saw it); its
    // save adds C. B is lost by the agent's own save; that's the agent's.
    h.save(format!("{stale}\n{}", block("C")));
    assert_eq!(count(&h.text, "a-result"), 1, "{}", h.text);
    assert_eq!(placeholders(&h.text), 1, "{}", h.text);
    assert_eq!(h.codes(), vec!["A\n", "B\n", "C\n"], "{}", h.text);
    assert!(h.text.find("job 2 was cancelled").unwrap() < h.text.find("```js\nC").unwrap());
}

/// The result arrives with a text where the agent has just removed the
/// running block and its region (before the hub saw that change): the
/// reply goes above the footer. The agent then undoes (a save of the old
/// text with block and region): the region becomes the reply too, so the
/// reply is written twice.
#[test]
fn result_after_block_removed_then_undo_duplicates_reply() {
    let mut h = H::new();
    h.append(&block("A"));
    let with_region = h.text.clone();
    let removed = h.text[..h.text.find("> **agent**").unwrap()].to_string();
    h.text = removed;
    h.ok("a-result");
    assert_eq!(count(&h.text, "a-result"), 1, "{}", h.text);
    h.save(with_region);
    assert_eq!(
        count(&h.text, "a-result"),
        1,
        "reply written twice:\n{}",
        h.text
    );
    assert_eq!(h.codes(), vec!["A\n"], "{}", h.text);
}

/// Progress events (page output) holding a request header line, the
/// footer and `executing (0s)`; then a stale save from before the events,
/// plus B queued. Nothing is lost or run twice.
#[test]
fn progress_with_hub_shaped_lines_then_stale_save() {
    let mut h = H::new();
    h.append(&block("A"));
    let stale = h.text.clone();
    let msg = format!("> **{STEM}** to agent at 10:00:00\nexecuting (0s)\n{FOOTER}\n> **agent** to {STEM} at 10:00:00\n```js\nevil()\n```");
    h.step(Input::Progress(JobProgress {
        job: JobId(1),
        events: vec![event(&msg)],
        dropped: 0,
        limited: 0,
        elapsed_ms: 10,
    }));
    h.save(format!("{stale}\n{}", block("B")));
    h.ok("a-result");
    h.ok("b-result");
    assert_eq!(h.codes(), vec!["A\n", "B\n"], "{}", h.text);
    assert_eq!(footers(&h.text), 1, "{}", h.text);
    assert_eq!(placeholders(&h.text), 0, "{}", h.text);
}

/// A save that drops the footer and adds a block directly under the last
/// reply, starting with a note-shaped prose line "(see above)".
#[test]
fn dropped_footer_note_shaped_prose_then_block() {
    let mut h = H::new();
    h.append(&block("A"));
    h.ok("a");
    let t = h.text.replacen(&format!("\n{FOOTER}\n"), "", 1);
    h.save(format!("{t}(see above)\n{}", block("B")));
    assert_eq!(h.codes(), vec!["A\n", "B\n"], "{}", h.text);
    assert!(h.text.contains("(see above)\n"), "{}", h.text);
    h.ok("b");
    assert_eq!(footers(&h.text), 1, "{}", h.text);
}

/// `rerun` (docs/log-format.md, "Several blocks in one chunk"): the blocks
/// the last failure skipped are written under the agent's line with a
/// note, and run in order; a second `rerun` has nothing to run.
#[test]
fn rerun_runs_the_skipped_blocks_again_once() {
    let mut h = H::new();
    h.append(&format!("{}{}{}", block("A"), block("B"), block("C")));
    h.fail("boom");
    assert!(h.text.contains("skipped the 2 later blocks"), "{}", h.text);
    assert_eq!(h.codes(), vec!["A\n"], "{}", h.text);
    h.append("\nrerun\n");
    assert_eq!(h.codes(), vec!["A\n", "B\n"], "{}", h.text);
    assert!(
        h.text
            .contains("\nrerun\n(rerun: the 2 blocks the failure at "),
        "{}",
        h.text
    );
    assert!(
        h.text
            .contains("skipped, run again in order)\n\n```js\nB\n```\n"),
        "{}",
        h.text
    );
    h.ok("b");
    assert_eq!(h.codes(), vec!["A\n", "B\n", "C\n"], "{}", h.text);
    h.ok("c");
    assert_eq!(footers(&h.text), 1, "{}", h.text);
    assert!(h.text.trim_end().ends_with(FOOTER), "{}", h.text);
    // Again: nothing was skipped since.
    h.append("\nRERUN\n");
    assert_eq!(h.codes(), vec!["A\n", "B\n", "C\n"], "{}", h.text);
    assert!(
        h.text.contains("RERUN\n(rerun: no block was skipped by a failure since the last rerun, so nothing runs)\n"),
        "{}",
        h.text
    );
    assert!(h.text.trim_end().ends_with(FOOTER), "{}", h.text);
    // `rerun` with other words is prose.
    h.append("\nrerun please\n");
    assert_eq!(h.codes().len(), 3, "{}", h.text);
}

/// A block queued behind `daebug.reload()` runs in the new document: the
/// `reloaded` line goes above it, and its reply's header time is never
/// earlier than that line's (docs/log-format.md, "Lifecycle lines").
#[test]
fn a_reply_under_a_reloaded_line_is_not_dated_before_it() {
    let mut h = H::new();
    h.append(&format!("{}{}", block("daebug.reload()"), block("check()")));
    h.ok("reloading");
    assert_eq!(h.codes(), vec!["daebug.reload()\n", "check()\n"]);
    let check = h.running().expect("the check waits for the new document");
    h.advance(2_000);
    h.step(Input::Lifecycle {
        what: daebug_core::engine::lifecycle::Lifecycle::Reloaded,
        url: "http://127.0.0.1:5173/".into(),
        at: None,
    });
    h.step(Input::Started { job: check });
    h.ok("fine");
    let line = h
        .text
        .find("> **shop-3f2a** reloaded at ")
        .expect("the line");
    let line_at = &h.text[line + 28..line + 36];
    let reply = h
        .text
        .find("> **shop-3f2a** to agent at 10:00:02")
        .unwrap_or(0);
    assert!(
        reply > line,
        "the reply ({line_at}) dated from when it ran:\n{}",
        h.text
    );
    assert_eq!(footers(&h.text), 1, "{}", h.text);
}

/// The new document's console before the waiting block began in it is
/// background above the block, after the `reloaded` line; what it logged
/// while the block ran is in the block's reply: the order they happened
/// in, never the reverse.
#[test]
fn a_new_documents_events_before_the_waiting_block_stand_above_it() {
    let mut h = H::new();
    h.append(&format!("{}{}", block("daebug.reload()"), block("check()")));
    h.ok("reloading");
    let check = h.running().expect("the check waits");
    h.advance(1_000);
    h.step(Input::Lifecycle {
        what: daebug_core::engine::lifecycle::Lifecycle::Reloaded,
        url: "http://127.0.0.1:5173/".into(),
        at: None,
    });
    let event = |m: &str| BackgroundEvent {
        kind: EventType::Console,
        level: Level::Log,
        source: None,
        ts: "10:00:01".into(),
        message: m.into(),
        stack: None,
    };
    h.step(Input::Background {
        events: vec![event("[vite] connecting...")],
        dropped: 0,
        limited: 0,
        over_rate: 0,
    });
    h.step(Input::Started { job: check });
    h.step(Input::Result(JobResult {
        job: check,
        outcome: Outcome::Ok(Value::Text("fine".into())),
        events: vec![event("[vite] connected.")],
        dropped: 0,
        limited: 0,
        duration_ms: 3,
    }));
    let t = &h.text;
    let (reloaded, connecting, block_at, connected) = (
        t.find("reloaded at").unwrap(),
        t.find("[vite] connecting...").expect("connecting"),
        t.find("check()").unwrap(),
        t.find("[vite] connected.").expect("connected"),
    );
    assert!(
        reloaded < connecting && connecting < block_at && block_at < connected,
        "{t}"
    );
    assert_eq!(t.matches("[vite] connecting...").count(), 1, "{t}");
    // A save of the file as it is changes nothing (the block above is
    // known where it stands, not put back a second time).
    let now = t.clone();
    h.save(now.clone());
    assert_eq!(h.text, now);
    let t = &h.text;
    assert_eq!(footers(t), 1, "{t}");
    assert!(t.trim_end().ends_with(FOOTER), "{t}");
}
