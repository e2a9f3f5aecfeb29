//! The matrix's result model: every pair's transfer latency in both directions and over its passes,
//! with the independent ping-pong beside it, serialised as matrix.json (schema in
//! docs/results-schema.md).

/// Version of the matrix.json layout, bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 2;

use super::{
    ASYMMETRY_LIMIT_PCT, Advice, ClassStats, ContendersPoint, EmptyClass, Home, HomeClass, Mode,
    PairClass, PairSamples, PlannedPair, SharersPoint, TransactionCost, UNSTABLE_LIMIT_PCT,
    transaction_costs,
};
use crate::clock::TimerKind;
use crate::placement::{NodeCheck, PinnedThread};
use crate::provenance::Provenance;
use crate::stats::{quantile_of, ratio};
use crate::topology::{Clipped, Topology};
use serde::{Deserialize, Serialize};

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
    /// What `--clip` dropped from `--cpus` (empty when nothing was dropped).
    pub clipped: Vec<Clipped>,
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
    /// Median one-way ns of each pass over the pairs (both phases' samples), in the order measured.
    pub passes: Vec<f64>,
    /// (largest − smallest pass median) as % of the smallest.
    pub pass_spread_pct: f64,
    /// `pass_spread_pct` > [`UNSTABLE_LIMIT_PCT`]: the machine moved under this pair.
    pub unstable: bool,
    /// Each coherence transaction's net cost on this pair, beside the ping-pong.
    pub transactions: Vec<TransactionCost>,
    /// Samples each coherence transaction was to have, both CPUs' over every pass.
    pub transactions_planned: usize,
}

impl PairResult {
    /// Summarises one pair's samples from every pass (at least one).
    pub fn from_passes(pair: PlannedPair, home_node: u32, passes: Vec<PairSamples>) -> Self {
        let both = |s: &PairSamples| -> Vec<f64> {
            s.forward.iter().chain(&s.backward).copied().collect()
        };
        // (hi - lo) as % of lo; 0 without a positive lo.
        let pct = |lo: f64, hi: f64| {
            if lo.is_finite() {
                ratio(100.0 * (hi - lo), lo)
            } else {
                0.0
            }
        };
        let medians: Vec<f64> = passes.iter().map(|s| quantile_of(&both(s), 0.5)).collect();
        let (lo, hi) = (medians.iter()).fold((f64::INFINITY, 0.0f64), |(lo, hi), &m| {
            (lo.min(m), hi.max(m))
        });
        let pass_spread_pct = pct(lo, hi);
        let mut passes = passes.into_iter();
        let mut s = passes.next().expect("at least one pass");
        for later in passes {
            s.forward.extend(later.forward);
            s.backward.extend(later.backward);
            if s.transactions.len() < later.transactions.len() {
                s.transactions.resize(later.transactions.len(), Vec::new());
            }
            for (all, more) in s.transactions.iter_mut().zip(later.transactions) {
                all.extend(more);
            }
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
        let (f, b) = (forward.median_ns, backward.median_ns);
        let asymmetry_pct = if f <= b { pct(f, b) } else { pct(b, f) };
        let both = both(&s);
        let median_ns = quantile_of(&both, 0.5);
        PairResult {
            transactions: transaction_costs(&s.transactions, median_ns),
            cpus: [pair.a, pair.b],
            class: pair.class,
            home_node,
            line: s.line,
            threads: s.threads,
            forward,
            backward,
            median_ns,
            p90_ns: quantile_of(&both, 0.9),
            asymmetry_pct,
            asymmetric: asymmetry_pct > ASYMMETRY_LIMIT_PCT,
            passes: medians,
            pass_spread_pct,
            unstable: pass_spread_pct > UNSTABLE_LIMIT_PCT,
            transactions_planned: 0,
        }
    }

    /// Whether the coherence transactions stopped short of `transactions_planned`.
    pub fn transactions_cut(&self) -> bool {
        self.transactions_planned > 0
            && (self.transactions.len() < super::Transaction::ALL.len()
                || self
                    .transactions
                    .iter()
                    .any(|t| t.samples < self.transactions_planned))
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

    /// True when the two ping-pongs agree within ±[`REFERENCE_LIMIT_PCT`].
    pub fn agrees(&self) -> bool {
        self.difference_pct.abs() <= REFERENCE_LIMIT_PCT
    }
}

/// How far, %, the matrix's ping-pong on the first pair may be from the independent minimal one
/// before the summary says they disagree.
pub const REFERENCE_LIMIT_PCT: f64 = 5.0;

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
    /// Wall time the pairs took to measure, seconds.
    pub elapsed_s: f64,
    /// `--contenders`: k CPUs adding to one line, one entry per k ascending.
    pub contenders: Vec<ContendersPoint>,
    /// `--sharers`: one writer and m readers, one entry per m ascending (empty when not asked for).
    pub sharers: Vec<SharersPoint>,
    /// `--home-classes`: each class's transfers with the line local and remote to the requester.
    pub home_classes: Vec<HomeClass>,
}

/// A pair of CPUs `a` and `b` of `class` as `contend matrix` measures it (the line verified on node
/// 0), for tests: a ping-pong of `ns` each way and one sample of each transaction in `transactions`,
/// ns.
#[cfg(test)]
pub(crate) fn fixture_pair(
    a: u32,
    b: u32,
    class: PairClass,
    ns: f64,
    transactions: &[f64],
) -> PairResult {
    let samples = PairSamples {
        threads: [a, b].map(|cpu| PinnedThread {
            requested_cpu: cpu,
            observed_cpu: Some(cpu),
            verified: true,
            note: None,
        }),
        line: NodeCheck::Verified { node: 0 },
        forward: vec![ns],
        backward: vec![ns],
        transactions: transactions.iter().map(|t| vec![*t]).collect(),
    };
    PairResult::from_passes(PlannedPair { a, b, class }, 0, vec![samples])
}

/// A matrix of `run`'s host holding only `classes`, for tests.
#[cfg(test)]
pub(crate) fn fixture_matrix(
    run: &crate::runner::RunResults,
    classes: Vec<ClassStats>,
) -> MatrixResults {
    let ns = classes.first().map_or(1.0, |c| c.median_ns);
    MatrixResults {
        schema: SCHEMA_VERSION,
        config: MatrixConfig {
            cpus: vec![0, 1],
            mode: Mode::Cas,
            home: Home::First,
            samples: 3,
            round_trips_per_sample: 1,
            warmup_samples: 0,
            per_class: None,
            timer: TimerKind::Tsc,
            asymmetry_limit_pct: 15.0,
            reference_round_trips: 1,
            clipped: Vec::new(),
        },
        provenance: run.provenance.clone(),
        topology: run.topology.clone(),
        pairs: Vec::new(),
        advice: super::advise(&classes),
        empty_classes: Vec::new(),
        classes,
        reference: Reference::new([0, 1], 1, ns, ns),
        contenders: Vec::new(),
        sharers: Vec::new(),
        home_classes: Vec::new(),
        notes: Vec::new(),
        elapsed_s: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::Transaction;

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
            // Transaction i (from 0) costs (i + 1) × ns / 10 in this pass.
            transactions: (1..=Transaction::ALL.len() as u32)
                .map(|i| vec![ns * f64::from(i) / 10.0])
                .collect(),
        }
    }

