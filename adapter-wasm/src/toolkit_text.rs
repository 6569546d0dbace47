//! The toolkit's pure parts (`daebug.waitFor`, `daebug.module`): the
//! messages it gives and which loaded URL stands for a module path. The
//! browser side (`toolkit.rs`) gathers the strings and acts.

/// `waitFor`'s timeout when the block gives none.
pub const DEFAULT_WAIT_MS: u64 = 5000;

/// How much of a function's source a `waitFor` error shows.
const SOURCE_CHARS: usize = 60;

/// A function's source on one line (whitespace runs become one space),
/// cut to [`SOURCE_CHARS`] characters with `…`, so an error names the
/// function without quoting a page of code.
pub fn brief_source(source: &str) -> String {
    let one_line = source.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(SOURCE_CHARS) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

/// The error of a `waitFor` that timed out. `what` is the selector as a
/// JSON string, or the function's [`brief_source`].
pub fn wait_timed_out(what: &str, selector: bool, timeout_ms: u64) -> String {
    let missing = match selector {
        true => "no element matched",
        false => "no truthy value",
    };
    format!("waitFor({what}): {missing} within {timeout_ms} ms")
}

/// A path `import` would look up in an import map rather than resolve
/// against the page: not `/…`, `./…`, `../…` or a URL with a scheme.
pub fn is_bare(path: &str) -> bool {
    let relative = path.starts_with('/') || path.starts_with("./") || path.starts_with("../");
    let scheme = path
        .find(':')
        .is_some_and(|i| i > 0 && !path[..i].contains('/'));
    !(relative || scheme)
}

/// The URL a page loaded for the module at `resolved` (an absolute URL):
/// the first of `loaded` (newest first) that is the same file, with any
/// query a dev server added (`/src/store.js?t=…`). When `resolved` has a
/// query of its own, only that exact URL counts.
pub fn loaded_as<'a>(resolved: &str, loaded: &'a [String]) -> Option<&'a str> {
    fn fragmentless(u: &str) -> &str {
        u.split('#').next().unwrap_or(u)
    }
    let resolved = fragmentless(resolved);
    let exact = resolved.contains('?');
    loaded
        .iter()
        .map(|u| fragmentless(u))
        .find(|u| match exact {
            true => *u == resolved,
            false => u.split('?').next() == Some(resolved),
        })
}

/// The warning a reply gets when `daebug.module(path)` found no module the
/// page loaded and imported a fresh copy.
pub fn fresh_copy(path: &str) -> String {
    // Not `{:?}`: its escaping brings Unicode tables into the adapter.
    format!(
        "daebug.module(\"{path}\"): the page has not loaded it; this is a fresh copy, not the page's instance"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_shown_on_one_line_and_cut() {
        assert_eq!(brief_source("() =>\n    app.ready"), "() => app.ready");
        let long = format!("() => {}", "x".repeat(100));
        let shown = brief_source(&long);
        assert_eq!(shown.chars().count(), SOURCE_CHARS + 1);
        assert!(shown.ends_with('…'));
        // Cut on a character, not a byte.
        let wide = "é".repeat(70);
        assert_eq!(brief_source(&wide), format!("{}…", "é".repeat(60)));
    }

    #[test]
    fn timeouts_name_what_was_awaited() {
        assert_eq!(
            wait_timed_out("\"#save\"", true, 5000),
            "waitFor(\"#save\"): no element matched within 5000 ms"
        );
        assert_eq!(
            wait_timed_out("() => app.ready", false, 300),
            "waitFor(() => app.ready): no truthy value within 300 ms"
        );
    }

    #[test]
    fn bare_names_are_told_from_paths() {
        for bare in ["vue", "@scope/pkg", "lodash/fp.js"] {
            assert!(is_bare(bare), "{bare}");
        }
        for path in ["/src/a.js", "./a.js", "../a.js", "http://h/a.js", "blob:x"] {
            assert!(!is_bare(path), "{path}");
        }
    }

    #[test]
    fn the_newest_loaded_url_of_the_same_file_is_found() {
        let loaded: Vec<String> = [
            "http://h/src/store.js?t=2",
            "http://h/src/store.jsx",
            "http://h/src/store.js?t=1",
            "http://h/src/store.js",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            loaded_as("http://h/src/store.js", &loaded),
            Some("http://h/src/store.js?t=2")
        );
        assert_eq!(
            loaded_as("http://h/src/store.js?t=1", &loaded),
            Some("http://h/src/store.js?t=1")
        );
        assert_eq!(loaded_as("http://h/src/other.js", &loaded), None);
        assert_eq!(loaded_as("http://h/src/store.js?t=9", &loaded), None);
        let hashed = ["http://h/m.js#x".to_string()];
        assert_eq!(loaded_as("http://h/m.js", &hashed), Some("http://h/m.js"));
    }

    #[test]
    fn the_fresh_copy_warning_names_the_path() {
        assert_eq!(
            fresh_copy("/src/store.js"),
            "daebug.module(\"/src/store.js\"): the page has not loaded it; this is a fresh copy, not the page's instance"
        );
    }
}
