//! Paced strategies in place, end to end on this host: the A/A check (the
//! same strategies twice in place must be called no change) and
//! `--paced alone|in-place` as run.json records it.

use contend::compare::compared_measures;
use contend::counter::{NodeIter, Pad, PublishPolicy, ShardLevel};
use contend::placement::Placement;
use contend::runner::{self, PoolSize, Pools, RunRequest, StrategyChoice};
use contend::stats::{Compared, Decision, NOISE_THRESHOLD, decide_paired};
use contend::topology::Topology;
use contend::workload::Regime;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

mod common;

#[test]
fn the_same_strategies_twice_in_place_are_called_no_change() {
    // global/always and global/ratelimit:1ms+threshold:64, each twice, in
    // place at 22k/s on two writers (one if the host has one CPU), seed
    // 7, 24 repeats of 80 ms: at 6, one CI run in about twenty called a
    // change (2026-12-02 18:56Z: -7.4 ns [-12.0, -2.7], 4 degrees of
    // freedom), the interval too wide to tell noise from a bias beyond
    // the ±2% threshold; at 24 a chance call needs a mean about three
    // half-widths out. Each copy against its twin, in both paced
    // measures, decided as one family (paired on the per-repeat
    // differences, Holm-adjusted, ±2% and 1 ns): identical work at
    // staggered offsets must not differ beyond noise, so no row may be a
    // change either way.
    let topo = Topology::read(Path::new("/")).unwrap();
    let writers = topo.allowed_cpus.to_vec().len().min(2);
    let request = RunRequest {
        pools: Pools {
            writers: Some(PoolSize::Count(writers)),
            ..Pools::default()
        },
        read_every: 1,
        strategies: StrategyChoice {
            levels: vec![ShardLevel::Global],
            policies: vec![
                PublishPolicy::ALWAYS,
                "ratelimit:1ms+threshold:64".parse().unwrap(),
            ],
            pads: vec![Pad::Line128],
            clocks: vec![contend::clock::ClockKind::Tsc],
        },
        counter_node: None,
        node_iter: NodeIter::Compact,
        duration: Duration::from_millis(1920),
        warmup: Duration::from_millis(20),
        repeats: 24,
        target_ci_pct: None,
        max_time: None,
        rates: vec![Regime::SEED],
        seed: 7,
        sample_every: None,
        placement: Placement::Strict,
    };
    let mut plan = runner::plan(&request, topo).unwrap();
    let once = plan.strategies.clone();
    plan.strategies = once.iter().flat_map(|&s| [s, s]).collect();
    let run = runner::execute(&plan, &AtomicBool::new(false), |_, _, _| {}).unwrap();
    // One group in place: the clock floor and the four lanes.
    assert_eq!(run.config.in_place.len(), 1, "{:?}", run.config.in_place);
    assert_eq!(run.config.in_place[0].strategies.len(), 5);
    assert!(
        run.strategies
            .iter()
            .all(|s| s.exact && s.repeats.len() == 24)
    );
    let mut family = Vec::new();
    let mut rows = Vec::new();
    for twins in run.strategies.chunks(2) {
        let (a, b) = (&twins[0], &twins[1]);
        assert_eq!(a.name, b.name);
        for m in compared_measures(a.regime) {
            family.push(Compared {
                base: m.of(a).unwrap(),
                test: m.of(b).unwrap(),
                paired: m.paired(&run.config, a, b),
                threshold: m.threshold(NOISE_THRESHOLD, a.regime),
            });
            rows.push(format!("{} {}", a.name, m.short));
        }
    }
    for (o, row) in decide_paired(&family).iter().zip(&rows) {
        assert!(
            o.difference.paired && o.difference.welch.is_some(),
            "{row}: not paired"
        );
        if let Some(w) = o.difference.welch {
            let (lo, hi) = w.interval(0.95);
            eprintln!(
                "A/A {row}: second copy less first, mean of per-repeat differences {:+.3} (95% CI {lo:+.3} to {hi:+.3}), Holm-adjusted p {:.3}, {:?}",
                w.difference,
                o.p_adjusted.unwrap_or(1.0),
                o.decision
            );
        }
        assert!(
            !matches!(o.decision, Decision::Increase | Decision::Decrease),
            "{row}: A/A called a change: {o:?}"
        );
    }
}

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
