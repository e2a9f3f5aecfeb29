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
    /// `sched_setaffinity` refused the CPU.
    #[error(
        "cannot pin to CPU {cpu} (this process may use CPUs {allowed}): sched_setaffinity: {source}"
    )]
    Pin {
        /// The CPU asked for.
        cpu: u32,
        /// The process's start-up affinity.
        allowed: CpuList,
        /// errno.
        source: io::Error,
    },
    /// `sched_getcpu` failed.
    #[error("pinned to CPU {cpu} but sched_getcpu failed: {source}")]
    GetCpu {
        /// The CPU asked for.
        cpu: u32,
        /// errno.
        source: io::Error,
    },
    /// The thread kept running elsewhere after the pin.
    #[error("pinned to CPU {cpu} but sched_getcpu keeps reporting CPU {observed}")]
    PinNotHonoured {
        /// The CPU asked for.
        cpu: u32,
        /// Where it ran instead.
        observed: u32,
    },
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
    #[error("cannot bind memory to node {node}: mbind: {source}")]
    Bind {
        /// The node asked for.
        node: u32,
        /// errno.
        source: io::Error,
    },
    /// `move_pages` could not say where the pages are.
    #[error("cannot verify memory on node {node}: move_pages: {source}")]
    Query {
        /// The node asked for.
        node: u32,
        /// errno (for the call, or for one page).
        source: io::Error,
    },
    /// A page is on another node than the one it was bound to.
    #[error("memory bound to node {node} has page {page} on node {found}")]
    Misplaced {
        /// The node asked for.
        node: u32,
        /// Where the page is.
        found: u32,
        /// Index of the page in the allocation.
        page: usize,
    },
}
