//! Pictures a block makes (docs/log-format.md, "Images"): `daebug.image`,
//! `daebug.snapshot`, and a block's value that is a canvas or an image.
//!
//! The browser does the work (`toBlob`, `convertToBlob`, SVG
//! `foreignObject`) in `adapter-shim/pictures.js`, which the loader
//! carries and hands over with its hooks: neither image code nor its
//! source in the `.wasm`, which is kept small. Here only the
//! bookkeeping: each picture belongs to the job that was running when it
//! was asked for, and the job's result waits until its pictures are
//! encoded and sent ahead of it, so a block that does not `await
//! daebug.image(…)` still has the picture in its reply.

use std::cell::{Cell, RefCell};

use daebug_protocol::{JobId, RealmImage, ScreenshotAnswer, ScreenshotAsk, MAX_IMAGE_BYTES};
use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::{future_to_promise, JsFuture};

/// The pictures of the jobs that run now.
#[derive(Default)]
pub struct Pictures {
    /// `pictures()` of `adapter-shim/pictures.js`, from the loader.
    make: JsValue,
    /// What it returned: the functions, made on first use.
    api: RefCell<Option<JsValue>>,
    /// Encodings under way, by job, in the order they were asked for;
    /// `true` when a failure is news for the reply (a value), `false` when
    /// the block got it as its promise's rejection.
    pending: RefCell<Vec<(JobId, Promise, bool)>>,
    /// Screenshots asked of the hub (`daebug.screenshot`), by job: the
    /// hub puts each in the reply itself, so the job's result only waits
    /// for its answer.
    shots: RefCell<Vec<(JobId, Promise)>>,
    /// Each ask's number and its promise's settle functions.
    asks: RefCell<Vec<(u32, Function, Function)>>,
    next_ask: Cell<u32>,
    /// Sends an ask to the hub (set once the adapter runs).
    send: RefCell<Option<SendAsk>>,
}

/// What a block asked to have saved in its reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// `daebug.image(x)`.
    Image,
    /// `daebug.snapshot(el)`.
    Snapshot,
    /// The console's `copy(x)`: the value whole, as text.
    Copy,
}

/// How an ask reaches the hub.
pub type SendAsk = Box<dyn Fn(ScreenshotAsk)>;

fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &key.into()).unwrap_or_default()
}

fn message(e: &JsValue) -> String {
    get(e, "message")
        .as_string()
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the browser could not encode it".into())
}

impl Pictures {
    /// The pictures of a realm whose loader handed over `make`, its
    /// `pictures()` (`undefined` without a loader: every ask fails).
    pub fn new(make: JsValue) -> Pictures {
        Pictures {
            make,
            ..Pictures::default()
        }
    }

    fn api(&self) -> Result<JsValue, JsValue> {
        if let Some(api) = self.api.borrow().as_ref() {
            return Ok(api.clone());
        }
        let make: &Function = self.make.dyn_ref().ok_or_else(|| {
            JsValue::from(js_sys::Error::new(
                "daebug: pictures need the daebug loader",
            ))
        })?;
        let api = make.call0(&JsValue::UNDEFINED)?;
        *self.api.borrow_mut() = Some(api.clone());
        Ok(api)
    }

    fn call(&self, f: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
        let api = self.api()?;
        let f: Function = get(&api, f).dyn_into()?;
        f.apply(&api, &args.iter().collect())
    }

    /// `daebug.image(x, { name })`, `daebug.snapshot(el)` or the console's
    /// `copy(x)` during `job`: the promise the block gets, resolved with
    /// what was sent. A wrong argument throws at once.
    pub fn ask(
        &self,
        job: Option<JobId>,
        asked: Asked,
        x: JsValue,
        options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let what = match asked {
            Asked::Image => "daebug.image()",
            Asked::Snapshot => "daebug.snapshot()",
            Asked::Copy => "copy()",
        };
        let Some(job) = job else {
            return Err(js_sys::Error::new(&format!(
                "{what} works inside a block: no block is running now (did this one time out?), so the file would have no reply to go to"
            ))
            .into());
        };
        let max = JsValue::from(MAX_IMAGE_BYTES as f64);
        let encoding: Promise = match asked {
            Asked::Snapshot => self.call("snapshot", &[x, max])?,
            Asked::Copy => self.call("copy", &[x, max])?,
            Asked::Image => {
                let name = match options.is_object() {
                    true => get(&options, "name"),
                    false => JsValue::UNDEFINED,
                };
                self.call("encode", &[x, name, max])?
            }
        }
        .dyn_into()?;
        self.pending
            .borrow_mut()
            .push((job, encoding.clone(), false));
        let api = self.api()?;
        let note = JsValue::from(format!(
            "over the {} MiB limit: not sent",
            MAX_IMAGE_BYTES >> 20
        ));
        Ok(future_to_promise(async move {
            let record = JsFuture::from(encoding).await?;
            let describe: Function = get(&api, "describe").dyn_into()?;
            describe.call2(&api, &record, &note)
        })
        .into())
    }

    /// Where asks for screenshots go.
    pub fn send_with(&self, send: SendAsk) {
        *self.send.borrow_mut() = Some(send);
    }

