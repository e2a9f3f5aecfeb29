//! `ns-per-op.svg` (`ns-per-op-r<rate>.svg` for a paced regime): the cost of one update per
//! strategy, the figure `contend compare` and the verdicts use ([`cost_measure`]), with 95%
//! confidence intervals.

use super::bars::Bars;
use super::{Header, Repeats};
use crate::report::DrawError;
use crate::runner::{PACED, RunResults, THROUGHPUT_NS, cost_measure};
use crate::workload::Regime;

/// The chart of `run`, a view of one regime.
pub(super) fn render(run: &RunResults) -> Option<Result<String, DrawError>> {
    let regime = run.regime();
    let (title, x_desc) = match regime {
        Regime::FlatOut => (
            "Cost of one update per strategy, ns/op from throughput".to_string(),
            "ns per update (the writer loop: an update and its read side), from throughput"
                .to_string(),
        ),
        Regime::Paced { .. } => (
            "Net cost of one update per strategy".to_string(),
            format!("ns per update, {regime} (busy time, not waiting in the pacer, / updates)"),
        ),
    };
    let lead = cost_measure(regime);
    let measures = match regime {
        Regime::FlatOut => vec![
            ("loop ns/op", lead),
            ("net: less the harness floor", &THROUGHPUT_NS[1]),
            ("reader ns/op", &THROUGHPUT_NS[2]),
        ],
        Regime::Paced { .. } => vec![
            ("net: less the paced floor", lead),
            ("busy ns/op, harness included", &PACED[2]),
        ],
    };
    let header = Header::run(&title, run, Repeats::of_cost(run.strategies.iter()));
    let bars = Bars::of_measures(header, run, &measures, &x_desc)?;
    Some(bars.render())
}
