//! Walks a JavaScript value into an [`inspect::Node`] tree, the browser
//! half of value rendering (the layout is [`crate::inspect`]).
//!
//! Safe by construction: properties are read through their descriptors,
//! so getters are never run; every reflective call that could throw (a
//! Proxy's trap, a revoked proxy) is caught and shown as `[unreadable]`;
//! depth, item and string limits bound the work; cycles become
//! `[Circular *n]` with `<ref *n>` on their target. Promise states need a
//! microtask to learn, so [`walk`] is async.

use daebug_protocol::text;
use js_sys::{Array, ArrayBuffer, Function, JsString, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    /// `Object.getOwnPropertyDescriptor`, with a throwing Proxy trap caught.
    #[wasm_bindgen(js_namespace = Object, js_name = getOwnPropertyDescriptor, catch)]
    fn own_descriptor(obj: &JsValue, key: &JsValue) -> Result<JsValue, JsValue>;

    /// `Array.isArray`, which throws for a revoked Proxy.
    #[wasm_bindgen(js_namespace = Array, js_name = isArray, catch)]
    fn is_array(value: &JsValue) -> Result<bool, JsValue>;
}

/// Characters kept of an error's message and stack (in values, replies
/// and events alike).
pub const ERROR_TEXT: usize = 10_000;

/// Nodes one walk may visit: wide and deep values stop here instead of
/// freezing the page (100 items at each of 4 levels would be 100 million).
const BUDGET: usize = 10_000;
/// Bytes of string content one walk may copy in all: a reply's cap (the
/// hub archives long replies; [`crate::reply::cap`] cuts the rendering
/// exactly).
const TEXT_BUDGET: usize = daebug_protocol::MAX_REPLY_BYTES;

/// `value`'s text when it is a string, cut to `limit` UTF-16 units inside
/// JavaScript (a 200 MB string is never copied into the module), with its
/// whole length.
pub fn cut_string(value: &JsValue, limit: usize) -> Option<(String, usize)> {
    let s = value.dyn_ref::<JsString>()?;
    let len = s.length() as usize;
    let kept = if len > limit {
        s.slice(0, limit as u32)
    } else {
        s.clone()
    };
    Some((String::from(kept), len))
}

use crate::inspect::{Node, PromiseState};

/// Bounds on what is walked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkLimits {
    /// Nesting levels shown below the value itself.
    pub depth: usize,
    /// Items shown per array, object, map, set or list.
    pub items: usize,
    /// Characters shown per string.
    pub string: usize,
}

impl WalkLimits {
    /// A job's limits for its fence options `depth=N` and `full`.
    pub fn job(depth: Option<u32>, full: bool) -> WalkLimits {
        let l = crate::reply::job_limits(depth, full);
        WalkLimits {
            depth: l.depth,
            items: l.items,
            string: l.string,
        }
    }
}

impl Default for WalkLimits {
    fn default() -> WalkLimits {
        WalkLimits {
            depth: 4,
            items: 100,
            string: 10_000,
        }
    }
}

/// The tree of `value` as it is now, without waiting: promises show as
/// pending (for console arguments, which must be captured at once).
pub fn walk_now(value: &JsValue, limits: WalkLimits) -> Node {
    Walker::new(limits).node(value, 0)
}

/// The tree of `value`, promise states included.
pub async fn walk(value: &JsValue, limits: WalkLimits) -> Node {
    let mut w = Walker::new(limits);
    let mut node = w.node(value, 0);
    let promises = std::mem::take(&mut w.promises);
    let mut states = Vec::with_capacity(promises.len());
    for p in &promises {
        states.push(settled(p).await);
    }
    // Settled values are walked without looking into their own promises.
    let mut filled: Vec<PromiseState> = Vec::with_capacity(states.len());
    for state in states {
        filled.push(match state {
            Settled::Pending => PromiseState::Pending,
            Settled::Fulfilled(v) => PromiseState::Fulfilled(Box::new(w.node(&v, 1))),
            Settled::Rejected(v) => PromiseState::Rejected(Box::new(w.node(&v, 1))),
        });
    }
    let mut it = filled.into_iter();
    fill_promises(&mut node, &mut it);
    node
}

enum Settled {
    Pending,
    Fulfilled(JsValue),
    Rejected(JsValue),
}

