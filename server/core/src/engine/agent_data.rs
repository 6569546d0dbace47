//! Data fences (docs/log-format.md, "Streamed data"): a fence
//! with info `json agent.data => "stats"` sets the realm's
//! `daebug.StreamedData("stats")` target to its JSON value.
//!
//! A data fence is a block of its chunk like any other, so it runs in order
//! with the chunk's code blocks and its reply stands under it (the ledger's
//! at-most-once and stale-save rules hold for it unchanged). What differs is
//! only what the realm is sent (built here, not by the preparer's reading of
//! JavaScript) and how its reply reads: a note, never a failure, so the
//! chunk goes on after an unknown target or malformed JSON.

/// The symbol the realm's toolkit keeps its data setter under (on
/// `daebug.StreamedData`), so no page name can collide with it.
const SETTER: &str = "daebug.data";

/// The target a data fence's info string names: `json agent.data => "id"`
/// (`json` in any case, spaces around `=>` optional, the id a JSON string).
pub fn target(info: &str) -> Option<String> {
    let (lang, rest) = info.split_once(char::is_whitespace)?;
    if !lang.eq_ignore_ascii_case("json") {
        return None;
    }
    let rest = rest.trim_start().strip_prefix("agent.data")?;
    let rest = rest.trim_start().strip_prefix("=>")?.trim();
    match serde_json::from_str::<serde_json::Value>(rest) {
        Ok(serde_json::Value::String(id)) if !id.is_empty() => Some(id),
        _ => None,
    }
}

/// The code the realm runs for a data fence of `target` with `body`: it
/// hands the parsed value to the toolkit, which answers with the note the
/// reply shows. Malformed JSON is found here (the realm's `JSON.parse`
/// tells no line and column) and the realm only returns its note.
pub fn code(target: &str, body: &str) -> String {
    let id = serde_json::Value::String(target.to_string()).to_string();
    match serde_json::from_str::<serde_json::Value>(body) {
        // `JSON.parse`, not a literal: a `__proto__` key stays a key.
        Ok(value) => format!(
            "const t = globalThis[Symbol.for(\"daebug.toolkit\")];\n\
             if (!t?.StreamedData) throw new Error(\"agent.data: this realm's adapter is older than its hub; reload it\");\n\
             return t.StreamedData[Symbol.for(\"{SETTER}\")]({id}, JSON.parse({}));",
            serde_json::Value::String(value.to_string())
        ),
        Err(e) => {
            let note = json_error(&e);
            format!("return {};", serde_json::Value::String(note))
        }
    }
}

/// The note for malformed JSON: `json_error at line 2, column 5: …`.
fn json_error(e: &serde_json::Error) -> String {
    // serde_json's own text ends with " at line L column C": said once.
    let what = e.to_string();
    let what = what
        .split(" at line ")
        .next()
        .unwrap_or_default()
        .to_string();
    format!(
        "json_error at line {}, column {}: {what}",
        e.line(),
        e.column()
    )
}

/// The reply's note for a data fence whose realm answered `value` (the
/// JSON text of the string the toolkit returned), or `None` when it is not
/// such a string (an older adapter): the reply is then written as a value.
pub fn note(value: &str) -> Option<String> {
    match serde_json::from_str::<serde_json::Value>(value) {
        Ok(serde_json::Value::String(s)) if !s.contains('\n') => Some(format!("({s})")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_strings() {
        for (info, want) in [
            ("json agent.data => \"stats\"", Some("stats")),
            ("JSON agent.data => \"stats\"", Some("stats")),
            ("Json   agent.data=>\"a b\"  ", Some("a b")),
            ("json agent.data => \"\"", None),
            ("json agent.data => stats", None),
            ("json agent.data \"stats\"", None),
            ("json", None),
            ("JSON console.log", None),
            ("js agent.data => \"stats\"", None),
            ("json agent.datum => \"stats\"", None),
        ] {
            assert_eq!(target(info).as_deref(), want, "{info}");
        }
    }

    #[test]
    fn code_sets_the_target_or_returns_the_json_note() {
        let c = code("stats", "{\"count\": 3}");
        assert!(
            c.contains(r#"("stats", JSON.parse("{\"count\":3}"))"#),
            "{c}"
        );
        let c = code("stats", "{\n  \"count\": 3,\n}\n");
        assert_eq!(
            c,
            "return \"json_error at line 3, column 1: trailing comma\";"
        );
        let c = code("s", "{\"a\" 1}");
        assert!(c.contains("json_error at line 1, column 6"), "{c}");
    }

    #[test]
    fn notes() {
        assert_eq!(
            note("\"unknown_target: \\\"stats\\\"\"").as_deref(),
            Some("(unknown_target: \"stats\")")
        );
        assert_eq!(note("3"), None);
        assert_eq!(note("\"a\\nb\""), None);
    }
}
