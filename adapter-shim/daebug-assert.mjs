// daebug-assert.mjs: `node:assert` for pages and workers (docs/log-format.md, "Tests in the realm").
// Test files' `import assert from "node:assert"` resolves here (the hub
// rewrites the specifier in what it serves; under Vite an alias does, see
// the README). The functions and messages follow Node's: a failure is an
// `AssertionError` with `code: "ERR_ASSERTION"`, `actual`, `expected`,
// `operator`, and its message carries the expected/actual diff.
import { diff, inspect } from "./daebug-test-report.mjs";

export class AssertionError extends Error {
  constructor(options) {
    super(options.message);
    this.name = "AssertionError";
    this.code = "ERR_ASSERTION";
    this.actual = options.actual;
    this.expected = options.expected;
    this.operator = options.operator;
    this.generatedMessage = !options.given;
  }
}

function fail(given, actual, expected, operator, generated) {
  if (given instanceof Error) throw given;
  throw new AssertionError({ message: given ?? generated(), given: given !== undefined, actual, expected, operator });
}

// `1 !== 2` for one-line values, else Node's `+ actual - expected` diff.
function compared(header, actual, expected, op) {
  return () => {
    const a = inspect(actual);
    const b = inspect(expected);
    if (!a.includes("\n") && !b.includes("\n") && op) return `${header}\n\n${a} ${op} ${b}\n`;
    return `${header}\n${diff(actual, expected)}`;
  };
}

function isDeepEqual(a, b, strict, seen = new Map()) {
  if (strict ? Object.is(a, b) : a == b || (a !== a && b !== b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return !strict && typeof a !== "object" && typeof b !== "object" && a == b;
  }
  if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (Object.prototype.toString.call(a) !== Object.prototype.toString.call(b)) return false;
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  if (a instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof RegExp) return String(a) === String(b);
  if (a instanceof Error && (a.message !== b.message || a.name !== b.name)) return false;
  if (ArrayBuffer.isView(a)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !isDeepEqual(v, b.get(k), strict, seen)) return false;
    return true;
  }
  if (a instanceof Set) {
    if (a.size !== b.size) return false;
    outer: for (const v of a) {
      if (b.has(v)) continue;
      if (typeof v === "object") for (const w of b) if (isDeepEqual(v, w, strict, seen)) continue outer;
      return false;
    }
    return true;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!isDeepEqual(a[k], b[k], strict, seen)) return false;
  }
  return true;
}

// Whether `error` matches `expected` as Node's `throws` checks it: a
// class, a RegExp (on the error's text), a validation function, or an
// object whose properties must match.
function matches(error, expected, message) {
  if (expected === undefined) return;
  if (typeof expected === "function") {
    if (expected.prototype !== undefined && error instanceof expected) return;
    if (Error.isPrototypeOf(expected) || expected === Error) {
      fail(message, error, expected, "throws", () => `The error is expected to be an instance of "${expected.name}". Received "${error && error.name}"\n\nError message:\n\n${error && error.message}`);
    }
    if (expected.call({}, error) === true) return;
    fail(message, error, expected, "throws", () => `The validation function is expected to return "true". Received false\n\nCaught error:\n\n${inspect(error)}`);
  }
  if (expected instanceof RegExp) {
    if (expected.test(String(error))) return;
    fail(message, error, expected, "throws", () => `The input did not match the regular expression ${expected}. Input:\n\n${inspect(String(error))}\n`);
  }
  for (const k of Object.keys(expected)) {
    const want = expected[k];
    const got = error == null ? undefined : error[k];
    const ok = want instanceof RegExp && typeof got === "string" ? want.test(got) : isDeepEqual(got, want, true);
    if (!ok) fail(message, error, expected, "throws", compared("Expected values to be strictly deep-equal:", pick(error, expected), expected));
  }
}

function pick(error, expected) {
  const out = {};
  for (const k of Object.keys(expected)) out[k] = error == null ? undefined : error[k];
  return out;
}

const NO_ERROR = Symbol("no error");

