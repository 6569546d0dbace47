//! Background capture in the realm: console calls and global errors go
//! into the [`EventBuffer`], and the page behaves as before.
//!
//! [`Capture`] is a RAII object (as in gloo): installing it attaches to the
//! loader's console wrappers (`adapter-shim/hooks.js`, put in place on the
//! loader's first line: each records, then calls the original with the
//! same `this` and arguments and returns its result), takes what they kept
//! until the adapter was ready and replays it (with the time of each call,
//! for timers), and listens to `error`, `unhandledrejection` and
//! `securitypolicyviolation` on the global scope, Window or Worker alike.
//! Dropping it detaches from the wrappers (they stay, passing calls
//! through: a reference the page took keeps working) and removes the
//! listeners. Without a loader (never so in a realm: both start the
//! adapter) nothing wraps the console, and only the global events are
//! captured.
//!
//! `log`, `info`, `warn`, `error` and `debug` are told apart by level;
//! the others name their method in the event's `source`
//! (`console.table`, …; docs/wire-protocol.md), and counters, timers and
//! groups keep their state in a [`ConsoleState`].

use daebug_protocol::text;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use daebug_protocol::{BackgroundEvent, EventType, Level};
use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::bind::{self, Event, Hooks, Listener, Phase, Record};
use crate::browser_lines::{csp, report, resource};
use crate::buffer::EventBuffer;
use crate::console::{label, table, ConsoleState, TABLE_ROWS};
use crate::reply::Rendered;
use crate::values::{cut_string, show_now, WalkLimits, ERROR_TEXT};

/// The buffer shared by the capture hooks and the link that sends it.
pub type Shared = Rc<RefCell<EventBuffer>>;

/// Console arguments are shown smaller than completion values.
const ARG_LIMITS: WalkLimits = WalkLimits {
    depth: 2,
    items: 20,
    string: 2_000,
};

