//! Watches the `debug/` folder (not single files, so atomic saves by
//! editors — temp file + rename — and logs created later are seen) and
//! tells the directory which file changed.

use std::path::Path;

use notify::event::EventKind;
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc;

use super::directory::DirMsg;

/// Starts watching `dir`. The watch lasts as long as the returned value.
pub fn watch(
    dir: &Path,
    directory: mpsc::UnboundedSender<DirMsg>,
) -> notify::Result<RecommendedWatcher> {
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
            if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
                // Our own temp files are dotfiles; they are never logs.
                if !name.starts_with('.') {
                    let _ = directory.send(DirMsg::FileChanged {
                        file_name: name.to_string(),
                    });
                }
            }
        }
    })?;
    watcher.watch(dir, RecursiveMode::NonRecursive)?;
    Ok(watcher)
}
