//! The `daebug` command line: parse flags, start the hub, stop it on
//! Ctrl-C or SIGTERM; or, as a client of a running hub's HTTP API
//! (`daebug list`, `eval`, `tail`), ask it and exit with the block's
//! outcome (docs/doors.md). `anyhow` lives only here, at the binary's edge.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use daebug::doors::api::{EvalRequest, RealmInfo, Timeout, HUB_FILE};
use daebug::doors::client::{self, ClientError, HubClient, LogFollower};
use daebug::hub::names;
use daebug::{Hub, HubConfig};
use futures_util::StreamExt;
use tracing_subscriber::EnvFilter;

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
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Start the hub (the same as `daebug` alone).
    Serve(ServeArgs),
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
        code: String,
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

/// The hub's flags (`daebug` and `daebug serve`).
#[derive(Debug, Clone, Args)]
struct ServeArgs {
    /// Directory to serve and to keep `debug.md` and `debug/` in.
    #[arg(long, value_name = "DIR", default_value = ".")]
    root: PathBuf,

    /// Port to listen on (default 8302; 0 = any free port).
    #[arg(long, value_name = "N")]
    port: Option<u16>,

    /// Address to listen on (default 127.0.0.1). Anything but loopback
    /// needs a token.
    #[arg(long, value_name = "ADDR")]
    host: Option<IpAddr>,

    /// Also admit pages from this origin (e.g. `http://dev.example:3000`);
    /// loopback origins on any port are always admitted. Repeatable.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origin: Vec<String>,

    /// Timeout of a block without `timeout=`, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    timeout: f64,

    /// Token realms must present (`daebug.js?token=…`). Generated and
    /// printed when listening beyond loopback without one.
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,

    /// A Chromium started with `--remote-debugging-port`
    /// (`http://127.0.0.1:9222`, or its `ws://` URL): the hub attaches to
    /// its realms' targets for `daebug.screenshot()` and what only the
    /// browser sees (`Text browser` events).
    #[arg(long, value_name = "URL")]
    cdp: Option<String>,
}

/// `daebug mcp`'s flags: the hub's, and whether to attach or start.
#[derive(Debug, Clone, Args)]
struct McpArgs {
    #[command(flatten)]
    serve: ServeArgs,

    /// Only attach to a running hub; exit with status 3 when none answers.
    #[arg(long, conflicts_with = "start")]
    attach: bool,

    /// Always start a hub in-process, even when one runs already (on the
    /// same root, give it another --port).
    #[arg(long)]
    start: bool,
}

/// Where the hub listens unless told otherwise.
const DEFAULT_PORT: u16 = 8302;

/// How a client command finds the hub.
#[derive(Debug, Clone, Args)]
struct HubArgs {
    /// The hub's root: its `debug/.hub` says where the hub listens.
    #[arg(long, value_name = "DIR", default_value = ".")]
    root: PathBuf,

    /// The hub's port (instead of `debug/.hub`).
    #[arg(long, value_name = "N")]
    port: Option<u16>,

    /// The hub's address (instead of `debug/.hub`; default 127.0.0.1).
    #[arg(long, value_name = "ADDR")]
    host: Option<String>,

    /// The hub's token, when it has one and `debug/.hub` is not at hand.
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                client::EXIT_OTHER
            } else {
                0
            });
        }
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("daebug=info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("daebug: cannot start: {e}");
            return ExitCode::from(client::EXIT_OTHER);
        }
    };
    let command = cli.command.unwrap_or(Command::Serve(cli.serve));
    runtime.block_on(async move {
        match command {
            Command::Serve(args) => match serve(args, false).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("daebug: {e:#}");
                    ExitCode::FAILURE
                }
            },
            Command::Mcp(args) => mcp(args).await,
            other => ExitCode::from(run_client(other).await),
        }
    })
}

