//! `debug.md` keeps what the agent writes there, however it is saved and
//! while realms come and go (docs/log-format.md, "The registry"): a real
//! hub, fake realms over real WebSockets, and the file written the ways
//! agents and editors write it.

mod support;

use std::io::Write as _;
use std::path::Path;

use support::{append, save_atomically, FakeRealm, TestHub};

const NOTE: &str = "blocks do not run in debug.md";

/// How an agent's tool saves the registry.
#[derive(Debug, Clone, Copy)]
enum Save {
    /// Opens for append and writes the block.
    Append,
    /// Reads it, then writes the whole file again (truncate, then write).
    Rewrite,
    /// Reads it, then renames a temp file over it.
    Rename,
}

fn save(path: &Path, how: Save, block: &str) {
    match how {
        Save::Append => append(path, block),
        Save::Rewrite => {
            let text = std::fs::read_to_string(path).unwrap() + block;
            std::fs::write(path, text).unwrap();
        }
        Save::Rename => {
            let text = std::fs::read_to_string(path).unwrap() + block;
            save_atomically(path, &text);
        }
    }
}

fn block(n: usize) -> String {
    format!("\n```js\nblock{n}()\n```\n")
}

/// Whether block `n` is in `text` with its note under it.
fn answered(text: &str, n: usize) -> bool {
    let Some(at) = text.find(&format!("block{n}()")) else {
        return false;
    };
    let rest = &text[at..];
    let next = rest[1..].find("```js").map_or(rest.len(), |i| i + 1);
    rest[..next].contains(NOTE)
}

/// An editor that saves in place: `open(O_TRUNC)`, then (here, after a
/// realm came, so the hub rewrites the registry while the file is empty)
/// the write. The block and what was there before are kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_truncate_then_write_save_of_the_registry_loses_nothing() {
    let hub = TestHub::start().await;
    let _shop = hub.realm("Shop", "000a").await;
    let registry = hub.registry();
    let before = hub.wait_file(&registry, |t| t.contains("shop-000a")).await;
    let wanted = before + "my note\n" + &block(1);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&registry)
        .unwrap();
    // Between the truncate and the write: the hub sees the empty file,
    // and a realm comes.
    hub.wait_file(&registry, str::is_empty).await;
    let _cart = hub.realm("Cart", "000b").await;
    support::wait_for_hub_to_look(&hub).await;
    f.write_all(wanted.as_bytes()).unwrap();
    drop(f);
    let text = hub
        .wait_file(&registry, |t| answered(t, 1) && t.contains("cart-000b"))
        .await;
    assert!(text.contains("my note\n"), "{text}");
    assert_eq!(text.matches(NOTE).count(), 1, "{text}");
}

/// The torture: fifteen blocks saved into `debug.md` by append, whole
/// rewrite from a fresh read, temp file + rename and in-place saves,
/// while realms connect and leave. Every block stays and gets its note.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocks_written_into_the_registry_while_realms_come_and_go_are_all_kept() {
    const SAVES: usize = 15;
    let hub = TestHub::start().await;
    let registry = hub.registry();
    let mut churn = Vec::new();
    let mut realm_changes = 0;
    for n in 0..SAVES {
        // A realm comes (the hub rewrites the registry) as the agent saves.
        let (name, id) = (format!("Tab{n}"), format!("{:04x}", 0x100 + n));
        let arriving = FakeRealm::connect(
            &hub,
            daebug_protocol::RealmKind::Page,
            &name,
            &id,
            Vec::new(),
        );
        let how = [Save::Append, Save::Rewrite, Save::Rename][n % 3];
        let (realm, ()) = tokio::join!(arriving, async {
            if n % 4 == 3 {
                // In place, with the file empty while the hub looks.
                let text = std::fs::read_to_string(&registry).unwrap() + &block(n);
                let mut f = std::fs::File::create(&registry).unwrap();
                tokio::task::yield_now().await;
                f.write_all(text.as_bytes()).unwrap();
            } else {
                save(&registry, how, &block(n));
            }
        });
        churn.push(realm);
        realm_changes += 1;
        // And one leaves.
        if n % 2 == 1 {
            churn.remove(0).close().await;
            realm_changes += 1;
        }
    }
    let deadline = std::time::Instant::now() + support::DEADLINE;
    let mut text = String::new();
    while std::time::Instant::now() < deadline {
        text = std::fs::read_to_string(&registry).unwrap_or_default();
        if (0..SAVES).all(|n| answered(&text, n)) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let lost: Vec<usize> = (0..SAVES)
        .filter(|&n| !text.contains(&format!("block{n}()")))
        .collect();
    let unanswered = (0..SAVES).filter(|&n| !answered(&text, n)).count();
    println!(
        "registry torture: {SAVES} saves, {realm_changes} realm changes, {} blocks lost, {unanswered} without a note",
        lost.len()
    );
    assert!(lost.is_empty(), "lost {lost:?}:\n{text}");
    assert_eq!(unanswered, 0, "{text}");
    for n in 0..SAVES {
        assert_eq!(
            text.matches(&format!("block{n}()")).count(),
            1,
            "block {n}:\n{text}"
        );
    }
}
