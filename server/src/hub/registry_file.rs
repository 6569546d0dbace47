//! `debug.md` on disk. The hub rewrites its part as realms come and go
//! while the agent may be saving the file (a block, a note); nothing the
//! agent wrote may be lost (docs/log-format.md, "The registry").
//!
//! So the file is read and rewritten under one write lease
//! ([`in_place::rewrite_whole`]): while it is held no one else's write
//! is in flight or can start, and what is read is whole. An empty file is
//! someone's save in progress (an editor's truncate comes before its
//! write) and is left alone for a while ([`RegistryText`] decides). When
//! no lease can be had for [`LEASE_PATIENCE`] (a reader keeps the file
//! open; no leases here), the file is read and a whole new one renamed
//! over it, after checking it is still the file read.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::fsio::{remove_quietly, same_inode, write_temp};
use super::in_place::{self, Rewrite};
use daebug_core::engine::registry_notes::{RegistryNext, RegistryText};
use daebug_core::engine::Millis;

/// How long the hub waits for a lease before it swaps the file whole.
const LEASE_PATIENCE: Duration = Duration::from_secs(1);
/// How soon it tries for a lease again.
const LEASE_AGAIN: Duration = Duration::from_millis(25);

/// What a [`RegistryFile::sync`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Synced {
    /// The file holds the registry now; `wrote` says whether it changed.
    Done { wrote: bool },
    /// Not now: sync again at this time.
    Again(Instant),
}

/// The registry's file.
#[derive(Debug)]
pub struct RegistryFile {
    path: PathBuf,
    text: RegistryText,
    /// No lease could be had since then.
    no_lease_since: Option<Instant>,
    /// The origin of the [`Millis`] the pure part counts in.
    origin: Instant,
}

impl RegistryFile {
    pub fn new(path: PathBuf) -> RegistryFile {
        RegistryFile {
            path,
            text: RegistryText::default(),
            no_lease_since: None,
            origin: Instant::now(),
        }
    }

    /// `at` as the pure part counts time.
    fn millis(&self, at: Instant) -> Millis {
        Millis(at.saturating_duration_since(self.origin).as_millis() as u64)
    }

    /// The instant a wait of the pure part ends (rounded up a millisecond,
    /// so it is never early).
    fn instant(&self, at: Millis) -> Instant {
        self.origin + Duration::from_millis(at.0 + 1)
    }

    /// Reads the file, keeps what the agent added (each block answered by
    /// `answer`), and writes `hub` (the hub's part) and the agent's part.
    /// `patient` false (the hub is stopping) swaps the file whole rather
    /// than wait for a lease.
    pub fn sync(
        &mut self,
        hub: &str,
        answer: &dyn Fn(&str) -> String,
        now: Instant,
        patient: bool,
    ) -> io::Result<Synced> {
        for _ in 0..8 {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&self.path)?;
            let mut wait = None;
            let at = self.millis(now);
            let text = &mut self.text;
            let done = in_place::rewrite_whole(&file, &self.path, |read| {
                match text.handle_read(read, hub, answer, at) {
                    RegistryNext::Write(new) => Some(new),
                    RegistryNext::Wait(at) => {
                        wait = Some(at);
                        None
                    }
                }
            })?;
            match done {
                Rewrite::Done { .. } if let Some(at) = wait => {
                    return Ok(Synced::Again(self.instant(at)))
                }
                Rewrite::Done { read, now: text } => {
                    self.no_lease_since = None;
                    let wrote = read != text;
                    self.text.handle_written(hub, text);
                    return Ok(Synced::Done { wrote });
                }
                Rewrite::Changed => continue,
                Rewrite::NotNow => {
                    let since = *self.no_lease_since.get_or_insert(now);
                    if patient && now < since + LEASE_PATIENCE {
                        return Ok(Synced::Again(now + LEASE_AGAIN));
                    }
                    return self.swap_whole(file, hub, answer, now);
                }
            }
        }
        Err(io::Error::other(
            "the registry kept changing under every write",
        ))
    }

    /// Without a lease: read, then rename a whole new file over the path
    /// if it still names the file read, at the length read.
    fn swap_whole(
        &mut self,
        mut file: File,
        hub: &str,
        answer: &dyn Fn(&str) -> String,
        now: Instant,
    ) -> io::Result<Synced> {
        let mut read = String::new();
        file.read_to_string(&mut read)?;
        let at = self.millis(now);
        let new = match self.text.handle_read(&read, hub, answer, at) {
            RegistryNext::Write(new) if new == read => {
                self.text.handle_written(hub, new);
                return Ok(Synced::Done { wrote: false });
            }
            RegistryNext::Write(new) => new,
            RegistryNext::Wait(at) => return Ok(Synced::Again(self.instant(at))),
        };
        let tmp = write_temp(&self.path, &new)?;
        let held = file.metadata()?;
        let still = std::fs::metadata(&self.path)
            .is_ok_and(|m| same_inode(&m, &held) && m.len() == read.len() as u64);
        if !still {
            remove_quietly(&tmp);
            return Ok(Synced::Again(now));
        }
        if let Err(e) = std::fs::rename(&tmp, &self.path) {
            remove_quietly(&tmp);
            return Err(e);
        }
        self.no_lease_since = None;
        self.text.handle_written(hub, new);
        Ok(Synced::Done { wrote: true })
    }
}
