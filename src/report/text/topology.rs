//! `contend topology` as text: the `numactl -H` view plus last-level caches, SMT pairs and the
//! allowed sets.

use crate::topology::{CpuList, Topology};
use std::fmt::Write;

/// Renders the model as the text `contend topology` prints.
pub fn render(topo: &Topology) -> String {
    let mut out = String::new();
    let ids = topo.node_ids();
    let _ = writeln!(out, "available: {} nodes ({ids})", topo.nodes.len());
    for node in &topo.nodes {
        let cpus: Vec<String> = node.cpus.iter().map(|c| c.to_string()).collect();
        let _ = writeln!(out, "node {} cpus: {}", node.id, cpus.join(" "));
        let memory = if node.has_memory { "yes" } else { "no" };
        let _ = writeln!(out, "node {} memory: {memory}", node.id);
    }
    let _ = writeln!(out, "node distances:");
    let heads = topo.nodes.iter().map(|n| format!("{:>4}", n.id));
    let _ = writeln!(out, "node {}", heads.collect::<String>());
    for (node, row) in topo.nodes.iter().zip(&topo.distances) {
        let row: String = row.iter().map(|d| format!("{d:>4}")).collect();
        let _ = writeln!(out, "{:>4}:{row}", node.id);
    }
    if topo.possible_nodes != ids {
        let _ = writeln!(out, "possible nodes: {}", topo.possible_nodes);
    }

    let _ = writeln!(out, "last-level caches: {}", topo.llcs.len());
    for llc in &topo.llcs {
        let nodes: CpuList = llc
            .cpus
            .iter()
            .filter_map(|c| topo.node_of_cpu(c))
            .collect();
        let level = match llc.level {
            0 => "package".to_string(),
            l => format!("L{l}"),
        };
        let (id, cpus, n) = (llc.id, &llc.cpus, llc.cpus.len());
        let _ = writeln!(
            out,
            "  llc {id:>3} ({level}, node {nodes}): {cpus} ({n} cpus)"
        );
    }

    let first = topo.cpus.iter().filter(|c| c.siblings.len() > 1);
    let first = first.filter(|c| c.siblings.first() == Some(c.id));
    let sets: Vec<String> = first.map(|c| c.siblings.to_string()).collect();
    let _ = match sets.len() {
        0 => writeln!(out, "smt: off (one thread per core)"),
        n => writeln!(out, "smt: {n} cores with siblings: {}", sets.join(" ")),
    };
    for (what, cpus) in [
        ("online", &topo.online_cpus),
        ("allowed", &topo.allowed_cpus),
    ] {
        let _ = writeln!(out, "{what} cpus: {cpus} ({})", cpus.len());
    }
    let _ = writeln!(out, "allowed memory nodes: {}", topo.allowed_mems);
    out
}
