//! A gallery host's small chart: its pair classes' medians as bars with their 5th–95th percentile,
//! on one log ns axis shared by every host of the page so that hosts compare side by side. No name
//! is drawn: the page says which host it is (and escapes it).

use super::axes::{log_span, log_ticks, num};
use super::{FONT, INK, colour, fail, house_mesh};
use crate::predict::gallery::GalleryHost;
use crate::report::DrawError;
use crate::report::gallery::CLASSES;
use plotters::prelude::*;
use std::ops::Range;

/// The chart's size, px.
const SIZE: (u32, u32) = (380, 150);

/// The ns axis every host's chart of `hosts` shares.
pub fn shared_axis(hosts: &[GalleryHost]) -> Range<f64> {
    let all = || hosts.iter().flat_map(|h| &h.classes);
    let lo = all().map(|c| c.p5_ns).fold(f64::INFINITY, f64::min);
    let hi = all().map(|c| c.p95_ns).fold(0.0, f64::max);
    log_span(lo, hi)
}

/// The SVG of `host`'s classes on `axis` (ns).
pub fn host_chart(host: &GalleryHost, axis: &Range<f64>) -> Result<String, DrawError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(fail)?;
        let mut chart = ChartBuilder::on(&root);
        chart
            .margin(6)
            .margin_right(14)
            .x_label_area_size(30)
            .y_label_area_size(78);
        let y = -0.5..CLASSES.len() as f64 - 0.5;
        let mut chart = chart
            .build_cartesian_2d(axis.clone().log_scale(), y)
            .map_err(fail)?;
        let ticks = log_ticks(axis);
        let x_label = |v: &f64| match ticks.iter().any(|t| (t / v - 1.0).abs() < 1e-6) {
            true => num(*v),
            false => String::new(),
        };
        let y_label = |y: &f64| {
            let i = usize::try_from(CLASSES.len() as i64 - 1 - y.round() as i64);
            i.ok()
                .and_then(|i| CLASSES.get(i))
                .map_or(String::new(), |r| r.to_string())
        };
        house_mesh(&mut chart, "one-way ns (median, p5–p95)", "")
            .disable_y_mesh()
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 12))
            .x_labels(ticks.len().max(2))
            .x_label_formatter(&x_label)
            .y_labels(CLASSES.len())
            .y_label_formatter(&y_label)
            .draw()
            .map_err(fail)?;
        for (row, name) in CLASSES.iter().enumerate() {
            let mut classes = host.classes.iter();
            let Some(c) = classes.find(|c| c.class.to_string().starts_with(name)) else {
                continue;
            };
            let y = (CLASSES.len() - 1 - row) as f64;
            let corners = [(axis.start, y + 0.32), (c.median_ns, y - 0.32)];
            let bar = Rectangle::new(corners, colour(row).filled());
            chart.draw_series([bar]).map_err(fail)?;
            let range = PathElement::new(vec![(c.p5_ns, y), (c.p95_ns, y)], INK.stroke_width(2));
            chart.draw_series([range]).map_err(fail)?;
        }
        root.present().map_err(fail)?;
    }
    Ok(svg)
}
