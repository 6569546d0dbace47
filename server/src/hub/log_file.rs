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
//! 5. swaps the temp file in (`renameat2` with `RENAME_EXCHANGE`): if what
//!    came out is not the file that was read (a save landed between 4 and
//!    5), it goes back and the input runs again on it;
//! 6. reads the old file again through the kept handle: if the agent wrote
//!    into it while 3–5 ran, their text is there (and only there), so the
//!    engine snapshot is restored and the input runs again on that text.
//!
//! One window stays: an agent holding a handle opened before the rename
//! can still write into the old file after step 6. So the old file is kept
//! open for a while ([`LogFile::rescue`]): text appended to it later is
//! appended to the log, a whole save landing in it while the path still
//! holds the hub's write is taken as the log (the agent's save, a moment
//! late), and anything else found there is saved next to the log and
//! reported; nothing is dropped.
//!
//! **Large logs cost what their tail costs.** The engine only looks at
//! the end of a log (from its [`LogMachine::horizon`] on), so once the hub
//! has read a log whole it remembers an [`Anchor`]: the lines just before
//! and at that horizon, and where they were. The next read starts there;
//! if those bytes are still in place, only that window is read and given
//! to the engine, and the write copies the bytes before it from the kept
//! handle inside the kernel (`copy_file_range`) instead of through the
//! hub. If they moved or changed (the agent edited above them), the file
//! is read whole, as the first time.
//!
//! A transaction is one loop ([`LogFile::transact`]): between the
//! engine's run and its write the caller may act on the run's effects
//! (send a job ahead of a large write), and effects are final only once a
//! write stands, so a rerun never dispatches a job twice. An empty file is someone's write in progress
//! (a truncate before the write): it is left alone until it has stayed
//! empty for [`SETTLE`], and only then treated as a request for a new log.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::time::Instant;

use super::fsio::{exchange, remove_quietly, same_inode, write_temp_after};
use super::history::{link_line, MIN_HISTORY, ROTATE_AT};
use super::in_place::{self, InPlace};
use super::window::{
    already_holds, anchor, appended, rewrite, touches_first_line, Anchor, LateWrite, Seen,
};
use daebug_core::delivery::Early;
use daebug_core::engine::template::head_end;
use daebug_core::engine::text::Eol;
use daebug_core::engine::{apply, Effect, Input, Now};
use daebug_core::machine::{LogMachine, Snapshot};

/// How long an empty log must stay empty before the hub rewrites it.
pub const SETTLE: Duration = Duration::from_millis(500);
/// Reruns of one input because the file kept changing under the write.
const MAX_RERUNS: usize = 16;
/// How much of a log's start is read to find its head.
const HEAD_READ: usize = 16 << 10;
/// From this size on a log counts as large, see [`LogFile::is_large`].
const LARGE: usize = 1 << 20;

/// Why an input could not be applied now; it is kept and tried again.
#[derive(Debug)]
pub enum Later {
    /// The file is empty: a write is probably in progress. Try at this
    /// time.
    Settling(Instant),
    /// Reading or writing failed (the error was logged).
    Failed(io::Error),
    /// The input ran but its write failed (a full disk): the log as it
    /// would be, for the doors (`daebug_core::unwritten`).
    Unwritten(Box<UnwrittenRun>),
}

/// A run whose write failed: the error, and the machine, text and effects
/// it gave (the machine itself is back as it was before the run).
#[derive(Debug)]
pub struct UnwrittenRun {
    pub error: io::Error,
    pub ran: Snapshot,
    pub text: Seen,
    pub effects: Vec<Effect>,
}

/// Where a transaction stands, see [`LogFile::transact`].
#[derive(Debug)]
enum Step {
    /// Done: the edits (if any) are on disk, and these are the effects.
    Done(Vec<Effect>),
    /// The engine ran and its edits are about to be written: the caller
    /// may act on [`PendingWrite::effects`] first (write archives, send a
    /// job ahead), then [`LogFile::commit`] or [`LogFile::redo`].
    Write(Box<PendingWrite>),
}

/// A run of the engine whose edits are not written yet. The engine as it
/// was before the run is kept: a run that does not stand is undone.
#[derive(Debug)]
struct PendingWrite {
    input: Input,
    read: Read0,
    new: Seen,
    history: Option<PathBuf>,
    snapshot: Snapshot,
    effects: Vec<Effect>,
    runs: usize,
}

impl PendingWrite {
    /// The effects of the run, before its write.
    fn effects(&self) -> &[Effect] {
        &self.effects
    }
}

/// The file side of a log.
#[derive(Debug)]
pub struct LogFile {
    pub path: PathBuf,
    /// The text the hub last wrote, or last scanned for a change: a change
    /// event whose text equals it has nothing new.
    last_seen: Option<Seen>,
    /// Where the next read may start instead of at byte 0.
    anchor: Option<Anchor>,
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
    /// A whole save found in a replaced file while the path still held
    /// the hub's own last write: the agent truncated the file just before
    /// the hub replaced it and wrote just after. It is their save of the
    /// log, a moment late; the next input runs on it.
    late_save: Option<String>,
}

/// A replaced file kept open, and the text the hub knows it holds.
#[derive(Debug)]
struct Orphan {
    file: File,
    seen: Seen,
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
#[derive(Debug)]
struct Read0 {
    source: Source,
    seen: Seen,
}

/// Where the text of a [`Read0`] came from.
#[derive(Debug)]
enum Source {
    /// There is no file.
    Missing,
    /// The file at the path; the handle is kept for the after-write check
    /// (and to copy the bytes before a window from).
    Open(File),
    /// The old file the agent wrote into while the hub renamed over it;
    /// the path holds the hub's write `at_path`, which the next write
    /// replaces.
    Orphan { at_path: Seen },
}

impl LogFile {
    pub fn new(path: PathBuf) -> LogFile {
        LogFile {
            path,
            last_seen: None,
            anchor: None,
            written: None,
            empty_since: None,
            orphans: Vec::new(),
            late_save: None,
        }
    }

    /// Runs `input` through `engine` against the file, up to the write.
    /// [`Step::Done`] when there is nothing to write (or nothing to do);
    /// `Err(Later)` when the input must be tried again later.
    ///
    /// A run can be superseded (the file changed under the write, or the
    /// write failed), so what the caller acts on before a write it checks
    /// against the effects finally returned.
    fn begin(
        &mut self,
        engine: &mut impl LogMachine,
        input: &Input,
        now: impl Fn() -> Now,
    ) -> Result<Step, Later> {
        self.rescue();
        if let Some(text) = self.late_save.take() {
            match self.last_seen.clone().filter(|_| self.holds_own_write()) {
                Some(at_path) => {
                    let read = Read0 {
                        source: Source::Orphan { at_path },
                        seen: Seen { base: 0, text },
                    };
                    return self.run(engine, input.clone(), read, 0, now);
                }
                // The agent saved the path too since: no safe merge.
                None => save_rescued(&self.path, &text).map_err(Later::Failed)?,
            }
        }
        if matches!(input, Input::FileChanged) && self.written.is_some() {
            if self.written == stamp(&self.path) {
                return Ok(Step::Done(Vec::new()));
            }
            self.written = None;
        }
        let read = self.read(true).map_err(Later::Failed)?;
        self.run(engine, input.clone(), read, 0, now)
    }

