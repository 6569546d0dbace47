//! The adapter files embedded in the binary: `/daebug.js`, its
//! wasm-bindgen glue and `.wasm` (the dashboard's are the
//! dashboard door's).
//!
//! They are compiled in so that a fresh `cargo run` serves a working hub
//! with no other build step and no files next to the binary. The adapter
//! files are loaded cross-origin (a dev server on `localhost:5173` imports
//! `http://127.0.0.1:8302/daebug.js`), so they answer CORS, but only for
//! origins the [`Guard`](super::guard::Guard) admits.

use std::sync::OnceLock;

use axum::body::Body;
use axum::extract::State;
use axum::http::header::{
    ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_MAX_AGE, ALLOW,
    CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH, VARY,
};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::guard::Cors;
use super::loader::{url_of, Loader, Served};
use super::service_worker::service_worker_loader;
use super::state::HttpState;

/// One embedded adapter file.
#[derive(Debug)]
pub struct AdapterFile {
    /// The URL path it is served at.
    pub path: &'static str,
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes, as compiled in.
    pub body: &'static [u8],
}

/// `Content-Type` of the adapter's JavaScript.
const JS: &str = "text/javascript; charset=utf-8";

/// Every adapter file, in route order.
pub const ADAPTER_FILES: &[AdapterFile] = &[
    AdapterFile {
        path: "/daebug.js",
        content_type: JS,
        body: include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../adapter-shim/daebug.js"
        )),
    },
    // A service worker's loader: `daebug.js` with the glue inside
    // (`super::service_worker`); made per request, as `daebug.js` is.
    AdapterFile {
        path: SERVICE_WORKER_LOADER,
        content_type: JS,
        body: include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../adapter-shim/daebug.js"
        )),
    },
    AdapterFile {
        path: "/daebug_adapter.js",
        content_type: JS,
        body: include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../www/adapter/daebug_adapter.js"
        )),
    },
    // Panels, `ask` and `pick` (docs/log-format.md, "Panels"): imported by the toolkit on
    // first use, so the adapter every page loads does not carry them.
    AdapterFile {
        path: "/daebug-panel.mjs",
        content_type: JS,
        body: include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../www/panel/daebug-panel.mjs"
        )),
    },
    AdapterFile {
        path: "/daebug_adapter_bg.wasm",
        content_type: "application/wasm",
        body: include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../www/adapter/daebug_adapter_bg.wasm"
        )),
    },
    // Actions (docs/actions.md): imported by the loader on a block's first
    // action, so a page that never acts never loads them.
    AdapterFile {
        path: "/daebug-act.mjs",
        content_type: JS,
        body: include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../adapter-shim/daebug-act.mjs"
        )),
    },
    // The test runner and node:test / node:assert for pages and workers
    // (docs/log-format.md, "Tests in the realm"), imported by `daebug.test` on first use.
    AdapterFile {
        path: "/daebug-test.mjs",
        content_type: JS,
        body: include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../adapter-shim/daebug-test.mjs"
        )),
    },
    AdapterFile {
        path: "/daebug-test-report.mjs",
        content_type: JS,
        body: include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../adapter-shim/daebug-test-report.mjs"
        )),
    },
    AdapterFile {
        path: "/daebug-assert.mjs",
        content_type: JS,
        body: include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../adapter-shim/daebug-assert.mjs"
        )),
    },
    AdapterFile {
        path: "/daebug-assert-strict.mjs",
        content_type: JS,
        body: include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../adapter-shim/daebug-assert-strict.mjs"
        )),
    },
];

/// The path of a service worker's loader (docs/zero-edits.md).
pub const SERVICE_WORKER_LOADER: &str = "/daebug-sw.js";

/// Chrome's Private Network Access preflight header, and its answer: a page
/// the user admitted with `--allow-origin` may live on a public address.
const REQUEST_PRIVATE_NETWORK: HeaderName =
    HeaderName::from_static("access-control-request-private-network");
/// See [`REQUEST_PRIVATE_NETWORK`].
const ALLOW_PRIVATE_NETWORK: HeaderName =
    HeaderName::from_static("access-control-allow-private-network");

/// The routes of every adapter file (GET, HEAD and CORS preflight). The
/// loader is assembled here, once, as the hub starts.
pub fn routes() -> Router<HttpState> {
    super::loader::assemble();
    ADAPTER_FILES
        .iter()
        .enumerate()
        .fold(Router::new(), |router, (index, file)| {
            router.route(
                file.path,
                get(
                    move |State(state): State<HttpState>,
                          uri: axum::http::Uri,
                          headers: HeaderMap| async move {
                        serve(&state, index, file, &headers, &uri)
                    },
                )
                .options(
                    move |State(state): State<HttpState>, headers: HeaderMap| async move {
                        preflight(&state, &headers)
                    },
                ),
            )
        })
}

