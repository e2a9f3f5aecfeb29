//! The study's matrix stage: a per-class sample of CPU pairs, each pair's transfer latency measured
//! as `contend matrix` does; measured again after the run when the run's canary disagrees with it
//! (`pricing.rs`).

use super::{StageProgress, StageStatus, StudyResults};
use crate::matrix::{Home, MatrixRequest, MatrixResults, Mode, measure_matrix, plan_matrix};
use crate::topology::{CpuSpec, Topology};
use std::sync::atomic::{AtomicBool, Ordering};

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
            if stop.load(Ordering::Relaxed) {
                StageStatus::Interrupted
            } else {
                StageStatus::Done
            }
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
        cpus: CpuSpec::All,
        samples: study.plan.matrix.samples,
        home: Home::First,
        mode: Mode::Cas,
        per_class: Some(study.plan.matrix.per_class),
        clip: false,
        contenders: None,
        sharers: None,
        home_classes: false,
    };
    let plan = plan_matrix(&request, topo.clone()).map_err(|e| e.to_string())?;
    let total = plan.pairs.len() * crate::matrix::PASSES;
    let tick = |done| StageProgress::new(stage, "pair passes", done, total, "pairs".into());
    progress(tick(0));
    measure_matrix(plan, |done, _| progress(tick(done))).map_err(|e| e.to_string())
}
