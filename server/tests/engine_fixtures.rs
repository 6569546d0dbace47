//! Before/after fixtures for the log engine.
//!
//! Each file under `fixtures/engine/` is one case: a starting log, then
//! steps. A step is an input at a given time; after it, the file must read
//! exactly as its `=== expect` section and the effects must be its
//! `=== effects` section. `=== append` / `=== write` change the file as an
//! agent's editor would, before the next step.
//!
//! ```text
//! === case what this case shows
//! stem: shop-3f2a            (optional; also `timeout: <ms>`, `inline: <bytes>`)
//! === file [crlf] [no-eol]
//! === step <mono ms> <HH:MM:SS> <startup|changed|started|progress|result|background|tick|presence|left>
//! {"job": 1, ...}            (the input's JSON fields, when it has any)
//! === expect [no-eol]
//! === effects
//! ```
//!
//! `crlf` makes every text of the case use CRLF endings (sections are
//! written with LF and converted). Run with `UPDATE_FIXTURES=1` to rewrite
//! the `expect`/`effects` sections from what the engine does now — then read
//! the diff: a fixture is a reviewed statement of behaviour, not a recording.

use std::path::{Path, PathBuf};

use daebug_core::engine::markdown::{blocks, Block};
use daebug_core::engine::template::FOOTER;
use daebug_core::engine::{apply, ClockTime, Config, Effect, Input, LogEngine, Millis, Now};

#[derive(Debug, Clone)]
struct Section {
    /// The marker line without `=== `.
    head: String,
    body: String,
}

fn parse_sections(src: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    for line in src.split_inclusive('\n') {
        if let Some(head) = line.strip_prefix("=== ") {
            out.push(Section {
                head: head.trim_end().to_string(),
                body: String::new(),
            });
        } else if let Some(last) = out.last_mut() {
            last.body.push_str(line);
        } else {
            assert!(
                line.trim().is_empty(),
                "text before the first section: {line:?}"
            );
        }
    }
    out
}

fn flags(head: &str) -> (bool, bool) {
    let words: Vec<_> = head.split_whitespace().collect();
    (words.contains(&"crlf"), words.contains(&"no-eol"))
}

/// A section body as file text: CRLF when the case is, final newline
/// dropped for `no-eol`.
fn body_text(s: &Section, crlf: bool) -> String {
    let mut t = s.body.clone();
    if flags(&s.head).1 && t.ends_with('\n') {
        t.pop();
    }
    if crlf {
        t = t.replace('\n', "\r\n");
    }
    t
}

/// File text shown as a section body, and whether it needs `no-eol`.
fn show_text(t: &str, crlf: bool) -> (String, bool) {
    let shown = if crlf {
        let lf = t.replace("\r\n", "\n");
        assert_eq!(
            lf.replace('\n', "\r\n"),
            t,
            "mixed line endings in a CRLF case:\n{t:?}"
        );
        lf
    } else {
        assert!(!t.contains('\r'), "CR in an LF case:\n{t:?}");
        t.to_string()
    };
    if shown.is_empty() || shown.ends_with('\n') {
        (shown, false)
    } else {
        (shown + "\n", true)
    }
}

fn show_effects(effects: &[Effect]) -> String {
    let mut s = String::new();
    for e in effects {
        let line = match e {
            // The prepared code is checked by the rewrite's own tests.
            Effect::Dispatch {
                job,
                prepared,
                timeout_ms,
                depth,
                full,
            } => {
                let code = prepared.map.source();
                // Value options only when given, as on the wire.
                let depth = depth.map(|d| format!(" depth={d}")).unwrap_or_default();
                let full = if *full { " full" } else { "" };
                format!("dispatch job={job} timeout={timeout_ms}ms{depth}{full} code={code:?}")
            }
            Effect::Prelude {
                job,
                prepared,
                timeout_ms,
                ..
            } => format!(
                "prelude job={job} timeout={timeout_ms}ms code={:?}",
                prepared.map.source()
            ),
            Effect::Cancel { job } => format!("cancel job={job}"),
            Effect::WakeAt(at) => format!("wake at={}", at.0),
            Effect::Archive { path, text } => format!("archive {path} ({} bytes)", text.len()),
            Effect::State(state) => format!("state {}", state.as_str()),
            Effect::Notice(n) => format!("notice {n}"),
            Effect::FanOut {
                job,
                agent,
                info,
                code,
            } => format!("fan out job={job} agent={agent} info={info:?} code={code:?}"),
            Effect::Answered { ticket, answer } => format!(
                "answered ticket={ticket} job={} state={} {}ms events={} reply={:?}",
                answer.job,
                answer.state.as_str(),
                answer.duration_ms,
                answer.events.len(),
                answer.reply
            ),
        };
        s.push_str(&line);
        s.push('\n');
    }
    s
}

fn input_of(kind: &str, payload: &str) -> Input {
    let mut obj: serde_json::Map<String, serde_json::Value> = if payload.trim().is_empty() {
        serde_json::Map::new()
    } else {
        serde_json::from_str(payload).unwrap_or_else(|e| panic!("bad payload {payload:?}: {e}"))
    };
    let kind = if kind == "changed" {
        "file_changed"
    } else {
        kind
    };
    obj.insert("type".into(), kind.into());
    serde_json::from_value(serde_json::Value::Object(obj))
        .unwrap_or_else(|e| panic!("bad {kind} input: {e}"))
}

/// Footer lines outside fences (a copy inside a code block is content).
fn count_footers(text: &str) -> usize {
    blocks(text, 0)
        .filter(|b| matches!(b, Block::Line(l) if l.text == FOOTER))
        .count()
}

