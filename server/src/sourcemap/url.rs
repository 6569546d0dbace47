//! The little of URL handling source maps need, without a URL crate:
//! origins, resolving a reference against a base, and splitting an
//! `http://` URL for a request. Only http(s) URLs of pages are handled;
//! anything else is `None`, and its frame stays as it is.

/// `http://host:port` of an http(s) URL (scheme and authority).
pub fn origin(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let authority = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    (authority > 0).then(|| &url[..url.len() - rest.len() + authority])
}

/// The URL without its fragment (a map's key in the cache; the query
/// stays: dev servers use it to name a rebuilt module).
pub fn without_fragment(url: &str) -> &str {
    url.split('#').next().unwrap_or(url)
}

/// `reference` resolved against the http(s) URL `base`, as a browser
/// resolves a link: absolute URLs as they are, `//host/…`, `/path`, and
/// relative paths with `.` and `..` segments.
pub fn resolve(base: &str, reference: &str) -> Option<String> {
    if reference.starts_with("http://") || reference.starts_with("https://") {
        return Some(normalize(reference));
    }
    let origin = origin(base)?;
    if let Some(rest) = reference.strip_prefix("//") {
        let scheme = &base[..base.find("//")?];
        return Some(normalize(&format!("{scheme}//{rest}")));
    }
    if reference.contains(':') && !reference.starts_with(['/', '.']) {
        // Another scheme (`webpack://`, `file:`): not ours to resolve.
        return None;
    }
    let base_path = &base[origin.len()..];
    let base_path = &base_path[..base_path.find(['?', '#']).unwrap_or(base_path.len())];
    let path = match reference.starts_with('/') {
        true => reference.to_string(),
        false => {
            let dir = &base_path[..base_path.rfind('/').map_or(0, |i| i + 1)];
            let dir = if dir.is_empty() { "/" } else { dir };
            format!("{dir}{reference}")
        }
    };
    Some(normalize(&format!("{origin}{path}")))
}

/// `.` and `..` segments of an absolute URL's path taken out.
fn normalize(url: &str) -> String {
    let Some(origin) = origin(url) else {
        return url.to_string();
    };
    let rest = &url[origin.len()..];
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    let (path, tail) = rest.split_at(end);
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *seg {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                out.pop();
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    format!("{origin}/{}{tail}", out.join("/"))
}

/// Host (with port) and path-and-query of an `http://` URL, for a request.
/// `https://` is `None`: the hub fetches without TLS (dev servers on
/// loopback speak plain HTTP).
pub fn http_parts(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("http://")?;
    let rest = without_fragment(rest);
    let slash = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(slash);
    let path = if path.is_empty() { "/" } else { path };
    (!authority.is_empty()).then_some((authority, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        assert_eq!(
            origin("http://127.0.0.1:5173/src/a.ts"),
            Some("http://127.0.0.1:5173")
        );
        assert_eq!(origin("https://h"), Some("https://h"));
        assert_eq!(origin("http://h?x"), Some("http://h"));
        assert_eq!(origin("file:///a.js"), None);
        assert_eq!(origin("http://"), None);
    }

    #[test]
    fn references_resolve_as_links_do() {
        let base = "http://h:1/dist/app.js?v=2#x";
        let cases = [
            ("app.js.map", Some("http://h:1/dist/app.js.map")),
            ("./app.js.map", Some("http://h:1/dist/app.js.map")),
            ("../src/stats.ts", Some("http://h:1/src/stats.ts")),
            ("../../../x.ts", Some("http://h:1/x.ts")),
            ("/src/stats.ts", Some("http://h:1/src/stats.ts")),
            ("//other/a.map", Some("http://other/a.map")),
            ("http://o/a/../b.map", Some("http://o/b.map")),
            ("webpack://app/src/a.ts", None),
        ];
        for (reference, want) in cases {
            assert_eq!(resolve(base, reference).as_deref(), want, "{reference}");
        }
        assert_eq!(
            resolve("http://h", "a.map").as_deref(),
            Some("http://h/a.map")
        );
    }

    #[test]
    fn request_parts() {
        assert_eq!(
            http_parts("http://h:1/a/b.js?t=1#f"),
            Some(("h:1", "/a/b.js?t=1"))
        );
        assert_eq!(http_parts("http://h"), Some(("h", "/")));
        assert_eq!(http_parts("https://h/a.js"), None);
    }
}
