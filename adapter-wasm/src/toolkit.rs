//! The toolkit every block sees as `daebug` (docs/log-format.md,
//! "The toolkit"): `waitFor`, `reload`, `module`, `sleep`, `realm`,
//! `image` and `snapshot` (`pictures.rs`), and `dialogs` (added by
//! `dialogs.rs`).
//!
//! [`Toolkit`] is a RAII object: installing it creates the object, puts
//! it on the global object under `Symbol.for("daebug.toolkit")` (where the
//! hub's prepared code reads it, so blocks see it also when the page has a
//! `daebug` of its own) and as the global `daebug` when the page has none;
//! dropping it takes both away again (the global only while it is ours).
//!
//! Everything is Rust closures over the browser's own objects, no
//! JavaScript source: a page whose CSP forbids `eval` still gets the
//! object. Only `module` creates a function from source (`import()` is
//! syntax), as running a block itself does.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use daebug_protocol::{BackgroundEvent, EventType, Inspect, Level};
use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

use crate::capture::{clock, now_ms, Shared};
use crate::devtools::DevtoolsAsks;
use crate::pictures::{Asked, Pictures};
use crate::toolkit_text::{
    brief_source, fresh_copy, is_bare, loaded_as, wait_timed_out, DEFAULT_WAIT_MS,
};

/// The key the toolkit is kept under on the global object.
pub const SYMBOL_KEY: &str = "daebug.toolkit";
/// How often `waitFor` calls a function while its value is falsy.
const POLL_MS: f64 = 50.0;

type Method = Closure<dyn FnMut(JsValue, JsValue, JsValue) -> Result<JsValue, JsValue>>;

/// Installed toolkit; see the module docs.
pub struct Toolkit {
    global: JsValue,
    object: Object,
    realm: Object,
    /// `daebug.reload()` was called during a job: the adapter reloads the
    /// page once that job's result is on the wire.
    reload: Rc<Cell<bool>>,
    _method: Method,
}

fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &key.into()).unwrap_or_default()
}

fn global_get(key: &str) -> Option<JsValue> {
    Some(get(&js_sys::global(), key)).filter(|v| !v.is_undefined() && !v.is_null())
}

fn error(message: &str) -> JsValue {
    js_sys::Error::new(message).into()
}

fn now() -> f64 {
    let perf = global_get("performance");
    perf.and_then(|p| {
        get(&p, "now")
            .dyn_into::<Function>()
            .ok()?
            .call0(&p)
            .ok()?
            .as_f64()
    })
    .unwrap_or_else(js_sys::Date::now)
}

/// A method's work, boxed: one `future_to_promise` for them all (each
/// future type would instantiate it again, in an adapter kept small).
type Task = std::pin::Pin<Box<dyn std::future::Future<Output = Result<JsValue, JsValue>>>>;

fn promise(task: Task) -> JsValue {
    future_to_promise(task).into()
}

/// A promise resolved after `ms` (the realm's `setTimeout`).
fn sleep(ms: f64) -> Promise {
    Promise::new(&mut |resolve: Function, _| {
        let global = js_sys::global();
        if let Ok(set) = get(&global, "setTimeout").dyn_into::<Function>() {
            let _ = set.call2(&global, &resolve, &JsValue::from(ms.max(0.0)));
        }
    })
}

