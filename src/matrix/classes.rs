//! Distance classes of CPU pairs, read from the topology, and which pairs of each class get
//! measured.

use crate::error::UnknownName;
use crate::topology::{Cpu, CpuList, Topology};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::fmt;

/// How far apart two CPUs are, as far as a shared cache line is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PairClass {
    /// SMT siblings: two threads of one core (the line stays in its L1/L2).
    Smt,
    /// Different cores sharing one last-level cache.
    SameLlc,
    /// One NUMA node, different last-level caches (AMD CCXs, Intel SNC).
    SameNode,
    /// Different NUMA nodes at this SLIT distance.
    CrossNode(u32),
}

impl PairClass {
    /// True for the classes inside one NUMA node.
    pub fn within_node(self) -> bool {
        !matches!(self, PairClass::CrossNode(_))
    }
}

/// `smt`, `same-llc`, `same-node`, `cross-node@D`: the names used in results, tables and `--help`.
impl fmt::Display for PairClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PairClass::Smt => f.write_str("smt"),
            PairClass::SameLlc => f.write_str("same-llc"),
            PairClass::SameNode => f.write_str("same-node"),
            PairClass::CrossNode(d) => write!(f, "cross-node@{d}"),
        }
    }
}

/// The inverse of `Display`.
impl std::str::FromStr for PairClass {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        match s {
            "smt" => Ok(PairClass::Smt),
            "same-llc" => Ok(PairClass::SameLlc),
            "same-node" => Ok(PairClass::SameNode),
            _ => s
                .strip_prefix("cross-node@")
                .and_then(|d| d.parse().ok())
                .map(PairClass::CrossNode)
                .ok_or_else(|| {
                    UnknownName::new(
                        "pair class",
                        s,
                        ["smt", "same-llc", "same-node", "cross-node@D"],
                    )
                }),
        }
    }
}

/// The class of the pair `(a, b)` on `topo`; an error names a CPU that is not online.
pub fn classify(topo: &Topology, a: u32, b: u32) -> Result<PairClass, OfflineCpu> {
    let (ca, cb) = (cpu_of(topo, a)?, cpu_of(topo, b)?);
    Ok(if ca.siblings.contains(b) || cb.siblings.contains(a) {
        PairClass::Smt
    } else if ca.llc == cb.llc {
        PairClass::SameLlc
    } else if ca.node == cb.node {
        PairClass::SameNode
    } else {
        let d = |x, y| topo.distance(x, y).unwrap_or(0);
        PairClass::CrossNode(d(ca.node, cb.node).max(d(cb.node, ca.node)))
    })
}

/// A CPU that is not online, naming those that are.
/// CPU `id` of `topo`, or the error naming it among the online CPUs.
pub fn cpu_of(topo: &Topology, id: u32) -> Result<&Cpu, OfflineCpu> {
    topo.cpu(id).ok_or_else(|| OfflineCpu {
        cpu: id,
        online: topo.online_cpus.clone(),
    })
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("CPU {cpu} is not online (online: {online})")]
pub struct OfflineCpu {
    /// The CPU asked for.
    pub cpu: u32,
    /// The online CPUs.
    pub online: CpuList,
}

/// One pair of CPUs to measure, `a < b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedPair {
    /// The lower CPU id.
    pub a: u32,
    /// The higher CPU id.
    pub b: u32,
    /// Their distance class.
    pub class: PairClass,
}

/// The pairs chosen for measurement, and how many of each class there were.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairSelection {
    /// Pairs to measure, ordered by `(a, b)`.
    pub pairs: Vec<PlannedPair>,
    /// Every class among the chosen CPUs with its number of pairs (before any cap).
    pub candidates: BTreeMap<PairClass, usize>,
}

/// Seed of the pair sample: the same pairs on every run of one host.
const SAMPLE_SEED: u64 = 0x6d61_7472_6978; // "matrix"

/// Classifies every pair `a < b` of `cpus` and keeps at most `per_class` a class: its first pair
/// plus a fixed-seed random sample of the rest (spread over both CPUs, as an even pick is not).
pub fn select_pairs(
    topo: &Topology,
    cpus: &[u32],
    per_class: Option<usize>,
) -> Result<PairSelection, OfflineCpu> {
    let mut ids = cpus.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let mut by_class: BTreeMap<PairClass, Vec<PlannedPair>> = BTreeMap::new();
    for (i, &a) in ids.iter().enumerate() {
        for &b in &ids[i + 1..] {
            let class = classify(topo, a, b)?;
            by_class
                .entry(class)
                .or_default()
                .push(PlannedPair { a, b, class });
        }
    }
    let candidates = by_class.iter().map(|(c, v)| (*c, v.len())).collect();
    let mut pairs: Vec<PlannedPair> = by_class
        .into_values()
        .flat_map(|v| match per_class {
            Some(cap) if v.len() > cap => sample(&v, cap),
            _ => v,
        })
        .collect();
    pairs.sort_unstable_by_key(|p| (p.a, p.b));
    Ok(PairSelection { pairs, candidates })
}

/// `v[0]` and `cap - 1` other items of `v` (`cap < v.len()`) picked by a partial Fisher-Yates
/// shuffle seeded with [`SAMPLE_SEED`], so a class's sample depends only on its own pairs.
fn sample(v: &[PlannedPair], cap: usize) -> Vec<PlannedPair> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(SAMPLE_SEED);
    let mut rest: Vec<usize> = (1..v.len()).collect();
    for i in 0..cap.saturating_sub(1) {
        let j = i + (rng.next_u64() % (rest.len() - i) as u64) as usize;
        rest.swap(i, j);
    }
    std::iter::once(0)
        .chain(rest.into_iter().take(cap.saturating_sub(1)))
        .map(|i| v[i])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_round_trip_and_order_nearest_first() {
        use PairClass::*;
        let all = [Smt, SameLlc, SameNode, CrossNode(12), CrossNode(32)];
        let names = [
            "smt",
            "same-llc",
            "same-node",
            "cross-node@12",
            "cross-node@32",
        ];
        for (class, name) in all.iter().zip(names) {
            assert_eq!(class.to_string(), name);
            assert_eq!(name.parse::<PairClass>(), Ok(*class));
        }
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert!(all[..3].iter().all(|c| c.within_node()));
        assert!(!PairClass::CrossNode(12).within_node());
        for bad in ["cross-node@", "cross-node@x", "same-socket", ""] {
            let err = bad.parse::<PairClass>().unwrap_err().to_string();
            assert!(err.contains("pair class"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_sibling_listed_on_either_side_makes_the_pair_smt() {
        // The Sapphire Rapids fixture: 0 and 112 are SMT siblings. A sysfs
        // that lists the sibling on one CPU only still makes them SMT.
        let mut topo = crate::topology::fixture("spr-2s-224");
        assert_eq!(classify(&topo, 0, 112), Ok(PairClass::Smt));
        let i = topo.cpus.iter().position(|c| c.id == 0).unwrap();
        topo.cpus[i].siblings = CpuList::parse("0").unwrap();
        assert_eq!(classify(&topo, 0, 112), Ok(PairClass::Smt));
        assert_eq!(classify(&topo, 112, 0), Ok(PairClass::Smt));
    }
}
