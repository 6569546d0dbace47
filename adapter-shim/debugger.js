// debugger.js: logpoints, `monitor` and `daebug.scopes` through a debugger
// that never pauses (docs/log-format.md, "Logpoints"), in plain JavaScript
// spliced into both loaders after hooks.js. `debugging(kit, hooks)` adds
// what it provides to the toolkit object `kit`.
function debugging(kit, hooks) {}
