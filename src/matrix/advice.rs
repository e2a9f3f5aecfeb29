//! Cost per distance class, and the split-level advice drawn from it: Peter Zijlstra's question
//! (seed 002) — does the cost jump at cross-LLC or at cross-node? — answered with this host's
//! numbers.

use super::PairClass;
use crate::stats::quantile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// "Close to cross-node": the same-node (different LLC) median is at least this fraction of the
/// nearest cross-node median.
pub const LLC_CLOSE: f64 = 0.75;

/// "Within ~20%": two costs whose ratio is at most this are the same cost.
pub const SAME: f64 = 1.2;

/// The text of [`RULE`], as a literal so `--help` can embed it.
macro_rules! rule_text {
    () => {
        "Advice rule (on the medians of the per-pair one-way medians, per class):
  1. fewer than two classes measured: cannot advise (nothing to compare);
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

/// Cost of one distance class: statistics over its pairs' median one-way latencies.
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

/// Per-class statistics from `(class, pair median ns)` items, in class order.
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

impl ClassStats {
    /// A class of one pair costing `median_ns`, for tests.
    #[cfg(test)]
    pub(crate) fn one_pair(class: PairClass, median_ns: f64) -> Self {
        ClassStats {
            class,
            pairs: 1,
            candidates: 1,
            median_ns,
            p90_ns: median_ns,
            min_ns: median_ns,
            max_ns: median_ns,
        }
    }
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
    /// Fewer than two distance classes were measured.
    CannotAdvise,
}

crate::named_enum!(Split, "advice", [
    Llc => "split at llc",
    Node => "split at node",
    None => "no split needed",
    CannotAdvise => "cannot advise",
]);

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
    let (Some(cheapest), Some(dearest)) = (
        classes.iter().min_by(by_median),
        classes.iter().max_by(by_median),
    ) else {
        return advice(Split::CannotAdvise, 1, "no pairs measured".into());
    };
    if classes.len() < 2 {
        let reason = format!(
            "only one class measured ({}), nothing to compare",
            ns(cheapest)
        );
        return advice(Split::CannotAdvise, 1, reason);
    }
    if dearest.median_ns <= SAME * cheapest.median_ns {
        let reason = format!(
            "every class within {SAME} x the cheapest: {} is {:.2} x {}",
            ns(dearest),
            dearest.median_ns / cheapest.median_ns,
            ns(cheapest)
        );
        return advice(Split::None, 2, reason);
    }
    let b = Boundaries::of(classes);
    b.llc_close()
        .or_else(|| b.node())
        .or_else(|| b.one_node())
        .unwrap_or_else(|| {
            let reason = format!(
                "the spread ({} to {}) is not at an LLC or node boundary",
                ns(cheapest),
                ns(dearest)
            );
            advice(Split::None, 6, reason)
        })
}

fn advice(split: Split, rule: u8, reason: String) -> Advice {
    Advice {
        split,
        rule,
        reason,
    }
}

fn ns(c: &ClassStats) -> String {
    format!("{} {:.1} ns", c.class, c.median_ns)
}

/// `a` against `b`: `same-node 80.0 ns is 1.33 x same-llc 60.0 ns`.
fn vs(a: &ClassStats, b: &ClassStats) -> String {
    format!("{} is {:.2} x {}", ns(a), a.median_ns / b.median_ns, ns(b))
}

fn by_median(a: &&ClassStats, b: &&ClassStats) -> std::cmp::Ordering {
    a.median_ns.total_cmp(&b.median_ns)
}

/// The classes on each side of the LLC and node boundaries that rules 3-5 weigh.
struct Boundaries<'a> {
    /// Same node, different LLC.
    same_node: Option<&'a ClassStats>,
    /// The dearest class inside one LLC (smt, same-llc).
    in_llc: Option<&'a ClassStats>,
    /// The dearest class within a node.
    in_node: Option<&'a ClassStats>,
    /// The nearest cross-node class.
    cross: Option<&'a ClassStats>,
}

impl<'a> Boundaries<'a> {
    fn of(classes: &'a [ClassStats]) -> Self {
        let dearest =
            |f: fn(PairClass) -> bool| classes.iter().filter(|c| f(c.class)).max_by(by_median);
        Boundaries {
            same_node: classes.iter().find(|c| c.class == PairClass::SameNode),
            in_llc: dearest(|c| matches!(c, PairClass::Smt | PairClass::SameLlc)),
            in_node: dearest(PairClass::within_node),
            cross: classes
                .iter()
                .filter(|c| !c.class.within_node())
                .min_by_key(|c| c.class),
        }
    }

