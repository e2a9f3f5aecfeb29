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

/// The mean of `values` once the ⌊n × `trim`⌋ smallest and as many
/// largest are set aside (`trim` in 0 ≤ trim < 0.5): a mean, so a clock
/// that steps in coarse ticks still averages to the true time, that one
/// preempted sample in ten cannot move. `None` when there are none.
pub fn trimmed_mean(values: &[f64], trim: f64) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let cut = (v.len() as f64 * trim.clamp(0.0, 0.499)).floor() as usize;
    let kept = &v[cut..v.len() - cut];
    (!kept.is_empty()).then(|| kept.iter().sum::<f64>() / kept.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trimmed_mean_sets_aside_each_end() {
        // Five values, 20%: one set aside at each end, mean(2, 3, 4) = 3;
        // 10% of five is none: (1 + 2 + 3 + 4 + 100) / 5 = 22.
        let v = [100.0, 2.0, 1.0, 4.0, 3.0];
        assert_eq!(trimmed_mean(&v, 0.2), Some(3.0));
        assert_eq!(trimmed_mean(&v, 0.1), Some(22.0));
        // Samples quantized to 10 ns steps, 60 at 50 ns and 40 at 60 ns:
        // the median says 50, the mean 54 (the time they average to).
        let steps: Vec<f64> = (0..100).map(|i| if i < 60 { 50.0 } else { 60.0 }).collect();
        assert_eq!(median(&steps), Some(50.0));
        assert_eq!(trimmed_mean(&steps, 0.0), Some(54.0));
        assert_eq!(trimmed_mean(&[], 0.1), None);
    }

    #[test]
    fn interpolates_between_ranks() {
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
    }

    #[test]
    fn a_median_is_the_middle_or_none() {
        assert_eq!(median(&[9.0, 1.0, 5.0]), Some(5.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
