//! The registry `debug.md`: one line per realm, fully hub-managed.

use super::effect::LogState;
use super::time::ClockTime;
pub use super::url_text::{shown_url, MAX_URL};

/// The registry lists at most this many realms (the file stays short).
const MAX_LINES: usize = 150;

pub use daebug_protocol::RealmKind;

/// A realm's state as the registry shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RealmStatus {
    /// Connected: the state of its log.
    Log(LogState),
    /// Stopped answering pings.
    Unresponsive,
    /// Its WebSocket closed.
    Disconnected,
}

impl RealmStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RealmStatus::Log(s) => s.as_str(),
            RealmStatus::Unresponsive => "unresponsive",
            RealmStatus::Disconnected => "disconnected",
        }
    }
}

/// One realm's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RealmEntry {
    pub stem: String,
    pub kind: RealmKind,
    pub url: String,
    /// A Node process's pid (`(node /srv/server.js pid 4121)`).
    pub pid: Option<u32>,
    /// Last heartbeat (hub time).
    pub last_seen: ClockTime,
    pub state: RealmStatus,
    /// Why its log cannot be written now (a full disk), if it cannot.
    pub unwritten: Option<String>,
}

/// Whether the hub is up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HubStatus {
    /// Serving; `script` is the tag to paste into a page.
    Running { script: String },
    /// Stopped at `at`; `restart` is the command that starts it again.
    Stopped { at: ClockTime, restart: String },
}

/// The whole text of `debug.md`.
pub fn render(status: &HubStatus, realms: &[RealmEntry]) -> String {
    let mut s = String::from(
        "# 👾 daebug — connected pages\n> Master registry of connected pages and states. Do not edit server-updated lines here; open a page's per-instance log to run code against that page.\n\n",
    );
    match status {
        HubStatus::Running { .. } => {}
        HubStatus::Stopped { at, restart } => {
            s.push_str(&format!("> The hub stopped at {at}. Start it again with `{restart}`; open pages reconnect by themselves.\n\n"));
        }
    }
    if realms.is_empty() {
        if let HubStatus::Running { script } = status {
            s.push_str(&format!(
                "No pages connected yet. Load the adapter in a page: `{script}`\n"
            ));
        } else {
            s.push_str("No pages were connected.\n");
        }
    }
    for r in realms.iter().take(MAX_LINES) {
        let kind = match r.kind {
            RealmKind::Page => "",
            RealmKind::Worker => "worker ",
            RealmKind::Node => "node ",
        };
        let pid = r.pid.map(|p| format!(" pid {p}")).unwrap_or_default();
        // An OS error's words: only plain characters, cut short.
        let unwritten = r
            .unwritten
            .as_deref()
            .map(|why| {
                let plain = why
                    .chars()
                    .filter(|c| c.is_alphanumeric() || " ():;,.'-".contains(*c))
                    .take(120);
                format!(
                    " — the log is not being written: {}",
                    plain.collect::<String>()
                )
            })
            .unwrap_or_default();
        s.push_str(&format!(
            "* [{stem}](debug/{stem}.md) ({kind}{url}{pid}) last {last} state: {state}{unwritten}\n",
            stem = r.stem,
            url = shown_url(&r.url),
            last = r.last_seen,
            state = r.state.as_str()
        ));
    }
    if realms.len() > MAX_LINES {
        s.push_str(&format!(
            "* … and {} more; their logs are in `debug/`\n",
            realms.len() - MAX_LINES
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> ClockTime {
        ClockTime::parse(s).unwrap()
    }

    fn entry(stem: &str, kind: RealmKind, url: &str, state: RealmStatus) -> RealmEntry {
        RealmEntry {
            stem: stem.into(),
            kind,
            url: url.into(),
            pid: (kind == RealmKind::Node).then_some(4121),
            last_seen: at("10:00:05"),
            state,
            unwritten: None,
        }
    }

    #[test]
    fn running_registry_lists_realms_as_in_design() {
        let realms = [
            entry(
                "shop-3f2a",
                RealmKind::Page,
                "http://127.0.0.1:8302/index.html",
                RealmStatus::Log(LogState::Idle),
            ),
            entry(
                "worker-91bc",
                RealmKind::Worker,
                "http://127.0.0.1:8302/w.js",
                RealmStatus::Log(LogState::Executing),
            ),
            entry(
                "old-0001",
                RealmKind::Page,
                "http://x/(a)\nb",
                RealmStatus::Disconnected,
            ),
            entry(
                "server-1a2b",
                RealmKind::Node,
                "/srv/app/server.js",
                RealmStatus::Log(LogState::Idle),
            ),
        ];
        let text = render(
            &HubStatus::Running {
                script: "<script>".into(),
            },
            &realms,
        );
        assert_eq!(
            text,
            "# 👾 daebug — connected pages\n\
             > Master registry of connected pages and states. Do not edit server-updated lines here; open a page's per-instance log to run code against that page.\n\
             \n\
             * [shop-3f2a](debug/shop-3f2a.md) (http://127.0.0.1:8302/index.html) last 10:00:05 state: idle\n\
             * [worker-91bc](debug/worker-91bc.md) (worker http://127.0.0.1:8302/w.js) last 10:00:05 state: executing\n\
             * [old-0001](debug/old-0001.md) (http://x/%28a%29%0Ab) last 10:00:05 state: disconnected\n\
             * [server-1a2b](debug/server-1a2b.md) (node /srv/app/server.js pid 4121) last 10:00:05 state: idle\n"
        );
    }

    #[test]
    fn urls_cannot_make_markdown_and_are_capped() {
        let forged = "http://x/<http://evil>[a](b)`c`\u{2028}* d_e";
        assert_eq!(
            shown_url(forged),
            "http://x/%3Chttp://evil%3E%5Ba%5D%28b%29%60c%60%E2%80%A8%2A%20d%5Fe"
        );
        let long = format!("http://x/{}", "a".repeat(1_000_000));
        let shown = shown_url(&long);
        assert_eq!(shown.chars().count(), MAX_URL + 1);
        assert!(shown.ends_with('…'));
    }

    #[test]
    fn stopped_and_empty_registries_say_what_to_do() {
        let stopped = HubStatus::Stopped {
            at: at("11:30:00"),
            restart: "cargo run --release -- --root .".into(),
        };
        let text = render(
            &stopped,
            &[entry(
                "shop-3f2a",
                RealmKind::Page,
                "u",
                RealmStatus::Unresponsive,
            )],
        );
        assert!(text.contains(
            "> The hub stopped at 11:30:00. Start it again with `cargo run --release -- --root .`"
        ));
        assert!(text.ends_with("state: unresponsive\n"));
        let empty = render(
            &HubStatus::Running {
                script: "<script type=\"module\" src=\"x\"></script>".into(),
            },
            &[],
        );
        assert!(empty.contains("No pages connected yet. Load the adapter in a page: `<script type=\"module\" src=\"x\"></script>`"));
    }

    #[test]
    fn long_registries_stay_short() {
        let many: Vec<_> = (0..400)
            .map(|i| {
                entry(
                    &format!("p-{i:04x}"),
                    RealmKind::Page,
                    "u",
                    RealmStatus::Log(LogState::Idle),
                )
            })
            .collect();
        let text = render(
            &HubStatus::Running {
                script: String::new(),
            },
            &many,
        );
        assert!(text.lines().count() < 200, "{} lines", text.lines().count());
        assert!(text.contains("… and 250 more"));
    }
}