/// A promise's state, learned by racing it against one already resolved.
async fn settled(p: &Promise) -> Settled {
    let marker = Object::new();
    let race = Promise::race(&Array::of2(p, &Promise::resolve(&marker)));
    match JsFuture::from(race).await {
        Ok(v) if Object::is(&v, &marker) => Settled::Pending,
        Ok(v) => Settled::Fulfilled(v),
        Err(e) => Settled::Rejected(e),
    }
}

/// Puts the learned states into the tree's promise nodes, in walk order.
fn fill_promises(node: &mut Node, states: &mut impl Iterator<Item = PromiseState>) {
    match node {
        Node::Promise(state) => {
            if let Some(s) = states.next() {
                *state = s;
            }
        }
        Node::Array { items, .. } | Node::Set { items, .. } | Node::Collection { items, .. } => {
            items.iter_mut().for_each(|i| fill_promises(i, states))
        }
        Node::Object { entries, .. } => entries
            .iter_mut()
            .for_each(|(_, v)| fill_promises(v, states)),
        Node::Map { entries, .. } => entries.iter_mut().for_each(|(k, v)| {
            fill_promises(k, states);
            fill_promises(v, states);
        }),
        Node::Ref(_, inner) => fill_promises(inner, states),
        Node::Error { cause: Some(c), .. } => fill_promises(c, states),
        _ => {}
    }
}

struct Walker {
    limits: WalkLimits,
    /// The objects being walked, outermost first (cycle detection).
    ancestors: Vec<JsValue>,
    /// Ref numbers given to ancestors that a cycle points back to.
    refs: Vec<(JsValue, usize)>,
    /// Promises met, in walk order.
    promises: Vec<Promise>,
    /// Nodes left to visit.
    budget: usize,
    /// String characters left to copy.
    text: usize,
}

/// A property read that cannot throw into the job.
fn get(target: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(target, &JsValue::from_str(key)).ok()
}

fn global_ctor(name: &str) -> Option<Function> {
    get(&js_sys::global(), name).and_then(|c| c.dyn_into::<Function>().ok())
}

fn is_instance(value: &JsValue, ctor: &str) -> bool {
    global_ctor(ctor).is_some_and(|c| value.is_instance_of_dyn(&c))
}

trait InstanceOfDyn {
    fn is_instance_of_dyn(&self, ctor: &Function) -> bool;
}

impl InstanceOfDyn for JsValue {
    fn is_instance_of_dyn(&self, ctor: &Function) -> bool {
        // `instanceof` can only throw for exotic right-hand sides; ctor is a
        // function here.
        js_sys::Reflect::get_prototype_of(self)
            .ok()
            .zip(get(ctor, "prototype"))
            .is_some_and(|(mut proto, target)| {
                for _ in 0..64 {
                    if proto.is_null() {
                        return false;
                    }
                    if Object::is(&proto, &target) {
                        return true;
                    }
                    match Reflect::get_prototype_of(&proto) {
                        Ok(p) => proto = p,
                        Err(_) => return false,
                    }
                }
                false
            })
    }
}

/// The constructor name from the prototype's own `constructor` data
/// property (an accessor there is not run).
fn ctor_name(value: &JsValue) -> Option<String> {
    let proto: JsValue = Reflect::get_prototype_of(value).ok()?.into();
    if proto.is_null() {
        return None;
    }
    let desc = own_descriptor(&proto, &"constructor".into()).ok()?;
    let ctor = get(&desc, "value")?;
    // The function's own `name` data property (a `static get name()` is
    // not run).
    let name_desc = own_descriptor(&ctor, &"name".into()).ok()?;
    let name = get(&name_desc, "value")?.as_string()?;
    (!name.is_empty()).then_some(name)
}

impl Walker {
    fn new(limits: WalkLimits) -> Walker {
        Walker {
            limits,
            ancestors: Vec::new(),
            refs: Vec::new(),
            promises: Vec::new(),
            // `full` (no item limit) may visit more nodes.
            budget: match limits.items {
                usize::MAX => crate::reply::FULL_NODES,
                _ => BUDGET,
            },
            text: TEXT_BUDGET,
        }
    }

