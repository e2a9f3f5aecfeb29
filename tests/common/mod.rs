//! Helpers the integration tests share: running the built `contend`, its
//! output, and the results folder it writes.
// Each test binary uses its own subset of these.
#![allow(dead_code)]

pub mod xml;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `contend` binary cargo built for these tests.
pub fn contend(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_contend"))
        .args(args)
        .output()
        .unwrap()
}

/// The command's stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The command's stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The one results folder under `root` (`root/<host>/<stamp>`), if made.
pub fn results_dir(root: &Path) -> Option<PathBuf> {
    let host = std::fs::read_dir(root).ok()?.next()?.ok()?.path();
    Some(std::fs::read_dir(host).ok()?.next()?.ok()?.path())
}

/// `contend ARGS` exits 2 with a single `contend: error:` line naming
/// `needle` (clap's own value errors add a hint line after theirs).
pub fn assert_usage_error(args: &[&str], needle: &str) {
    let out = contend(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(
        lines.len() == 1 || lines[0].starts_with("error: invalid value"),
        "{args:?}: expected one line, got {err}"
    );
}
