//! The estimate of a cost timed one operation at a time: a trimmed mean,
//! not a median, because a stepping clock quantizes the median to its grid
//! (docs/evidence.md); ties at the cut are kept so the grid values weigh evenly.

/// Share of single-operation timings [`trimmed_mean`] may drop at each
/// end: 5%.
pub const TIMING_TRIM: f64 = 0.05;

/// The mean of `values` less the ⌊`trim` × n⌋ lowest and as many highest, keeping all values tied
/// at the cut (`trim` clamped to [0, 0.5)); `None` when there are no values.
pub fn trimmed_mean(values: &[f64], trim: f64) -> Option<f64> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let k = ((trim.clamp(0.0, 0.5) * n as f64).floor() as usize).min((n - 1) / 2);
    let (lo, hi) = (sorted[k], sorted[n - 1 - k]);
    let kept: Vec<f64> = sorted.into_iter().filter(|&x| x >= lo && x <= hi).collect();
    Some(kept.iter().sum::<f64>() / kept.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::median;

    #[test]
    fn without_ties_it_drops_the_share_at_each_end() {
        // 1..10 and one interruption of 1000: a 10% trim of 11 drops one
        // at each end, 1 and 1000; the mean of 2..10 is 6
        // (scipy.stats.trim_mean(list(range(1, 11)) + [1000], 0.1) = 6.0).
        let v: Vec<f64> = (1..=10).map(f64::from).chain([1000.0]).collect();
        assert_eq!(trimmed_mean(&v, 0.1), Some(6.0));
        // No trim: the plain mean, (55 + 1000) / 11.
        assert_eq!(trimmed_mean(&v, 0.0), Some(1055.0 / 11.0));
        // 5% of 11 is 0.55: nothing dropped.
        assert_eq!(trimmed_mean(&v, 0.05), Some(1055.0 / 11.0));
        // A trim of a half or more keeps the middle one (n odd) or two.
        assert_eq!(trimmed_mean(&[1.0, 2.0, 9.0], 0.7), Some(2.0));
        assert_eq!(trimmed_mean(&[1.0, 2.0, 4.0, 9.0], 0.5), Some(3.0));
        assert_eq!(trimmed_mean(&[7.0], TIMING_TRIM), Some(7.0));
        assert_eq!(trimmed_mean(&[], TIMING_TRIM), None);
    }

    #[test]
    fn a_quantized_sample_has_its_mean_where_its_median_is_off() {
        // A 25.6 ns operation timed with a clock that steps by 10 ns:
        // 44 timings read 20 ns and 56 read 30 ns (44 × 20 + 56 × 30 =
        // 2560 over 100). The median is a grid value, 30: 4.4 ns off. The
        // 5% trim would drop 5 of the 20s and 5 of the 30s, but ties at
        // the cut are kept, so every one counts: 25.6.
        let v: Vec<f64> = [vec![20.0; 44], vec![30.0; 56]].concat();
        assert_eq!(median(&v), Some(30.0));
        let m = trimmed_mean(&v, TIMING_TRIM).unwrap();
        assert!((m - 25.6).abs() < 1e-12, "{m}");
        // The same with three grid values, as a net (a timing less a
        // private one, each quantized) reads: 10 × 10, 60 × 20, 30 × 30
        // ns, mean (100 + 1200 + 900) / 100 = 22; median 20.
        let v: Vec<f64> = [vec![10.0; 10], vec![20.0; 60], vec![30.0; 30]].concat();
        assert_eq!(median(&v), Some(20.0));
        assert!((trimmed_mean(&v, TIMING_TRIM).unwrap() - 22.0).abs() < 1e-12);
    }

    #[test]
    fn interruptions_are_dropped_and_a_rare_grid_value_bounds_the_bias() {
        // 97 timings of 25 ns and three an interrupt lengthened to 4 µs:
        // the mean is (97 × 25 + 3 × 4000) / 100 = 144.25; 5 of 100 are
        // trimmed at each end, the 25s at the bottom kept as ties: 25.
        let v: Vec<f64> = [vec![25.0; 97], vec![4000.0; 3]].concat();
        assert!((v.iter().sum::<f64>() / 100.0 - 144.25).abs() < 1e-9);
        assert_eq!(trimmed_mean(&v, TIMING_TRIM), Some(25.0));
        // A 20.2 ns operation on a 10 ns step: 98 read 20, 2 read 30. The
        // 30s are rarer than the trim and beyond the cut: 20, 0.2 ns off,
        // within the bound of TIMING_TRIM × the step (0.5 ns).
        let v: Vec<f64> = [vec![20.0; 98], vec![30.0; 2]].concat();
        let m = trimmed_mean(&v, TIMING_TRIM).unwrap();
        assert_eq!(m, 20.0);
        assert!((m - 20.2).abs() <= TIMING_TRIM * 10.0);
        // Negative nets (a private timing an interruption lengthened)
        // trim alike: of 20, one at each end, -500 and 900, dropped.
        let mut v = vec![5.0; 18];
        v.extend([-500.0, 900.0]);
        assert_eq!(trimmed_mean(&v, 0.05), Some(5.0));
    }
}
