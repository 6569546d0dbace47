//! Writing only what changed, in place, while proving no one else can
//! write (docs/log-format.md, "Writes that follow the change").
//!
//! The hub's usual write is a whole new file swapped in for the log
//! (`log_file.rs`): safe against any concurrent save, but it writes the
//! whole log every time. Here the hub writes the changed tail into the
//! file itself, under a Linux write lease (`fcntl(F_SETLEASE, F_WRLCK)`):
//!
//! - the kernel grants it only while no other open file description of
//!   the file exists (anyone's, the hub's other handles included), so no
//!   write can be in flight;
//! - while it is held, anyone who opens the file (an editor's save, an
//!   append, `cat`) waits in `open` until it is released, so no write can
//!   start;
//! - a rename over the path does not open the file: it is seen by
//!   checking, under the lease, that the path still names the file.
//!
//! Under the lease the file's length and the bytes about to be replaced
//! are checked against what the engine read; when they match, only the
//! bytes from the first one that differs are written, the file cut to its
//! new length, and the lease released. Bytes above that point stay where
//! they are, untouched: an edit the agent made there before the lease is
//! kept, and its change event runs next. When the lease cannot be had (a
//! reader has the file open, another system, a file system without
//! leases) the caller swaps a whole file as before.
//!
//! The lease's break signal goes to `SIGURG` (ignored by default), never
//! to `SIGIO`, whose default would end the hub.

use std::fs::File;
use std::io;
use std::path::Path;

use super::window::Seen;

/// What happened to an in-place write.
#[derive(Debug)]
pub enum InPlace {
    /// Written: these many bytes went to disk, and the file's metadata
    /// right after, read under the lease (so no one else's write can be
    /// taken for the hub's own).
    Written(usize, std::fs::Metadata),
    /// The file is not what the engine read (a save since): read again.
    Changed,
    /// No lease now (or no need): write a whole file instead.
    NotNow,
}

/// Writes `new` over `read` in `file` (the handle the text was read
/// through, opened for writing), at `path`. `new` and `read` start at the
/// same offset in the file.
pub fn write(file: &File, path: &Path, read: &Seen, new: &Seen) -> io::Result<InPlace> {
    if new.base != read.base || !writable(file) {
        return Ok(InPlace::NotNow);
    }
    let Some(lease) = Lease::take_soon(file) else {
        return Ok(InPlace::NotNow);
    };
    // The path still names the file, at the length that was read.
    if !names(path, file, read.file_len())? {
        drop(lease);
        return Ok(InPlace::Changed);
    }
    let from = first_difference(&read.text, &new.text);
    let at = (read.base + from) as u64;
    // The bytes about to be replaced are the ones the engine read.
    let old_tail = &read.text.as_bytes()[from..];
    if !holds_at(file, at, old_tail)? {
        drop(lease);
        return Ok(InPlace::Changed);
    }
    let tail = &new.text.as_bytes()[from..];
    let lens = (read.file_len() as u64, new.file_len() as u64);
    replace_tail(file, path, at, old_tail, tail, lens)?;
    let after = file.metadata()?;
    drop(lease);
    Ok(InPlace::Written(tail.len(), after))
}

/// Writes `tail` at `at` over `old_tail`, and cuts the file from its
/// length `lens.0` to `lens.1` when shorter; a write that fails part way
/// is undone ([`put_back`]) before the error is returned. The caller holds
/// the lease, so no one sees the part written.
fn replace_tail(
    file: &File,
    path: &Path,
    at: u64,
    old_tail: &[u8],
    tail: &[u8],
    lens: (u64, u64),
) -> io::Result<()> {
    let wrote = write_all_at(file, tail, at).and_then(|()| match lens.1 < lens.0 {
        true => file.set_len(lens.1),
        false => Ok(()),
    });
    if let Err(e) = wrote {
        put_back(file, lens.0, at, old_tail, path);
        return Err(e);
    }
    Ok(())
}

