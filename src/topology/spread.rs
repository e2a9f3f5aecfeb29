//! The order in which the kernel's `cpumask_local_spread(i, node)` hands out CPUs, as the kernel
//! computes it since v6.3 (NUMA hops) and before it (local node, then everything else by id).

use super::{CpuList, Topology};
use std::collections::BTreeSet;

/// A node id that is not online; the message names the online nodes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("node {node} does not exist (online nodes: {online})")]
pub struct UnknownNode {
    /// The id asked for.
    pub node: u32,
    /// The online node ids.
    pub online: CpuList,
}

/// One NUMA hop from a node: level `l` of the kernel's masks (as `contend spread` shows it:
/// its distance and the CPUs it adds).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Hop {
    /// The distance of this level.
    pub distance: u32,
    /// `mask[l][n]`: the online CPUs of every CPU-bearing node at most `distance` away.
    #[serde(skip)]
    pub mask: CpuList,
    /// `mask[l][n] \ mask[l-1][n]` in ascending CPU id.
    pub cpus: Vec<u32>,
}

/// The hops of one online node.
#[derive(Debug, Clone)]
pub struct NodeHops {
    /// The node's id.
    id: u32,
    /// The node whose distance row orders this node's spread.
    pub source: u32,
    /// The hops its CPUs are handed out by, one per level in level order.
    pub hops: Vec<Hop>,
}

/// The kernel's NUMA hop masks for every online node, computed once from a [`Topology`] so each
/// [`HopOrder::local_spread`] lookup is a binary search.
#[derive(Debug, Clone)]
pub struct HopOrder {
    /// Every online node, ascending by id.
    nodes: Vec<NodeHops>,
    /// Number of online CPUs, the modulus of `i`.
    online: usize,
}

impl HopOrder {
    /// Builds the levels and, for every online node, its cumulative hop masks.
    pub fn new(topo: &Topology) -> Self {
        // Positions in `topo.nodes` of the CPU-bearing nodes, ascending by
        // id so that the nearest-node search breaks ties to the lowest id.
        let mut bearing: Vec<usize> = (0..topo.nodes.len())
            .filter(|&p| !topo.nodes[p].cpus.is_empty())
            .collect();
        bearing.sort_by_key(|&p| topo.nodes[p].id);
        let levels: Vec<u32> = bearing
            .iter()
            .flat_map(|&a| bearing.iter().map(move |&b| topo.distances[a][b]))
            .collect::<BTreeSet<u32>>()
            .into_iter()
            .collect();

        let mut nodes: Vec<NodeHops> = topo
            .nodes
            .iter()
            .enumerate()
            .map(|(pos, node)| {
                let row_of = |p: usize| &topo.distances[p];
                // `min_by_key` keeps the first of equal minima: strict `<`.
                let src = if node.cpus.is_empty() {
                    bearing
                        .iter()
                        .copied()
                        .min_by_key(|&k| row_of(pos)[k])
                        .unwrap_or(pos)
                } else {
                    pos
                };
                let row = row_of(src);
                let mut prev = CpuList::new();
                let hops = levels
                    .iter()
                    .map(|&distance| {
                        let mask: CpuList = bearing
                            .iter()
                            .filter(|&&k| row[k] <= distance)
                            .flat_map(|&k| topo.nodes[k].cpus.iter())
                            .filter(|&c| topo.online_cpus.contains(c))
                            .collect();
                        let cpus = mask.iter().filter(|&c| !prev.contains(c)).collect();
                        prev = mask.clone();
                        Hop {
                            distance,
                            mask,
                            cpus,
                        }
                    })
                    .collect();
                NodeHops {
                    id: node.id,
                    source: topo.nodes[src].id,
                    hops,
                }
            })
            .collect();
        nodes.sort_by_key(|n| n.id);

        let online = topo.online_cpus.len();
        Self { nodes, online }
    }

    /// The kernel's `cpumask_local_spread(i, node)` (v6.3 onwards).
    pub fn local_spread(&self, i: usize, node: u32) -> Option<u32> {
        let hops = &self.node(node).ok()?.hops;
        nth(hops, i.checked_rem(self.online)?)
    }

    /// `local_spread(i, node)` for `i = 0, 1, …` up to the number of online CPUs.
    pub fn order(&self, node: u32) -> Result<Vec<u32>, UnknownNode> {
        let hops = &self.node(node)?.hops;
        Ok((0..self.online).map_while(|i| nth(hops, i)).collect())
    }

