//! The pair transfer matrix: what moving one cache line between two CPUs
//! costs, for every pair (or a per-class sample of pairs), grouped by
//! distance class, with advice on where to split a hot counter.
//!
//! Each pair gets a fresh page bound to the chosen home node (a line left
//! owned by a third core would skew later pairs), two threads pinned and
//! verified, and a hand-off ([`Mode`]) timed in batches in both directions:
//! the lower CPU initiating, then the higher. Batches rotate over
//! [`LINES`] lines of the page so that no one L3 slice decides a pair's
//! cost. An independent minimal
//! ping-pong ([`reference_pingpong`]) runs on the first pair as a check.

mod advice;
mod classes;
mod measure;
mod plan;
mod reference;

pub use advice::{
    Advice, ClassStats, EmptyClass, LLC_CLOSE, RULE, SAME, Split, advise, class_stats,
    empty_classes,
};
pub use classes::{OfflineCpu, PairClass, PairSelection, PlannedPair, classify, select_pairs};
pub use measure::{LINES, Mode, PairSamples, Procedure, measure_pair};
pub use plan::{MatrixError, MatrixPlan, MatrixRequest, measure_matrix, plan_matrix};
pub use reference::{ReferenceError, reference_pingpong};

use crate::clock::TimerKind;
use crate::error::UnknownName;
use crate::placement::{NodeCheck, PinnedThread, PlacementError};
use crate::provenance::Provenance;
use crate::stats::quantile_of;
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

/// `contend matrix --help`: what is measured, the outputs and the advice
/// rule.
pub const LONG_ABOUT: &str = concat!(
    "Time a cache line's hand-off between pairs of CPUs, group the costs by \
distance class and say whether to split a hot counter at llc, at node, or \
not at all (Peter Zijlstra's question: does the cost jump at cross-LLC or \
at cross-node?).

Each pair i<j gets a fresh page bound to --home and two threads pinned to i \
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
default at most --per-class pairs per class are measured (the class's \
lowest pair and a fixed-seed random sample of the rest, the same on every \
run); --all-pairs measures all. Per class: median, p90, min and max \
of the pairs' medians.

",
    advice::rule_text!(),
    "

Files under --out DIR/<host>/<UTC timestamp>/: matrix.csv (row = initiating \
CPU, column = responding CPU, median one-way ns, empty where unmeasured), \
matrix.json (per pair, per class, advice, reference, provenance, topology) \
and heatmap.svg."
);

/// Version of the matrix.json layout; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// A pair is flagged asymmetric when its two phases' medians (lower CPU
/// initiating, then higher) differ by more than this percentage of the
/// smaller. The two phases are the same hand-offs in a different order, so
/// a difference is drift between the phases, not a direction's cost.
pub const ASYMMETRY_LIMIT_PCT: f64 = 15.0;

/// Passes over the pairs: each pair is measured this many times, spread
/// over the run.
pub const PASSES: usize = 3;

/// A pair whose pass medians differ by more than this % of the smallest is
/// flagged unstable.
pub const UNSTABLE_LIMIT_PCT: f64 = 15.0;

/// Which node each pair's line is bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Home {
    /// The node of the pair's lower CPU.
    First,
    /// The node of the pair's higher CPU.
    Second,
    /// This node, for every pair.
    Node(u32),
}

