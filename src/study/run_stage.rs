//! The study's run stage: `contend run`'s default strategies on every allowed CPU, flat out and at
//! the seed's rate, with its stop rule: the plan's repeats, then rounds for the widest CIs until
//! each is within the default target or its seconds (`budget_s`: the least of its planned seconds
//! and its share of the budget left) are spent.

use super::{StageProgress, StageStatus, StudyResults, out_of_time, run_strategies};
use crate::placement::Placement;
use crate::runner::{self, Pools, RunRequest, Stopped};
use crate::topology::Topology;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

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
        pools: Pools::default(),
        read_every: 1,
        strategies: run_strategies(),
        counter_node: None,
        node_iter: crate::counter::NodeIter::Compact,
        duration: Duration::from_secs_f64(p.duration_s),
        warmup: Duration::from_secs_f64(study.plan.warmup_s),
        repeats: p.repeats,
        target_ci_pct: Some(runner::DEFAULT_TARGET_CI_PCT),
        max_time: Some(Duration::from_secs_f64(budget_s.max(0.0))),
        rates: p.rates.clone(),
        seed: 1,
        sample_every: None,
        placement,
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
        Ok(r) => {
            let stopped = r.stopped();
            study.parts.run = Some(r);
            match stopped {
                None => StageStatus::Done,
                Some(Stopped::Interrupted) => StageStatus::Interrupted,
                Some(Stopped::OutOfTime) => out_of_time(budget_s, "repeat"),
            }
        }
        Err(e) => StageStatus::Failed(e.to_string()),
    }
}
