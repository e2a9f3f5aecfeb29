//! SVG charts of run and sweep results, drawn with plotters' SVG backend
//! only (no font libraries: text is `<text font-family="sans-serif">`, left
//! to whatever shows the SVG), in the style of the matrix heatmap.
//!
//! Every chart has a two-line header (what it shows and the host, then the
//! CPU model, start time and the run's shape), axes with units, and a
//! legend in its own panel on the right so it never covers data. One file
//! per chart:
//!
//! - `ns-per-op.svg` (module `ns_per_op`): write and read ns/op per strategy,
//!   mean ± stddev over repeats;
//! - `latency.svg` (module `latency`): p50, p90, p99, p99.9 and max per
//!   strategy, write and read side, log scale;
//! - `throughput.svg` (module `throughput`): write ops/s per strategy,
//!   mean ± stddev;
//! - `staleness.svg` (module `staleness`): staleness against throughput across
//!   ratelimit periods (when a run has two or more);
//! - `sweep-throughput-<affinity>.svg` and `sweep-staleness-<affinity>.svg`
//!   (module `sweep`) for sweeps, `sweep-rates-<affinity>.svg` (module
//!   `rates`) when a sweep has a rate axis, plus every point's run charts.

mod bars;
mod latency;
mod ns_per_op;
mod rates;
mod staleness;
mod sweep;
mod throughput;

use super::{Document, DrawError, ExportError, Format};
use crate::provenance::Provenance;
use crate::results::{RunResults, SweepResults};
use crate::stats::Summary;
use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, ValueFormatter};
use plotters::prelude::*;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Width of every chart, px.
const WIDTH: u32 = 1100;
/// Height of the two-line header, px.
const HEADER_PX: u32 = 62;
// Font sizes are as plotters takes them: it writes 1/1.24 of each into the
// SVG (22 becomes font-size 17.7).
/// Font of the header's first line.
const TITLE_PX: u32 = 22;
/// Font of the header's second line.
const SUBTITLE_PX: u32 = 16;
/// Font of tick labels and legend entries.
const LABEL_PX: u32 = 15;
/// Font of axis descriptions.
const DESC_PX: u32 = 16;
/// Estimated width of one character of a label, px per 100 px of
/// [`LABEL_PX`] (sans-serif averages about 0.55 em, at 1/1.24 scale).
const CHAR_PCT: u32 = 48;
/// The only font family named: no font library is linked.
const FONT: &str = "sans-serif";
/// Series colours (Tableau 10): distinct, and readable on white.
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xba, 0xb0, 0xac),
];
/// Colour of error bars, header detail and legend text.
const INK: RGBColor = RGBColor(0x33, 0x33, 0x33);

/// The drawing area charts draw on.
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Writes every chart of one run into `dir` (which must exist), replacing
/// files of the same names: `ns-per-op.svg`, `latency.svg` (when operations
/// were sampled), `throughput.svg`, and `staleness.svg` (when the run has
/// two or more ratelimit periods). Returns the paths written; a run with no
/// finished repeat gives none.
pub fn write_run_charts(dir: &Path, run: &RunResults) -> Result<Vec<PathBuf>, ExportError> {
    super::save(dir, &Document::Run(run), &[Format::Svg])
}

/// Writes every chart of a sweep into `dir` (which must exist), replacing
/// files of the same names: per affinity set, write throughput against
/// threads with one line per strategy (`sweep-throughput-<affinity>.svg`)
/// and staleness against throughput across ratelimit periods at the
/// largest thread count (`sweep-staleness-<affinity>.svg`); then each
/// point's run charts, prefixed `point-<affinity>-t<threads>-`. Returns the
/// paths written.
pub fn write_sweep_charts(dir: &Path, sweep: &SweepResults) -> Result<Vec<PathBuf>, ExportError> {
    super::save(dir, &Document::Sweep(sweep), &[Format::Svg])
}

/// Every chart of a sweep (see [`write_sweep_charts`]).
pub(super) fn sweep_charts(sweep: &SweepResults) -> Result<Vec<Chart>, DrawError> {
    let mut charts = sweep::charts(sweep)?;
    charts.extend(rates::charts(sweep)?);
    for p in &sweep.points {
        let rate = p.rate.map_or(String::new(), |r| format!("-r{r}"));
        let prefix = format!("point-{}-t{}{rate}-", file_safe(&p.affinity), p.threads);
        charts.extend(run_charts(&p.results, &prefix)?);
    }
    Ok(charts)
}

/// A rendered chart: its file name and SVG text.
pub(super) type Chart = (String, String);

