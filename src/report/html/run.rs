//! A run's article: verdict, tables with marks, charts, placement proof,
//! warnings, provenance, each regime's drawn from its view of the run
//! ([`RunResults::regimes`]); and the tables and placement proof a sweep's
//! points reuse.

use super::{
    Mark, article_head, inline_svg, marks_legend, provenance_table, regime_heading, section,
    verdict_section, warnings_list,
};
use crate::compare::regime_label;
use crate::placement::{NodeCheck, Placement};
use crate::report::ExportError;
use crate::report::charts;
use crate::report::measures::{self, RowLabels, run_findings, shown_measures, unique};
use crate::results::{
    MEASURES, Measure, PACED, RunResults, StrategyResult, THROUGHPUT_NS, cost_measure,
};
use crate::stats::{Summary, Verdict};
use crate::topology::CpuList;
use crate::verdict;
use crate::workload::Role;
use maud::{Markup, html};

/// One regime of a run: its heading (`None` when the run has only one)
/// and its view.
struct Regime {
    /// `Flat out`, `Paced at 22000/s per thread`.
    heading: Option<String>,
    /// The run restricted to this regime.
    view: RunResults,
}

/// Every regime of `run`, in order.
fn regimes(run: &RunResults) -> Vec<Regime> {
    let views = run.regimes();
    let several = views.len() > 1;
    views
        .into_iter()
        .map(|view| Regime {
            heading: several.then(|| regime_heading(view.config.rate)),
            view,
        })
        .collect()
}

/// The article of one run.
pub(super) fn article(
    id: usize,
    label: Option<&str>,
    run: &RunResults,
) -> Result<Markup, ExportError> {
    let regimes = regimes(run);
    let mut drawn = Vec::new();
    for r in &regimes {
        let suffix = charts::regime_suffix(r.view.config.rate);
        drawn.push(charts::regime_charts(&r.view, "", &suffix)?);
    }
    let verdicts: Vec<_> = regimes
        .iter()
        .map(|r| (r.heading.clone(), verdict::run_lines(&r.view)))
        .collect();
    Ok(html! {
        article.result id={ "result-" (id) } data-kind="run" {
            (article_head(id, "run", label, &run.provenance, run.partial))
            (verdict_section(id, &verdicts, true))
            (section(id, "tables", "Tables", html! {
                (marks_legend())
                @for r in &regimes {
                    @if let Some(h) = &r.heading { h3.regime { (h) } }
                    (tables(&r.view))
                }
            }))
            (section(id, "charts", "Charts", html! {
                @if drawn.iter().all(Vec::is_empty) {
                    p { "No chart: no strategy finished a repeat." }
                }
                @for (r, charts) in regimes.iter().zip(&drawn) {
                    @if let (Some(h), false) = (&r.heading, charts.is_empty()) { h4 { (h) } }
                    @for (name, svg) in charts { (inline_svg(name, svg)) }
                }
            }))
            (section(id, "placement", "Placement proof", placement(run)))
            (section(id, "warnings", "Noise and interference warnings", warnings_list(&warnings(run))))
            (section(id, "provenance", "Provenance", html! {
                (provenance_table(&run.provenance, Some(&run.topology)))
                h4 { "Settings" }
                (settings(run))
            }))
        }
    })
}

/// Every note and finding of a run: the topology reader's assumptions,
/// the lines under the text tables (floor, bursts, rate shortfall,
/// interference) of each regime (named when there are several), and the
/// notes recorded during the run.
pub(super) fn warnings(run: &RunResults) -> Vec<String> {
    let mut lines: Vec<String> = run.topology.notes.clone();
    for r in regimes(run) {
        let findings = run_findings(&r.view).into_iter();
        match &r.heading {
            Some(h) => lines.extend(findings.map(|f| format!("{h}: {f}"))),
            None => lines.extend(findings),
        }
    }
    lines.extend(run.notes.iter().cloned());
    if let Some(bad) = run.first_inexact() {
        lines.insert(0, format!("WARNING exact sums: {bad}"));
    }
    unique(lines.into_iter())
}

