//! The printed outputs of recorded result files and fixtures, checked
//! against snapshot files under tests/snapshots/: a wording or number
//! change is one reviewed diff there. `CONTEND_SNAPSHOTS=write cargo test
//! --test snapshots` rewrites them from the current build.
//!
//! The inputs are real runs of this project's machine kept under
//! tests/fixtures/answers/ (two `run --runs 2` sides, a matrix, a quick
//! sweep, a study) and the seeds' topology and c2c fixtures.

mod common;
use common::{contend, first_run_json, stderr, stdout};
use std::path::Path;

const A: &str = "tests/fixtures/answers/a";
const B: &str = "tests/fixtures/answers/b";
const MATRIX: &str = "tests/fixtures/answers/matrix";
const SWEEP: &str = "tests/fixtures/answers/sweep";
const STUDY: &str = "tests/fixtures/answers/study";
const SPR: &str = "tests/fixtures/topology/spr-2s-224";
const EPYC: &str = "tests/fixtures/topology/epyc-7j13-2s-nps1-256";

/// One snapshot: its file name and the arguments of the command whose
/// stdout it holds.
fn cases() -> Vec<(&'static str, Vec<String>)> {
    let run = first_run(A);
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    vec![
        ("report-run", s(&["report", &run])),
        ("report-run-verbose", s(&["report", "--print", "all", &run])),
        (
            "report-run-markdown",
            s(&["report", "--format", "markdown", &run]),
        ),
        ("report-matrix", s(&["report", MATRIX])),
        ("report-sweep", s(&["report", SWEEP])),
        (
            "report-sweep-markdown",
            s(&["report", "--format", "markdown", SWEEP]),
        ),
        ("report-study", s(&["report", STUDY])),
        ("compare-runs", s(&["compare", A, B])),
        ("compare-runs-verbose", s(&["compare", "--verbose", A, B])),
        (
            "compare-runs-markdown",
            s(&["compare", "--format", "markdown", A, B]),
        ),
        ("compare-one-run", s(&["compare", &run, &first_run(B)])),
        (
            "compare-one-run-markdown",
            s(&["compare", "--format", "markdown", &run, &first_run(B)]),
        ),
        (
            "compare-strategies",
            s(&["compare", &run, "--base", "global", "--test", "node"]),
        ),
        (
            "predict-spr",
            s(&[
                "--sysfs-root",
                SPR,
                "predict",
                "--host",
                "smt=8ns,same-llc=51ns,cross-node=108ns",
            ]),
        ),
        (
            "predict-epyc",
            s(&[
                "--sysfs-root",
                EPYC,
                "predict",
                "--host",
                "smt=9ns,same-llc=23ns,same-node=100ns±10%,cross-node=197ns",
            ]),
        ),
        ("topology-spr", s(&["--sysfs-root", SPR, "topology"])),
        ("gallery", s(&["gallery", "tests/fixtures/c2c"])),
    ]
}

/// The first run.json under `dir`, in path order.
fn first_run(dir: &str) -> String {
    first_run_json(Path::new(dir))
        .expect("a run.json")
        .display()
        .to_string()
}

#[test]
fn printed_outputs_match_their_snapshots() {
    let write = std::env::var("CONTEND_SNAPSHOTS").as_deref() == Ok("write");
    let mut differ = Vec::new();
    for (name, args) in cases() {
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = contend(&argv);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let got = format!("$ contend {}\n{}", args.join(" "), stdout(&out));
        let path = format!("tests/snapshots/{name}.txt");
        if write {
            std::fs::create_dir_all("tests/snapshots").unwrap();
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if let Some((i, (w, g))) = want
            .lines()
            .chain(std::iter::repeat("<end>"))
            .zip(got.lines().chain(std::iter::repeat("<end>")))
            .enumerate()
            .take(want.lines().count().max(got.lines().count()))
            .find(|(_, (w, g))| w != g)
        {
            differ.push(format!("{path}:{}:\n  want: {w}\n  got:  {g}", i + 1));
        }
    }
    assert!(
        differ.is_empty(),
        "outputs differ from their snapshots (CONTEND_SNAPSHOTS=write rewrites them):\n{}",
        differ.join("\n")
    );
}
