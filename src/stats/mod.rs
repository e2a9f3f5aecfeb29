//! Numbers over repeats: mean, spread and confidence intervals; Student's
//! t distribution (p-values and exact quantiles); Welch's test and the
//! interval of a difference; Holm–Bonferroni correction and the decision
//! rule of `contend compare`; latency percentiles from histograms;
//! quantiles of samples.
//!
//! Pure statistics: this module imports nothing else of the crate, so it
//! can be read, tested and trusted on its own.

mod decision;
mod distribution;
mod latency;
mod quantile;
mod significance;
mod summary;

pub use decision::{Decision, holm_adjusted};
pub use distribution::{
    regularized_incomplete_beta, student_t_two_sided_p, t_quantile, t_quantile_975,
};
pub use latency::LatencySummary;
pub use quantile::{quantile, quantile_of};
pub use significance::{CONFIDENCE_LEVEL, Difference, SIGNIFICANCE_LEVEL, Welch, welch_t_test};
pub use summary::Summary;
