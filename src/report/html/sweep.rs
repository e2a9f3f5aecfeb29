//! A sweep's article: its verdict (where throughput stops scaling; cost and CPU share at ~22k/s and
//! in hammer mode), one table per measure with a row per point and policy, the sweep's charts,
//! every point's placement proof and warnings, provenance.

use super::placement::placement;
use super::run::{exactness, measure_table, warnings};
use super::{
    article_head, inline_svg, marked, marks_legend, provenance_table, section, verdict_section,
    warnings_list,
};
use crate::report::ExportError;
use crate::report::charts;
use crate::report::measures::{StrategyGrid, shown_measures};
use crate::runner::first_seen;
use crate::sweep::{SweepPoint, SweepResults};
use crate::verdict;
use maud::{Markup, html};

/// `8 threads, affinity unbound, paced at 22.0k/s per thread`.
fn point_label(p: &SweepPoint) -> String {
    let (threads, affinity, regime) = (p.threads, &p.affinity, p.regime);
    format!("{threads} threads, affinity {affinity}, {regime}")
}

/// The article of one sweep.
pub(super) fn article(
    id: usize,
    label: Option<&str>,
    sweep: &SweepResults,
) -> Result<Markup, ExportError> {
    // The sweep's own charts; every point's run charts would make the page as heavy as the folder,
    // and its tables below hold their numbers.
    let charts = charts::sweep::sweep_charts(sweep)?;
    let lines = verdict::sweep_lines(sweep);
    let first = sweep.points.first().map(|p| &p.results);
    let provenance = super::provenance(&crate::report::Document::Sweep(sweep));
    let notes = sweep.points.iter().flat_map(|p| {
        let at = |(severity, w)| (severity, format!("{}: {w}", point_label(p)));
        warnings(&p.results).into_iter().map(at)
    });
    Ok(html! {
        article.result id={ "result-" (id) } data-kind="sweep" {
            (article_head(id, "sweep", label, provenance, sweep.stopped()))
            (verdict_section(id, &lines, true))
            (section(id, "tables", "Tables", tables(sweep)))
            (section(id, "charts", "Charts", html! {
                @if charts.is_empty() {
                    p { "No sweep chart: no point finished in hammer mode, or only one rate was run." }
                }
                @for (name, svg) in &charts { (inline_svg(name, svg)) }
            }))
            (section(id, "placement", "Placement proof", html! {
                @for p in &sweep.points {
                    details {
                        summary { (point_label(p)) }
                        (placement(&p.results))
                    }
                }
            }))
            (section(id, "warnings", "Noise and interference warnings", warnings_list(marked(&first_seen(notes)))))
            (section(id, "provenance", "Provenance", html! {
                (provenance_table(provenance, first.map(|r| &r.topology)))
                p.note { (sweep.points.len()) " points; each point's command line and start time are in sweep.json." }
            }))
        }
    })
}

/// One table per measure: a row per point and policy, a column per level.
fn tables(sweep: &SweepResults) -> Markup {
    let all = || sweep.points.iter().flat_map(|p| &p.results.strategies);
    let grid = StrategyGrid::of_sweep(sweep);
    let rated = sweep.points.iter().any(|p| p.regime.is_paced());
    html! {
        (marks_legend())
        @for m in shown_measures(all(), rated) {
            (measure_table(m, &grid))
        }
        (exactness(sweep.points.iter().map(|p| &p.results)))
    }
}