/// Every chart of one run (see [`write_run_charts`]), file names prefixed
/// with `prefix`.
pub(super) fn run_charts(run: &RunResults, prefix: &str) -> Result<Vec<Chart>, DrawError> {
    let drawn = [
        ("ns-per-op.svg", ns_per_op::render(run)),
        ("latency.svg", latency::render(run)),
        ("throughput.svg", throughput::render(run)),
        ("staleness.svg", staleness::render_run(run)),
    ];
    let mut charts = Vec::new();
    for (name, svg) in drawn {
        if let Some(svg) = svg
            .transpose()
            .map_err(|e| e.in_chart(&format!("{prefix}{name}")))?
        {
            charts.push((format!("{prefix}{name}"), svg));
        }
    }
    Ok(charts)
}

/// `name` with anything but ASCII letters, digits, `-` and `.` replaced by
/// `_`, for file names.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Turns a plotters error into the error charts return.
fn fail(e: impl std::fmt::Display) -> DrawError {
    DrawError(format!("drawing failed: {e}"))
}

/// The mesh every chart draws: white minor and light grey major grid
/// lines, the house label and axis fonts, and these axis descriptions.
/// Callers add their label formatters and draw.
fn house_mesh<'a, 'b, DB, X, Y, XT, YT>(
    chart: &'b mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    x_desc: &str,
    y_desc: &str,
) -> MeshStyle<'a, 'b, X, Y, DB>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = XT> + ValueFormatter<XT>,
    Y: Ranged<ValueType = YT> + ValueFormatter<YT>,
{
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(WHITE)
        .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd))
        .label_style((FONT, LABEL_PX))
        .axis_desc_style((FONT, DESC_PX))
        .x_desc(x_desc)
        .y_desc(y_desc);
    mesh
}

/// Draws [`house_mesh`] with both axes' labels as plain numbers ([`num`]).
fn draw_number_mesh<DB, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    x_desc: &str,
    y_desc: &str,
) -> Result<(), DrawError>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    house_mesh(chart, x_desc, y_desc)
        .x_label_formatter(&|v| num(*v))
        .y_label_formatter(&|v| num(*v))
        .draw()
        .map_err(fail)
}

/// The two header lines of a chart.
struct Header {
    /// What the chart shows, and on which host.
    title: String,
    /// CPU model, start time and the run's shape.
    subtitle: String,
}

impl Header {
    /// "`what` on `host`", then "`cpu`, started `date`, `detail`".
    fn new(what: &str, p: &Provenance, detail: &str) -> Self {
        Header {
            title: format!("{what} on {}", p.hostname),
            subtitle: format!("{}, started {}, {detail}", p.cpu_model, p.started_utc),
        }
    }

    /// The header for a run's charts: writers, readers and repeats.
    fn run(what: &str, run: &RunResults) -> Self {
        let c = &run.config;
        let readers = match c.reader_cpus.len() {
            0 => String::new(),
            n => format!(", {n} readers"),
        };
        let detail = format!(
            "{} writers{readers}, {} repeats of {} ms{}",
            c.writer_cpus.len(),
            c.repeats,
            num(c.repeat_duration_s * 1000.0),
            if run.partial { " (partial)" } else { "" }
        );
        Header::new(what, &run.provenance, &detail)
    }
}

/// A series in a legend: its label and colour, drawn as a bar swatch or as
/// the line charts' marker.
struct Entry {
    /// The series' name.
    label: String,
    /// Its colour.
    colour: RGBColor,
}

/// How legend entries are drawn.
#[derive(Clone, Copy)]
enum Swatch {
    /// A filled square, as bars are.
    Bar,
    /// A short line with the series' marker.
    Line,
}

/// Colour of series `i`.
fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Marker style of series `i`: filled circles for the first ten colours,
/// hollow ones for the next ten, and so on.
fn marker_style(i: usize) -> ShapeStyle {
    if (i / PALETTE.len()) % 2 == 0 {
        colour(i).filled()
    } else {
        colour(i).stroke_width(2)
    }
}

/// Width of the legend panel for these labels, px.
fn legend_width(entries: &[Entry]) -> u32 {
    let chars = entries.iter().map(|e| e.label.chars().count()).max();
    (chars.unwrap_or(0) as u32 * LABEL_PX * CHAR_PCT / 100 + 48).max(190)
}

/// `text` broken at spaces into lines of at most `width` characters (a
/// longer word stays whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// Draws a fresh SVG of `height` px: white, the header, then the legend
/// panel on the right (`note` under its entries, if not empty) and `body`
/// on the rest.
fn canvas(
    height: u32,
    header: &Header,
    entries: &[Entry],
    swatch: Swatch,
    note: &str,
    body: impl FnOnce(&Area) -> Result<(), DrawError>,
) -> Result<String, DrawError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(fail)?;
        let (head, rest) = root.split_vertically(HEADER_PX);
        let title = (FONT, TITLE_PX).into_font().color(&BLACK);
        head.draw(&Text::new(header.title.as_str(), (14, 10), title))
            .map_err(fail)?;
        let sub = (FONT, SUBTITLE_PX).into_font().color(&INK);
        head.draw(&Text::new(header.subtitle.as_str(), (14, 36), sub))
            .map_err(fail)?;
        let (plot, legend) = rest.split_horizontally(WIDTH - legend_width(entries));
        draw_legend(&legend, entries, swatch, note)?;
        body(&plot)?;
        root.present().map_err(fail)?;
    }
    Ok(svg)
}

