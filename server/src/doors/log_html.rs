//! Pure: a chat log's Markdown as the dashboard shows it (safe HTML).
//!
//! The log holds what pages sent (inside fences the hub made unforgeable)
//! and whatever an agent wrote, so nothing in it may become markup of its
//! own: raw HTML (block or inline) is shown as the text it is, and a link
//! or image keeps only a URL that cannot run code (`javascript:` and the
//! like become `#`). On top of CommonMark (pulldown-cmark), three things
//! the dashboard needs:
//!
//! - each fence's info string (`JSON`, `Text console.log`, `Error
//!   window.onerror`) is shown above it as a label, with a class naming
//!   its kind (`fence-error`, `fence-text`, …) for the stylesheet;
//! - a running job's placeholder line `executing (3s)` (outside fences:
//!   page output shaped like it stays text) becomes
//!   `<span class="executing" data-elapsed-ms="3000">`, which the page
//!   ticks between the hub's refreshes (at most every 5 s);
//! - relative links and images (`archive/<stem>-<n>.png`, written next to
//!   the log in `debug/`) point under [`ARCHIVE_ROUTE`] (see [`local_url`]).

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TextMergeStream};

use crate::http::assets::escape_html;

/// Where a log's relative links and images are sent: the hub never serves
/// `debug/` itself, so archives (long replies, images) have a route of
/// their own (`dashboard.rs`, `archive_file`); only [`local_url`] knows
/// the shape.
pub const ARCHIVE_ROUTE: &str = "/_daebug/files/";

/// The log's Markdown rendered as safe HTML (a fragment: no `<html>`).
pub fn log_to_html(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let events: Vec<Event<'_>> = TextMergeStream::new(Parser::new_ext(markdown, options)).collect();
    let mut out_events = Vec::with_capacity(events.len());
    let mut in_code = false;
    for (i, event) in events.iter().enumerate() {
        let event = event.clone();
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                in_code = true;
                let info = match &kind {
                    CodeBlockKind::Fenced(info) => info.trim().to_owned(),
                    CodeBlockKind::Indented => String::new(),
                };
                out_events.push(Event::Html(fence_start(&info).into()));
            }
            Event::End(pulldown_cmark::TagEnd::CodeBlock) => {
                in_code = false;
                out_events.push(Event::Html("</code></pre></div>\n".into()));
            }
            // Raw HTML is shown as typed, never passed through (a block of
            // it keeps its lines).
            Event::Start(Tag::HtmlBlock) => {
                out_events.push(Event::Html("<pre class=\"html-block\">".into()));
            }
            Event::End(pulldown_cmark::TagEnd::HtmlBlock) => {
                out_events.push(Event::Html("</pre>\n".into()));
            }
            Event::Html(html) | Event::InlineHtml(html) => out_events.push(Event::Text(html)),
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => out_events.push(Event::Start(Tag::Link {
                link_type,
                dest_url: safe_url(&dest_url).into(),
                title,
                id,
            })),
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => out_events.push(Event::Start(Tag::Image {
                link_type,
                dest_url: safe_url(&dest_url).into(),
                title,
                id,
            })),
            Event::Text(text) if !in_code && is_own_line(&events, i) => {
                match executing_ms(&text) {
                    Some(ms) => {
                        // On a line of its own, as in the file (it is often a
                        // lazy continuation of the reply header's quote).
                        if matches!(out_events.last(), Some(Event::SoftBreak)) {
                            out_events.pop();
                            out_events.push(Event::HardBreak);
                        }
                        out_events.push(Event::InlineHtml(
                            format!(
                                "<span class=\"executing\" data-elapsed-ms=\"{ms}\">{}</span>",
                                escape_html(&text)
                            )
                            .into(),
                        ));
                    }
                    None => out_events.push(Event::Text(text)),
                }
            }
            other => out_events.push(other),
        }
    }
    let mut html = String::with_capacity(markdown.len() + markdown.len() / 4);
    pulldown_cmark::html::push_html(&mut html, out_events.into_iter());
    html
}

/// The HTML of the log's last `lines` lines (all of it with `None`), cut
/// where a top-level block starts, so a fence is never entered halfway
/// (its text would turn into prose and the prose after it into code).
/// When something is left out, a first paragraph (`class="earlier"`)
/// says so. The dashboard asks for a tail: a log grows to 4 MiB before its
/// history moves, and a whole one is ~90 ms to render and 8 MB of HTML.
pub fn log_tail_to_html(text: &str, lines: Option<usize>) -> String {
    let cut = lines.map_or(0, |n| tail_start(text, n));
    if cut == 0 {
        return log_to_html(text);
    }
    let hidden = text[..cut].lines().count();
    let mut html = format!(
        "<p class=\"earlier\">{hidden} earlier lines are not shown here; the log file has them all.</p>\n"
    );
    html.push_str(&log_to_html(&text[cut..]));
    html
}

