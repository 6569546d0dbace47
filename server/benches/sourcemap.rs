//! What mapping a stack through page scripts' source maps costs: a stack
//! of 10 frames, with a cold cache (each script and its map fetched from
//! a local HTTP server and parsed) and with a warm one (the log task's
//! usual path: no IO).
//!
//! `cargo bench -p daebug --bench sourcemap` prints a table (median and
//! p99, in microseconds).

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use daebug::sourcemap::SourceMaps;

/// Lines of each generated script, and mappings per line (a bundler's
/// map of a mid-sized module).
const LINES: u32 = 5_000;
const PER_LINE: u32 = 8;
const COLD_RUNS: usize = 30;
const WARM_RUNS: usize = 20_000;

/// A script of `LINES` lines and its map (JSON), generated line `l`,
/// column `c` from original line `l + 3`, column `c`.
fn script_and_map(name: &str) -> (String, String) {
    let mut script = String::new();
    for l in 0..LINES {
        script.push_str(&format!("  const v{l} = f(a, b, c, d, e, g, h, {l});\n"));
    }
    script.push_str(&format!("//# sourceMappingURL={name}.js.map\n"));
    let mut builder = oxc_sourcemap::SourceMapBuilder::default();
    let src = builder.add_source_and_content("../src/app.ts", "");
    for l in 0..LINES {
        for k in 0..PER_LINE {
            builder.add_token(l, k * 5, l + 3, k * 5, Some(src), None);
        }
    }
    (script, builder.into_sourcemap().to_json_string())
}

/// Serves `files` (path → body) on a loopback port; returns the origin.
fn serve(files: Vec<(String, String)>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let n = stream.read(&mut buf).unwrap_or(0);
            let request = String::from_utf8_lossy(&buf[..n]);
            let path = request.split(' ').nth(1).unwrap_or("/");
            let body = files
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, b)| b.as_str());
            let _ = match body {
                Some(b) => write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{b}",
                    b.len()
                ),
                None => write!(
                    stream,
                    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                ),
            };
        }
    });
    origin
}

/// A stack of 10 frames across `scripts` scripts.
fn stack(origin: &str, scripts: usize) -> String {
    let mut s = String::from("Error: boom");
    for i in 0..10 {
        let line = 100 + i * 400;
        s.push_str(&format!(
            "\n    at f{i} ({origin}/dist/s{}.js:{line}:11)",
            i % scripts
        ));
    }
    s
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e6
}

fn main() {
    let (script, map) = script_and_map("s");
    let mut files = Vec::new();
    for i in 0..10 {
        let script = script.replace(
            "sourceMappingURL=s.js.map",
            &format!("sourceMappingURL=s{i}.js.map"),
        );
        files.push((format!("/dist/s{i}.js"), script));
        files.push((format!("/dist/s{i}.js.map"), map.clone()));
    }
    let origin = serve(files);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    println!(
        "source-mapping a 10-frame stack ({LINES}-line scripts, map {} KB, {} mappings each)\n",
        map.len() / 1024,
        LINES * PER_LINE
    );
    println!("| cache | scripts in the stack | median (µs) | p99 (µs) |");
    println!("|---|---:|---:|---:|");
    for scripts in [1, 10] {
        let stack = stack(&origin, scripts);
        let mut times = Vec::new();
        for _ in 0..COLD_RUNS {
            let maps = SourceMaps::new();
            let start = Instant::now();
            let unknown = maps.unknown([stack.as_str()], Instant::now());
            rt.block_on(maps.load(unknown));
            let mapped = maps.map(&stack, Instant::now());
            times.push(start.elapsed());
            assert!(mapped.contains("src/app.ts"), "{mapped}");
        }
        times.sort();
        println!(
            "| cold (fetch + parse) | {scripts} | {:.0} | {:.0} |",
            percentile(&times, 0.5),
            percentile(&times, 0.99)
        );
        let maps = SourceMaps::new();
        rt.block_on(maps.load(maps.unknown([stack.as_str()], Instant::now())));
        let mut times = Vec::with_capacity(WARM_RUNS);
        for _ in 0..WARM_RUNS {
            let start = Instant::now();
            let unknown = maps.unknown([stack.as_str()], Instant::now());
            let mapped = maps.map(&stack, Instant::now());
            times.push(start.elapsed());
            assert!(unknown.is_empty() && mapped.contains("src/app.ts"));
        }
        times.sort();
        println!(
            "| warm | {scripts} | {:.1} | {:.1} |",
            percentile(&times, 0.5),
            percentile(&times, 0.99)
        );
    }
}
