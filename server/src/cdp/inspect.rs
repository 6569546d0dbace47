//! The console's `getEventListeners(target)` and `queryObjects(C)`: what
//! only DevTools knows, answered in the page itself. The realm keeps the
//! argument in `globalThis[Symbol.for("daebug.asked")]` under its ask's
//! number; the bridge finds it there (`Runtime.evaluate`), asks the
//! browser (`DOMDebugger.getEventListeners`, `Runtime.queryObjects`),
//! and builds the console's answer in the page from the objects the
//! browser handed back (`Runtime.callFunctionOn`), under the same number
//! in `globalThis[Symbol.for("daebug.answered")]`. No value crosses the
//! wire: the listeners are the page's own functions, the objects its own.
//!
//! The debugger's commands for logpoints, `monitor` and `daebug.scopes`
//! (docs/log-format.md, "Logpoints") go the same way: the argument is
//! `{ method, params }`, one of [`DEBUGGER_METHODS`], sent on the realm's
//! own target, and the answer is the browser's result, kept in the realm
//! as JSON made into a value there.
//!
//! The expressions and parameters are pure functions, tested below; the
//! calls are in [`answer`] and [`command`].

use serde_json::{json, Value};

use daebug_protocol::Inspect;

use super::connection::CdpCommands;

/// The remote objects of ask `ask`, released when it ends (its own
/// group: two asks of a realm may run at once).
fn group(ask: u32) -> String {
    format!("daebug-inspect-{ask}")
}

/// The expression that reads the argument of ask `ask`.
pub fn argument(ask: u32) -> String {
    format!("globalThis[Symbol.for(\"daebug.asked\")]?.get({ask})")
}

/// `Runtime.evaluate`'s parameters for the argument: a remote object.
fn argument_params(ask: u32) -> Value {
    json!({ "expression": argument(ask), "silent": true, "objectGroup": group(ask) })
}

/// The function that keeps `value` as the answer to ask `ask` (called
/// with the answer as `this`, or as its first argument).
const KEEP: &str = "(globalThis[Symbol.for(\"daebug.answered\")] ??= new Map()).set(ask, value)";

/// `Runtime.callFunctionOn`'s parameters that build the console's
/// `getEventListeners` answer on the target `target` from the browser's
/// `listeners` (`DOMDebugger.getEventListeners`): `{ type: [{ listener,
/// useCapture, passive, once, type }] }`, in the browser's order.
pub fn listeners_params(target: &str, ask: u32, listeners: &[Value]) -> Value {
    let meta: Vec<Value> = listeners
        .iter()
        .map(|l| {
            json!({
                "type": l.get("type").cloned().unwrap_or(Value::Null),
                "useCapture": l.get("useCapture").cloned().unwrap_or(Value::Bool(false)),
                "passive": l.get("passive").cloned().unwrap_or(Value::Bool(false)),
                "once": l.get("once").cloned().unwrap_or(Value::Bool(false)),
            })
        })
        .collect();
    let mut arguments = vec![json!({ "value": ask }), json!({ "value": meta })];
    arguments.extend(
        listeners
            .iter()
            .map(|l| match l.pointer("/handler/objectId") {
                Some(id) => json!({ "objectId": id }),
                None => json!({ "value": null }),
            }),
    );
    json!({
        "objectId": target,
        "functionDeclaration": format!(
            "function (ask, meta, ...handlers) {{ const value = {{}}; \
             meta.forEach((m, i) => (value[m.type] ??= []).push({{ listener: handlers[i], useCapture: m.useCapture, passive: m.passive, once: m.once, type: m.type }})); \
             {KEEP} }}"
        ),
        "arguments": arguments,
        "silent": true,
    })
}

/// `Runtime.callFunctionOn`'s parameters that read the prototype
/// `queryObjects` looks for: a function's `prototype`, else the object.
fn prototype_params(argument: &str, ask: u32) -> Value {
    json!({
        "objectId": argument,
        "functionDeclaration": "function () { return typeof this === \"function\" ? this.prototype : this }",
        "objectGroup": group(ask),
        "silent": true,
    })
}

