//! Stacks as the log shows them, with real parts (the built hub, headless
//! Chromium): none carries daebug's own frames (its loader, glue, wasm or
//! console wrappers), and frames of page scripts with a source map name
//! the original file, line and column.

mod support;

use support::{
    base_of, log_in, serve_files, wait_for, Browser, Log, Running, TempDir, World, Write, FOOTER,
};

/// The fixture's files, as esbuild 0.24 wrote them from `src/stats.ts`
/// (`--sourcemap` and `--sourcemap=inline`).
const STATS_TS: &str = include_str!("fixtures/sourcemap/src/stats.ts");
const STATS_JS: &str = include_str!("fixtures/sourcemap/dist/stats.js");
const STATS_MAP: &str = include_str!("fixtures/sourcemap/dist/stats.js.map");
const INLINE_JS: &str = include_str!("fixtures/sourcemap/dist/inline.js");
/// `src/stats.ts` as a dev server like Vite serves it at `/src/stats.ts`:
/// compiled, with an inline map whose `sources` are relative to the
/// module (`["stats.ts"]`; esbuild 0.24, `--outfile` beside the source).
const SERVED_TS: &str = include_str!("fixtures/sourcemap/src/stats.ts.served.js");

/// A script without a map: its frames stay as the browser wrote them.
const NO_MAP_JS: &str = "export function boom() {\n  throw new Error('m3-plain');\n}\n";

const PAGE: &str = "<!doctype html><html><head><title>Stacks</title>\
<script type=module>\
import { load } from './dist/stats.js';\
import { load as loadInline } from './dist/inline.js';\
import { boom } from './nomap.js';\
window.stats = { load, loadInline, boom };\
</script></head><body>\
<script>new Worker('/worker.js', { type: 'module' })</script></body></html>";

/// A module worker with the same scripts: its log is `crunch-…`.
const WORKER: &str = "import '/daebug.js?name=crunch';
import { load } from '/dist/stats.js';
import { load as loadInline } from '/dist/inline.js';
import { boom } from '/nomap.js';
self.stats = { load, loadInline, boom };
";

fn page() -> World {
    World::new(
        &[
            ("index.html", PAGE),
            ("src/stats.ts", STATS_TS),
            ("dist/stats.js", STATS_JS),
            ("dist/stats.js.map", STATS_MAP),
            ("dist/inline.js", INLINE_JS),
            ("nomap.js", NO_MAP_JS),
            ("worker.js", WORKER),
        ],
        "index.html",
    )
}

/// The fenced text from `marker` to the fence's end.
fn fenced<'t>(text: &'t str, marker: &str) -> &'t str {
    let start = text
        .rfind(marker)
        .unwrap_or_else(|| panic!("{marker} in\n{text}"));
    let rest = &text[start..];
    &rest[..rest.find("\n```").unwrap_or(rest.len())]
}

/// No frame of daebug's own: loader, glue, wasm, bindgen wrappers.
fn assert_clean(stack: &str, whole: &str) {
    for noise in ["daebug", "wasm", "__wbg", "__wbindgen"] {
        assert!(!stack.contains(noise), "{noise} in\n{stack}\n---\n{whole}");
    }
}

#[test]
fn frames_of_scripts_with_a_source_map_name_the_original_lines() {
    let world = page();
    for log in [world.log("stacks-"), world.log("crunch-")] {
        source_mapped(&world, &log);
    }
}

