//! Mean ± standard deviation and a 95% confidence interval over repeats.

use serde::{Deserialize, Serialize};

/// A quantity measured once per repeat, summarised. Units are those of the
/// values summarised (ops/s, ns, …); the field that holds a `Summary` says
/// which.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of repeats.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n - 1); 0 for a single repeat.
    pub stddev: f64,
    /// `stddev` as a percentage of `mean` (the seeds' "±1.15%").
    pub stddev_pct: f64,
    /// Lower end of the 95% confidence interval of the mean (Student's t).
    pub ci95_low: f64,
    /// Upper end of the 95% confidence interval of the mean.
    pub ci95_high: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Summary {
    /// Summarises `values`; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Summary> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        let stddev = var.sqrt();
        let half = if n > 1 {
            t_quantile_975(n - 1) * stddev / (n as f64).sqrt()
        } else {
            0.0
        };
        Some(Summary {
            n,
            mean,
            stddev,
            stddev_pct: if mean != 0.0 {
                100.0 * stddev / mean.abs()
            } else {
                0.0
            },
            ci95_low: mean - half,
            ci95_high: mean + half,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }
}

/// The 97.5% quantile of Student's t distribution with `df` degrees of
/// freedom: the multiplier of a two-sided 95% interval. Exact table to 30,
/// then the normal 1.96 (off by under 2% beyond).
pub fn t_quantile_975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        _ => 1.960,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarises_known_values() {
        let s = Summary::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.n, 8);
        assert!((s.mean - 5.0).abs() < 1e-12);
        // sample stddev of this set: sqrt(32/7)
        assert!((s.stddev - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        let half = 2.365 * s.stddev / 8f64.sqrt();
        assert!((s.ci95_high - (5.0 + half)).abs() < 1e-12);
        assert!((s.stddev_pct - 100.0 * s.stddev / 5.0).abs() < 1e-12);
        assert_eq!((s.min, s.max), (2.0, 9.0));
    }

    #[test]
    fn single_and_empty() {
        let s = Summary::of(&[3.0]).unwrap();
        assert_eq!((s.stddev, s.ci95_low, s.ci95_high), (0.0, 3.0, 3.0));
        assert!(Summary::of(&[]).is_none());
        assert_eq!(t_quantile_975(4), 2.776);
        assert_eq!(t_quantile_975(1000), 1.960);
    }
}
