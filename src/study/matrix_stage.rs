//! The study's matrix stage: a per-class sample of CPU pairs, each
//! pair's transfer latency measured as `contend matrix` does.

use super::{StageProgress, StageStatus, StudyResults};
use crate::matrix::{Home, MatrixRequest, Mode, measure_matrix, plan_matrix};
use crate::topology::{CpuSpec, Topology};
use std::sync::atomic::{AtomicBool, Ordering};

pub(super) fn study_matrix(
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
        clip: false,
        contenders: None,
        sharers: None,
        home_classes: false,
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
