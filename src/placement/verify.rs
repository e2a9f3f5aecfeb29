//! `contend verify`'s proof: pin a thread to each chosen CPU and bind memory to each chosen node,
//! and keep what `sched_getcpu` and `move_pages` say.

use super::pin_current_thread;
use super::{NodeCheck, NodeMemory, PinnedThread, Placement, PlacementError, page_size};
use crate::topology::{CpuList, Topology};
use serde::Serialize;

/// Where one node-bound allocation ended up.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryPlacement {
    /// The node the memory was bound to.
    pub requested_node: u32,
    /// Pages allocated.
    pub pages: usize,
    /// `move_pages` status of every page after the check (node id, or -errno).
    pub page_nodes: Vec<i32>,
    /// Verified or not, and why.
    pub check: NodeCheck,
}

/// Everything `contend verify` found.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    /// Strict or best-effort.
    pub placement: Placement,
    /// One pinned thread per CPU, in the order asked.
    pub threads: Vec<PinnedThread>,
    /// One allocation per node, in the order asked.
    pub memory: Vec<MemoryPlacement>,
}

/// Pins a fresh thread to each of `cpus` (so the caller's mask stays as it was) and binds `pages`
/// pages to each of `nodes`, checking both.
pub fn verify_placement(
    topo: &Topology,
    cpus: &[u32],
    nodes: &CpuList,
    pages: usize,
    placement: Placement,
) -> Result<VerifyReport, PlacementError> {
    let mut threads = Vec::with_capacity(cpus.len());
    for &cpu in cpus {
        let allowed = &topo.allowed_cpus;
        let pinned = std::thread::scope(|s| {
            s.spawn(|| pin_current_thread(cpu, allowed, placement))
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })?;
        threads.push(pinned);
    }
    let mut memory = Vec::new();
    for node in nodes.iter() {
        let region = NodeMemory::alloc(pages * page_size(), node, placement)?;
        memory.push(MemoryPlacement {
            requested_node: node,
            pages: region.bytes() / page_size(),
            page_nodes: region.page_nodes().unwrap_or_default(),
            check: region.check().clone(),
        });
    }
    Ok(VerifyReport {
        placement,
        threads,
        memory,
    })
}
