//! `daebug` and `daebug serve`: start the hub and serve until Ctrl-C or
//! SIGTERM (with `daebug mcp`, MCP on stdin/stdout too).

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use daebug::app::Hub;
use daebug::config::HubConfig;
use daebug::hub::names;
use tokio_util::sync::CancellationToken;

use super::{beside, restart_command, shutdown_signal, DEFAULT_PORT};

/// The hub's flags (`daebug` and `daebug serve`).
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Directory to serve and to keep `debug.md` and `debug/` in.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,

    /// Port to listen on (default 8302; 0 = any free port).
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,

    /// Address to listen on (default 127.0.0.1). Anything but loopback
    /// needs a token.
    #[arg(long, value_name = "ADDR")]
    pub host: Option<IpAddr>,

    /// Also admit pages from this origin (e.g. `http://dev.example:3000`);
    /// loopback origins on any port are always admitted. Repeatable.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,

    /// Timeout of a block without `timeout=`, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub timeout: f64,

    /// Token realms must present (`daebug.js?token=…`). Generated and
    /// printed when listening beyond loopback without one.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,

    /// A Chromium started with `--remote-debugging-port`
    /// (`http://127.0.0.1:9222`, or its `ws://` URL): the hub attaches to
    /// its realms' targets for `daebug.screenshot()` and what only the
    /// browser sees (`Text browser` events).
    #[arg(long, value_name = "URL")]
    pub cdp: Option<String>,

    /// With `--cdp`: put the adapter only into the pages (and their
    /// workers) whose URL starts with this (`*` stands for any run of
    /// characters, `http://localhost:*/`); its origin is admitted like
    /// `--allow-origin`. Repeatable. Without it, every page of an origin
    /// the hub admits (docs/zero-edits.md, "Attach to a browser").
    #[arg(long = "match", value_name = "URL")]
    pub matches: Vec<String>,

    /// Serve an app's dev server (`http://localhost:5173`, or `5173`) on the hub's
    /// port, the tag added to its pages and everything else passed
    /// through, WebSockets (HMR) included; the hub keeps only its own
    /// paths (docs/proxy.md).
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,

    /// The app's own command (after `--`, e.g. `-- npm run dev`), run by
    /// the hub once it serves, with the Node loader in `NODE_OPTIONS`: the
    /// hub stops when it ends and exits with its status
    /// (docs/zero-edits.md, "One command").
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<std::ffi::OsString>,
}

/// Starts the hub and serves until Ctrl-C or SIGTERM; with `mcp`, serves
/// MCP on stdin/stdout too, until stdin closes. With a command after
/// `--`, serves while it runs (`cmd/beside.rs`). The status to exit with.
pub async fn serve(cli: ServeArgs, mcp: bool) -> Result<u8> {
    if mcp && !cli.command.is_empty() {
        anyhow::bail!("daebug mcp runs no command: start `daebug --root DIR -- <command>` in a terminal, then `daebug mcp` attaches to it");
    }
    let config = config_of(&cli)?;
    let token = config.token.clone();
    let proxy = config.proxy.clone();
    // Listening from the start: a signal while the hub starts is not lost.
    let (shutdown, beside) = match cli.command.is_empty() {
        true => (Some(shutdown_signal()?), None),
        false => (None, Some(beside::Signals::listen()?)),
    };
    let hub = match Hub::bind(config).await {
        Ok(h) => h,
        Err(e) => {
            eprintln!("daebug: {e}");
            std::process::exit(2);
        }
    };
    // `daebug mcp` speaks MCP on stdout: everything else goes to stderr.
    // A closed stdout (`daebug … | head -1`) is no reason to stop serving:
    // the lines are best effort, never a panic.
    let say = |line: String| {
        use std::io::Write;
        let _ = match mcp {
            true => writeln!(std::io::stderr(), "{line}"),
            false => writeln!(std::io::stdout(), "{line}"),
        };
    };
    let generated = cli.token.is_none() && token.is_some();
    for line in start_lines(&cli, &hub, proxy.as_ref(), generated) {
        say(line);
    }
    let Some(shutdown) = shutdown else {
        let signals = beside.expect("listened for the command");
        return Ok(beside::serve_beside(hub, &cli.command, signals).await);
    };
    if mcp {
        serve_stdio(hub, shutdown).await?;
        // A read of stdin may still be pending on a blocking thread.
        std::process::exit(0);
    }
    hub.run(shutdown).await?;
    Ok(0)
}

