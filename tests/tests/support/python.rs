//! The official MCP Python SDK (`mcp` on PyPI, the client most agents'
//! tools use), in a venv under `target/pyenv`, made on first use: the MCP
//! tests and the `mcp_python` bench drive daebug's MCP door with it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// The SDK's version, pinned so every run measures the same client.
pub const MCP_SDK: &str = "mcp==2.3.0";

/// The venv's python with the SDK installed, or why there is none (no
/// `python3` with `venv`, or PyPI out of reach).
pub fn python_sdk() -> Result<PathBuf, String> {
    // One maker at a time: the tests of one binary run in parallel.
    static MADE: OnceLock<Mutex<()>> = OnceLock::new();
    let _one = MADE.get_or_init(|| Mutex::new(())).lock();
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/pyenv");
    let python = venv.join("bin/python");
    let has_sdk = |p: &Path| {
        Command::new(p)
            .args(["-c", "import mcp"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if has_sdk(&python) {
        return Ok(python);
    }
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .is_ok_and(|s| s.success())
        && Command::new(venv.join("bin/pip"))
            .args(["install", "-q", MCP_SDK])
            .status()
            .is_ok_and(|s| s.success());
    match made && has_sdk(&python) {
        true => Ok(python),
        false => Err(format!(
            "no python3 with the MCP SDK in {} (python3 -m venv, pip install {MCP_SDK})",
            venv.display()
        )),
    }
}
