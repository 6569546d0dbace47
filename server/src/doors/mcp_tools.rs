//! What an agent reads of the MCP tools before its first call
//! (docs/doors.md, "MCP"): the server's instructions, said once at
//! `initialize`, and each tool's one-line description and input schema,
//! in `tools/list`. Every client sends `tools/list` to the model at each
//! turn, so it is kept as small as chrome-devtools-mcp `--slim`'s (1,014
//! characters of JSON for its three tools; ours for four, a unit test
//! counts them): the schemas are written by hand (a derived one spends
//! `$schema`, `default: null`, `format` and nullable types on every
//! parameter) and what the tools share is said once, in the instructions.

use std::sync::{Arc, LazyLock};

use rmcp::model::JsonObject;

/// The server's instructions (`initialize`): what a realm is, how a block
/// runs, what the replies are, and the parameters the tools share.
pub const INSTRUCTIONS: &str = "\
daebug runs JavaScript in live realms: browser pages, iframes, Web Workers and Node \
processes connected to a local hub. A block runs as in the realm's devtools console: \
the last expression's value is the result, top-level await works, declarations stay \
for later calls until the realm reloads. Every block and reply is written in the \
realm's Markdown log, debug/<stem>.md. Name a realm by its stem from list_realms or a \
unique start of it (none listed: open a page that loads the hub's /daebug.js). eval \
returns the reply as the log shows it: the value in a fence, console output, errors \
with stacks; is_error when it throws or times out; pictures come as image content. \
lang: js (default) or ts (TypeScript). timeout: seconds, or \"90s\", \"500ms\", \"2m\". \
budget (eval, read_log): tokens (characters / 4); a longer text comes as a digest: \
counts by kind, the distinct console messages with their repeats, the first and last \
lines, and the file with the whole text. read_log: the last 200 lines by default, or \
the last `tail` lines; every read ends with a cursor: pass it as `since` to read only \
what was added after it. run_tests: is_error when a test failed.";

pub const LIST_REALMS: &str = "Connected realms (page, iframe, worker, node): stem kind state url.";

pub const EVAL: &str =
    "Run JS in a realm like its devtools console; returns the reply its log shows.";

pub const READ_LOG: &str =
    "A realm's log: last 200 lines, tail N, or what came since a read's cursor.";

pub const RUN_TESTS: &str =
    "Run node:test files in a realm (spec: path or glob; filter: name regexp).";

/// A JSON object literal as a tool's input schema.
fn object(schema: serde_json::Value) -> Arc<JsonObject> {
    match schema {
        serde_json::Value::Object(map) => Arc::new(map),
        _ => unreachable!("a schema literal is an object"),
    }
}

/// `list_realms` takes nothing.
pub fn list_realms_schema() -> Arc<JsonObject> {
    static SCHEMA: LazyLock<Arc<JsonObject>> =
        LazyLock::new(|| object(serde_json::json!({"type": "object"})));
    SCHEMA.clone()
}

/// `eval`'s parameters, as [`super::mcp::EvalArgs`] reads them.
pub fn eval_schema() -> Arc<JsonObject> {
    static SCHEMA: LazyLock<Arc<JsonObject>> = LazyLock::new(|| {
        object(serde_json::json!({
            "type": "object",
            "properties": {
                "realm": {"type": "string"},
                "code": {"type": "string"},
                "lang": {"enum": ["js", "ts"]},
                "timeout": {"type": ["number", "string"]},
                "budget": {"type": "integer"},
            },
            "required": ["realm", "code"],
        }))
    });
    SCHEMA.clone()
}

/// `read_log`'s parameters, as [`super::mcp::ReadLogArgs`] reads them.
pub fn read_log_schema() -> Arc<JsonObject> {
    static SCHEMA: LazyLock<Arc<JsonObject>> = LazyLock::new(|| {
        object(serde_json::json!({
            "type": "object",
            "properties": {
                "realm": {"type": "string"},
                "tail": {"type": "integer"},
                "since": {"type": "string"},
                "budget": {"type": "integer"},
            },
            "required": ["realm"],
        }))
    });
    SCHEMA.clone()
}

/// `run_tests`' parameters, as [`super::mcp::RunTestsArgs`] reads them.
pub fn run_tests_schema() -> Arc<JsonObject> {
    static SCHEMA: LazyLock<Arc<JsonObject>> = LazyLock::new(|| {
        object(serde_json::json!({
            "type": "object",
            "properties": {
                "realm": {"type": "string"},
                "spec": {"type": "string"},
                "filter": {"type": "string"},
            },
            "required": ["realm"],
        }))
    });
    SCHEMA.clone()
}
