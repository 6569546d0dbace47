// daebug.js: connects this page or worker to the daebug hub that serves
// this file. It only loads the adapter (Rust compiled to WebAssembly) from
// next to itself and starts it; all behaviour lives in the adapter.
//   <script type="module" src="http://127.0.0.1:8302/daebug.js"></script>
//   import "http://127.0.0.1:8302/daebug.js";   // in a module worker
const started = Symbol.for("daebug.adapter");
if (!globalThis[started]) {
  globalThis[started] = import(new URL("./daebug_adapter.js", import.meta.url))
    .then(async (glue) => {
      await glue.default({ module_or_path: new URL("./daebug_adapter_bg.wasm", import.meta.url) });
      glue.start(import.meta.url);
    })
    .catch((e) => console.warn("daebug: the adapter did not start:", e));
}