    /// The hops of `node`, or the error naming the online nodes.
    pub fn node(&self, node: u32) -> Result<&NodeHops, UnknownNode> {
        let at = self.nodes.binary_search_by_key(&node, |n| n.id);
        at.map(|p| &self.nodes[p]).map_err(|_| UnknownNode {
            node,
            online: self.nodes.iter().map(|n| n.id).collect(),
        })
    }
}

/// `sched_numa_find_nth_cpu` on one node's hops, `i` already reduced.
fn nth(hops: &[Hop], i: usize) -> Option<u32> {
    let hop = hops.partition_point(|h| h.mask.len() <= i);
    let before = hop.checked_sub(1).map_or(0, |p| hops[p].mask.len());
    hops.get(hop)?.cpus.get(i - before).copied()
}

/// The pre-v6.3 `cpumask_local_spread` order for `node`.
pub fn old_order(topo: &Topology, node: u32) -> Result<Vec<u32>, UnknownNode> {
    let local = &topo.known_node(node)?.cpus;
    let (mut near, far): (Vec<u32>, Vec<u32>) =
        topo.online_cpus.iter().partition(|&c| local.contains(c));
    near.extend(far);
    Ok(near)
}

/// What `contend spread` shows: the order `cpumask_local_spread(i, node)` hands out CPUs in, and
/// (for the v6.3+ order) its hops.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SpreadReport {
    /// The node spread from.
    pub node: u32,
    /// "hops" (v6.3+) or "old" (pre-v6.3).
    pub algorithm: &'static str,
    /// The node whose distances order the spread (a CPU-less node uses its nearest CPU node).
    pub source_node: Option<u32>,
    /// `cpumask_local_spread(i, node)` for i = 0, 1, …
    pub order: Vec<u32>,
    /// The hops of the new order (empty for the old one).
    pub hops: Vec<Hop>,
}

