//! `POST /_daebug/person`: a person answers a worker's or a Node process's
//! panel or ask from the dashboard (docs/log-format.md, "Panels"). Only a person may answer,
//! so this is no door of an agent's: it is not under `/api`, not a
//! [`super::door::Door`] method, not an MCP tool nor a CLI command.
//!
//! What tells a person's click from an agent's HTTP call:
//! - the dashboard sends it only from a click or key handler whose event
//!   `isTrusted` (a real input event; a script's `el.click()` is not);
//! - the request carries the browser's own `Sec-Fetch-Site: same-origin`
//!   and `Sec-Fetch-Mode: same-origin`/`cors` (headers a page's script
//!   cannot set, and an HTTP client does not send);
//! - and the `daebug_person` cookie: a key made once per hub run, set
//!   `HttpOnly; SameSite=Strict` only on a top-level navigation to the
//!   dashboard (`Sec-Fetch-Dest: document`), so a fetch or an iframe from a
//!   realm's page never gets it, and a `curl` of the API never has it.
//!
//! It is not proof against an agent that forges all of that from a shell,
//! or that drives the person's own browser; it is proof against every
//! door an agent is given and against the blocks it runs in realms.

use std::sync::OnceLock;

use axum::extract::Request;
use axum::http::header::{CONTENT_TYPE, COOKIE, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use daebug_protocol::person::PersonAct;
use serde::Deserialize;

use crate::http::guard::plain_text;

/// The cookie a person's dashboard carries.
const COOKIE_NAME: &str = "daebug_person";
/// Where it is sent: the dashboard's own routes only.
const COOKIE_PATH: &str = "/_daebug/";

/// This hub run's key: random, never written anywhere but the cookie.
fn key() -> &'static str {
    static KEY: OnceLock<String> = OnceLock::new();
    KEY.get_or_init(|| {
        let mut buf = [0u8; 18];
        // Without randomness no key can be trusted: none matches then.
        if getrandom::fill(&mut buf).is_err() {
            return String::new();
        }
        buf.iter().map(|b| format!("{b:02x}")).collect()
    })
}

/// The `Set-Cookie` for a GET of the dashboard, when it is a person's
/// top-level navigation (not a fetch, not a frame).
pub fn cookie_for(headers: &HeaderMap) -> Option<HeaderValue> {
    let navigation = header(headers, "sec-fetch-mode") == Some("navigate")
        && header(headers, "sec-fetch-dest") == Some("document");
    if !navigation || key().is_empty() {
        return None;
    }
    HeaderValue::from_str(&format!(
        "{COOKIE_NAME}={}; Path={COOKIE_PATH}; HttpOnly; SameSite=Strict",
        key()
    ))
    .ok()
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Why a request is not a person's dashboard, or `None` when it is.
pub fn refused(headers: &HeaderMap) -> Option<&'static str> {
    if header(headers, "sec-fetch-site") != Some("same-origin")
        || !matches!(
            header(headers, "sec-fetch-mode"),
            Some("same-origin" | "cors")
        )
    {
        return Some("not sent by the dashboard's page in a browser");
    }
    let has_key = headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .any(|(name, value)| name == COOKIE_NAME && !key().is_empty() && value == key());
    if !has_key {
        return Some("the dashboard that sent it was not opened by a person (reload it)");
    }
    None
}

/// The body the dashboard posts.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PersonPost {
    pub stem: String,
    #[serde(flatten)]
    pub act: PersonAct,
}

/// `POST /_daebug/person`, to the realm through `doors` (`None`: a hub
/// with no realms to answer).
pub async fn answer(doors: Option<super::Doors>, req: Request) -> Response {
    if let Some(why) = refused(req.headers()) {
        tracing::warn!("refused a person's answer: {why}");
        return plain_text(
            StatusCode::FORBIDDEN,
            format!(
                "daebug: only a person in the dashboard can answer a panel, ask or pick: {why}"
            ),
        );
    }
    let json = header(req.headers(), CONTENT_TYPE.as_str())
        .is_some_and(|t| t.starts_with("application/json"));
    if !json {
        return plain_text(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "daebug: send JSON".into(),
        );
    }
    let Ok(bytes) = axum::body::to_bytes(req.into_body(), 64 * 1024).await else {
        return plain_text(StatusCode::PAYLOAD_TOO_LARGE, "daebug: too large".into());
    };
    let post: PersonPost = match serde_json::from_slice(&bytes) {
        Ok(p) => p,
        Err(e) => return plain_text(StatusCode::BAD_REQUEST, format!("daebug: {e}")),
    };
    let Some(doors) = &doors else {
        return plain_text(StatusCode::NOT_FOUND, "daebug: no realms here".into());
    };
    match doors.person_act(&post.stem, &post.act).await {
        Ok(true) => {
            let mut res = "{\"sent\":true}".into_response();
            res.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            res
        }
        Ok(false) => plain_text(
            StatusCode::CONFLICT,
            format!("daebug: {} is not connected now", post.stem),
        ),
        Err(e) => plain_text(StatusCode::NOT_FOUND, format!("daebug: {e}")),
    }
}

/// Sets the person's cookie on the dashboard page's response.
pub fn with_cookie(mut res: Response, headers: &HeaderMap) -> Response {
    if let Some(cookie) = cookie_for(headers) {
        res.headers_mut().append(SET_COOKIE, cookie);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn only_a_navigation_gets_the_cookie() {
        let nav = headers(&[
            ("sec-fetch-mode", "navigate"),
            ("sec-fetch-dest", "document"),
        ]);
        let cookie = cookie_for(&nav).expect("a cookie");
        let cookie = cookie.to_str().unwrap();
        assert!(cookie.starts_with("daebug_person="), "{cookie}");
        assert!(cookie.contains("HttpOnly; SameSite=Strict"), "{cookie}");
        for not in [
            headers(&[("sec-fetch-mode", "cors"), ("sec-fetch-dest", "empty")]),
            headers(&[("sec-fetch-mode", "navigate"), ("sec-fetch-dest", "iframe")]),
            headers(&[]),
        ] {
            assert!(cookie_for(&not).is_none(), "{not:?}");
        }
    }

    #[test]
    fn an_agents_call_is_refused() {
        let cookie = format!("{COOKIE_NAME}={}", key());
        let person = headers(&[
            ("sec-fetch-site", "same-origin"),
            ("sec-fetch-mode", "same-origin"),
            ("cookie", &cookie),
        ]);
        assert_eq!(refused(&person), None);
        for (agent, why) in [
            (headers(&[]), "not sent by the dashboard"),
            (headers(&[("cookie", &cookie)]), "not sent by the dashboard"),
            (
                headers(&[
                    ("sec-fetch-site", "same-origin"),
                    ("sec-fetch-mode", "cors"),
                ]),
                "not opened by a person",
            ),
            (
                headers(&[
                    ("sec-fetch-site", "same-origin"),
                    ("sec-fetch-mode", "cors"),
                    ("cookie", "daebug_person=guess"),
                ]),
                "not opened by a person",
            ),
            (
                headers(&[
                    ("sec-fetch-site", "cross-site"),
                    ("sec-fetch-mode", "cors"),
                    ("cookie", &cookie),
                ]),
                "not sent by the dashboard",
            ),
        ] {
            assert!(
                refused(&agent).is_some_and(|r| r.contains(why)),
                "{agent:?}"
            );
        }
    }
}
