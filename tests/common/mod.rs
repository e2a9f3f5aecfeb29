//! Helpers the integration tests share: running the built `contend`, its
//! output, and the results folder it writes.
// Each test binary uses its own subset of these.
#![allow(dead_code)]

pub mod browser;
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

/// Runs `contend ARGS` (a `--print json` command), which must succeed; its
/// stdout parsed as JSON.
pub fn contend_json(args: &[&str]) -> serde_json::Value {
    let out = contend(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
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

/// Every plain file under `dir`, at any depth, in path order.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// The first `run.json` under `dir`, in path order.
pub fn first_run_json(dir: &Path) -> Option<PathBuf> {
    files_under(dir)
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == "run.json"))
}

/// Runs a quick `contend matrix` (20 samples, 2 pairs a class) into
/// `out`, which must succeed; its results folder.
pub fn quick_matrix(out: &Path) -> PathBuf {
    let o = contend(&[
        "matrix",
        "--samples",
        "20",
        "--pairs",
        "2",
        "--print",
        "none",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    results_dir(out).expect("a matrix results folder")
}

/// The CPUs this test process may run on (and so the `contend` it starts),
/// read from `/proc/self/status`'s `Cpus_allowed_list` (`0-3,8,10-11`)
/// without contend's own code.
pub fn allowed_cpus() -> Vec<u32> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .expect("Cpus_allowed_list in /proc/self/status")
        .trim();
    let mut cpus = Vec::new();
    for part in list.split(',') {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<u32>().unwrap()..=b.parse::<u32>().unwrap()),
            None => cpus.push(part.parse().unwrap()),
        }
    }
    cpus
}

/// `contend ARGS` exits 2, prints nothing on stdout, and says why in one
/// stderr line naming `needle` ([`assert_one_line_error`]).
pub fn assert_usage_error(args: &[&str], needle: &str) {
    // Shown with the failure, should there be one.
    println!("contend {}", args.join(" "));
    assert_one_line_error(&contend(args), needle);
}

/// `out` exited 2, printed nothing on stdout, and said why in one stderr
/// line, `contend: error: ...` naming `needle`, clap's own usage errors
/// included.
pub fn assert_one_line_error(out: &Output, needle: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty(), "stdout {}", stdout(out));
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one line, got {err}");
    assert!(
        lines[0].starts_with("contend: error: "),
        "expected `contend: error:`, got {err}"
    );
    assert!(
        lines[0].contains(needle),
        "the error line does not name {needle:?}: {err}"
    );
}

/// A path as a command-line argument.
pub fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A JSON file's contents.
pub fn load(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Writes `value` as `dir/name`; its path.
pub fn save(dir: &Path, name: &str, value: &serde_json::Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    path
}

/// Markdown as a reader sees it: each backslash escape of a punctuation
/// character (`\\[`, `\\|`, `\\<`) read as the character.
pub fn unescape_markdown(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut chars = md.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(next)) if next.is_ascii_punctuation() => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}