    /// `daebug.screenshot(selector?)` during `job`: the hub takes it
    /// through the browser bridge and answers; the promise resolves with
    /// `{label, path, width, height}` or rejects with the hub's reason.
    pub fn screenshot(&self, job: Option<JobId>, selector: JsValue) -> Result<JsValue, JsValue> {
        let Some(job) = job else {
            return Err(js_sys::Error::new(
                "daebug.screenshot() works inside a block: no block is running now (did this one time out?), so the picture would have no reply to go to",
            )
            .into());
        };
        let selector = match selector.as_string() {
            Some(s) => Some(s),
            None if selector.is_undefined() || selector.is_null() => None,
            None => {
                return Err(js_sys::TypeError::new(
                    "daebug.screenshot(selector?): the selector must be a CSS selector string (none: the whole page)",
                )
                .into())
            }
        };
        let ask = self.next_ask.get().wrapping_add(1);
        self.next_ask.set(ask);
        let mut settle = None;
        let promise = Promise::new(&mut |resolve, reject| settle = Some((resolve, reject)));
        if let Some((resolve, reject)) = settle {
            self.asks.borrow_mut().push((ask, resolve, reject));
        }
        // The job's result waits for the answer, whatever the block does
        // with the promise (one it leaves rejected is the page's
        // unhandled rejection, as any).
        self.shots.borrow_mut().push((job, promise.clone()));
        match self.send.borrow().as_ref() {
            Some(send) => send(ScreenshotAsk { job, ask, selector }),
            None => self.answer(ScreenshotAnswer {
                ask,
                path: None,
                width: 0,
                height: 0,
                error: Some("this realm is not connected to the hub".into()),
            }),
        }
        Ok(promise.into())
    }

    /// The hub's answer to a screenshot.
    pub fn answer(&self, a: ScreenshotAnswer) {
        let found = {
            let mut asks = self.asks.borrow_mut();
            let i = asks.iter().position(|(n, _, _)| *n == a.ask);
            i.map(|i| asks.remove(i))
        };
        let Some((_, resolve, reject)) = found else {
            return;
        };
        match a.path {
            Some(path) => {
                let o = js_sys::Object::new();
                let _ = Reflect::set(&o, &"label".into(), &"screenshot".into());
                let _ = Reflect::set(&o, &"path".into(), &path.into());
                let _ = Reflect::set(&o, &"width".into(), &a.width.into());
                let _ = Reflect::set(&o, &"height".into(), &a.height.into());
                let _ = resolve.call1(&JsValue::UNDEFINED, &o);
            }
            None => {
                let why = a
                    .error
                    .unwrap_or_else(|| "the hub took no screenshot".into());
                let _ = reject.call1(&JsValue::UNDEFINED, &js_sys::Error::new(&why));
            }
        }
    }

    /// A job's value: when it is a picture, it is encoded for the reply too.
    /// Called as soon as the value is there (a WebGL canvas's pixels last
    /// only until its frame is shown).
    pub fn value(&self, value: &JsValue, job: JobId) {
        // A picture is an object: a number or a string is never asked.
        if !value.is_object() {
            return;
        }
        let Ok(kind) = self.call("kind", std::slice::from_ref(value)) else {
            return;
        };
        if kind.is_null() || kind.is_undefined() {
            return;
        }
        let max = JsValue::from(MAX_IMAGE_BYTES as f64);
        let encoding = self
            .call("encode", &[value.clone(), JsValue::UNDEFINED, max])
            .and_then(|p| p.dyn_into::<Promise>())
            .unwrap_or_else(|e| Promise::reject(&e));
        self.pending.borrow_mut().push((job, encoding, true));
    }

    /// The pictures of `job`, once encoded: what to send ahead of its
    /// result. One that failed is left out when the block got the error,
    /// and sent as a note when it was the value's.
    pub async fn take(&self, job: JobId) -> Vec<RealmImage> {
        let shots: Vec<Promise> = {
            let mut shots = self.shots.borrow_mut();
            let (mine, rest) = shots.drain(..).partition(|(j, _)| *j == job);
            *shots = rest;
            mine.into_iter().map(|(_, p)| p).collect()
        };
        for shot in shots {
            let _ = JsFuture::from(shot).await;
        }
        let mine: Vec<(Promise, bool)> = {
            let mut pending = self.pending.borrow_mut();
            let (mine, rest) = pending.drain(..).partition(|(j, _, _)| *j == job);
            *pending = rest;
            mine.into_iter().map(|(_, p, news)| (p, news)).collect()
        };
        let mut out = Vec::new();
        for (encoding, news) in mine {
            match JsFuture::from(encoding).await {
                Ok(r) => out.push(image_of(job, &r)),
                Err(e) if news => out.push(RealmImage {
                    job,
                    label: "value".into(),
                    mime: String::new(),
                    width: 0,
                    height: 0,
                    bytes: 0,
                    data: None,
                    error: Some(message(&e)),
                }),
                Err(_) => {}
            }
        }
        out
    }
}

/// A record of `pictures.js` as the message that carries it.
fn image_of(job: JobId, r: &JsValue) -> RealmImage {
    let n = |k: &str| get(r, k).as_f64().unwrap_or(0.0).max(0.0);
    RealmImage {
        job,
        label: get(r, "label").as_string().unwrap_or_default(),
        mime: get(r, "mime").as_string().unwrap_or_default(),
        width: n("width") as u32,
        height: n("height") as u32,
        bytes: n("bytes") as u64,
        data: get(r, "data").as_string(),
        error: None,
    }
}
