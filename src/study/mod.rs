//! `contend study`: the whole seed study in one command. Stages, in order:
//! the pair matrix (a per-class sample), the default run (every strategy
//! flat out and at the seed's rate), a sweep over the thread counts that
//! first reach each distance class, and `predict` for every allowed CPU at
//! the seed's rate with this study's class latencies. The plan and its
//! time budget are in `plan.rs`; the combined verdict is
//! `verdict/study.rs`'s; every file is written by the command through
//! `report/` after each stage, so an interrupted study keeps what it
//! finished.

mod matrix_stage;
pub mod plan;
mod predict_stage;
mod result;
mod run_stage;
mod sweep_stage;

pub use plan::{
    ClassSample, MatrixStage, RunStage, StudyPlan, StudyPlanError, SweepStage, ThreadStep,
    default_max_time_s, plan_study, run_strategies, sweep_strategies,
};
pub use result::{SCHEMA_VERSION, StageRecord, StageStatus, StudyParts, StudyResults};

use crate::placement::Placement;
use crate::provenance::Provenance;
use crate::topology::Topology;
use matrix_stage::study_matrix;
use predict_stage::study_predict;
use run_stage::study_run;
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use sweep_stage::study_sweep;

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
                    "matrix" => study_matrix(study, topo, stop, &mut progress),
                    "run" | "sweep" => match fit(&mut study.plan, name, remaining) {
                        Err(why) => StageStatus::Skipped(why.to_string()),
                        Ok(()) if name == "run" => {
                            study_run(study, topo, placement, stop, &mut progress)
                        }
                        Ok(()) => study_sweep(study, topo, placement, stop, &mut progress),
                    },
                    _ => study_predict(study, topo),
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
