//! The recovery of door chunks (a block another door sent, written into
//! the log by the hub) under everything that happens to a real log: door
//! submissions, agent appends, whole-file saves from stale reads, failures,
//! reloads and hub restarts, through the hub's own file transaction (so
//! large logs are read and written from their window, as in the hub).
//!
//! Checked after every step: every chunk a door sent and every block the
//! agent wrote stands in the log exactly once (a stale save may drop an
//! agent's block the agent itself never saw, not the hub's); every block
//! was dispatched at most once; every reply stands once, under its own
//! block; every door call is answered at most once.
//!
//! Issue 26: a failed door block of a brand-new log was copied 20 more
//! times into the trial's log (docs/log-format.md, "Door chunks").

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::PathBuf;

use daebug::hub::log_file::LogFile;
use daebug_core::delivery::Early;
use daebug_core::engine::lifecycle::Lifecycle;
use daebug_core::engine::markdown::{blocks, exec_info, Block};
use daebug_core::engine::{
    ClockTime, Config, Effect, Input, JobError, JobId, JobResult, LogEngine, Millis, Now, Outcome,
    Value,
};
use daebug_core::prepare::Verbatim;
use daebug_protocol::{BackgroundEvent, EventType, Level};
use proptest::prelude::*;

const STEM: &str = "todo-a2c3";

#[derive(Debug, Clone, Copy)]
enum Step {
    /// A door (`daebug eval`) sends a block.
    Submit,
    /// The agent appends a block (with its own request header or not).
    Append {
        header: bool,
    },
    /// The agent saves the whole file from a read `back` writes old,
    /// maybe with a block of its own added at the end.
    StaleSave {
        back: usize,
        add: bool,
    },
    /// The running job's result; a failed one with a request still
    /// finishing (a network line).
    Result {
        ok: bool,
    },
    /// Events outside a job; `big` ones make the log large enough to be
    /// read from its window.
    Background {
        big: bool,
    },
    /// The page reloaded (`daebug.reload()`).
    Reload,
    /// The hub stopped and started again.
    Restart,
    Tick(u32),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => Just(Step::Submit),
        2 => any::<bool>().prop_map(|header| Step::Append { header }),
        2 => (0usize..8, any::<bool>()).prop_map(|(back, add)| Step::StaleSave { back, add }),
        5 => any::<bool>().prop_map(|ok| Step::Result { ok }),
        2 => any::<bool>().prop_map(|big| Step::Background { big }),
        1 => Just(Step::Reload),
        1 => Just(Step::Restart),
        1 => (0u32..6_000).prop_map(Step::Tick),
    ]
}

/// The hub side: a log file and its engine, as one log task has them.
struct Hub {
    file: LogFile,
    engine: LogEngine,
}

impl Hub {
    fn start(path: PathBuf, first_job: u64) -> Hub {
        let config = Config {
            preparer: std::sync::Arc::new(Verbatim),
            first_job,
            ..Config::default()
        };
        Hub {
            file: LogFile::new(path),
            engine: LogEngine::new(STEM, config),
        }
    }
}