/// One row of a measure table: its leading key cells, and the strategy in
/// each level's column.
pub(super) struct Row<'a> {
    /// Leading cells (policy; a sweep adds threads, affinity, rate).
    pub keys: Vec<String>,
    /// The strategy under each level, in the order of the levels.
    pub cells: Vec<Option<&'a StrategyResult>>,
}

/// One rendered cell.
pub(super) struct Cell {
    /// `mean±stddev%`, `-`, or below timer resolution.
    text: String,
    /// The mean, for sorting.
    sort: Option<f64>,
    /// Change against the row's first level, %.
    change: Option<f64>,
    /// Significance of that change.
    mark: Option<Mark>,
}

/// Every measure's table cells (measure × row × level): the text
/// tables' cells ([`measures::measure_table`]: each change tested against
/// the row's first level with Welch's t-test, Holm-adjusted over the
/// measure's table, judged by the compare rule), marked for the page.
pub(super) fn measure_cells(
    measures: &[&'static Measure],
    rows: &[Row],
    resolution_ns: f64,
) -> Vec<Vec<Vec<Cell>>> {
    measures
        .iter()
        .map(|m| {
            let values: Vec<Vec<Option<Summary>>> = rows
                .iter()
                .map(|row| row.cells.iter().map(|s| s.and_then(|s| m.of(s))).collect())
                .collect();
            measures::measure_table(m, &values, resolution_ns)
                .into_iter()
                .map(|cells| {
                    cells
                        .into_iter()
                        .map(|c| Cell {
                            sort: c.mean,
                            mark: c.change_pct.map(|_| mark(m, c.verdict)),
                            change: c.change_pct,
                            text: c.value,
                        })
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// The page's mark for a change of `m` judged `verdict` (`None`: no test).
fn mark(m: &Measure, verdict: Option<Verdict>) -> Mark {
    match verdict {
        None => Mark::Untested,
        Some(Verdict::NoChange) => Mark::Same,
        Some(Verdict::Inconclusive) => Mark::Unsure,
        // An increase is better only when more is.
        Some(v) if (v == Verdict::Increase) == m.higher_is_better => Mark::Better,
        Some(_) => Mark::Worse,
    }
}

/// One measure's table: key columns, then a column per level.
pub(super) fn measure_table(
    m: &Measure,
    key_headers: &[&str],
    levels: &[String],
    rows: &[Row],
    cells: &[Vec<Cell>],
) -> Markup {
    html! {
        h4 { (m.title) }
        div.scroll {
            table.sortable {
                thead {
                    tr {
                        @for k in key_headers { th { (k) } }
                        @for l in levels { th { (l) } }
                    }
                }
                tbody {
                    @for (row, cells) in rows.iter().zip(cells) {
                        tr {
                            @for k in &row.keys { td { (k) } }
                            @for c in cells {
                                @let class = c.mark.filter(|m| matches!(m, Mark::Better | Mark::Worse)).map(Mark::class);
                                td class=[class] data-sort=[c.sort] {
                                    (c.text)
                                    @if let Some(ch) = c.change {
                                        " " span.change { (format!("{ch:+.1}%")) }
                                    }
                                    @if let Some(mark) = c.mark {
                                        " " span class={ "mark " (mark.class()) } title=(mark.title()) { (mark.symbol()) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The measures the tables of these strategies of one regime (`rate`)
/// show, the trusted ones first: the cost
/// of one update ([`cost_measure`]: loop ns/op from throughput flat out,
/// net busy ns per update paced), then flat out its net (less the harness
/// floor), paced the net CPU share, then updates per ownership; then the
/// rest of [`shown_measures`] in their order (the sampled ns among them,
/// titled as sampled), less, paced, the figures from throughput (loop
/// ns/op is the pacing interval there, and the flat-out net reads the
/// paced net). A measure no strategy recorded is left out.
pub(super) fn ordered_measures<'a>(
    strategies: impl Iterator<Item = &'a StrategyResult> + Clone,
    rate: Option<f64>,
) -> Vec<&'static Measure> {
    let mut shown = shown_measures(strategies, rate.is_some());
    if rate.is_some() {
        shown.retain(|m| THROUGHPUT_NS.iter().all(|t| t.title != m.title));
    }
    let ownership = MEASURES.iter().find(|m| m.short == "updates/ownership");
    let net = match rate {
        None => &THROUGHPUT_NS[1],
        Some(_) => &PACED[1],
    };
    let lead: Vec<&Measure> = [Some(cost_measure(rate)), Some(net), ownership]
        .into_iter()
        .flatten()
        .collect();
    let is_lead = |m: &Measure| lead.iter().any(|l| l.title == m.title);
    let first = lead
        .iter()
        .copied()
        .filter(|l| shown.iter().any(|m| m.title == l.title));
    first
        .chain(shown.iter().copied().filter(|m| !is_lead(m)))
        .collect()
}

/// One regime's tables (a view of one regime): one per measure, the
/// trusted ones first ([`ordered_measures`]), policies as rows, levels as
/// columns; flat out, a note that sampled ns are perturbed; the exact-sums
/// line and the harness floor, or the paced floor.
fn tables(run: &RunResults) -> Markup {
    let labels = RowLabels::new(run.strategies.iter());
    let levels = unique(
        run.strategies
            .iter()
            .map(|s| s.strategy.level.name().to_string()),
    );
    let rows: Vec<Row> = unique(run.strategies.iter().map(|s| labels.label(s)))
        .into_iter()
        .map(|label| Row {
            cells: levels
                .iter()
                .map(|l| {
                    run.strategies
                        .iter()
                        .find(|s| labels.label(s) == label && s.strategy.level.name() == l)
                })
                .collect(),
            keys: vec![label],
        })
        .collect();
    let measures = ordered_measures(run.strategies.iter(), run.config.rate);
    let resolution_ns = 2.0 * run.config.timer_overhead_ns;
    let cells = measure_cells(&measures, &rows, resolution_ns);
    let hammer = run.config.rate.is_none();
    let paced_floor = run
        .config
        .rate
        .and_then(|r| run.paced_floor(r))
        .and_then(|f| f.summary.as_ref());
    html! {
        @for (m, c) in measures.iter().zip(&cells) {
            (measure_table(m, &["policy"], &levels, &rows, c))
            @if m.sampled && hammer {
                p.note {
                    "Fenced samples: timing an update stalls a hammering writer, so these read several times ns/op from throughput; for the cost of an update read loop ns/op."
                }
            }
        }
        (exactness(run.strategies.iter()))
        @if let Some(f) = &run.floor {
            p {
                "Harness floor: " (format!("{:.1}", f.loop_ns.mean)) " ns/op ±"
                (format!("{:.1}", f.loop_ns.stddev_pct)) "% (the same writer loop on CPU "
                (f.cpu) " alone, no shared write)."
            }
        }
        @if let Some(f) = paced_floor {
            p {
                "Paced floor: "
                @if let Some(busy) = f.write_busy_ns {
                    (format!("{:.1}", busy.mean)) " busy ns/op ±" (format!("{:.1}", busy.stddev_pct)) "%"
                }
                @if let Some(share) = f.cpu_share_pct {
                    ", CPU share " (format!("{:.3}", share.mean)) "% ±" (format!("{:.1}", share.stddev_pct)) "%"
                }
                " (the same paced loop on the same CPUs, no shared write; net figures are a strategy's less these)."
            }
        }
    }
}

/// Whether every repeat's final sum was exact.
pub(super) fn exactness<'a>(strategies: impl Iterator<Item = &'a StrategyResult>) -> Markup {
    let mut repeats = 0;
    let mut wrong: Vec<&str> = Vec::new();
    for s in strategies {
        repeats += s.repeats.len();
        if !s.exact && !wrong.contains(&s.name.as_str()) {
            wrong.push(&s.name);
        }
    }
    html! {
        @if wrong.is_empty() {
            p { span.ok { "Exact sums:" } " all " (repeats) " repeats exact." }
        } @else {
            p { span.bad { "Exact sums WRONG" } " for " (wrong.join(", ")) "." }
        }
    }
}

/// A strategy as the placement proof names it: its name, with its regime
/// when paced (a run measures each strategy in every regime).
fn named(s: &StrategyResult) -> String {
    match s.rate {
        None => s.name.clone(),
        Some(_) => format!("{} ({})", s.name, regime_label(s.rate)),
    }
}

fn role(r: Role) -> &'static str {
    match r {
        Role::Writer => "writer",
        Role::Reader => "reader",
    }
}

/// Every thread's requested and observed CPU (grouped: strategies whose
/// threads landed alike share one table) and every slot's node, verified
/// or not.
pub(super) fn placement(run: &RunResults) -> Markup {
    type Key = Vec<(Role, u32, Option<u32>, bool, u32)>;
    let mut groups: Vec<(Key, Vec<String>)> = Vec::new();
    for s in &run.strategies {
        let key: Key = s
            .threads
            .iter()
            .map(|t| (t.role, t.cpu, t.observed_cpu, t.verified, t.node))
            .collect();
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(named(s)),
            None => groups.push((key, vec![named(s)])),
        }
    }
    let threads = run.strategies.iter().flat_map(|s| &s.threads);
    let unverified_threads = threads.clone().filter(|t| !t.verified).count();
    let slots = run.strategies.iter().flat_map(|s| &s.slots);
    let unverified_slots = slots
        .clone()
        .filter(|s| !matches!(s.check, NodeCheck::Verified { .. }))
        .count();
    html! {
        p {
            "Threads: "
            @if unverified_threads == 0 {
                span.ok { "every thread pinned and verified" } " (sched_getcpu after pinning)"
            } @else {
                span.bad { (unverified_threads) " UNVERIFIED" } " (--placement best-effort)"
            }
            ". Slots: "
            @if unverified_slots == 0 {
                span.ok { "every slot's memory on its node, verified" } " (move_pages)"
            } @else {
                span.bad { (unverified_slots) " UNVERIFIED" }
            }
            "."
        }
        @for (key, names) in &groups {
            h4 { "Threads of " (names.join(", ")) }
            div.scroll {
                table.sortable {
                    thead { tr { th { "role" } th { "requested CPU" } th { "observed CPU" } th { "node" } th { "verified" } } }
                    tbody {
                        @for (r, cpu, observed, verified, node) in key {
                            tr {
                                td { (role(*r)) }
                                td data-sort=(cpu) { (cpu) }
                                td data-sort=[observed] { (observed.map_or("-".to_string(), |c| c.to_string())) }
                                td data-sort=(node) { (node) }
                                @if *verified { td.ok { "yes" } } @else { td.bad { "NO" } }
                            }
                        }
                    }
                }
            }
        }
        h4 { "Slots" }
        @for s in &run.strategies {
            @let nodes: CpuList = s.slots.iter().map(|x| x.node).collect();
            @let bad = s.slots.iter().filter(|x| !matches!(x.check, NodeCheck::Verified { .. })).count();
            details {
                summary {
                    (named(s)) ": " (s.slots.len()) " slot" @if s.slots.len() != 1 { "s" }
                    " on node" @if nodes.len() != 1 { "s" } " " (nodes) ", "
                    @if bad == 0 { span.ok { "verified" } } @else { span.bad { (bad) " UNVERIFIED" } }
                }
                div.scroll {
                    table.sortable {
                        thead { tr { th { "slot" } th { "node" } th { "move_pages" } } }
                        tbody {
                            @for x in &s.slots {
                                tr {
                                    td { (x.owner) }
                                    td data-sort=(x.node) { (x.node) }
                                    @match &x.check {
                                        NodeCheck::Verified { node } => td.ok { "verified on node " (node) },
                                        NodeCheck::Unverified { reason } => td.bad { "UNVERIFIED: " (reason) },
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// How operations were sampled, per regime: `off`, or `1 op in N` (paced
/// regimes are sampled more often), the timer and its overhead.
fn sampling(run: &RunResults) -> String {
    let c = &run.config;
    let each: Vec<String> = regimes(run)
        .iter()
        .map(|r| {
            let every = r.view.config.sample_every;
            let mut text = if every == 0 {
                "off".to_string()
            } else {
                format!("1 op in {every}")
            };
            if let Some(h) = &r.heading {
                text = format!("{h}: {text}");
            }
            text
        })
        .collect();
    if each.iter().all(|e| e.ends_with("off")) {
        return "off".to_string();
    }
    format!(
        "{}; timer {} ({:.1} ns overhead subtracted)",
        each.join(", "),
        c.timer,
        c.timer_overhead_ns
    )
}

/// The run's settings as a key/value table.
fn settings(run: &RunResults) -> Markup {
    let c = &run.config;
    let cpus = |v: &[u32]| -> String {
        if v.is_empty() {
            "-".to_string()
        } else {
            format!(
                "{} on CPUs {}",
                v.len(),
                v.iter().copied().collect::<CpuList>()
            )
        }
    };
    let rows: Vec<(&str, String)> = vec![
        ("writers", cpus(&c.writer_cpus)),
        ("readers", cpus(&c.reader_cpus)),
        (
            "read side",
            match c.read_every {
                0 => "writers run none".to_string(),
                1 => "writers run it after every update".to_string(),
                k => format!("writers run it every {k} updates"),
            },
        ),
        (
            "regimes",
            run.rates()
                .into_iter()
                .map(|r| match r {
                    None => "hammer (flat out, no cap)".to_string(),
                    Some(r) => format!("paced at {r} ops/s per thread"),
                })
                .collect::<Vec<_>>()
                .join(", then "),
        ),
        (
            "repeats",
            format!(
                "{} × {:.0} ms per strategy, +{:.0} ms warm-up",
                c.repeats,
                c.repeat_duration_s * 1e3,
                c.warmup_s * 1e3
            ),
        ),
        ("seed", c.seed.to_string()),
        ("sampling", sampling(run)),
        (
            "placement",
            match c.placement {
                Placement::Strict => "strict",
                Placement::BestEffort => "best-effort",
            }
            .to_string(),
        ),
        ("oversubscribe", c.oversubscribe.to_string()),
        (
            "counter node",
            c.counter_node
                .map_or("each slot on its own node".to_string(), |n| n.to_string()),
        ),
        ("node iteration", c.node_iter.name().to_string()),
    ];
    super::kv_table(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{MEASURES, THROUGHPUT_NS};

    #[test]
    fn a_mark_says_better_only_in_the_measures_good_direction() {
        let (rate, ns) = (&MEASURES[0], &THROUGHPUT_NS[0]);
        assert!(rate.higher_is_better && !ns.higher_is_better);
        for (m, increase, decrease) in [
            (rate, Mark::Better, Mark::Worse),
            (ns, Mark::Worse, Mark::Better),
        ] {
            assert_eq!(mark(m, Some(Verdict::Increase)), increase, "{}", m.short);
            assert_eq!(mark(m, Some(Verdict::Decrease)), decrease, "{}", m.short);
            assert_eq!(mark(m, Some(Verdict::NoChange)), Mark::Same);
            assert_eq!(mark(m, Some(Verdict::Inconclusive)), Mark::Unsure);
            assert_eq!(mark(m, None), Mark::Untested);
        }
    }
}
