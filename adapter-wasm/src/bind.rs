//! The adapter's typed bindings: the loader's hooks (`adapter-shim/hooks.js`)
//! and the few global-scope calls the adapter makes, as `#[wasm_bindgen]`
//! imports rather than string-keyed `Reflect` calls. Each is one import the
//! glue calls directly: smaller in the `.wasm` than a `Reflect::get` with its
//! key string and its `Result`, and the contract with the loader is written
//! down here, once.
//!
//! [`Listener`] is the one RAII event listener: added on creation, removed
//! on drop, in the phase it was added in.

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// What `hooks()` returns (`adapter-shim/hooks.js`): the loader's
    /// console, request and error hooks.
    #[derive(Clone)]
    pub type Hooks;
    /// The console's methods as they were before the loader wrapped them.
    #[wasm_bindgen(method, getter)]
    pub fn originals(this: &Hooks) -> JsValue;
    /// The adapter takes over: console calls to `sink`, failed requests to
    /// `net`, a Node process's fatal events to `node`; what was kept.
    #[wasm_bindgen(method, catch)]
    pub fn attach(
        this: &Hooks,
        sink: &JsValue,
        net: &JsValue,
        node: &JsValue,
    ) -> Result<Kept, JsValue>;
    #[wasm_bindgen(method)]
    pub fn detach(this: &Hooks);
    /// `pictures()` (`adapter-shim/pictures.js`): called once, it makes
    /// the pictures' functions ([`crate::pictures::Pictures`]).
    #[wasm_bindgen(method, getter)]
    pub fn pictures(this: &Hooks) -> JsValue;
    /// `values(fold)` (`adapter-shim/values.js`): called once, it makes
    /// what shows values ([`crate::values`]).
    #[wasm_bindgen(method, getter)]
    pub fn values(this: &Hooks) -> JsValue;
    /// `person(toolkit, send, url, kind)` (`adapter-shim/person.js`):
    /// called once, it puts the person's entry points on the toolkit
    /// ([`crate::person::Person`]).
    #[wasm_bindgen(method, getter)]
    pub fn person(this: &Hooks) -> JsValue;
    /// `toolkit(kind, host)` (`adapter-shim/toolkit.js`): makes and puts
    /// in place the `daebug` object ([`crate::toolkit::Toolkit`]).
    #[wasm_bindgen(method, getter)]
    pub fn toolkit(this: &Hooks) -> JsValue;

    /// What `toolkit()` returns: the object's `realm`, and how it is told
    /// of a welcome, gets its dialogs and is taken away.
    pub type Kit;
    /// The `daebug` object itself (panels, `ask` and `pick` are added to
    /// it: `person.rs`).
    #[wasm_bindgen(method, getter)]
    pub fn object(this: &Kit) -> js_sys::Object;
    #[wasm_bindgen(method, getter)]
    pub fn realm(this: &Kit) -> JsValue;
    #[wasm_bindgen(method)]
    pub fn welcomed(this: &Kit, stem: &str);
    /// Replaces the page's `alert`, `confirm` and `prompt` (until
    /// `remove`) and adds `daebug.dialogs`.
    #[wasm_bindgen(method)]
    pub fn dialogs(this: &Kit);
    #[wasm_bindgen(method)]
    pub fn remove(this: &Kit);
    /// Resolves once the request bodies being read are read (at most
    /// 300 ms): a job's summary waits for their digests. `undefined`
    /// when none is being read: nothing to wait for.
    #[wasm_bindgen(method, catch)]
    pub fn settled(this: &Hooks) -> Result<JsValue, JsValue>;
    /// A job starts (`true`, with its id: its code's frames name
    /// `daebug-cell-<id>`) or ends: the `Text network` summary of the
    /// requests it caused so far ("" when none).
    #[wasm_bindgen(method, catch)]
    pub fn requests(this: &Hooks, on: bool, job: f64) -> Result<String, JsValue>;
    /// With the loader's `?stages`: `job` reached stage `n` now
    /// ([`crate::stages`]).
    #[wasm_bindgen(method)]
    pub fn stage(this: &Hooks, job: f64, n: u32);
    /// The `[name, text]` bodies the request lines sent so far link, once.
    #[wasm_bindgen(method)]
    pub fn bodies(this: &Hooks) -> Array;

    /// What the hooks kept before the adapter attached.
    pub type Kept;
    #[wasm_bindgen(method, getter)]
    pub fn records(this: &Kept) -> Array;
    #[wasm_bindgen(method, getter)]
    pub fn dropped(this: &Kept) -> f64;

    /// One kept record: a console call (`m`, `args`, `trace`, `at`), a
    /// failed request (`net`), a global event (`event`) or a Node fatal
    /// event (`node`: `[kind, value]`).
    pub type Record;
    #[wasm_bindgen(method, getter)]
    pub fn m(this: &Record) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn args(this: &Record) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn trace(this: &Record) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn at(this: &Record) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn net(this: &Record) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn node(this: &Record) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn event(this: &Record) -> JsValue;

    /// An event's fields the capture reads (`ErrorEvent`,
    /// `PromiseRejectionEvent`, `SecurityPolicyViolationEvent`, a report).
    pub type Event;
    #[wasm_bindgen(method, getter, js_name = type)]
    pub fn kind(this: &Event) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn target(this: &Event) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn error(this: &Event) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn message(this: &Event) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn reason(this: &Event) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn body(this: &Event) -> JsValue;

    /// A socket's `message` event (a browser's or Node's).
    pub type Message;
    #[wasm_bindgen(method, getter)]
    pub fn data(this: &Message) -> JsValue;

    /// Anything with `addEventListener` (the global scope, `navigation`).
    pub type Target;
    #[wasm_bindgen(method, catch, js_name = addEventListener)]
    fn add_event_listener(
        this: &Target,
        kind: &str,
        f: &JsValue,
        capture: bool,
    ) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = removeEventListener)]
    fn remove_event_listener(
        this: &Target,
        kind: &str,
        f: &JsValue,
        capture: bool,
    ) -> Result<(), JsValue>;
}

