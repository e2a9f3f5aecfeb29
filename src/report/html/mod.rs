//! report.html: one self-contained page (inline CSS and SVG, no URL; a few lines of JavaScript sort
//! a table, and the page is complete without them) for one or more result files, drawn with `maud`,
//! which escapes every value read from a file.

mod check;
mod gallery;
mod hosts;
mod matrix;
mod placement;
mod predict;
mod run;
mod study;
mod sweep;

use super::{Document, ExportError, Rendered, plain};
use crate::provenance::Provenance;
use crate::runner::Stopped;
use crate::topology::{CpuList, Topology};
use crate::verdict::basis::Severity;
use crate::verdict::{Verdict, plural};
use crate::workload::Regime;
use maud::{DOCTYPE, Markup, PreEscaped, html};

/// The file name of the page in a results folder.
pub const PAGE: &str = "report.html";

/// report.html for a run, a sweep, a matrix or a study; gallery.html for a gallery.
pub(super) fn files(doc: &Document) -> Result<Vec<Rendered>, ExportError> {
    let (name, page) = match *doc {
        Document::Study(s) => (PAGE, study::page(s)?),
        Document::Gallery(g) => (gallery::GALLERY_PAGE, gallery::page(g)?),
        Document::Run(_) | Document::Sweep(_) | Document::Matrix(_) => (
            PAGE,
            page(&[PageSource {
                label: None,
                doc: *doc,
            }])?,
        ),
        _ => return Ok(Vec::new()),
    };
    Ok(vec![Rendered::new(name, page)])
}

/// One result on the page: where it was read from, and what it holds.
#[derive(Clone, Copy)]
pub struct PageSource<'a> {
    /// The file it came from, as the page names it (`None`: the page is written beside it).
    pub label: Option<&'a str>,
    /// The result.
    pub doc: Document<'a>,
}

/// The page for these results, in order.
pub fn page(sources: &[PageSource]) -> Result<String, ExportError> {
    page_led(&title(sources), None, sources)
}

/// [`page`] titled `title`, with `lead` (a study's combined verdict) before everything else.
fn page_led<'a>(
    title: &str,
    lead: Option<Markup>,
    sources: &[PageSource<'a>],
) -> Result<String, ExportError> {
    let article = |(i, s): (usize, &PageSource)| match s.doc {
        Document::Run(r) => run::article(i + 1, s.label, r),
        Document::Sweep(sw) => sweep::article(i + 1, s.label, sw),
        Document::Matrix(m) => matrix::article(i + 1, s.label, m),
        Document::Predict(p) => predict::article(i + 1, s.label, p),
        Document::Check(c) => Ok(check::article(i + 1, s.label, c)),
        other => Err(ExportError::Unsupported {
            format: super::Format::Html,
            kind: other.kind(),
        }),
    };
    let articles = sources.iter().enumerate().map(article);
    let articles = articles.collect::<Result<Vec<Markup>, ExportError>>()?;
    let run = |s: &PageSource<'a>| match s.doc {
        Document::Run(r) => Some((s.label, r)),
        _ => None,
    };
    let runs: Vec<_> = sources.iter().filter_map(run).collect();
    let hosts = (runs.len() >= 2).then(|| hosts::section(&runs));
    let partial = sources.iter().any(|s| match s.doc {
        Document::Run(r) => r.partial,
        Document::Sweep(s) => s.partial,
        _ => false,
    });
    let head = html! {
        p.sub {
            (sources.len()) " result file" @if sources.len() != 1 { "s" }
            ". ± is the half-width of the 95% confidence interval over repeats; marks follow contend compare's rule."
        }
        nav {
            @if hosts.is_some() { a href="#hosts" { "hosts side by side" } " " }
            @for (i, s) in sources.iter().enumerate() {
                a href={ "#result-" (i + 1) } { (heading(s)) } " "
            }
        }
    };
    let body = html! {
        // One result says it is partial in its own article.
        @if partial && sources.len() > 1 {
            div.banner.partial role="alert" data-section="partial" {
                "PARTIAL: a result on this page was interrupted (Ctrl-C) or stopped by its time budget (--max-time); only finished repeats or points are shown."
            }
        }
        main {
            @if let Some(l) = &lead { (l) }
            @if let Some(h) = &hosts { (h) }
            @for a in &articles { (a) }
        }
    };
    let sort = " (needs JavaScript; the page is complete without it).";
    Ok(shell(title, "", head, body, sort))
}

