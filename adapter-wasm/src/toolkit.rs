//! The toolkit every block sees as `daebug` (docs/log-format.md,
//! "The toolkit"): `waitFor`, `reload`, `module`, `sleep`, `realm`,
//! `image`, `snapshot`, `screenshot` and `copy` (`pictures.rs`),
//! `listeners`, `objects` and the debugger's commands (`devtools.rs`),
//! and `dialogs` (the page's
//! `alert`, `confirm` and `prompt` answered while attached).
//!
//! The object itself is plain JavaScript (`adapter-shim/toolkit.js`, which
//! the loader carries and hands over with its hooks): kept out of the
//! `.wasm`, whose size is budgeted. Here only what needs the adapter's
//! state, behind one closure the object calls (`host`): a reload held
//! until the job's result is sent, the reply's warning for a fresh module
//! copy, the pictures' and DevTools' asks of the running job, whether the
//! hub is there for a dialog and the dialog's line for the log.
//!
//! [`Toolkit`] is a RAII object: dropping it takes the object off the
//! global object again.

use std::cell::Cell;
use std::rc::Rc;

use daebug_protocol::{BackgroundEvent, EventType, Inspect, Level};
use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::bind::Kit;
use crate::capture::{clock, now_ms, Shared};
use crate::devtools::DevtoolsAsks;
use crate::pictures::{Asked, Pictures};

/// The key the toolkit is kept under on the global object.
pub const SYMBOL_KEY: &str = "daebug.toolkit";

type Method = Closure<dyn FnMut(JsValue, JsValue, JsValue) -> Result<JsValue, JsValue>>;

/// Installed toolkit; see the module docs.
pub struct Toolkit {
    /// What `toolkit()` returned: `{ object, realm, welcomed, remove }`.
    kit: Kit,
    /// `daebug.reload()` was called during a job: the adapter reloads the
    /// page once that job's result is on the wire.
    reload: Rc<Cell<bool>>,
    _method: Method,
}

impl Toolkit {
    /// Creates the toolkit for this realm with `make`, the loader's
    /// `toolkit()` (`None` when there is none, or it failed).
    pub fn install(
        make: &JsValue,
        buffer: Shared,
        attached: Rc<Cell<bool>>,
        is_page: bool,
        node: Option<&crate::node::NodeRealm>,
        pictures: Rc<Pictures>,
        devtools: Rc<DevtoolsAsks>,
    ) -> Option<Toolkit> {
        let make: &Function = make.dyn_ref()?;
        let kind = match (node, is_page) {
            (Some(_), _) => "node",
            (None, true) => "page",
            (None, false) => "worker",
        };
        let reload = Rc::new(Cell::new(false));
        // One closure for what the object asks of the adapter (each
        // closure costs the adapter its own glue); `toolkit.js` lists
        // the numbers.
        let method: Method = {
            let reload = reload.clone();
            Closure::new(move |which: JsValue, a: JsValue, b: JsValue| {
                let which = which.as_f64().unwrap_or(0.0) as u8;
                if which == 2 {
                    let in_job = buffer.try_borrow().map_or(true, |b| b.job().is_some());
                    match in_job {
                        true => reload.set(true),
                        false => location_reload(),
                    }
                    return Ok(JsValue::UNDEFINED);
                }
                match which {
                    3 => return Ok(record(&buffer, None, a).into()),
                    10 => return Ok(attached.get().into()),
                    11 => return Ok(record(&buffer, Some("dialog".into()), a).into()),
                    12 => return Ok(record(&buffer, b.as_string(), a).into()),
                    _ => {}
                }
                let job = buffer.try_borrow().ok().and_then(|b| b.job());
                let asked = match which {
                    6 => return pictures.screenshot(job, a),
                    8 => return devtools.ask(Inspect::Listeners, a),
                    9 => return devtools.ask(Inspect::Objects, a),
                    13 => return devtools.ask(Inspect::Debugger, a),
                    14 => return devtools.ask(Inspect::Input, a),
                    5 => Asked::Snapshot,
                    7 => Asked::Copy,
                    _ => Asked::Image,
                };
                pictures.ask(job, asked, a, b)
            })
        };
        let kit: Kit = make
            .call2(&JsValue::UNDEFINED, &kind.into(), method.as_ref())
            .ok()?
            .unchecked_into();
        if let Some(n) = node {
            crate::node::describe(n, &kit.realm()).ok()?;
        }
        Some(Toolkit {
            kit,
            reload,
            _method: method,
        })
    }

    /// The `daebug` object blocks see.
    pub fn object(&self) -> js_sys::Object {
        self.kit.object()
    }

    /// Puts the dialogs in place (`?dialogs=native` does not).
    pub fn dialogs(&self) {
        self.kit.dialogs();
    }

    /// The hub welcomed this realm: `daebug.realm` names its log.
    pub fn welcomed(&self, stem: &str) {
        self.kit.welcomed(stem);
    }

    /// Whether a block asked for a reload (and forgets it).
    pub fn take_reload(&self) -> bool {
        self.reload.replace(false)
    }
}

impl Drop for Toolkit {
    fn drop(&mut self) {
        self.kit.remove();
    }
}

/// A line the toolkit gives for the log: a console warning for the running
/// job's reply (`daebug.module` imported a fresh copy; no `source`), or a
/// line of kind `source`: a dialog the adapter answered (`confirm("Sure?")
/// → true`), a logpoint's hit (the hub shows known kinds only).
fn record(buffer: &Shared, source: Option<String>, message: JsValue) -> bool {
    let (kind, level) = match source {
        Some(_) => (EventType::Browser, Level::Log),
        None => (EventType::Console, Level::Warn),
    };
    let wake = buffer.try_borrow_mut().ok().and_then(|mut b| {
        let event = BackgroundEvent {
            kind,
            level,
            source,
            ts: clock(),
            message: message.as_string().unwrap_or_default(),
            stack: None,
        };
        b.push(event, now_ms());
        b.take_wake()
    });
    crate::capture::wake_after(wake);
    true
}

/// `location.reload()`.
pub fn location_reload() {
    let location = Reflect::get(&js_sys::global(), &"location".into()).unwrap_or_default();
    if let Ok(f) = Reflect::get(&location, &"reload".into()).and_then(|f| f.dyn_into::<Function>())
    {
        let _ = f.call0(&location);
    }
}
