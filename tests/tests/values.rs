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
        "```JSON\n[\n  {\n    \"id\": 0,",
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
