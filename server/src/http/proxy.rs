//! `--proxy URL`: the hub in front of an app's own dev server (Vite,
//! Next, a static server), so no file of the app is edited
//! (docs/proxy.md).
//!
//! The hub keeps its own paths ([`hub_keeps`]); every other request, of
//! any method, goes to the upstream as it came, body streamed both ways.
//! Only two kinds of answer are buffered (up to [`HTML_CAP`]): HTML
//! answering a document request (a navigation, an iframe), to add the
//! adapter's tag as the hub's own pages get it (`inject.rs`), and
//! JavaScript answering a worker's request, to append the loader's line
//! as the hub's own worker scripts get it. A WebSocket upgrade (Vite's
//! HMR, Next's) is passed to the upstream and, once it answers 101, the
//! two connections are joined byte for byte: subprotocols, extensions and
//! close codes are theirs.
//!
//! Upstream requests carry `Host: <upstream host:port>` (dev servers
//! refuse Hosts they do not know: Vite's `server.allowedHosts`),
//! `X-Forwarded-Host`/`-Proto` naming the hub and `Via: 1.1 daebug` (a
//! request that comes back with it is a loop); a `Location` naming the
//! upstream comes back naming the hub. Each request has a connection of
//! its own (loopback connections are cheap, and no pool can hand a
//! request a connection the upstream is closing).

use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use axum::http::{Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::Response;
use futures_util::{Stream, StreamExt};
use hyper_util::rt::TokioIo;

use super::assets::ADAPTER_FILES;
use super::files::{adapter_query, injected_tag};
use super::guard::plain_text;
use super::inject::{inject_adapter, HubScriptAt, Injection, WorkerScript};
use super::state::HttpState;

/// The largest page (or worker script) buffered to add the tag; a larger
/// one goes through untouched, with a line in the hub's output.
pub const HTML_CAP: usize = 16 * 1024 * 1024;

/// How long the upstream has to accept a connection.
const CONNECT_WITHIN: Duration = Duration::from_secs(10);

/// The app's server the hub stands in front of: a plain `http://` origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstream {
    /// `http://host:port`, as requests' `Location` may name it.
    pub origin: String,
    /// `host:port`: what is connected to and sent as `Host`.
    pub authority: String,
}

impl Upstream {
    /// `http://localhost:5173` (a path of `/` at most; the port defaults
    /// to 80), `localhost:5173` or `5173` (on `localhost`), or why not.
    pub fn parse(url: &str) -> Result<Upstream, String> {
        let given = url.trim();
        let rest = match given.split_once("://") {
            Some(("http", rest)) => rest.to_owned(),
            Some(_) => {
                return Err(format!(
                    "--proxy {url:?}: only plain http:// URLs are proxied"
                ))
            }
            None if !given.is_empty() && given.bytes().all(|b| b.is_ascii_digit()) => {
                format!("localhost:{given}")
            }
            None => given.to_owned(),
        };
        let rest = rest.as_str();
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if authority.is_empty() || authority.contains(['/', '?', '#', '@', ' ']) {
            return Err(format!(
                "--proxy {url:?}: give the dev server's origin only (http://host:port)"
            ));
        }
        let has_port = match authority.rsplit_once(':') {
            Some((host, port)) if !port.contains(']') => {
                if host.is_empty() || port.parse::<u16>().is_err() {
                    return Err(format!("--proxy {url:?}: not a host and port"));
                }
                true
            }
            _ => false,
        };
        let authority = match has_port {
            true => authority.to_ascii_lowercase(),
            false => format!("{}:80", authority.to_ascii_lowercase()),
        };
        Ok(Upstream {
            origin: format!("http://{authority}"),
            authority,
        })
    }
}

/// What the proxy layer needs: the upstream and the hub's own HTTP state
/// (for the tag).
#[derive(Clone)]
pub struct Proxy {
    upstream: Arc<Upstream>,
    state: HttpState,
    /// What a warning was already printed for (once each).
    warned: Arc<Mutex<std::collections::HashSet<String>>>,
}