impl Home {
    /// The home node of the pair `(a, b)`, `a < b`; `None` when a CPU is
    /// not online.
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
                .ok_or_else(|| UnknownName::new("home", s, "first, second or node:N")),
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

impl Serialize for Home {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Home {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        from_name(d)
    }
}

/// Reads a value written by its `Display` (the names matrix.json uses)
/// back through its `FromStr`.
pub(crate) fn from_name<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: FromStr,
    T::Err: fmt::Display,
{
    String::deserialize(d)?
        .parse()
        .map_err(serde::de::Error::custom)
}

/// The settings of one matrix run, as resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatrixConfig {
    /// The chosen CPUs, ascending (the matrix's rows and columns).
    pub cpus: Vec<u32>,
    /// Hand-off measured.
    pub mode: Mode,
    /// Where each pair's line lives.
    pub home: Home,
    /// Timed samples per direction of a pair.
    pub samples: usize,
    /// Round trips per sample.
    pub round_trips_per_sample: u64,
    /// Samples run and discarded first, per direction.
    pub warmup_samples: usize,
    /// Pairs kept per class (`None`: every pair, `--all-pairs`).
    pub per_class: Option<usize>,
    /// "tsc" (calibrated) or "monotonic" (TSC not invariant).
    pub timer: TimerKind,
    /// [`ASYMMETRY_LIMIT_PCT`].
    pub asymmetry_limit_pct: f64,
    /// Round trips of the reference ping-pong.
    pub reference_round_trips: u64,
}

/// One direction of a pair: `from` initiates each round trip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectionStats {
    /// The initiating CPU.
    pub from: u32,
    /// The responding CPU.
    pub to: u32,
    /// Median one-way latency over the samples, ns.
    pub median_ns: f64,
    /// 90th percentile one-way latency over the samples, ns.
    pub p90_ns: f64,
    /// Timed samples.
    pub samples: usize,
}

impl DirectionStats {
    fn of(from: u32, to: u32, samples: &[f64]) -> Self {
        DirectionStats {
            from,
            to,
            median_ns: quantile_of(samples, 0.5),
            p90_ns: quantile_of(samples, 0.9),
            samples: samples.len(),
        }
    }
}

/// Everything measured for one pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    /// The two CPUs, lower first.
    pub cpus: [u32; 2],
    /// Their distance class.
    pub class: PairClass,
    /// The node the pair's lines were bound to.
    pub home_node: u32,
    /// `move_pages` on the page holding the pair's lines.
    pub line: NodeCheck,
    /// The two pinned threads, lower CPU first.
    pub threads: [PinnedThread; 2],
    /// Lower CPU initiating.
    pub forward: DirectionStats,
    /// Higher CPU initiating.
    pub backward: DirectionStats,
    /// Median one-way latency over both directions' samples, ns.
    pub median_ns: f64,
    /// 90th percentile over both directions' samples, ns.
    pub p90_ns: f64,
    /// |forward − backward| medians as % of the smaller.
    pub asymmetry_pct: f64,
    /// `asymmetry_pct` > [`ASYMMETRY_LIMIT_PCT`].
    pub asymmetric: bool,
    /// Median one-way ns of each pass over the pairs (both phases'
    /// samples), in the order measured.
    #[serde(default)]
    pub passes: Vec<f64>,
    /// (largest − smallest pass median) as % of the smallest: how far the
    /// pair's cost moved between passes spread over the run.
    #[serde(default)]
    pub pass_spread_pct: f64,
    /// `pass_spread_pct` > [`UNSTABLE_LIMIT_PCT`]: the machine moved under
    /// this pair (a hypervisor moving vCPUs), so its median is a mix of
    /// phases, not one cost.
    #[serde(default)]
    pub unstable: bool,
}

impl PairResult {
    /// Summarises one pair's samples (one pass).
    pub fn new(pair: PlannedPair, home_node: u32, s: PairSamples) -> Self {
        PairResult::from_passes(pair, home_node, vec![s])
    }