    fn node(&mut self, value: &JsValue, depth: usize) -> Node {
        if self.budget == 0 {
            return Node::Deep("…".into());
        }
        self.budget -= 1;
        if value.is_undefined() {
            return Node::Undefined;
        }
        if value.is_null() {
            return Node::Null;
        }
        if let Some(b) = value.as_bool() {
            return Node::Bool(b);
        }
        if let Some(n) = value.as_f64() {
            return Node::Number(n);
        }
        if let Some((kept, len)) = cut_string(value, self.limits.string.min(self.text)) {
            self.text = self.text.saturating_sub(kept.len());
            return match kept.encode_utf16().count() < len {
                true => Node::LongStr(kept, len),
                false => Node::Str(kept),
            };
        }
        if value.is_bigint() {
            let digits = value
                .clone()
                .dyn_into::<js_sys::BigInt>()
                .ok()
                .and_then(|b| b.to_string(10).ok())
                .map(String::from)
                .unwrap_or_default();
            return Node::BigInt(digits);
        }
        if value.is_symbol() {
            let desc = value
                .clone()
                .dyn_into::<js_sys::Symbol>()
                .ok()
                .and_then(|s| s.description())
                .map(String::from)
                .unwrap_or_default();
            return Node::Symbol(desc);
        }
        if value.is_function() {
            return function(value);
        }
        // An object: cycles first.
        if let Some(i) = self.ancestors.iter().position(|a| Object::is(a, value)) {
            let target = self.ancestors[i].clone();
            let n = match self.refs.iter().find(|(v, _)| Object::is(v, &target)) {
                Some((_, n)) => *n,
                None => {
                    let n = self.refs.len() + 1;
                    self.refs.push((target, n));
                    n
                }
            };
            return Node::Circular(n);
        }
        self.ancestors.push(value.clone());
        let node = self.object(value, depth);
        self.ancestors.pop();
        match self.refs.iter().find(|(v, _)| Object::is(v, value)) {
            Some((_, n)) => Node::Ref(*n, Box::new(node)),
            None => node,
        }
    }

