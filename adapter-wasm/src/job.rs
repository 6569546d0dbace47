//! Running one job: the hub's code as the body of an async function, run
//! once, timed inside the realm, its value or thrown error rendered.
//!
//! A job is its own future: the link spawns it and does not wait, so a
//! promise that never settles blocks nothing (the hub times it out and
//! sends `cancel`, which ends the job's event window; if it settles later,
//! its result is still sent, and the hub records it as late).

use daebug_protocol::{JobError, JobId, Outcome, Value};
use js_sys::{Function, Promise, Reflect};
use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use daebug_protocol::MAX_REPLY_BYTES;

use crate::reply::{cap, Rendered};
use crate::stages::{self, Stage};
use crate::values::{cut_string, show, show_now, WalkLimits, ERROR_TEXT};

/// How a job ended, measured in the realm.
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    pub outcome: Outcome,
    pub duration_ms: u64,
}

#[wasm_bindgen]
extern "C" {
    /// The realm's high-resolution clock (pages, workers, Node ≥ 16).
    #[wasm_bindgen(catch, js_namespace = performance, js_name = now)]
    fn perf_now() -> Result<f64, JsValue>;
}

thread_local! {
    /// The `AsyncFunction` constructor, found once.
    static ASYNC_FUNCTION: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Milliseconds from the realm's high-resolution clock (`performance.now`
/// where there is one).
fn now() -> f64 {
    perf_now().unwrap_or_else(|_| js_sys::Date::now())
}

/// The `AsyncFunction` constructor.
fn async_function() -> Result<Function, JsValue> {
    if let Some(f) = ASYNC_FUNCTION.with(|f| f.borrow().clone()) {
        return Ok(f);
    }
    let sample = js_sys::eval("(async function () {})")?;
    let f: Function = Reflect::get(&sample, &"constructor".into())?.dyn_into()?;
    ASYNC_FUNCTION.with(|c| *c.borrow_mut() = Some(f.clone()));
    Ok(f)
}

/// Runs `code` once and renders what it returned or threw, within the
/// limits of its fence options `depth=N` and `full`.
pub async fn run(code: &str, depth: Option<u32>, full: bool) -> Ran {
    run_seen(JobId(0), code, depth, full, &|_| {}).await
}

/// [`run`], showing the value to `seen` first, before it is walked (the
/// pictures take a canvas's pixels while they are still there).
pub async fn run_seen(
    job: JobId,
    code: &str,
    depth: Option<u32>,
    full: bool,
    seen: &dyn Fn(&JsValue),
) -> Ran {
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
        stages::mark(job, Stage::Compiled);
        let promise: Promise = f.call0(&JsValue::UNDEFINED)?.dyn_into()?;
        JsFuture::from(promise).await
    }
    .await;
    let duration_ms = (now() - start).max(0.0).round() as u64;
    stages::mark(job, Stage::Ran);
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
    stages::mark(job, Stage::Rendered);
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
