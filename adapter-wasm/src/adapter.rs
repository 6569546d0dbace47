//! The running adapter: the browser binding around the pure [`Link`] and
//! [`EventBuffer`]. One per realm (`start` is idempotent), alive for the
//! realm's lifetime; every browser resource it holds (socket handlers,
//! timers, listeners, console hooks) is a RAII value released on drop, not
//! a forgotten closure.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use daebug_protocol::{JobId, RealmKind};
use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::WebSocket;

use crate::bind::{Listener, Phase};
use crate::buffer::{Batch, BufferLimits, EventBuffer, Outgoing};
use crate::capture::{now_ms, Capture, Shared};
use crate::identity;
use crate::link::{Action, Identity, Link};
use crate::stages::Stage;

/// How often the buffer is asked for progress and background flushes.
const TICK_MS: i32 = 250;
/// Where a page keeps its tab id across reloads.
const TAB_KEY: &str = "daebug.tab";

thread_local! {
    static ADAPTER: RefCell<Option<Rc<RefCell<Adapter>>>> = const { RefCell::new(None) };
}

/// Starts the adapter in this realm, connecting to the hub that served
/// `script_url` (the `import.meta.url` of `daebug.js`). A second call does
/// nothing. Never throws into the page.
#[wasm_bindgen]
pub fn start(script_url: String) {
    if ADAPTER.with(|a| a.borrow().is_some()) {
        return;
    }
    mark("daebug:start");
    if identity::query_param(&script_url, "stages").is_some() {
        crate::stages::enable();
    }
    let adapter = Rc::new(RefCell::new(Adapter::new(&script_url)));
    ADAPTER.with(|a| *a.borrow_mut() = Some(adapter.clone()));
    Adapter::begin(&adapter);
}

/// A Node process ends with `code` (its loader calls this from
/// `beforeExit`, or before an uncaught error ends it): what was captured
/// goes out, then the exit, and the promise resolves once the hub wrote
/// them. It resolves at once when the hub went away (welcomed before, not
/// connected now), so an ending process never waits for nobody.
#[wasm_bindgen]
pub fn last_word(code: i32) -> js_sys::Promise {
    let Some(rc) = ADAPTER.with(|a| a.borrow().clone()) else {
        return js_sys::Promise::resolve(&JsValue::UNDEFINED);
    };
    let gone = {
        let a = rc.borrow();
        a.link.was_welcomed() && !a.link.welcomed()
    };
    Adapter::say_exit(&rc, code);
    if gone {
        return js_sys::Promise::resolve(&JsValue::UNDEFINED);
    }
    let seq = {
        let mut a = rc.borrow_mut();
        a.flush_seq += 1;
        a.flush_seq
    };
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        rc.borrow_mut().flushes.push((seq, resolve));
    });
    let actions = rc.borrow_mut().link.flush(seq);
    Adapter::perform(&rc, actions);
    promise
}

/// [`last_word`] with no time to wait (`process.exit()`): what can be
/// sent is sent now.
#[wasm_bindgen]
pub fn last_word_now(code: i32) {
    if let Some(rc) = ADAPTER.with(|a| a.borrow().clone()) {
        Adapter::say_exit(&rc, code);
    }
}

