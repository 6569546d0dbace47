//! Who may talk to the hub: the `Host` check (every request) and the
//! `Origin` check (WebSocket upgrade, CORS on the adapter files).
//!
//! The hub runs arbitrary JavaScript in the user's pages, so a web page on
//! the internet must never reach it. Two attacks matter:
//!
//! - **DNS rebinding**: `evil.example` first resolves to the attacker, then
//!   to `127.0.0.1`; the browser then treats the hub as same-origin with the
//!   attacker's page. The request still says `Host: evil.example`, so every
//!   request whose Host is not a loopback name (or an IP literal the hub is
//!   bound to) is refused.
//! - **Cross-site requests**: any page may open a WebSocket to
//!   `127.0.0.1:8302` or import `/daebug.js`; the browser then sends its
//!   `Origin`, which must be a loopback origin or one the user admitted with
//!   `--allow-origin`.

use std::net::{IpAddr, SocketAddr};

use axum::http::header::{CONTENT_TYPE, HOST, ORIGIN, X_CONTENT_TYPE_OPTIONS};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// The hub's Host and Origin policy, built once from the command line.
#[derive(Debug, Clone)]
pub struct Guard {
    /// The address the hub listens on: decides which IP literals are valid
    /// hosts, and which URL a refused request is told to open instead.
    bound: SocketAddr,
    /// `--allow-origin` entries, lowercased and without a trailing `/`.
    allow_origins: Vec<String>,
}

/// What to do about CORS for a request to an adapter file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cors {
    /// No `Origin` header (same-origin or non-browser client): nothing to add.
    NotNeeded,
    /// An allowed origin: echo it in `Access-Control-Allow-Origin`.
    Allow(HeaderValue),
    /// A foreign origin: answer 403 (see [`Guard::refuse_origin`]).
    Refuse(String),
}

/// A host as it appears in `Host` or in an origin, without the port.
#[derive(Debug, PartialEq, Eq)]
enum HostName {
    /// A DNS name, lowercased.
    Name(String),
    /// An IPv4 literal or a bracketed IPv6 literal.
    Ip(IpAddr),
}

impl Guard {
    /// The policy for a hub listening on `bound` that also admits the
    /// origins in `allow_origins` (exact `scheme://host[:port]`, or `null`).
    pub fn new(bound: SocketAddr, allow_origins: &[String]) -> Guard {
        Guard {
            bound,
            allow_origins: allow_origins.iter().map(|o| normalize_origin(o)).collect(),
        }
    }

    /// Whether the request's `Host` names this hub: a loopback name or
    /// address, or an IP literal the hub is bound to. A missing or
    /// malformed Host is refused.
    pub fn host_allowed(&self, headers: &HeaderMap) -> bool {
        headers
            .get(HOST)
            .and_then(|h| h.to_str().ok())
            .is_some_and(|h| self.authority_allowed(h))
    }

    /// [`Guard::host_allowed`] for a bare `host[:port]` (also used for the
    /// authority of an absolute-form request target).
    pub fn authority_allowed(&self, authority: &str) -> bool {
        match parse_authority(authority) {
            Some(HostName::Name(name)) => is_loopback_name(&name),
            Some(HostName::Ip(ip)) => {
                let bound = self.bound.ip();
                // Bound to 0.0.0.0 / ::, the hub is reachable under any of
                // the machine's addresses; an IP literal cannot be rebound,
                // only a DNS name can.
                is_loopback_ip(ip) || bound.is_unspecified() || same_ip(ip, bound)
            }
            None => false,
        }
    }

    /// Whether `authority` (`host[:port]`, the port `default_port` when
    /// absent) is this hub: a host [`Guard::authority_allowed`] accepts,
    /// on the port the hub listens on.
    pub fn names_the_hub(&self, authority: &str, default_port: u16) -> bool {
        let port = match authority.rsplit_once(':') {
            Some((_, p)) if !authority.ends_with(']') => p.parse().ok(),
            _ => Some(default_port),
        };
        port == Some(self.bound.port()) && self.authority_allowed(authority)
    }

    /// Whether a WebSocket upgrade (or a CORS request) from `origin` is
    /// admitted: no `Origin` at all (not a browser), a loopback origin on any
    /// port over http or https, or an exact `--allow-origin` entry. `null`
    /// (sandboxed frames, `file:` pages) only when allowed explicitly.
    pub fn origin_allowed(&self, origin: Option<&HeaderValue>) -> bool {
        let Some(origin) = origin else {
            return true;
        };
        let Ok(origin) = origin.to_str() else {
            return false;
        };
        let normalized = normalize_origin(origin);
        if self.allow_origins.contains(&normalized) {
            return true;
        }
        match split_origin(&normalized) {
            Some((_, authority)) => parse_authority(authority).is_some_and(|host| match host {
                HostName::Name(name) => is_loopback_name(&name),
                HostName::Ip(ip) => is_loopback_ip(ip),
            }),
            None => false,
        }
    }

