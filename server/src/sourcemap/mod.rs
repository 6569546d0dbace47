//! Stacks as the log shows them, past the cells' own positions
//! ([`crate::prepare::cell`]): daebug's frames dropped, and frames of
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
/// before [`cache::MISS_LIFE`]).
pub const LOAD_TIME: Duration = Duration::from_secs(1);
/// The largest script read to find its map reference...
const SCRIPT_LIMIT: usize = 32 << 20;
/// ...and the largest map.
const MAP_LIMIT: usize = 64 << 20;

/// The hub's source maps, shared by its log tasks.
#[derive(Debug, Default)]
pub struct SourceMaps {
    cache: Mutex<MapCache>,
}

impl SourceMaps {
    pub fn new() -> Arc<SourceMaps> {
        Arc::new(SourceMaps::default())
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

    /// The scripts `stacks` name that the cache knows nothing fresh of.
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
