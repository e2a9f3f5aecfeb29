//! The study's sweep stage: the thread counts that first reach each distance class, unbound, in
//! every regime of the plan.

use super::{StageProgress, StageStatus, StudyResults, out_of_time, sweep_strategies};
use crate::placement::Placement;
use crate::runner::PoolSize;
use crate::sweep::{Affinity, SweepRequest, SweepStop, execute_sweep, plan_sweep};
use crate::topology::Topology;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

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
    let Ok(o) = execute_sweep(
        &mut sweep_plan,
        stop,
        |done, label, name| progress(tick(done, format!("{label}: {name}"))),
        |_, _, _| Ok::<(), std::convert::Infallible>(()),
    );
    study.parts.sweep = Some(o.results);
    match o.stopped {
        None => StageStatus::Done,
        Some(SweepStop::Interrupted) => StageStatus::Interrupted,
        Some(SweepStop::OutOfTime) => out_of_time(budget_s, "point"),
        Some(SweepStop::Failed { point, error }) => {
            StageStatus::Failed(format!("{point}: {error}"))
        }
    }
}