fn source_mapped(world: &World, log: &Log) {
    // A map next to the script (`//# sourceMappingURL=stats.js.map`):
    // `throw` is on line 11 of stats.js, line 22 of src/stats.ts.
    let text = log.exchange(
        Write::Append,
        "\n```js\nstats.load({ label: 'm1-empty', values: [] })\n```\n",
        1,
    );
    let stack = fenced(&text, "Error: no values for m1-empty");
    assert!(
        stack.contains("at Object.load (src/stats.ts:22:11)"),
        "{text}"
    );
    assert!(stack.contains("at <cell>:1:7"), "{text}");
    assert_clean(stack, &text);

    // An inline `data:` map.
    let text = log.exchange(
        Write::Append,
        "\n```js\nstats.loadInline({ label: 'm2-empty', values: [] })\n```\n",
        1,
    );
    let stack = fenced(&text, "Error: no values for m2-empty");
    assert!(
        stack.contains("at Object.load [as loadInline] (src/stats.ts:22:11)"),
        "{text}"
    );

    // No map: the frame stays.
    let text = log.exchange(Write::Append, "\n```js\nstats.boom()\n```\n", 1);
    let stack = fenced(&text, "Error: m3-plain");
    assert!(
        stack.contains(&format!("at Object.boom ({}/nomap.js:2:9)", world.base)),
        "{text}"
    );
}

#[test]
fn no_stack_carries_daebugs_frames() {
    let world = page();
    for log in [world.log("stacks-"), world.log("crunch-")] {
        no_daebug_frames(&log);
    }
}

fn no_daebug_frames(log: &Log) {
    // Errors inside values: in an object, in an array, made in a function.
    let text = log.exchange(
        Write::Append,
        "\n```js\n({ e: new Error('m4-nested') })\n```\n",
        1,
    );
    let stack = fenced(&text, "Error: m4-nested");
    assert!(stack.contains("at <cell>:1:7"), "{text}");
    assert_clean(stack, &text);
    let text = log.exchange(
        Write::Append,
        "\n```js\nfunction make() {\n  return new Error('m5-made');\n}\n[make()]\n```\n",
        1,
    );
    let stack = fenced(&text, "Error: m5-made");
    assert!(stack.contains("at make (<cell>:2:10)"), "{text}");
    assert!(stack.contains("at <cell>:4:2"), "{text}");
    assert_clean(stack, &text);

    // Background events: during the job and after it.
    log.exchange(
        Write::Append,
        "\n```js\nconsole.error(new Error('m6-console'));\nconsole.trace('m6-trace');\nsetTimeout(() => { throw new Error('m6-timer') });\nPromise.reject(new Error('m6-rejected'));\n1\n```\n",
        1,
    );
    let text = wait_for(&log.path, "the background errors", |t| {
        t.contains("Error: m6-timer")
            && t.contains("Error: m6-rejected")
            && t.trim_end().ends_with(FOOTER)
    });
    for (marker, frame) in [
        ("Error: m6-console", "at <cell>:1:15"),
        ("m6-trace", "at <cell>:2:9"),
        ("Error: m6-timer", ":3:26"),
        ("Error: m6-rejected", ":4:16"),
    ] {
        let stack = fenced(&text, marker);
        assert!(stack.contains(frame), "{frame} for {marker}:\n{text}");
        assert_clean(stack, &text);
    }
}

/// A page of another dev server (another origin, as Vite's): its module
/// `/src/stats.ts` is compiled JavaScript with an inline map. The frame
/// names the TypeScript line, not the compiled one.
#[test]
fn a_dev_servers_typescript_module_is_mapped_cross_origin() {
    let root = TempDir::new("vite");
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    let app = serve_files(vec![
        (
            "/",
            format!(
                "<!doctype html><html><head><title>Vite</title>\
                 <script type=module src=\"{base}/daebug.js?name=vite\"></script>\
                 <script type=module>import {{ load }} from '/src/stats.ts'; window.stats = {{ load }};</script>\
                 </head><body></body></html>"
            ),
        ),
        ("/src/stats.ts", SERVED_TS.to_string()),
    ]);
    let _browser = Browser::open(&format!("{app}/"));
    let log = log_in(root.path(), "vite-");
    let text = log.exchange(
        Write::Append,
        "\n```js\nstats.load({ label: 'm7-empty', values: [] })\n```\n",
        1,
    );
    let stack = fenced(&text, "Error: no values for m7-empty");
    assert!(
        stack.contains("at Object.load (src/stats.ts:22:11)"),
        "{text}"
    );
    assert_clean(stack, &text);
}