impl Toolkit {
    /// Creates the toolkit for this realm (`kind`: `page` or `worker`).
    pub fn install(
        buffer: Shared,
        is_page: bool,
        node: Option<&JsValue>,
        pictures: Rc<Pictures>,
        devtools: Rc<DevtoolsAsks>,
    ) -> Option<Toolkit> {
        let global: JsValue = js_sys::global().into();
        let object = Object::new();
        let realm = Object::new();
        let kind = match (node, is_page) {
            (Some(_), _) => "node",
            (None, true) => "page",
            (None, false) => "worker",
        };
        Reflect::set(&realm, &"stem".into(), &"".into()).ok()?;
        Reflect::set(&realm, &"kind".into(), &kind.into()).ok()?;
        match node {
            Some(n) => crate::node::describe(n, &realm).ok()?,
            None => {
                let href = global_get("location").map_or(JsValue::from(""), |l| get(&l, "href"));
                Reflect::set(&realm, &"url".into(), &href).ok()?;
            }
        }
        Reflect::set(&object, &"realm".into(), &realm).ok()?;
        let reload = Rc::new(Cell::new(false));
        // One closure for every method (each closure costs the adapter its
        // own glue), bound to each method's index with `bind`.
        let method: Method = {
            let reload = reload.clone();
            Closure::new(move |which: JsValue, a: JsValue, b: JsValue| {
                match which.as_f64().unwrap_or(0.0) as u8 {
                    0 => Ok(sleep(a.as_f64().unwrap_or(0.0)).into()),
                    1 => Ok(promise(Box::pin(wait_for(a, b)))),
                    2 => reload_page(is_page, &reload, &buffer),
                    3 => Ok(promise(Box::pin(module(a, buffer.clone())))),
                    which => {
                        let job = buffer.try_borrow().ok().and_then(|b| b.job());
                        let asked = match which {
                            6 => return pictures.screenshot(job, a),
                            8 => return devtools.ask(Inspect::Listeners, a),
                            9 => return devtools.ask(Inspect::Objects, a),
                            5 => Asked::Snapshot,
                            7 => Asked::Copy,
                            _ => Asked::Image,
                        };
                        pictures.ask(job, asked, a, b)
                    }
                }
            })
        };
        let f: &Function = method.as_ref().unchecked_ref();
        let names = [
            "sleep",
            "waitFor",
            "reload",
            "module",
            "image",
            "snapshot",
            "screenshot",
            "copy",
            "listeners",
            "objects",
        ];
        for (i, name) in names.iter().enumerate() {
            let bound = f.bind1(&JsValue::NULL, &JsValue::from(i as u8));
            Reflect::set(&object, &(*name).into(), &bound).ok()?;
        }
        let descriptor = Object::new();
        Reflect::set(&descriptor, &"value".into(), &object).ok()?;
        Reflect::set(&descriptor, &"configurable".into(), &true.into()).ok()?;
        Reflect::define_property(
            global.unchecked_ref::<Object>(),
            &js_sys::Symbol::for_(SYMBOL_KEY).into(),
            &descriptor,
        )
        .ok()?;
        // The page's own `daebug` stays; blocks reach ours through the
        // symbol.
        if !Reflect::has(&global, &"daebug".into()).unwrap_or(true) {
            let _ = Reflect::set(&global, &"daebug".into(), &object);
        }
        Some(Toolkit {
            global,
            object,
            realm,
            reload,
            _method: method,
        })
    }

    /// The object blocks see (where `dialogs` goes).
    pub fn object(&self) -> &Object {
        &self.object
    }

    /// The hub welcomed this realm: `daebug.realm` names its log.
    pub fn welcomed(&self, stem: &str) {
        let _ = Reflect::set(&self.realm, &"stem".into(), &stem.into());
        if let Some(l) = global_get("location") {
            let _ = Reflect::set(&self.realm, &"url".into(), &get(&l, "href"));
        }
    }

    /// Whether a block asked for a reload (and forgets it).
    pub fn take_reload(&self) -> bool {
        self.reload.replace(false)
    }
}

impl Drop for Toolkit {
    fn drop(&mut self) {
        let global: &Object = self.global.unchecked_ref();
        let _ = Reflect::delete_property(global, &js_sys::Symbol::for_(SYMBOL_KEY).into());
        if Object::is(&get(&self.global, "daebug"), &self.object) {
            let _ = Reflect::delete_property(global, &"daebug".into());
        }
    }
}

