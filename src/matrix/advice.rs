//! Cost per distance class, and the split-level advice drawn from it:
//! Peter Zijlstra's question (seed 002) — does the cost jump at cross-LLC
//! or at cross-node? — answered with this host's numbers.

use super::PairClass;
use crate::error::UnknownName;
use crate::stats::quantile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// "Close to cross-node": the same-node (different LLC) median is at least
/// this fraction of the nearest cross-node median.
pub const LLC_CLOSE: f64 = 0.75;

/// "Within ~20%": two costs whose ratio is at most this are the same cost;
/// a class at least this many times another is dearer.
pub const SAME: f64 = 1.2;

/// The text of [`RULE`], as a literal so `--help` can embed it.
macro_rules! rule_text {
    () => {
        "Advice rule (on the medians of the per-pair one-way medians, per class):
  1. fewer than two classes measured: no split needed (nothing to compare);
  2. every class median within 1.2 x the cheapest: no split needed;
  3. same-node (different LLC) >= 0.75 x the nearest cross-node class, and
     >= 1.2 x the dearest class inside one LLC (smt, same-llc) when one was
     measured: split at llc (crossing an LLC already costs nearly as much
     as crossing a node);
  4. nearest cross-node class >= 1.2 x the dearest class within a node:
     split at node;
  5. one node, and same-node (different LLC) >= 1.2 x the dearest class
     inside one LLC: split at llc;
  6. otherwise: no split needed (what differences there are lie inside one
     LLC, where no split helps)."
    };
}
pub(crate) use rule_text;

/// The advice rule, as `contend matrix --help` and README.md state it.
pub const RULE: &str = rule_text!();

/// Cost of one distance class: statistics over its pairs' median one-way
/// latencies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassStats {
    /// The class.
    pub class: PairClass,
    /// Pairs measured.
    pub pairs: usize,
    /// Pairs of this class among the chosen CPUs (measured or not).
    pub candidates: usize,
    /// Median of the pairs' median one-way latency, ns.
    pub median_ns: f64,
    /// 90th percentile of the pairs' median one-way latency, ns.
    pub p90_ns: f64,
    /// Cheapest pair's median, ns.
    pub min_ns: f64,
    /// Dearest pair's median, ns.
    pub max_ns: f64,
}

/// Per-class statistics from `(class, pair median ns)` items, in class
/// order. `candidates` gives each class's pair count before sampling
/// (classes absent from it count their measured pairs).
pub fn class_stats(
    pair_medians: impl IntoIterator<Item = (PairClass, f64)>,
    candidates: &BTreeMap<PairClass, usize>,
) -> Vec<ClassStats> {
    let mut by_class: BTreeMap<PairClass, Vec<f64>> = BTreeMap::new();
    for (class, ns) in pair_medians {
        by_class.entry(class).or_default().push(ns);
    }
    by_class
        .into_iter()
        .map(|(class, mut v)| {
            v.sort_by(f64::total_cmp);
            ClassStats {
                class,
                pairs: v.len(),
                candidates: candidates.get(&class).copied().unwrap_or(v.len()),
                median_ns: quantile(&v, 0.5),
                p90_ns: quantile(&v, 0.9),
                min_ns: v[0],
                max_ns: v[v.len() - 1],
            }
        })
        .collect()
}

/// Where to split a hot counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// One slot per last-level cache.
    Llc,
    /// One slot per NUMA node.
    Node,
    /// Keep one counter: no boundary among the measured CPUs costs more.
    None,
}

/// `split at llc`, `split at node`, `no split needed`.
impl fmt::Display for Split {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Split::Llc => "split at llc",
            Split::Node => "split at node",
            Split::None => "no split needed",
        })
    }
}

impl Serialize for Split {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The inverse of `Display`.
impl std::str::FromStr for Split {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        [Split::Llc, Split::Node, Split::None]
            .into_iter()
            .find(|v| v.to_string() == s)
            .ok_or_else(|| {
                UnknownName::new(
                    "advice",
                    s,
                    "split at llc, split at node or no split needed",
                )
            })
    }
}

impl<'de> Deserialize<'de> for Split {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        super::from_name(d)
    }
}

/// The advice line and the numbers behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Advice {
    /// The verdict.
    pub split: Split,
    /// Which clause of [`RULE`] decided (1-6).
    pub rule: u8,
    /// The comparison that decided, with the class medians in ns.
    pub reason: String,
}

impl fmt::Display for Advice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} (rule {})", self.split, self.reason, self.rule)
    }
}