/// Starts the hub and serves until Ctrl-C or SIGTERM; with `mcp`, serves
/// MCP on stdin/stdout too, until stdin closes.
async fn serve(cli: ServeArgs, mcp: bool) -> Result<()> {
    if !(cli.timeout.is_finite() && cli.timeout > 0.0 && cli.timeout <= 86_400.0) {
        anyhow::bail!("--timeout must be a number of seconds between 0 and 86400");
    }
    let host = cli.host.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let port = cli.port.unwrap_or(DEFAULT_PORT);
    let mut token = cli.token.clone();
    if !host.is_loopback() && token.is_none() {
        token = Some(names::token());
    }
    let config = HubConfig {
        addr: SocketAddr::new(host, port),
        allow_origins: cli.allow_origin.clone(),
        default_timeout: Duration::from_secs_f64(cli.timeout),
        token: token.clone(),
        restart_command: restart_command(),
        cdp: cli.cdp.clone(),
        ..HubConfig::new(cli.root.clone(), port)
    };

    let shutdown = shutdown_signal()?;
    let hub = match Hub::bind(config).await {
        Ok(h) => h,
        Err(e) => {
            eprintln!("daebug: {e}");
            std::process::exit(2);
        }
    };
    // `daebug mcp` speaks MCP on stdout: everything else goes to stderr.
    let say = |line: String| match mcp {
        true => eprintln!("{line}"),
        false => println!("{line}"),
    };
    say(format!(
        "daebug {} serving {} at {}/",
        env!("CARGO_PKG_VERSION"),
        cli.root.display(),
        hub.base_url()
    ));
    if cli.token.is_none() && token.is_some() {
        say(
            "listening beyond loopback: realms must present this token (it is in the line below)"
                .into(),
        );
    }
    say("add this line to a page to connect it:".into());
    say(format!("  {}", hub.script_tag()));
    say(format!(
        "then open debug.md in {} to find each page's log",
        cli.root.display()
    ));
    say(format!(
        "or watch and drive them in the dashboard: {}",
        hub.dashboard_url()
    ));

    if mcp {
        daebug::doors::mcp::serve_stdio(hub, shutdown).await?;
        // A read of stdin may still be pending on a blocking thread.
        std::process::exit(0);
    }
    hub.run(shutdown).await?;
    Ok(())
}