thread_local! {
    /// The running adapter's hooks, kept at its start ([`keep_hooks`]):
    /// a job asks for them several times, each a lookup otherwise.
    static KEPT: std::cell::RefCell<Option<Hooks>> = const { std::cell::RefCell::new(None) };
}

/// The loader's hooks, when a loader put them in place
/// (`globalThis[Symbol.for("daebug.early")]`).
pub fn hooks() -> Option<Hooks> {
    if let Some(h) = KEPT.with(|k| k.borrow().clone()) {
        return Some(h);
    }
    let key: JsValue = js_sys::Symbol::for_("daebug.early").into();
    js_sys::Reflect::get(&js_sys::global(), &key)
        .ok()
        .filter(JsValue::is_object)
        .map(JsCast::unchecked_into)
}

/// The adapter started with these hooks: they are its hooks for the
/// realm's life (a loader puts them in place once, before it starts).
pub fn keep_hooks(hooks: &Hooks) {
    KEPT.with(|k| *k.borrow_mut() = Some(hooks.clone()));
}

/// Which phase a [`Listener`] listens in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before the target's own listeners: sees events that do not bubble
    /// (a resource's `error` at the global scope).
    Capture,
    /// The default phase.
    Bubble,
}

/// A listener on an event target, removed when dropped (in the phase it
/// was added in, as `removeEventListener` needs).
#[must_use = "the listener is removed when dropped"]
pub struct Listener {
    target: Target,
    kind: &'static str,
    phase: Phase,
    callback: Closure<dyn FnMut(JsValue)>,
}

impl Listener {
    /// Listens to `kind` on `target`; `None` when it has no
    /// `addEventListener` (a Node global) or it refused.
    pub fn on(
        target: &JsValue,
        kind: &'static str,
        phase: Phase,
        callback: Closure<dyn FnMut(JsValue)>,
    ) -> Option<Listener> {
        let target: Target = target.clone().unchecked_into();
        target
            .add_event_listener(kind, callback.as_ref(), phase == Phase::Capture)
            .ok()?;
        Some(Listener {
            target,
            kind,
            phase,
            callback,
        })
    }

    /// The event kind it listens to.
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// The callback, to hand it an event by hand (a replayed one).
    pub fn function(&self) -> &Function {
        self.callback.as_ref().unchecked_ref()
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.target.remove_event_listener(
            self.kind,
            self.callback.as_ref(),
            self.phase == Phase::Capture,
        );
    }
}