/// Runs one case; returns the sections with `expect`/`effects` as the engine
/// produced them, and the list of mismatches.
fn run_case(path: &Path, sections: &[Section]) -> (Vec<Section>, Vec<String>) {
    let mut stem = "shop-3f2a".to_string();
    let mut config = Config::default();
    let mut crlf = false;
    let mut text = String::new();
    let mut engine: Option<LogEngine> = None;
    let mut out_sections = Vec::new();
    let mut failures = Vec::new();
    let mut i = 0;
    while i < sections.len() {
        let s = &sections[i];
        let word = s.head.split_whitespace().next().unwrap_or("");
        match word {
            "case" => {
                for line in s.body.lines() {
                    match line.split_once(':') {
                        Some(("stem", v)) => stem = v.trim().to_string(),
                        Some(("timeout", v)) => {
                            config.default_timeout_ms = v.trim().parse().unwrap()
                        }
                        Some(("inline", v)) => config.inline_limit = v.trim().parse().unwrap(),
                        Some(("fan_out", v)) => config.fan_out = v.trim().parse().unwrap(),
                        _ if line.trim().is_empty() => {}
                        _ => panic!("{}: unknown case setting {line:?}", path.display()),
                    }
                }
                out_sections.push(s.clone());
            }
            "file" => {
                crlf = flags(&s.head).0;
                text = body_text(s, crlf);
                out_sections.push(s.clone());
            }
            "append" => {
                text.push_str(&body_text(s, crlf));
                out_sections.push(s.clone());
            }
            "write" => {
                text = body_text(s, crlf);
                out_sections.push(s.clone());
            }
            "replace" => {
                let body = body_text(s, crlf);
                let sep = if crlf { "\r\n---\r\n" } else { "\n---\n" };
                let (old, new) = body.split_once(sep).unwrap_or_else(|| {
                    panic!("{}: replace needs `old`, `---`, `new`", path.display())
                });
                assert!(
                    text.contains(old),
                    "{}: replace: {old:?} is not in the log",
                    path.display()
                );
                text = text.replacen(old, new, 1);
                out_sections.push(s.clone());
            }
            "step" => {
                let words: Vec<_> = s.head.split_whitespace().collect();
                assert_eq!(
                    words.len(),
                    4,
                    "{}: step needs `<ms> <HH:MM:SS> <kind>`: {}",
                    path.display(),
                    s.head
                );
                let now = Now {
                    mono: Millis(words[1].parse().unwrap()),
                    clock: ClockTime::parse(words[2]).expect("clock"),
                };
                let input = input_of(words[3], &s.body);
                let engine =
                    engine.get_or_insert_with(|| LogEngine::new(stem.clone(), config.clone()));
                let output = engine.handle(&text, input, now);
                text = apply(&text, &output.edits);
                if count_footers(&text) > 1 {
                    failures.push(format!(
                        "{}: step `{}` left {} footers",
                        path.display(),
                        s.head,
                        count_footers(&text)
                    ));
                }
                out_sections.push(s.clone());
                let (shown, no_eol) = show_text(&text, crlf);
                let effects = show_effects(&output.effects);
                let expect_head = if no_eol { "expect no-eol" } else { "expect" };
                // Compare with the sections that follow, if present.
                let mut j = i + 1;
                let mut saw_expect = false;
                let mut saw_effects = false;
                while j < sections.len() {
                    let w = sections[j].head.split_whitespace().next().unwrap_or("");
                    match w {
                        "expect" => {
                            saw_expect = true;
                            if body_text(&sections[j], crlf) != text {
                                failures.push(format!(
                                    "{}: after step `{}` the log differs.\n--- expected\n{}--- actual\n{}",
                                    path.display(),
                                    s.head,
                                    sections[j].body,
                                    shown
                                ));
                            }
                        }
                        "effects" => {
                            saw_effects = true;
                            if sections[j].body != effects {
                                failures.push(format!(
                                    "{}: after step `{}` the effects differ.\n--- expected\n{}--- actual\n{}",
                                    path.display(),
                                    s.head,
                                    sections[j].body,
                                    effects
                                ));
                            }
                        }
                        _ => break,
                    }
                    j += 1;
                }
                if !saw_expect || !saw_effects {
                    failures.push(format!(
                        "{}: step `{}` lacks its expect/effects sections",
                        path.display(),
                        s.head
                    ));
                }
                out_sections.push(Section {
                    head: expect_head.into(),
                    body: shown,
                });
                out_sections.push(Section {
                    head: "effects".into(),
                    body: effects,
                });
                i = j;
                continue;
            }
            "expect" | "effects" => {
                panic!("{}: `{}` without a step before it", path.display(), s.head)
            }
            other => panic!("{}: unknown section {other:?}", path.display()),
        }
        i += 1;
    }
    (out_sections, failures)
}

fn render_sections(sections: &[Section]) -> String {
    let mut s = String::new();
    for sec in sections {
        s.push_str("=== ");
        s.push_str(&sec.head);
        s.push('\n');
        s.push_str(&sec.body);
    }
    s
}

fn fixture_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/engine");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files
}

#[test]
fn engine_fixtures() {
    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    let files = fixture_files();
    assert!(
        files.len() >= 40,
        "expected at least 40 fixture cases, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let sections = parse_sections(&src);
        assert!(
            sections
                .first()
                .is_some_and(|s| s.head.starts_with("case ")),
            "{}: must start with `=== case`",
            path.display()
        );
        let (actual, mut errs) = run_case(path, &sections);
        if update {
            let new = render_sections(&actual);
            if new != src {
                std::fs::write(path, new).unwrap();
                eprintln!("updated {}", path.display());
            }
            errs.retain(|e| e.contains("footers"));
        }
        failures.extend(errs);
    }
    assert!(
        failures.is_empty(),
        "{} fixture failure(s):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
