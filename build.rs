//! Records the git commit contend is built from, for result provenance.
//!
//! It watches only what can change that answer: HEAD, the branch it points
//! at, packed-refs and the sources. Not the index: a plain `git status`
//! rewrites it whenever file times look racy (a fresh clone's do), and the
//! crate would compile again for nothing; staging changes no source, and an
//! edit outside src/ is marked `-dirty` at the next build that compiles.
//! Each path is asked of git, as in a worktree `.git` is a file, and a
//! watched path that does not exist would rerun this script on every build.

use std::process::Command;

/// Runs git without taking optional locks, so this script's own `git
/// status` leaves the index as it is.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"])
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let suffix = if dirty && commit != "unknown" {
        "-dirty"
    } else {
        ""
    };
    println!("cargo:rustc-env=CONTEND_GIT_COMMIT={commit}{suffix}");
    let branch = git(&["symbolic-ref", "-q", "HEAD"]);
    let watched = ["HEAD", "packed-refs"]
        .into_iter()
        .map(str::to_string)
        .chain(branch);
    for name in watched {
        if let Some(path) =
            git(&["rev-parse", "--git-path", &name]).filter(|p| std::path::Path::new(p).exists())
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
}