/// What the test knows of the world, to check the log against.
struct World {
    /// Holds the log's folder for the world's life.
    _dir: tempfile::TempDir,
    path: PathBuf,
    hub: Hub,
    mono: u64,
    next: u64,
    /// The texts the file had after each step (for stale saves), since
    /// the hub last started.
    reads: Vec<String>,
    /// Blocks that must stand once: door chunks once written, the
    /// agent's own blocks once the agent has them in its text.
    must_stand: HashSet<String>,
    /// Agent blocks the agent wrote (one may be dropped by its own save).
    agent_blocks: HashSet<String>,
    /// code → times dispatched.
    dispatched: HashMap<String, usize>,
    /// job → code, for jobs dispatched.
    jobs: HashMap<JobId, String>,
    /// job → the reply's value, once its result was given.
    replies: HashMap<JobId, String>,
    /// Door calls not answered yet, and those answered.
    tickets: HashMap<u64, String>,
    answered: HashSet<u64>,
    next_ticket: u64,
    failures: Vec<String>,
    /// What the engine noticed (shown with a failure).
    notices: Vec<String>,
    /// Transactions that read the log from a window (not whole).
    windowed: usize,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("{STEM}.md"));
        let hub = Hub::start(path.clone(), 1);
        let mut w = World {
            _dir: dir,
            path,
            hub,
            mono: 0,
            next: 0,
            reads: Vec::new(),
            must_stand: HashSet::new(),
            agent_blocks: HashSet::new(),
            dispatched: HashMap::new(),
            jobs: HashMap::new(),
            replies: HashMap::new(),
            tickets: HashMap::new(),
            answered: HashSet::new(),
            next_ticket: 1,
            failures: Vec::new(),
            notices: Vec::new(),
            windowed: 0,
        };
        w.input(Input::Startup);
        w
    }

    fn now(&self) -> Now {
        let s = self.mono / 1000;
        Now {
            mono: Millis(self.mono),
            clock: ClockTime {
                hour: 23,
                minute: (s / 60 % 60) as u8,
                second: (s % 60) as u8,
            },
        }
    }

    fn text(&self) -> String {
        std::fs::read_to_string(&self.path).unwrap_or_default()
    }

    fn input(&mut self, input: Input) {
        self.mono += 50;
        let now = self.now();
        let effects = self
            .hub
            .file
            .transact(
                &mut self.hub.engine,
                |e| e,
                &input,
                || now,
                |_, _| Early::Go,
            )
            .expect("the transaction stands");
        if self.hub.file.window_base() > 0 {
            self.windowed += 1;
        }
        for e in effects {
            match e {
                Effect::Dispatch { job, prepared, .. } => {
                    let code = prepared.code.trim_end().to_string();
                    *self.dispatched.entry(code.clone()).or_default() += 1;
                    self.jobs.insert(job, code);
                }
                Effect::Answered { ticket, .. } => {
                    if !self.answered.insert(ticket) {
                        self.failures
                            .push(format!("door call {ticket} answered twice"));
                    }
                    self.tickets.remove(&ticket);
                }
                Effect::Notice(n) => {
                    // A running block the agent's save removed is
                    // answered as cancelled, "append the block again to
                    // re-run it": it may run again.
                    if let Some(job) = n
                        .split("lost the executing region of job ")
                        .nth(1)
                        .and_then(|r| r.split(';').next())
                        .and_then(|id| id.parse().ok())
                    {
                        if let Some(code) = self.jobs.get(&JobId(job)) {
                            self.dispatched.remove(code);
                        }
                    }
                    self.notices.push(n)
                }
                _ => {}
            }
        }
        // A door chunk is the hub's from the moment it is written.
        let text = self.text();
        for code in self.tickets.values() {
            if exec_codes(&text).contains(code) {
                self.must_stand.insert(code.clone());
            }
        }
        self.reads.push(text);
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    fn apply(&mut self, step: &Step) {
        match step {
            Step::Submit => {
                let code = self.fresh("door");
                let ticket = self.next_ticket;
                self.next_ticket += 1;
                self.tickets.insert(ticket, code.clone());
                self.input(Input::Submit {
                    ticket,
                    agent: "cli".into(),
                    info: "js".into(),
                    code: format!("{code}\n"),
                });
            }
            Step::Append { header } => {
                let code = self.fresh("agent");
                let mut s = String::from("\n");
                if *header {
                    s.push_str(&format!("> **trial-agent** to {STEM} at 23:59:59\n"));
                }
                s.push_str(&format!("```js\n{code}\n```\n"));
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&self.path)
                    .unwrap();
                f.write_all(s.as_bytes()).unwrap();
                self.agent_blocks.insert(code.clone());
                self.must_stand.insert(code);
                self.input(Input::FileChanged);
            }
            Step::StaleSave { back, add } => {
                let Some(old) = self.reads.iter().rev().nth(*back).cloned() else {
                    return;
                };
                let mut text = old;
                if *add {
                    let code = self.fresh("agent");
                    if !text.ends_with('\n') {
                        text.push('\n');
                    }
                    text.push_str(&format!("\n```js\n{code}\n```\n"));
                    self.agent_blocks.insert(code.clone());
                    self.must_stand.insert(code);
                }
                // The agent's own blocks its read did not have are its
                // own to drop: they need not stand any more.
                let codes = exec_codes(&text);
                self.must_stand
                    .retain(|c| !self.agent_blocks.contains(c) || codes.contains(c));
                std::fs::write(&self.path, text).unwrap();
                self.input(Input::FileChanged);
            }
            Step::Result { ok } => {
                let Some(job) = self.hub.engine.running() else {
                    return;
                };
                let value = format!("r{}", job.0);
                let outcome = match ok {
                    true => Outcome::Ok(Value::Json(format!("\"{value}\""))),
                    false => Outcome::Error(JobError {
                        name: "TypeError".into(),
                        message: value.clone(),
                        stack: Some(format!("TypeError: {value}\n    at <cell>:9:12")),
                    }),
                };
                self.replies.insert(job, value);
                let events = match ok {
                    true => vec![],
                    false => vec![network("PATCH http://localhost:3000/api/todos/1 → 204")],
                };
                self.input(Input::Result(JobResult {
                    job,
                    outcome,
                    events,
                    dropped: 0,
                    limited: 0,
                    duration_ms: 60,
                }));
            }
            Step::Background { big } => {
                let message = match big {
                    true => "x".repeat(1500),
                    false => "PATCH http://localhost:3000/api/todos/1 → 204".into(),
                };
                self.input(Input::Background {
                    events: vec![network(&message)],
                    dropped: 0,
                    limited: 0,
                    over_rate: 0,
                });
            }
            Step::Reload => {
                if self.hub.engine.running().is_some() {
                    return;
                }
                self.input(Input::Lifecycle {
                    what: Lifecycle::Reloaded,
                    url: "http://localhost:3000/".into(),
                    at: None,
                });
            }
            Step::Restart => {
                // Door calls end with the hub; a job running is lost (the
                // new hub closes its region).
                self.tickets.clear();
                self.reads.clear();
                let first = self.jobs.keys().map(|j| j.0).max().unwrap_or(0) + 1000;
                self.hub = Hub::start(self.path.clone(), first);
                self.input(Input::Startup);
            }
            Step::Tick(ms) => {
                self.mono += u64::from(*ms);
                self.input(Input::Tick);
            }
        }
    }

    /// The contract, checked on the file as it is now.
    fn check(&mut self, what: &Step) {
        let text = self.text();
        let codes = exec_codes(&text);
        for code in &self.must_stand {
            let n = codes.iter().filter(|c| *c == code).count();
            if n != 1 {
                self.failures
                    .push(format!("after {what:?}: block {code} stands {n} times"));
            }
        }
        for (code, n) in &self.dispatched {
            if *n > 1 {
                self.failures
                    .push(format!("after {what:?}: block {code} dispatched {n} times"));
            }
        }
        let lines: Vec<&str> = text.lines().collect();
        for (job, value) in &self.replies {
            let code = &self.jobs[job];
            // The value's line, and the block nearest above it.
            let at: Vec<usize> = lines
                .iter()
                .enumerate()
                .filter(|(_, l)| l.contains(value.as_str()) && !l.starts_with("    at"))
                .map(|(i, _)| i)
                .filter(|&i| {
                    // The JSON value or the error's first line.
                    lines[i] == format!("\"{value}\"") || lines[i] == format!("TypeError: {value}")
                })
                .collect();
            if !codes.contains(code) {
                continue;
            }
            // A block that ran again after its job was released (a copy
            // with nothing under it is new) may show either run's reply:
            // at most one, under it.
            let runs = self.jobs.values().filter(|c| *c == code).count();
            if runs > 1 && at.is_empty() {
                continue;
            }
            if at.len() != 1 {
                self.failures.push(format!(
                    "after {what:?}: the reply of {code} ({value}) stands {} times",
                    at.len()
                ));
                continue;
            }
            let above = lines[..at[0]]
                .iter()
                .rev()
                .find(|l| l.starts_with("door") || l.starts_with("agent"));
            if above != Some(&code.as_str()) {
                self.failures.push(format!(
                    "after {what:?}: the reply of {code} stands under {above:?}"
                ));
            }
        }
    }
}

