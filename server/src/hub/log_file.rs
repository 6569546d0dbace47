//! One input's trip through a log file: read, run the engine, write back —
//! without ever writing over text the hub has not seen.
//!
//! The agent writes the same file with tools the hub cannot coordinate
//! with: whole-file rewrites (truncate, then write), appends, editors'
//! temp-file-and-rename saves. So a transaction:
//!
//! 1. opens the file and keeps that handle, then reads the text;
//! 2. snapshots the engine and runs the input on the text;
//! 3. writes the new text to a temp file;
//! 4. checks the path still names the file it read (same inode and
//!    length: an editor's rename or an append since the read shows here);
//! 5. renames the temp file over the path;
//! 6. reads the old file again through the kept handle: if the agent wrote
//!    into it while 3–5 ran, their text is there (and only there), so the
//!    engine snapshot is restored and the input runs again on that text.
//!
//! One window stays: an agent holding a handle opened before the rename
//! can still write into the old file after step 6. So the old file is kept
//! open for a while ([`LogFile::rescue`]): text appended to it later is
//! appended to the log (and anything else found there is saved next to
//! the log and reported), never dropped.
//!
//! Effects are returned only once a write stands, so a rerun never
//! dispatches a job twice. An empty file is someone's write in progress
//! (a truncate before the write): it is left alone until it has stayed
//! empty for [`SETTLE`], and only then treated as a request for a new log.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use super::fsio::{remove_quietly, write_temp};
use crate::engine::{apply, Effect, Input, LogEngine, Now};

/// How long an empty log must stay empty before the hub rewrites it.
pub const SETTLE: Duration = Duration::from_millis(500);
/// Reruns of one input because the file kept changing under the write.
const MAX_RERUNS: usize = 16;

/// Why an input could not be applied now; it is kept and tried again.
#[derive(Debug)]
pub enum Later {
    /// The file is empty: a write is probably in progress. Try at this
    /// time.
    Settling(Instant),
    /// Reading or writing failed (the error was logged).
    Failed(io::Error),
}

/// The file side of a log.
#[derive(Debug)]
pub struct LogFile {
    pub path: PathBuf,
    /// The text the hub last wrote, or last scanned for a change: a change
    /// event whose text equals it has nothing new.
    last_seen: Option<String>,
    /// The identity of the file the hub last wrote (device, inode, length,
    /// modification time): a change event for a file that still matches is
    /// the hub's own write and is skipped without reading a large log.
    /// A same-length rewrite within the clock's granularity would be seen
    /// one event late, never lost: every write reads the file again first.
    written: Option<Stamp>,
    /// Since when the file has been seen empty.
    empty_since: Option<Instant>,
    /// The files the last write renamed over, still open: late writes into
    /// them are rescued.
    orphans: Vec<Orphan>,
}

/// A replaced file kept open, and the text the hub knows it holds.
#[derive(Debug)]
struct Orphan {
    file: File,
    text: String,
    /// When it was replaced; it is let go [`ORPHAN_LIFE`] later.
    since: Instant,
}

/// How long a replaced file is watched for late writes. A writer holds a
/// handle for the microseconds between its open and its write; seconds
/// cover a writer thread that was descheduled in between.
pub const ORPHAN_LIFE: Duration = Duration::from_secs(2);
/// At most this many replaced files are kept open (each holds its text on
/// disk until let go; a busy large log must not pile them up).
const MAX_ORPHANS: usize = 4;

/// The file as read.
struct Read0 {
    source: Source,
    text: String,
}

/// Where the text of a [`Read0`] came from.
enum Source {
    /// There is no file.
    Missing,
    /// The file at the path; the handle is kept for the after-write check.
    Open(File),
    /// The old file the agent wrote into while the hub renamed over it;
    /// the path holds the hub's write `at_path`, which the next write
    /// replaces.
    Orphan { at_path: String },
}

impl LogFile {
    pub fn new(path: PathBuf) -> LogFile {
        LogFile {
            path,
            last_seen: None,
            written: None,
            empty_since: None,
            orphans: Vec::new(),
        }
    }

