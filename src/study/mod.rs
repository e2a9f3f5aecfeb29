//! `contend study`: the whole seed study in one command. Stages, in order:
//! the pair matrix (a per-class sample), the default run (every strategy
//! flat out and at the seed's rate), a sweep over the thread counts that
//! first reach each distance class, and `predict` for every allowed CPU at
//! the seed's rate with this study's class latencies. The plan and its
//! time budget are in `plan.rs`; the combined verdict is
//! `verdict/study.rs`'s; every file is written by the command through
//! `report/` after each stage, so an interrupted study keeps what it
//! finished.

pub mod plan;
mod result;

pub use plan::{
    ClassSample, MatrixStage, RunStage, StudyPlan, StudyPlanError, SweepStage, ThreadStep,
    default_max_time_s, plan_study, run_strategies, sweep_strategies,
};
pub use result::{SCHEMA_VERSION, StageRecord, StageStatus, StudyParts, StudyResults};

use crate::matrix::{Home, MatrixRequest, Mode, measure_matrix, plan_matrix};
use crate::placement::Placement;
use crate::predict::{self, Latencies, Layout, PredictRequest};
use crate::provenance::Provenance;
use crate::runner::{self, PoolSize, Pools, RunRequest};
use crate::sweep::{Affinity, SweepRequest, SweepStop, execute_sweep, plan_sweep};
use crate::topology::{CpuSpec, Topology};
use crate::workload::Arrivals;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The stages, in the order run.
pub const STAGES: [&str; 4] = ["matrix", "run", "sweep", "predict"];

/// What the command hears while a study runs.
pub trait Observer {
    /// A stage starts with `total` units of progress (`unit` names them).
    fn stage(&mut self, name: &str, total: usize, unit: &str);
    /// `done` units of the current stage are finished; `what` is running.
    fn progress(&mut self, done: usize, what: &str);
    /// A stage ended; `study` holds every part finished so far. An error
    /// (a file that cannot be written) stops the study.
    fn finished(&mut self, stage: &str, study: &StudyResults) -> Result<(), String>;
}

/// Shrinks the measured time per entry of the `run` or `sweep` stage (and
/// of the sweep after a run) to what `remaining_s` can pay for, or says
/// why the stage cannot run.
fn fit(plan: &mut StudyPlan, stage: &str, remaining_s: f64) -> Result<(), String> {
    let (entries, fixed, planned) = if stage == "run" {
        (
            plan.run.entries + plan.sweep.entries,
            plan.run.fixed_s + plan.sweep.fixed_s,
            plan.run.duration_s,
        )
    } else {
        (
            plan.sweep.entries,
            plan.sweep.fixed_s,
            plan.sweep.duration_s,
        )
    };
    let d = plan::refit(remaining_s, entries, fixed, planned).ok_or_else(|| {
        format!(
            "{:.0} s of the {:.0} s budget left, too little for it",
            remaining_s.max(0.0),
            plan.max_time_s
        )
    })?;
    if stage == "run" {
        plan.run.duration_s = d;
    }
    plan.sweep.duration_s = plan.sweep.duration_s.min(d);
    Ok(())
}

/// Runs `plan` on `topo` (the live host), stage by stage, until done,
/// stopped by `stop`, or out of budget: before the run and the sweep the
/// measured time per strategy is shrunk to what the budget left can pay
/// for ([`plan::refit`]), and a stage it cannot pay for is skipped.
pub fn execute(
    plan: StudyPlan,
    topo: &Topology,
    provenance: Provenance,
    placement: Placement,
    stop: &AtomicBool,
    observer: &mut impl Observer,
) -> Result<StudyResults, String> {
    let started = Instant::now();
    let mut study = StudyResults {
        schema: SCHEMA_VERSION,
        plan,
        provenance,
        stages: Vec::new(),
        elapsed_s: 0.0,
        partial: true,
        parts: StudyParts::default(),
    };
    let mut halted: Option<String> = None;
    for name in STAGES {
        let t0 = Instant::now();
        let status = match &halted {
            Some(why) => StageStatus::Skipped(why.clone()),
            None => {
                let remaining = study.plan.max_time_s - started.elapsed().as_secs_f64();
                match name {
                    "matrix" => matrix_stage(&mut study, topo, stop, observer),
                    "run" | "sweep" => match fit(&mut study.plan, name, remaining) {
                        Err(why) => StageStatus::Skipped(why),
                        Ok(()) if name == "run" => {
                            run_stage(&mut study, topo, placement, stop, observer)
                        }
                        Ok(()) => sweep_stage(&mut study, topo, placement, stop, observer),
                    },
                    _ => predict_stage(&mut study, topo),
                }
            }
        };
        match &status {
            StageStatus::Interrupted => halted = Some(format!("the {name} stage was interrupted")),
            StageStatus::Failed(_) => halted = Some(format!("the {name} stage failed")),
            StageStatus::Done | StageStatus::Skipped(_) => {}
        }
        study.stages.push(StageRecord {
            stage: name.into(),
            status,
            seconds: t0.elapsed().as_secs_f64(),
        });
        study.elapsed_s = started.elapsed().as_secs_f64();
        study.partial = study.stages.len() < STAGES.len()
            || study.stages.iter().any(|s| s.status != StageStatus::Done);
        observer.finished(name, &study)?;
    }
    Ok(study)
}