    /// Summarises one pair's samples from every pass (at least one): the
    /// phases' statistics over all samples, each pass's median, and their
    /// spread. Threads and line are the first pass's, unless a later
    /// pass's could not be verified.
    pub fn from_passes(pair: PlannedPair, home_node: u32, passes: Vec<PairSamples>) -> Self {
        let medians: Vec<f64> = passes
            .iter()
            .map(|s| {
                let both: Vec<f64> = s.forward.iter().chain(&s.backward).copied().collect();
                quantile_of(&both, 0.5)
            })
            .collect();
        let (lo_pass, hi_pass) = medians
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), &m| {
                (lo.min(m), hi.max(m))
            });
        let pass_spread_pct = if lo_pass > 0.0 && lo_pass.is_finite() {
            100.0 * (hi_pass - lo_pass) / lo_pass
        } else {
            0.0
        };
        let mut passes = passes.into_iter();
        let mut s = passes.next().expect("at least one pass");
        for later in passes {
            s.forward.extend(later.forward);
            s.backward.extend(later.backward);
            if !matches!(later.line, NodeCheck::Verified { .. }) {
                s.line = later.line;
            }
            for (t, l) in s.threads.iter_mut().zip(later.threads) {
                if !l.verified {
                    *t = l;
                }
            }
        }
        let forward = DirectionStats::of(pair.a, pair.b, &s.forward);
        let backward = DirectionStats::of(pair.b, pair.a, &s.backward);
        let both: Vec<f64> = s.forward.iter().chain(&s.backward).copied().collect();
        let (lo, hi) = if forward.median_ns <= backward.median_ns {
            (forward.median_ns, backward.median_ns)
        } else {
            (backward.median_ns, forward.median_ns)
        };
        let asymmetry_pct = if lo > 0.0 {
            100.0 * (hi - lo) / lo
        } else {
            0.0
        };
        PairResult {
            cpus: [pair.a, pair.b],
            class: pair.class,
            home_node,
            line: s.line,
            threads: s.threads,
            forward,
            backward,
            median_ns: quantile_of(&both, 0.5),
            p90_ns: quantile_of(&both, 0.9),
            asymmetry_pct,
            asymmetric: asymmetry_pct > ASYMMETRY_LIMIT_PCT,
            passes: medians,
            pass_spread_pct,
            unstable: pass_spread_pct > UNSTABLE_LIMIT_PCT,
        }
    }

    /// True when both threads and the line were verified.
    pub fn verified(&self) -> bool {
        self.threads.iter().all(|t| t.verified) && matches!(self.line, NodeCheck::Verified { .. })
    }
}

/// The independent ping-pong's answer beside the matrix's for one pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// The pair.
    pub cpus: [u32; 2],
    /// Round trips it ran.
    pub round_trips: u64,
    /// Its one-way latency, ns.
    pub one_way_ns: f64,
    /// The matrix's median one-way latency for the same pair, ns.
    pub matrix_one_way_ns: f64,
    /// (matrix − reference) as % of the reference.
    pub difference_pct: f64,
}

impl Reference {
    /// Pairs the reference's figure with the matrix's.
    pub fn new(cpus: [u32; 2], round_trips: u64, one_way_ns: f64, matrix_one_way_ns: f64) -> Self {
        Reference {
            cpus,
            round_trips,
            one_way_ns,
            matrix_one_way_ns,
            difference_pct: 100.0 * (matrix_one_way_ns - one_way_ns) / one_way_ns,
        }
    }
}

/// A whole `contend matrix`: matrix.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatrixResults {
    /// [`SCHEMA_VERSION`].
    pub schema: u32,
    /// The settings.
    pub config: MatrixConfig,
    /// Where and with what it ran.
    pub provenance: Provenance,
    /// The host layout used.
    pub topology: Topology,
    /// Every measured pair, by CPU ids.
    pub pairs: Vec<PairResult>,
    /// Cost per distance class, nearest first.
    pub classes: Vec<ClassStats>,
    /// Kinds of class with no pairs here, and why.
    pub empty_classes: Vec<EmptyClass>,
    /// Where to split, and the numbers behind it.
    pub advice: Advice,
    /// The independent ping-pong on the first pair.
    pub reference: Reference,
    /// Warnings printed during the run.
    pub notes: Vec<String>,
    /// Wall time the pairs took to measure, seconds (0 in files written
    /// before it was recorded).
    #[serde(default)]
    pub elapsed_s: f64,
}

