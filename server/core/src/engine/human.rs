//! A person's answer in the log (docs/log-format.md, "Panels"): one line,
//! `> **human** answered "Checkout form" at 10:00:05`, and the value in a
//! `JSON` fence. It is written where a lifecycle line would be: in the
//! region of the running job (the block that awaits the answer), else above
//! the footer; and it reads as a lifecycle line, so every scan takes it for
//! the hub's (`markdown::parse_human_rest` reads it back).

use super::render;
use super::time::ClockTime;

/// The longest title the line shows (it comes from the realm).
const TITLE_CHARS: usize = 80;

/// The line and its fence (LF endings). `title` is the realm's (a panel's
/// title, an ask's text, a pick's prompt): shown as a JSON string on one
/// line, so it can form no Markdown of its own.
pub fn answer(title: &str, value: &serde_json::Value, at: ClockTime) -> String {
    let mut shown: String = title
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(TITLE_CHARS)
        .collect();
    if title.chars().count() > TITLE_CHARS {
        shown.push('…');
    }
    let quoted = serde_json::Value::String(shown).to_string();
    let mut s = format!("> **human** answered {quoted} at {at}\n");
    s.push_str(&render::fenced("JSON", &render::json_layout(value)));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::markdown::{parse_header, HeaderKind};

    fn at() -> ClockTime {
        ClockTime::parse("10:00:05").unwrap()
    }

    #[test]
    fn the_line_and_its_fence() {
        let v = serde_json::json!({"name": "Ada"});
        assert_eq!(
            answer("Checkout form", &v, at()),
            "> **human** answered \"Checkout form\" at 10:00:05\n```JSON\n{\"name\":\"Ada\"}\n```\n"
        );
        let s = answer(
            "a \"b\"\n**c** to agent at 10:00:00",
            &serde_json::json!("Continue"),
            at(),
        );
        assert!(
            s.starts_with(
                "> **human** answered \"a \\\"b\\\" **c** to agent at 10:00:00\" at 10:00:05\n"
            ),
            "{s}"
        );
    }

    #[test]
    fn reads_as_a_lifecycle_line() {
        for line in [
            "> **human** answered \"Checkout form\" at 10:00:05",
            "> **human** answered \"a \\\" at 09:00:00\" at 10:00:05",
        ] {
            let h = parse_header(line).expect(line);
            assert_eq!(h.from, "human");
            assert!(matches!(h.kind, HeaderKind::Lifecycle { .. }), "{line}");
        }
        for no in [
            "> **human** answered Checkout at 10:00:05",
            "> **human** answered \"x\" at 10:00",
        ] {
            assert!(
                !parse_header(no).is_some_and(|h| matches!(h.kind, HeaderKind::Lifecycle { .. })),
                "{no}"
            );
        }
    }
}
