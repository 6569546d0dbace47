//! One plain-HTTP GET, for a page script or its map: hyper's own client
//! connection over a tokio socket (hyper is already the hub's server, so
//! no new HTTP stack; no pool, as a script is fetched once per cache
//! life). The caller bounds the time.

use axum::body::Body;
use hyper_util::rt::TokioIo;

use super::url;

/// Why a script or map could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("not a plain http URL: {0}")]
    NotHttp(String),
    #[error("connecting: {0}")]
    Connect(#[from] std::io::Error),
    #[error("HTTP: {0}")]
    Http(#[from] hyper::Error),
    #[error("request: {0}")]
    Request(#[from] axum::http::Error),
    #[error("status {0}")]
    Status(axum::http::StatusCode),
    #[error("body: {0}")]
    Body(String),
}

/// The body of `url` as text, at most `limit` bytes.
pub async fn get_text(url_text: &str, limit: usize) -> Result<String, FetchError> {
    let (authority, path) =
        url::http_parts(url_text).ok_or_else(|| FetchError::NotHttp(url_text.into()))?;
    let addr = match authority.rsplit_once(':') {
        Some((_, port)) if port.bytes().all(|b| b.is_ascii_digit()) => authority.to_string(),
        _ => format!("{authority}:80"),
    };
    let stream = tokio::net::TcpStream::connect(addr).await?;
    let (mut send, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    // The connection runs beside the request; it ends with it.
    let driver = tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!("source map fetch connection: {e}");
        }
    });
    let request = axum::http::Request::get(path)
        .header(axum::http::header::HOST, authority)
        .header(axum::http::header::ACCEPT, "*/*")
        .body(Body::empty())?;
    let response = send.send_request(request).await;
    let result = async {
        let response = response?;
        if !response.status().is_success() {
            return Err(FetchError::Status(response.status()));
        }
        let bytes = axum::body::to_bytes(Body::new(response.into_body()), limit)
            .await
            .map_err(|e| FetchError::Body(e.to_string()))?;
        String::from_utf8(bytes.to_vec()).map_err(|e| FetchError::Body(e.to_string()))
    }
    .await;
    driver.abort();
    result
}
