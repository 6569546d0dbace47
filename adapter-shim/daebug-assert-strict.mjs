// daebug-assert-strict.mjs: `node:assert/strict` for pages and workers
// (see daebug-assert.mjs): `equal` is `strictEqual`, and so on.
import { strict } from "./daebug-assert.mjs";

export default strict;
export const {
  ok, equal, notEqual, strictEqual, notStrictEqual, deepEqual, notDeepEqual, deepStrictEqual, notDeepStrictEqual,
  throws, doesNotThrow, rejects, doesNotReject, match, doesNotMatch, ifError, AssertionError,
} = strict;
export const fail = strict.fail;
export { strict };
