//! The pair transfer matrix: what moving one cache line between two CPUs costs, for every pair (or
//! a per-class sample of pairs), grouped by distance class, with advice on where to split a hot
//! counter.

mod advice;
mod classes;
mod contenders;
mod counts;
mod home;
mod measure;
mod plan;
mod reference;
mod result;
mod sharers;
mod span;
mod transactions;

pub use advice::{Advice, ClassStats, RULE, Split, advise, class_stats, empty_classes};
pub use classes::cpu_of;
pub use classes::{OfflineCpu, PairClass, PairSelection, PlannedPair, classify, select_pairs};
pub use contenders::{ContendersPoint, WINDOW_ADDS, WINDOWS};
pub use counts::Counts;
pub use home::{HomeClass, HomeCost};
pub use measure::{Mode, PairSamples};
pub use plan::{
    ASSUMED_ONE_WAY_NS, MatrixError, MatrixPlan, MatrixRequest, measure_matrix, pairs_s,
    plan_matrix,
};
pub use reference::{LINE_CHUNKS, ReferenceError, line_pingpong, reference_pingpong};
pub use result::{
    DirectionStats, MatrixConfig, MatrixResults, PairResult, REFERENCE_LIMIT_PCT, Reference,
    SCHEMA_VERSION,
};
#[cfg(test)]
pub(crate) use result::{fixture_matrix, fixture_pair};
pub use sharers::{ROUNDS as SHARER_ROUNDS, SharersPoint};
pub use transactions::{Transaction, TransactionCost, measure_transactions, transaction_costs};

use advice::EmptyClass;
use measure::{Procedure, measure_pair};
use span::span_order;
use transactions::{TRANSACTION_SAMPLES, TransactionSamples, transaction_transfers};

use crate::error::UnknownName;
use crate::placement::PlacementError;
use crate::topology::{CpuList, Topology};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Round trips timed together as one sample.
pub const ROUND_TRIPS_PER_SAMPLE: u64 = 100;

/// Samples run and discarded before the timed ones, per direction.
pub const WARMUP_SAMPLES: usize = 20;

/// Round trips of the reference ping-pong on the first pair.
pub const REFERENCE_ROUND_TRIPS: u64 = 256_000;

/// One-way ns beyond which a line transfer is the scheduler's, not a cache's.
pub const SCHEDULED_TRANSFER_NS: u64 = 10_000;

/// Whether transfers timed in stretches (`ns_per_transfer`, one figure a stretch) were the
/// scheduler's: their median over [`SCHEDULED_TRANSFER_NS`].
pub fn taking_turns(ns_per_transfer: &[f64]) -> bool {
    crate::stats::median(ns_per_transfer).is_some_and(|m| m > SCHEDULED_TRANSFER_NS as f64)
}

/// How long an instrument of `transfers` line transfers may take before it stops.
pub fn transfer_budget(transfers: u64) -> std::time::Duration {
    std::time::Duration::from_nanos(transfers.saturating_mul(SCHEDULED_TRANSFER_NS))
}

/// `contend matrix --help`: what is measured, the outputs and the advice rule.
pub const LONG_ABOUT: &str = concat!(
    "Time a cache line's hand-off between pairs of CPUs, group the costs by \
distance class and say whether to split a hot counter at llc, at node, or \
not at all (Peter Zijlstra's question: does the cost jump at cross-LLC or \
at cross-node?).

Each pair i<j gets a fresh page bound to --mode's home and two threads pinned to i \
and j (checked with sched_getcpu; the page with move_pages). With i \
initiating, then j, they pass a line back and forth (--mode): a sample is \
100 round trips on one line timed with the calibrated TSC, one-way = time / \
200; samples rotate over 16 consecutive 64-byte lines of the page, because \
a line's cost depends on the L3 slice its address maps to; 20 warm-up \
samples are dropped. One-way = round trip / 2. The two phases (i initiating, then j) are \
the same hand-offs in a different order: a pair whose phases' medians differ by more \
than 15% of the smaller is flagged asymmetric (drift between the phases). Each pair is \
measured in 3 passes spread over the run (pair order rotated), --samples split between \
them; a pair whose pass medians differ by more than 15% is flagged unstable (the machine \
moved under it) in the summary, matrix.json and the heatmap (a cross). An independent minimal CAS ping-pong \
(Instant-timed) runs on the first pair and is printed beside it.

Classes: smt (siblings of one core), same-llc, same-node (different LLC), \
cross-node@D for each SLIT distance D (the larger entry if asymmetric). By \
default at most --pairs N pairs per class are measured (the class's \
lowest pair and a fixed-seed random sample of the rest, the same on every \
run); --pairs all measures all. Per class: median, p90, min and max \
of the pairs' medians.

",
    advice::rule_text!(),
    "

Opt-in, each fenced, net of a private line, a trimmed mean (of single \
timings 5% set aside at each end, of the contenders' timed windows a \
tenth): --also contenders:K,.. (k CPUs adding to one line: ns per \
hand-over, hand-overs counted exactly), --also sharers:M,.. (one writer, m \
readers reading between its writes: the writer's upgrade ns), --also home \
(read fetched and add moved with the line local and remote to the \
requester). \
Contenders and sharers take CPUs in span order: the first, one CPU of each \
farther class, then the rest spread over nodes, LLCs and cores.

Files under --out DIR/<host>/<UTC timestamp>/: matrix.csv (row = initiating \
CPU, column = responding CPU, median one-way ns, empty where unmeasured), \
matrix.json (per pair, per class, advice, reference, provenance, topology) \
and heatmap.svg."
);

/// A pair is flagged asymmetric when its two phases' medians (lower CPU initiating, then higher)
/// differ by more than this percentage of the smaller.
pub const ASYMMETRY_LIMIT_PCT: f64 = 15.0;

/// Share of the contenders' timed windows set aside at each end before their mean: an interrupt or
/// a preempted vCPU stretches a window tenfold.
pub const WINDOW_TRIM: f64 = 0.1;

/// Passes over the pairs: each pair is measured this many times, spread over the run.
pub const PASSES: usize = 3;

/// A pair whose pass medians differ by more than this % of the smallest is flagged unstable.
pub const UNSTABLE_LIMIT_PCT: f64 = 15.0;

/// Which node each pair's line is bound to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Home {
    /// The node of the pair's lower CPU.
    #[default]
    First,
    /// The node of the pair's higher CPU.
    Second,
    /// This node, for every pair.
    Node(u32),
}