/// `Runtime.callFunctionOn`'s parameters that keep the array
/// `Runtime.queryObjects` made (`objects`) as the answer to `ask`.
pub fn objects_params(objects: &str, ask: u32) -> Value {
    json!({
        "objectId": objects,
        "functionDeclaration": format!("function (ask) {{ const value = Array.from(this); {KEEP} }}"),
        "arguments": [{ "value": ask }],
        "silent": true,
    })
}

/// The object id of a `Runtime.evaluate` / `callFunctionOn` result, or
/// `None` for a primitive (or an exception).
fn object_id(answer: &Value) -> Option<&str> {
    if answer.get("exceptionDetails").is_some() {
        return None;
    }
    answer.pointer("/result/objectId").and_then(Value::as_str)
}

/// What a realm may ask of its own target's debugger: breakpoints whose
/// conditions log and answer false (the realm's debugger.js), and reading
/// a function's scopes.
pub const DEBUGGER_METHODS: [&str; 9] = [
    "Debugger.enable",
    "Debugger.disable",
    "Debugger.setBreakpointByUrl",
    "Debugger.setBreakpointOnFunctionCall",
    "Debugger.removeBreakpoint",
    "Runtime.evaluate",
    "Runtime.getProperties",
    "Runtime.callFunctionOn",
    "Runtime.releaseObjectGroup",
];

/// What a running block's action may ask of its page's target: a
/// person's input, made by the browser (docs/actions.md, "Trusted input").
/// Nothing that reads or runs code: the realm's own page gets events.
pub const INPUT_METHODS: [&str; 3] = [
    "Input.dispatchMouseEvent",
    "Input.dispatchKeyEvent",
    "Input.insertText",
];

/// The methods an ask of `what` may send, and the name its refusal uses.
fn allowed(what: Inspect) -> (&'static [&'static str], &'static str) {
    match what {
        Inspect::Input => (&INPUT_METHODS, "trusted input"),
        _ => (&DEBUGGER_METHODS, "the debugger"),
    }
}

/// The command the realm asked for, `{ method, params }`, when it is one
/// of [`DEBUGGER_METHODS`]: its params without a context of another
/// realm (an ask runs in the realm's own context).
pub fn debugger_command(asked: &Value) -> Result<(&'static str, Value), String> {
    command_of(asked, Inspect::Debugger)
}

/// The command the realm asked for, when it is one of the methods an ask
/// of `what` may send (see [`allowed`]).
fn command_of(asked: &Value, what: Inspect) -> Result<(&'static str, Value), String> {
    let (methods, name) = allowed(what);
    let method = asked.get("method").and_then(Value::as_str).unwrap_or("");
    let Some(method) = methods.iter().find(|m| **m == method) else {
        return Err(format!("{name}: {method:?} is not a command daebug sends"));
    };
    let mut params = match asked.get("params") {
        Some(Value::Object(p)) => Value::Object(p.clone()),
        _ => json!({}),
    };
    if let Some(p) = params.as_object_mut() {
        for k in [
            "contextId",
            "uniqueContextId",
            "executionContextId",
            "includeCommandLineAPI",
        ] {
            p.remove(k);
        }
    }
    Ok((method, params))
}

/// The expression that keeps `result` (the browser's answer, as JSON) as
/// the answer to ask `ask`.
pub fn keep_json(ask: u32, result: &Value) -> String {
    let text = serde_json::to_string(&result.to_string()).unwrap_or_else(|_| "\"null\"".into());
    format!(
        "(globalThis[Symbol.for(\"daebug.answered\")] ??= new Map()).set({ask}, JSON.parse({text})), undefined"
    )
}

