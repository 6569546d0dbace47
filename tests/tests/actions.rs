//! Actions (docs/actions.md): `daebug.click`, `fill`, `press`, `hover`,
//! `check`, `select`, `upload` and `settle`, with the real hub and real
//! browsers. Without the bridge (Chromium, Firefox, WebKit) the events are
//! made in the page and said once to be synthetic; with it (`--cdp`, a
//! real Chromium) they are the browser's own (`isTrusted`, `:hover`). In
//! both, locators in the words people use, a wait that says what it
//! waited for, candidates instead of a guess, and the request a submit
//! listener sends after a timer listed in the block's own reply (also for
//! a block's plain `.click()`), the app's own polling left out.

mod support;

use support::cdp::DevtoolsBrowser;
use support::{
    base_of, log_in, network_summary, write_files, Engine, Log, Running, TempDir, World, Write,
};

/// A sign-in form whose submit listener waits in a timer before it
/// fetches (the repro in the trial's evidence), a hover-only menu, a
/// button enabled later, two buttons of one name, and the app's own
/// polling all along. `trusted` records each event's `isTrusted`.
const PAGE: &str = r##"<!doctype html><html><head><title>Act</title>
<style>#menu .items { display: none } #menu:hover .items { display: block } body { margin: 0 }</style></head><body>
<form id=f><label>Email <input id=email name=email></label>
<input placeholder="Password" type=password id=pw>
<select id=plan><option value=free>Free</option><option value=pro>Pro</option></select>
<label><input type=checkbox id=terms> I agree</label>
<input type=file id=file>
<button id=b type=submit>Sign in</button></form>
<button data-testid=later disabled id=later onclick="this.textContent = 'Later done'">Later</button>
<button id=never disabled>Never</button>
<button class=dup>Save</button> <button class=dup>Save</button>
<div id=menu><span>Menu</span><div class=items><a href="#settings" id=item>Settings</a></div></div>
<p id=out></p>
<script>
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    await new Promise((r) => setTimeout(r, 20));
    const r = await fetch('/login.json?u=' + encodeURIComponent(email.value));
    out.textContent = 'Welcome, ' + email.value;
    window.st = r.status;
  });
  window.trusted = [];
  for (const k of ['click', 'input', 'keydown', 'change']) document.addEventListener(k, (e) => trusted.push(k + ':' + e.isTrusted), true);
  file.addEventListener('change', () => (window.picked = [...file.files].map((f) => f.name + ':' + f.size)));
  setInterval(() => fetch('/poll.json'), 50);
  setTimeout(() => (later.disabled = false), 400);
</script></body></html>"##;

const FILES: [(&str, &str); 3] = [
    ("index.html", PAGE),
    ("login.json", "{\"ok\":true}"),
    ("poll.json", "{\"n\":1}"),
];

/// Appends one block and returns its reply.
fn run(log: &Log, code: &str) -> String {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    text[text.rfind("> **agent** to ").expect("a reply")..].to_string()
}