    /// Rule 3: crossing an LLC costs nearly as much as crossing a node.
    fn llc_close(&self) -> Option<Advice> {
        let (s, x) = (self.same_node?, self.cross?);
        let above_llc = self
            .in_llc
            .is_none_or(|l| s.median_ns >= SAME * l.median_ns);
        let close = s.median_ns >= LLC_CLOSE * x.median_ns;
        if !(close && above_llc) {
            return None;
        }
        let llc = self.in_llc.map_or(String::new(), |l| {
            format!(", and {:.2} x {}", s.median_ns / l.median_ns, ns(l))
        });
        let reason = format!("{} (>= {LLC_CLOSE}){llc}", vs(s, x));
        Some(advice(Split::Llc, 3, reason))
    }

    /// Rule 4: the jump is at the node boundary.
    fn node(&self) -> Option<Advice> {
        let (x, w) = (self.cross?, self.in_node?);
        // Not `<`: a NaN median advises nothing, as in `one_node`.
        let dearer = x.median_ns >= SAME * w.median_ns;
        if !dearer {
            return None;
        }
        let same_set = if self.same_node.is_none() {
            "; no same-node pairs on different LLCs, so node and LLC split the same set here"
        } else {
            ""
        };
        let reason = format!("{}, the dearest class within a node{same_set}", vs(x, w));
        Some(advice(Split::Node, 4, reason))
    }

    /// Rule 5: one node, and the jump is at the LLC boundary.
    fn one_node(&self) -> Option<Advice> {
        let (s, l) = (self.same_node?, self.in_llc?);
        let dearer = s.median_ns >= SAME * l.median_ns;
        (self.cross.is_none() && dearer)
            .then(|| advice(Split::Llc, 5, format!("one node; {}", vs(s, l))))
    }
}

/// A class with no measured pairs, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmptyClass {
    /// `smt`, `same-llc`, `same-node` or `cross-node`.
    pub class: String,
    /// Why there are no pairs of it.
    pub reason: String,
}

