//! The `daebug` command line, one file a subcommand (as mdBook's
//! `src/cmd/`): the flags here, and what each command does in its file.
//! `serve` and `mcp` run the hub (or attach to one); `list`, `eval`,
//! `act` and `tail` ask a running hub through the doors' one façade
//! ([`daebug::doors::door::Door`], attached over its HTTP API) and exit
//! with the block's outcome (docs/doors.md).

pub mod act;
pub mod attach;
pub mod beside;
pub mod check;
pub mod eval;
pub mod list;
pub mod mcp;
pub mod run;
pub mod serve;
pub mod tail;
pub mod test;

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use daebug::doors::attached::AttachedHub;
use daebug::doors::client;
use daebug::doors::json::DoorError;

pub use mcp::McpArgs;
pub use serve::ServeArgs;

/// Run JavaScript in live browser pages and workers from a Markdown chat log.
///
/// `daebug` alone (or `daebug serve`) starts the hub; `list`, `eval` and
/// `tail` talk to a running one.
#[derive(Debug, Parser)]
#[command(
    name = "daebug",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub serve: ServeArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start the hub (the same as `daebug` alone).
    Serve(ServeArgs),
    /// Start the hub attached to a Chromium you already have (started with
    /// `--remote-debugging-port=9222`): its pages (or those `--match`
    /// names) and their workers become realms with no tag, through
    /// DevTools. The same as `daebug --cdp URL`.
    Attach(attach::AttachArgs),
    /// Serve the hub's MCP tools on stdin/stdout (for an agent's MCP client
    /// config); everything else goes to stderr.
    ///
    /// Attaches to the hub that already runs at `--host`/`--port` when
    /// given, else at the one `DIR/debug/.hub` names, when it answers;
    /// otherwise starts a hub in-process with the flags given.
    Mcp(McpArgs),
    /// List the realms the hub knows: stem, kind, state, last heard, name, URL.
    List {
        #[command(flatten)]
        hub: HubArgs,
        /// Print the realms as JSON (GET /api/realms).
        #[arg(long)]
        json: bool,
    },
    /// Run a block in a realm through its log and print the reply.
    ///
    /// Exit status: 0 the block ran, 1 it failed, 2 it timed out, 3 no such
    /// realm or no hub, 4 anything else.
    Eval {
        #[command(flatten)]
        hub: HubArgs,
        /// The realm: its stem, or the start of exactly one stem.
        realm: String,
        /// The code to run, or `-` to read it from stdin.
        #[arg(required_unless_present = "file", conflicts_with = "file")]
        code: Option<String>,
        /// Run the code in this file (`.ts`, `.mts`, `.tsx` as TypeScript
        /// unless `--lang` says otherwise).
        #[arg(long, value_name = "PATH")]
        file: Option<std::path::PathBuf>,
        /// The block's timeout: seconds (`5`, `0.5`) or `90s`, `500ms`, `2m`.
        #[arg(long, value_name = "TIME")]
        timeout: Option<String>,
        /// `js` (default) or `ts`.
        #[arg(long, value_name = "LANG")]
        lang: Option<String>,
        /// The name the log's request header gives you (default `cli`).
        #[arg(long, value_name = "NAME")]
        agent: Option<String>,
        /// Print the whole answer as JSON (value, error, events, duration).
        #[arg(long)]
        json: bool,
    },
    /// Act in a page as a person would (docs/actions.md): `daebug act shop
    /// click 'text=Sign in'`, `fill 'label=Email' alice`, `press Enter`,
    /// `select '#plan' Pro`, `drag A B`, `upload '#file' /a.png`, `settle`;
    /// the block's reply printed, with what the action caused.
    ///
    /// Exit status: 0 it acted, 1 it failed (nothing to act on, a wait
    /// that ran out), 2 it timed out, 3 no such realm or no hub, 4
    /// anything else.
    Act {
        #[command(flatten)]
        hub: HubArgs,
        /// The realm: its stem, or the start of exactly one stem.
        realm: String,
        /// The action.
        #[arg(value_enum)]
        action: act::Action,
        /// Its arguments: a target (an element's locator: `text=…`,
        /// `role=button[name="…"]`, `label=…`, `placeholder=…`,
        /// `testid=…`, or CSS), then text, a key, a value, a second target
        /// or files, as the action takes them.
        #[arg(allow_hyphen_values = true)]
        args: Vec<String>,
        /// The block's timeout: seconds (`5`, `0.5`) or `90s`, `500ms`, `2m`.
        #[arg(long, value_name = "TIME")]
        timeout: Option<String>,
        /// The name the log's request header gives you (default `cli`).
        #[arg(long, value_name = "NAME")]
        agent: Option<String>,
        /// Print the whole answer as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run a realm's tests (node:test files) through its log and print the
    /// results, the summary and each failure.
    ///
    /// Exit status: 0 all passed, 1 any failed, 2 the run timed out, 3 no
    /// such realm or no hub, 4 anything else.
    Test {
        #[command(flatten)]
        hub: HubArgs,
        /// The realm: its stem, or the start of exactly one stem.
        realm: String,
        /// Test files: paths or globs under the hub's root (a page's) or the
        /// working directory (a Node process's); default: every
        /// `*.test.*` and `*.spec.*` file.
        spec: Vec<String>,
        /// Only tests whose full name (`suite › test`) matches this
        /// regular expression.
        #[arg(long, value_name = "REGEXP")]
        filter: Option<String>,
        /// Only tests marked `only`.
        #[arg(long)]
        only: bool,
        /// The run's timeout: seconds (`5`, `0.5`) or `90s`, `500ms`, `2m`.
        #[arg(long, value_name = "TIME")]
        timeout: Option<String>,
        /// The name the log's request header gives you (default `cli`).
        #[arg(long, value_name = "NAME")]
        agent: Option<String>,
        /// Print the whole answer as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Replay a recorded log's blocks against a live realm, in order, and
    /// compare each reply's value (or error) with the recorded one.
    ///
    /// Exit status: 0 every reply as recorded, 1 any difference, 3 no such
    /// realm or no hub, 4 anything else (an unreadable file).
    Check {
        #[command(flatten)]
        hub: HubArgs,
        /// The Markdown log to replay (`debug/<stem>.md`, or a copy).
        file: PathBuf,
        /// The realm to replay it in (default: the log's own stem).
        #[arg(long, value_name = "REALM")]
        realm: Option<String>,
        /// The name the log's request headers give the replay (default `check`).
        #[arg(long, value_name = "NAME")]
        agent: Option<String>,
        /// Replay only a span of the log: the blocks whose fence opens on
        /// these lines (`40-120`, `40-`, `-120`, 1-based, both ends in).
        #[arg(long, value_name = "FROM-TO")]
        lines: Option<daebug_core::check::LineSpan>,
    },
    /// Run a command (`node server.js`, `npm run dev`, `nodemon`) with the
    /// Node loader in `NODE_OPTIONS`, so every Node process it starts is a
    /// realm; without a running hub, the command runs unchanged.
    ///
    /// The command's exit status and signals are its own.
    Run {
        /// The hub's root: its `debug/.hub` and `debug/daebug-node.mjs`.
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
        /// The command and its arguments (after `--`).
        #[arg(
            required = true,
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "COMMAND"
        )]
        command: Vec<std::ffi::OsString>,
    },
    /// Print the end of a realm's log, then what is written to it, until Ctrl-C.
    Tail {
        #[command(flatten)]
        hub: HubArgs,
        /// The realm: its stem, or the start of exactly one stem.
        realm: String,
        /// How many of the log's last lines to print first.
        #[arg(short = 'n', long, value_name = "N", default_value_t = 20)]
        lines: usize,
    },
}