impl Proxy {
    pub fn new(upstream: Upstream, state: HttpState) -> Proxy {
        Proxy {
            upstream: Arc::new(upstream),
            state,
            warned: Default::default(),
        }
    }

    /// A proxied page with the adapter's tag, as the hub's own pages get
    /// it (`files.rs`), unless it already loads the hub's script.
    fn with_adapter(&self, html: Vec<u8>, page: &str) -> Vec<u8> {
        let guard = &self.state.guard;
        let hub = HubScriptAt {
            page_path: page,
            is_hub: &|authority, default_port| guard.names_the_hub(authority, default_port),
        };
        match inject_adapter(html, &injected_tag(&self.state), &hub) {
            Injection::Added(html) => html,
            Injection::AlreadyLoads { html, src } => {
                self.warn_once(
                    format!("loads {page}"),
                    format!("daebug: {page} already loads the hub's script ({src}): passed through without adding the tag"),
                );
                html
            }
        }
    }

    fn warn_once(&self, key: String, line: String) {
        let mut warned = self.warned.lock().unwrap_or_else(|e| e.into_inner());
        if warned.insert(key) {
            tracing::warn!("{line}");
        }
    }
}

/// Whether the hub answers `path` itself under `--proxy`: the adapter's
/// files, `/daebug-tests.json`, the realms' `/ws`, `/mcp`, and everything
/// under `/_daebug/` (the dashboard and the HTTP API at `/_daebug/api/`).
/// The app keeps everything else, `/` and `/api/` included.
pub fn hub_keeps(path: &str) -> bool {
    path == "/ws"
        || path == "/mcp"
        || path == "/_daebug"
        || path.starts_with("/_daebug/")
        || path == super::test_files::PATH
        || ADAPTER_FILES.iter().any(|f| f.path == path)
}

/// The layer over the hub's router (inside the Host and token checks):
/// a path the hub keeps goes on to its routes, anything else upstream.
pub async fn route(State(proxy): State<Proxy>, req: Request, next: Next) -> Response {
    if hub_keeps(req.uri().path()) {
        return next.run(req).await;
    }
    forward(&proxy, req).await
}

/// Hop-by-hop headers (RFC 9110 §7.6.1), never passed on.
const HOP_BY_HOP: [HeaderName; 7] = [
    header::CONNECTION,
    HeaderName::from_static("keep-alive"),
    HeaderName::from_static("proxy-connection"),
    header::PROXY_AUTHORIZATION,
    header::TE,
    header::TRAILER,
    header::TRANSFER_ENCODING,
];

/// Removes the hop-by-hop headers and those `Connection` names (and
/// `Upgrade` unless `upgrading`).
fn strip_hop_by_hop(headers: &mut HeaderMap, upgrading: bool) {
    let named: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|t| HeaderName::from_bytes(t.trim().as_bytes()).ok())
        .collect();
    for name in named.iter().chain(HOP_BY_HOP.iter()) {
        if upgrading && *name == header::UPGRADE {
            continue;
        }
        headers.remove(name);
    }
    if !upgrading {
        headers.remove(header::UPGRADE);
    }
}

/// The hub's own cookie (a hub with a token: `token.rs`) is the hub's:
/// the app's server never sees it.
fn without_hub_cookie(headers: &mut HeaderMap) {
    let prefix = format!("{}=", super::token::COOKIE_NAME);
    let kept: Vec<String> = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .map(str::trim)
        .filter(|c| !c.is_empty() && !c.starts_with(&prefix))
        .map(str::to_owned)
        .collect();
    if !headers.contains_key(header::COOKIE) {
        return;
    }
    headers.remove(header::COOKIE);
    if let Ok(v) = HeaderValue::from_str(&kept.join("; ")) {
        if !kept.is_empty() {
            headers.insert(header::COOKIE, v);
        }
    }
}

/// What the proxy adds to `Via` (RFC 9110 §7.6.3), and how it knows a
/// request it forwarded when one comes back.
const VIA: &str = "1.1 daebug";

