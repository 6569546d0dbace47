//! What the HTTP handlers share: the hub's own handlers here and the
//! dashboard's (`doors/dashboard.rs`), which the hub's router (`app/router.rs`) mounts
//! beside them.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::guard;

/// What the HTTP handlers share.
#[derive(Debug, Clone)]
pub struct HttpState {
    /// The served directory, canonicalized (symlink escapes are detected by
    /// comparing canonical paths against it).
    pub root: PathBuf,
    /// The Host and Origin policy.
    pub guard: Arc<guard::Guard>,
    /// The adapter's absolute URL, e.g. `http://127.0.0.1:8302/daebug.js`
    /// (with `?token=…` when there is a token), for pages served by other
    /// dev servers. Only the dashboard shows it: HTML the hub serves
    /// itself gets a relative tag instead (see [`super::files::injected_tag`]), so
    /// it loads the adapter from whatever address it was served from.
    pub script_url: String,
    /// The token every request must present (`?token=…` or the
    /// `daebug_token` cookie), the adapter files excepted; `None` (a
    /// loopback hub) checks nothing. See [`super::token`].
    pub token: Option<String>,
    /// Pages served without the tag because they load the hub's script
    /// already: the hub's output says so once for each.
    pub left_alone: Arc<Mutex<HashSet<String>>>,
}
