//! What `contend study` will run on a host, and the arithmetic of its time
//! budget, before anything runs: the same plan prints with `--dry-run` on
//! any fixture.
//!
//! The budget (`--max-time`, by default [`default_max_time_s`]) pays for
//! four measuring stages: a per-class sample of the pair matrix (a fixed,
//! small cost per pair), the default run (every strategy flat out and at
//! the seed's rate) and a sweep over the thread counts at which the writers
//! first reach each distance class, at both regimes. Start-up costs are
//! counted per repeat (warm-up, canary, starting and pinning each thread);
//! what is left is shared evenly as measured time per strategy, between
//! [`MIN_DURATION_S`] and [`MAX_DURATION_S`]. A budget that cannot pay for
//! the minimum is refused, naming the minimum.

use crate::matrix::{self, classify, select_pairs};
use crate::runner::StrategyChoice;
use crate::topology::Topology;
use crate::workload::{Regime, SEED_RATE};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The default budget on a host of up to this many CPUs …
pub const BASE_CPUS: usize = 16;
/// … is this many seconds …
pub const BASE_S: f64 = 60.0;
/// … plus this many per CPU beyond: a bigger host has more classes and
/// sweep points, and every repeat starts and pins more threads …
pub const PER_CPU_S: f64 = 2.0;
/// … and at most this many (9 minutes: a 224-CPU host stays under 10).
pub const CAP_S: f64 = 540.0;

/// Pairs sampled per distance class.
pub const PER_CLASS: usize = 4;
/// Timed samples per direction of each pair.
pub const SAMPLES: usize = 30;
/// One-way transfer time the matrix estimate assumes, ns (a cross-socket
/// figure: pairs are estimated long rather than short).
pub const ASSUMED_ONE_WAY_NS: f64 = 150.0;
/// Starting two pinned threads and a node-bound line for one pass of one
/// pair, s.
pub const PAIR_SETUP_S: f64 = 0.003;
/// Repeats per strategy in the run stage before the run's stop rule adds
/// rounds (as `contend run` does by default: widest CI first, until each
/// 95% CI is within [`crate::runner::DEFAULT_TARGET_CI_PCT`] or the stage's
/// planned seconds are spent).
pub const RUN_REPEATS: u32 = 5;
/// Repeats per strategy at each sweep point.
pub const SWEEP_REPEATS: u32 = 3;
/// Warm-up before each repeat, s.
pub const WARMUP_S: f64 = 0.02;
/// Start-up of one repeat besides warm-up: the canary (16,000 round trips:
/// 4 ms at 110 ns one-way, 13 ms measured on this busy 2-vCPU VM), a fresh
/// node-bound counter, histograms, s …
pub const REPEAT_SETUP_S: f64 = 0.03;
/// … plus this for each thread started and pinned, s.
pub const THREAD_SETUP_S: f64 = 0.0003;
/// Share of the budget kept back for what the estimate misses.
pub const MARGIN: f64 = 0.1;
/// Least measured time per strategy and regime, s.
pub const MIN_DURATION_S: f64 = 0.1;
/// Most measured time per strategy and regime, s: past it the budget is
/// left unspent.
pub const MAX_DURATION_S: f64 = 1.0;

/// The default `--max-time` for a host of `cpus` CPUs, s: [`BASE_S`] up
/// to [`BASE_CPUS`] CPUs, [`PER_CPU_S`] more per CPU beyond, at most
/// [`CAP_S`].
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
    /// Strategy × regime entries, with the paced floor and the harness
    /// floor.
    pub entries: usize,
    /// Repeats per entry before the stop rule adds rounds
    /// ([`RUN_REPEATS`]).
    pub repeats: u32,
    /// Measured time per entry in those repeats, s.
    pub duration_s: f64,
    /// Estimated start-up seconds (warm-up, canaries, threads).
    pub fixed_s: f64,
    /// Estimated seconds: what the stage may spend, its stop rule's
    /// rounds included.
    pub est_s: f64,
}