/// Whether a proxy of daebug already forwarded this request.
fn came_through_daebug(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::VIA)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|hop| hop.trim().eq_ignore_ascii_case(VIA))
}

/// Whether the request asks to switch protocols (a WebSocket).
fn is_upgrade(headers: &HeaderMap) -> bool {
    headers.contains_key(header::UPGRADE)
        && headers
            .get_all(header::CONNECTION)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case("upgrade"))
}

/// What a response is buffered for, to add daebug to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edit {
    /// A page: the tag, first in `<head>`.
    Page,
    /// A worker's script (or a module of its graph): the loader's line
    /// after its last line (a service worker's its own, `inject.rs`).
    Worker(WorkerScript),
}

/// What the request's answer gets, if it is of the type that edit is
/// for: a page for a document request (`wants_document`), a script for
/// a worker's (`Sec-Fetch-Dest: worker` or `sharedworker`).
fn edit_for(method: &Method, headers: &HeaderMap) -> Option<Edit> {
    let dest = headers.get("sec-fetch-dest").and_then(|v| v.to_str().ok());
    if let Some(kind) = dest.and_then(WorkerScript::of_destination) {
        return (*method == Method::GET).then_some(Edit::Worker(kind));
    }
    // A form's POST navigates too: its answer is a page.
    let navigates = *method == Method::GET || (*method == Method::POST && dest.is_some());
    (navigates && wants_document(headers)).then_some(Edit::Page)
}

/// Whether the answer may be a page the tag belongs in: a navigation or a
/// frame's document (`Sec-Fetch-Dest`), or, from a client that does not
/// say, a request that accepts HTML. A page's own `fetch` of an HTML
/// fragment (`Sec-Fetch-Dest: empty`: htmx, Turbo) is left as it is.
fn wants_document(headers: &HeaderMap) -> bool {
    match headers.get("sec-fetch-dest").and_then(|v| v.to_str().ok()) {
        Some(dest) => matches!(
            dest.to_ascii_lowercase().as_str(),
            "document" | "iframe" | "frame" | "embed" | "object"
        ),
        None => headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a.contains("text/html")),
    }
}

/// Sends `req` to the upstream and its answer back (a 502 naming the
/// upstream when it cannot be reached).
async fn forward(proxy: &Proxy, req: Request) -> Response {
    let (mut parts, body) = req.into_parts();
    let upgrading = is_upgrade(&parts.headers);
    let edit = match upgrading {
        true => None,
        false => edit_for(&parts.method, &parts.headers),
    };
    let what = format!("{} {}", parts.method, parts.uri.path());
    if came_through_daebug(&parts.headers) {
        // `--proxy` names this hub (or another proxy leads back to it):
        // forwarding again would go round until the sockets run out.
        let line = format!(
            "daebug: {what} came back through this proxy: --proxy {} leads to the hub itself; \
             give the dev server's own address",
            proxy.upstream.origin
        );
        proxy.warn_once("loop".into(), line.clone());
        return plain_text(StatusCode::LOOP_DETECTED, line);
    }
    let client_upgrade = match upgrading {
        true => parts.extensions.remove::<hyper::upgrade::OnUpgrade>(),
        false => None,
    };

    let headers = upstream_headers(
        proxy,
        std::mem::take(&mut parts.headers),
        upgrading,
        edit.is_some(),
    );
    let target = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let mut upstream_req = axum::http::Request::new(match upgrading {
        true => Body::empty(),
        false => body,
    });
    *upstream_req.method_mut() = parts.method.clone();
    *upstream_req.uri_mut() = target.parse().unwrap_or_else(|_| Uri::from_static("/"));
    *upstream_req.headers_mut() = headers;

    let res = match send(&proxy.upstream, upstream_req, upgrading).await {
        Ok(res) => res,
        Err(why) => return bad_gateway(proxy, &what, &why),
    };

    if res.status() == StatusCode::SWITCHING_PROTOCOLS {
        return switch(proxy, res, client_upgrade, what);
    }
    let (mut res_parts, res_body) = res.into_parts();
    // The browser's connection has its own version (an HTTP/1.0 server's
    // answer is not one).
    res_parts.version = axum::http::Version::default();
    strip_hop_by_hop(&mut res_parts.headers, false);
    rewrite_location(&proxy.upstream, &mut res_parts.headers);
    let body = Body::new(res_body);
    let edit = edit.filter(|e| answer_to_edit(*e, &res_parts));
    match edit {
        Some(edit) => with_daebug(proxy, edit, res_parts, body, parts.uri.path()).await,
        None => Response::from_parts(res_parts, body),
    }
}