impl SpreadReport {
    /// The spread from `node`: the v6.3+ hop order, or with `old` the pre-v6.3 order.
    pub fn new(topo: &Topology, node: u32, old: bool) -> Result<Self, UnknownNode> {
        if old {
            return Ok(SpreadReport {
                node,
                algorithm: "old",
                source_node: None,
                order: old_order(topo, node)?,
                hops: Vec::new(),
            });
        }
        let order = HopOrder::new(topo);
        let from = order.node(node)?;
        Ok(SpreadReport {
            node,
            algorithm: "hops",
            source_node: Some(from.source),
            order: order.order(node)?,
            hops: from.hops.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{Node, fixture};
    use std::path::Path;

    fn ids(s: &str) -> Vec<u32> {
        CpuList::parse(s).unwrap().to_vec()
    }

    /// The hop distances, the same for every node (node 0's).
    fn levels(h: &HopOrder) -> Vec<u32> {
        h.node(0).unwrap().hops.iter().map(|h| h.distance).collect()
    }

    /// `ids` of several cpulists, concatenated in the given order.
    fn seq(parts: &[&str]) -> Vec<u32> {
        parts.iter().flat_map(|p| ids(p)).collect()
    }

    /// A hand-built topology: `cpus[i]` is node i's cpulist, `dist` the SLIT.
    fn synthetic(cpus: &[&str], dist: &[&[u32]]) -> Topology {
        let node = |(c, id)| {
            let cpus = CpuList::parse(c).unwrap();
            let has_cpu = !cpus.is_empty();
            Node {
                id,
                has_cpu,
                has_memory: true,
                cpus,
            }
        };
        let nodes: Vec<Node> = cpus.iter().copied().zip(0u32..).map(node).collect();
        let online: CpuList = nodes.iter().flat_map(|n| n.cpus.iter()).collect();
        Topology {
            online_cpus: online.clone(),
            possible_nodes: nodes.iter().map(|n| n.id).collect(),
            distances: dist.iter().map(|r| r.to_vec()).collect(),
            nodes,
            allowed_cpus: online,
            ..Topology::default()
        }
    }

    #[test]
    fn published_vm_example_new_and_old() {
        let t = fixture("vm-4node-norov");
        let h = HopOrder::new(&t);
        assert_eq!(levels(&h), [10, 30, 50, 70]);
        let new = [
            (0, seq(&["0-3", "6-7", "4-5", "8-15"])),
            (1, seq(&["4-5", "8-15", "0-3", "6-7"])),
            (2, seq(&["6-7", "0-3", "8-15", "4-5"])),
            (3, seq(&["8-15", "4-5", "6-7", "0-3"])),
        ];
        for (node, want) in new {
            assert_eq!(h.order(node).unwrap(), want, "new order, node {node}");
            for (i, &cpu) in want.iter().enumerate() {
                assert_eq!(h.local_spread(i, node), Some(cpu), "i={i} node={node}");
                // The index wraps modulo the online CPUs.
                assert_eq!(h.local_spread(i + 16, node), Some(cpu));
                assert_eq!(h.local_spread(i + 5 * 16, node), Some(cpu));
            }
        }
        let old = [
            (0, ids("0-15")),
            (1, seq(&["4-5", "0-3", "6-15"])),
            (2, seq(&["6-7", "0-5", "8-15"])),
            (3, seq(&["8-15", "0-7"])),
        ];
        for (node, want) in old {
            assert_eq!(old_order(&t, node).unwrap(), want, "old order, node {node}");
        }
        // Node 1's masks are cumulative by distance.
        let hops = &h.node(1).unwrap().hops;
        let masks: Vec<String> = hops.iter().map(|h| h.mask.to_string()).collect();
        assert_eq!(masks, ["4-5", "4-5,8-15", "0-5,8-15", "0-15"]);
        let added: Vec<Vec<u32>> = hops.iter().map(|h| h.cpus.clone()).collect();
        assert_eq!(added, [ids("4-5"), ids("8-15"), ids("0-3"), ids("6-7")]);
        // An unknown node is an error naming the online ones.
        let unknown = "node 7 does not exist (online nodes: 0-3)";
        assert_eq!(h.order(7).unwrap_err().to_string(), unknown);
        assert_eq!(old_order(&t, 7).unwrap_err().to_string(), unknown);
        assert_eq!(h.node(4).unwrap_err().node, 4);
        assert_eq!(h.local_spread(0, 7), None);
    }

    #[test]
    fn every_fixture_gives_sane_orders() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/topology");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if !path.is_dir() {
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let t = Topology::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            let h = HopOrder::new(&t);
            let online = t.online_cpus.to_vec();
            for node in &t.nodes {
                let ctx = format!("{name} node {}", node.id);
                let own = node.cpus.to_vec();
                let new = h.order(node.id).unwrap();
                let old = old_order(&t, node.id).unwrap();
                for (kind, order) in [("new", &new), ("old", &old)] {
                    let mut sorted = order.clone();
                    sorted.sort_unstable();
                    assert_eq!(sorted, online, "{ctx}: {kind} order is not a permutation");
                    let first = &order[..own.len()];
                    assert_eq!(first, own, "{ctx}: {kind} order not own CPUs first");
                }
                let src = h.node(node.id).unwrap().source;
                let dist = |&c: &u32| t.distance(src, t.node_of_cpu(c).unwrap()).unwrap();
                let dists: Vec<u32> = new.iter().map(dist).collect();
                let rising = dists.windows(2).all(|w| w[0] <= w[1]);
                assert!(rising, "{ctx}: hop distances go down: {dists:?}");
            }
            seen += 1;
        }
        assert!(seen >= 10, "only {seen} fixtures found");
    }

    #[test]
    fn cpuless_node_spreads_like_its_nearest_cpu_node() {
        let t = fixture("cpuless-memless");
        let h = HopOrder::new(&t);
        // Node 2's row is [14, 24, 10]: node 0 (14) is nearer than node 1 (24).
        assert_eq!(h.node(2).unwrap().source, 0);
        assert_eq!(h.node(1).unwrap().source, 1);
        assert_eq!(h.order(2).unwrap(), h.order(0).unwrap());
        assert_eq!(h.order(2).unwrap(), ids("0-7"));
        assert_eq!(h.order(1).unwrap(), seq(&["4-7", "0-3"]));
        // Levels come from CPU-bearing nodes only: 14 and 24 involve node 2.
        assert_eq!(levels(&h), [10, 21]);
        // The old kernel had no local CPUs for node 2: plain id order.
        assert_eq!(old_order(&t, 2).unwrap(), ids("0-7"));
    }

    #[test]
    fn hand_built_layouts_spread_as_the_kernel_does() {
        let tie: &[&[u32]] = &[&[10, 20, 20], &[20, 10, 20], &[20, 20, 10]];
        // Node 0's row says node 0 is nearer to node 2, node 2's own row node 1.
        let own: &[&[u32]] = &[&[10, 20, 15], &[20, 10, 40], &[30, 25, 10]];
        let hop: &[&[u32]] = &[&[10, 20, 20], &[20, 10, 30], &[20, 30, 10]];
        let (cpuless, odd): (&[&str], &[&str]) = (&["0-1", "2-3", ""], &["0,5", "1,3", "2,4"]);
        // (node cpulists, SLIT, node asked, its source node, new order, old order)
        type Row<'a> = (
            &'a [&'a str],
            &'a [&'a [u32]],
            u32,
            u32,
            &'a [u32],
            &'a [u32],
        );
        let rows: [Row; 4] = [
            // Node 2 has no CPUs and is 20 from both: the lowest id wins.
            (cpuless, tie, 2, 0, &[0, 1, 2, 3], &[0, 1, 2, 3]),
            // The row of the CPU-less node decides.
            (cpuless, own, 2, 1, &[2, 3, 0, 1], &[0, 1, 2, 3]),
            // Nodes 1 and 2 are both 20 from node 0: their CPUs interleave by id.
            (odd, hop, 0, 0, &[0, 5, 1, 2, 3, 4], &[0, 5, 1, 2, 3, 4]),
            (odd, hop, 1, 1, &[1, 3, 0, 5, 2, 4], &[1, 3, 0, 2, 4, 5]),
        ];
        for (i, (cpus, dist, node, source, new, old)) in rows.into_iter().enumerate() {
            let t = synthetic(cpus, dist);
            let h = HopOrder::new(&t);
            assert_eq!(h.node(node).unwrap().source, source, "row {i}");
            assert_eq!(h.order(node).unwrap(), new, "row {i}");
            assert_eq!(old_order(&t, node).unwrap(), old, "row {i}");
        }
    }

    #[test]
    fn asymmetric_distances_are_read_from_the_nodes_own_row() {
        // SLIT [[10,20],[30,10]]: from node 1, node 0 is 30 away, not 20.
        let h = HopOrder::new(&fixture("asymmetric"));
        assert_eq!(levels(&h), [10, 20, 30]);
        let nonempty = |n| -> Vec<u32> {
            let hops = h.node(n).unwrap().hops.iter();
            hops.filter(|h| !h.cpus.is_empty())
                .map(|h| h.distance)
                .collect()
        };
        assert_eq!(nonempty(0), [10, 20]);
        assert_eq!(nonempty(1), [10, 30]);
        assert_eq!(h.order(1).unwrap(), seq(&["4-7", "0-3"]));
    }

    #[test]
    fn amd_nps4_fills_the_socket_before_crossing() {
        let t = fixture("amd-2s-nps4-8node");
        let h = HopOrder::new(&t);
        assert_eq!(levels(&h), [10, 12, 32]);
        let order = h.order(0).unwrap();
        assert_eq!(order[..16], seq(&["0-7", "64-71"]));
        // Nodes 1-3 together, by CPU id, not node by node.
        assert_eq!(order[16..64], seq(&["8-31", "72-95"]));
        assert_eq!(order[64..], seq(&["32-63", "96-127"]));
        // The old order crosses the socket right after the local node.
        let old = old_order(&t, 0).unwrap();
        assert_eq!(old[..16], seq(&["0-7", "64-71"]));
        assert_eq!(old[16..], seq(&["8-63", "72-127"]));
    }

    #[test]
    fn offline_cpus_are_never_handed_out() {
        let t = fixture("offline-cpus");
        let h = HopOrder::new(&t);
        assert_eq!(h.order(1).unwrap(), [4, 6, 7, 0, 1, 3]);
        assert_eq!(h.local_spread(6, 1), Some(4));
        // A hand-built model whose node lists a CPU that is not online.
        let mut t = synthetic(&["0-1", "2-3"], &[&[10, 20], &[20, 10]]);
        t.online_cpus = CpuList::parse("0-2").unwrap();
        let h = HopOrder::new(&t);
        assert_eq!(h.order(1).unwrap(), [2, 0, 1]);
        assert_eq!(h.local_spread(3, 1), Some(2));
        assert_eq!(old_order(&t, 1).unwrap(), [2, 0, 1]);
    }
}
