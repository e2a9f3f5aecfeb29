//! Putting threads on CPUs and memory on nodes, and proving it.

mod affinity;
mod memory;
mod verify;

pub use affinity::{PinnedThread, current_cpu, pin_current_thread};
pub use memory::{AddressGap, NodeCheck, NodeMemory, page_size};
pub use verify::{MemoryPlacement, VerifyReport, verify_placement};

use crate::topology::CpuList;
use std::io;

/// What to do when a placement cannot be made or verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// Fail: every thread and page must be where it was asked to be.
    #[default]
    Strict,
    /// Go on, and record the placement as unverified.
    BestEffort,
}

/// A thread or allocation that could not be placed or verified.
#[derive(Debug, thiserror::Error)]
pub enum PlacementError {
    /// `sched_setaffinity` refused the CPU (the CPU asked for, the process's start-up affinity).
    #[error("cannot pin to CPU {0} (this process may use CPUs {1}): sched_setaffinity: {2}")]
    Pin(u32, CpuList, #[source] io::Error),
    /// `sched_getcpu` failed after pinning to this CPU.
    #[error("pinned to CPU {0} but sched_getcpu failed: {1}")]
    GetCpu(u32, #[source] io::Error),
    /// The thread kept running elsewhere (the second CPU) after the pin to the first.
    #[error("pinned to CPU {0} but sched_getcpu keeps reporting CPU {1}")]
    PinNotHonoured(u32, u32),
    /// `mmap` failed.
    #[error("cannot map {len} bytes: {source}")]
    Map {
        /// Bytes asked for.
        len: usize,
        /// errno.
        source: io::Error,
    },
    /// `mbind` refused the node (EINVAL: no such node or no memory on it; EPERM: a container
    /// forbids it).
    #[error("cannot bind memory to node {0}: mbind: {1}")]
    Bind(u32, #[source] io::Error),
    /// `move_pages` could not say where the pages are (errno for the call, or for one page).
    #[error("cannot verify memory on node {0}: move_pages: {1}")]
    Query(u32, #[source] io::Error),
    /// Memory bound to a node (the first) has a page (the third) on another node (the second).
    #[error("memory bound to node {0} has page {2} on node {1}")]
    Misplaced(u32, u32, usize),
}
