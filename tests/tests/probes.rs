//! Probes (docs/log-format.md, "Probes"): `daebug.probe` wraps a live
//! function in place and each call is a `Text probe` line, in the block's
//! reply during one and a background block between blocks: arguments,
//! result or what it threw, an async function's settlement, the duration;
//! `max`, `remove()` and `daebug.probes`; a module's method through
//! "path#export.method", and the reason a function export cannot be
//! probed. Real hub; a page and its module worker in headless Chromium,
//! Firefox and WebKit, and a Node 22 process.

mod support;

use support::node::{node, NodeProcess};
use support::{log_in, wait_for, write_files, Engine, Log, TempDir, World, Write};

/// The app: a global `cart` whose methods its button and timers call, a
/// class, and a module (`/src/store.js`) that exports an object, a class
/// and a function.
const PAGE: &str = r#"<!doctype html><html><head><title>Shop</title>
<script>
window.cart = {
  items: [],
  addItem(id, gift) {
    if (id < 0) throw new TypeError("no such item: " + id);
    this.items.push(id);
    return { id };
  },
  async save() {
    await new Promise((r) => setTimeout(r, 30));
    return { saved: this.items.length };
  },
  async sync() {
    await null;
    throw new Error("offline");
  },
  tick() {
    return this.items.length;
  },
};
window.Basket = class Basket {
  constructor(n) { this.n = n; this.made = new.target === Basket; }
};
</script>
<script type="module" src="/src/store.js"></script>
</head><body><button id="add" onclick="cart.addItem(7, false)">Add</button>
<script>new Worker('/worker.js', { type: 'module', name: 'crunch' })</script>
</body></html>"#;

const STORE: &str = "export const store = { add(a, b) { return a + b; } };\n\
export class Totals { sum(xs) { return xs.reduce((a, b) => a + b, 0); } }\n\
export function total(n) { return store.add(n, 1); }\n";

const WORKER: &str = "import '/daebug.js?name=crunch';\n\
self.calc = { square(n) { return n * n; } };\n";

/// The `Text probe` lines of `text`, each duration made `(… ms)`.
fn probe_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("```Text probe\n") {
        rest = &rest[at + "```Text probe\n".len()..];
        let end = rest.find("\n```").expect("a closed fence");
        out.extend(rest[..end].lines().map(timeless));
        rest = &rest[end..];
    }
    out
}

/// A line with its duration, `(0.2 ms)` or `(31 ms)`, made `(… ms)`.
fn timeless(line: &str) -> String {
    match line.rfind(" (") {
        Some(i) if line.ends_with(" ms)") => {
            let n = &line[i + 2..line.len() - 4];
            assert!(n.parse::<f64>().is_ok(), "a duration in {line}");
            format!("{} (… ms)", &line[..i])
        }
        _ => line.to_string(),
    }
}

/// The last block the agent wrote in `text`, and its reply.
fn last_exchange(text: &str) -> &str {
    &text[text.rfind("> **agent** to ").expect("a reply")..]
}

/// Appends one block and returns its reply.
fn ask(log: &Log, code: &str) -> String {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    last_exchange(&text).to_string()
}

/// The reply's value (its `JSON` or `Text` fence), on one line (a long
/// one is laid out over several).
fn value_of(reply: &str) -> String {
    let start = reply
        .find("```JSON\n")
        .or_else(|| reply.find("```Text\n"))
        .expect("a value");
    let body = &reply[start + 8..];
    body[..body.find("\n```").expect("a closed fence")]
        .lines()
        .map(str::trim)
        .collect()
}

#[test]
fn chromium() {
    probes_in(Engine::Chromium);
}

#[test]
fn firefox() {
    probes_in(Engine::Firefox);
}

#[test]
fn webkit() {
    probes_in(Engine::WebKit);
}

