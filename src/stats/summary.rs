//! Mean ± standard deviation and a 95% confidence interval over repeats.

use super::student::t_quantile_975;
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
    /// Lower end of the 95% confidence interval of the mean: `mean - t ·
    /// stddev / sqrt(n)`, with Student's exact t quantile for n - 1 degrees
    /// of freedom ([`super::t_quantile_975`]).
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
            t_quantile_975((n - 1) as f64) * stddev / (n as f64).sqrt()
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
        // t quantile for 7 df: 2.364624251592785 (mpmath).
        let half = 2.364_624_251_592_785 * s.stddev / 8f64.sqrt();
        assert!((s.ci95_high - (5.0 + half)).abs() < 1e-12);
        assert!((s.ci95_low - (5.0 - half)).abs() < 1e-12);
        assert!((s.stddev_pct - 100.0 * s.stddev / 5.0).abs() < 1e-12);
        assert_eq!((s.min, s.max), (2.0, 9.0));
    }

    #[test]
    fn single_and_empty() {
        let s = Summary::of(&[3.0]).unwrap();
        assert_eq!((s.stddev, s.ci95_low, s.ci95_high), (0.0, 3.0, 3.0));
        assert!(Summary::of(&[]).is_none());
    }

    #[test]
    fn intervals_use_the_exact_t_quantile_beyond_thirty_repeats() {
        // 32 repeats: 31 df, t = 2.0395 (the old table's 1.96 made this
        // interval 3.9% too narrow); 1001 repeats: t = 1.9623.
        for (n, t) in [
            (32usize, 2.039_513_446_396_408),
            (1001, 1.962_339_080_826_408),
        ] {
            let values: Vec<f64> = (0..n).map(|i| (i % 7) as f64).collect();
            let s = Summary::of(&values).unwrap();
            let half = t * s.stddev / (n as f64).sqrt();
            assert!(
                (s.ci95_high - s.mean - half).abs() < 1e-12 * half,
                "n {n}: {s:?}"
            );
            assert!(
                (s.mean - s.ci95_low - half).abs() < 1e-12 * half,
                "n {n}: {s:?}"
            );
        }
    }
}
