//! Horizontal bars with error bars, one row per strategy and one bar per series in each row: the
//! shape of the ns/op, throughput, CPU share and cost charts. Strategy names are long, so they go
//! on the vertical axis, where they have room.

use super::axes::whisker;
use super::{
    CHAR_PCT, ERROR_BARS, Header, Keyed, LABEL_PX, LegendEntry, Repeats, Swatch, canvas, colour,
    entry, fail, house_mesh, num, plot, signed_span, zero_based,
};
use crate::report::DrawError;
use crate::runner::{
    MEASURES, Measure, PACED, RunResults, StrategyResult, THROUGHPUT_NS, cost_measure,
};
use crate::stats::Summary;
use crate::workload::Regime;
use plotters::prelude::*;

/// Height of a row per bar in it, px.
const BAR_ROW_PX: u32 = 22;
/// Extra height of each row, px (the gap between strategies).
const ROW_GAP_PX: u32 = 14;

/// What a bar chart shows.
pub(super) struct Bars<'a> {
    /// Header lines.
    pub header: Header,
    /// Row labels (strategy names), top to bottom.
    pub rows: Vec<String>,
    /// Series names; series `s` is drawn in [`colour`]`(s)`.
    pub series: Vec<&'a str>,
    /// `values[row][series]`: the summary a bar shows, if measured.
    pub values: Vec<Vec<Option<Summary>>>,
    /// Horizontal axis description, with its unit.
    pub x_desc: &'a str,
    /// True when the values are differences (a net cost) that noise can take below 0.
    pub signed: bool,
    /// Height of each bar, px ([`BAR_ROW_PX`] but where a chart must be short).
    pub bar_px: u32,
    /// The gap between rows, px ([`ROW_GAP_PX`] but where a chart must be short).
    pub gap_px: u32,
}

impl Bars<'_> {
    /// The SVG text.
    pub fn render(&self) -> Result<String, DrawError> {
        let n = self.rows.len();
        let per_row = self.bar_px * self.series.len() as u32 + self.gap_px;
        let height = super::HEADER_PX + 110 + per_row * n as u32;
        let entries = self.series.iter().enumerate();
        let entries: Vec<LegendEntry> = entries.map(|(i, s)| entry(i, s)).collect();
        let all = || self.values.iter().flatten().flatten();
        let hi = all().map(|s| s.ci95_high).fold(0.0, f64::max);
        let x = if self.signed {
            let lo = all().map(|s| s.ci95_low).fold(0.0, f64::min);
            signed_span(lo, hi)
        } else {
            zero_based(hi)
        };
        let label_chars = self.rows.iter().map(|r| r.chars().count()).max();
        let label_px = label_chars.unwrap_or(0) as u32 * LABEL_PX * CHAR_PCT / 100 + 24;
        canvas(
            height,
            &self.header,
            &entries,
            Swatch::Bar,
            ERROR_BARS,
            |area| {
                // Row i is centred on y = n - 1 - i, so the first is on top.
                let keys: Vec<f64> = (0..n).map(|i| i as f64).collect();
                let y = Keyed {
                    range: -0.5..n as f64 - 0.5,
                    keys,
                };
                let mut chart = plot(area, (label_px, 24), x.clone(), y)?;
                let row_label = |y: &f64| {
                    let i = usize::try_from(n as i64 - 1 - y.round() as i64);
                    let row = i.ok().and_then(|i| self.rows.get(i));
                    row.cloned().unwrap_or_default()
                };
                house_mesh(&mut chart, self.x_desc, "")
                    .disable_y_mesh()
                    .x_labels(8)
                    .x_label_formatter(&|v| num(*v))
                    .y_label_formatter(&row_label)
                    .draw()
                    .map_err(fail)?;
                // Bars of one row share 0.8 of the row's height.
                let thick = 0.8 / self.series.len() as f64;
                for s in 0..self.series.len() {
                    let bars = self.values.iter().enumerate().filter_map(|(i, v)| {
                        let sum = v.get(s).copied().flatten()?;
                        Some(((n - 1 - i) as f64 + 0.4 - thick * s as f64, sum))
                    });
                    let bars: Vec<(f64, Summary)> = bars.collect();
                    let style = colour(s).filled();
                    let bar = |(top, sum): &(f64, Summary)| {
                        Rectangle::new([(0.0, *top), (sum.mean, top - thick)], style)
                    };
                    chart.draw_series(bars.iter().map(bar)).map_err(fail)?;
                    let whisker = |(top, sum): &(f64, Summary)| {
                        whisker(sum, top - thick / 2.0, thick / 4.0, false, x.start)
                    };
                    chart.draw_series(bars.iter().map(whisker)).map_err(fail)?;
                }
                Ok(())
            },
        )
    }
}