fn probes_in(engine: Engine) {
    let world = World::new_in(
        engine,
        &[
            ("index.html", PAGE),
            ("src/store.js", STORE),
            ("worker.js", WORKER),
        ],
        "index.html",
    );
    let log = world.log("shop-");

    // During a block: each call is a line in its reply, a throw too (the
    // caller still gets the error), and the method looks as before.
    let reply = ask(
        &log,
        "const orig = cart.addItem;\nconst p = daebug.probe([cart, 'addItem']);\n\
         cart.addItem(6, true);\n\
         let caught;\n\
         try { cart.addItem(-1) } catch (e) { caught = e.constructor.name }\n\
         [p.calls, caught, cart.addItem.name, cart.addItem.length, cart.items]",
    );
    assert_eq!(
        probe_lines(&reply),
        [
            "probe cart.addItem(6, true) → {\"id\":6} (… ms)",
            "probe cart.addItem(-1) threw TypeError: no such item: -1 (… ms)",
        ],
        "{reply}"
    );
    assert_eq!(
        value_of(&reply),
        r#"[2,"TypeError","addItem",2,[6]]"#,
        "{reply}"
    );

    // Between blocks: the app's own handler (a click a timer makes) calls
    // it, and the line is a background block.
    ask(
        &log,
        "setTimeout(() => document.querySelector('#add').click(), 200); 'later'",
    );
    let text = wait_for(&log.path, "the click's probe line", |t| {
        t.contains("probe cart.addItem(7, false) → {\"id\":7} (")
    });
    let tail = &text[text.rfind("background at ").expect("a background block")..];
    assert_eq!(
        probe_lines(tail),
        ["probe cart.addItem(7, false) → {\"id\":7} (… ms)"],
        "{text}"
    );

    // Async functions: a line when the promise settles; the caller gets
    // the same value or reason.
    let reply = ask(
        &log,
        "daebug.probe([cart, 'save']);\ndaebug.probe([cart, 'sync']);\n\
         [await cart.save(), await cart.sync().catch((e) => e.message)]",
    );
    assert_eq!(
        probe_lines(&reply),
        [
            "probe cart.save() → resolved {\"saved\":2} (… ms)",
            "probe cart.sync() → rejected Error: offline (… ms)",
        ],
        "{reply}"
    );
    assert_eq!(value_of(&reply), r#"[{"saved":2},"offline"]"#, "{reply}");

    // `max`: the third call is the last logged, then one line says the
    // probe removed itself; options leave parts of a line out.
    let reply = ask(
        &log,
        "const t = daebug.probe([cart, 'tick'], { max: 3, args: false, result: false });\n\
         for (let i = 0; i < 5; i++) cart.tick(i);\n\
         [t.calls, t.removed, daebug.probes.map((x) => x.name)]",
    );
    assert_eq!(
        probe_lines(&reply),
        [
            "probe cart.tick(…) (… ms)",
            "probe cart.tick(…) (… ms)",
            "probe cart.tick(…) (… ms)",
            "probe cart.tick removed itself after 3 calls (max 3)",
        ],
        "{reply}"
    );
    assert_eq!(
        value_of(&reply),
        r#"[3,true,["cart.addItem","cart.save","cart.sync"]]"#,
        "{reply}"
    );

    // `remove()` puts the original back (later calls are not logged), or
    // says someone replaced it since and leaves it.
    let reply = ask(
        &log,
        "const removed = p.remove();\ncart.addItem(8);\n\
         const s = daebug.probes[0];\ncart.save = async () => 'mine';\n\
         [removed, s.remove(), daebug.probes.map((x) => x.name), cart.addItem === orig]",
    );
    assert!(probe_lines(&reply).is_empty(), "{reply}");
    assert_eq!(
        value_of(&reply),
        "[\"probe cart.addItem removed after 3 calls; the original is back\",\
         \"probe cart.save removed after 1 call; cart.save was replaced since (it holds another value now), so it was left as it is\",\
         [\"cart.sync\"],true]",
        "{reply}"
    );

    // `new`: `new.target` and `instanceof` are the original's.
    let reply = ask(
        &log,
        "daebug.probe([window, 'Basket']);\nconst b = new Basket(2);\n[b.made, b instanceof Basket, b.n]",
    );
    assert_eq!(
        probe_lines(&reply),
        ["probe new Basket(2) → Basket { n: 2, made: true } (… ms)"],
        "{reply}"
    );
    assert_eq!(value_of(&reply), "[true,true,2]", "{reply}");

    // A module's object's method and a class's method, through
    // "path#export.method"; the module's own call is seen.
    let reply = ask(
        &log,
        "const a = await daebug.probe('/src/store.js#store.add');\n\
         await daebug.probe('/src/store.js#Totals.sum');\n\
         const m = await daebug.module('/src/store.js');\n\
         [m.total(4), new m.Totals().sum([1, 2]), a.name]",
    );
    assert_eq!(
        probe_lines(&reply),
        [
            "probe store.add(4, 1) → 5 (… ms)",
            "probe Totals.sum([1,2]) → 3 (… ms)",
        ],
        "{reply}"
    );
    assert_eq!(value_of(&reply), r#"[5,3,"store.add"]"#, "{reply}");

    // What cannot be probed says what and why.
    for (code, says) in [
        (
            "daebug.probe('/src/store.js#total')",
            "Error: daebug.probe(\"/src/store.js#total\"): total is a function /src/store.js exports, \
             and a module's export binding cannot be replaced from outside the module",
        ),
        (
            "daebug.probe([cart, 'items'])",
            "Error: daebug.probe([object, \"items\"]): cart.items is an object ([6,7,8]), not a function",
        ),
        (
            "daebug.probe([cart, 'nope'])",
            "Error: daebug.probe([object, \"nope\"]): cart.nope is not there: the object has no property \"nope\" (its methods: addItem, save, sync, tick)",
        ),
        (
            "daebug.probe([Object.freeze({ f() {} }), 'f'])",
            "Error: daebug.probe([object, \"f\"]): f cannot be replaced: the property is read-only and not configurable",
        ),
        (
            "daebug.probe([undefined, 'f'])",
            "Error: daebug.probe([object, \"f\"]): the object is undefined",
        ),
    ] {
        let reply = ask(&log, code);
        assert!(reply.contains("(**ERROR** after "), "{reply}");
        assert!(reply.contains(&format!("```Error\n{says}")), "{reply}");
    }

    // A worker: its calls in its own log, during a block and after.
    let worker = world.log("crunch-");
    let reply = ask(
        &worker,
        "daebug.probe([calc, 'square']);\nsetTimeout(() => calc.square(5), 200);\ncalc.square(3)",
    );
    assert_eq!(
        probe_lines(&reply),
        ["probe calc.square(3) → 9 (… ms)"],
        "{reply}"
    );
    wait_for(&worker.path, "the worker's timer", |t| {
        t.contains("probe calc.square(5) → 25 (")
    });
}

const NODE_APP: &str = r#"globalThis.orders = {
  placed: 0,
  place(item, qty) {
    if (qty < 1) throw new RangeError("qty must be 1 or more");
    this.placed += qty;
    return { item, qty };
  },
  async ship(id) {
    await new Promise((r) => setTimeout(r, 20));
    return "shipped " + id;
  },
};
setInterval(() => {}, 1000);
"#;

#[test]
fn node_22() {
    let root = TempDir::new("probes-node");
    write_files(
        &root.path().join("app"),
        &[
            ("orders.js", NODE_APP),
            (
                "lib/tax.mjs",
                "export const tax = { of(n) { return n / 5; } };\n",
            ),
        ],
    );
    let (_hub, _) = support::node::node_hub(&root);
    let _app = NodeProcess::start(
        &node(22),
        root.path(),
        &root.path().join("app"),
        &[],
        "orders.js",
        &[],
    );
    let log = log_in(root.path(), "orders-");

    let reply = ask(
        &log,
        "daebug.probe([orders, 'place']);\ndaebug.probe([orders, 'ship']);\n\
         const tax = await daebug.probe('./lib/tax.mjs#tax.of');\n\
         orders.place('tea', 2);\ntry { orders.place('tea', 0) } catch {}\n\
         const { tax: t } = await import('./lib/tax.mjs');\n\
         [await orders.ship(7), t.of(10), daebug.probes.length]",
    );
    assert_eq!(
        probe_lines(&reply),
        [
            "probe orders.place(\"tea\", 2) → {\"item\":\"tea\",\"qty\":2} (… ms)",
            "probe orders.place(\"tea\", 0) threw RangeError: qty must be 1 or more (… ms)",
            "probe orders.ship(7) → resolved \"shipped 7\" (… ms)",
            "probe tax.of(10) → 2 (… ms)",
        ],
        "{reply}"
    );
    assert_eq!(value_of(&reply), r#"["shipped 7",2,3]"#, "{reply}");

    // Between blocks: the process's own timer.
    ask(
        &log,
        "setTimeout(() => orders.place('cake', 1), 100); 'later'",
    );
    wait_for(&log.path, "the timer's probe line", |t| {
        t.contains("probe orders.place(\"cake\", 1) → {\"item\":\"cake\",\"qty\":1} (")
    });
}
