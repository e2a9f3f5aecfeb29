//! The SVG charts, checked rather than assumed: a real short run and a
//! sweep built from it are plotted with `contend plot`, every SVG is parsed
//! as XML, and its series are counted against the results (one line per
//! strategy, one bar per strategy and side, legend and axis texts).

use contend::report::{Document, ExportError, Format};
use contend::runner::RunResults;
use contend::stats::Summary;
use contend::sweep::{SweepPoint, SweepResults};
use contend::workload::Regime;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod common;
use common::xml::{Element, parse_xml};
use common::{contend, stderr};

/// The width report.html gives a chart in a 1280 px window, px: 1280 less
/// a scrollbar (15), the page's side padding (2 × 28) and the figure's
/// padding and border (2 × 7). A chart no wider is shown at its own size.
const PAGE_CHART_PX: f64 = 1280.0 - 15.0 - 2.0 * 28.0 - 2.0 * 7.0;

/// The smallest text a chart may show at that size, px.
const MIN_TEXT_PX: f64 = 11.0;

/// Colours of the first series (write bars, strategy 0) and the second.
const FIRST: &str = "#4E79A7";
const SECOND: &str = "#F28E2B";

#[test]
fn the_xml_reader_rejects_broken_documents() {
    assert!(parse_xml("<svg><text>a &amp; b</text></svg>").is_ok());
    assert_eq!(
        parse_xml("<svg><text>a &amp; b</text></svg>").unwrap()[1].text,
        "a & b"
    );
    for bad in [
        "<svg><text></svg>",
        "<svg>",
        "<svg/><svg/>",
        "<svg x=1/>",
        "<svg>&nbsp;</svg>",
        "<svg a=\"1\" a=\"2\"/>",
        "text<svg/>",
    ] {
        assert!(parse_xml(bad).is_err(), "{bad}");
    }
}

// --- One chart, read back --------------------------------------------------

/// A chart file, parsed.
struct Svg {
    path: PathBuf,
    elements: Vec<Element>,
}

