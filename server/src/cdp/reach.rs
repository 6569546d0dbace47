//! Pure: which documents and workers of the attached browser get the
//! adapter without a tag (docs/zero-edits.md, "Attach to a browser"), and
//! the script that puts it in a new document ahead of the page's first
//! line.
//!
//! The rule, the same in Rust (a worker, a tab's CSP) and in the page (a
//! new document, decided as it starts, before the bridge hears of it):
//!
//! - only `http:` and `https:` documents: `chrome://`, `devtools://`,
//!   extensions, `about:`, `data:` and `file:` are never touched;
//! - with no `--match`, a document of an origin the hub admits (loopback
//!   on any port, `--allow-origin`);
//! - with `--match`, a document whose URL starts with one of them, where
//!   `*` stands for any run of characters (`http://localhost:*/`); the
//!   origins they name are admitted too (`cmd/serve.rs`).

/// The origins the hub admits besides loopback, as `--allow-origin`
/// gives them: a page of another origin is left alone unless matched.
pub type Admit = Box<dyn Fn(&str) -> bool + Send + Sync>;

/// Which URLs get the adapter.
pub struct Reach {
    /// `--match` patterns (prefixes, `*` any run of characters).
    patterns: Vec<String>,
    /// With no pattern: whether the hub admits an origin.
    admit: Admit,
    /// `--allow-origin` entries, lowercased, for the page's own check.
    allowed: Vec<String>,
}

impl Reach {
    pub fn new(patterns: Vec<String>, allowed: Vec<String>, admit: Admit) -> Reach {
        let allowed = allowed
            .iter()
            .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase())
            .collect();
        Reach {
            patterns,
            admit,
            allowed,
        }
    }

    /// Whether a document (or a worker's script) at `url` gets the
    /// adapter; a `blob:` URL counts as its origin's.
    pub fn reaches(&self, url: &str) -> bool {
        let url = url.strip_prefix("blob:").unwrap_or(url);
        if origin_of(url).is_none() {
            return false;
        }
        if !self.patterns.is_empty() {
            return self.patterns.iter().any(|p| prefix_matches(p, url));
        }
        origin_of(url).is_some_and(|o| (self.admit)(&o))
    }

    /// The script every new document of an attached tab evaluates first
    /// (`Page.addScriptToEvaluateOnNewDocument`): the same rule, then the
    /// loader (`loader`: `daebug.js` as the hub serves it, its URL in).
    /// `Symbol.for("daebug.attach")` tells the loader it came this way
    /// (it waits for the document's own tag, if any, to name the realm).
    pub fn new_document_script(&self, loader: &str) -> String {
        let patterns: Vec<String> = self.patterns.iter().map(|p| js_regex(p)).collect();
        let patterns = serde_json::to_string(&patterns).unwrap_or_else(|_| "[]".into());
        let allowed = serde_json::to_string(&self.allowed).unwrap_or_else(|_| "[]".into());
        format!(
            "(() => {{\n\
             // daebug (docs/zero-edits.md, \"Attach to a browser\"): the hub's\n\
             // browser bridge adds the adapter to the documents it reaches.\n\
             try {{\n\
             const href = String(location.href);\n\
             if (!/^https?:\\/\\//i.test(href)) return;\n\
             const patterns = {patterns};\n\
             if (patterns.length) {{\n\
             if (!patterns.some((p) => new RegExp(p).test(href))) return;\n\
             }} else {{\n\
             const h = location.hostname.toLowerCase();\n\
             const loopback = h === \"localhost\" || h.endsWith(\".localhost\") || /^127\\.\\d+\\.\\d+\\.\\d+$/.test(h) || h === \"[::1]\";\n\
             if (!loopback && !{allowed}.includes(location.origin.toLowerCase())) return;\n\
             }}\n\
             globalThis[Symbol.for(\"daebug.attach\")] = true;\n\
             }} catch {{ return; }}\n\
             {loader}\n\
             }})();\n"
        )
    }
}

/// The origins `--match` patterns name in full (no `*` before the path):
/// admitted like `--allow-origin` ones, since matching a site is asking
/// for its pages to connect.
pub fn named_origins(patterns: &[String]) -> Vec<String> {
    patterns
        .iter()
        .filter_map(|p| origin_of(p))
        .filter(|o| !o.contains('*'))
        .collect()
}

/// `scheme://authority` of an `http:`/`https:` URL, lowercased.
fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    (!authority.is_empty()).then(|| format!("{scheme}://{}", authority.to_ascii_lowercase()))
}

/// Whether `url` starts with `pattern`, `*` standing for any run of
/// characters (none included).
fn prefix_matches(pattern: &str, url: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = url.strip_prefix(first) else {
        return false;
    };
    for part in parts {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// The JavaScript regular expression of [`prefix_matches`].
fn js_regex(pattern: &str) -> String {
    let mut out = String::from("^");
    for c in pattern.chars() {
        match c {
            '*' => out.push_str("[^]*"),
            c if "\\^$.|?+()[]{}/".contains(c) => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loopback_only() -> Admit {
        Box::new(|o: &str| o.starts_with("http://127.0.0.1") || o.starts_with("http://localhost"))
    }

    #[test]
    fn without_match_the_admitted_origins_are_reached() {
        let r = Reach::new(vec![], vec![], loopback_only());
        assert!(r.reaches("http://127.0.0.1:5173/"));
        assert!(r.reaches("http://localhost:3000/a/b?c#d"));
        assert!(r.reaches("blob:http://localhost:3000/0b6c-1"));
        assert!(!r.reaches("https://mail.example.com/"));
        for never in [
            "chrome://newtab/",
            "devtools://devtools/bundled/inspector.html",
            "chrome-extension://abc/popup.html",
            "about:blank",
            "data:text/html,hi",
            "file:///tmp/a.html",
            "",
        ] {
            assert!(!r.reaches(never), "{never}");
        }
    }

    #[test]
    fn match_is_a_prefix_with_stars() {
        let admit_all: Admit = Box::new(|_: &str| true);
        let r = Reach::new(
            vec![
                "http://localhost:5173/".into(),
                "https://*.example.com/app/".into(),
            ],
            vec![],
            admit_all,
        );
        assert!(r.reaches("http://localhost:5173/"));
        assert!(r.reaches("http://localhost:5173/src/w.js"));
        assert!(!r.reaches("http://localhost:5174/"));
        assert!(
            !r.reaches("http://127.0.0.1:5173/"),
            "matched, not admitted"
        );
        assert!(r.reaches("https://shop.example.com/app/cart"));
        assert!(!r.reaches("https://shop.example.com/admin/"));
        assert!(!r.reaches("chrome://localhost:5173/"));
        assert_eq!(
            js_regex("https://*.example.com/app/"),
            r"^https:\/\/[^]*\.example\.com\/app\/"
        );
        assert_eq!(
            named_origins(&[
                "http://LOCALHOST:5173/x".into(),
                "https://*.example.com/".into(),
                "chrome://x".into()
            ]),
            ["http://localhost:5173"]
        );
    }

    #[test]
    fn the_script_checks_first_then_loads() {
        let r = Reach::new(
            vec!["http://localhost:5173/".into()],
            vec![],
            loopback_only(),
        );
        let s = r.new_document_script("LOADER();");
        let guard = s.find("daebug.attach").expect("the mark");
        assert!(s.find("LOADER();").expect("the loader") > guard);
        assert!(s.contains(r#"["^http:\\/\\/localhost:5173\\/"]"#), "{s}");
    }
}
