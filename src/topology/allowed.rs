//! What this process may use: the CPUs it may run on, as the kernel's `sched_getaffinity` says
//! before any thread is pinned, and the nodes it may bind memory to.

use super::{CpuList, Topology, UnknownNode};
use std::io;

/// Largest mask tried when asking the kernel for this thread's affinity.
const MAX_MASK_BITS: usize = 65_536;

/// The CPUs the calling thread may run on (`sched_getaffinity`).
pub fn allowed_cpus() -> io::Result<CpuList> {
    let mut words = 1024 / 64;
    loop {
        let mut mask = vec![0u64; words];
        // SAFETY: the kernel writes at most `words * 8` bytes into `mask`.
        let rc =
            unsafe { libc::syscall(libc::SYS_sched_getaffinity, 0, words * 8, mask.as_mut_ptr()) };
        if rc >= 0 {
            return Ok(mask_to_list(&mask));
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EINVAL) && words * 64 < MAX_MASK_BITS {
            words *= 2;
            continue;
        }
        return Err(err);
    }
}

fn mask_to_list(mask: &[u64]) -> CpuList {
    mask.iter()
        .enumerate()
        .flat_map(|(w, &bits)| {
            (0..64)
                .filter(move |b| bits & (1u64 << b) != 0)
                .map(move |b| (w * 64 + b) as u32)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_bits_map_to_ids() {
        let list = mask_to_list(&[0b1011, 1 << 3]);
        assert_eq!(list.to_vec(), vec![0, 1, 3, 67]);
    }
}

impl Topology {
    /// Checks that memory may be bound to `node` here: it must be online,
    /// have memory, and be in this process's allowed memory nodes. The
    /// error is one sentence naming what exists.
    pub fn check_memory_node(&self, node: u32) -> Result<(), MemoryNodeError> {
        let n = self.known_node(node)?;
        if !n.has_memory {
            return Err(MemoryNodeError::NoMemory { node });
        }
        if !self.allowed_mems.contains(node) {
            return Err(MemoryNodeError::NotAllowed {
                node,
                allowed: self.allowed_mems.clone(),
            });
        }
        Ok(())
    }
}

/// Why memory cannot be bound to a node.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoryNodeError {
    /// No such node is online.
    #[error(transparent)]
    Missing(#[from] UnknownNode),
    /// The node has no memory (a CPU-only node).
    #[error("node {node} has no memory to bind to")]
    NoMemory {
        /// The node asked for.
        node: u32,
    },
    /// The process's cpuset does not allow the node's memory.
    #[error("node {node} is outside this process's allowed memory nodes ({allowed})")]
    NotAllowed {
        /// The node asked for.
        node: u32,
        /// The nodes this process may allocate on.
        allowed: CpuList,
    },
}
