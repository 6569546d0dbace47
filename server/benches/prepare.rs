//! How long the hub takes to prepare a block before dispatch (parse,
//! early errors, type stripping, rewrite, position map), for a typical
//! block, a 1-line, a 200-line and a 2,000-line one, in JavaScript and
//! TypeScript.
//!
//! `cargo bench -p daebug --bench prepare` prints a table (median and p99
//! over many runs, in microseconds).

use std::time::{Duration, Instant};

use daebug_core::engine::Lang;
use daebug_core::prepare::prepare;
use daebug_protocol::JobId;

/// What an agent typically sends: a few lines of DOM and data work.
const TYPICAL: &str = r#"const rows = [...document.querySelectorAll('table tr')];
const data = rows.map((r) => [...r.cells].map((c) => c.textContent.trim()));
let total = 0;
for (const [, amount] of data) total += Number(amount) || 0;
console.log('rows', rows.length);
({ rows: rows.length, total })
"#;

/// The one line agents send most: a console helper and a value.
const ONE_LINE: &str = "$$('li').length";

/// A realistic chunk of code, repeated to the wanted length.
const UNIT_JS: &str = r#"class Store {
  constructor(items) { this.items = new Map(items.map((i) => [i.id, i])); }
  get(id) { return this.items.get(id) ?? null; }
  async load(url) {
    const res = await fetch(url);
    for (const item of await res.json()) this.items.set(item.id, item);
    return this.items.size;
  }
}
var counter = 0;
function next() { return ++counter; }
const store = new Store([{ id: 1, name: 'a' }, { id: 2, name: 'b' }]);
"#;

const UNIT_TS: &str = r#"interface Item { id: number; name: string }
class Store<T extends Item> {
  private items: Map<number, T>;
  constructor(items: T[]) { this.items = new Map(items.map((i): [number, T] => [i.id, i])); }
  get(id: number): T | null { return this.items.get(id) ?? null; }
  async load(url: string): Promise<number> {
    const res = await fetch(url);
    for (const item of (await res.json()) as T[]) this.items.set(item.id, item);
    return this.items.size;
  }
}
const store = new Store<Item>([{ id: 1, name: 'a' }, { id: 2, name: 'b' }]);
"#;

/// `unit` repeated to `lines` lines, every copy in its own block scope so
/// the names do not clash.
fn long(unit: &str, lines: usize) -> String {
    let per = unit.lines().count() + 2;
    let mut s = String::new();
    for _ in 0..lines / per {
        s.push_str("{\n");
        s.push_str(unit);
        s.push_str("}\n");
    }
    s.push_str("store.get(1)\n");
    s
}

fn measure(lang: Lang, source: &str, runs: usize) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..runs)
        .map(|i| {
            let t = Instant::now();
            let prepared = prepare(source, lang, JobId(i as u64));
            let took = t.elapsed();
            assert!(prepared.is_ok(), "the bench blocks are valid");
            took
        })
        .collect();
    times.sort();
    (times[runs / 2], times[runs * 99 / 100])
}

fn main() {
    let long_js = long(UNIT_JS, 2000);
    let long_ts = long(UNIT_TS, 2000);
    let cases = [
        ("1-line block, js", Lang::Js, ONE_LINE.to_string(), 5000),
        ("200-line block, js", Lang::Js, long(UNIT_JS, 200), 1000),
        (
            "typical block (6 lines), js",
            Lang::Js,
            TYPICAL.to_string(),
            2000,
        ),
        (
            "typical block (6 lines), ts",
            Lang::Ts,
            TYPICAL.to_string(),
            2000,
        ),
        ("2,000-line block, js", Lang::Js, long_js, 200),
        ("2,000-line block, ts", Lang::Ts, long_ts, 200),
    ];
    let mut table =
        String::from("| block | lines | bytes | median µs | p99 µs |\n|---|---:|---:|---:|---:|\n");
    for (name, lang, source, runs) in cases {
        let (median, p99) = measure(lang, &source, runs);
        table.push_str(&format!(
            "| {name} | {} | {} | {:.0} | {:.0} |\n",
            source.lines().count(),
            source.len(),
            median.as_secs_f64() * 1e6,
            p99.as_secs_f64() * 1e6
        ));
    }
    println!("{table}");
    write_section(&table);
}

/// Puts the table in `BENCH.md` under its own heading (replacing the
/// last run's), leaving the rest of the file as it is.
fn write_section(table: &str) {
    const HEADING: &str = "## Preparing a block";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../BENCH.md");
    let Ok(old) = std::fs::read_to_string(&path) else {
        return;
    };
    let section = format!(
        "{HEADING}\n\n`cargo bench -p daebug --bench prepare`: parse, early errors, type stripping, the console rewrite and the position map, on the hub's thread (median and p99 over many runs).\n\n{table}"
    );
    let (before, after) = match old.find(HEADING) {
        Some(i) => {
            let rest = &old[i + HEADING.len()..];
            let end = rest
                .find("\n## ")
                .map_or(old.len(), |j| i + HEADING.len() + j + 1);
            (&old[..i], &old[end..])
        }
        None => (old.as_str(), ""),
    };
    let joined = format!("{}\n\n{section}\n{after}", before.trim_end());
    if std::fs::write(&path, joined.trim_end().to_string() + "\n").is_ok() {
        println!("written to {}", path.display());
    }
}