    /// [`Guard::origin_allowed`] for a whole request, which also admits a
    /// page served by the hub itself under a non-loopback address (its
    /// `Origin` is `http://` + the request's already-checked `Host`).
    /// Meant for the WebSocket upgrade.
    pub fn request_origin_allowed(&self, headers: &HeaderMap) -> bool {
        !matches!(self.cors_origin(headers), Cors::Refuse(_))
    }

    /// The CORS decision for an adapter file: the same rule as
    /// [`Guard::request_origin_allowed`]; without `Origin` no CORS is needed.
    /// The same-origin case trusts `Host`, so this is only sound behind the
    /// Host check, which [`super::guarded`] puts in front of every route.
    pub fn cors_origin(&self, headers: &HeaderMap) -> Cors {
        let Some(origin) = headers.get(ORIGIN) else {
            return Cors::NotNeeded;
        };
        if self.origin_allowed(Some(origin)) || is_same_origin(origin, headers.get(HOST)) {
            Cors::Allow(origin.clone())
        } else {
            Cors::Refuse(String::from_utf8_lossy(origin.as_bytes()).into_owned())
        }
    }

    /// The URL a refused client should open instead: the bound address, or
    /// loopback when bound to every address.
    pub fn base_url(&self) -> String {
        let ip = match self.bound.ip() {
            IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
            IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        format!("http://{}/", SocketAddr::new(ip, self.bound.port()))
    }

    /// The 403 for a request whose `Host` failed [`Guard::host_allowed`]:
    /// one line naming the refused host and the URL to use instead.
    pub fn refuse_host(&self, headers: &HeaderMap) -> Response {
        let served = if self.bound.ip().is_loopback() {
            "only loopback names are served"
        } else {
            "only loopback names and IP addresses are served"
        };
        let refused = match headers.get(HOST) {
            Some(host) => format!(
                "refused Host {:?}",
                String::from_utf8_lossy(host.as_bytes())
            ),
            None => "refused a request without a Host header".to_owned(),
        };
        let line = format!(
            "daebug: {refused} ({served}, against DNS rebinding); open {} instead",
            self.base_url()
        );
        tracing::warn!("{line}");
        plain_text(StatusCode::FORBIDDEN, line)
    }

    /// The 403 for a request whose `Origin` was refused: names the origin
    /// and the flag that admits it.
    pub fn refuse_origin(&self, origin: &str) -> Response {
        let origin = origin.trim();
        let line = format!(
            "daebug: refused Origin {origin:?} (only loopback origins may load the adapter or \
             connect); start the hub with --allow-origin {origin} to admit it"
        );
        tracing::warn!("{line}");
        plain_text(StatusCode::FORBIDDEN, line)
    }
}

/// The 400 for a request that repeats `Host` (RFC 9112 §3.2: exactly
/// one) or `Origin` (RFC 6454 §7.3: at most one): which one it names
/// would depend on who reads it (the check or the route), so neither is.
pub fn refuse_repeated(headers: &HeaderMap) -> Option<Response> {
    let (name, rule) = [
        (HOST, "RFC 9112 §3.2: a request has exactly one"),
        (ORIGIN, "RFC 6454 §7.3: a request has at most one"),
    ]
    .into_iter()
    .find(|(name, _)| headers.get_all(name).iter().count() > 1)?;
    let n = headers.get_all(&name).iter().count();
    let line = format!(
        "daebug: refused a request with {n} {} headers ({rule})",
        if name == HOST { "Host" } else { "Origin" }
    );
    tracing::warn!("{line}");
    Some(plain_text(StatusCode::BAD_REQUEST, line))
}

/// A one-line plain-text response (refusals and errors).
pub(crate) fn plain_text(status: StatusCode, line: String) -> Response {
    let mut res = (status, format!("{line}\n")).into_response();
    let headers = res.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    // The body may quote request text; never let a browser sniff it as HTML.
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    res
}

/// Origins compare case-insensitively, and users paste them with a `/`.
fn normalize_origin(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// `scheme://authority` of an http(s) origin; anything with a path,
/// user info or another scheme is not an origin we know.
fn split_origin(origin: &str) -> Option<(&str, &str)> {
    let (scheme, authority) = origin.split_once("://")?;
    let web = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    (web && !authority.contains(['/', '@', '?', '#'])).then_some((scheme, authority))
}

/// A page the hub served itself: `Origin` is `http://` + the `Host` it used.
pub(crate) fn is_same_origin(origin: &HeaderValue, host: Option<&HeaderValue>) -> bool {
    let (Ok(origin), Some(Ok(host))) = (origin.to_str(), host.map(|h| h.to_str())) else {
        return false;
    };
    match split_origin(origin.trim()) {
        Some((scheme, authority)) => {
            scheme.eq_ignore_ascii_case("http") && authority.eq_ignore_ascii_case(host.trim())
        }
        None => false,
    }
}

/// The host of `host[:port]` or `[v6][:port]`; `None` if malformed.
fn parse_authority(authority: &str) -> Option<HostName> {
    let authority = authority.trim();
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (v6, after) = rest.split_once(']')?;
        let ip = v6.parse::<std::net::Ipv6Addr>().ok()?;
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':')?),
        };
        (HostName::Ip(IpAddr::V6(ip)), port)
    } else {
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        };
        if host.is_empty() || host.contains(':') {
            return None;
        }
        let name = match host.parse::<std::net::Ipv4Addr>() {
            Ok(v4) => HostName::Ip(IpAddr::V4(v4)),
            Err(_) => HostName::Name(host.to_ascii_lowercase()),
        };
        (name, port)
    };
    match port {
        Some(port) if !port.bytes().all(|b| b.is_ascii_digit()) || port.parse::<u16>().is_err() => {
            None
        }
        _ => Some(host),
    }
}