/// One row per entry: swatch, then label; `note` below in smaller text.
fn draw_legend(
    area: &Area,
    entries: &[Entry],
    swatch: Swatch,
    note: &str,
) -> Result<(), DrawError> {
    let row = LABEL_PX as i32 + 9;
    let font = (FONT, LABEL_PX).into_font().color(&INK);
    for (i, e) in entries.iter().enumerate() {
        let y = 24 + i as i32 * row;
        match swatch {
            Swatch::Bar => area
                .draw(&Rectangle::new(
                    [(6, y - 6), (18, y + 6)],
                    e.colour.filled(),
                ))
                .map_err(fail)?,
            Swatch::Line => {
                area.draw(&Rectangle::new(
                    [(2, y - 1), (22, y + 1)],
                    e.colour.filled(),
                ))
                .map_err(fail)?;
                area.draw(&Circle::new((12, y), 4, marker_style(i)))
                    .map_err(fail)?;
            }
        }
        area.draw(&Text::new(
            e.label.as_str(),
            (28, y - LABEL_PX as i32 / 2 - 1),
            font.clone(),
        ))
        .map_err(fail)?;
    }
    let small = (FONT, LABEL_PX - 1).into_font().color(&INK);
    let chars =
        (area.dim_in_pixel().0 as usize * 100 / CHAR_PCT as usize / LABEL_PX as usize).max(12) - 2;
    for (k, line) in wrap(note, chars).iter().enumerate() {
        let y = 24 + entries.len() as i32 * row + 6 + k as i32 * (LABEL_PX as i32 + 4);
        area.draw(&Text::new(line.as_str(), (6, y), small.clone()))
            .map_err(fail)?;
    }
    Ok(())
}