/// The sign-in every agent wrote helpers for, as one call each; what it
/// answers and lists, in `engine` without the bridge.
fn signs_in_without_the_bridge(engine: Engine) {
    let world = World::new_in(engine, &FILES, "index.html");
    let log = world.log("act-");
    let reply = run(
        &log,
        "await daebug.fill('label=Email', 'alice');\n\
         await daebug.fill('placeholder=Password', 's3cret');\n\
         await daebug.select('#plan', 'Pro');\n\
         await daebug.check('text=I agree');\n\
         await daebug.click('role=button[name=\"Sign in\"]')",
    );
    assert!(
        reply
            .contains(r##"clicked <button#b> \"Sign in\" (role button) (synthetic) · settled in"##)
            && reply.contains(r##"appeared \"Welcome, alice\""##),
        "{engine:?}: {reply}"
    );
    // Said once, however many actions the block made.
    assert_eq!(
        reply.matches("daebug actions: synthetic events").count(),
        1,
        "{engine:?}: {reply}"
    );
    let summary = network_summary(&reply);
    assert!(
        summary.contains("/login.json?u=alice → 200") && !summary.contains("poll.json"),
        "{engine:?}: {reply}"
    );
    assert!(!reply.contains("after submit"), "{engine:?}: {reply}");
    let reply = run(
        &log,
        "[email.value, pw.value, plan.value, terms.checked, st]",
    );
    assert!(
        reply.contains(r##"["alice","s3cret","pro",true,200]"##),
        "{engine:?}: {reply}"
    );
}

#[test]
fn a_sign_in_is_one_call_each_and_lists_what_it_caused() {
    signs_in_without_the_bridge(Engine::Chromium);
}

#[test]
fn firefox_and_webkit_act_with_synthetic_events() {
    signs_in_without_the_bridge(Engine::Firefox);
    signs_in_without_the_bridge(Engine::WebKit);
}

#[test]
fn locators_wait_and_answer_with_what_they_found() {
    let world = World::new(&FILES, "index.html");
    let log = world.log("act-");
    // Two of one name: the candidates, never a guess.
    let reply = run(&log, "await daebug.click('text=Save')");
    assert!(
        reply.contains(r##"daebug.click("text=Save"): 2 elements match: <button.dup> "Save" (role button), <button.dup> "Save" (role button); name one"##),
        "{reply}"
    );
    // Nothing: what the page has instead.
    let reply = run(&log, "await daebug.click('text=Log out', { timeout: 300 })");
    assert!(
        reply.contains(r##"daebug.click("text=Log out") waited 300 ms: nothing matches; the page has <button#b> "Sign in" (role button), <button#later> "Later" (role button)"##),
        "{reply}"
    );
    // Disabled now, enabled later: it waits; disabled for good: it says so.
    let reply = run(&log, "await daebug.click('testid=later')");
    assert!(
        reply.contains(r##"clicked <button#later> \"Later done\" (role button) (synthetic)"##),
        "{reply}"
    );
    let reply = run(&log, "await daebug.click('#never', { timeout: 300 })");
    assert!(
        reply.contains(r##"daebug.click("#never") waited 300 ms for <button#never> "Never" (role button): it is disabled"##),
        "{reply}"
    );
    // Not a locator nor CSS.
    let reply = run(&log, "await daebug.click('role=button[')");
    assert!(
        reply.contains("a role locator reads role=button or role=button[name=\"Save\"]"),
        "{reply}"
    );
    // A file, as its picker sets it; settle on its own.
    let reply = run(
        &log,
        "await daebug.upload('#file', [{ name: 'a.txt', type: 'text/plain', text: 'hello' }]);\n\
         fetch('/login.json?late'); [await daebug.settle(), picked]",
    );
    assert!(
        reply.contains(r##"a.txt:5"##) && reply.contains("settled in"),
        "{reply}"
    );
    assert!(
        network_summary(&reply).contains("/login.json?late → 200"),
        "{reply}"
    );
}

/// The trial's repro: a block's plain `.click()` on a submit button whose
/// listener waits in a timer, then fetches: the request is the block's.
#[test]
fn a_blocks_own_click_causes_what_its_submit_listener_fetches() {
    let world = World::new(&FILES, "index.html");
    let log = world.log("act-");
    let reply = run(
        &log,
        "email.value = 'carol'; document.getElementById('b').click();\n\
         await daebug.sleep(300);\nwindow.st",
    );
    let summary = network_summary(&reply);
    assert!(
        summary.contains("/login.json?u=carol → 200") && !summary.contains("poll.json"),
        "{reply}"
    );
    assert!(!reply.contains("after submit"), "{reply}");
}

#[test]
fn with_the_bridge_actions_are_the_browsers_own_input() {
    let mut chromium = DevtoolsBrowser::open("about:blank");
    let root = TempDir::new("actions-bridge");
    write_files(root.path(), &FILES);
    let cdp = chromium.devtools_url();
    let mut hub = Running::start(&["--port", "0", "--cdp", &cdp], &root);
    let base = base_of(&hub.line_with("serving"));
    chromium.navigate(&format!("{base}/index.html"));
    let log = log_in(root.path(), "act-");

    let reply = run(
        &log,
        "await daebug.fill('label=Email', 'bob');\n\
         await daebug.press('Enter')",
    );
    assert!(
        reply.contains(
            r##"pressed Enter on <input#email[type=text]> \"Email\" (role textbox) (trusted)"##
        ) && reply.contains(r##"appeared \"Welcome, bob\""##)
            && !reply.contains("synthetic"),
        "{reply}"
    );
    let summary = network_summary(&reply);
    assert!(
        summary.contains("/login.json?u=bob → 200") && !summary.contains("poll.json"),
        "{reply}"
    );
    assert!(!reply.contains("after "), "{reply}");
    let reply = run(
        &log,
        "trusted.filter((t) => !t.startsWith('change')).join(' ')",
    );
    assert!(
        reply.contains("input:true") && reply.contains("keydown:true") && !reply.contains(":false"),
        "{reply}"
    );

    // A hover-only menu: only a real pointer shows it.
    let reply = run(
        &log,
        "await daebug.hover('text=Menu');\n\
         await daebug.click('text=Settings');\n\
         location.hash",
    );
    assert!(reply.contains("\"#settings\""), "{reply}");

    // Select all, then a key: the field holds that key.
    let reply = run(
        &log,
        "await daebug.press('label=Email', 'Control+a'); await daebug.press('x'); email.value",
    );
    assert!(reply.contains("```JSON\n\"x\"\n```"), "{reply}");

    // While a person is asked, no action answers for them.
    let reply = run(
        &log,
        "const asked = daebug.ask('Continue?');\n\
         await daebug.waitFor(() => document.querySelector('daebug-panels'));\n\
         await daebug.sleep(200);\n\
         await daebug.click('#b').catch((e) => e.message)",
    );
    assert!(
        reply.contains("trusted input: a person is being asked in this page"),
        "{reply}"
    );
    drop(hub);
}