/// A write that failed part way (a full disk: the bytes that fit in the
/// file's last block went, the rest did not) is undone: the file is cut
/// back to its length and the bytes it held put back. Otherwise the hub
/// would read its own fragment as the agent's edit, and run the block
/// again. Cutting first frees the blocks the write took, and the bytes
/// put back lie within blocks the file already had, so this needs no
/// free space.
fn put_back(file: &File, len: u64, at: u64, old_tail: &[u8], path: &Path) {
    if let Err(e) = file
        .set_len(len)
        .and_then(|()| write_all_at(file, old_tail, at))
    {
        tracing::error!(
            path = %path.display(),
            "a failed write could not be undone ({e}): the log may hold part of a reply"
        );
    }
}

/// What [`rewrite_whole`] did.
#[derive(Debug)]
pub enum Rewrite {
    /// Under the lease the file held `read`; `edit` made it `now` (the
    /// same text when it changed nothing, or when it said to wait).
    Done { read: String, now: String },
    /// The path names another file now (a rename over it): open it again.
    Changed,
    /// No lease now: someone has the file open (perhaps mid-write).
    NotNow,
}

/// A whole small file read and rewritten under one write lease, so that
/// no one else's write is in flight or can start meanwhile: `edit` gets
/// the text and returns the text to write (`None`: leave it as it is).
/// `file` is opened for reading and writing at `path`. Used for the
/// registry, which the hub rewrites as realms come and go while the agent
/// may be saving it.
pub fn rewrite_whole(
    file: &File,
    path: &Path,
    edit: impl FnOnce(&str) -> Option<String>,
) -> io::Result<Rewrite> {
    if !writable(file) {
        return Ok(Rewrite::NotNow);
    }
    let Some(lease) = Lease::take_soon(file) else {
        return Ok(Rewrite::NotNow);
    };
    let len = file.metadata()?.len() as usize;
    if !names(path, file, len)? {
        return Ok(Rewrite::Changed);
    }
    let mut bytes = vec![0; len];
    read_exact_at(file, &mut bytes, 0)?;
    let read = String::from_utf8(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8"))?;
    let now = match edit(&read) {
        Some(new) if new != read => new,
        _ => {
            let now = read.clone();
            return Ok(Rewrite::Done { read, now });
        }
    };
    let from = first_difference(&read, &now);
    let (old_tail, tail) = (&read.as_bytes()[from..], &now.as_bytes()[from..]);
    replace_tail(
        file,
        path,
        from as u64,
        old_tail,
        tail,
        (len as u64, now.len() as u64),
    )?;
    drop(lease);
    Ok(Rewrite::Done { read, now })
}

/// The first byte where `a` and `b` differ, on a character boundary of
/// both (a write never starts inside a character).
fn first_difference(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !(a.is_char_boundary(n) && b.is_char_boundary(n)) {
        n -= 1;
    }
    n
}

/// Whether `file` was opened for writing (the log is read through a
/// read-only handle when the hub may not write it that way).
#[cfg(unix)]
fn writable(file: &File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: `fcntl(F_GETFL)` on a descriptor this `File` owns.
    let flags = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) };
    flags >= 0 && flags & libc::O_ACCMODE == libc::O_RDWR
}

#[cfg(not(unix))]
fn writable(_: &File) -> bool {
    false
}

/// Whether `path` names `file`, and both are `len` bytes long.
fn names(path: &Path, file: &File, len: usize) -> io::Result<bool> {
    let now = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let held = file.metadata()?;
    Ok(super::fsio::same_inode(&now, &held) && now.len() == len as u64 && held.len() == len as u64)
}

#[cfg(unix)]
fn holds_at(file: &File, at: u64, bytes: &[u8]) -> io::Result<bool> {
    use std::os::unix::fs::FileExt;
    let mut found = vec![0; bytes.len()];
    match file.read_exact_at(&mut found, at) {
        Ok(()) => Ok(found == bytes),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(not(unix))]
fn holds_at(_: &File, _: u64, _: &[u8]) -> io::Result<bool> {
    Ok(false)
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, at)
}

