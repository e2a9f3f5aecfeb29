//! The transfer time of a cache line between two CPUs, per distance
//! class, with its uncertainty: given on the command line
//! (`--latency same-llc=51ns,cross-node@21=108ns±10%`), read from a
//! `contend matrix` file, or one figure for every class (a run's canary).

use crate::matrix::{MatrixResults, PairClass, Transaction, TransactionCost};
use crate::stats::median;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Pair classes and how many pairs of each (of one kind, on one line).
pub type ClassCounts = BTreeMap<PairClass, u64>;

/// A class latency's uncertainty when none is given: ±25%.
pub const DEFAULT_UNCERTAINTY_PCT: f64 = 25.0;

/// Which end of every class's range the model is evaluated at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// Every class at its lowest figure.
    Low,
    /// Every class at its central figure.
    Mid,
    /// Every class at its highest figure.
    High,
}

/// One class's one-way transfer time, ns: a central figure and a range.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClassLatency {
    /// The central figure, ns.
    pub ns: f64,
    /// The lowest figure, ns.
    pub lo_ns: f64,
    /// The highest figure, ns.
    pub hi_ns: f64,
}

impl ClassLatency {
    /// `ns` ± `pct` percent.
    pub fn with_pct(ns: f64, pct: f64) -> Self {
        ClassLatency {
            ns,
            lo_ns: ns * (1.0 - pct / 100.0),
            hi_ns: ns * (1.0 + pct / 100.0),
        }
    }

    /// `ns` with the range `lo_ns`..`hi_ns` of its measurements, widened
    /// to at least ±[`DEFAULT_UNCERTAINTY_PCT`]%.
    pub fn from_spread(ns: f64, lo_ns: f64, hi_ns: f64) -> Self {
        ClassLatency {
            ns,
            lo_ns: lo_ns.min(ns * (1.0 - DEFAULT_UNCERTAINTY_PCT / 100.0)),
            hi_ns: hi_ns.max(ns * (1.0 + DEFAULT_UNCERTAINTY_PCT / 100.0)),
        }
    }

    /// The figure at `bound`, ns.
    pub fn at(&self, bound: Bound) -> f64 {
        match bound {
            Bound::Low => self.lo_ns,
            Bound::Mid => self.ns,
            Bound::High => self.hi_ns,
        }
    }
}

/// What a latency figure is given for: one class, or every cross-node
/// distance not given on its own (`cross-node`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LatencyKey {
    /// One class.
    Class(PairClass),
    /// Every cross-node distance without a figure of its own.
    AnyCrossNode,
}

impl fmt::Display for LatencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LatencyKey::Class(c) => c.fmt(f),
            LatencyKey::AnyCrossNode => f.write_str("cross-node"),
        }
    }
}

/// One `--latency` item: `CLASS=TIME` or `CLASS=TIME±U` (U in ns or %).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyArg {
    /// The class it is for.
    pub key: LatencyKey,
    /// Its figure and range.
    pub latency: ClassLatency,
}

/// A `--latency` item that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad --latency \"{item}\": {reason} (want CLASS=TIME[±U], e.g. same-llc=51ns or cross-node@21=108ns±10%; classes: smt, same-llc, same-node, cross-node@D, cross-node)"
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
        let key = match name.trim() {
            "cross-node" => LatencyKey::AnyCrossNode,
            other => LatencyKey::Class(other.parse().map_err(|_| err("unknown class"))?),
        };
        let (time, unc) = match value.split_once('±').or_else(|| value.split_once("+-")) {
            Some((t, u)) => (t, Some(u)),
            None => (value, None),
        };
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
fn parse_ns(s: &str) -> Option<f64> {
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

/// What each coherence transaction an update makes costs, as a multiple
/// of its class's ping-pong (the class latency): how the model prices an
/// add that moves a line, a read that fetches one, an add that upgrades
/// one, and an add and a read of another line made together.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TransactionRatios {
    /// An add on a line another CPU has just written.
    pub add_moved: f64,
    /// A read of a line another CPU has just written.
    pub read_fetched: f64,
    /// An add on a line another CPU has only read.
    pub add_upgraded: f64,
    /// A read of a line this CPU wrote and another CPU has since only
    /// read; `None` where it was not measured (files from before
    /// 2026-12-02T17:30Z, or no matrix), priced then as free: the writer
    /// keeps a shared copy.
    #[serde(default)]
    pub read_back: Option<f64>,
    /// An add on a line another CPU has read, then a read of a line it
    /// has written, timed whole (less than the two apart where the read's
    /// miss overlaps the add's).
    pub add_then_read_other: f64,
}

impl TransactionRatios {
    /// Every transfer at the ping-pong and nothing overlapping: what the
    /// model assumes without a matrix's transactions.
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

    /// The ratios `ratio` gives each transaction the model prices;
    /// `None` when it lacks one.
    fn from_fn(ratio: impl Fn(Transaction) -> Option<f64>) -> Option<Self> {
        Some(TransactionRatios {
            add_moved: ratio(Transaction::AddMoved)?,
            read_fetched: ratio(Transaction::ReadFetched)?,
            add_upgraded: ratio(Transaction::AddUpgraded)?,
            read_back: ratio(Transaction::ReadBack),
            add_then_read_other: ratio(Transaction::AddThenReadOther)?,
        })
    }

