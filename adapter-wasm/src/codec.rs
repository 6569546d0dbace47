//! The envelopes of [`daebug_protocol`] to and from JSON text: written
//! here in Rust (a page's `toJSON` hooks cannot touch them), read with the
//! browser's `JSON.parse`. The shapes are the protocol crate's serde format
//! exactly (the browser tests compare every message kind with
//! `serde_json`'s output); doing it by hand keeps a serde (de)serializer
//! out of the `.wasm`, which would be most of its size.

use daebug_protocol::text;
use daebug_protocol::{
    BackgroundEvent, EventType, HubMsg, JobError, JobId, Level, Outcome, RealmKind, RealmMsg, Value,
};
use js_sys::{JsString, Reflect, JSON};
use std::fmt::Write;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// `msg` as JSON text, written here (the page's `JSON.stringify` can be
/// changed by its code, e.g. an `Array.prototype.toJSON`).
pub fn encode(msg: &RealmMsg) -> String {
    let mut w = Json::default();
    match msg {
        RealmMsg::Hello {
            version,
            kind,
            name,
            url,
            id,
            jobs,
            tab,
            navigation,
            pid,
        } => {
            w.str("type", "hello");
            w.num("version", *version as u64);
            w.str(
                "kind",
                match kind {
                    RealmKind::Page => "page",
                    RealmKind::Worker => "worker",
                    RealmKind::Node => "node",
                },
            );
            w.str("name", name);
            w.str("url", url);
            w.str("id", id);
            if !jobs.is_empty() {
                let list: Vec<String> = jobs.iter().map(|j| j.0.to_string()).collect();
                w.raw("jobs", &format!("[{}]", text::join(&list, ",")));
            }
            if !tab.is_empty() {
                w.str("tab", tab);
            }
            if let Some(n) = navigation {
                w.str("navigation", n);
            }
            if let Some(p) = pid {
                w.num("pid", u64::from(*p));
            }
        }
        RealmMsg::Started { job } => {
            w.str("type", "started");
            w.num("job", job.0);
        }
        RealmMsg::Progress(p) => {
            w.str("type", "progress");
            w.num("job", p.job.0);
            w.raw("events", &events(&p.events));
            w.num("dropped", p.dropped as u64);
            if p.limited > 0 {
                w.num("limited", p.limited as u64);
            }
            w.num("elapsed_ms", p.elapsed_ms);
        }
        RealmMsg::Result(r) => {
            w.str("type", "result");
            w.num("job", r.job.0);
            w.raw("outcome", &outcome(&r.outcome));
            w.raw("events", &events(&r.events));
            w.num("dropped", r.dropped as u64);
            if r.limited > 0 {
                w.num("limited", r.limited as u64);
            }
            w.num("duration_ms", r.duration_ms);
        }
        RealmMsg::Image(i) => {
            w.str("type", "image");
            w.num("job", i.job.0);
            w.str("label", &i.label);
            w.str("mime", &i.mime);
            w.num("width", i.width as u64);
            w.num("height", i.height as u64);
            w.num("bytes", i.bytes);
            if let Some(data) = &i.data {
                // Base64 the browser wrote: nothing in it needs escaping,
                // and a picture's megabytes are not scanned again.
                w.raw("data", &format!("\"{data}\""));
            }
            if let Some(e) = &i.error {
                w.str("error", e);
            }
        }
        RealmMsg::Inspect(a) => {
            w.str("type", "inspect");
            w.num("ask", a.ask as u64);
            w.str(
                "what",
                match a.what {
                    daebug_protocol::Inspect::Listeners => "listeners",
                    daebug_protocol::Inspect::Objects => "objects",
                    daebug_protocol::Inspect::Debugger => "debugger",
                    daebug_protocol::Inspect::Input => "input",
                },
            );
        }
        RealmMsg::Screenshot(a) => {
            w.str("type", "screenshot");
            w.num("job", a.job.0);
            w.num("ask", a.ask as u64);
            if let Some(s) = &a.selector {
                w.str("selector", s);
            }
        }
        RealmMsg::Background {
            events: list,
            dropped,
            limited,
        } => {
            w.str("type", "background");
            w.raw("events", &events(list));
            w.num("dropped", *dropped as u64);
            if *limited > 0 {
                w.num("limited", *limited as u64);
            }
        }
        RealmMsg::Pong { seq } => {
            w.str("type", "pong");
            w.num("seq", *seq);
        }
        RealmMsg::Reloading => w.str("type", "reloading"),
        RealmMsg::Body { name, text } => {
            w.str("type", "body");
            w.str("name", name);
            w.str("text", text);
        }
        RealmMsg::Person { json } => {
            w.str("type", "person");
            w.str("json", json);
        }
        RealmMsg::Exiting { code } => {
            w.str("type", "exiting");
            w.raw("code", &code.to_string());
        }
        RealmMsg::Flush { seq } => {
            w.str("type", "flush");
            w.num("seq", *seq);
        }
        RealmMsg::Leaving { navigated_to } => {
            w.str("type", "leaving");
            if let Some(url) = navigated_to {
                w.str("navigated_to", url);
            }
        }
    }
    w.end()
}

