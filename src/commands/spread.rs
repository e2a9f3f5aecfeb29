//! `contend spread`: the kernel's `cpumask_local_spread` order from a node.

use super::{load_topology, print_notes};
use crate::CliError;
use crate::cli::SpreadArgs;
use crate::topology::{CpuList, HopOrder, old_order};
use serde::Serialize;
use std::path::Path;

/// One hop of the new order, for the JSON output.
#[derive(Serialize)]
struct HopView {
    /// The hop's distance level.
    distance: u32,
    /// CPUs this hop adds, in hand-out order.
    cpus: Vec<u32>,
}

/// What `contend spread --json` prints.
#[derive(Serialize)]
struct SpreadView {
    node: u32,
    /// "hops" (v6.3+) or "old" (pre-v6.3).
    algorithm: &'static str,
    /// The node whose distances order the spread (a CPU-less node uses its
    /// nearest CPU node).
    source_node: Option<u32>,
    /// `cpumask_local_spread(i, node)` for i = 0, 1, …
    order: Vec<u32>,
    /// The hops of the new order (empty for the old one).
    hops: Vec<HopView>,
}

pub(super) fn run(root: &Path, args: &SpreadArgs) -> Result<(), CliError> {
    let topo = load_topology(root)?;
    let view = if args.old {
        SpreadView {
            node: args.node,
            algorithm: "old",
            source_node: None,
            order: old_order(&topo, args.node).map_err(CliError::usage)?,
            hops: Vec::new(),
        }
    } else {
        let hops = HopOrder::new(&topo);
        SpreadView {
            node: args.node,
            algorithm: "hops",
            source_node: Some(hops.source_node(args.node).map_err(CliError::usage)?),
            order: hops.order(args.node).map_err(CliError::usage)?,
            hops: hops
                .hops(args.node)
                .map_err(CliError::usage)?
                .iter()
                .map(|h| HopView {
                    distance: h.distance,
                    cpus: h.cpus.clone(),
                })
                .collect(),
        }
    };
    if args.json {
        let text =
            serde_json::to_string_pretty(&view).map_err(|e| CliError::failure(e.to_string()))?;
        println!("{text}");
        return Ok(());
    }
    print_notes(&topo);
    let order: Vec<String> = view.order.iter().map(u32::to_string).collect();
    let what = if args.old {
        "pre-v6.3 order"
    } else {
        "NUMA hop order (v6.3+)"
    };
    println!("cpumask_local_spread(i, {}), {what}:", view.node);
    println!("{}", order.join(" "));
    if let Some(src) = view.source_node.filter(|&s| s != view.node) {
        println!(
            "node {} has no CPUs: spread as from its nearest CPU node {src}",
            view.node
        );
    }
    for (i, hop) in view
        .hops
        .iter()
        .enumerate()
        .filter(|(_, h)| !h.cpus.is_empty())
    {
        let cpus: CpuList = hop.cpus.iter().copied().collect();
        println!(
            "  hop {i} (distance {}): {cpus} ({} cpus)",
            hop.distance,
            hop.cpus.len()
        );
    }
    Ok(())
}
