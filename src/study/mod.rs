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

/// Where a stage is: its name, units done of `total` (`unit` names
/// them), and what is running now. What [`Study::step`] reports as it
/// goes, for a progress bar.
#[derive(Debug, Clone)]
pub struct StageProgress {
    /// `matrix`, `run` or `sweep`.
    pub stage: &'static str,
    /// Units finished.
    pub done: usize,
    /// Units in the stage.
    pub total: usize,
    /// What the units are (`pair passes`, `repeats`).
    pub unit: &'static str,
    /// What is running.
    pub what: String,
}

/// A stage the budget left cannot pay for: why it is skipped.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("{:.0} s of the {budget_s:.0} s budget left, too little for it", .left_s.max(0.0))]
pub struct BudgetSpent {
    /// Seconds of the budget left.
    pub left_s: f64,
    /// The whole budget, seconds.
    pub budget_s: f64,
}

/// Shrinks the measured time per entry of the `run` or `sweep` stage (and
/// of the sweep after a run) to what `remaining_s` can pay for, or says
/// why the stage cannot run.
fn fit(plan: &mut StudyPlan, stage: &str, remaining_s: f64) -> Result<(), BudgetSpent> {
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
    let d = plan::refit(remaining_s, entries, fixed, planned).ok_or(BudgetSpent {
        left_s: remaining_s,
        budget_s: plan.max_time_s,
    })?;
    if stage == "run" {
        plan.run.duration_s = d;
    }
    plan.sweep.duration_s = plan.sweep.duration_s.min(d);
    Ok(())
}

/// A study under way on the live host, one stage at a time
/// ([`Study::step`]), so that whoever runs it can save what each stage
/// finished before the next starts: an interrupted study keeps it.
pub struct Study {
    results: StudyResults,
    started: Instant,
    /// Why the stages left are skipped (an earlier one was interrupted or
    /// failed).
    halted: Option<String>,
}

impl Study {
    /// The study `plan` asks for, started now.
    pub fn new(plan: StudyPlan, provenance: Provenance) -> Self {
        Study {
            results: StudyResults {
                schema: SCHEMA_VERSION,
                plan,
                provenance,
                stages: Vec::new(),
                elapsed_s: 0.0,
                partial: true,
                parts: StudyParts::default(),
            },
            started: Instant::now(),
            halted: None,
        }
    }

    /// Runs the next stage on `topo` and records how it ended; returns its
    /// name, or `None` once every stage has its record. Before the run
    /// and the sweep the measured time per strategy is shrunk to what the
    /// budget left can pay for ([`plan::refit`]), and a stage it cannot
    /// pay for is skipped; after an interrupted or failed stage the rest
    /// are skipped. `progress` hears where the stage is.
    pub fn step(
        &mut self,
        topo: &Topology,
        placement: Placement,
        stop: &AtomicBool,
        mut progress: impl FnMut(StageProgress),
    ) -> Option<&'static str> {
        let name = *STAGES.get(self.results.stages.len())?;
        let t0 = Instant::now();
        let study = &mut self.results;
        let status = match &self.halted {
            Some(why) => StageStatus::Skipped(why.clone()),
            None => {
                let remaining = study.plan.max_time_s - self.started.elapsed().as_secs_f64();
                match name {
                    "matrix" => matrix_stage(study, topo, stop, &mut progress),
                    "run" | "sweep" => match fit(&mut study.plan, name, remaining) {
                        Err(why) => StageStatus::Skipped(why.to_string()),
                        Ok(()) if name == "run" => {
                            run_stage(study, topo, placement, stop, &mut progress)
                        }
                        Ok(()) => sweep_stage(study, topo, placement, stop, &mut progress),
                    },
                    _ => predict_stage(study, topo),
                }
            }
        };
        match &status {
            StageStatus::Interrupted => {
                self.halted = Some(format!("the {name} stage was interrupted"));
            }
            StageStatus::Failed(_) => self.halted = Some(format!("the {name} stage failed")),
            StageStatus::Done | StageStatus::Skipped(_) => {}
        }
        study.stages.push(StageRecord {
            stage: name.into(),
            status,
            seconds: t0.elapsed().as_secs_f64(),
        });
        study.elapsed_s = self.started.elapsed().as_secs_f64();
        study.partial = study.stages.len() < STAGES.len()
            || study.stages.iter().any(|s| s.status != StageStatus::Done);
        Some(name)
    }

    /// What the stages run so far produced.
    pub fn results(&self) -> &StudyResults {
        &self.results
    }

    /// The whole study, once [`Study::step`] has returned `None`.
    pub fn into_results(self) -> StudyResults {
        self.results
    }
}

fn matrix_stage(
    study: &mut StudyResults,
    topo: &Topology,
    stop: &AtomicBool,
    progress: &mut impl FnMut(StageProgress),
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
    let total = plan.pairs.len() * crate::matrix::PASSES;
    let tick = |done, what: &str| StageProgress {
        stage: "matrix",
        done,
        total,
        unit: "pair passes",
        what: what.to_string(),
    };
    progress(tick(0, "pairs"));
    match measure_matrix(plan, |done, _| progress(tick(done, "pairs"))) {
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
    progress: &mut impl FnMut(StageProgress),
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
    let total = plan.entries() * plan.config.repeats;
    let tick = |done, what: &str| StageProgress {
        stage: "run",
        done,
        total,
        unit: "repeats",
        what: what.to_string(),
    };
    progress(tick(0, "run"));
    match runner::execute(&plan, stop, |done, _, name| progress(tick(done, name))) {
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
        warmup: Duration::from_secs_f64(plan::WARMUP_S),
        seed: 1,
        placement,
    };
    let mut sweep_plan = match plan_sweep(&request, topo) {
        Ok(plan) => plan,
        Err(e) => return StageStatus::Failed(e.to_string()),
    };
    let total = sweep_plan.total_repeats();
    progress(StageProgress {
        stage: "sweep",
        done: 0,
        total,
        unit: "repeats",
        what: "sweep".to_string(),
    });
    let outcome = execute_sweep(
        &mut sweep_plan,
        stop,
        |done, label, name| {
            progress(StageProgress {
                stage: "sweep",
                done,
                total,
                unit: "repeats",
                what: format!("{label}: {name}"),
            })
        },
        |_, _, _| Ok::<(), std::convert::Infallible>(()),
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
        Err(never) => match never {},
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
