//! Numbers over repeats: mean, spread and confidence intervals; Welch's
//! test; latency percentiles from histograms; quantiles of samples.
//!
//! Pure statistics: this module imports nothing else of the crate, so it
//! can be read, tested and trusted on its own.

mod latency;
mod quantile;
mod significance;
mod summary;

pub use latency::LatencySummary;
pub use quantile::{quantile, quantile_of};
pub use significance::{
    Difference, SIGNIFICANCE_LEVEL, Welch, regularized_incomplete_beta, student_t_two_sided_p,
    welch_t_test,
};
pub use summary::{Summary, t_quantile_975};
