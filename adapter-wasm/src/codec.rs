//! The envelopes of [`daebug_protocol`] to and from JSON text, through the
//! browser's own `JSON` and plain objects. The shapes are the protocol
//! crate's serde format, exactly (the browser tests compare every message
//! kind with `serde_json`'s output); doing it by hand keeps a serde
//! (de)serializer out of the `.wasm`, which is most of its size otherwise.

use daebug_protocol::{
    BackgroundEvent, EventType, HubMsg, JobError, JobId, Level, Outcome, RealmKind, RealmMsg, Value,
};
use js_sys::{Array, Object, Reflect, JSON};
use wasm_bindgen::JsValue;

/// `msg` as JSON text.
pub fn encode(msg: &RealmMsg) -> String {
    let o = Object::new();
    match msg {
        RealmMsg::Hello {
            version,
            kind,
            name,
            url,
            id,
            jobs,
        } => {
            set(&o, "type", "hello");
            set(&o, "version", *version);
            set(
                &o,
                "kind",
                match kind {
                    RealmKind::Page => "page",
                    RealmKind::Worker => "worker",
                },
            );
            set(&o, "name", name.as_str());
            set(&o, "url", url.as_str());
            set(&o, "id", id.as_str());
            if !jobs.is_empty() {
                let a = Array::new();
                for j in jobs {
                    a.push(&job(*j));
                }
                set(&o, "jobs", a);
            }
        }
        RealmMsg::Started { job: j } => {
            set(&o, "type", "started");
            set(&o, "job", job(*j));
        }
        RealmMsg::Progress(p) => {
            set(&o, "type", "progress");
            set(&o, "job", job(p.job));
            set(&o, "events", events(&p.events));
            set(&o, "dropped", p.dropped);
            set(&o, "elapsed_ms", p.elapsed_ms as f64);
        }
        RealmMsg::Result(r) => {
            set(&o, "type", "result");
            set(&o, "job", job(r.job));
            set(&o, "outcome", outcome(&r.outcome));
            set(&o, "events", events(&r.events));
            set(&o, "dropped", r.dropped);
            set(&o, "duration_ms", r.duration_ms as f64);
        }
        RealmMsg::Background {
            events: list,
            dropped,
        } => {
            set(&o, "type", "background");
            set(&o, "events", events(list));
            set(&o, "dropped", *dropped);
        }
        RealmMsg::Pong { seq } => {
            set(&o, "type", "pong");
            set(&o, "seq", *seq as f64);
        }
    }
    JSON::stringify(&o)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_default()
}

/// A hub message from JSON text; what is wrong with it otherwise.
pub fn decode(text: &str) -> Result<HubMsg, String> {
    let v = JSON::parse(text).map_err(|_| "not JSON".to_string())?;
    let kind = string(&v, "type")?;
    Ok(match kind.as_str() {
        "welcome" => HubMsg::Welcome {
            version: number(&v, "version")? as u32,
            stem: string(&v, "stem")?,
            id: string(&v, "id")?,
        },
        "job" => HubMsg::Job {
            job: JobId(number(&v, "job")? as u64),
            code: string(&v, "code")?,
            timeout_ms: number(&v, "timeout_ms")? as u64,
        },
        "cancel" => HubMsg::Cancel {
            job: JobId(number(&v, "job")? as u64),
        },
        "ping" => HubMsg::Ping {
            seq: number(&v, "seq")? as u64,
        },
        "error" => HubMsg::Error {
            message: string(&v, "message")?,
        },
        "bye" => HubMsg::Bye {
            reason: string(&v, "reason")?,
        },
        other => return Err(format!("unknown message type {other:?}")),
    })
}

fn set(o: &Object, key: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(o, &key.into(), &value.into());
}

fn job(j: JobId) -> JsValue {
    JsValue::from(j.0 as f64)
}

fn field(v: &JsValue, key: &str) -> Result<JsValue, String> {
    Reflect::get(v, &key.into())
        .ok()
        .filter(|f| !f.is_undefined())
        .ok_or_else(|| format!("missing field `{key}`"))
}

fn string(v: &JsValue, key: &str) -> Result<String, String> {
    field(v, key)?
        .as_string()
        .ok_or_else(|| format!("`{key}` is not a string"))
}

fn number(v: &JsValue, key: &str) -> Result<f64, String> {
    field(v, key)?
        .as_f64()
        .filter(|n| n.is_finite() && *n >= 0.0)
        .ok_or_else(|| format!("`{key}` is not a number"))
}

fn events(list: &[BackgroundEvent]) -> Array {
    let a = Array::new();
    for e in list {
        let o = Object::new();
        set(
            &o,
            "type",
            match e.kind {
                EventType::Console => "console",
                EventType::Error => "error",
            },
        );
        set(
            &o,
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
            set(&o, "source", s.as_str());
        }
        set(&o, "ts", e.ts.as_str());
        set(&o, "message", e.message.as_str());
        if let Some(s) = &e.stack {
            set(&o, "stack", s.as_str());
        }
        a.push(&o);
    }
    a
}

fn outcome(out: &Outcome) -> Object {
    let o = Object::new();
    match out {
        Outcome::Ok(value) => {
            let v = Object::new();
            match value {
                Value::Json(j) => set(&v, "json", j.as_str()),
                Value::Text(t) => set(&v, "text", t.as_str()),
            }
            set(&o, "ok", v);
        }
        Outcome::Error(JobError {
            name,
            message,
            stack,
        }) => {
            let e = Object::new();
            set(&e, "name", name.as_str());
            set(&e, "message", message.as_str());
            set(
                &e,
                "stack",
                stack.as_deref().map_or(JsValue::NULL, JsValue::from_str),
            );
            set(&o, "error", e);
        }
    }
    o
}
