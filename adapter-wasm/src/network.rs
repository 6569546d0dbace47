//! Requests the realm made (`fetch`, `XMLHttpRequest`), as the log needs
//! them. The loader keeps them in plain JavaScript and writes their lines
//! and a job's summary there too (`adapter-shim/hooks.js`, so a hooked
//! request costs the page almost nothing and the `.wasm` stays within its
//! budget); the adapter makes them `Text network` events. Pure.

use daebug_protocol::{BackgroundEvent, EventType, Level};

/// A `Text network` event.
pub fn network_event(message: String, ts: String) -> BackgroundEvent {
    BackgroundEvent {
        kind: EventType::Browser,
        level: Level::Log,
        source: Some("network".into()),
        ts,
        message,
        stack: None,
    }
}

/// Takes out of a job's events the failed requests its summary lists
/// (the same line): the reply shows each once, in the summary. A failure
/// the summary left out (among its `... (N more requests) ...`) stays.
pub fn drop_listed(events: &mut Vec<BackgroundEvent>, summary: &str) {
    let listed: Vec<&str> = summary.lines().collect();
    events.retain(|e| {
        !(e.kind == EventType::Browser
            && e.source.as_deref() == Some("network")
            && listed.contains(&e.message.as_str()))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_the_summary_lists_is_shown_once() {
        let failed = "GET http://h/cart.json → 404 Not Found (4 ms)";
        let resource = "img http://h/logo.png failed to load";
        let mut events = vec![
            network_event(failed.into(), "t".into()),
            network_event(resource.into(), "t".into()),
            network_event(
                "GET http://h/older → 500 Internal Server Error (2 ms)".into(),
                "t".into(),
            ),
        ];
        let mut console = network_event(failed.into(), "t".into());
        console.kind = EventType::Console;
        console.source = None;
        events.push(console);
        drop_listed(
            &mut events,
            &format!("GET http://h/ok → 200 OK (1 ms)\n{failed}"),
        );
        let left: Vec<&str> = events.iter().map(|e| e.message.as_str()).collect();
        // The listed failure goes; a resource, an unlisted request and a
        // console line with the same words stay.
        assert_eq!(
            left,
            [
                resource,
                "GET http://h/older → 500 Internal Server Error (2 ms)",
                failed
            ]
        );
    }
}