/// Where the hub listens unless told otherwise.
pub const DEFAULT_PORT: u16 = 8302;

/// How a client command finds the hub.
#[derive(Debug, Clone, Args)]
pub struct HubArgs {
    /// The hub's root: its `debug/.hub` says where the hub listens.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,

    /// The hub's port (instead of `debug/.hub`).
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,

    /// The hub's address (instead of `debug/.hub`; default 127.0.0.1).
    #[arg(long, value_name = "ADDR")]
    pub host: Option<String>,

    /// The hub's token, when it has one and `debug/.hub` is not at hand.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
}

/// Runs a client command; its exit status.
pub async fn run_client(command: Command) -> u8 {
    let result = match command {
        Command::Serve(_) | Command::Attach(_) | Command::Mcp(_) => {
            unreachable!("the hub's commands are not clients")
        }
        Command::List { hub, json } => list::list(&hub, json).await,
        Command::Eval {
            hub,
            realm,
            code,
            file,
            timeout,
            lang,
            agent,
            json,
        } => {
            let source = match (&file, code.as_deref()) {
                (Some(path), _) => eval::Source::File(path),
                (None, Some("-")) => eval::Source::Stdin(Box::new(std::io::stdin().lock())),
                (None, code) => eval::Source::Code(code.unwrap_or_default()),
            };
            let req = match eval::eval_request(source, lang, timeout, agent) {
                Ok(req) => req,
                Err(e) => {
                    eprintln!("daebug: {e}");
                    return client::EXIT_OTHER;
                }
            };
            eval::eval(&hub, &realm, req, json).await
        }
        Command::Tail { hub, realm, lines } => tail::tail(&hub, &realm, lines).await,
        Command::Act {
            hub,
            realm,
            action,
            args,
            timeout,
            agent,
            json,
        } => act::act(&hub, &realm, action, &args, timeout, agent, json).await,
        Command::Run { root, command } => Ok(run::run(&root, &command).await),
        Command::Test {
            hub,
            realm,
            spec,
            filter,
            only,
            timeout,
            agent,
            json,
        } => {
            let req = test::test_request(spec, filter, only, timeout, agent);
            test::test(&hub, &realm, &req, json).await
        }
        Command::Check {
            hub,
            file,
            realm,
            agent,
            lines,
        } => check::check(&hub, &file, realm.as_deref(), agent, lines).await,
    };
    match result {
        Ok(status) => status,
        Err(e) => {
            eprintln!("daebug: {e}");
            client::refusal_exit_status(&e)
        }
    }
}

