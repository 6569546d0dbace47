// probes.js: `daebug.probe` and `daebug.probes` (docs/log-format.md,
// "Probes"): live functions wrapped in place, each call streamed, in plain
// JavaScript spliced into both loaders after hooks.js. `probes(kit,
// hooks)` adds what it provides to the toolkit object `kit`.
function probes(kit, hooks) {}
