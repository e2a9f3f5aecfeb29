//! What `contend study` will run on a host, and the arithmetic of its time budget, before anything
//! runs: the same plan prints with `--dry-run` on any fixture.

use crate::counter::Pad;
use crate::matrix::{self, classify, select_pairs};
use crate::runner::plan::pool_memory_bytes;
use crate::runner::{HostCosts, StrategyChoice, WARMUP_SPREADS};
use crate::topology::Topology;
use crate::workload::{Regime, SEED_RATE};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The default budget on a host of up to this many CPUs …
pub const BASE_CPUS: usize = 16;
/// … is this many seconds …
pub const BASE_S: f64 = 60.0;
/// … plus this many per CPU beyond.
pub const PER_CPU_S: f64 = 2.0;
/// … and at most this many (9 minutes: a 224-CPU host stays under 10).
pub const CAP_S: f64 = 540.0;

/// Pairs sampled per distance class.
pub const PER_CLASS: usize = 4;
/// Timed samples per direction of each pair.
pub const SAMPLES: usize = 30;
pub use crate::matrix::ASSUMED_ONE_WAY_NS;
/// Repeats per strategy in the run stage before the run's stop rule adds rounds.
pub const RUN_REPEATS: u32 = 5;
/// Repeats per strategy at each sweep point.
pub const SWEEP_REPEATS: u32 = 3;
/// Warm-up before each repeat, s, unless the start-up spread needs more ([`WARMUP_SPREADS`]).
pub const WARMUP_S: f64 = 0.02;
/// Share of the budget kept back for what the estimate misses.
pub const MARGIN: f64 = 0.1;
/// Least measured time per strategy and regime, s.
pub const MIN_DURATION_S: f64 = 0.1;
/// Most measured time per strategy and regime, s: past it the budget is left unspent.
pub const MAX_DURATION_S: f64 = 1.0;

/// The default `--max-time` for a host of `cpus` CPUs, s.
pub fn default_max_time_s(cpus: usize) -> f64 {
    (BASE_S + PER_CPU_S * cpus.saturating_sub(BASE_CPUS) as f64).min(CAP_S)
}

/// One distance class in the matrix sample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassSample {
    /// The class (`same-llc`, `cross-node@21`).
    pub class: String,
    /// Pairs of it among the CPUs.
    pub candidates: usize,
    /// Pairs measured.
    pub sampled: usize,
}

/// The matrix stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatrixStage {
    /// Pairs per class at most.
    pub per_class: usize,
    /// Timed samples per direction.
    pub samples: usize,
    /// Per class, its pairs and the sample.
    pub classes: Vec<ClassSample>,
    /// Pairs measured.
    pub pairs: usize,
    /// Estimated seconds.
    pub est_s: f64,
}

/// The run stage: `contend run` with its default strategies and regimes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunStage {
    /// Writer threads (every allowed CPU).
    pub writers: usize,
    /// Strategies.
    pub strategies: usize,
    /// Regimes, interleaved.
    pub rates: Vec<Regime>,
    /// Strategy × regime entries, with the paced floor and the harness floor.
    pub entries: usize,
    /// Repeats one round of them runs.
    pub runs: usize,
    /// Repeats per entry before the stop rule adds rounds ([`RUN_REPEATS`]).
    pub repeats: u32,
    /// Measured time per entry in those repeats, s.
    pub duration_s: f64,
    /// Estimated start-up seconds (warm-up, canaries, threads).
    pub fixed_s: f64,
    /// Estimated seconds: what the stage may spend, its stop rule's rounds included.
    pub est_s: f64,
}

impl RunStage {
    /// Seconds it needs at its measured time per entry now.
    pub fn seconds(&self) -> f64 {
        stage_seconds(self.fixed_s, self.runs, self.duration_s)
    }
}