#[cfg(not(unix))]
fn read_exact_at(_: &File, _: &mut [u8], _: u64) -> io::Result<()> {
    Err(io::Error::other("no in-place reads here"))
}

#[cfg(unix)]
fn write_all_at(file: &File, bytes: &[u8], at: u64) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.write_all_at(bytes, at)
}

#[cfg(not(unix))]
fn write_all_at(_: &File, _: &[u8], _: u64) -> io::Result<()> {
    Err(io::Error::other("no in-place writes here"))
}

/// `fcntl`'s command for the signal a lease break sends (Linux's
/// `<asm-generic/fcntl.h>`; the `libc` crate does not name it).
#[cfg(target_os = "linux")]
const F_SETSIG: libc::c_int = 10;

/// A write lease on a file, released on drop.
#[must_use = "the lease is released when dropped"]
struct Lease<'f> {
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    file: &'f File,
}

/// Tries for a lease this many times, [`LEASE_RETRY`] apart: a reader
/// that has the file open for a moment (a poll of its tail, a door's
/// read) is gone by then; one that keeps it open (`tail -f`) costs each
/// write this wait, then the whole-file swap.
const LEASE_TRIES: usize = 5;
const LEASE_RETRY: std::time::Duration = std::time::Duration::from_micros(50);

impl<'f> Lease<'f> {
    fn take_soon(file: &'f File) -> Option<Lease<'f>> {
        for _ in 1..LEASE_TRIES {
            if let Some(lease) = Lease::take(file) {
                return Some(lease);
            }
            std::thread::sleep(LEASE_RETRY);
        }
        Lease::take(file)
    }

    #[cfg(target_os = "linux")]
    fn take(file: &'f File) -> Option<Lease<'f>> {
        use std::os::fd::AsRawFd;
        let fd = file.as_raw_fd();
        // SAFETY: `fcntl` on a descriptor this `File` owns, with integer
        // arguments; no memory is passed.
        let ok = unsafe {
            libc::fcntl(fd, F_SETSIG, libc::SIGURG) == 0
                && libc::fcntl(fd, libc::F_SETLEASE, libc::F_WRLCK) == 0
        };
        ok.then_some(Lease { file })
    }

    #[cfg(not(target_os = "linux"))]
    fn take(_: &'f File) -> Option<Lease<'f>> {
        None
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: as in `take`.
            unsafe {
                libc::fcntl(self.file.as_raw_fd(), libc::F_SETLEASE, libc::F_UNLCK);
            }
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Write;

    fn log(dir: &tempfile::TempDir, text: &str) -> (std::path::PathBuf, File) {
        let path = dir.path().join("shop.md");
        std::fs::write(&path, text).unwrap();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        (path, file)
    }

    fn written(w: InPlace) -> Option<usize> {
        match w {
            InPlace::Written(bytes, _) => Some(bytes),
            _ => None,
        }
    }

    fn seen(base: usize, text: &str) -> Seen {
        Seen {
            base,
            text: text.to_string(),
        }
    }

    #[test]
    fn only_the_changed_tail_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let old = "# log\n\n```js\n1\n```\n\n> footer\n";
        let new = "# log\n\n```js\n1\n```\n\n> reply\n```JSON\n1\n```\n\n> footer\n";
        let (path, file) = log(&dir, old);
        let wrote = write(&file, &path, &seen(0, old), &seen(0, new)).unwrap();
        // From the first byte that differs (`f` of `footer`, `r` of `reply`).
        assert_eq!(
            written(wrote),
            Some(new.len() - (old.find("> footer").unwrap() + 2))
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), new);
        // Shorter: cut to the new length.
        let wrote = write(&file, &path, &seen(0, new), &seen(0, old)).unwrap();
        assert!(written(wrote).is_some());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), old);
    }

