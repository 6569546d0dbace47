//! `daebug list`: the realms the hub knows, as a table or JSON.

use std::io::Write;

use daebug::doors::client;
use daebug::doors::door::Door;
use daebug::doors::json::{DoorError, RealmInfo};

use super::{connect, HubArgs};

pub async fn list(hub: &HubArgs, json: bool) -> Result<u8, DoorError> {
    let realms = connect(hub)?.realms().await?;
    let mut out = std::io::stdout().lock();
    if json {
        let text = serde_json::to_string_pretty(&realms).unwrap_or_default();
        let _ = writeln!(out, "{text}");
    } else if realms.is_empty() {
        eprintln!("daebug: no realms yet; a page connects by loading the hub's daebug.js");
    } else {
        let _ = write!(out, "{}", realms_table(&realms));
    }
    Ok(client::EXIT_OK)
}

/// The realms as an aligned table.
fn realms_table(realms: &[RealmInfo]) -> String {
    let header = ["STEM", "KIND", "STATE", "LAST", "NAME", "URL"];
    // A realm a person has to answer says so in its state, as
    // `list_realms` does (docs/log-format.md, "Panels").
    let states: Vec<String> = realms
        .iter()
        .map(|r| match r.waiting.as_slice() {
            [] => r.state.clone(),
            waiting => format!("{}, waiting for a person ({})", r.state, waiting.len()),
        })
        .collect();
    let rows: Vec<[&str; 6]> = realms
        .iter()
        .zip(&states)
        .map(|(r, state)| {
            [
                r.stem.as_str(),
                r.kind.as_str(),
                state.as_str(),
                r.last.as_str(),
                r.name.as_str(),
                r.url.as_str(),
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&" ".repeat(widths[i] - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_of_realms() {
        let realm = |stem: &str, state: &str| RealmInfo {
            stem: stem.into(),
            kind: "page".into(),
            name: "Shop".into(),
            url: "http://127.0.0.1:8302/".into(),
            state: state.into(),
            last: "10:00:00".into(),
            heard: "10:00:00".into(),
            log: format!("debug/{stem}.md"),
            waiting: Vec::new(),
            log_error: None,
        };
        let table = realms_table(&[realm("shop-3f2a", "idle"), realm("a", "disconnected")]);
        assert_eq!(
            table,
            "STEM       KIND  STATE         LAST      NAME  URL\n\
             shop-3f2a  page  idle          10:00:00  Shop  http://127.0.0.1:8302/\n\
             a          page  disconnected  10:00:00  Shop  http://127.0.0.1:8302/\n"
        );
        let mut asking = realm("w", "running");
        asking.waiting.push(daebug_protocol::person::Waiting {
            id: 1,
            kind: "panel".into(),
            title: "Checkout form".into(),
            view: serde_json::Value::Null,
        });
        let table = realms_table(&[asking]);
        assert!(
            table.contains("  running, waiting for a person (1)  10:00:00"),
            "{table}"
        );
    }
}
