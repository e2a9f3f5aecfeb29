//! A prediction's article: its verdict lines, one row per strategy and rate, the chart, the class
//! latencies it rests on, its notes.

use super::{head_row, inline_svg, notes, section, sortable, verdict_section, warnings_list};
use crate::predict::PredictResults;
use crate::report::text::{Cell, node_cells, strategy_cells};
use crate::report::{ExportError, charts};
use crate::units::si;
use crate::verdict::{self, plural};
use maud::{Markup, html};

/// The article of one prediction.
pub(super) fn article(
    id: usize,
    label: Option<&str>,
    p: &PredictResults,
) -> Result<Markup, ExportError> {
    let svg = charts::predict::charts(p)?;
    let lines = verdict::predict_lines(p);
    let nodes = node_cells(p);
    Ok(html! {
        article.result id={ "result-" (id) } data-kind="predict" {
            h2 { "contend predict for " (p.host) }
            p.sub {
                (plural(p.cpus, "CPU")) ", " (plural(p.nodes, "node")) ", " (plural(p.llcs, "LLC")) "; "
                (p.config.layout.writers.len()) " writers; arrivals " (p.config.arrivals.to_string())
                "; latencies from " (p.latencies.source)
                @if let Some(l) = label { br; "file: " code { (l) } }
            }
            (verdict_section(id, &lines, false))
            (section(id, "tables", "Predicted figures (the model's, not measured)", html! {
                (sortable(&[
                    "strategy", "rate/CPU", "predicted publish", "predicted ρ hottest line",
                    "predicted net ns/update", "predicted net CPU %",
                    "predicted CPU points per +1% transfer time", "predicted hand-overs/s",
                    "predicted transfers/update", "predicted saturation at/CPU",
                ], html! { @for r in strategy_cells(p) { (row(r)) } }))
                p.note {
                    "ρ = the hottest line's offered utilisation (asked transfers/s × transfer time; above 1 the CPUs slow to what it serves); ranges from the class latencies' uncertainty; net = transfers and waiting beyond the same loop with no shared write; net CPU = net / (1/rate + net). The model: docs/predict.md."
                }
                @if !nodes.is_empty() {
                    h4 { "Per node (memory on node " (p.latencies.costs.home_node) ")" }
                    table.sortable {
                        (head_row(&["strategy", "rate/CPU", "node", "memory", "writers", "predicted net ns/update", "predicted net CPU %"]))
                        tbody { @for r in nodes { (row(r)) } }
                    }
                }
                h4 { "Class latencies used (one-way ns)" }
                table {
                    (head_row(&["class", "ns", "low", "high"]))
                    tbody {
                        @for c in &p.classes {
                            tr { td { (c.class) } td { (si(c.latency.ns)) } td { (si(c.latency.lo_ns)) } td { (si(c.latency.hi_ns)) } }
                        }
                    }
                }
            }))
            (section(id, "charts", "Chart", html! {
                @for (name, s) in &svg { (inline_svg(name, s)) }
            }))
            (section(id, "warnings", "Notes", warnings_list(notes(&p.notes))))
        }
    })
}

/// A row of `cells`, each sorted by its figure where it has one.
fn row(cells: Vec<Cell>) -> Markup {
    html! { tr { @for (text, sort) in cells { td data-sort=[sort] { (text) } } } }
}
