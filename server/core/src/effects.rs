//! What a Node realm did serving a page block's request, routed to that
//! page's log (docs/actions.md, "Effects in every realm"): the Node
//! loader sends it as an event of source `effect` (`{ to, text }` as
//! JSON); it never reaches the serving realm's own log (its `Text served`
//! line is there already) and arrives in the page's as a `Text served`
//! event, under the block's reply when it still runs.
//!
//! Only a Node realm's are taken: a page or a worker has no requests to
//! serve, and its code could otherwise write into another realm's log.

use daebug_protocol::{BackgroundEvent, EventType, Level, RealmKind, RealmMsg};

use crate::engine::render::SERVED_SOURCE;

/// The source of an effect event on the wire.
pub const EFFECT_SOURCE: &str = "effect";

/// How much of an effect's text a page's log takes.
const EFFECT_MAX: usize = 4096;

/// One realm's effect for the log of the realm `to`.
#[derive(Debug, Clone, PartialEq)]
pub struct Effect {
    pub to: String,
    pub event: BackgroundEvent,
}

/// Takes the effect events out of `msg` (a realm of kind `kind` sent it):
/// those of a Node realm for a well-named log, as that log's events;
/// every other effect event is dropped (none reaches a log as it came).
pub fn take_effects(msg: &mut RealmMsg, kind: RealmKind) -> Vec<Effect> {
    let events = match msg {
        RealmMsg::Background { events, .. } => events,
        RealmMsg::Progress(p) => &mut p.events,
        RealmMsg::Result(r) => &mut r.events,
        _ => return Vec::new(),
    };
    if !events.iter().any(is_effect) {
        return Vec::new();
    }
    let (effects, kept): (Vec<_>, Vec<_>) = std::mem::take(events).into_iter().partition(is_effect);
    *events = kept;
    match kind {
        RealmKind::Node => effects.into_iter().filter_map(effect_of).collect(),
        _ => Vec::new(),
    }
}

fn is_effect(e: &BackgroundEvent) -> bool {
    e.kind == EventType::Console && e.source.as_deref() == Some(EFFECT_SOURCE)
}

/// The effect an event carries, when its JSON names a log by a stem's
/// shape and has text.
fn effect_of(e: BackgroundEvent) -> Option<Effect> {
    #[derive(serde::Deserialize)]
    struct Said {
        to: String,
        text: String,
    }
    let said: Said = serde_json::from_str(&e.message).ok()?;
    let stem_like = !said.to.is_empty()
        && said.to.len() <= 64
        && said
            .to
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
        && !said.to.starts_with(['-', '.']);
    if !stem_like || said.text.trim().is_empty() {
        return None;
    }
    let mut text = said.text;
    if text.len() > EFFECT_MAX {
        let mut cut = EFFECT_MAX;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str(" … (cut)");
    }
    Some(Effect {
        to: said.to,
        event: BackgroundEvent {
            kind: EventType::Console,
            level: Level::Log,
            source: Some(SERVED_SOURCE.into()),
            ts: e.ts,
            message: text,
            stack: None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(source: &str, message: &str) -> BackgroundEvent {
        BackgroundEvent {
            kind: EventType::Console,
            level: Level::Log,
            source: (!source.is_empty()).then(|| source.to_string()),
            ts: "10:00:05".into(),
            message: message.into(),
            stack: None,
        }
    }

    fn background(events: Vec<BackgroundEvent>) -> RealmMsg {
        RealmMsg::Background {
            events,
            dropped: 0,
            limited: 0,
        }
    }

    #[test]
    fn a_node_realms_effects_leave_its_own_log_for_the_page_they_name() {
        let said = r#"{"to":"shop-3f2a","text":"[server-1a2b](server-1a2b.md) served POST /api/orders → 201 (3 ms)\n  console.log pricing"}"#;
        let mut msg = background(vec![
            event("", "listening"),
            event(EFFECT_SOURCE, said),
            event(SERVED_SOURCE, "POST /api/orders → 201 (3 ms)"),
        ]);
        let effects = take_effects(&mut msg, RealmKind::Node);
        assert_eq!(effects.len(), 1);
        assert_eq!(effects[0].to, "shop-3f2a");
        assert_eq!(effects[0].event.source.as_deref(), Some(SERVED_SOURCE));
        assert!(effects[0]
            .event
            .message
            .ends_with("\n  console.log pricing"));
        let RealmMsg::Background { events, .. } = msg else {
            unreachable!()
        };
        let left: Vec<_> = events.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(left, ["listening", "POST /api/orders → 201 (3 ms)"]);
    }

    #[test]
    fn effects_of_a_page_or_of_no_log_go_nowhere() {
        let table = [
            (RealmKind::Page, r#"{"to":"shop-3f2a","text":"x"}"#),
            (RealmKind::Worker, r#"{"to":"shop-3f2a","text":"x"}"#),
            (RealmKind::Node, r#"{"to":"../debug","text":"x"}"#),
            (RealmKind::Node, r#"{"to":"Shop","text":"x"}"#),
            (RealmKind::Node, r#"{"to":"shop-3f2a","text":"  "}"#),
            (RealmKind::Node, "not json"),
        ];
        for (kind, said) in table {
            let mut msg = background(vec![event(EFFECT_SOURCE, said)]);
            assert_eq!(take_effects(&mut msg, kind), [], "{kind:?} {said}");
            let RealmMsg::Background { events, .. } = msg else {
                unreachable!()
            };
            assert!(events.is_empty(), "{kind:?} {said}: dropped, not logged");
        }
    }

    #[test]
    fn a_long_effect_is_cut_and_says_so() {
        let long = "é".repeat(EFFECT_MAX);
        let said = serde_json::json!({ "to": "shop-3f2a", "text": long }).to_string();
        let mut msg = background(vec![event(EFFECT_SOURCE, &said)]);
        let effects = take_effects(&mut msg, RealmKind::Node);
        assert!(effects[0].event.message.len() <= EFFECT_MAX + 12);
        assert!(effects[0].event.message.ends_with(" … (cut)"));
    }
}
