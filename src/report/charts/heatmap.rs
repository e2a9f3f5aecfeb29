//! heatmap.svg for `contend matrix`: one cell per (initiating CPU, responding CPU), coloured by
//! median one-way latency, with a colour scale in ns. Drawn with plotters' SVG backend only (no
//! font libraries: text is left to whatever shows the SVG).

use crate::matrix::{MatrixResults, PairResult};
use crate::report::DrawError;
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;
use std::collections::BTreeSet;

/// Pixels of the square plot area per CPU, before clamping to [`MIN_PLOT`]..[`MAX_PLOT`].
const CELL_PX: u32 = 24;
/// Smallest plot area side, px.
const MIN_PLOT: u32 = 360;
/// Largest plot area side, px (448 CPUs get 4 px cells).
const MAX_PLOT: u32 = 1800;
/// Width of the colour scale strip and its labels, px.
const LEGEND_PX: u32 = 150;
/// Steps of the drawn colour scale.
const SCALE_STEPS: usize = 64;
/// Latencies spanning less than this fraction of the lowest are drawn in one colour.
const ONE_COLOUR_SPREAD: f64 = 0.05;

/// The CPUs that appear in a measured pair, ascending: the heatmap's rows and columns.
pub fn axis_cpus(r: &MatrixResults) -> Vec<u32> {
    let ends = |p: &PairResult| [p.forward.from, p.forward.to, p.backward.from, p.backward.to];
    let cpus: BTreeSet<u32> = r.pairs.iter().flat_map(ends).collect();
    cpus.into_iter().collect()
}

/// `sampled: N of M CPUs, K pairs per class` when `r` is a per-class sample that leaves pairs out.
pub fn sample_note(r: &MatrixResults, drawn: usize) -> Option<String> {
    let per_class = r.config.per_class?;
    let m = r.config.cpus.len();
    if r.pairs.len() >= m * m.saturating_sub(1) / 2 {
        return None;
    }
    let pairs = crate::verdict::plural(per_class, "pair");
    Some(format!("sampled: {drawn} of {m} CPUs, {pairs} per class"))
}

/// The heatmap's colour scale over `lo..hi` ns.
struct Scale {
    /// The colour range, ns.
    lo: f64,
    hi: f64,
    /// The one value every cell is drawn as, if they are one.
    one_value: Option<f64>,
    /// The scale's axis title.
    desc: String,
}

impl Scale {
    fn of(lo: f64, hi: f64) -> Scale {
        let title = "one-way ns (median; round trip / 2)";
        let one_value =
            (hi - lo < 0.5 || hi - lo < ONE_COLOUR_SPREAD * lo).then_some((lo + hi) / 2.0);
        let within = ONE_COLOUR_SPREAD * 100.0;
        let desc = match one_value {
            None => title.to_string(),
            Some(_) if hi - lo < 0.5 => format!("{title}: every pair"),
            Some(_) => format!("{title}: every pair within {within:.0}% ({lo:.1}-{hi:.1})"),
        };
        let (lo, hi) = one_value.map_or((lo, hi), |v| (v - 0.5, v + 0.5));
        Scale {
            lo,
            hi,
            one_value,
            desc,
        }
    }

    fn colour(&self, ns: f64) -> RGBColor {
        ViridisRGB.get_color_normalized(ns as f32, self.lo as f32, self.hi as f32)
    }

    /// The scale drawn on `area`: a strip of [`SCALE_STEPS`] colours with labels that differ, or
    /// one swatch whose middle tick alone is labelled.
    fn draw(
        &self,
        area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
        label_px: u32,
    ) -> Result<(), DrawError> {
        let err = |e: DrawingAreaErrorKind<_>| DrawError(format!("heatmap: {e}"));
        // Enough decimals that the scale's labels differ.
        let digits = match self.hi - self.lo {
            d if d >= 20.0 => 0,
            d if d >= 2.0 => 1,
            _ => 2,
        };
        let label = |v: &f64| match self.one_value {
            Some(value) if (v - 0.5).abs() < 1e-9 => format!("{value:.1}"),
            Some(_) => String::new(),
            None => format!("{v:.digits$}"),
        };
        let (lo, hi, ticks, steps) = match self.one_value {
            Some(_) => (0.0, 1.0, 3, 1),
            None => (self.lo, self.hi, 8, SCALE_STEPS),
        };
        let mut scale = ChartBuilder::on(area);
        scale
            .margin_top(10)
            .margin_bottom(60)
            .margin_right(10)
            .y_label_area_size(70);
        let mut scale = scale.build_cartesian_2d(0.0..1.0, lo..hi).map_err(err)?;
        scale
            .configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .label_style(("sans-serif", label_px))
            .axis_desc_style(("sans-serif", label_px + 2))
            .y_desc(self.desc.as_str())
            .y_labels(ticks)
            .y_label_formatter(&label)
            .draw()
            .map_err(err)?;
        let step = (hi - lo) / steps as f64;
        let strip = (0..steps).map(|i| {
            let y0 = lo + step * i as f64;
            let ns = self.one_value.unwrap_or(y0 + step / 2.0);
            Rectangle::new([(0.0, y0), (1.0, y0 + step)], self.colour(ns).filled())
        });
        scale.draw_series(strip).map(drop).map_err(err)
    }
}

