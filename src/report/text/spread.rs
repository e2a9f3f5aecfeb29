//! `contend spread` as text: the hand-out order, then each hop.

use crate::topology::{CpuList, SpreadReport};
use std::fmt::Write;

/// The order `cpumask_local_spread(i, node)` hands out CPUs in, and the hops of the v6.3+ order.
pub fn render(view: &SpreadReport) -> String {
    let mut out = String::new();
    let order: Vec<String> = view.order.iter().map(u32::to_string).collect();
    let what = match view.algorithm {
        "old" => "pre-v6.3 order",
        _ => "NUMA hop order (v6.3+)",
    };
    let _ = writeln!(out, "cpumask_local_spread(i, {}), {what}:", view.node);
    let _ = writeln!(out, "{}", order.join(" "));
    if let Some(src) = view.source_node.filter(|&s| s != view.node) {
        let node = view.node;
        let _ = writeln!(
            out,
            "node {node} has no CPUs: spread as from its nearest CPU node {src}"
        );
    }
    for (i, hop) in view
        .hops
        .iter()
        .enumerate()
        .filter(|(_, h)| !h.cpus.is_empty())
    {
        let cpus: CpuList = hop.cpus.iter().copied().collect();
        let (d, n) = (hop.distance, hop.cpus.len());
        let _ = writeln!(out, "  hop {i} (distance {d}): {cpus} ({n} cpus)");
    }
    out
}
