//! SVG charts of every kind of result, drawn with plotters' SVG backend only (no font libraries:
//! text is `<text font-family="sans-serif">`).

mod axes;
mod bars;
pub(super) mod cost;
pub(super) mod gallery;
pub mod heatmap;
mod latency;
pub(super) mod predict;
mod rates;
pub(super) mod run;
mod staleness;
pub(super) mod sweep;

use super::{Document, DrawError, ExportError, Rendered, plain, wrap};
use crate::provenance::Provenance;
use crate::runner::{RunResults, StrategyResult, StrategySummary, cost_measure};
use crate::sweep::SweepPoint;
use axes::{
    Keyed, duration_label, log_span, log_ticks, num, padded, signed_span, whisker, zero_based,
};
use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

/// Width of every chart, px.
const WIDTH: u32 = 1100;
/// Height of the two-line header, px.
const HEADER_PX: u32 = 62;
/// Font of the header's first line, as plotters takes it.
const TITLE_PX: u32 = 22;
/// Font of the header's second line.
const SUBTITLE_PX: u32 = 16;
/// Font of tick labels and legend entries.
const LABEL_PX: u32 = 15;
/// Font of axis descriptions.
const DESC_PX: u32 = 16;
/// Estimated width of one character of a label, px per 100 px of [`LABEL_PX`].
const CHAR_PCT: u32 = 48;
/// The only font family named: no font library is linked.
const FONT: &str = "sans-serif";
/// Series colours (Tableau 10): distinct, and readable on white.
const PALETTE: [u32; 10] = [
    0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f, 0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f,
    0xbab0ac,
];
/// What every error bar spans, as each chart with error bars says under its legend.
const ERROR_BARS: &str = "error bars: the 95% confidence interval of the mean over repeats";
/// Colour of error bars, header detail and legend text.
const INK: RGBColor = RGBColor(0x33, 0x33, 0x33);

/// The drawing area charts draw on.
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
/// A chart drawn on an [`Area`].
type Plot<'a, 'b, X, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<X, Y>>;

/// Every chart of a run, a sweep, a prediction or a matrix.
pub(super) fn files(doc: &Document) -> Result<Vec<Rendered>, ExportError> {
    let drawn = match doc {
        Document::Run(r) => run::charts(r)?,
        Document::Sweep(s) => sweep::charts(s)?,
        Document::Predict(p) => predict::charts(p)?,
        Document::Matrix(m) => vec![("heatmap.svg".to_string(), heatmap::render(m)?)],
        _ => Vec::new(),
    };
    Ok(drawn
        .into_iter()
        .map(|(name, svg)| Rendered::new(name, svg))
        .collect())
}

/// A rendered chart: its file name and SVG text.
pub(super) type Chart = (String, String);

/// `name` with anything but ASCII letters, digits, `-` and `.` replaced by `_`, for file names.
fn file_safe(name: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '.';
    name.chars()
        .map(|c| if safe(c) { c } else { '_' })
        .collect()
}

/// Turns a plotters error into the error charts return.
fn fail(e: impl std::fmt::Display) -> DrawError {
    DrawError(format!("drawing failed: {e}"))
}

/// The mesh every chart draws: white minor and light grey major grid lines, the house label and
/// axis fonts, and these axis descriptions.
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
        .x_desc(x_desc);
    // A bar chart's rows name themselves: no y description.
    if !y_desc.is_empty() {
        mesh.y_desc(y_desc);
    }
    mesh
}

/// Draws [`house_mesh`] with both axes' labels as plain numbers ([`num`]).
fn draw_number_mesh<X, Y>(
    chart: &mut Plot<'_, '_, X, Y>,
    x_desc: &str,
    y_desc: &str,
) -> Result<(), DrawError>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    house_mesh(chart, x_desc, y_desc)
        .x_label_formatter(&|v| num(*v))
        .y_label_formatter(&|v| num(*v))
        .draw()
        .map_err(fail)
}

/// Series `i`'s line through `coords`, each point marked; hollow, thin, below `hollow_below`.
fn draw_curve<X, Y>(
    chart: &mut Plot<'_, '_, X, Y>,
    i: usize,
    coords: &[(f64, f64)],
    hollow_below: f64,
) -> Result<(), DrawError>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let line = LineSeries::new(coords.to_vec(), colour(i).stroke_width(2));
    chart.draw_series(line).map_err(fail)?;
    let style = |c: &(f64, f64)| match c.1 < hollow_below {
        true => colour(i).stroke_width(1),
        false => marker_style(i),
    };
    let marks = coords.iter().map(|c| Circle::new(*c, 4, style(c)));
    chart.draw_series(marks).map(drop).map_err(fail)
}