    #[test]
    fn a_window_is_written_at_its_place() {
        let dir = tempfile::tempdir().unwrap();
        let (path, file) = log(&dir, "head\nwindow é\n");
        let wrote = write(
            &file,
            &path,
            &seen(5, "window é\n"),
            &seen(5, "window è!\n"),
        )
        .unwrap();
        // From the first differing character, whole.
        assert_eq!(written(wrote), Some("è!\n".len()));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "head\nwindow è!\n");
    }

    #[test]
    fn an_append_since_the_read_is_not_written_over() {
        let dir = tempfile::tempdir().unwrap();
        let old = "a\n> footer\n";
        let (path, file) = log(&dir, old);
        let mut agent = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        agent.write_all(b"```js\n2\n```\n").unwrap();
        drop(agent);
        let wrote = write(
            &file,
            &path,
            &seen(0, old),
            &seen(0, "a\n> reply\n> footer\n"),
        )
        .unwrap();
        assert!(matches!(wrote, InPlace::Changed), "{wrote:?}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "a\n> footer\n```js\n2\n```\n"
        );
    }

    #[test]
    fn a_same_length_save_over_the_tail_is_not_written_over() {
        let dir = tempfile::tempdir().unwrap();
        let old = "a\n> footer\n";
        let (path, file) = log(&dir, old);
        std::fs::write(&path, "a\n> FOOTER\n").unwrap();
        let wrote = write(&file, &path, &seen(0, old), &seen(0, "a\n> reply\n")).unwrap();
        assert!(matches!(wrote, InPlace::Changed), "{wrote:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\n> FOOTER\n");
    }

    #[test]
    fn a_rename_over_the_path_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let old = "a\n> footer\n";
        let (path, file) = log(&dir, old);
        let saved = dir.path().join("shop.md.tmp");
        std::fs::write(&saved, "a\n> footer\n").unwrap();
        std::fs::rename(&saved, &path).unwrap();
        let wrote = write(&file, &path, &seen(0, old), &seen(0, "a\n> reply\n")).unwrap();
        assert!(matches!(wrote, InPlace::Changed), "{wrote:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), old);
    }

    #[test]
    fn an_open_handle_elsewhere_means_no_lease() {
        let dir = tempfile::tempdir().unwrap();
        let old = "a\n> footer\n";
        let (path, file) = log(&dir, old);
        let reader = File::open(&path).unwrap();
        let wrote = write(&file, &path, &seen(0, old), &seen(0, "a\n> reply\n")).unwrap();
        assert!(matches!(wrote, InPlace::NotNow), "{wrote:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), old);
        drop(reader);
        let wrote = write(&file, &path, &seen(0, old), &seen(0, "a\n> reply\n")).unwrap();
        assert!(written(wrote).is_some());
    }

    #[test]
    fn a_read_only_handle_swaps_instead() {
        let dir = tempfile::tempdir().unwrap();
        let old = "a\n> footer\n";
        let (path, _) = log(&dir, old);
        let read_only = File::open(&path).unwrap();
        let wrote = write(&read_only, &path, &seen(0, old), &seen(0, "a\n> reply\n")).unwrap();
        assert!(matches!(wrote, InPlace::NotNow), "{wrote:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), old);
    }

    #[test]
    fn an_open_during_the_lease_waits_for_the_write() {
        let dir = tempfile::tempdir().unwrap();
        let old = "a\n> footer\n";
        let (path, file) = log(&dir, old);
        let lease = Lease::take(&file).expect("a lease");
        let (tx, rx) = std::sync::mpsc::channel();
        let opener = {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                f.write_all(b"appended\n").unwrap();
                tx.send(()).unwrap();
            })
        };
        // The opener is held in `open` while the lease stands: nothing
        // arrives until it is released (a bounded wait, not a sleep to
        // order things: the assertion holds however long it lasts).
        assert!(rx
            .recv_timeout(std::time::Duration::from_millis(200))
            .is_err());
        drop(lease);
        opener.join().unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "a\n> footer\nappended\n"
        );
    }
}
