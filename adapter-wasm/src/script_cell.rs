//! Blocks run from a classic script where `Function` code has no
//! positions. JavaScriptCore (WebKit, Safari) ignores `//# sourceURL` for
//! code made by `new Function` or `eval`, so a block's frames would read
//! `thrower@` with no line. In a page there, the block's `AsyncFunction`
//! is made by a classic `<script>` from a `blob:` URL instead: the same
//! function (global scope, sloppy mode, two header lines, so lines and
//! columns are those the hub's map expects), whose frames name the blob;
//! [`name_cells`] gives them the cell's name back before a stack leaves
//! the adapter. Workers keep `Function`: a module worker has no classic
//! scripts (`import()` of a blob is strict code, where `with` is an
//! error), so their WebKit frames stay without positions.

use daebug_protocol::text;
use std::cell::{Cell, RefCell};

use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Blob URLs of recent blocks and their cells' names, so frames of
/// functions earlier blocks defined are named too (as many as the hub
/// keeps maps of).
const REMEMBERED: usize = 64;

/// Where the blob script leaves the function, on the global object.
const CELLS: &str = "daebug.cells";

thread_local! {
    /// Whether this realm's `Function` code keeps its `sourceURL`
    /// (asked once).
    static POSITIONS_KEPT: Cell<Option<bool>> = const { Cell::new(None) };
    /// A blob script failed here (a CSP without `blob:`): not tried again.
    static BLOCKED: Cell<bool> = const { Cell::new(false) };
    static NAMES: RefCell<Vec<(String, String)>> = const { RefCell::new(Vec::new()) };
}

/// `stack` with every blob URL of a block's script replaced by that
/// block's cell name (`daebug-cell-<job>`), so the hub maps its frames.
/// JavaScriptCore adds a frame of the async function's own start (line 1
/// of the script, the header): it is dropped.
pub fn name_cells(stack: &str) -> String {
    if !text::contains(stack, "blob:") {
        return stack.to_string();
    }
    NAMES.with(|names| {
        let names = names.borrow();
        let mut out: Vec<String> = Vec::new();
        for line in stack.split('\n') {
            let known = names.iter().find(|(url, _)| text::contains(line, url));
            match known {
                Some((url, _)) if text::contains(line, &format!("{url}:1:")) => {}
                Some((url, name)) => out.push(text::replace(line, url, name)),
                None => out.push(line.to_string()),
            }
        }
        text::join(&out, "\n")
    })
}

/// Remembers that `url` holds the cell `name`.
fn remember(url: String, name: String) {
    NAMES.with(|names| {
        let mut names = names.borrow_mut();
        names.push((url, name));
        if names.len() > REMEMBERED {
            names.remove(0);
        }
    });
}

/// Whether `Function` code here names itself after its `sourceURL` in
/// `Error.stack` (V8, SpiderMonkey: yes; JavaScriptCore: no).
fn positions_kept() -> bool {
    if let Some(kept) = POSITIONS_KEPT.get() {
        return kept;
    }
    // Through `Reflect`, so a CSP without `unsafe-eval` is an error here,
    // not an exception thrown through the job.
    let probe = || -> Result<JsValue, JsValue> {
        let ctor: Function = Reflect::get(&js_sys::global(), &"Function".into())?.dyn_into()?;
        let source = JsValue::from_str("return new Error().stack\n//# sourceURL=daebug-probe");
        let f: Function = Reflect::construct(&ctor, &Array::of1(&source))?.dyn_into()?;
        f.call0(&JsValue::UNDEFINED)
    };
    let kept = probe()
        .ok()
        .and_then(|s| s.as_string())
        .is_some_and(|s| text::contains(&s, "daebug-probe"));
    POSITIONS_KEPT.set(Some(kept));
    kept
}