/// A whole page titled `title`, styled with `css` after the house style: `head` under the title,
/// then `body`, and the footer, whose last words on sorting are `sort`.
fn shell(title: &str, css: &str, head: Markup, body: Markup, sort: &str) -> String {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(CSS)) (PreEscaped(css)) }
            }
            body {
                header.top { h1 { (title) } (head) }
                (body)
                footer {
                    "Made by contend " (env!("CARGO_PKG_VERSION"))
                    ". Self-contained: inline styles and charts, nothing fetched. Click a table's header to sort it"
                    (sort)
                }
                script { (PreEscaped(JS)) }
            }
        }
    };
    markup.into_string()
}

/// The page title: the hosts and kinds on it.
fn title(sources: &[PageSource]) -> String {
    let hosts =
        crate::runner::first_seen(sources.iter().map(|s| plain(&provenance(&s.doc).hostname)));
    format!("contend report: {}", hosts.join(" vs "))
}

/// A result's provenance.
fn provenance<'a>(doc: &Document<'a>) -> &'a Provenance {
    match *doc {
        Document::Run(r) => &r.provenance,
        Document::Sweep(s) => s
            .points
            .first()
            .map_or(empty_provenance(), |p| &p.results.provenance),
        Document::Matrix(m) => &m.provenance,
        _ => empty_provenance(),
    }
}

fn empty_provenance() -> &'static Provenance {
    static EMPTY: std::sync::OnceLock<Provenance> = std::sync::OnceLock::new();
    let unknown = || Provenance {
        hostname: "unknown host".into(),
        ..Provenance::default()
    };
    EMPTY.get_or_init(unknown)
}

/// `run on HOST`, as a result's heading names it.
fn heading(s: &PageSource) -> String {
    match s.doc {
        Document::Predict(p) => format!("predict for {}", plain(&p.host)),
        Document::Check(c) => format!("predict --check of {}", plain(&c.file)),
        _ => {
            let host = plain(&provenance(&s.doc).hostname);
            format!("{} on {host}", s.doc.kind())
        }
    }
}

/// The heading of one result's article, its file, and the partial banner.
fn article_head(
    id: usize,
    kind: &str,
    label: Option<&str>,
    p: &Provenance,
    stopped: Option<Stopped>,
) -> Markup {
    html! {
        h2 { "contend " (kind) " on " (plain(&p.hostname)) }
        p.sub {
            (plain(&p.cpu_model)) ", Linux " (plain(&p.kernel_release)) ", started " (plain(&p.started_utc))
            @if let Some(l) = label { br; "file: " code { (plain(l)) } }
        }
        @if let Some(why) = stopped {
            div.banner.partial role="alert" data-section="partial" id={ "partial-" (id) } {
                "PARTIAL: this " (kind) " was "
                @match why {
                    Stopped::Interrupted => "interrupted (Ctrl-C)",
                    Stopped::OutOfTime => "stopped by its time budget (--max-time)",
                }
                "; only finished "
                @if kind == "sweep" { "points" } @else { "repeats" } " are shown."
            }
        }
    }
}

/// The verdict section of a result's `lines`; `statistical` adds how a claim is decided.
fn verdict_section(id: usize, lines: &[Verdict], statistical: bool) -> Markup {
    html! {
        section.verdict data-section="verdict" id={ "verdict-" (id) } {
            h3 { "Verdict" }
            (verdict_list(lines))
            (verdict_statistics(lines.iter()))
            @if statistical {
                p.note {
                    "A winner is named only when Welch's t-test on the repeats (Holm-adjusted over the verdict's tests) and the "
                    (crate::stats::NOISE_THRESHOLD) " noise threshold support it, as in contend compare."
                }
            } @else {
                p.note { "The advice follows the rule under the class table." }
            }
        }
    }
}

