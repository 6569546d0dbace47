//! Watches the `debug/` folder (not single files, so atomic saves by
//! editors — temp file + rename — and logs created later are seen) and
//! tells the directory which file changed. The root is watched too (not
//! recursively), so a `debug/` deleted and created again is noticed and
//! watched anew.

use std::path::{Path, PathBuf};

use notify::event::EventKind;
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc;

use super::messages::DirMsg;

/// Starts watching `root` and `root/debug`. The watch lasts as long as the
/// returned value.
pub fn watch(
    root: &Path,
    directory: mpsc::UnboundedSender<DirMsg>,
) -> notify::Result<RecommendedWatcher> {
    let debug: PathBuf = root.join("debug");
    let debug_in_cb = debug.clone();
    let registry = root.join("debug.md");
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        let event = match res {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!("file watcher: {e}");
                return;
            }
        };
        // Opening or reading a file changes nothing; every write, rename
        // and removal does.
        if !matches!(
            event.kind,
            EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any
        ) {
            return;
        }
        for path in event.paths {
            if path == registry {
                let _ = directory.send(DirMsg::RegistryChanged);
                continue;
            }
            if path == debug_in_cb {
                if matches!(event.kind, EventKind::Create(_)) {
                    let _ = directory.send(DirMsg::DebugDirCreated);
                }
                continue;
            }
            if path.parent() != Some(debug_in_cb.as_path()) {
                continue; // a file of the served site, not a log
            }
            if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
                // Our own temp files are dotfiles; they are never logs.
                if !name.starts_with('.') {
                    let _ = directory.send(DirMsg::FileChanged {
                        file_name: name.to_string(),
                        removed: matches!(event.kind, EventKind::Remove(_)),
                    });
                }
            }
        }
    })?;
    watcher.watch(root, RecursiveMode::NonRecursive)?;
    watcher.watch(&debug, RecursiveMode::NonRecursive)?;
    Ok(watcher)
}