    fn object(&mut self, value: &JsValue, depth: usize) -> Node {
        let ctor = ctor_name(value);
        if let Some(p) = value.dyn_ref::<Promise>() {
            self.promises.push(p.clone());
            return Node::Promise(PromiseState::Pending);
        }
        if value.is_instance_of::<js_sys::Date>() {
            let time = proto_call("Date", "getTime", value).and_then(|t| t.as_f64());
            let valid = time.is_some_and(|t| !t.is_nan());
            let iso = valid
                .then(|| proto_call("Date", "toISOString", value))
                .flatten()
                .and_then(|v| v.as_string());
            return Node::Date(iso);
        }
        if value.is_instance_of::<js_sys::RegExp>() {
            let text = proto_call("RegExp", "toString", value).and_then(|v| v.as_string());
            return Node::RegExp(text.unwrap_or_else(|| "/(unreadable)/".into()));
        }
        if value.is_instance_of::<js_sys::Error>() {
            return self.error(value, depth);
        }
        if is_instance(value, "Element") {
            return element(value);
        }
        let deep = depth >= self.limits.depth;
        if is_array(value).unwrap_or(false) {
            if deep {
                return Node::Deep("Array".into());
            }
            let len = get(value, "length").and_then(|l| l.as_f64()).unwrap_or(0.0) as usize;
            let shown = len.min(self.limits.items);
            let items = (0..shown)
                .map(|i| {
                    let v = own_value(value, &JsValue::from(i as u32));
                    self.slot(v, depth)
                })
                .collect();
            return Node::Array {
                items,
                more: len - shown,
            };
        }
        let map = value.is_instance_of::<js_sys::Map>();
        if map || value.is_instance_of::<js_sys::Set>() {
            let kind = if map { "Map" } else { "Set" };
            if deep {
                return Node::Deep(kind.into());
            }
            let size = get(value, "size").and_then(|l| l.as_f64()).unwrap_or(0.0) as usize;
            // The built-in iterator of this realm, not one the value
            // carries; every step can throw (a Proxy), and is caught.
            let (ctor_of, method) = if map {
                ("Map", "entries")
            } else {
                ("Set", "values")
            };
            let mut found = Vec::new();
            if let Some(iter) = proto_call(ctor_of, method, value) {
                let next = get(&iter, "next").and_then(|f| f.dyn_into::<Function>().ok());
                while let Some(step) = next
                    .as_ref()
                    .filter(|_| found.len() < self.limits.items)
                    .and_then(|f| Reflect::apply(f, &iter, &Array::new()).ok())
                {
                    if get(&step, "done").is_none_or(|d| d.is_truthy()) {
                        break;
                    }
                    found.push(get(&step, "value").unwrap_or(JsValue::UNDEFINED));
                }
            }
            if map {
                let entries = found
                    .iter()
                    .map(|pair| {
                        let k = Reflect::get_u32(pair, 0).unwrap_or(JsValue::UNDEFINED);
                        let v = Reflect::get_u32(pair, 1).unwrap_or(JsValue::UNDEFINED);
                        (self.node(&k, depth + 1), self.node(&v, depth + 1))
                    })
                    .collect();
                return Node::Map { entries, size };
            }
            let items = found.iter().map(|v| self.node(v, depth + 1)).collect();
            return Node::Set { items, size };
        }
        if ArrayBuffer::is_view(value) && !value.is_instance_of::<js_sys::DataView>() {
            return self.typed(value, ctor.unwrap_or_else(|| "TypedArray".into()));
        }
        if let Some(kind) = ctor
            .as_deref()
            .filter(|c| matches!(*c, "NodeList" | "HTMLCollection" | "HTMLAllCollection"))
        {
            if deep {
                return Node::Deep(kind.into());
            }
            let len = get(value, "length").and_then(|l| l.as_f64()).unwrap_or(0.0) as usize;
            let shown = len.min(self.limits.items);
            let items = (0..shown)
                .map(|i| {
                    let v = Reflect::get_u32(value, i as u32).unwrap_or(JsValue::UNDEFINED);
                    self.node(&v, depth + 1)
                })
                .collect();
            return Node::Collection {
                kind: kind.into(),
                items,
                len,
            };
        }
        if deep {
            return Node::Deep(ctor.unwrap_or_else(|| "Object".into()));
        }
        let keys = match Reflect::own_keys(value) {
            Ok(k) => k,
            Err(_) => return Node::Deep("unreadable".into()),
        };
        let mut entries = Vec::new();
        let mut total = 0;
        for key in keys.iter() {
            let Some(name) = key.as_string() else {
                continue;
            }; // symbols
            let Ok(desc) = own_descriptor(value, &key) else {
                continue;
            };
            if !get(&desc, "enumerable").is_some_and(|e| e.is_truthy()) {
                continue;
            }
            total += 1;
            if entries.len() >= self.limits.items {
                continue;
            }
            let v = match get(&desc, "get").filter(|g| !g.is_undefined()) {
                Some(_) => Node::Getter,
                None => {
                    let v = get(&desc, "value").unwrap_or(JsValue::UNDEFINED);
                    self.node(&v, depth + 1)
                }
            };
            entries.push((name, v));
        }
        let more = total - entries.len();
        Node::Object {
            ctor,
            entries,
            more,
        }
    }

    /// An array slot: a getter shows as `[Getter]`, a hole as `undefined`.
    fn slot(&mut self, v: Result<JsValue, Node>, depth: usize) -> Node {
        match v {
            Ok(v) => self.node(&v, depth + 1),
            Err(n) => n,
        }
    }

    fn error(&mut self, value: &JsValue, depth: usize) -> Node {
        // Own data properties only: a getter the page put there is not run.
        let own = |k: &str| {
            own_value(value, &k.into())
                .ok()
                .filter(|v| !v.is_undefined())
        };
        let text = |v: Option<JsValue>, limit: usize| {
            v.and_then(|v| cut_string(&v, limit))
                .map(|(s, _)| s)
                .unwrap_or_default()
        };
        let cause = own("cause")
            .filter(|_| depth < self.limits.depth)
            .map(|c| Box::new(self.node(&c, depth + 1)));
        // `name` lives on the prototype; `stack` is the engine's own.
        let name = text(get(value, "name"), 200);
        // An error's text keeps its own cut, whole strings or not.
        let limit = self.limits.string.min(ERROR_TEXT);
        let message = text(own("message"), limit);
        // Folded here, before the value's text is laid out around it.
        let stack = get(value, "stack")
            .and_then(|v| cut_string(&v, limit))
            .map(|(s, _)| crate::stack::fold(&s));
        Node::Error {
            name,
            message,
            stack,
            cause,
        }
    }

