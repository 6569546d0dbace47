//! Reading and atomically replacing files.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes temp files of concurrent writes in one process.
static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

/// The file's text, or `None` when it does not exist. Text that is not
/// UTF-8 is an error: rewriting it would lose bytes.
pub fn read_text(path: &Path) -> io::Result<Option<String>> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text")),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Replaces `path` with `text` in one step: a temp file in the same folder
/// (a dotfile, so the watcher and the HTTP layer ignore it) renamed over
/// the target, so a reader sees the old or the new text, never a mix.
pub fn write_atomic(path: &Path, text: &str) -> io::Result<()> {
    let tmp = temp_path(path);
    let result = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or("file".into(), |n| n.to_string_lossy());
    let seq = TEMP_SEQ.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}-{seq}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_then_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        assert_eq!(read_text(&p).unwrap(), None);
        write_atomic(&p, "one\n").unwrap();
        write_atomic(&p, "two\n").unwrap();
        assert_eq!(read_text(&p).unwrap().as_deref(), Some("two\n"));
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temp file left behind");
        std::fs::write(&p, [0xff, 0xfe]).unwrap();
        assert_eq!(
            read_text(&p).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
    }
}
