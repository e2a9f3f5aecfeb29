//! `contend compare` and `contend report` end to end, on result files made
//! by a real short run (and edited copies of it).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

mod common;
use common::{contend, stderr, stdout};

/// One real run (levels global and node, 3 repeats), made once for every
/// test: its results folder and run.json.
struct Run {
    _dir: tempfile::TempDir,
    folder: PathBuf,
    json: PathBuf,
}

fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = contend(&[
            "run",
            "--json",
            "--out",
            dir.path().to_str().unwrap(),
            "--duration",
            "60ms",
            "--repeats",
            "3",
            "--warmup",
            "0",
            "--level",
            "global,node",
            "--publish",
            "always",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let json = find_run_json(dir.path()).expect("run wrote run.json");
        Run {
            folder: json.parent().unwrap().to_path_buf(),
            json,
            _dir: dir,
        }
    })
}

fn find_run_json(dir: &Path) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        if path.is_dir() {
            if let Some(found) = find_run_json(&path) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == "run.json") {
            return Some(path);
        }
    }
    None
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn load(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn save(dir: &Path, name: &str, value: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(value).unwrap()).unwrap();
    path
}

/// Exit 2 and a single `contend: error:` line containing `needle`.
fn assert_one_line_error(out: &Output, needle: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("contend: error:"), "{err}");
    assert!(err.contains(needle), "{err}");
}

#[test]
fn a_file_against_itself_shows_no_measurable_difference() {
    let r = run();
    let out = contend(&["compare", s(&r.json), s(&r.folder)]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    for name in ["global/always/pad128", "node/always/pad128"] {
        assert!(text.lines().any(|l| l == name), "{text}");
    }
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("  ")).collect();
    assert_eq!(rows.len(), 8, "{text}"); // 2 strategies x 4 measures
    for row in rows {
        assert!(row.contains("test: "), "{row}");
        assert!(row.contains("no measurable difference"), "{row}");
        assert!(
            ["updates/s", "read ops/s", "write ns/op", "read ns/op"]
                .iter()
                .any(|m| row.trim_start().starts_with(m)),
            "{row}"
        );
    }
}

