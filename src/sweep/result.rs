//! The sweep's result model: a whole run at every thread count, affinity set and regime, serialised
//! as sweep.json (schema in docs/results-schema.md).

use crate::runner::RunResults;
use crate::workload::Regime;
use serde::{Deserialize, Serialize};

/// One point of a sweep: a whole run at one thread count and affinity set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// Writer threads at this point.
    pub threads: usize,
    /// The affinity set: `unbound` (every allowed CPU) or `nodeN`.
    pub affinity: String,
    /// The regime (`--rates`; the file's `rate`: ops/s per thread, or `null` flat out).
    #[serde(rename = "rate")]
    pub regime: Regime,
    /// The run at this point.
    pub results: RunResults,
}

/// A whole `contend sweep`: sweep.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepResults {
    /// [`crate::runner::SCHEMA_VERSION`]: sweep.json shares run.json's.
    pub schema: u32,
    /// True when Ctrl-C or the time budget stopped the sweep: only finished points are kept.
    pub partial: bool,
    /// True when the time budget (`--max-time`) stopped it.
    pub out_of_time: bool,
    /// Every point, in the order run.
    pub points: Vec<SweepPoint>,
}

impl SweepResults {
    /// Why it is partial, if it is.
    pub fn stopped(&self) -> Option<crate::runner::Stopped> {
        crate::runner::Stopped::of(self.partial, self.out_of_time)
    }

    /// The affinity sets, in the order they were first run.
    pub fn affinities(&self) -> Vec<&str> {
        let mut seen = std::collections::HashSet::new();
        let sets = self.points.iter().map(|p| p.affinity.as_str());
        sets.filter(|a| seen.insert(*a)).collect()
    }

    /// The largest thread count of affinity set `affinity` and its points there (one per regime).
    pub fn widest(&self, affinity: &str) -> Option<(usize, Vec<&SweepPoint>)> {
        let in_set = || self.points.iter().filter(|p| p.affinity == affinity);
        let threads = in_set().map(|p| p.threads).max()?;
        Some((threads, in_set().filter(|p| p.threads == threads).collect()))
    }

    /// The flat-out points of affinity set `affinity`, by thread count.
    pub fn hammer_points(&self, affinity: &str) -> Vec<&SweepPoint> {
        let mut points: Vec<&SweepPoint> = self
            .points
            .iter()
            .filter(|p| p.affinity == affinity && !p.regime.is_paced())
            .collect();
        points.sort_by_key(|p| p.threads);
        points
    }
}