/// A JSON object written field by field.
#[derive(Default)]
struct Json(String);

impl Json {
    fn key(&mut self, k: &str) {
        self.0.push(if self.0.is_empty() { '{' } else { ',' });
        quote(k, &mut self.0);
        self.0.push(':');
    }
    fn str(&mut self, k: &str, v: &str) {
        self.key(k);
        quote(v, &mut self.0);
    }
    fn num(&mut self, k: &str, v: u64) {
        self.key(k);
        self.0.push_str(&v.to_string());
    }
    fn raw(&mut self, k: &str, v: &str) {
        self.key(k);
        self.0.push_str(v);
    }
    fn end(mut self) -> String {
        if self.0.is_empty() {
            self.0.push('{');
        }
        self.0.push('}');
        self.0
    }
}

#[wasm_bindgen]
extern "C" {
    /// `JSON.parse` of a socket's `data` where it is, not copied into the
    /// module and back first.
    #[wasm_bindgen(catch, js_namespace = JSON, js_name = parse)]
    fn parse_data(text: &JsString) -> Result<JsValue, JsValue>;

    /// A parsed hub message's fields a job reads, as properties: no key
    /// string made and passed for each (a job's message is the hot one).
    type Wire;
    #[wasm_bindgen(method, getter, js_name = type)]
    fn kind(this: &Wire) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn job(this: &Wire) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn code(this: &Wire) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn timeout_ms(this: &Wire) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn depth(this: &Wire) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn full(this: &Wire) -> JsValue;
}

/// A hub message from JSON text; what is wrong with it otherwise.
pub fn decode(text: &str) -> Result<HubMsg, String> {
    decode_value(JSON::parse(text).map_err(|_| "not JSON".to_string())?)
}

/// A hub message from a socket message's `data`; `None` when it is not
/// text (not the protocol's).
pub fn decode_data(data: &JsValue) -> Option<Result<HubMsg, String>> {
    let text = data.dyn_ref::<JsString>()?;
    Some(
        parse_data(text)
            .map_err(|_| "not JSON".to_string())
            .and_then(decode_value),
    )
}

