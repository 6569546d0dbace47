// daebug-test-node.mjs: `daebug.test(spec, { filter, timeout, only })` in a
// Node realm (docs/log-format.md, "Tests in the realm"), with Node's own node:test. The hub writes it
// into debug/ beside daebug-node.mjs, which imports it on first use.
//
// The files run in this process (`run({ isolation: "none" })`), so they
// see the program's own module instances, as a block does. Node caches a
// module by URL and would not register a file's tests twice: a resolve
// hook gives each run's test files a URL of their own (`?daebug-run=N`).
import fs from "node:fs";
import module from "node:module";
import path from "node:path";
import url from "node:url";
import { Reporter, patterns } from "./daebug-test-report.mjs";

const DEFAULT_SPEC = "**/*.{test,spec}.{js,mjs,cjs,ts,mts,jsx,tsx}";
let runs = 0;
let running = false;
const fresh = new Map();

if (typeof module.registerHooks === "function") {
  module.registerHooks({
    resolve(specifier, context, next) {
      const r = next(specifier, context);
      const run = fresh.get(r.url);
      return run ? { ...r, url: `${r.url}?daebug-run=${run}` } : r;
    },
  });
}

export async function runTests(spec, options = {}, report) {
  if (running) throw new Error("daebug.test: a run is already going in this realm; await it first");
  running = true;
  const { run } = await import("node:test");
  const files = resolveSpec(spec);
  if (!files.length) {
    running = false;
    throw new Error(`daebug.test: no test files match ${JSON.stringify(spec ?? DEFAULT_SPEC)} under ${process.cwd()}`);
  }
  const n = ++runs;
  for (const f of files) fresh.set(url.pathToFileURL(f).href, n);
  // Node's in-process harness adds process listeners of its own and, its
  // stream never ending here, never takes them off: each run would leave
  // more (Node warns past ten), and the loader would read them as the
  // app's own handler of fatal errors. Those it added go when it is over.
  const watched = ["uncaughtException", "unhandledRejection", "beforeExit", "exit", "SIGINT", "SIGTERM"];
  const had = new Map(watched.map((e) => [e, new Set(process.listeners(e))]));
  const out = new Reporter(report);
  const filter = patterns(options.filter);
  // Names of the tests running, by nesting, for `suite › test` paths.
  const names = [];
  try {
    const stream = run({
      files,
      isolation: "none",
      timeout: options.timeout,
      only: !!options.only,
      testNamePatterns: filter || undefined,
    });
    // In-process, Node's stream ends only when the process would (its
    // root test ends at `beforeExit`), and a server never does: the run is
    // over once every top-level test or suite queued has ended.
    let queued = 0;
    let ended = 0;
    for await (const event of stream) {
      const d = event.data;
      if (d && d.nesting === 0 && event.type === "test:enqueue") queued++;
      if (d && d.nesting === 0 && (event.type === "test:pass" || event.type === "test:fail")) ended++;
      const over = queued > 0 && ended === queued;
      if (event.type === "test:start") names[d.nesting] = d.name;
      if (event.type !== "test:pass" && event.type !== "test:fail") continue;
      if (d.details && d.details.type === "suite") {
        if (over) break;
        continue;
      }
      const here = [...names.slice(0, d.nesting), d.name];
      // Node runs a file's tests in this process whatever the filter
      // (its in-process run takes name patterns from the command line):
      // the filter chooses which results count.
      if (filter && !filter.some((re) => re.test(here.join(" › ")))) {
        if (over) break;
        continue;
      }
      const ms = d.details ? d.details.duration_ms : 0;
      if (d.skip !== undefined) out.result(here, "skip", ms);
      else if (d.todo !== undefined) out.result(here, "todo", ms);
      else if (event.type === "test:pass") out.result(here, "pass", ms);
      else out.result(here, "fail", ms, cause(d.details && d.details.error));
      if (over) break;
    }
    return out.end();
  } finally {
    running = false;
    for (const f of files) fresh.delete(url.pathToFileURL(f).href);
    for (const [e, before] of had) {
      for (const l of process.listeners(e)) if (!before.has(l)) process.off(e, l);
    }
  }
}

// What failed: the assertion Node wrapped in its `ERR_TEST_FAILURE`.
function cause(error) {
  if (!error) return new Error("failed");
  if (error.failureType === "testTimeoutFailure") return error;
  return error.cause instanceof Error ? error.cause : error;
}

// Paths, lists and globs relative to the process's working directory.
function resolveSpec(spec) {
  const list = spec === undefined || spec === null ? [DEFAULT_SPEC] : [].concat(spec).map(String);
  const out = [];
  for (const s of list) {
    const plain = s.startsWith("file:") ? url.fileURLToPath(s) : s;
    if (/[*?{[]/.test(plain) && typeof fs.globSync === "function") {
      const found = fs.globSync(plain, { cwd: process.cwd(), exclude: (p) => /(^|[\\/])node_modules$/.test(p) });
      out.push(...found.map((p) => path.resolve(p)).sort());
    } else out.push(path.resolve(plain));
  }
  return [...new Set(out)];
}