fn network(message: &str) -> BackgroundEvent {
    BackgroundEvent {
        kind: EventType::Browser,
        level: Level::Error,
        source: Some("network".into()),
        ts: "23:54:35".into(),
        message: message.into(),
        stack: None,
    }
}

/// The code of every executable block of `text` (trimmed).
fn exec_codes(text: &str) -> Vec<String> {
    blocks(text, 0)
        .filter_map(|b| match b {
            Block::Fence(f) if f.closed && exec_info(f.info).is_some() => {
                Some(text[f.body_start..f.body_end].trim_end().to_string())
            }
            _ => None,
        })
        .collect()
}

/// Runs `steps` on a fresh log; the first broken promise, with the log.
fn run(steps: &[Step]) -> Result<World, String> {
    let mut w = World::new();
    for s in steps {
        w.apply(s);
        w.check(s);
        if !w.failures.is_empty() {
            return Err(format!(
                "{}\n--- notices ---\n{}\n--- the log ---\n{}",
                w.failures.join("\n"),
                w.notices.join("\n"),
                w.text()
            ));
        }
    }
    Ok(w)
}

proptest! {
    // A fixed seed: the test command runs the same 256 sequences every
    // time (the census below explores others).
    #![proptest_config(ProptestConfig {
        cases: 256,
        rng_seed: proptest::test_runner::RngSeed::Fixed(26),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_chunk_and_reply_stands_once(steps in prop::collection::vec(step(), 1..40)) {
        if let Err(e) = run(&steps) {
            return Err(TestCaseError::fail(e));
        }
    }
}

