//! The study's stages, each run as its own command runs it: the matrix's per-class sample of pairs
//! (measured again after the run when the run's canary disagrees with it, `pricing.rs`), `contend
//! run`'s default strategies on every allowed CPU with its stop rule, the sweep's thread counts
//! that first reach each distance class, and the model priced with this study's own figures.

use super::pricing::{class_range, disagrees, run_canary};
use super::{PricedWith, StageProgress, StageStatus, StudyResults, pricing};
use super::{run_strategies, sweep_strategies};
use crate::matrix::{MatrixRequest, MatrixResults, measure_matrix, plan_matrix};
use crate::placement::Placement;
use crate::predict::{self, Latencies, Layout, PredictRequest};
use crate::runner::{self, PoolSize, RunRequest, RunResults, Stopped};
use crate::sweep::{Affinity, SweepRequest, SweepStop, execute_sweep, plan_sweep};
use crate::topology::Topology;
use crate::workload::{Arrivals, Regime};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How a stage that stopped for `stopped` ended: out of time when its `budget_s` ran out before
/// every `unit` (repeat, point).
fn ended(stopped: Option<Stopped>, budget_s: f64, unit: &str) -> StageStatus {
    match stopped {
        None => StageStatus::Done,
        Some(Stopped::Interrupted) => StageStatus::Interrupted,
        Some(Stopped::OutOfTime) => StageStatus::Partial(format!(
            "its {budget_s:.1} s of the budget ran out before every {unit}"
        )),
    }
}

/// The matrix stage: measures the plan's per-class sample into the study's parts.
pub(super) fn study_matrix(
    study: &mut StudyResults,
    topo: &Topology,
    stop: &AtomicBool,
    progress: &mut impl FnMut(StageProgress),
) -> StageStatus {
    match measure(study, topo, "matrix", progress) {
        Ok(m) => {
            study.parts.matrix = Some(m);
            let stopped = stop.load(Ordering::Relaxed).then_some(Stopped::Interrupted);
            ended(stopped, 0.0, "pair")
        }
        Err(why) => StageStatus::Failed(why),
    }
}

/// The plan's per-class sample of pairs measured as `contend matrix` does, progress reported under
/// `stage`; or why it could not be.
pub(super) fn measure(
    study: &StudyResults,
    topo: &Topology,
    stage: &'static str,
    progress: &mut impl FnMut(StageProgress),
) -> Result<MatrixResults, String> {
    let request = MatrixRequest {
        samples: study.plan.matrix.samples,
        per_class: Some(study.plan.matrix.per_class),
        ..MatrixRequest::default()
    };
    let plan = plan_matrix(&request, topo.clone()).map_err(|e| e.to_string())?;
    let total = plan.pairs.len() * crate::matrix::PASSES;
    let tick = |done| StageProgress::new(stage, "pair passes", done, total, "pairs".into());
    progress(tick(0));
    measure_matrix(plan, |done, _| progress(tick(done))).map_err(|e| e.to_string())
}

/// The run stage: `contend run`'s default strategies on every allowed CPU, flat out and at the
/// seed's rate, with its stop rule: the plan's repeats, then rounds for the widest CIs until each
/// is within the default target or its seconds (`budget_s`: the least of its planned seconds and
/// its share of the budget left) are spent.
pub(super) fn study_run(
    study: &mut StudyResults,
    topo: &Topology,
    placement: Placement,
    stop: &AtomicBool,
    budget_s: f64,
    progress: &mut impl FnMut(StageProgress),
) -> StageStatus {
    let p = &study.plan.run;
    let request = RunRequest {
        read_every: 1,
        strategies: run_strategies(),
        duration: Duration::from_secs_f64(p.duration_s),
        warmup: Duration::from_secs_f64(study.plan.warmup_s),
        repeats: p.repeats,
        target_ci_pct: Some(runner::DEFAULT_TARGET_CI_PCT),
        max_time: Some(Duration::from_secs_f64(budget_s.max(0.0))),
        rates: p.rates.clone(),
        seed: 1,
        placement,
        ..RunRequest::default()
    };
    // The start-up measured before the study plans the repeats.
    let plan = match runner::plan(&request, topo.clone()) {
        Ok(plan) => plan.with_costs(study.plan.costs).0,
        Err(e) => return StageStatus::Failed(e.to_string()),
    };
    let tick =
        |done, total, what: &str| StageProgress::new("run", "repeats", done, total, what.into());
    progress(tick(0, plan.entries() * plan.config.repeats, "run"));
    match runner::execute(&plan, stop, |done, total, name| {
        progress(tick(done, total, name))
    }) {
        Ok(r) => ended(study.parts.run.insert(r).stopped(), budget_s, "repeat"),
        Err(e) => StageStatus::Failed(e.to_string()),
    }
}

