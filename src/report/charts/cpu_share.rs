//! `cpu-share-r<rate>.svg`, per paced regime: the share of each measured CPU the counter takes at
//! that rate, per strategy, with 95% confidence intervals: net (less the paced floor's, percentage
//! points), beside it gross.

use super::bars::Bars;
use super::{Header, Repeats};
use crate::report::DrawError;
use crate::runner::{PACED, RunResults};

/// The chart of `run`, a view of one paced regime, or `None` when no strategy recorded a net CPU
/// share.
pub(super) fn render(run: &RunResults) -> Option<Result<String, DrawError>> {
    let regime = run.regime();
    if !regime.is_paced() {
        return None;
    }
    let measures = [
        ("net: less the paced floor", &PACED[1]),
        ("CPU share, harness included", &PACED[3]),
    ];
    let x_desc = format!("% of each measured CPU busy, {regime}");
    let repeats = Repeats::of_cost(run.strategies.iter());
    let header = Header::run("CPU share per strategy", run, repeats);
    let bars = Bars::of_measures(header, run, &measures, &x_desc)?;
    Some(bars.render())
}
