//! Tests in the realm, and logs as tests (docs/log-format.md, "Tests in the realm"), with the real hub,
//! headless Chromium and Node 22: one suite of 33 node:test tests
//! (passing, a `deepStrictEqual` failure, skipped, todo, `only`, hooks,
//! subtests and the hooks they inherit, `t.before`/`t.after`, async, a
//! timeout, mocks) run by `daebug test` in a page the
//! hub serves, in a page a dev server serves (the Vite-like server of
//! `support`; the specifiers rewritten as the README's Vite alias does),
//! in a module worker and in a Node process. Its last test waits until this
//! test saw the streamed lines in the log, so they are on disk before the
//! run ends. Then `daebug check` replays a recorded session: it passes
//! against the same app and fails, naming the block, after the app changed.

mod support;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use support::node::{node, NodeProcess};
use support::{
    base_of, daebug_bin, log_in, serve_files, wait_for, write_files, Browser, Log, Running,
    TempDir, World,
};

/// The app module the suite imports, as tests import the app's own code.
const MATH: &str = "export const add = (a, b) => a + b;\n";

/// The suite: `release` is how its last test learns it may end.
fn suite(release: &str, test_from: &str, assert_from: &str) -> String {
    format!(
        r#"import {{ test, describe, it, before, after, beforeEach, afterEach, mock }} from "{test_from}";
import assert from "{assert_from}";
import {{ add }} from "./math.js";
{release}
const order = [];
before(() => order.push("before"));
after(() => {{}});
for (let i = 1; i <= 10; i++) test(`adds ${{i}}`, () => assert.equal(add(i, 1), i + 1));
test("cart totals", () => assert.deepStrictEqual({{ items: [1, 2], total: 3 }}, {{ items: [1, 2], total: 4 }}));
test.skip("skipped one", () => {{}});
test("skipped by option", {{ skip: true }}, () => {{}});
test.todo("todo later");
test.only("marked only", () => {{}});
test("too slow", {{ timeout: 50 }}, () => new Promise((r) => setTimeout(r, 1000)));
describe("cart", () => {{
  let items;
  beforeEach(() => {{ items = []; }});
  afterEach(() => {{ items = null; }});
  it("adds an item", () => {{ items.push(1); assert.equal(items.length, 1); }});
  it("starts empty", () => assert.deepStrictEqual(items, []));
  it("throws on bad input", () => assert.throws(() => {{ throw new TypeError("bad"); }}, TypeError));
  it("rejects", async () => assert.rejects(Promise.reject(new Error("no")), /no/));
  it("matches", () => assert.match("hello", /ell/));
}});
test("parent", async (t) => {{
  await t.test("sub one", () => {{}});
  await t.test("sub two", () => assert.notEqual(1, 2));
}});
test("mock.fn counts calls", () => {{ const f = mock.fn((x) => x); f(1); f(2); assert.equal(f.mock.callCount(), 2); }});
test("before ran", () => assert.deepStrictEqual(order, ["before"]));
describe("nested", () => {{
  describe("deeper", () => {{
    it("works", () => {{}});
    it("fails too", () => assert.strictEqual(1, 2));
  }});
}});
test("t.mock.fn", (t) => {{ const f = t.mock.fn(); f(); assert.equal(f.mock.calls.length, 1); }});
const seen = [];
describe("hooks reach subtests", () => {{
  beforeEach((t) => seen.push("be " + t.name));
  it("outer", async (t) => {{
    t.before(() => seen.push("t.before"));
    t.after(() => seen.push("t.after"));
    await t.test("inner", () => seen.push("inner"));
    assert.deepStrictEqual(seen, ["be outer", "t.before", "be inner", "inner"]);
  }});
}});
test("t.after ran", () => assert.deepStrictEqual(seen.slice(4), ["t.after"]));
test("async: waits for the log", async () => {{
  while (!(await release())) await new Promise((r) => setTimeout(r, 20));
}});
"#
    )
}

/// A browser suite's `release`: the hub's listing (it answers CORS) finds
/// `release.txt` in its root once the test wrote it.
fn browser_release(hub: &str) -> String {
    format!(
        "const release = async () => (await (await fetch(\"{hub}/daebug-tests.json?spec=release.txt\", {{ cache: \"no-store\" }})).json()).length > 0;"
    )
}

