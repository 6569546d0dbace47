//! Dialogs never freeze the agent: while the page is attached to the hub,
//! `alert`, `confirm` and `prompt` return at once and are recorded
//! (`Text dialog`). Answers: `alert` → nothing, `confirm` → `true`,
//! `prompt` → its default value (`""` without one), unless a block queued
//! others with `daebug.dialogs.answer(value)` (one answer per `confirm` or
//! `prompt`; `alert` takes none). Detached (the hub is away), the browser's
//! own dialogs show; `daebug.js?dialogs=native` keeps them always.
//!
//! [`Dialogs`] is a RAII object: installing it replaces the three
//! functions and adds `dialogs` to the toolkit (`toolkit.rs`); dropping it
//! puts the originals back (unless someone replaced them again since).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use daebug_protocol::{BackgroundEvent, EventType, Level};
use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::browser_lines::{dialog, prompt_answer};
use crate::capture::{now_ms, Shared};

/// The functions replaced.
const KINDS: [&str; 3] = ["alert", "confirm", "prompt"];

/// A replacement dialog function: (message, default) → answer.
type DialogFn = Closure<dyn FnMut(JsValue, JsValue) -> JsValue>;

/// Installed dialogs; see the module docs.
pub struct Dialogs {
    global: JsValue,
    /// Each function's original and the replacement put in its place.
    replaced: Vec<(&'static str, JsValue, DialogFn)>,
    /// The toolkit object it added `dialogs` to.
    toolkit: Object,
    _answer: Closure<dyn FnMut(JsValue) -> JsValue>,
}

/// `String(value)`, as the browser shows a dialog's message (`42`,
/// `[object Object]`); `""` for undefined or a value whose conversion
/// throws.
fn string_of(value: &JsValue) -> String {
    if value.is_undefined() {
        return String::new();
    }
    if let Some(s) = value.as_string() {
        return s;
    }
    let global: JsValue = js_sys::global().into();
    Reflect::get(&global, &"String".into())
        .and_then(|f| f.dyn_into::<Function>())
        .and_then(|f| f.call1(&JsValue::UNDEFINED, value))
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_default()
}

impl Dialogs {
    /// Replaces the global scope's dialogs (a worker has none: `None`).
    /// `attached` says whether the hub is there to see them.
    pub fn install(buffer: Shared, attached: Rc<Cell<bool>>, toolkit: &Object) -> Option<Dialogs> {
        let global: JsValue = js_sys::global().into();
        if !Reflect::get(&global, &"confirm".into()).ok()?.is_function() {
            return None;
        }
        let queue: Rc<RefCell<Vec<JsValue>>> = Rc::default();
        let mut replaced = Vec::new();
        for kind in KINDS {
            let original = Reflect::get(&global, &kind.into()).ok()?;
            let (queue, buffer, attached) = (queue.clone(), buffer.clone(), attached.clone());
            let native = original.clone();
            let f: DialogFn = Closure::new(move |message: JsValue, default: JsValue| {
                if !attached.get() {
                    // With the arguments the page gave: `alert()` is not
                    // `alert(undefined)`, which shows "undefined".
                    let native: &Function = native.unchecked_ref();
                    let this = &JsValue::UNDEFINED;
                    let shown = match (message.is_undefined(), default.is_undefined()) {
                        (true, true) => native.call0(this),
                        (_, true) => native.call1(this, &message),
                        _ => native.call2(this, &message, &default),
                    };
                    return shown.unwrap_or(JsValue::UNDEFINED);
                }
                let text = string_of(&message);
                let default_text = (!default.is_undefined()).then(|| string_of(&default));
                let queued = || {
                    let mut q = queue.borrow_mut();
                    (!q.is_empty()).then(|| q.remove(0))
                };
                let (answer, shown) = match kind {
                    "confirm" => {
                        let yes = queued().is_none_or(|v| v.is_truthy());
                        (JsValue::from_bool(yes), Some(yes.to_string()))
                    }
                    "prompt" => {
                        let value = match queued() {
                            Some(v) if v.is_null() || v.is_undefined() || v == JsValue::FALSE => {
                                None
                            }
                            Some(v) => Some(string_of(&v)),
                            None => Some(default_text.clone().unwrap_or_default()),
                        };
                        let shown = prompt_answer(value.as_deref());
                        (value.map_or(JsValue::NULL, JsValue::from), Some(shown))
                    }
                    _ => (JsValue::UNDEFINED, None),
                };
                let line = dialog(kind, &text, default_text.as_deref(), shown.as_deref());
                let wake = buffer.try_borrow_mut().ok().and_then(|mut b| {
                    b.push(
                        BackgroundEvent {
                            kind: EventType::Browser,
                            level: Level::Log,
                            source: Some("dialog".into()),
                            ts: crate::capture::clock(),
                            message: line,
                            stack: None,
                        },
                        now_ms(),
                    );
                    b.take_wake()
                });
                crate::capture::wake_after(wake);
                answer
            });
            Reflect::set(&global, &kind.into(), f.as_ref()).ok()?;
            replaced.push((kind, original, f));
        }
        let answer = {
            let queue = queue.clone();
            Closure::<dyn FnMut(JsValue) -> JsValue>::new(move |value: JsValue| {
                queue.borrow_mut().push(value);
                JsValue::from(queue.borrow().len() as u32)
            })
        };
        let dialogs = Object::new();
        Reflect::set(&dialogs, &"answer".into(), answer.as_ref()).ok()?;
        Reflect::set(toolkit, &"dialogs".into(), &dialogs).ok()?;
        Some(Dialogs {
            global,
            replaced,
            toolkit: toolkit.clone(),
            _answer: answer,
        })
    }
}

impl Drop for Dialogs {
    fn drop(&mut self) {
        for (kind, original, f) in &self.replaced {
            let current = Reflect::get(&self.global, &(*kind).into()).unwrap_or_default();
            if Object::is(&current, f.as_ref()) {
                let _ = Reflect::set(&self.global, &(*kind).into(), original);
            }
        }
        let _ = Reflect::delete_property(&self.toolkit, &"dialogs".into());
    }
}
