//! The `daebug` binary: parse the command line, start a runtime, run the
//! command (`cmd/`, one file a subcommand). `anyhow` lives only here, at
//! the binary's edge.

mod cmd;

use std::process::ExitCode;

use clap::Parser;
use cmd::{Cli, Command};
use daebug::doors::client;
use tracing_subscriber::EnvFilter;

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
    // Stacks deep enough to prepare a small block in place, on the log's
    // own task, without a hop to the deep-stack thread (reserved, not used:
    // only a block that goes deep touches its pages).
    let stack = daebug_core::prepare::deep::IN_PLACE_STACK_BYTES;
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(stack)
        .on_thread_start(move || daebug_core::prepare::deep::declare_stack(stack))
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
            Command::Serve(args) => match cmd::serve::serve(args, false).await {
                Ok(status) => ExitCode::from(status),
                Err(e) => {
                    eprintln!("daebug: {e:#}");
                    ExitCode::FAILURE
                }
            },
            Command::Attach(args) => match cmd::attach::attach(args).await {
                Ok(status) => ExitCode::from(status),
                Err(e) => {
                    eprintln!("daebug: {e:#}");
                    ExitCode::FAILURE
                }
            },
            Command::Mcp(args) => cmd::mcp::mcp(args).await,
            other => ExitCode::from(cmd::run_client(other).await),
        }
    })
}
