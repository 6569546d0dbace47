//! `daebug mcp`: the MCP tools on stdin/stdout, attached to a running hub
//! or over one started in-process.

use std::process::ExitCode;

use clap::Args;
use daebug::doors::client::{self, ClientError};
use daebug::doors::json::HUB_FILE;

use super::serve::{serve, ServeArgs};
use super::shutdown_signal;

/// `daebug mcp`'s flags: the hub's, and whether to attach or start.
#[derive(Debug, Clone, Args)]
pub struct McpArgs {
    #[command(flatten)]
    pub serve: ServeArgs,

    /// Only attach to a running hub; exit with status 3 when none answers.
    #[arg(long, conflicts_with = "start")]
    pub attach: bool,

    /// Always start a hub in-process, even when one runs already (on the
    /// same root, give it another --port).
    #[arg(long)]
    pub start: bool,
}

/// `daebug mcp`: attached to the hub that runs where the flags or
/// `debug/.hub` say, or, when none answers there (or with `--start`), a
/// hub started in-process. Says on stderr which it chose.
pub async fn mcp(args: McpArgs) -> ExitCode {
    use daebug::doors::attached::AttachedHub;
    let McpArgs {
        serve: hub,
        attach,
        start,
    } = args;
    let found = match start {
        true => Err(ClientError::NoHub(
            "--start asks for a hub of its own".into(),
        )),
        false => {
            let host = hub.host.map(|h| h.to_string());
            AttachedHub::find(&hub.root, host.as_deref(), hub.port, hub.token.clone()).await
        }
    };
    match found {
        Ok(running) => {
            let how = match running.found_by_hub_file() {
                true => format!("named by {}", hub.root.join(HUB_FILE).display()),
                false => "at the address given".to_string(),
            };
            eprintln!(
                "daebug mcp: attached to the running hub at {} ({how}); MCP on stdin/stdout",
                running.url()
            );
            let signal = match shutdown_signal() {
                Ok(signal) => signal,
                Err(e) => {
                    eprintln!("daebug: cannot listen for signals: {e}");
                    return ExitCode::FAILURE;
                }
            };
            daebug::doors::mcp::serve_stdio_attached(running, signal).await;
            // A read of stdin may still be pending on a blocking thread.
            std::process::exit(0);
        }
        Err(e) if attach => {
            eprintln!("daebug: --attach: {e}");
            ExitCode::from(e.exit_status())
        }
        Err(ClientError::NoHub(why)) => {
            eprintln!("daebug mcp: starting a hub in-process ({why})");
            match serve(hub, true).await {
                Ok(status) => ExitCode::from(status),
                Err(e) => {
                    eprintln!("daebug: {e:#}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(e) => {
            eprintln!(
                "daebug: something answers there but not as a hub daebug mcp can use: {e}; \
                 give another --port (or the hub's --token), or --start for a hub of its own"
            );
            ExitCode::from(client::EXIT_OTHER)
        }
    }
}
