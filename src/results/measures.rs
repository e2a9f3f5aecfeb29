//! The figures a run summary holds, as tables and `contend compare` show
//! them: what each one measures, in what unit, and which way is better.

use super::StrategySummary;
use crate::stats::Summary;

/// One measure of a strategy's summary, as the text table, the Markdown
/// tables and `contend compare` show it.
pub struct Measure {
    /// Heading: what is measured, in which unit, and which way is better.
    pub title: &'static str,
    /// Short name for a table cell (`updates/s`, `write ns/op`).
    pub short: &'static str,
    /// Decimals of the mean.
    pub decimals: usize,
    /// The measure in a strategy's summary (`None` when not recorded, e.g.
    /// latency with sampling off).
    pub get: fn(&StrategySummary) -> Option<Summary>,
}

/// The measures, in the order the text table prints them; the first four
/// are the throughput and latency of each side, which `contend compare`
/// sets side by side.
pub const MEASURES: [Measure; 6] = [
    Measure {
        title: "write side: updates/s, all writers (higher is better)",
        short: "updates/s",
        decimals: 0,
        get: |s| Some(s.write_ops_per_s),
    },
    Measure {
        title: "read side: sum + calc_group_shares per second, all threads (higher is better)",
        short: "read ops/s",
        decimals: 0,
        get: |s| Some(s.read_ops_per_s),
    },
    Measure {
        title: "write ns/op: mean of sampled updates (lower is better)",
        short: "write ns/op",
        decimals: 1,
        get: |s| s.write_ns,
    },
    Measure {
        title: "read ns/op: mean of sampled reads (lower is better)",
        short: "read ns/op",
        decimals: 1,
        get: |s| s.read_ns,
    },
    Measure {
        title: "publishes/s: atomic adds to shared slots (the line really written)",
        short: "publishes/s",
        decimals: 0,
        get: |s| Some(s.publishes_per_s),
    },
    Measure {
        title: "staleness: mean unpublished delta at publish, % of total",
        short: "staleness %",
        decimals: 4,
        get: |s| Some(s.error_mean_pct),
    },
];
