//! Numbers over repeats: mean, spread and confidence intervals; Student's
//! t distribution (p-values and quantiles, from `statrs`); Welch's test,
//! the paired test of differences measured in the same repeats, and the
//! interval of a difference; Holm–Bonferroni correction and the decision
//! rule of `contend compare`; latency percentiles from histograms;
//! quantiles of samples; the trimmed mean of single-operation timings;
//! a mean adjusted for two covariates by least squares; runs as the unit of
//! replication between runs (a two-level estimate of a difference).
//!
//! Pure statistics: this module imports nothing else of the crate, so it
//! can be read, tested and trusted on its own.

mod adjusted;
mod decision;
mod latency;
mod quantile;
mod runs;
mod significance;
mod student;
mod summary;
mod trimmed;

pub use adjusted::adjusted_mean;
pub use decision::{
    Compared, Decision, Direction, NOISE_THRESHOLD, NoiseThreshold, NoiseThresholdError, Outcome,
    Threshold, decide, decide_differences, decide_paired, holm_adjusted,
};
pub use latency::LatencySummary;
pub use quantile::{median, quantile, quantile_of};
pub use runs::{Level, Run, RunSpread, RunsDifference, Slope, Spread, run_level, runs_difference};
pub use significance::{
    CONFIDENCE_LEVEL, Difference, SIGNIFICANCE_LEVEL, Welch, paired_t_test, welch_t_test,
};
pub use student::{NORMAL_ABOVE_DF, student_t_two_sided_p, t_quantile, t_quantile_975};
pub use summary::{SPREAD_REPEATS, Summary};
pub use trimmed::{TIMING_TRIM, trimmed_mean};
