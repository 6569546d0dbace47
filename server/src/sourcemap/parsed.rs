//! A script's source map, found and parsed without IO: the reference in
//! the script (`//# sourceMappingURL=`), where it points (inline `data:`
//! or a same-origin URL), and the map itself as a compact table for
//! lookups. Parsing is `oxc_sourcemap`'s.

use base64_simd::STANDARD;

use super::url;

/// Why a script's frames stay as they are.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MapError {
    #[error("the script has no sourceMappingURL")]
    NoReference,
    #[error("the map is on another origin ({0})")]
    OtherOrigin(String),
    #[error("the map's URL cannot be resolved ({0})")]
    BadUrl(String),
    #[error("the inline map is not base64 JSON")]
    BadInline,
    #[error("the map does not parse: {0}")]
    BadMap(String),
}

/// The last `sourceMappingURL` comment of a script (a bundler may have
/// concatenated scripts with maps of their own: the last one is the file's).
pub fn map_reference(script: &str) -> Option<&str> {
    let mut found = None;
    for marker in ["//# sourceMappingURL=", "//@ sourceMappingURL="] {
        if let Some(at) = script.rfind(marker) {
            if found.is_none_or(|(f, _)| at > f) {
                found = Some((at, at + marker.len()));
            }
        }
    }
    let (_, start) = found?;
    let rest = &script[start..];
    let reference = rest[..rest.find(char::is_whitespace).unwrap_or(rest.len())].trim();
    (!reference.is_empty()).then_some(reference)
}

/// Where a script's map is.
#[derive(Debug, PartialEq, Eq)]
pub enum MapAt {
    /// In the script itself: the JSON, decoded.
    Inline(String),
    /// A URL, on the script's origin.
    Url(String),
}

/// Where `reference` (found in the script at `script_url`) points. A map
/// on another origin is not fetched: the hub only reads what the page's
/// own server serves.
pub fn locate(script_url: &str, reference: &str) -> Result<MapAt, MapError> {
    if let Some(data) = reference.strip_prefix("data:") {
        let (meta, payload) = data.split_once(',').ok_or(MapError::BadInline)?;
        if !meta.ends_with(";base64") {
            let text = percent_encoding::percent_decode_str(payload).decode_utf8();
            return text
                .map(|t| MapAt::Inline(t.into_owned()))
                .map_err(|_| MapError::BadInline);
        }
        let bytes = STANDARD
            .decode_to_vec(payload.as_bytes())
            .map_err(|_| MapError::BadInline)?;
        return String::from_utf8(bytes)
            .map(MapAt::Inline)
            .map_err(|_| MapError::BadInline);
    }
    let map_url =
        url::resolve(script_url, reference).ok_or_else(|| MapError::BadUrl(reference.into()))?;
    if url::origin(&map_url) != url::origin(script_url) {
        return Err(MapError::OtherOrigin(map_url));
    }
    Ok(MapAt::Url(map_url))
}

/// One mapping: a generated position and the original it came from (all
/// 0-based, as source maps count).
#[derive(Debug, Clone, Copy)]
struct Segment {
    line: u32,
    column: u32,
    source: u32,
    original_line: u32,
    original_column: u32,
}

/// A parsed map, as the cache keeps it: the mappings that name a source,
/// sorted by generated position, and the sources as the log shows them.
#[derive(Debug)]
pub struct ParsedMap {
    segments: Vec<Segment>,
    sources: Vec<String>,
}

impl ParsedMap {
    /// Parses `json`, the map of a script whose map is at `map_url` (the
    /// script's own URL for an inline map): sources are resolved against
    /// it, `sourceRoot` applied.
    pub fn parse(json: &str, map_url: &str) -> Result<ParsedMap, MapError> {
        let map = oxc_sourcemap::SourceMap::from_json_string(json)
            .map_err(|e| MapError::BadMap(e.to_string()))?;
        let root = map.get_source_root().unwrap_or("");
        let sources = map
            .get_sources()
            .map(|s| shown_source(root, s, map_url))
            .collect();
        let mut segments: Vec<Segment> = map
            .get_tokens()
            .filter_map(|t| {
                Some(Segment {
                    line: t.get_dst_line(),
                    column: t.get_dst_col(),
                    source: t.get_source_id()?,
                    original_line: t.get_src_line(),
                    original_column: t.get_src_col(),
                })
            })
            .collect();
        // Maps list mappings in order; a sort costs little if one does not.
        segments.sort_by_key(|s| (s.line, s.column));
        Ok(ParsedMap { segments, sources })
    }

    /// The original of a 1-based generated position, as V8 reports
    /// frames: the last mapping at or before it on the same line.
    pub fn lookup(&self, line: u32, column: u32) -> Option<super::frames::Original<'_>> {
        let (line, column) = (line.checked_sub(1)?, column.checked_sub(1)?);
        let after = self
            .segments
            .partition_point(|s| (s.line, s.column) <= (line, column));
        let s = self.segments[..after].last().filter(|s| s.line == line)?;
        Some(super::frames::Original {
            source: self.sources.get(s.source as usize)?,
            line: s.original_line + 1,
            column: s.original_column + 1,
        })
    }

    /// Bytes held, for the cache's budget.
    pub fn weight(&self) -> usize {
        std::mem::size_of::<Segment>() * self.segments.len()
            + self.sources.iter().map(|s| s.len() + 24).sum::<usize>()
            + 64
    }
}

