//! The study's predict stage: every allowed CPU a writer at the seed's
//! rate, with this study's class latencies and poisson arrivals, as a
//! kernel's updates fall.

use super::{StageStatus, StudyResults, run_strategies};
use crate::predict::{self, Latencies, Layout, PredictRequest};
use crate::topology::Topology;
use crate::workload::Arrivals;

pub(super) fn study_predict(study: &mut StudyResults, topo: &Topology) -> StageStatus {
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
