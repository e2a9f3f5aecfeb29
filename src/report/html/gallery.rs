//! gallery.html: many published hosts on one page. The headline across hosts and the table (a row
//! per host, sortable) on the first screen, then one card per host with its small chart; every file
//! name escaped by maud, as every value read from a file is.

use super::{inline_svg, shell};
use crate::predict::gallery::Gallery;
use crate::report::charts::gallery::{host_chart, shared_axis};
use crate::report::gallery::{header, row};
use crate::report::{ExportError, plain};
use crate::units::si;
use crate::verdict::gallery_headline;
use maud::html;

/// The gallery's page file name.
pub const GALLERY_PAGE: &str = "gallery.html";

/// Extra style: the cards of the hosts' charts.
const GALLERY_CSS: &str = r#"
section.cards { display: flex; flex-wrap: wrap; gap: 12px; }
article.card { border: 1px solid var(--line); padding: 8px 10px; width: 404px; }
article.card h3 { font-size: 0.92rem; margin: 0 0 4px; border: none; word-break: break-word; }
article.card p { margin: 2px 0; font-size: 0.82rem; color: var(--muted); }
p.answer { font-size: 1.05rem; font-weight: 600; max-width: 1240px; }
table.gallery td:first-child { white-space: normal; min-width: 14em; max-width: 20em; }
"#;

/// The page of `g`.
pub(super) fn page(g: &Gallery) -> Result<String, ExportError> {
    let axis = shared_axis(&g.hosts);
    let chart = |h| host_chart(h, &axis).map_err(|e| e.in_chart(&plain(&h.file)));
    let charts = g.hosts.iter().map(chart).collect::<Result<Vec<_>, _>>()?;
    let columns = header(g);
    let title = "contend gallery: published hosts";
    let head = html! {
        p.sub {
            (g.hosts.len()) " hosts from core-to-core-latency matrices in "
            code { (plain(&g.source)) }
            "; each layout inferred from its matrix alone, the default comparison predicted at "
            (si(g.rate)) "/s per CPU, every CPU writing and reading after each update."
        }
    };
    let body = html! {
        main {
            section.headline data-section="headline" id="headline" {
                p.answer { (gallery_headline(g)) }
            }
            section data-section="hosts" id="hosts" {
                div.scroll {
                    table.sortable.gallery {
                        thead { tr { @for h in &columns { th { (h) } } } }
                        tbody {
                            @for h in &g.hosts {
                                tr { @for c in row(h) { td { (plain(&c)) } } }
                            }
                        }
                    }
                }
                p.note {
                    "Net ns per update, the range from each class's 5th–95th percentile widened to at least ±25%. "
                    "\"sockets: name\": the file's name says Dual (2 sockets), which the matrix alone could not tell. "
                    "\"home\": the node the line lived on while the matrix was measured."
                }
            }
            section.cards data-section="charts" id="charts" {
                @for (h, svg) in g.hosts.iter().zip(&charts) {
                    article.card {
                        h3 { (plain(&h.file)) }
                        p {
                            (h.cpus) " CPUs: " (h.smt_cores) " SMT cores, " (h.llcs) " LLCs, " (h.nodes) " node(s)"
                            @if let Some(w) = &h.winner { "; cheapest " (w) }
                        }
                        (inline_svg("pair classes: median (bar), p5–p95 (line), ns", svg))
                    }
                }
            }
            @if !g.skipped.is_empty() {
                section data-section="skipped" id="skipped" {
                    h3 { "Left out" }
                    ul { @for s in &g.skipped { li { code { (plain(&s.file)) } ": " (plain(&s.reason)) } } }
                }
            }
        }
    };
    Ok(shell(title, GALLERY_CSS, head, body, "."))
}
