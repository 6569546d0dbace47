//! `daebug eval`: a block run in a realm through its log; the reply
//! printed, the exit status its outcome.

use std::io::{Read, Write};
use std::path::Path;

use daebug::doors::client;
use daebug::doors::door::Door;
use daebug::doors::json::{DoorError, EvalReply, EvalRequest, Timeout};

use super::{connect, HubArgs};

/// Where `daebug eval` takes its code from.
pub enum Source<'a> {
    /// The argument itself.
    Code(&'a str),
    /// Standard input (`-`).
    Stdin(Box<dyn Read + 'a>),
    /// `--file PATH`.
    File(&'a Path),
}

/// The request `daebug eval` sends, or why there is none (the message
/// names the file or stream that failed).
pub fn eval_request(
    source: Source<'_>,
    lang: Option<String>,
    timeout: Option<String>,
    agent: Option<String>,
) -> Result<EvalRequest, String> {
    let (code, lang) = match source {
        Source::Code(code) if names_a_file(code) => {
            return Err(format!(
                "`{code}` is a file, not code: to run the code in it, give `--file {code}`"
            ));
        }
        Source::Code(code) => (code.to_string(), lang),
        Source::Stdin(mut stdin) => {
            let mut text = String::new();
            stdin
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read the code from stdin: {e}"))?;
            (text, lang)
        }
        Source::File(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let ts = path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| ["ts", "mts", "cts", "tsx"].contains(&e));
            (text, lang.or_else(|| ts.then(|| "ts".to_string())))
        }
    };
    Ok(EvalRequest {
        code,
        lang,
        timeout: timeout.map(|t| timeout_arg(&t)),
        agent,
    })
}

/// Whether code given as an argument is the name of a file here (one
/// word, no spaces): `daebug eval shop v1.js` meant `--file v1.js`, and
/// running the name as code would only fail in the realm with a puzzling
/// error (`Unexpected flag 1 in regular expression literal`).
fn names_a_file(code: &str) -> bool {
    let word = code.trim();
    !word.is_empty() && !word.contains(char::is_whitespace) && Path::new(word).is_file()
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
            file,
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
        assert_eq!(file, None);
        let code = code.unwrap();
        let req = eval_request(Source::Code(&code), lang, timeout, agent).unwrap();
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
            Source::Stdin(Box::new("document.title\n".as_bytes())),
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

    /// `--file` runs the code in a file (TypeScript by its extension); a
    /// file's name given as code is an error that names the file and the
    /// flag, not a block that fails in the realm.
    #[test]
    fn code_from_a_file_and_a_path_given_as_code() {
        let dir = tempfile::tempdir().unwrap();
        let js = dir.path().join("v1.js");
        std::fs::write(&js, "return [1, 2]\n").unwrap();
        let ts = dir.path().join("check.ts");
        std::fs::write(&ts, "const n: number = 2\nn\n").unwrap();
        let cli = parse(&["eval", "shop", "--file", js.to_str().unwrap()]);
        let Some(Command::Eval { code, file, .. }) = cli.command else {
            panic!("not eval");
        };
        assert_eq!((code, file.as_deref()), (None, Some(js.as_path())));
        let req = eval_request(Source::File(&js), None, None, None).unwrap();
        assert_eq!((req.code.as_str(), req.lang), ("return [1, 2]\n", None));
        let req = eval_request(Source::File(&ts), None, None, None).unwrap();
        assert_eq!(req.lang.as_deref(), Some("ts"));
        let missing = dir.path().join("gone.js");
        let err = eval_request(Source::File(&missing), None, None, None).unwrap_err();
        assert!(
            err.starts_with(&format!("cannot read {}: ", missing.display())),
            "{err}"
        );

        let name = js.to_str().unwrap();
        let err = eval_request(Source::Code(name), None, None, None).unwrap_err();
        assert_eq!(
            err,
            format!("`{name}` is a file, not code: to run the code in it, give `--file {name}`")
        );
        // Code that is no file's name runs as it is.
        assert!(eval_request(Source::Code("v1.js"), None, None, None).is_ok());
        // Code and --file together, or neither, is a usage error.
        use clap::Parser;
        let both = ["daebug", "eval", "shop", "1", "--file", name];
        assert!(crate::cmd::Cli::try_parse_from(both).is_err());
        assert!(crate::cmd::Cli::try_parse_from(["daebug", "eval", "shop"]).is_err());
    }
}
