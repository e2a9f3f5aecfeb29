//! The saturated regime set against flat-out runs: each strategy's hand-overs a second, predicted
//! one transfer at a time ([`super::Capacity`]), against the run's exact count, with the paced
//! points' agreement rule.

use super::agreement::{Agreement, agreement, off_pct};
use super::class::Bound;
use super::latency::Latencies;
use super::model::Lines;
use super::{FLAT_OUT_RATE, Walks, publish_fraction};
use crate::runner::StrategyResult;
use crate::stats::median;
use crate::workload::Arrivals;
use serde::{Deserialize, Serialize};

/// One flat-out strategy: hand-overs a second predicted and counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandoverPoint {
    /// The series: the strategy, plus a sweep point's suffix.
    pub series: String,
    /// Writer threads.
    pub writers: usize,
    /// Repeats predicted and measured.
    pub repeats: usize,
    /// Predicted hand-overs a second over every line, the median over repeats, each at its own
    /// latencies.
    pub predicted_per_s: f64,
    /// Lines the model saturates (one transfer at a time).
    pub saturated_lines: usize,
    /// Predicted round of the saturated line, ns, the median over the repeats where it saturates.
    pub predicted_round_ns: Option<f64>,
    /// Counted hand-overs a second (exact counts), mean over repeats.
    pub measured_per_s: f64,
    /// Its 95% confidence interval.
    pub measured_ci: [f64; 2],
    /// Publishes per hand-over, as the run counted them (`None` with no hand-over).
    pub updates_per_ownership: Option<f64>,
    /// The writers' loop ns per update, measured (flat out: writers × interval ÷ updates).
    pub measured_ns_per_update: Option<f64>,
}

impl HandoverPoint {
    /// |predicted − measured| hand-overs a second, % of measured; 0 when both are 0.
    pub fn error_pct(&self) -> Option<f64> {
        off_pct(self.predicted_per_s, self.measured_per_s)
    }

    /// Nothing handed over, predicted or counted (one writer per line).
    pub fn nothing_handed_over(&self) -> bool {
        self.predicted_per_s == 0.0 && self.measured_per_s == 0.0
    }

    /// Whether the prediction agrees with the count.
    pub fn agreement(&self) -> Agreement {
        let (ci, error) = (self.measured_ci, self.error_pct());
        agreement(Some(self.predicted_per_s), ci, error, self.repeats)
    }

    /// The hold the count implies, ns per ownership: (1/counted − 1/predicted) × saturated lines.
    pub fn implied_hold_ns(&self) -> Option<f64> {
        (self.saturated_lines > 0 && self.measured_per_s > 0.0 && self.predicted_per_s > 0.0).then(
            || {
                self.saturated_lines as f64
                    * 1e9
                    * (1.0 / self.measured_per_s - 1.0 / self.predicted_per_s)
            },
        )
    }

    /// A saturated line's predicted round over the measured updates per ownership, ns.
    pub fn predicted_ns_per_update(&self) -> Option<f64> {
        Some(self.predicted_round_ns? / self.updates_per_ownership?)
    }
}

/// The flat-out point of strategy `s` (named `series`) with `writers` writers on `lines`, each
/// repeat priced at its own latencies (`lats`, one per repeat).
pub fn flat_out_point(
    series: String,
    s: &StrategyResult,
    lines: &Lines,
    writers: usize,
    walks: Walks,
    lats: &[Latencies],
) -> Option<HandoverPoint> {
    let summary = s.summary.as_ref()?;
    let measured = summary.handovers_per_s.as_ref()?;
    // Flat out as `contend predict` models it (not at the measured update rate, which already holds
    // the batching the model does not predict: a writer's updates per ownership).
    let f = publish_fraction(s.strategy.publish, FLAT_OUT_RATE, walks);
    let mut predicted = Vec::new();
    let mut rounds = Vec::new();
    let mut saturated_lines = 0;
    for lat in lats {
        let c = lines
            .evaluate(FLAT_OUT_RATE, f, lat, Bound::Mid, Arrivals::Paced)
            .capacity;
        predicted.push(c.handovers_per_s);
        rounds.extend(c.round_ns);
        saturated_lines = saturated_lines.max(c.saturated_lines);
    }
    Some(HandoverPoint {
        series,
        writers,
        repeats: predicted.len(),
        predicted_per_s: median(&predicted)?,
        saturated_lines,
        predicted_round_ns: median(&rounds),
        measured_per_s: measured.mean,
        measured_ci: [measured.ci95_low, measured.ci95_high],
        updates_per_ownership: summary.updates_per_ownership.as_ref().map(|u| u.mean),
        measured_ns_per_update: summary.write_loop_ns.as_ref().map(|l| l.mean),
    })
}

#[cfg(test)]
impl HandoverPoint {
    /// A flat-out point for tests: `series` on 2 writers over `repeats`, `predicted` hand-overs/s
    /// against `measured` (95% CI `ci`), one line saturated at a 100 ns round, 4 updates per
    /// ownership, a 30 ns loop.
    pub fn example(
        series: &str,
        repeats: usize,
        predicted: f64,
        measured: f64,
        ci: [f64; 2],
    ) -> Self {
        HandoverPoint {
            series: series.into(),
            writers: 2,
            repeats,
            predicted_per_s: predicted,
            saturated_lines: 1,
            predicted_round_ns: Some(100.0),
            measured_per_s: measured,
            measured_ci: ci,
            updates_per_ownership: Some(4.0),
            measured_ns_per_update: Some(30.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(predicted: f64, measured: f64, ci: [f64; 2]) -> HandoverPoint {
        HandoverPoint::example("global/always", 3, predicted, measured, ci)
    }

    #[test]
    fn a_flat_out_point_agrees_inside_the_ci_and_the_margin() {
        // 20M predicted against 18M [17M, 21M]: 11% off, inside.
        let p = point(20e6, 18e6, [17e6, 21e6]);
        assert!((p.error_pct().unwrap() - 100.0 / 9.0).abs() < 1e-9);
        assert_eq!(p.agreement(), Agreement::Agrees);
        // None counted and none predicted (a per-CPU split): agrees.
        let none = point(0.0, 0.0, [0.0, 0.0]);
        assert_eq!(none.error_pct(), Some(0.0));
        assert!(none.agreement() == Agreement::Agrees && none.nothing_handed_over());
        // Some predicted where none were counted: no finite error, and not right by construction.
        let some = point(5.0, 0.0, [0.0, 0.0]);
        assert_eq!(
            (some.error_pct(), some.nothing_handed_over()),
            (None, false)
        );
        assert!(!point(0.0, 5.0, [4.0, 6.0]).nothing_handed_over());
        // The round over 4 updates per ownership: 25 ns each.
        assert_eq!(p.predicted_ns_per_update(), Some(25.0));
        // 20M/s predicted (50 ns a hand-over), 4M/s counted (250 ns): the line was held 200 ns per
        // ownership beyond the transfer.
        let held = point(20e6, 4e6, [3e6, 5e6]);
        assert!((held.implied_hold_ns().unwrap() - 200.0).abs() < 1e-6);
        // Nothing saturated: no hold to imply.
        let mut capped = held;
        capped.saturated_lines = 0;
        assert_eq!(capped.implied_hold_ns(), None);
    }
}
