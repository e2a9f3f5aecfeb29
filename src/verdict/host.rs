//! What a run's CPUs can and cannot answer: a node split on writers that share one node has one
//! slot, as global has, so it says nothing about NUMA; likewise an LLC split inside one LLC, and
//! any transfer between SMT siblings of one core.

use super::{Topic, Verdict};
use crate::counter::ShardLevel;
use crate::runner::RunResults;
use crate::topology::{CpuList, Topology};

/// How far apart a run's writers are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Reach {
    /// Writer threads.
    writers: usize,
    /// True when the topology holds every writer's CPU (a file's recorded topology may not).
    located: bool,
    /// Nodes the writers' CPUs are on.
    nodes: CpuList,
    /// Nodes of the host with CPUs.
    host_nodes: usize,
    /// LLCs (indexes into the topology's LLC list) the writers' CPUs share.
    llcs: CpuList,
    /// LLCs of the host.
    host_llcs: usize,
    /// Distinct physical cores (package, core) of the writers' CPUs.
    cores: usize,
}

impl Reach {
    /// The reach of `run`'s writers on its recorded topology.
    pub(super) fn of(run: &RunResults) -> Reach {
        Reach::of_cpus(&run.topology, &run.config.writer_cpus)
    }

    /// The reach of `cpus` (one thread on each) on `topo`.
    pub(super) fn of_cpus(topo: &Topology, ids: &[u32]) -> Reach {
        let cpus: Vec<_> = ids.iter().filter_map(|&c| topo.cpu(c)).collect();
        let mut cores: Vec<(u32, u32)> = cpus.iter().map(|c| (c.package, c.core)).collect();
        cores.sort_unstable();
        cores.dedup();
        Reach {
            writers: ids.len(),
            located: cpus.len() == ids.len(),
            nodes: cpus.iter().map(|c| c.node).collect(),
            host_nodes: topo.nodes.iter().filter(|n| !n.cpus.is_empty()).count(),
            llcs: cpus.iter().map(|c| c.llc).collect(),
            host_llcs: topo.llcs.len(),
            cores: cores.len(),
        }
    }

    /// True when splitting at `level` gives the writers one slot, the one global gives them.
    pub(super) fn same_as_global(&self, level: ShardLevel) -> bool {
        if !self.located {
            return false;
        }
        match level {
            ShardLevel::Node => self.nodes.len() <= 1,
            ShardLevel::Llc => self.llcs.len() <= 1,
            _ => false,
        }
    }

    /// The line saying what these CPUs cannot answer, `None` when they span nodes, LLCs and cores
    /// alike, or are not all in the topology.
    pub(super) fn line(&self) -> Option<Verdict> {
        if !self.located {
            return None;
        }
        if self.writers < 2 {
            return Some(Verdict::new(
                Topic::Host,
                "one writer: no line moves between CPUs here; contention needs 2 or more writers",
            ));
        }
        let mut parts = Vec::new();
        if self.nodes.len() <= 1 {
            let nodes = &self.nodes;
            parts.push(match self.host_nodes {
                0 | 1 => "node and global share one node here; cross-node cost needs a multi-node host (`contend matrix` there, or the guest check)".to_string(),
                _ => format!("node and global share node {nodes} here (every writer is on it); cross-node cost needs writers on two nodes (--writers SPEC)"),
            });
        }
        if self.llcs.len() <= 1 {
            parts.push(match self.host_llcs {
                0 | 1 => "llc and global share one LLC here; cross-LLC cost needs a host with several LLCs".to_string(),
                _ => "llc and global share one LLC here (every writer is in it); cross-LLC cost needs writers on two LLCs (--writers SPEC)".to_string(),
            });
        }
        if self.cores <= 1 {
            parts.push(
                "the writers are SMT siblings of one core, so the line never leaves it; cross-core cost needs writers on two cores"
                    .to_string(),
            );
        }
        (!parts.is_empty()).then(|| Verdict::new(Topic::Host, parts.join("; ")))
    }

    /// What the headline says this host cannot answer about splitting; `None` when its writers span
    /// nodes and LLCs.
    pub(super) fn split_caveat(&self) -> Option<String> {
        if !self.located {
            return None;
        }
        if self.writers < 2 {
            return Some("one writer moves no line between CPUs".to_string());
        }
        self.cannot_say("writers")
    }

    /// `this host cannot say what splitting across nodes or LLCs saves: its {who} share one node
    /// and one LLC`, naming what these CPUs do not span.
    pub(super) fn cannot_say(&self, who: &str) -> Option<String> {
        if !self.located {
            return None;
        }
        let levels = [
            (&self.nodes, "one node", "nodes"),
            (&self.llcs, "one LLC", "LLCs"),
        ];
        let (shared, across): (Vec<&str>, Vec<&str>) = levels
            .iter()
            .filter(|(cpus, ..)| cpus.len() <= 1)
            .map(|&(_, one, many)| (one, many))
            .unzip();
        let (across, shared) = (across.join(" or "), shared.join(" and "));
        (!shared.is_empty()).then(|| {
            format!("this host cannot say what splitting across {across} saves: its {who} share {shared}")
        })
    }
}
