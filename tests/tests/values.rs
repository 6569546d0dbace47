//! Every kind of value docs/log-format.md ("Values") names, returned by a
//! block in a real page and written into its log as shown there.

mod support;

use support::{World, Write};

/// A block and the reply fence it must get (info string and content).
const VALUES: &[(&str, &str)] = &[
    (
        "({ a: 1, b: [true, null, 'x'] })",
        "```JSON\n{\"a\":1,\"b\":[true,null,\"x\"]}\n```",
    ),
    (
        "Array.from({ length: 12 }, (_, i) => ({ id: i, name: 'item ' + i }))",
        "```JSON\n[\n  {\"id\":0,\"name\":\"item 0\"},\n  {\"id\":1,",
    ),
    ("'one'", "```JSON\n\"one\"\n```"),
    ("'two\\nlines'", "```Text\ntwo\nlines\n```"),
    ("undefined", "```Text\nundefined\n```"),
    ("12n", "```Text\n12n\n```"),
    ("NaN", "```Text\nNaN\n```"),
    ("-0", "```Text\n-0\n```"),
    (
        "new Map([['a', 1], ['b', 2]])",
        "```Text\nMap(2) {\"a\" => 1, \"b\" => 2}\n```",
    ),
    ("new Set([1])", "```Text\nSet(1) {1}\n```"),
    ("function load(url) {}\nload", "```Text\nƒ load(url)\n```"),
    (
        "new Date('2026-11-22T10:00:00.000Z')",
        "```Text\nDate(2026-11-22T10:00:00.000Z)\n```",
    ),
    (
        "document.querySelector('#save')",
        "```Text\n<button#save.btn> \"Save\"\n```",
    ),
    ("document.querySelectorAll('li')", "```Text\nNodeList(3) ["),
    ("const o = { name: 'o' };\no.self = o;\no", "[Circular *1]"),
    (
        "({ get boom() { throw new Error('ran') } })",
        "```Text\n{ boom: [Getter] }\n```",
    ),
];

#[test]
fn every_value_kind_is_written_as_the_design_says() {
    let world = World::new(
        &[(
            "index.html",
            "<!doctype html><html><head><title>Values</title></head><body>\
             <button id=save class=btn>Save</button><ul><li>a</li><li>b</li><li>c</li></ul></body></html>",
        )],
        "index.html",
    );
    let log = world.log("values-");
    for (code, want) in VALUES {
        let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
        let reply = &text[text.rfind(&format!("> **{}** to ", log.stem)).unwrap()..];
        assert!(reply.contains(want), "{code}: want {want:?} in\n{reply}");
    }
}

/// The last reply in `text`.
fn last_reply<'a>(text: &'a str, stem: &str) -> &'a str {
    &text[text.rfind(&format!("> **{stem}** to ")).unwrap()..]
}

/// The archive a reply links to, read from disk.
fn archived(log: &support::Log, reply: &str) -> String {
    let start = reply.find("](archive/").expect("a link to the archive") + 2;
    let end = reply[start..].find(')').unwrap() + start;
    std::fs::read_to_string(log.path.parent().unwrap().join(&reply[start..end]))
        .expect("the archive file")
}

