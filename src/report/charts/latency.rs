//! `latency.svg` (`latency-r<rate>.svg` for a paced regime): the distribution of fenced samples
//! (one timed operation in `--sample-every`) of every strategy, p50 to max, write side on the left
//! and read side on the right, on a log scale so a long tail and a 20 ns median fit one axis.

use super::{
    Header, Keyed, LegendEntry, Repeats, draw_curve, draw_guide, entry, fail, house_mesh, log_span,
    log_ticks, num, plot, two_panels,
};
use crate::report::DrawError;
use crate::runner::{RepeatResult, RunResults, StrategyResult};
use crate::stats::LatencySummary;
use plotters::prelude::*;

/// The percentiles drawn, left to right.
const PERCENTILES: [&str; 5] = ["p50", "p90", "p99", "p99.9", "max"];

/// One strategy's line: its name, its colour index and the five values.
type PercentileSeries = (String, usize, [f64; 5]);

/// The five values of one summary, in [`PERCENTILES`] order.
fn values(l: &LatencySummary) -> [f64; 5] {
    [l.p50_ns, l.p90_ns, l.p99_ns, l.p999_ns, l.max_ns]
}

/// Each percentile averaged over the repeats that sampled this side.
fn mean_over(
    repeats: &[RepeatResult],
    side: fn(&RepeatResult) -> Option<&LatencySummary>,
) -> Option<[f64; 5]> {
    let all: Vec<[f64; 5]> = repeats.iter().filter_map(side).map(values).collect();
    let n = all.len() as f64;
    let sum = |k: usize| all.iter().fold(0.0, |m, v| m + v[k] / n);
    (!all.is_empty()).then(|| std::array::from_fn(sum))
}

/// The chart, or `None` when nothing was sampled.
pub(super) fn render(run: &RunResults) -> Option<Result<String, DrawError>> {
    let names = run.short_names();
    let side = |f: fn(&RepeatResult) -> Option<&LatencySummary>| -> Vec<PercentileSeries> {
        let lines = run.strategies.iter().zip(&names).enumerate();
        let line = |(i, (s, name)): (usize, (&StrategyResult, &String))| {
            Some((name.clone(), i, mean_over(&s.repeats, f)?))
        };
        lines.filter_map(line).collect()
    };
    let write = side(|r| r.write_latency.as_ref());
    let read = side(|r| r.read_latency.as_ref());
    if write.is_empty() && read.is_empty() {
        return None;
    }
    let drawn = |i: &usize| write.iter().chain(&read).any(|l| l.1 == *i);
    let entries = names.iter().enumerate().filter(|(i, _)| drawn(i));
    let entries: Vec<LegendEntry> = entries.map(|(i, name)| entry(i, name)).collect();
    let all = write.iter().chain(&read).flat_map(|l| l.2);
    let lo = all
        .clone()
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let hi = all.fold(0.0, f64::max);
    // Every repeat that sampled is averaged: none is set aside here.
    let sampled = run.strategies.iter().map(|s| {
        let sampled = |r: &&RepeatResult| r.write_latency.is_some() || r.read_latency.is_some();
        s.repeats.iter().filter(sampled).count()
    });
    let repeats = Repeats::of(sampled.filter(|&n| n > 0).map(|n| (n, n)));
    let what = "Fenced samples: latency percentiles per strategy";
    let header = Header::run(what, run, repeats);
    let resolution = 2.0 * run.config.timer_overhead_ns;
    let flat = if run.regime().is_paced() {
        ""
    } else {
        "; flat out the fence perturbs a hammering writer: for the cost of an update read ns-per-op.svg"
    };
    let note = format!(
        "each point: mean over repeats of the timed operations; dashed: the timer's resolution, {} ns, and a hollow point lies below it, where a sample says nothing{flat}",
        num(resolution),
    );
    Some(two_panels(&header, &entries, &note, |left, right| {
        let y = "write (update): sampled ns per operation";
        panel(left, y, &write, (lo, hi), resolution)?;
        let y = "read side: sampled ns per operation";
        panel(right, y, &read, (lo, hi), resolution)
    }))
}

/// One side's panel: a line per strategy over the percentiles, spanning `lo..hi` ns, and a dashed
/// line at `resolution` ns when inside it.
fn panel(
    area: &super::Area,
    desc: &str,
    lines: &[PercentileSeries],
    (lo, hi): (f64, f64),
    resolution: f64,
) -> Result<(), DrawError> {
    let keys: Vec<f64> = (0..PERCENTILES.len()).map(|i| i as f64).collect();
    let last = (PERCENTILES.len() - 1) as f64;
    let span = log_span(lo, hi);
    // A zero (a sample no dearer than the timer's overhead) sits on the axis rather than at minus
    // infinity.
    let floor = span.start;
    let x = Keyed {
        range: -0.3..last + 0.3,
        keys,
    };
    let y = span.clone().log_scale().with_key_points(log_ticks(&span));
    let mut chart = plot(area, (60, 12), x, y)?;
    let x_label = |x: &f64| {
        let i = x.round();
        let on_key = (x - i).abs() < 1e-6 && i >= 0.0;
        let label = PERCENTILES.get(i as usize).filter(|_| on_key);
        label.map_or(String::new(), |s| s.to_string())
    };
    let x_desc = "percentile of sampled operations";
    house_mesh(&mut chart, x_desc, &format!("{desc} (log)"))
        .x_label_formatter(&x_label)
        .y_label_formatter(&|v| num(*v))
        .draw()
        .map_err(fail)?;
    if span.contains(&resolution) {
        draw_guide(&mut chart, (-0.3, resolution), (last + 0.3, resolution))?;
    }
    for (_, i, v) in lines {
        let points = v.iter().enumerate().map(|(k, y)| (k as f64, y.max(floor)));
        // Below the resolution a sample says nothing: hollow.
        draw_curve(&mut chart, *i, &points.collect::<Vec<_>>(), resolution)?;
    }
    Ok(())
}