/// Sends the command (of the debugger, or trusted input: `what`) the
/// realm keeps under `ask` on `session` and leaves the browser's result
/// there; what went wrong, in words.
pub async fn command(
    commands: &CdpCommands,
    session: &str,
    ask: u32,
    what: Inspect,
) -> Result<(), String> {
    let s = Some(session);
    let read = json!({ "expression": argument(ask), "silent": true, "returnByValue": true });
    let asked = commands
        .call("Runtime.evaluate", read, s)
        .await
        .map_err(|e| format!("the debugger: the browser said: {e}"))?;
    let asked = asked
        .pointer("/result/value")
        .cloned()
        .unwrap_or(Value::Null);
    let (method, params) = command_of(&asked, what)?;
    let result = commands
        .call(method, params, s)
        .await
        .map_err(|e| format!("{method}: {e}"))?;
    let keep = json!({ "expression": keep_json(ask, &result), "silent": true });
    let kept = commands
        .call("Runtime.evaluate", keep, s)
        .await
        .map_err(|e| format!("the debugger: the browser said: {e}"))?;
    match kept.get("exceptionDetails") {
        Some(_) => Err("the debugger: its answer could not be kept in the realm".into()),
        None => Ok(()),
    }
}

/// Asks the browser and leaves the answer to `ask` in the page of
/// `session`; what went wrong, in words for the block.
pub async fn answer(
    commands: &CdpCommands,
    session: &str,
    ask: u32,
    what: Inspect,
) -> Result<(), String> {
    if matches!(what, Inspect::Debugger | Inspect::Input) {
        return command(commands, session, ask, what).await;
    }
    let s = Some(session);
    let helper = what.helper();
    let call = |method: &'static str, params: Value| async move {
        commands
            .call(method, params, s)
            .await
            .map_err(|e| format!("{helper}(): the browser said: {e}"))
    };
    let found = call("Runtime.evaluate", argument_params(ask)).await?;
    let outcome = async {
        let Some(target) = object_id(&found) else {
            return Err(match what {
                Inspect::Listeners => "getEventListeners(): pass an object that gets events (an element, document, window)".to_string(),
                Inspect::Objects | Inspect::Debugger | Inspect::Input => "queryObjects(): pass a constructor (queryObjects(Promise)) or a prototype".to_string(),
            });
        };
        let built = match what {
            Inspect::Listeners => {
                let got = call(
                    "DOMDebugger.getEventListeners",
                    json!({ "objectId": target }),
                )
                .await?;
                let listeners = got
                    .get("listeners")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                call(
                    "Runtime.callFunctionOn",
                    listeners_params(target, ask, &listeners),
                )
                .await?
            }
            Inspect::Objects | Inspect::Debugger | Inspect::Input => {
                let proto = call("Runtime.callFunctionOn", prototype_params(target, ask)).await?;
                let Some(proto) = object_id(&proto) else {
                    return Err("queryObjects(): its prototype is not an object; pass a constructor (queryObjects(Promise)) or a prototype".into());
                };
                let queried = call(
                    "Runtime.queryObjects",
                    json!({ "prototypeObjectId": proto, "objectGroup": group(ask) }),
                )
                .await?;
                let Some(objects) = queried.pointer("/objects/objectId").and_then(Value::as_str)
                else {
                    return Err("queryObjects(): the browser gave no objects".into());
                };
                call("Runtime.callFunctionOn", objects_params(objects, ask)).await?
            }
        };
        match built.get("exceptionDetails") {
            Some(e) => Err(format!(
                "{helper}(): {}",
                e.pointer("/exception/description")
                    .and_then(Value::as_str)
                    .unwrap_or("the page threw")
            )),
            None => Ok(()),
        }
    }
    .await;
    let _ = commands
        .call(
            "Runtime.releaseObjectGroup",
            json!({ "objectGroup": group(ask) }),
            s,
        )
        .await;
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_argument_is_read_by_its_number() {
        assert_eq!(
            argument(7),
            "globalThis[Symbol.for(\"daebug.asked\")]?.get(7)"
        );
    }

    #[test]
    fn listeners_go_back_as_the_pages_own_functions_with_their_options() {
        let listeners = [
            json!({ "type": "click", "useCapture": true, "passive": false, "once": false, "handler": { "objectId": "h1" } }),
            json!({ "type": "keydown", "useCapture": false, "passive": true, "once": true, "handler": { "objectId": "h2" } }),
        ];
        let p = listeners_params("target-1", 3, &listeners);
        assert_eq!(p["objectId"], "target-1");
        assert_eq!(p["arguments"][0], json!({ "value": 3 }));
        assert_eq!(
            p["arguments"][1]["value"][1],
            json!({ "type": "keydown", "useCapture": false, "passive": true, "once": true })
        );
        assert_eq!(p["arguments"][2], json!({ "objectId": "h1" }));
        assert_eq!(p["arguments"][3], json!({ "objectId": "h2" }));
        let f = p["functionDeclaration"].as_str().unwrap();
        assert!(f.contains("listener: handlers[i]"), "{f}");
        assert!(f.contains("Symbol.for(\"daebug.answered\")"), "{f}");
    }

    #[test]
    fn objects_are_kept_as_an_array() {
        let p = objects_params("array-9", 4);
        assert_eq!(p["objectId"], "array-9");
        assert_eq!(p["arguments"], json!([{ "value": 4 }]));
        assert!(p["functionDeclaration"]
            .as_str()
            .unwrap()
            .contains("Array.from(this)"));
    }

    #[test]
    fn a_realm_asks_only_for_the_debuggers_commands_in_its_own_context() {
        let asked = json!({ "method": "Debugger.setBreakpointByUrl", "params": { "urlRegex": "a\\.js$", "lineNumber": 3, "condition": "false" } });
        let (method, params) = debugger_command(&asked).unwrap();
        assert_eq!(method, "Debugger.setBreakpointByUrl");
        assert_eq!(params["lineNumber"], 3);
        let asked = json!({ "method": "Runtime.evaluate", "params": { "expression": "1", "contextId": 4, "includeCommandLineAPI": true } });
        assert_eq!(
            debugger_command(&asked).unwrap().1,
            json!({ "expression": "1" })
        );
        let asked = json!({ "method": "Page.navigate", "params": { "url": "http://x" } });
        assert!(debugger_command(&asked)
            .unwrap_err()
            .contains("\"Page.navigate\" is not a command"));
        assert!(debugger_command(&json!(null)).is_err());
    }

    #[test]
    fn an_action_asks_only_for_input_events() {
        let click = json!({ "method": "Input.dispatchMouseEvent", "params": { "type": "mousePressed", "x": 10, "y": 20, "button": "left", "clickCount": 1 } });
        let (method, params) = command_of(&click, Inspect::Input).unwrap();
        assert_eq!(method, "Input.dispatchMouseEvent");
        assert_eq!(params["x"], 10);
        // Nothing that reads or runs code, and no input as the debugger.
        for other in ["Runtime.evaluate", "DOM.setFileInputFiles", "Page.navigate"] {
            let asked = json!({ "method": other, "params": {} });
            let refused = command_of(&asked, Inspect::Input).unwrap_err();
            assert!(refused.starts_with("trusted input: "), "{refused}");
        }
        assert!(command_of(&click, Inspect::Debugger).is_err());
    }

    #[test]
    fn the_answer_is_kept_as_json_made_a_value() {
        let e = keep_json(3, &json!({ "breakpointId": "1:2:0:a\"b", "locations": [] }));
        assert_eq!(
            e,
            r#"(globalThis[Symbol.for("daebug.answered")] ??= new Map()).set(3, JSON.parse("{\"breakpointId\":\"1:2:0:a\\\"b\",\"locations\":[]}")), undefined"#
        );
    }

    #[test]
    fn a_primitive_or_a_throw_has_no_object() {
        assert_eq!(
            object_id(&json!({ "result": { "type": "object", "objectId": "o1" } })),
            Some("o1")
        );
        assert_eq!(
            object_id(&json!({ "result": { "type": "undefined" } })),
            None
        );
        assert_eq!(
            object_id(&json!({ "result": { "objectId": "e" }, "exceptionDetails": {} })),
            None
        );
    }
}