/// The console, fetch and XMLHttpRequest hooks, written once for both
/// loaders (`daebug.js` and `daebug-node.mjs`): see [`with_hooks`].
const HOOKS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../adapter-shim/hooks.js"
));

/// The pictures' code (`daebug.image`, `daebug.snapshot`, `copy`), plain
/// JavaScript that `hooks()` hands to the adapter: spliced in after
/// [`HOOKS`], it stays out of the `.wasm`, whose size is budgeted.
const PICTURES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../adapter-shim/pictures.js"
));

/// How a value is written into the log (the walk and the layout), plain
/// JavaScript that `hooks()` hands to the adapter, out of the `.wasm` too.
const VALUES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../adapter-shim/values.js"
));

/// The person in the loop (`StreamedData`, `mount`, `ask`, `pick`), plain
/// JavaScript that `hooks()` hands to the adapter, out of the `.wasm` too.
const PERSON: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../adapter-shim/person.js"
));

/// The toolkit (the `daebug` object blocks see), plain JavaScript that
/// `hooks()` hands to the adapter, out of the `.wasm` too.
const TOOLKIT: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../adapter-shim/toolkit.js"
));

/// Watching without editing: components, probes, and the debugger's
/// logpoints, `monitor` and scopes; plain JavaScript the loaders add to
/// the toolkit, out of the `.wasm` too.
const COMPONENTS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../adapter-shim/components.js"
));
const PROBES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../adapter-shim/probes.js"
));
const DEBUGGER: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../adapter-shim/debugger.js"
));

/// Where a loader's source takes [`HOOKS`], [`VALUES`], [`PICTURES`],
/// [`TOOLKIT`], [`PERSON`], [`COMPONENTS`], [`PROBES`] and [`DEBUGGER`].
const HOOKS_MARKER: &str = "/* daebug:hooks */";

/// A loader's source (`adapter-shim/daebug.js` or `daebug-node.mjs`) with
/// the shared hooks, values, pictures, toolkit and person spliced in at its marker, so the
/// client still gets one file.
pub fn with_hooks(loader: &str) -> String {
    let shared = [
        HOOKS, VALUES, PICTURES, TOOLKIT, PERSON, COMPONENTS, PROBES, DEBUGGER,
    ]
    .map(str::trim_end)
    .join("\n\n");
    loader.replacen(HOOKS_MARKER, &shared, 1)
}

/// A file made for the request: the loader at its URL, or the service
/// worker's loader with its ETag.
enum Made {
    Loader(Served),
    Text(String, String),
}

/// GET/HEAD of an adapter file (axum drops the body for HEAD).
fn serve(
    state: &HttpState,
    index: usize,
    file: &AdapterFile,
    headers: &HeaderMap,
    uri: &axum::http::Uri,
) -> Response {
    let allow_origin = match state.guard.cors_origin(headers) {
        Cors::Refuse(origin) => return state.guard.refuse_origin(&origin),
        Cors::Allow(origin) => Some(origin),
        Cors::NotNeeded => None,
    };
    // The loader differs by the URL it was asked by (`loader.rs`); the
    // service worker's is made from it with the adapter's glue inside.
    let made = match file.path {
        "/daebug.js" => Some(Made::Loader(
            Loader::get().served(&url_of(state, headers, uri)),
        )),
        SERVICE_WORKER_LOADER => {
            let glue = ADAPTER_FILES
                .iter()
                .find(|f| f.path == "/daebug_adapter.js")
                .map_or("", |f| std::str::from_utf8(f.body).unwrap_or_default());
            let loader = Loader::get().at(&url_of(state, headers, uri));
            match service_worker_loader(&loader, glue) {
                Some(text) => {
                    let etag = format!("\"{:016x}\"", fnv1a(text.as_bytes()));
                    Some(Made::Text(text, etag))
                }
                None => {
                    tracing::warn!(
                        "daebug: the adapter's glue has a shape daebug-sw.js cannot take"
                    );
                    return StatusCode::INTERNAL_SERVER_ERROR.into_response();
                }
            }
        }
        _ => None,
    };
    let etag = match &made {
        Some(Made::Loader(served)) => served.etag.as_str(),
        Some(Made::Text(_, etag)) => etag.as_str(),
        None => etag(index),
    }
    .to_owned();
    let fresh = headers
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|tag| tag.trim() == etag || tag.trim() == "*")
        });
    let mut res = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else if let Some(made) = made {
        match made {
            Made::Loader(served) => Body::from(Loader::get().text(&served)).into_response(),
            Made::Text(text, _) => Body::from(text).into_response(),
        }
    } else {
        Body::from(file.body).into_response()
    };
    let out = res.headers_mut();
    out.insert(CONTENT_TYPE, HeaderValue::from_static(file.content_type));
    // The adapter changes whenever the hub is rebuilt: always revalidate.
    out.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        out.insert(ETAG, etag);
    }
    add_cors(out, allow_origin);
    res
}

