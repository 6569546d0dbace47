//! `daebug eval`: a block run in a realm through its log; the reply
//! printed, the exit status its outcome.

use std::io::{Read, Write};

use daebug::doors::client;
use daebug::doors::door::Door;
use daebug::doors::json::{DoorError, EvalReply, EvalRequest, Timeout};

use super::{connect, HubArgs};

/// The request `daebug eval` sends: `code`, or stdin's text for `-`.
pub fn eval_request(
    code: &str,
    mut stdin: impl Read,
    lang: Option<String>,
    timeout: Option<String>,
    agent: Option<String>,
) -> std::io::Result<EvalRequest> {
    let code = if code == "-" {
        let mut text = String::new();
        stdin.read_to_string(&mut text)?;
        text
    } else {
        code.to_string()
    };
    Ok(EvalRequest {
        code,
        lang,
        timeout: timeout.map(|t| timeout_arg(&t)),
        agent,
    })
}

/// `--timeout`: a number is seconds, anything else a fence's value (the
/// hub checks it).
pub fn timeout_arg(text: &str) -> Timeout {
    match text.trim().parse::<f64>() {
        Ok(s) => Timeout::Seconds(s),
        Err(_) => Timeout::Text(text.trim().to_string()),
    }
}

pub async fn eval(
    hub: &HubArgs,
    realm: &str,
    req: EvalRequest,
    json: bool,
) -> Result<u8, DoorError> {
    let reply = connect(hub)?.eval(realm, req).await?;
    print_reply(&reply, json);
    Ok(client::exit_status(&reply))
}

/// A block's reply on stdout: its log text (ending in a newline), or the
/// whole answer as JSON. `daebug eval` and `daebug test` print alike.
pub fn print_reply(reply: &EvalReply, json: bool) {
    let mut out = std::io::stdout().lock();
    if json {
        let text = serde_json::to_string_pretty(reply).unwrap_or_default();
        let _ = writeln!(out, "{text}");
    } else {
        let _ = write!(out, "{}", reply.text);
        if !reply.text.ends_with('\n') {
            let _ = writeln!(out);
        }
        if let Some(e) = &reply.log_error {
            eprintln!("daebug: {e}");
        }
    }
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::Command;
    use std::path::PathBuf;

    fn parse(args: &[&str]) -> crate::cmd::Cli {
        use clap::Parser;
        crate::cmd::Cli::try_parse_from(std::iter::once("daebug").chain(args.iter().copied()))
            .expect("parse")
    }

    #[test]
    fn eval_arguments_to_a_request() {
        let cli = parse(&[
            "eval",
            "shop",
            "1+1",
            "--timeout",
            "1",
            "--lang",
            "ts",
            "--port",
            "9000",
        ]);
        let Some(Command::Eval {
            hub,
            realm,
            code,
            timeout,
            lang,
            agent,
            json,
        }) = cli.command
        else {
            panic!("not eval");
        };
        assert_eq!(
            (realm.as_str(), hub.port, json),
            ("shop", Some(9000), false)
        );
        assert_eq!(hub.root, PathBuf::from("."));
        let req = eval_request(&code, std::io::empty(), lang, timeout, agent).unwrap();
        assert_eq!(
            req,
            EvalRequest {
                code: "1+1".into(),
                lang: Some("ts".into()),
                timeout: Some(Timeout::Seconds(1.0)),
                agent: None,
            }
        );
        let req = eval_request(
            "-",
            "document.title\n".as_bytes(),
            None,
            Some("90s".into()),
            None,
        )
        .unwrap();
        assert_eq!(req.code, "document.title\n");
        assert_eq!(req.timeout, Some(Timeout::Text("90s".into())));
        let json = serde_json::to_value(&req).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"code": "document.title\n", "timeout": "90s"})
        );
    }
}
