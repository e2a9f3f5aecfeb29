//! The study's result model: the plan, how each stage ended and what it
//! took, serialised as study.json (schema in docs/results-schema.md), and
//! the parts (matrix, run, sweep, prediction), each in its own file.

use super::StudyPlan;
use crate::matrix::MatrixResults;
use crate::predict::{CheckResults, PredictResults};
use crate::provenance::Provenance;
use crate::runner::RunResults;
use crate::sweep::SweepResults;
use serde::{Deserialize, Serialize};

/// Version of study.json's layout.
pub const SCHEMA_VERSION: u32 = 1;

/// How a stage ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "status", content = "why")]
pub enum StageStatus {
    /// Finished; its file is in the folder.
    Done,
    /// Stopped by Ctrl-C or SIGTERM; what it finished is kept.
    Interrupted,
    /// Stopped at a repeat boundary when its share of the budget ran out;
    /// what it finished is kept, and why.
    Partial(String),
    /// Not run, and why (an earlier stage was interrupted or failed, or
    /// the budget was spent).
    Skipped(String),
    /// Failed, and why.
    Failed(String),
}

/// One stage's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageRecord {
    /// `matrix`, `run`, `sweep` or `predict`.
    pub stage: String,
    /// How it ended.
    pub status: StageStatus,
    /// Wall seconds it took.
    pub seconds: f64,
}

/// What the stages produced (each `None` until its stage is done).
#[derive(Debug, Clone, Default)]
pub struct StudyParts {
    /// The pair matrix.
    pub matrix: Option<MatrixResults>,
    /// The default run.
    pub run: Option<RunResults>,
    /// The sweep (partial when interrupted).
    pub sweep: Option<SweepResults>,
    /// The prediction.
    pub predict: Option<PredictResults>,
    /// The prediction checked against the run (`predict --check`), or why
    /// it could not be; `None` without a run.
    pub check: Option<Result<CheckResults, String>>,
    /// The check again at each repeat's canary, when the run's canary
    /// moved away from the matrix's figure.
    pub canary_check: Option<CanaryCheck>,
}

/// The check priced at the run's own canaries, for a study whose host's
/// core-to-core latency moved between the matrix and the run.
#[derive(Debug, Clone)]
pub struct CanaryCheck {
    /// The run's median canary, ns one-way.
    pub canary_ns: f64,
    /// The matrix's figure for the run's class, ns one-way.
    pub matrix_ns: f64,
    /// The check with each repeat priced at its canary.
    pub check: CheckResults,
}

/// A whole `contend study`: study.json (the plan, each stage's record) and
/// the parts, each saved in its own file beside it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StudyResults {
    /// [`SCHEMA_VERSION`].
    pub schema: u32,
    /// What was planned.
    pub plan: StudyPlan,
    /// Where and with what it ran.
    pub provenance: Provenance,
    /// Per stage, how it ended.
    pub stages: Vec<StageRecord>,
    /// Wall seconds in all.
    pub elapsed_s: f64,
    /// True unless every stage is done.
    pub partial: bool,
    /// The parts (not in study.json: each has its own file).
    #[serde(skip)]
    pub parts: StudyParts,
}