/// One sweep thread count, and the class it first reaches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadStep {
    /// Writer threads (the first CPUs in id order).
    pub threads: usize,
    /// The classes its CPUs first reach (`all CPUs` for the last).
    pub reaches: String,
}

/// The sweep stage: thread counts that reach each class, at both regimes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepStage {
    /// Thread counts.
    pub threads: Vec<ThreadStep>,
    /// Regimes at each count.
    pub rates: Vec<Regime>,
    /// Points (counts × regimes).
    pub points: usize,
    /// Strategy entries over all points, floors included.
    pub entries: usize,
    /// Repeats one round of every point runs.
    pub runs: usize,
    /// Repeats per entry.
    pub repeats: u32,
    /// Measured time per entry, s.
    pub duration_s: f64,
    /// Estimated start-up seconds (warm-up, canaries, threads).
    pub fixed_s: f64,
    /// Estimated seconds.
    pub est_s: f64,
}

impl SweepStage {
    /// Seconds it needs at its measured time per entry now.
    pub fn seconds(&self) -> f64 {
        stage_seconds(self.fixed_s, self.runs, self.duration_s)
    }
}

/// The whole plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudyPlan {
    /// The host or fixture.
    pub host: String,
    /// Allowed CPUs.
    pub cpus: usize,
    /// NUMA nodes with CPUs.
    pub nodes: usize,
    /// Last-level caches.
    pub llcs: usize,
    /// The budget, s.
    pub max_time_s: f64,
    /// Where the budget came from.
    pub max_time_rule: String,
    /// What a repeat costs besides its warm-up and interval, measured before the plan.
    pub costs: HostCosts,
    /// Warm-up before each repeat of the run and the sweep, s.
    pub warmup_s: f64,
    /// What the plan gave up to fit its budget (fewer repeats), and what would hold it all.
    pub notes: Vec<String>,
    /// Memory the run stage holds at once, the most of any stage, bytes.
    pub memory_bytes: u64,
    /// Pair matrix.
    pub matrix: MatrixStage,
    /// The default run.
    pub run: RunStage,
    /// The sweep.
    pub sweep: SweepStage,
    /// `predict` at the seed's rate for every allowed CPU.
    pub predict_rate: f64,
    /// Estimated seconds in all.
    pub est_s: f64,
}

/// A budget too small for the smallest plan.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StudyPlanError {
    /// `--max-time` cannot pay for the minimum.
    #[error(
        "--max-time {given:.0}s is too short for this host: the smallest study here needs {needed:.0}s ({MIN_DURATION_S}s per strategy); give at least that, or run the stages alone"
    )]
    TooShort {
        /// The budget given, s.
        given: f64,
        /// The least it needs, s.
        needed: f64,
    },
    /// Fewer than two allowed CPUs: nothing contends.
    #[error("a study needs at least 2 allowed CPUs, this host allows {0}")]
    OneCpu(usize),
    /// The topology lists a CPU it does not describe.
    #[error(transparent)]
    Offline(#[from] matrix::OfflineCpu),
}

/// The default strategies of `contend run` (its `--level` and `--publish` defaults).
pub fn run_strategies() -> StrategyChoice {
    StrategyChoice {
        levels: vec![
            crate::counter::ShardLevel::Global,
            crate::counter::ShardLevel::Node,
        ],
        policies: ["threshold:64", "ratelimit:1ms+threshold:64", "always"]
            .iter()
            .map(|p| p.parse().expect("a valid policy"))
            .collect(),
        pads: vec![Pad::Line128],
        clocks: vec![crate::clock::ClockKind::Tsc],
    }
}

/// The sweep's strategies: the kernel before and after its fix, global.
pub fn sweep_strategies() -> StrategyChoice {
    StrategyChoice {
        levels: vec![crate::counter::ShardLevel::Global],
        policies: run_strategies().policies[..2].to_vec(),
        ..run_strategies()
    }
}