/// A dashed guide line from `from` to `to`.
fn draw_guide<X, Y>(
    chart: &mut Plot<'_, '_, X, Y>,
    from: (f64, f64),
    to: (f64, f64),
) -> Result<(), DrawError>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let guide = DashedLineSeries::new([from, to], 6, 4, INK.stroke_width(1));
    chart.draw_series(guide).map(drop).map_err(fail)
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
        let (cpu, started) = (&p.cpu_model, &p.started_utc);
        let subtitle = plain(&format!("{cpu}, started {started}, {detail}"));
        let title = format!("{what} on {}", plain(&p.hostname));
        Header { title, subtitle }
    }

    /// The header for a run's charts: writers, readers, the repeats its figures rest on, and the
    /// regime (flat out, or paced at a rate) of `run`, a view of one.
    fn run(what: &str, run: &RunResults, repeats: Repeats) -> Self {
        let c = &run.config;
        let readers = match c.reader_cpus.len() {
            0 => String::new(),
            n => format!(", {n} readers"),
        };
        let (repeats, regime) = (repeats.text(c.repeat_duration_s), run.regime());
        let partial = if run.partial { " (partial)" } else { "" };
        let writers = c.writer_cpus.len();
        let detail = format!("{writers} writers{readers}, {repeats}, {regime}{partial}");
        Header::new(what, &run.provenance, &detail)
    }

    /// The header for a chart of sweep `points`: "`lead`, the repeats per point`tail`".
    fn points(what: &str, points: &[&SweepPoint], lead: &str, tail: &str) -> Self {
        let first = &points[0].results;
        let repeats = Repeats::of_cost(points.iter().flat_map(|p| &p.results.strategies));
        let repeats = repeats.text(first.config.repeat_duration_s);
        let detail = format!("{lead}, {repeats} per point{tail}");
        Header::new(what, &first.provenance, &detail)
    }
}

/// The repeats a chart's figures rest on, strategy by strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Repeats {
    /// The fewest repeats a strategy's figure used.
    fewest: usize,
    /// The most.
    most: usize,
    /// Finished repeats no figure used, over every strategy.
    set_aside: usize,
}

impl Repeats {
    /// From each strategy's (repeats finished, repeats used).
    fn of(counts: impl Iterator<Item = (usize, usize)>) -> Self {
        let counts: Vec<(usize, usize)> = counts.collect();
        let used = || counts.iter().map(|c| c.1);
        Repeats {
            fewest: used().min().unwrap_or_default(),
            most: used().max().unwrap_or_default(),
            set_aside: counts.iter().map(|(f, u)| f.saturating_sub(*u)).sum(),
        }
    }

    /// Behind each strategy's cost per update.
    fn of_cost<'a>(strategies: impl Iterator<Item = &'a StrategyResult>) -> Self {
        Repeats::of(strategies.filter_map(|s| {
            let used = cost_measure(s.regime).of(s)?.n;
            Some((s.repeats.len(), used))
        }))
    }

    /// `n = 5–19 repeats of 100 ms (2 set aside)`, each repeat `duration_s` long.
    fn text(&self, duration_s: f64) -> String {
        let n = if self.fewest == self.most {
            self.most.to_string()
        } else {
            format!("{}–{}", self.fewest, self.most)
        };
        let set_aside = match self.set_aside {
            0 => "none set aside".to_string(),
            k => format!("{k} set aside"),
        };
        let ms = num(duration_s * 1000.0);
        format!("n = {n} repeats of {ms} ms ({set_aside})")
    }
}

/// Each strategy's `at` over `points`, in the order the strategies were first run; a strategy
/// result without a summary, or whose `at` is `None`, is left out.
fn by_strategy<T>(
    points: &[&SweepPoint],
    at: impl Fn(&SweepPoint, &StrategySummary) -> Option<T>,
) -> Vec<(String, Vec<T>)> {
    let mut lines: Vec<(String, Vec<T>)> = Vec::new();
    for p in points {
        for s in &p.results.strategies {
            let Some(v) = s.summary.as_ref().and_then(|sum| at(p, sum)) else {
                continue;
            };
            match lines.iter_mut().find(|l| l.0 == s.name) {
                Some(line) => line.1.push(v),
                None => lines.push((s.name.clone(), vec![v])),
            }
        }
    }
    lines
}

/// The strategy of `run` whose full name is `name`, by its short name ([`RunResults::short_name`]).
fn display_name(run: &RunResults, name: &str) -> Option<String> {
    let s = run.strategies.iter().find(|s| s.name == name);
    s.map(|s| run.short_name(s))
}

/// The strategy named `name` as the first of `points` that ran it names it.
fn shown_name(points: &[&SweepPoint], name: &str) -> String {
    let shown = points.iter().find_map(|p| display_name(&p.results, name));
    shown.unwrap_or_else(|| name.to_string())
}

