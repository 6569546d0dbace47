//! What a fenced block is, as both the log engine (which finds blocks)
//! and the preparer (which turns them into code) see it. A leaf: it uses
//! neither, so neither depends on the other through it.

/// A fence the realm can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// `js`, `javascript`, `mjs` or no info string.
    Js,
    /// `ts` or `typescript`: types are stripped before dispatch.
    Ts,
}

/// Options of an executable fence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecInfo {
    pub lang: Lang,
    /// `Some(Ok(ms))` for a valid `timeout=…`, `Some(Err(token))` for an
    /// invalid one (answered with an error instead of running).
    pub timeout: Option<Result<u64, String>>,
    /// `Some(Ok(n))` for a valid `depth=N` (1 to 20), `Some(Err(token))`
    /// for an invalid one (answered with an error, like a bad timeout).
    pub depth: Option<Result<u32, String>>,
    /// The `full` option: the whole value, without depth or item limits.
    pub full: bool,
    /// The `prelude` option: the block runs again in every new document of
    /// its realm (see `engine/prelude.rs`).
    pub prelude: bool,
    /// A data fence (`json agent.data => "id"`): the target it sets, see
    /// `engine/agent_data.rs`. Its other options are not read.
    pub data: Option<String>,
}

impl ExecInfo {
    /// The first option the block cannot run with, and how to write it
    /// instead (the reply's error message).
    pub fn invalid(&self) -> Option<String> {
        if let Some(Err(token)) = &self.timeout {
            return Some(format!(
                "invalid fence option `{token}`; write it as timeout=120s, timeout=500ms or timeout=2m"
            ));
        }
        if let Some(Err(token)) = &self.depth {
            return Some(format!(
                "invalid fence option `{token}`; write it as depth=8 (1 to {}, {} when absent), or full for the whole value",
                daebug_protocol::MAX_DEPTH,
                daebug_protocol::DEFAULT_DEPTH
            ));
        }
        None
    }
}