/// The thread counts at which the first CPUs of `cpus` (in order) first include a pair of each of
/// `classes` (every class among `cpus`), and all of them.
pub fn thread_steps(
    topo: &Topology,
    cpus: &[u32],
    classes: usize,
) -> Result<Vec<ThreadStep>, matrix::OfflineCpu> {
    let mut seen = BTreeSet::new();
    let mut steps: Vec<ThreadStep> = Vec::new();
    for k in 1..cpus.len() {
        if seen.len() == classes {
            break;
        }
        let reached: BTreeSet<_> = (cpus[..k].iter())
            .map(|&c| classify(topo, c, cpus[k]))
            .collect::<Result<_, _>>()?;
        let names: Vec<String> = reached
            .into_iter()
            .filter(|c| seen.insert(*c))
            .map(|c| c.to_string())
            .collect();
        if !names.is_empty() {
            steps.push(ThreadStep {
                threads: k + 1,
                reaches: names.join(", "),
            });
        }
    }
    match steps.last_mut() {
        Some(last) if last.threads == cpus.len() => last.reaches.push_str("; all CPUs"),
        _ => steps.push(ThreadStep {
            threads: cpus.len(),
            reaches: "all CPUs".into(),
        }),
    }
    Ok(steps)
}

/// Seconds a stage of `runs` repeats a round needs.
fn stage_seconds(fixed_s: f64, runs: usize, duration_s: f64) -> f64 {
    fixed_s + runs as f64 * duration_s
}

/// Start-up of one repeat with `threads` threads at `costs`, with `warmup_s` of warm-up, s.
fn repeat_setup_s(costs: &HostCosts, warmup_s: f64, threads: usize) -> f64 {
    warmup_s
        + crate::runner::plan::REPEAT_OVERHEAD_S
        + costs.canary_s
        + costs.startup.spread_s
        + costs.startup.per_thread_s() * threads as f64
}

/// The harness floor a flat-out run measures first at `costs`, s.
fn floor_s(costs: &HostCosts) -> f64 {
    3.0 * (0.11 + costs.startup.per_thread_s() + costs.startup.spread_s)
}

/// The measured time per entry that fits the stages still to run, with `entries` runs and `fixed_s`
/// start-up in all, into `remaining_s` (less the margin), at most `planned_s`.
pub fn refit(remaining_s: f64, entries: usize, fixed_s: f64, planned_s: f64) -> Option<f64> {
    let d = (remaining_s * (1.0 - MARGIN) - fixed_s) / entries.max(1) as f64;
    (d >= MIN_DURATION_S).then(|| d.min(planned_s))
}

/// The repeats of the run and the sweep that `budget` holds.
fn repeats_within(
    budget: f64,
    needed_at: impl Fn(u32, u32) -> f64,
) -> Result<((u32, u32), Vec<String>), StudyPlanError> {
    let (run_repeats, sweep_repeats) = [(RUN_REPEATS, SWEEP_REPEATS), (3, 2), (2, 2)]
        .into_iter()
        .find(|&(r, s)| budget >= needed_at(r, s))
        .ok_or(StudyPlanError::TooShort {
            given: budget,
            needed: needed_at(2, 2).ceil(),
        })?;
    let mut notes = Vec::new();
    if (run_repeats, sweep_repeats) != (RUN_REPEATS, SWEEP_REPEATS) {
        notes.push(format!(
            "the {budget:.0} s budget holds {run_repeats} of the run's {RUN_REPEATS} repeats and {sweep_repeats} of the sweep's {SWEEP_REPEATS} at this host's start-up: --max-time {:.0}s would hold them all",
            needed_at(RUN_REPEATS, SWEEP_REPEATS).ceil()
        ));
    }
    Ok(((run_repeats, sweep_repeats), notes))
}