/// The kinds of class (cross-node counted once, at any distance) that have no pairs among
/// `classes`, each with the reason.
pub fn empty_classes(classes: &[ClassStats]) -> Vec<EmptyClass> {
    use PairClass as P;
    [
        ("smt", "no SMT siblings among the chosen CPUs", Some(P::Smt)),
        (
            "same-llc",
            "no two cores of the chosen CPUs share a last-level cache",
            Some(P::SameLlc),
        ),
        (
            "same-node",
            "on each node the chosen CPUs share one last-level cache",
            Some(P::SameNode),
        ),
        ("cross-node", "the chosen CPUs are all on one node", None),
    ]
    .into_iter()
    .filter(|(_, _, kind)| {
        !classes
            .iter()
            .any(|c| kind.map_or(!c.class.within_node(), |k| c.class == k))
    })
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

    /// One-pair classes costing `(class, median)` each.
    fn classes(items: &[(PairClass, f64)]) -> Vec<ClassStats> {
        items
            .iter()
            .map(|&(c, ns)| ClassStats::one_pair(c, ns))
            .collect()
    }

    /// (split, rule) of `advise` on `(class, median)` items.
    fn decide(items: &[(PairClass, f64)]) -> (Split, u8) {
        let a = advise(&classes(items));
        (a.split, a.rule)
    }

    const SMT: PairClass = PairClass::Smt;
    const LLC: PairClass = PairClass::SameLlc;
    const NODE: PairClass = PairClass::SameNode;
    const CROSS: PairClass = PairClass::CrossNode(32);

    #[test]
    fn each_rule_at_and_across_its_thresholds() {
        let (llc, node, none) = (Split::Llc, Split::Node, Split::None);
        let (l, far) = (60.0, PairClass::CrossNode(12));
        type Case<'a> = (Split, u8, &'a [(PairClass, f64)]);
        let cases: &[Case] = &[
            (Split::CannotAdvise, 1, &[]),
            (Split::CannotAdvise, 1, &[(CROSS, 197.0)]),
            // Rule 2: the dearer exactly 1.2 x, or 1.1 x, the cheaper is the
            // same cost (a bound of 50 + 1.2 or 50 / 1.2 would not say so).
            (none, 2, &[(SMT, 50.0), (LLC, SAME * 50.0)]),
            (none, 2, &[(SMT, 50.0), (LLC, 55.0)]),
            // Just beyond 1.2 x, inside one LLC: no boundary to split at.
            (none, 6, &[(SMT, 50.0), (LLC, 60.1)]),
            // Rule 3, Milan-like: cross CCX at 0.75 x (or 0.9 x) cross
            // socket is llc; at 74.9 the node boundary decides.
            (llc, 3, &[(LLC, 50.0), (NODE, 75.0), (CROSS, 100.0)]),
            (node, 4, &[(LLC, 50.0), (NODE, 74.9), (CROSS, 100.0)]),
            (llc, 3, &[(LLC, 50.0), (NODE, 90.0), (CROSS, 100.0)]),
            // Same-node exactly 1.2 x the dearest in-LLC class: llc; at
            // 1.15 x crossing an LLC costs little more, so node decides.
            (
                llc,
                3,
                &[(SMT, 10.0), (LLC, l), (NODE, SAME * l), (CROSS, 90.0)],
            ),
            (
                node,
                4,
                &[(SMT, 10.0), (LLC, l), (NODE, 69.0), (CROSS, 90.0)],
            ),
            // No in-LLC class measured: the same-node test alone decides.
            (llc, 3, &[(NODE, 80.0), (CROSS, 100.0)]),
            // Rule 4, one LLC per node: cross-node exactly 1.2 x the dearest
            // class within a node is node; 59.9 is not dearer.
            (node, 4, &[(SMT, 10.0), (LLC, 50.0), (CROSS, SAME * 50.0)]),
            (none, 6, &[(SMT, 10.0), (LLC, 50.0), (CROSS, 59.9)]),
            // Rule 5, one node, two LLCs: same-node exactly 1.2 x same-LLC
            // is llc; 59.9 or 55 (1.1 x) is no boundary.
            (llc, 5, &[(SMT, 10.0), (LLC, 50.0), (NODE, SAME * 50.0)]),
            (none, 6, &[(SMT, 10.0), (LLC, 50.0), (NODE, 59.9)]),
            (none, 6, &[(SMT, 10.0), (LLC, 50.0), (NODE, 55.0)]),
            // The nearest cross-node class is the comparison, not the
            // cheapest (NPS4-like: @12 at 100 against same-node 40).
            (
                node,
                4,
                &[(LLC, 25.0), (NODE, 40.0), (far, 100.0), (CROSS, 30.0)],
            ),
        ];
        for &(split, rule, items) in cases {
            assert_eq!(decide(items), (split, rule), "{items:?}");
        }
    }

    #[test]
    fn class_stats_by_hand() {
        let mut candidates = BTreeMap::new();
        candidates.insert(LLC, 10);
        let stats = class_stats(
            [(LLC, 30.0), (CROSS, 200.0), (LLC, 10.0), (LLC, 20.0)],
            &candidates,
        );
        assert_eq!(stats.len(), 2);
        let llc = &stats[0];
        assert_eq!((llc.class, llc.pairs, llc.candidates), (LLC, 3, 10));
        // Sorted 10, 20, 30: median 20; p90 at rank 1.8: 20 + 0.8 x 10.
        assert_eq!((llc.median_ns, llc.min_ns, llc.max_ns), (20.0, 10.0, 30.0));
        assert!((llc.p90_ns - 28.0).abs() < 1e-12);
        // A class without a candidate count counts its measured pairs.
        let cross = &stats[1];
        assert_eq!((cross.class, cross.pairs, cross.candidates), (CROSS, 1, 1));
        assert_eq!((cross.min_ns, cross.max_ns), (200.0, 200.0));
    }

    #[test]
    fn empty_classes_names_what_is_missing() {
        let names = |items: &[(PairClass, f64)]| -> Vec<String> {
            empty_classes(&classes(items))
                .into_iter()
                .map(|e| e.class)
                .collect()
        };
        let smt_cross = names(&[(SMT, 8.0), (CROSS, 100.0)]);
        assert_eq!(smt_cross, ["same-llc", "same-node"]);
        assert_eq!(names(&[(LLC, 8.0), (NODE, 100.0)]), ["smt", "cross-node"]);
        assert!(names(&[(SMT, 1.0), (LLC, 2.0), (NODE, 3.0), (CROSS, 4.0)]).is_empty());
        let all = empty_classes(&[]);
        assert_eq!(all.len(), 4);
        assert_eq!(all[3].reason, "the chosen CPUs are all on one node");
    }
}
