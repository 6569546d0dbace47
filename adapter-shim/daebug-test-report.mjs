// daebug-test-report.mjs: how a test run reads in the log (docs/log-format.md, "Tests in the realm"),
// shared by the browser runner (daebug-test.mjs, served by the hub) and
// the Node one (daebug-test-node.mjs, which drives Node's own node:test):
// one line per finished test, streamed in batches, then one summary line
// and each failure with its diff and stack. Plain JavaScript with no
// imports: the adapter's WebAssembly stays small (issue 30).

// The least time between two streamed batches. A batch is one event in
// the job's region, and the adapter sends progress at most once a second:
// this only keeps a fast suite from making an event per test (a job keeps
// 50 events). It grows with the run (an eighth of the time so far), so a
// long run still makes few events.
const BATCH_MS = 250;

// The most characters one `report` call carries: the adapter keeps 2,000
// of a console argument, so a batch goes in pieces of whole lines under
// it (the hub reads pieces in a row as one `Text test` fence).
const PIECE_CHARS = 1900;

// `lines` as strings of whole lines, each under PIECE_CHARS where a line
// alone is not longer.
export function pieces(lines) {
  const out = [];
  let piece = "";
  for (const line of lines) {
    if (piece && piece.length + 1 + line.length > PIECE_CHARS) {
      out.push(piece);
      piece = "";
    }
    piece = piece ? `${piece}\n${line}` : line;
  }
  if (piece) out.push(piece);
  return out;
}

// `12 passed, 1 failed, 2 skipped (340ms)`: the exact words of docs/log-format.md, "Tests in the realm".
export function summaryLine(c) {
  return `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped (${Math.round(c.duration_ms)}ms)`;
}

// `✔ cart › adds an item (3ms)`, `✖ cart › totals (2ms)`, `﹣ … # SKIP`.
export function resultLine(path, outcome, ms) {
  const name = path.join(" › ");
  switch (outcome) {
    case "pass":
      return `✔ ${name} (${Math.round(ms)}ms)`;
    case "fail":
      return `✖ ${name} (${Math.round(ms)}ms)`;
    case "skip":
      return `﹣ ${name} # SKIP`;
    default:
      return `﹣ ${name} # TODO`;
  }
}

// A failure as the reply shows it: its line, the message (Node's and
// daebug's assertion messages carry the expected/actual diff), the stack
// without the runner's own frames.
export function failureText(f) {
  const message = f.message.replace(/^/gm, "  ");
  return f.stack ? `✖ ${f.name}\n${message}\n${f.stack}` : `✖ ${f.name}\n${message}`;
}