/// The trial's log (issue 26): a brand-new log's first chunk, sent by a
/// door, fails while a request it caused is finishing; the page goes on
/// logging, so the log grows past the window the hub reads it from; more
/// door blocks follow, a reload, more blocks. On the engine of the time,
/// each input read through a window put the first chunk back again (its
/// block, above the window, was taken for removed): 2 copies an input.
#[test]
fn the_trial_log() {
    let mut steps = vec![Step::Submit, Step::Result { ok: false }];
    steps.extend([Step::Background { big: true }; 4]);
    steps.extend([Step::Tick(300), Step::Background { big: false }]);
    for _ in 0..3 {
        steps.extend([Step::Submit, Step::Result { ok: true }]);
    }
    steps.extend([Step::Submit, Step::Result { ok: true }, Step::Reload]);
    for _ in 0..3 {
        steps.extend([Step::Submit, Step::Result { ok: true }]);
    }
    match run(&steps) {
        Ok(w) => assert!(w.windowed > 0, "the log was never read from a window"),
        Err(e) => panic!("{e}"),
    }
}

/// Door chunks sent one after another while a save from an old read
/// drops them all: each goes back, with its answer, in one input (the
/// engine of the time put back one level of them per pass, and lost
/// the third).
#[test]
fn a_stale_save_drops_a_chain_of_door_chunks() {
    use Step::*;
    let steps = [
        Submit,
        Submit,
        StaleSave {
            back: 0,
            add: false,
        },
        Result { ok: false },
        Submit,
        Submit,
        Submit,
        StaleSave {
            back: 7,
            add: false,
        },
    ];
    if let Err(e) = run(&steps) {
        panic!("{e}");
    }
}

/// The counts for the closing note: `DOOR_CASES=N DOOR_SEED=S cargo test
/// -p daebug --test door_chunks census -- --ignored --nocapture` runs N
/// generated sequences (no shrinking) and says how many broke a promise.
#[test]
#[ignore]
fn census() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let cases: usize = std::env::var("DOOR_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2_000);
    let seed: u64 = std::env::var("DOOR_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let mut runner = TestRunner::new_with_rng(
        Default::default(),
        proptest::test_runner::TestRng::from_seed(
            proptest::test_runner::RngAlgorithm::ChaCha,
            &[seed as u8; 32],
        ),
    );
    let strategy = prop::collection::vec(step(), 1..40);
    let (mut steps, mut windowed, mut failed) = (0, 0, 0);
    let mut first = None;
    for _ in 0..cases {
        let seq = strategy.new_tree(&mut runner).unwrap().current();
        steps += seq.len();
        match run(&seq) {
            Ok(w) => windowed += w.windowed,
            Err(e) => {
                failed += 1;
                first.get_or_insert(format!("{seq:?}\n{e}"));
            }
        }
    }
    println!("door chunks: {cases} sequences, {steps} steps, {windowed} windowed transactions, {failed} broke a promise");
    if let Some(e) = first {
        println!("the first:\n{e}");
    }
}
