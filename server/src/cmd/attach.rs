//! `daebug attach [URL]`: the hub, attached to a Chromium the person
//! already has (started with `--remote-debugging-port=9222`), putting the
//! adapter into its pages and their workers with no tag: the same as
//! `daebug --cdp URL`, with the hub's flags (`--root`, `--match`, …;
//! docs/zero-edits.md, "Attach to a browser").

use anyhow::Result;
use clap::Args;

use super::serve::{serve, ServeArgs};

/// `daebug attach`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct AttachArgs {
    /// The browser's DevTools endpoint (`http://127.0.0.1:9222`, or the
    /// `ws://…` URL it printed).
    #[arg(value_name = "URL", default_value = "http://127.0.0.1:9222")]
    pub endpoint: String,

    #[command(flatten)]
    pub serve: ServeArgs,
}

/// Serves as `daebug --cdp URL` until Ctrl-C or SIGTERM (or, with a
/// command after `--`, while it runs); the status to exit with.
pub async fn attach(args: AttachArgs) -> Result<u8> {
    let mut hub = args.serve;
    hub.cdp.get_or_insert(args.endpoint);
    serve(hub, false).await
}
