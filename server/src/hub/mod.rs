//! The hub's tasks: everything around the pure engine that touches the
//! world. The running hub (`app/`) binds the port and runs them until
//! shutdown.
//!
//! - [`directory`]: one task that knows every realm and log task and keeps
//!   the registry `debug.md`.
//! - [`log_task`]: one task per chat log; owns its engine and its file.
//! - [`realm`]: one task per realm WebSocket (`/ws`).
//! - [`watcher`]: `notify` on the `debug/` folder.
//! - [`clock`], [`names`], [`fsio`]: time, stems and ids, atomic writes.

pub mod browser_seen;
pub mod clock;
pub mod directory;
pub mod fsio;
pub mod history;
pub mod image_file;
pub mod in_place;
pub mod log_file;
pub mod log_task;
pub mod messages;
pub mod names;
pub mod node_loader;
pub mod realm;
pub mod registry_file;
pub mod timing;
pub mod watcher;
pub mod window;
