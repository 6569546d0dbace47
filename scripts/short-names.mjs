// Shortens the names wasm-bindgen gives the adapter's imports and closure
// exports (`__wbg_addEventListener_21fd281eebba7da0`,
// `wasm_bindgen__convert__closures_____invoke__h4b82…`) to `$0`, `$1`, …,
// in the .wasm and its glue alike. Their hashes are random hex that gzip
// cannot shrink, written twice (the .wasm's import and the glue's key):
// about 4 KB of the adapter's gzipped size (docs/architecture.md, "The adapter's budget"). The import
// module (`./daebug_adapter_bg.js`, once per import) becomes `a`. Run by
// scripts/build-adapter.sh on wasm-bindgen's output; deterministic, so the
// committed copy still matches a rebuild. The glue's doc comments (the
// Rust exports' `///`, copied) go too: they are read in the Rust source,
// and were some 400 bytes of the gzipped budget.
//
//   node scripts/short-names.mjs OUT_DIR
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
const wasmPath = join(dir, "daebug_adapter_bg.wasm");
const jsPath = join(dir, "daebug_adapter.js");
const wasm = readFileSync(wasmPath);
let js = readFileSync(jsPath, "utf8");
const MODULE = "./daebug_adapter_bg.js";

let at = 0;
const u32 = () => {
  let n = 0, shift = 0, b;
  do {
    b = wasm[at++];
    n |= (b & 0x7f) << shift;
    shift += 7;
  } while (b & 0x80);
  return n >>> 0;
};
const leb = (n) => {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return Buffer.from(out);
};
const name = () => {
  const len = u32();
  const s = wasm.toString("utf8", at, at + len);
  at += len;
  return s;
};
const str = (s) => Buffer.concat([leb(Buffer.byteLength(s)), Buffer.from(s)]);
const limits = () => {
  const flags = wasm[at++];
  u32();
  if (flags & 1) u32();
};

const renames = new Map();
const short = (old) => {
  if (!renames.has(old)) renames.set(old, "$" + renames.size.toString(36));
  return renames.get(old);
};
// A closure export's name carries a hash; the others (`start`, `memory`,
// `__wbindgen_malloc`…) are read by name and stay.
const hashed = /_h[0-9a-f]{16}$/;

const parts = [wasm.subarray(0, 8)];
at = 8;
while (at < wasm.length) {
  const id = wasm[at++];
  const size = u32();
  const start = at;
  const end = at + size;
  if (id === 2 || id === 7) {
    const out = [];
    const count = u32();
    out.push(leb(count));
    for (let i = 0; i < count; i++) {
      if (id === 2) {
        const module = name();
        const field = name();
        const descStart = at;
        const kind = wasm[at++];
        if (kind === 0 || kind === 4) {
          if (kind === 4) at++;
          u32();
        } else if (kind === 1) {
          at++;
          limits();
        } else if (kind === 2) limits();
        else if (kind === 3) at += 2;
        else throw new Error("unknown import kind " + kind);
        const ours = module === MODULE;
        out.push(str(ours ? "a" : module), str(ours ? short(field) : field));
        out.push(wasm.subarray(descStart, at));
      } else {
        const field = name();
        const descStart = at;
        at++;
        u32();
        out.push(str(hashed.test(field) ? short(field) : field), wasm.subarray(descStart, at));
      }
    }
    if (at !== end) throw new Error("section " + id + " not read whole");
    const body = Buffer.concat(out);
    parts.push(Buffer.from([id]), leb(body.length), body);
  } else {
    parts.push(wasm.subarray(start - 1 - leb(size).length, end));
  }
  at = end;
}

// Each old name is unique (hashed, or a whole wasm-bindgen intrinsic's), so
// replacing it where it stands as a whole word changes only it.
for (const [old, to] of renames) {
  const re = new RegExp("\\b" + old.replace(/\$/g, "\\$") + "\\b", "g");
  if (!re.test(js)) throw new Error("the glue never names " + old);
  js = js.replace(re, () => to);
}
const moduleKey = JSON.stringify(MODULE) + ":";
if (!js.includes(moduleKey)) throw new Error("the glue has no " + moduleKey);
js = js.replace(moduleKey, '"a":');
js = js.replace(/^[ \t]*\/\*\*[\s\S]*?\*\/\n/gm, "");
writeFileSync(wasmPath, Buffer.concat(parts));
writeFileSync(jsPath, js);
