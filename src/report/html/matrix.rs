//! A matrix's article: the advice, the class table, empty classes, asymmetric pairs, contenders,
//! sharers and homes when measured, and the reference check, the heatmap, every pair's placement
//! proof, warnings, provenance.

use super::{
    article_head, inline_svg, kv_table, notes, provenance_table, section, sortable,
    verdict_section, warnings_list,
};
use crate::matrix::MatrixResults;
use crate::placement::NodeCheck;
use crate::report::charts::heatmap;
use crate::report::{ExportError, ns_or_dash};
use crate::topology::CpuList;
use crate::verdict;
use maud::{Markup, html};

/// The article of one matrix.
pub(super) fn article(
    id: usize,
    label: Option<&str>,
    m: &MatrixResults,
) -> Result<Markup, ExportError> {
    // A matrix with no measured pair has no heatmap; the rest still shows.
    let heatmap = heatmap::render(m).ok();
    let lines = verdict::matrix_lines(m);
    let all_notes = [&m.topology.notes[..], &m.notes[..]].concat();
    Ok(html! {
        article.result id={ "result-" (id) } data-kind="matrix" {
            (article_head(id, "matrix", label, &m.provenance, None))
            (verdict_section(id, &lines, false))
            (section(id, "tables", "Tables", tables(m)))
            (section(id, "charts", "Charts", html! {
                @match &heatmap {
                    Some(svg) => { (inline_svg("heatmap.svg", svg)) }
                    None => { p { "No heatmap: no pair was measured." } }
                }
            }))
            (section(id, "placement", "Placement proof", placement_proof(m)))
            (section(id, "warnings", "Noise and interference warnings", warnings_list(notes(&all_notes))))
            (section(id, "provenance", "Provenance", html! {
                (provenance_table(&m.provenance, Some(&m.topology)))
                h4 { "Settings" }
                (settings(m))
            }))
        }
    })
}

/// The class table, empty classes, asymmetric pairs, the load tables and the reference check.
fn tables(m: &MatrixResults) -> Markup {
    let asymmetric: Vec<_> = m.pairs.iter().filter(|p| p.asymmetric).collect();
    let c = &m.config;
    let f = &m.reference;
    html! {
        h4 { "Cost of a cache line's hand-off by distance class (one-way ns, pairs' medians)" }
        (sortable(&["class", "pairs", "median ns", "p90 ns", "min ns", "max ns"], html! {
            @for k in &m.classes {
                tr {
                    td { (k.class.to_string()) }
                    td data-sort=(k.pairs) { (k.pairs) @if k.pairs != k.candidates { "/" (k.candidates) } }
                    @for v in [k.median_ns, k.p90_ns, k.min_ns, k.max_ns] { (ns_td(v)) }
                }
            }
        }))
        @if !m.empty_classes.is_empty() {
            h4 { "Classes with no pair" }
            ul { @for e in &m.empty_classes { li { (e.class) ": " (e.reason) } } }
        }
        p.note { (crate::matrix::RULE) }
        @if asymmetric.is_empty() {
            p { "Directions agree: every pair's i→j and j→i medians within " (c.asymmetry_limit_pct) "%." }
        } @else {
            h4 { "Asymmetric pairs (directions differ by more than " (c.asymmetry_limit_pct) "%)" }
            (sortable(&["pair", "i→j ns", "j→i ns", "asymmetry %"], html! {
                @for p in &asymmetric {
                    tr {
                        td { (p.forward.from) "→" (p.forward.to) }
                        @for v in [p.forward.median_ns, p.backward.median_ns, p.asymmetry_pct] { (ns_td(v)) }
                    }
                }
            }))
        }
        (load_tables(m))
        p {
            "Reference CAS ping-pong on " (f.cpus[0]) "-" (f.cpus[1]) ": "
            (format!("{:.1}", f.one_way_ns)) " ns one-way; matrix (" (c.mode) ") "
            (format!("{:.1} ns ({:+.1}%)", f.matrix_one_way_ns, f.difference_pct))
        }
    }
}

/// Every pair's threads and line, and whether each was verified.
fn placement_proof(m: &MatrixResults) -> Markup {
    html! {
        @let bad = m.pairs.iter().filter(|p| !p.verified()).count();
        @let load_bad = load_unverified(m);
        @if load_bad > 0 {
            p.bad { (load_bad) " contenders or sharers sets UNVERIFIED (a thread or their line)" }
        }
        p {
            (m.pairs.len()) " pairs: "
            @if bad == 0 { span.ok { "every thread pinned and every line on its home node, verified" } }
            @else { span.bad { (bad) " pairs UNVERIFIED" } }
            " (sched_getcpu, move_pages)."
        }
        details {
            summary { "Every pair's threads and line" }
            (sortable(&["pair", "class", "requested CPUs", "observed CPUs", "threads verified", "home node", "line"], html! {
                        @for p in &m.pairs {
                            tr {
                                td { (p.cpus[0]) "-" (p.cpus[1]) }
                                td { (p.class.to_string()) }
                                td { (p.threads[0].requested_cpu) ", " (p.threads[1].requested_cpu) }
                                @let seen = |t: usize| p.threads[t].observed_cpu.map_or("-".to_string(), |c| c.to_string());
                                td { (seen(0)) ", " (seen(1)) }
                                @if p.threads.iter().all(|t| t.verified) { td.ok { "yes" } } @else { td.bad { "NO" } }
                                td data-sort=(p.home_node) { (p.home_node) }
                                @match &p.line {
                                    NodeCheck::Verified { node } => { td.ok { "verified on node " (node) } }
                                    NodeCheck::Unverified { reason } => { td.bad { "UNVERIFIED: " (reason) } }
                                }
                            }
                        }
                    }))
        }
    }
}

