//! The study's result model: the plan, how each stage ended and what it took, serialised as
//! study.json (schema in docs/results-schema.md), and the parts (matrix, run, sweep, prediction),
//! each in its own file.

use super::StudyPlan;
use crate::matrix::MatrixResults;
use crate::predict::{CheckResults, Latencies, PredictResults};
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
    /// Stopped at a repeat boundary when its share of the budget ran out.
    Partial(String),
    /// Not run, and why (an earlier stage was interrupted or failed, or the budget was spent).
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
    /// The prediction checked against the run (`predict --check`), or why it could not be.
    pub check: Option<Result<CheckResults, String>>,
    /// The matrix measured again right after the run, because the run's canary disagreed with the
    /// matrix stage's (`None` when it agreed, or without a run), or why it could not be.
    pub matrix_again: Option<Result<MatrixResults, String>>,
}

/// Which figures priced the prediction and its check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PricedWith {
    /// The matrix stage's class latencies.
    Matrix,
    /// The matrix measured again right after the run.
    MatrixAgain,
    /// Each repeat's own canary (the run's one pair class).
    Canary,
}

impl PricedWith {
    /// The figures' name in a sentence.
    pub fn name(self) -> &'static str {
        match self {
            PricedWith::Matrix => "this study's matrix",
            PricedWith::MatrixAgain => "the matrix measured again after the run",
            PricedWith::Canary => "each repeat's own canary",
        }
    }
}

/// What priced the prediction and its check, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pricing {
    /// The figures used.
    pub used: PricedWith,
    /// Why, one sentence with the figures it compared.
    pub why: String,
    /// The class of the run's canary pair (`same-llc`), with a run.
    pub canary_class: Option<String>,
    /// The run's canary: the median over its repeats of each repeat's one-way CAS ping-pong, ns.
    pub canary_ns: Option<f64>,
    /// That class's cheapest and dearest pair (each pair's median one-way ns) in the matrix stage.
    pub matrix_range_ns: Option<[f64; 2]>,
    /// The same in the matrix measured again after the run, when it was.
    pub again_range_ns: Option<[f64; 2]>,
    /// The class latencies the prediction used.
    pub latencies: Latencies,
}

/// A whole `contend study`: study.json (the plan, each stage's record) and the parts, each saved in
/// its own file beside it.
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
    /// What priced the prediction and its check, and why.
    pub pricing: Option<Pricing>,
    /// The parts (not in study.json: each has its own file).
    #[serde(skip)]
    pub parts: StudyParts,
}
