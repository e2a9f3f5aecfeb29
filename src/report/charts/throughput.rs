//! `throughput.svg`: updates per second of all writers together per strategy, with the 95%
//! confidence interval of the mean.

use super::bars::{BAR_ROW_PX, Bars, ROW_GAP_PX};
use super::{Header, Repeats};
use crate::report::DrawError;
use crate::runner::RunResults;

/// The chart, or `None` when no strategy finished a repeat.
pub(super) fn render(run: &RunResults) -> Option<Result<String, DrawError>> {
    let measured = run.strategies.iter().zip(run.short_names());
    let measured = measured
        .filter_map(|(s, name)| Some((name, vec![Some(s.summary.as_ref()?.write_ops_per_s)])));
    let measured: Vec<_> = measured.collect();
    if measured.is_empty() {
        return None;
    }
    let (rows, values) = measured.into_iter().unzip();
    let repeats = Repeats::of_cost(run.strategies.iter());
    let bars = Bars {
        header: Header::run("Write throughput per strategy", run, repeats),
        rows,
        series: vec!["updates/s, all writers"],
        values,
        x_desc: "write ops/s (updates per second, all writers together)",
        signed: false,
        bar_px: BAR_ROW_PX,
        gap_px: ROW_GAP_PX,
    };
    Some(bars.render())
}
