//! A Node process as a realm: what the Node loader (`daebug-node.mjs`,
//! which the hub writes into `debug/`) put under
//! `Symbol.for("daebug.node")` before the adapter started. The loader holds
//! everything that needs Node's own modules (a block compiled as the entry
//! script's code, relative imports against the working directory, the
//! hub's socket unref'd); the adapter only asks it, through the typed
//! bindings below.

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;
use web_sys::WebSocket;

#[wasm_bindgen]
extern "C" {
    /// The loader's `nodeRealm(entry)` object (`daebug-node.mjs`).
    #[derive(Clone)]
    pub type NodeRealm;
    /// `DAEBUG_NAME`, else the entry script's file name.
    #[wasm_bindgen(method, getter)]
    fn name(this: &NodeRealm) -> Option<String>;
    /// The entry script's absolute path.
    #[wasm_bindgen(method, getter)]
    fn url(this: &NodeRealm) -> Option<String>;
    #[wasm_bindgen(method, getter)]
    fn pid(this: &NodeRealm) -> Option<f64>;
    #[wasm_bindgen(method, getter)]
    fn argv(this: &NodeRealm) -> JsValue;
    /// A block's async function, compiled as the entry script's code.
    #[wasm_bindgen(method, catch)]
    fn compile(this: &NodeRealm, code: &str) -> Result<Function, JsValue>;
    /// A socket to the hub that does not keep the process alive.
    #[wasm_bindgen(method, catch)]
    fn socket(this: &NodeRealm, url: &str) -> Result<WebSocket, JsValue>;

    /// A Node timer (a browser's is a number).
    type NodeTimer;
    #[wasm_bindgen(method, catch)]
    fn unref(this: &NodeTimer) -> Result<(), JsValue>;
}

thread_local! {
    /// Whether this realm is a Node process, asked once (a job asks).
    static REALM: std::cell::OnceCell<Option<NodeRealm>> = const { std::cell::OnceCell::new() };
}

/// The loader's object, when this realm is a Node process (the loader
/// puts it in place before the adapter starts).
pub fn realm() -> Option<NodeRealm> {
    REALM.with(|r| {
        r.get_or_init(|| {
            let key: JsValue = js_sys::Symbol::for_("daebug.node").into();
            Reflect::get(&js_sys::global(), &key)
                .ok()
                .filter(JsValue::is_object)
                .map(JsCast::unchecked_into)
        })
        .clone()
    })
}

/// Who the process is, for its hello.
pub struct NodeIdentity {
    /// `DAEBUG_NAME`, else the entry script's file name.
    pub name: String,
    /// The entry script's absolute path.
    pub path: String,
    pub pid: u32,
}

pub fn identity(realm: &NodeRealm) -> NodeIdentity {
    NodeIdentity {
        name: realm.name().unwrap_or_default(),
        path: realm.url().unwrap_or_default(),
        pid: realm.pid().unwrap_or(0.0) as u32,
    }
}

/// The block's async function, compiled as the entry script's code
/// (`None` outside Node).
pub fn compile(code: &str) -> Option<Result<Function, JsValue>> {
    Some(realm()?.compile(code))
}

/// A socket to the hub that does not keep the process alive.
pub fn socket(realm: &NodeRealm, url: &str) -> Result<WebSocket, JsValue> {
    realm.socket(url)
}

/// `daebug.realm` of a process: `{ stem, kind: 'node', pid, argv }`.
pub fn describe(realm: &NodeRealm, into: &JsValue) -> Result<(), JsValue> {
    let pid = realm.pid().map_or(JsValue::UNDEFINED, JsValue::from);
    Reflect::set(into, &"pid".into(), &pid)?;
    let argv = match realm.argv().dyn_into::<Array>() {
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
    if timer.is_object() {
        let _ = timer.unchecked_ref::<NodeTimer>().unref();
    }
}