    /// Runs `input` through `engine` against the file. `Ok(effects)` once
    /// the edits (if any) are on disk; `Ok(vec![])` when there was nothing
    /// to do; `Err(Later)` when the input must be tried again.
    pub fn transact(
        &mut self,
        engine: &mut LogEngine,
        input: &Input,
        now: impl Fn() -> Now,
    ) -> Result<Vec<Effect>, Later> {
        let scan = matches!(input, Input::FileChanged | Input::Startup);
        self.rescue();
        if matches!(input, Input::FileChanged) && self.written.is_some() {
            if self.written == stamp(&self.path) {
                return Ok(Vec::new());
            }
            self.written = None;
        }
        let mut read = self.read().map_err(Later::Failed)?;
        for _ in 0..MAX_RERUNS {
            let blank = match &read.source {
                Source::Missing => true,
                Source::Open(_) => read.text.trim().is_empty(),
                Source::Orphan { .. } => false,
            };
            if !blank {
                self.empty_since = None;
            }
            let rerun = matches!(read.source, Source::Orphan { .. });
            if matches!(input, Input::FileChanged)
                && !rerun
                && self.last_seen.as_deref() == Some(read.text.as_str())
            {
                return Ok(Vec::new());
            }
            let snapshot = engine.clone();
            let out = engine.handle(&read.text, input.clone(), now());
            // A rerun's text exists only in the replaced file: it is
            // written to the path even when the engine changes nothing.
            if out.edits.is_empty() && !rerun {
                if scan {
                    self.last_seen = Some(read.text);
                }
                return Ok(out.effects);
            }
            let new_log = matches!(read.source, Source::Missing) && matches!(input, Input::Startup);
            if blank && !new_log {
                // Emptied or deleted: someone is probably writing it (a
                // truncate comes before the write). A change event leaves
                // it alone; anything that must be written waits until it
                // has stayed so for a while, then starts the log afresh.
                if matches!(input, Input::FileChanged) {
                    *engine = snapshot;
                    return Ok(Vec::new());
                }
                let since = *self.empty_since.get_or_insert_with(Instant::now);
                if since.elapsed() < SETTLE {
                    *engine = snapshot;
                    return Err(Later::Settling(since + SETTLE));
                }
            }
            let new = apply(&read.text, &out.edits);
            match self.replace(&read, &new) {
                Ok(None) => {
                    self.last_seen = Some(new);
                    return Ok(out.effects);
                }
                Ok(Some(newer)) => {
                    tracing::debug!(path = %self.path.display(), "the file changed under a write; running the input again");
                    *engine = snapshot;
                    read = newer;
                }
                Err(e) => {
                    *engine = snapshot;
                    return Err(Later::Failed(e));
                }
            }
        }
        Err(Later::Failed(io::Error::other(
            "the file kept changing under every write",
        )))
    }

    fn read(&self) -> io::Result<Read0> {
        match File::open(&self.path) {
            Ok(mut f) => {
                let text = read_all(&mut f)?;
                Ok(Read0 {
                    source: Source::Open(f),
                    text,
                })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Read0 {
                source: Source::Missing,
                text: String::new(),
            }),
            Err(e) => Err(e),
        }
    }