thread_local! {
    /// Nesting of capture calls: a console call made while an argument is
    /// formatted (a Proxy trap that logs) is passed through, not captured,
    /// so capture can never recurse without end.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// A callback for the global scope's events.
type Callback = Closure<dyn FnMut(JsValue)>;

#[wasm_bindgen]
extern "C" {
    /// The browser's `ReportingObserver` (deprecations, interventions).
    type ReportingObserver;
    #[wasm_bindgen(constructor, catch)]
    fn new(callback: &JsValue, options: &JsValue) -> Result<ReportingObserver, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn observe(this: &ReportingObserver) -> Result<(), JsValue>;
    #[wasm_bindgen(method)]
    fn disconnect(this: &ReportingObserver);

    #[wasm_bindgen(js_namespace = globalThis, js_name = setTimeout)]
    fn set_timeout(f: &Function, ms: i32) -> JsValue;

    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// Installed capture; see the module docs.
pub struct Capture {
    global: JsValue,
    listeners: Vec<Listener>,
    /// The loader's hooks this capture is attached to, if any.
    early: Option<Hooks>,
    /// Kept alive while the wrappers may call it.
    _sink: Closure<dyn FnMut(JsValue, Array, JsValue, JsValue)>,
    /// Where the loader reports failed requests (see [`net_sink`]).
    _net: Option<NetSink>,
    /// Where the Node loader reports a process's uncaught errors and
    /// rejections (see [`node_sink`]).
    _node: Option<NodeSink>,
    /// The `ReportingObserver`, disconnected on drop.
    reports: Option<(ReportingObserver, Callback)>,
}

/// The loader calls this with the line of a request that failed or
/// answered 400 or more, or that an ended job caused (its line is
/// written in `adapter-shim/hooks.js`).
type NetSink = Closure<dyn FnMut(String)>;

/// Request lines from the loader into the buffer, as `Text network`
/// events.
fn net_sink(buffer: Shared) -> NetSink {
    Closure::new(move |line: String| guarded(|| push(&buffer, network_event(line))))
}

/// The Node loader calls this with `uncaughtException` or
/// `unhandledRejection` and what was thrown.
type NodeSink = Closure<dyn FnMut(JsValue, JsValue)>;

/// A Node process's fatal events into the buffer, as
/// `Error uncaughtException` and `Error unhandledRejection`. Sent at the
/// next tick, or at once by the loader's last word when Node would end.
fn node_sink(buffer: Shared) -> NodeSink {
    Closure::new(move |kind: JsValue, value: JsValue| {
        guarded(|| {
            let kind = kind
                .as_string()
                .unwrap_or_else(|| "uncaughtException".into());
            push(&buffer, thrown_event(kind, &value));
        })
    })
}

/// The bodies the request lines sent so far link, as `(name, text)`, for
/// debug/archive/ (docs/log-format.md, "Request bodies").
pub fn take_bodies() -> Vec<(String, String)> {
    let Some(hooks) = bind::hooks() else {
        return Vec::new();
    };
    let pair = |p: JsValue| {
        let p: Array = p.unchecked_into();
        let s = |i| p.get(i).as_string().unwrap_or_default();
        (s(0), s(1))
    };
    hooks.bodies().iter().map(pair).collect()
}

/// A job starts (`on`, with its id) or ends: the `Text network` summary
/// of the requests the loader listed for it (`None`: none, or no loader).
pub fn job_requests(on: bool, job: u64) -> Option<String> {
    bind::hooks()?
        .requests(on, job as f64)
        .ok()
        .filter(|s| !s.is_empty())
}

/// A resource that failed to load: its element's tag and URL, when the
/// `error` event's target is an element (not the global scope).
fn failed_resource(event: &Event) -> Option<String> {
    let target = event.target();
    // A script error's target is the global scope, whatever names the page
    // gave its globals (a `var tagName`).
    if js_sys::Object::is(&target, &js_sys::global()) {
        return None;
    }
    let tag = Reflect::get(&target, &"tagName".into()).ok()?.as_string()?;
    let url = ["currentSrc", "src", "href"]
        .iter()
        .filter_map(|k| Reflect::get(&target, &(*k).into()).ok()?.as_string())
        .find(|u| !u.is_empty())
        .unwrap_or_default();
    Some(resource(&tag.to_ascii_lowercase(), &url))
}

/// A `securitypolicyviolation` event as its line.
fn violation(event: &JsValue) -> String {
    let get = |k: &str| {
        Reflect::get(event, &k.into())
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    };
    csp(
        &get("effectiveDirective"),
        &get("blockedURI"),
        &get("originalPolicy"),
    )
}

/// Browser reports (deprecations, interventions) as events, with the
/// ones made before the observer existed (`buffered`).
fn observe_reports(buffer: &Shared) -> Option<(ReportingObserver, Callback)> {
    let buffer = buffer.clone();
    let callback = Closure::<dyn FnMut(JsValue)>::new(move |reports: JsValue| {
        guarded(|| {
            let Ok(reports) = reports.dyn_into::<Array>() else {
                return;
            };
            for r in reports.iter() {
                let get = |v: &JsValue, k: &str| Reflect::get(v, &k.into()).unwrap_or_default();
                let r: &Event = r.unchecked_ref();
                let body = r.body();
                let kind = r.kind().as_string().unwrap_or_default();
                let message = get(&body, "message").as_string().unwrap_or_default();
                // A call the loader wraps (a synchronous XHR) is reported
                // at the wrapper: no place is better than a wrong one.
                let at = get(&body, "sourceFile")
                    .as_string()
                    .filter(|f| !text::contains(f, "/daebug.js"))
                    .map(|f| {
                        let n = |k| get(&body, k).as_f64().map_or(0, |n| n as u64);
                        format!("{f}:{}:{}", n("lineNumber"), n("columnNumber"))
                    });
                push(
                    &buffer,
                    BackgroundEvent {
                        kind: EventType::Browser,
                        level: Level::Warn,
                        source: Some("report".into()),
                        ts: clock(),
                        message: report(&kind, &message, at.as_deref()),
                        stack: None,
                    },
                );
            }
        })
    });
    // CSP violations come as their own event, with more detail.
    let options = js_sys::Object::new();
    Reflect::set(&options, &"buffered".into(), &JsValue::TRUE).ok()?;
    let types = Array::of2(&"deprecation".into(), &"intervention".into());
    Reflect::set(&options, &"types".into(), &types).ok()?;
    // No `ReportingObserver` here (Firefox, Node): the constructor throws.
    let observer = ReportingObserver::new(callback.as_ref(), &options).ok()?;
    observer.observe().ok()?;
    Some((observer, callback))
}

/// The console's own `method`, as it was before anyone wrapped it (the
/// loader keeps them): for the adapter's own notes, which are not the
/// page's events.
pub fn original_console(method: &str) -> Option<Function> {
    let global: JsValue = js_sys::global().into();
    let from_loader = bind::hooks().and_then(|e| Reflect::get(&e.originals(), &method.into()).ok());
    from_loader
        .filter(JsValue::is_function)
        .or_else(|| {
            let console = Reflect::get(&global, &"console".into()).ok()?;
            Reflect::get(&console, &method.into()).ok()
        })
        .and_then(|f| f.dyn_into::<Function>().ok())
}

/// `"window.onerror"` in a page, `"self.onerror"` in a worker.
fn error_source(global: &JsValue) -> &'static str {
    match Reflect::has(global, &"document".into()) {
        Ok(true) => "window.onerror",
        _ => "self.onerror",
    }
}

/// The realm's local time, `HH:MM:SS`.
pub fn clock() -> String {
    let d = js_sys::Date::new_0();
    format!(
        "{:02}:{:02}:{:02}",
        d.get_hours(),
        d.get_minutes(),
        d.get_seconds()
    )
}

/// Milliseconds for the buffer's cadences.
pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// Console arguments as one message: strings as they are, anything else
/// as JSON or inspect text, separated by spaces.
pub fn message_of(args: &Array) -> String {
    let parts: Vec<String> = args
        .iter()
        .map(|a| match cut_string(&a, ARG_LIMITS.string) {
            Some((s, len)) if len > ARG_LIMITS.string => {
                format!("{s}... ({} more characters)", len - ARG_LIMITS.string)
            }
            Some((s, _)) => s,
            None => match show_now(&a, ARG_LIMITS) {
                Rendered::Json(j) => j,
                Rendered::Text(t) => t,
            },
        })
        .collect();
    text::join(&parts, " ")
}

/// What was thrown or rejected, uncaught, as an `Error <source>` event.
fn thrown_event(source: String, value: &JsValue) -> BackgroundEvent {
    let (message, stack) = thrown(value);
    BackgroundEvent {
        kind: EventType::Error,
        level: Level::Error,
        source: Some(source),
        ts: clock(),
        message,
        stack,
    }
}

/// `Name: message` and the stack of a thrown value, or its inspect text.
fn thrown(value: &JsValue) -> (String, Option<String>) {
    if value.is_instance_of::<js_sys::Error>() {
        let get = |k: &str| {
            Reflect::get(value, &k.into())
                .ok()
                .and_then(|v| cut_string(&v, ERROR_TEXT))
                .map(|(s, _)| s)
        };
        let name = get("name").unwrap_or_else(|| "Error".into());
        let message = get("message").unwrap_or_default();
        let stack = get("stack").map(|s| crate::stack::fold(&s));
        return (format!("{name}: {message}"), stack);
    }
    let text = match show_now(value, ARG_LIMITS) {
        Rendered::Json(j) => j,
        Rendered::Text(t) => t,
    };
    (text, None)
}

/// What a console call records, decided before anything is formatted.
enum Call {
    /// `log`, `info`, `warn`, `error`, `debug`: the arguments, by level.
    Plain(Level),
    /// `trace`: the arguments and the caller's stack.
    Trace,
    /// A failed `assert`: `Assertion failed: …`.
    Assert,
    Table,
    Dir,
    /// A message made already (a counter, a timer, a warning), with the
    /// method that made it (`None`: shown as a warning).
    Made(Option<&'static str>, String),
    /// `timeLog`: the timer's text, then the other arguments.
    TimeLog(String),
    /// `group` or `groupCollapsed`, whose label is the arguments.
    Group(&'static str),
}

/// What `method` called with `args` records, if anything; counters,
/// timers and groups change `state` here.
fn console_call(
    state: &mut ConsoleState,
    method: &str,
    args: &Array,
    at: Option<f64>,
) -> Option<Call> {
    let first_label = || {
        let first = args.get(0);
        label((!first.is_undefined()).then(|| message_of(&Array::of1(&first))))
    };
    let now = || {
        if let Some(at) = at {
            return at;
        }
        performance_now()
    };
    Some(match method {
        "info" => Call::Plain(Level::Info),
        "warn" => Call::Plain(Level::Warn),
        "error" => Call::Plain(Level::Error),
        "debug" => Call::Plain(Level::Debug),
        "trace" => Call::Trace,
        "assert" if args.get(0).is_truthy() => return None,
        "assert" => Call::Assert,
        "table" => Call::Table,
        "dir" => Call::Dir,
        // Not a console method: the loader's `report` for `daebug.test`'s
        // lines (the runner is JavaScript the hub serves), `Text test`.
        "test" => Call::Made(Some("test"), message_of(args)),
        // Not a console method either: the Node loader's `served` for the
        // requests a Node realm served (docs/log-format.md, "Requests a
        // Node realm serves"), `Text served`.
        "served" => Call::Made(Some("served"), message_of(args)),
        // And what a Node realm did serving a page block's request, for
        // that page's log: the hub routes it (docs/actions.md).
        "effect" => Call::Made(Some("effect"), message_of(args)),
        // And `daebug.probe`'s calls (adapter-shim/probes.js), `Text probe`.
        "probe" => Call::Made(Some("probe"), message_of(args)),
        // The page's dev server (adapter-shim/hooks.js reads its HMR
        // socket): a hot update (the hub's lifecycle line) and a build
        // error (`Error build`); docs/log-format.md, "Hot updates".
        "hot" => Call::Made(Some("hot-updated"), message_of(args)),
        "build" => Call::Made(Some("build"), message_of(args)),
        "count" => Call::Made(Some("console.count"), state.count(&first_label())),
        "countReset" => Call::Made(None, state.count_reset(&first_label())?),
        "time" => Call::Made(None, state.time(&first_label(), now())?),
        "timeLog" => Call::TimeLog(state.time_log(&first_label(), now(), false)),
        "timeEnd" => Call::Made(
            Some("console.timeEnd"),
            state.time_log(&first_label(), now(), true),
        ),
        "group" => Call::Group("console.group"),
        "groupCollapsed" => Call::Group("console.groupCollapsed"),
        "groupEnd" => {
            state.group_end();
            return None;
        }
        _ => Call::Plain(Level::Log),
    })
}

impl Call {
    /// The event, formatted (indented to the current group).
    fn event(self, state: &mut ConsoleState, args: &Array, trace: &JsValue) -> BackgroundEvent {
        let rest = || {
            let rest = args.slice(1, args.length());
            (rest.length() > 0).then(|| message_of(&rest))
        };
        let (level, source, message, stack) = match self {
            Call::Plain(level) => (level, None, message_of(args), None),
            Call::Trace => {
                let message = match args.length() {
                    0 => "console.trace".to_string(),
                    _ => message_of(args),
                };
                (
                    Level::Log,
                    Some("console.trace"),
                    message,
                    caller_stack(trace),
                )
            }
            Call::Assert => {
                let message = match rest() {
                    Some(r) => format!("Assertion failed: {r}"),
                    None => "Assertion failed".into(),
                };
                (Level::Error, Some("console.assert"), message, None)
            }
            Call::Table => (Level::Log, Some("console.table"), table_of(args), None),
            Call::Dir => (
                Level::Log,
                Some("console.dir"),
                message_of(&Array::of1(&args.get(0))),
                None,
            ),
            Call::Made(Some(source), text) => (Level::Log, Some(source), text, None),
            Call::Made(None, text) => (Level::Warn, None, text, None),
            Call::TimeLog(text) => {
                let message = match rest() {
                    Some(r) => format!("{text} {r}"),
                    None => text,
                };
                (Level::Log, Some("console.timeLog"), message, None)
            }
            Call::Group(source) => {
                let message = match args.length() {
                    0 => source.to_string(),
                    _ => message_of(args),
                };
                // The label stands at the group's own level; what follows
                // is inside it.
                let message = state.indent(&message);
                state.group();
                return BackgroundEvent {
                    kind: EventType::Console,
                    level: Level::Log,
                    source: Some(source.into()),
                    ts: clock(),
                    message,
                    stack: None,
                };
            }
        };
        BackgroundEvent {
            kind: EventType::Console,
            level,
            source: source.map(String::from),
            ts: clock(),
            message: state.indent(&message),
            stack,
        }
    }
}

/// The stack of `console.trace`'s caller: the `Error` made in the
/// wrapper, without its first line and the wrapper's own frame, and
/// without the adapter's frames.
fn caller_stack(error: &JsValue) -> Option<String> {
    let stack = Reflect::get(error, &"stack".into()).ok()?.as_string()?;
    crate::stack::caller_frames(&stack)
}

/// `console.table(data)` as a text table; anything that is not an object
/// is shown as `console.log` would.
fn table_of(args: &Array) -> String {
    let data = args.get(0);
    if !data.is_object() {
        return message_of(args);
    }
    let cell = |v: &JsValue| match v.as_string() {
        Some(s) => format!("'{}'", cut_string(v, 200).map_or(s, |(c, _)| c)),
        None => message_of(&Array::of1(v)),
    };
    let keys = js_sys::Object::keys(data.unchecked_ref::<js_sys::Object>());
    let mut rows = Vec::new();
    for key in keys.iter().take(TABLE_ROWS) {
        let index = key.as_string().unwrap_or_default();
        let value = Reflect::get(&data, &key).unwrap_or(JsValue::UNDEFINED);
        let cells = match value.is_object() && !value.is_function() {
            true => js_sys::Object::keys(value.unchecked_ref::<js_sys::Object>())
                .iter()
                .map(|k| {
                    let v = Reflect::get(&value, &k).unwrap_or(JsValue::UNDEFINED);
                    (k.as_string(), cell(&v))
                })
                .collect(),
            false => vec![(None, cell(&value))],
        };
        rows.push((index, cells));
    }
    let more = (keys.length() as usize).saturating_sub(TABLE_ROWS);
    table(&rows, more)
}

/// A `Text network` event, stamped now.
fn network_event(message: String) -> BackgroundEvent {
    crate::network::network_event(message, clock())
}

fn push(buffer: &Shared, event: BackgroundEvent) {
    // Formatting is done before this borrow, so a nested capture (from a
    // trap run while formatting) has already released it.
    let wake = match buffer.try_borrow_mut() {
        Ok(mut b) => {
            b.push(event, now_ms());
            b.take_wake()
        }
        Err(_) => None,
    };
    wake_after(wake);
}

/// Arms the tick for a batch that became pending (see
/// [`EventBuffer::take_wake`]); every capture path ends here.
pub fn wake_after(wake: Option<u64>) {
    if let Some(ms) = wake {
        WAKE.with(|w| {
            if let Some(f) = &*w.borrow() {
                // A millisecond more: a timer that fires a little early
                // would find the batch not due yet.
                crate::node::unref(&set_timeout(f, ms as i32 + 1));
            }
        });
    }
}

thread_local! {
    /// What polls the buffer (the adapter's tick), run once a batch of
    /// background events is due, rather than at the next regular tick.
    static WAKE: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Registers the adapter's tick as what a pending background event wakes.
pub fn on_pending(tick: Function) {
    WAKE.with(|w| *w.borrow_mut() = Some(tick));
}

/// Runs `f` unless a capture is already under way on this thread.
fn guarded(f: impl FnOnce()) {
    let depth = DEPTH.with(|d| d.get());
    if depth > 0 {
        return;
    }
    DEPTH.with(|d| d.set(depth + 1));
    f();
    DEPTH.with(|d| d.set(depth));
}

impl Capture {
    /// Attaches to the loader's console wrappers and listens for global
    /// errors, recording into `buffer`.
    pub fn install(buffer: Shared) -> Result<Capture, JsValue> {
        let global: JsValue = js_sys::global().into();

        let sink_buffer = buffer.clone();
        let state = RefCell::new(ConsoleState::default());
        // `at`: when the call was made, for a call the loader kept.
        let sink = Closure::<dyn FnMut(JsValue, Array, JsValue, JsValue)>::new(
            move |method: JsValue, args: Array, trace: JsValue, at: JsValue| {
                guarded(|| {
                    let method = method.as_string().unwrap_or_default();
                    let mut state = state.borrow_mut();
                    let Some(call) = console_call(&mut state, &method, &args, at.as_f64()) else {
                        return;
                    };
                    // Over the rate limit: counted, and not even formatted.
                    let admitted = sink_buffer
                        .try_borrow_mut()
                        .is_ok_and(|mut b| b.admit(now_ms()));
                    if !admitted {
                        if matches!(call, Call::Group(_)) {
                            state.group();
                        }
                        return;
                    }
                    let event = call.event(&mut state, &args, &trace);
                    let wake = sink_buffer.try_borrow_mut().ok().and_then(|mut b| {
                        b.store(event, now_ms());
                        b.take_wake()
                    });
                    wake_after(wake);
                })
            },
        );
        let early = bind::hooks();
        let mut kept = None;
        let mut net = None;
        let mut node = None;
        if let Some(early) = &early {
            let n = net_sink(buffer.clone());
            let e = node_sink(buffer.clone());
            kept = Some(early.attach(sink.as_ref(), n.as_ref(), e.as_ref())?);
            net = Some(n);
            node = Some(e);
        }

        let source = error_source(&global);
        let on_error = {
            let buffer = buffer.clone();
            Callback::new(move |event: JsValue| {
                guarded(|| {
                    let event: &Event = event.unchecked_ref();
                    if let Some(line) = failed_resource(event) {
                        return push(&buffer, network_event(line));
                    }
                    let error = event.error();
                    let (message, stack) = if error.is_undefined() || error.is_null() {
                        (event.message().as_string().unwrap_or_default(), None)
                    } else {
                        thrown(&error)
                    };
                    push(
                        &buffer,
                        BackgroundEvent {
                            kind: EventType::Error,
                            level: Level::Error,
                            source: Some(source.into()),
                            ts: clock(),
                            message,
                            stack,
                        },
                    );
                })
            })
        };
        let on_rejection = {
            let buffer = buffer.clone();
            Callback::new(move |event: JsValue| {
                guarded(|| {
                    let reason = event.unchecked_ref::<Event>().reason();
                    push(&buffer, thrown_event("unhandledrejection".into(), &reason));
                })
            })
        };
        let on_violation = {
            let buffer = buffer.clone();
            Callback::new(move |event: JsValue| {
                guarded(|| {
                    push(
                        &buffer,
                        BackgroundEvent {
                            kind: EventType::Error,
                            level: Level::Error,
                            source: Some("csp".into()),
                            ts: clock(),
                            message: violation(&event),
                            stack: None,
                        },
                    );
                })
            })
        };
        let reports = observe_reports(&buffer);
        let mut capture = Capture {
            global,
            listeners: Vec::new(),
            early,
            _sink: sink,
            _net: net,
            _node: node,
            reports,
        };
        // Capture phase: a resource's `error` does not bubble to the global
        // scope. A Node process has none to listen on (its loader hands
        // over the process's fatal events instead).
        capture.listeners = [
            ("error", on_error),
            ("unhandledrejection", on_rejection),
            ("securitypolicyviolation", on_violation),
        ]
        .into_iter()
        .filter_map(|(kind, f)| Listener::on(&capture.global, kind, Phase::Capture, f))
        .collect();
        if let Some(kept) = &kept {
            capture.replay(&buffer, kept);
        }
        Ok(capture)
    }

    /// What the loader kept before the adapter was ready, through the
    /// same paths as a live call or event, in order.
    fn replay(&self, buffer: &Shared, kept: &bind::Kept) {
        let sink: &Function = self._sink.as_ref().unchecked_ref();
        for record in kept.records().iter() {
            let record: &Record = record.unchecked_ref();
            let net = record.net();
            if let (Some(sink), true) = (&self._net, net.is_string()) {
                let f: &Function = sink.as_ref().unchecked_ref();
                let _ = f.call1(&JsValue::UNDEFINED, &net);
                continue;
            }
            let node = record.node();
            if let (Some(sink), true) = (&self._node, node.is_object()) {
                let f: &Function = sink.as_ref().unchecked_ref();
                let node: &Array = node.unchecked_ref();
                let _ = f.call2(&JsValue::UNDEFINED, &node.get(0), &node.get(1));
                continue;
            }
            let event = record.event();
            if event.is_object() {
                let kind = event.unchecked_ref::<Event>().kind().as_string();
                if let Some(l) = self
                    .listeners
                    .iter()
                    .find(|l| Some(l.kind()) == kind.as_deref())
                {
                    let _ = l.function().call1(&JsValue::UNDEFINED, &event);
                }
                continue;
            }
            let args = [record.m(), record.args(), record.trace(), record.at()];
            let _ = sink.apply(&JsValue::UNDEFINED, &args.iter().collect());
        }
        let dropped = kept.dropped() as u32;
        if let Ok(mut b) = buffer.try_borrow_mut() {
            if dropped > 0 {
                b.omit(dropped, now_ms());
            }
            b.flush_soon(now_ms());
        }
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        if let Some((observer, _)) = &self.reports {
            observer.disconnect();
        }
        // The loader's wrappers stay; they stop calling us.
        if let Some(early) = &self.early {
            early.detach();
        }
        // The listeners remove themselves (`Listener`'s drop).
    }
}
