//! Reading and atomically replacing files.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes temp files of concurrent writes in one process.
static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

/// Replaces `path` with `text` in one step: a temp file in the same folder
/// (a dotfile, so the watcher and the HTTP layer ignore it) renamed over
/// the target, so a reader sees the old or the new text, never a mix.
pub fn write_atomic(path: &Path, text: &str) -> io::Result<()> {
    let tmp = write_temp(path, text)?;
    let result = std::fs::rename(&tmp, path);
    if result.is_err() {
        remove_quietly(&tmp);
    }
    result
}

/// Swaps the files named `a` and `b` in one step (`renameat2` with
/// `RENAME_EXCHANGE`). `Ok(false)` where the system or the file system
/// cannot; the caller then renames.
pub fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| {
            CString::new(p.as_os_str().as_bytes())
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
        };
        let (a, b) = (c(a)?, c(b)?);
        // SAFETY: both are valid NUL-terminated paths that outlive the call.
        let r = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if r == 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP) => Ok(false),
            _ => Err(e),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b);
        Ok(false)
    }
}

/// Whether `a` and `b` are the same file (device and inode).
pub fn same_inode(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (a.dev(), a.ino()) == (b.dev(), b.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        true
    }
}

/// Writes `text` to a new temp file next to `path` and returns its name.
/// A missing folder (someone deleted `debug/`) is created again.
pub fn write_temp(path: &Path, text: &str) -> io::Result<PathBuf> {
    write_temp_after(path, None, text)
}

/// Like [`write_temp`], for bytes that are not text (a picture).
pub fn write_temp_bytes(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    write_temp_raw(path, None, bytes)
}

/// Like [`write_temp`], with the first `n` bytes of `file` before `text`.
/// They are copied inside the kernel (`copy_file_range` on Linux), so a
/// large log's history never passes through the hub. A file shorter than
/// `n` bytes fails with [`io::ErrorKind::UnexpectedEof`].
pub fn write_temp_after(
    path: &Path,
    before: Option<(&File, u64)>,
    text: &str,
) -> io::Result<PathBuf> {
    write_temp_raw(path, before, text.as_bytes())
}

fn write_temp_raw(path: &Path, before: Option<(&File, u64)>, text: &[u8]) -> io::Result<PathBuf> {
    let tmp = temp_path(path);
    let written = match fill(&tmp, before, text) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => match path.parent() {
            Some(dir) => std::fs::create_dir_all(dir).and_then(|()| fill(&tmp, before, text)),
            None => Err(e),
        },
        other => other,
    };
    match written {
        Ok(()) => Ok(tmp),
        Err(e) => {
            remove_quietly(&tmp);
            Err(e)
        }
    }
}

fn fill(tmp: &Path, before: Option<(&File, u64)>, text: &[u8]) -> io::Result<()> {
    let mut out = File::create(tmp)?;
    if let Some((mut file, n)) = before {
        file.seek(SeekFrom::Start(0))?;
        // `io::copy` between files is `copy_file_range` on Linux.
        let copied = io::copy(&mut file.take(n), &mut out)?;
        if copied != n {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the file was cut short while its start was copied",
            ));
        }
    }
    out.write_all(text)
}

/// Removes a temp file that is no longer needed; a failure only leaves a
/// dotfile behind.
pub fn remove_quietly(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// Removes the temp files a hub left in `dir` (named by [`temp_path`]:
/// `.<name>.<pid>-<seq>.tmp`) when it was killed mid-write: only those
/// for a file `of(name)` accepts, and only those whose process is gone.
/// Returns how many went.
pub fn remove_leftover_temps(dir: &Path, of: impl Fn(&str) -> bool) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mine = std::process::id();
    entries
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some((target, pid)) = temp_of(&name) else {
                return false;
            };
            // A live hub's write in progress (this one's, or another hub's
            // on the same root) is not a leftover.
            of(target) && pid != mine && !process_alive(pid)
        })
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// The target's name and the process id in a temp file name made by
/// [`temp_path`].
fn temp_of(name: &str) -> Option<(&str, u32)> {
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (target, tail) = rest.rsplit_once('.')?;
    let (pid, seq) = tail.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if target.is_empty() || !digits(pid) || !digits(seq) {
        return None;
    }
    seq.parse::<u64>().ok()?;
    Some((target, pid.parse().ok()?))
}

/// Whether a process with this id runs (pid 0 is never a hub's). Where
/// that cannot be told, no.
fn process_alive(pid: u32) -> bool {
    if pid == 0 {
        return false;
    }
    #[cfg(target_os = "linux")]
    {
        Path::new(&format!("/proc/{pid}")).exists()
    }
    #[cfg(all(unix, not(target_os = "linux")))]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        // SAFETY: signal 0 only checks that the process exists.
        unsafe { libc::kill(pid, 0) == 0 }
        || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        false
    }
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
    fn leftover_temps_of_a_dead_hub_go_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        // pid 0 is never a live hub's; the others are not ours to touch.
        let leftovers = [".shop-3f2a.md.0-7.tmp", ".debug.md.0-1.tmp"];
        let kept = [
            "shop-3f2a.md",
            "shop-3f2a.rescued-1795.md",
            ".shop-3f2a.md.tmp",
            ".notes.0-x.tmp",
            ".notes.+0-1.tmp",
            "..0-1.tmp",
            ".index.html.0-2.tmp",
        ];
        let live = format!(".shop-3f2a.md.{}-3.tmp", std::process::id());
        for name in leftovers.iter().chain(&kept).chain([&live.as_str()]) {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        // A folder with a temp file's name is no temp file.
        std::fs::create_dir(dir.path().join(".old.md.0-9.tmp")).unwrap();
        let not_html = |target: &str| !target.ends_with(".html");
        assert_eq!(remove_leftover_temps(dir.path(), not_html), 2);
        for name in kept.iter().chain([&live.as_str()]) {
            assert!(dir.path().join(name).exists(), "{name}");
        }
        assert!(dir.path().join(".old.md.0-9.tmp").is_dir());
        assert_eq!(temp_of(".a.md.4121-9.tmp"), Some(("a.md", 4121)));
        assert_eq!(temp_of(".a.md.4121-9.tmp.tmp"), None);
        // The name temp_path makes is the name this reads.
        let made = temp_path(&dir.path().join("debug.md"));
        let made = made.file_name().unwrap().to_str().unwrap();
        assert_eq!(temp_of(made), Some(("debug.md", std::process::id())));
        assert!(process_alive(std::process::id()));
        assert!(!process_alive(0));
    }

    #[test]
    fn write_then_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        write_atomic(&p, "one\n").unwrap();
        write_atomic(&p, "two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temp file left behind");
        // A deleted folder is made again.
        let deep = dir.path().join("gone/a.md");
        write_atomic(&deep, "three\n").unwrap();
        assert_eq!(std::fs::read_to_string(&deep).unwrap(), "three\n");
    }
}
