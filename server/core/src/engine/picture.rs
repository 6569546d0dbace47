//! Pictures in a reply (docs/log-format.md, "Images"): the line a saved
//! image gets, `![canvas 300×150](archive/shop-3f2a-1.png)`, the note of
//! one that was not saved, and how such a line is known again (the survey
//! takes it for part of the hub's reply; the doors find the files in it).
//!
//! Pure: the file itself is written by the hub (`hub/image_file.rs`),
//! which hands the engine a [`Picture`] naming it.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use daebug_protocol::JobId;

/// The longest label a line shows (a page's `name` option is cut there).
const MAX_LABEL: usize = 64;
/// How many pictures wait for their jobs' replies at most (a realm that
/// never sends the result leaves no more than this behind).
pub const WAITING_PICTURES: usize = 256;

/// Pictures the hub saved for jobs whose reply is not written yet, oldest
/// first: a reply takes its job's. The engine's pictures part.
#[derive(Debug, Clone, Default)]
pub struct WaitingPictures {
    waiting: VecDeque<(JobId, Picture)>,
}

impl WaitingPictures {
    /// Pictures of `job` arrived (the oldest waiting go past the cap).
    pub fn handle_saved(&mut self, job: JobId, pictures: Vec<Picture>) {
        for p in pictures {
            if self.waiting.len() == WAITING_PICTURES {
                self.waiting.pop_front();
            }
            self.waiting.push_back((job, p));
        }
    }

    /// The pictures of `job`, taken for its reply.
    pub fn take(&mut self, job: JobId) -> Vec<Picture> {
        let (mine, rest) = std::mem::take(&mut self.waiting)
            .into_iter()
            .partition(|(j, _)| *j == job);
        self.waiting = rest;
        mine.into_iter().map(|(_, p)| p).collect::<Vec<_>>()
    }
}

/// One picture of a job, as its reply shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Picture {
    /// Written to `path`, relative to the log's folder (`archive/…`).
    Saved {
        label: String,
        /// Pixels; 0 when the realm could not tell.
        width: u32,
        height: u32,
        path: String,
    },
    /// Not written: why (over the limit, a write that failed).
    Refused { label: String, why: String },
}

impl Picture {
    /// The reply's line for it (no line ending).
    pub fn line(&self) -> String {
        match self {
            Picture::Saved {
                label,
                width,
                height,
                path,
            } if is_text(path) => format!("[{}]({path})", clean_label(label)),
            Picture::Saved {
                label,
                width,
                height,
                path,
            } => match (width, height) {
                (0, _) | (_, 0) => format!("![{}]({path})", clean_label(label)),
                _ => format!("![{} {width}×{height}]({path})", clean_label(label)),
            },
            Picture::Refused { label, why } => {
                format!("(image \"{}\" not saved: {why})", clean_label(label))
            }
        }
    }
}

/// A label a line can show: what came from the page cannot open or close
/// a link, a fence or a tag, nor break the line; cut at 64 characters;
/// `image` when nothing is left.
pub fn clean_label(label: &str) -> String {
    let kept: String = label
        .chars()
        .map(
            |c| match c.is_alphanumeric() || " -_.,:#+=@'/".contains(c) {
                true => c,
                false => '_',
            },
        )
        .take(MAX_LABEL)
        .collect();
    match kept.trim() {
        "" => "image".into(),
        t => t.to_string(),
    }
}

/// Whether an archive file holds text (the console's `copy(x)`), which a
/// reply links rather than shows.
fn is_text(path: &str) -> bool {
    path.ends_with(".json") || path.ends_with(".txt")
}

/// Whether a line is a saved picture's line: `![…](archive/…)`, a single
/// image link into the log's archive folder and nothing else (or a link,
/// `[…](archive/….json)`, to a copied value).
pub fn is_image_line(line: &str) -> bool {
    image_path(line).is_some()
}

/// The archive path of a picture's line (`archive/shop-3f2a-1.png`).
pub fn image_path(line: &str) -> Option<&str> {
    let (rest, text) = match line.strip_prefix("![") {
        Some(rest) => (rest, false),
        None => (line.strip_prefix('[')?, true),
    };
    let (label, target) = rest.split_once("](")?;
    let path = target.strip_suffix(')')?;
    if text != is_text(path) {
        return None;
    }
    let plain = |s: &str| !s.contains(['[', ']', '(', ')']);
    let file = path.strip_prefix("archive/")?;
    (plain(label) && plain(path) && !file.is_empty() && !file.contains(['/', '\\', ' ']))
        .then_some(path)
        .filter(|p| !p.contains(".."))
}

