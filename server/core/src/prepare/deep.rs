//! Keeping deep blocks from taking the hub down. oxc's parser, its semantic
//! pass and the visitors recurse once per level of nesting, and a stack
//! overflow aborts the whole process (it is not a panic). So a block is
//! prepared on a thread whose stack holds the deepest block the limits
//! below let through, and blocks beyond them are refused with a clear error
//! before any parsing. One standing thread takes blocks (a hop costs a few
//! microseconds; starting a thread with such a stack, about 200); while it
//! is busy, a block gets a thread of its own, so no log waits on another's
//! slow block.
//!
//! A hop to that thread is two thread wake-ups, 100–200 µs on an idle
//! machine, the largest part of a small block's way to its realm. So a
//! thread that declares its stack ([`declare_stack`], the hub's runtime
//! threads) prepares small blocks with few brackets in place: at most
//! [`IN_PLACE_BYTES`] of source and [`IN_PLACE_BRACKETS`] opening
//! brackets, counted byte by byte (no string, comment or regular
//! expression can hide one, as they can from the nesting count). Even
//! when every byte of such a block is a level of the costliest construct,
//! it needs a quarter of [`IN_PLACE_STACK_BYTES`] (a test checks the
//! deepest constructs, statements and types too, on that quarter).
//!
//! Measured (release, 0.146): about 2 KB of stack per level of brackets,
//! arrows or generics, 600 B per unary operator. With at most 256 KiB of
//! source and 1,000 levels of brackets the worst block needs well under
//! the 1 GiB reserved here (reserved, not used: pages are only touched by
//! blocks that go that deep). The size limit also bounds the few
//! constructs oxc checks in quadratic time (a 1 MiB run of `await await …`
//! took 20 s; a quarter of that, about a second).

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex, OnceLock};

use daebug_protocol::{JobError, JobId};

use super::Prepared;
use crate::lang::Lang;

/// The largest block the hub prepares.
pub const MAX_BLOCK_BYTES: usize = 256 << 10;
/// The deepest nesting of `(`, `[` and `{` the hub prepares.
pub const MAX_NESTING: usize = 1_000;
/// The preparing thread's stack.
const STACK_BYTES: usize = 1 << 30;
/// The largest block prepared in place, on a thread that declared
/// [`IN_PLACE_STACK_BYTES`].
pub const IN_PLACE_BYTES: usize = 2 << 10;
/// The most opening brackets (`(`, `[`, `{`) a block prepared in place
/// has, wherever they stand.
pub const IN_PLACE_BRACKETS: usize = 128;
/// The stack a thread declares to prepare small blocks in place.
pub const IN_PLACE_STACK_BYTES: usize = 16 << 20;

thread_local! {
    /// This thread's stack, as its owner declared it (none: unknown).
    static DECLARED_STACK: Cell<usize> = const { Cell::new(0) };
}

/// Says this thread's stack holds `bytes`: from [`IN_PLACE_STACK_BYTES`]
/// on, small blocks are prepared on it (no hop to the deep thread). Call
/// it at the thread's start (the hub: its runtime's `on_thread_start`).
pub fn declare_stack(bytes: usize) {
    DECLARED_STACK.with(|s| s.set(bytes));
}

/// Whether `source` may be prepared on this thread's own stack.
fn in_place(source: &str) -> bool {
    DECLARED_STACK.with(Cell::get) >= IN_PLACE_STACK_BYTES
        && source.len() <= IN_PLACE_BYTES
        && source
            .bytes()
            .filter(|b| matches!(b, b'(' | b'[' | b'{'))
            .count()
            <= IN_PLACE_BRACKETS
}

/// Refuses blocks beyond the limits, then prepares on a deep-stack thread.
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
    if in_place(source) {
        return std::panic::catch_unwind(|| super::prepare_here(source, lang, job))
            .unwrap_or_else(|_| Err(failed()));
    }
    // The standing thread when it is free (a hop costs microseconds);
    // a fresh one when another block holds it (no log waits on another).
    if STANDING_BUSY
        .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_ok()
    {
        let result = on_standing_thread(source, lang, job);
        STANDING_BUSY.store(false, Ordering::Release);
        if let Some(result) = result {
            return result;
        }
    }
    on_fresh_thread(source, lang, job)
}

