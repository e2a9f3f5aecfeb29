//! A host inferred from its pair matrix alone (a core-to-core-latency CSV): SMT siblings,
//! last-level caches and nodes (sockets), each class's transfer time with its spread, and, on a
//! host whose matrix was measured with the line on one socket, which socket that was.

use super::c2c::PairMatrix;
use super::class::{ClassLatency, LatencyKey};
use super::latency::Latencies;
use crate::matrix::{PairClass, classify};
use crate::stats::quantile;
use crate::topology::{Cpu, CpuList, Llc, Node, Topology};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Two sorted merge heights this many times apart are two tiers.
pub const TIER_GAP: f64 = 1.5;

/// A pair more than this many times off what the rest of the matrix says it should be is an outlier
/// and is replaced by that estimate.
pub const OUTLIER_FACTOR: f64 = 2.0;

/// An LLC shared by more CPUs than this spans a whole die.
pub const DIE_WIDE_LLC_CPUS: usize = 16;

/// The most third CPUs a pair's outlier estimate asks.
pub const THIRD_CPUS: usize = 128;

/// The SLIT distance given to two inferred nodes.
pub const INFERRED_DISTANCE: u32 = 20;

/// One class's pairs in the matrix, ns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InferredClass {
    /// The class (`smt`, `same-llc`, `same-node`, `cross-node@D`).
    pub class: PairClass,
    /// Pairs of it the figures come from.
    pub pairs: usize,
    /// The median pair, ns.
    pub median_ns: f64,
    /// The 5th percentile pair, ns.
    pub p5_ns: f64,
    /// The 95th percentile pair, ns.
    pub p95_ns: f64,
}

/// A pair class on which the matrix and a captured topology disagree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    /// The class the matrix infers.
    pub matrix: PairClass,
    /// The class the capture gives.
    pub capture: PairClass,
    /// How many pairs.
    pub pairs: usize,
}

/// A host read from a pair matrix: its layout, its class latencies and how they were inferred.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InferredHost {
    /// The file it was read from.
    pub source: String,
    /// The layout the model uses: as inferred, or a capture's when given.
    pub topology: Topology,
    /// The node (socket) the line lived on while the matrix was measured, when the matrix shows it.
    pub home_node: Option<u32>,
    /// The classes of the pairs, nearest first, each's figures from the pairs the line was local
    /// for.
    pub classes: Vec<InferredClass>,
    /// Pairs of one node other than the home node, in different LLCs.
    pub away_same_node: Option<InferredClass>,
    /// Pairs replaced as outliers (more than [`OUTLIER_FACTOR`]× off).
    pub outliers: usize,
    /// Where a capture's topology and the matrix disagree.
    pub disagreements: Vec<Disagreement>,
    /// How it was inferred, one sentence each.
    pub notes: Vec<String>,
}

/// One merge of the average-linkage hierarchy: two clusters joined at the mean latency between
/// them, ns.
#[derive(Debug, Clone, Copy)]
struct Merge {
    a: usize,
    b: usize,
    height: f64,
}

/// Average linkage (UPGMA) by the nearest-neighbour chain: `n - 1` merges, O(n²) time, on `d`.
fn average_linkage(n: usize, mut d: Vec<f64>) -> Vec<Merge> {
    let mut size = vec![1usize; n];
    let mut active = vec![true; n];
    let mut alive: Vec<usize> = (0..n).collect();
    let mut chain: Vec<usize> = Vec::new();
    let mut merges = Vec::with_capacity(n.saturating_sub(1));
    while alive.len() > 1 {
        if chain.is_empty() {
            chain.push(alive[0]);
        }
        let a = *chain.last().expect("chain is not empty");
        let prev = chain.len().checked_sub(2).map(|i| chain[i]);
        let mut best = prev.unwrap_or(usize::MAX);
        let mut best_d = prev.map_or(f64::INFINITY, |p| d[a * n + p]);
        for &k in &alive {
            if k != a && d[a * n + k] < best_d {
                best = k;
                best_d = d[a * n + k];
            }
        }
        if Some(best) == prev {
            chain.truncate(chain.len() - 2);
            let b = best;
            merges.push(Merge {
                a,
                b,
                height: best_d,
            });
            let (sa, sb) = (size[a] as f64, size[b] as f64);
            for &k in &alive {
                if k != a && k != b {
                    let v = (sa * d[a * n + k] + sb * d[b * n + k]) / (sa + sb);
                    d[a * n + k] = v;
                    d[k * n + a] = v;
                }
            }
            size[a] += size[b];
            active[b] = false;
            alive.retain(|&k| active[k]);
        } else {
            chain.push(best);
        }
    }
    merges
}