/// The archive paths of the pictures a reply shows, in order.
pub fn image_paths(reply: &str) -> Vec<&str> {
    reply.lines().filter_map(image_path).collect()
}

/// The file extension for a picture's media type; `None` for a type that
/// is not an image the hub saves.
pub fn extension(mime: &str) -> Option<&'static str> {
    let essence = mime.split(';').next().unwrap_or("").trim();
    Some(match essence.to_ascii_lowercase().as_str() {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/avif" => "avif",
        "image/bmp" => "bmp",
        "image/svg+xml" => "svg",
        "image/x-icon" | "image/vnd.microsoft.icon" => "ico",
        "image/tiff" => "tiff",
        // The console's `copy(x)`.
        "application/json" => "json",
        "text/plain" => "txt",
        _ => return None,
    })
}

/// The media type of a saved picture, from its file's extension (what a
/// door says the file holds).
pub fn mime_of(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "png" => "image/png",
        "jpg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "avif" => "image/avif",
        "bmp" => "image/bmp",
        "svg" => "image/svg+xml",
        "ico" => "image/x-icon",
        "tiff" => "image/tiff",
        "json" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(label: &str, w: u32, h: u32) -> Picture {
        Picture::Saved {
            label: label.into(),
            width: w,
            height: h,
            path: "archive/shop-3f2a-1.png".into(),
        }
    }

    #[test]
    fn lines_as_the_contract_writes_them() {
        assert_eq!(
            saved("canvas", 300, 150).line(),
            "![canvas 300×150](archive/shop-3f2a-1.png)"
        );
        assert_eq!(
            saved("logo", 0, 0).line(),
            "![logo](archive/shop-3f2a-1.png)"
        );
        let refused = Picture::Refused {
            label: "big".into(),
            why: "20.0 MiB is over the 16 MiB limit".into(),
        };
        assert_eq!(
            refused.line(),
            "(image \"big\" not saved: 20.0 MiB is over the 16 MiB limit)"
        );
    }

    #[test]
    fn a_page_label_cannot_make_structure() {
        assert_eq!(clean_label("a](x)\n![b"), "a__x____b");
        assert_eq!(clean_label("``` js"), "___ js");
        assert_eq!(clean_label("  "), "image");
        assert_eq!(clean_label(&"é".repeat(100)).chars().count(), 64);
        assert!(is_image_line(&saved("](evil)", 1, 1).line()));
    }

    #[test]
    fn image_lines_are_known_again() {
        assert!(is_image_line("![canvas 300×150](archive/shop-3f2a-1.png)"));
        assert!(is_image_line("![x](archive/s-2.svg)"));
        assert!(!is_image_line("![x](https://example.com/a.png)"));
        assert!(!is_image_line("![x](archive/../secret.png)"));
        assert!(!is_image_line("![x](archive/a/b.png)"));
        assert!(!is_image_line("see ![x](archive/a.png)"));
        assert!(!is_image_line("![x](archive/a.png) and more"));
        // A copied value is linked, not shown.
        assert!(is_image_line("[copy, JSON, 12 bytes](archive/s-3.json)"));
        assert!(!is_image_line("[x](archive/s-3.png)"));
        assert!(!is_image_line("![x](archive/s-3.json)"));
        let copied = Picture::Saved {
            label: "copy, JSON, 12 bytes".into(),
            width: 0,
            height: 0,
            path: "archive/s-3.json".into(),
        };
        assert_eq!(copied.line(), "[copy, JSON, 12 bytes](archive/s-3.json)");
        let reply = "> **s** to agent at 10:00:00 (1ms)\n```JSON\n1\n```\n![a 1×1](archive/s-1.png)\n![b](archive/s-2.jpg)\n";
        assert_eq!(image_paths(reply), ["archive/s-1.png", "archive/s-2.jpg"]);
    }

    #[test]
    fn extensions_and_types() {
        assert_eq!(extension("image/png"), Some("png"));
        assert_eq!(extension("image/JPEG; q=1"), Some("jpg"));
        assert_eq!(extension("image/svg+xml"), Some("svg"));
        assert_eq!(extension("text/html"), None);
        assert_eq!(mime_of("archive/s-1.jpg"), "image/jpeg");
        assert_eq!(mime_of("archive/s-1.png"), "image/png");
    }
}