/// Every measured direction of `r` as a cell.
#[allow(clippy::type_complexity)]
fn cells_of(r: &MatrixResults, cpus: &[u32]) -> (Vec<(i32, i32, f64)>, Vec<(i32, i32)>) {
    let index = |cpu: u32| cpus.binary_search(&cpu).ok().map(|i| i as i32);
    let mut cells = Vec::new();
    let mut unstable = Vec::new();
    for p in &r.pairs {
        for d in [&p.forward, &p.backward] {
            if let (Some(row), Some(col)) = (index(d.from), index(d.to)) {
                cells.push((row, col, d.median_ns));
                if p.unstable {
                    unstable.push((row, col));
                }
            }
        }
    }
    (cells, unstable)
}

/// The SVG text of the heatmap: rows are the initiating CPU.
pub fn render(r: &MatrixResults) -> Result<String, DrawError> {
    let cpus = &axis_cpus(r);
    let n = cpus.len() as i32;
    let (cells, unstable) = cells_of(r, cpus);
    let lo = cells.iter().map(|c| c.2).fold(f64::INFINITY, f64::min);
    let hi = cells.iter().map(|c| c.2).fold(f64::NEG_INFINITY, f64::max);
    if cells.is_empty() || !lo.is_finite() || !hi.is_finite() {
        return Err(DrawError("heatmap: no measured pairs to draw".into()));
    }
    let scale = Scale::of(lo, hi);
    let colour = |ns: f64| scale.colour(ns);

    let plot = (cpus.len() as u32 * CELL_PX).clamp(MIN_PLOT, MAX_PLOT);
    // Text grows with the picture so a 1800 px plot stays readable.
    let (title_px, label_px) = (18 + plot / 100, 12 + plot / 200);
    let size = (plot + LEGEND_PX + 120, plot + 140);
    let p = &r.provenance;
    let (mode, host, cpu, started) = (r.config.mode, &p.hostname, &p.cpu_model, &p.started_utc);
    let title = crate::report::plain(&format!(
        "contend matrix ({mode}): {host}, {cpu}, {started}"
    ));
    let label = |v: &SegmentValue<i32>, reverse: bool| match v {
        SegmentValue::CenterOf(k) if (0..n).contains(k) => {
            let i = if reverse { n - 1 - k } else { *k };
            cpus[i as usize].to_string()
        }
        _ => String::new(),
    };
    let note = sample_note(r, cpus.len()).map(|note| format!("; {note}"));
    let x_desc = format!("CPU (responding){}", note.unwrap_or_default());
    let x_label = |v: &SegmentValue<i32>| label(v, false);
    let y_label = |v: &SegmentValue<i32>| label(v, true);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        let err = |e: DrawingAreaErrorKind<_>| DrawError(format!("heatmap: {e}"));
        root.fill(&WHITE).map_err(err)?;
        let body = root.titled(&title, ("sans-serif", title_px)).map_err(err)?;
        let (left, right) = body.split_horizontally(size.0 - LEGEND_PX);

        let mut chart = ChartBuilder::on(&left);
        chart.margin(10).x_label_area_size(50).y_label_area_size(60);
        // Integer ranges are inclusive in plotters: n segments.
        let (x, y) = ((0..n - 1).into_segmented(), (0..n - 1).into_segmented());
        let mut chart = chart.build_cartesian_2d(x, y).map_err(err)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .label_style(("sans-serif", label_px))
            .axis_desc_style(("sans-serif", label_px + 2))
            .x_desc(&x_desc)
            .y_desc("CPU (initiating)")
            .x_labels(cpus.len().min(32))
            .y_labels(cpus.len().min(32))
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .draw()
            .map_err(err)?;
        let at = |x: i32, y: i32| (SegmentValue::Exact(x), SegmentValue::Exact(y));
        let cell = |&(row, col, ns): &(i32, i32, f64)| {
            let y = n - 1 - row;
            Rectangle::new([at(col, y), at(col + 1, y + 1)], colour(ns).filled())
        };
        chart.draw_series(cells.iter().map(cell)).map_err(err)?;
        // Unstable pairs (passes disagree): a cross over both cells.
        let cross = |row: i32, col: i32, down: bool| {
            let y = n - 1 - row;
            let (a, b) = if down { (y + 1, y) } else { (y, y + 1) };
            PathElement::new(vec![at(col, a), at(col + 1, b)], BLACK.stroke_width(1))
        };
        let crosses = unstable
            .iter()
            .flat_map(|&(r, c)| [cross(r, c, true), cross(r, c, false)]);
        chart.draw_series(crosses).map_err(err)?;

        scale.draw(&right, label_px)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