/// The answer to a CORS preflight (`OPTIONS`).
fn preflight(state: &HttpState, headers: &HeaderMap) -> Response {
    let allow_origin = match state.guard.cors_origin(headers) {
        Cors::Refuse(origin) => return state.guard.refuse_origin(&origin),
        Cors::Allow(origin) => Some(origin),
        Cors::NotNeeded => None,
    };
    let asks_private_network =
        allow_origin.is_some() && headers.contains_key(REQUEST_PRIVATE_NETWORK);
    let mut res = StatusCode::NO_CONTENT.into_response();
    let out = res.headers_mut();
    let methods = HeaderValue::from_static("GET, HEAD, OPTIONS");
    out.insert(ALLOW, methods.clone());
    out.insert(ACCESS_CONTROL_ALLOW_METHODS, methods);
    out.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
    if asks_private_network {
        out.insert(ALLOW_PRIVATE_NETWORK, HeaderValue::from_static("true"));
    }
    add_cors(out, allow_origin);
    res
}

/// Echo an admitted origin; the answer depends on `Origin`, so caches must
/// key on it either way.
fn add_cors(headers: &mut HeaderMap, allow_origin: Option<HeaderValue>) {
    if let Some(origin) = allow_origin {
        headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    }
    headers.insert(VARY, HeaderValue::from_static("Origin"));
}

/// The ETag of `ADAPTER_FILES[index]`: a hash of its bytes, computed once
/// (the `.wasm` is large enough not to hash per request).
fn etag(index: usize) -> &'static str {
    static ETAGS: OnceLock<Vec<String>> = OnceLock::new();
    let etags = ETAGS.get_or_init(|| {
        ADAPTER_FILES
            .iter()
            .map(|file| format!("\"{:016x}\"", fnv1a(file.body)))
            .collect()
    });
    etags.get(index).map_or("", String::as_str)
}

/// Where 64-bit FNV-1a starts.
pub(super) const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// 64-bit FNV-1a: tiny, and plenty to tell two builds of a file apart.
fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_from(FNV_START, bytes)
}

