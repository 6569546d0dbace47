// daebug.js — the tiny ES-module loader the hub serves as /daebug.js.
//
// Placeholder: the loader (fetch the adapter's wasm-bindgen glue and .wasm from
// the hub and start it in this page or worker) lands with the adapter issue.
// It stays logic-free; all behaviour lives in the Rust adapter (adapter-wasm/).
export {};
