//! `daebug act`: one action of a page's toolkit (docs/actions.md) run as
//! a block through its log, `daebug act shop click 'text=Sign in'`; the
//! reply printed, the exit status its outcome, as `daebug eval`.

use clap::ValueEnum;
use daebug::doors::json::{DoorError, EvalRequest};

use super::eval::{eval, timeout_arg};
use super::HubArgs;

/// The actions, as the toolkit names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Action {
    Click,
    Fill,
    Press,
    Hover,
    Check,
    Uncheck,
    Select,
    Drag,
    Upload,
    Settle,
}

impl Action {
    fn name(self) -> &'static str {
        match self {
            Action::Click => "click",
            Action::Fill => "fill",
            Action::Press => "press",
            Action::Hover => "hover",
            Action::Check => "check",
            Action::Uncheck => "uncheck",
            Action::Select => "select",
            Action::Drag => "drag",
            Action::Upload => "upload",
            Action::Settle => "settle",
        }
    }

    /// How many arguments it takes: the least and the most.
    fn arity(self) -> (usize, usize) {
        match self {
            Action::Settle => (0, 0),
            Action::Press => (1, 2),
            Action::Fill => (1, 2),
            Action::Click | Action::Hover | Action::Check | Action::Uncheck => (1, 1),
            Action::Select | Action::Drag => (2, 2),
            // A target and its files, each a URL the page fetches.
            Action::Upload => (2, usize::MAX),
        }
    }
}

/// The block that runs `action` with `args`, each a string (upload's
/// files as one list), or why the arguments do not fit.
pub fn act_code(action: Action, args: &[String]) -> Result<String, String> {
    let name = action.name();
    let (least, most) = action.arity();
    if args.len() < least || args.len() > most {
        let want = match (least, most) {
            (0, 0) => "no arguments".to_string(),
            (a, b) if a == b => format!("{a} argument{}", if a == 1 { "" } else { "s" }),
            (a, usize::MAX) => format!("{a} or more arguments"),
            (a, b) => format!("{a} to {b} arguments"),
        };
        return Err(format!(
            "`daebug act … {name}` takes {want} (docs/actions.md), not {}",
            args.len()
        ));
    }
    let quoted: Vec<String> = args
        .iter()
        .map(|a| serde_json::to_string(a).unwrap_or_default())
        .collect();
    let list = match action {
        Action::Upload => format!("{}, [{}]", quoted[0], quoted[1..].join(", ")),
        _ => quoted.join(", "),
    };
    Ok(format!("await daebug.{name}({list})"))
}

pub async fn act(
    hub: &HubArgs,
    realm: &str,
    action: Action,
    args: &[String],
    timeout: Option<String>,
    agent: Option<String>,
    json: bool,
) -> Result<u8, DoorError> {
    let code = act_code(action, args).map_err(|message| DoorError::BadRequest { message })?;
    let req = EvalRequest {
        code,
        lang: None,
        timeout: timeout.map(|t| timeout_arg(&t)),
        agent,
    };
    eval(hub, realm, req, json).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(action: Action, args: &[&str]) -> Result<String, String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        act_code(action, &args)
    }

    #[test]
    fn an_action_is_one_call_of_the_toolkit_with_its_arguments_quoted() {
        assert_eq!(
            code(Action::Click, &["text=Sign in"]).unwrap(),
            r#"await daebug.click("text=Sign in")"#
        );
        assert_eq!(
            code(Action::Fill, &["label=Email", "a\"b"]).unwrap(),
            r#"await daebug.fill("label=Email", "a\"b")"#
        );
        assert_eq!(
            code(Action::Press, &["Control+a"]).unwrap(),
            r#"await daebug.press("Control+a")"#
        );
        assert_eq!(
            code(Action::Upload, &["#file", "/a.png", "/b.png"]).unwrap(),
            r##"await daebug.upload("#file", ["/a.png", "/b.png"])"##
        );
        assert_eq!(code(Action::Settle, &[]).unwrap(), "await daebug.settle()");
    }

    #[test]
    fn arguments_that_do_not_fit_are_said() {
        assert_eq!(
            code(Action::Click, &[]).unwrap_err(),
            "`daebug act … click` takes 1 argument (docs/actions.md), not 0"
        );
        assert!(code(Action::Drag, &["a"])
            .unwrap_err()
            .contains("takes 2 arguments"));
        assert!(code(Action::Settle, &["x"])
            .unwrap_err()
            .contains("takes no arguments"));
        assert!(code(Action::Upload, &["#f"])
            .unwrap_err()
            .contains("2 or more"));
    }
}
