// daebug-test.mjs: `node:test` for pages and workers, and the runner
// behind `daebug.test(spec, { filter, timeout, only })` there (docs/log-format.md, "Tests in the realm").
// Test files' `import { test } from "node:test"` resolves here (the hub
// rewrites the specifier in what it serves; under Vite an alias does, see
// the README). The hub serves it; `daebug.test` imports it on first use,
// so a page that never runs tests never loads it.
//
// Registration state lives on the global object, not in this module: a
// test file that reaches this module under another URL (a dev server's
// alias, another host name for the hub) still registers with the run.
import assert from "./daebug-assert.mjs";
import { Reporter, inspect, patterns } from "./daebug-test-report.mjs";

const STATE = Symbol.for("daebug.test.state");
const state = (globalThis[STATE] ??= { collecting: null, runs: 0, running: false });

// ----- the node:test API ---------------------------------------------------

function args(name, options, fn) {
  if (typeof name === "function") [fn, options, name] = [name, {}, name.name || "<anonymous>"];
  else if (typeof name === "object" && name !== null) [fn, options, name] = [options, name, "<anonymous>"];
  if (typeof options === "function") [fn, options] = [options, {}];
  return { name: String(name ?? "<anonymous>"), options: options || {}, fn };
}

function node(kind, a, extra) {
  const opts = { ...a.options, ...extra };
  return {
    kind,
    name: a.name,
    fn: a.fn,
    skip: opts.skip,
    todo: opts.todo || (kind === "test" && typeof a.fn !== "function" && !opts.skip),
    only: !!opts.only,
    timeout: opts.timeout,
    children: [],
    hooks: { before: [], after: [], beforeEach: [], afterEach: [] },
    parent: null,
  };
}

function current() {
  const suite = state.collecting;
  if (!suite) throw new Error("daebug: node:test functions run inside `await daebug.test(spec)`, which imports the test files");
  return suite;
}

function add(n) {
  const parent = current();
  n.parent = parent;
  parent.children.push(n);
  return n;
}

function variant(kind, extra) {
  return (name, options, fn) => {
    const n = add(node(kind, args(name, options, fn), extra));
    if (kind === "suite") collectSuite(n);
    return Promise.resolve();
  };
}

// A suite's body runs now, to register its tests (an async body is
// awaited before the run starts).
function collectSuite(n) {
  if (typeof n.fn !== "function") return;
  const outer = state.collecting;
  state.collecting = n;
  try {
    const r = n.fn.call(undefined, { name: n.name });
    if (r && typeof r.then === "function") state.pending.push(r);
  } catch (e) {
    n.error = e;
  } finally {
    state.collecting = outer;
  }
}

export const test = variant("test");
test.skip = variant("test", { skip: true });
test.todo = variant("test", { todo: true });
test.only = variant("test", { only: true });
export const it = test;
export const describe = variant("suite");
describe.skip = variant("suite", { skip: true });
describe.todo = variant("suite", { todo: true });
describe.only = variant("suite", { only: true });
export const suite = describe;
test.describe = describe;
test.it = test;

function hook(kind) {
  return (fn) => {
    current().hooks[kind].push(fn);
  };
}
export const before = hook("before");
export const after = hook("after");
export const beforeEach = hook("beforeEach");
export const afterEach = hook("afterEach");

// `mock.fn`, `mock.method`: calls recorded as Node's are
// (`fn.mock.calls[i].arguments`, `.result`, `.this`, `callCount()`).
export class MockTracker {
  constructor() {
    this.restores = [];
  }
  fn(original = function () {}, implementation = original) {
    let impl = implementation;
    const calls = [];
    const mocked = function (...a) {
      const call = { arguments: a, this: this, result: undefined, error: undefined, target: new.target };
      calls.push(call);
      try {
        call.result = new.target ? Reflect.construct(impl, a, new.target) : impl.apply(this, a);
        return call.result;
      } catch (e) {
        call.error = e;
        throw e;
      }
    };
    mocked.mock = {
      calls,
      callCount: () => calls.length,
      mockImplementation: (f) => (impl = f),
      resetCalls: () => (calls.length = 0),
      restore: () => (impl = original),
    };
    return mocked;
  }
  method(object, name, implementation) {
    const original = object[name];
    const mocked = this.fn(original, implementation || original);
    object[name] = mocked;
    this.restores.push(() => (object[name] = original));
    return mocked;
  }
  reset() {
    this.restoreAll();
  }
  restoreAll() {
    for (const r of this.restores.splice(0).reverse()) r();
  }
}
export const mock = new MockTracker();
test.mock = mock;
export default test;

// ----- the runner ----------------------------------------------------------