impl RunStage {
    /// Seconds it needs at its measured time per entry now (after the
    /// study refits it), start-up included.
    pub fn seconds(&self) -> f64 {
        stage_seconds(self.fixed_s, self.entries, self.duration_s)
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
    /// Seconds it needs at its measured time per entry now (after the
    /// study refits it), start-up included.
    pub fn seconds(&self) -> f64 {
        stage_seconds(self.fixed_s, self.entries, self.duration_s)
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

/// The default strategies of `contend run` (its `--level` and `--publish`
/// defaults): the kernel's counter before v6.7 (`threshold:64`), the
/// merged fix (`ratelimit:1ms+threshold:64`) and the plain shared counter
/// (`always`), each global and per node.
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
        pads: vec![crate::counter::Pad::Line128],
        clocks: vec![crate::clock::ClockKind::Tsc],
    }
}

/// The sweep's strategies: the kernel before and after its fix, global
/// (`global/threshold:64` and `global/ratelimit:1ms+threshold:64`).
pub fn sweep_strategies() -> StrategyChoice {
    StrategyChoice {
        levels: vec![crate::counter::ShardLevel::Global],
        policies: run_strategies().policies[..2].to_vec(),
        ..run_strategies()
    }
}

/// The thread counts at which the first CPUs of `cpus` (in order) first
/// include a pair of each of `classes` (every class among `cpus`), and
/// all of them.
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
        let mut new = BTreeSet::new();
        for &c in &cpus[..k] {
            let class = classify(topo, c, cpus[k])?;
            if seen.insert(class) {
                new.insert(class);
            }
        }
        if !new.is_empty() {
            let names: Vec<String> = new.iter().map(|c| c.to_string()).collect();
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

/// Seconds a stage of `entries` entries needs: `fixed_s` of start-up and
/// `duration_s` measured per entry.
fn stage_seconds(fixed_s: f64, entries: usize, duration_s: f64) -> f64 {
    fixed_s + entries as f64 * duration_s
}

/// Start-up of one repeat with `threads` threads, s.
fn repeat_setup_s(threads: usize) -> f64 {
    WARMUP_S + REPEAT_SETUP_S + THREAD_SETUP_S * threads as f64
}

/// The measured time per entry that fits the stages still to run, with
/// `entries` entries and `fixed_s` start-up in all, into `remaining_s`
/// (less the margin), at most `planned_s`; `None` when not even
/// [`MIN_DURATION_S`] fits. A study that ran late shrinks what is left
/// rather than overrunning its budget.
pub fn refit(remaining_s: f64, entries: usize, fixed_s: f64, planned_s: f64) -> Option<f64> {
    let d = (remaining_s * (1.0 - MARGIN) - fixed_s) / entries.max(1) as f64;
    (d >= MIN_DURATION_S).then(|| d.min(planned_s))
}

/// Plans a study of `topo` (its allowed CPUs) within `max_time_s` (`None`:
/// [`default_max_time_s`]).
pub fn plan_study(
    topo: &Topology,
    host: &str,
    max_time_s: Option<f64>,
) -> Result<StudyPlan, StudyPlanError> {
    let cpus = topo.allowed_cpus.to_vec();
    if cpus.len() < 2 {
        return Err(StudyPlanError::OneCpu(cpus.len()));
    }
    let (budget, rule) = match max_time_s {
        Some(s) => (s, "--max-time".to_string()),
        None => (
            default_max_time_s(cpus.len()),
            format!(
                "default: {BASE_S:.0} s up to {BASE_CPUS} CPUs, {PER_CPU_S:.0} s more per CPU beyond, at most {CAP_S:.0} s"
            ),
        ),
    };
    let selection = select_pairs(topo, &cpus, Some(PER_CLASS))?;
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
    let round_trip_s = 2.0 * ASSUMED_ONE_WAY_NS * 1e-9;
    // Each pass starts threads twice: for the ping-pong and for the
    // coherence transactions.
    let per_pair = 2.0 * matrix::PASSES as f64 * PAIR_SETUP_S
        + 2.0
            * (SAMPLES + matrix::WARMUP_SAMPLES) as f64
            * matrix::ROUND_TRIPS_PER_SAMPLE as f64
            * round_trip_s
        + matrix::transaction_transfers(matrix::PASSES) * ASSUMED_ONE_WAY_NS * 1e-9;
    let matrix_est = pairs as f64 * per_pair + matrix::REFERENCE_ROUND_TRIPS as f64 * round_trip_s;

    let run_rates = vec![Regime::FlatOut, Regime::SEED];
    let run_strategies = run_strategies().strategies().len();
    // Every strategy at each regime, the paced floor, the harness floor.
    let run_entries = run_strategies * run_rates.len() + 2;
    let run_fixed = run_entries as f64 * f64::from(RUN_REPEATS) * repeat_setup_s(cpus.len());

    let threads = thread_steps(topo, &cpus, selection.candidates.len())?;
    let sweep_strategies = sweep_strategies().strategies().len();
    let mut sweep_entries = 0;
    let mut sweep_fixed = 0.0;
    for t in &threads {
        // Flat out: the strategies and the harness floor; paced: the
        // strategies and the paced floor.
        let entries = 2 * (sweep_strategies + 1);
        sweep_entries += entries;
        sweep_fixed += entries as f64 * f64::from(SWEEP_REPEATS) * repeat_setup_s(t.threads);
    }
    let fixed = matrix_est + run_fixed + sweep_fixed;
    let entries = (run_entries + sweep_entries) as f64;
    let needed = (fixed + entries * MIN_DURATION_S) / (1.0 - MARGIN);
    if budget < needed {
        return Err(StudyPlanError::TooShort {
            given: budget,
            needed: needed.ceil(),
        });
    }
    let duration = ((budget * (1.0 - MARGIN) - fixed) / entries).min(MAX_DURATION_S);
    let run = RunStage {
        writers: cpus.len(),
        strategies: run_strategies,
        rates: run_rates.clone(),
        entries: run_entries,
        repeats: RUN_REPEATS,
        duration_s: duration,
        fixed_s: run_fixed,
        est_s: stage_seconds(run_fixed, run_entries, duration),
    };
    let sweep = SweepStage {
        points: threads.len() * run_rates.len(),
        threads,
        rates: run_rates,
        entries: sweep_entries,
        repeats: SWEEP_REPEATS,
        duration_s: duration,
        fixed_s: sweep_fixed,
        est_s: stage_seconds(sweep_fixed, sweep_entries, duration),
    };
    Ok(StudyPlan {
        host: host.to_string(),
        cpus: cpus.len(),
        nodes: topo.nodes.iter().filter(|n| !n.cpus.is_empty()).count(),
        llcs: topo.llcs.len(),
        max_time_s: budget,
        max_time_rule: rule,
        matrix: MatrixStage {
            per_class: PER_CLASS,
            samples: SAMPLES,
            classes,
            pairs,
            est_s: matrix_est,
        },
        est_s: matrix_est + run.est_s + sweep.est_s,
        run,
        sweep,
        predict_rate: SEED_RATE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::fixture;

    fn steps(name: &str) -> Vec<(usize, String)> {
        let topo = fixture(name);
        let cpus = topo.allowed_cpus.to_vec();
        let classes = select_pairs(&topo, &cpus, Some(1))
            .unwrap()
            .candidates
            .len();
        thread_steps(&topo, &cpus, classes)
            .unwrap()
            .into_iter()
            .map(|s| (s.threads, s.reaches))
            .collect()
    }

    #[test]
    fn the_default_budget_grows_with_the_cpus_up_to_nine_minutes() {
        assert_eq!(default_max_time_s(2), 60.0);
        assert_eq!(default_max_time_s(16), 60.0);
        assert_eq!(default_max_time_s(17), 62.0);
        assert_eq!(default_max_time_s(224), 60.0 + 2.0 * 208.0);
        assert_eq!(default_max_time_s(1024), 540.0);
    }

    #[test]
    fn sweep_steps_are_where_the_first_cpus_reach_each_class() {
        // Sapphire Rapids: CPUs 0-55 on node 0 (one LLC), 56-111 node 1,
        // 112+ the siblings of 0+.
        assert_eq!(
            steps("spr-2s-224"),
            [
                (2, "same-llc".to_string()),
                (57, "cross-node@21".to_string()),
                (113, "smt".to_string()),
                (224, "all CPUs".to_string()),
            ]
        );
        // EPYC 7J13 NPS1: CCXs of 8 cores (0-7, 8-15, …), node 1 from
        // CPU 64, siblings from 128.
        assert_eq!(
            steps("epyc-7j13-2s-nps1-256"),
            [
                (2, "same-llc".to_string()),
                (9, "same-node".to_string()),
                (65, "cross-node@32".to_string()),
                (129, "smt".to_string()),
                (256, "all CPUs".to_string()),
            ]
        );
        // No SMT, one LLC: the last step is also the first pair.
        let no_numa = steps("no-numa");
        assert_eq!(no_numa.last().unwrap().0, 4);
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
        let p = plan_study(&spr, "spr", None).unwrap();
        assert_eq!(p.max_time_s, 476.0);
        assert!(p.est_s <= p.max_time_s && p.est_s > 0.0, "{}", p.est_s);
        // The stages' estimates add up, and every entry gets the same time.
        assert!((p.matrix.est_s + p.run.est_s + p.sweep.est_s - p.est_s).abs() < 1e-9);
        // Worked by hand: a repeat on 224 CPUs starts in 20 + 30 + 0.3 ×
        // 224 = 117.2 ms, so the run's 14 entries × 5 repeats start in
        // 8.204 s and measure 1 s each: 22.204 s. The sweep's 6 entries ×
        // 3 repeats at 2, 57, 113 and 224 threads start in 18 × (50.6 +
        // 67.1 + 83.9 + 117.2) ms = 5.7384 s, and measure 24 × 1 s.
        assert!((p.run.est_s - 22.204).abs() < 1e-9, "{}", p.run.est_s);
        assert!((p.sweep.est_s - 29.7384).abs() < 1e-9, "{}", p.sweep.est_s);
        // Six strategies (global, node × the kernel before and after its
        // fix and the plain counter) in two regimes, and the two floors.
        assert_eq!(p.run.entries, 6 * 2 + 2);
        assert_eq!(p.sweep.points, 8);
        assert_eq!(p.sweep.entries, 4 * 2 * 3);
        assert_eq!(p.matrix.pairs, 12);
        // A tight budget shortens the measured time per entry, down to the
        // minimum; below that, the error names what is needed.
        let tight = plan_study(&spr, "spr", Some(40.0)).unwrap();
        assert!(tight.run.duration_s < p.run.duration_s);
        assert!(tight.est_s <= 0.9 * 40.0 + 1e-9, "{}", tight.est_s);
        match plan_study(&spr, "spr", Some(5.0)) {
            Err(StudyPlanError::TooShort { given, needed }) => {
                assert_eq!(given, 5.0);
                assert!(needed > 5.0 && needed < 40.0, "{needed}");
            }
            other => panic!("{other:?}"),
        }
    }
}
