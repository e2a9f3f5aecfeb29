//! The transfer time of a cache line between two CPUs, per distance class, with its uncertainty:
//! given on the command line (`--host same-llc=51ns,cross-node@21=108ns±10%`), read from a `contend
//! matrix` file, or one figure for every class (a run's canary).

use super::class::{Bound, ClassLatency, DEFAULT_UNCERTAINTY_PCT, LatencyKey};
use super::costs::LineCosts;
use crate::matrix::{MatrixResults, PairClass, Transaction, TransactionCost};
use crate::stats::median;
use crate::units::{Unit, human};
use std::collections::BTreeMap;
use std::str::FromStr;

/// Pair classes and how many pairs of each (of one kind, on one line).
pub type ClassCounts = BTreeMap<PairClass, u64>;

/// One `--host` class item: `CLASS=TIME` or `CLASS=TIME±U` (U in ns or %).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyArg {
    /// The class it is for.
    pub key: LatencyKey,
    /// Its figure and range.
    pub latency: ClassLatency,
}

/// A `--host` class item that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad --host class \"{item}\": {reason} (want CLASS=TIME[±U], e.g. same-llc=51ns or cross-node@21=108ns±10%; classes: smt, same-llc, same-node, cross-node@D, cross-node)"
)]
pub struct LatencyArgError {
    /// The item as given.
    pub item: String,
    /// What is wrong.
    pub reason: String,
}

impl FromStr for LatencyArg {
    type Err = LatencyArgError;
    fn from_str(s: &str) -> Result<Self, LatencyArgError> {
        let err = |reason: &str| LatencyArgError {
            item: s.to_string(),
            reason: reason.to_string(),
        };
        let (name, value) = s.split_once('=').ok_or_else(|| err("no '='"))?;
        let key = LatencyKey::try_from(name.to_string()).map_err(|_| err("unknown class"))?;
        let (time, unc) = (value.split_once('±').or_else(|| value.split_once("+-")))
            .map_or((value, None), |(t, u)| (t, Some(u)));
        let ns =
            parse_ns(time).ok_or_else(|| err("the time is not a number above 0 with ns or us"))?;
        let latency = match unc.map(str::trim) {
            None => ClassLatency::with_pct(ns, DEFAULT_UNCERTAINTY_PCT),
            Some(u) => match u.strip_suffix('%') {
                Some(p) => match p.trim().parse::<f64>() {
                    Ok(p) if (0.0..100.0).contains(&p) => ClassLatency::with_pct(ns, p),
                    _ => return Err(err("the uncertainty must be 0% to below 100%")),
                },
                None => match parse_ns(u).or((u == "0").then_some(0.0)) {
                    Some(d) if d < ns => ClassLatency {
                        ns,
                        lo_ns: ns - d,
                        hi_ns: ns + d,
                    },
                    _ => return Err(err("the uncertainty must be below the time")),
                },
            },
        };
        Ok(LatencyArg { key, latency })
    }
}

/// `51ns`, `51`, `0.1us`, `0.1µs`: nanoseconds above zero.
pub(super) fn parse_ns(s: &str) -> Option<f64> {
    let s = s.trim();
    let (number, scale) = if let Some(n) = s.strip_suffix("ns") {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix("us").or_else(|| s.strip_suffix("µs")) {
        (n, 1e3)
    } else {
        (s, 1.0)
    };
    number
        .trim()
        .parse::<f64>()
        .ok()
        .map(|v| v * scale)
        .filter(|v| *v > 0.0 && v.is_finite())
}

/// What each coherence transaction an update makes costs, as a multiple of its class's ping-pong.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TransactionRatios {
    /// An add on a line another CPU has just written.
    pub add_moved: f64,
    /// A read of a line another CPU has just written.
    pub read_fetched: f64,
    /// An add on a line another CPU has only read.
    pub add_upgraded: f64,
    /// A read of a line this CPU wrote and another CPU has since only read; `None`: not measured,
    /// priced as free.
    pub read_back: Option<f64>,
    /// An add on a line another CPU has read, then a read of a line it has written, timed whole.
    pub add_then_read_other: f64,
}