/// The request's headers as the upstream gets them: hop-by-hop ones and
/// the hub's cookie out, its own `Host`, the hub's as `X-Forwarded-Host`,
/// and a page or worker script asked for uncompressed when it is edited.
fn upstream_headers(
    proxy: &Proxy,
    mut headers: HeaderMap,
    upgrading: bool,
    editing: bool,
) -> HeaderMap {
    strip_hop_by_hop(&mut headers, upgrading);
    without_hub_cookie(&mut headers);
    let hub_host = headers.get(header::HOST).cloned();
    if let Ok(host) = HeaderValue::from_str(&proxy.upstream.authority) {
        headers.insert(header::HOST, host);
    }
    if let Some(host) = hub_host {
        headers.insert(HeaderName::from_static("x-forwarded-host"), host);
    }
    headers.insert(
        HeaderName::from_static("x-forwarded-proto"),
        HeaderValue::from_static("http"),
    );
    headers.append(header::VIA, HeaderValue::from_static(VIA));
    if upgrading {
        headers.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
    }
    if editing {
        // A page or worker script to add to comes uncompressed (a server
        // that compresses anyway is decoded below).
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_static("identity"),
        );
    }
    headers
}

/// Whether the upstream's answer is what `edit` adds to: a page of any
/// status but 204/304 (a dev server's error page is one to debug), a
/// worker's script only when it is JavaScript and a 200.
fn answer_to_edit(edit: Edit, res: &axum::http::response::Parts) -> bool {
    let kind = res
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|t| t.trim_start().to_ascii_lowercase())
        .unwrap_or_default();
    match edit {
        Edit::Page => {
            (kind.starts_with("text/html") || kind.starts_with("application/xhtml+xml"))
                && !matches!(
                    res.status,
                    StatusCode::NO_CONTENT | StatusCode::NOT_MODIFIED
                )
        }
        Edit::Worker(_) => {
            let essence = kind.split(';').next().unwrap_or("").trim();
            matches!(
                essence,
                "text/javascript"
                    | "application/javascript"
                    | "application/x-javascript"
                    | "text/ecmascript"
                    | "application/ecmascript"
            ) && res.status == StatusCode::OK
        }
    }
}

/// One request on a connection of its own to the upstream; the error, as
/// a clause for the 502 ("connection refused").
async fn send(
    upstream: &Upstream,
    req: axum::http::Request<Body>,
    upgrading: bool,
) -> Result<axum::http::Response<hyper::body::Incoming>, String> {
    let connect = tokio::net::TcpStream::connect(upstream.authority.as_str());
    let stream = match tokio::time::timeout(CONNECT_WITHIN, connect).await {
        Ok(Ok(stream)) => stream,
        Ok(Err(e)) => return Err(format!("cannot connect: {e}")),
        Err(_) => {
            return Err(format!(
                "cannot connect: no answer within {} s",
                CONNECT_WITHIN.as_secs()
            ))
        }
    };
    let _ = stream.set_nodelay(true);
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP handshake failed: {e}"))?;
    // The connection runs beside its one request (and, upgraded, hands
    // its socket over).
    tokio::spawn(async move {
        let done = match upgrading {
            true => connection.with_upgrades().await,
            false => connection.await,
        };
        if let Err(e) = done {
            tracing::debug!("proxy connection: {e}");
        }
    });
    sender
        .send_request(req)
        .await
        .map_err(|e| format!("no answer: {e}"))
}

