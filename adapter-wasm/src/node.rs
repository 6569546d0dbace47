//! A Node process as a realm: what the Node loader (`daebug-node.mjs`,
//! which the hub writes into `debug/`) put under
//! `Symbol.for("daebug.node")` before the adapter started. The loader holds
//! everything that needs Node's own modules (a block compiled as the entry
//! script's code, relative imports against the working directory, the
//! hub's socket unref'd); the adapter only asks it.

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::WebSocket;

/// The loader's object, when this realm is a Node process.
pub fn realm() -> Option<JsValue> {
    let key: JsValue = js_sys::Symbol::for_("daebug.node").into();
    Reflect::get(&js_sys::global(), &key)
        .ok()
        .filter(JsValue::is_object)
}

/// Who the process is, for its hello.
pub struct NodeIdentity {
    /// `DAEBUG_NAME`, else the entry script's file name.
    pub name: String,
    /// The entry script's absolute path.
    pub path: String,
    pub pid: u32,
}

pub fn identity(realm: &JsValue) -> NodeIdentity {
    let text = |k: &str| {
        Reflect::get(realm, &k.into())
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    };
    NodeIdentity {
        name: text("name"),
        path: text("url"),
        pid: Reflect::get(realm, &"pid".into())
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0) as u32,
    }
}

/// The block's async function, compiled as the entry script's code
/// (`None` outside Node).
pub fn compile(code: &str) -> Option<Result<Function, JsValue>> {
    let realm = realm()?;
    let compile: Function = Reflect::get(&realm, &"compile".into())
        .ok()?
        .dyn_into()
        .ok()?;
    Some(
        compile
            .call1(&realm, &code.into())
            .and_then(|f| f.dyn_into()),
    )
}

/// A socket to the hub that does not keep the process alive.
pub fn socket(realm: &JsValue, url: &str) -> Result<WebSocket, JsValue> {
    let open: Function = Reflect::get(realm, &"socket".into())?.dyn_into()?;
    Ok(open.call1(realm, &url.into())?.unchecked_into())
}

/// `daebug.realm` of a process: `{ stem, kind: 'node', pid, argv }`.
pub fn describe(realm: &JsValue, into: &JsValue) -> Result<(), JsValue> {
    Reflect::set(into, &"pid".into(), &Reflect::get(realm, &"pid".into())?)?;
    let argv = Reflect::get(realm, &"argv".into())?;
    let argv = match argv.dyn_into::<Array>() {
        Ok(a) => a.slice(0, a.length()),
        Err(_) => Array::new(),
    };
    Reflect::set(into, &"argv".into(), &argv)?;
    Ok(())
}

/// A Node timer does not hold the process (the adapter's ticks and
/// reconnects never keep a program that would end from ending). A
/// browser's timer id is a number: nothing to do.
pub fn unref(timer: &JsValue) {
    if let Some(f) = timer
        .is_object()
        .then(|| Reflect::get(timer, &"unref".into()).ok())
        .flatten()
        .and_then(|f| f.dyn_into::<Function>().ok())
    {
        let _ = f.call0(timer);
    }
}