/// `daebug mcp`: attached to the hub that runs where the flags or
/// `debug/.hub` say, or, when none answers there (or with `--start`), a
/// hub started in-process. Says on stderr which it chose.
async fn mcp(args: McpArgs) -> ExitCode {
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
                Ok(()) => ExitCode::SUCCESS,
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

/// Runs a client command; its exit status.
async fn run_client(command: Command) -> u8 {
    let result = match command {
        Command::Serve(_) | Command::Mcp(_) => unreachable!("the hub's commands are not clients"),
        Command::List { hub, json } => list(&hub, json).await,
        Command::Eval {
            hub,
            realm,
            code,
            timeout,
            lang,
            agent,
            json,
        } => {
            let req = match eval_request(&code, std::io::stdin().lock(), lang, timeout, agent) {
                Ok(req) => req,
                Err(e) => {
                    eprintln!("daebug: cannot read the code from stdin: {e}");
                    return client::EXIT_OTHER;
                }
            };
            eval(&hub, &realm, &req, json).await
        }
        Command::Tail { hub, realm, lines } => tail(&hub, &realm, lines).await,
    };
    match result {
        Ok(status) => status,
        Err(e) => {
            eprintln!("daebug: {e}");
            e.exit_status()
        }
    }
}

fn connect(hub: &HubArgs) -> Result<HubClient, ClientError> {
    HubClient::find(&hub.root, hub.host.as_deref(), hub.port, hub.token.clone())
}

/// The request `daebug eval` sends: `code`, or stdin's text for `-`.
fn eval_request(
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
fn timeout_arg(text: &str) -> Timeout {
    match text.trim().parse::<f64>() {
        Ok(s) => Timeout::Seconds(s),
        Err(_) => Timeout::Text(text.trim().to_string()),
    }
}

async fn list(hub: &HubArgs, json: bool) -> Result<u8, ClientError> {
    let realms = connect(hub)?.realms().await?;
    let mut out = std::io::stdout().lock();
    if json {
        let text = serde_json::to_string_pretty(&realms).unwrap_or_default();
        let _ = writeln!(out, "{text}");
    } else if realms.is_empty() {
        eprintln!("daebug: no realms yet; a page connects by loading the hub's daebug.js");
    } else {
        let _ = write!(out, "{}", realms_table(&realms));
    }
    Ok(client::EXIT_OK)
}

/// The realms as an aligned table.
fn realms_table(realms: &[RealmInfo]) -> String {
    let header = ["STEM", "KIND", "STATE", "LAST", "NAME", "URL"];
    let rows: Vec<[&str; 6]> = realms
        .iter()
        .map(|r| {
            [
                r.stem.as_str(),
                r.kind.as_str(),
                r.state.as_str(),
                r.last.as_str(),
                r.name.as_str(),
                r.url.as_str(),
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&" ".repeat(widths[i] - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

async fn eval(
    hub: &HubArgs,
    realm: &str,
    req: &EvalRequest,
    json: bool,
) -> Result<u8, ClientError> {
    let reply = connect(hub)?.eval(realm, req).await?;
    let mut out = std::io::stdout().lock();
    if json {
        let text = serde_json::to_string_pretty(&reply).unwrap_or_default();
        let _ = writeln!(out, "{text}");
    } else {
        let _ = write!(out, "{}", reply.text);
        if !reply.text.ends_with('\n') {
            let _ = writeln!(out);
        }
    }
    let _ = out.flush();
    Ok(client::exit_status(&reply))
}

async fn tail(hub: &HubArgs, realm: &str, lines: usize) -> Result<u8, ClientError> {
    let client = connect(hub)?;
    let stem = client.realm(realm).await?.stem;
    // Subscribed before the log is read: no change falls between.
    let mut events = client.events().await?;
    let text = client.log(&stem, None).await?;
    let mut follower = LogFollower::new(&text);
    print_flush(daebug::doors::last_lines(&text, lines));
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(interrupted);
    loop {
        let event = tokio::select! {
            _ = &mut interrupted => return Ok(client::EXIT_OK),
            event = events.next() => event,
        };
        match event {
            Some(Ok(daebug::doors::api::HubEvent::Log { stem: changed })) if changed == stem => {
                let text = client.log(&stem, None).await?;
                let new = follower.update(&text);
                if !new.is_empty() {
                    print_flush(&(new.join("\n") + "\n"));
                }
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(e),
            None => {
                return Err(ClientError::NoHub("the hub stopped".into()));
            }
        }
    }
}

fn print_flush(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Listens for Ctrl-C and SIGTERM from now on (so a signal that arrives
/// while the hub starts is not lost) and resolves on the first of them.
/// A second Ctrl-C quits at once.
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
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
fn restart_command() -> String {
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

    fn parse(args: &[&str]) -> Cli {
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

    #[test]
    fn a_table_of_realms() {
        let realm = |stem: &str, state: &str| RealmInfo {
            stem: stem.into(),
            kind: "page".into(),
            name: "Shop".into(),
            url: "http://127.0.0.1:8302/".into(),
            state: state.into(),
            last: "10:00:00".into(),
            log: format!("debug/{stem}.md"),
        };
        let table = realms_table(&[realm("shop-3f2a", "idle"), realm("a", "disconnected")]);
        assert_eq!(
            table,
            "STEM       KIND  STATE         LAST      NAME  URL\n\
             shop-3f2a  page  idle          10:00:00  Shop  http://127.0.0.1:8302/\n\
             a          page  disconnected  10:00:00  Shop  http://127.0.0.1:8302/\n"
        );
    }
}
