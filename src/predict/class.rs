//! A distance class's transfer time with its range ([`ClassLatency`]), which end of the range the
//! model is evaluated at ([`Bound`]), and what a figure is given for ([`LatencyKey`]).

use crate::matrix::PairClass;
use std::fmt;

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

    /// `ns` with the range `lo_ns`..`hi_ns` of its measurements, widened to at least
    /// ±[`DEFAULT_UNCERTAINTY_PCT`]%.
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

/// What a latency figure is given for.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(into = "String", try_from = "String")]
pub enum LatencyKey {
    /// One class.
    Class(PairClass),
    /// Every cross-node distance without a figure of its own.
    AnyCrossNode,
}

impl LatencyKey {
    /// `class`'s own entry of `map`, or for a cross-node distance without one, `cross-node`'s.
    pub fn lookup<V>(
        map: &std::collections::BTreeMap<LatencyKey, V>,
        class: PairClass,
    ) -> Option<&V> {
        map.get(&LatencyKey::Class(class)).or_else(|| {
            matches!(class, PairClass::CrossNode(_))
                .then(|| map.get(&LatencyKey::AnyCrossNode))
                .flatten()
        })
    }
}

impl fmt::Display for LatencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LatencyKey::Class(c) => c.fmt(f),
            LatencyKey::AnyCrossNode => f.write_str("cross-node"),
        }
    }
}

impl From<LatencyKey> for String {
    fn from(k: LatencyKey) -> String {
        k.to_string()
    }
}

impl TryFrom<String> for LatencyKey {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        match s.trim() {
            "cross-node" => Ok(LatencyKey::AnyCrossNode),
            c => c.parse().map(LatencyKey::Class).map_err(|_| {
                format!(
                    "\"{s}\" is not a class (smt, same-llc, same-node, cross-node@D, cross-node)"
                )
            }),
        }
    }
}