/// Applies [`RULE`] to per-class medians (any order).
pub fn advise(classes: &[ClassStats]) -> Advice {
    let ns = |c: &ClassStats| format!("{} {:.1} ns", c.class, c.median_ns);
    let advice = |split, rule, reason: String| Advice {
        split,
        rule,
        reason,
    };
    let by_median = |a: &&ClassStats, b: &&ClassStats| a.median_ns.total_cmp(&b.median_ns);
    let (Some(cheapest), Some(dearest)) = (
        classes.iter().min_by(by_median),
        classes.iter().max_by(by_median),
    ) else {
        return advice(Split::None, 1, "no pairs measured".into());
    };
    if classes.len() < 2 {
        return advice(
            Split::None,
            1,
            format!(
                "only one class measured ({}), nothing to compare",
                ns(cheapest)
            ),
        );
    }
    if dearest.median_ns <= SAME * cheapest.median_ns {
        return advice(
            Split::None,
            2,
            format!(
                "every class within {SAME} x the cheapest: {} is {:.2} x {}",
                ns(dearest),
                dearest.median_ns / cheapest.median_ns,
                ns(cheapest)
            ),
        );
    }
    let find = |class| classes.iter().find(|c| c.class == class);
    let same_node = find(PairClass::SameNode);
    let in_llc = classes
        .iter()
        .filter(|c| matches!(c.class, PairClass::Smt | PairClass::SameLlc))
        .max_by(by_median);
    let in_node = classes
        .iter()
        .filter(|c| c.class.within_node())
        .max_by(by_median);
    let cross = classes
        .iter()
        .filter(|c| !c.class.within_node())
        .min_by_key(|c| c.class);
    let above_llc = |s: &ClassStats| in_llc.is_none_or(|l| s.median_ns >= SAME * l.median_ns);
    if let (Some(s), Some(x)) = (same_node, cross) {
        if s.median_ns >= LLC_CLOSE * x.median_ns && above_llc(s) {
            let llc = in_llc.map_or(String::new(), |l| {
                format!(", and {:.2} x {}", s.median_ns / l.median_ns, ns(l))
            });
            return advice(
                Split::Llc,
                3,
                format!(
                    "{} is {:.2} x {} (>= {LLC_CLOSE}){llc}",
                    ns(s),
                    s.median_ns / x.median_ns,
                    ns(x)
                ),
            );
        }
    }
    if let (Some(x), Some(w)) = (cross, in_node) {
        if x.median_ns >= SAME * w.median_ns {
            let same_set = if same_node.is_none() {
                "; no same-node pairs on different LLCs, so node and LLC split the same set here"
            } else {
                ""
            };
            return advice(
                Split::Node,
                4,
                format!(
                    "{} is {:.2} x {}, the dearest class within a node{same_set}",
                    ns(x),
                    x.median_ns / w.median_ns,
                    ns(w)
                ),
            );
        }
    }
    if let (None, Some(s), Some(l)) = (cross, same_node, in_llc) {
        if s.median_ns >= SAME * l.median_ns {
            return advice(
                Split::Llc,
                5,
                format!(
                    "one node; {} is {:.2} x {}",
                    ns(s),
                    s.median_ns / l.median_ns,
                    ns(l)
                ),
            );
        }
    }
    advice(
        Split::None,
        6,
        format!(
            "the spread ({} to {}) is not at an LLC or node boundary",
            ns(cheapest),
            ns(dearest)
        ),
    )
}

/// A class with no measured pairs, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmptyClass {
    /// `smt`, `same-llc`, `same-node` or `cross-node`.
    pub class: String,
    /// Why there are no pairs of it.
    pub reason: String,
}

/// The kinds of class (cross-node counted once, at any distance) that have
/// no pairs among `classes`, each with the reason.
pub fn empty_classes(classes: &[ClassStats]) -> Vec<EmptyClass> {
    let has = |f: &dyn Fn(PairClass) -> bool| classes.iter().any(|c| f(c.class));
    let kinds: [(&'static str, &'static str, bool); 4] = [
        (
            "smt",
            "no SMT siblings among the chosen CPUs",
            has(&|c| c == PairClass::Smt),
        ),
        (
            "same-llc",
            "no two cores of the chosen CPUs share a last-level cache",
            has(&|c| c == PairClass::SameLlc),
        ),
        (
            "same-node",
            "on each node the chosen CPUs share one last-level cache",
            has(&|c| c == PairClass::SameNode),
        ),
        (
            "cross-node",
            "the chosen CPUs are all on one node",
            has(&|c| !c.within_node()),
        ),
    ];
    kinds
        .into_iter()
        .filter(|(_, _, present)| !present)
        .map(|(class, reason, _)| EmptyClass {
            class: class.to_string(),
            reason: reason.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_text_states_the_constants() {
        assert!(RULE.contains(&format!("{LLC_CLOSE} x")));
        assert!(RULE.contains(&format!("{SAME} x")));
    }
}