/// A chart on `area` with the house margins: `y_px` for the y labels, `right` px right margin.
fn plot<'a, 'b, X: AsRangedCoord, Y: AsRangedCoord>(
    area: &'a Area<'b>,
    (y_px, right): (u32, u32),
    x: X,
    y: Y,
) -> Result<Plot<'a, 'b, X::CoordDescType, Y::CoordDescType>, DrawError> {
    let mut b = ChartBuilder::on(area);
    b.margin(12).margin_right(right).x_label_area_size(50);
    b.y_label_area_size(y_px)
        .build_cartesian_2d(x, y)
        .map_err(fail)
}

/// Series `i`'s legend entry.
fn entry(i: usize, label: impl ToString) -> LegendEntry {
    LegendEntry {
        label: label.to_string(),
        colour: colour(i),
    }
}

/// A series in a legend: its label and colour, drawn as a bar swatch or as the line charts' marker.
struct LegendEntry {
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
    let [_, r, g, b] = PALETTE[i % PALETTE.len()].to_be_bytes();
    RGBColor(r, g, b)
}

/// Marker style of series `i`: filled circles for the first ten colours, hollow ones for the next
/// ten, and so on.
fn marker_style(i: usize) -> ShapeStyle {
    match (i / PALETTE.len()) % 2 {
        0 => colour(i).filled(),
        _ => colour(i).stroke_width(2),
    }
}

/// Width of the legend panel for these labels, px.
fn legend_width(entries: &[LegendEntry]) -> u32 {
    let chars = entries.iter().map(|e| e.label.chars().count()).max();
    (chars.unwrap_or(0) as u32 * LABEL_PX * CHAR_PCT / 100 + 48).max(190)
}

/// Draws a fresh SVG of `height` px.
fn canvas(
    height: u32,
    header: &Header,
    entries: &[LegendEntry],
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

/// Two line-chart panels side by side on a fresh SVG ([`canvas`], 560 px high).
fn two_panels(
    header: &Header,
    entries: &[LegendEntry],
    note: &str,
    body: impl for<'a> FnOnce(&Area<'a>, &Area<'a>) -> Result<(), DrawError>,
) -> Result<String, DrawError> {
    canvas(560, header, entries, Swatch::Line, note, |area| {
        let (left, right) = area.split_horizontally(area.dim_in_pixel().0 / 2);
        body(&left, &right)
    })
}

/// One row per entry: swatch, then label; `note` below in smaller text.
fn draw_legend(
    area: &Area,
    entries: &[LegendEntry],
    swatch: Swatch,
    note: &str,
) -> Result<(), DrawError> {
    let row = LABEL_PX as i32 + 9;
    let font = (FONT, LABEL_PX).into_font().color(&INK);
    for (i, e) in entries.iter().enumerate() {
        let y = 24 + i as i32 * row;
        let bar = |corners| area.draw(&Rectangle::new(corners, e.colour.filled()));
        match swatch {
            Swatch::Bar => bar([(6, y - 6), (18, y + 6)]).map_err(fail)?,
            Swatch::Line => {
                bar([(2, y - 1), (22, y + 1)]).map_err(fail)?;
                area.draw(&Circle::new((12, y), 4, marker_style(i)))
                    .map_err(fail)?;
            }
        }
        let at = (28, y - LABEL_PX as i32 / 2 - 1);
        area.draw(&Text::new(e.label.as_str(), at, font.clone()))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Summary;

    #[test]
    fn a_subtitle_states_the_repeats_each_figure_used() {
        // By hand: 19 used of 19, 5 of 7 (2 set aside), 5 of 5.
        let r = Repeats::of([(19, 19), (7, 5), (5, 5)].into_iter());
        assert_eq!(r.text(0.1), "n = 5–19 repeats of 100 ms (2 set aside)");
        let r = Repeats::of([(5, 5), (5, 5)].into_iter());
        assert_eq!(r.text(0.1), "n = 5 repeats of 100 ms (none set aside)");

        // A run: its first strategy's cost from 4 repeats it finished, the
        // second's from 2 of its 4 (two set aside), not the 2 configured.
        let mut run = crate::runner::fixture_run();
        for (s, used) in run.strategies.iter_mut().zip([4, 2]) {
            let template = s.repeats[0].clone();
            s.repeats = vec![template; 4];
            let sum = s.summary.as_mut().unwrap();
            sum.write_loop_ns = Summary::of(&vec![20.0; used]);
        }
        assert_eq!(run.config.repeats, 2);
        let h = Header::run("what", &run, Repeats::of_cost(run.strategies.iter()));
        assert!(
            h.subtitle
                .contains(", n = 2–4 repeats of 20 ms (2 set aside), flat out"),
            "{}",
            h.subtitle
        );
    }
}