    fn typed(&mut self, value: &JsValue, kind: String) -> Node {
        let len = get(value, "length").and_then(|l| l.as_f64()).unwrap_or(0.0) as usize;
        let shown = len.min(self.limits.items);
        let items = (0..shown)
            .map(|i| {
                let v = Reflect::get_u32(value, i as u32).unwrap_or(JsValue::UNDEFINED);
                match v.as_f64() {
                    Some(n) => crate::inspect::inspect(&Node::Number(n)),
                    None => crate::inspect::inspect(&self.node(&v, self.limits.depth)),
                }
            })
            .collect();
        Node::Typed { kind, items, len }
    }
}

/// `Ctor.prototype.method.call(value)`: the built-in, never an override the
/// value carries; a throw (wrong receiver, Proxy) is `None`.
fn proto_call(ctor: &str, method: &str, value: &JsValue) -> Option<JsValue> {
    let proto = get(global_ctor(ctor)?.as_ref(), "prototype")?;
    let f = get(&proto, method)?.dyn_into::<Function>().ok()?;
    Reflect::apply(&f, value, &Array::new()).ok()
}

/// An own data value of `target[key]`; a getter is not run.
fn own_value(target: &JsValue, key: &JsValue) -> Result<JsValue, Node> {
    let Ok(desc) = own_descriptor(target, key) else {
        return Err(Node::Deep("unreadable".into()));
    };
    if desc.is_undefined() {
        return Ok(JsValue::UNDEFINED);
    }
    match get(&desc, "get").filter(|g| !g.is_undefined()) {
        Some(_) => Err(Node::Getter),
        None => Ok(get(&desc, "value").unwrap_or(JsValue::UNDEFINED)),
    }
}

/// `ƒ name(params)` or `class Name`, from the function's source text.
fn function(value: &JsValue) -> Node {
    // The own `name` data property; a `static get name()` is not run.
    let name = own_descriptor(value, &"name".into())
        .ok()
        .and_then(|d| get(&d, "value"))
        .and_then(|n| n.as_string())
        .unwrap_or_default();
    let source = proto_call("Function", "toString", value)
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    if source.starts_with("class") {
        let name = if name.is_empty() {
            "(anonymous)".into()
        } else {
            name
        };
        return Node::Function {
            signature: name,
            class: true,
        };
    }
    let params = params_of(&source).unwrap_or_default();
    let name = if name.is_empty() {
        "(anonymous)".to_string()
    } else {
        name
    };
    Node::Function {
        signature: format!("{name}({params})"),
        class: false,
    }
}

/// The parameter list of a function's source: the text in the first
/// balanced parentheses, or the lone parameter of `x => ...`.
fn params_of(source: &str) -> Option<String> {
    const MAX: usize = 60;
    let head = text::split_once(source, "=>").map_or(source, |(h, _)| h);
    let params = match head.find('(') {
        Some(open) => {
            let mut depth = 0usize;
            let mut end = None;
            // `get`, not indexing: no slicing panic in the .wasm (see daebug_protocol::text).
            for (i, c) in head.get(open..)?.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(open + i);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            head.get(open + 1..end?)?.to_string()
        }
        None if text::contains(source, "=>") => {
            // As `trim_start_matches("async ")`, without the two-way searcher.
            let mut lone = head.trim();
            while let Some(rest) = lone.strip_prefix("async ") {
                lone = rest;
            }
            lone.to_string()
        }
        None => return None,
    };
    let params = text::join(&params.split_whitespace().collect::<Vec<_>>(), " ");
    Some(if text::chars(&params) > MAX {
        params.chars().take(MAX).chain("…".chars()).collect()
    } else {
        params
    })
}

/// `<tag#id.class> "text"` data of a DOM element.
fn element(value: &JsValue) -> Node {
    let text = |k: &str| {
        get(value, k)
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    };
    let class_name = get(value, "className")
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    // Only a short, visible text: what a person would recognise.
    let content = get(value, "textContent")
        .and_then(|v| v.dyn_into::<JsString>().ok())
        .map(|s| {
            let s: String = s.into();
            s.chars().take(200).collect::<String>()
        })
        .unwrap_or_default();
    Node::Element {
        tag: text("tagName"),
        id: text("id"),
        classes: class_name.split_whitespace().map(String::from).collect(),
        text: content,
    }
}
