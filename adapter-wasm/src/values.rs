//! How a value is written into the log (docs/log-format.md, "Values"):
//! JSON when the whole value is plain JSON, else an inspect-style text
//! that is never `{}`. The walk (limits, cycles, never a getter run) and
//! the layout are plain JavaScript, `adapter-shim/values.js`, which the
//! loader carries: reading a JavaScript value is what JavaScript does
//! best, and kept out of the `.wasm` it leaves the budget (docs/architecture.md, "The adapter's budget").
//! Here: the limits, the stack folder it is given, and its typed binding.

use std::cell::RefCell;

use js_sys::{Function, JsString, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::reply::Rendered;

#[wasm_bindgen]
extern "C" {
    /// What `values(fold)` returns (`adapter-shim/values.js`).
    pub type Values;
    /// The value as it is now: promises show as pending. `limits` as
    /// [`WalkLimits::args`] gives them.
    #[wasm_bindgen(method, catch)]
    fn now(this: &Values, value: &JsValue, limits: &[f64]) -> Result<Shown, JsValue>;
    /// The value with its promises' states learned: a [`Shown`] at once
    /// when it holds no promise, else a promise of one.
    #[wasm_bindgen(method, catch)]
    fn later(this: &Values, value: &JsValue, limits: &[f64]) -> Result<JsValue, JsValue>;

    /// `{ json, text }`: how the value is written.
    pub type Shown;
    #[wasm_bindgen(method, getter)]
    fn json(this: &Shown) -> bool;
    #[wasm_bindgen(method, getter)]
    fn text(this: &Shown) -> String;
}

thread_local! {
    static VALUES: RefCell<Option<Values>> = const { RefCell::new(None) };
}

/// Characters kept of an error's message and stack (in values, replies
/// and events alike; `values.js` keeps the same).
pub const ERROR_TEXT: usize = 10_000;

/// Nodes one walk may visit: wide and deep values stop here instead of
/// freezing the page (100 items at each of 4 levels would be 100 million).
const BUDGET: usize = 10_000;

/// Bounds on what is walked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkLimits {
    /// Nesting levels shown below the value itself.
    pub depth: usize,
    /// Items shown per array, object, map, set or list.
    pub items: usize,
    /// Characters shown per string.
    pub string: usize,
}

impl WalkLimits {
    /// A job's limits for its fence options `depth=N` and `full`.
    pub fn job(depth: Option<u32>, full: bool) -> WalkLimits {
        let l = crate::reply::job_limits(depth, full);
        WalkLimits {
            depth: l.depth,
            items: l.items,
            string: l.string,
        }
    }

    /// The limits `values.js` takes, in order: these, the nodes one walk may
    /// visit (`full`, no item limit, may visit more) and the string bytes
    /// it may copy in all (a reply's cap: [`crate::reply::cap`] cuts the
    /// rendering exactly).
    fn args(self) -> [f64; 5] {
        let nodes = match self.items {
            usize::MAX => crate::reply::FULL_NODES,
            _ => BUDGET,
        };
        [
            self.depth as f64,
            self.items as f64,
            self.string as f64,
            nodes as f64,
            daebug_protocol::MAX_REPLY_BYTES as f64,
        ]
    }
}

impl Default for WalkLimits {
    fn default() -> WalkLimits {
        WalkLimits {
            depth: 4,
            items: 100,
            string: 10_000,
        }
    }
}

/// Takes `make`, the loader's `values` (`Hooks::values`), into use: every
/// value this realm shows from now on is shown by what it returns. Stacks
/// inside values are folded as replies' are ([`crate::stack::fold`]).
pub fn install(make: &JsValue) {
    let fold = Closure::<dyn Fn(String) -> String>::new(|s: String| crate::stack::fold(&s));
    let made = make
        .dyn_ref::<Function>()
        .and_then(|f| f.call1(&JsValue::UNDEFINED, &fold.into_js_value()).ok())
        .filter(JsValue::is_object);
    VALUES.with(|v| *v.borrow_mut() = made.map(JsCast::unchecked_into));
}

/// What is shown when no loader gave the adapter its `values.js`: never
/// so in a realm started by `daebug.js` or `daebug-node.mjs`.
fn unshown() -> Rendered {
    Rendered::Text("[not shown: the daebug loader did not give the adapter its values.js]".into())
}

fn rendered(shown: Shown) -> Rendered {
    match shown.json() {
        true => Rendered::Json(shown.text()),
        false => Rendered::Text(shown.text()),
    }
}

/// `value` as it is now, without waiting: promises show as pending (for
/// console arguments, which must be shown at once).
pub fn show_now(value: &JsValue, limits: WalkLimits) -> Rendered {
    VALUES
        .with(|v| {
            let values = v.borrow();
            let shown = values.as_ref()?.now(value, &limits.args()).ok()?;
            Some(rendered(shown))
        })
        .unwrap_or_else(unshown)
}

/// `value`, its promises' states included.
pub async fn show(value: &JsValue, limits: WalkLimits) -> Rendered {
    let later = VALUES.with(|v| {
        let values = v.borrow();
        values.as_ref()?.later(value, &limits.args()).ok()
    });
    let shown = match later.map(JsCast::dyn_into::<Promise>) {
        // A value without promises is shown at once: no turn of the
        // event loop's microtasks to wait for.
        Some(Err(shown)) => shown,
        Some(Ok(p)) => match JsFuture::from(p).await {
            Ok(shown) => shown,
            Err(_) => return unshown(),
        },
        None => return unshown(),
    };
    rendered(shown.unchecked_into())
}

/// `value`'s text when it is a string, cut to `limit` UTF-16 units inside
/// JavaScript (a 200 MB string is never copied into the module), with its
/// whole length.
pub fn cut_string(value: &JsValue, limit: usize) -> Option<(String, usize)> {
    let s = value.dyn_ref::<JsString>()?;
    let len = s.length() as usize;
    let kept = if len > limit {
        s.slice(0, limit as u32)
    } else {
        s.clone()
    };
    Some((String::from(kept), len))
}