#[test]
fn levels_inside_one_file() {
    let r = run();
    let out = contend(&["compare", s(&r.json), "--base", "global", "--test", "node"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        text.contains("global/always/pad128 vs node/always/pad128"),
        "{text}"
    );
    assert!(text.starts_with("base: global in "), "{text}");
    let updates = text
        .lines()
        .find(|l| l.trim_start().starts_with("updates/s"))
        .unwrap();
    // Either a signed change or the seeds' words, and a p-value.
    assert!(
        updates.contains("no measurable difference") || updates.contains('%'),
        "{updates}"
    );
    assert!(
        updates.contains("p=") || updates.contains("p<"),
        "{updates}"
    );

    let missing = contend(&["compare", s(&r.json), "--base", "global", "--test", "cpu"]);
    assert_one_line_error(&missing, "--test cpu matches no strategy");
    let alone = contend(&["compare", s(&r.json)]);
    assert_one_line_error(&alone, "--base and --test");
}

#[test]
fn markdown_has_a_table() {
    let r = run();
    let out = contend(&[
        "compare",
        s(&r.json),
        "--base",
        "global",
        "--test",
        "node",
        "--markdown",
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.starts_with("| configuration | measure | base | test | change | p |"))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(lines[header + 1], "|---|---|---|---|---|---|");
    assert_eq!(
        lines[header + 2..]
            .iter()
            .take_while(|l| l.starts_with('|'))
            .count(),
        4,
        "{text}"
    );
}

#[test]
fn missing_and_corrupt_files_are_one_line_errors() {
    let r = run();
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json");
    assert_one_line_error(&contend(&["compare", s(&missing), s(&r.json)]), "nope.json");
    assert_one_line_error(&contend(&["report", s(&missing)]), "nope.json");

    let corrupt = dir.path().join("corrupt.json");
    std::fs::write(&corrupt, "{\"schema\": 1, \"strategies\": [").unwrap();
    assert_one_line_error(
        &contend(&["compare", s(&r.json), s(&corrupt)]),
        "not a contend result file",
    );
    let wrong = save(dir.path(), "wrong.json", &serde_json::json!({"schema": 1}));
    assert_one_line_error(&contend(&["report", s(&wrong)]), "wrong.json");
    assert_one_line_error(&contend(&["report", s(dir.path())]), "no run.json");
}

#[test]
fn out_is_never_overwritten_without_force() {
    let r = run();
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("compare.md");
    std::fs::write(&out_file, "keep me").unwrap();
    let args = ["compare", s(&r.json), s(&r.json), "--out", s(&out_file)];
    assert_one_line_error(&contend(&args), "compare.md");
    assert_eq!(std::fs::read_to_string(&out_file).unwrap(), "keep me");

    let forced = contend(&[&args[..], &["--force", "--markdown"]].concat());
    assert!(forced.status.success(), "{}", stderr(&forced));
    assert!(stdout(&forced).is_empty());
    let written = std::fs::read_to_string(&out_file).unwrap();
    assert!(written.contains("| configuration |"), "{written}");

    let report = dir.path().join("report.md");
    let ok = contend(&["report", s(&r.json), "--markdown", "--out", s(&report)]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert_one_line_error(
        &contend(&["report", s(&r.json), "--out", s(&report)]),
        "report.md",
    );
}

#[test]
fn other_hosts_warn_and_unmatched_strategies_are_listed() {
    let r = run();
    let dir = tempfile::tempdir().unwrap();
    let mut other = load(&r.json);
    other["provenance"]["hostname"] = "elsewhere".into();
    other["provenance"]["contend_version"] = "9.9.9".into();
    other["strategies"].as_array_mut().unwrap().remove(1);
    let other = save(dir.path(), "other.json", &other);
    let out = contend(&["compare", s(&r.json), s(&other)]);
    let (text, err) = (stdout(&out), stderr(&out));
    assert!(out.status.success(), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("warning: different hosts") && l.contains("elsewhere")),
        "{err}"
    );
    assert!(
        err.lines()
            .any(|l| l.starts_with("warning: different contend versions")),
        "{err}"
    );
    assert!(
        text.contains("only in base (not compared): node/always/pad128"),
        "{text}"
    );
    assert!(text.lines().any(|l| l == "global/always/pad128"), "{text}");
}

#[test]
fn clearly_different_runs_report_the_change() {
    let r = run();
    let dir = tempfile::tempdir().unwrap();
    let summary = |mean: f64| {
        serde_json::json!({
            "n": 3, "mean": mean, "stddev": mean / 100.0, "stddev_pct": 1.0,
            "ci95_low": mean * 0.97, "ci95_high": mean * 1.03,
            "min": mean * 0.99, "max": mean * 1.01
        })
    };
    let with_writes = |mean: f64| {
        let mut v = load(&r.json);
        for st in v["strategies"].as_array_mut().unwrap() {
            st["summary"]["write_ops_per_s"] = summary(mean);
        }
        v
    };
    let base = save(dir.path(), "base.json", &with_writes(90_569.0));
    let test = save(dir.path(), "test.json", &with_writes(104_152.0));
    let out = contend(&["compare", s(&base), s(&test)]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("updates/s"))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    for row in rows {
        assert!(row.contains("base: 90569±1.00%"), "{row}");
        assert!(row.contains("test: 104152±1.00%"), "{row}");
        assert!(row.contains("+15.0%"), "{row}");
        assert!(row.contains("p<0.001"), "{row}");
    }
}

#[test]
fn report_prints_run_and_sweep_files() {
    let r = run();
    let out = contend(&["report", s(&r.json)]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        text.contains("write side: updates/s, all writers (higher is better)"),
        "{text}"
    );
    assert!(text.contains("exact sums: all 6 repeats exact"), "{text}");

    let md = stdout(&contend(&["report", s(&r.folder), "--markdown"]));
    assert!(
        md.contains("\n| policy | global | node |\n|---|---|---|\n| always | "),
        "{md}"
    );
    assert!(md.contains("- **kernel:** Linux "), "{md}");
    assert!(md.contains("**Exact sums:** all 6 repeats exact."), "{md}");

    let dir = tempfile::tempdir().unwrap();
    let sweep = serde_json::json!({
        "schema": 1,
        "partial": false,
        "points": [
            { "threads": 1, "affinity": "node0", "results": load(&r.json) },
            { "threads": 2, "affinity": "unbound", "results": load(&r.json) },
        ],
    });
    let sweep = save(dir.path(), "sweep.json", &sweep);
    let out = contend(&["report", s(&sweep), "--markdown"]);
    let md = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(md.starts_with("## contend sweep on "), "{md}");
    assert!(
        md.contains("| threads | affinity | policy | global | node |\n|---|---|---|---|---|\n"),
        "{md}"
    );
    assert!(md.contains("\n| 2 | unbound | always | "), "{md}");
    assert!(md.contains("all 12 repeats exact"), "{md}");
    let text = stdout(&contend(&["report", s(&sweep)]));
    assert!(text.contains("=== 1 threads, affinity node0 ==="), "{text}");

    let refused = contend(&["compare", s(&sweep), s(&r.json)]);
    assert_one_line_error(&refused, "is a sweep");
}