    /// Puts `new` in place of the text of `read`. `Ok(Some(newer))` when
    /// the agent changed the file meanwhile: nothing of theirs was
    /// overwritten, and `newer` is their text to run the input on again.
    fn replace(&mut self, read: &Read0, new: &str) -> io::Result<Option<Read0>> {
        let tmp = write_temp(&self.path, new)?;
        // Stamped before the rename: an append right after it must not
        // look like the hub's own write.
        let written = stamp(&tmp);
        // For a rerun, the file at the path is the hub's own previous
        // write: hold it, to rescue what lands in it after this rename.
        let mut previous = None;
        let still = match &read.source {
            Source::Open(file) => same_file(file, &self.path, read.text.len()),
            // Nothing may have appeared at the path meanwhile.
            Source::Missing => Ok(!self.path.exists()),
            Source::Orphan { at_path } => File::open(&self.path).and_then(|f| {
                let ok = f.metadata()?.len() == at_path.len() as u64;
                previous = Some(Orphan {
                    file: f,
                    text: at_path.clone(),
                    since: Instant::now(),
                });
                Ok(ok)
            }),
        };
        match still {
            Ok(true) => {}
            Ok(false) if matches!(read.source, Source::Orphan { .. }) => {
                // The agent wrote both the replaced file and the new one:
                // no safe merge. Keep their rewrite next to the log.
                remove_quietly(&tmp);
                save_rescued(&self.path, &read.text)?;
                return Ok(None);
            }
            Ok(false) => {
                remove_quietly(&tmp);
                return self.read().map(Some);
            }
            Err(e) => {
                remove_quietly(&tmp);
                return Err(e);
            }
        }
        if let Err(e) = std::fs::rename(&tmp, &self.path) {
            remove_quietly(&tmp);
            return Err(e);
        }
        self.written = written;
        self.orphans.extend(previous);
        // A write through a handle opened before the rename lands in the
        // old file, now unlinked: take it from there.
        if let Source::Open(file) = &read.source {
            let mut file = file.try_clone()?;
            // As in `rescue_one`: a late write changes the length (reading
            // a large log again only to find it unchanged is skipped).
            let after = if file.metadata()?.len() == read.text.len() as u64 {
                read.text.clone()
            } else {
                file.seek(SeekFrom::Start(0))?;
                read_all(&mut file)?
            };
            let mut orphan = Orphan {
                file,
                text: read.text.clone(),
                since: Instant::now(),
            };
            // (A text that is a prefix of what was read is a rewrite still
            // being written, like an emptied file.)
            let rewritten =
                !after.starts_with(read.text.as_str()) && !read.text.starts_with(after.as_str());
            if rewritten {
                // A whole-file rewrite based on what the hub read: run the
                // input again on it (and write the result over this write).
                orphan.text = after.clone();
                self.orphans.push(orphan);
                return Ok(Some(Read0 {
                    source: Source::Orphan {
                        at_path: new.to_string(),
                    },
                    text: after,
                }));
            }
            // An append is added to the new file now; an emptied file is a
            // rewrite in progress, rescued when its text arrives.
            rescue_one(&self.path, &mut orphan)?;
            self.orphans.push(orphan);
        }
        Ok(None)
    }

    /// Whether a replaced file is still kept open for [`LogFile::rescue`].
    pub fn has_orphan(&self) -> bool {
        !self.orphans.is_empty()
    }

    /// Looks into the files the last write replaced. Text appended to
    /// one since (through a handle the agent opened before the rename) is
    /// appended to the log; any other change is saved as
    /// `<stem>.rescued-<ms>.md` next to the log and reported.
    pub fn rescue(&mut self) {
        let path = &self.path;
        self.orphans.retain_mut(|o| match rescue_one(path, o) {
            Ok(()) => o.since.elapsed() < ORPHAN_LIFE,
            Err(e) => {
                tracing::warn!(path = %path.display(), "cannot look into a replaced copy of the log: {e}");
                false
            }
        });
        let excess = self.orphans.len().saturating_sub(MAX_ORPHANS);
        self.orphans.drain(..excess);
    }
}

fn rescue_one(path: &std::path::Path, orphan: &mut Orphan) -> io::Result<()> {
    // Late writes are appends or whole rewrites: both change the length
    // (a same-length rewrite through an old handle is not worth a read of
    // the whole file on every input).
    if orphan.file.metadata()?.len() == orphan.text.len() as u64 {
        return Ok(());
    }
    orphan.file.seek(SeekFrom::Start(0))?;
    let now = read_all(&mut orphan.file)?;
    // Emptied, or cut short: a rewrite through the old handle is under
    // way; its text is compared with what the hub knew once it is whole.
    if orphan.text.starts_with(now.as_str()) || now.trim().is_empty() {
        return Ok(());
    }
    if let Some(extra) = now.strip_prefix(orphan.text.as_str()) {
        tracing::warn!(path = %path.display(), "text was appended to the log while the hub replaced it; appending it again");
        let mut f = std::fs::OpenOptions::new().append(true).open(path)?;
        f.write_all(extra.as_bytes())?;
    } else {
        save_rescued(path, &now)?;
    }
    orphan.text = now;
    Ok(())
}