/// `daebug test …` started (it blocks until the run ends).
fn start_cli(root: &Path, args: &[&str]) -> Child {
    Command::new(daebug_bin())
        .args(args)
        .arg("--root")
        .arg(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run daebug")
}

fn finish(child: Child) -> (i32, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().expect("wait daebug");
    let out = String::from_utf8_lossy(&stdout).to_string();
    let code = status.code().unwrap_or(-1);
    (code, format!("{out}{}", String::from_utf8_lossy(&stderr)))
}

/// The suite run by `daebug test <stem> <spec> --json` in the realm of
/// `log`; its lines must be in the log while the run still waits for
/// `root/release.txt`. Returns the reply's JSON.
fn run_suite(root: &Path, log: &Log, spec: &str) -> serde_json::Value {
    let release = root.join("release.txt");
    let _ = std::fs::remove_file(&release);
    let cli = start_cli(root, &["test", &log.stem, spec, "--json"]);
    // Streamed: results are in the log while the last test still waits.
    let streamed = wait_for(&log.path, "the streamed results", |t| {
        t.contains("✔ adds 10 (") && t.contains("✖ cart totals (") && t.contains("✔ t.mock.fn (")
    });
    assert!(
        !streamed.contains("27 passed"),
        "the summary came before the run ended:\n{streamed}"
    );
    assert!(streamed.contains("```Text test"), "{streamed}");
    std::fs::write(&release, "go").unwrap();
    let (code, out) = finish(cli);
    assert_eq!(code, 1, "a test failed, so exit 1:\n{out}");
    let reply: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let value = &reply["value"];
    assert_eq!(
        (
            &value["passed"],
            &value["failed"],
            &value["skipped"],
            &value["todo"]
        ),
        (&27.into(), &3.into(), &2.into(), &1.into()),
        "{reply:#}"
    );
    let failures: Vec<&str> = value["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        failures,
        ["cart totals", "too slow", "nested › deeper › fails too"]
    );
    let text = reply["text"].as_str().unwrap();
    for line in [
        "✔ cart › adds an item (",
        "✔ parent › sub one (",
        "﹣ skipped one # SKIP",
        "﹣ todo later # TODO",
        "✔ marked only (",
        "✖ too slow (",
        "27 passed, 3 failed, 2 skipped (",
        "+ actual - expected",
        "total: 3",
        "total: 4",
        "test timed out after 50ms",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
    // The failure's stack points at the test file.
    assert!(text.contains("suite.test.js:"), "{text}");
    // The log has the same reply, summary last among the test lines.
    let log_text = log.text();
    assert!(
        log_text.contains("27 passed, 3 failed, 2 skipped ("),
        "{log_text}"
    );
    reply
}

/// `--filter` runs the tests whose names match: all pass, exit 0.
fn run_filtered(root: &Path, log: &Log, spec: &str) {
    std::fs::write(root.join("release.txt"), "go").unwrap();
    let cli = start_cli(root, &["test", &log.stem, spec, "--filter", "^adds \\d+$"]);
    let (code, out) = finish(cli);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("10 passed, 0 failed, 0 skipped ("), "{out}");
    assert!(!out.contains("cart totals"), "{out}");
}

fn page_files(hub_release: &str) -> Vec<(String, String)> {
    vec![
        (
            "index.html".into(),
            "<!doctype html><html><head><title>tests</title></head><body>\
             <script>new Worker('/worker.js', { type: 'module' })</script></body></html>"
                .into(),
        ),
        ("worker.js".into(), "import '/daebug.js?name=tw';\n".into()),
        ("src/math.js".into(), MATH.into()),
        (
            "src/suite.test.js".into(),
            suite(hub_release, "node:test", "node:assert/strict"),
        ),
    ]
}

#[test]
fn a_suite_in_a_hub_served_page_and_its_module_worker() {
    let root = TempDir::new("tests-hub");
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    let files = page_files(&browser_release(&base));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_str()))
        .collect();
    write_files(root.path(), &files);
    let _browser = Browser::open(&format!("{base}/"));
    // The page: a glob the hub lists.
    let page = log_in(root.path(), "tests");
    run_suite(root.path(), &page, "src/**/*.test.js");
    run_filtered(root.path(), &page, "src/**/*.test.js");
    // `only: true` runs the test marked only.
    support::append(
        &page.path,
        "\n```js\nawait daebug.test('src/suite.test.js', { only: true })\n```\n",
    );
    let only = wait_for(&page.path, "the only run", |t| {
        t.contains("1 passed, 0 failed, 0 skipped (")
    });
    assert!(only.contains("✔ marked only ("), "{only}");
    // The module worker: a plain path.
    let worker = log_in(root.path(), "tw");
    run_suite(root.path(), &worker, "src/suite.test.js");
}