impl TransactionRatios {
    /// Every transfer at the ping-pong and nothing overlapping.
    pub const PINGPONG: TransactionRatios = TransactionRatios {
        add_moved: 1.0,
        read_fetched: 1.0,
        add_upgraded: 1.0,
        read_back: None,
        add_then_read_other: 2.0,
    };

    /// The ratio of `t` (`add+read same` is priced as its add).
    pub fn of(&self, t: Transaction) -> f64 {
        match t {
            Transaction::AddMoved | Transaction::AddThenReadSame => self.add_moved,
            Transaction::ReadFetched => self.read_fetched,
            Transaction::AddUpgraded => self.add_upgraded,
            // A net just under 0 is a read that found its copy: free.
            Transaction::ReadBack => self.read_back.unwrap_or(0.0).max(0.0),
            Transaction::AddThenReadOther => self.add_then_read_other,
        }
    }

    /// The ratios `ratio` gives each transaction the model prices; `None` when it lacks one.
    fn from_fn(ratio: impl Fn(Transaction) -> Option<f64>) -> Option<Self> {
        Some(TransactionRatios {
            add_moved: ratio(Transaction::AddMoved)?,
            read_fetched: ratio(Transaction::ReadFetched)?,
            add_upgraded: ratio(Transaction::AddUpgraded)?,
            read_back: ratio(Transaction::ReadBack),
            add_then_read_other: ratio(Transaction::AddThenReadOther)?,
        })
    }

    /// How much of an upgrade and a fetch made together is paid.
    pub fn overlap(&self) -> f64 {
        let apart = self.add_upgraded + self.read_fetched;
        if apart > 0.0 {
            self.add_then_read_other / apart
        } else {
            1.0
        }
    }
}

/// The class latencies a prediction uses, and where they came from.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Latencies {
    /// Figures by class (`cross-node` for every distance without its own).
    pub classes: BTreeMap<LatencyKey, ClassLatency>,
    /// Where the figures came from (`--host`, a matrix file, a canary).
    pub source: String,
    /// Each class's transaction ratios, from a matrix that measured them.
    pub transactions: BTreeMap<LatencyKey, TransactionRatios>,
    /// What a line costs beyond the idle class latencies.
    pub costs: LineCosts,
    /// Why measured transactions were left out ([`Latencies::priceable`]); [`Latencies::pricing`]
    /// says it, and that sentence is what the result files record.
    #[serde(skip)]
    pub left_out: Option<String>,
}

/// Class figures at one bound with their transaction ratios, looked up once.
#[derive(Debug, Clone)]
pub struct Prices(BTreeMap<PairClass, (f64, TransactionRatios)>);

impl Prices {
    /// The mean time, ns, of transaction `t` over `pairs` (pair classes and how many of each).
    pub fn mean_time(&self, pairs: &ClassCounts, t: Transaction) -> Option<f64> {
        mean_over(pairs, |c| self.0.get(c).map_or(0.0, |(ns, r)| ns * r.of(t)))
    }

    /// The mean [`TransactionRatios::overlap`] over `pairs` (1 without any).
    pub fn overlap(&self, pairs: &ClassCounts) -> f64 {
        let ratios = |c: &PairClass| {
            self.0
                .get(c)
                .map_or(TransactionRatios::PINGPONG, |(_, r)| *r)
        };
        mean_over(pairs, |c| ratios(c).overlap()).unwrap_or(1.0)
    }
}

/// The mean of `f` over `pairs`, each class weighed by its pairs; `None` without any.
fn mean_over(pairs: &ClassCounts, f: impl Fn(&PairClass) -> f64) -> Option<f64> {
    let n: u64 = pairs.values().sum();
    (n > 0).then(|| pairs.iter().map(|(c, k)| f(c) * *k as f64).sum::<f64>() / n as f64)
}