/// How the matrix was measured.
fn settings(m: &MatrixResults) -> Markup {
    let c = &m.config;
    let cpus: CpuList = c.cpus.iter().copied().collect();
    let (trips, warmup) = (c.round_trips_per_sample, c.warmup_samples);
    let samples = format!(
        "{} per direction × {trips} round trips, {warmup} warm-up",
        c.samples
    );
    let pairs = c.per_class.map(|n| format!("at most {n} per class"));
    kv_table(&[
        ("CPUs", cpus.to_string()),
        ("mode", c.mode.to_string()),
        ("home", c.home.to_string()),
        ("samples", samples),
        ("pairs", pairs.unwrap_or("every pair".to_string())),
        ("timer", c.timer.to_string()),
    ])
}

/// A cell of `v` to one decimal, sorted by `v`.
fn ns_td(v: f64) -> Markup {
    html! { td data-sort=(v) { (format!("{v:.1}")) } }
}

/// Contenders and sharers sets whose threads or line were not verified.
fn load_unverified(m: &MatrixResults) -> usize {
    let ok = |threads: &[crate::placement::PinnedThread], line: &NodeCheck| {
        threads.iter().all(|t| t.verified) && matches!(line, NodeCheck::Verified { .. })
    };
    let contenders = m.contenders.iter().map(|p| (&p.threads, &p.line));
    let sets = contenders.chain(m.sharers.iter().map(|p| (&p.threads, &p.line)));
    sets.filter(|(t, l)| !ok(t, l)).count()
}

/// The contenders', sharers' and homes' tables, each only when measured.
fn load_tables(m: &MatrixResults) -> Markup {
    html! {
        @if !m.contenders.is_empty() {
            h4 { "Contenders: k CPUs adding to one line (ns per hand-over = window ÷ hand-overs − one add on a private line; add ns per CPU = k × window ÷ adds − that add; trimmed means over windows)" }
            (sortable(&["k", "CPUs", "widest class", "adds", "hand-overs", "ns per hand-over", "add ns per CPU"], html! {
                        @for p in &m.contenders {
                            @let (adds, handovers): (u64, u64) = (p.adds.iter().sum(), p.handovers.iter().sum());
                            tr {
                                td data-sort=(p.k) { (p.k) }
                                td { (p.cpus.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")) }
                                td { (p.widest_class.to_string()) }
                                td data-sort=(adds) { (adds) }
                                td data-sort=(handovers) { (handovers) }
                                td data-sort=(p.handover_ns.unwrap_or(0.0)) { (ns_or_dash(p.handover_ns)) }
                                (ns_td(p.add_ns))
                            }
                        }
                    }))
        }
        @if !m.sharers.is_empty() {
            h4 { "Sharers: one writer, m readers reading between its writes (the writer's fenced add less a private add, trimmed mean over rounds)" }
            (sortable(&["m", "writer", "readers", "widest class", "fresh reads", "upgrade ns"], html! {
                        @for p in &m.sharers {
                            tr {
                                td data-sort=(p.m) { (p.m) }
                                td { (p.writer) }
                                td { (p.readers.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")) }
                                td { (p.widest_class.to_string()) }
                                td data-sort=(p.fresh_reads) { (p.fresh_reads) "/" (p.reads) }
                                (ns_td(p.upgrade_ns))
                            }
                        }
                    }))
        }
        @if !m.home_classes.is_empty() {
            h4 { "Homes: read fetched and add moved (net ns, trimmed means) with the line on the requesting CPU's node and on another" }
            (sortable(&["class", "pairs", "local fetched", "local add", "remote fetched", "remote add", "remote distance"], html! {
                        @for h in &m.home_classes {
                            tr {
                                td { (h.class.to_string()) }
                                td { (h.pairs.len()) }
                                td { (format!("{:.1}", h.local.read_fetched_ns)) }
                                td { (format!("{:.1}", h.local.add_moved_ns)) }
                                td { (ns_or_dash(h.remote.as_ref().map(|c| c.read_fetched_ns))) }
                                td { (ns_or_dash(h.remote.as_ref().map(|c| c.add_moved_ns))) }
                                td { (h.remote.as_ref().map_or("-".to_string(), |c| c.distance.to_string())) }
                            }
                        }
                    }))
        }
    }
}