/// A source as the log names it: `sourceRoot` + the entry, resolved
/// against the map's URL; on the map's origin, the path without its
/// leading `/` (Vite's `/src/stats.ts` → `src/stats.ts`); elsewhere (or
/// `webpack://…`) the entry as written.
fn shown_source(root: &str, source: &str, map_url: &str) -> String {
    let joined = match root.is_empty() {
        true => source.to_string(),
        false => format!("{}/{}", root.trim_end_matches('/'), source),
    };
    let Some(resolved) = url::resolve(map_url, &joined) else {
        return joined;
    };
    match url::origin(&resolved) {
        Some(origin) if Some(origin) == url::origin(map_url) => {
            let path = &resolved[origin.len()..];
            let path = path.split(['?', '#']).next().unwrap_or(path);
            path.trim_start_matches('/').to_string()
        }
        _ => resolved,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// esbuild 0.24's map of `src/stats.ts` (the e2e fixture).
    const STATS_MAP: &str =
        include_str!("../../../tests/tests/fixtures/sourcemap/dist/stats.js.map");
    const INLINE_JS: &str = include_str!("../../../tests/tests/fixtures/sourcemap/dist/inline.js");

    #[test]
    fn the_last_reference_counts() {
        let cases = [
            ("f()\n//# sourceMappingURL=app.js.map\n", Some("app.js.map")),
            (
                "//# sourceMappingURL=a.map\nmore\n//# sourceMappingURL=b.map",
                Some("b.map"),
            ),
            ("//@ sourceMappingURL=old.map", Some("old.map")),
            ("f()", None),
            ("//# sourceMappingURL=", None),
        ];
        for (script, want) in cases {
            assert_eq!(map_reference(script), want, "{script}");
        }
    }

    #[test]
    fn references_are_located_on_the_scripts_origin() {
        let script = "http://h:1/dist/app.js";
        assert_eq!(
            locate(script, "app.js.map"),
            Ok(MapAt::Url("http://h:1/dist/app.js.map".into()))
        );
        assert_eq!(
            locate(script, "http://evil:2/app.js.map"),
            Err(MapError::OtherOrigin("http://evil:2/app.js.map".into()))
        );
        assert_eq!(
            locate(script, "data:application/json;base64,eyJhIjoxfQ=="),
            Ok(MapAt::Inline("{\"a\":1}".into()))
        );
        assert_eq!(
            locate(script, "data:application/json;charset=utf-8,%7B%7D"),
            Ok(MapAt::Inline("{}".into()))
        );
        assert_eq!(
            locate(script, "data:application/json;base64,@@"),
            Err(MapError::BadInline)
        );
    }

    #[test]
    fn esbuilds_map_gives_the_ts_lines() {
        let map = ParsedMap::parse(STATS_MAP, "http://h/dist/stats.js.map").unwrap();
        // `throw new Error(…)` is line 11 of stats.js, line 22 of stats.ts;
        // V8 points at `new` (column 11 in both).
        let o = map.lookup(11, 11).unwrap();
        assert_eq!((o.source, o.line, o.column), ("src/stats.ts", 22, 11));
        // `function mean` (1:1) is line 10 of the TypeScript.
        assert_eq!(map.lookup(1, 1).unwrap().line, 10);
        assert!(map.lookup(400, 1).is_none());
        assert!(map.lookup(0, 0).is_none());
    }

    #[test]
    fn an_inline_map_resolves_against_the_script() {
        let Ok(MapAt::Inline(json)) =
            locate("http://h/dist/inline.js", map_reference(INLINE_JS).unwrap())
        else {
            panic!("inline map");
        };
        let map = ParsedMap::parse(&json, "http://h/dist/inline.js").unwrap();
        let o = map.lookup(11, 11).unwrap();
        assert_eq!((o.source, o.line), ("src/stats.ts", 22));
    }

    #[test]
    fn sources_are_shown_relative_to_the_origin() {
        let map = "http://h:1/dist/a.js.map";
        let cases = [
            ("", "../src/a.ts", "src/a.ts"),
            ("", "/src/a.ts", "src/a.ts"),
            ("", "a.ts?v=1", "dist/a.ts"),
            ("/app/", "src/a.ts", "app/src/a.ts"),
            ("", "webpack://app/./src/a.ts", "webpack://app/./src/a.ts"),
            ("", "http://other/a.ts", "http://other/a.ts"),
        ];
        for (root, source, want) in cases {
            assert_eq!(shown_source(root, source, map), want, "{root} {source}");
        }
    }

    #[test]
    fn bad_maps_are_errors() {
        assert!(matches!(
            ParsedMap::parse("{", "http://h/a.map"),
            Err(MapError::BadMap(_))
        ));
        assert!(ParsedMap::parse("not json", "http://h/a.map").is_err());
    }
}
