//! A run's article: verdict, tables with marks, charts, placement proof,
//! warnings, provenance; and the tables and placement proof a sweep's
//! points reuse.

use super::{
    Mark, article_head, inline_svg, marks_legend, provenance_table, section, verdict_section,
    warnings_list,
};
use crate::answer;
use crate::placement::{NodeCheck, Placement};
use crate::report::ExportError;
use crate::report::charts;
use crate::report::measures::{self, RowLabels, run_findings, shown_measures, unique};
use crate::results::{Measure, RunResults, StrategyResult};
use crate::stats::{Decision, Summary};
use crate::topology::CpuList;
use crate::workload::Role;
use maud::{Markup, html};

/// The article of one run.
pub(super) fn article(
    id: usize,
    label: Option<&str>,
    run: &RunResults,
) -> Result<Markup, ExportError> {
    let charts = charts::run_charts(run, "")?;
    let lines = answer::run_lines(run);
    Ok(html! {
        article.result id={ "result-" (id) } data-kind="run" {
            (article_head(id, "run", label, &run.provenance, run.partial))
            (verdict_section(id, &lines, true))
            (section(id, "tables", "Tables", tables(run)))
            (section(id, "charts", "Charts", html! {
                @if charts.is_empty() {
                    p { "No chart: no strategy finished a repeat." }
                }
                @for (name, svg) in &charts { (inline_svg(name, svg)) }
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
/// interference), and the notes recorded during the run.
pub(super) fn warnings(run: &RunResults) -> Vec<String> {
    let mut lines: Vec<String> = run.topology.notes.clone();
    lines.extend(run_findings(run));
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
fn mark(m: &Measure, verdict: Option<Decision>) -> Mark {
    match verdict {
        None => Mark::Untested,
        Some(Decision::NoChange) => Mark::Same,
        Some(Decision::Inconclusive) => Mark::Unsure,
        // An increase is better only when more is.
        Some(v) if (v == Decision::Increase) == m.higher_is_better => Mark::Better,
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

/// The run's tables: one per measure, policies as rows, levels as
/// columns; the exact-sums line and the harness floor.
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
    let measures = shown_measures(run.strategies.iter(), run.config.rate.is_some());
    let resolution_ns = 2.0 * run.config.timer_overhead_ns;
    let cells = measure_cells(&measures, &rows, resolution_ns);
    html! {
        (marks_legend())
        @for (m, c) in measures.iter().zip(&cells) {
            (measure_table(m, &["policy"], &levels, &rows, c))
        }
        (exactness(run.strategies.iter()))
        @if let Some(f) = &run.floor {
            p {
                "Harness floor: " (format!("{:.1}", f.loop_ns.mean)) " ns/op ±"
                (format!("{:.1}", f.loop_ns.stddev_pct)) "% (the same writer loop on CPU "
                (f.cpu) " alone, no shared write)."
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
    let mut groups: Vec<(Key, Vec<&str>)> = Vec::new();
    for s in &run.strategies {
        let key: Key = s
            .threads
            .iter()
            .map(|t| (t.role, t.cpu, t.observed_cpu, t.verified, t.node))
            .collect();
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(&s.name),
            None => groups.push((key, vec![&s.name])),
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
                    (s.name) ": " (s.slots.len()) " slot" @if s.slots.len() != 1 { "s" }
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
            "rate",
            c.rate.map_or("hammer (no cap)".to_string(), |r| {
                format!("{r} ops/s per thread")
            }),
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
        (
            "sampling",
            if c.sample_every == 0 {
                "off".to_string()
            } else {
                format!(
                    "1 op in {}, timer {} ({:.1} ns overhead subtracted)",
                    c.sample_every, c.timer, c.timer_overhead_ns
                )
            },
        ),
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
            assert_eq!(mark(m, Some(Decision::Increase)), increase, "{}", m.short);
            assert_eq!(mark(m, Some(Decision::Decrease)), decrease, "{}", m.short);
            assert_eq!(mark(m, Some(Decision::NoChange)), Mark::Same);
            assert_eq!(mark(m, Some(Decision::Inconclusive)), Mark::Unsure);
            assert_eq!(mark(m, None), Mark::Untested);
        }
    }
}
