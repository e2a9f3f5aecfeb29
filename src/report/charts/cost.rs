//! `cost.svg`: the one chart a page opens with, under the headline ([`crate::verdict::headline`]).

use super::bars::Bars;
use super::{Chart, Header, Repeats, display_name};
use crate::report::DrawError;
use crate::runner::{RunResults, StrategyResult};
use crate::stats::Summary;
use crate::verdict::headline;
use crate::workload::Regime;

/// Height of each bar, px: drawn at the size the page shows it and never scaled down.
const COMPACT_BAR_PX: u32 = 8;
/// The gap between rows, px.
const COMPACT_GAP_PX: u32 = 4;

/// The chart's file name.
pub(in crate::report) const NAME: &str = "cost.svg";

/// The chart of `run` (every regime), or `None` when no strategy recorded a net cost.
pub(in crate::report) fn render(run: &RunResults) -> Option<Result<Chart, DrawError>> {
    let h = headline(run);
    let views = run.regimes();
    // The headline's regime first: its bars on top of each row, and the order of the rows.
    let mut regimes: Vec<Regime> = views.iter().map(RunResults::regime).collect();
    regimes.sort_by_key(|&r| r != h.regime);
    let net = |name: &str, regime: Regime| -> Option<Summary> {
        let mut all = run.strategies.iter();
        let s = all.find(|s| s.name == name && s.regime == regime)?;
        s.summary.as_ref()?.net_ns
    };
    let measured = |s: &&StrategyResult| regimes.iter().any(|&r| net(&s.name, r).is_some());
    let measured = run.strategies.iter().filter(measured);
    let mut names = crate::runner::first_seen(measured.map(|s| s.name.as_str()));
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
    // What a row's label gets when the headline calls it cheapest.
    let tied = if h.cheapest.len() > 1 { ", tied" } else { "" };
    let row = |n: &&str| match h.cheapest.iter().any(|c| c == n) {
        true => format!("{}  (cheapest{tied})", short(n)),
        false => short(n),
    };
    let rows = names.iter().map(row).collect();
    let series: Vec<String> = regimes.iter().map(Regime::to_string).collect();
    let values = names
        .iter()
        .map(|n| regimes.iter().map(|&r| net(n, r)).collect());
    let c = &run.config;
    let repeats = Repeats::of_cost(run.strategies.iter());
    let (writers, repeats) = (c.writer_cpus.len(), repeats.text(c.repeat_duration_s));
    let regime = h.regime;
    let detail = format!("{writers} writers, {repeats}, sorted by the cost {regime}");
    let what = "Net cost of one update, every strategy and regime";
    let header = Header::new(what, &run.provenance, &detail);
    let bars = Bars {
        header,
        rows,
        series: series.iter().map(String::as_str).collect(),
        values: values.collect(),
        x_desc: "net ns per update (flat out: less the harness floor; paced: busy time less the paced floor)",
        signed: true,
        bar_px: COMPACT_BAR_PX,
        gap_px: COMPACT_GAP_PX,
    };
    Some(bars.render().map(|svg| (NAME.to_string(), svg)))
}
