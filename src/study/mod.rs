//! `contend study`: the whole seed study in one command.

pub mod plan;
pub mod pricing;
mod result;
mod stages;

pub use plan::{StudyPlan, plan_study, run_strategies, sweep_strategies};
use result::{PricedWith, Pricing};
pub use result::{SCHEMA_VERSION, StageRecord, StageStatus, StudyParts, StudyResults};

use crate::placement::Placement;
use crate::provenance::Provenance;
use crate::topology::Topology;
use stages::{measure_again_if_needed, study_matrix, study_predict, study_run, study_sweep};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The stages, in the order run.
pub const STAGES: [&str; 4] = ["matrix", "run", "sweep", "predict"];

/// Where a stage is: its name, units done of `total` (`unit` names them), and what is running now.
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

impl StageProgress {
    /// `done` of `stage`'s `total` `unit`s, `what` running now.
    fn new(
        stage: &'static str,
        unit: &'static str,
        done: usize,
        total: usize,
        what: String,
    ) -> Self {
        StageProgress {
            stage,
            done,
            total,
            unit,
            what,
        }
    }
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

/// Shrinks the measured time per entry of the `run` or `sweep` stage (and of the sweep after a run)
/// to what `remaining_s` can pay for, or says why the stage cannot run.
fn fit(plan: &mut StudyPlan, stage: &str, remaining_s: f64) -> Result<(), BudgetSpent> {
    // Before the run, the time left pays the run and the sweep after it.
    let run = (stage == "run").then_some(&plan.run);
    let entries = run.map_or(0, |r| r.runs) + plan.sweep.runs;
    let fixed = run.map_or(0.0, |r| r.fixed_s) + plan.sweep.fixed_s;
    let planned = run.map_or(plan.sweep.duration_s, |r| r.duration_s);
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

/// The run stage's share of the time left for the run and the sweep.
fn run_share(plan: &StudyPlan) -> f64 {
    let (run, sweep) = (plan.run.seconds(), plan.sweep.seconds());
    if run + sweep > 0.0 {
        run / (run + sweep)
    } else {
        1.0
    }
}

/// The run stage's hard budget with `remaining_s` of the study's left.
fn run_budget(plan: &StudyPlan, remaining_s: f64) -> f64 {
    (remaining_s * run_share(plan)).min(plan.run.seconds() / (1.0 - plan::MARGIN))
}

/// A study under way on the live host, one stage at a time ([`Study::step`]), so that whoever runs
/// it can save what each stage finished before the next starts: an interrupted study keeps it.
pub struct Study {
    results: StudyResults,
    started: Instant,
    /// Why the stages left are skipped (an earlier one was interrupted or failed).
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
                pricing: None,
                parts: StudyParts::default(),
            },
            started: Instant::now(),
            halted: None,
        }
    }

    /// Runs the next stage on `topo` and records how it ended.
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
                let spent = BudgetSpent {
                    left_s: remaining,
                    budget_s: study.plan.max_time_s,
                };
                match name {
                    "matrix" if study.plan.matrix.est_s > remaining => {
                        StageStatus::Skipped(spent.to_string())
                    }
                    "matrix" => study_matrix(study, topo, stop, &mut progress),
                    "run" | "sweep" => match fit(&mut study.plan, name, remaining) {
                        Err(why) => StageStatus::Skipped(why.to_string()),
                        Ok(()) if name == "run" => {
                            let budget_s = run_budget(&study.plan, remaining);
                            let status =
                                study_run(study, topo, placement, stop, budget_s, &mut progress);
                            let left = study.plan.max_time_s - self.started.elapsed().as_secs_f64();
                            measure_again_if_needed(study, topo, stop, left, &mut progress);
                            status
                        }
                        Ok(()) => {
                            study_sweep(study, topo, placement, stop, remaining, &mut progress)
                        }
                    },
                    _ => study_predict(study, topo),
                }
            }
        };
        match &status {
            StageStatus::Interrupted => {
                self.halted = Some(format!("the {name} stage was interrupted"))
            }
            StageStatus::Failed(_) => self.halted = Some(format!("the {name} stage failed")),
            _ => {}
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::calibrate_tsc;
    use std::time::Duration;

    /// This host's study plan and provenance.
    fn live() -> (Topology, StudyPlan, Provenance) {
        let topo = Topology::read(std::path::Path::new("/")).unwrap();
        let plan = plan_study(&topo, "here", None, &plan::example_costs()).unwrap();
        let provenance = Provenance::of_this_host(calibrate_tsc(Duration::from_millis(20)));
        (topo, plan, provenance)
    }

    #[test]
    fn a_budget_too_small_for_every_stage_skips_them_all() {
        // The budget is spent before the first stage (as a study that
        // started late would find it): each stage checks and is skipped,
        // matrix included, and nothing is measured.
        let (topo, mut plan, provenance) = live();
        plan.max_time_s = 0.01;
        let mut study = Study::new(plan, provenance);
        let stop = AtomicBool::new(false);
        let mut heard = 0;
        while study
            .step(&topo, Placement::Strict, &stop, |_| heard += 1)
            .is_some()
        {}
        let r = study.into_results();
        let skipped = |s: &StageRecord| matches!(s.status, StageStatus::Skipped(_));
        assert_eq!(r.stages.len(), STAGES.len());
        assert!(r.stages.iter().all(skipped), "{:?}", r.stages);
        assert!(r.partial && r.parts.matrix.is_none() && r.parts.run.is_none());
        assert_eq!(heard, 0);
    }

    #[test]
    fn a_stage_whose_share_runs_out_stops_at_a_repeat_boundary() {
        // The run stage with 0.6 s of the budget: the hammer floor and a
        // few repeats fit, the rest does not; what finished is kept.
        let (topo, plan, provenance) = live();
        let mut study = Study::new(plan, provenance).results;
        let stop = AtomicBool::new(false);
        let started = Instant::now();
        let mut ticks = Vec::new();
        let status = study_run(&mut study, &topo, Placement::Strict, &stop, 0.6, &mut |p| {
            ticks.push((p.done, p.total))
        });
        let took = started.elapsed().as_secs_f64();
        let partial = matches!(&status, StageStatus::Partial(why) if why.contains("0.6 s"));
        assert!(partial, "{status:?}");
        let run = study.parts.run.as_ref().unwrap();
        assert!(run.out_of_time && run.partial);
        // Planning the run (TSC calibration) comes on top of its budget.
        assert!(took < 0.6 + 0.3, "{took} s");
        // Progress starts from the runner's planned repeats: 13 entries
        // (6 strategies × 2 regimes and the clock floor the ratelimits'
        // TSC reads need; the paced floor runs in place, the harness
        // floor before the rounds) × 5.
        assert_eq!(ticks.first(), Some(&(0, 13 * 5)), "{ticks:?}");
    }

    #[test]
    fn a_late_stage_shrinks_its_time_per_entry_to_what_is_left() {
        // The 224-CPU plan (plan.rs's test works it by hand): the run's 7
        // repeats a round start in 4.4329 s, the sweep's 12 in 4.1928 s,
        // each measuring 1 s.
        let spr = crate::topology::fixture("spr-2s-224");
        let plan = plan_study(&spr, "spr", None, &plan::example_costs()).unwrap();
        assert_eq!((plan.run.runs, plan.sweep.runs), (7, 12));
        assert_eq!((plan.run.duration_s, plan.sweep.duration_s), (1.0, 1.0));
        let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
        // The run's and the sweep's time per entry after a fit.
        let fitted = |stage, left_s| {
            let mut p = plan.clone();
            fit(&mut p, stage, left_s).map(|()| (p.run.duration_s, p.sweep.duration_s))
        };
        // Before the run, 20 s left pays both stages: 90% of it less
        // 8.6257 s of start-up over 19 runs, 0.493384 s each.
        let (run, sweep) = fitted("run", 20.0).unwrap();
        let d = (18.0 - 8.6257) / 19.0;
        assert!(near(run, d) && near(sweep, d));
        // Before the sweep, 10 s left pays the sweep alone: (9 - 4.1928)
        // / 12 = 0.4006 s; the run's figure stays.
        let (run, sweep) = fitted("sweep", 10.0).unwrap();
        assert!(near(sweep, (9.0 - 4.1928) / 12.0) && run == 1.0);
        // Time to spare never lengthens what was planned.
        assert_eq!(fitted("run", 1000.0), Ok((1.0, 1.0)));
        // 9 s cannot pay the start-up: skipped, saying what was left.
        let mut p = plan.clone();
        let err = fit(&mut p, "run", 9.0).unwrap_err();
        assert_eq!((err.left_s, err.budget_s), (9.0, 476.0));
        let said = "9 s of the 476 s budget left, too little for it";
        assert_eq!(err.to_string(), said);
        assert_eq!(p.run.duration_s, 1.0);
    }

    #[test]
    fn the_run_gets_its_planned_share_of_what_is_left_and_no_more() {
        // The 224-CPU plan: the run 11.4329 s, the sweep 16.1928 s
        // (plan.rs's test works both by hand), so the run's share is
        // 11.4329 / 27.6257 = 0.41385.
        let spr = crate::topology::fixture("spr-2s-224");
        let plan = plan_study(&spr, "spr", None, &plan::example_costs()).unwrap();
        let share = run_share(&plan);
        assert!((share - 11.4329 / 27.6257).abs() < 1e-9, "{share}");
        // Its budget: that share of what is left, never more than its own
        // 11.4329 s with its 10% of the margin, 12.7032 s, which the stop
        // rule's rounds spend up to.
        assert!((run_budget(&plan, 10.0) - 114.329 / 27.6257).abs() < 1e-9);
        assert!((run_budget(&plan, 1000.0) - 11.4329 / 0.9).abs() < 1e-9);
        // A run with nothing left to pay for gets none of it; with neither
        // stage needing anything, the run may have it all.
        let mut idle = plan.clone();
        (idle.run.fixed_s, idle.run.duration_s) = (0.0, 0.0);
        assert_eq!(run_share(&idle), 0.0);
        (idle.sweep.fixed_s, idle.sweep.duration_s) = (0.0, 0.0);
        assert_eq!(run_share(&idle), 1.0);
    }
}
