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
}