impl Home {
    /// The home node of the pair `(a, b)`, `a < b`; `None` when a CPU is not online.
    pub fn node_for(self, topo: &Topology, a: u32, b: u32) -> Option<u32> {
        match self {
            Home::First => topo.node_of_cpu(a),
            Home::Second => topo.node_of_cpu(b),
            Home::Node(n) => Some(n),
        }
    }
}

impl FromStr for Home {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        match s {
            "first" => Ok(Home::First),
            "second" => Ok(Home::Second),
            _ => s
                .strip_prefix("node:")
                .and_then(|n| n.parse().ok())
                .map(Home::Node)
                .ok_or_else(|| UnknownName::new("home", s, ["first", "second", "node:N"])),
        }
    }
}

impl fmt::Display for Home {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Home::First => f.write_str("first"),
            Home::Second => f.write_str("second"),
            Home::Node(n) => write!(f, "node:{n}"),
        }
    }
}

/// Writes each type as its `Display` name (the names matrix.json uses), read back by `FromStr`.
macro_rules! serde_by_name {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
            }
        }
    )*};
}
serde_by_name!(Home, Mode, PairClass, Split);

/// Measures every `(pair, home node)` in [`PASSES`] passes spread over the run, each on a fresh
/// line, so a machine that moves under the run shows as spread, not as a cost.
pub fn measure_all(
    pairs: &[(PlannedPair, u32)],
    p: &Procedure,
    allowed: &CpuList,
    mut progress: impl FnMut(usize, usize),
) -> Result<Vec<PairResult>, PlacementError> {
    // --samples in all, split as evenly as they go (fewer passes than
    // PASSES only when there are fewer samples).
    let passes = PASSES.min(p.samples).max(1);
    let n = pairs.len();
    let mut samples: Vec<Vec<PairSamples>> = (0..n).map(|_| Vec::with_capacity(passes)).collect();
    let mut done = 0;
    for pass in 0..passes {
        let per_pass = Procedure {
            samples: pass_samples(p.samples, passes, pass),
            ..*p
        };
        for i in pass_order(n, passes, pass) {
            let (pair, node) = pairs[i];
            let mut s = measure_pair(pair.a, pair.b, node, &per_pass, allowed)?;
            let per_pass_tx = pass_samples(TRANSACTION_SAMPLES * passes, passes, pass);
            s.transactions =
                measure_transactions(pair.a, pair.b, node, per_pass_tx, p.timer, allowed)?;
            samples[i].push(s);
            done += 1;
            progress(done, n * passes);
        }
    }
    // Both CPUs time every pass's share.
    let transactions_planned = 2 * TRANSACTION_SAMPLES * passes;
    Ok(pairs
        .iter()
        .zip(samples)
        .map(|(&(pair, node), s)| PairResult {
            transactions_planned,
            ..PairResult::from_passes(pair, node, s)
        })
        .collect())
}

/// Samples per phase in pass `pass` of `passes` when `total` are split between them as evenly as
/// they go, the first passes taking one more.
fn pass_samples(total: usize, passes: usize, pass: usize) -> usize {
    total / passes + usize::from(pass < total % passes)
}

