//! `debug/daebug-node.mjs`: what makes a Node process a realm
//! (`node --import ./debug/daebug-node.mjs server.js`, README, "Connect … a Node process"). The hub
//! writes it at every start, with its own address (and token) in it, as it
//! writes them into `/daebug.js` for a page; the file loads the adapter
//! and its WebAssembly from the hub. `debug/` is never served, so the
//! token stays on this machine.

use std::path::{Path, PathBuf};

use super::fsio;

/// The loader's text with `"__DAEBUG_SELF__"` where the adapter's URL goes.
const TEMPLATE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../adapter-shim/daebug-node.mjs"
));

/// Where the hub's URL goes (a JSON string literal in the template).
const SELF_PLACEHOLDER: &str = "\"__DAEBUG_SELF__\"";

/// Its name in `debug/`.
pub const FILE_NAME: &str = "daebug-node.mjs";

/// The loader for a hub whose adapter is at `script_url` (`/daebug.js`,
/// with `?token=` when the hub has one).
pub fn text(script_url: &str) -> String {
    let quoted = serde_json::to_string(script_url).unwrap_or_else(|_| "\"\"".into());
    crate::http::assets::with_hooks(TEMPLATE).replacen(SELF_PLACEHOLDER, &quoted, 1)
}

/// Writes it into `debug` in one step (a process starting meanwhile reads
/// the old file or the new, never half of one); readable by its owner
/// only when it holds a token.
pub fn write(debug: &Path, script_url: &str, secret: bool) -> std::io::Result<PathBuf> {
    let path = debug.join(FILE_NAME);
    let tmp = fsio::write_temp(&path, &text(script_url))?;
    #[cfg(unix)]
    if secret {
        use std::os::unix::fs::PermissionsExt;
        if let Err(e) = std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600)) {
            fsio::remove_quietly(&tmp);
            return Err(e);
        }
    }
    #[cfg(not(unix))]
    let _ = secret;
    if let Err(e) = std::fs::rename(&tmp, &path) {
        fsio::remove_quietly(&tmp);
        return Err(e);
    }
    Ok(path)
}

/// `daebug.test` in a Node realm: the runner (Node's own node:test) and
/// the report it shares with pages, which `daebug-node.mjs` imports from
/// beside itself on first use.
const TEST_FILES: [(&str, &str); 2] = [
    (
        "daebug-test-node.mjs",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../adapter-shim/daebug-test-node.mjs"
        )),
    ),
    (
        "daebug-test-report.mjs",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../adapter-shim/daebug-test-report.mjs"
        )),
    ),
];

/// Writes the Node test runner's files into `debug` (no secret in them),
/// each in one step like the loader.
pub fn write_test_runner(debug: &Path) -> std::io::Result<()> {
    for (name, text) in TEST_FILES {
        let path = debug.join(name);
        let tmp = fsio::write_temp(&path, text)?;
        if let Err(e) = std::fs::rename(&tmp, &path) {
            fsio::remove_quietly(&tmp);
            return Err(e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hub_url_is_written_in_once_as_a_string() {
        let t = text("http://127.0.0.1:8302/daebug.js?token=a\"b");
        assert!(t.contains(r#""http://127.0.0.1:8302/daebug.js?token=a\"b""#));
        assert!(!t.contains("__DAEBUG_SELF__"));
        // The shared hooks are spliced in: the file is whole.
        assert!(t.contains("function hooks(self)") && !t.contains("/* daebug:hooks */"));
    }
}