    /// A pair measured in passes at `ns` each, verified.
    fn passes(ns: &[f64]) -> PairResult {
        PairResult::from_passes(pair(), 0, ns.iter().map(|&ns| samples(ns, true)).collect())
    }

    #[test]
    fn transactions_merge_their_passes_and_compare_with_the_ping_pong() {
        let r = passes(&[20.0, 100.0, 30.0]);
        // The pair's ping-pong: the median of the three passes' six
        // samples each (20, 20, 21, 20, 21, 21; 100, …; 30, …): the mean
        // of the 9th and 10th of the 18, 30 and 31.
        assert_eq!(r.median_ns, 30.5);
        let names: Vec<Transaction> = r.transactions.iter().map(|t| t.transaction).collect();
        assert_eq!(names, Transaction::ALL);
        for (i, t) in r.transactions.iter().enumerate() {
            // The trimmed mean of the passes' (i + 1) × 2, 10 and 3 ns
            // (5% of 3 samples trims none): (i + 1) × 5.
            let k = (i + 1) as f64;
            assert_eq!(t.samples, 3, "{t:?}");
            assert!((t.net_ns - 5.0 * k).abs() < 1e-12, "{t:?}");
            assert!((t.to_pingpong - 5.0 * k / 30.5).abs() < 1e-12, "{t:?}");
        }
        // A file's pairs from before: no transactions, none made up.
        let mut old = samples(20.0, true);
        old.transactions.clear();
        let r = PairResult::from_passes(pair(), 0, vec![old]);
        assert!(r.transactions.is_empty());
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
        let r = passes(&[27.0, 110.0, 27.0]);
        // Each pass's median over both phases: 27.5, 110.5, 27.5.
        assert_eq!(r.passes, [27.5, 110.5, 27.5]);
        assert!((r.pass_spread_pct - 100.0 * 83.0 / 27.5).abs() < 1e-9);
        assert!(r.unstable);
        // Every sample counts towards the phases and the pair.
        assert_eq!((r.forward.samples, r.backward.samples), (9, 9));
        assert_eq!(r.median_ns, 28.0);
        // Within 15% the passes agree.
        let steady = passes(&[27.0, 30.0, 28.0]);
        assert!(!steady.unstable, "{}", steady.pass_spread_pct);
        assert!((steady.pass_spread_pct - 100.0 * 3.0 / 27.5).abs() < 1e-9);
        // One pass: no spread.
        let one = PairResult::from_passes(pair(), 0, vec![samples(27.0, true)]);
        let spread = (one.passes.len(), one.pass_spread_pct, one.unstable);
        assert_eq!(spread, (1, 0.0, false));
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
        assert!(passes(&[27.0, 27.0]).verified());
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
        let one = |fwd, back| PairResult::from_passes(pair(), 0, vec![at(fwd, back)]);
        let two = |a, b| PairResult::from_passes(pair(), 0, vec![at(a, a), at(b, b)]);
        let r = one(100.0, 115.0);
        assert!((r.asymmetry_pct - 15.0).abs() < 1e-9 && !r.asymmetric);
        assert!(one(100.0, 115.1).asymmetric);
        // The slower side may be either: the percentage is of the faster.
        assert!((one(115.0, 100.0).asymmetry_pct - 15.0).abs() < 1e-9);
        // Passes at exactly 15% apart: stable; a hair more: unstable.
        let r = two(100.0, 115.0);
        assert!((r.pass_spread_pct - 15.0).abs() < 1e-9 && !r.unstable);
        assert!(two(100.0, 115.1).unstable);
        // A pass or a side at 0 ns (a timer that did not move) gives no
        // percentage, not infinity.
        let r = two(0.0, 30.0);
        assert_eq!((r.pass_spread_pct, r.unstable), (0.0, false));
        let r = one(0.0, 30.0);
        assert_eq!((r.asymmetry_pct, r.asymmetric), (0.0, false));
        // Passes whose medians are no number leave the cheapest pass at infinity: no percentage.
        let r = two(f64::NAN, f64::NAN);
        assert_eq!((r.pass_spread_pct, r.unstable), (0.0, false));
    }
}