/// The order pass `pass` of `passes` visits `n` pairs.
fn pass_order(n: usize, passes: usize, pass: usize) -> impl Iterator<Item = usize> {
    let start = pass * n / passes;
    (0..n).map(move |k| (start + k) % n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_split_the_samples_and_start_at_different_pairs() {
        // 40 samples over 3 passes: 14, 13, 13; 6 over 3: 2 each.
        let split = |total| [0, 1, 2].map(|k| pass_samples(total, 3, k));
        let splits = [40, 41, 6].map(split);
        assert_eq!(splits, [[14, 13, 13], [14, 14, 13], [2, 2, 2]]);
        // 4 pairs, 3 passes: starting at 0, 4/3 = 1 and 8/3 = 2.
        let order = |n, pass| pass_order(n, 3, pass).collect::<Vec<_>>();
        let orders = [0, 1, 2].map(|p| order(4, p));
        assert_eq!(orders, [[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1]]);
        // 7 pairs: 0, 7/3 = 2, 14/3 = 4.
        assert_eq!(order(7, 2), [4, 5, 6, 0, 1, 2, 3]);
    }

    #[test]
    fn help_states_the_constants() {
        for fact in [
            format!("{ROUND_TRIPS_PER_SAMPLE} round trips"),
            format!("time / {}", 2 * ROUND_TRIPS_PER_SAMPLE),
            format!("{} consecutive", measure::LINES),
            format!("{WARMUP_SAMPLES} warm-up"),
            format!("{ASYMMETRY_LIMIT_PCT}%"),
            format!("{PASSES} passes"),
            format!("more than {UNSTABLE_LIMIT_PCT}%"),
        ] {
            assert!(LONG_ABOUT.contains(&fact), "--help lacks {fact:?}");
        }
    }

    #[test]
    fn home_parses_and_prints() {
        for s in ["first", "second", "node:3"] {
            assert_eq!(s.parse::<Home>().unwrap().to_string(), s);
        }
        let err = "node:x".parse::<Home>().unwrap_err().to_string();
        assert!(err.contains("node:x"), "{err}");
    }

    #[test]
    fn home_picks_the_node_of_either_cpu_or_a_fixed_node() {
        // The 8-node NPS4 fixture: CPU 0 on node 0, CPU 8 on node 1.
        let topo = crate::topology::fixture("amd-2s-nps4-8node");
        assert_eq!(Home::First.node_for(&topo, 0, 8), Some(0));
        assert_eq!(Home::Second.node_for(&topo, 0, 8), Some(1));
        assert_eq!(Home::Node(5).node_for(&topo, 0, 8), Some(5));
        assert_eq!(Home::First.node_for(&topo, 4000, 8), None);
    }

    #[test]
    fn every_pass_measures_every_pair_and_reports_progress() {
        // Three entries for the host's first two CPUs: 3 passes of 3.
        let topo = Topology::read(std::path::Path::new("/")).unwrap();
        let cpus = topo.allowed_cpus.to_vec();
        if cpus.len() < 2 {
            return;
        }
        let planned = PlannedPair {
            a: cpus[0],
            b: cpus[1],
            class: PairClass::SameLlc,
        };
        let pairs = vec![(planned, topo.node_of_cpu(cpus[0]).unwrap()); 3];
        let procedure = Procedure {
            mode: Mode::Cas,
            samples: 4,
            round_trips: 100,
            warmup_samples: 2,
            timer: crate::clock::Timer::Monotonic,
        };
        let mut seen = Vec::new();
        let tick = |done, total| seen.push((done, total));
        let results = measure_all(&pairs, &procedure, &topo.allowed_cpus, tick).unwrap();
        assert_eq!(seen, (1..=9).map(|d| (d, 9)).collect::<Vec<_>>());
        // 4 samples per phase over 3 passes: 2, 1, 1.
        let shape = |r: &PairResult| (r.passes.len(), r.forward.samples, r.backward.samples);
        assert!(results.iter().all(|r| shape(r) == (3, 4, 4)), "{results:?}");
    }

    #[test]
    fn turns_are_taken_when_most_stretches_cost_a_time_slice() {
        // A preemption of 4 ms in one chunk of three: a cache's median.
        assert!(!taking_turns(&[62.0, 4_000_000.0, 65.0]));
        // Two of three: the scheduler's.
        assert!(taking_turns(&[4_000_000.0, 62.0, 4_500_000.0]));
        // 10 µs itself could still be a (very slow) cache; nothing timed
        // says nothing.
        assert!(!taking_turns(&[10_000.0]) && taking_turns(&[10_000.5]) && !taking_turns(&[]));
        // The budget: 10 µs a transfer.
        assert_eq!(transfer_budget(4_500), std::time::Duration::from_millis(45));
    }
}
