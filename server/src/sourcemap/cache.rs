//! Parsed maps by script URL, bounded in count and bytes (least recently
//! used go first), and misses remembered so a script without a map is not
//! fetched for every stack. Time comes in as `now`: no clock here.
//!
//! Entries expire: a miss after [`MISS_LIFE`], a map after [`MAP_LIFE`],
//! so a dev server's rebuilt script (same URL, new code) is read again;
//! Vite names a rebuilt module with a new `?t=` URL anyway.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::parsed::ParsedMap;

/// How long a script known to have no usable map is not asked again.
pub const MISS_LIFE: Duration = Duration::from_secs(5);
/// How long a parsed map is used before its script is read again.
pub const MAP_LIFE: Duration = Duration::from_secs(30);
/// At most this many scripts are remembered...
pub const MAX_ENTRIES: usize = 256;
/// ...and this many bytes of parsed maps.
pub const MAX_BYTES: usize = 64 << 20;

/// What the cache knows of a script.
#[derive(Debug, Clone)]
pub enum Known {
    /// Its map.
    Map(Arc<ParsedMap>),
    /// It has none (or it could not be read): its frames stay.
    NoMap,
}

#[derive(Debug)]
struct Entry {
    known: Known,
    stored: Instant,
    used: u64,
    weight: usize,
}

/// The cache; one per hub, behind a lock held only for a lookup.
#[derive(Debug, Default)]
pub struct MapCache {
    entries: HashMap<String, Entry>,
    bytes: usize,
    /// A use counter: the entry with the smallest `used` goes first.
    uses: u64,
}

impl MapCache {
    /// What is known of `url`, if it is still fresh.
    pub fn get(&mut self, url: &str, now: Instant) -> Option<Known> {
        self.uses += 1;
        let entry = self.entries.get_mut(url)?;
        let life = match entry.known {
            Known::Map(_) => MAP_LIFE,
            Known::NoMap => MISS_LIFE,
        };
        if now.saturating_duration_since(entry.stored) >= life {
            return None;
        }
        entry.used = self.uses;
        Some(entry.known.clone())
    }

    pub fn insert(&mut self, url: String, known: Known, now: Instant) {
        self.uses += 1;
        let weight = match &known {
            Known::Map(m) => m.weight(),
            Known::NoMap => 0,
        } + url.len()
            + 64;
        if let Some(old) = self.entries.remove(&url) {
            self.bytes -= old.weight;
        }
        if weight > MAX_BYTES {
            return;
        }
        self.bytes += weight;
        self.entries.insert(
            url,
            Entry {
                known,
                stored: now,
                used: self.uses,
                weight,
            },
        );
        while self.entries.len() > MAX_ENTRIES || self.bytes > MAX_BYTES {
            let Some(oldest) = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(e) = self.entries.remove(&oldest) {
                self.bytes -= e.weight;
            }
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> Known {
        let json = r#"{"version":3,"sources":["a.ts"],"names":[],"mappings":"AAAA"}"#;
        Known::Map(Arc::new(ParsedMap::parse(json, "http://h/a.js").unwrap()))
    }

    #[test]
    fn misses_and_maps_expire() {
        let t0 = Instant::now();
        let mut cache = MapCache::default();
        cache.insert("http://h/none.js".into(), Known::NoMap, t0);
        cache.insert("http://h/a.js".into(), map(), t0);
        assert!(matches!(
            cache.get("http://h/none.js", t0 + MISS_LIFE / 2),
            Some(Known::NoMap)
        ));
        assert!(cache.get("http://h/none.js", t0 + MISS_LIFE).is_none());
        assert!(matches!(
            cache.get("http://h/a.js", t0 + MISS_LIFE),
            Some(Known::Map(_))
        ));
        assert!(cache.get("http://h/a.js", t0 + MAP_LIFE).is_none());
        assert!(cache.get("http://h/other.js", t0).is_none());
    }

    #[test]
    fn the_least_recently_used_go_first() {
        let t0 = Instant::now();
        let mut cache = MapCache::default();
        for i in 0..MAX_ENTRIES {
            cache.insert(format!("http://h/{i}.js"), Known::NoMap, t0);
        }
        // 0 is used, so 1 is the oldest.
        assert!(cache.get("http://h/0.js", t0).is_some());
        cache.insert("http://h/new.js".into(), map(), t0);
        assert_eq!(cache.len(), MAX_ENTRIES);
        assert!(cache.get("http://h/0.js", t0).is_some());
        assert!(cache.get("http://h/1.js", t0).is_none());
        assert!(cache.get("http://h/new.js", t0).is_some());
    }

    #[test]
    fn a_new_entry_replaces_the_old_and_its_bytes() {
        let t0 = Instant::now();
        let mut cache = MapCache::default();
        cache.insert("http://h/a.js".into(), map(), t0);
        let bytes = cache.bytes;
        cache.insert("http://h/a.js".into(), map(), t0);
        assert_eq!((cache.len(), cache.bytes), (1, bytes));
    }
}
