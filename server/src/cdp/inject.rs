//! Attach with no tag (docs/zero-edits.md, "Attach to a browser"): the
//! adapter put into the pages and workers of the attached browser through
//! DevTools, so they are realms with the same logs as with the tag.
//!
//! - A page (or an out-of-process frame): a script evaluated on every new
//!   document, ahead of its first line (`Page.addScriptToEvaluateOnNewDocument`;
//!   it checks the document's URL itself, `reach.rs`), and run at once in
//!   the document already there (`runImmediately`: a tab open before the
//!   hub attached, not reloaded). A tab whose URL is reached also has its
//!   CSP bypassed (`Page.setBypassCSP`), so a page whose CSP forbids the
//!   hub's origin still loads the adapter and talks to the hub; the bridge
//!   turns it off as the tab goes to a URL not reached.
//! - A worker started while the bridge is attached waits for it
//!   (`waitForDebuggerOnStart`): a breakpoint before its first script
//!   (`Debugger.setInstrumentationBreakpoint`), then the loader evaluated
//!   there, then it runs on. (A waiting worker answers no
//!   `Runtime.evaluate` until it runs, hence the breakpoint.) A worker
//!   already running gets the loader at once.
//!
//! All of it belongs to the bridge's DevTools session: when the hub stops
//! (or the bridge detaches) the browser drops the script and the CSP
//! bypass; the pages keep running as they are.

use serde_json::{json, Value};

use super::connection::CdpCommands;
use super::reach::Reach;

/// What the bridge puts in: the rule, and the two scripts made once.
pub struct Injection {
    pub reach: Reach,
    /// The loader with its guard, for every new document of a page.
    page_script: String,
    /// The loader alone, for a worker the bridge decided on.
    worker_script: String,
}

impl Injection {
    /// `loader`: `daebug.js` as the hub serves it from `url` (its URL
    /// written in). Both scripts are named `url` (`sourceURL`), as the
    /// tag's would be: the loader's frames are then daebug's own where a
    /// stack is read (a request's initiator leaves them out), not the
    /// `<anonymous>` of an evaluated script.
    pub fn new(reach: Reach, loader: &str, url: &str) -> Injection {
        let named = format!("\n//# sourceURL={url}\n");
        Injection {
            page_script: reach.new_document_script(loader) + &named,
            worker_script: format!(
                "globalThis[Symbol.for(\"daebug.attach\")] = true;\n{loader}\n;undefined{named}"
            ),
            reach,
        }
    }
}

/// Schemes of the browser's own pages: never given the script at all.
pub fn is_browsers_own(url: &str) -> bool {
    let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
    matches!(
        scheme.as_str(),
        "chrome" | "chrome-untrusted" | "devtools" | "chrome-extension" | "chrome-search"
    )
}

/// A page's (or frame's) session as it is attached: the script for every
/// new document, run now in the one there, and the CSP bypass when its
/// URL is reached. Errors are left: a target that went away.
pub async fn page(commands: &CdpCommands, injection: &Injection, session: &str, url: &str) {
    let s = Some(session);
    let _ = commands.call("Page.enable", json!({}), s).await;
    if injection.reach.reaches(url) {
        bypass_csp(commands, session, true).await;
    }
    let _ = commands
        .call(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": injection.page_script, "runImmediately": true }),
            s,
        )
        .await;
}

/// Turns the CSP bypass of a tab on or off (for its next document).
pub async fn bypass_csp(commands: &CdpCommands, session: &str, enabled: bool) {
    let _ = commands
        .call(
            "Page.setBypassCSP",
            json!({ "enabled": enabled }),
            Some(session),
        )
        .await;
}

/// A worker the bridge reaches: waiting to start, a breakpoint before its
/// first script (the loader goes in there, [`paused`]); already running,
/// the loader now. Returns the breakpoint's id when one waits.
pub async fn worker(
    commands: &CdpCommands,
    injection: &Injection,
    session: &str,
    waiting: bool,
) -> Option<String> {
    let s = Some(session);
    if !waiting {
        let _ = commands
            .call(
                "Runtime.evaluate",
                json!({ "expression": injection.worker_script, "silent": true }),
                s,
            )
            .await;
        return None;
    }
    let _ = commands.call("Debugger.enable", json!({}), s).await;
    let set = commands
        .call(
            "Debugger.setInstrumentationBreakpoint",
            json!({ "instrumentation": "beforeScriptExecution" }),
            s,
        )
        .await
        .ok()?;
    set.get("breakpointId")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// The worker stopped before its first script (`breakpoint`): the loader
/// evaluated there, the breakpoint removed, the worker on its way, its
/// debugger off again.
pub async fn paused(
    commands: &CdpCommands,
    injection: &Injection,
    session: &str,
    breakpoint: &str,
    event: &Value,
) {
    let s = Some(session);
    if let Some(frame) = event.pointer("/callFrames/0/callFrameId") {
        let _ = commands
            .call(
                "Debugger.evaluateOnCallFrame",
                json!({ "callFrameId": frame, "expression": injection.worker_script, "silent": true }),
                s,
            )
            .await;
    }
    let _ = commands
        .call(
            "Debugger.removeInstrumentationBreakpoint",
            json!({ "breakpointId": breakpoint }),
            s,
        )
        .await;
    let _ = commands.call("Debugger.resume", json!({}), s).await;
    let _ = commands.call("Debugger.disable", json!({}), s).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browsers_own_pages_are_never_touched() {
        for url in [
            "chrome://newtab/",
            "devtools://devtools/bundled/inspector.html",
            "chrome-extension://abcdef/popup.html",
            "chrome-untrusted://x/",
        ] {
            assert!(is_browsers_own(url), "{url}");
        }
        assert!(!is_browsers_own("http://localhost:5173/"));
        assert!(!is_browsers_own("about:blank"));
    }
}
