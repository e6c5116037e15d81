//! What every command needs: where the workspace is, how to run cargo, how a step is
//! announced. A leaf: the commands' modules use it, it uses none of them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root directory.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// The cargo that runs us (`$CARGO`), or the one on the path.
pub fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

/// Announces a step of a command.
pub fn step(what: &str) {
    println!("==> {what}");
}
