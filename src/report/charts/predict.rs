//! A prediction's chart (`predict.svg`): two panels against the update rate per CPU on a log axis,
//! one line per strategy at the central class latencies, thin lines at the low and high ends: ρ of
//! the hottest line left, net ns per update right (both log).

use super::{
    Chart, Header, LegendEntry, colour, draw_guide, draw_number_mesh, entry, fail, log_span,
    log_ticks, plot, two_panels,
};
use crate::predict::{PointPrediction, PredictResults};
use crate::report::DrawError;
use crate::verdict::plural;
use crate::workload::SEED_RATE;
use plotters::prelude::*;

/// `predict.svg`, or nothing for a prediction without strategies.
pub(in crate::report) fn charts(p: &PredictResults) -> Result<Vec<Chart>, DrawError> {
    if p.strategies.is_empty() {
        return Ok(Vec::new());
    }
    let name = "predict.svg".to_string();
    let svg = render(p).map_err(|e| e.in_chart(&name))?;
    Ok(vec![(name, svg)])
}

/// The band of one figure: (low, central, high) per point.
type Band = Vec<(f64, [f64; 3])>;

fn render(p: &PredictResults) -> Result<String, DrawError> {
    let rho = |q: &PointPrediction| (q.rate, [q.rho.lo, q.rho.mid, q.rho.hi]);
    let strategies = || p.strategies.iter();
    let rho: Vec<Band> = strategies()
        .map(|s| s.curve.iter().map(rho).collect())
        .collect();
    let cost: Vec<Band> = strategies()
        .map(|s| s.curve.iter().filter_map(cost_of).collect())
        .collect();
    let all = |b: &[Band]| -> Vec<f64> {
        let values = b.iter().flatten().flat_map(|(_, v)| *v);
        values.filter(|v| *v > 0.0).collect()
    };
    let (rhos, costs) = (all(&rho), all(&cost));
    let span = |v: &[f64], lo, hi| {
        log_span(
            v.iter().fold(lo, |a, &b| f64::min(a, b)),
            v.iter().fold(hi, |a, &b| f64::max(a, b)),
        )
    };
    // ρ below 10⁻³ is drawn at the bottom edge: it is nothing.
    let rho_axis = span(&rhos, 1e-3, 2.0);
    let rho_axis = rho_axis.start.max(1e-3)..rho_axis.end;
    let cost_axis = span(&costs, 1.0, 10.0);
    let rates = log_span(crate::predict::CURVE_FROM, crate::predict::CURVE_TO);
    let entries: Vec<LegendEntry> = strategies()
        .enumerate()
        .map(|(i, s)| entry(i, &s.name))
        .collect();
    let header = Header {
        title: format!(
            "Predicted: the hot line's utilisation and the net cost per update on {}",
            p.host
        ),
        subtitle: format!(
            "{}, {}, {}; {} writers; latencies from {}; arrivals {}",
            plural(p.cpus, "CPU"),
            plural(p.nodes, "node"),
            plural(p.llcs, "LLC"),
            p.config.layout.writers.len(),
            p.latencies.source,
            p.config.arrivals
        ),
    };
    let note = "thick: central latencies; thin: low and high ends; dashed: ρ = 1 and the seed's ~22k updates/s per CPU; cost drawn only below saturation";
    two_panels(&header, &entries, note, |left, right| {
        let x = || rates.clone().log_scale().with_key_points(log_ticks(&rates));
        for (panel, axis, bands, label, mark_one) in [
            (left, &rho_axis, &rho, "ρ of the hottest line (log)", true),
            (right, &cost_axis, &cost, "net ns per update (log)", false),
        ] {
            let y = axis.clone().log_scale().with_key_points(log_ticks(axis));
            let mut chart = plot(panel, (70, 12), x(), y)?;
            draw_number_mesh(&mut chart, "updates/s per CPU (log)", label)?;
            draw_guide(&mut chart, (SEED_RATE, axis.start), (SEED_RATE, axis.end))?;
            if mark_one {
                draw_guide(&mut chart, (rates.start, 1.0), (rates.end, 1.0))?;
            }
            for (i, band) in bands.iter().enumerate() {
                for (k, width) in [(0, 1), (2, 1), (1, 3)] {
                    let coords = band
                        .iter()
                        .map(|(r, v)| (*r, v[k].clamp(axis.start, axis.end)));
                    let line = LineSeries::new(coords, colour(i).stroke_width(width));
                    chart.draw_series(line).map_err(fail)?;
                }
            }
        }
        Ok(())
    })
}

/// A curve point's cost band, where it is above 0 (a log axis) and the file has one.
fn cost_of(q: &PointPrediction) -> Option<(f64, [f64; 3])> {
    q.cost_ns
        .filter(|c| c.lo > 0.0)
        .map(|c| (q.rate, [c.lo, c.mid, c.hi]))
}
