//! A run's charts: the net cost of every strategy in every regime (`cost.svg`), then for each
//! regime, the cost per update, the fenced samples' latency and, flat out, throughput and
//! staleness, paced, the CPU share; each file named for its regime.

use super::bars::{cpu_share, ns_per_op, throughput};
use super::{Chart, cost, latency, staleness};
use crate::report::DrawError;
use crate::runner::RunResults;
use crate::workload::Regime;

/// Every chart of one run.
pub(super) fn charts(run: &RunResults) -> Result<Vec<Chart>, DrawError> {
    let mut charts = Vec::new();
    if let Some(drawn) = cost::render(run) {
        charts.push(drawn.map_err(|e| e.in_chart(cost::NAME))?);
    }
    for view in run.regimes() {
        charts.extend(regime_charts(&view, "", &regime_suffix(view.regime()))?);
    }
    Ok(charts)
}

/// What a paced regime's chart names end with (`-r22000`); nothing flat out.
pub(in crate::report) fn regime_suffix(regime: Regime) -> String {
    regime.rate().map_or(String::new(), |r| format!("-r{r}"))
}

/// The charts of one regime's view of a run.
pub(in crate::report) fn regime_charts(
    run: &RunResults,
    prefix: &str,
    suffix: &str,
) -> Result<Vec<Chart>, DrawError> {
    let mut drawn = vec![
        ("ns-per-op", ns_per_op(run)),
        ("latency", latency::render(run)),
    ];
    if run.regime().is_paced() {
        drawn.push(("cpu-share", cpu_share(run)));
    } else {
        drawn.push(("throughput", throughput(run)));
        drawn.push(("staleness", staleness::render_run(run)));
    }
    let drawn = drawn.into_iter().filter_map(|(name, svg)| {
        let name = format!("{prefix}{name}{suffix}.svg");
        Some(
            svg?.map(|svg| (name.clone(), svg))
                .map_err(|e| e.in_chart(&name)),
        )
    });
    drawn.collect()
}
