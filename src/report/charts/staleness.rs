//! `staleness.svg`: what a ratelimit buys and what it costs.

use super::{
    FONT, Header, INK, LABEL_PX, LegendEntry, Plot, Repeats, draw_curve, duration_label, entry,
    fail, house_mesh, log_span, log_ticks, num, padded, plot, two_panels, zero_based,
};
use crate::counter::{PublishPolicy, format_duration};
use crate::report::DrawError;
use crate::runner::{RunResults, Strategy};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use std::time::Duration;

/// One ratelimited strategy's point.
pub(super) struct StalenessPoint {
    /// The strategy without its period: the line it belongs to.
    pub family: String,
    /// Its ratelimit period.
    pub period: Duration,
    /// Mean write ops/s over repeats.
    pub ops: f64,
    /// Mean staleness error, % of the total.
    pub error_pct: f64,
    /// Mean age of a published delta, ns.
    pub age_ns: f64,
}

/// `strategy`'s name with the ratelimit period left out.
fn family(s: &Strategy) -> String {
    let rest = PublishPolicy {
        ratelimit: None,
        ..s.publish
    }
    .to_string();
    let mut name = s.level.to_string();
    if s.publish.ratelimit.is_none() || !rest.is_empty() {
        name = format!("{name}/{rest}");
    }
    let clock = s.clock.map_or(String::new(), |c| format!("/{}", c.name()));
    format!("{name}/pad{}{clock}", s.pad)
}

/// The points of every ratelimited strategy of `run` that finished a repeat.
pub(super) fn points(run: &RunResults) -> Vec<StalenessPoint> {
    run.strategies
        .iter()
        .filter_map(|s| {
            let sum = s.summary.as_ref()?;
            Some(StalenessPoint {
                family: family(&s.strategy),
                period: s.strategy.publish.ratelimit?,
                ops: sum.write_ops_per_s.mean,
                error_pct: sum.error_mean_pct?.mean,
                age_ns: sum.age_mean_ns?.mean,
            })
        })
        .collect()
}

/// True when `points` span two or more periods: a trade-off to show.
pub(super) fn worth_drawing(points: &[StalenessPoint]) -> bool {
    points.iter().any(|p| p.period != points[0].period)
}

/// A run's chart, or `None` when it has fewer than two ratelimit periods.
pub(super) fn render_run(run: &RunResults) -> Option<Result<String, DrawError>> {
    let points = points(run);
    worth_drawing(&points).then(|| {
        let what = "Staleness vs write throughput across ratelimit periods";
        let repeats = Repeats::of_cost(run.strategies.iter());
        render(&Header::run(what, run, repeats), &points)
    })
}

/// The chart of `points`, whatever their source.
pub(super) fn render(header: &Header, points: &[StalenessPoint]) -> Result<String, DrawError> {
    let families = crate::runner::first_seen(points.iter().map(|p| p.family.as_str()));
    let entries: Vec<LegendEntry> = families
        .iter()
        .enumerate()
        .map(|(i, f)| entry(i, f))
        .collect();
    let lines: Vec<Vec<&StalenessPoint>> = families
        .iter()
        .map(|f| {
            let mut line: Vec<&StalenessPoint> = points.iter().filter(|p| p.family == *f).collect();
            line.sort_by_key(|p| p.period);
            line
        })
        .collect();
    let note = "point labels: ratelimit period";
    two_panels(header, &entries, note, |left, right| {
        let ops = points.iter().map(|p| p.ops);
        let x = padded(
            ops.clone().fold(f64::INFINITY, f64::min),
            ops.fold(f64::NEG_INFINITY, f64::max),
        );
        let x = x.start.max(0.0)..x.end;
        let err_hi = points.iter().map(|p| p.error_pct).fold(0.0, f64::max);
        let mut chart = plot(left, (80, 12), x.clone(), zero_based(err_hi))?;
        mesh(&mut chart, "mean staleness error, % of total", num)?;
        for (i, line) in lines.iter().enumerate() {
            let pts = line.iter().map(|p| (p, (p.ops, p.error_pct)));
            draw_line(&mut chart, i, pts.collect())?;
        }

        let ages = points.iter().map(|p| p.age_ns).filter(|a| *a > 0.0);
        let age = log_span(
            ages.clone().fold(f64::INFINITY, f64::min),
            ages.fold(0.0, f64::max),
        );
        let floor = age.start;
        let y = age.clone().log_scale().with_key_points(log_ticks(&age));
        let mut chart = plot(right, (80, 12), x, y)?;
        let y_desc = "mean age of a published delta (log)";
        mesh(&mut chart, y_desc, duration_label)?;
        for (i, line) in lines.iter().enumerate() {
            let pts = line.iter().map(|p| (p, (p.ops, p.age_ns.max(floor))));
            draw_line(&mut chart, i, pts.collect())?;
        }
        Ok(())
    })
}

/// Grid, tick labels and axis descriptions of one panel.
fn mesh<Y: Ranged<ValueType = f64> + ValueFormatter<f64>>(
    chart: &mut Plot<'_, '_, RangedCoordf64, Y>,
    y_desc: &str,
    y_label: fn(f64) -> String,
) -> Result<(), DrawError> {
    house_mesh(
        chart,
        "write ops/s (updates per second, all writers)",
        y_desc,
    )
    .x_labels(6)
    .x_label_formatter(&|v| num(*v))
    .y_label_formatter(&|v| y_label(*v))
    .draw()
    .map_err(fail)
}

/// Family `i`'s line through its points, each marked and labelled with its period.
fn draw_line<Y: Ranged<ValueType = f64>>(
    chart: &mut Plot<'_, '_, RangedCoordf64, Y>,
    i: usize,
    points: Vec<(&&StalenessPoint, (f64, f64))>,
) -> Result<(), DrawError> {
    let coords: Vec<(f64, f64)> = points.iter().map(|(_, c)| *c).collect();
    draw_curve(chart, i, &coords, f64::NEG_INFINITY)?;
    let font = (FONT, LABEL_PX - 1).into_font().color(&INK);
    let label = |(p, c): &(&&StalenessPoint, (f64, f64))| {
        EmptyElement::at(*c) + Text::new(format_duration(p.period), (7, -15), font.clone())
    };
    chart.draw_series(points.iter().map(label)).map_err(fail)?;
    Ok(())
}
