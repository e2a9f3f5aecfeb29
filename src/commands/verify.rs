//! `contend verify`: pin a thread to each chosen CPU and bind memory to each
//! chosen node, and show what the kernel reports back.

use super::{is_live_root, load_topology, print_notes};
use crate::CliError;
use crate::cli::VerifyArgs;
use crate::placement::{
    NodeCheck, NodeMemory, PinnedThread, Placement, page_size, pin_current_thread,
};
use crate::topology::CpuList;
use serde::Serialize;
use std::path::Path;

/// Where one node-bound allocation ended up.
#[derive(Debug, Serialize)]
struct MemoryPlacement {
    /// The node the memory was bound to.
    requested_node: u32,
    /// Pages allocated.
    pages: usize,
    /// `move_pages` status of every page after the check (node id, or
    /// -errno).
    page_nodes: Vec<i32>,
    /// Verified or not, and why.
    check: NodeCheck,
}

/// Everything `contend verify` found.
#[derive(Debug, Serialize)]
struct VerifyReport {
    placement: Placement,
    threads: Vec<PinnedThread>,
    memory: Vec<MemoryPlacement>,
}

pub(super) fn run(root: &Path, args: &VerifyArgs) -> Result<(), CliError> {
    if !is_live_root(root) {
        return Err(CliError::usage(format!(
            "verify places real threads and memory, so it reads the live host; drop --sysfs-root {}",
            root.display()
        )));
    }
    let topo = load_topology(root)?;
    let placement = Placement::from(args.placement);
    let cpus = args.cpus.resolve(&topo).map_err(CliError::usage)?;
    let nodes = args
        .nodes
        .clone()
        .unwrap_or_else(|| topo.allowed_mems.clone());
    for node in nodes.iter() {
        topo.check_memory_node(node).map_err(CliError::usage)?;
    }
    if nodes.is_empty() {
        return Err(CliError::usage("--nodes selects no node"));
    }

    let mut threads = Vec::with_capacity(cpus.len());
    for &cpu in &cpus {
        let allowed = &topo.allowed_cpus;
        // A fresh thread per CPU, so the main thread's mask stays as it was.
        let pinned = std::thread::scope(|s| {
            s.spawn(|| pin_current_thread(cpu, allowed, placement))
                .join()
        })
        .map_err(|_| CliError::failure(format!("thread pinning CPU {cpu} panicked")))?
        .map_err(CliError::failure)?;
        threads.push(pinned);
    }
    let mut memory = Vec::new();
    for node in nodes.iter() {
        let bytes = args.pages as usize * page_size();
        let region = NodeMemory::alloc(bytes, node, placement).map_err(CliError::failure)?;
        memory.push(MemoryPlacement {
            requested_node: node,
            pages: region.len() / page_size(),
            page_nodes: region.page_nodes().unwrap_or_default(),
            check: region.check().clone(),
        });
    }
    let report = VerifyReport {
        placement,
        threads,
        memory,
    };
    if args.json {
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| CliError::failure(format!("cannot write JSON: {e}")))?;
        println!("{text}");
    } else {
        print_notes(&topo);
        print_text(&report);
    }
    Ok(())
}

fn print_text(report: &VerifyReport) {
    for t in &report.threads {
        let seen = t.observed_cpu.map_or("?".to_string(), |c| c.to_string());
        match &t.note {
            None => println!(
                "cpu {:>4}: pinned, sched_getcpu = {seen}  verified",
                t.requested_cpu
            ),
            Some(note) => println!("cpu {:>4}: UNVERIFIED ({note})", t.requested_cpu),
        }
    }
    for m in &report.memory {
        let nodes: CpuList = m
            .page_nodes
            .iter()
            .filter(|&&n| n >= 0)
            .map(|&n| n as u32)
            .collect();
        match &m.check {
            NodeCheck::Verified { node } => println!(
                "node {:>3}: {} pages bound, move_pages says node {node}  verified",
                m.requested_node, m.pages
            ),
            NodeCheck::Unverified { reason } => println!(
                "node {:>3}: {} pages, pages on nodes [{nodes}]  UNVERIFIED ({reason})",
                m.requested_node, m.pages
            ),
        }
    }
}