#[test]
fn a_suite_in_a_page_a_dev_server_serves() {
    let root = TempDir::new("tests-vite");
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    // What the README's Vite alias makes of the test file's imports.
    let test_file = suite(
        &browser_release(&base),
        &format!("{base}/daebug-test.mjs"),
        &format!("{base}/daebug-assert-strict.mjs"),
    );
    let dev = serve_files(vec![
        (
            "/",
            format!(
                "<!doctype html><html><head><title>vite</title>\
                 <script src=\"{base}/daebug.js\"></script></head><body></body></html>"
            ),
        ),
        ("/src/math.js", MATH.to_string()),
        ("/src/suite.test.js", test_file),
    ]);
    let _browser = Browser::open(&format!("{dev}/"));
    let page = log_in(root.path(), "vite");
    run_suite(root.path(), &page, "/src/suite.test.js");
}

#[test]
fn a_suite_in_a_node_process() {
    let root = TempDir::new("tests-node");
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    wait_for(
        &root.path().join("debug/daebug-node.mjs"),
        "the loader",
        |t| t.contains(&base),
    );
    let app = root.path().join("app");
    std::fs::create_dir_all(app.join("test")).unwrap();
    let release = format!(
        "import fs from \"node:fs\";\nconst release = async () => fs.existsSync({:?});",
        root.path().join("release.txt")
    );
    std::fs::write(app.join("test/math.js"), MATH).unwrap();
    std::fs::write(
        app.join("test/suite.test.js"),
        suite(&release, "node:test", "node:assert/strict"),
    )
    .unwrap();
    std::fs::write(app.join("package.json"), "{\"type\":\"module\"}").unwrap();
    std::fs::write(app.join("server.js"), "setInterval(() => {}, 1000);\n").unwrap();
    let _node = NodeProcess::start(&node(22), root.path(), &app, &[], "server.js", &[]);
    let log = log_in(root.path(), "server");
    run_suite(root.path(), &log, "test/*.test.js");
    // A second run in the same process imports the files afresh.
    run_filtered(root.path(), &log, "test/*.test.js");
}

#[test]
fn check_replays_a_session_and_names_the_block_that_changed() {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>shop</title><script src=\"app.js\"></script></head></html>",
            ),
            ("app.js", "window.price = (n) => n * 2;\n"),
        ],
        "",
    );
    let log = world.log("shop");
    let root = world.root.path();
    let eval = |code: &str| {
        let out = Command::new(daebug_bin())
            .args(["eval", &log.stem, code, "--root"])
            .arg(root)
            .output()
            .expect("daebug eval");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    // The session: a value, an error, a value that depends on the app.
    assert!(eval("price(2)").contains("\n4\n"));
    assert!(eval("null.x").contains("TypeError"));
    assert!(eval("({ label: 'total', value: price(5) })").contains("10"));
    let session = root.join("session.md");
    std::fs::copy(&log.path, &session).unwrap();
    let check_with = |extra: &[&str]| {
        let out = Command::new(daebug_bin())
            .arg("check")
            .arg(&session)
            .arg("--root")
            .arg(root)
            .args(extra)
            .output()
            .expect("daebug check");
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), text)
    };
    let check = || check_with(&[]);
    let (code, out) = check();
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("3 blocks replayed"), "{out}");
    // The app changes; the page reloads with it.
    std::fs::write(root.join("app.js"), "window.price = (n) => n * 3;\n").unwrap();
    assert!(eval("daebug.reload()").contains("reloaded"));
    let (code, out) = check();
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("✖ block 1 ("), "{out}");
    assert!(
        out.contains("recorded: 4") && out.contains("now:      6"),
        "{out}"
    );
    assert!(out.contains("✔ block 2 ("), "the error is the same: {out}");
    assert!(out.contains("✖ block 3 ("), "{out}");
    assert!(out.contains("2 differ"), "{out}");
    // A span of the log: block 2 alone (from its fence's line to just
    // before block 3's) still passes.
    let line_of = |n: usize| {
        let at = out.find(&format!("block {n} (")).expect("block named");
        let rest = &out[at..];
        let colon = rest.find(':').expect("file:line");
        let end = rest.find(')').expect(")");
        rest[colon + 1..end].parse::<usize>().expect("a line")
    };
    let span = format!("{}-{}", line_of(2), line_of(3) - 1);
    let (code, out) = check_with(&["--lines", &span]);
    assert_eq!(code, Some(0), "{span}: {out}");
    assert!(
        out.contains("1 blocks replayed") || out.contains("1 block replayed"),
        "{out}"
    );
    assert!(
        out.contains("✔ block 2 (") && !out.contains("block 1 ("),
        "{out}"
    );
}