/// docs/log-format.md, "Values": whole when asked, honest when cut.
#[test]
fn values_are_whole_when_asked_and_compact() {
    let world = World::new(
        &[(
            "index.html",
            "<!doctype html><title>Whole</title><p>whole</p>",
        )],
        "index.html",
    );
    let log = world.log("whole-");
    let ask = |chunk: &str| {
        let text = log.exchange(Write::Append, chunk, 1);
        last_reply(&text, &log.stem).to_string()
    };

    // A 300 KB string: the inline part, and the string byte for byte in
    // the archive it links (raw text, not its JSON escape).
    let reply = ask("\n```js\n'x'.repeat(300000) + '\\u00e9\\u{1F600}\"\\\\'\n```\n");
    let want = format!("{}é\u{1F600}\"\\", "x".repeat(300_000));
    assert!(
        reply.contains(&format!(
            "(cut at 32768 of {} bytes; the whole reply is in [archive/",
            want.len()
        )),
        "{}",
        &reply[reply.len().saturating_sub(400)..]
    );
    assert_eq!(archived(&log, &reply), want);

    // A long string inside a value is sent whole too: the archive holds
    // the value's JSON with all of it.
    let reply = ask("\n```js\n({ id: 1, html: 'y'.repeat(300000) })\n```\n");
    let back: serde_json::Value = serde_json::from_str(&archived(&log, &reply)).unwrap();
    assert_eq!(back["html"].as_str().map(str::len), Some(300_000));

    // `depth=8` shows the bottom of an object that the default depth cuts.
    let deep = "let o = { v: 'bottom' }; for (let i = 0; i < 7; i++) o = { n: o }; o";
    let reply = ask(&format!("\n```js\n{deep}\n```\n"));
    assert!(
        reply.contains("[Object]") && !reply.contains("bottom"),
        "{reply}"
    );
    let reply = ask(&format!("\n```js depth=8\n{deep}\n```\n"));
    assert!(
        reply.contains("\"v\":\"bottom\"") && !reply.contains("[Object]"),
        "{reply}"
    );

    // A value cut at its depth says so, under it, with the depth that
    // shows it whole; one shown whole says nothing.
    let reply = ask(&format!("\n```js\n{deep}\n```\n"));
    assert!(
        reply.contains(
            "{ n: { n: { n: { n: [Object] } } } }\n(cut at depth 4: depth=8 shows more)\n```"
        ),
        "{reply}"
    );
    let reply = ask("\n```js\n({ a: { b: { c: { d: { e: { f: 1 } } } } } })\n```\n");
    assert!(
        reply.contains("[Object] } } } }\n(cut at depth 4: depth=6 shows more)\n```"),
        "{reply}"
    );
    let reply = ask(&format!("\n```js depth=6\n{deep}\n```\n"));
    assert!(
        reply.contains("(cut at depth 6: depth=8 shows more)\n```"),
        "{reply}"
    );
    let reply = ask(&format!("\n```js depth=8\n{deep}\n```\n"));
    assert!(!reply.contains("(cut at depth"), "{reply}");
    // Deeper than `depth=` goes: the most it shows, then where it stops.
    let list = "let l = null; for (let i = 0; i < 40; i++) l = { next: l }; l";
    let reply = ask(&format!("\n```js\n{list}\n```\n"));
    assert!(
        reply.contains("\n(cut at depth 4: depth=20 shows more)\n```"),
        "{reply}"
    );
    let reply = ask(&format!("\n```js depth=20\n{list}\n```\n"));
    assert!(
        reply.contains("\n(cut at depth 20, the deepest a reply shows)\n```"),
        "{reply}"
    );
    // Console arguments keep their own depth, with no note.
    let reply = ask("\n```js\nlet c = { v: 'bottom' }; for (let i = 0; i < 7; i++) c = { n: c }; console.log(c); 1\n```\n");
    assert!(
        reply.contains("```Text console.log\n{ n: { n: [Object] } }\n```"),
        "{reply}"
    );
    assert!(!reply.contains("(cut at depth"), "{reply}");

    // `full` shows every item of a long array, archived when long.
    let many = "Array.from({ length: 20000 }, (_, i) => i)";
    let reply = ask(&format!("\n```js\n{many}\n```\n"));
    assert!(reply.contains("... 19900 more items"), "{reply}");
    let reply = ask(&format!("\n```js timeout=30s full\n{many}\n```\n"));
    let back: Vec<u64> = serde_json::from_str(&archived(&log, &reply)).unwrap();
    assert_eq!(back, (0..20_000).collect::<Vec<u64>>());

    // A bad `depth=` is an error in the log, as a bad `timeout=` is.
    let reply = ask("\n```js depth=99\n1 + 1\n```\n");
    assert!(reply.contains("(**ERROR** after 0ms)"), "{reply}");
    assert!(
        reply.contains("invalid fence option `depth=99`; write it as depth=8"),
        "{reply}"
    );

    // 12 small objects: one line each, as Node's inspect shows them.
    let reply = ask("\n```js\nArray.from({ length: 12 }, (_, i) => ({ id: i, title: 'a', done: false }))\n```\n");
    let items: Vec<String> = (0..12)
        .map(|i| format!("  {{\"id\":{i},\"title\":\"a\",\"done\":false}}"))
        .collect();
    let want = format!("```JSON\n[\n{}\n]\n```", items.join(",\n"));
    assert!(reply.contains(&want), "want\n{want}\nin\n{reply}");
}
