//! Per-operation latency: sampled timer ticks in an HDR histogram,
//! reported in nanoseconds.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Latency percentiles of one side (write or read) of one repeat, in
/// nanoseconds, from sampled operations.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    /// Operations sampled.
    pub samples: u64,
    /// Mean, ns.
    pub mean_ns: f64,
    /// Median, ns.
    pub p50_ns: f64,
    /// 90th percentile, ns.
    pub p90_ns: f64,
    /// 99th percentile, ns.
    pub p99_ns: f64,
    /// 99.9th percentile, ns.
    pub p999_ns: f64,
    /// Largest sample, ns.
    pub max_ns: f64,
}

impl LatencySummary {
    /// Summarises a histogram of ticks, `ns_per_tick` converting. `None`
    /// when nothing was sampled.
    pub fn of(hist: &Histogram<u64>, ns_per_tick: f64) -> Option<Self> {
        if hist.is_empty() {
            return None;
        }
        let at = |q: f64| hist.value_at_quantile(q) as f64 * ns_per_tick;
        Some(LatencySummary {
            samples: hist.len(),
            mean_ns: hist.mean() * ns_per_tick,
            p50_ns: at(0.5),
            p90_ns: at(0.9),
            p99_ns: at(0.99),
            p999_ns: at(0.999),
            max_ns: hist.max() as f64 * ns_per_tick,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_histogram() -> Histogram<u64> {
        Histogram::new_with_bounds(1, 10_000_000_000, 3).unwrap()
    }

    #[test]
    fn percentiles_in_nanoseconds() {
        let mut h = new_histogram();
        for v in 1..=1000u64 {
            h.record(v).unwrap();
        }
        let s = LatencySummary::of(&h, 0.5).unwrap();
        assert_eq!(s.samples, 1000);
        assert!((s.p50_ns - 250.0).abs() <= 1.0, "{}", s.p50_ns);
        assert!((s.p99_ns - 495.0).abs() <= 1.0, "{}", s.p99_ns);
        assert!((s.max_ns - 500.0).abs() <= 1.0);
        // By hand: 1..=1000 ticks at 0.5 ns: mean 500.5 ticks = 250.25
        // ns, the 90th and 99.9th percentiles ticks 900 and 999 (three
        // significant digits hold them exactly).
        assert!((s.mean_ns - 250.25).abs() < 1e-9, "{}", s.mean_ns);
        assert_eq!(s.p90_ns, 450.0);
        assert_eq!(s.p999_ns, 499.5);
        assert_eq!(s.max_ns, 500.0);
        assert!(LatencySummary::of(&new_histogram(), 1.0).is_none());
    }
}
