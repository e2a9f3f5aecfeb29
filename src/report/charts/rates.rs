//! A sweep's rate curve per affinity set at its largest thread count
//! (`sweep-rates-<affinity>.svg`): against the offered rate per thread (log), net ns per update
//! left and net CPU share right, one line per strategy.

use super::{
    Chart, Header, LegendEntry, by_strategy, draw_curve, draw_guide, draw_number_mesh, entry,
    file_safe, log_span, log_ticks, plot, signed_span, two_panels,
};
use crate::report::DrawError;
use crate::sweep::{SweepPoint, SweepResults};
use crate::workload::SEED_RATE;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::ops::Range;

/// One point of a strategy's curve.
struct RatePoint {
    /// Offered ops/s per thread (achieved, for a hammer point).
    rate: f64,
    /// Net ns per update.
    net_ns: f64,
    /// Net CPU share, % (`None` flat out).
    share_pct: Option<f64>,
}

/// The rate curve of every affinity set whose largest thread count ran at two or more rates.
pub(super) fn charts(sweep: &SweepResults) -> Result<Vec<Chart>, DrawError> {
    let mut charts = Vec::new();
    for affinity in sweep.affinities() {
        let Some((threads, points)) = sweep.widest(affinity) else {
            continue;
        };
        if points.len() < 2 {
            continue;
        }
        let name = format!("sweep-rates-{}.svg", file_safe(affinity));
        if let Some(svg) = render(affinity, threads, &points) {
            charts.push((name.clone(), svg.map_err(|e| e.in_chart(&name))?));
        }
    }
    Ok(charts)
}

/// Each strategy's points, in rate order, and how many strategy points had no net cost.
fn curves(points: &[&SweepPoint]) -> (Vec<(String, Vec<RatePoint>)>, usize) {
    let mut lines = by_strategy(points, |p, sum| {
        let hammer = sum.write_ops_per_s.mean / p.threads.max(1) as f64;
        let share = sum.net_cpu_share_pct.filter(|_| p.regime.is_paced());
        Some(RatePoint {
            rate: p.regime.rate().unwrap_or(hammer),
            net_ns: sum.net_ns?.mean,
            share_pct: share.map(|x| x.mean),
        })
    });
    let summaries = points.iter().flat_map(|p| &p.results.strategies);
    let summaries = summaries.filter_map(|s| s.summary.as_ref());
    let left_out = summaries.filter(|s| s.net_ns.is_none()).count();
    for (_, line) in &mut lines {
        line.sort_by(|a, b| a.rate.total_cmp(&b.rate));
    }
    (lines, left_out)
}

/// One panel against the offered rate: the seed's rate dashed, then each strategy's `y`.
fn panel<Y>(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    rates: &Range<f64>,
    (y, span): (Y, &Range<f64>),
    y_desc: &str,
    lines: &[(String, Vec<RatePoint>)],
    value: impl Fn(&RatePoint) -> Option<f64>,
) -> Result<(), DrawError>
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let (lo, hi) = (span.start, span.end);
    let x = rates.clone().log_scale().with_key_points(log_ticks(rates));
    let mut chart = plot(area, (70, 12), x, y)?;
    draw_number_mesh(&mut chart, "offered updates/s per thread (log)", y_desc)?;
    draw_guide(&mut chart, (SEED_RATE, lo), (SEED_RATE, hi))?;
    for (i, (_, line)) in lines.iter().enumerate() {
        let coords: Vec<(f64, f64)> = line
            .iter()
            .filter_map(|p| Some((p.rate, value(p)?)))
            .collect();
        draw_curve(&mut chart, i, &coords, f64::NEG_INFINITY)?;
    }
    Ok(())
}

/// The two panels for the points of one affinity set at `threads`, or `None` when no point has a
/// net cost.
fn render(
    affinity: &str,
    threads: usize,
    points: &[&SweepPoint],
) -> Option<Result<String, DrawError>> {
    let (lines, left_out) = curves(points);
    if lines.is_empty() {
        return None;
    }
    let entry = |(i, l): (usize, &(String, _))| entry(i, super::shown_name(points, &l.0));
    let entries: Vec<LegendEntry> = lines.iter().enumerate().map(entry).collect();
    let all = || lines.iter().flat_map(|l| &l.1);
    let rates = log_span(
        all().map(|p| p.rate).fold(SEED_RATE, f64::min),
        all().map(|p| p.rate).fold(SEED_RATE, f64::max),
    );
    let what = format!("Net cost of one update vs offered rate, affinity {affinity}");
    let header = Header::points(&what, points, &format!("{threads} writer threads"), "");
    let net = signed_span(
        all().map(|p| p.net_ns).fold(0.0, f64::min),
        all().map(|p| p.net_ns).fold(0.0, f64::max),
    );
    let shares = || all().filter_map(|p| p.share_pct);
    let shares = log_span(
        shares().filter(|s| *s > 0.0).fold(f64::INFINITY, f64::min),
        shares().fold(0.0, f64::max),
    );
    let mut note = "net: less the harness at the same rate (the paced floor; flat out, the harness floor); dashed: the seed's ~22k updates/s per CPU (224-CPU SPR)".to_string();
    if left_out > 0 {
        note.push_str(&format!(
            "; {left_out} strategy points without a net cost (older files) left out"
        ));
    }
    Some(two_panels(&header, &entries, &note, |left, right| {
        let y = "net ns per update";
        panel(left, &rates, (net.clone(), &net), y, &lines, |p| {
            Some(p.net_ns)
        })?;
        let y = "net CPU share, % (log)";
        let log = shares
            .clone()
            .log_scale()
            .with_key_points(log_ticks(&shares));
        let share = |p: &RatePoint| Some(p.share_pct?.max(shares.start));
        panel(right, &rates, (log, &shares), y, &lines, share)
    }))
}