/// The heights, ns, at which to cut `merges` (sorted by height) into tiers.
fn tiers(n: usize, merges: &[Merge]) -> Vec<f64> {
    // (index of the last merge below the jump, its ratio)
    let mut jumps: Vec<(usize, f64)> = merges
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[1].height >= TIER_GAP * w[0].height)
        .map(|(k, w)| (k, w[1].height / w[0].height))
        .collect();
    loop {
        // Groups below jump `t` and merges between it and the previous.
        let thin = (0..jumps.len()).find(|&t| {
            let below = jumps.get(t.wrapping_sub(1)).map_or(0, |&(k, _)| k + 1);
            let groups = n - below;
            (jumps[t].0 + 1 - below) * 10 < groups
        });
        let Some(t) = thin else { break };
        // Too few merges below jump t: drop it or the one before it, whichever is smaller.
        if t > 0 && jumps[t - 1].1 < jumps[t].1 {
            jumps.remove(t - 1);
        } else {
            jumps.remove(t);
        }
    }
    jumps
        .iter()
        .map(|&(k, _)| (merges[k].height * merges[k + 1].height).sqrt())
        .collect()
}

/// Union-find: the root of `x`.
fn root(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// The groups the merges at or below `cut` make.
fn cut(n: usize, merges: &[Merge], cut: f64) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..n).collect();
    for m in merges.iter().filter(|m| m.height <= cut) {
        let (ra, rb) = (root(&mut parent, m.a), root(&mut parent, m.b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    let roots: Vec<usize> = (0..n).map(|i| root(&mut parent, i)).collect();
    renumber(&roots)
}

/// How many groups `of` has, and their sizes.
fn sizes(of: &[usize]) -> Vec<usize> {
    let mut s = vec![0; of.iter().max().map_or(0, |m| m + 1)];
    for &g in of {
        s[g] += 1;
    }
    s
}

/// The matrix with outliers replaced, and how many.
fn repaired(m: &PairMatrix) -> (Vec<f64>, usize) {
    let (n, mut d) = (m.cpus(), m.ns.clone());
    // At most 128 third CPUs per pair, spread over the whole host.
    let step = n.div_ceil(THIRD_CPUS).max(1);
    let mut far = Vec::new();
    let mut fixed = Vec::new();
    for i in 0..n {
        for j in 0..i {
            far.clear();
            let (mut bound, mut seen) = (f64::INFINITY, 0usize);
            for k in (0..n).step_by(step).filter(|&k| k != i && k != j) {
                let (a, b) = (m.ns(i, k), m.ns(j, k));
                seen += 1;
                bound = bound.min(a.max(b));
                if a.max(b) > OUTLIER_FACTOR * a.min(b) {
                    far.push(a.max(b));
                }
            }
            let v = m.ns(i, j);
            if far.len() >= 2 && far.len() * 20 >= seen {
                let estimate = median_in_place(&mut far);
                if v * OUTLIER_FACTOR < estimate || v > OUTLIER_FACTOR * estimate {
                    fixed.push((i, j, estimate));
                }
            } else if v > OUTLIER_FACTOR * bound {
                fixed.push((i, j, bound));
            }
        }
    }
    for &(i, j, e) in &fixed {
        (d[i * n + j], d[j * n + i]) = (e, e);
    }
    (d, fixed.len())
}

/// The median of `v` (the mean of the middle two when even), reordering it.
fn median_in_place(v: &mut [f64]) -> f64 {
    let (len, mid) = (v.len(), v.len() / 2);
    let (left, upper, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
    let upper = *upper;
    if len % 2 == 1 {
        upper
    } else {
        let lower = left.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        0.5 * (lower + upper)
    }
}

/// Median and 5th/95th percentiles of `v`.
fn figures(class: PairClass, v: &mut [f64]) -> InferredClass {
    v.sort_by(f64::total_cmp);
    InferredClass {
        class,
        pairs: v.len(),
        median_ns: quantile(v, 0.5),
        p5_ns: quantile(v, 0.05),
        p95_ns: quantile(v, 0.95),
    }
}

/// A topology of `n` CPUs with these SMT, LLC and node groups.
fn topology(smt: &[usize], llc: &[usize], node: &[usize]) -> Topology {
    let n = smt.len();
    let members = |of: &[usize], g: usize| -> CpuList {
        (0..n).filter(|&i| of[i] == g).map(|i| i as u32).collect()
    };
    let nodes_n = sizes(node).len();
    let nodes: Vec<Node> = (0..nodes_n)
        .map(|g| Node {
            id: g as u32,
            cpus: members(node, g),
            has_memory: true,
            has_cpu: true,
        })
        .collect();
    let distances = (0..nodes_n)
        .map(|a| {
            (0..nodes_n)
                .map(|b| if a == b { 10 } else { INFERRED_DISTANCE })
                .collect()
        })
        .collect();
    let llcs: Vec<Llc> = (0..sizes(llc).len())
        .map(|g| Llc {
            id: g as u32,
            level: 3,
            cpus: members(llc, g),
        })
        .collect();
    let cpus = (0..n)
        .map(|i| Cpu {
            id: i as u32,
            node: node[i] as u32,
            package: node[i] as u32,
            core: smt[i] as u32,
            siblings: members(smt, smt[i]),
            llc: llc[i] as u32,
        })
        .collect();
    let all: CpuList = (0..n as u32).collect();
    let node_ids: CpuList = (0..nodes_n as u32).collect();
    Topology {
        online_cpus: all.clone(),
        possible_nodes: node_ids.clone(),
        nodes,
        distances,
        cpus,
        llcs,
        allowed_cpus: all,
        allowed_mems: node_ids,
        notes: Vec::new(),
    }
}

/// Renumbers groups in order of their lowest CPU.
fn renumber(of: &[usize]) -> Vec<usize> {
    let mut index = BTreeMap::new();
    of.iter()
        .map(|&g| {
            let next = index.len();
            *index.entry(g).or_insert(next)
        })
        .collect()
}

/// Infers the host of `m` (read from `source`).
pub fn infer(m: &PairMatrix, source: &str, sockets: Option<usize>) -> InferredHost {
    let n = m.cpus();
    let mut notes = m.notes.clone();
    notes.push(format!(
        "CPU ids are the file's row numbers (0 to {}), as core-to-core-latency numbers them",
        n - 1
    ));
    let (d, outliers) = repaired(m);
    if outliers > 0 {
        notes.push(format!(
            "{outliers} of {} pairs were more than {OUTLIER_FACTOR}× off what the rest of the matrix says and were replaced by that estimate",
            n * (n - 1) / 2
        ));
    }
    let mut merges = average_linkage(n, d.clone());
    merges.sort_by(|a, b| a.height.total_cmp(&b.height));
    let mut parts: Vec<Vec<usize>> = tiers(n, &merges)
        .iter()
        .map(|&c| cut(n, &merges, c))
        .collect();
    let singles: Vec<usize> = (0..n).collect();
    let smt = match parts.first() {
        Some(p) if sizes(p).iter().all(|&s| s <= 2) && sizes(p).len() < n => parts.remove(0),
        _ => singles,
    };
    let everything = vec![0; n];
    let llc = parts.first().cloned().unwrap_or_else(|| everything.clone());
    if parts.len() > 2 {
        let extra: Vec<String> = parts[1..parts.len() - 1]
            .iter()
            .map(|p| format!("{} groups", sizes(p).len()))
            .collect();
        notes.push(format!(
            "a level between the LLCs and the nodes ({}; a CCD or a quadrant) is read as same-node",
            extra.join(", ")
        ));
    }
    let mut node = if parts.len() >= 2 {
        parts.last().cloned().expect("two or more")
    } else {
        everything.clone()
    };
    let home = home_socket(n, &llc, &mut node, &mut notes);
    settle_sockets(&llc, &mut node, sockets, &mut notes);
    notes.push(
        "a node is a socket here (the matrix cannot see a socket split into NUMA nodes)"
            .to_string(),
    );
    let topo = topology(&smt, &llc, &node);
    let mut host = InferredHost {
        source: source.to_string(),
        topology: topo,
        home_node: home,
        classes: Vec::new(),
        away_same_node: None,
        outliers,
        disagreements: Vec::new(),
        notes,
    };
    host.measure(&d);
    host
}

/// The home-socket effect: a node of several LLCs beside single-LLC groups is a socket whose memory
/// held the line; the other LLCs are given to sockets of its size in `node`, and its id returned.
fn home_socket(
    n: usize,
    llc: &[usize],
    node: &mut Vec<usize>,
    notes: &mut Vec<String>,
) -> Option<u32> {
    let node_sizes = sizes(node);
    let llc_sizes = sizes(llc);
    if node_sizes.len() > 2 {
        let (h, &big) = node_sizes
            .iter()
            .enumerate()
            .max_by_key(|(_, s)| **s)
            .expect("nodes");
        let singles_are_llcs = (0..node_sizes.len()).filter(|&g| g != h).all(|g| {
            let cpu = node.iter().position(|&x| x == g).expect("member");
            llc_sizes[llc[cpu]] == node_sizes[g]
        });
        if singles_are_llcs && n % big == 0 && big < n {
            let count = n / big;
            // The other LLCs fill the other sockets in order of their lowest CPU.
            let (mut fill, mut socket_of_llc) = (0usize, BTreeMap::new());
            for i in (0..n).filter(|&i| node[i] != h) {
                socket_of_llc.entry(llc[i]).or_insert_with(|| {
                    fill += llc_sizes[llc[i]];
                    1 + (fill - llc_sizes[llc[i]]) / big
                });
            }
            let raw: Vec<usize> = (0..n)
                .map(|i| {
                    socket_of_llc
                        .get(&llc[i])
                        .filter(|_| node[i] != h)
                        .copied()
                        .unwrap_or(0)
                })
                .collect();
            *node = renumber(&raw);
            let home_id = node[raw.iter().position(|&x| x == 0).expect("home")];
            notes.push(format!(
                "the line lived on socket {home_id} while this matrix was measured: on the other {}, CPUs in different LLCs paid about the cross-socket price, so {count} sockets of {big} CPUs are inferred from socket {home_id}'s size{}",
                if count == 2 { "socket" } else { "sockets" },
                if count > 2 {
                    " (the other LLCs are given to sockets in CPU order: the matrix cannot tell which share one)"
                } else {
                    ""
                }
            ));
            return Some(home_id as u32);
        }
    }
    None
}

/// Nodes from what the user knows (`sockets`) or what the LLCs say.
fn settle_sockets(
    llc: &[usize],
    node: &mut Vec<usize>,
    sockets: Option<usize>,
    notes: &mut Vec<String>,
) {
    let llc_n = sizes(llc).len();
    let die_wide = sizes(llc).iter().all(|&s| s > DIE_WIDE_LLC_CPUS);
    if sockets.is_none() && sizes(node).len() == 1 && llc_n > 1 && die_wide {
        *node = llc.to_vec();
        notes.push(format!(
            "every LLC group has more than {DIE_WIDE_LLC_CPUS} CPUs: each is a die's own LLC (an Intel socket's, or a sub-NUMA half), so the {llc_n} groups are {llc_n} nodes"
        ));
    }
    if let Some(k) = sockets {
        let nodes_n = sizes(node).len();
        if k != nodes_n {
            if k == llc_n && nodes_n == 1 {
                *node = llc.to_vec();
                notes.push(format!(
                    "sockets {k}: the {k} LLC groups are the sockets (the matrix alone shows LLCs, not sockets)"
                ));
            } else {
                notes.push(format!(
                    "sockets {k} disagrees with the matrix, which shows {nodes_n} node(s) and {llc_n} LLC group(s); the matrix's kept"
                ));
            }
        }
    } else if sizes(node).len() == 1 && llc_n > 1 {
        notes.push(format!(
            "one node of {llc_n} LLC groups: {llc_n} sockets of one LLC each would look the same (give \"sockets\": {llc_n} in a host-costs file (--host) if the host has them)"
        ));
    }
}

impl InferredHost {
    /// Sets the class figures from `d` (the repaired matrix) on this topology, leaving the
    /// same-node pairs away from the home node out.
    fn measure(&mut self, d: &[f64]) {
        let topo = &self.topology;
        let n = topo.cpus.len();
        let home = self.home_node;
        let mut away = Vec::new();
        let mut by: BTreeMap<PairClass, Vec<f64>> = BTreeMap::new();
        for i in 0..n {
            for j in 0..i {
                let c = classify(topo, i as u32, j as u32).expect("every CPU is online");
                let v = d[i * n + j];
                let node = topo.cpus[i].node;
                if c == PairClass::SameNode && home.is_some_and(|h| h != node) {
                    away.push(v);
                } else {
                    by.entry(c).or_default().push(v);
                }
            }
        }
        // Nearest class first.
        self.classes = by
            .into_iter()
            .map(|(c, mut v)| figures(c, &mut v))
            .collect();
        self.away_same_node = (!away.is_empty()).then(|| figures(PairClass::SameNode, &mut away));
    }

    /// The capture's topology instead of the inferred one.
    pub fn with_capture(mut self, m: &PairMatrix, capture: Topology, root: &str) -> Self {
        let n = m.cpus();
        if capture.cpus.len() != n || (0..n as u32).any(|c| capture.cpu(c).is_none()) {
            self.notes.push(format!(
                "the capture {root} has CPUs {} and the matrix 0-{}: the inferred layout is kept",
                capture.online_cpus,
                n - 1
            ));
            return self;
        }
        let mut count: BTreeMap<(PairClass, PairClass), usize> = BTreeMap::new();
        for i in 0..n as u32 {
            for j in 0..i {
                let a = classify(&self.topology, i, j).expect("inferred");
                let b = classify(&capture, i, j).expect("checked online");
                // The matrix has no SLIT: any two cross-node classes agree.
                let same =
                    a == b || matches!((a, b), (PairClass::CrossNode(_), PairClass::CrossNode(_)));
                if !same {
                    *count.entry((a, b)).or_default() += 1;
                }
            }
        }
        self.disagreements = count
            .into_iter()
            .map(|((matrix, capture), pairs)| Disagreement {
                matrix,
                capture,
                pairs,
            })
            .collect();
        self.notes.push(format!(
            "the capture {root} is the layout; the matrix's classes {}",
            if self.disagreements.is_empty() {
                "agree with it on every pair".to_string()
            } else {
                format!(
                    "disagree on {}",
                    self.disagreements
                        .iter()
                        .map(|d| format!(
                            "{} pairs (matrix {}, capture {})",
                            d.pairs, d.matrix, d.capture
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        ));
        // The home node in the capture's numbering: the node of the inferred home's lowest CPU.
        self.home_node = self.home_node.and_then(|h| {
            let cpu = self.topology.node(h)?.cpus.first()?;
            capture.node_of_cpu(cpu)
        });
        self.topology = capture;
        let (d, _) = repaired(m);
        self.measure(&d);
        self
    }

    /// The class latencies the model takes.
    pub fn latencies(&self) -> Latencies {
        Latencies {
            classes: self
                .classes
                .iter()
                .map(|c| {
                    let l = ClassLatency::from_spread(c.median_ns, c.p5_ns, c.p95_ns);
                    (LatencyKey::Class(c.class), l)
                })
                .collect(),
            source: self.source.clone(),
            ..Latencies::default()
        }
    }

    /// SMT groups (cores with more than one CPU), LLCs and nodes.
    pub fn counts(&self) -> (usize, usize, usize) {
        let t = &self.topology;
        let smt = t
            .cpus
            .iter()
            .filter(|c| c.siblings.len() > 1 && c.siblings.first() == Some(c.id))
            .count();
        (smt, t.llcs.len(), t.nodes.len())
    }

    /// Where the cost jumps most past the core.
    pub fn biggest_jump(&self) -> Option<(&InferredClass, &InferredClass)> {
        let ratio = |w: &[InferredClass]| w[1].median_ns / w[0].median_ns;
        let steps = || self.classes.windows(2);
        steps()
            .filter(|w| !w[1].class.within_node() || w[1].class == PairClass::SameNode)
            .max_by(|a, b| ratio(a).total_cmp(&ratio(b)))
            .or_else(|| steps().next())
            .map(|w| (&w[0], &w[1]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::tests::{noted, says};
    use crate::topology::fixture;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use rand_xoshiro::rand_core::{Rng, SeedableRng};

    /// A uniform draw in [0, 1).
    fn unit(rng: &mut Xoshiro256PlusPlus) -> f64 {
        (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The matrix `topo` would show with these class latencies (ns), each pair ±`noise` (a
    /// fraction) at random; with the line homed on node `home`, same-node pairs of the other nodes
    /// cost `cross`.
    fn matrix_of(
        topo: &Topology,
        ns: [f64; 4],
        noise: f64,
        home: Option<u32>,
        seed: u64,
    ) -> PairMatrix {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        PairMatrix::from_fn(topo.cpus.len(), |i, j| {
            let c = classify(topo, i as u32, j as u32).unwrap();
            let away = home.is_some_and(|h| topo.cpus[i].node != h);
            let base = match c {
                PairClass::Smt => ns[0],
                PairClass::SameLlc => ns[1],
                PairClass::SameNode if away => ns[3],
                PairClass::SameNode => ns[2],
                PairClass::CrossNode(_) => ns[3],
            };
            base * (1.0 + noise * (2.0 * unit(&mut rng) - 1.0))
        })
    }

    /// Sets `count` random pairs (of those `which` takes) to random values between `lo` and `hi`.
    fn spoil(
        m: &PairMatrix,
        count: usize,
        (lo, hi): (f64, f64),
        which: impl Fn(usize, usize) -> bool,
        seed: u64,
    ) -> PairMatrix {
        let n = m.cpus();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut bad = BTreeMap::new();
        while bad.len() < count {
            let i = (rng.next_u64() % n as u64) as usize;
            let j = (rng.next_u64() % n as u64) as usize;
            if i > j && which(i, j) {
                bad.insert((i, j), lo + (hi - lo) * unit(&mut rng));
            }
        }
        PairMatrix::from_fn(n, |i, j| bad.get(&(i, j)).copied().unwrap_or(m.ns(i, j)))
    }

    fn class(h: &InferredHost, c: PairClass) -> &InferredClass {
        h.classes.iter().find(|x| x.class == c).unwrap()
    }

    #[test]
    fn a_two_socket_epyc_with_its_home_socket_reads_back_to_its_layout() {
        // 2 × 64 cores × 2 threads, 8-core CCXs: the fixture is the answer.
        let truth = fixture("epyc-7j13-2s-nps1-256");
        let m = matrix_of(&truth, [8.0, 25.0, 110.0, 200.0], 0.05, Some(1), 1);
        let h = infer(&m, "synthetic", None);
        assert_eq!(h.counts(), (128, 16, 2));
        assert_eq!(h.home_node, Some(1));
        noted(&h.notes, "2 sockets of 128 CPUs");
        let h = h.with_capture(&m, truth.clone(), "epyc");
        assert_eq!(h.disagreements, Vec::new());
        // Medians within the noise; same-node only from the home socket.
        for (c, ns) in [
            (PairClass::Smt, 8.0),
            (PairClass::SameLlc, 25.0),
            (PairClass::SameNode, 110.0),
            (PairClass::CrossNode(32), 200.0),
        ] {
            let got = class(&h, c).median_ns;
            assert!((got / ns - 1.0).abs() < 0.02, "{c}: {got}");
        }
        assert!((h.away_same_node.as_ref().unwrap().median_ns / 200.0 - 1.0).abs() < 0.02);
        // Past the core the dearer step is leaving the CCX (25 → 110 ns, 4.4×), not the socket (110
        // → 200 ns, 1.8×); SMT → core (3.1×) is not weighed.
        let (a, b) = h.biggest_jump().unwrap();
        assert_eq!(
            (a.class, b.class),
            (PairClass::SameLlc, PairClass::SameNode)
        );
        // Single linkage on the raw pairs would cut 9 "nodes" here: the home socket and each of the
        // other socket's 8 CCXs.
    }

    #[test]
    fn bridging_values_and_outliers_do_not_move_the_groups() {
        let truth = fixture("epyc-7j13-2s-nps1-256");
        let clean = matrix_of(&truth, [8.0, 25.0, 110.0, 200.0], 0.05, None, 2);
        // 1% of pairs anywhere between the SMT and the cross-node figure, then 40 far outliers: 1
        // ns across sockets, 2 µs anywhere.
        let n = clean.cpus();
        let any = |_: usize, _: usize| true;
        let across = |i: usize, j: usize| truth.cpus[i].node != truth.cpus[j].node;
        let bridged = spoil(&clean, n * (n - 1) / 200, (8.0, 200.0), any, 3);
        let low = spoil(&bridged, 20, (1.0, 1.5), across, 4);
        let m = spoil(&low, 20, (1500.0, 2000.0), any, 5);
        // A threshold on gaps between sorted latencies finds nothing: no two consecutive values are
        // TIER_GAP apart past the SMT pairs.
        let mut all: Vec<f64> = (0..n)
            .flat_map(|i| (0..i).map(move |j| (i, j)))
            .map(|(i, j)| m.ns(i, j))
            .filter(|&v| v > 9.0 && v < 1000.0)
            .collect();
        all.sort_by(f64::total_cmp);
        assert!(all.windows(2).all(|w| w[1] < TIER_GAP * w[0]));
        let inferred = infer(&m, "synthetic", None);
        assert_eq!((inferred.counts().1, inferred.counts().2), (16, 2));
        let h = inferred.with_capture(&m, truth.clone(), "epyc");
        // Every LLC and node right; only a bridging value that landed on an SMT pair (or at an SMT
        // pair's figure inside an LLC) moves a pair in or out of smt: 3 of 32640 here.
        let smt_only = h
            .disagreements
            .iter()
            .all(|d| d.matrix == PairClass::Smt || d.capture == PairClass::Smt);
        let moved: usize = h.disagreements.iter().map(|d| d.pairs).sum();
        assert!(smt_only && moved <= 3, "{:?}", h.disagreements);
        assert!(h.outliers >= 40, "{}", h.outliers);
        let llc = class(&h, PairClass::SameLlc).median_ns;
        assert!((llc / 25.0 - 1.0).abs() < 0.03, "{llc}");
    }

    #[test]
    fn one_llc_per_socket_is_two_nodes_and_small_llcs_ask_for_sockets() {
        // Sapphire Rapids, 2 × 56 cores × 2: LLCs of 112 CPUs are sockets.
        let spr = fixture("spr-2s-224");
        let m = matrix_of(&spr, [8.0, 50.0, 50.0, 130.0], 0.05, None, 6);
        let h = infer(&m, "spr", None);
        assert_eq!(h.counts(), (112, 2, 2));
        let h = h.with_capture(&m, spr, "spr");
        assert_eq!(h.disagreements, Vec::new());
        // Two CCXs of 8 cores × 2 on one socket (a Ryzen 5950X's shape): one node of two LLCs,
        // unless told there are two sockets.
        let ryzen = topology(
            &(0..32).map(|i| i % 16).collect::<Vec<_>>(),
            &(0..32).map(|i| (i % 16) / 8).collect::<Vec<_>>(),
            &[0; 32],
        );
        let m = matrix_of(&ryzen, [8.0, 18.0, 85.0, 85.0], 0.03, None, 7);
        let h = infer(&m, "ryzen", None);
        assert_eq!(h.counts(), (16, 2, 1));
        noted(&h.notes, "\"sockets\": 2");
        let two = infer(&m, "ryzen", Some(2));
        assert_eq!(two.counts(), (16, 2, 2));
        assert_eq!(
            class(&two, PairClass::CrossNode(INFERRED_DISTANCE)).pairs,
            256
        );
        let three = infer(&m, "ryzen", Some(3));
        assert_eq!(three.counts(), (16, 2, 1));
        noted(&three.notes, "sockets 3 disagrees");
    }

    #[test]
    fn the_median_is_the_middle_value_or_the_mean_of_the_two() {
        assert_eq!(median_in_place(&mut [5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median_in_place(&mut [4.0, 1.0, 3.0, 10.0]), 3.5);
        assert_eq!(median_in_place(&mut [2.0, 2.0]), 2.0);
    }

    #[test]
    fn no_smt_and_one_cache_is_one_class() {
        let flat = topology(&(0..64).collect::<Vec<_>>(), &[0; 64], &[0; 64]);
        let m = matrix_of(&flat, [0.0, 45.0, 0.0, 0.0], 0.1, None, 8);
        let h = infer(&m, "graviton-like", None);
        assert_eq!(h.counts(), (0, 1, 1));
        assert_eq!(h.classes.len(), 1);
        assert_eq!(h.latencies().classes.len(), 1);
        assert!(h.biggest_jump().is_none());
        let l = h.latencies().classes[&LatencyKey::Class(PairClass::SameLlc)];
        // ±10% noise: p5..p95 inside ±25%, so the range is ±25%.
        assert!((l.lo_ns / l.ns - 0.75).abs() < 1e-9 && (l.hi_ns / l.ns - 1.25).abs() < 1e-9);
    }

    #[test]
    fn a_capture_that_differs_is_counted_pair_by_pair() {
        // The matrix of a 2-node NPS4-like layout against a capture that puts all 128 CPUs on other
        // nodes.
        let nps4 = fixture("amd-2s-nps4-8node");
        let xeon = fixture("xeon-8358-2s-128");
        let m = matrix_of(&xeon, [8.0, 50.0, 50.0, 130.0], 0.05, None, 9);
        let h = infer(&m, "xeon", None).with_capture(&m, nps4.clone(), "nps4");
        let total: usize = h.disagreements.iter().map(|d| d.pairs).sum();
        // Every pair the two layouts class differently, counted directly.
        let expect = (0..128u32)
            .flat_map(|i| (0..i).map(move |j| (i, j)))
            .filter(|&(i, j)| {
                let (a, b) = (
                    classify(&xeon, i, j).unwrap(),
                    classify(&nps4, i, j).unwrap(),
                );
                a != b && (a.within_node() || b.within_node())
            })
            .count();
        assert_eq!(total, expect);
        assert!(expect > 0);
        assert_eq!(h.topology, nps4);
        says(h.notes.last().unwrap(), "disagree on");
        // A capture of another size is refused, the inferred layout kept.
        let small = fixture("no-numa");
        let kept = infer(&m, "xeon", None).with_capture(&m, small, "no-numa");
        assert_eq!(kept.topology.cpus.len(), 128);
        says(kept.notes.last().unwrap(), "the inferred layout is kept");
    }
}