/// A value for a tick label: three significant digits at most, with a k,
/// M or G suffix from ten thousand up (17.7M rather than 17700000).
fn num(v: f64) -> String {
    let a = v.abs();
    let (scaled, suffix) = match a {
        a if a >= 1e9 => (v / 1e9, "G"),
        a if a >= 1e6 => (v / 1e6, "M"),
        a if a >= 1e4 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let magnitude = if scaled == 0.0 {
        0
    } else {
        scaled.abs().log10().floor() as i32
    };
    let digits = (2 - magnitude).clamp(0, 3) as usize;
    let mut s = format!("{scaled:.digits$}");
    if s.contains('.') {
        s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    if s == "-0" {
        s = "0".into();
    }
    s + suffix
}

/// A linear axis whose ticks sit exactly at `keys` (category centres,
/// percentiles, thread counts), labelled by the chart's formatter.
struct Keyed {
    /// The values the axis spans.
    range: Range<f64>,
    /// Where its ticks and grid lines are.
    keys: Vec<f64>,
}

impl Ranged for Keyed {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let f = (value - self.range.start) / (self.range.end - self.range.start);
        limit.0 + (f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        // Only bold ticks: no light grid lines between keys.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.keys.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// A linear axis range from 0 (or below, for negative data) to a little
/// past the largest value; never empty.
fn zero_based(hi: f64) -> Range<f64> {
    let hi = if hi.is_finite() && hi > 0.0 { hi } else { 1.0 };
    0.0..hi * 1.08
}

/// Ticks of a log axis over `r`: 1, 2 and 5 times powers of ten inside
/// it, or only the powers of ten when that would be more than 12 ticks.
fn log_ticks(r: &Range<f64>) -> Vec<f64> {
    let first = r.start.log10().floor() as i32;
    let last = r.end.log10().ceil() as i32;
    let ticks = |steps: &[f64]| -> Vec<f64> {
        (first..=last)
            .flat_map(|e| steps.iter().map(move |m| m * 10f64.powi(e)))
            .filter(|v| r.contains(v))
            .collect()
    };
    let fine = ticks(&[1.0, 2.0, 5.0]);
    if fine.len() > 12 { ticks(&[1.0]) } else { fine }
}

/// A duration in ns for a tick label, in the unit that suits it:
/// `500 ns`, `20 µs`, `1.5 ms`, `2 s`.
fn duration_label(ns: f64) -> String {
    match ns.abs() {
        a if a >= 1e9 => format!("{} s", num(ns / 1e9)),
        a if a >= 1e6 => format!("{} ms", num(ns / 1e6)),
        a if a >= 1e3 => format!("{} µs", num(ns / 1e3)),
        _ => format!("{} ns", num(ns)),
    }
}

/// A range for a log axis covering `lo..=hi` (positive values), widened a
/// little; never empty.
fn log_span(lo: f64, hi: f64) -> Range<f64> {
    let lo = if lo.is_finite() && lo > 0.0 { lo } else { 1.0 };
    let hi = if hi.is_finite() && hi > lo {
        hi
    } else {
        lo * 10.0
    };
    lo / 1.4..hi * 1.4
}

/// A linear range covering `lo..=hi` with a margin on both sides; never
/// empty.
fn padded(lo: f64, hi: f64) -> Range<f64> {
    if !(lo.is_finite() && hi.is_finite()) {
        return 0.0..1.0;
    }
    let margin = if hi > lo {
        (hi - lo) * 0.12
    } else {
        (hi.abs() * 0.1).max(1.0)
    };
    (lo - margin)..(hi + margin)
}

/// An error bar over mean ± stddev of `s` (clipped at 0) as one path,
/// with end caps of half-length `cap`: horizontal at height `at` when
/// `vertical` is false, else vertical at `at`. Coordinates are data units
/// of linear axes.
fn whisker(s: &Summary, at: f64, cap: f64, vertical: bool) -> PathElement<(f64, f64)> {
    let (lo, hi) = ((s.mean - s.stddev).max(0.0), s.mean + s.stddev);
    let path = [
        (lo, at - cap),
        (lo, at + cap),
        (lo, at),
        (hi, at),
        (hi, at + cap),
        (hi, at - cap),
    ];
    let path = path.map(|(v, k)| if vertical { (k, v) } else { (v, k) });
    PathElement::new(path, INK.stroke_width(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(20.03), "20");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(0.125), "0.125");
        assert_eq!(num(950.0), "950");
        assert_eq!(num(12_345.0), "12.3k");
        assert_eq!(num(17_712_957.0), "17.7M");
        assert_eq!(num(2.0e9), "2G");
        assert_eq!(num(-3.0e6), "-3M");
    }

    #[test]
    fn ranges_are_never_empty() {
        assert_eq!(zero_based(0.0), 0.0..1.08);
        let s = Summary::of(&[8.0, 12.0]).unwrap();
        let w = whisker(&s, 1.0, 0.1, true);
        let path = plotters::element::PointCollection::point_iter(&w);
        // By hand: mean 10, sample stddev sqrt((4 + 4) / 1) = 2√2; caps
        // at 1 ± 0.1.
        let sd = 8f64.sqrt();
        let want = [
            (0.9, 10.0 - sd),
            (1.1, 10.0 - sd),
            (1.0, 10.0 - sd),
            (1.0, 10.0 + sd),
            (1.1, 10.0 + sd),
            (0.9, 10.0 + sd),
        ];
        assert_eq!(path.len(), want.len());
        for (got, want) in path.iter().zip(want) {
            assert!(
                (got.0 - want.0).abs() < 1e-12 && (got.1 - want.1).abs() < 1e-12,
                "{path:?}"
            );
        }
        // Clipped at 0: mean 5, stddev sqrt(32) = 5.66; horizontal at 2.
        let s = Summary::of(&[1.0, 9.0]).unwrap();
        let w = whisker(&s, 2.0, 0.5, false);
        let path = plotters::element::PointCollection::point_iter(&w);
        assert_eq!(path[0], (0.0, 1.5));
        assert_eq!(path[2], (0.0, 2.0));
        assert!((path[3].0 - (5.0 + 32f64.sqrt())).abs() < 1e-12, "{path:?}");
        assert_eq!(path[3].1, 2.0);
        assert!(padded(5.0, 5.0).start < 5.0 && padded(5.0, 5.0).end > 5.0);
        let r = log_span(10.0, 10.0);
        assert!(r.start < 10.0 && r.end > 100.0);
        assert_eq!(file_safe("node 0/x"), "node_0_x");
        assert_eq!(log_ticks(&(15.0..700.0)), [20.0, 50.0, 100.0, 200.0, 500.0]);
        assert_eq!(log_ticks(&(1.0..1e9)).len(), 9);
    }

    #[test]
    fn labels_fit() {
        assert_eq!(duration_label(150_000.0), "150 µs");
        assert_eq!(duration_label(2.0e6), "2 ms");
        assert_eq!(duration_label(40.0), "40 ns");
        assert_eq!(
            wrap("error bars: mean ± 1 stddev", 12),
            ["error bars:", "mean ± 1", "stddev"]
        );
    }
}