/// The upstream said 101: the same answer to the browser, then both
/// upgraded connections joined until either ends.
fn switch(
    proxy: &Proxy,
    mut res: axum::http::Response<hyper::body::Incoming>,
    client: Option<hyper::upgrade::OnUpgrade>,
    what: String,
) -> Response {
    let Some(client) = client else {
        return bad_gateway(proxy, &what, "the upstream switched protocols unasked");
    };
    let upstream = hyper::upgrade::on(&mut res);
    let mut answer = Response::new(Body::empty());
    *answer.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    *answer.headers_mut() = res.headers().clone();
    tokio::spawn(async move {
        let (client, upstream) = match tokio::try_join!(client, upstream) {
            Ok(both) => both,
            Err(e) => {
                tracing::debug!("proxy upgrade of {what}: {e}");
                return;
            }
        };
        let mut client = TokioIo::new(client);
        let mut upstream = TokioIo::new(upstream);
        if let Err(e) = tokio::io::copy_bidirectional(&mut client, &mut upstream).await {
            tracing::debug!("proxied {what} ended: {e}");
        }
    });
    answer
}

/// A `Location` naming the upstream's origin names the hub's instead
/// (the same path, relative to wherever the page was opened).
fn rewrite_location(upstream: &Upstream, headers: &mut HeaderMap) {
    let Some(location) = headers.get(header::LOCATION).and_then(|v| v.to_str().ok()) else {
        return;
    };
    let lower = location.to_ascii_lowercase();
    let Some(rest) = lower.strip_prefix(&upstream.origin) else {
        return;
    };
    if !(rest.is_empty() || rest.starts_with(['/', '?', '#'])) {
        return;
    }
    let path = &location[upstream.origin.len()..];
    let path = if path.is_empty() || !path.starts_with('/') {
        format!("/{path}")
    } else {
        path.to_owned()
    };
    if let Ok(v) = HeaderValue::from_str(&path) {
        headers.insert(header::LOCATION, v);
    }
}

/// A page from upstream with the adapter's tag, or a worker's script with
/// the loader's line: buffered (decoded when the upstream compressed it
/// anyway), unless larger than [`HTML_CAP`] or in an encoding the hub does
/// not read, which pass through untouched.
async fn with_daebug(
    proxy: &Proxy,
    edit: Edit,
    mut parts: axum::http::response::Parts,
    body: Body,
    page: &str,
) -> Response {
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > HTML_CAP as u64) {
        warn_large(proxy, page);
        return Response::from_parts(parts, body);
    }
    let encoding = parts
        .headers
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default();
    if !matches!(
        encoding.as_str(),
        "" | "identity" | "gzip" | "x-gzip" | "deflate"
    ) {
        proxy.warn_once(
            format!("encoding {encoding}"),
            format!(
                "daebug: {page} came {encoding}-encoded although the proxy asked for identity: \
                 passed through without the tag"
            ),
        );
        return Response::from_parts(parts, body);
    }
    let mut stream = body.into_data_stream();
    let mut kept: Vec<Bytes> = Vec::new();
    let mut size = 0usize;
    while let Some(chunk) = stream.next().await {
        match chunk {
            Ok(chunk) => {
                size += chunk.len();
                kept.push(chunk);
                if size > HTML_CAP {
                    warn_large(proxy, page);
                    let so_far = futures_util::stream::iter(kept.into_iter().map(Ok));
                    let rest: std::pin::Pin<Box<dyn Stream<Item = _> + Send>> = Box::pin(stream);
                    return Response::from_parts(parts, Body::from_stream(so_far.chain(rest)));
                }
            }
            Err(e) => {
                tracing::debug!("proxied {page}: the upstream's body failed: {e}");
                return bad_gateway(proxy, page, &format!("its body failed: {e}"));
            }
        }
    }
    let raw = kept.concat();
    let decoded = match decode_as(&encoding, &raw) {
        None => raw,
        Some(Ok(decoded)) => decoded,
        Some(Err(why)) => {
            proxy.warn_once(
                format!("undecoded {page}"),
                format!("daebug: {page}: {why}: passed through without the tag"),
            );
            return Response::from_parts(parts, Body::from(raw));
        }
    };
    parts.headers.remove(header::CONTENT_ENCODING);
    parts.headers.remove(header::CONTENT_LENGTH);
    let edited = match edit {
        Edit::Page => proxy.with_adapter(decoded, page),
        Edit::Worker(kind) => match String::from_utf8(decoded) {
            Ok(script) => kind
                .with_adapter(&script, adapter_query(&proxy.state).as_deref())
                .into_bytes(),
            // Not UTF-8: not a script daebug can add to.
            Err(e) => e.into_bytes(),
        },
    };
    Response::from_parts(parts, Body::from(edited))
}