fn decode_value(v: JsValue) -> Result<HubMsg, String> {
    // `JSON.parse` of a number or `null` has no fields to read.
    if !v.is_object() {
        return Err("missing field `type`".into());
    }
    let wire = v.unchecked_ref::<Wire>();
    let kind = text_of(wire.kind(), "type")?;
    Ok(match kind.as_str() {
        "welcome" => HubMsg::Welcome {
            version: number(&v, "version")? as u32,
            stem: string(&v, "stem")?,
            id: string(&v, "id")?,
        },
        "job" => HubMsg::Job {
            job: JobId(number_of(wire.job(), "job")? as u64),
            code: text_of(wire.code(), "code")?,
            timeout_ms: number_of(wire.timeout_ms(), "timeout_ms")? as u64,
            // Fence options, absent when default.
            depth: number_of(wire.depth(), "depth").ok().map(|d| d as u32),
            full: wire.full().is_truthy(),
        },
        "cancel" => HubMsg::Cancel {
            job: JobId(number(&v, "job")? as u64),
        },
        "ping" => HubMsg::Ping {
            seq: number(&v, "seq")? as u64,
        },
        "flushed" => HubMsg::Flushed {
            seq: number(&v, "seq")? as u64,
        },
        "error" => HubMsg::Error {
            message: string(&v, "message")?,
        },
        "screenshot" => HubMsg::Screenshot(daebug_protocol::ScreenshotAnswer {
            ask: number(&v, "ask")? as u32,
            path: string(&v, "path").ok(),
            width: number(&v, "width").unwrap_or(0.0) as u32,
            height: number(&v, "height").unwrap_or(0.0) as u32,
            error: string(&v, "error").ok(),
        }),
        "inspected" => HubMsg::Inspected(daebug_protocol::InspectAnswer {
            ask: number(&v, "ask")? as u32,
            error: string(&v, "error").ok(),
        }),
        "person" => HubMsg::Person {
            json: string(&v, "json")?,
        },
        "bye" => HubMsg::Bye {
            reason: string(&v, "reason")?,
        },
        other => return Err(format!("unknown message type \"{other}\"")),
    })
}

fn field(v: &JsValue, key: &str) -> Result<JsValue, String> {
    Reflect::get(v, &key.into())
        .ok()
        .filter(|f| !f.is_undefined())
        .ok_or_else(|| format!("missing field `{key}`"))
}

fn string(v: &JsValue, key: &str) -> Result<String, String> {
    text_of(field(v, key)?, key)
}

fn number(v: &JsValue, key: &str) -> Result<f64, String> {
    number_of(field(v, key)?, key)
}

/// A field's value read as text (`key` names it in the error).
fn text_of(f: JsValue, key: &str) -> Result<String, String> {
    if f.is_undefined() {
        return Err(format!("missing field `{key}`"));
    }
    f.as_string()
        .ok_or_else(|| format!("`{key}` is not a string"))
}

/// A field's value read as a finite number ≥ 0.
fn number_of(f: JsValue, key: &str) -> Result<f64, String> {
    if f.is_undefined() {
        return Err(format!("missing field `{key}`"));
    }
    f.as_f64()
        .filter(|n| n.is_finite() && *n >= 0.0)
        .ok_or_else(|| format!("`{key}` is not a number"))
}

fn events(list: &[BackgroundEvent]) -> String {
    let items: Vec<String> = list
        .iter()
        .map(|e| {
            let mut w = Json::default();
            w.str(
                "type",
                match e.kind {
                    EventType::Console => "console",
                    EventType::Error => "error",
                    EventType::Browser => "browser",
                },
            );
            w.str(
                "level",
                match e.level {
                    Level::Debug => "debug",
                    Level::Log => "log",
                    Level::Info => "info",
                    Level::Warn => "warn",
                    Level::Error => "error",
                },
            );
            if let Some(s) = &e.source {
                w.str("source", s);
            }
            w.str("ts", &e.ts);
            w.str("message", &e.message);
            if let Some(s) = &e.stack {
                w.str("stack", s);
            }
            w.end()
        })
        .collect();
    format!("[{}]", text::join(&items, ","))
}

fn outcome(out: &Outcome) -> String {
    let mut w = Json::default();
    match out {
        Outcome::Ok(value) => {
            let mut v = Json::default();
            match value {
                Value::Json(j) => v.str("json", j),
                Value::Text(t) => v.str("text", t),
            }
            w.raw("ok", &v.end());
        }
        Outcome::Error(JobError {
            name,
            message,
            stack,
        }) => {
            let mut e = Json::default();
            e.str("name", name);
            e.str("message", message);
            match stack {
                Some(st) => e.str("stack", st),
                None => e.raw("stack", "null"),
            }
            w.raw("error", &e.end());
        }
    }
    w.end()
}

/// A JSON string literal: only `"`, `\` and control characters escaped
/// (the hub's serde_json reads it; the browser's `JSON` is not asked).
fn quote(t: &str, s: &mut String) {
    s.push('"');
    for c in t.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
}