/// The sweep stage: the thread counts that first reach each distance class, unbound, in every
/// regime of the plan.
pub(super) fn study_sweep(
    study: &mut StudyResults,
    topo: &Topology,
    placement: Placement,
    stop: &AtomicBool,
    budget_s: f64,
    progress: &mut impl FnMut(StageProgress),
) -> StageStatus {
    let p = &study.plan.sweep;
    let request = SweepRequest {
        threads: p
            .threads
            .iter()
            .map(|t| PoolSize::Count(t.threads))
            .collect(),
        affinity: Some(vec![Affinity::Unbound]),
        rates: p.rates.clone(),
        strategies: sweep_strategies(),
        duration: Duration::from_secs_f64(p.duration_s),
        repeats: p.repeats,
        warmup: Duration::from_secs_f64(study.plan.warmup_s),
        seed: 1,
        placement,
        clip: false,
        max_time: Some(Duration::from_secs_f64(budget_s.max(0.0))),
    };
    let mut sweep_plan = match plan_sweep(&request, topo) {
        Ok(plan) => plan,
        Err(e) => return StageStatus::Failed(e.to_string()),
    };
    let total = sweep_plan.total_repeats();
    let tick = |done, what| StageProgress::new("sweep", "repeats", done, total, what);
    progress(tick(0, "sweep".into()));
    let Ok((sweep, stopped)) = execute_sweep(
        &mut sweep_plan,
        stop,
        |done, label, name| progress(tick(done, format!("{label}: {name}"))),
        |_, _, _| Ok::<(), std::convert::Infallible>(()),
    );
    let ran = study.parts.sweep.insert(sweep).stopped();
    match stopped {
        Some(SweepStop::Failed { point, error }) => {
            StageStatus::Failed(format!("{point}: {error}"))
        }
        _ => ended(ran, budget_s, "point"),
    }
}

/// The predict stage: the model fed with this study's own class latencies (`pricing.rs` chooses
/// which) and its run's CPUs, strategies and rates, then checked against that run; without a run,
/// every allowed CPU a writer at the plan's rate, unchecked.
pub(super) fn study_predict(study: &mut StudyResults, topo: &Topology) -> StageStatus {
    let Some(pricing) = pricing::price(study) else {
        return StageStatus::Skipped("no matrix: no class latencies".into());
    };
    let latencies = pricing.latencies.clone();
    let request = match &study.parts.run {
        Some(run) => request_of(run, latencies.clone()),
        None => PredictRequest {
            layout: Layout {
                writers: topo.allowed_cpus.to_vec(),
                readers: Vec::new(),
                read_every: 1,
            },
            levels: crate::counter::ShardLevel::ALL.to_vec(),
            policies: run_strategies().policies,
            rates: vec![study.plan.predict_rate],
            latencies: latencies.clone(),
            arrivals: Arrivals::Poisson,
            walks: crate::predict::Walks::of_seed(1),
            publishes: Vec::new(),
        },
    };
    match predict::predict(topo, &study.plan.host, &request) {
        Ok(p) => study.parts.predict = Some(p),
        Err(e) => return StageStatus::Failed(e.to_string()),
    }
    // Priced at the canaries, the check prices each repeat at its own
    // (predict --check without a --host matrix).
    let check_latencies = (pricing.used != PricedWith::Canary).then_some(&latencies);
    study.parts.check = study.parts.run.as_ref().map(|run| {
        predict::check(
            "run.json",
            &[(String::new(), run)],
            check_latencies,
            &predict::LineCosts::default(),
        )
        .map_err(|e| e.to_string())
    });
    study.pricing = Some(pricing);
    StageStatus::Done
}
/// The prediction of what `run` measured.
fn request_of(run: &RunResults, latencies: Latencies) -> PredictRequest {
    let strategies = || run.strategies.iter().map(|s| s.strategy);
    let levels = runner::first_seen(strategies().map(|s| s.level));
    let policies = runner::first_seen(strategies().map(|s| s.publish));
    let paced: Vec<(f64, Arrivals)> = run
        .rates()
        .iter()
        .filter_map(|r| match *r {
            Regime::Paced { rate, arrivals } => Some((rate, arrivals)),
            Regime::FlatOut => None,
        })
        .collect();
    PredictRequest {
        layout: Layout {
            writers: run.config.writer_cpus.clone(),
            readers: run.config.reader_cpus.clone(),
            read_every: run.config.read_every,
        },
        levels,
        policies,
        rates: if paced.is_empty() {
            vec![crate::workload::SEED_RATE]
        } else {
            paced.iter().map(|p| p.0).collect()
        },
        latencies,
        arrivals: paced.first().map_or(Arrivals::Paced, |p| p.1),
        walks: crate::predict::Walks::of_run(&run.config),
        publishes: Vec::new(),
    }
}