/// Says once that `page` is over [`HTML_CAP`] and goes without the tag.
fn warn_large(proxy: &Proxy, page: &str) {
    proxy.warn_once(
        format!("large {page}"),
        format!(
            "daebug: {page} is larger than {} MiB: passed through without the tag",
            HTML_CAP >> 20
        ),
    );
}

/// `raw` decoded from `encoding` (gzip or deflate, zlib-wrapped or raw);
/// `None` when it needs no decoding.
fn decode_as(encoding: &str, raw: &[u8]) -> Option<Result<Vec<u8>, String>> {
    match encoding {
        "gzip" | "x-gzip" => Some(decode(flate2::read::MultiGzDecoder::new(raw))),
        "deflate" => Some(
            decode(flate2::read::ZlibDecoder::new(raw))
                .or_else(|_| decode(flate2::read::DeflateDecoder::new(raw))),
        ),
        _ => None,
    }
}

/// A compressed page, decoded up to [`HTML_CAP`].
fn decode(reader: impl Read) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    reader
        .take(HTML_CAP as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("cannot decode it: {e}"))?;
    if out.len() > HTML_CAP {
        return Err(format!("larger than {} MiB decoded", HTML_CAP >> 20));
    }
    Ok(out)
}

/// The 502 when the upstream cannot be reached or fails: which upstream,
/// which request, what failed.
fn bad_gateway(proxy: &Proxy, what: &str, why: &str) -> Response {
    let line = format!(
        "daebug: the proxied server {} did not answer {what}: {why} (is it running? \
         daebug --proxy forwards everything but its own paths there)",
        proxy.upstream.origin
    );
    proxy.warn_once(format!("502 {why}"), line.clone());
    plain_text(StatusCode::BAD_GATEWAY, line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_urls() {
        let up = Upstream::parse("http://localhost:5173").expect("ok");
        assert_eq!(up.authority, "localhost:5173");
        assert_eq!(up.origin, "http://localhost:5173");
        assert_eq!(
            Upstream::parse("http://127.0.0.1:3000/")
                .expect("ok")
                .origin,
            "http://127.0.0.1:3000"
        );
        assert_eq!(
            Upstream::parse("http://app.test").expect("ok").authority,
            "app.test:80"
        );
        assert_eq!(
            Upstream::parse("http://[::1]:8080").expect("ok").authority,
            "[::1]:8080"
        );
        assert_eq!(
            Upstream::parse("5173").expect("ok").origin,
            "http://localhost:5173"
        );
        assert_eq!(
            Upstream::parse("127.0.0.1:3000").expect("ok").origin,
            "http://127.0.0.1:3000"
        );
        for bad in [
            "https://localhost:5173",
            "ws://localhost:5173",
            "99999",
            "http://localhost:5173/app",
            "http://localhost:x",
            "http://",
        ] {
            assert!(Upstream::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_hub_keeps_its_own_paths_only() {
        for kept in [
            "/daebug.js",
            "/daebug_adapter_bg.wasm",
            "/daebug-panel.mjs",
            "/ws",
            "/mcp",
            "/_daebug",
            "/_daebug/",
            "/_daebug/api/realms",
            "/daebug-tests.json",
        ] {
            assert!(hub_keeps(kept), "{kept}");
        }
        for app in [
            "/",
            "/api/realms",
            "/api",
            "/index.html",
            "/ws/x",
            "/_next/webpack-hmr",
            "/@vite/client",
        ] {
            assert!(!hub_keeps(app), "{app}");
        }
    }

    #[test]
    fn locations_naming_the_upstream_name_the_hub() {
        let up = Upstream::parse("http://localhost:5173").expect("ok");
        for (from, to) in [
            ("http://localhost:5173/login?x=1", "/login?x=1"),
            ("http://LOCALHOST:5173", "/"),
            ("/already", "/already"),
            (
                "http://localhost:51730/other",
                "http://localhost:51730/other",
            ),
            ("https://example.com/", "https://example.com/"),
        ] {
            let mut h = HeaderMap::new();
            h.insert(header::LOCATION, HeaderValue::from_str(from).unwrap());
            rewrite_location(&up, &mut h);
            assert_eq!(h[header::LOCATION], to, "{from}");
        }
    }

    #[test]
    fn documents_are_navigations_and_frames() {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, HeaderValue::from_static("text/html,*/*"));
        assert!(wants_document(&h));
        h.insert("sec-fetch-dest", HeaderValue::from_static("empty"));
        assert!(!wants_document(&h));
        h.insert("sec-fetch-dest", HeaderValue::from_static("iframe"));
        assert!(wants_document(&h));
        assert!(!wants_document(&HeaderMap::new()));
    }

    #[test]
    fn workers_scripts_and_documents_are_edited() {
        let with = |dest: &str| {
            let mut h = HeaderMap::new();
            h.insert("sec-fetch-dest", HeaderValue::from_str(dest).unwrap());
            h
        };
        let worker = Some(Edit::Worker(WorkerScript::Worker));
        assert_eq!(edit_for(&Method::GET, &with("worker")), worker);
        assert_eq!(edit_for(&Method::GET, &with("sharedworker")), worker);
        assert_eq!(
            edit_for(&Method::GET, &with("serviceworker")),
            Some(Edit::Worker(WorkerScript::Service))
        );
        assert_eq!(edit_for(&Method::GET, &with("document")), Some(Edit::Page));
        assert_eq!(edit_for(&Method::GET, &with("script")), None);
        assert_eq!(edit_for(&Method::POST, &with("document")), Some(Edit::Page));
        assert_eq!(edit_for(&Method::POST, &with("worker")), None);
        assert_eq!(edit_for(&Method::PUT, &with("document")), None);
        assert_eq!(edit_for(&Method::HEAD, &with("document")), None);
    }

    #[test]
    fn the_hubs_cookie_stays_behind() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("sid=1; daebug_token=abc; theme=dark"),
        );
        without_hub_cookie(&mut h);
        assert_eq!(h[header::COOKIE], "sid=1; theme=dark");
        h.insert(header::COOKIE, HeaderValue::from_static("daebug_token=abc"));
        without_hub_cookie(&mut h);
        assert!(!h.contains_key(header::COOKIE));
    }

    #[test]
    fn a_request_it_forwarded_is_known_again() {
        let mut h = HeaderMap::new();
        assert!(!came_through_daebug(&h));
        h.insert(
            header::VIA,
            HeaderValue::from_static("1.1 vegur, 1.1 daebug"),
        );
        assert!(came_through_daebug(&h));
        h.insert(header::VIA, HeaderValue::from_static("1.1 daebugger"));
        assert!(!came_through_daebug(&h));
    }

    #[test]
    fn hop_by_hop_headers_stay_behind() {
        let mut h = HeaderMap::new();
        h.insert(
            header::CONNECTION,
            HeaderValue::from_static("keep-alive, x-secret"),
        );
        h.insert("x-secret", HeaderValue::from_static("1"));
        h.insert(
            header::TRANSFER_ENCODING,
            HeaderValue::from_static("chunked"),
        );
        h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
        h.insert(header::ACCEPT, HeaderValue::from_static("*/*"));
        let mut up = h.clone();
        strip_hop_by_hop(&mut h, false);
        assert_eq!(h.len(), 1);
        strip_hop_by_hop(&mut up, true);
        assert!(up.contains_key(header::UPGRADE));
        assert!(!up.contains_key("x-secret"));
    }
}
