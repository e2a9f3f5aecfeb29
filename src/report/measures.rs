//! What the run tables show, shared by the text table, the Markdown
//! export and `contend compare`: the measures, the row labels and the
//! `mean±stddev%` cell.

use crate::results::{StrategyResult, StrategySummary};
use crate::stats::Summary;
use std::fmt::Write;

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

/// Row labels: the publish policy, plus the pad and clock when the
/// strategies shown use more than one.
pub struct RowLabels {
    pads: bool,
    clocks: bool,
}

impl RowLabels {
    /// The labelling for these strategies.
    pub fn new<'a>(strategies: impl Iterator<Item = &'a StrategyResult> + Clone) -> Self {
        RowLabels {
            pads: unique(strategies.clone().map(|s| s.strategy.pad.to_string())).len() > 1,
            clocks: unique(
                strategies
                    .filter_map(|s| s.strategy.clock)
                    .map(|c| c.to_string()),
            )
            .len()
                > 1,
        }
    }

    /// The row `s` belongs to.
    pub fn label(&self, s: &StrategyResult) -> String {
        let mut label = s.strategy.publish.to_string();
        if self.pads {
            let _ = write!(label, " pad{}", s.strategy.pad);
        }
        if let Some(c) = s.strategy.clock.filter(|_| self.clocks) {
            let _ = write!(label, " {c}");
        }
        label
    }
}

/// The items in first-seen order, without repeats.
pub fn unique(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for item in items {
        if !seen.contains(&item) {
            seen.push(item);
        }
    }
    seen
}

/// `mean±stddev%`, as the seeds print it.
pub fn fmt_summary(s: &Summary, decimals: usize) -> String {
    format!("{:.*}±{:.2}%", decimals, s.mean, s.stddev_pct)
}
