//! `contend matrix --home-classes`: each class's transfers priced by where the line's memory lives,
//! on the requesting CPU's node or on another.

use super::{PairClass, PlannedPair, Transaction, measure_transactions};
use crate::clock::Timer;
use crate::placement::PlacementError;
use crate::stats::{TIMING_TRIM, trimmed_mean};
use crate::topology::Topology;
use serde::{Deserialize, Serialize};

/// Pairs measured per class.
pub const PAIRS_PER_CLASS: usize = 2;
/// Samples each CPU of a pair times per transaction and home.
pub const SAMPLES: usize = 300;

/// Where one side's samples were taken, seen from the requesting CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HomeCost {
    /// SLIT distance from the requesting CPU's node to the line's.
    pub distance: u32,
    /// `read fetched` net ns: trimmed mean of the samples.
    pub read_fetched_ns: f64,
    /// `add moved` net ns: trimmed mean of the samples.
    pub add_moved_ns: f64,
    /// Samples of each transaction.
    pub samples: usize,
}

/// One class's transfers with the line local and remote to the requester.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HomeClass {
    /// The class.
    pub class: PairClass,
    /// The pairs measured, lower CPU first.
    pub pairs: Vec<[u32; 2]>,
    /// The line on the requesting CPU's node.
    pub local: HomeCost,
    /// The line on another node; `None` on a host with one memory node.
    pub remote: Option<HomeCost>,
}

/// Net ns samples of `read fetched` and `add moved`, and the largest distance they were taken at.
#[derive(Debug, Default)]
struct Pool {
    distance: u32,
    read_fetched: Vec<f64>,
    add_moved: Vec<f64>,
}

impl Pool {
    fn cost(&self) -> Option<HomeCost> {
        Some(HomeCost {
            distance: self.distance,
            read_fetched_ns: trimmed_mean(&self.read_fetched, TIMING_TRIM)?,
            add_moved_ns: trimmed_mean(&self.add_moved, TIMING_TRIM)?,
            samples: self.read_fetched.len(),
        })
    }
}

/// The homes a pair is measured with.
pub fn homes_of(topo: &Topology, a: u32, b: u32) -> Vec<u32> {
    let (Some(na), Some(nb)) = (topo.node_of_cpu(a), topo.node_of_cpu(b)) else {
        return Vec::new();
    };
    let mut homes = vec![na, nb];
    if na == nb {
        homes.pop();
        let other = topo
            .nodes
            .iter()
            .filter(|n| n.id != na && topo.check_memory_node(n.id).is_ok())
            .min_by_key(|n| (topo.distance(na, n.id).unwrap_or(u32::MAX), n.id));
        homes.extend(other.map(|n| n.id));
    }
    homes.retain(|&n| topo.check_memory_node(n).is_ok());
    homes
}

/// Splits the net samples of one `measure_transactions` call (the lower CPU's `per_side` first)
/// between the local and remote pools, by whether `home` is each CPU's node.
fn pool_sides(
    topo: &Topology,
    pair: [u32; 2],
    home: u32,
    samples: &[Vec<f64>],
    per_side: usize,
    pools: &mut [Pool; 2],
) {
    // Transaction::ALL lists them in their declared order.
    let of = |t: Transaction| samples.get(t as usize).map_or(&[][..], Vec::as_slice);
    let (fetched, moved) = (of(Transaction::ReadFetched), of(Transaction::AddMoved));
    for (side, &cpu) in pair.iter().enumerate() {
        let node = topo.node_of_cpu(cpu).unwrap_or(home);
        let pool = &mut pools[usize::from(node != home)];
        let range = side * per_side..(side + 1) * per_side;
        pool.distance = pool.distance.max(topo.distance(node, home).unwrap_or(0));
        pool.read_fetched
            .extend(fetched.get(range.clone()).unwrap_or(&[]));
        pool.add_moved.extend(moved.get(range).unwrap_or(&[]));
    }
}