// `daebug.test(spec, options)`: imports the files `spec` names into this
// realm (each run imports them afresh: `?daebug-run=N`; the app's own
// modules stay the instances the page uses), runs what they registered,
// streams each result through `report`, and resolves with the value
// `{ passed, failed, skipped, todo, duration_ms, failures }`.
export async function runTests(spec, options = {}, report, loader = import.meta.url) {
  if (state.running) throw new Error("daebug.test: a run is already going in this realm; await it first");
  state.running = true;
  const root = node("suite", { name: "", options: {} });
  const files = await resolveSpec(spec, loader);
  const out = new Reporter(report);
  const run = ++state.runs;
  try {
    for (const url of files) {
      const file = node("suite", { name: "", options: {} });
      file.parent = root;
      root.children.push(file);
      state.collecting = file;
      state.pending = [];
      try {
        const sep = url.includes("?") ? "&" : "?";
        await import(`${url}${sep}daebug-run=${run}`);
        await Promise.all(state.pending);
      } catch (e) {
        // A file that does not load is a failure of its own, named by file.
        file.children.length = 0;
        out.result([shortName(url)], "fail", 0, e);
      } finally {
        state.collecting = null;
      }
    }
    const ctx = {
      out,
      filter: patterns(options.filter),
      only: !!options.only && hasOnly(root),
      timeout: options.timeout ?? Infinity,
    };
    await runSuite(root, [], ctx, []);
    if (!files.length) throw new Error(`daebug.test: no test files match ${JSON.stringify(spec)}`);
    return out.end();
  } finally {
    state.running = false;
    state.collecting = null;
    mock.restoreAll();
  }
}

