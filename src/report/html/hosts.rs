//! Hosts side by side, as the seed threads set Intel beside AMD: a row per host, then per regime
//! one table per measure with a column per host × strategy, the trusted figures first.

use crate::report::measures::{RowLabels, value_cell};
use crate::report::plain;
use crate::runner::first_seen;
use crate::runner::{RunResults, StrategyResult};
use crate::topology::CpuList;
use crate::workload::Regime;
use maud::{Markup, html};

/// Each run's column label: its host, numbered when a host repeats.
fn labels(runs: &[(Option<&str>, &RunResults)]) -> Vec<String> {
    let host = |i: usize| &runs[i].1.provenance.hostname;
    let same = |i: usize, upto: usize| (0..upto).filter(|&j| host(j) == host(i)).count();
    let label = |i| match same(i, runs.len()) {
        1 => plain(host(i)),
        _ => format!("{} #{}", plain(host(i)), same(i, i) + 1),
    };
    (0..runs.len()).map(label).collect()
}

/// `N on CPUs 0-7 (nodes 0-1, 2 LLCs)`.
fn used(r: &RunResults, cpus: &[u32]) -> String {
    if cpus.is_empty() {
        return "none".to_string();
    }
    let t = &r.topology;
    let nodes: CpuList = cpus.iter().filter_map(|&c| t.node_of_cpu(c)).collect();
    let llcs: CpuList = cpus.iter().filter_map(|&c| Some(t.cpu(c)?.llc)).collect();
    let s = |n: usize| if n == 1 { "" } else { "s" };
    let (k, l, ns, ls) = (cpus.len(), llcs.len(), s(nodes.len()), s(llcs.len()));
    let list: CpuList = cpus.iter().copied().collect();
    format!("{k} on CPUs {list} (node{ns} {nodes}, {l} LLC{ls})")
}

/// The hosts-side-by-side section for two or more runs.
pub(super) fn section(runs: &[(Option<&str>, &RunResults)]) -> Markup {
    let names = labels(runs);
    let rates = first_seen(runs.iter().flat_map(|(_, r)| r.rates()));
    html! {
        section.hosts data-section="hosts" id="hosts" {
            h2 { "Hosts side by side" }
            div.scroll {
                table.hostrows {
                    (super::head_row(&["host", "CPU model", "kernel", "nodes", "LLCs", "writers", "readers", "rate", "repeats", "file"]))
                    tbody {
                        @for ((label, r), name) in runs.iter().zip(&names) {
                            @let t = &r.topology;
                            tr {
                                th scope="row" { (name) @if r.partial { " (PARTIAL)" } }
                                td { (plain(&r.provenance.cpu_model)) }
                                td { "Linux " (plain(&r.provenance.kernel_release)) }
                                td { (t.nodes.len()) " (" (t.nodes.iter().map(|n| n.id).collect::<CpuList>()) ")" }
                                td { (t.llcs.len()) }
                                td { (used(r, &r.config.writer_cpus)) }
                                td { (used(r, &r.config.reader_cpus)) }
                                td { (r.rates().iter().map(Regime::to_string).collect::<Vec<_>>().join(", ")) }
                                td { (r.config.repeats) " × " (format!("{:.0}", r.config.repeat_duration_s * 1e3)) " ms" }
                                td { code { (plain(label.unwrap_or("-"))) } }
                            }
                        }
                    }
                }
            }
            p.note {
                "Cells are mean ± the half-width of its 95% confidence interval over each host's repeats. Numbers from different hosts are not tested against each other here; "
                "contend compare A B does that strategy by strategy."
            }
            @for regime in &rates {
                (regime_tables(runs, &names, *regime, rates.len() > 1))
            }
        }
    }
}

/// One regime's tables: each run's view of `rate` that has strategies, one table per measure, the
/// cost of one update first; headed by the regime when `headed`.
fn regime_tables<'a>(
    runs: &[(Option<&str>, &RunResults)],
    names: &'a [String],
    regime: Regime,
    headed: bool,
) -> Markup {
    let view = |((_, r), name): (&(Option<&str>, &RunResults), &'a String)| {
        let view = r.regimes().into_iter().find(|v| v.regime() == regime)?;
        (!view.strategies.is_empty()).then_some((name, view))
    };
    let views: Vec<(&String, RunResults)> = runs.iter().zip(names).filter_map(view).collect();
    let all = || views.iter().flat_map(|(_, r)| r.strategies.iter());
    let row_labels = RowLabels::new(all());
    let rows = first_seen(all().map(|s| row_labels.label(s)));
    let levels = |r: &RunResults| first_seen(r.strategies.iter().map(|s| s.strategy.level.name()));
    let levels: Vec<Vec<&str>> = views.iter().map(|(_, r)| levels(r)).collect();
    let measures = super::run::ordered_measures(all(), regime);
    html! {
        @if headed { h3 { (super::regime_heading(regime)) } }
        @for m in &measures {
            h4 { (m.heading()) }
            div.scroll { table.side {
                thead {
                    tr {
                        th rowspan="2" { "policy" }
                        @for ((name, _), lv) in views.iter().zip(&levels) { th.host colspan=(lv.len()) { (name) } }
                    }
                    tr { @for lv in &levels { @for l in lv { th { (l) } } } }
                }
                tbody { @for row in &rows { tr {
                    td { (row) }
                    @for ((_, r), lv) in views.iter().zip(&levels) { @for l in lv {
                        @let at = |s: &&StrategyResult| row_labels.label(s) == *row && s.strategy.level.name() == *l;
                        @let v = r.strategies.iter().find(at).and_then(|s| m.of(s));
                        td data-sort=[v.map(|v| v.mean)] { (value_cell(m, v, 2.0 * r.config.timer_overhead_ns).value) }
                    } }
                } } }
            } }
        }
    }
}