/// `verdict:` lines in their brief form.
fn verdict_list(lines: &[Verdict]) -> Markup {
    html! {
        ul {
            @for l in lines {
                li title=[l.brief.as_ref().map(|_| l.to_string())] {
                    "verdict: " (l.brief_text())
                }
            }
        }
    }
}

/// The full form of every line of `lines` that has a brief one, folded.
fn verdict_statistics<'a>(lines: impl Iterator<Item = &'a Verdict>) -> Markup {
    let detailed: Vec<&Verdict> = lines.filter(|l| l.brief.is_some()).collect();
    html! {
        @if !detailed.is_empty() {
            details.statistics data-section="verdict-statistics" {
                summary { "The tests behind these lines: each change's 95% interval and Holm-adjusted p" }
                ul { @for l in detailed { li { (l.to_string()) } } }
            }
        }
    }
}

/// A regime as a heading: `Flat out`, `Paced at 22.0k/s per thread`.
fn regime_heading(regime: Regime) -> String {
    let label = regime.to_string();
    let mut chars = label.chars();
    chars
        .next()
        .map_or(String::new(), |c| c.to_uppercase().chain(chars).collect())
}

/// A section with a heading.
fn section(id: usize, name: &str, title: &str, body: Markup) -> Markup {
    html! {
        section data-section=(name) id={ (name) "-" (id) } {
            h3 { (title) }
            (body)
        }
    }
}

/// The noise and interference warnings, each line's words and whether it is a warning: one list
/// item each, warnings marked.
fn warnings_list<'a>(lines: impl Iterator<Item = (&'a str, bool)>) -> Markup {
    let lines: Vec<(&str, bool)> = lines.collect();
    html! {
        @if lines.is_empty() {
            p { "No notes or warnings were recorded." }
        } @else {
            ul.warnings { @for (text, warn) in lines { li class=[warn.then_some("warn")] { (plain(text)) } } }
        }
    }
}

/// Notes as [`warnings_list`] lines, none a warning.
fn notes(notes: &[String]) -> impl Iterator<Item = (&str, bool)> {
    notes.iter().map(|n| (n.as_str(), false))
}

/// Findings as [`warnings_list`] lines, each warning marked.
fn marked(lines: &[(Severity, String)]) -> impl Iterator<Item = (&str, bool)> {
    lines
        .iter()
        .map(|(s, t)| (t.as_str(), *s == Severity::Warning))
}

/// Provenance as a two-column table.
fn provenance_table(p: &Provenance, topo: Option<&Topology>) -> Markup {
    let opt = |o: &Option<String>| o.as_deref().unwrap_or("-").to_string();
    let invariant = if p.tsc_invariant { "" } else { "NOT " };
    let flags = match p.tsc_flags.as_slice() {
        [] => "-".to_string(),
        f => f.join(" "),
    };
    let ghz = p.tsc_hz / 1e9;
    let tsc = format!("{invariant}invariant, {ghz:.3} GHz, flags {flags}");
    let contend = format!("{} (commit {})", p.contend_version, p.git_commit);
    let mut rows: Vec<(&str, String)> = vec![
        ("host", p.hostname.clone()),
        ("CPU", p.cpu_model.clone()),
        ("microcode", opt(&p.microcode)),
        ("kernel", format!("Linux {}", p.kernel_release)),
        ("clocksource", opt(&p.clocksource)),
        ("cpufreq governor", opt(&p.cpufreq_governor)),
        ("NUMA balancing", opt(&p.numa_balancing)),
        ("transparent huge pages", opt(&p.thp)),
        ("TSC", tsc),
        ("contend", contend),
        ("command line", p.command_line.join(" ")),
        ("started (UTC)", p.started_utc.clone()),
    ];
    rows.extend(topo.into_iter().flat_map(|t| {
        [
            ("topology", topology_line(t)),
            ("allowed CPUs", t.allowed_cpus.to_string()),
            ("allowed memory nodes", t.allowed_mems.to_string()),
        ]
    }));
    kv_table(&rows)
}