/// The hub's configuration from the command line, or why it is wrong.
fn config_of(cli: &ServeArgs) -> Result<HubConfig> {
    if !(cli.timeout.is_finite() && cli.timeout > 0.0 && cli.timeout <= 86_400.0) {
        anyhow::bail!("--timeout must be a number of seconds between 0 and 86400");
    }
    if cli.cdp.is_none() && !cli.matches.is_empty() {
        anyhow::bail!("--match needs the browser bridge: --cdp <a Chromium's DevTools URL> (or `daebug attach`)");
    }
    let host = cli.host.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let port = cli.port.unwrap_or(DEFAULT_PORT);
    let mut token = cli.token.clone();
    if !host.is_loopback() && token.is_none() {
        token = Some(names::token());
    }
    let proxy = match cli
        .proxy
        .as_deref()
        .map(daebug::http::proxy::Upstream::parse)
    {
        Some(Err(why)) => anyhow::bail!("{why}"),
        Some(Ok(upstream)) => Some(upstream),
        None => None,
    };
    // A page matched by name is one the person asked to connect.
    let mut allow_origins = cli.allow_origin.clone();
    allow_origins.extend(daebug::cdp::reach::named_origins(&cli.matches));
    Ok(HubConfig {
        addr: SocketAddr::new(host, port),
        allow_origins,
        default_timeout: Duration::from_secs_f64(cli.timeout),
        token,
        restart_command: restart_command(),
        cdp: cli.cdp.clone(),
        cdp_match: cli.matches.clone(),
        proxy,
        ..HubConfig::new(cli.root.clone(), port)
    })
}

/// What the hub says when it starts: where it serves, how a page
/// connects, where the logs and the dashboard are.
fn start_lines(
    cli: &ServeArgs,
    hub: &Hub,
    proxy: Option<&daebug::http::proxy::Upstream>,
    generated_token: bool,
) -> Vec<String> {
    let mut lines = vec![format!(
        "daebug {} serving {} at {}/",
        env!("CARGO_PKG_VERSION"),
        cli.root.display(),
        hub.base_url()
    )];
    if generated_token {
        lines.push(
            "listening beyond loopback: realms must present this token (it is in the line below)"
                .into(),
        );
    }
    if let Some(cdp) = &cli.cdp {
        let which = match cli.matches.is_empty() {
            true => "every page of a loopback (or --allow-origin) origin".to_string(),
            false => format!("the pages at {}", cli.matches.join(", ")),
        };
        lines.push(format!(
            "attaching to the browser at {cdp}: {which} and their workers get daebug, no tag needed"
        ));
    }
    match proxy {
        Some(upstream) => lines.push(format!(
            "proxying {}: open {}/ to use the app with daebug in its pages",
            upstream.origin,
            hub.base_url()
        )),
        None => {
            lines.push("add this line to a page to connect it:".into());
            lines.push(format!("  {}", hub.script_tag()));
        }
    }
    lines.push(format!(
        "then open debug.md in {} to find each page's log",
        cli.root.display()
    ));
    lines.push(format!(
        "or watch and drive them in the dashboard: {}",
        hub.dashboard_url()
    ));
    lines
}

/// `daebug mcp` in-process: serves `hub` as usual (pages, logs) and the
/// MCP tools on stdin/stdout until stdin closes or `signal` resolves.
/// Nothing else may be written to stdout.
async fn serve_stdio(
    hub: Hub,
    signal: impl Future<Output = ()> + Send + 'static,
) -> Result<(), daebug::app::HubError> {
    let doors = hub.doors();
    let stdio_done = CancellationToken::new();
    let stop = {
        let stdio_done = stdio_done.clone();
        async move {
            tokio::select! {
                () = signal => {}
                () = stdio_done.cancelled() => {}
            }
        }
    };
    let hub = tokio::spawn(hub.run(stop));
    daebug::doors::mcp::tools_over_stdio(doors.clone(), doors.shutdown().child_token()).await;
    tracing::info!("MCP over stdio ended; stopping the hub");
    stdio_done.cancel();
    match hub.await {
        Ok(served) => served,
        Err(e) => {
            tracing::warn!("the hub's task failed: {e}");
            Ok(())
        }
    }
}