/// After the run: when its canary disagrees with the matrix stage's class figure, measures the
/// matrix again if `remaining_s` pays for it, keeping it or why not in the study's parts.
pub(super) fn measure_again_if_needed(
    study: &mut StudyResults,
    topo: &Topology,
    stop: &AtomicBool,
    remaining_s: f64,
    progress: &mut impl FnMut(StageProgress),
) {
    let (Some(run), Some(first)) = (&study.parts.run, &study.parts.matrix) else {
        return;
    };
    let Some((class, canary)) = run_canary(run) else {
        return;
    };
    if !class_range(first, class).is_some_and(|r| disagrees(canary, r)) {
        return;
    }
    let stopped = stop.load(Ordering::Relaxed);
    study.parts.matrix_again = Some(
        match cannot_measure_again(stopped, study.plan.matrix.est_s, remaining_s) {
            Some(why) => Err(why),
            None => measure(study, topo, "matrix again", progress),
        },
    );
}

/// Why the matrix cannot be measured again after the run, in words.
pub(super) fn cannot_measure_again(stopped: bool, est_s: f64, remaining_s: f64) -> Option<String> {
    if stopped {
        Some("the study was interrupted".into())
    } else if est_s > remaining_s {
        Some(format!(
            "{:.1} s of the budget left, its estimate {est_s:.1} s",
            remaining_s.max(0.0)
        ))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prediction_is_of_what_the_run_measured() {
        // The fixture run: writers 0 and 1, global and cpu always, flat
        // out; paced at 22k/s with poisson arrivals, and seed 7.
        let mut run = crate::runner::fixture_run();
        let lat = Latencies::uniform(30.0, "test");
        let r = request_of(&run, lat.clone());
        assert_eq!(r.layout.writers, run.config.writer_cpus);
        assert_eq!(r.levels.len(), 2);
        assert_eq!(r.policies, [crate::counter::PublishPolicy::ALWAYS]);
        // Flat out only: the seed's rate, evenly paced.
        assert_eq!((r.rates, r.arrivals), (vec![22e3], Arrivals::Paced));
        let regime = Regime::Paced {
            rate: 1e5,
            arrivals: Arrivals::Poisson,
        };
        run.config.rates = vec![Regime::FlatOut, regime];
        run.config.seed = 7;
        let r = request_of(&run, lat);
        assert_eq!((r.rates, r.arrivals), (vec![1e5], Arrivals::Poisson));
        assert_eq!(r.walks.seed, 7);
    }

    #[test]
    fn a_stage_ends_as_its_measurement_stopped() {
        let partial = "its 2.5 s of the budget ran out before every pair";
        for (stopped, status) in [
            (None, StageStatus::Done),
            (Some(Stopped::Interrupted), StageStatus::Interrupted),
            (
                Some(Stopped::OutOfTime),
                StageStatus::Partial(partial.into()),
            ),
        ] {
            assert_eq!(ended(stopped, 2.5, "pair"), status);
        }
    }
}