    /// Runs `input` through the engine against the file until its write
    /// stands (or there is nothing to write): the one transaction loop.
    /// `before_write` sees each run's effects just before its write (to
    /// write archives, or send a job ahead of it) and says whether to go
    /// on, or to run the input again with job ids past one it already sent
    /// for other code. `owner` holds the engine (`engine_of` finds it), so
    /// `before_write` may use the rest of it.
    ///
    /// A run can be superseded (the file changed under the write, or the
    /// write failed), so what `before_write` acts on it checks against the
    /// effects finally returned.
    pub fn transact<O, M: LogMachine>(
        &mut self,
        owner: &mut O,
        engine_of: impl Fn(&mut O) -> &mut M,
        input: &Input,
        now: impl Fn() -> Now,
        mut before_write: impl FnMut(&mut O, &[Effect]) -> Early,
    ) -> Result<Vec<Effect>, Later> {
        let mut step = self.begin(engine_of(owner), input, &now)?;
        loop {
            let w = match step {
                Step::Done(effects) => return Ok(effects),
                Step::Write(w) => w,
            };
            step = match before_write(owner, w.effects()) {
                Early::SkipPast(job) => {
                    let skip = |e: &mut M| e.skip_jobs_through(job);
                    self.redo(engine_of(owner), w, skip, &now)?
                }
                Early::Go => self.commit(engine_of(owner), w, &now)?,
            };
        }
    }

    /// Writes a pending run. [`Step::Done`] once it stands; another
    /// [`Step::Write`] when the agent changed the file meanwhile (nothing
    /// of theirs was overwritten: the input ran again on their text).
    fn commit<M: LogMachine>(
        &mut self,
        engine: &mut M,
        w: Box<PendingWrite>,
        now: impl Fn() -> Now,
    ) -> Result<Step, Later> {
        match self.replace(&w.read, &w.new) {
            Ok(None) => {
                self.anchor = anchor(
                    &w.new,
                    engine.horizon(&w.new.text, w.new.base),
                    self.anchor.take(),
                );
                self.last_seen = Some(w.new);
                Ok(Step::Done(w.effects))
            }
            Ok(Some(newer)) => {
                tracing::debug!(path = %self.path.display(), "the file changed under a write; running the input again");
                w.history.iter().for_each(|h| remove_quietly(h));
                engine.restore(w.snapshot);
                self.run(engine, w.input, newer, w.runs, now)
            }
            Err(error) => {
                w.history.iter().for_each(|h| remove_quietly(h));
                let ran = engine.snapshot();
                engine.restore(w.snapshot);
                Err(Later::Unwritten(Box::new(UnwrittenRun {
                    error,
                    ran,
                    text: w.new,
                    effects: w.effects,
                })))
            }
        }
    }

    /// Drops a pending run and runs the input again on the same text,
    /// after `change` (for example fresh job ids) is made to the engine as
    /// it was before the run.
    fn redo<M: LogMachine>(
        &mut self,
        engine: &mut M,
        w: Box<PendingWrite>,
        change: impl FnOnce(&mut M),
        now: impl Fn() -> Now,
    ) -> Result<Step, Later> {
        w.history.iter().for_each(|h| remove_quietly(h));
        engine.restore(w.snapshot);
        change(engine);
        self.run(engine, w.input, w.read, w.runs, now)
    }

    /// Runs the engine on `read`, up to the write.
    fn run(
        &mut self,
        engine: &mut impl LogMachine,
        input: Input,
        mut read: Read0,
        mut runs: usize,
        now: impl Fn() -> Now,
    ) -> Result<Step, Later> {
        let scan = matches!(input, Input::FileChanged | Input::Startup);
        while runs < MAX_RERUNS {
            runs += 1;
            let blank = match &read.source {
                Source::Missing => true,
                Source::Open(_) => read.seen.base == 0 && read.seen.text.trim().is_empty(),
                Source::Orphan { .. } => false,
            };
            if !blank {
                self.empty_since = None;
            }
            let rerun = matches!(read.source, Source::Orphan { .. });
            if matches!(input, Input::FileChanged)
                && !rerun
                && self.last_seen.as_ref() == Some(&read.seen)
            {
                return Ok(Step::Done(Vec::new()));
            }
            let snapshot = engine.snapshot();
            let out = engine.transact(&read.seen.text, read.seen.base, input.clone(), now());
            if read.seen.base > 0 && touches_first_line(&read.seen.text, &out.edits) {
                // The engine reached back to the window's first line: it
                // may have wanted to see more. Run it on the whole text.
                engine.restore(snapshot);
                read = self.read(false).map_err(Later::Failed)?;
                continue;
            }
            // A rerun's text exists only in the replaced file: it is
            // written to the path even when the engine changes nothing.
            if out.edits.is_empty() && !rerun {
                self.anchor = anchor(
                    &read.seen,
                    engine.horizon(&read.seen.text, read.seen.base),
                    self.anchor.take(),
                );
                if scan {
                    self.last_seen = Some(read.seen);
                }
                return Ok(Step::Done(out.effects));
            }
            let new_log = matches!(read.source, Source::Missing) && matches!(input, Input::Startup);
            if blank && !new_log {
                // Emptied or deleted: someone is probably writing it (a
                // truncate comes before the write). A change event leaves
                // it alone; anything that must be written waits until it
                // has stayed so for a while, then starts the log afresh.
                if matches!(input, Input::FileChanged) {
                    engine.restore(snapshot);
                    return Ok(Step::Done(Vec::new()));
                }
                let since = *self.empty_since.get_or_insert_with(Instant::now);
                if since.elapsed() < SETTLE {
                    engine.restore(snapshot);
                    return Err(Later::Settling(since + SETTLE));
                }
            }
            let new = Seen {
                base: read.seen.base,
                text: apply(&read.seen.text, &out.edits),
            };
            // A large log's history moves to a file of its own first, so
            // this write and the next ones cost what the tail costs.
            return match self.move_history(&read, new, engine, now().clock) {
                Ok((new, history)) => Ok(Step::Write(Box::new(PendingWrite {
                    input,
                    read,
                    new,
                    history,
                    snapshot,
                    effects: out.effects,
                    runs,
                }))),
                Err(e) => {
                    engine.restore(snapshot);
                    Err(Later::Failed(e))
                }
            };
        }
        Err(Later::Failed(io::Error::other(
            "the file kept changing under every write",
        )))
    }

