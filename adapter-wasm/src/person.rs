//! The person in the loop's routing (docs/log-format.md, "Panels"): the loader's
//! `adapter-shim/person.js` puts
//! `StreamedData`, `mount`, `ask` and `pick` on the toolkit; what they tell
//! the hub goes out as [`RealmMsg::Person`], and what the hub says back
//! ([`daebug_protocol::HubMsg::Person`], a person acting in the dashboard)
//! goes to the hook `person.js` returned. The panels themselves are plain
//! JavaScript the hub serves (`daebug-panel.mjs`), loaded on first use:
//! none of it is in the `.wasm`.
//!
//! `person.js` is called once with `(t, send, url, kind)`: the toolkit,
//! a function sending JSON text to the hub, the adapter's URL and the
//! realm's kind; it returns the hook for the hub's messages.

use std::cell::RefCell;
use std::rc::Rc;

use daebug_protocol::RealmMsg;
use js_sys::{Function, Object};
use wasm_bindgen::prelude::*;

/// How a message reaches the hub (set once the adapter runs).
type Send = Rc<RefCell<Option<Box<dyn Fn(RealmMsg)>>>>;

/// See the module docs.
pub struct Person {
    hook: Function,
    send: Send,
    _send: Closure<dyn Fn(String)>,
}

impl Person {
    /// Adds the entry points to `toolkit` with `make`, the loader's
    /// `person` (`Hooks::person`); `None` when there is none, or it failed.
    pub fn install(
        make: &JsValue,
        toolkit: &Object,
        script_url: &str,
        kind: &str,
    ) -> Option<Person> {
        let send: Send = Rc::default();
        let to_hub = send.clone();
        let closure = Closure::<dyn Fn(String)>::new(move |json: String| {
            if let Some(f) = to_hub.borrow().as_ref() {
                f(RealmMsg::Person { json });
            }
        });
        let make: &Function = make.dyn_ref()?;
        // `apply`, which the adapter binds already (no `call4` import).
        let args = js_sys::Array::of4(toolkit, closure.as_ref(), &script_url.into(), &kind.into());
        let hook = make
            .apply(&JsValue::UNDEFINED, &args)
            .ok()?
            .dyn_into()
            .ok()?;
        Some(Person {
            hook,
            send,
            _send: closure,
        })
    }

    /// Where the toolkit's messages go from now on.
    pub fn send_with(&self, send: Box<dyn Fn(RealmMsg)>) {
        *self.send.borrow_mut() = Some(send);
    }

    /// The hub's message (JSON text) for the panel module.
    pub fn hub(&self, json: String) {
        let _ = self.hook.call1(&JsValue::UNDEFINED, &json.into());
    }
}
