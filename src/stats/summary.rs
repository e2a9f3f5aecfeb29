//! Mean ± standard deviation and a 95% confidence interval over repeats.

use super::student::t_quantile_975;
use serde::{Deserialize, Serialize};

/// A quantity measured once per repeat, summarised, in the unit of its values.
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
    /// Lower end of the mean's 95% interval: `mean - t · stddev / sqrt(n)`, t Student's for n - 1
    /// df ([`super::t_quantile_975`]).
    pub ci95_low: f64,
    /// Upper end of the 95% confidence interval of the mean.
    pub ci95_high: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

/// Repeats a spread or an interval needs: under it, `stddev` and the interval are none, printed as
/// `(1 repeat)`, never `±0`.
pub const SPREAD_REPEATS: usize = 2;

impl Summary {
    /// True when its repeats give a spread and an interval
    /// ([`SPREAD_REPEATS`] or more).
    pub fn has_spread(&self) -> bool {
        self.n >= SPREAD_REPEATS
    }

    /// Summarises `values`; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Summary> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        let (stddev, half) = if n > 1 {
            let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            let sd = var.sqrt();
            (sd, t_quantile_975((n - 1) as f64) * sd / (n as f64).sqrt())
        } else {
            (0.0, 0.0)
        };
        Some(Summary {
            n,
            mean,
            stddev,
            stddev_pct: percent_of(stddev, mean),
            ci95_low: mean - half,
            ci95_high: mean + half,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }

    /// This quantity less an independent one, in the same unit: the means' difference, sds in
    /// quadrature, Welch's interval, the smaller n (derivation in docs/evidence.md).
    pub fn less(&self, other: &Summary) -> Summary {
        let mean = self.mean - other.mean;
        let stddev = self.stddev.hypot(other.stddev);
        let (ci95_low, ci95_high) = match super::welch_t_test(other, self) {
            Some(w) => w.interval(super::CONFIDENCE_LEVEL),
            None => {
                let half = (self.ci95_high - self.mean).hypot(other.ci95_high - other.mean);
                (mean - half, mean + half)
            }
        };
        Summary {
            n: self.n.min(other.n),
            mean,
            stddev,
            stddev_pct: percent_of(stddev, mean),
            ci95_low,
            ci95_high,
            min: self.min - other.max,
            max: self.max - other.min,
        }
    }
}

/// `stddev` as a percentage of |`mean`|; 0 for a zero mean.
pub(super) fn percent_of(stddev: f64, mean: f64) -> f64 {
    if mean != 0.0 {
        100.0 * stddev / mean.abs()
    } else {
        0.0
    }
}

/// `n / d`, or 0 when `d` is not above 0: a rate or share over nothing measured (or queued).
pub fn ratio(n: f64, d: f64) -> f64 {
    if d > 0.0 { n / d } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_over_nothing_is_zero_not_undefined() {
        // Shares and means over an empty queue (no fetch, no publish) read 0, never NaN or 1.
        for (n, d, want) in [
            (3.0, 4.0, 0.75),
            (3.0, 0.0, 0.0),
            (0.0, 0.0, 0.0),
            (3.0, -1.0, 0.0),
        ] {
            assert_eq!(ratio(n, d), want, "ratio({n}, {d})");
        }
    }

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
    fn a_difference_has_both_spreads_and_welchs_interval() {
        // 10, 12, 14 less 4, 6: mean 12 - 5 = 7; sd 2 and √2 give √6.
        let a = Summary::of(&[10.0, 12.0, 14.0]).unwrap();
        let b = Summary::of(&[4.0, 6.0]).unwrap();
        let d = a.less(&b);
        assert_eq!((d.n, d.mean, d.min, d.max), (2, 7.0, 4.0, 10.0));
        assert!((d.stddev - 6f64.sqrt()).abs() < 1e-12);
        assert!((d.stddev_pct - 100.0 * 6f64.sqrt() / 7.0).abs() < 1e-12);
        // Welch: se² = 4/3 + 2/2 = 7/3; df = (7/3)² / ((4/3)²/2 + 1²/1)
        // = 49/9 / (17/9) = 49/17; t(0.975, 49/17 df) = 3.257208 (the t
        // density integrated by Simpson's rule and bisected, by hand).
        let half = (d.ci95_high - d.ci95_low) / 2.0;
        let expected = 3.257_208 * (7.0f64 / 3.0).sqrt();
        assert!((half - expected).abs() < 1e-5 * expected, "{d:?}");
        assert!(((d.ci95_high + d.ci95_low) / 2.0 - 7.0).abs() < 1e-12);
        // One repeat on a side: the half-widths in quadrature (0 for the
        // single repeat), so the interval is the other side's.
        let one = Summary::of(&[5.0]).unwrap();
        let d = a.less(&one);
        let half = a.ci95_high - a.mean;
        assert_eq!(d.mean, 7.0);
        assert!((d.ci95_high - (7.0 + half)).abs() < 1e-12, "{d:?}");
        assert!((d.ci95_low - (7.0 - half)).abs() < 1e-12, "{d:?}");
        // A difference of nothing: 0 ± the spread, and no percentage of 0.
        let none = a.less(&a);
        assert_eq!((none.mean, none.stddev_pct), (0.0, 0.0));
        assert!((none.stddev - 2.0 * 2f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn single_and_empty_have_no_spread_and_two_repeats_do() {
        let s = Summary::of(&[3.0]).unwrap();
        assert_eq!((s.stddev, s.ci95_low, s.ci95_high), (0.0, 3.0, 3.0));
        assert!(Summary::of(&[]).is_none());
        assert_eq!(SPREAD_REPEATS, 2);
        assert!(!s.has_spread());
        assert!(Summary::of(&[5.0, 5.0]).unwrap().has_spread());
        assert!(Summary::of(&[4.0, 5.0, 6.0]).unwrap().has_spread());
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
            let (up, down) = (s.ci95_high - s.mean, s.mean - s.ci95_low);
            assert!((up - half).abs() < 1e-12 * half, "n {n}: {s:?}");
            assert!((down - half).abs() < 1e-12 * half, "n {n}: {s:?}");
        }
    }
}