/// Keeps text the hub could not merge into the log next to it, as
/// `<stem>.rescued-<ms>.md`, and says so.
fn save_rescued(path: &std::path::Path, text: &str) -> io::Result<()> {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let saved = path.with_extension(format!("rescued-{ms}.md"));
    std::fs::write(&saved, text)?;
    tracing::error!(path = %path.display(), "the log was rewritten through an old handle while the hub replaced it; that text is saved in {}", saved.display());
    Ok(())
}

fn read_all(f: &mut File) -> io::Result<String> {
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    // Rewriting text that is not UTF-8 would lose bytes: refuse.
    String::from_utf8(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "the log is not UTF-8 text; the hub leaves it alone until it is",
        )
    })
}

/// A file's identity and shape, see [`LogFile::written`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

fn stamp(path: &std::path::Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let (dev, ino) = {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    };
    #[cfg(not(unix))]
    let (dev, ino) = (0, 0);
    Some(Stamp {
        dev,
        ino,
        len: m.len(),
        modified: m.modified().ok(),
    })
}

/// Whether `path` still names `file` at the length it was read.
fn same_file(file: &File, path: &std::path::Path, len: usize) -> io::Result<bool> {
    let now = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let then = file.metadata()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if (now.dev(), now.ino()) != (then.dev(), then.ino()) {
            return Ok(false);
        }
    }
    Ok(now.len() == len as u64 && then.len() == len as u64)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::engine::{template, ClockTime, Config, Millis};

    fn at(ms: u64) -> Now {
        Now {
            mono: Millis(ms),
            clock: ClockTime::default(),
        }
    }

    fn setup() -> (tempfile::TempDir, LogFile, LogEngine) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shop-3f2a.md");
        std::fs::write(&path, template::new_log("shop-3f2a")).unwrap();
        (
            dir,
            LogFile::new(path),
            LogEngine::new("shop-3f2a", Config::default()),
        )
    }

    fn append(path: &std::path::Path, text: &str) {
        let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    fn dispatches(effects: &[Effect]) -> usize {
        effects
            .iter()
            .filter(|e| matches!(e, Effect::Dispatch { .. }))
            .count()
    }

    #[test]
    fn an_append_between_read_and_write_is_kept_and_seen() {
        let (_dir, mut file, mut engine) = setup();
        append(&file.path, "```js\n1\n```\n");
        // The engine's clock is read after the file: append right then,
        // as an agent racing the hub would.
        let raced = Cell::new(false);
        let path = file.path.clone();
        let effects = file
            .transact(&mut engine, &Input::FileChanged, || {
                if !raced.replace(true) {
                    append(&path, "\nwritten meanwhile\n");
                }
                at(0)
            })
            .unwrap();
        let text = std::fs::read_to_string(&file.path).unwrap();
        assert!(text.contains("written meanwhile"), "{text}");
        assert!(text.contains("executing (0s)"), "{text}");
        assert_eq!(dispatches(&effects), 1, "dispatched once: {effects:?}");
    }

    #[test]
    fn a_write_through_an_old_handle_after_the_rename_is_rescued() {
        let (_dir, mut file, mut engine) = setup();
        append(&file.path, "```js\n1\n```\n");
        // The agent opened the log before the hub replaced it...
        let mut held = std::fs::OpenOptions::new()
            .append(true)
            .open(&file.path)
            .unwrap();
        file.transact(&mut engine, &Input::FileChanged, || at(0))
            .unwrap();
        // ...and writes after: the bytes land in the replaced file.
        held.write_all(b"\nlate line\n").unwrap();
        assert!(!std::fs::read_to_string(&file.path)
            .unwrap()
            .contains("late line"));
        assert!(file.has_orphan());
        file.rescue();
        let text = std::fs::read_to_string(&file.path).unwrap();
        assert!(text.ends_with("\nlate line\n"), "{text}");
        // Rescued once, not again.
        file.rescue();
        assert_eq!(
            std::fs::read_to_string(&file.path)
                .unwrap()
                .matches("late line")
                .count(),
            1
        );
    }

    #[test]
    fn a_whole_rewrite_through_an_old_handle_is_rescued_once_complete() {
        let (_dir, mut file, mut engine) = setup();
        append(&file.path, "```js\n1\n```\n");
        let before = std::fs::read_to_string(&file.path).unwrap();
        // An editor opened the log (without O_APPEND) before the hub
        // replaced it, and saves the whole text plus a new line after.
        let mut held = std::fs::OpenOptions::new()
            .write(true)
            .open(&file.path)
            .unwrap();
        file.transact(&mut engine, &Input::FileChanged, || at(0))
            .unwrap();
        held.set_len(0).unwrap();
        file.rescue();
        held.write_all(&before.as_bytes()[..10]).unwrap();
        file.rescue();
        assert!(!std::fs::read_to_string(&file.path)
            .unwrap()
            .contains("saved by the editor"));
        held.write_all(&before.as_bytes()[10..]).unwrap();
        held.write_all(b"saved by the editor\n").unwrap();
        file.rescue();
        file.rescue();
        let text = std::fs::read_to_string(&file.path).unwrap();
        assert!(text.contains("executing (0s)"), "{text}");
        assert!(text.ends_with("\nsaved by the editor\n"), "{text}");
        assert_eq!(text.matches("saved by the editor").count(), 1, "{text}");
        assert_eq!(text.matches("# 👾").count(), 1, "{text}");
    }

    #[test]
    fn an_emptied_file_is_left_alone_until_something_must_be_written() {
        let (_dir, mut file, mut engine) = setup();
        std::fs::write(&file.path, "").unwrap();
        let effects = file
            .transact(&mut engine, &Input::FileChanged, || at(0))
            .unwrap();
        assert!(effects.is_empty());
        assert_eq!(std::fs::read_to_string(&file.path).unwrap(), "");
        let background = Input::Background {
            events: vec![daebug_protocol::BackgroundEvent {
                kind: daebug_protocol::EventType::Console,
                level: daebug_protocol::Level::Log,
                source: None,
                ts: String::new(),
                message: "from a timer".into(),
                stack: None,
            }],
            dropped: 0,
        };
        match file.transact(&mut engine, &background, || at(0)) {
            Err(Later::Settling(_)) => {}
            other => panic!("expected to wait, got {other:?}"),
        }
        assert_eq!(std::fs::read_to_string(&file.path).unwrap(), "");
        file.empty_since = Some(Instant::now() - SETTLE);
        file.transact(&mut engine, &background, || at(0)).unwrap();
        let text = std::fs::read_to_string(&file.path).unwrap();
        assert!(text.starts_with("# 👾 shop-3f2a"), "{text}");
        assert_eq!(text.matches("from a timer").count(), 1, "{text}");
    }

    #[test]
    fn a_deleted_log_is_not_recreated_by_a_change_event() {
        let (_dir, mut file, mut engine) = setup();
        std::fs::remove_file(&file.path).unwrap();
        let effects = file
            .transact(&mut engine, &Input::FileChanged, || at(0))
            .unwrap();
        assert!(effects.is_empty());
        assert!(!file.path.exists());
    }

    #[test]
    fn text_that_is_not_utf8_is_left_alone() {
        let (_dir, mut file, mut engine) = setup();
        std::fs::write(&file.path, [b'#', 0xff, b'\n']).unwrap();
        assert!(matches!(
            file.transact(&mut engine, &Input::FileChanged, || at(0)),
            Err(Later::Failed(_))
        ));
        assert_eq!(std::fs::read(&file.path).unwrap(), [b'#', 0xff, b'\n']);
    }
}
