//! What following causes costs (docs/log-format.md, "Causes"): the timers
//! a page schedules (each carries its context), a 1 MiB answer read through
//! the hooked `fetch`, and the bytes the archive gets for a block's 100
//! requests. Own functions are an iframe's without daebug, as in
//! `request_hooks`.

use super::support::{World, Write};
use super::Row;

pub fn network_cost(rows: &mut Vec<Row>) {
    let body = format!(
        "[{}]",
        (0..40)
            .map(|i| format!("{{\"id\":{i},\"title\":\"Todo number {i}\",\"completed\":false}}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Costs</title></head><body></body></html>",
            ),
            ("todos.json", &body),
        ],
        "index.html",
    );
    let log = world.log("costs-");
    let code = "\n```js timeout=120s\nconst frame = document.createElement('iframe');\ndocument.body.append(frame);\n\
         const w = frame.contentWindow;\n\
         const timers = (st, ct) => { const t0 = performance.now(); const ids = []; for (let i = 0; i < 10000; i++) ids.push(st(() => {}, 1e6)); const t = performance.now() - t0; ids.forEach((id) => ct(id)); return t / 10; };\n\
         const big = 'data:text/plain,' + 'x'.repeat(1024 * 1024);\n\
         const mib = async (f) => { const t0 = performance.now(); for (let i = 0; i < 20; i++) await (await f(big)).text(); return (performance.now() - t0) / 20; };\n\
         const teed = (f) => (u) => f(u).then((r) => (r.clone().text(), r));
         const round = async () => [timers(w.setTimeout.bind(w), w.clearTimeout.bind(w)), timers(setTimeout, clearTimeout), await mib(w.fetch.bind(w)), await mib(fetch), await mib(teed(w.fetch.bind(w)))];\n\
         await round();\n\
         (await round()).map((x) => Math.round(x * 1000) / 1000)\n```\n";
    let text = log.exchange(Write::Append, code, 1);
    let reply = &text[text.rfind("```JSON\n").map_or(0, |i| i + 8)..];
    let n: Vec<f64> = reply
        .trim_start_matches('[')
        .split([',', ']'])
        .take(5)
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let at = |i: usize| n.get(i).copied().unwrap_or(0.0);
    rows.push(Row {
        what: "10,000 `setTimeout` calls: µs a call, own → hooked (the timer carries its cause)"
            .into(),
        value: format!("{:.2} → {:.2}", at(0), at(1)),
        goal: "almost nothing over the original".into(),
    });
    rows.push(Row {
        what: "20 `fetch` of a 1 MiB `data:` answer, read with `.text()`: ms each, own → hooked (a body over 1 MiB is recorded by size only)".into(),
        value: format!(
            "{:.2} → {:.2} (own with a clone read beside it: {:.2})",
            at(2),
            at(3),
            at(4)
        ),
        goal: "saving never delays the page's use of the answer".into(),
    });

    let archive = world.root.path().join("debug").join("archive");
    let before = bytes_in(&archive);
    log.exchange(
        Write::Append,
        "\n```js\nfor (let i = 0; i < 100; i++) await (await fetch('/todos.json?i=' + i)).json();\n'done'\n```\n",
        1,
    );
    let after = bytes_in(&archive);
    rows.push(Row {
        what: format!(
            "bytes written to `debug/archive/` for a block's 100 requests of a {} B JSON answer",
            body.len()
        ),
        value: format!("{}", after.saturating_sub(before)),
        goal: "—".into(),
    });
}

fn bytes_in(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}
