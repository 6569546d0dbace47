//! `daebug test <realm> [spec] [--filter RE]` (docs/log-format.md, "Tests in the realm"): the realm's
//! tests run through its log (`await daebug.test(spec, { filter })`); the
//! reply printed as the log has it (each result, the summary, the
//! failures), the exit status 0 when all passed, 1 when any failed.

use daebug::doors::door::Door;
use daebug::doors::json::DoorError;
use daebug::doors::run_tests::{test_block, tests_exit_status, Spec, TestRequest};

use super::{connect, HubArgs};

/// The request `daebug test` sends.
pub fn test_request(
    spec: Vec<String>,
    filter: Option<String>,
    only: bool,
    timeout: Option<String>,
    agent: Option<String>,
) -> TestRequest {
    let spec = match spec.len() {
        0 => None,
        1 => spec.into_iter().next().map(Spec::One),
        _ => Some(Spec::Many(spec)),
    };
    TestRequest {
        spec,
        filter,
        only,
        timeout: timeout.map(|t| super::eval::timeout_arg(&t)),
        agent,
    }
}

pub async fn test(
    hub: &HubArgs,
    realm: &str,
    req: &TestRequest,
    json: bool,
) -> Result<u8, DoorError> {
    let reply = connect(hub)?.eval(realm, test_block(req)).await?;
    super::eval::print_reply(&reply, json);
    Ok(tests_exit_status(&reply))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::Command;

    #[test]
    fn test_arguments_to_a_request() {
        use clap::Parser;
        let cli = crate::cmd::Cli::try_parse_from([
            "daebug",
            "test",
            "shop",
            "src/**/*.test.js",
            "--filter",
            "cart",
        ])
        .expect("parse");
        let Some(Command::Test {
            realm,
            spec,
            filter,
            only,
            timeout,
            agent,
            json,
            ..
        }) = cli.command
        else {
            panic!("not test");
        };
        assert_eq!((realm.as_str(), json), ("shop", false));
        let req = test_request(spec, filter, only, timeout, agent);
        assert_eq!(
            test_block(&req).code,
            r#"await daebug.test("src/**/*.test.js", {"filter":"cart"})"#
        );
        let cli = crate::cmd::Cli::try_parse_from(["daebug", "test", "shop"]).expect("parse");
        let Some(Command::Test { spec, .. }) = cli.command else {
            panic!("not test");
        };
        assert!(spec.is_empty());
    }
}