    /// How much of an upgrade and a fetch made together is paid:
    /// `add_then_read_other` over the two apart (1 = no overlap).
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
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Latencies {
    /// Figures by class name (`same-llc`, `cross-node@21`, `cross-node`
    /// for every distance without its own).
    pub classes: BTreeMap<String, ClassLatency>,
    /// Where the figures came from (`--latency`, a matrix file, a canary).
    pub source: String,
    /// Each class's transaction ratios, from a matrix that measured them
    /// (the median of its pairs'); a class without them is priced at
    /// [`TransactionRatios::PINGPONG`].
    #[serde(default)]
    pub transactions: BTreeMap<String, TransactionRatios>,
    /// What a line costs beyond the idle class latencies: under load,
    /// with sharers, by where its memory lives, and which fetches occupy
    /// it.
    #[serde(default)]
    pub costs: LineCosts,
}

/// Class figures at one bound with their transaction ratios, looked up
/// once ([`Latencies::prices`]).
#[derive(Debug, Clone)]
pub struct Prices(BTreeMap<PairClass, (f64, TransactionRatios)>);

impl Prices {
    /// The mean time, ns, of transaction `t` over `pairs` (pair classes
    /// and how many of each): each class's figure times its ratio for `t`
    /// (a class not priced counts 0); `None` without pairs.
    pub fn mean_time(&self, pairs: &ClassCounts, t: Transaction) -> Option<f64> {
        let n: u64 = pairs.values().sum();
        (n > 0).then(|| {
            pairs
                .iter()
                .map(|(c, k)| {
                    self.0
                        .get(c)
                        .map_or(0.0, |(ns, r)| ns * r.of(t) * *k as f64)
                })
                .sum::<f64>()
                / n as f64
        })
    }

    /// The mean [`TransactionRatios::overlap`] over `pairs` (1 without
    /// any).
    pub fn overlap(&self, pairs: &ClassCounts) -> f64 {
        let n: u64 = pairs.values().sum();
        if n == 0 {
            return 1.0;
        }
        pairs
            .iter()
            .map(|(c, k)| {
                self.0
                    .get(c)
                    .map_or(TransactionRatios::PINGPONG, |(_, r)| *r)
                    .overlap()
                    * *k as f64
            })
            .sum::<f64>()
            / n as f64
    }
}

/// A class among the chosen CPUs that no figure covers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no latency for class {class} (the chosen CPUs have pairs of it); given: {given}; add --latency {class}=TIME"
)]
pub struct MissingClass {
    /// The class without a figure.
    pub class: String,
    /// The classes that have one.
    pub given: String,
}