function shortName(url) {
  try {
    return new URL(url).pathname.replace(/^\//, "");
  } catch {
    return url;
  }
}

// `spec`: a path, a list, or a glob, under the page's origin (the hub's
// root, or the dev server's URL space). Globs are listed by the hub (it
// walks its root); plain paths and URLs are taken as they are.
// `loader`: the URL `daebug.js` was loaded by, whose `?token=` the hub's
// listing needs when the hub has one.
async function resolveSpec(spec, loader) {
  const list = spec === undefined || spec === null ? ["**/*.{test,spec}.{js,mjs,ts,mts,jsx,tsx}"] : [].concat(spec);
  const base = globalThis.location ? location.origin + "/" : "/";
  const urls = [];
  for (const s of list.map(String)) {
    if (/^[a-z]+:\/\//i.test(s)) urls.push(s);
    else if (/[*?{[]/.test(s)) {
      const hub = new URL("./daebug-tests.json", loader);
      const token = new URL(loader).searchParams.get("token");
      hub.search = "";
      hub.searchParams.set("spec", s.replace(/^\.?\//, ""));
      if (token) hub.searchParams.set("token", token);
      const answer = await fetch(hub);
      if (!answer.ok) throw new Error(`daebug.test: the hub could not list ${s}: ${answer.status} ${await answer.text()}`);
      for (const path of await answer.json()) urls.push(new URL(path, base).href);
    } else urls.push(new URL(s.replace(/^\.?\//, ""), base).href);
  }
  return [...new Set(urls)];
}


function hasOnly(n) {
  return n.only || n.children.some(hasOnly);
}

function selected(n, path, ctx, onlyAbove) {
  if (ctx.only && !onlyAbove && !hasOnly(n)) return false;
  if (n.kind === "test" && ctx.filter) {
    const full = [...path, n.name].join(" › ");
    if (!ctx.filter.some((re) => re.test(full))) return false;
  }
  return true;
}

async function runSuite(s, path, ctx, eachHooks, onlyAbove = false) {
  const here = s.name ? [...path, s.name] : path;
  const inOnly = onlyAbove || s.only;
  // Under `only`, a suite with marked children runs just those.
  const marked = ctx.only && !inOnly ? s.children.filter(hasOnly) : s.children;
  const chosen = marked.filter((c) => c.kind === "suite" || selected(c, here, ctx, inOnly || c.only));
  if (s.error) return ctx.out.result(here.length ? here : ["(suite)"], "fail", 0, s.error);
  if (!chosen.length) return;
  if (s.skip || s.todo) {
    for (const c of leaves(chosen)) ctx.out.result([...here, ...c.rel], s.todo ? "todo" : "skip", 0);
    return;
  }
  const hooks = [...eachHooks, s.hooks];
  let failedHook = null;
  for (const h of s.hooks.before) failedHook ??= await attempt(h, { name: s.name }, ctx.timeout);
  for (const c of chosen) {
    if (failedHook) {
      if (c.kind === "test") ctx.out.result([...here, c.name], "fail", 0, failedHook);
      continue;
    }
    if (c.kind === "suite") await runSuite(c, here, ctx, hooks, inOnly || c.only);
    else await runTest(c, here, ctx, hooks);
  }
  for (const h of s.hooks.after) {
    const e = await attempt(h, { name: s.name }, ctx.timeout);
    if (e && !failedHook) ctx.out.result([...here, "after"], "fail", 0, e);
  }
}

// The tests under skipped or todo suites, with their paths below them.
function leaves(children, rel = []) {
  return children.flatMap((c) =>
    c.kind === "suite" ? leaves(c.children, [...rel, c.name]) : [{ rel: [...rel, c.name] }],
  );
}

async function runTest(t, path, ctx, hooks) {
  const here = [...path, t.name];
  if (t.skip) return ctx.out.result(here, "skip", 0);
  if (t.todo && typeof t.fn !== "function") return ctx.out.result(here, "todo", 0);
  const started = performance.now();
  const context = new TestContext(t, here, ctx, hooks);
  let error = null;
  for (const h of hooks) for (const b of h.beforeEach) error ??= await attempt(b, context, ctx.timeout);
  if (!error) error = await attempt(t.fn, context, t.timeout ?? ctx.timeout, true);
  // Subtests the body started and did not await are awaited now.
  await Promise.all(context.subtests);
  error ??= context.hookError;
  // `t.after`: once the test and its subtests are done.
  for (const a of context.own?.after ?? []) error ??= await attempt(a, context, ctx.timeout);
  for (const h of [...hooks].reverse()) for (const a of h.afterEach) error ??= await attempt(a, context, ctx.timeout);
  if (!error && context.failedSubtests) error = new Error(`${context.failedSubtests} subtest${context.failedSubtests > 1 ? "s" : ""} failed`);
  const ms = performance.now() - started;
  if (context.skipped) return ctx.out.result(here, "skip", ms);
  // A todo test's failure is not a failure (as in Node).
  if (t.todo || context.todoMarked) return ctx.out.result(here, "todo", ms);
  ctx.out.result(here, error ? "fail" : "pass", ms, error || undefined);
}

// Runs a test or hook function within `timeout` ms; resolves with what it
// threw (or `null`). A function of two parameters gets a `done` callback.
function attempt(fn, context, timeout, isTest = false) {
  let timer;
  const body = new Promise((resolve, reject) => {
    try {
      if (isTest && fn.length >= 2) {
        fn.call(context, context, (e) => (e ? reject(e) : resolve()));
        return;
      }
      Promise.resolve(fn.call(context, context)).then(resolve, reject);
    } catch (e) {
      reject(e);
    }
  });
  const limit =
    Number.isFinite(timeout) && timeout >= 0
      ? new Promise((_, reject) => {
          timer = setTimeout(() => reject(timedOut(timeout)), timeout);
        })
      : null;
  return (limit ? Promise.race([body, limit]) : body).then(
    () => null,
    (e) => e ?? new Error(String(e)),
  ).finally(() => clearTimeout(timer));
}

function timedOut(ms) {
  const e = new Error(`test timed out after ${ms}ms`);
  e.code = "ERR_TEST_FAILURE";
  e.failureType = "testTimeoutFailure";
  e.stack = e.message;
  return e;
}

// `t` in `test('name', (t) => …)`, as Node's TestContext.
class TestContext {
  constructor(t, path, ctx, hooks) {
    this.name = t.name;
    this.fullName = path.join(" > ");
    this.path = path;
    this.ctx = ctx;
    this.hooks = hooks;
    this.mock = new MockTracker();
    this.assert = assert;
    this.subtests = [];
    this.failedSubtests = 0;
    this.skipped = false;
    this.todoMarked = false;
    this.signal = new AbortController().signal;
  }
  test(name, options, fn) {
    const sub = node("test", args(name, options, fn));
    const ran = runSubtest(sub, this);
    this.subtests.push(ran);
    return ran;
  }
  skip() {
    this.skipped = true;
  }
  todo() {
    this.todoMarked = true;
  }
  diagnostic(message) {
    console.log(`# ${message}`);
  }
  plan() {}
  // `t.before`: once, before this test's first subtest; `t.after`: once
  // the test and its subtests are done.
  before(fn) {
    this.local().before.push(fn);
  }
  after(fn) {
    this.local().after.push(fn);
  }
  beforeEach(fn) {
    this.local().beforeEach.push(fn);
  }
  afterEach(fn) {
    this.local().afterEach.push(fn);
  }
  // Hooks of this test's subtests.
  local() {
    return (this.own ??= { before: [], after: [], beforeEach: [], afterEach: [] });
  }
}

// A subtest runs at once (after its parent's `t.before`, run once), with
// the hooks its parent had (its suites' `beforeEach`/`afterEach`) and the
// parent's own `t.beforeEach`/`t.afterEach`, as in Node; it is not
// filtered (Node runs every subtest of a test it chose).
async function runSubtest(sub, parent) {
  const own = parent.own;
  parent.beforeDone ??= (async () => {
    for (const h of own?.before ?? []) parent.hookError ??= await attempt(h, parent, parent.ctx.timeout);
  })();
  await parent.beforeDone;
  const failed = parent.ctx.out.counts.failed;
  const hooks = own ? [...parent.hooks, own] : parent.hooks;
  await runTest(sub, parent.path, { ...parent.ctx, filter: null }, hooks);
  if (parent.ctx.out.counts.failed > failed) parent.failedSubtests++;
}

export { inspect };
