//! Running one job: the hub's code as the body of an async function, run
//! once, timed inside the realm, its value or thrown error rendered.
//!
//! A job is its own future: the link spawns it and does not wait, so a
//! promise that never settles blocks nothing (the hub times it out and
//! sends `cancel`, which ends the job's event window; if it settles later,
//! its result is still sent, and the hub records it as late).

use daebug_protocol::{JobError, Outcome, Value};
use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use daebug_protocol::MAX_REPLY_BYTES;

use crate::reply::{cap, Rendered};
use crate::values::{cut_string, show, show_now, WalkLimits, ERROR_TEXT};

/// How a job ended, measured in the realm.
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    pub outcome: Outcome,
    pub duration_ms: u64,
}

/// Milliseconds from the realm's high-resolution clock (`performance.now`
/// where there is one).
fn now() -> f64 {
    let perf = Reflect::get(&js_sys::global(), &"performance".into()).ok();
    perf.and_then(|p| {
        let f: Function = Reflect::get(&p, &"now".into()).ok()?.dyn_into().ok()?;
        f.call0(&p).ok()?.as_f64()
    })
    .unwrap_or_else(js_sys::Date::now)
}

/// The `AsyncFunction` constructor.
fn async_function() -> Result<Function, JsValue> {
    let sample = js_sys::eval("(async function () {})")?;
    Reflect::get(&sample, &"constructor".into())?.dyn_into()
}

/// Runs `code` once and renders what it returned or threw, within the
/// limits of its fence options `depth=N` and `full`.
pub async fn run(code: &str, depth: Option<u32>, full: bool) -> Ran {
    run_seen(code, depth, full, &|_| {}).await
}

/// [`run`], showing the value to `seen` first, before it is walked (the
/// pictures take a canvas's pixels while they are still there).
pub async fn run_seen(code: &str, depth: Option<u32>, full: bool, seen: &dyn Fn(&JsValue)) -> Ran {
    let start = now();
    let settled = async {
        // A Node process: as its entry script's code. WebKit pages: from
        // a blob script, so frames keep positions.
        let f = match crate::node::compile(code) {
            Some(made) => made?,
            None => match crate::script_cell::compile(code).await {
                Some(f) => f,
                None => {
                    let ctor = async_function()?;
                    Reflect::construct(&ctor, &js_sys::Array::of1(&code.into()))?.dyn_into()?
                }
            },
        };
        let promise: Promise = f.call0(&JsValue::UNDEFINED)?.dyn_into()?;
        JsFuture::from(promise).await
    }
    .await;
    let duration_ms = (now() - start).max(0.0).round() as u64;
    let outcome = match settled {
        Ok(value) => {
            seen(&value);
            let shown = show(&value, WalkLimits::job(depth, full)).await;
            Outcome::Ok(match cap(shown, MAX_REPLY_BYTES) {
                Rendered::Json(j) => Value::Json(j),
                Rendered::Text(t) => Value::Text(t),
            })
        }
        Err(thrown) => Outcome::Error(error_of(&thrown)),
    };
    Ran {
        outcome,
        duration_ms,
    }
}

/// A thrown value as name, message and stack (frames of the adapter
/// itself folded away). A non-Error throw is named `Uncaught`, its value
/// rendered as the message.
pub fn error_of(thrown: &JsValue) -> JobError {
    if thrown.is_instance_of::<js_sys::Error>() {
        let get = |k: &str| {
            Reflect::get(thrown, &k.into())
                .ok()
                .and_then(|v| cut_string(&v, ERROR_TEXT))
                .map(|(s, _)| s)
        };
        return JobError {
            name: get("name").unwrap_or_else(|| "Error".into()),
            message: get("message").unwrap_or_default(),
            stack: get("stack").map(|s| crate::stack::fold(&s)),
        };
    }
    let message = match show_now(thrown, WalkLimits::default()) {
        Rendered::Json(j) | Rendered::Text(j) => j,
    };
    JobError {
        name: "Uncaught".into(),
        message,
        stack: None,
    }
}
