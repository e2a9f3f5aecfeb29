//! Numbers over repeats: summaries, Student's t, Welch's and the paired test, Holm's correction and
//! the decision rule, percentiles, quantiles, the trimmed and adjusted means, runs as replicates;
//! it imports nothing else of the crate.

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
    Compared, Decision, Direction, NOISE_THRESHOLD, NoiseThreshold, Outcome, Threshold,
    decide_differences, decide_paired, holm_adjusted,
};
pub use latency::LatencySummary;
pub use quantile::{median, quantile, quantile_of};
pub use runs::{Level, Run, RunSpread, RunsDifference, Spread, run_level, runs_difference};
pub use significance::{CONFIDENCE_LEVEL, Difference, SIGNIFICANCE_LEVEL, Welch, welch_t_test};
pub use student::t_quantile_975;
pub use summary::{SPREAD_REPEATS, Summary, ratio};
pub use trimmed::{TIMING_TRIM, trimmed_mean};