/// The block's `AsyncFunction` made by a blob script, when this realm
/// needs one (a page whose `Function` code loses positions) and can load
/// it; `None` otherwise (the caller makes it with the constructor).
pub async fn compile(code: &str) -> Option<Function> {
    if BLOCKED.get() || positions_kept() {
        return None;
    }
    let global = js_sys::global();
    let document = Reflect::get(&global, &"document".into()).ok()?;
    if document.is_undefined() || document.is_null() {
        return None;
    }
    // The hub names the code `daebug-cell-<job>` on its last line.
    let name = text::rsplit_once(code, "//# sourceURL=")
        .map(|(_, n)| n.trim())
        .filter(|n| {
            n.strip_prefix("daebug-cell-")
                .is_some_and(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
        })?
        .to_string();
    match load(&global, &document, code, &name).await {
        Ok(f) => f,
        Err(_) => {
            BLOCKED.set(true);
            None
        }
    }
}

/// Writes the script, loads it, takes the function it defined: an error
/// when the script could not load, `None` when it did not define the
/// function (the engine refused its syntax: the constructor reports it).
async fn load(
    global: &JsValue,
    document: &JsValue,
    code: &str,
    name: &str,
) -> Result<Option<Function>, JsValue> {
    let key = js_sys::Symbol::for_(CELLS);
    // Two lines before the body, as `AsyncFunction` puts them.
    // `name` is the hub's `daebug-cell-<digits>`: nothing to escape (and no
    // `{:?}`, whose escaping would pull Unicode tables into the `.wasm`).
    let text = format!(
        "(globalThis[Symbol.for(\"{CELLS}\")] ??= new Map()).set(\"{name}\", async function anonymous(\n) {{\n{code}\n}});\n"
    );
    let blob_ctor: Function = Reflect::get(global, &"Blob".into())?.dyn_into()?;
    let options = Object::new();
    Reflect::set(&options, &"type".into(), &"text/javascript".into())?;
    let blob = Reflect::construct(&blob_ctor, &Array::of2(&Array::of1(&text.into()), &options))?;
    let url_ctor = Reflect::get(global, &"URL".into())?;
    let create: Function = Reflect::get(&url_ctor, &"createObjectURL".into())?.dyn_into()?;
    let url = create
        .call1(&url_ctor, &blob)?
        .as_string()
        .unwrap_or_default();
    let call = |target: &JsValue, method: &str, args: &Array| -> Result<JsValue, JsValue> {
        let f: Function = Reflect::get(target, &method.into())?.dyn_into()?;
        f.apply(target, args)
    };
    let script = call(document, "createElement", &Array::of1(&"script".into()))?;
    Reflect::set(&script, &"src".into(), &url.clone().into())?;
    let loaded = Promise::new(&mut |resolve, reject| {
        let _ = Reflect::set(&script, &"onload".into(), &resolve);
        let _ = Reflect::set(&script, &"onerror".into(), &reject);
    });
    let parent = Reflect::get(document, &"head".into())
        .ok()
        .filter(|h| h.is_object())
        .or_else(|| Reflect::get(document, &"documentElement".into()).ok())
        .ok_or_else(|| JsValue::from_str("no element to load a script in"))?;
    call(&parent, "appendChild", &Array::of1(&script))?;
    let done = JsFuture::from(loaded).await;
    let _ = call(&script, "remove", &Array::new());
    let revoke: Function = Reflect::get(&url_ctor, &"revokeObjectURL".into())?.dyn_into()?;
    let _ = revoke.call1(&url_ctor, &url.clone().into());
    done?;
    let cells = Reflect::get(global, &key)?;
    if !cells.is_object() {
        return Ok(None);
    }
    let f = call(&cells, "get", &Array::of1(&name.into()))?;
    let _ = call(&cells, "delete", &Array::of1(&name.into()));
    let Ok(f) = f.dyn_into::<Function>() else {
        return Ok(None);
    };
    remember(url, name.to_string());
    Ok(Some(f))
}
