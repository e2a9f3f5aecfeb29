//! A prediction's article: its verdict lines, one row per strategy and rate, the chart, the class
//! latencies it rests on, its notes.

use super::{head_row, inline_svg, notes, section, sortable, verdict_section, warnings_list};
use crate::predict::PredictResults;
use crate::report::{ExportError, charts};
use crate::units::si;
use crate::verdict::{
    self, cost_cells, plural, range_text, rho_text, saturation_text, sensitivity_cell, share_text,
};
use maud::{Markup, html};

/// The article of one prediction.
pub(super) fn article(
    id: usize,
    label: Option<&str>,
    p: &PredictResults,
) -> Result<Markup, ExportError> {
    let svg = charts::predict::charts(p)?;
    let lines = verdict::predict_lines(p);
    Ok(html! {
        article.result id={ "result-" (id) } data-kind="predict" {
            h2 { "contend predict for " (p.host) }
            p.sub {
                (plural(p.cpus, "CPU")) ", " (plural(p.nodes, "node")) ", " (plural(p.llcs, "LLC")) "; "
                (p.config.layout.writers.len()) " writers; arrivals " (p.config.arrivals.to_string())
                "; latencies from " (p.latencies.source)
                @if let Some(l) = label { br; "file: " code { (l) } }
            }
            (verdict_section(id, &[(None, lines)], false))
            (section(id, "tables", "Predicted figures (the model's, not measured)", html! {
                (sortable(&[
                    "strategy", "rate/CPU", "predicted publish", "predicted ρ hottest line",
                    "predicted net ns/update", "predicted net CPU %",
                    "predicted CPU points per +1% transfer time", "predicted hand-overs/s",
                    "predicted transfers/update", "predicted saturation at/CPU",
                ], html! {
                            @for s in &p.strategies {
                                @for q in &s.points {
                                    tr {
                                        td { (s.name) }
                                        td data-sort=(q.rate) { (si(q.rate)) }
                                        td { (si(100.0 * q.publish_fraction)) "%" }
                                        td data-sort=(q.rho.mid) { (range_text(q.rho, rho_text)) }
                                        @let (cost, share) = cost_cells(q);
                                        td data-sort=[q.cost_ns.map(|c| c.mid)] { (cost) }
                                        td data-sort=[q.cpu_share_pct.map(|c| c.mid)] { (share) }
                                        td data-sort=[q.share_per_pct] { (sensitivity_cell(q)) }
                                        td data-sort=[q.handovers_per_s.map(|h| h.mid)] {
                                            (q.handovers_per_s.map_or("-".into(), |h| range_text(h, si)))
                                        }
                                        td { (si(q.write_transfers)) " + " (si(q.read_transfers)) " read" }
                                        td { (saturation_text(s.saturation)) }
                                    }
                                }
                            }
                }))
                p.note {
                    "ρ = the hottest line's offered utilisation (asked transfers/s × transfer time; above 1 the CPUs slow to what it serves); ranges from the class latencies' uncertainty; net = transfers and waiting beyond the same loop with no shared write; net CPU = net / (1/rate + net). The model: docs/predict.md."
                }
                @if p.strategies.iter().any(|s| s.points.iter().any(|q| q.by_node.len() > 1)) {
                    h4 { "Per node (memory on node " (p.latencies.costs.home_node) ")" }
                    table.sortable {
                        (head_row(&["strategy", "rate/CPU", "node", "memory", "writers", "predicted net ns/update", "predicted net CPU %"]))
                        tbody { @for s in &p.strategies { @for q in s.points.iter().filter(|q| q.by_node.len() > 1) {
                            @for n in &q.by_node { tr {
                                td { (s.name) }
                                td data-sort=(q.rate) { (si(q.rate)) }
                                td { (n.node) }
                                td { (if n.home { "local" } else { "remote" }) }
                                td { (n.writers) }
                                td data-sort=(n.cost_ns.mid) { (range_text(n.cost_ns, si)) }
                                td data-sort=(n.cpu_share_pct.mid) { (range_text(n.cpu_share_pct, share_text)) "%" }
                            } }
                        } } }
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
