//! Running a realm's tests from outside (docs/doors.md, "POST /api/realms/{realm}/test"):
//! `daebug test`, `POST /api/realms/{realm}/test` and the MCP tool
//! `run_tests` each send one block, `await daebug.test(spec, options)`,
//! through the realm's log like any other door, so the log records the
//! run and its streamed lines; the block's value is the result
//! `{ passed, failed, skipped, todo, duration_ms, failures }`.

use serde::{Deserialize, Serialize};

use super::client::{exit_status, EXIT_FAILED, EXIT_OK};
use super::json::{EvalReply, EvalRequest, Timeout};

/// What to run: the body of `POST /api/realms/{realm}/test`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestRequest {
    /// A path, a glob, or a list of them (the realm's default, test files
    /// under its root, when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<Spec>,
    /// Only tests whose full name (`suite › test`) matches this regular
    /// expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// Only tests marked `only`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub only: bool,
    /// The run's timeout (the block's), as for an eval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<Timeout>,
    /// The name the log's request header gives the caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// `spec`: one path or glob, or several.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Spec {
    One(String),
    Many(Vec<String>),
}

/// The block a test request sends.
pub fn test_block(req: &TestRequest) -> EvalRequest {
    let spec = match &req.spec {
        Some(spec) => serde_json::to_string(spec).unwrap_or_else(|_| "undefined".into()),
        None => "undefined".into(),
    };
    let mut options = serde_json::Map::new();
    if let Some(filter) = &req.filter {
        options.insert("filter".into(), filter.clone().into());
    }
    if req.only {
        options.insert("only".into(), true.into());
    }
    let options = serde_json::Value::Object(options);
    EvalRequest {
        code: format!("await daebug.test({spec}, {options})"),
        lang: None,
        timeout: req.timeout.clone(),
        agent: req.agent.clone(),
    }
}

/// The exit status of `daebug test`: 0 when every test passed, 1 when any
/// failed (or the run itself threw), 2 when it timed out.
pub fn tests_exit_status(reply: &EvalReply) -> u8 {
    if !reply.ok {
        return exit_status(reply);
    }
    let failed = reply
        .value
        .as_ref()
        .and_then(|v| v.get("failed"))
        .and_then(serde_json::Value::as_u64);
    match failed {
        Some(0) => EXIT_OK,
        _ => EXIT_FAILED,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_one_block() {
        let cases = [
            (TestRequest::default(), "await daebug.test(undefined, {})"),
            (
                TestRequest {
                    spec: Some(Spec::One("src/**/*.test.js".into())),
                    filter: Some("cart".into()),
                    ..TestRequest::default()
                },
                r#"await daebug.test("src/**/*.test.js", {"filter":"cart"})"#,
            ),
            (
                TestRequest {
                    spec: Some(Spec::Many(vec!["a.test.js".into(), "b\".test.js".into()])),
                    only: true,
                    ..TestRequest::default()
                },
                r#"await daebug.test(["a.test.js","b\".test.js"], {"only":true})"#,
            ),
        ];
        for (req, code) in cases {
            assert_eq!(test_block(&req).code, code);
        }
        let parsed: TestRequest =
            serde_json::from_str(r#"{"spec":["x.test.js"],"filter":"a","timeout":5}"#).unwrap();
        assert_eq!(parsed.spec, Some(Spec::Many(vec!["x.test.js".into()])));
        assert_eq!(test_block(&parsed).timeout, Some(Timeout::Seconds(5.0)));
    }

    #[test]
    fn exit_status_follows_the_failed_count() {
        let reply = |ok: bool, state: &str, value: Option<serde_json::Value>| EvalReply {
            ok,
            state: state.into(),
            text: String::new(),
            value,
            error: None,
            events: vec![],
            duration_ms: 1,
            log: "debug/x.md".into(),
            images: vec![],
            log_error: None,
        };
        let v = |failed: u64| Some(serde_json::json!({ "passed": 3, "failed": failed }));
        assert_eq!(tests_exit_status(&reply(true, "completed", v(0))), 0);
        assert_eq!(tests_exit_status(&reply(true, "completed", v(2))), 1);
        assert_eq!(tests_exit_status(&reply(true, "completed", None)), 1);
        assert_eq!(tests_exit_status(&reply(false, "failed", None)), 1);
        assert_eq!(tests_exit_status(&reply(false, "timeout", None)), 2);
    }
}
