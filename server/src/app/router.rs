//! The hub's whole HTTP surface: the realms' WebSocket route, the hub's
//! own side (`crate::http::site`: the adapter files, static files), and
//! the doors' routes when there are doors (the HTTP API at `/api/` and
//! `/_daebug/api/`, `/mcp`), with the dashboard, all inside
//! `crate::http::guarded`'s Host and token checks. With `--proxy`, every
//! path the hub does not keep (`crate::http::proxy::hub_keeps`) goes to
//! the app's server instead, `/api/` included (docs/proxy.md).

use std::sync::Arc;

use axum::middleware;
use axum::Router;

use crate::doors::{api, dashboard, mcp, Doors};
use crate::http::proxy::{self, Proxy, Upstream};
use crate::http::{guarded, site, state::HttpState};

/// `ws` (holding `/ws`, its state already applied), the dashboard, the
/// hub's own side and, with `doors`, the HTTP API and `/mcp`; with
/// `upstream`, the rest proxied there.
pub fn router(
    state: HttpState,
    doors: Option<Doors>,
    ws: Router,
    upstream: Option<Upstream>,
) -> Router {
    let guard = Arc::clone(&state.guard);
    let token = state.token.clone();
    let mut app = ws
        .merge(dashboard::routes(doors.clone()).with_state(state.clone()))
        .merge(site(state.clone()));
    if let Some(doors) = doors {
        app = app
            .merge(mcp::router(doors.clone(), Arc::clone(&guard)))
            .merge(api::routes(doors.clone()))
            .nest("/_daebug", api::routes(doors));
    }
    if let Some(upstream) = upstream {
        let proxy = Proxy::new(upstream, state);
        app = app.layer(middleware::from_fn_with_state(proxy, proxy::route));
    }
    guarded(app, guard, token.as_deref())
}