function make(strict) {
  const equal = strict ? strictEqual : looseEqual;
  const deepEqual = strict ? deepStrictEqual : looseDeepEqual;
  const notEqual = strict ? notStrictEqual : looseNotEqual;
  const notDeepEqual = strict ? notDeepStrictEqual : looseNotDeepEqual;

  function ok(value, message) {
    if (!value) fail(message, value, true, "==", () => `The expression evaluated to a falsy value:\n\n  assert.ok(${inspect(value)})\n`);
  }
  function looseEqual(actual, expected, message) {
    if (!(actual == expected || (actual !== actual && expected !== expected)))
      fail(message, actual, expected, "==", () => `${inspect(actual)} == ${inspect(expected)}`);
  }
  function looseNotEqual(actual, expected, message) {
    if (actual == expected || (actual !== actual && expected !== expected))
      fail(message, actual, expected, "!=", () => `${inspect(actual)} != ${inspect(expected)}`);
  }
  function strictEqual(actual, expected, message) {
    if (!Object.is(actual, expected))
      fail(message, actual, expected, "strictEqual", compared("Expected values to be strictly equal:", actual, expected, "!=="));
  }
  function notStrictEqual(actual, expected, message) {
    if (Object.is(actual, expected))
      fail(message, actual, expected, "notStrictEqual", () => `Expected "actual" to be strictly unequal to: ${inspect(expected)}`);
  }
  function deepStrictEqual(actual, expected, message) {
    if (!isDeepEqual(actual, expected, true))
      fail(message, actual, expected, "deepStrictEqual", compared("Expected values to be strictly deep-equal:", actual, expected));
  }
  function notDeepStrictEqual(actual, expected, message) {
    if (isDeepEqual(actual, expected, true))
      fail(message, actual, expected, "notDeepStrictEqual", () => `Expected "actual" not to be strictly deep-equal to: ${inspect(expected)}`);
  }
  function looseDeepEqual(actual, expected, message) {
    if (!isDeepEqual(actual, expected, false))
      fail(message, actual, expected, "deepEqual", compared("Expected values to be loosely deep-equal:", actual, expected));
  }
  function looseNotDeepEqual(actual, expected, message) {
    if (isDeepEqual(actual, expected, false))
      fail(message, actual, expected, "notDeepEqual", () => `Expected "actual" not to be loosely deep-equal to: ${inspect(expected)}`);
  }
  function throws(fn, expected, message) {
    if (typeof expected === "string") [message, expected] = [expected, undefined];
    let error = NO_ERROR;
    try {
      fn();
    } catch (e) {
      error = e;
    }
    if (error === NO_ERROR) fail(message, undefined, expected, "throws", () => "Missing expected exception.");
    matches(error, expected, message);
  }
  function doesNotThrow(fn, message) {
    try {
      fn();
    } catch (e) {
      fail(typeof message === "string" ? message : undefined, e, undefined, "doesNotThrow", () => `Got unwanted exception.\nActual message: "${e && e.message}"`);
    }
  }
  async function rejects(promiseOrFn, expected, message) {
    if (typeof expected === "string") [message, expected] = [expected, undefined];
    let error = NO_ERROR;
    try {
      await (typeof promiseOrFn === "function" ? promiseOrFn() : promiseOrFn);
    } catch (e) {
      error = e;
    }
    if (error === NO_ERROR) fail(message, undefined, expected, "rejects", () => "Missing expected rejection.");
    matches(error, expected, message);
  }
  async function doesNotReject(promiseOrFn, message) {
    try {
      await (typeof promiseOrFn === "function" ? promiseOrFn() : promiseOrFn);
    } catch (e) {
      fail(typeof message === "string" ? message : undefined, e, undefined, "doesNotReject", () => `Got unwanted rejection.\nActual message: "${e && e.message}"`);
    }
  }
  function match(string, regexp, message) {
    if (typeof string !== "string" || !regexp.test(string))
      fail(message, string, regexp, "match", () => `The input did not match the regular expression ${regexp}. Input:\n\n${inspect(string)}\n`);
  }
  function doesNotMatch(string, regexp, message) {
    if (typeof string === "string" && regexp.test(string))
      fail(message, string, regexp, "doesNotMatch", () => `The input was expected to not match the regular expression ${regexp}. Input:\n\n${inspect(string)}\n`);
  }
  function failNow(message = "Failed") {
    fail(message, undefined, undefined, "fail", () => "Failed");
  }
  function ifError(value) {
    if (value !== null && value !== undefined) fail(undefined, value, null, "ifError", () => `ifError got unwanted exception: ${value && value.message !== undefined ? value.message : inspect(value)}`);
  }
  const assert = (value, message) => ok(value, message);
  Object.assign(assert, {
    ok, equal, notEqual, strictEqual, notStrictEqual, deepEqual, notDeepEqual, deepStrictEqual, notDeepStrictEqual,
    throws, doesNotThrow, rejects, doesNotReject, match, doesNotMatch, fail: failNow, ifError, AssertionError,
  });
  return assert;
}

export const strict = make(true);
const assert = make(false);
assert.strict = strict;
strict.strict = strict;

export default assert;
export const {
  ok, equal, notEqual, strictEqual, notStrictEqual, deepEqual, notDeepEqual, deepStrictEqual, notDeepStrictEqual,
  throws, doesNotThrow, rejects, doesNotReject, match, doesNotMatch, fail: failNow, ifError,
} = assert;
export { failNow as fail };