/// A block for the standing thread, and where its answer goes.
type Request = (
    String,
    Lang,
    JobId,
    mpsc::SyncSender<Result<Prepared, JobError>>,
);

/// The standing thread's inbox, started on first use.
static STANDING: OnceLock<Mutex<mpsc::Sender<Request>>> = OnceLock::new();
/// Whether a block is on the standing thread now.
static STANDING_BUSY: AtomicBool = AtomicBool::new(false);

/// `None` when the standing thread cannot be had.
fn on_standing_thread(source: &str, lang: Lang, job: JobId) -> Option<Result<Prepared, JobError>> {
    let inbox = STANDING.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Request>();
        let spawned = std::thread::Builder::new()
            .name("daebug-prepare".into())
            .stack_size(STACK_BYTES)
            .spawn(move || {
                for (source, lang, job, reply) in rx {
                    let result =
                        std::panic::catch_unwind(|| super::prepare_here(&source, lang, job))
                            .unwrap_or_else(|_| Err(failed()));
                    let _ = reply.send(result);
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot start the block preparing thread: {e}");
        }
        Mutex::new(tx)
    });
    let (reply, answer) = mpsc::sync_channel(1);
    inbox
        .lock()
        .ok()?
        .send((source.to_string(), lang, job, reply))
        .ok()?;
    answer.recv().ok()
}

fn on_fresh_thread(source: &str, lang: Lang, job: JobId) -> Result<Prepared, JobError> {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("daebug-prepare".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || super::prepare_here(source, lang, job));
        match thread {
            Ok(handle) => handle.join().unwrap_or_else(|_| Err(failed())),
            // No thread to be had: this stack holds every block but the
            // deepest.
            Err(e) => {
                tracing::warn!("no thread to prepare a block on ({e}); preparing in place");
                super::prepare_here(source, lang, job)
            }
        }
    })
}

