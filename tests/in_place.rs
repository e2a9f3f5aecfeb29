//! Paced strategies in place, end to end on this host:
//! `--paced alone|in-place|both` as run.json records it (the A/A check is
//! tests/aa_in_place.rs).

mod common;

#[test]
fn run_json_records_whether_paced_strategies_ran_in_place_alone_or_both() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let run = |paced: &str| {
        common::contend_json(&[
            "run",
            "--print",
            "json",
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
    let groups_of = |w: &serde_json::Value, paced: &str| {
        assert_eq!(w["config"]["paced"], paced);
        w["config"]["in_place"].clone()
    };
    let in_place_groups = groups_of(&v, "in-place");
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
    // Both: in place as in-place, and each paced strategy alone too, one
    // repeat a round under the index of the round's repeat in place.
    let v = run("both");
    assert_eq!(v["config"]["paced"], "both");
    assert_eq!(groups_of(&v, "both"), in_place_groups);
    let mut alone = 0;
    for s in v["strategies"].as_array().unwrap() {
        let index = |key: &str| -> Vec<u64> {
            s.get(key)
                .and_then(|r| r.as_array())
                .map_or(Vec::new(), |r| {
                    r.iter().map(|r| r["repeat"].as_u64().unwrap()).collect()
                })
        };
        let paced = s["rate"].as_f64().is_some();
        let want: Vec<u64> = if paced { vec![0, 1] } else { Vec::new() };
        assert_eq!(index("alone_repeats"), want, "{}", s["name"]);
        assert_eq!(index("repeats"), [0, 1], "{}", s["name"]);
        alone += usize::from(paced);
    }
    assert_eq!(alone, 2, "always and never, paced");
    // Anything else is bad input: exit 2, one line.
    let bad = common::contend(&["run", "--paced", "sideways"]);
    assert_eq!(bad.status.code(), Some(2));
}
