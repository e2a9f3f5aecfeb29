//! Quantiles of a handful of samples (no histogram: a pair has at most a
//! few thousand).

/// The `q` quantile (0 ≤ q ≤ 1) of `sorted` (ascending), interpolating
/// linearly between the two nearest ranks; `NaN` when empty.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let pos = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let lo = pos.floor() as usize;
            let hi = (lo + 1).min(n - 1);
            sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
        }
    }
}

/// Sorts a copy of `values` and returns its `q` quantile.
pub fn quantile_of(values: &[f64], q: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    quantile(&v, q)
}

/// The median of `values` (the mean of the middle two when even);
/// `None` when there are none.
pub fn median(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| quantile_of(values, 0.5))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_between_ranks_and_a_median_is_the_middle() {
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.5);
        assert_eq!(quantile(&[5.0], 0.9), 5.0);
        assert!((quantile(&[0.0, 10.0], 0.9) - 9.0).abs() < 1e-12);
        assert_eq!(quantile_of(&[3.0, 1.0, 2.0], 0.5), 2.0);
        assert!(quantile(&[], 0.5).is_nan());
        // numpy.quantile([1, 2, 3, 4], q) (its default, linear method):
        // 1.75 at 0.25, 3.25 at 0.75; q outside [0, 1] is clamped.
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.25), 1.75);
        assert_eq!(quantile(&v, 0.75), 3.25);
        assert_eq!(quantile(&v, 1.0), 4.0);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 7.0), 4.0);
        assert_eq!(quantile(&v, -1.0), 1.0);
        assert_eq!(quantile_of(&[40.0, 10.0, 30.0, 20.0], 0.25), 17.5);
        // A median is the middle value, or the mean of the middle two, or none.
        assert_eq!(median(&[9.0, 1.0, 5.0]), Some(5.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