fn failed() -> JobError {
    JobError {
        name: "Error".into(),
        message:
            "the hub failed preparing this block (a bug in daebug; please report it with the block)"
                .into(),
        stack: None,
    }
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
            e.message.contains("blocks of up to 256 KiB"),
            "{}",
            e.message
        );
    }

    /// Blocks of the largest size prepared in place, each byte as deep
    /// as it can go in some construct: inside as many blocks and brackets
    /// as the count allows, a unit repeated to the size limit (a unit
    /// with brackets as often as the count still allows).
    fn deepest_small_blocks() -> Vec<(Lang, String)> {
        let opening = |t: &str| t.bytes().filter(|b| b"([{".contains(b)).count();
        let fill = |open: &str, close: &str, unit: &str, tail: &str| -> String {
            let room = IN_PLACE_BYTES - open.len() - close.len() - tail.len();
            let by_brackets = match opening(unit) {
                0 => usize::MAX,
                n => (IN_PLACE_BRACKETS - opening(open)) / n,
            };
            let units = unit.repeat((room / unit.len()).min(by_brackets));
            format!("{open}{units}{tail}{close}")
        };
        let half = IN_PLACE_BRACKETS / 2;
        let (blocks, ends) = ("{".repeat(half), "}".repeat(half));
        let (parens, shut) = ("(".repeat(half), ")".repeat(half));
        let expr = |unit: &str, tail: &str| {
            let open = format!("{}{}", "{".repeat(half / 2), "(".repeat(half / 2));
            let close = format!("{}{}", ")".repeat(half / 2), "}".repeat(half / 2));
            fill(&open, &close, unit, tail)
        };
        let labels: String = (0..IN_PLACE_BYTES).map(|i| format!("l{i}:")).collect();
        let labels = &labels[..labels[..IN_PLACE_BYTES - 2 * half - 8].rfind('l').unwrap()];
        let js = |t: String| (Lang::Js, t);
        let ts = |t: String| (Lang::Ts, t);
        vec![
            js(expr("a=>", "a")),
            js(expr("()=>", "a")),
            js(expr("!", "a")),
            js(expr("-", "a")),
            js(expr("~", "a")),
            js(expr("++", "a")),
            js(expr("void ", "a")),
            js(expr("a=", "a")),
            js(expr("a?a:", "a")),
            js(expr("typeof ", "a")),
            js(expr("await ", "a")),
            js(expr("new ", "a")),
            js(expr("a+", "a")),
            js(expr("a.", "a")),
            js(expr("a**", "a")),
            js(expr("a()", "")),
            js(expr("a``", "")),
            js(expr("`${", "")),
            js(fill(&parens, &shut, "(", "")),
            js(fill(&blocks, &ends, "{", "")),
            js(fill(&blocks, &ends, "function(){", "")),
            js(format!("{blocks}{labels}a{ends}")),
            js(fill(&blocks, &ends, "if(a)", "a")),
            js(fill(&blocks, &ends, "for(;;)", "a")),
            js(fill(&blocks, &ends, "if(a);else ", "a")),
            js(fill(&blocks, &ends, "do ", "a")),
            js(format!(
                "function*g(){}{}a{}}}",
                "{".repeat(half - 1),
                "yield ".repeat((IN_PLACE_BYTES - 2 * half - 24) / 6),
                "}".repeat(half - 1)
            )),
            ts(format!("let a: {}", "A<".repeat(IN_PLACE_BYTES / 2 - 8))),
            ts(format!(
                "let a: {}",
                "keyof ".repeat(IN_PLACE_BYTES / 6 - 2)
            )),
            ts(format!("let a: {}", "()=>".repeat(IN_PLACE_BRACKETS))),
            ts(format!("let a: A{}", "[]".repeat(IN_PLACE_BRACKETS))),
            ts(expr("a!", "")),
            ts(expr("a as ", "a")),
            ts(expr("<A>", "a")),
        ]
    }

    #[test]
    fn small_blocks_prepared_in_place_fit_a_quarter_of_the_declared_stack() {
        let thread = std::thread::Builder::new()
            .stack_size(IN_PLACE_STACK_BYTES / 4)
            .spawn(|| {
                declare_stack(IN_PLACE_STACK_BYTES);
                for (lang, block) in deepest_small_blocks() {
                    assert!(block.len() <= IN_PLACE_BYTES, "{}", block.len());
                    assert!(in_place(&block), "{lang:?} {}", &block[..80]);
                    // An answer (a syntax error too) and no overflow.
                    let _ = prepare_within_limits(&block, lang, JobId(1));
                }
            })
            .unwrap();
        thread.join().unwrap();
    }

    #[test]
    fn only_a_thread_that_declared_its_stack_prepares_in_place() {
        let small = "1 + 1";
        std::thread::spawn(move || {
            assert!(!in_place(small));
            declare_stack(IN_PLACE_STACK_BYTES / 2);
            assert!(!in_place(small));
            declare_stack(IN_PLACE_STACK_BYTES);
            assert!(in_place(small));
            assert!(!in_place(&"x;".repeat(IN_PLACE_BYTES)));
            assert!(!in_place(&"[".repeat(IN_PLACE_BRACKETS + 1)));
            // Brackets a regular expression or a string would hide from
            // the nesting count still count.
            assert!(!in_place(&format!(
                "/`/;{}",
                "{".repeat(IN_PLACE_BRACKETS + 1)
            )));
            assert!(!in_place(&format!(
                "'\"';{}",
                "(".repeat(IN_PLACE_BRACKETS + 1)
            )));
        })
        .join()
        .unwrap();
    }

    #[test]
    fn blocks_prepared_at_once_all_get_their_answer() {
        let answers: Vec<bool> = std::thread::scope(|scope| {
            let runs: Vec<_> = (0..6)
                .map(|i| {
                    scope.spawn(move || {
                        let block = format!("const v{i} = {i};\nv{i} + 1");
                        prepare_within_limits(&block, Lang::Js, JobId(i))
                            .is_ok_and(|p| p.code.contains(&format!("(v{i} + 1)")))
                    })
                })
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).collect()
        });
        assert_eq!(answers, vec![true; 6]);
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
