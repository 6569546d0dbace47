//! `daebug run -- <command…>`: runs a command with the Node loader added
//! to `NODE_OPTIONS` (`--import file:///…/debug/daebug-node.mjs`, the
//! file the hub writes at every start), so every Node process the command
//! starts (`node server.js`, `npm run dev`, `nodemon`, and the processes
//! those start, which inherit the variable) is a realm (README, "Connect
//! … a Node process").
//!
//! Nothing may fail without the hub: when none answers for the root, the
//! command runs unchanged, after one line on stderr saying so.
//!
//! On Unix the command replaces this process (`exec`): its signals
//! (Ctrl-C, `kill`) and its exit status are its own, with nothing in
//! between to forward them. Elsewhere it runs as a child whose exit code
//! is returned, Ctrl-C left to the child.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use daebug::doors::client::{self, HubClient};
use daebug::hub::node_loader;

/// How long to wait for the hub's answer before running without it.
const HUB_WAIT: Duration = Duration::from_secs(2);

/// The exit status when the command cannot be run at all (as a shell's
/// "command not found").
const EXIT_CANNOT_RUN: u8 = 127;

/// Runs `command` under `root`'s hub (or without it); its exit status.
pub async fn run(root: &Path, command: &[OsString]) -> u8 {
    let Some((program, args)) = command.split_first() else {
        eprintln!("daebug: run: no command given (daebug run -- node server.js)");
        return client::EXIT_OTHER;
    };
    let mut cmd = Command::new(program);
    cmd.args(args);
    match loader(root).await {
        Ok(loader) => {
            let options = node_options(&loader, std::env::var_os("NODE_OPTIONS").as_deref());
            cmd.env("NODE_OPTIONS", options);
        }
        Err(why) => eprintln!(
            "daebug: {why}; running {} without daebug",
            program.to_string_lossy()
        ),
    }
    spawn(cmd, program)
}

/// The loader's path when a hub answers for `root` and has written it.
async fn loader(root: &Path) -> Result<PathBuf, String> {
    let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let hub = HubClient::find(&root, None, None, None).map_err(|_| {
        format!(
            "no hub is running for {} (no debug/.hub; start one with `daebug --root {}`)",
            root.display(),
            root.display()
        )
    })?;
    match tokio::time::timeout(HUB_WAIT, hub.realms()).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => return Err(format!("the hub at {} did not answer ({e})", hub.url())),
        Err(_) => return Err(format!("the hub at {} did not answer in time", hub.url())),
    }
    let loader = root.join("debug").join(node_loader::FILE_NAME);
    if !loader.is_file() {
        return Err(format!("the hub has not written {}", loader.display()));
    }
    Ok(loader)
}

/// `NODE_OPTIONS` with `--import <the loader's file URL>` first, the
/// user's own options kept after it (once: a `daebug run` inside another
/// adds nothing). A URL, not a path: percent-encoded, it has no space or
/// quote for Node's splitting of the variable to trip on.
pub(super) fn node_options(loader: &Path, existing: Option<&OsStr>) -> OsString {
    let import = format!("--import={}", file_url(loader));
    let mut options = OsString::new();
    match existing.filter(|e| !e.is_empty()) {
        Some(e) if e.to_string_lossy().contains(&import) => options.push(e),
        Some(e) => {
            options.push(&import);
            options.push(" ");
            options.push(e);
        }
        None => options.push(&import),
    }
    options
}

/// `file:///…` for an absolute path, each byte outside a URL path's plain
/// characters percent-encoded (Windows' `C:\x` as `file:///C:/x`).
fn file_url(path: &Path) -> String {
    const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'/')
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~')
        .remove(b':');
    let text = path.to_string_lossy().replace('\\', "/");
    let text = if text.starts_with('/') {
        text
    } else {
        format!("/{text}")
    };
    format!(
        "file://{}",
        percent_encoding::utf8_percent_encode(&text, KEEP)
    )
}

/// Becomes the command (Unix), so its signals and exit status are its own.
#[cfg(unix)]
fn spawn(mut cmd: Command, program: &OsStr) -> u8 {
    use std::os::unix::process::CommandExt;
    let e = cmd.exec();
    eprintln!("daebug: cannot run {}: {e}", program.to_string_lossy());
    EXIT_CANNOT_RUN
}

/// Runs the command as a child and returns its exit code; Ctrl-C reaches
/// the child through the console and only ends this process with it.
#[cfg(not(unix))]
fn spawn(mut cmd: Command, program: &OsStr) -> u8 {
    tokio::spawn(async { while tokio::signal::ctrl_c().await.is_ok() {} });
    match cmd.status() {
        Ok(status) => status.code().map_or(1, |c| c as u8),
        Err(e) => {
            eprintln!("daebug: cannot run {}: {e}", program.to_string_lossy());
            EXIT_CANNOT_RUN
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::tests::parse;
    use crate::cmd::Command as Cmd;

    #[test]
    fn the_command_after_the_dashes_is_kept_whole() {
        let Some(Cmd::Run { root, command }) =
            parse(&["run", "--root", "r", "--", "node", "--watch", "server.js"]).command
        else {
            panic!("not run");
        };
        assert_eq!(root, PathBuf::from("r"));
        assert_eq!(command, ["node", "--watch", "server.js"]);
        let Some(Cmd::Run { root, command }) = parse(&["run", "npm", "run", "dev"]).command else {
            panic!("not run");
        };
        assert_eq!(root, PathBuf::from("."));
        assert_eq!(command, ["npm", "run", "dev"]);
    }

    #[test]
    fn the_loader_goes_first_and_the_users_options_stay() {
        let loader = Path::new("/home/a b/app/debug/daebug-node.mjs");
        let import = "--import=file:///home/a%20b/app/debug/daebug-node.mjs";
        assert_eq!(node_options(loader, None), OsString::from(import));
        assert_eq!(
            node_options(loader, Some(OsStr::new(""))),
            OsString::from(import)
        );
        let mine = OsStr::new("--max-old-space-size=4096 --enable-source-maps");
        let both = node_options(loader, Some(mine));
        assert_eq!(
            both,
            OsString::from(format!("{import} {}", mine.to_string_lossy()))
        );
        // A `daebug run` inside another adds nothing.
        assert_eq!(node_options(loader, Some(&both)), both);
    }

    #[test]
    fn file_urls_encode_what_node_options_would_split() {
        assert_eq!(
            file_url(Path::new("/x/\"q\" 100%/é.mjs")),
            "file:///x/%22q%22%20100%25/%C3%A9.mjs"
        );
    }
}