/// Measures every `(pair, home node)` in [`PASSES`] passes spread over the
/// run (fewer with fewer samples), the `p.samples` samples per phase split
/// between them, each pass on a fresh line bound to the pair's home node,
/// visiting the
/// pairs from a different starting point (pass k starts k/PASSES of the
/// way along), so a pair's passes are minutes apart on a large host and a
/// machine that moves under the run shows as spread, not as a cost.
/// `progress(done, total)` is called after each pair of each pass.
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
            samples[i].push(measure_pair(pair.a, pair.b, node, &per_pass, allowed)?);
            done += 1;
            progress(done, n * passes);
        }
    }
    Ok(pairs
        .iter()
        .zip(samples)
        .map(|(&(pair, node), s)| PairResult::from_passes(pair, node, s))
        .collect())
}

/// Samples per phase in pass `pass` of `passes` when `total` are split
/// between them as evenly as they go, the first passes taking one more.
fn pass_samples(total: usize, passes: usize, pass: usize) -> usize {
    total / passes + usize::from(pass < total % passes)
}

/// The order pass `pass` of `passes` visits `n` pairs: all of them, from
/// `pass × n / passes` on, wrapping round.
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
        let split = |total| {
            (0..3)
                .map(|k| pass_samples(total, 3, k))
                .collect::<Vec<_>>()
        };
        assert_eq!(split(40), [14, 13, 13]);
        assert_eq!(split(41), [14, 14, 13]);
        assert_eq!(split(6), [2, 2, 2]);
        // 4 pairs, 3 passes: starting at 0, 4/3 = 1 and 8/3 = 2.
        let order = |pass| pass_order(4, 3, pass).collect::<Vec<_>>();
        assert_eq!(order(0), [0, 1, 2, 3]);
        assert_eq!(order(1), [1, 2, 3, 0]);
        assert_eq!(order(2), [2, 3, 0, 1]);
        // 7 pairs: 0, 7/3 = 2, 14/3 = 4.
        assert_eq!(
            pass_order(7, 3, 2).collect::<Vec<_>>(),
            [4, 5, 6, 0, 1, 2, 3]
        );
    }

    #[test]
    fn help_states_the_constants() {
        for fact in [
            format!("{ROUND_TRIPS_PER_SAMPLE} round trips"),
            format!("time / {}", 2 * ROUND_TRIPS_PER_SAMPLE),
            format!("{LINES} consecutive"),
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
        assert!(
            "node:x"
                .parse::<Home>()
                .unwrap_err()
                .to_string()
                .contains("node:x")
        );
    }

    fn samples(ns: f64, verified: bool) -> PairSamples {
        let thread = |cpu| PinnedThread {
            requested_cpu: cpu,
            observed_cpu: Some(cpu),
            verified,
            note: None,
        };
        PairSamples {
            threads: [thread(0), thread(1)],
            line: NodeCheck::Verified { node: 0 },
            forward: vec![ns, ns, ns + 1.0],
            backward: vec![ns, ns + 1.0, ns + 1.0],
        }
    }

    fn pair() -> PlannedPair {
        PlannedPair {
            a: 0,
            b: 1,
            class: PairClass::SameLlc,
        }
    }

    #[test]
    fn passes_that_disagree_make_a_pair_unstable() {
        // The development VM: two passes at 27 ns, one after the
        // hypervisor moved a vCPU, at 110 ns.
        let r = PairResult::from_passes(
            pair(),
            0,
            vec![
                samples(27.0, true),
                samples(110.0, true),
                samples(27.0, true),
            ],
        );
        // Each pass's median over both phases: 27.5, 110.5, 27.5.
        assert_eq!(r.passes, [27.5, 110.5, 27.5]);
        assert!((r.pass_spread_pct - 100.0 * 83.0 / 27.5).abs() < 1e-9);
        assert!(r.unstable);
        // Every sample counts towards the phases and the pair.
        assert_eq!((r.forward.samples, r.backward.samples), (9, 9));
        assert_eq!(r.median_ns, 28.0);
        // Within 15% the passes agree.
        let steady = PairResult::from_passes(
            pair(),
            0,
            vec![
                samples(27.0, true),
                samples(30.0, true),
                samples(28.0, true),
            ],
        );
        assert!(!steady.unstable, "{}", steady.pass_spread_pct);
        assert!((steady.pass_spread_pct - 100.0 * 3.0 / 27.5).abs() < 1e-9);
        // One pass: no spread.
        let one = PairResult::new(pair(), 0, samples(27.0, true));
        assert_eq!(
            (one.passes.len(), one.pass_spread_pct, one.unstable),
            (1, 0.0, false)
        );
    }

    #[test]
    fn an_unverified_later_pass_is_not_hidden_by_a_verified_first() {
        let r = PairResult::from_passes(pair(), 0, vec![samples(27.0, true), samples(27.0, false)]);
        assert!(!r.verified());
        // The same for the line: a later pass's failed check wins over a
        // verified first, and a verified later pass does not hide a first
        // that failed.
        let failed = NodeCheck::Unverified {
            reason: "move_pages: EPERM".into(),
        };
        let bad = || PairSamples {
            line: failed.clone(),
            ..samples(27.0, true)
        };
        let r = PairResult::from_passes(pair(), 0, vec![samples(27.0, true), bad()]);
        assert_eq!(r.line, failed);
        let r = PairResult::from_passes(pair(), 0, vec![bad(), samples(27.0, true)]);
        assert_eq!(r.line, failed);
        assert!(!r.verified());
        let good =
            PairResult::from_passes(pair(), 0, vec![samples(27.0, true), samples(27.0, true)]);
        assert!(good.verified());
    }

    #[test]
    fn limits_are_strict_and_zero_medians_give_no_percentages() {
        // Forward median 100, backward exactly 15% more: not asymmetric
        // (the limit is "more than 15%"); a hair more is.
        let at = |fwd: f64, back: f64| PairSamples {
            forward: vec![fwd; 3],
            backward: vec![back; 3],
            ..samples(0.0, true)
        };
        let r = PairResult::new(pair(), 0, at(100.0, 115.0));
        assert!((r.asymmetry_pct - 15.0).abs() < 1e-9 && !r.asymmetric);
        assert!(PairResult::new(pair(), 0, at(100.0, 115.1)).asymmetric);
        // The slower side may be either: the percentage is of the faster.
        let r = PairResult::new(pair(), 0, at(115.0, 100.0));
        assert!((r.asymmetry_pct - 15.0).abs() < 1e-9);
        // Passes at exactly 15% apart: stable; a hair more: unstable.
        let r = PairResult::from_passes(pair(), 0, vec![at(100.0, 100.0), at(115.0, 115.0)]);
        assert!((r.pass_spread_pct - 15.0).abs() < 1e-9 && !r.unstable);
        let r = PairResult::from_passes(pair(), 0, vec![at(100.0, 100.0), at(115.1, 115.1)]);
        assert!(r.unstable);
        // A pass or a side at 0 ns (a timer that did not move) gives no
        // percentage, not infinity.
        let r = PairResult::from_passes(pair(), 0, vec![at(0.0, 0.0), at(30.0, 30.0)]);
        assert_eq!((r.pass_spread_pct, r.unstable), (0.0, false));
        let r = PairResult::new(pair(), 0, at(0.0, 30.0));
        assert_eq!((r.asymmetry_pct, r.asymmetric), (0.0, false));
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
        let node = topo.node_of_cpu(cpus[0]).unwrap();
        let pairs = vec![(planned, node); 3];
        let procedure = Procedure {
            mode: Mode::Cas,
            samples: 4,
            round_trips: 100,
            warmup_samples: 2,
            timer: crate::clock::Timer::Monotonic,
        };
        let mut seen = Vec::new();
        let results = measure_all(&pairs, &procedure, &topo.allowed_cpus, |done, total| {
            seen.push((done, total))
        })
        .unwrap();
        assert_eq!(seen, (1..=9).map(|d| (d, 9)).collect::<Vec<_>>());
        for r in &results {
            // 4 samples per phase over 3 passes: 2, 1, 1.
            assert_eq!(r.passes.len(), 3);
            assert_eq!((r.forward.samples, r.backward.samples), (4, 4));
        }
    }
}