/// FNV-1a carried on from `hash` over `bytes` (a text hashed in parts).
pub(super) fn fnv1a_from(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Escape text for an HTML text node or attribute value.
pub(crate) fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::test_util::{body_text, header, request, router_for};
    use axum::http::Method;

    #[test]
    fn the_adapter_is_embedded() {
        let wasm = ADAPTER_FILES
            .iter()
            .find(|f| f.path.ends_with(".wasm"))
            .expect("wasm file");
        assert!(wasm.body.starts_with(b"\0asm"), "a wasm module");
        assert!(ADAPTER_FILES.iter().all(|f| !f.body.is_empty()));
    }

    #[tokio::test]
    async fn adapter_files_are_served_with_their_types() {
        let (_dir, app) = router_for(&[]);
        for file in ADAPTER_FILES {
            let res = request(&app, Method::GET, file.path, &[]).await;
            assert_eq!(res.status(), StatusCode::OK, "{}", file.path);
            assert_eq!(header(&res, "content-type"), file.content_type);
            assert_eq!(header(&res, "cache-control"), "no-cache");
            assert!(header(&res, "etag").starts_with('"'));
            assert_eq!(header(&res, "access-control-allow-origin"), "");
            let body = axum::body::to_bytes(res.into_body(), usize::MAX)
                .await
                .expect("body");
            if file.path == SERVICE_WORKER_LOADER {
                let text = std::str::from_utf8(&body).expect("utf-8");
                assert!(
                    !text.contains("import(new URL(\"./daebug_adapter.js\""),
                    "{text}"
                );
                assert!(text.contains("Promise.resolve(daebugGlue)"), "{text}");
                assert!(text.contains("function __wbg_init("), "{text}");
            } else if file.path == "/daebug.js" {
                let text = std::str::from_utf8(&body).expect("utf-8");
                assert!(!text.contains("__DAEBUG_SELF__"), "{text}");
                assert!(!text.contains(HOOKS_MARKER), "{text}");
                assert!(text.contains("function hooks(self)"), "{text}");
                assert!(text.contains("function pictures()"), "{text}");
                assert!(text.contains("function values(fold)"), "{text}");
                assert!(
                    text.contains("function person(t, send, url, kind)"),
                    "{text}"
                );
                assert!(text.contains("function toolkit(kind, host)"), "{text}");
            } else {
                assert_eq!(&body[..], file.body, "{}", file.path);
            }
        }
        let res = request(&app, Method::GET, "/daebug.js", &[]).await;
        assert_eq!(
            header(&res, "content-type"),
            "text/javascript; charset=utf-8"
        );
        let res = request(&app, Method::GET, "/daebug_adapter_bg.wasm", &[]).await;
        assert_eq!(header(&res, "content-type"), "application/wasm");
    }

    #[tokio::test]
    async fn the_loader_knows_the_url_it_was_asked_by() {
        let (_dir, app) = router_for(&[]);
        let res = request(
            &app,
            Method::GET,
            "/daebug.js?name=checkout&dialogs=native",
            &[("host", "localhost:8302")],
        )
        .await;
        let text = body_text(res).await;
        assert!(
            text.contains(
                r#"const self = "http://localhost:8302/daebug.js?name=checkout&dialogs=native";"#
            ),
            "{text}"
        );
        // Another URL is another file to a cache.
        let a = request(&app, Method::GET, "/daebug.js?name=a", &[]).await;
        let b = request(&app, Method::GET, "/daebug.js?name=b", &[]).await;
        assert_ne!(header(&a, "etag"), header(&b, "etag"));
    }

    #[tokio::test]
    async fn etag_revalidates() {
        let (_dir, app) = router_for(&[]);
        let res = request(&app, Method::GET, "/daebug_adapter_bg.wasm", &[]).await;
        let etag = header(&res, "etag");
        let res = request(
            &app,
            Method::GET,
            "/daebug_adapter_bg.wasm",
            &[("if-none-match", &etag)],
        )
        .await;
        assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(body_text(res).await, "");
    }

    #[tokio::test]
    async fn head_has_headers_and_no_body() {
        let (_dir, app) = router_for(&[]);
        let res = request(&app, Method::HEAD, "/daebug.js", &[]).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(header(&res, "content-type"), JS);
        let served = request(&app, Method::GET, "/daebug.js", &[]).await;
        assert_eq!(
            header(&res, "content-length"),
            body_text(served).await.len().to_string()
        );
        assert_eq!(body_text(res).await, "");
    }

    #[tokio::test]
    async fn loopback_origin_is_echoed() {
        let (_dir, app) = router_for(&[]);
        let res = request(
            &app,
            Method::GET,
            "/daebug.js",
            &[("origin", "http://localhost:5173")],
        )
        .await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(
            header(&res, "access-control-allow-origin"),
            "http://localhost:5173"
        );
        assert_eq!(header(&res, "vary"), "Origin");
    }

    #[tokio::test]
    async fn foreign_origin_is_refused_with_the_flag_to_admit_it() {
        let (_dir, app) = router_for(&[]);
        let res = request(
            &app,
            Method::GET,
            "/daebug_adapter.js",
            &[("origin", "https://evil.example")],
        )
        .await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
        assert_eq!(header(&res, "access-control-allow-origin"), "");
        let body = body_text(res).await;
        assert!(body.contains("https://evil.example"), "{body}");
        assert!(body.contains("--allow-origin"), "{body}");
    }

    #[tokio::test]
    async fn allow_origin_entry_is_admitted() {
        let (_dir, app) = router_for(&["https://app.example.com/"]);
        let res = request(
            &app,
            Method::GET,
            "/daebug.js",
            &[("origin", "https://app.example.com")],
        )
        .await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(
            header(&res, "access-control-allow-origin"),
            "https://app.example.com"
        );
    }

    #[tokio::test]
    async fn preflight() {
        let (_dir, app) = router_for(&["https://app.example.com"]);
        let res = request(
            &app,
            Method::OPTIONS,
            "/daebug_adapter_bg.wasm",
            &[
                ("origin", "http://127.0.0.1:9000"),
                ("access-control-request-method", "GET"),
            ],
        )
        .await;
        assert_eq!(res.status(), StatusCode::NO_CONTENT);
        assert_eq!(
            header(&res, "access-control-allow-origin"),
            "http://127.0.0.1:9000"
        );
        assert_eq!(
            header(&res, "access-control-allow-methods"),
            "GET, HEAD, OPTIONS"
        );
        assert_eq!(header(&res, "access-control-allow-private-network"), "");

        let res = request(
            &app,
            Method::OPTIONS,
            "/daebug.js",
            &[
                ("origin", "https://app.example.com"),
                ("access-control-request-method", "GET"),
                ("access-control-request-private-network", "true"),
            ],
        )
        .await;
        assert_eq!(res.status(), StatusCode::NO_CONTENT);
        assert_eq!(header(&res, "access-control-allow-private-network"), "true");

        let res = request(
            &app,
            Method::OPTIONS,
            "/daebug.js",
            &[("origin", "https://evil.example")],
        )
        .await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
    }

    #[tokio::test]
    async fn other_methods_are_not_allowed() {
        let (_dir, app) = router_for(&[]);
        let res = request(&app, Method::POST, "/daebug.js", &[]).await;
        assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
    }

    #[test]
    fn escape() {
        assert_eq!(
            escape_html(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
