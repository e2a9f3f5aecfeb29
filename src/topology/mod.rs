//! The host's CPU, cache and NUMA layout, read from sysfs once, before any thread is pinned (a
//! pinned thread's affinity no longer says what the process may use).

mod allowed;
mod cpulist;
mod spec;
mod spread;
mod sysfs;

pub use allowed::{MemoryNodeError, allowed_cpus};
pub use cpulist::{CpuList, CpuListError};
pub use spec::{Clipped, CpuSpec, Resolved, SpecError};
pub use spread::{Hop, HopOrder, NodeHops, SpreadReport, UnknownNode, old_order};
pub use sysfs::{TopologyError, capture, is_live};

use serde::{Deserialize, Serialize};
use std::path::Path;

/// One NUMA node as the kernel reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// Node id (`/sys/devices/system/node/nodeN`).
    pub id: u32,
    /// The node's online CPUs (`nodeN/cpulist`).
    pub cpus: CpuList,
    /// True when the node is in `node/has_memory` (it can back allocations).
    pub has_memory: bool,
    /// True when the node is in `node/has_cpu`.
    pub has_cpu: bool,
}

/// One online logical CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cpu {
    /// Logical CPU id, as `sched_getcpu` returns it.
    pub id: u32,
    /// Id of the NUMA node whose cpulist holds this CPU.
    pub node: u32,
    /// Physical package (socket) id, `topology/physical_package_id`.
    pub package: u32,
    /// Core id within the package, `topology/core_id`.
    pub core: u32,
    /// The CPUs sharing this core (SMT threads, itself included), `topology/thread_siblings_list`.
    pub siblings: CpuList,
    /// Index into [`Topology::llcs`] of this CPU's last-level cache.
    pub llc: u32,
}

/// One last-level cache and the CPUs that share it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Llc {
    /// Index of this group, in order of its lowest CPU id (not the kernel's `cache/index*/id`,
    /// which is absent on older kernels).
    pub id: u32,
    /// Cache level (3 on most servers; 2 on some embedded parts).
    pub level: u32,
    /// Online CPUs sharing this cache (`shared_cpu_list`).
    pub cpus: CpuList,
}

/// The host layout contend plans with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Topology {
    /// Online CPUs (`/sys/devices/system/cpu/online`).
    pub online_cpus: CpuList,
    /// Node ids the kernel could ever bring up (`node/possible`).
    pub possible_nodes: CpuList,
    /// Every online node in id order.
    pub nodes: Vec<Node>,
    /// `distances[i][j]` is the SLIT distance from `nodes[i]` to `nodes[j]` (10 = local).
    pub distances: Vec<Vec<u32>>,
    /// Every online CPU in id order.
    pub cpus: Vec<Cpu>,
    /// Last-level cache groups in order of their lowest CPU.
    pub llcs: Vec<Llc>,
    /// CPUs this process may run on, read before any pinning.
    pub allowed_cpus: CpuList,
    /// Nodes this process may allocate on (`Mems_allowed_list`).
    pub allowed_mems: CpuList,
    /// Things the reader had to assume, one sentence each.
    pub notes: Vec<String>,
}

impl Topology {
    /// Reads the layout under `root` (`/` for this host). See the module docs.
    pub fn read(root: &Path) -> Result<Self, TopologyError> {
        sysfs::read_from(&sysfs::SysfsTree::new(root))
    }

    /// The CPU with this id, if online.
    pub fn cpu(&self, id: u32) -> Option<&Cpu> {
        self.cpus
            .binary_search_by_key(&id, |c| c.id)
            .ok()
            .map(|i| &self.cpus[i])
    }

    /// The online node with this id.
    pub fn node(&self, id: u32) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// The online node with this id, or the error naming the online ones.
    pub fn known_node(&self, id: u32) -> Result<&Node, UnknownNode> {
        self.node(id).ok_or_else(|| UnknownNode {
            node: id,
            online: self.node_ids(),
        })
    }

    /// Online node ids, ascending.
    pub fn node_ids(&self) -> CpuList {
        self.nodes.iter().map(|n| n.id).collect()
    }

    /// SLIT distance from node `from` to node `to`, if both are online.
    pub fn distance(&self, from: u32, to: u32) -> Option<u32> {
        let i = self.nodes.iter().position(|n| n.id == from)?;
        let j = self.nodes.iter().position(|n| n.id == to)?;
        Some(self.distances[i][j])
    }

    /// The node a CPU belongs to.
    pub fn node_of_cpu(&self, cpu: u32) -> Option<u32> {
        self.cpu(cpu).map(|c| c.node)
    }
}

/// `tests/fixtures/topology/NAME` read as a host (the layouts are listed in that folder's README).
#[cfg(test)]
pub(crate) fn fixture(name: &str) -> Topology {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/topology")
        .join(name);
    Topology::read(&root).unwrap_or_else(|e| panic!("reading fixture {name}: {e}"))
}

/// The first two CPUs this process may use, for tests that pin a pair.
#[cfg(test)]
pub(crate) fn two_allowed_cpus() -> (u32, u32) {
    let cpus = allowed_cpus().unwrap().to_vec();
    assert!(cpus.len() >= 2, "this test pins two CPUs: {cpus:?}");
    (cpus[0], cpus[1])
}
