//! The hub's whole HTTP surface: the realms' WebSocket route, the hub's
//! own side (`crate::http::site`: the adapter files, static files), and
//! the doors' routes when there are doors (the HTTP API, `/mcp`), with the
//! dashboard, all inside `crate::http::guarded`'s Host and token checks.

use std::sync::Arc;

use axum::Router;

use crate::doors::{api, dashboard, mcp, Doors};
use crate::http::{guarded, site, state::HttpState};

/// `ws` (holding `/ws`, its state already applied), the dashboard, the
/// hub's own side and, with `doors`, the HTTP API and `/mcp`.
pub fn router(state: HttpState, doors: Option<Doors>, ws: Router) -> Router {
    let guard = Arc::clone(&state.guard);
    let token = state.token.clone();
    let mut app = ws
        .merge(dashboard::routes(doors.clone()).with_state(state.clone()))
        .merge(site(state));
    if let Some(doors) = doors {
        app = app
            .merge(mcp::router(doors.clone(), Arc::clone(&guard)))
            .merge(api::routes(doors));
    }
    guarded(app, guard, token.as_deref())
}