/// Reloads the page now, or (during a job) asks the adapter to once the
/// job's result is sent: the reply says `reloaded` and the next block
/// waits for the new document.
pub fn reload_page(
    is_page: bool,
    flag: &Rc<Cell<bool>>,
    buffer: &Shared,
) -> Result<JsValue, JsValue> {
    if !is_page {
        return Err(error(
            "daebug.reload() reloads a page; a worker goes with its page (reload that), and a Node process restarts by its own means (`node --watch`)",
        ));
    }
    let in_job = buffer.try_borrow().map_or(true, |b| b.job().is_some());
    if in_job {
        flag.set(true);
    } else {
        location_reload();
    }
    Ok("reloaded".into())
}

/// `location.reload()`.
pub fn location_reload() {
    if let Some(l) = global_get("location") {
        if let Ok(f) = get(&l, "reload").dyn_into::<Function>() {
            let _ = f.call0(&l);
        }
    }
}

/// `daebug.waitFor(selectorOrFunction, { timeout })`.
async fn wait_for(target: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let timeout = match options.is_object() {
        true => get(&options, "timeout").as_f64(),
        false => None,
    }
    .filter(|t| *t >= 0.0)
    .unwrap_or(DEFAULT_WAIT_MS as f64);
    let selector = target.as_string();
    let function = target.dyn_ref::<Function>().cloned();
    let what = match (&selector, &function) {
        (Some(_), _) => js_sys::JSON::stringify(&target)
            .map(String::from)
            .unwrap_or_default(),
        (None, Some(f)) => brief_source(&String::from(f.to_string())),
        (None, None) => {
            return Err(
                js_sys::TypeError::new("daebug.waitFor: pass a CSS selector or a function").into(),
            )
        }
    };
    let document = global_get("document");
    let observer = match (&selector, &document) {
        (Some(_), None) => {
            return Err(error(&format!(
                "waitFor({what}): a worker has no document; pass a function"
            )))
        }
        (Some(_), Some(d)) => Some(Mutations::watch(d)?),
        _ => None,
    };
    let deadline = now() + timeout;
    loop {
        let value = match (&selector, &document, &function) {
            (Some(s), Some(d), _) => {
                let query: Function = get(d, "querySelector").dyn_into()?;
                query.call1(d, &s.into())?
            }
            (_, _, Some(f)) => {
                let v = f.call0(&JsValue::UNDEFINED)?;
                match v.has_type::<Promise>() || get(&v, "then").is_function() {
                    true => JsFuture::from(Promise::resolve(&v)).await?,
                    false => v,
                }
            }
            _ => JsValue::NULL,
        };
        if value.is_truthy() {
            return Ok(value);
        }
        let left = deadline - now();
        if left <= 0.0 {
            return Err(error(&wait_timed_out(
                &what,
                selector.is_some(),
                timeout as u64,
            )));
        }
        let next = match &observer {
            Some(o) => Promise::race(&Array::of2(&o.next(), &sleep(left))),
            None => sleep(left.min(POLL_MS)),
        };
        JsFuture::from(next).await?;
    }
}

/// A `MutationObserver` on the whole document that resolves the promise
/// [`Mutations::next`] gave on the next change; disconnected on drop.
struct Mutations {
    observer: JsValue,
    waker: Rc<RefCell<Option<Function>>>,
    _callback: Closure<dyn FnMut()>,
}

impl Mutations {
    fn watch(document: &JsValue) -> Result<Mutations, JsValue> {
        let waker: Rc<RefCell<Option<Function>>> = Rc::default();
        let callback = {
            let waker = waker.clone();
            Closure::<dyn FnMut()>::new(move || {
                if let Some(wake) = waker.borrow_mut().take() {
                    let _ = wake.call0(&JsValue::UNDEFINED);
                }
            })
        };
        let ctor: Function = get(&js_sys::global(), "MutationObserver").dyn_into()?;
        let observer = Reflect::construct(&ctor, &Array::of1(callback.as_ref()))?;
        let options = Object::new();
        for key in ["childList", "subtree", "attributes", "characterData"] {
            Reflect::set(&options, &key.into(), &true.into())?;
        }
        let observe: Function = get(&observer, "observe").dyn_into()?;
        observe.call2(&observer, document, &options)?;
        Ok(Mutations {
            observer,
            waker,
            _callback: callback,
        })
    }