// Stack frames of the test files only: the runner's and assert's frames,
// and everything below the runner, are noise in a failure.
export function testFrames(stack) {
  if (typeof stack !== "string") return "";
  return stack
    .split("\n")
    .filter((l) => /^\s*at |@/.test(l))
    .filter((l) => !/daebug-(test|assert)[\w-]*\.mjs|daebug_adapter|node:internal|\(node:|\(<anonymous>\)/.test(l))
    .map((l) => l.replace(/[?&]daebug-run=\d+/, ""))
    .join("\n");
}

// Collects results and streams them through `report` (the adapter's sink
// for `Text test` lines), in batches.
export class Reporter {
  constructor(report) {
    this.report = report || (() => {});
    this.started = now();
    this.pending = [];
    this.last = this.started;
    this.timer = null;
    this.counts = { passed: 0, failed: 0, skipped: 0, todo: 0 };
    this.failures = [];
  }

  // One finished test (`outcome`: pass, fail, skip or todo).
  result(path, outcome, ms, error) {
    const key = { pass: "passed", fail: "failed", skip: "skipped", todo: "todo" }[outcome];
    this.counts[key]++;
    this.pending.push(resultLine(path, outcome, ms));
    if (outcome === "fail") {
      const failure = { name: path.join(" › "), ...describeError(error) };
      this.failures.push(failure);
    }
    this.schedule();
  }

  schedule() {
    if (this.timer) return;
    const gap = Math.max(BATCH_MS, (now() - this.started) / 8);
    const wait = Math.max(0, this.last + gap - now());
    if (wait === 0) return this.flush();
    this.timer = setTimeout(() => this.flush(), wait);
    // A Node process that is done must not wait for a batch.
    if (this.timer && typeof this.timer.unref === "function") this.timer.unref();
  }

  flush() {
    clearTimeout(this.timer);
    this.timer = null;
    this.last = now();
    for (const piece of pieces(this.pending.splice(0))) this.report(piece);
  }

  // The run is over: the rest of the lines, the summary and the
  // failures; returns the block's value.
  end() {
    const value = { ...this.counts, duration_ms: Math.round(now() - this.started), failures: this.failures };
    this.flush();
    // The summary starts a piece of its own, the failures after it.
    this.pending.push(summaryLine(value));
    for (const f of this.failures) this.pending.push(failureText(f));
    this.flush();
    return value;
  }
}

// What the value says of a failure: `{ name, message, expected?,
// actual?, diff?, stack }`.
export function describeError(e) {
  if (e === undefined || e === null || typeof e !== "object") return { message: String(e), stack: "" };
  const out = { message: `${e.name || "Error"}${e.code ? ` [${e.code}]` : ""}: ${e.message}` };
  if ("expected" in e || "actual" in e) {
    out.expected = inspect(e.expected);
    out.actual = inspect(e.actual);
  }
  out.stack = testFrames(e.stack);
  return out;
}

function now() {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}

// A value as a few readable lines, for assertion messages and diffs:
// JSON-like, keys in order, one item a line when it does not fit on one.
export function inspect(v, depth = 0, seen = new Set(), broken = false) {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "function") return `[Function${v.name ? `: ${v.name}` : " (anonymous)"}]`;
  if (typeof v === "symbol") return v.toString();
  if (v === null || typeof v !== "object") return Object.is(v, -0) ? "-0" : String(v);
  if (seen.has(v)) return "[Circular]";
  if (depth > 6) return Array.isArray(v) ? "[Array]" : "[Object]";
  if (v instanceof Date) return v.toISOString();
  if (v instanceof RegExp) return String(v);
  if (v instanceof Error) return `[${v.name}: ${v.message}]`;
  seen.add(v);
  let parts;
  let open;
  let close;
  if (Array.isArray(v)) {
    parts = v.map((x) => inspect(x, depth + 1, seen, broken));
    [open, close] = ["[", "]"];
  } else if (v instanceof Map) {
    parts = [...v].map(([k, x]) => `${inspect(k, depth + 1, seen, broken)} => ${inspect(x, depth + 1, seen, broken)}`);
    [open, close] = ["Map(" + v.size + ") {", "}"];
  } else if (v instanceof Set) {
    parts = [...v].map((x) => inspect(x, depth + 1, seen, broken));
    [open, close] = ["Set(" + v.size + ") {", "}"];
  } else {
    const ctor = v.constructor && v.constructor !== Object ? v.constructor.name + " " : "";
    parts = Object.keys(v).map((k) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${inspect(v[k], depth + 1, seen, broken)}`);
    [open, close] = [ctor + "{", "}"];
  }
  seen.delete(v);
  if (!parts.length) return open + close;
  const flat = `${open} ${parts.join(", ")} ${close}`;
  if (!broken && flat.length <= 60 && !flat.includes("\n")) return Array.isArray(v) ? `[${parts.join(", ")}]` : flat;
  return `${open}\n${parts.map((p) => "  " + p.replace(/\n/g, "\n  ") + ",").join("\n")}\n${close}`;
}

// Node's layout of a diff: `+ actual - expected`, then the lines, each
// marked `+` (only in actual), `-` (only in expected) or two spaces.
export function diff(actual, expected) {
  // One item a line, so the diff points at the item that differs.
  const a = inspect(actual, 0, new Set(), true).split("\n");
  const b = inspect(expected, 0, new Set(), true).split("\n");
  if (a.length === 1 && b.length === 1) return `+ actual - expected\n\n+ ${a[0]}\n- ${b[0]}`;
  // Longest common subsequence of lines (values are small).
  const lcs = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) out.push("  " + a[i++]), j++;
    else if (i < a.length && (j === b.length || lcs[i + 1][j] >= lcs[i][j + 1])) out.push("+ " + a[i++]);
    else out.push("- " + b[j++]);
  }
  return `+ actual - expected\n\n${out.join("\n")}`;
}

// `filter`: a string (a regular expression's source, as
// `--test-name-pattern`), a RegExp, or a list of either; a test runs when
// its full name (`suite › test`) matches one.
export function patterns(filter) {
  if (filter === undefined || filter === null || filter === "") return null;
  return [].concat(filter).map((f) => {
    if (f instanceof RegExp) return f;
    const m = /^\/(.*)\/([a-z]*)$/.exec(String(f));
    return m ? new RegExp(m[1], m[2]) : new RegExp(String(f));
  });
}
