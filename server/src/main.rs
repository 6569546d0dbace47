//! The `daebug` command line: parse flags, start the hub, stop it on
//! Ctrl-C or SIGTERM. `anyhow` lives only here, at the binary's edge.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::{Parser, Subcommand};
use daebug::hub::names;
use daebug::{Hub, HubConfig};
use tracing_subscriber::EnvFilter;

/// Run JavaScript in live browser pages and workers from a Markdown chat log.
#[derive(Debug, Parser)]
#[command(name = "daebug", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Directory to serve and to keep `debug.md` and `debug/` in.
    #[arg(long, value_name = "DIR", default_value = ".", global = true)]
    root: PathBuf,

    /// Port to listen on (0 = any free port).
    #[arg(long, value_name = "N", default_value_t = 8302, global = true)]
    port: u16,

    /// Address to listen on. Anything but loopback needs a token.
    #[arg(long, value_name = "ADDR", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST), global = true)]
    host: IpAddr,

    /// Also admit pages from this origin (e.g. `http://dev.example:3000`);
    /// loopback origins on any port are always admitted. Repeatable.
    #[arg(long = "allow-origin", value_name = "ORIGIN", global = true)]
    allow_origin: Vec<String>,

    /// Timeout of a block without `timeout=`, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 60.0, global = true)]
    timeout: f64,

    /// Token realms must present (`daebug.js?token=…`). Generated and
    /// printed when listening beyond loopback without one.
    #[arg(long, value_name = "TOKEN", global = true)]
    token: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Subcommand)]
enum Command {
    /// Start the hub (the default).
    Serve,
    /// Start the hub and serve its MCP tools on stdin/stdout (for an
    /// agent's MCP client config); everything else goes to stderr.
    Mcp,
}

#[tokio::main]
async fn main() -> Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("daebug=info")),
        )
        .with_writer(std::io::stderr)
        .init();

    let cli = Cli::parse();
    if !(cli.timeout.is_finite() && cli.timeout > 0.0 && cli.timeout <= 86_400.0) {
        anyhow::bail!("--timeout must be a number of seconds between 0 and 86400");
    }
    let mut token = cli.token.clone();
    if !cli.host.is_loopback() && token.is_none() {
        token = Some(names::token());
    }
    let config = HubConfig {
        addr: SocketAddr::new(cli.host, cli.port),
        allow_origins: cli.allow_origin.clone(),
        default_timeout: Duration::from_secs_f64(cli.timeout),
        token: token.clone(),
        restart_command: restart_command(),
        ..HubConfig::new(cli.root.clone(), cli.port)
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
    let mcp = cli.command == Some(Command::Mcp);
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

    if mcp {
        daebug::doors::mcp::serve_stdio(hub, shutdown).await?;
        // A read of stdin may still be pending on a blocking thread.
        std::process::exit(0);
    }
    hub.run(shutdown).await?;
    Ok(())
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