/// A transfer priced at or below 0 ns: no line moves in no time, so the
/// model refuses it rather than predict from it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "the {class} transfer is priced at {ns} ns ({from}): a transfer takes time above 0; measure again or give --latency {class}=TIME"
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
    /// From `--latency` items (a later item for the same class wins).
    pub fn from_args(args: &[LatencyArg]) -> Self {
        Latencies {
            classes: args
                .iter()
                .map(|a| (a.key.to_string(), a.latency))
                .collect(),
            source: "--latency".into(),
            transactions: BTreeMap::new(),
            costs: LineCosts::default(),
        }
    }

    /// From a `contend matrix` file: each class's median pair, its range
    /// the pairs' spread widened to at least ±[`DEFAULT_UNCERTAINTY_PCT`]%.
    pub fn from_matrix(m: &MatrixResults, name: &str) -> Self {
        Latencies {
            classes: m
                .classes
                .iter()
                .map(|c| {
                    let l = ClassLatency::from_spread(c.median_ns, c.min_ns, c.max_ns);
                    (c.class.to_string(), l)
                })
                .collect(),
            source: name.to_string(),
            transactions: m
                .classes
                .iter()
                .filter_map(|c| Some((c.class.to_string(), class_ratios(m, c.class)?)))
                .collect(),
            costs: LineCosts::from_matrix(m, name),
        }
    }

    /// One figure, exactly, for every class (a run's canary).
    pub fn uniform(ns: f64, source: &str) -> Self {
        let l = ClassLatency {
            ns,
            lo_ns: ns,
            hi_ns: ns,
        };
        Latencies {
            classes: [
                ("smt", l),
                ("same-llc", l),
                ("same-node", l),
                ("cross-node", l),
            ]
            .into_iter()
            .map(|(k, l)| (k.to_string(), l))
            .collect(),
            source: source.to_string(),
            transactions: BTreeMap::new(),
            costs: LineCosts::default(),
        }
    }

    /// The same figures with every class's transactions priced by
    /// `costs` (a run's canary: one pair, so one set of ratios for all);
    /// unchanged when `costs` lacks one of them.
    pub fn priced_by(self, costs: &[TransactionCost]) -> Self {
        self.priced_at(|t| {
            costs
                .iter()
                .find(|c| c.transaction == t)
                .map(|c| c.to_pingpong)
        })
    }

    /// The same figures with every class's transactions at `ratio` of
    /// its ping-pong (`None`: not measured; [`Latencies::priced_by`]);
    /// unchanged when one of them has none.
    pub fn priced_at(mut self, ratio: impl Fn(Transaction) -> Option<f64>) -> Self {
        if let Some(r) = TransactionRatios::from_fn(ratio) {
            self.transactions = self.classes.keys().map(|k| (k.clone(), r)).collect();
        }
        self
    }

    /// The same figures with every class's read back at `ratio` × its
    /// ping-pong (`--read-back`), its other transactions as they were (at
    /// the ping-pong where none were measured).
    pub fn with_read_back(mut self, ratio: f64) -> Self {
        for class in self.classes.keys() {
            self.transactions
                .entry(class.clone())
                .or_insert(TransactionRatios::PINGPONG)
                .read_back = Some(ratio);
        }
        self.source = format!("{} and --read-back {ratio}x", self.source);
        self
    }

    /// Checks that every class's lowest figure, and every transaction
    /// ratio, is above 0 (and finite).
    pub fn positive(&self) -> Result<(), NonPositive> {
        let bad = |class: &str, ns: f64| NonPositive {
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
            let least = [
                r.add_moved,
                r.read_fetched,
                r.add_upgraded,
                r.add_then_read_other,
            ]
            .into_iter()
            .fold(f64::INFINITY, f64::min);
            if least.is_nan() || least <= 0.0 {
                let ns = self.classes.get(class).map_or(0.0, |l| l.ns) * least;
                return Err(bad(class, ns));
            }
        }
        Ok(())
    }

    /// The same figures with every transfer time (each class's range and
    /// the sharers curve) × `factor`: how the model's figures move with
    /// the latencies.
    pub fn scaled(&self, factor: f64) -> Self {
        let mut out = self.clone();
        for l in out.classes.values_mut() {
            *l = ClassLatency {
                ns: l.ns * factor,
                lo_ns: l.lo_ns * factor,
                hi_ns: l.hi_ns * factor,
            };
        }
        for p in &mut out.costs.sharers.points {
            p.ns *= factor;
        }
        out
    }

    /// True when transactions are priced from measurements (a matrix's or
    /// a canary's), not all at the ping-pong.
    pub fn priced(&self) -> bool {
        !self.transactions.is_empty()
    }

    /// How transactions are priced, one clause: from the matrix, or all
    /// at the ping-pong.
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
        } else {
            "every transfer priced at its class's ping-pong, nothing overlapping (no measured transactions: give --latencies from a contend matrix that measured them)".into()
        }
    }

    /// Each of `classes`' figure at `bound` and its transaction ratios,
    /// looked up once: what [`Prices::mean_time`] reads for every line;
    /// `remote`, each figure × its home cost's remote factor (for a CPU
    /// off the counter's memory's node).
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

    /// The transaction ratios of `class`: its own, `cross-node`'s for a
    /// cross-node distance without its own, or
    /// [`TransactionRatios::PINGPONG`].
    pub fn ratios(&self, class: PairClass) -> TransactionRatios {
        let own = self.transactions.get(&class.to_string());
        let any = || {
            matches!(class, PairClass::CrossNode(_))
                .then(|| self.transactions.get("cross-node"))
                .flatten()
        };
        own.or_else(any)
            .copied()
            .unwrap_or(TransactionRatios::PINGPONG)
    }

    /// The figure for `class`: its own, or `cross-node`'s for a cross-node
    /// distance without one.
    pub fn of(&self, class: PairClass) -> Result<ClassLatency, MissingClass> {
        let own = self.classes.get(&class.to_string());
        let any = || {
            matches!(class, PairClass::CrossNode(_))
                .then(|| self.classes.get("cross-node"))
                .flatten()
        };
        own.or_else(any).copied().ok_or_else(|| MissingClass {
            class: class.to_string(),
            given: if self.classes.is_empty() {
                "none".into()
            } else {
                self.classes.keys().cloned().collect::<Vec<_>>().join(", ")
            },
        })
    }
}

/// Which fetches of a line another CPU wrote since occupy the line (queue
/// for it); the others pay a transfer but are served alongside.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum ReadOccupancy {
    /// Only the first read after a write, whoever makes it.
    First,
    /// The first read from each LLC after a write.
    PerLlc,
    /// The first read from each node after a write.
    PerNode,
    /// Every fetch (each reader's own transfer from the writer's cache).
    #[default]
    Every,
}

impl fmt::Display for ReadOccupancy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ReadOccupancy::First => "first",
            ReadOccupancy::PerLlc => "per-llc",
            ReadOccupancy::PerNode => "per-node",
            ReadOccupancy::Every => "every",
        })
    }
}

/// One point of a published or measured curve: `at` (CPUs updating a
/// line, or sharers) and the time there, ns.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CostPoint {
    /// CPUs updating the line (contenders) or readers holding it
    /// (sharers).
    pub at: u32,
    /// Time per hand-over (contenders) or the writer's upgrade (sharers),
    /// ns.
    pub ns: f64,
}

/// A curve of [`CostPoint`]s, `at` rising, read between points by
/// straight lines and flat past either end.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CostCurve {
    /// The points, `at` rising, each `ns` above 0.
    pub points: Vec<CostPoint>,
    /// Where the points came from (the flag as given, a matrix file).
    pub source: String,
}

