//! Stacks as the log shows them, past the cells' own positions
//! ([`daebug_core::prepare::cell`]): daebug's frames dropped, and frames of
//! page scripts that have a source map moved to the original file, line
//! and column.
//!
//! - [`frames`] (pure): frame lines read, cleaned and rewritten.
//! - [`parsed`] (pure): a script's `sourceMappingURL`, where it points, the
//!   map as a lookup table.
//! - [`url`] (pure): origins and relative references.
//! - [`cache`] (pure, time passed in): maps by script URL, LRU, misses kept.
//! - [`fetch`]: one HTTP GET.
//!
//! [`SourceMaps`] ties them: [`SourceMaps::map`] rewrites a stack from
//! the cache alone (microseconds, no IO), and [`SourceMaps::load`] fetches
//! what a stack needs and the cache lacks, within [`LOAD_TIME`]. The log
//! task awaits `load` only for messages whose stacks name scripts it does
//! not know, so its usual path does no IO.

pub mod cache;
pub mod fetch;
pub mod frames;
pub mod parsed;
pub mod url;

use std::borrow::Cow;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cache::{Known, MapCache};
use parsed::{MapAt, ParsedMap};

/// How long a message waits for the maps its stacks need, all fetched at
/// once; after that its frames stay unmapped (the fetch is not retried
/// Scripts one realm message may have fetched (see [`SourceMaps::unknown`]).
pub const LOADS_PER_MESSAGE: usize = 8;

/// before [`cache::MISS_LIFE`]).
pub const LOAD_TIME: Duration = Duration::from_secs(1);
/// The largest script read to find its map reference...
const SCRIPT_LIMIT: usize = 32 << 20;
/// ...and the largest map.
const MAP_LIMIT: usize = 64 << 20;

/// Which origins the hub may read scripts from (`http://host:port`).
pub type Readable = Box<dyn Fn(&str) -> bool + Send + Sync>;

/// The hub's source maps, shared by its log tasks.
pub struct SourceMaps {
    cache: Mutex<MapCache>,
    /// A realm names any URL it likes in a stack: the hub reads only
    /// origins a page could connect from (the hub's Origin rules).
    readable: Readable,
}

impl std::fmt::Debug for SourceMaps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceMaps")
            .field("cache", &self.cache)
            .finish()
    }
}

impl SourceMaps {
    /// Maps read from any origin (tests and benches).
    pub fn new() -> Arc<SourceMaps> {
        SourceMaps::reading(Box::new(|_| true))
    }

    /// Maps read only from the origins `readable` admits.
    pub fn reading(readable: Readable) -> Arc<SourceMaps> {
        Arc::new(SourceMaps {
            cache: Mutex::default(),
            readable,
        })
    }

    /// `stack` without daebug's frames, and frames of scripts with a
    /// cached map rewritten. No IO.
    pub fn map<'s>(&self, stack: &'s str, now: Instant) -> Cow<'s, str> {
        let cleaned = frames::clean(stack);
        let scripts = frames::scripts(&cleaned);
        if scripts.is_empty() {
            return cleaned;
        }
        let maps: Vec<(String, Arc<ParsedMap>)> = {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            scripts
                .into_iter()
                .filter_map(|url| match cache.get(url::without_fragment(url), now)? {
                    Known::Map(m) => Some((url.to_string(), m)),
                    Known::NoMap => None,
                })
                .collect()
        };
        if maps.is_empty() {
            return cleaned;
        }
        let mapped = frames::map_frames(&cleaned, |url, line, column| {
            let (_, map) = maps.iter().find(|(u, _)| *u == url)?;
            map.lookup(line, column)
        });
        if let Cow::Owned(m) = mapped {
            return Cow::Owned(m);
        }
        cleaned
    }

    /// The scripts `stacks` name that the cache knows nothing fresh of, at
    /// most [`LOADS_PER_MESSAGE`]: page text can name any number of URLs,
    /// and frames past those stay unmapped.
    pub fn unknown<'s>(
        &self,
        stacks: impl IntoIterator<Item = &'s str>,
        now: Instant,
    ) -> Vec<String> {
        let mut wanted: Vec<String> = Vec::new();
        let mut cache = None;
        for stack in stacks {
            for url in frames::scripts(stack) {
                let url = url::without_fragment(url);
                if wanted.iter().any(|w| w == url) {
                    continue;
                }
                let cache = cache
                    .get_or_insert_with(|| self.cache.lock().unwrap_or_else(|e| e.into_inner()));
                if cache.get(url, now).is_none() {
                    wanted.push(url.to_string());
                    if wanted.len() == LOADS_PER_MESSAGE {
                        return wanted;
                    }
                }
            }
        }
        wanted
    }

    /// Fetches and parses the maps of `scripts` at once, within
    /// [`LOAD_TIME`], and caches what was found (a failure as
    /// [`Known::NoMap`], logged at debug).
    pub async fn load(&self, scripts: Vec<String>) {
        let loads = scripts.into_iter().map(|url| async move {
            if !url::origin(&url).is_some_and(|o| (self.readable)(o)) {
                tracing::debug!(%url, "no source map: not an origin the hub reads");
                return (url, Known::NoMap);
            }
            let found = match tokio::time::timeout(LOAD_TIME, read_map(&url)).await {
                Ok(Ok(map)) => Known::Map(Arc::new(map)),
                Ok(Err(e)) => {
                    tracing::debug!(%url, "no source map: {e}");
                    Known::NoMap
                }
                Err(_) => {
                    tracing::debug!(%url, "no source map: not read within {LOAD_TIME:?}");
                    Known::NoMap
                }
            };
            (url, found)
        });
        let found = futures_util::future::join_all(loads).await;
        let now = Instant::now();
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        for (url, known) in found {
            cache.insert(url, known, now);
        }
    }
}

