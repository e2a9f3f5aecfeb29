//! Numbers over repeats: mean, spread and confidence intervals; latency
//! percentiles from histograms.

mod aggregate;
mod latency;
mod significance;
mod summary;

pub use aggregate::{repeat_result, strategy_summary};
pub use latency::{LatencySummary, new_histogram};
pub use significance::{
    Difference, SIGNIFICANCE_LEVEL, Welch, regularized_incomplete_beta, student_t_two_sided_p,
    welch_t_test,
};
pub use summary::{Summary, t_quantile_975};