/// A sortable table that scrolls: `head` as its header row, `rows` its body.
fn sortable(head: &[&str], rows: Markup) -> Markup {
    html! {
        div.scroll {
            table.sortable {
                (head_row(head))
                tbody { (rows) }
            }
        }
    }
}

/// A table's header row of `head`.
fn head_row(head: &[&str]) -> Markup {
    html! { thead { tr { @for h in head { th { (h) } } } } }
}

/// A two-column key/value table.
fn kv_table(rows: &[(&str, String)]) -> Markup {
    html! {
        table.kv {
            tbody {
                @for (k, v) in rows { tr { th scope="row" { (k) } td { (plain(v)) } } }
            }
        }
    }
}

/// `2 nodes (0-1), 4 LLCs, 64 CPUs online (0-63)`.
fn topology_line(t: &Topology) -> String {
    let nodes: CpuList = t.nodes.iter().map(|n| n.id).collect();
    let (n, l) = (plural(t.nodes.len(), "node"), plural(t.llcs.len(), "LLC"));
    let (online, k) = (&t.online_cpus, t.online_cpus.len());
    format!("{n} ({nodes}), {l}, {k} CPUs online ({online})")
}

/// An SVG chart inline in the page: plotters' SVG without its XML namespace attribute.
fn inline_svg(name: &str, svg: &str) -> Markup {
    let svg = svg.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1);
    let svg = svg.replacen("<svg ", "<svg role=\"img\" ", 1);
    html! {
        figure.chart {
            (PreEscaped(svg))
            figcaption { (name) }
        }
    }
}

/// A cell's significance mark, against the row's first level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// Better beyond the noise threshold and beyond doubt, in a measure whose direction says which
    /// way is better.
    Better,
    /// Worse, likewise.
    Worse,
    /// Within the noise threshold.
    Same,
    /// The data cannot tell.
    Unsure,
    /// Fewer than 2 repeats on a side: no test.
    Untested,
}

/// Beyond the threshold and beyond doubt, as a mark's title says.
const BEYOND: &str =
    " than the first level: p < 0.05 (Holm) and the 95% CI beyond the noise threshold";

impl Mark {
    /// Its symbol, CSS class and title.
    fn parts(self) -> (&'static str, &'static str, String) {
        let (symbol, class, title) = match self {
            Mark::Better => ("▲", "better", ""),
            Mark::Worse => ("▼", "worse", ""),
            Mark::Same => ("≈", "same", "no change: within the noise threshold"),
            Mark::Unsure => ("?", "unsure", "inconclusive"),
            Mark::Untested => ("·", "untested", "fewer than 2 repeats: no test"),
        };
        let title = if title.is_empty() {
            format!("{class}{BEYOND}")
        } else {
            title.into()
        };
        (symbol, class, title)
    }
}

/// The legend of the marks.
fn marks_legend() -> Markup {
    html! {
        p.note {
            "Each cell: mean ± the half-width of its 95% confidence interval, then the change against the row's first level and a mark: "
            @for m in [Mark::Better, Mark::Worse, Mark::Same, Mark::Unsure, Mark::Untested] {
                @let (symbol, class, title) = m.parts();
                span class={ "mark " (class) } { (symbol) } " " (title) "; "
            }
            "no mark: a change beyond the noise threshold and beyond doubt in a measure whose heading says neither way is better (a figure that moves with throughput or with how the strategy is built, or a sampled time that its timing perturbs), shown but not judged; "
            "p-values Holm-adjusted over the tests of each table, as in the text tables, noise threshold "
            (crate::stats::NOISE_THRESHOLD) "."
        }
    }
}

/// The page's style: readable on screen and on paper, no web fonts.
const CSS: &str = include_str!("page.css");

/// Sorting a table on a header click (tables marked `sortable`, one header row).
const JS: &str = include_str!("page.js");