/// The study's budget and the rule that gave it: `--max-time`, or the default for `cpus` CPUs.
fn budget_of(max_time_s: Option<f64>, cpus: usize) -> (f64, String) {
    match max_time_s {
        Some(s) => (s, "--max-time".to_string()),
        None => (
            default_max_time_s(cpus),
            format!(
                "default: {BASE_S:.0} s up to {BASE_CPUS} CPUs, {PER_CPU_S:.0} s more per CPU beyond, at most {CAP_S:.0} s"
            ),
        ),
    }
}

/// The matrix stage on `cpus`: [`PER_CLASS`] pairs of each class at most, its time from the host's
/// measured start-up at an assumed one-way cost.
fn matrix_stage(
    topo: &Topology,
    cpus: &[u32],
    costs: &HostCosts,
) -> Result<MatrixStage, StudyPlanError> {
    let selection = select_pairs(topo, cpus, Some(PER_CLASS))?;
    let classes: Vec<ClassSample> = selection
        .candidates
        .iter()
        .map(|(c, &n)| ClassSample {
            class: c.to_string(),
            candidates: n,
            sampled: n.min(PER_CLASS),
        })
        .collect();
    let pairs = selection.pairs.len();
    let pair_setup_s = 2.0 * costs.startup.per_thread_s() + costs.startup.spread_s;
    Ok(MatrixStage {
        per_class: PER_CLASS,
        samples: SAMPLES,
        classes,
        pairs,
        est_s: matrix::pairs_s(pairs, SAMPLES, ASSUMED_ONE_WAY_NS, pair_setup_s),
    })
}

/// Plans a study of `topo` (its allowed CPUs) within `max_time_s`.
pub fn plan_study(
    topo: &Topology,
    host: &str,
    max_time_s: Option<f64>,
    costs: &HostCosts,
) -> Result<StudyPlan, StudyPlanError> {
    let cpus = topo.allowed_cpus.to_vec();
    if cpus.len() < 2 {
        return Err(StudyPlanError::OneCpu(cpus.len()));
    }
    let (budget, rule) = budget_of(max_time_s, cpus.len());
    let matrix_stage = matrix_stage(topo, &cpus, costs)?;
    let matrix_est = matrix_stage.est_s;
    let warmup = WARMUP_S.max(WARMUP_SPREADS * costs.startup.spread_s);

    let run_rates = vec![Regime::FlatOut, Regime::SEED];
    let run_strategies = run_strategies().strategies().len();
    // Every strategy at each regime, the paced floor, the harness floor.
    let run_entries = run_strategies * run_rates.len() + 2;
    // Flat out a repeat each; paced, every strategy and its floor in
    // place in one repeat (a period of 45 µs holds them at 4 µs each).
    let run_runs = run_strategies + 1;
    let run_setup = run_runs as f64 * repeat_setup_s(costs, warmup, cpus.len());

    let threads = thread_steps(topo, &cpus, matrix_stage.classes.len())?;
    let sweep_strategies = sweep_strategies().strategies().len();
    // Flat out: the strategies and the harness floor; paced: the
    // strategies and the paced floor in place.
    let sweep_entries = threads.len() * 2 * (sweep_strategies + 1);
    let sweep_runs = threads.len() * (sweep_strategies + 1);
    let sweep_setup: f64 = threads
        .iter()
        .map(|t| (sweep_strategies + 1) as f64 * repeat_setup_s(costs, warmup, t.threads))
        .sum();
    let floors = (1 + threads.len()) as f64 * floor_s(costs);
    let runs = (run_runs + sweep_runs) as f64;
    // Start-up in all at r repeats of the run and s of the sweep, and the
    // budget that pays for it with the least measured time.
    let fixed_at = |r: u32, s: u32| {
        matrix_est + run_setup * f64::from(r) + sweep_setup * f64::from(s) + floors
    };
    let needed_at = |r: u32, s: u32| (fixed_at(r, s) + runs * MIN_DURATION_S) / (1.0 - MARGIN);
    let ((run_repeats, sweep_repeats), notes) = repeats_within(budget, needed_at)?;
    let run_fixed = run_setup * f64::from(run_repeats) + floor_s(costs);
    let sweep_fixed = sweep_setup * f64::from(sweep_repeats) + floors - floor_s(costs);
    let fixed = matrix_est + run_fixed + sweep_fixed;
    let duration = ((budget * (1.0 - MARGIN) - fixed) / runs).min(MAX_DURATION_S);
    let run = RunStage {
        writers: cpus.len(),
        strategies: run_strategies,
        rates: run_rates.clone(),
        entries: run_entries,
        runs: run_runs,
        repeats: run_repeats,
        duration_s: duration,
        fixed_s: run_fixed,
        est_s: stage_seconds(run_fixed, run_runs, duration),
    };
    let sweep = SweepStage {
        points: threads.len() * run_rates.len(),
        threads,
        rates: run_rates,
        entries: sweep_entries,
        runs: sweep_runs,
        repeats: sweep_repeats,
        duration_s: duration,
        fixed_s: sweep_fixed,
        est_s: stage_seconds(sweep_fixed, sweep_runs, duration),
    };
    let n = cpus.len();
    Ok(StudyPlan {
        host: host.to_string(),
        cpus: cpus.len(),
        nodes: topo.nodes.iter().filter(|n| !n.cpus.is_empty()).count(),
        llcs: topo.llcs.len(),
        max_time_s: budget,
        max_time_rule: rule,
        costs: *costs,
        warmup_s: warmup,
        notes,
        // The paced strategies in place with their clock floor.
        memory_bytes: pool_memory_bytes(n, n, run_strategies + 1, Pad::Line128.stride()),
        matrix: matrix_stage,
        est_s: matrix_est + run.est_s + sweep.est_s,
        run,
        sweep,
        predict_rate: SEED_RATE,
    })
}