/// Measures the classes of `pairs` (a per-class sample, each with its class) with the line on each
/// home [`homes_of`] gives, and prices each class local and remote.
pub fn measure_home_classes(
    topo: &Topology,
    pairs: &[PlannedPair],
    timer: Timer,
) -> Result<Vec<HomeClass>, PlacementError> {
    let classes: std::collections::BTreeSet<PairClass> = pairs.iter().map(|p| p.class).collect();
    let mut out = Vec::with_capacity(classes.len());
    for class in classes {
        let mut pools: [Pool; 2] = Default::default();
        let mut measured = Vec::new();
        for p in pairs.iter().filter(|p| p.class == class) {
            for home in homes_of(topo, p.a, p.b) {
                let s = measure_transactions(p.a, p.b, home, SAMPLES, timer, &topo.allowed_cpus)?;
                pool_sides(topo, [p.a, p.b], home, &s, SAMPLES, &mut pools);
            }
            measured.push([p.a, p.b]);
        }
        let [local, remote] = pools;
        if let Some(local) = local.cost() {
            out.push(HomeClass {
                class,
                pairs: measured,
                local,
                remote: remote.cost(),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::fixture;

    #[test]
    fn a_pair_is_homed_on_each_node_and_a_node_pair_on_the_nearest_other() {
        // amd-2s-nps4-8node: CPU 0 on node 0, 4 also on node 0, 8 on node
        // 1 (distance 12), 32 on node 4 (distance 32).
        let t = fixture("amd-2s-nps4-8node");
        assert_eq!(homes_of(&t, 0, 8), [0, 1]);
        assert_eq!(homes_of(&t, 0, 32), [0, 4]);
        // Same node: node 0, then the nearest other, node 1 at 12.
        assert_eq!(homes_of(&t, 0, 4), [0, 1]);
        // cpuless-memless: node 0 (CPUs 0-3), node 1 (CPUs 4-7, no
        // memory), node 2 (memory only, 14 from node 0). Same node: node 0
        // and node 2; a CPU on the memoryless node: only the other's.
        let vm = fixture("cpuless-memless");
        assert_eq!(homes_of(&vm, 0, 1), [0, 2]);
        assert_eq!(homes_of(&vm, 0, 4), [0]);
        // One node: nothing else to bind to.
        assert_eq!(homes_of(&fixture("no-numa"), 0, 1), [0]);
    }

    #[test]
    fn each_side_counts_local_on_its_own_node_and_remote_elsewhere() {
        // Pair (0, 8) of the NPS4 fixture: CPU 0 on node 0, 8 on node 1.
        // Homed on node 0, CPU 0's samples are local and 8's remote (at
        // distance 12); read fetched is transaction 1, add moved 0.
        let t = fixture("amd-2s-nps4-8node");
        let samples = |a: f64, b: f64| {
            let mut s = vec![Vec::new(); Transaction::ALL.len()];
            s[0] = vec![a, a, b, b];
            s[1] = vec![a + 1.0, a + 1.0, b + 1.0, b + 1.0];
            s
        };
        let mut pools: [Pool; 2] = Default::default();
        pool_sides(&t, [0, 8], 0, &samples(50.0, 90.0), 2, &mut pools);
        // Homed on node 1: 8 local, 0 remote.
        pool_sides(&t, [0, 8], 1, &samples(100.0, 60.0), 2, &mut pools);
        let local = pools[0].cost().unwrap();
        let remote = pools[1].cost().unwrap();
        // Local: 50, 50, 60, 60 -> 55; remote: 90, 90, 100, 100 -> 95.
        assert_eq!((local.add_moved_ns, local.read_fetched_ns), (55.0, 56.0));
        assert_eq!((remote.add_moved_ns, remote.read_fetched_ns), (95.0, 96.0));
        let (distances, samples) = ((local.distance, remote.distance), local.samples);
        assert_eq!((distances, samples), ((10, 12), 4));
    }
}
