//! `cost.svg`: the one chart a page opens with, under the headline ([`crate::verdict::headline`]).

use super::bars::Bars;
use super::{Chart, Header, Repeats, display_name};
use crate::report::DrawError;
use crate::runner::RunResults;
use crate::stats::Summary;
use crate::verdict::headline;
use crate::workload::Regime;

/// Height of each bar, px: drawn at the size the page shows it and never scaled down.
const COMPACT_BAR_PX: u32 = 8;
/// The gap between rows, px.
const COMPACT_GAP_PX: u32 = 4;

/// The chart's file name.
pub(in crate::report) const NAME: &str = "cost.svg";

/// What a row's label gets when the headline calls it cheapest.
fn mark(tied: bool) -> &'static str {
    if tied {
        "  (cheapest, tied)"
    } else {
        "  (cheapest)"
    }
}

/// The chart of `run` (every regime), or `None` when no strategy recorded a net cost.
pub(in crate::report) fn render(run: &RunResults) -> Option<Result<Chart, DrawError>> {
    let h = headline(run);
    let views = run.regimes();
    // The headline's regime first: its bars on top of each row, and the order of the rows.
    let mut regimes: Vec<Regime> = views.iter().map(RunResults::regime).collect();
    regimes.sort_by_key(|&r| r != h.regime);
    let net = |name: &str, regime: Regime| -> Option<Summary> {
        run.strategies
            .iter()
            .find(|s| s.name == name && s.regime == regime)
            .and_then(|s| s.summary.as_ref()?.net_ns)
    };
    let mut names: Vec<&str> = Vec::new();
    for s in &run.strategies {
        if !names.contains(&s.name.as_str()) && regimes.iter().any(|&r| net(&s.name, r).is_some()) {
            names.push(&s.name);
        }
    }
    if names.is_empty() {
        return None;
    }
    let key = |name: &str| {
        regimes
            .iter()
            .find_map(|&r| net(name, r))
            .map_or(f64::INFINITY, |s| s.mean)
    };
    names.sort_by(|a, b| key(a).total_cmp(&key(b)));
    let short = |name: &str| display_name(run, name).unwrap_or_else(|| name.to_string());
    let tied = h.cheapest.len() > 1;
    let rows = names
        .iter()
        .map(|n| {
            let marked = h.cheapest.iter().any(|c| c == n);
            format!("{}{}", short(n), if marked { mark(tied) } else { "" })
        })
        .collect();
    let series: Vec<String> = regimes.iter().map(Regime::to_string).collect();
    let values = names
        .iter()
        .map(|n| regimes.iter().map(|&r| net(n, r)).collect())
        .collect();
    let c = &run.config;
    let repeats = Repeats::of_cost(run.strategies.iter());
    let detail = format!(
        "{} writers, {}, sorted by the cost {}",
        c.writer_cpus.len(),
        repeats.text(c.repeat_duration_s),
        h.regime
    );
    let header = Header::new(
        "Net cost of one update, every strategy and regime",
        &run.provenance,
        &detail,
    );
    let bars = Bars {
        header,
        rows,
        series: series.iter().map(String::as_str).collect(),
        values,
        x_desc: "net ns per update (flat out: less the harness floor; paced: busy time less the paced floor)",
        signed: true,
        bar_px: COMPACT_BAR_PX,
        gap_px: COMPACT_GAP_PX,
    };
    Some(bars.render().map(|svg| (NAME.to_string(), svg)))
}