impl Svg {
    fn read(path: &Path) -> Svg {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let elements = parse_xml(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(elements[0].name, "svg", "{}", path.display());
        Svg {
            path: path.to_path_buf(),
            elements,
        }
    }

    fn count(&self, f: impl Fn(&Element) -> bool) -> usize {
        self.elements.iter().filter(|e| f(e)).count()
    }

    fn texts(&self) -> Vec<&str> {
        self.elements
            .iter()
            .filter(|e| e.name == "text")
            .map(|e| e.text.trim())
            .collect()
    }

    fn has_text(&self, t: &str) -> bool {
        self.texts().contains(&t)
    }

    /// Every text is in sans-serif (no font library needed to render).
    fn check_fonts(&self) {
        for e in self.elements.iter().filter(|e| e.name == "text") {
            assert_eq!(
                e.attr("font-family"),
                "sans-serif",
                "{}",
                self.path.display()
            );
        }
    }

    /// Readable on the page at 1280 px wide: the chart is no wider than
    /// the page gives it (so it is shown at its own size, not scaled
    /// down), its viewBox is its size, and every text is at least
    /// [`MIN_TEXT_PX`].
    fn check_readable(&self) {
        let path = self.path.display();
        let root = &self.elements[0];
        let (w, h) = (px(root, "width"), px(root, "height"));
        assert!(w <= PAGE_CHART_PX, "{path}: {w} px wide");
        assert_eq!(root.attr("viewBox"), format!("0 0 {w} {h}"), "{path}");
        for e in self.elements.iter().filter(|e| e.name == "text") {
            let size = px(e, "font-size");
            assert!(
                size >= MIN_TEXT_PX,
                "{path}: {:?} at {size} px",
                e.text.trim()
            );
        }
    }

    /// One error-bar convention: a chart that draws error bars says, under
    /// its legend (wrapped over lines), that they are the 95% confidence
    /// interval; no chart speaks of a stddev bar.
    fn check_error_bars(&self) {
        let words = self.texts().join(" ");
        let path = self.path.display();
        // An error bar is one path of six points (two caps and the bar);
        // dashed reference lines are the same grey, in two-point pieces.
        let bars = self.polylines(|e| e.attr("stroke") == "#333333");
        if bars.iter().any(|p| p.len() == 6) {
            assert!(
                words.contains("error bars: the 95% confidence interval of the mean"),
                "{path}: {words}"
            );
        }
        assert!(!words.contains("stddev"), "{path}: {words}");
    }

    /// The header names the host and CPU model and the start time.
    fn check_header(&self, run: &RunResults) {
        let p = &run.provenance;
        let texts = self.texts();
        let path = self.path.display();
        assert!(
            texts[0].ends_with(&format!(" on {}", p.hostname)),
            "{path}: {texts:?}"
        );
        assert!(
            texts[1].starts_with(&p.cpu_model) && texts[1].contains(&p.started_utc),
            "{path}: {texts:?}"
        );
    }

    /// Data lines: polylines 2 px wide, by stroke colour.
    fn lines(&self) -> BTreeMap<String, usize> {
        let mut by_colour = BTreeMap::new();
        for e in &self.elements {
            if e.name == "polyline" && e.attr("stroke-width") == "2" {
                *by_colour.entry(e.attr("stroke").to_string()).or_insert(0) += 1;
            }
        }
        by_colour
    }

    /// Filled rectangles of this colour.
    fn rects(&self, fill: &str) -> usize {
        self.count(|e| e.name == "rect" && e.attr("fill") == fill)
    }

    /// Error bars: one dark grey polyline each.
    fn whiskers(&self) -> usize {
        self.count(|e| e.name == "polyline" && e.attr("stroke") == "#333333")
    }

    /// Circles (markers and legend markers).
    fn circles(&self) -> usize {
        self.count(|e| e.name == "circle")
    }

    /// Numeric tick labels drawn with `text-anchor` `anchor`, as
    /// (x, y, value), in document order.
    fn ticks(&self, anchor: &str) -> Vec<(f64, f64, f64)> {
        self.elements
            .iter()
            .filter(|e| e.name == "text" && e.attr("text-anchor") == anchor)
            .filter_map(|e| Some((px(e, "x"), px(e, "y"), tick_value(e.text.trim())?)))
            .collect()
    }

    /// The points of every polyline `f` picks, in document order.
    fn polylines(&self, f: impl Fn(&Element) -> bool) -> Vec<Vec<(f64, f64)>> {
        self.elements
            .iter()
            .filter(|e| e.name == "polyline" && f(e))
            .map(|e| {
                e.attr("points")
                    .split_whitespace()
                    .map(|p| {
                        let (x, y) = p.split_once(',').unwrap();
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect()
            })
            .collect()
    }
}

/// A numeric attribute (a pixel coordinate or size).
fn px(e: &Element, attr: &str) -> f64 {
    e.attr(attr)
        .parse()
        .unwrap_or_else(|_| panic!("<{}> {attr}={:?}", e.name, e.attr(attr)))
}

/// An axis label as the charts print numbers (`0`, `2.5`, `950`, `12.3k`,
/// `18M`, `2G`), or `None` for any other text.
fn tick_value(t: &str) -> Option<f64> {
    let (digits, scale) = match t.chars().last()? {
        'k' => (&t[..t.len() - 1], 1e3),
        'M' => (&t[..t.len() - 1], 1e6),
        'G' => (&t[..t.len() - 1], 1e9),
        _ => (t, 1.0),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    digits.parse::<f64>().ok().map(|v| v * scale)
}

/// Pixels per unit of a linear axis from its tick labels' positions
/// (`pos` picks x or y): the "0" tick and the largest one. Returns the
/// zero's position and the scale (signed: y grows downwards).
fn axis_scale(ticks: &[(f64, f64, f64)], pos: impl Fn(&(f64, f64, f64)) -> f64) -> (f64, f64) {
    let zero = ticks
        .iter()
        .find(|t| t.2 == 0.0)
        .unwrap_or_else(|| panic!("no 0 tick: the axis is not zero-based: {ticks:?}"));
    let top = ticks.iter().max_by(|a, b| a.2.total_cmp(&b.2)).unwrap();
    assert!(top.2 > 0.0, "{ticks:?}");
    (pos(zero), (pos(top) - pos(zero)) / top.2)
}

// --- Running contend -------------------------------------------------------

/// Every chart of `doc` written into `dir`, the paths written.
fn write_svgs(dir: &Path, doc: &Document) -> Result<Vec<PathBuf>, ExportError> {
    contend::report::save(dir, doc, &[Format::Svg])
}

fn svgs(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    names.sort();
    names
}

/// A real short run with two levels and three policies (two ratelimit
/// periods); returns its results folder and run.json.
fn short_run(root: &Path) -> (PathBuf, RunResults) {
    let out = contend(&[
        "run",
        "--print",
        "json",
        "--out",
        root.to_str().unwrap(),
        "--duration",
        "60ms",
        "--repeats",
        "2",
        "--warmup",
        "0",
        "--level",
        "global,cpu",
        "--publish",
        "always,ratelimit:100us,ratelimit:1ms",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let run: RunResults = serde_json::from_slice(&out.stdout).unwrap();
    let host = std::fs::read_dir(root).unwrap().next().unwrap().unwrap();
    let dir = std::fs::read_dir(host.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert!(dir.join("run.json").is_file());
    (dir, run)
}

// --- The tests ------------------------------------------------------------

/// The bars of colour `fill` that start at the value axis' 0 tick, in
/// document order (the rows' order, top to bottom): as many as `figures`,
/// each as long as its mean on the axis' scale (read from the tick
/// labels), to 2 px; and the error bars of series `series` (the
/// `series`-th group of `figures.len()` dark grey polylines) spanning the
/// 95% confidence interval of the mean, clipped at 0. Returns the largest
/// tick value.
fn assert_bars(svg: &Svg, fill: &str, series: usize, figures: &[Summary]) -> f64 {
    let path = svg.path.display();
    let ticks = svg.ticks("middle");
    let (x0, scale) = axis_scale(&ticks, |t| t.0);
    let bars: Vec<&Element> = svg
        .elements
        .iter()
        .filter(|e| e.name == "rect" && e.attr("fill") == fill && (px(e, "x") - x0).abs() <= 1.0)
        .collect();
    assert_eq!(
        bars.len(),
        figures.len(),
        "{path}: bars at the 0 tick ({x0})"
    );
    let whiskers = svg.polylines(|e| e.attr("stroke") == "#333333");
    let whiskers = &whiskers[series * figures.len()..(series + 1) * figures.len()];
    for (i, (f, bar)) in figures.iter().zip(&bars).enumerate() {
        let mean = f.mean;
        let want = scale * mean;
        assert!(
            (px(bar, "width") - want).abs() <= 2.0,
            "{path}: bar {i} is {} px for mean {mean}, expected {want} px",
            px(bar, "width")
        );
        let w = &whiskers[i];
        let (lo, hi) = (x0 + scale * f.ci95_low.max(0.0), x0 + scale * f.ci95_high);
        assert!(
            w.len() == 6 && (w[2].0 - lo).abs() <= 2.0 && (w[3].0 - hi).abs() <= 2.0,
            "{path}: error bar {i} {w:?} for {mean} in [{}, {}], expected x {lo}..{hi}",
            f.ci95_low,
            f.ci95_high
        );
    }
    ticks.iter().map(|t| t.2).fold(0.0, f64::max)
}

/// `n = LO–HI repeats of DURATION (K set aside)`: the fewest and the most
/// repeats behind `strategies`' cost per update (`Summary::n` of loop
/// ns/op flat out, of net ns per update paced), and how many of the
/// repeats they finished those left out.
fn used_repeats(strategies: &[&contend::runner::StrategyResult], duration: &str) -> String {
    let used: Vec<(usize, usize)> = strategies
        .iter()
        .map(|s| {
            let sum = s.summary.as_ref().unwrap();
            let cost = if s.regime.is_paced() {
                sum.net_ns
            } else {
                sum.write_loop_ns
            };
            (s.repeats.len(), cost.unwrap().n)
        })
        .collect();
    let lo = used.iter().map(|u| u.1).min().unwrap();
    let hi = used.iter().map(|u| u.1).max().unwrap();
    let k: usize = used.iter().map(|u| u.0 - u.1).sum();
    let n = if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}–{hi}")
    };
    let aside = if k == 0 {
        "none set aside".to_string()
    } else {
        format!("{k} set aside")
    };
    format!("n = {n} repeats of {duration} ({aside})")
}

/// The flat-out and the paced view of a run of the default regimes.
fn views(run: &RunResults) -> (RunResults, RunResults) {
    let mut views = run.regimes();
    assert_eq!(views.len(), 2, "flat out and paced");
    assert_eq!(views[0].regime(), Regime::FlatOut);
    assert_eq!(views[1].regime(), Regime::SEED);
    let paced = views.pop().unwrap();
    (views.pop().unwrap(), paced)
}

#[test]
fn a_run_is_plotted_with_every_series() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, run) = short_run(tmp.path());
    // The default regimes: each strategy flat out and paced at 22k/s.
    let (flat, paced) = views(&run);
    // Every chart names a strategy as the page does (one function).
    let names = flat.short_names();
    let n = names.len();
    assert_eq!(n, 6);
    assert_eq!(paced.short_names(), names);
    assert!(run.strategies.iter().all(|s| s.summary.is_some()));

    // Default output: the results folder itself; a paced regime's charts
    // carry its rate.
    let out = contend(&["plot", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        svgs(&dir),
        [
            "cost.svg",
            "cpu-share-r22000.svg",
            "latency-r22000.svg",
            "latency.svg",
            "ns-per-op-r22000.svg",
            "ns-per-op.svg",
            "staleness.svg",
            "throughput.svg"
        ]
    );
    assert_eq!(stderr(&out).lines().count(), 8, "{}", stderr(&out));
    for name in svgs(&dir) {
        let svg = Svg::read(&dir.join(&name));
        svg.check_fonts();
        svg.check_readable();
        svg.check_error_bars();
        svg.check_header(&run);
        // cost.svg shows both regimes, sorted by the seed's rate.
        let regime = if name.contains("-r22000") || name == "cost.svg" {
            "paced at 22.0k/s per thread"
        } else {
            "flat out"
        };
        assert!(
            svg.texts()[1].ends_with(regime),
            "{name}: {:?}",
            svg.texts()
        );
        // The repeats each figure used, not the 2 configured: the cost
        // per update's n per strategy (flat out loop ns/op, paced the net
        // ns, which sets disturbed repeats aside), and the rest set aside.
        let shown: Vec<&contend::runner::StrategyResult> = match name.as_str() {
            "cost.svg" => run.strategies.iter().collect(),
            n if n.contains("-r22000") => paced.strategies.iter().collect(),
            _ => flat.strategies.iter().collect(),
        };
        if !name.starts_with("latency") {
            let ms = format!("{} ms", (run.config.repeat_duration_s * 1e3).round());
            let want = used_repeats(&shown, &ms);
            assert!(
                svg.texts()[1].contains(&want),
                "{name}: {:?}, expected {want}",
                svg.texts()[1]
            );
        }
    }
    let summary = |s: &contend::runner::StrategyResult| s.summary.clone().unwrap();

    // ns/op flat out: the loop ns/op from throughput and the same less the
    // harness floor, a bar and an error bar each per strategy (+ legend
    // swatch), strategy names on the axis; the loop bars as long as their
    // means.
    let svg = Svg::read(&dir.join("ns-per-op.svg"));
    assert_eq!(svg.rects(FIRST), n + 1);
    assert_eq!(svg.rects(SECOND), n + 1);
    assert_eq!(svg.whiskers(), 2 * n);
    for name in &names {
        assert!(svg.has_text(name), "{name}: {:?}", svg.texts());
    }
    assert!(svg.has_text("loop ns/op") && svg.has_text("net: less the harness floor"));
    assert!(
        svg.has_text(
            "ns per update (the writer loop: an update and its read side), from throughput"
        )
    );
    let nets = || flat.strategies.iter().map(|s| summary(s).net_ns.unwrap());
    if nets().all(|net| net.ci95_low >= 0.0) {
        let loops: Vec<Summary> = flat
            .strategies
            .iter()
            .map(|s| summary(s).write_loop_ns.unwrap())
            .collect();
        assert_bars(&svg, FIRST, 0, &loops);
    }

    // The page's first chart: every strategy's net cost in both regimes,
    // a bar and a 95% CI bar each (+ legend swatch), the seed's rate
    // first, its rows cheapest first at the seed's rate, the cheapest
    // marked.
    let svg = Svg::read(&dir.join("cost.svg"));
    assert_eq!(svg.rects(FIRST), n + 1);
    assert_eq!(svg.rects(SECOND), n + 1);
    assert_eq!(svg.whiskers(), 2 * n);
    assert!(svg.has_text("paced at 22.0k/s per thread") && svg.has_text("flat out"));
    assert!(svg.has_text("error bars: the 95% confidence"));
    // Row labels, top to bottom.
    let mut labelled: Vec<(f64, &str)> = svg
        .elements
        .iter()
        .filter(|e| e.name == "text")
        .map(|e| (e.attr("y").parse::<f64>().unwrap(), e.text.trim()))
        .filter(|(_, t)| {
            names
                .iter()
                .any(|n| t.starts_with(n.split("/pad").next().unwrap()))
        })
        .collect();
    labelled.sort_by(|a, b| a.0.total_cmp(&b.0));
    let rows: Vec<&str> = labelled.iter().map(|(_, t)| *t).collect();
    assert_eq!(rows.len(), n, "{rows:?}");
    assert!(
        rows.iter().any(|t| t.contains("(cheapest")),
        "no row marked cheapest: {rows:?}"
    );
    let net_at_seed = |row: &str| {
        paced
            .strategies
            .iter()
            .find(|s| row.starts_with(&format!("{}/{}", s.strategy.level, s.strategy.publish)))
            .map(|s| summary(s).net_ns.unwrap().mean)
            .unwrap()
    };
    let costs: Vec<f64> = rows.iter().map(|r| net_at_seed(r)).collect();
    assert!(
        costs.windows(2).all(|w| w[0] <= w[1]),
        "rows not sorted by the cost at the seed's rate: {rows:?} {costs:?}"
    );

    // ns/op paced: net busy ns per update, and the gross busy ns.
    let svg = Svg::read(&dir.join("ns-per-op-r22000.svg"));
    assert_eq!(svg.rects(FIRST), n + 1);
    assert_eq!(svg.rects(SECOND), n + 1);
    assert_eq!(svg.whiskers(), 2 * n);
    assert!(svg.has_text("net: less the paced floor"));
    assert!(svg.has_text("busy ns/op, harness included"));
    assert!(svg.texts()[0].starts_with("Net cost of one update per strategy"));
    // CPU share paced: net and gross.
    let svg = Svg::read(&dir.join("cpu-share-r22000.svg"));
    assert_eq!(svg.rects(FIRST), n + 1);
    assert_eq!(svg.rects(SECOND), n + 1);
    assert!(svg.has_text("% of each measured CPU busy, paced at 22.0k/s per thread"));

    // Latency, each regime: per side one line per strategy, each in its
    // own colour, five points per line; one legend entry per strategy;
    // labelled as fenced samples.
    for name in ["latency.svg", "latency-r22000.svg"] {
        let svg = Svg::read(&dir.join(name));
        let lines = svg.lines();
        assert_eq!(lines.len(), n, "{name}: {lines:?}");
        assert!(lines.values().all(|&k| k == 2), "{lines:?}");
        assert_eq!(svg.circles(), 2 * 5 * n + n);
        for name in &names {
            assert!(svg.has_text(name), "{name}");
        }
        for p in ["p50", "p90", "p99", "p99.9", "max"] {
            assert!(svg.has_text(p), "{p}");
        }
        assert!(svg.has_text("write (update): sampled ns per operation (log)"));
        assert!(svg.has_text("read side: sampled ns per operation (log)"));
        assert!(svg.texts()[0].starts_with("Fenced samples: "), "{name}");
        let perturbed = svg.texts().iter().any(|t| t.contains("perturbs"));
        assert_eq!(
            perturbed,
            name == "latency.svg",
            "{name}: {:?}",
            svg.texts()
        );
    }

    // Throughput, flat out: one bar and one error bar per strategy, as
    // long as its mean (clipped at 0).
    let svg = Svg::read(&dir.join("throughput.svg"));
    assert_eq!(svg.rects(FIRST), n + 1);
    assert_eq!(svg.whiskers(), n);
    for name in &names {
        assert!(svg.has_text(name), "{name}");
    }
    assert!(
        svg.texts().iter().any(|t| t.starts_with("write ops/s")),
        "{:?}",
        svg.texts()
    );
    let ops: Vec<Summary> = flat
        .strategies
        .iter()
        .map(|s| summary(s).write_ops_per_s)
        .collect();
    assert_bars(&svg, FIRST, 0, &ops);

    // Staleness: the ratelimited strategies of each level form a line
    // (global, cpu) in each panel, every point labelled with its period.
    let svg = Svg::read(&dir.join("staleness.svg"));
    let lines = svg.lines();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines.values().all(|&k| k == 2), "{lines:?}");
    assert!(svg.has_text("global/pad128/tsc") && svg.has_text("cpu/pad128/tsc"));
    assert_eq!(svg.circles(), 2 * 4 + 2);
    let labels = |p: &str| svg.texts().iter().filter(|t| **t == p).count();
    assert_eq!((labels("100us"), labels("1ms")), (4, 4));
    assert!(svg.has_text("mean staleness error, % of total"));
    assert!(svg.has_text("mean age of a published delta (log)"));

    // Plotting again, elsewhere, from the file itself: same charts, same
    // bytes (charts are a pure function of the results).
    let again = tmp.path().join("again");
    let out = contend(&[
        "plot",
        dir.join("run.json").to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).lines().all(|l| l.starts_with("wrote ")));
    for name in svgs(&dir) {
        let a = std::fs::read(dir.join(&name)).unwrap();
        assert_eq!(a, std::fs::read(again.join(&name)).unwrap(), "{name}");
    }
    // Rendering to PNG with a real renderer is .ci/run's job (it installs
    // rsvg-convert); `cargo test` needs nothing beyond Rust.
}

#[test]
fn a_sweep_is_plotted_per_affinity_set() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, run) = short_run(tmp.path());
    // A sweep point is one regime: flat out here.
    let (run, _) = views(&run);
    let names = run.short_names();
    let n = names.len();
    // Two thread counts for "unbound", one for "node0": the same run,
    // scaled so the lines differ.
    let point = |threads: usize, affinity: &str, scale: f64| {
        let mut results = run.clone();
        for s in &mut results.strategies {
            let sum = s.summary.as_mut().unwrap();
            sum.write_ops_per_s.mean *= scale;
            sum.write_ops_per_s.stddev *= scale;
        }
        SweepPoint {
            threads,
            affinity: affinity.to_string(),
            regime: Regime::FlatOut,
            results,
        }
    };
    let sweep = SweepResults {
        schema: contend::runner::SCHEMA_VERSION,
        partial: false,
        out_of_time: false,
        points: vec![
            point(1, "unbound", 0.6),
            point(2, "unbound", 1.0),
            point(2, "node0", 0.9),
        ],
    };
    let dir = tmp.path().join("sweep");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(
        dir.join("sweep.json"),
        serde_json::to_vec_pretty(&sweep).unwrap(),
    )
    .unwrap();

    let out = contend(&["plot", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let files = svgs(&dir);
    for f in [
        "sweep-throughput-unbound.svg",
        "sweep-throughput-node0.svg",
        "sweep-staleness-unbound.svg",
        "sweep-staleness-node0.svg",
        "point-unbound-t1-throughput.svg",
        "point-unbound-t2-latency.svg",
        "point-node0-t2-ns-per-op.svg",
    ] {
        assert!(files.iter().any(|n| n == f), "{f}: {files:?}");
    }
    assert_eq!(files.len(), 4 + 3 * 4, "{files:?}");
    for name in &files {
        let svg = Svg::read(&dir.join(name));
        svg.check_fonts();
        svg.check_readable();
        svg.check_error_bars();
        svg.check_header(&run);
    }

    // Throughput vs threads: one line per strategy, a point and an error
    // bar at each thread count, the thread counts as ticks.
    let svg = Svg::read(&dir.join("sweep-throughput-unbound.svg"));
    let lines = svg.lines();
    assert_eq!(lines.len(), n, "{lines:?}");
    assert!(lines.values().all(|&k| k == 1), "{lines:?}");
    assert_eq!(svg.circles(), 2 * n + n);
    assert_eq!(svg.whiskers(), 2 * n);
    for name in &names {
        assert!(svg.has_text(name), "{name}");
    }
    assert!(svg.has_text("writer threads"));
    // The thread counts, and only they, label the x axis; each strategy's
    // line runs from its 1-thread point (0.6 × its mean) to its 2-thread
    // point (1.0 ×), at those ticks and at those heights on the
    // zero-based y axis (to 2 px).
    let x_ticks = svg.ticks("middle");
    let x_labels: Vec<f64> = x_ticks.iter().map(|t| t.2).collect();
    assert_eq!(x_labels, [1.0, 2.0], "{x_ticks:?}");
    assert_eq!(x_ticks[0].1, x_ticks[1].1, "ticks on one axis: {x_ticks:?}");
    let (y0, scale) = axis_scale(&svg.ticks("end"), |t| t.1);
    assert!(scale < 0.0, "values grow upwards");
    let data_lines = svg.polylines(|e| e.attr("stroke-width") == "2");
    assert_eq!(data_lines.len(), n);
    for (s, line) in run.strategies.iter().zip(&data_lines) {
        let mean = s.summary.as_ref().unwrap().write_ops_per_s.mean;
        assert_eq!(line.len(), 2, "{}: {line:?}", s.name);
        for (&(x, y), (tick, share)) in line.iter().zip([(&x_ticks[0], 0.6), (&x_ticks[1], 1.0)]) {
            let want_y = y0 + scale * share * mean;
            assert!(
                (x - tick.0).abs() <= 1.0 && (y - want_y).abs() <= 2.0,
                "{}: point ({x}, {y}), expected ({}, {want_y}) for {share} x {mean}",
                s.name,
                tick.0
            );
        }
    }
    assert!(svg.texts()[0].starts_with("Write throughput vs threads, affinity unbound"));
    // One point per strategy for node0.
    let svg = Svg::read(&dir.join("sweep-throughput-node0.svg"));
    assert_eq!(svg.circles(), n + n);

    let svg = Svg::read(&dir.join("sweep-staleness-unbound.svg"));
    assert_eq!(svg.lines().len(), 2);
    assert!(svg.texts()[0].contains("2 threads, affinity unbound"));
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let check = common::assert_usage_error;
    let missing = t.join("missing.json");
    check(&["plot", missing.to_str().unwrap()], "missing.json");

    let corrupt = t.join("run.json");
    std::fs::write(&corrupt, "{\"schema\": 1, \"strategies\": [").unwrap();
    check(
        &["plot", corrupt.to_str().unwrap()],
        "not a JSON result file",
    );
    std::fs::write(
        &corrupt,
        format!(
            "{{\"schema\": {}, \"strategies\": 3}}",
            contend::runner::SCHEMA_VERSION
        ),
    )
    .unwrap();
    check(&["plot", t.to_str().unwrap()], "corrupt result file");
    std::fs::write(&corrupt, "{\"schema\": 99, \"strategies\": []}").unwrap();
    check(&["plot", corrupt.to_str().unwrap()], "schema 99");
    std::fs::write(&corrupt, "{\"schema\": 1}").unwrap();
    check(
        &["plot", corrupt.to_str().unwrap()],
        "not run.json, sweep.json or matrix.json",
    );

    let empty = t.join("empty");
    std::fs::create_dir(&empty).unwrap();
    check(
        &["plot", empty.to_str().unwrap()],
        "no run.json, sweep.json or matrix.json",
    );
    std::fs::write(empty.join("matrix.json"), "{}").unwrap();
    check(
        &["plot", empty.to_str().unwrap()],
        "not run.json, sweep.json or matrix.json",
    );
    assert!(svgs(t).is_empty() && svgs(&empty).is_empty());
}

#[test]
fn charts_without_data_are_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, mut run) = short_run(tmp.path());
    // As with --rate sample:0: no latencies, so no latency chart; ns/op
    // is from throughput and stays.
    for s in &mut run.strategies {
        let sum = s.summary.as_mut().unwrap();
        (sum.write_ns, sum.read_ns) = (None, None);
        for r in &mut s.repeats {
            (r.write_latency, r.read_latency) = (None, None);
        }
    }
    let dir = tmp.path().join("unsampled");
    std::fs::create_dir(&dir).unwrap();
    let written = write_svgs(&dir, &Document::Run(&run)).unwrap();
    let names = [
        "cost.svg",
        "ns-per-op.svg",
        "throughput.svg",
        "staleness.svg",
    ];
    let paced = ["ns-per-op-r22000.svg", "cpu-share-r22000.svg"];
    let want: Vec<PathBuf> = names.iter().chain(&paced).map(|n| dir.join(n)).collect();
    assert_eq!(written, want);

    // One ratelimit period: no staleness chart. A paced regime without a
    // net cost (a file written before it was recorded): no ns/op or CPU
    // share chart, rather than the gross busy figures in their place;
    // cost.svg keeps the flat-out net costs.
    run.strategies
        .retain(|s| !s.name.contains("ratelimit:100us"));
    for s in run.strategies.iter_mut().filter(|s| s.regime.is_paced()) {
        let sum = s.summary.as_mut().unwrap();
        (sum.net_ns, sum.net_cpu_share_pct) = (None, None);
        assert!(sum.write_busy_ns.is_some() && sum.cpu_share_pct.is_some());
    }
    let one = tmp.path().join("one-period");
    std::fs::create_dir(&one).unwrap();
    let written = write_svgs(&one, &Document::Run(&run)).unwrap();
    assert_eq!(
        written,
        [
            one.join("cost.svg"),
            one.join("ns-per-op.svg"),
            one.join("throughput.svg")
        ]
    );

    // No finished repeat: nothing to draw, and `contend plot` says so.
    for s in &mut run.strategies {
        s.summary = None;
        s.repeats.clear();
    }
    let none = tmp.path().join("none");
    std::fs::create_dir(&none).unwrap();
    assert!(write_svgs(&none, &Document::Run(&run)).unwrap().is_empty());
    std::fs::write(none.join("run.json"), serde_json::to_vec(&run).unwrap()).unwrap();
    let out = contend(&["plot", none.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("nothing to plot"));
    assert!(svgs(&none).is_empty());
}

/// tests/fixtures/results/run.json (global/always and cpu/always, flat
/// out), as read.
fn fixture() -> RunResults {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/run.json");
    match contend::results::read(&path).unwrap().1 {
        contend::results::ResultFile::Run(run) => *run,
        _ => panic!("the fixture is a run"),
    }
}

/// `mean` ± 1% over 5 repeats.
fn known(mean: f64) -> Summary {
    let sd = mean / 100.0;
    Summary {
        n: 5,
        mean,
        stddev: sd,
        stddev_pct: 1.0,
        ci95_low: mean - 2.0 * sd,
        ci95_high: mean + 2.0 * sd,
        min: mean - sd,
        max: mean + sd,
    }
}

/// `run` as a run of one paced regime at `rate`.
fn paced_at(mut run: RunResults, rate: f64) -> RunResults {
    run.config.rates = vec![Regime::paced(rate)];
    for s in &mut run.strategies {
        s.regime = Regime::paced(rate);
    }
    run
}

#[test]
fn the_ns_per_op_chart_shows_the_throughput_figure_not_the_sampled_one() {
    // Sampled ns five times the trusted figure, as fenced samples of a
    // hammering writer read: 20 and 30 ns/op from throughput, 100 and 150
    // sampled.
    let tmp = tempfile::tempdir().unwrap();
    let mut run = fixture();
    for (s, ns) in run.strategies.iter_mut().zip([20.0, 30.0]) {
        let sum = s.summary.as_mut().unwrap();
        sum.write_loop_ns = Some(known(ns));
        sum.net_ns = Some(known(ns / 2.0));
        sum.write_ns = Some(known(5.0 * ns));
        sum.read_ns = Some(known(5.0 * ns));
    }
    let written = write_svgs(tmp.path(), &Document::Run(&run)).unwrap();
    assert!(
        written.contains(&tmp.path().join("ns-per-op.svg")),
        "{written:?}"
    );
    let svg = Svg::read(&tmp.path().join("ns-per-op.svg"));
    let top = assert_bars(&svg, FIRST, 0, &[known(20.0), known(30.0)]);
    assert_bars(&svg, SECOND, 1, &[known(10.0), known(15.0)]);
    // The axis spans the throughput figure, not the samples (150).
    assert!((30.0..60.0).contains(&top), "top tick {top}");
    assert!(
        svg.texts().iter().all(|t| !t.contains("sampled")),
        "{:?}",
        svg.texts()
    );

    // Paced: net busy ns per update leads (40 and 60 ns), the gross busy
    // figure beside it; the samples (5x) nowhere.
    let mut paced = paced_at(run, 22_000.0);
    for (s, ns) in paced.strategies.iter_mut().zip([40.0, 60.0]) {
        let sum = s.summary.as_mut().unwrap();
        sum.net_ns = Some(known(ns));
        sum.write_busy_ns = Some(known(2.0 * ns));
        sum.write_ns = Some(known(5.0 * ns));
        sum.net_cpu_share_pct = Some(known(ns / 100.0));
        sum.cpu_share_pct = Some(known(ns / 50.0));
    }
    let dir = tmp.path().join("paced");
    std::fs::create_dir(&dir).unwrap();
    let written = write_svgs(&dir, &Document::Run(&paced)).unwrap();
    assert!(
        written.contains(&dir.join("ns-per-op-r22000.svg")),
        "{written:?}"
    );
    let svg = Svg::read(&dir.join("ns-per-op-r22000.svg"));
    let top = assert_bars(&svg, FIRST, 0, &[known(40.0), known(60.0)]);
    assert_bars(&svg, SECOND, 1, &[known(80.0), known(120.0)]);
    assert!((120.0..200.0).contains(&top), "top tick {top}");
    let svg = Svg::read(&dir.join("cpu-share-r22000.svg"));
    assert_bars(&svg, FIRST, 0, &[known(0.4), known(0.6)]);
}

#[test]
fn the_rate_curve_draws_net_cost() {
    // One set of points at 2 threads: flat out, 22k/s and 1M/s, each
    // strategy's net cost known and its gross busy ns ten times that.
    let tmp = tempfile::tempdir().unwrap();
    let base = fixture();
    let nets = [[5.0, 8.0], [30.0, 45.0], [20.0, 35.0]];
    let point = |regime: Regime, net: [f64; 2]| {
        let mut results = match regime.rate() {
            Some(r) => paced_at(base.clone(), r),
            None => base.clone(),
        };
        for (s, ns) in results.strategies.iter_mut().zip(net) {
            let sum = s.summary.as_mut().unwrap();
            sum.net_ns = Some(known(ns));
            sum.write_busy_ns = Some(known(10.0 * ns));
            sum.net_cpu_share_pct = regime.rate().map(|_| known(ns / 10.0));
        }
        SweepPoint {
            threads: 2,
            affinity: "unbound".into(),
            regime,
            results,
        }
    };
    let sweep = SweepResults {
        schema: contend::runner::SCHEMA_VERSION,
        partial: false,
        out_of_time: false,
        points: vec![
            point(Regime::FlatOut, nets[0]),
            point(Regime::SEED, nets[1]),
            point(Regime::paced(1e6), nets[2]),
        ],
    };
    write_svgs(tmp.path(), &Document::Sweep(&sweep)).unwrap();
    let svg = Svg::read(&tmp.path().join("sweep-rates-unbound.svg"));
    assert!(svg.texts()[0].starts_with("Net cost of one update vs offered rate"));
    assert!(svg.has_text("net ns per update"));
    assert!(svg.has_text("net CPU share, % (log)"));
    // Per strategy a line on the left (3 points: net ns at every rate),
    // then one on the right (2 points: net CPU share, paced only).
    let lines = svg.polylines(|e| e.attr("stroke-width") == "2");
    assert_eq!(lines.len(), 4, "{lines:?}");
    let (left_lines, right_lines) = lines.split_at(2);
    // The left panel's value axis: its tick labels are the ones nearest
    // the left edge.
    let ticks = svg.ticks("end");
    let left_x = ticks.iter().map(|t| t.0).fold(f64::INFINITY, f64::min);
    let left: Vec<(f64, f64, f64)> = ticks
        .into_iter()
        .filter(|t| (t.0 - left_x).abs() < 1.0)
        .collect();
    let (y0, scale) = axis_scale(&left, |t| t.1);
    for (i, line) in left_lines.iter().enumerate() {
        // Sorted by rate: 22k, 1M, then flat out (achieved ~17.7M/s).
        let want = [nets[1][i], nets[2][i], nets[0][i]];
        assert_eq!(line.len(), 3, "{line:?}");
        for (&(_, y), net) in line.iter().zip(want) {
            assert!(
                (y - (y0 + scale * net)).abs() <= 2.0,
                "strategy {i}: point at y {y}, expected {} for net {net} ns",
                y0 + scale * net
            );
        }
    }
    assert!(right_lines.iter().all(|l| l.len() == 2), "{right_lines:?}");
}
