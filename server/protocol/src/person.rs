//! The person in the loop (docs/log-format.md, "Panels"): what a realm's panels, `ask` and
//! `pick` tell the hub, and what the dashboard sends back for a worker's
//! or a Node process's panel.
//!
//! On the wire these travel as JSON text inside [`crate::RealmMsg::Person`]
//! and [`crate::HubMsg::Person`]: the adapter only routes them between the
//! socket and the toolkit's panel module (plain JavaScript the hub serves),
//! so its `.wasm` carries no codec for them. The hub reads them here, typed.

use serde::{Deserialize, Serialize};

/// Realm → hub, inside [`crate::RealmMsg::Person`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PersonNews {
    /// Everything in the realm that waits for a person now (the whole
    /// list, not a change): shown by `list_realms`, the API and the
    /// dashboard.
    Waiting { waits: Vec<Waiting> },
    /// A person answered: the log gets `> **human** answered "<title>" at
    /// HH:MM:SS` and the value in a `JSON` fence.
    Answered {
        title: String,
        #[serde(default)]
        value: serde_json::Value,
    },
}

/// One panel, ask or pick waiting for a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waiting {
    /// The realm's number for it (dashboard events name it).
    pub id: u64,
    /// `panel`, `ask` or `pick`.
    pub kind: String,
    /// The panel's title, the ask's text or the pick's prompt.
    pub title: String,
    /// A worker's or Node process's panel or ask as the dashboard draws it:
    /// `{"t": tag, "p": props, "c": children}` nodes (text as strings),
    /// handlers as `{"$h": n}`. Null for a page's (the page shows it).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub view: serde_json::Value,
}

/// Hub → realm, inside [`crate::HubMsg::Person`]: a person acted on a
/// panel or ask in the dashboard (a trusted event there).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PersonAct {
    /// The [`Waiting::id`].
    pub id: u64,
    /// The handler's number in the view (`{"$h": n}`).
    pub handler: u64,
    /// The event's type (`click`, `input`, `change`).
    #[serde(default)]
    pub event: String,
    /// The target's `value` (or `checked` for a checkbox).
    #[serde(default)]
    pub value: serde_json::Value,
}
