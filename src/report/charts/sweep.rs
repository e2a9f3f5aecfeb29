//! A sweep's own charts, one pair per affinity set: `sweep-throughput-<affinity>.svg` (write ops/s
//! against writer threads, with 95% CIs) and `sweep-staleness-<affinity>.svg` (at the largest
//! thread count).

use super::staleness::{self, worth_drawing};
use super::{
    Chart, ERROR_BARS, Header, Keyed, LegendEntry, Repeats, Swatch, by_strategy, canvas, colour,
    draw_number_mesh, entry, fail, file_safe, marker_style, padded, plot, whisker, zero_based,
};
use crate::report::DrawError;
use crate::stats::Summary;
use crate::sweep::{SweepPoint, SweepResults};
use plotters::prelude::*;

/// Every chart of a sweep: its own ([`sweep_charts`]), then each point's.
pub(in crate::report) fn charts(sweep: &SweepResults) -> Result<Vec<Chart>, DrawError> {
    let mut charts = sweep_charts(sweep)?;
    for p in &sweep.points {
        let (affinity, rate) = (file_safe(&p.affinity), super::run::regime_suffix(p.regime));
        let prefix = format!("point-{affinity}-t{}{rate}-", p.threads);
        // A point is one regime, its rate already in the prefix.
        charts.extend(super::run::regime_charts(&p.results, &prefix, "")?);
    }
    Ok(charts)
}

/// The sweep's own charts, not its points'.
pub(in crate::report) fn sweep_charts(sweep: &SweepResults) -> Result<Vec<Chart>, DrawError> {
    let mut charts = own_charts(sweep)?;
    charts.extend(super::rates::charts(sweep)?);
    Ok(charts)
}

/// Every affinity set's charts, in the order the sets were first run.
fn own_charts(sweep: &SweepResults) -> Result<Vec<Chart>, DrawError> {
    let mut charts = Vec::new();
    for affinity in sweep.affinities() {
        let points = sweep.hammer_points(affinity);
        if points.is_empty() {
            continue;
        }
        let name = |chart: &str| format!("sweep-{chart}-{}.svg", file_safe(affinity));
        if let Some(svg) = throughput(affinity, &points, sweep.partial) {
            let svg = svg.map_err(|e| e.in_chart(&name("throughput")))?;
            charts.push((name("throughput"), svg));
        }
        let most = points[points.len() - 1];
        let stale = staleness::points(&most.results);
        if worth_drawing(&stale) {
            let threads = most.threads;
            let what =
                format!("Staleness vs write throughput, {threads} threads, affinity {affinity}");
            let repeats = Repeats::of_cost(most.results.strategies.iter());
            let header = Header::run(&what, &most.results, repeats);
            let svg =
                staleness::render(&header, &stale).map_err(|e| e.in_chart(&name("staleness")))?;
            charts.push((name("staleness"), svg));
        }
    }
    Ok(charts)
}

/// One strategy's line: its name and (threads, write ops/s) per point.
type ThroughputSeries = (String, Vec<(f64, Summary)>);

/// Write throughput against threads for the points of one affinity set.
fn throughput(
    affinity: &str,
    points: &[&SweepPoint],
    partial: bool,
) -> Option<Result<String, DrawError>> {
    let lines = by_strategy(points, |p, sum| {
        Some((p.threads as f64, sum.write_ops_per_s))
    });
    if lines.is_empty() {
        return None;
    }
    let entry = |(i, l): (usize, &ThroughputSeries)| entry(i, super::shown_name(points, &l.0));
    let entries: Vec<LegendEntry> = lines.iter().enumerate().map(entry).collect();
    let threads: Vec<f64> = points.iter().map(|p| p.threads as f64).collect();
    let partial = if partial { " (partial)" } else { "" };
    let what = format!("Write throughput vs threads, affinity {affinity}");
    let lead = format!("{} thread counts", threads.len());
    let header = Header::points(&what, points, &lead, partial);
    let hi = lines
        .iter()
        .flat_map(|l| &l.1)
        .map(|(_, s)| s.ci95_high)
        .fold(0.0, f64::max);
    Some(canvas(
        600,
        &header,
        &entries,
        Swatch::Line,
        ERROR_BARS,
        |area| {
            let x = padded(threads[0], threads[threads.len() - 1]);
            let cap = (x.end - x.start) / 150.0;
            let x = Keyed {
                range: x,
                keys: threads.clone(),
            };
            let mut chart = plot(area, (70, 24), x, zero_based(hi))?;
            let y_desc = "write ops/s (updates per second, all writers)";
            draw_number_mesh(&mut chart, "writer threads", y_desc)?;
            for (i, (_, line)) in lines.iter().enumerate() {
                let coords: Vec<(f64, f64)> = line.iter().map(|(t, s)| (*t, s.mean)).collect();
                let curve = LineSeries::new(coords.clone(), colour(i).stroke_width(2));
                chart.draw_series(curve).map_err(fail)?;
                let whiskers = line.iter().map(|(t, s)| whisker(s, *t, cap, true, 0.0));
                chart.draw_series(whiskers).map_err(fail)?;
                let marks = coords.iter().map(|c| Circle::new(*c, 4, marker_style(i)));
                chart.draw_series(marks).map_err(fail)?;
            }
            Ok(())
        },
    ))
}
