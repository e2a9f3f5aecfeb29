//! How the run tables lay out the measures, shared by the text table, the
//! Markdown export and `contend compare`: the row labels and the
//! `mean±stddev%` cell. The measures themselves are
//! [`crate::results::MEASURES`].

use crate::results::StrategyResult;
use crate::stats::Summary;
use std::fmt::Write;

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

/// A measure's `mean±stddev%` cell, or `-` when it was not recorded.
pub fn shown(value: Option<Summary>, decimals: usize) -> String {
    value.map_or("-".to_string(), |v| fmt_summary(&v, decimals))
}