/// Costs with a known answer, for tests.
#[cfg(test)]
pub(crate) fn example_costs() -> HostCosts {
    HostCosts {
        startup: crate::workload::Startup {
            threads: 1,
            start_s: 0.0003,
            spread_s: 0.0,
            stop_s: 0.0,
        },
        scaled_from: None,
        canary_s: 0.0,
        one_way_ns: Some(100.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::fixture;

    fn steps(name: &str) -> Vec<String> {
        let topo = fixture(name);
        let cpus = topo.allowed_cpus.to_vec();
        let classes = select_pairs(&topo, &cpus, Some(1))
            .unwrap()
            .candidates
            .len();
        thread_steps(&topo, &cpus, classes)
            .unwrap()
            .into_iter()
            .map(|s| format!("{} {}", s.threads, s.reaches))
            .collect()
    }

    #[test]
    fn the_default_budget_grows_with_the_cpus_up_to_nine_minutes() {
        // 224 and 1024 CPUs: tests/study_scale.rs (476 s, 540 s).
        let budgets = [2, 16, 17].map(default_max_time_s);
        assert_eq!(budgets, [60.0, 60.0, 62.0]);
    }

    #[test]
    fn sweep_steps_are_where_the_first_cpus_reach_each_class() {
        // Sapphire Rapids: tests/study_scale.rs the_spr_plan_fits_its_budget.
        // EPYC 7J13 NPS1: CCXs of 8 cores (0-7, 8-15, …), node 1 from
        // CPU 64, siblings from 128.
        let epyc = [
            "2 same-llc",
            "9 same-node",
            "65 cross-node@32",
            "129 smt",
            "256 all CPUs",
        ];
        assert_eq!(steps("epyc-7j13-2s-nps1-256"), epyc);
        // No SMT, one LLC: the last step is also the first pair.
        assert!(steps("no-numa").last().unwrap().starts_with("4 "));
    }

    #[test]
    fn a_late_study_shrinks_what_is_left_or_skips_it() {
        // 10 s left, 10% kept back, 2 s of start-up: 0.7 s for each of 10
        // entries, under the 1 s planned; 3 s left pays 0.07 s: too little.
        assert!((refit(10.0, 10, 2.0, 1.0).unwrap() - 0.7).abs() < 1e-12);
        assert_eq!(refit(100.0, 10, 2.0, 1.0), Some(1.0));
        assert_eq!(refit(3.0, 10, 2.0, 1.0), None);
        assert_eq!(refit(-1.0, 10, 2.0, 1.0), None);
    }

    #[test]
    fn the_plan_fits_its_budget_and_refuses_one_that_cannot_pay() {
        let spr = fixture("spr-2s-224");
        // Its 476 s budget and an estimate within it: tests/study_scale.rs
        // the_spr_plan_fits_its_budget. The stages' estimates add up.
        let p = plan_study(&spr, "spr", None, &example_costs()).unwrap();
        assert!((p.matrix.est_s + p.run.est_s + p.sweep.est_s - p.est_s).abs() < 1e-9);
        // Worked by hand: a repeat on 224 CPUs starts in 20 + 30 + 0.3 ×
        // 224 = 117.2 ms; the run's 7 repeats a round (6 strategies flat
        // out, the paced ones in place) × 5 start in 4.102 s, the harness
        // floor takes 3 × 110.3 ms, and each of the 7 measures 1 s:
        // 11.4329 s. The sweep's 3 repeats a round × 3 at 2, 57, 113 and
        // 224 threads start in 9 × (50.6 + 67.1 + 83.9 + 117.2) ms =
        // 2.8692 s, a floor at each of the 4 points 1.3236 s, and 12 runs
        // measure 1 s each: 16.1928 s.
        assert!((p.run.est_s - 11.4329).abs() < 1e-9, "{}", p.run.est_s);
        assert!((p.sweep.est_s - 16.1928).abs() < 1e-9, "{}", p.sweep.est_s);
        // Six strategies (global, node × the kernel before and after its
        // fix and the plain counter) in two regimes, and the two floors.
        assert_eq!(p.run.entries, 6 * 2 + 2);
        assert_eq!((p.run.runs, p.sweep.runs), (7, 4 * 3));
        assert_eq!(p.sweep.points, 8);
        assert_eq!(p.sweep.entries, 4 * 2 * 3);
        assert_eq!(p.matrix.pairs, 12);
        // A tight budget shortens the measured time per entry, down to the
        // minimum; below that, the error names what is needed.
        let tight = plan_study(&spr, "spr", Some(20.0), &example_costs()).unwrap();
        assert!(tight.run.duration_s < p.run.duration_s);
        assert!(tight.est_s <= 0.9 * 20.0 + 1e-9, "{}", tight.est_s);
        assert!(p.notes.is_empty() && tight.notes.is_empty());
        // 10 s pays for 3 repeats of the run and 2 of the sweep, not for
        // every one: said, with the budget that would be.
        let fewer = plan_study(&spr, "spr", Some(10.0), &example_costs()).unwrap();
        assert_eq!((fewer.run.repeats, fewer.sweep.repeats), (3, 2));
        assert!(fewer.est_s <= 9.0 + 1e-9, "{}", fewer.est_s);
        assert_eq!(fewer.notes.len(), 1);
        let note = &fewer.notes[0];
        let holds = "the 10 s budget holds 3 of the run's 5 repeats and 2 of the sweep's 3";
        let all = "--max-time 12s would hold them all";
        assert!(note.starts_with(holds) && note.ends_with(all), "{note}");
        match plan_study(&spr, "spr", Some(5.0), &example_costs()) {
            Err(StudyPlanError::TooShort { given, needed }) => {
                assert_eq!(given, 5.0);
                assert!(needed > 5.0 && needed < 20.0, "{needed}");
            }
            other => panic!("{other:?}"),
        }
    }
}
