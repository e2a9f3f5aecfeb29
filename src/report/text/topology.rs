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
    let _ = write!(out, "node ");
    for node in &topo.nodes {
        let _ = write!(out, "{:>4}", node.id);
    }
    let _ = writeln!(out);
    for (node, row) in topo.nodes.iter().zip(&topo.distances) {
        let _ = write!(out, "{:>4}:", node.id);
        for d in row {
            let _ = write!(out, "{d:>4}");
        }
        let _ = writeln!(out);
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
        let level = if llc.level == 0 {
            "package".to_string()
        } else {
            format!("L{}", llc.level)
        };
        let _ = writeln!(
            out,
            "  llc {:>3} ({level}, node {nodes}): {} ({} cpus)",
            llc.id,
            llc.cpus,
            llc.cpus.len()
        );
    }

    let groups: Vec<&CpuList> = topo
        .cpus
        .iter()
        .filter(|c| c.siblings.len() > 1 && c.siblings.first() == Some(c.id))
        .map(|c| &c.siblings)
        .collect();
    if groups.is_empty() {
        let _ = writeln!(out, "smt: off (one thread per core)");
    } else {
        let sets: Vec<String> = groups.iter().map(|g| g.to_string()).collect();
        let _ = writeln!(
            out,
            "smt: {} cores with siblings: {}",
            groups.len(),
            sets.join(" ")
        );
    }
    let _ = writeln!(
        out,
        "online cpus: {} ({})",
        topo.online_cpus,
        topo.online_cpus.len()
    );
    let _ = writeln!(
        out,
        "allowed cpus: {} ({})",
        topo.allowed_cpus,
        topo.allowed_cpus.len()
    );
    let _ = writeln!(out, "allowed memory nodes: {}", topo.allowed_mems);
    out
}
