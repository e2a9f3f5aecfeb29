//! A host inferred from a core-to-core-latency CSV as text: the layout as `contend topology` prints
//! it, then each class's pairs and figures, the home socket and how it was inferred.

use super::{align, plain};
use crate::predict::inferred::InferredHost;
use crate::units::si;
use std::fmt::Write;

/// The inferred host, then its classes and notes.
pub fn render(h: &InferredHost) -> String {
    let (smt, llcs, nodes) = h.counts();
    let mut out = format!(
        "host inferred from {} ({} CPUs): {nodes} node(s), {llcs} LLC group(s), {smt} SMT core(s)\n",
        plain(&h.source),
        h.topology.cpus.len()
    );
    out.push_str(&super::topology::render(&h.topology));
    let mut table = vec![super::head(&["class", "pairs", "median ns", "p5–p95 ns"])];
    let row = |c: &crate::predict::inferred::InferredClass, name: String| {
        let range = format!("{}–{}", si(c.p5_ns), si(c.p95_ns));
        vec![name, c.pairs.to_string(), si(c.median_ns), range]
    };
    table.extend(h.classes.iter().map(|c| row(c, c.class.to_string())));
    if let Some(a) = &h.away_same_node {
        table.push(row(a, "same-node off home (not used)".into()));
    }
    out.push_str("pair classes in the matrix:\n");
    out.push_str(&align(&table));
    if let Some(home) = h.home_node {
        let _ = writeln!(out, "home: the line lived on node {home} while measured");
    }
    out.push_str(&super::notes(&h.notes));
    out.push('\n');
    out
}
