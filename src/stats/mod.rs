//! Numbers over repeats: mean, spread and confidence intervals; latency
//! percentiles from histograms.

mod aggregate;
mod latency;
mod summary;

pub use aggregate::{repeat_result, strategy_summary};
pub use latency::{LatencySummary, new_histogram};
pub use summary::{Summary, t_quantile_975};