    /// When the log about to be written is larger than [`ROTATE_AT`]: the
    /// text between its head and the engine's horizon goes, byte for
    /// byte, into `archive/<stem>-history-<n>.md` (written now), and the
    /// log keeps its head, a link line to that file and the rest. Returns
    /// the text to write instead and the history file (removed by the
    /// caller if the write does not stand). The engine's positions move
    /// with the text.
    fn move_history(
        &self,
        read: &Read0,
        new: Seen,
        engine: &mut impl LogMachine,
        clock: daebug_core::engine::ClockTime,
    ) -> io::Result<(Seen, Option<PathBuf>)> {
        let Some(cut) = engine.history_cut(&new.text, new.base) else {
            return Ok((new, None));
        };
        if new.file_len() <= ROTATE_AT || cut < new.base {
            return Ok((new, None));
        }
        // The head is at the start of the file: in the text, or read from
        // the handle when only a window was read.
        let file = match &read.source {
            Source::Open(file) => Some(file),
            _ => None,
        };
        let head = if new.base == 0 {
            new.text[..new.text.len().min(HEAD_READ)].to_string()
        } else {
            let Some(mut file) = file else {
                return Ok((new, None));
            };
            let mut bytes = vec![0; HEAD_READ.min(new.base)];
            file.seek(SeekFrom::Start(0))?;
            file.read_exact(&mut bytes)?;
            String::from_utf8_lossy(&bytes).into_owned()
        };
        let stem = self
            .path
            .file_stem()
            .map_or(String::new(), |s| s.to_string_lossy().into_owned());
        let (body, head_lines) = head_end(&head, &stem);
        if body == 0 || cut.saturating_sub(body) < MIN_HISTORY || (new.base > 0 && file.is_none()) {
            return Ok((new, None));
        }
        // The history file: bytes [body, cut) of the log as it would be.
        let dir = self.path.with_file_name("archive");
        std::fs::create_dir_all(&dir)?;
        let (path, mut out) = (1..)
            .map(|n| dir.join(format!("{stem}-history-{n}.md")))
            .find_map(|p| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&p)
                    .ok()
                    .map(|f| (p, f))
            })
            .ok_or_else(|| io::Error::other("no free history file name"))?;
        let written = (|| -> io::Result<()> {
            if new.base > body {
                if let Some(mut file) = file {
                    file.seek(SeekFrom::Start(body as u64))?;
                    let n = (new.base - body) as u64;
                    if io::copy(&mut file.take(n), &mut out)? != n {
                        return Err(io::ErrorKind::UnexpectedEof.into());
                    }
                }
            }
            let from = body.saturating_sub(new.base);
            out.write_all(&new.text.as_bytes()[from..cut - new.base])
        })();
        if let Err(e) = written {
            remove_quietly(&path);
            return Err(e);
        }
        let eol = Eol::detect(&head);
        let name = path.file_name().map(|f| f.to_string_lossy().into_owned());
        let rel = format!("archive/{}", name.unwrap_or_default());
        let link = link_line(&rel, cut - body, &clock.to_string());
        let mut text = head[..head_lines].to_string();
        text.push_str(&eol.convert(&(link + "\n\n")));
        let new_head = text.len();
        text.push_str(&new.text[cut - new.base..]);
        engine.moved_history(cut, new_head);
        tracing::info!(path = %self.path.display(), history = %path.display(), bytes = cut - body, "moved the log's history to a file of its own");
        Ok((Seen { base: 0, text }, Some(path)))
    }

    /// Whether a write of this log copies enough to block for
    /// milliseconds (the hub writes a whole new file each time).
    pub fn is_large(&self) -> bool {
        self.last_seen
            .as_ref()
            .is_some_and(|s| s.file_len() > LARGE)
    }

    /// Where the text the hub last read or wrote starts in the file: 0
    /// when it was the whole file, else the window's first byte.
    pub fn window_base(&self) -> usize {
        self.last_seen.as_ref().map_or(0, |s| s.base)
    }

    /// Reads the file: from the anchor on when `window` is allowed and the
    /// anchor's lines are still in place, else whole.
    fn read(&self, window: bool) -> io::Result<Read0> {
        // Open for writing too, when allowed: the changed tail may then be
        // written through this handle, in place (`in_place.rs`).
        let opened = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.path)
            .or_else(|_| File::open(&self.path));
        let mut f = match opened {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(Read0 {
                    source: Source::Missing,
                    seen: Seen {
                        base: 0,
                        text: String::new(),
                    },
                })
            }
            Err(e) => return Err(e),
        };
        if let Some(a) = self.anchor.as_ref().filter(|_| window) {
            if f.metadata()?.len() >= (a.at + a.bytes.len()) as u64 {
                f.seek(SeekFrom::Start(a.at as u64))?;
                // A window that is not UTF-8 is read whole, which says so.
                if let Ok(text) = read_all(&mut f) {
                    if text.starts_with(a.bytes.as_str()) && Eol::detect(&text) == a.eol {
                        let seen = Seen { base: a.at, text };
                        return Ok(Read0 {
                            source: Source::Open(f),
                            seen,
                        });
                    }
                }
            }
            f.seek(SeekFrom::Start(0))?;
        }
        let text = read_all(&mut f)?;
        Ok(Read0 {
            source: Source::Open(f),
            seen: Seen { base: 0, text },
        })
    }

    /// Puts `new` in place of the text of `read`. `Ok(Some(newer))` when
    /// the agent changed the file meanwhile: nothing of theirs was
    /// overwritten, and `newer` is their text to run the input on again.
    fn replace(&mut self, read: &Read0, new: &Seen) -> io::Result<Option<Read0>> {
        // Only the changed tail, in place, when no one else can write.
        if let Source::Open(file) = &read.source {
            match in_place::write(file, &self.path, &read.seen, new)? {
                InPlace::Written(_, after) => {
                    self.written = Some(stamp_of(&after));
                    return Ok(None);
                }
                InPlace::Changed => return self.read(true).map(Some),
                InPlace::NotNow => {}
            }
        }
        // The bytes before a window come from the file that was read.
        let before = match &read.source {
            Source::Open(file) if new.base > 0 => Some((file, new.base as u64)),
            _ => None,
        };
        let tmp = match write_temp_after(&self.path, before, &new.text) {
            Ok(tmp) => tmp,
            // The file was cut short under the copy: read it again.
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return self.read(true).map(Some),
            Err(e) => return Err(e),
        };
        // The start was copied from the file as it is now: the window must
        // still be what was read, or the two would not join (a same-length
        // rewrite since the read shows here).
        if let Source::Open(file) = &read.source {
            match holds_from(file, &read.seen) {
                Ok(true) => {}
                Ok(false) => {
                    remove_quietly(&tmp);
                    return self.read(true).map(Some);
                }
                Err(e) => {
                    remove_quietly(&tmp);
                    return Err(e);
                }
            }
        }
        // Stamped before the rename: an append right after it must not
        // look like the hub's own write.
        let written = stamp(&tmp);
        // For a rerun, the file at the path is the hub's own previous
        // write: held, to rescue what lands in it after this rename.
        let (still, previous) = self.still_at_path(&read.source, &read.seen);
        match still {
            Ok(true) => {}
            Ok(false) if matches!(read.source, Source::Orphan { .. }) => {
                // The agent wrote both the replaced file and the new one:
                // no safe merge. Keep their rewrite next to the log.
                remove_quietly(&tmp);
                save_rescued(&self.path, &read.seen.text)?;
                return Ok(None);
            }
            Ok(false) => {
                remove_quietly(&tmp);
                return self.read(true).map(Some);
            }
            Err(e) => {
                remove_quietly(&tmp);
                return Err(e);
            }
        }
        if let Some(again) = self.install(&tmp, &read.source, previous.as_ref(), new)? {
            return Ok(Some(again));
        }
        self.written = written;
        self.orphans.extend(previous);
        // A write through a handle opened before the rename lands in the
        // old file, now unlinked: take it from there. The write stands
        // whatever happens here, so a failure is only reported.
        if let Source::Open(file) = &read.source {
            match self.look_into_replaced(file, &read.seen, new) {
                Ok(next) => return Ok(next),
                Err(e) => {
                    tracing::warn!(path = %self.path.display(), "cannot look into the replaced copy of the log: {e}");
                }
            }
        }
        Ok(None)
    }

    /// Whether the file at the path is still the one `source` read (its
    /// length unchanged), and for a rerun the hub's previous write there,
    /// held open.
    fn still_at_path(&self, source: &Source, seen: &Seen) -> (io::Result<bool>, Option<Orphan>) {
        let mut previous = None;
        let still = match source {
            Source::Open(file) => same_file(file, &self.path, seen.file_len()),
            // Nothing may have appeared at the path meanwhile.
            Source::Missing => Ok(!self.path.exists()),
            Source::Orphan { at_path } => File::open(&self.path).and_then(|f| {
                let ok = f.metadata()?.len() == at_path.file_len() as u64;
                previous = Some(Orphan {
                    file: f,
                    seen: at_path.clone(),
                    since: Instant::now(),
                });
                Ok(ok)
            }),
        };
        (still, previous)
    }

    /// Moves `tmp` (holding `new`) to the path. `Ok(Some(newer))` when a
    /// save landed there meanwhile and was put back (see `put_back`).
    fn install(
        &mut self,
        tmp: &Path,
        source: &Source,
        previous: Option<&Orphan>,
        new: &Seen,
    ) -> io::Result<Option<Read0>> {
        // The caller's check and the rename are two steps: a save renamed
        // over the path between them would be lost. Exchanging the files
        // instead leaves what stood at the path in our hands: when it is
        // not what was read, it goes back (see `put_back`).
        let expected = match source {
            Source::Open(file) => Some(file.metadata()?),
            Source::Orphan { .. } => previous.map(|o| o.file.metadata()).transpose()?,
            Source::Missing => None,
        };
        let ours = std::fs::metadata(tmp)?;
        match expected.map(|m| exchange(tmp, &self.path).map(|done| (m, done))) {
            Some(Ok((then, true))) => {
                let displaced = std::fs::metadata(tmp)?;
                if !same_inode(&displaced, &then) {
                    return self.put_back(tmp, &ours, new).map(Some);
                }
                remove_quietly(tmp);
            }
            Some(Err(e)) => {
                remove_quietly(tmp);
                return Err(e);
            }
            Some(Ok((_, false))) | None => {
                if let Err(e) = std::fs::rename(tmp, &self.path) {
                    remove_quietly(tmp);
                    return Err(e);
                }
            }
        }
        Ok(None)
    }

    /// A save landed at the path between the check and the exchange: it
    /// is now at `tmp`, and the hub's write (`ours`, holding `new`) at the
    /// path. The save goes back to the path (if the path still holds ours)
    /// and is read again; if another save came meanwhile, the one in hand
    /// is kept next to the log, never dropped. While ours stood at the path
    /// an agent may have opened it and written to it: it is kept open as a
    /// replaced file, so such a write is rescued, not lost.
    fn put_back(&mut self, tmp: &Path, ours: &std::fs::Metadata, new: &Seen) -> io::Result<Read0> {
        let at_path = std::fs::metadata(&self.path)?;
        if same_inode(&at_path, ours) && exchange(tmp, &self.path)? {
            let back = std::fs::metadata(tmp)?;
            if same_inode(&back, ours) {
                let held = File::open(tmp);
                remove_quietly(tmp);
                match held {
                    Ok(file) => self.orphans.push(Orphan {
                        file,
                        seen: new.clone(),
                        since: Instant::now(),
                    }),
                    Err(e) => {
                        tracing::warn!(path = %self.path.display(), "cannot keep the hub's put-back write open to rescue late writes: {e}");
                    }
                }
                return self.read(false);
            }
        }
        let theirs = std::fs::read_to_string(tmp).unwrap_or_default();
        remove_quietly(tmp);
        save_rescued(&self.path, &theirs)?;
        self.read(false)
    }

    /// Right after a rename: what the agent wrote into the file it
    /// replaced. `Some` is a whole rewrite to run the input on again.
    fn look_into_replaced(
        &mut self,
        file: &File,
        seen: &Seen,
        new: &Seen,
    ) -> io::Result<Option<Read0>> {
        let mut orphan = Orphan {
            file: file.try_clone()?,
            seen: seen.clone(),
            since: Instant::now(),
        };
        match late(&self.path, &mut orphan)? {
            LateWrite::Rewritten(text) => {
                // A whole-file rewrite based on what the hub read: run the
                // input again on it (and write the result over this write).
                orphan.seen = Seen {
                    base: 0,
                    text: text.clone(),
                };
                self.orphans.push(orphan);
                return Ok(Some(Read0 {
                    source: Source::Orphan {
                        at_path: new.clone(),
                    },
                    seen: Seen { base: 0, text },
                }));
            }
            // An append is added to the new file now; an emptied file is a
            // rewrite in progress, rescued when its text arrives.
            LateWrite::Appended(extra) => append_rescued(&self.path, &mut orphan, &extra)?,
            LateWrite::Unchanged => {}
        }
        self.orphans.push(orphan);
        Ok(None)
    }

    /// Whether a replaced file is still kept open for [`LogFile::rescue`].
    pub fn has_orphan(&self) -> bool {
        !self.orphans.is_empty()
    }

    /// Whether [`LogFile::rescue`] found a save to run the next input on.
    pub fn has_late_save(&self) -> bool {
        self.late_save.is_some()
    }

    /// Whether the path still holds the hub's last write.
    fn holds_own_write(&self) -> bool {
        self.written.is_some() && self.written == stamp(&self.path)
    }

    /// Looks into the files the last write replaced. Text appended to
    /// one since (through a handle the agent opened before the rename) is
    /// appended to the log. A whole save written into one while the path
    /// still holds the hub's last write is the agent's save, landed a
    /// moment late: it is kept for the next input to run on (see
    /// [`LogFile::has_late_save`]). Any other change is saved as
    /// `<stem>.rescued-<ms>.md` next to the log and reported.
    pub fn rescue(&mut self) {
        let mut gone = Vec::new();
        for mut o in std::mem::take(&mut self.orphans) {
            let looked = late(&self.path, &mut o).and_then(|found| match found {
                LateWrite::Unchanged => Ok(()),
                LateWrite::Appended(extra) => append_rescued(&self.path, &mut o, &extra),
                LateWrite::Rewritten(text) => {
                    o.seen = Seen {
                        base: 0,
                        text: text.clone(),
                    };
                    if self.late_save.is_none() && self.holds_own_write() {
                        tracing::info!(path = %self.path.display(), "a save landed in the file the hub had just replaced; taking it as the log");
                        self.late_save = Some(text);
                        Ok(())
                    } else {
                        save_rescued(&self.path, &text)
                    }
                }
            });
            match looked {
                Ok(()) if o.since.elapsed() < ORPHAN_LIFE => self.orphans.push(o),
                Ok(()) => gone.push(o.file),
                Err(e) => {
                    tracing::warn!(path = %self.path.display(), "cannot look into a replaced copy of the log: {e}");
                    gone.push(o.file);
                }
            }
        }
        let excess = self.orphans.len().saturating_sub(MAX_ORPHANS);
        gone.extend(self.orphans.drain(..excess).map(|o| o.file));
        close_later(gone);
    }
}