/// A class among the chosen CPUs that no figure covers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no latency for class {class} (the chosen CPUs have pairs of it); given: {given}; add --host {class}=TIME"
)]
pub struct MissingClass {
    /// The class without a figure.
    pub class: String,
    /// The classes that have one.
    pub given: String,
}

/// A transfer priced at or below 0 ns.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "the {class} transfer is priced at {} ({from}): a transfer takes time above 0; measure again or give --host {class}=TIME",
    human(*.ns, Unit::Nanoseconds)
)]
pub struct NonPositive {
    /// The class.
    pub class: String,
    /// Its lowest figure, ns.
    pub ns: f64,
    /// Where the figures came from.
    pub from: String,
}

impl Latencies {
    /// From `--host` class items (a later item for the same class wins).
    pub fn from_args(args: &[LatencyArg]) -> Self {
        Latencies {
            classes: args.iter().map(|a| (a.key, a.latency)).collect(),
            source: "--host".into(),
            ..Latencies::default()
        }
    }

    /// From a `contend matrix` file: each class's median pair, its range the pairs' spread widened
    /// to at least ±[`DEFAULT_UNCERTAINTY_PCT`]%.
    pub fn from_matrix(m: &MatrixResults, name: &str) -> Self {
        Latencies {
            classes: m
                .classes
                .iter()
                .map(|c| {
                    let l = ClassLatency::from_spread(c.median_ns, c.min_ns, c.max_ns);
                    (LatencyKey::Class(c.class), l)
                })
                .collect(),
            source: name.to_string(),
            transactions: m
                .classes
                .iter()
                .filter_map(|c| Some((LatencyKey::Class(c.class), class_ratios(m, c.class)?)))
                .collect(),
            costs: LineCosts::from_matrix(m, name),
            left_out: None,
        }
    }

    /// One figure, exactly, for every class (a run's canary).
    pub fn uniform(ns: f64, source: &str) -> Self {
        let l = ClassLatency::with_pct(ns, 0.0);
        Latencies {
            classes: [PairClass::Smt, PairClass::SameLlc, PairClass::SameNode]
                .map(LatencyKey::Class)
                .into_iter()
                .chain([LatencyKey::AnyCrossNode])
                .map(|k| (k, l))
                .collect(),
            source: source.to_string(),
            ..Latencies::default()
        }
    }

    /// The same figures with every class's transactions priced by `costs`.
    pub fn priced_by(self, costs: &[TransactionCost]) -> Self {
        self.priced_at(|t| {
            costs
                .iter()
                .find(|c| c.transaction == t)
                .map(|c| c.to_pingpong)
        })
    }

    /// The same figures with every class's transactions at `ratio` of its ping-pong.
    pub fn priced_at(mut self, ratio: impl Fn(Transaction) -> Option<f64>) -> Self {
        if let Some(r) = TransactionRatios::from_fn(ratio) {
            self.transactions = self.classes.keys().map(|k| (*k, r)).collect();
        }
        self
    }

    /// The same figures with every class's read back at `ratio` × its ping-pong.
    pub fn with_read_back(mut self, ratio: f64, source: &str) -> Self {
        for class in self.classes.keys() {
            self.transactions
                .entry(*class)
                .or_insert(TransactionRatios::PINGPONG)
                .read_back = Some(ratio);
        }
        self.source = format!("{} and a read back of {ratio}x ({source})", self.source);
        self
    }

    /// Checks that every class's lowest figure, and every transaction ratio, is above 0.
    pub fn positive(&self) -> Result<(), NonPositive> {
        let bad = |class: &LatencyKey, ns: f64| NonPositive {
            class: class.to_string(),
            ns,
            from: self.source.clone(),
        };
        for (class, l) in &self.classes {
            let low = l.lo_ns.min(l.ns);
            if low.is_nan() || low <= 0.0 || !l.hi_ns.is_finite() {
                return Err(bad(class, low));
            }
        }
        for (class, r) in &self.transactions {
            let least = [r.read_fetched, r.add_upgraded, r.add_then_read_other]
                .into_iter()
                .fold(f64::INFINITY.min(r.add_moved), f64::min);
            if least.is_nan() || least <= 0.0 {
                let ns = self.classes.get(class).map_or(0.0, |l| l.ns) * least;
                return Err(bad(class, ns));
            }
        }
        Ok(())
    }