/// `localhost` and its subdomains resolve to loopback without DNS (RFC 6761,
/// and browsers hard-wire it), so an attacker cannot rebind them.
fn is_loopback_name(name: &str) -> bool {
    name == "localhost"
        || name
            .strip_suffix(".localhost")
            .is_some_and(|label| !label.is_empty() && !label.ends_with('.'))
}

/// 127.0.0.0/8, `::1`, and `::ffff:127.x.y.z`.
fn is_loopback_ip(ip: IpAddr) -> bool {
    ip.to_canonical().is_loopback()
}

/// IP equality that sees `::ffff:a.b.c.d` as `a.b.c.d`.
fn same_ip(a: IpAddr, b: IpAddr) -> bool {
    a.to_canonical() == b.to_canonical()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(bound: &str, allow: &[&str]) -> Guard {
        let allow: Vec<String> = allow.iter().map(|s| s.to_string()).collect();
        Guard::new(bound.parse().expect("test address"), &allow)
    }

    fn host(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(HOST, HeaderValue::from_str(value).expect("test header"));
        headers
    }

    fn origin_ok(g: &Guard, origin: &str) -> bool {
        g.origin_allowed(Some(&HeaderValue::from_str(origin).expect("test header")))
    }

    #[test]
    fn loopback_hosts_are_allowed() {
        let g = guard("127.0.0.1:8302", &[]);
        for ok in [
            "localhost",
            "localhost:8302",
            "LocalHost:8302",
            "app.localhost:8302",
            "127.0.0.1:8302",
            "127.0.0.1",
            "127.1.2.3:80",
            "[::1]:8302",
            "[::1]",
            "[::ffff:127.0.0.1]:8302",
        ] {
            assert!(g.host_allowed(&host(ok)), "{ok} should be allowed");
        }
    }

    #[test]
    fn foreign_and_malformed_hosts_are_refused() {
        let g = guard("127.0.0.1:8302", &[]);
        for bad in [
            "evil.example",
            "evil.example:8302",
            "localhost.evil.example",
            "evillocalhost",
            ".localhost",
            "localhost.",
            "192.168.1.5:8302",
            "[::2]:8302",
            "::1",
            "[::1",
            "127.0.0.1:http",
            "127.0.0.1:99999",
            ":8302",
            "",
        ] {
            assert!(!g.host_allowed(&host(bad)), "{bad:?} should be refused");
        }
        assert!(!g.host_allowed(&HeaderMap::new()), "missing Host");
    }

    #[test]
    fn bound_address_decides_which_ip_literals_pass() {
        let lan = guard("192.168.1.5:8302", &[]);
        assert!(lan.host_allowed(&host("192.168.1.5:8302")));
        assert!(lan.host_allowed(&host("localhost:8302")));
        assert!(!lan.host_allowed(&host("10.0.0.1:8302")));
        assert!(!lan.host_allowed(&host("evil.example:8302")));

        for any in ["0.0.0.0:8302", "[::]:8302"] {
            let g = guard(any, &[]);
            assert!(g.host_allowed(&host("10.0.0.1:8302")), "{any}");
            assert!(g.host_allowed(&host("[fe80::1]:8302")), "{any}");
            assert!(!g.host_allowed(&host("evil.example:8302")), "{any}");
            assert!(!g.host_allowed(&host("my-laptop.lan:8302")), "{any}");
        }
    }

    #[test]
    fn origin_table() {
        let g = guard(
            "127.0.0.1:8302",
            &["https://app.example.com/", "HTTP://Dev.Test:3000"],
        );
        assert!(g.origin_allowed(None), "non-browser clients send no Origin");
        for ok in [
            "http://localhost:5173",
            "http://localhost",
            "https://localhost:8443",
            "http://127.0.0.1:9000",
            "http://127.9.9.9",
            "http://[::1]:3000",
            "http://app.localhost:8080",
            "https://app.example.com",
            "https://APP.example.com/",
            "http://dev.test:3000",
        ] {
            assert!(origin_ok(&g, ok), "{ok} should be allowed");
        }
        for bad in [
            "https://evil.example",
            "http://localhost.evil.example",
            "http://192.168.1.5:8302",
            "https://app.example.com:444",
            "http://app.example.com",
            "http://dev.test:3001",
            "ftp://localhost",
            "file://",
            "http://user@localhost:5173",
            "http://localhost:5173/path",
            "null",
            "",
        ] {
            assert!(!origin_ok(&g, bad), "{bad:?} should be refused");
        }
    }

    #[test]
    fn null_origin_only_when_allowed() {
        assert!(!origin_ok(&guard("127.0.0.1:8302", &[]), "null"));
        assert!(origin_ok(&guard("127.0.0.1:8302", &["null"]), "null"));
    }

    #[test]
    fn cors_decision() {
        let g = guard("0.0.0.0:8302", &[]);
        let mut headers = host("192.168.1.5:8302");
        assert_eq!(g.cors_origin(&headers), Cors::NotNeeded);

        headers.insert(ORIGIN, HeaderValue::from_static("http://localhost:5173"));
        assert_eq!(
            g.cors_origin(&headers),
            Cors::Allow(HeaderValue::from_static("http://localhost:5173"))
        );

        // A page the hub served itself under its LAN address.
        headers.insert(ORIGIN, HeaderValue::from_static("http://192.168.1.5:8302"));
        assert!(matches!(g.cors_origin(&headers), Cors::Allow(_)));
        assert!(g.request_origin_allowed(&headers));
        assert!(!g.origin_allowed(headers.get(ORIGIN)));

        headers.insert(ORIGIN, HeaderValue::from_static("https://192.168.1.5:8302"));
        assert!(matches!(g.cors_origin(&headers), Cors::Refuse(_)));

        headers.insert(ORIGIN, HeaderValue::from_static("https://evil.example"));
        assert_eq!(
            g.cors_origin(&headers),
            Cors::Refuse("https://evil.example".into())
        );
        assert!(!g.request_origin_allowed(&headers));
    }

    #[test]
    fn base_url_points_at_loopback_when_bound_everywhere() {
        assert_eq!(
            guard("127.0.0.1:8302", &[]).base_url(),
            "http://127.0.0.1:8302/"
        );
        assert_eq!(
            guard("0.0.0.0:9000", &[]).base_url(),
            "http://127.0.0.1:9000/"
        );
        assert_eq!(guard("[::]:9000", &[]).base_url(), "http://[::1]:9000/");
        assert_eq!(guard("[::1]:9000", &[]).base_url(), "http://[::1]:9000/");
        assert_eq!(guard("10.0.0.2:80", &[]).base_url(), "http://10.0.0.2:80/");
    }

    #[tokio::test]
    async fn refusals_name_the_culprit_and_the_way_out() {
        let g = guard("127.0.0.1:8302", &[]);
        let res = g.refuse_host(&host("evil.example:8302"));
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
        let body = axum::body::to_bytes(res.into_body(), 4096)
            .await
            .expect("body");
        assert_eq!(
            String::from_utf8_lossy(&body),
            "daebug: refused Host \"evil.example:8302\" (only loopback names are served, \
             against DNS rebinding); open http://127.0.0.1:8302/ instead\n"
        );

        let res = g.refuse_origin("https://evil.example");
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
        let body = axum::body::to_bytes(res.into_body(), 4096)
            .await
            .expect("body");
        let body = String::from_utf8_lossy(&body);
        assert!(body.contains("\"https://evil.example\""), "{body}");
        assert!(
            body.contains("--allow-origin https://evil.example"),
            "{body}"
        );
    }
}