impl CostCurve {
    /// The time at `x`, ns: interpolated, flat past the ends; `None`
    /// without points.
    pub fn at(&self, x: f64) -> Option<f64> {
        let first = self.points.first()?;
        let last = self.points.last()?;
        if x <= f64::from(first.at) {
            return Some(first.ns);
        }
        if x >= f64::from(last.at) {
            return Some(last.ns);
        }
        self.points.windows(2).find_map(|w| {
            let (a, b) = (f64::from(w[0].at), f64::from(w[1].at));
            (x >= a && x <= b).then(|| w[0].ns + (w[1].ns - w[0].ns) * (x - a) / (b - a))
        })
    }

    /// `--contenders 1:37ns,32:56ns` or `--sharers 1:60ns,16:140ns`:
    /// `flag` names it in an error; `max` is the host's CPUs (a K or M
    /// beyond them is refused).
    pub fn parse(flag: &str, items: &[String], max: usize) -> Result<Self, CostArgError> {
        let mut points = Vec::with_capacity(items.len());
        for item in items {
            let err = |reason: String| CostArgError {
                flag: flag.to_string(),
                item: item.clone(),
                reason,
            };
            let (k, t) = item
                .split_once(':')
                .ok_or_else(|| err("no ':' (want COUNT:TIME, e.g. 32:56ns)".into()))?;
            let at: u32 = k
                .trim()
                .parse()
                .map_err(|_| err(format!("\"{k}\" is not a count of CPUs")))?;
            if at == 0 || at as usize > max {
                return Err(err(format!(
                    "{at} is not between 1 and the host's {max} CPUs"
                )));
            }
            let ns = parse_ns(t)
                .ok_or_else(|| err(format!("\"{t}\" is not a time above 0 with ns or us")))?;
            points.push(CostPoint { at, ns });
        }
        points.sort_by_key(|p| p.at);
        if let Some(w) = points.windows(2).find(|w| w[0].at == w[1].at) {
            return Err(CostArgError {
                flag: flag.to_string(),
                item: items.join(","),
                reason: format!("{} is given twice", w[0].at),
            });
        }
        Ok(CostCurve {
            points,
            source: format!("{flag} {}", items.join(",")),
        })
    }
}

/// A `--contenders`, `--sharers` or `--home` item that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad {flag} \"{item}\": {reason}")]
pub struct CostArgError {
    /// The flag.
    pub flag: String,
    /// The item as given.
    pub item: String,
    /// What is wrong.
    pub reason: String,
}

/// A transfer's time by where the line's memory lives: a requester on
/// another node than the line's home pays `remote_ns / local_ns` times
/// its class latency, or its class's own ratio.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HomeCost {
    /// A transfer to a CPU on the home node, ns (1 for ratios).
    pub local_ns: f64,
    /// The same transfer to a CPU on another node, ns (1 for ratios per
    /// class).
    pub remote_ns: f64,
    /// Per class (`same-llc`, `cross-node@21`, `cross-node` for every
    /// distance without its own), remote over local; empty: the one
    /// factor `remote_ns / local_ns` for every class.
    #[serde(default)]
    pub by_class: BTreeMap<String, f64>,
    /// The flag as given.
    pub source: String,
}

impl HomeCost {
    /// The one factor every transfer to a CPU off the home node takes
    /// (remote ÷ local); `None` with ratios per class.
    pub fn one_factor(&self) -> Option<f64> {
        self.by_class
            .is_empty()
            .then(|| self.remote_ns / self.local_ns)
    }

    /// How much longer a transfer of `class` to a CPU off the home node
    /// takes; `None` when ratios per class leave it out.
    pub fn remote_factor(&self, class: PairClass) -> Option<f64> {
        if let Some(f) = self.one_factor() {
            return Some(f);
        }
        let any = || {
            matches!(class, PairClass::CrossNode(_))
                .then(|| self.by_class.get("cross-node"))
                .flatten()
        };
        self.by_class.get(&class.to_string()).or_else(any).copied()
    }

