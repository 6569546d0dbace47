//! What only DevTools knows, asked of the hub's browser bridge: the
//! console's `getEventListeners(target)` and `queryObjects(C)`
//! (docs/wire-protocol.md, "Inspecting"). The argument waits in the map
//! `globalThis[Symbol.for("daebug.asked")]` under the ask's number while
//! the bridge reads it through DevTools; the bridge leaves the answer in
//! `globalThis[Symbol.for("daebug.answered")]` under the same number, and
//! the hub's `inspected` says it is there (or why not). Both entries go
//! when the answer comes, so nothing of the page is kept.

use std::cell::{Cell, RefCell};

use daebug_protocol::{Inspect, InspectAnswer, InspectAsk};
use js_sys::{Function, Map, Promise, Reflect, Symbol};
use wasm_bindgen::{JsCast, JsValue};

/// How an ask reaches the hub.
pub type SendInspect = Box<dyn Fn(InspectAsk)>;

/// The asks waiting for the hub.
#[derive(Default)]
pub struct DevtoolsAsks {
    next: Cell<u32>,
    /// Each ask's number and its promise's settle functions.
    waiting: RefCell<Vec<(u32, Function, Function)>>,
    send: RefCell<Option<SendInspect>>,
}

/// The global map under `Symbol.for(key)`, made when missing.
fn map(key: &str) -> Option<Map> {
    let global: JsValue = js_sys::global().into();
    let symbol: JsValue = Symbol::for_(key).into();
    let found = Reflect::get(&global, &symbol).ok()?;
    if let Ok(m) = found.clone().dyn_into::<Map>() {
        return Some(m);
    }
    let m = Map::new();
    Reflect::set(&global, &symbol, &m).ok()?;
    Some(m)
}

impl DevtoolsAsks {
    /// Where asks go (set once the adapter runs).
    pub fn send_with(&self, send: SendInspect) {
        *self.send.borrow_mut() = Some(send);
    }

    /// `getEventListeners(x)` / `queryObjects(x)`: a promise of the
    /// console's answer, or of why there is none.
    pub fn ask(&self, what: Inspect, argument: JsValue) -> Result<JsValue, JsValue> {
        let ask = self.next.get().wrapping_add(1);
        self.next.set(ask);
        let asked = map("daebug.asked").ok_or_else(|| JsValue::from("no global object"))?;
        asked.set(&ask.into(), &argument);
        let mut settle = None;
        let promise = Promise::new(&mut |resolve, reject| settle = Some((resolve, reject)));
        if let Some((resolve, reject)) = settle {
            self.waiting.borrow_mut().push((ask, resolve, reject));
        }
        match self.send.borrow().as_ref() {
            Some(send) => send(InspectAsk { ask, what }),
            None => self.answer(InspectAnswer {
                ask,
                error: Some("this realm is not connected to the hub".into()),
            }),
        }
        Ok(promise.into())
    }

    /// The hub's answer: the bridge's result is in the page, or why not.
    pub fn answer(&self, a: InspectAnswer) {
        let found = {
            let mut waiting = self.waiting.borrow_mut();
            let i = waiting.iter().position(|(n, _, _)| *n == a.ask);
            i.map(|i| waiting.remove(i))
        };
        let Some((_, resolve, reject)) = found else {
            return;
        };
        let key = JsValue::from(a.ask);
        if let Some(asked) = map("daebug.asked") {
            asked.delete(&key);
        }
        let answered = map("daebug.answered");
        let value = answered.as_ref().map(|m| m.get(&key));
        if let Some(m) = &answered {
            m.delete(&key);
        }
        match (a.error, value) {
            (Some(why), _) => {
                let _ = reject.call1(&JsValue::UNDEFINED, &js_sys::Error::new(&why));
            }
            (None, value) => {
                let _ = resolve.call1(&JsValue::UNDEFINED, &value.unwrap_or_default());
            }
        }
    }
}