    fn next(&self) -> Promise {
        Promise::new(&mut |resolve, _| *self.waker.borrow_mut() = Some(resolve))
    }
}

impl Drop for Mutations {
    fn drop(&mut self) {
        if let Ok(f) = get(&self.observer, "disconnect").dyn_into::<Function>() {
            let _ = f.call0(&self.observer);
        }
    }
}

/// `daebug.module(path)`: the instance the page uses (see
/// [`loaded_as`]), or a fresh import with a warning in the reply.
async fn module(path: JsValue, buffer: Shared) -> Result<JsValue, JsValue> {
    let Some(path) = path.as_string() else {
        return Err(
            js_sys::TypeError::new("daebug.module: pass a path, like \"/src/store.js\"").into(),
        );
    };
    let (url, fresh) = match is_bare(&path) {
        // An import map's name: `import` finds what the page finds.
        true => (path.clone(), false),
        false => {
            let base = global_get("document")
                .map(|d| get(&d, "baseURI"))
                .or_else(|| global_get("location").map(|l| get(&l, "href")))
                .unwrap_or_default();
            let ctor: Function = get(&js_sys::global(), "URL").dyn_into()?;
            let resolved = Reflect::construct(&ctor, &Array::of2(&path.clone().into(), &base))?;
            let resolved = get(&resolved, "href").as_string().unwrap_or_default();
            match loaded_as(&resolved, &loaded_urls()) {
                Some(u) => (u.to_string(), false),
                None => (resolved, true),
            }
        }
    };
    if fresh {
        if let Ok(mut b) = buffer.try_borrow_mut() {
            let event = BackgroundEvent {
                kind: EventType::Console,
                level: Level::Warn,
                source: None,
                ts: clock(),
                message: fresh_copy(&path),
                stack: None,
            };
            b.push(event, now_ms());
        }
    }
    // `import()` is syntax: a function made once holds it.
    let import = match IMPORT.with(|i| i.get().cloned()) {
        Some(f) => f,
        None => {
            let f = crate::made::function("u", "return import(u)")?;
            IMPORT.with(|i| i.get_or_init(|| f.clone()).clone())
        }
    };
    JsFuture::from(Promise::resolve(
        &import.call1(&JsValue::UNDEFINED, &url.into())?,
    ))
    .await
}

thread_local! {
    static IMPORT: std::cell::OnceCell<Function> = const { std::cell::OnceCell::new() };
}

/// The URLs the realm loaded scripts from, newest first: resource timing
/// entries (not `fetch` or XHR requests), then a page's module scripts.
fn loaded_urls() -> Vec<String> {
    let mut urls = Vec::new();
    if let Some(perf) = global_get("performance") {
        let entries = get(&perf, "getEntriesByType")
            .dyn_into::<Function>()
            .and_then(|f| f.call1(&perf, &"resource".into()))
            .map(|list| Array::from(&list))
            .unwrap_or_default();
        for entry in entries.iter().rev() {
            let initiator = get(&entry, "initiatorType").as_string().unwrap_or_default();
            if initiator == "fetch" || initiator == "xmlhttprequest" || initiator == "beacon" {
                continue;
            }
            urls.extend(get(&entry, "name").as_string());
        }
    }
    if let Some(d) = global_get("document") {
        let scripts = get(&d, "querySelectorAll")
            .dyn_into::<Function>()
            .and_then(|f| f.call1(&d, &"script[type=module][src]".into()))
            .map(|list| Array::from(&list))
            .unwrap_or_default();
        for s in scripts.iter().rev() {
            urls.extend(get(&s, "src").as_string());
        }
    }
    urls
}
