//! Keeping the registry short (`debug.md`): realms gone for more than ten
//! minutes leave the list, and the file ends with links to at most ten
//! earlier logs, the most recently gone first. Pure: how long each realm
//! has been gone is passed in.

use std::time::Duration;

/// A realm gone (its connection closed) for longer leaves the list.
pub const GONE_FOR: Duration = Duration::from_secs(10 * 60);
/// At most this many earlier logs are linked.
pub const MAX_EARLIER: usize = 10;

/// A realm as the pruning sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen<'a> {
    pub stem: &'a str,
    /// How long it has been gone; `None` while connected.
    pub gone_for: Option<Duration>,
}

/// What the registry shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Indexes of the realms that stay listed, in their order.
    pub listed: Vec<usize>,
    /// Stems of earlier logs to link: realms gone for more than
    /// [`GONE_FOR`], most recently gone first, then `others` (logs no
    /// realm of this run owns) in their order; at most [`MAX_EARLIER`].
    pub earlier: Vec<String>,
}

pub fn prune(realms: &[Seen<'_>], others: &[&str]) -> Pruned {
    let gone = |r: &Seen<'_>| r.gone_for.is_some_and(|d| d > GONE_FOR);
    let listed = (0..realms.len()).filter(|&i| !gone(&realms[i])).collect();
    let mut old: Vec<&Seen<'_>> = realms.iter().filter(|r| gone(r)).collect();
    old.sort_by_key(|r| r.gone_for);
    let earlier = old
        .into_iter()
        .map(|r| r.stem)
        .chain(
            others
                .iter()
                .copied()
                .filter(|s| !realms.iter().any(|r| r.stem == *s)),
        )
        .take(MAX_EARLIER)
        .map(String::from)
        .collect();
    Pruned { listed, earlier }
}

/// How long until the next listed realm leaves the list, so the registry
/// is written again then.
pub fn next_change(realms: &[Seen<'_>]) -> Option<Duration> {
    realms
        .iter()
        .filter_map(|r| r.gone_for)
        .filter(|d| *d <= GONE_FOR)
        .map(|d| GONE_FOR - d + Duration::from_millis(1))
        .min()
}

/// The registry's last line: links to the earlier logs (empty when none).
pub fn section(earlier: &[String]) -> String {
    if earlier.is_empty() {
        return String::new();
    }
    let links: Vec<String> = earlier
        .iter()
        .map(|s| format!("[{s}](debug/{s}.md)"))
        .collect();
    format!("\nEarlier logs: {}\n", links.join(" · "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn min(m: u64) -> Option<Duration> {
        Some(Duration::from_secs(m * 60))
    }

    #[test]
    fn realms_gone_for_more_than_ten_minutes_leave_the_list() {
        // (stem, gone for, listed?)
        let table: &[(&str, Option<Duration>, bool)] = &[
            ("live-0001", None, true),
            ("just-gone-0002", min(0), true),
            ("ten-0003", min(10), true),
            ("eleven-0004", min(11), false),
            ("hour-0005", min(60), false),
            ("live-0006", None, true),
        ];
        let realms: Vec<Seen<'_>> = table
            .iter()
            .map(|(stem, gone_for, _)| Seen {
                stem,
                gone_for: *gone_for,
            })
            .collect();
        let p = prune(&realms, &["adopted-0007", "live-0001"]);
        let want: Vec<usize> = (0..table.len()).filter(|&i| table[i].2).collect();
        assert_eq!(p.listed, want);
        // Most recently gone first, then logs of no realm; a realm's own
        // log is not linked twice.
        assert_eq!(p.earlier, ["eleven-0004", "hour-0005", "adopted-0007"]);
        assert_eq!(next_change(&realms), Some(Duration::from_millis(1)));
    }

    #[test]
    fn at_most_ten_earlier_logs() {
        let stems: Vec<String> = (0..50).map(|i| format!("p-{i:04x}")).collect();
        let realms: Vec<Seen<'_>> = stems
            .iter()
            .enumerate()
            .map(|(i, s)| Seen {
                stem: s,
                gone_for: min(11 + i as u64),
            })
            .collect();
        let p = prune(&realms, &["x-0001"]);
        assert!(p.listed.is_empty());
        assert_eq!(p.earlier.len(), MAX_EARLIER);
        assert_eq!(p.earlier[0], "p-0000");
        assert_eq!(
            section(&p.earlier[..2]),
            "\nEarlier logs: [p-0000](debug/p-0000.md) · [p-0001](debug/p-0001.md)\n"
        );
        assert_eq!(section(&[]), "");
        assert_eq!(next_change(&realms), None);
    }

    #[test]
    fn the_next_change_is_when_the_first_gone_realm_passes_ten_minutes() {
        let realms = [
            Seen {
                stem: "a-0001",
                gone_for: min(4),
            },
            Seen {
                stem: "b-0002",
                gone_for: min(7),
            },
            Seen {
                stem: "c-0003",
                gone_for: None,
            },
        ];
        assert_eq!(
            next_change(&realms),
            Some(Duration::from_secs(180) + Duration::from_millis(1))
        );
    }
}
