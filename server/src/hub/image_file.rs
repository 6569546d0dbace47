//! A picture's file next to the log: bytes, their media type and a label
//! in, `debug/archive/<stem>-<n>.<ext>` on disk and the
//! [`Picture`] its reply line is made from out (docs/log-format.md,
//! "Images"). The one place the hub writes pictures: `daebug.image`,
//! `daebug.snapshot` and a value that is a canvas come here, and so will
//! pictures the browser takes itself.
//!
//! A name is never used twice, also across hub restarts: the file is
//! written to a temp file and hard-linked to its name, which fails when
//! the name is taken (then the next `n` is tried), so an existing file is
//! never overwritten and no reader sees half a picture.

use std::io;
use std::path::PathBuf;

use daebug_protocol::MAX_IMAGE_BYTES;

use super::fsio::{remove_quietly, write_temp_bytes};
use daebug_core::engine::picture::{extension, Picture};

/// How many taken names one save tries before it gives up (a folder full
/// of a stem's pictures from earlier runs is walked past once; the count
/// then stays past them).
const MAX_TRIES: u64 = 100_000;

/// The pictures of one log.
#[derive(Debug)]
pub struct ImageFiles {
    /// `debug/archive/`.
    dir: PathBuf,
    stem: String,
    /// The next `n` to try.
    next: u64,
}

/// What is known of a picture besides its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageMeta<'a> {
    /// The kind (`canvas`, `snapshot`, …) or the name the block gave.
    pub label: &'a str,
    pub mime: &'a str,
    /// Pixels, 0 when not known.
    pub width: u32,
    pub height: u32,
}

impl ImageFiles {
    /// The pictures of `debug/<stem>.md`; `logs_dir` is `debug/`.
    pub fn new(logs_dir: &std::path::Path, stem: &str) -> ImageFiles {
        ImageFiles {
            dir: logs_dir.join("archive"),
            stem: stem.to_string(),
            next: 1,
        }
    }

    /// Saves a picture, or says why it was not: over
    /// [`MAX_IMAGE_BYTES`], a type that is not an image, a write that
    /// failed. Blocking file IO.
    pub fn save(&mut self, bytes: &[u8], meta: &ImageMeta<'_>) -> Picture {
        let refused = |why: String| Picture::Refused {
            label: meta.label.to_string(),
            why,
        };
        if bytes.len() as u64 > MAX_IMAGE_BYTES {
            return refused(over_limit(bytes.len() as u64));
        }
        let Some(ext) = extension(meta.mime) else {
            let mime = daebug_core::engine::picture::clean_label(meta.mime);
            return refused(format!("\"{mime}\" is not an image type the hub saves"));
        };
        match self.write(bytes, ext) {
            Ok(name) => Picture::Saved {
                label: meta.label.to_string(),
                width: meta.width,
                height: meta.height,
                path: format!("archive/{name}"),
            },
            Err(e) => {
                tracing::error!(stem = %self.stem, "cannot save a picture in {}: {e}", self.dir.display());
                refused(format!("the hub could not write it: {e}"))
            }
        }
    }

    /// Writes `bytes` under the first free `<stem>-<n>.<ext>`; its name.
    fn write(&mut self, bytes: &[u8], ext: &str) -> io::Result<String> {
        let tmp = write_temp_bytes(&self.dir.join(format!("{}.{ext}", self.stem)), bytes)?;
        let linked = (|| {
            for _ in 0..MAX_TRIES {
                let name = format!("{}-{}.{ext}", self.stem, self.next);
                self.next += 1;
                match std::fs::hard_link(&tmp, self.dir.join(&name)) {
                    Ok(()) => return Ok(name),
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(e),
                }
            }
            Err(io::Error::other("no free name in the archive folder"))
        })();
        remove_quietly(&tmp);
        linked
    }
}

/// Why a picture over the limit was not saved.
pub fn over_limit(bytes: u64) -> String {
    format!(
        "{:.1} MiB is over the {} MiB limit, so it was dropped",
        bytes as f64 / (1024.0 * 1024.0),
        MAX_IMAGE_BYTES >> 20
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: ImageMeta<'static> = ImageMeta {
        label: "canvas",
        mime: "image/png",
        width: 3,
        height: 2,
    };

    #[test]
    fn saves_under_a_new_name_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("archive");
        std::fs::create_dir_all(&archive).unwrap();
        // A picture of an earlier run of the hub.
        std::fs::write(archive.join("s-1.png"), b"old").unwrap();
        let mut files = ImageFiles::new(dir.path(), "s");
        let p = files.save(b"new", &PNG);
        assert_eq!(p.line(), "![canvas 3×2](archive/s-2.png)");
        assert_eq!(std::fs::read(archive.join("s-1.png")).unwrap(), b"old");
        assert_eq!(std::fs::read(archive.join("s-2.png")).unwrap(), b"new");
        let jpeg = ImageMeta {
            mime: "image/jpeg",
            ..PNG
        };
        assert_eq!(
            files.save(b"j", &jpeg).line(),
            "![canvas 3×2](archive/s-3.jpg)"
        );
        // No temp file is left behind.
        let names: Vec<_> = std::fs::read_dir(&archive)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");
    }

    #[test]
    fn creates_the_archive_folder() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = ImageFiles::new(dir.path(), "s");
        assert!(matches!(files.save(b"x", &PNG), Picture::Saved { .. }));
        assert!(dir.path().join("archive/s-1.png").is_file());
    }

    #[test]
    fn refuses_what_it_does_not_save() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = ImageFiles::new(dir.path(), "s");
        let big = vec![0u8; MAX_IMAGE_BYTES as usize + 1];
        assert_eq!(
            files.save(&big, &PNG).line(),
            "(image \"canvas\" not saved: 16.0 MiB is over the 16 MiB limit, so it was dropped)"
        );
        let html = ImageMeta {
            mime: "text/html",
            ..PNG
        };
        assert_eq!(
            files.save(b"<p>", &html).line(),
            "(image \"canvas\" not saved: \"text/html\" is not an image type the hub saves)"
        );
        assert!(!dir.path().join("archive").exists());
    }
}
