//! Keeping deep blocks from taking the hub down. oxc's parser, its semantic
//! pass and the visitors recurse once per level of nesting, and a stack
//! overflow aborts the whole process (it is not a panic). So a block is
//! prepared on one long-lived thread whose stack holds the deepest block
//! the limits below let through, and blocks beyond them are refused with a
//! clear error before any parsing.
//!
//! Measured (release, 0.146): about 2 KB of stack per level of brackets,
//! arrows or generics, 600 B per unary operator. With at most 1 MiB of
//! source and 1,000 levels of brackets the worst block needs well under
//! the 1 GiB reserved here (reserved, not used: pages are only touched by
//! blocks that go that deep).

use std::sync::{mpsc, Mutex, OnceLock};

use daebug_protocol::{JobError, JobId};

use super::Prepared;
use crate::engine::Lang;

/// The largest block the hub prepares.
pub const MAX_BLOCK_BYTES: usize = 1 << 20;
/// The deepest nesting of `(`, `[` and `{` the hub prepares.
pub const MAX_NESTING: usize = 1_000;
/// The preparing thread's stack.
const STACK_BYTES: usize = 1 << 30;

/// One block to prepare and where the answer goes.
type Request = (
    String,
    Lang,
    JobId,
    mpsc::SyncSender<Result<Prepared, JobError>>,
);

/// The inbox of the preparing thread, started on first use.
static INBOX: OnceLock<Mutex<mpsc::Sender<Request>>> = OnceLock::new();

/// Refuses blocks beyond the limits, then prepares on the deep thread.
pub fn prepare_within_limits(source: &str, lang: Lang, job: JobId) -> Result<Prepared, JobError> {
    if source.len() > MAX_BLOCK_BYTES {
        return Err(too_big(format!(
            "this block is {} KiB; blocks of up to {} KiB are prepared. Load a large script with `await import(\"./file.js\")` instead",
            source.len() / 1024,
            MAX_BLOCK_BYTES / 1024
        )));
    }
    if let Some(depth) = nesting_beyond(source, MAX_NESTING) {
        return Err(too_big(format!(
            "brackets nested more than {MAX_NESTING} levels deep (at least {depth}); the hub does not prepare such a block"
        )));
    }
    let inbox = INBOX.get_or_init(|| Mutex::new(start()));
    let (reply, answer) = mpsc::sync_channel(1);
    let sent = inbox.lock().map_err(|_| ()).and_then(|tx| {
        tx.send((source.to_string(), lang, job, reply))
            .map_err(|_| ())
    });
    match sent.and_then(|()| answer.recv().map_err(|_| ())) {
        Ok(result) => result,
        // The thread could not start (or is gone): prepare here instead, as
        // every block within the limits fits a normal stack but the
        // deepest.
        Err(()) => super::prepare_here(source, lang, job),
    }
}

fn start() -> mpsc::Sender<Request> {
    let (tx, rx) = mpsc::channel::<Request>();
    let spawned = std::thread::Builder::new()
        .name("daebug-prepare".into())
        .stack_size(STACK_BYTES)
        .spawn(move || {
            for (source, lang, job, reply) in rx {
                let result = std::panic::catch_unwind(|| super::prepare_here(&source, lang, job))
                    .unwrap_or_else(|_| {
                        Err(JobError {
                            name: "Error".into(),
                            message: "the hub failed preparing this block (a bug in daebug; please report it with the block)".into(),
                            stack: None,
                        })
                    });
                let _ = reply.send(result);
            }
        });
    if let Err(e) = spawned {
        tracing::error!("cannot start the block preparing thread: {e}");
    }
    tx
}

fn too_big(message: String) -> JobError {
    JobError {
        name: "RangeError".into(),
        message,
        stack: None,
    }
}

/// The nesting depth of `(`, `[`, `{` (and `${` in templates) when it goes
/// beyond `limit`, skipping strings and comments. Regular expressions are
/// not recognised; their brackets can only add a little.
fn nesting_beyond(source: &str, limit: usize) -> Option<usize> {
    let b = source.as_bytes();
    let mut depth = 0usize;
    // Depths at which a template literal resumes after its `${ … }`.
    let mut templates: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Some(depth);
                }
            }
            b')' | b']' => depth = depth.saturating_sub(1),
            b'}' => {
                depth = depth.saturating_sub(1);
                if templates.last() == Some(&depth) {
                    templates.pop();
                    i = skip_template(b, i + 1, &mut templates, &mut depth);
                    continue;
                }
            }
            b'\'' | b'"' => i = skip_string(b, i),
            b'`' => {
                i = skip_template(b, i + 1, &mut templates, &mut depth);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |n| i + n);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(b.len(), |n| i + 2 + n + 1);
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// From an opening quote to its closing one (the index of that quote).
fn skip_string(b: &[u8], open: usize) -> usize {
    let quote = b[open];
    let mut i = open + 1;
    while i < b.len() && b[i] != quote && b[i] != b'\n' {
        if b[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    i
}

/// Through template text from `i` to the closing backtick (returns the index
/// after it), or to a `${` (returns the index after it, with the depth the
/// template resumes at remembered).
fn skip_template(b: &[u8], mut i: usize, templates: &mut Vec<usize>, depth: &mut usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'`' => return i + 1,
            b'$' if b.get(i + 1) == Some(&b'{') => {
                templates.push(*depth);
                *depth += 1;
                return i + 2;
            }
            _ => {}
        }
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_is_counted_outside_strings_comments_and_template_text() {
        assert_eq!(nesting_beyond("f([{ a: 1 }])", 2), Some(3));
        assert_eq!(nesting_beyond("f([{ a: 1 }])", 3), None);
        assert_eq!(
            nesting_beyond("'(((' + \"[[[\" // (((\n/* [[[ */ x", 0),
            None
        );
        assert_eq!(nesting_beyond("`((( ${ f(1) } (((`", 1), Some(2));
        assert_eq!(nesting_beyond("`((( ${ f(1) } (((`; g()", 2), None);
        assert_eq!(nesting_beyond("`a ${ `b ${ [1] }` }`", 2), Some(3));
    }

    #[test]
    fn deep_blocks_are_refused_before_parsing_and_big_ones_too() {
        let deep = "[".repeat(20_000);
        let e = prepare_within_limits(&deep, Lang::Js, JobId(1)).unwrap_err();
        assert!(
            e.message.contains("nested more than 1000 levels"),
            "{}",
            e.message
        );
        let big = "x;".repeat(MAX_BLOCK_BYTES);
        let e = prepare_within_limits(&big, Lang::Js, JobId(1)).unwrap_err();
        assert!(
            e.message.contains("blocks of up to 1024 KiB"),
            "{}",
            e.message
        );
    }

    #[test]
    fn deep_nesting_within_the_limits_is_prepared_on_the_deep_thread() {
        // Would overflow a 2 MiB stack (a tokio worker's) in a debug build.
        let unary = "!".repeat(200_000) + "1";
        assert!(prepare_within_limits(&unary, Lang::Js, JobId(1)).is_ok());
        let brackets = "[".repeat(MAX_NESTING) + &"]".repeat(MAX_NESTING);
        assert!(prepare_within_limits(&brackets, Lang::Js, JobId(1)).is_ok());
    }
}