fn matrix_stage(
    study: &mut StudyResults,
    topo: &Topology,
    stop: &AtomicBool,
    observer: &mut impl Observer,
) -> StageStatus {
    let request = MatrixRequest {
        cpus: CpuSpec::All,
        samples: study.plan.matrix.samples,
        home: Home::First,
        mode: Mode::Cas,
        per_class: Some(study.plan.matrix.per_class),
    };
    let plan = match plan_matrix(&request, topo.clone()) {
        Ok(p) => p,
        Err(e) => return StageStatus::Failed(e.to_string()),
    };
    observer.stage(
        "matrix",
        plan.pairs.len() * crate::matrix::PASSES,
        "pair passes",
    );
    match measure_matrix(plan, |done, _| observer.progress(done, "pairs")) {
        Ok(m) => {
            study.parts.matrix = Some(m);
            if stop.load(Ordering::Relaxed) {
                StageStatus::Interrupted
            } else {
                StageStatus::Done
            }
        }
        Err(e) => StageStatus::Failed(e.to_string()),
    }
}

fn run_stage(
    study: &mut StudyResults,
    topo: &Topology,
    placement: Placement,
    stop: &AtomicBool,
    observer: &mut impl Observer,
) -> StageStatus {
    let p = &study.plan.run;
    let request = RunRequest {
        pools: Pools::default(),
        read_every: 1,
        strategies: run_strategies(),
        counter_node: None,
        node_iter: crate::counter::NodeIter::Compact,
        duration: Duration::from_secs_f64(p.duration_s),
        warmup: Duration::from_secs_f64(plan::WARMUP_S),
        repeats: p.repeats,
        target_ci_pct: None,
        max_time: Duration::ZERO,
        rates: p.rates.clone(),
        seed: 1,
        sample_every: None,
        placement,
    };
    let plan = match runner::plan(&request, topo.clone()) {
        Ok(plan) => plan,
        Err(e) => return StageStatus::Failed(e.to_string()),
    };
    observer.stage("run", plan.entries() * plan.config.repeats, "repeats");
    match runner::execute(&plan, stop, |done, _, name| observer.progress(done, name)) {
        Ok(r) => {
            let partial = r.partial;
            study.parts.run = Some(r);
            if partial {
                StageStatus::Interrupted
            } else {
                StageStatus::Done
            }
        }
        Err(e) => StageStatus::Failed(e.to_string()),
    }
}

fn sweep_stage(
    study: &mut StudyResults,
    topo: &Topology,
    placement: Placement,
    stop: &AtomicBool,
    observer: &mut impl Observer,
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
        warmup: Duration::from_secs_f64(plan::WARMUP_S),
        seed: 1,
        placement,
    };
    let mut sweep_plan = match plan_sweep(&request, topo) {
        Ok(plan) => plan,
        Err(e) => return StageStatus::Failed(e.to_string()),
    };
    observer.stage("sweep", sweep_plan.total_repeats(), "repeats");
    let outcome = execute_sweep(
        &mut sweep_plan,
        stop,
        |done, label, name| observer.progress(done, &format!("{label}: {name}")),
        |_, _, _| Ok::<(), String>(()),
    );
    match outcome {
        Ok(o) => {
            study.parts.sweep = Some(o.results);
            match o.stopped {
                None => StageStatus::Done,
                Some(SweepStop::Interrupted) => StageStatus::Interrupted,
                Some(SweepStop::Failed { point, error }) => {
                    StageStatus::Failed(format!("{point}: {error}"))
                }
            }
        }
        Err(e) => StageStatus::Failed(e),
    }
}

fn predict_stage(study: &mut StudyResults, topo: &Topology) -> StageStatus {
    let Some(matrix) = &study.parts.matrix else {
        return StageStatus::Skipped("no matrix: no class latencies".into());
    };
    let request = PredictRequest {
        layout: Layout {
            writers: topo.allowed_cpus.to_vec(),
            readers: Vec::new(),
            read_every: 1,
        },
        levels: crate::counter::ShardLevel::ALL.to_vec(),
        policies: run_strategies().policies,
        rates: vec![study.plan.predict_rate],
        latencies: Latencies::from_matrix(matrix, "this study's matrix"),
        arrivals: Arrivals::Poisson,
        seed: 1,
    };
    match predict::predict(topo, &study.plan.host, &request) {
        Ok(p) => {
            study.parts.predict = Some(p);
            StageStatus::Done
        }
        Err(e) => StageStatus::Failed(e.to_string()),
    }
}
