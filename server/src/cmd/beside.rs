//! `daebug --root . --proxy http://localhost:5173 -- npm run dev`: the
//! hub starts, then runs the app's own command as its child with the Node
//! loader in `NODE_OPTIONS` (as `daebug run` does, `cmd/run.rs`), so the
//! page (through `--proxy`), its workers and every Node process the
//! command starts are realms from one command (docs/zero-edits.md, "One
//! command").
//!
//! - The command's stdin, stdout and stderr are the terminal's: it runs
//!   as it would alone (Vite's keyboard shortcuts included), in the hub's
//!   process group, so a terminal's Ctrl-C reaches it directly.
//! - A signal the hub gets (SIGINT, SIGTERM, SIGHUP) is passed on to the
//!   command; the hub keeps serving until the command has ended (so its
//!   realms' last words reach their logs), then stops. A command still
//!   running 10 s after the first signal is killed.
//! - When the command ends, by itself or by a signal, the hub stops
//!   cleanly and exits with the command's status (a shell's `128 + N`
//!   for a command killed by signal N); one that cannot be started at all
//!   is 127, as a shell says "command not found".
//! - On Linux the command gets SIGTERM if the hub itself dies (`kill -9`):
//!   nothing the hub started outlives it.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitStatus;
use std::time::Duration;

use daebug::app::Hub;
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use super::run;

/// How long the command may take to end after a signal was passed on.
const GRACE: Duration = Duration::from_secs(10);

/// The status when the command cannot be started (a shell's "not found").
const EXIT_CANNOT_RUN: u8 = 127;

/// The signals the hub passes on, listened for from the start (a Ctrl-C
/// while the hub starts is not lost).
pub struct Signals {
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
    #[cfg(unix)]
    hup: tokio::signal::unix::Signal,
}

impl Signals {
    pub fn listen() -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Signals {
                int: signal(SignalKind::interrupt())?,
                term: signal(SignalKind::terminate())?,
                hup: signal(SignalKind::hangup())?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The next signal's number.
    async fn next(&mut self) -> i32 {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.int.recv() => libc::SIGINT,
                _ = self.term.recv() => libc::SIGTERM,
                _ = self.hup.recv() => libc::SIGHUP,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            2
        }
    }
}

/// Serves `hub` while `command` runs; the command's exit status.
pub async fn serve_beside(mut hub: Hub, command: &[OsString], mut signals: Signals) -> u8 {
    let Some((program, args)) = command.split_first() else {
        return 0;
    };
    let name = shown(command);
    let stop = CancellationToken::new();
    let serving = hub.serving();
    let loader = hub.node_loader();
    let mut served = tokio::spawn(hub.run(stop.clone().cancelled_owned()));
    tokio::select! {
        ready = serving => if ready.is_err() {
            // The hub ended before it served: its error is the answer.
            return match served.await {
                Ok(Err(e)) => {
                    eprintln!("daebug: {e}");
                    1
                }
                _ => 1,
            };
        },
        signal = signals.next() => {
            stop.cancel();
            let _ = served.await;
            return 128u8.saturating_add(signal as u8);
        }
    }

    let mut cmd = Command::new(program);
    cmd.args(args);
    let realms = match with_loader(&loader) {
        Some(options) => {
            cmd.env("NODE_OPTIONS", options);
            true
        }
        None => {
            eprintln!(
                "daebug: {} is missing; running {name} without daebug in its Node processes",
                loader.display()
            );
            false
        }
    };
    die_with_hub(&mut cmd);
    let mut child = match cmd.spawn() {
        Ok(child) => {
            if realms {
                println!("running {name}: each Node process it starts is a realm; the hub stops when it ends");
            }
            child
        }
        Err(e) => {
            eprintln!("daebug: cannot run {name}: {e}");
            stop.cancel();
            let _ = served.await;
            return EXIT_CANNOT_RUN;
        }
    };
    let (status, hub_gone) = wait(&mut child, &mut signals, &mut served).await;
    stop.cancel();
    if !hub_gone {
        match served.await {
            Ok(Err(e)) => tracing::warn!("the hub stopped with an error: {e}"),
            Err(e) => tracing::warn!("the hub's task failed: {e}"),
            Ok(Ok(())) => {}
        }
    }
    match status {
        Ok(status) => {
            let code = exit_code(status);
            tracing::info!("{name} ended ({status}); the hub stopped");
            code
        }
        Err(e) => {
            eprintln!("daebug: lost {name}: {e}");
            1
        }
    }
}