/// The hub a client command talks to, through the doors' façade.
pub fn connect(hub: &HubArgs) -> Result<AttachedHub, DoorError> {
    AttachedHub::named(&hub.root, hub.host.as_deref(), hub.port, hub.token.clone())
        .map_err(daebug::doors::attached::door_error)
}

/// Writes `text` to stdout at once.
pub fn print_flush(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Listens for Ctrl-C and SIGTERM from now on (so a signal that arrives
/// while the hub starts is not lost) and resolves on the first of them.
/// A second Ctrl-C quits at once.
pub fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    let (mut int, mut term) = {
        use tokio::signal::unix::{signal, SignalKind};
        (
            signal(SignalKind::interrupt())?,
            signal(SignalKind::terminate())?,
        )
    };
    Ok(async move {
        #[cfg(unix)]
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down (press Ctrl-C again to quit at once)");
        tokio::spawn(async {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("daebug: quitting without cleaning up");
                std::process::exit(130);
            }
        });
    })
}

/// This very command line, for the registry's "start it again" note.
pub fn restart_command() -> String {
    std::env::args()
        .map(|a| {
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'') {
                format!("'{}'", a.replace('\'', r"'\''"))
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    pub(crate) fn parse(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("daebug").chain(args.iter().copied())).expect("parse")
    }

    #[test]
    fn the_hub_alone_or_serve() {
        for args in [
            &["--root", "site", "--port", "0"][..],
            &["serve", "--root", "site", "--port", "0"],
        ] {
            let cli = parse(args);
            let serve = match cli.command {
                None => cli.serve,
                Some(Command::Serve(s)) => s,
                Some(other) => panic!("{other:?}"),
            };
            assert_eq!(serve.root, PathBuf::from("site"));
            assert_eq!(serve.port, Some(0));
            assert_eq!(serve.timeout, 60.0);
        }
        assert!(parse(&[]).command.is_none());
        assert_eq!((parse(&[]).serve.port, parse(&[]).serve.host), (None, None));
    }

    #[test]
    fn mcp_attaches_or_starts() {
        let Some(Command::Mcp(args)) = parse(&["mcp", "--root", "r", "--port", "8303"]).command
        else {
            panic!("not mcp");
        };
        assert_eq!(args.serve.root, PathBuf::from("r"));
        assert_eq!(args.serve.port, Some(8303));
        assert!(!args.attach && !args.start);
        let Some(Command::Mcp(args)) = parse(&["mcp", "--attach"]).command else {
            panic!("not mcp");
        };
        assert!(args.attach && args.serve.port.is_none());
        let err = Cli::try_parse_from(["daebug", "mcp", "--attach", "--start"]).unwrap_err();
        assert!(err.use_stderr());
    }

    #[test]
    fn list_and_tail_arguments() {
        let cli = parse(&["list", "--json", "--root", "r"]);
        assert!(
            matches!(cli.command, Some(Command::List { json: true, ref hub }) if hub.root == Path::new("r"))
        );
        let cli = parse(&["tail", "shop", "-n", "5", "--host", "::1"]);
        assert!(
            matches!(cli.command, Some(Command::Tail { lines: 5, ref realm, ref hub }) if realm == "shop" && hub.host.as_deref() == Some("::1"))
        );
        // Usage errors are the CLI's "anything else".
        let err = Cli::try_parse_from(["daebug", "eval", "shop"]).unwrap_err();
        assert!(err.use_stderr());
    }
}
