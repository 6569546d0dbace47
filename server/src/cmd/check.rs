//! `daebug check <file.md> [--realm R]` (docs/log-format.md, "Logs as tests"):
//! a recorded log's blocks replayed in a live realm, in order, through its
//! log like any door's; each reply's value (or error) compared with the
//! recorded one (`daebug_core::check`, pure); each difference printed with the
//! block it belongs to; exit 1 on any.

use std::io::Write;
use std::path::Path;

use daebug::doors::client::{EXIT_FAILED, EXIT_OK, EXIT_OTHER};
use daebug::doors::door::Door;
use daebug::doors::json::{DoorError, EvalRequest, Timeout};
use daebug_core::check::{compare, recorded_blocks, reply_outcome, LineSpan};
use daebug_core::lang::Lang;

use super::{connect, HubArgs};

/// The name the replay's request headers give it unless told.
const AGENT: &str = "check";

pub async fn check(
    hub: &HubArgs,
    file: &Path,
    realm: Option<&str>,
    agent: Option<String>,
    lines: Option<LineSpan>,
) -> Result<u8, DoorError> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("daebug: cannot read {}: {e}", file.display());
            return Ok(EXIT_OTHER);
        }
    };
    let (mut blocks, stem) = recorded_blocks(&text);
    if let Some(span) = lines {
        blocks.retain(|b| span.holds(b.line));
    }
    let Some(realm) = realm.map(String::from).or(stem) else {
        eprintln!(
            "daebug: {} has no reply naming its realm; pass --realm",
            file.display()
        );
        return Ok(EXIT_OTHER);
    };
    let client = connect(hub)?;
    let name = file.display();
    let mut out = std::io::stdout().lock();
    let mut differences = 0;
    for block in &blocks {
        let req = EvalRequest {
            code: block.code.clone(),
            lang: (block.lang == Lang::Ts).then(|| "ts".to_string()),
            timeout: block.timeout.clone().map(Timeout::Text),
            agent: Some(agent.clone().unwrap_or_else(|| AGENT.into())),
        };
        let reply = client.eval(&realm, req).await?;
        let place = format!("block {} ({name}:{})", block.index, block.line);
        let Some(recorded) = &block.outcome else {
            let _ = writeln!(out, "- {place}: ran (no recorded reply to compare)");
            continue;
        };
        let now = reply_outcome(&reply.text);
        let difference = match &now {
            Some(now) => compare(recorded, now),
            None => Some("the reply has no result".to_string()),
        };
        match difference {
            None => {
                let _ = writeln!(out, "✔ {place}");
            }
            Some(d) => {
                differences += 1;
                let _ = writeln!(out, "✖ {place}: {d}");
            }
        }
        let _ = out.flush();
    }
    let _ = writeln!(
        out,
        "{} blocks replayed in {realm}, {differences} differ",
        blocks.len()
    );
    Ok(if differences == 0 {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}
