//! `GET /daebug-tests.json?spec=GLOB`: the root's files a glob matches, as
//! root-relative paths, for `daebug.test(spec)` in a page or worker
//! (docs/log-format.md, "Tests in the realm"). A browser cannot list a dev server's files; the hub's
//! root is the project the dev server serves (README, "Run it"), so its
//! paths are the dev server's URL paths too.
//!
//! Never listed: what the hub never serves (dotfiles, `debug.md`,
//! `debug/`) and `node_modules/`. Answered with CORS for the origins the
//! guard admits, like the adapter files; behind the token when there is
//! one (the runner passes the one its loader was given).

use std::path::Path;

use axum::extract::{Query, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use globset::{Glob, GlobMatcher};
use serde::Deserialize;

use super::guard::Cors;
use super::state::HttpState;

/// The listing's path.
pub const PATH: &str = "/daebug-tests.json";
/// At most this many paths in one answer: a spec that matches more is
/// surely not a set of test files.
const MAX_FILES: usize = 1000;

#[derive(Debug, Deserialize)]
pub struct Spec {
    spec: String,
}

/// The listing route.
pub fn routes() -> Router<HttpState> {
    Router::new().route(PATH, get(list))
}

async fn list(
    State(state): State<HttpState>,
    headers: HeaderMap,
    Query(Spec { spec }): Query<Spec>,
) -> Response {
    let origin = match state.guard.cors_origin(&headers) {
        Cors::Refuse(origin) => return state.guard.refuse_origin(&origin),
        Cors::Allow(origin) => Some(origin),
        Cors::NotNeeded => None,
    };
    let root = state.root.clone();
    let found = tokio::task::spawn_blocking(move || matching(&root, &spec)).await;
    let mut res = match found {
        Ok(Ok(paths)) => {
            let body = serde_json::to_string(&paths).unwrap_or_else(|_| "[]".into());
            let mut res = body.into_response();
            res.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static("application/json; charset=utf-8"),
            );
            res
        }
        Ok(Err(e)) => (StatusCode::BAD_REQUEST, e.to_string()).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    res.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Some(origin) = origin {
        res.headers_mut()
            .insert(axum::http::header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    }
    res
}

/// The spec is not a glob.
#[derive(Debug, thiserror::Error)]
#[error("daebug: {0}")]
pub struct BadSpec(#[from] globset::Error);

/// The root-relative paths (with `/`) under `root` that `spec` matches,
/// sorted; a leading `./` or `/` in the spec is taken as the root.
pub fn matching(root: &Path, spec: &str) -> Result<Vec<String>, BadSpec> {
    let spec = spec.trim_start_matches("./").trim_start_matches('/');
    let glob: GlobMatcher = Glob::new(spec)?.compile_matcher();
    let mut out = Vec::new();
    let walk = walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || listed(e.path(), root));
    for entry in walk.flatten() {
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if glob.is_match(&rel) {
            out.push(rel);
            if out.len() >= MAX_FILES {
                break;
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Whether a path under the root may be listed (see the module docs).
fn listed(path: &Path, root: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let mut parts = rel.components().map(|c| c.as_os_str().to_string_lossy());
    let first = parts.next().unwrap_or_default();
    if first == "debug" || first == "debug.md" {
        return false;
    }
    rel.components().all(|c| {
        let name = c.as_os_str().to_string_lossy();
        !name.starts_with('.') && name != "node_modules"
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_root_relative_paths_and_skip_what_is_never_served() {
        let dir = tempfile::tempdir().unwrap();
        for f in [
            "src/cart.test.js",
            "src/deep/a.test.ts",
            "src/cart.js",
            "debug/x.test.js",
            ".hidden/y.test.js",
            "node_modules/p/z.test.js",
            "top.test.js",
        ] {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        let got = matching(dir.path(), "src/**/*.test.{js,ts}").unwrap();
        assert_eq!(got, ["src/cart.test.js", "src/deep/a.test.ts"]);
        let all = matching(dir.path(), "./**/*.test.js").unwrap();
        assert_eq!(all, ["src/cart.test.js", "top.test.js"]);
        assert!(matching(dir.path(), "src/{a").is_err());
    }
}