    /// In words: `2.10×` or `same-llc 1.20×, cross-node 1.85×`.
    pub fn describe(&self) -> String {
        if self.by_class.is_empty() {
            format!("{:.2}×", self.remote_ns / self.local_ns)
        } else {
            self.by_class
                .iter()
                .map(|(c, r)| format!("{c} {r:.2}×"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    }

    /// `--home local=100ns,remote=210ns` (times), `--home remote=2.1x`
    /// (one ratio to the local figure) or `--home
    /// same-node=1.85x,cross-node=1.5x` (a ratio per class).
    pub fn parse(items: &[String]) -> Result<Self, CostArgError> {
        let err = |item: &str, reason: &str| CostArgError {
            flag: "--home".into(),
            item: item.to_string(),
            reason: format!(
                "{reason} (want local=TIME,remote=TIME, remote=RATIOx or CLASS=RATIOx,…, e.g. local=108ns,remote=200ns)"
            ),
        };
        let ratio = |item: &str, r: &str| {
            r.trim()
                .parse::<f64>()
                .ok()
                .filter(|r| *r > 0.0 && r.is_finite())
                .ok_or_else(|| err(item, "the ratio is not a number above 0"))
        };
        let time = |item: &str, v: &str| {
            parse_ns(v).ok_or_else(|| err(item, "the time is not a number above 0 with ns or us"))
        };
        let (mut local, mut remote, mut one) = (None, None, None);
        let mut by_class = BTreeMap::new();
        for item in items {
            let (k, v) = item.split_once('=').ok_or_else(|| err(item, "no '='"))?;
            match (k.trim(), v.trim().strip_suffix('x')) {
                ("remote", Some(r)) => one = Some(ratio(item, r)?),
                ("local", None) => local = Some(time(item, v)?),
                ("remote", None) => remote = Some(time(item, v)?),
                (class, Some(r)) => {
                    let key = match class {
                        "cross-node" => "cross-node".to_string(),
                        c => c
                            .parse::<PairClass>()
                            .map_err(|_| err(item, "unknown key or class"))?
                            .to_string(),
                    };
                    by_class.insert(key, ratio(item, r)?);
                }
                _ => {
                    return Err(err(
                        item,
                        "unknown key, or a class without its ratio (RATIOx)",
                    ));
                }
            }
        }
        let source = format!("--home {}", items.join(","));
        let whole = items.join(",");
        match (local, remote, one, by_class.is_empty()) {
            (Some(local_ns), Some(remote_ns), None, true) => Ok(HomeCost {
                local_ns,
                remote_ns,
                by_class,
                source,
            }),
            (None, None, Some(r), true) => Ok(HomeCost {
                local_ns: 1.0,
                remote_ns: r,
                by_class,
                source,
            }),
            (None, None, None, false) => Ok(HomeCost {
                local_ns: 1.0,
                remote_ns: 1.0,
                by_class,
                source,
            }),
            (None, Some(_), None, true) => Err(err(&whole, "no local figure")),
            (Some(_), None, None, true) => Err(err(&whole, "no remote figure")),
            _ => Err(err(
                &whole,
                "times, a ratio and ratios per class are three ways: one at a time",
            )),
        }
    }
}

/// What a line costs beyond the idle class latencies, from a
/// measurement or a publication, each with its source: the transfer
/// time's growth under load, the writer's upgrade with sharers, where
/// the line's memory lives, and which fetches occupy the line. Empty,
/// the model uses the idle class latencies and says so.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LineCosts {
    /// Time per hand-over of one line with K CPUs updating it, ns by K:
    /// every transfer of a line with K writers takes its class latency ×
    /// t(K)/t(K₀), K₀ the curve's first K. Empty: no growth.
    #[serde(default)]
    pub contenders: CostCurve,
    /// The writer's upgrade with M readers holding the line, ns by M:
    /// an upgrade after m̄ sharers (on the mean) takes t(m̄). Empty: the
    /// class rule (docs/predict.md).
    #[serde(default)]
    pub sharers: CostCurve,
    /// Transfer time by where the line's memory lives; `None`: alike on
    /// every node.
    #[serde(default)]
    pub home: Option<HomeCost>,
    /// The node the counter's memory is on.
    #[serde(default)]
    pub home_node: u32,
    /// Which fetches occupy the line.
    #[serde(default)]
    pub read_occupancy: ReadOccupancy,
}

impl LineCosts {
    /// The line costs `contend matrix` measured in `m` (file `name`),
    /// each empty where it measured none: the contenders' time between
    /// hand-overs (net per hand-over plus the private add it is net of)
    /// by k, the writer's upgrade by m readers, and each class's remote
    /// over local transfer (read fetched plus add moved) where the host
    /// has a second memory node. Points priced at or below 0 ns (noise
    /// on a net figure) are left out.
    pub fn from_matrix(m: &MatrixResults, name: &str) -> Self {
        let curve = |what: &str, points: Vec<CostPoint>| CostCurve {
            source: if points.is_empty() {
                String::new()
            } else {
                format!("{name}: {what}")
            },
            points,
        };
        let contenders = m
            .contenders
            .iter()
            .filter_map(|c| {
                let ns = c.handover_ns? + c.private_add_ns;
                (ns > 0.0).then_some(CostPoint { at: c.k as u32, ns })
            })
            .collect();
        let sharers = m
            .sharers
            .iter()
            .filter(|s| s.upgrade_ns > 0.0)
            .map(|s| CostPoint {
                at: s.m as u32,
                ns: s.upgrade_ns,
            })
            .collect();
        let by_class: BTreeMap<String, f64> = m
            .home_classes
            .iter()
            .filter_map(|h| {
                let remote = h.remote.as_ref()?;
                let (l, r) = (
                    h.local.read_fetched_ns + h.local.add_moved_ns,
                    remote.read_fetched_ns + remote.add_moved_ns,
                );
                (l > 0.0 && r > 0.0).then(|| (h.class.to_string(), r / l))
            })
            .collect();
        LineCosts {
            contenders: curve("contenders (time between hand-overs by k)", contenders),
            sharers: curve("sharers (the writer's upgrade by m readers)", sharers),
            home: (!by_class.is_empty()).then(|| HomeCost {
                local_ns: 1.0,
                remote_ns: 1.0,
                by_class,
                source: format!("{name}: home classes (remote over local, per class)"),
            }),
            home_node: 0,
            read_occupancy: ReadOccupancy::default(),
        }
    }

    /// The factor every transfer of a line updated by `writers` CPUs is
    /// priced at: t(writers)/t(K₀) of the contenders curve, 1 without.
    pub fn growth(&self, writers: usize) -> f64 {
        match (
            self.contenders.at(writers as f64),
            self.contenders.points.first(),
        ) {
            (Some(t), Some(first)) => t / first.ns,
            _ => 1.0,
        }
    }

    /// True when a transfer to a CPU on `node` is priced as remote to the
    /// counter's memory (a home cost given, and `node` not its node).
    pub fn remote(&self, node: u32) -> bool {
        self.home.is_some() && node != self.home_node
    }

    /// Checks that a home cost given per class covers every class in
    /// `classes`.
    pub fn check_home(
        &self,
        mut classes: impl Iterator<Item = PairClass>,
    ) -> Result<(), CostArgError> {
        let Some(h) = &self.home else {
            return Ok(());
        };
        match classes.find(|c| h.remote_factor(*c).is_none()) {
            None => Ok(()),
            Some(c) => Err(CostArgError {
                flag: "--home".into(),
                item: h.source.trim_start_matches("--home ").to_string(),
                reason: format!(
                    "no ratio for class {c} (the chosen CPUs have pairs of it); add {c}=RATIOx"
                ),
            }),
        }
    }

    /// Each input and its source, one clause each; says when only the
    /// idle class latencies price the line.
    pub fn inputs(&self) -> Vec<String> {
        let mut out = vec![format!(
            "fetches that occupy the line: {} (--read-occupancy)",
            self.read_occupancy
        )];
        let curve = |c: &CostCurve| {
            c.points
                .iter()
                .map(|p| format!("{}: {} ns", p.at, crate::units::si(p.ns)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if self.contenders.points.is_empty() {
            out.push("transfer time under load: the idle class latencies (no --contenders or measured contenders)".into());
        } else {
            out.push(format!(
                "transfer time under load by CPUs updating the line ({}): {}",
                self.contenders.source,
                curve(&self.contenders)
            ));
        }
        if self.sharers.points.is_empty() {
            out.push("a write's upgrade with sharers: the class latencies' one-sharer upgrade, the cross-node latency once when a sharer is on another node (no --sharers or measured sharers)".into());
        } else {
            out.push(format!(
                "a write's upgrade by sharers ({}): {}",
                self.sharers.source,
                curve(&self.sharers)
            ));
        }
        match &self.home {
            None => out.push(format!(
                "where the line's memory lives: not priced, every node alike (no --home); memory on node {}",
                self.home_node
            )),
            Some(h) => out.push(format!(
                "where the line's memory lives ({}): node {}, a transfer to another node's CPU {} its class latency",
                h.source,
                self.home_node,
                h.describe()
            )),
        }
        out
    }
}

/// The median ratio to the ping-pong of each transaction over `class`'s
/// pairs of `m` that measured them; `None` when none did.
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

    #[test]
    fn a_read_back_given_for_every_class_keeps_what_was_measured() {
        let mut l = Latencies::uniform(50.0, "canary");
        let measured = TransactionRatios {
            add_moved: 1.2,
            ..TransactionRatios::PINGPONG
        };
        l.transactions.insert("smt".into(), measured);
        let l = l.with_read_back(1.07);
        // Every class has it; a measured class keeps its other ratios,
        // the others are at the ping-pong.
        assert_eq!(l.transactions.len(), 4);
        let smt = l.transactions["smt"];
        assert_eq!((smt.add_moved, smt.read_back), (1.2, Some(1.07)));
        let llc = l.transactions["same-llc"];
        assert_eq!((llc.add_moved, llc.read_back), (1.0, Some(1.07)));
        assert_eq!(llc.of(crate::matrix::Transaction::ReadBack), 1.07);
        assert!(l.source.ends_with("and --read-back 1.07x"), "{}", l.source);
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
            // A time of 0, or an uncertainty as large as the time (a low
            // end of 0 ns), is refused too.
            "same-llc=0ns",
            "same-llc=51ns±51ns",
        ] {
            let e = bad.parse::<LatencyArg>().unwrap_err().to_string();
            assert!(e.starts_with(&format!("bad --latency \"{bad}\"")), "{e}");
        }
    }

    #[test]
    fn a_matrix_gives_each_class_its_median_and_at_least_25_percent_either_side() {
        use crate::matrix::{ClassStats, Home, MatrixConfig, Mode, Reference, advise};
        let stats = |class, median_ns: f64, min_ns: f64, max_ns: f64| ClassStats {
            class,
            pairs: 3,
            candidates: 3,
            median_ns,
            p90_ns: max_ns,
            min_ns,
            max_ns,
        };
        // same-llc: pairs 30..70 around 50, wider than ±25% (37.5..62.5):
        // the pairs' range. cross-node@21: pairs 90..110 around 100,
        // narrower than ±25%: 75..125.
        let classes = vec![
            stats(PairClass::SameLlc, 50.0, 30.0, 70.0),
            stats(PairClass::CrossNode(21), 100.0, 90.0, 110.0),
        ];
        let run = crate::runner::fixture_run();
        let m = MatrixResults {
            schema: crate::matrix::SCHEMA_VERSION,
            config: MatrixConfig {
                cpus: vec![0, 1],
                mode: Mode::Cas,
                home: Home::First,
                samples: 3,
                round_trips_per_sample: 1,
                warmup_samples: 0,
                per_class: None,
                timer: crate::clock::TimerKind::Tsc,
                asymmetry_limit_pct: 10.0,
                reference_round_trips: 1,
                clipped: Vec::new(),
            },
            provenance: run.provenance,
            topology: run.topology,
            pairs: Vec::new(),
            advice: advise(&classes),
            empty_classes: Vec::new(),
            classes,
            reference: Reference::new([0, 1], 1, 50.0, 50.0),
            notes: Vec::new(),
            elapsed_s: 0.0,
            contenders: Vec::new(),
            sharers: Vec::new(),
            home_classes: Vec::new(),
        };
        let l = Latencies::from_matrix(&m, "m.json");
        assert_eq!(l.source, "m.json");
        let llc = l.of(PairClass::SameLlc).unwrap();
        assert_eq!((llc.lo_ns, llc.ns, llc.hi_ns), (30.0, 50.0, 70.0));
        let far = l.of(PairClass::CrossNode(21)).unwrap();
        assert_eq!((far.lo_ns, far.ns, far.hi_ns), (75.0, 100.0, 125.0));
        assert_eq!(l.classes.len(), 2);
        // Pairs without transactions: none priced, every class at the
        // ping-pong.
        assert!(!l.priced());
        assert_eq!(l.ratios(PairClass::SameLlc), TransactionRatios::PINGPONG);

        // Three same-llc pairs at a 50 ns ping-pong whose transactions
        // cost 1, 2 and 3 × (60, 55, 45, 65, 60) ns: per transaction the
        // median pair's ratio, (60, 55, 45, 65) × 2 / 50.
        let mut m = m;
        m.pairs = (1..=3)
            .map(|k| {
                let pair = crate::matrix::PlannedPair {
                    a: 0,
                    b: k,
                    class: PairClass::SameLlc,
                };
                let k = f64::from(k);
                let samples = crate::matrix::PairSamples {
                    threads: [0, k as u32].map(|cpu| crate::placement::PinnedThread {
                        requested_cpu: cpu,
                        observed_cpu: Some(cpu),
                        verified: true,
                        note: None,
                    }),
                    line: crate::placement::NodeCheck::Verified { node: 0 },
                    forward: vec![50.0],
                    backward: vec![50.0],
                    transactions: [60.0, 55.0, 45.0, 30.0, 65.0, 60.0]
                        .iter()
                        .map(|ns| vec![ns * k])
                        .collect(),
                };
                crate::matrix::PairResult::new(pair, 0, samples)
            })
            .collect();
        let l = Latencies::from_matrix(&m, "m.json");
        assert!(l.priced());
        let r = l.ratios(PairClass::SameLlc);
        assert_eq!(
            (
                r.add_moved,
                r.read_fetched,
                r.add_upgraded,
                r.read_back,
                r.add_then_read_other
            ),
            (2.4, 2.2, 1.8, Some(1.2), 2.6)
        );
        assert!((r.overlap() - 2.6 / 4.0).abs() < 1e-12);
        // A class the matrix priced nothing for: the ping-pong.
        assert_eq!(
            l.ratios(PairClass::CrossNode(21)),
            TransactionRatios::PINGPONG
        );
        assert_eq!(TransactionRatios::PINGPONG.overlap(), 1.0);

        // Without the load measurements the line costs are empty; with
        // them, each becomes its curve or ratio, named by the file.
        assert_eq!(l.costs, LineCosts::default());
        use crate::matrix::{HomeClass, HomeCost as MatrixHome, SharersPoint};
        let home = |read_fetched_ns, add_moved_ns| MatrixHome {
            distance: 10,
            read_fetched_ns,
            add_moved_ns,
            samples: 20,
        };
        // cross-node@21: local 100 + 100 ns, remote 150 + 170: 320 / 200
        // = 1.6; same-llc has no remote side (one memory node), so no
        // ratio.
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
        assert_eq!(costs.sharers.points, vec![CostPoint { at: 1, ns: 70.0 }]);
        assert!(costs.sharers.source.starts_with("m.json: sharers"));
        assert!(costs.contenders.points.is_empty() && costs.contenders.source.is_empty());
        let h = costs.home.expect("a remote side");
        assert_eq!(h.by_class.len(), 1);
        assert!((h.by_class["cross-node@21"] - 1.6).abs() < 1e-12, "{h:?}");
        assert_eq!(h.remote_factor(PairClass::CrossNode(21)), Some(1.6));
    }

    #[test]
    fn a_cross_node_figure_covers_distances_without_their_own() {
        let args: Vec<LatencyArg> = ["smt=8ns", "cross-node=100ns", "cross-node@32=150ns"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let l = Latencies::from_args(&args);
        assert_eq!(l.of(PairClass::CrossNode(21)).unwrap().ns, 100.0);
        assert_eq!(l.of(PairClass::CrossNode(32)).unwrap().ns, 150.0);
        assert_eq!(l.of(PairClass::Smt).unwrap().ns, 8.0);
        let e = l.of(PairClass::SameLlc).unwrap_err().to_string();
        assert!(e.contains("no latency for class same-llc"), "{e}");
        assert!(e.contains("given: cross-node, cross-node@32, smt"), "{e}");
        assert_eq!(
            Latencies::uniform(27.0, "canary")
                .of(PairClass::CrossNode(40))
                .unwrap()
                .hi_ns,
            27.0
        );
    }

    #[test]
    fn cost_curves_read_between_points_and_refuse_bad_items() {
        let items = |s: &str| s.split(',').map(String::from).collect::<Vec<_>>();
        let c = CostCurve::parse("--contenders", &items("32:56ns,1:37ns,64:0.056us"), 224).unwrap();
        // Sorted by K; 37 at 1, 56 at 32: 16.5 is half way.
        assert_eq!(
            c.points.iter().map(|p| p.at).collect::<Vec<_>>(),
            [1, 32, 64]
        );
        assert_eq!(c.at(16.5), Some(46.5));
        assert_eq!((c.at(0.5), c.at(500.0)), (Some(37.0), Some(56.0)));
        assert_eq!(c.source, "--contenders 32:56ns,1:37ns,64:0.056us");
        assert_eq!(CostCurve::default().at(3.0), None);
        let costs = LineCosts {
            contenders: c,
            ..LineCosts::default()
        };
        assert!((costs.growth(32) - 56.0 / 37.0).abs() < 1e-12);
        assert_eq!(LineCosts::default().growth(32), 1.0);
        for (bad, why) in [
            ("225:56ns", "between 1 and the host's 224 CPUs"),
            ("0:56ns", "between 1"),
            ("1:-3ns", "not a time above 0"),
            ("1:37ms", "not a time above 0"),
            ("x:3ns", "not a count of CPUs"),
            ("13ns", "no ':'"),
            ("1:40ns,1:50ns", "1 is given twice"),
        ] {
            let e = CostCurve::parse("--sharers", &items(bad), 224).unwrap_err();
            let text = e.to_string();
            assert!(
                text.starts_with("bad --sharers") && text.contains(why),
                "{text}"
            );
        }
    }

    #[test]
    fn a_home_cost_is_times_or_a_ratio_and_prices_only_remote_cpus() {
        let items = |s: &str| s.split(',').map(String::from).collect::<Vec<_>>();
        let h = HomeCost::parse(&items("local=100ns,remote=210ns")).unwrap();
        let far = PairClass::CrossNode(21);
        assert!((h.remote_factor(PairClass::Smt).unwrap() - 2.1).abs() < 1e-12);
        let r = HomeCost::parse(&items("remote=1.85x")).unwrap();
        assert_eq!(r.remote_factor(far), Some(1.85));
        // Per class: a cross-node figure covers every distance; a class
        // left out has none, and a prediction using it is refused.
        let c = HomeCost::parse(&items("same-llc=1.2x,cross-node=1.5x,smt=1x")).unwrap();
        assert_eq!(c.remote_factor(far), Some(1.5));
        assert_eq!(c.remote_factor(PairClass::SameLlc), Some(1.2));
        assert_eq!(c.remote_factor(PairClass::SameNode), None);
        assert_eq!(c.describe(), "cross-node 1.50×, same-llc 1.20×, smt 1.00×");
        let costs = LineCosts {
            home: Some(c),
            home_node: 1,
            ..LineCosts::default()
        };
        assert!(costs.remote(0) && !costs.remote(1));
        assert!(
            costs
                .check_home([PairClass::SameLlc, far].into_iter())
                .is_ok()
        );
        let e = costs
            .check_home([PairClass::SameNode].into_iter())
            .unwrap_err()
            .to_string();
        assert!(e.contains("no ratio for class same-node"), "{e}");
        assert!(!LineCosts::default().remote(0));
        for (bad, why) in [
            ("local=100ns", "no remote figure"),
            ("remote=200ns", "no local figure"),
            ("remote=2x,local=1ns,remote=3ns", "one at a time"),
            ("remote=2x,same-llc=1.2x", "one at a time"),
            ("same-llc=1.2", "a class without its ratio"),
            ("remote=0x", "not a number above 0"),
            ("local=-1ns,remote=2ns", "not a number above 0"),
            ("far=2x", "unknown key or class"),
        ] {
            let e = HomeCost::parse(&items(bad)).unwrap_err().to_string();
            assert!(e.starts_with("bad --home") && e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn a_transfer_at_or_below_zero_is_refused() {
        assert!(Latencies::uniform(27.0, "canary").positive().is_ok());
        let e = Latencies::uniform(0.0, "canary").positive().unwrap_err();
        assert_eq!(e.from, "canary");
        assert!(e.to_string().contains("priced at 0 ns (canary)"), "{e}");
        let e = Latencies::uniform(-4.0, "m.json").positive().unwrap_err();
        assert!(e.to_string().contains("-4 ns"), "{e}");
        // A measured transaction ratio of 0 prices that transfer at 0.
        let zero = TransactionCost {
            transaction: Transaction::ReadFetched,
            net_ns: 0.0,
            to_pingpong: 0.0,
            samples: 1,
        };
        let others = [
            Transaction::AddMoved,
            Transaction::AddUpgraded,
            Transaction::AddThenReadOther,
        ]
        .map(|t| TransactionCost {
            transaction: t,
            net_ns: 30.0,
            to_pingpong: 1.0,
            samples: 1,
        });
        let mut costs = vec![zero];
        costs.extend(others);
        let l = Latencies::uniform(30.0, "canary").priced_by(&costs);
        assert!(l.positive().is_err());
    }
}
