//! The `daebug` command line.
//!
//! For now it only reports what it would do; the hub itself (watcher, actors,
//! WebSocket and HTTP layers) lands with the next issue.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use anyhow::{ensure, Context, Result};
use clap::Parser;

/// Run JavaScript in live browser pages and workers from a Markdown chat log.
#[derive(Debug, Parser)]
#[command(name = "daebug", version, about)]
struct Cli {
    /// Directory to serve and to keep `debug.md` and `debug/` in.
    #[arg(long, value_name = "DIR", default_value = ".")]
    root: PathBuf,

    /// Port to listen on (0 = any free port).
    #[arg(long, value_name = "N", default_value_t = 8302)]
    port: u16,

    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    host: IpAddr,
}

fn main() -> Result<()> {
    let cli = Cli::parse();

    let root = cli
        .root
        .canonicalize()
        .with_context(|| format!("cannot open root directory {}", cli.root.display()))?;
    ensure!(root.is_dir(), "root {} is not a directory", root.display());

    let addr = SocketAddr::new(cli.host, cli.port);
    let base = format!("http://{addr}");

    println!("daebug {}", env!("CARGO_PKG_VERSION"));
    println!("would serve {} at {base}/", root.display());
    if cli.port == 0 {
        println!("(port 0: the hub will pick a free port and print the real URL)");
    }
    println!("add this line to a page to connect it:");
    println!(r#"  <script type="module" src="{base}/daebug.js"></script>"#);
    println!(
        "note: this build only prints what it would do; the hub itself lands with the next issue."
    );
    Ok(())
}