/// The chart of these measures of `run`'s strategies, each with its legend label: a row per
/// strategy, a series per measure; `signed` when one is a net figure that can go below 0.
fn measures_chart(
    title: &str,
    run: &RunResults,
    measures: &[(&str, &Measure)],
    x_desc: &str,
    signed: bool,
) -> Option<Result<String, DrawError>> {
    let (_, lead) = measures.first()?;
    let named = run.strategies.iter().zip(run.short_names());
    let (strategies, names): (Vec<&StrategyResult>, Vec<String>) =
        named.filter(|(s, _)| lead.of(s).is_some()).unzip();
    if strategies.is_empty() {
        return None;
    }
    let measured = |m: &Measure| strategies.iter().any(|s| m.of(s).is_some());
    let shown: Vec<&(&str, &Measure)> = measures.iter().filter(|(_, m)| measured(m)).collect();
    let values = |s: &StrategyResult| shown.iter().map(|(_, m)| m.of(s)).collect();
    let repeats = Repeats::of_cost(run.strategies.iter());
    let bars = Bars {
        header: Header::run(title, run, repeats),
        rows: names,
        series: shown.iter().map(|(label, _)| *label).collect(),
        values: strategies.iter().map(|s| values(s)).collect(),
        x_desc,
        signed,
        bar_px: BAR_ROW_PX,
        gap_px: ROW_GAP_PX,
    };
    Some(bars.render())
}

/// `ns-per-op.svg` (`ns-per-op-r<rate>.svg` for a paced regime): the cost of one update per
/// strategy, the figure `contend compare` and the verdicts use ([`cost_measure`]), with 95%
/// confidence intervals.
pub(super) fn ns_per_op(run: &RunResults) -> Option<Result<String, DrawError>> {
    let regime = run.regime();
    let lead = cost_measure(regime);
    let (title, x_desc, measures) = match regime {
        Regime::FlatOut => (
            "Cost of one update per strategy, ns/op from throughput",
            "ns per update (the writer loop: an update and its read side), from throughput"
                .to_string(),
            vec![
                ("loop ns/op", lead),
                ("net: less the harness floor", &THROUGHPUT_NS[1]),
                ("reader ns/op", &THROUGHPUT_NS[2]),
            ],
        ),
        Regime::Paced { .. } => (
            "Net cost of one update per strategy",
            format!("ns per update, {regime} (busy time, not waiting in the pacer, / updates)"),
            vec![
                ("net: less the paced floor", lead),
                ("busy ns/op, harness included", &PACED[2]),
            ],
        ),
    };
    measures_chart(title, run, &measures, &x_desc, true)
}

/// `throughput.svg`: updates per second of all writers together per strategy, with the 95%
/// confidence interval of the mean.
pub(super) fn throughput(run: &RunResults) -> Option<Result<String, DrawError>> {
    let measures = [("updates/s, all writers", &MEASURES[0])];
    let x_desc = "write ops/s (updates per second, all writers together)";
    measures_chart(
        "Write throughput per strategy",
        run,
        &measures,
        x_desc,
        false,
    )
}

/// `cpu-share-r<rate>.svg`, per paced regime: the share of each measured CPU the counter takes at
/// that rate, per strategy, with 95% confidence intervals: net (less the paced floor's, percentage
/// points), beside it gross.
pub(super) fn cpu_share(run: &RunResults) -> Option<Result<String, DrawError>> {
    let measures = [
        ("net: less the paced floor", &PACED[1]),
        ("CPU share, harness included", &PACED[3]),
    ];
    let x_desc = format!("% of each measured CPU busy, {}", run.regime());
    measures_chart("CPU share per strategy", run, &measures, &x_desc, true)
}