/// Why a script's map was not read.
#[derive(Debug, thiserror::Error)]
enum ReadError {
    #[error(transparent)]
    Fetch(#[from] fetch::FetchError),
    #[error(transparent)]
    Map(#[from] parsed::MapError),
}

/// The script at `url`, its map reference, the map.
async fn read_map(url: &str) -> Result<ParsedMap, ReadError> {
    let script = fetch::get_text(url, SCRIPT_LIMIT).await?;
    let reference = parsed::map_reference(&script).ok_or(parsed::MapError::NoReference)?;
    Ok(match parsed::locate(url, reference)? {
        MapAt::Inline(json) => ParsedMap::parse(&json, url)?,
        MapAt::Url(map_url) => {
            let json = fetch::get_text(&map_url, MAP_LIMIT).await?;
            ParsedMap::parse(&json, &map_url)?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const STACK: &str = "Error: x\n    at f (http://127.0.0.1:9/a.js:1:1)";

    #[tokio::test]
    async fn origins_not_readable_are_not_fetched() {
        let maps = SourceMaps::reading(Box::new(|_| false));
        let unknown = maps.unknown([STACK], Instant::now());
        assert_eq!(unknown, ["http://127.0.0.1:9/a.js"]);
        maps.load(unknown).await;
        assert!(
            maps.unknown([STACK], Instant::now()).is_empty(),
            "remembered as a miss"
        );
        assert_eq!(maps.map(STACK, Instant::now()), STACK);
    }

    /// Page text naming many scripts starts a bounded number of fetches.
    #[test]
    fn one_message_asks_for_a_few_scripts_at_most() {
        let maps = SourceMaps::reading(Box::new(|_| true));
        let stack: String = (0..50)
            .map(|i| format!("    at f (http://127.0.0.1:9/s{i}.js:1:1)\n"))
            .collect();
        let unknown = maps.unknown([stack.as_str()], Instant::now());
        assert_eq!(unknown.len(), LOADS_PER_MESSAGE);
        assert_eq!(unknown[0], "http://127.0.0.1:9/s0.js");
    }

    /// A server that accepts and never answers: the message waits at most
    /// `LOAD_TIME`, and its frames stay.
    #[tokio::test]
    async fn a_silent_server_costs_at_most_the_load_time() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let _held = tokio::spawn(async move {
            let mut open = Vec::new();
            while let Ok((s, _)) = listener.accept().await {
                open.push(s);
            }
        });
        let stack = format!("Error: x\n    at f (http://{addr}/a.js:1:1)");
        let maps = SourceMaps::new();
        let start = std::time::Instant::now();
        maps.load(maps.unknown([stack.as_str()], Instant::now()))
            .await;
        let took = start.elapsed();
        assert!(took >= LOAD_TIME && took < LOAD_TIME * 2, "{took:?}");
        assert_eq!(maps.map(&stack, Instant::now()), stack);
    }
}