/// Where the last `lines` lines of `text` begin, moved on to the start of
/// the first top-level block (a line outside fences, or a fence) there.
pub fn tail_start(text: &str, lines: usize) -> usize {
    let naive = text.len() - super::last_lines(text, lines).len();
    if naive == 0 {
        return 0;
    }
    daebug_core::engine::markdown::blocks(text, 0)
        .map(|b| b.start())
        .find(|&start| start >= naive)
        .unwrap_or(text.len())
}

/// The opening of a fence: its label (the info string) and the `<pre>`.
fn fence_start(info: &str) -> String {
    let kind = info
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let class: String = kind
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    let label = if info.is_empty() {
        String::new()
    } else {
        format!("<div class=\"fence-info\">{}</div>", escape_html(info))
    };
    format!("<div class=\"fence fence-{class}\">{label}<pre><code>")
}

/// Whether the text event at `i` is a whole line of a paragraph: after
/// its start or a line break, before its end or a line break.
fn is_own_line(events: &[Event<'_>], i: usize) -> bool {
    let before = i
        .checked_sub(1)
        .and_then(|j| events.get(j))
        .is_some_and(|e| {
            matches!(
                e,
                Event::Start(Tag::Paragraph) | Event::SoftBreak | Event::HardBreak
            )
        });
    let after = events.get(i + 1).is_some_and(|e| {
        matches!(
            e,
            Event::End(pulldown_cmark::TagEnd::Paragraph) | Event::SoftBreak | Event::HardBreak
        )
    });
    before && after
}

/// The elapsed milliseconds of a placeholder line `executing (3s)` or
/// `executing (3s; page disconnected, …)`; `None` for any other text.
pub fn executing_ms(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("executing (")?.strip_suffix(')')?;
    let digits_end = rest.find(|c: char| !c.is_ascii_digit())?;
    let (digits, after) = rest.split_at(digits_end);
    if digits.is_empty() {
        return None;
    }
    let after = after.strip_prefix('s')?;
    if !(after.is_empty() || after.starts_with(';')) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(1000)
}

/// A link's or image's URL as the dashboard may use it: `http`, `https`
/// and `mailto` as written, an in-page `#anchor`, a relative path through
/// [`local_url`]; anything else (`javascript:`, `data:`, `file:`) `#`.
pub fn safe_url(dest: &str) -> String {
    let trimmed = dest.trim();
    if trimmed.starts_with('#') {
        return trimmed.to_owned();
    }
    match scheme_of(trimmed) {
        Some(scheme) => {
            let scheme = scheme.to_ascii_lowercase();
            if matches!(scheme.as_str(), "http" | "https" | "mailto") {
                trimmed.to_owned()
            } else {
                "#".to_owned()
            }
        }
        // `//host/x` is another site, `/x` a path on the hub: as written.
        None if trimmed.starts_with('/') => trimmed.to_owned(),
        None => local_url(trimmed),
    }
}

/// A URL's scheme, if it has one (RFC 3986: a letter, then letters, digits,
/// `+`, `-`, `.`, before the first `:` that comes before any `/?#`).
fn scheme_of(url: &str) -> Option<&str> {
    let colon = url.find(':')?;
    let scheme = &url[..colon];
    let mut chars = scheme.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    // Browsers strip tabs and newlines inside a URL, so `java\nscript:`
    // is `javascript:`: such a "scheme" is refused as well.
    let sneaky = scheme.contains(['\t', '\n', '\r']);
    if sneaky {
        return Some(scheme);
    }
    (first_ok && rest_ok).then_some(scheme)
}

/// A path relative to the log (`archive/shop-3f2a-1.png`, as the log in
/// `debug/` links it) as the dashboard's URL for it, under
/// [`ARCHIVE_ROUTE`], which serves `debug/archive/` inertly.
pub fn local_url(relative: &str) -> String {
    let path = relative.trim_start_matches("./");
    format!("{ARCHIVE_ROUTE}{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_is_escaped() {
        let html = log_to_html(
            "<script>alert(1)</script>\n\nprose <img src=x onerror=alert(2)> here\n\n<div>\nblock\n</div>\n",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<div>"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(
            html.contains("&lt;img src=x onerror=alert(2)&gt;"),
            "{html}"
        );
    }

    #[test]
    fn fences_keep_their_text_and_show_their_info() {
        let html = log_to_html(
            "> **shop-3f2a** to agent at 10:00:00 (3ms)\n````Text console.log\n<b>hi</b> ```\n````\n",
        );
        assert!(
            html.contains("<div class=\"fence fence-text\"><div class=\"fence-info\">Text console.log</div><pre><code>&lt;b&gt;hi&lt;/b&gt; ```\n</code></pre></div>"),
            "{html}"
        );
        assert!(html.contains("<strong>shop-3f2a</strong>"), "{html}");
        let html = log_to_html("```\nplain\n```\n");
        assert!(
            html.contains("<div class=\"fence fence-\"><pre><code>plain"),
            "{html}"
        );
        // An info string cannot break out of its attribute or label.
        let html = log_to_html("```Error\" onclick=\"x <i>\nboom\n```\n");
        assert!(html.contains("fence-error\""), "{html}");
        assert!(!html.contains("onclick=\"x"), "{html}");
        assert!(html.contains("&lt;i&gt;"), "{html}");
    }

    #[test]
    fn the_running_placeholder_is_marked() {
        let html = log_to_html(
            "> **shop-3f2a** to agent at 10:00:00\nexecuting (3s; page disconnected, waiting for it to come back)\n",
        );
        assert!(
            html.contains("<br />\n<span class=\"executing\" data-elapsed-ms=\"3000\">executing (3s; page disconnected, waiting for it to come back)</span>"),
            "{html}"
        );
        let html = log_to_html("```Text console.log\nx\n```\nexecuting (12s)\n");
        assert!(
            html.contains("<span class=\"executing\" data-elapsed-ms=\"12000\">"),
            "{html}"
        );
    }

    #[test]
    fn a_placeholder_shaped_text_elsewhere_is_text() {
        for md in [
            "```Text console.log\nexecuting (0s)\n```\n",
            "they said executing (0s)\n",
            "executing (0s) and more\n",
            "`executing (0s)`\n",
        ] {
            let html = log_to_html(md);
            assert!(!html.contains("class=\"executing\""), "{md}: {html}");
        }
    }

    #[test]
    fn placeholder_lines() {
        assert_eq!(executing_ms("executing (0s)"), Some(0));
        assert_eq!(executing_ms("executing (65s)"), Some(65_000));
        assert_eq!(
            executing_ms("executing (6s; this line was deleted)"),
            Some(6000)
        );
        for not in [
            "executing ()",
            "executing (s)",
            "executing (3)",
            "executing (3ms)",
            "executing (3s",
            "executing (3sx)",
            "executing (99999999999999999999s)",
        ] {
            assert_eq!(executing_ms(not), None, "{not}");
        }
    }

    #[test]
    fn a_tail_starts_outside_fences() {
        let text = "# 👾 s\n\n> **agent** to s at 10:00:00\n```js\n1\n```\n\n> **s** to agent at 10:00:00 (1ms)\n```Text console.log\nline 1\n<b>line 2</b>\n```\n\ndone\n";
        assert_eq!(tail_start(text, 100), 0);
        assert_eq!(log_tail_to_html(text, None), log_to_html(text));
        // The last 4 lines start inside the console fence: the cut moves
        // past it, to the blank line after it.
        let cut = tail_start(text, 4);
        assert_eq!(&text[cut..], "\ndone\n");
        let html = log_tail_to_html(text, Some(4));
        assert!(
            html.starts_with("<p class=\"earlier\">12 earlier lines"),
            "{html}"
        );
        assert!(html.ends_with("<p>done</p>\n"), "{html}");
        assert!(!html.contains("line 2"), "{html}");
        // A cut on a fence's opener keeps the fence whole.
        let cut = tail_start(text, 6);
        assert!(
            text[cut..].starts_with("```Text console.log\n"),
            "{}",
            &text[cut..]
        );
        let html = log_tail_to_html(text, Some(6));
        assert!(
            html.contains("<code>line 1\n&lt;b&gt;line 2&lt;/b&gt;\n</code>"),
            "{html}"
        );
        assert_eq!(tail_start(text, 0), text.len());
    }

    #[test]
    fn urls_that_could_run_code_are_dropped() {
        for bad in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            " javascript:alert(1)",
            "java\nscript:alert(1)",
            "data:text/html,<script>",
            "vbscript:x",
            "file:///etc/passwd",
        ] {
            assert_eq!(safe_url(bad), "#", "{bad:?}");
        }
        for good in [
            "http://127.0.0.1:8302/",
            "https://example.com/a?b#c",
            "mailto:a@b.c",
            "#top",
            "/index.html",
        ] {
            assert_eq!(safe_url(good), good);
        }
        let html = log_to_html("[x](javascript:alert(1)) ![y](javascript:alert(2))\n");
        assert!(!html.contains("javascript"), "{html}");
    }

    #[test]
    fn relative_links_and_images_go_through_the_archive_route() {
        assert_eq!(
            safe_url("archive/shop-3f2a-1.png"),
            "/_daebug/files/archive/shop-3f2a-1.png"
        );
        let html = log_to_html(
            "![canvas 300×150](archive/shop-3f2a-2.png)\n[whole reply](./archive/shop-3f2a-3.txt)\n",
        );
        assert!(
            html.contains(
                "<img src=\"/_daebug/files/archive/shop-3f2a-2.png\" alt=\"canvas 300×150\" />"
            ),
            "{html}"
        );
        assert!(
            html.contains("<a href=\"/_daebug/files/archive/shop-3f2a-3.txt\">"),
            "{html}"
        );
    }
}
