//! `daebug tail`: the end of a realm's log, then what is written to it,
//! until Ctrl-C. The one client command that follows the hub's change
//! events, which the doors' façade does not carry: it asks the hub's
//! HTTP API directly ([`HubClient`]).

use daebug::doors::attached::door_error;
use daebug::doors::client::{self, ClientError, HubClient, LogFollower};
use daebug::doors::json::DoorError;
use futures_util::StreamExt;

use super::{print_flush, HubArgs};

pub async fn tail(hub: &HubArgs, realm: &str, lines: usize) -> Result<u8, DoorError> {
    follow(hub, realm, lines).await.map_err(door_error)
}

async fn follow(hub: &HubArgs, realm: &str, lines: usize) -> Result<u8, ClientError> {
    let client = HubClient::find(&hub.root, hub.host.as_deref(), hub.port, hub.token.clone())?;
    let stem = client.realm(realm).await?.stem;
    // Subscribed before the log is read: no change falls between.
    let mut events = client.events().await?;
    let text = client.log(&stem, None).await?;
    let mut follower = LogFollower::new(&text);
    print_flush(daebug::doors::last_lines(&text, lines));
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(interrupted);
    loop {
        let event = tokio::select! {
            _ = &mut interrupted => return Ok(client::EXIT_OK),
            event = events.next() => event,
        };
        match event {
            Some(Ok(daebug::doors::json::HubEvent::Log { stem: changed })) if changed == stem => {
                let text = client.log(&stem, None).await?;
                let new = follower.update(&text);
                if !new.is_empty() {
                    print_flush(&(new.join("\n") + "\n"));
                }
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(e),
            None => {
                return Err(ClientError::NoHub("the hub stopped".into()));
            }
        }
    }
}
