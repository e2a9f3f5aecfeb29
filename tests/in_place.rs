//! Paced strategies in place, end to end on this host:
//! `--paced alone|in-place` as run.json records it (the A/A check is
//! tests/aa_in_place.rs).

mod common;

#[test]
fn run_json_records_whether_paced_strategies_ran_in_place_or_alone() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let run = |paced: &str| {
        common::contend_json(&[
            "run",
            "--json",
            "--out",
            out,
            "--duration",
            "40ms",
            "--repeats",
            "2",
            "--warmup",
            "0",
            "--writers",
            "1",
            "--rate",
            "max,22k",
            "--publish",
            "always,never",
            "--level",
            "global",
            "--paced",
            paced,
        ])
    };
    // In place: the paced strategies in one group, sharing repeat
    // indexes; flat out never grouped.
    let v = run("in-place");
    assert_eq!(v["config"]["paced"], "in-place");
    let groups = v["config"]["in_place"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert_eq!(groups[0]["regime"], 22000.0);
    let names: Vec<&str> = groups[0]["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(names, ["global/always/pad128", "global/never/pad128"]);
    // compare in one file pairs the paced rows repeat by repeat, and says
    // so; the flat-out row is Welch's.
    let file = common::results_dir(dir.path()).unwrap().join("run.json");
    let cmp = common::contend(&[
        "compare",
        file.to_str().unwrap(),
        "--base",
        "global/always",
        "--test",
        "global/never",
    ]);
    let text = common::stdout(&cmp);
    assert!(
        text.contains("paired: in 2 rows both strategies ran in place"),
        "{text}"
    );
    // Alone: no group.
    let v = run("alone");
    assert_eq!(v["config"]["paced"], "alone");
    assert_eq!(v["config"]["in_place"], serde_json::json!([]));
    // Anything else is bad input: exit 2, one line.
    let bad = common::contend(&["run", "--paced", "sideways"]);
    assert_eq!(bad.status.code(), Some(2));
}