    /// These figures, unless a transaction prices a transfer at or below 0 ns while every class
    /// latency is above 0 (a host that moved the CPUs mid-matrix, or siblings sharing a cache):
    /// then the same class latencies with every transfer at its ping-pong, and why in `left_out`.
    pub fn priceable(self) -> Self {
        let Err(e) = self.positive() else {
            return self;
        };
        let mut plain = self.clone();
        plain.transactions.clear();
        if plain.positive().is_err() {
            return self;
        }
        plain.left_out = Some(e.to_string());
        plain
    }

    /// The same figures with every transfer time (each class's range and the sharers curve) ×
    /// `factor`: how the model's figures move with the latencies.
    pub fn scaled(&self, factor: f64) -> Self {
        let mut out = self.clone();
        for l in out.classes.values_mut() {
            for x in [&mut l.ns, &mut l.lo_ns, &mut l.hi_ns] {
                *x *= factor;
            }
        }
        for p in &mut out.costs.sharers.points {
            p.ns *= factor;
        }
        out
    }

    /// True when transactions are priced from measurements.
    pub fn priced(&self) -> bool {
        !self.transactions.is_empty()
    }

    /// How transactions are priced, one clause: from the matrix, or all at the ping-pong.
    pub fn pricing(&self) -> String {
        if self.priced() {
            format!(
                "each transaction priced as measured ({}: {})",
                self.source,
                self.transactions
                    .iter()
                    .map(|(class, r)| format!(
                        "{class} add moved {:.2}×, read fetched {:.2}×, add upgraded {:.2}×, read back {}, both of a split {:.2}× its ping-pong",
                        r.add_moved,
                        r.read_fetched,
                        r.add_upgraded,
                        r.read_back.map_or("not measured, so free".into(), |x| format!("{x:.2}×")),
                        r.add_then_read_other
                    ))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        } else if let Some(why) = &self.left_out {
            format!(
                "every transfer priced at its class's ping-pong, nothing overlapping (the measured transactions were left out: {why})"
            )
        } else {
            "every transfer priced at its class's ping-pong, nothing overlapping (no measured transactions: give --host a contend matrix that measured them)".into()
        }
    }

    /// Each of `classes`' figure at `bound` and its transaction ratios, looked up once.
    pub fn prices(
        &self,
        classes: impl Iterator<Item = PairClass>,
        bound: Bound,
        remote: bool,
    ) -> Prices {
        Prices(
            classes
                .map(|c| {
                    let factor = match (&self.costs.home, remote) {
                        (Some(h), true) => h.remote_factor(c).unwrap_or(1.0),
                        _ => 1.0,
                    };
                    let ns = self.of(c).map_or(0.0, |l| l.at(bound)) * factor;
                    (c, (ns, self.ratios(c)))
                })
                .collect(),
        )
    }

    /// The transaction ratios of `class`.
    pub fn ratios(&self, class: PairClass) -> TransactionRatios {
        LatencyKey::lookup(&self.transactions, class)
            .copied()
            .unwrap_or(TransactionRatios::PINGPONG)
    }

    /// The figure for `class`: its own, or `cross-node`'s for a cross-node distance without one.
    pub fn of(&self, class: PairClass) -> Result<ClassLatency, MissingClass> {
        LatencyKey::lookup(&self.classes, class)
            .copied()
            .ok_or_else(|| MissingClass {
                class: class.to_string(),
                given: if self.classes.is_empty() {
                    "none".into()
                } else {
                    let keys: Vec<String> = self.classes.keys().map(|k| k.to_string()).collect();
                    keys.join(", ")
                },
            })
    }
}

/// The median ratio to the ping-pong of each transaction over `class`'s pairs of `m` that measured
/// them; `None` when none did.
fn class_ratios(m: &MatrixResults, class: PairClass) -> Option<TransactionRatios> {
    TransactionRatios::from_fn(|t| {
        let v: Vec<f64> = m
            .pairs
            .iter()
            .filter(|p| p.class == class)
            .filter_map(|p| p.transactions.iter().find(|c| c.transaction == t))
            .map(|c| c.to_pingpong)
            .collect();
        median(&v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::tests::says;

    #[test]
    fn a_read_back_given_for_every_class_keeps_what_was_measured() {
        let mut l = Latencies::uniform(50.0, "canary");
        let measured = TransactionRatios {
            add_moved: 1.2,
            ..TransactionRatios::PINGPONG
        };
        l.transactions
            .insert(LatencyKey::Class(PairClass::Smt), measured);
        let l = l.with_read_back(1.07, "matrix");
        // Every class has it; a measured class keeps its other ratios, the others are at the
        // ping-pong.
        assert_eq!(l.transactions.len(), 4);
        let smt = l.transactions[&LatencyKey::Class(PairClass::Smt)];
        assert_eq!((smt.add_moved, smt.read_back), (1.2, Some(1.07)));
        let llc = l.transactions[&LatencyKey::Class(PairClass::SameLlc)];
        assert_eq!((llc.add_moved, llc.read_back), (1.0, Some(1.07)));
        assert_eq!(llc.of(crate::matrix::Transaction::ReadBack), 1.07);
        assert!(
            l.source.ends_with("and a read back of 1.07x (matrix)"),
            "{}",
            l.source
        );
    }

    #[test]
    fn items_parse_with_units_and_uncertainty() {
        let a: LatencyArg = "same-llc=51ns".parse().unwrap();
        assert_eq!(a.key, LatencyKey::Class(PairClass::SameLlc));
        assert_eq!(a.latency, ClassLatency::with_pct(51.0, 25.0));
        let b: LatencyArg = "cross-node@21=0.108us±10%".parse().unwrap();
        assert_eq!(b.key, LatencyKey::Class(PairClass::CrossNode(21)));
        assert!((b.latency.lo_ns - 97.2).abs() < 1e-9 && (b.latency.hi_ns - 118.8).abs() < 1e-9);
        let c: LatencyArg = "cross-node=200+-20ns".parse().unwrap();
        assert_eq!(c.key, LatencyKey::AnyCrossNode);
        assert_eq!((c.latency.lo_ns, c.latency.hi_ns), (180.0, 220.0));
        let d: LatencyArg = "smt=8±0".parse().unwrap();
        assert_eq!((d.latency.lo_ns, d.latency.hi_ns), (8.0, 8.0));
        for bad in [
            "same-socket=51ns",
            "same-llc",
            "same-llc=-3ns",
            "same-llc=51ms",
            "same-llc=51ns±120%",
            "same-llc=51ns±60ns",
            // A time of 0, or an uncertainty as large as the time (a low end of 0 ns), is refused
            // too.
            "same-llc=0ns",
            "same-llc=51ns±51ns",
        ] {
            let e = bad.parse::<LatencyArg>().unwrap_err().to_string();
            assert!(e.starts_with(&format!("bad --host class \"{bad}\"")), "{e}");
        }
    }

    #[test]
    fn a_matrix_gives_each_class_its_median_and_at_least_25_percent_either_side() {
        use crate::matrix::ClassStats;
        let stats = |class, median_ns: f64, min_ns: f64, max_ns: f64| ClassStats {
            class,
            pairs: 3,
            candidates: 3,
            median_ns,
            p90_ns: max_ns,
            min_ns,
            max_ns,
        };
        // same-llc: pairs 30..70 around 50, wider than ±25% (37.5..62.5): the pairs' range.
        // cross-node@21: pairs 90..110 around 100, narrower than ±25%: 75..125.
        let classes = vec![
            stats(PairClass::SameLlc, 50.0, 30.0, 70.0),
            stats(PairClass::CrossNode(21), 100.0, 90.0, 110.0),
        ];
        let m = crate::matrix::fixture_matrix(&crate::runner::fixture_run(), classes);
        let l = Latencies::from_matrix(&m, "m.json");
        assert_eq!(l.source, "m.json");
        let llc = l.of(PairClass::SameLlc).unwrap();
        assert_eq!((llc.lo_ns, llc.ns, llc.hi_ns), (30.0, 50.0, 70.0));
        let far = l.of(PairClass::CrossNode(21)).unwrap();
        assert_eq!((far.lo_ns, far.ns, far.hi_ns), (75.0, 100.0, 125.0));
        assert_eq!(l.classes.len(), 2);
        // Pairs without transactions: none priced, every class at the ping-pong.
        assert!(!l.priced());
        assert_eq!(l.ratios(PairClass::SameLlc), TransactionRatios::PINGPONG);

        // Three same-llc pairs at a 50 ns ping-pong whose transactions cost 1, 2 and 3 × (60, 55,
        // 45, 65, 60) ns: per transaction the median pair's ratio, (60, 55, 45, 65) × 2 / 50.
        let mut m = m;
        m.pairs = (1..=3)
            .map(|k| {
                let x = f64::from(k);
                crate::matrix::fixture_pair(
                    0,
                    k,
                    PairClass::SameLlc,
                    50.0,
                    &[60.0, 55.0, 45.0, 30.0, 65.0, 60.0].map(|ns| ns * x),
                )
            })
            .collect();
        let l = Latencies::from_matrix(&m, "m.json");
        assert!(l.priced());
        let r = l.ratios(PairClass::SameLlc);
        let (add_moved, read_fetched, add_upgraded) = (2.4, 2.2, 1.8);
        let (read_back, add_then_read_other) = (Some(1.2), 2.6);
        let want = TransactionRatios {
            add_moved,
            read_fetched,
            add_upgraded,
            read_back,
            add_then_read_other,
        };
        assert_eq!(r, want);
        assert!((r.overlap() - 2.6 / 4.0).abs() < 1e-12);
        // A class the matrix priced nothing for: the ping-pong.
        assert_eq!(
            l.ratios(PairClass::CrossNode(21)),
            TransactionRatios::PINGPONG
        );
        assert_eq!(TransactionRatios::PINGPONG.overlap(), 1.0);

        // Without the load measurements the line costs are empty; with them, each becomes its curve
        // or ratio, named by the file.
        assert_eq!(l.costs, LineCosts::default());
        use crate::matrix::{HomeClass, HomeCost as MatrixHome, SharersPoint};
        let home = |read_fetched_ns, add_moved_ns| MatrixHome {
            distance: 10,
            read_fetched_ns,
            add_moved_ns,
            samples: 20,
        };
        // cross-node@21: local 100 + 100 ns, remote 150 + 170: 320 / 200 = 1.6; same-llc has no
        // remote side (one memory node), so no ratio.
        m.home_classes = vec![
            HomeClass {
                class: PairClass::SameLlc,
                pairs: vec![[0, 1]],
                local: home(40.0, 60.0),
                remote: None,
            },
            HomeClass {
                class: PairClass::CrossNode(21),
                pairs: vec![[0, 2]],
                local: home(100.0, 100.0),
                remote: Some(home(150.0, 170.0)),
            },
        ];
        let sharers = |m: usize, upgrade_ns: f64| SharersPoint {
            m,
            writer: 0,
            readers: (1..=m as u32).collect(),
            widest_class: PairClass::SameLlc,
            home_node: 0,
            line: crate::placement::NodeCheck::Verified { node: 0 },
            threads: Vec::new(),
            rounds: 20,
            reads: 20,
            fresh_reads: 20,
            upgrade_ns,
        };
        // m = 1 at 70 ns; m = 2 net at -5 ns (noise): left out.
        m.sharers = vec![sharers(1, 70.0), sharers(2, -5.0)];
        let costs = Latencies::from_matrix(&m, "m.json").costs;
        assert_eq!(
            costs.sharers.points,
            vec![crate::predict::costs::CostPoint { at: 1, ns: 70.0 }]
        );
        assert!(costs.sharers.source.starts_with("m.json: sharers"));
        assert!(costs.contenders.points.is_empty() && costs.contenders.source.is_empty());
        let h = costs.home.expect("a remote side");
        assert_eq!(h.by_class.len(), 1);
        let key = LatencyKey::Class(PairClass::CrossNode(21));
        assert!((h.by_class[&key] - 1.6).abs() < 1e-12, "{h:?}");
        assert_eq!(h.remote_factor(PairClass::CrossNode(21)), Some(1.6));
    }

    #[test]
    fn a_cross_node_figure_covers_distances_without_their_own() {
        let l = crate::predict::tests::lat(&["smt=8ns", "cross-node=100ns", "cross-node@32=150ns"]);
        assert_eq!(l.of(PairClass::CrossNode(21)).unwrap().ns, 100.0);
        assert_eq!(l.of(PairClass::CrossNode(32)).unwrap().ns, 150.0);
        assert_eq!(l.of(PairClass::Smt).unwrap().ns, 8.0);
        let e = l.of(PairClass::SameLlc).unwrap_err().to_string();
        says(&e, "no latency for class same-llc");
        says(&e, "given: smt, cross-node@32, cross-node");
        assert_eq!(
            Latencies::uniform(27.0, "canary")
                .of(PairClass::CrossNode(40))
                .unwrap()
                .hi_ns,
            27.0
        );
    }

    #[test]
    fn a_transfer_at_or_below_zero_is_refused() {
        assert!(Latencies::uniform(27.0, "canary").positive().is_ok());
        let e = Latencies::uniform(0.0, "canary").positive().unwrap_err();
        assert_eq!(e.from, "canary");
        says(&e.to_string(), "priced at 0 ns (canary)");
        // Written as every figure is, to 3 significant digits.
        let e = Latencies::uniform(-1.2020496919372101, "m.json")
            .positive()
            .unwrap_err();
        says(&e.to_string(), "priced at -1.20 ns (m.json)");
        // A measured transaction ratio of 0 (a read that fetched) prices that transfer at 0.
        let costs = crate::predict::tests::priced(30.0, [1.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
        let l = Latencies::uniform(30.0, "canary").priced_by(&costs);
        assert!(l.positive().is_err());
    }

    #[test]
    fn transactions_at_or_below_zero_are_left_out_and_said() {
        let priced = |add_moved: f64| {
            let mut l = Latencies::uniform(80.0, "this study's matrix");
            let ratios = TransactionRatios {
                add_moved,
                ..TransactionRatios::PINGPONG
            };
            l.transactions
                .insert(LatencyKey::Class(PairClass::SameLlc), ratios);
            l
        };
        // Above 0: kept as measured, nothing said.
        let l = priced(1.2).priceable();
        assert_eq!((l.transactions.len(), l.left_out), (1, None));
        // An add moved at -1.3 × 80 ns: left out, every transfer at the
        // ping-pong, and the reason names the figure.
        let l = priced(-1.3).priceable();
        assert!(!l.priced(), "{l:?}");
        let why = l.left_out.as_deref().unwrap();
        assert!(why.contains("-104"), "{why}");
        assert!(l.pricing().contains("ping-pong"), "{}", l.pricing());
        // The pricing clause every prediction and check records says so, not "no measured
        // transactions".
        let says = "nothing overlapping (the measured transactions were left out: the same-llc transfer is priced at -104 ns";
        assert!(l.pricing().contains(says), "{}", l.pricing());
        // A class latency at or below 0 is not mended here, with
        // transactions or without: the model refuses it.
        let l = Latencies::uniform(0.0, "m").priceable();
        assert!(l.positive().is_err() && l.left_out.is_none());
        let mut zero = priced(-1.3);
        zero.classes
            .get_mut(&LatencyKey::Class(PairClass::Smt))
            .unwrap()
            .ns = 0.0;
        let l = zero.priceable();
        assert!(l.priced() && l.left_out.is_none(), "{l:?}");
    }
}