/// Waits for the child, passing each signal on; kills it once it has had
/// [`GRACE`] since the first. A hub that stops on its own (its serving
/// failed) ends the child the same way. The child's status, and whether
/// the hub's task has ended (it is not awaited twice).
async fn wait(
    child: &mut tokio::process::Child,
    signals: &mut Signals,
    served: &mut tokio::task::JoinHandle<Result<(), daebug::app::HubError>>,
) -> (std::io::Result<ExitStatus>, bool) {
    let mut deadline: Option<tokio::time::Instant> = None;
    let mut hub_gone = false;
    loop {
        let kill_at = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            status = child.wait() => return (status, hub_gone),
            signal = signals.next() => {
                pass_on(child, signal);
                deadline.get_or_insert_with(|| tokio::time::Instant::now() + GRACE);
            }
            result = &mut *served, if !hub_gone => {
                hub_gone = true;
                if let Ok(Err(e)) = result {
                    eprintln!("daebug: {e}; stopping the command");
                }
                pass_on(child, term());
                deadline.get_or_insert_with(|| tokio::time::Instant::now() + GRACE);
            }
            () = kill_at => {
                eprintln!("daebug: the command did not end {}s after the signal; killing it", GRACE.as_secs());
                let _ = child.start_kill();
                deadline = Some(tokio::time::Instant::now() + GRACE * 100);
            }
        }
    }
}

/// `NODE_OPTIONS` with the loader first, when the hub wrote it (a Node
/// given `--import` of a missing file would not start: the app must).
fn with_loader(loader: &Path) -> Option<OsString> {
    loader
        .is_file()
        .then(|| run::node_options(loader, std::env::var_os("NODE_OPTIONS").as_deref()))
}

/// The command as the user typed it, for the hub's lines.
fn shown(command: &[OsString]) -> String {
    let words: Vec<_> = command.iter().map(|w| w.to_string_lossy()).collect();
    format!("`{}`", words.join(" "))
}

/// The status to exit with: the command's code, or `128 + N` when
/// signal N ended it.
fn exit_code(status: ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        return u8::try_from(code).unwrap_or(1);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return 128u8.saturating_add(u8::try_from(signal).unwrap_or(0));
        }
    }
    1
}

fn term() -> i32 {
    #[cfg(unix)]
    {
        libc::SIGTERM
    }
    #[cfg(not(unix))]
    15
}

/// Sends `signal` to the child (its process only: a package manager
/// passes it on to what it runs, as it does for a terminal's).
fn pass_on(child: &tokio::process::Child, signal: i32) {
    #[cfg(unix)]
    if let Some(pid) = child.id().and_then(|p| libc::pid_t::try_from(p).ok()) {
        // SAFETY: kill(2) with our own child's pid and a valid signal.
        unsafe {
            libc::kill(pid, signal);
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (child, signal);
    }
}

/// On Linux, the child gets SIGTERM when the hub dies, however it dies.
fn die_with_hub(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(2) is async-signal-safe; nothing else runs between
    // fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::tests::parse;
    use crate::cmd::Command as Cmd;

    #[test]
    fn the_command_comes_after_the_hubs_flags_and_the_dashes() {
        let cli = parse(&[
            "--root",
            ".",
            "--proxy",
            "http://localhost:5173",
            "--",
            "npm",
            "run",
            "dev",
            "--",
            "--port",
            "5174",
        ]);
        assert!(cli.command.is_none());
        assert_eq!(cli.serve.proxy.as_deref(), Some("http://localhost:5173"));
        assert_eq!(
            cli.serve.command,
            ["npm", "run", "dev", "--", "--port", "5174"]
        );
        let Some(Cmd::Serve(args)) = parse(&["serve", "--", "node", "server.js"]).command else {
            panic!("not serve");
        };
        assert_eq!(args.command, ["node", "server.js"]);
        assert!(parse(&["--root", "."]).serve.command.is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn the_status_is_the_commands_or_a_shells_for_a_signal() {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(exit_code(ExitStatus::from_raw(7 << 8)), 7);
        assert_eq!(exit_code(ExitStatus::from_raw(0)), 0);
        // Killed by SIGINT (2) and SIGTERM (15).
        assert_eq!(exit_code(ExitStatus::from_raw(2)), 130);
        assert_eq!(exit_code(ExitStatus::from_raw(15)), 143);
    }
}
