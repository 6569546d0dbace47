// components.js: `daebug.component(el)` (docs/log-format.md, "Components"):
// the framework component that rendered an element, in plain JavaScript
// spliced into both loaders after hooks.js. `components(kit, hooks)` adds
// what it provides to the toolkit object `kit`.
function components(kit, hooks) {}