/// A `performance.mark`, so a page's performance timeline shows when the
/// adapter started and when the hub welcomed it.
fn mark(name: &str) {
    if let Some(perf) = global_get("performance") {
        if let Some(f) = Reflect::get(&perf, &"mark".into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
        {
            let _ = f.call1(&perf, &name.into());
        }
    }
}

/// A timer (`setTimeout`/`setInterval`) cleared on drop.
struct Timer {
    id: JsValue,
    clear: &'static str,
    _callback: Closure<dyn FnMut()>,
}

impl Timer {
    fn new(
        set: &str,
        clear: &'static str,
        ms: i32,
        callback: Closure<dyn FnMut()>,
    ) -> Option<Timer> {
        let global = js_sys::global();
        let f: Function = Reflect::get(&global, &set.into()).ok()?.dyn_into().ok()?;
        let id = f
            .call2(&global, callback.as_ref(), &JsValue::from(ms))
            .ok()?;
        crate::node::unref(&id);
        Some(Timer {
            id,
            clear,
            _callback: callback,
        })
    }
}

impl Timer {
    /// Calls `f` after `ms`, with nothing to clear (a promise's resolve).
    fn forget(set: &str, ms: i32, f: &Function) -> Option<()> {
        let global = js_sys::global();
        let set: Function = Reflect::get(&global, &set.into()).ok()?.dyn_into().ok()?;
        set.call2(&global, f, &JsValue::from(ms)).ok()?;
        Some(())
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        let global = js_sys::global();
        if let Some(f) = Reflect::get(&global, &self.clear.into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
        {
            let _ = f.call1(&global, &self.id);
        }
    }
}

/// A WebSocket and its handlers; closed and detached on drop.
struct Socket {
    ws: WebSocket,
    _handlers: Vec<Closure<dyn FnMut(JsValue)>>,
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        self.ws.set_onerror(None);
        let _ = self.ws.close();
    }
}

struct Adapter {
    link: Link,
    buffer: Shared,
    ws_url: String,
    is_page: bool,
    socket: Option<Socket>,
    reconnect: Option<Timer>,
    tick: Option<Timer>,
    /// `pagehide`, `pageshow` and the Navigation API's `navigate`.
    listeners: Vec<Listener>,
    /// Where the page is navigating, as `navigate` last said (pages only).
    navigating_to: Option<String>,
    /// The console's own `warn`, taken before capture wraps it, so the
    /// adapter's notes are not captured as the page's events.
    warn: Option<Function>,
    /// Whether the hub welcomed this realm and the socket is open: dialogs
    /// are answered for the page only then.
    attached: Rc<Cell<bool>>,
    _capture: Option<Capture>,
    toolkit: Option<crate::toolkit::Toolkit>,
    /// The pictures of running jobs (the toolkit asks, a job's end sends).
    pictures: Rc<crate::pictures::Pictures>,
    /// `getEventListeners` / `queryObjects` waiting for the hub.
    devtools: Rc<crate::devtools::DevtoolsAsks>,
    /// Panels, `ask` and `pick`: their messages to and from the hub.
    person: Option<crate::person::Person>,
    /// A Node process: the loader's object (see [`crate::node`]).
    node: Option<crate::node::NodeRealm>,
    /// Flushes asked (a Node process's last word): their `seq` and the
    /// promise's resolve, called when the hub says it wrote.
    flushes: Vec<(u64, Function)>,
    flush_seq: u64,
}

fn global_get(key: &str) -> Option<JsValue> {
    Reflect::get(&js_sys::global(), &key.into())
        .ok()
        .filter(|v| !v.is_undefined())
}

fn text_of(target: &JsValue, key: &str) -> String {
    Reflect::get(target, &key.into())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

fn session_storage() -> Option<JsValue> {
    // Throws in sandboxed frames and some privacy modes.
    global_get("sessionStorage")
}

fn stored_tab_id() -> String {
    let id = session_storage()
        .and_then(|s| {
            let get: Function = Reflect::get(&s, &"getItem".into()).ok()?.dyn_into().ok()?;
            get.call1(&s, &TAB_KEY.into()).ok()?.as_string()
        })
        .unwrap_or_default();
    if identity::is_tab_id(&id) {
        id
    } else {
        String::new()
    }
}

/// How this document came (`navigate`, `reload`, `back_forward`,
/// `prerender`): its navigation timing entry's type.
fn navigation_type() -> String {
    global_get("performance")
        .and_then(|p| {
            let get: Function = Reflect::get(&p, &"getEntriesByType".into())
                .ok()?
                .dyn_into()
                .ok()?;
            let list = get.call1(&p, &"navigation".into()).ok()?;
            Some(text_of(&Reflect::get(&list, &0.into()).ok()?, "type"))
        })
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "navigate".into())
}

fn keep_tab_id(id: &str) {
    if let Some(s) = session_storage() {
        if let Some(set) = Reflect::get(&s, &"setItem".into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
        {
            let _ = set.call2(&s, &TAB_KEY.into(), &id.into());
        }
    }
}

/// An event handler that calls `f` with the adapter while it lives (a
/// weak reference: a handler never keeps the adapter alive).
fn handler(
    rc: &Rc<RefCell<Adapter>>,
    f: fn(&Rc<RefCell<Adapter>>, JsValue),
) -> Closure<dyn FnMut(JsValue)> {
    let weak: Weak<RefCell<Adapter>> = Rc::downgrade(rc);
    Closure::<dyn FnMut(JsValue)>::new(move |e: JsValue| {
        if let Some(rc) = weak.upgrade() {
            f(&rc, e);
        }
    })
}

impl Adapter {
    fn new(script_url: &str) -> Adapter {
        let global = js_sys::global();
        let node = crate::node::realm();
        let is_page = node.is_none() && global_get("document").is_some();
        let href = global_get("location")
            .map(|l| text_of(&l, "href"))
            .unwrap_or_default();
        let mut pid = None;
        let (kind, name, id, tab, navigation, href) = if let Some(n) = &node {
            // Known by its script: the hub finds its log again after a
            // restart (`restarted`), and shows the pid.
            let who = crate::node::identity(n);
            pid = Some(who.pid);
            (
                RealmKind::Node,
                who.name,
                String::new(),
                String::new(),
                "start".to_string(),
                who.path,
            )
        } else if is_page {
            let title = global_get("document")
                .map(|d| text_of(&d, "title"))
                .unwrap_or_default();
            (
                RealmKind::Page,
                identity::page_name(script_url, &title, &href),
                stored_tab_id(),
                String::new(),
                navigation_type(),
                href,
            )
        } else {
            // The loader of the page that started it passed its tab id on:
            // this worker's loader learnt it from the page and gives it on
            // its own URL's fragment (daebug.js, `askTab`), or (a page's
            // older loader) the worker's URL has it.
            let (href, tab) = identity::worker_tab(&href);
            let tab = match tab.is_empty() {
                true => identity::worker_tab(script_url).1,
                false => tab,
            };
            (
                RealmKind::Worker,
                identity::worker_name(script_url, &text_of(&global, "name"), &href),
                String::new(),
                tab,
                "start".to_string(),
                href,
            )
        };
        let warn = crate::capture::original_console("warn");
        let buffer: Shared = Rc::new(RefCell::new(EventBuffer::new(BufferLimits::default())));
        // Before the capture: it shows what the loader kept at once.
        if let Some(h) = crate::bind::hooks() {
            crate::bind::keep_hooks(&h);
            crate::values::install(&h.values());
        }
        let capture = Capture::install(buffer.clone()).ok();
        let attached = Rc::new(Cell::new(false));
        let hooks = crate::bind::hooks();
        let pictures = Rc::new(crate::pictures::Pictures::new(
            hooks.as_ref().map_or(JsValue::UNDEFINED, |h| h.pictures()),
        ));
        let devtools = Rc::new(crate::devtools::DevtoolsAsks::default());
        let toolkit = crate::toolkit::Toolkit::install(
            &hooks.as_ref().map_or(JsValue::UNDEFINED, |h| h.toolkit()),
            buffer.clone(),
            attached.clone(),
            is_page,
            node.as_ref(),
            pictures.clone(),
            devtools.clone(),
        );
        let person = toolkit.as_ref().and_then(|t| {
            let kind = match kind {
                RealmKind::Page => "page",
                RealmKind::Worker => "worker",
                RealmKind::Node => "node",
            };
            let make = hooks.as_ref().map_or(JsValue::UNDEFINED, |h| h.person());
            crate::person::Person::install(&make, &t.object(), script_url, kind)
        });
        // `?dialogs=native` keeps the browser's own dialogs always.
        if let Some(t) = &toolkit {
            if identity::query_param(script_url, "dialogs").as_deref() != Some("native") {
                t.dialogs();
            }
        }
        Adapter {
            link: Link::new(Identity {
                kind,
                name,
                url: href,
                id,
                tab,
                navigation: Some(navigation),
                pid,
            }),
            buffer,
            ws_url: identity::ws_url(script_url),
            is_page,
            socket: None,
            reconnect: None,
            tick: None,
            listeners: Vec::new(),
            navigating_to: None,
            warn,
            attached,
            _capture: capture,
            toolkit,
            pictures,
            devtools,
            person,
            node,
            flushes: Vec::new(),
            flush_seq: 0,
        }
    }

    /// Connects and starts the timers and listeners.
    fn begin(rc: &Rc<RefCell<Adapter>>) {
        let weak = Rc::downgrade(rc);
        // A screenshot a block asks for goes to the hub at once.
        if let Some(p) = &rc.borrow().person {
            let to_hub = weak.clone();
            p.send_with(Box::new(move |msg| {
                if let Some(rc) = to_hub.upgrade() {
                    Adapter::perform(&rc, vec![Action::Send(msg)]);
                }
            }));
        }
        let to_hub = weak.clone();
        rc.borrow().pictures.send_with(Box::new(move |ask| {
            if let Some(rc) = to_hub.upgrade() {
                let actions = rc.borrow_mut().link.screenshot(ask);
                Adapter::perform(&rc, actions);
            }
        }));
        let to_hub = weak.clone();
        rc.borrow().devtools.send_with(Box::new(move |ask| {
            if let Some(rc) = to_hub.upgrade() {
                let actions = rc.borrow_mut().link.inspect(ask);
                Adapter::perform(&rc, actions);
            }
        }));
        let tick = Closure::<dyn FnMut()>::new(move || {
            if let Some(rc) = weak.upgrade() {
                Adapter::tick(&rc);
            }
        });
        let handler = |f| handler(rc, f);
        // Going away: events so far go out, then the hub hears where the
        // page goes and the socket closes (a page in the back/forward
        // cache must not look alive).
        let hide = handler(|rc, _| {
            let batch = rc.borrow().buffer.borrow_mut().flush();
            if let Some(b) = batch {
                let actions = rc.borrow_mut().link.events(Outgoing::Background(b));
                Adapter::perform(rc, actions);
            }
            if rc.borrow().is_page {
                let to = rc.borrow_mut().navigating_to.take();
                let actions = rc.borrow_mut().link.on_hide(to);
                Adapter::perform(rc, actions);
            }
        });
        let show = handler(|rc, _| {
            let actions = rc.borrow_mut().link.on_show();
            Adapter::perform(rc, actions);
        });
        // A cross-document navigation the page starts (a link, a form,
        // `location`, a reload) names its destination here first.
        let navigate = handler(|rc, e| {
            let destination = Reflect::get(&e, &"destination".into()).ok();
            let same = destination
                .as_ref()
                .and_then(|d| Reflect::get(d, &"sameDocument".into()).ok())
                .and_then(|v| v.as_bool())
                .unwrap_or(true);
            if !same {
                let url = destination.map(|d| text_of(&d, "url"));
                rc.borrow_mut().navigating_to = url.filter(|u| !u.is_empty());
            }
        });
        let global = js_sys::global();
        let mut listeners: Vec<Listener> = [
            Listener::on(&global, "pagehide", Phase::Bubble, hide),
            Listener::on(&global, "pageshow", Phase::Bubble, show),
        ]
        .into_iter()
        .flatten()
        .collect();
        if let Some(navigation) = global_get("navigation").filter(|n| n.is_object()) {
            listeners.extend(Listener::on(
                &navigation,
                "navigate",
                Phase::Bubble,
                navigate,
            ));
        }
        // A pending background event wakes the tick itself once the
        // buffer's wait (20 ms) is over, not at the next regular tick.
        crate::capture::on_pending(tick.as_ref().unchecked_ref::<Function>().clone());
        {
            let mut a = rc.borrow_mut();
            a.tick = Timer::new("setInterval", "clearInterval", TICK_MS, tick);
            a.listeners = listeners;
        }
        Adapter::connect(rc);
    }

    fn connect(rc: &Rc<RefCell<Adapter>>) {
        let url = rc.borrow().ws_url.clone();
        let node = rc.borrow().node.clone();
        let opened = match &node {
            Some(n) => crate::node::socket(n, &url),
            None => WebSocket::new(&url),
        };
        let ws = match opened {
            Ok(ws) => ws,
            Err(_) => {
                let actions = rc.borrow_mut().link.on_close(js_sys::Math::random());
                return Adapter::perform(rc, actions);
            }
        };
        let handler = |f| handler(rc, f);
        let on_open = handler(|rc, _| {
            let actions = rc.borrow_mut().link.on_open();
            Adapter::perform(rc, actions);
        });
        let on_message = handler(|rc, e| {
            crate::stages::mark(JobId(0), Stage::Heard);
            // Read as a property, not through `MessageEvent`: Node's events
            // are not always instances of its global one.
            let data = e.unchecked_ref::<crate::bind::Message>().data();
            let Some(decoded) = crate::codec::decode_data(&data) else {
                return;
            };
            let actions = match decoded {
                Ok(msg) => {
                    if let daebug_protocol::HubMsg::Job { job, .. } = &msg {
                        crate::stages::mark(*job, Stage::Decoded);
                    }
                    rc.borrow_mut().link.on_message(msg)
                }
                Err(e) => vec![Action::Warn(format!("daebug: unreadable hub message: {e}"))],
            };
            Adapter::perform(rc, actions);
        });
        let on_close = handler(|rc, _| {
            rc.borrow().attached.set(false);
            rc.borrow_mut().socket = None;
            let actions = rc.borrow_mut().link.on_close(js_sys::Math::random());
            Adapter::perform(rc, actions);
        });
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        rc.borrow_mut().socket = Some(Socket {
            ws,
            _handlers: vec![on_open, on_message, on_close],
        });
    }

    fn tick(rc: &Rc<RefCell<Adapter>>) {
        loop {
            let out = rc.borrow().buffer.borrow_mut().poll(now_ms());
            let Some(out) = out else { break };
            let actions = rc.borrow_mut().link.events(out);
            Adapter::perform(rc, actions);
        }
    }

    fn perform(rc: &Rc<RefCell<Adapter>>, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::Send(msg) => {
                    let a = rc.borrow();
                    if let Some(s) = &a.socket {
                        // The bodies the lines link go first, so their
                        // files are there when the lines are written.
                        if matches!(
                            msg,
                            daebug_protocol::RealmMsg::Background { .. }
                                | daebug_protocol::RealmMsg::Progress(_)
                                | daebug_protocol::RealmMsg::Result(_)
                        ) {
                            for (name, text) in crate::capture::take_bodies() {
                                let body = daebug_protocol::RealmMsg::Body { name, text };
                                let _ = s.ws.send_with_str(&crate::codec::encode(&body));
                            }
                        }
                        let result = match &msg {
                            daebug_protocol::RealmMsg::Result(r) => Some(r.job),
                            _ => None,
                        };
                        let text = crate::codec::encode(&msg);
                        if let Some(job) = result {
                            crate::stages::mark(job, Stage::Encoded);
                        }
                        let _ = s.ws.send_with_str(&text);
                        if let Some(job) = result {
                            crate::stages::mark(job, Stage::Sent);
                        }
                    }
                }
                Action::Run {
                    job,
                    code,
                    depth,
                    full,
                } => Adapter::run(rc, job, code, (depth, full)),
                Action::KeepId(id) => {
                    mark("daebug:welcomed");
                    rc.borrow().attached.set(true);
                    // What was captured before (the loader's first lines)
                    // goes out now, not at the next tick.
                    Adapter::tick(rc);
                    if rc.borrow().is_page {
                        keep_tab_id(&id);
                    }
                    let a = rc.borrow();
                    if let Some(t) = &a.toolkit {
                        t.welcomed(a.link.stem());
                    }
                }
                Action::Reconnect { after_ms } => {
                    let weak = Rc::downgrade(rc);
                    let again = Closure::<dyn FnMut()>::new(move || {
                        if let Some(rc) = weak.upgrade() {
                            rc.borrow_mut().reconnect = None;
                            Adapter::connect(&rc);
                        }
                    });
                    let ms = after_ms.min(i32::MAX as u64) as i32;
                    rc.borrow_mut().reconnect = Timer::new("setTimeout", "clearTimeout", ms, again);
                }
                Action::EndJob(job) => {
                    let batch = Adapter::finish_job(rc, job);
                    if batch != Batch::default() {
                        let actions = rc.borrow_mut().link.events(Outgoing::Background(batch));
                        Adapter::perform(rc, actions);
                    }
                }
                Action::Close => {
                    if let Some(s) = &rc.borrow().socket {
                        let _ = s.ws.close();
                    }
                }
                Action::Warn(text) => {
                    if let Some(w) = &rc.borrow().warn {
                        let _ = w.call1(&JsValue::UNDEFINED, &text.into());
                    }
                }
                Action::Screenshot(answer) => {
                    let pictures = rc.borrow().pictures.clone();
                    pictures.answer(answer);
                }
                Action::Inspected(answer) => {
                    let devtools = rc.borrow().devtools.clone();
                    devtools.answer(answer);
                }
                Action::Person(json) => {
                    if let Some(p) = &rc.borrow().person {
                        p.hub(json);
                    }
                }
                Action::Flushed(seq) => {
                    let done: Vec<Function> = {
                        let mut a = rc.borrow_mut();
                        let (done, waiting) = std::mem::take(&mut a.flushes)
                            .into_iter()
                            .partition(|(s, _)| *s <= seq);
                        a.flushes = waiting;
                        done.into_iter().map(|(_, f)| f).collect()
                    };
                    for resolve in done {
                        let _ = resolve.call0(&JsValue::UNDEFINED);
                    }
                }
            }
        }
    }

    /// Everything captured so far, then the exit code, to the hub.
    fn say_exit(rc: &Rc<RefCell<Adapter>>, code: i32) {
        Adapter::tick(rc);
        let batch = rc.borrow().buffer.borrow_mut().flush();
        if let Some(b) = batch {
            let actions = rc.borrow_mut().link.events(Outgoing::Background(b));
            Adapter::perform(rc, actions);
        }
        let actions = rc.borrow_mut().link.exiting(code);
        Adapter::perform(rc, actions);
    }

    /// The job's events, and last (past the cap: it is the job's summary)
    /// the requests it started, while it is the job events are kept for.
    fn finish_job(rc: &Rc<RefCell<Adapter>>, job: JobId) -> Batch {
        let current = rc.borrow().buffer.borrow().job() == Some(job);
        let mut batch = rc.borrow().buffer.borrow_mut().finish_job(job);
        if let Some(summary) = current
            .then(|| crate::capture::job_requests(false, 0))
            .flatten()
        {
            let ts = crate::capture::clock();
            crate::network::drop_listed(&mut batch.events, &summary);
            batch
                .events
                .push(crate::network::network_event(summary, ts));
        }
        batch
    }

    /// Starts a job as its own task: the link never waits for it.
    /// `view`: the fence options `depth=N` and `full`.
    fn run(rc: &Rc<RefCell<Adapter>>, job: JobId, code: String, view: (Option<u32>, bool)) {
        let pending = rc.borrow().buffer.borrow_mut().start_job(job, now_ms());
        crate::capture::job_requests(true, job.0);
        if let Some(b) = pending {
            let actions = rc.borrow_mut().link.events(Outgoing::Background(b));
            Adapter::perform(rc, actions);
        }
        let weak = Rc::downgrade(rc);
        let pictures = rc.borrow().pictures.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let seen = |v: &JsValue| pictures.value(v, job);
            let ran = crate::job::run_seen(job, &code, view.0, view.1, &seen).await;
            // The job's pictures go ahead of its result (and its events
            // include those of their encoding).
            let images = pictures.take(job).await;
            // Its requests' bodies read, so its summary has their digests.
            let settled = crate::bind::hooks().and_then(|h| h.settled().ok());
            if let Some(p) = settled.and_then(|p| p.dyn_into::<js_sys::Promise>().ok()) {
                let _ = JsFuture::from(p).await;
            }
            let Some(rc) = weak.upgrade() else { return };
            for image in images {
                let actions = rc.borrow_mut().link.image(image);
                Adapter::perform(&rc, actions);
            }
            let events = Adapter::finish_job(&rc, job);
            let reload = rc
                .borrow()
                .toolkit
                .as_ref()
                .is_some_and(|t| t.take_reload());
            if reload {
                let actions = rc.borrow_mut().link.reloading();
                Adapter::perform(&rc, actions);
            }
            crate::stages::mark(job, Stage::Gathered);
            let actions = rc
                .borrow_mut()
                .link
                .job_done(job, ran.outcome, ran.duration_ms, events);
            Adapter::perform(&rc, actions);
            if reload {
                Adapter::reload(weak).await;
            }
        });
    }

    /// `daebug.reload()` asked during a job, whose result was just sent:
    /// the page reloads once the socket has handed it over (at most a
    /// second), so the hub has it before `pagehide` closes the socket.
    /// Should the page stay (a `beforeunload` said no), it reconnects, so
    /// the jobs the hub holds for the next document come here.
    async fn reload(weak: Weak<RefCell<Adapter>>) {
        let sleep = |ms: i32| {
            JsFuture::from(js_sys::Promise::new(&mut |resolve, _| {
                let _ = Timer::forget("setTimeout", ms, &resolve);
            }))
        };
        for _ in 0..200 {
            let Some(rc) = weak.upgrade() else { return };
            let buffered = rc
                .borrow()
                .socket
                .as_ref()
                .map_or(0, |s| s.ws.buffered_amount());
            if buffered == 0 {
                break;
            }
            drop(rc);
            let _ = sleep(5).await;
        }
        crate::toolkit::location_reload();
        let _ = sleep(3000).await;
        if let Some(rc) = weak.upgrade() {
            if let Some(s) = &rc.borrow().socket {
                let _ = s.ws.close();
            }
        }
    }
}
