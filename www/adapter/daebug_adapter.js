// daebug_adapter.js — PLACEHOLDER for the adapter's wasm-bindgen glue.
//
// The adapter issue replaces this file and daebug_adapter_bg.wasm with the
// real wasm-bindgen output of adapter-wasm/. Until then the hub embeds and
// serves these stand-ins so that /daebug.js and its imports resolve and a
// page says plainly why nothing connects.

export default async function init() {}

export function start() {
  console.warn("daebug: this hub was built with a placeholder adapter");
}