/// Closes replaced files on a thread of their own: closing the last handle
/// of a large unlinked file frees its blocks, which takes milliseconds the
/// next job should not wait for.
fn close_later(files: Vec<File>) {
    static CLOSER: std::sync::OnceLock<Option<std::sync::mpsc::Sender<Vec<File>>>> =
        std::sync::OnceLock::new();
    if files.is_empty() {
        return;
    }
    let closer = CLOSER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Vec<File>>();
        std::thread::Builder::new()
            .name("daebug-close".into())
            .spawn(move || rx.into_iter().for_each(drop))
            .ok()
            .map(|_| tx)
    });
    // Without the thread they are closed here.
    if let Some(tx) = closer {
        let _ = tx.send(files);
    }
}

/// Whether the first `n` bytes of `file` are those of the log at `path`
/// (the hub copied them from it; an edit above the window shows here).
fn same_start(file: &mut File, path: &Path, n: usize) -> io::Result<bool> {
    let mut a = vec![0; n];
    file.seek(SeekFrom::Start(0))?;
    file.read_exact(&mut a)?;
    path_starts_with(path, &a)
}

/// Whether the log at `path` starts with `bytes`.
fn path_starts_with(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    let mut b = vec![0; bytes.len()];
    match File::open(path)?.read_exact(&mut b) {
        Ok(()) => Ok(b == bytes),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

/// Compares a replaced file with the text the hub knows it holds. The
/// hub knows only the window of it; the bytes before are compared with
/// the log's, which were copied from them.
fn late(path: &Path, orphan: &mut Orphan) -> io::Result<LateWrite> {
    let known = &orphan.seen;
    // Late writes are appends or whole rewrites: both change the length
    // (a same-length rewrite through an old handle is not worth a read of
    // the whole file on every input).
    let len = orphan.file.metadata()?.len() as usize;
    if len == known.file_len() {
        return Ok(LateWrite::Unchanged);
    }
    if len > known.file_len() {
        orphan.file.seek(SeekFrom::Start(known.base as u64))?;
        if let Ok(now) = read_all(&mut orphan.file) {
            if let Some(extra) = appended(known, &now) {
                if same_start(&mut orphan.file, path, known.base)? {
                    return Ok(LateWrite::Appended(extra.to_string()));
                }
            }
        }
    }
    orphan.file.seek(SeekFrom::Start(0))?;
    let now = read_all(&mut orphan.file)?;
    let starts_log = now.len() <= known.base && path_starts_with(path, now.as_bytes())?;
    Ok(rewrite(known, now, starts_log))
}

/// Appends to the log what was appended to a replaced copy of it, unless
/// the log was saved since from a read that held it.
fn append_rescued(path: &Path, orphan: &mut Orphan, extra: &str) -> io::Result<()> {
    if already_holds(&orphan.seen, extra, &std::fs::read(path)?) {
        tracing::debug!(path = %path.display(), "text appended to a replaced copy of the log is in the log already");
        orphan.seen.text.push_str(extra);
        return Ok(());
    }
    tracing::warn!(path = %path.display(), "text was appended to the log while the hub replaced it; appending it again");
    let mut f = std::fs::OpenOptions::new().append(true).open(path)?;
    f.write_all(extra.as_bytes())?;
    orphan.seen.text.push_str(extra);
    Ok(())
}

/// Keeps text the hub could not merge into the log next to it, as
/// `<stem>.rescued-<ms>.md`, and says so.
fn save_rescued(path: &Path, text: &str) -> io::Result<()> {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let saved = path.with_extension(format!("rescued-{ms}.md"));
    std::fs::write(&saved, text)?;
    tracing::error!(path = %path.display(), "the log was rewritten through an old handle while the hub replaced it; that text is saved in {}", saved.display());
    Ok(())
}

/// Whether `file` holds `seen.text` from `seen.base` to its end.
fn holds_from(mut file: &File, seen: &Seen) -> io::Result<bool> {
    if seen.base == 0 {
        return Ok(true);
    }
    file.seek(SeekFrom::Start(seen.base as u64))?;
    let mut bytes = Vec::with_capacity(seen.text.len());
    file.read_to_end(&mut bytes)?;
    Ok(bytes == seen.text.as_bytes())
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

fn stamp(path: &Path) -> Option<Stamp> {
    Some(stamp_of(&std::fs::metadata(path).ok()?))
}

fn stamp_of(m: &std::fs::Metadata) -> Stamp {
    #[cfg(unix)]
    let (dev, ino) = {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    };
    #[cfg(not(unix))]
    let (dev, ino) = (0, 0);
    Stamp {
        dev,
        ino,
        len: m.len(),
        modified: m.modified().ok(),
    }
}

/// Whether `path` still names `file` at the length it was read.
fn same_file(file: &File, path: &Path, len: usize) -> io::Result<bool> {
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
    use daebug_core::engine::LogEngine;

    /// A transaction with `between` run before each write (where the log
    /// task sends a job ahead); `SkipPast` runs it again with fresh ids.
    fn transact_with(
        file: &mut LogFile,
        engine: &mut LogEngine,
        input: &Input,
        now: impl Fn() -> Now,
        mut between: impl FnMut(&[Effect]) -> Early,
    ) -> Result<Vec<Effect>, Later> {
        file.transact(engine, |e| e, input, now, |_, effects| between(effects))
    }

    impl LogFile {
        /// A transaction that acts on nothing before its writes.
        fn transact_plain(
            &mut self,
            engine: &mut LogEngine,
            input: &Input,
            now: impl Fn() -> Now,
        ) -> Result<Vec<Effect>, Later> {
            self.transact(engine, |e| e, input, now, |_, _| Early::Go)
        }
    }
    use daebug_core::engine::{template, ClockTime, Config, Millis};

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

    use daebug_test_files::append;

    /// The torture test caught this: the agent appended to the log just
    /// before the hub replaced it, read it (with the append) and saved the
    /// whole log from that read. The append is in the log once.
    #[test]
    fn an_append_the_agent_saved_again_is_not_rescued_twice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shop-3f2a.md");
        let old = dir.path().join("old.md");
        std::fs::write(&old, "# log\n").unwrap();
        let mut file = LogFile::new(path.clone());
        file.orphans.push(Orphan {
            file: File::open(&old).unwrap(),
            seen: Seen {
                base: 0,
                text: "# log\n".into(),
            },
            since: Instant::now(),
        });
        append(&old, "```js\n1\n```\n");
        let saved = "# log\n```js\n1\n```\n```js\n2\n```\n";
        std::fs::write(&path, saved).unwrap();
        file.rescue();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), saved);
        // An append the log does not hold is rescued.
        append(&old, "```js\n3\n```\n");
        file.rescue();
        assert!(std::fs::read_to_string(&path)
            .unwrap()
            .ends_with("```js\n2\n```\n```js\n3\n```\n"));
    }

    /// The torture test caught this: while the hub's write briefly stood
    /// at the path (before a save that landed first was put back), the
    /// agent opened the path and appended to it. The append is rescued.
    #[test]
    fn an_append_into_a_write_that_was_put_back_is_rescued() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shop-3f2a.md");
        let tmp = dir.path().join(".shop-3f2a.md.tmp");
        let ours = "# ours\n";
        std::fs::write(&path, ours).unwrap();
        std::fs::write(&tmp, "# their save\n").unwrap();
        let ours_meta = std::fs::metadata(&path).unwrap();
        let mut file = LogFile::new(path.clone());
        // The agent opens the path while the hub's write stands there.
        let mut agent = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        let new = Seen {
            base: 0,
            text: ours.into(),
        };
        let read = file.put_back(&tmp, &ours_meta, &new).unwrap();
        assert_eq!(read.seen.text, "# their save\n");
        assert!(!tmp.exists());
        // Its write lands in the hub's file, no longer at the path.
        agent.write_all(b"```js\n1\n```\n").unwrap();
        file.rescue();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "# their save\n```js\n1\n```\n"
        );
    }

    fn dispatches(effects: &[Effect]) -> usize {
        effects
            .iter()
            .filter(|e| matches!(e, Effect::Dispatch { .. }))
            .count()
    }

    /// The same code appended again, far below its first run (read
    /// through a window that no longer holds the first), is a new block.
    #[test]
    fn the_same_code_far_below_its_first_run_runs_again() {
        let (_dir, mut file, mut engine) = setup();
        let run = |file: &mut LogFile, engine: &mut LogEngine, code: &str, t: u64| {
            append(&file.path, &format!("\n```js\n{code}\n```\n"));
            let effects = file
                .transact_plain(engine, &Input::FileChanged, || at(t))
                .unwrap();
            let ran = dispatches(&effects);
            if let Some(job) = engine.running() {
                file.transact_plain(engine, &result(job), || at(t + 1))
                    .unwrap();
            }
            ran
        };
        assert_eq!(run(&mut file, &mut engine, "document.title", 0), 1);
        for i in 0..80 {
            let code = format!("'step {i}: {}'", "x".repeat(60));
            assert_eq!(run(&mut file, &mut engine, &code, 10 + i * 2), 1);
        }
        assert_eq!(run(&mut file, &mut engine, "document.title", 1000), 1);
        let text = std::fs::read_to_string(&file.path).unwrap();
        assert_eq!(text.matches("```js\ndocument.title\n```").count(), 2);
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
            .transact_plain(&mut engine, &Input::FileChanged, || {
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
        let (_dir, file, engine) = setup();
        late_append_is_rescued(file, engine, false);
        let (_dir, file, engine) = large_setup(100_000);
        late_append_is_rescued(file, engine, true);
    }

    fn late_append_is_rescued(mut file: LogFile, mut engine: LogEngine, windowed: bool) {
        append(&file.path, "\n```js\n1\n```\n");
        // The agent opened the log before the hub replaced it...
        let mut held = std::fs::OpenOptions::new()
            .append(true)
            .open(&file.path)
            .unwrap();
        file.transact_plain(&mut engine, &Input::FileChanged, || at(0))
            .unwrap();
        assert_eq!(file.last_seen.as_ref().unwrap().base > 0, windowed);
        // ...and writes after: the bytes land in the replaced file.
        held.write_all(b"\nlate line\n").unwrap();
        let text = std::fs::read_to_string(&file.path).unwrap();
        assert!(!text.contains("late line"));
        assert!(file.has_orphan());
        file.rescue();
        let text = std::fs::read_to_string(&file.path).unwrap();
        assert!(
            text.ends_with("\nlate line\n"),
            "{}",
            &text[text.len().saturating_sub(300)..]
        );
        // Rescued once, not again.
        file.rescue();
        let text = std::fs::read_to_string(&file.path).unwrap();
        assert_eq!(text.matches("late line").count(), 1);
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
        file.transact_plain(&mut engine, &Input::FileChanged, || at(0))
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

    /// The torture test caught this: the agent's whole save truncated the
    /// file just before the hub replaced it (writing a reply) and wrote
    /// into it just after, so the save landed in the replaced file. It is
    /// the agent's save of the log: its new block runs, and the reply the
    /// hub wrote after the agent's read is not lost.
    #[test]
    fn a_save_that_lands_in_the_replaced_file_is_taken_as_the_log() {
        let (dir, mut file, mut engine) = setup();
        append(&file.path, "\n```js\n1+1\n```\n");
        // The agent reads the log back before the hub takes the block.
        let read = std::fs::read_to_string(&file.path).unwrap();
        let effects = file
            .transact_plain(&mut engine, &Input::FileChanged, || at(0))
            .unwrap();
        let job = effects
            .iter()
            .find_map(|e| match e {
                Effect::Dispatch { job, .. } => Some(*job),
                _ => None,
            })
            .unwrap();
        // Its save opens the file, and truncates it after the hub checked.
        let mut held = std::fs::OpenOptions::new()
            .write(true)
            .open(&file.path)
            .unwrap();
        file.transact_plain(&mut engine, &result(job), || at(5))
            .unwrap();
        held.set_len(0).unwrap();
        file.rescue();
        assert!(!file.has_late_save(), "an emptied file is a save under way");
        held.write_all((read + "\n```js\n'second'\n```\n").as_bytes())
            .unwrap();
        drop(held);
        file.rescue();
        assert!(file.has_late_save());
        let effects = file
            .transact_plain(&mut engine, &Input::FileChanged, || at(10))
            .unwrap();
        assert_eq!(dispatches(&effects), 1, "{effects:?}");
        let text = std::fs::read_to_string(&file.path).unwrap();
        assert!(
            text.contains("```JSON\n2\n```"),
            "the reply is kept: {text}"
        );
        assert!(text.contains("'second'"), "{text}");
        let rescued = std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().contains("rescued"))
            })
            .count();
        assert_eq!(rescued, 0, "nothing is set aside");
    }

    #[test]
    fn an_emptied_file_is_left_alone_until_something_must_be_written() {
        let (_dir, mut file, mut engine) = setup();
        std::fs::write(&file.path, "").unwrap();
        let effects = file
            .transact_plain(&mut engine, &Input::FileChanged, || at(0))
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
            limited: 0,
            over_rate: 0,
        };
        match file.transact_plain(&mut engine, &background, || at(0)) {
            Err(Later::Settling(_)) => {}
            other => panic!("expected to wait, got {other:?}"),
        }
        assert_eq!(std::fs::read_to_string(&file.path).unwrap(), "");
        file.empty_since = Some(Instant::now() - SETTLE);
        file.transact_plain(&mut engine, &background, || at(0))
            .unwrap();
        let text = std::fs::read_to_string(&file.path).unwrap();
        assert!(text.starts_with("# 👾 shop-3f2a"), "{text}");
        assert_eq!(text.matches("from a timer").count(), 1, "{text}");
    }

    #[test]
    fn a_deleted_log_is_not_recreated_by_a_change_event() {
        let (_dir, mut file, mut engine) = setup();
        std::fs::remove_file(&file.path).unwrap();
        let effects = file
            .transact_plain(&mut engine, &Input::FileChanged, || at(0))
            .unwrap();
        assert!(effects.is_empty());
        assert!(!file.path.exists());
    }

    #[test]
    fn text_that_is_not_utf8_is_left_alone() {
        let (_dir, mut file, mut engine) = setup();
        std::fs::write(&file.path, [b'#', 0xff, b'\n']).unwrap();
        assert!(matches!(
            file.transact_plain(&mut engine, &Input::FileChanged, || at(0)),
            Err(Later::Failed(_))
        ));
        assert_eq!(std::fs::read(&file.path).unwrap(), [b'#', 0xff, b'\n']);
    }

    /// A log with `size` bytes of agent prose above its footer.
    fn large_setup(size: usize) -> (tempfile::TempDir, LogFile, LogEngine) {
        let (dir, mut file, mut engine) = setup();
        let mut history = String::new();
        while history.len() < size {
            history.push_str("Some earlier prose, long enough to matter.\n\n");
        }
        append(&file.path, &history);
        file.transact_plain(&mut engine, &Input::Startup, || at(0))
            .unwrap();
        (dir, file, engine)
    }

    fn result(job: daebug_core::engine::JobId) -> Input {
        Input::Result(daebug_core::engine::JobResult {
            job,
            outcome: daebug_core::engine::Outcome::Ok(daebug_core::engine::Value::Json("2".into())),
            events: Vec::new(),
            dropped: 0,
            limited: 0,
            duration_ms: 1,
        })
    }

    /// Runs `input` on the log both ways: through the file (windowed when
    /// the anchor holds) and on the whole text with an engine of its own.
    /// The two must write the same text. Returns the window's start.
    fn both(
        file: &mut LogFile,
        engine: &mut LogEngine,
        oracle: &mut LogEngine,
        input: Input,
    ) -> usize {
        let before = std::fs::read_to_string(&file.path).unwrap();
        let expected = apply(&before, &oracle.handle(&before, input.clone(), at(5)).edits);
        file.transact_plain(engine, &input, || at(5)).unwrap();
        assert_eq!(std::fs::read_to_string(&file.path).unwrap(), expected);
        file.last_seen.as_ref().map_or(0, |s| s.base)
    }

    #[test]
    fn a_large_log_is_read_and_written_from_its_anchor() {
        let (_dir, mut file, mut engine) = large_setup(200_000);
        let mut oracle = engine.clone();
        for round in 0..3 {
            append(&file.path, &format!("\n```js\n{round}+1\n```\n"));
            assert!(both(&mut file, &mut engine, &mut oracle, Input::FileChanged) > 190_000);
            let job = engine.running().expect("dispatched");
            assert!(both(&mut file, &mut engine, &mut oracle, result(job)) > 190_000);
            assert!(engine.running().is_none());
        }
        // The agent edits the history (the anchor moves): read whole.
        let text = std::fs::read_to_string(&file.path).unwrap();
        std::fs::write(
            &file.path,
            text.replacen("earlier", "much earlier", 1) + "\n```js\n9\n```\n",
        )
        .unwrap();
        assert_eq!(
            both(&mut file, &mut engine, &mut oracle, Input::FileChanged),
            0
        );
        let job = engine.running().expect("dispatched");
        assert!(both(&mut file, &mut engine, &mut oracle, result(job)) > 190_000);
        // A same-length edit of the history does not move the anchor: the
        // window is used, and the edit is kept by the copy.
        let text = std::fs::read_to_string(&file.path).unwrap();
        std::fs::write(
            &file.path,
            text.replacen("Some", "SOME", 1) + "\n```js\n10\n```\n",
        )
        .unwrap();
        assert!(both(&mut file, &mut engine, &mut oracle, Input::FileChanged) > 190_000);
        assert!(std::fs::read_to_string(&file.path)
            .unwrap()
            .contains("SOME much earlier"));
    }

    /// A log past ROTATE_AT keeps its head, a link and its tail; the
    /// history file holds the rest byte for byte, and later writes are
    /// small.
    #[test]
    fn a_large_log_moves_its_history_to_a_file_of_its_own() {
        let (dir, mut file, mut engine) = setup();
        let mut history = String::from("é");
        while history.len() < ROTATE_AT + 1000 {
            history.push_str("Some earlier prose, ünïcode included.\n\n");
        }
        // A log the hub wrote: head, history, footer.
        let head = template::new_log("shop-3f2a").replace(template::FOOTER, "");
        let before = format!(
            "{}{history}\n{}\n",
            head.trim_end_matches('\n').to_string() + "\n\n",
            template::FOOTER
        );
        std::fs::write(&file.path, &before).unwrap();
        file.transact_plain(&mut engine, &Input::Startup, || at(0))
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(&file.path).unwrap().len(),
            before.len()
        );
        append(&file.path, "\n```js\n1+1\n```\n");
        let effects = file
            .transact_plain(&mut engine, &Input::FileChanged, || at(0))
            .unwrap();
        assert_eq!(dispatches(&effects), 1);
        let log = std::fs::read_to_string(&file.path).unwrap();
        assert!(log.len() < 4096, "{} bytes left in the log", log.len());
        let moved = dir.path().join("archive/shop-3f2a-history-1.md");
        let moved = std::fs::read_to_string(moved).unwrap();
        let (body, _) = head_end(&before, "shop-3f2a");
        // Everything before the footer the agent's block came after.
        let footer = before.rfind(template::FOOTER).unwrap();
        assert!(
            moved.trim_end() == before[body..footer].trim_end(),
            "{} bytes moved",
            moved.len()
        );
        assert!(log.contains("> Earlier history of this log: [archive/shop-3f2a-history-1.md](archive/shop-3f2a-history-1.md) (4.0 MB, moved at 00:00:00)"), "{log}");
        assert!(log.starts_with(&before[..body - 1]), "{log}");
        let job = engine.running().unwrap();
        file.transact_plain(&mut engine, &result(job), || at(5))
            .unwrap();
        let log = std::fs::read_to_string(&file.path).unwrap();
        assert!(log.len() < 4096 && log.contains("```JSON\n2\n```"), "{log}");
        assert!(log.trim_end().ends_with(template::FOOTER), "{log}");
    }

    #[test]
    fn a_large_log_cut_short_under_the_copy_is_read_again() {
        let (_dir, mut file, mut engine) = large_setup(100_000);
        let before = std::fs::read_to_string(&file.path).unwrap();
        append(&file.path, "\n```js\n1\n```\n");
        // Right before the write, the agent rewrites the log shorter
        // (drops the history, keeps the end and adds a line).
        let path = file.path.clone();
        let cut = before[before.len() - 2000..].to_string();
        let raced = Cell::new(false);
        let effects = transact_with(
            &mut file,
            &mut engine,
            &Input::FileChanged,
            || at(0),
            |_| {
                if !raced.replace(true) {
                    std::fs::write(&path, format!("{cut}\n```js\n1\n```\nand a line\n")).unwrap();
                }
                Early::Go
            },
        )
        .unwrap();
        let text = std::fs::read_to_string(&file.path).unwrap();
        assert!(text.len() < 10_000, "the rewrite stands: {}", text.len());
        assert!(text.contains("and a line"), "{text}");
        assert!(text.contains("executing (0s)"), "{text}");
        assert_eq!(dispatches(&effects), 1);
    }

    #[test]
    fn a_job_decided_again_for_other_code_gets_a_new_id() {
        let (_dir, mut file, mut engine) = setup();
        append(&file.path, "```js\n1\n```\n");
        let mut seen = Vec::new();
        let effects = transact_with(
            &mut file,
            &mut engine,
            &Input::FileChanged,
            || at(0),
            |effects| {
                let job = effects.iter().find_map(|e| match e {
                    Effect::Dispatch { job, .. } => Some(*job),
                    _ => None,
                });
                seen.extend(job);
                match seen.len() {
                    1 => Early::SkipPast(job.unwrap()),
                    _ => Early::Go,
                }
            },
        )
        .unwrap();
        assert_eq!(seen.len(), 2);
        assert!(seen[1] > seen[0], "{seen:?}");
        assert!(effects
            .iter()
            .any(|e| matches!(e, Effect::Dispatch { job, .. } if *job == seen[1])));
    }

    /// An editor opened the log (without `O_APPEND`) before the hub
    /// replaced it with a windowed write (from `base`), then saves
    /// `edit(text it had, base)` through that handle. What it wrote must end up in the log or saved
    /// next to it: checked by `marker`.
    fn old_handle_rewrite(
        (dir, mut file, mut engine): (tempfile::TempDir, LogFile, LogEngine),
        edit: impl Fn(&str, usize) -> String,
        marker: &str,
    ) {
        append(&file.path, "\n```js\n1\n```\n");
        let before = std::fs::read_to_string(&file.path).unwrap();
        let mut held = std::fs::OpenOptions::new()
            .write(true)
            .open(&file.path)
            .unwrap();
        file.transact_plain(&mut engine, &Input::FileChanged, || at(0))
            .unwrap();
        let base = file.last_seen.as_ref().unwrap().base;
        assert!(base > 0, "windowed");
        held.set_len(0).unwrap();
        held.write_all(edit(&before, base).as_bytes()).unwrap();
        drop(held);
        file.rescue();
        file.rescue();
        // As the log task does: a save found there is read as a change.
        if file.has_late_save() {
            file.transact_plain(&mut engine, &Input::FileChanged, || at(0))
                .unwrap();
        }
        let log = std::fs::read_to_string(&file.path).unwrap();
        let saved: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains("rescued"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .collect();
        assert!(
            log.contains(marker) || saved.iter().any(|t| t.contains(marker)),
            "{marker:?} is neither in the log nor saved next to it (window at {base}, {} rescued files)",
            saved.len()
        );
    }

    #[test]
    fn old_handle_rewrites_of_a_windowed_log_are_saved() {
        // Much shorter: the history cleared, a note kept.
        old_handle_rewrite(
            large_setup(100_000),
            |_, _| "# a fresh start\n\nkept by the agent\n".into(),
            "kept by the agent",
        );
        // A same-length typo fix in the history, and a line at the end.
        old_handle_rewrite(
            large_setup(100_000),
            |t, _| t.replacen("Some earlier", "SOME EARLIER", 1) + "saved by the editor\n",
            "SOME EARLIER",
        );
        // Two bytes more at the top, so the window starts inside a
        // character (the history ends its lines with `é`).
        let (dir, mut file, mut engine) = setup();
        let mut history = String::new();
        while history.len() < 100_000 {
            history.push_str("Some earlier prose, with an accent: é\n");
        }
        append(&file.path, &history);
        file.transact_plain(&mut engine, &Input::Startup, || at(0))
            .unwrap();
        old_handle_rewrite(
            (dir, file, engine),
            |t, base| {
                assert!(!t.is_char_boundary(base - 2), "the test splits a char");
                format!("> {t}late line\n")
            },
            "late line",
        );
    }

    #[test]
    fn a_footer_found_by_search_anchors_the_next_window() {
        let (_dir, mut file, mut engine) = large_setup(200_000);
        let mut oracle = engine.clone();
        // The agent deletes 10 KB of history and starts a long request
        // below the footer (still a draft).
        let text = std::fs::read_to_string(&file.path).unwrap();
        let cut = text.find("Some earlier").unwrap() + 1000;
        let mut prose = String::new();
        while prose.len() < 12_000 {
            prose.push_str("p\n\n\n\n\n\n\n\n\n\n");
        }
        let rewritten = format!("{}{}\n{prose}```js\n", &text[..cut], &text[cut + 10_032..]);
        std::fs::write(&file.path, rewritten).unwrap();
        assert_eq!(
            both(&mut file, &mut engine, &mut oracle, Input::FileChanged),
            0
        );
        // The agent closes the block: the request is complete.
        append(&file.path, "1+1\n```\n");
        let before = std::fs::read_to_string(&file.path).unwrap();
        let expected = apply(
            &before,
            &oracle.handle(&before, Input::FileChanged, at(5)).edits,
        );
        file.transact_plain(&mut engine, &Input::FileChanged, || at(5))
            .unwrap();
        let got = std::fs::read_to_string(&file.path).unwrap();
        let base = file.last_seen.as_ref().unwrap().base;
        let footer = |t: &str| t.find(daebug_core::engine::template::FOOTER);
        let header = |t: &str| t.find("> **agent** to shop-3f2a");
        assert!(
            got == expected,
            "window base {base}: footer at {:?}, request header at {:?}; whole read: footer at {:?}, request header at {:?}",
            footer(&got), header(&got), footer(&expected), header(&expected)
        );
    }

    #[test]
    fn a_same_length_rewrite_before_the_copy_does_not_tear_the_seam() {
        let (_dir, mut file, mut engine) = large_setup(100_000);
        append(&file.path, "\n```js\n1\n```\nnote!!\n");
        let line = "Some earlier prose, long enough to matter.\n";
        let lines = std::fs::read_to_string(&file.path)
            .unwrap()
            .matches(line)
            .count();
        let path = file.path.clone();
        let raced = Cell::new(false);
        transact_with(
            &mut file,
            &mut engine,
            &Input::FileChanged,
            || at(0),
            |_| {
                // The agent saves (truncate, write: same inode) a line
                // added at the top and two characters fewer at the end.
                if !raced.replace(true) {
                    let text = std::fs::read_to_string(&path).unwrap();
                    std::fs::write(&path, format!("X\n{}", text.replace("note!!", "note")))
                        .unwrap();
                }
                Early::Go
            },
        )
        .unwrap();
        let text = std::fs::read_to_string(&file.path).unwrap();
        let base = file.last_seen.as_ref().unwrap().base;
        assert_eq!(
            text.matches(line).count(),
            lines,
            "a history line was cut at the seam (window base {base}): {:?}",
            &text[base - 60..base + 20]
        );
    }
}
