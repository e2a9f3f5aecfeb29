//! Is a difference between two sets of repeats real? Welch's t-test (no equal-variance assumption),
//! its two-sided p-value from Student's t, and the interval of the difference from the same
//! distribution.

use super::Summary;
use super::student::{student_t_two_sided_p, t_quantile};

/// The family-wise significance level: a difference counts only when its
/// Holm-adjusted p-value (see [`super::holm_adjusted`]) is below this.
pub const SIGNIFICANCE_LEVEL: f64 = 0.05;

/// The confidence level of the interval of a difference.
pub const CONFIDENCE_LEVEL: f64 = 0.95;

/// The outcome of Welch's t-test on two samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Welch {
    /// `mean_b - mean_a`.
    pub difference: f64,
    /// Standard error of that difference, `sqrt(var_a/n_a + var_b/n_b)`.
    pub std_error: f64,
    /// `difference / std_error`; infinite when both samples have no
    /// spread and different means.
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom (`n_a + n_b - 2` when
    /// neither sample has any spread).
    pub df: f64,
    /// Two-sided p-value: the chance of a |t| at least this large if the
    /// true means were equal.
    pub p: f64,
}

impl Welch {
    /// The t-test of `difference` with standard error `std_error` on `df` degrees of freedom; with
    /// no error, p = 1 for equal means, else p = 0.
    pub fn of(difference: f64, std_error: f64, df: f64) -> Welch {
        let (t, p) = if std_error > 0.0 {
            let t = difference / std_error;
            (t, student_t_two_sided_p(t, df))
        } else if difference == 0.0 {
            (0.0, 1.0)
        } else {
            (difference.signum() * f64::INFINITY, 0.0)
        };
        Welch {
            difference,
            std_error,
            t,
            df,
            p,
        }
    }

    /// The two-sided `level` interval of `mean_b - mean_a`: `difference ± t_{(1+level)/2, df} ·
    /// std_error`, at the Welch–Satterthwaite df.
    pub fn interval(&self, level: f64) -> (f64, f64) {
        if self.std_error == 0.0 {
            return (self.difference, self.difference);
        }
        let half = t_quantile(0.5 + level / 2.0, self.df) * self.std_error;
        (self.difference - half, self.difference + half)
    }
}

/// Welch's t-test of `b` against `a`, from their summaries (n, mean, sample sd); `None` when either
/// side has fewer than two values.
pub fn welch_t_test(a: &Summary, b: &Summary) -> Option<Welch> {
    if !a.has_spread() || !b.has_spread() {
        return None;
    }
    let (na, nb) = (a.n as f64, b.n as f64);
    let (va, vb) = (a.stddev.powi(2) / na, b.stddev.powi(2) / nb);
    let se2 = va + vb;
    let difference = b.mean - a.mean;
    if se2 == 0.0 {
        return Some(Welch::of(difference, 0.0, na + nb - 2.0));
    }
    let df = se2.powi(2) / (va.powi(2) / (na - 1.0) + vb.powi(2) / (nb - 1.0));
    Some(Welch::of(difference, se2.sqrt(), df))
}

/// The paired t-test of per-repeat differences (`test − base`): t = mean ÷ (sd/√n), n − 1 df, in
/// [`Welch`]'s shape, its interval their own 95% CI; `None` under two differences.
pub fn paired_t_test(differences: &Summary) -> Option<Welch> {
    if !differences.has_spread() {
        return None;
    }
    let n = differences.n as f64;
    let (difference, df) = (differences.mean, n - 1.0);
    Some(Welch::of(difference, differences.stddev / n.sqrt(), df))
}

/// How `test` differs from `base`: the change of the means, its confidence interval and Welch's
/// test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    /// `100 × (test - base) / base`; `None` when the base mean is 0 or below.
    pub change_pct: Option<f64>,
    /// The change's 95% interval in % of the base mean (Welch's of `test - base`, the base taken as
    /// exact); `None` when the base mean is 0 or below or there is no test.
    pub ci95_pct: Option<(f64, f64)>,
    /// Welch's t-test; `None` with fewer than two repeats on a side.
    pub welch: Option<Welch>,
    /// The base mean the percentages are of.
    pub base_mean: f64,
    /// True when the change, interval and test are the paired t-test's on per-repeat differences,
    /// not Welch's.
    pub paired: bool,
}

impl Difference {
    /// Compares two summaries of the same measure.
    pub fn of(base: &Summary, test: &Summary) -> Self {
        Self::from_test(
            base.mean,
            welch_t_test(base, test),
            test.mean - base.mean,
            false,
        )
    }

    /// A difference of `change` between two sides of runs tested at the run level (`welch`, see
    /// [`super::runs_difference`]; `None` if between-run noise is unknown), in % of `base_mean`.
    pub fn of_runs(base_mean: f64, welch: Option<Welch>, change: f64) -> Self {
        Self::from_test(base_mean, welch, change, false)
    }

    /// Two summaries taken in the same repeats compared by their per-repeat `differences`: their
    /// mean and the paired t-test, in % of the base mean.
    pub fn paired(base: &Summary, differences: &Summary) -> Self {
        Self::from_test(
            base.mean,
            paired_t_test(differences),
            differences.mean,
            true,
        )
    }

    /// The difference whose t-test is `welch` and mean change `change` (in the measure's unit), in
    /// % of `base_mean` where it is above 0.
    fn from_test(base_mean: f64, welch: Option<Welch>, change: f64, paired: bool) -> Self {
        let relative = |x: f64| 100.0 * x / base_mean;
        let percent = base_mean > 0.0;
        let ci95_pct = welch.filter(|_| percent).map(|w| {
            let (lo, hi) = w.interval(CONFIDENCE_LEVEL);
            (relative(lo), relative(hi))
        });
        Difference {
            change_pct: percent.then(|| relative(change)),
            ci95_pct,
            welch,
            base_mean,
            paired,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Welch's test of `b - a`: its t, df, p and 95% interval against `want`, to 1e-12 (df 1e-9,
    /// the interval 1e-10).
    fn welch_is(a: &[f64], b: &[f64], want: [f64; 5]) -> Welch {
        let w = welch_t_test(&s(a), &s(b)).unwrap();
        let (lo, hi) = w.interval(0.95);
        let tols = [1e-12, 1e-9, 1e-12, 1e-10, 1e-10];
        for ((got, want), tol) in [w.t, w.df, w.p, lo, hi].into_iter().zip(want).zip(tols) {
            assert!(close(got, want, tol), "{got} vs {want}: {w:?}");
        }
        w
    }

    fn s(values: &[f64]) -> Summary {
        Summary::of(values).unwrap()
    }

    #[test]
    fn welch_matches_r_on_the_sleep_data_and_the_wikipedia_example() {
        // Student's (1908) sleep data, as in R's `example(t.test)`:
        // `t.test(extra ~ group, data = sleep)` prints
        //   t = -1.8608, df = 17.776, p-value = 0.07939
        //   95 percent confidence interval: -3.3654832  0.2054832
        // (group 1 minus group 2). The digits below are mpmath's at 40
        // digits, which round to R's.
        let g1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
        let g2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];
        let sleep = [
            -1.860_813_467_486_853,
            17.776_473_516_178_49,
            0.079_394_140_187_358_14,
            -3.365_483_230_711_711,
            0.205_483_230_711_711,
        ];
        let w = welch_is(&g2, &g1, sleep);
        // Rounded as R prints them.
        let (lo, hi) = w.interval(0.95);
        let printed = format!("{:.4} {:.3} {:.5} {lo:.7} {hi:.7}", w.t, w.df, w.p);
        assert_eq!(printed, "-1.8608 17.776 0.07939 -3.3654832 0.2054832");
        // Wikipedia's Welch's t-test example 1: t = 2.46 (sign: b - a),
        // df = 24.99, p = 0.021 (exact digits from mpmath).
        let a = [
            27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7,
            21.4,
        ];
        let b = [
            27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5,
            24.4,
        ];
        let wikipedia = [
            2.455_356_398_286_005,
            24.988_529_290_231_41,
            0.021_378_001_462_867,
            0.349_237_066_192_405,
            3.984_096_267_140_928,
        ];
        welch_is(&a, &b, wikipedia);
    }

    #[test]
    fn the_interval_excludes_zero_exactly_when_p_is_below_five_percent() {
        // One distribution for both: the interval's edge sits at 0 when
        // p = 0.05, so they cannot disagree.
        // By hand: a has mean 10.875 and variance 2.1875/3, b mean
        // 11 + shift and variance 1, so the difference is 0.125 + shift,
        // se = sqrt(0.7291667/4 + 1/3) = 0.71807033, Welch's df =
        // 3.9900936, t(0.975, df) = 2.7791658 (mpmath): half-width
        // 1.9956365 whatever the shift.
        let half = 1.995_636_474_238_504;
        for shift in [0.0, 0.5, 1.0, 1.5, 1.9, 2.1, 3.0, 6.0] {
            let a = s(&[10.0, 11.0, 12.0, 10.5]);
            let b = s(&[10.0 + shift, 12.0 + shift, 11.0 + shift]);
            let w = welch_t_test(&a, &b).unwrap();
            let (lo, hi) = w.interval(0.95);
            assert_eq!(lo > 0.0 || hi < 0.0, w.p < 0.05, "shift {shift}: {w:?}");
            assert!(close(w.difference, 0.125 + shift, 1e-12), "{w:?}");
            assert!(close(w.df, 3.990_093_635_500_068, 1e-9), "{w:?}");
            assert!(close(lo, 0.125 + shift - half, 1e-9), "shift {shift}: {lo}");
            assert!(close(hi, 0.125 + shift + half, 1e-9), "shift {shift}: {hi}");
        }
    }

    #[test]
    fn differences_in_percent_of_the_base() {
        let base = s(&[100.0, 101.0, 99.0, 100.5, 99.5]);
        let test = s(&[115.0, 116.0, 114.0, 115.5, 114.5]);
        let d = Difference::of(&base, &test);
        assert!(close(d.change_pct.unwrap(), 15.0, 1e-12));
        let w = d.welch.unwrap();
        assert!(w.p < 1e-6, "{w:?}");
        let (lo, hi) = d.ci95_pct.unwrap();
        let (alo, ahi) = w.interval(0.95);
        assert!(close(lo, alo, 1e-12) && close(hi, ahi, 1e-12), "base 100");
        // By hand: both variances 2.5/4 = 0.625, se = sqrt(2·0.625/5) =
        // 0.5, df = 2(n-1) = 8, t(0.975, 8) = 2.306004135204167, so
        // 15 ± 1.1530020676 around a base of 100.
        assert!(close(lo, 13.846_997_932_397_917, 1e-9), "{lo}");
        assert!(close(hi, 16.153_002_067_602_083, 1e-9), "{hi}");
        assert!(close(w.df, 8.0, 1e-9), "{w:?}");

        let down = Difference::of(&test, &base);
        let change = down.change_pct.unwrap();
        assert!(close(change, -100.0 * 15.0 / 115.0, 1e-12), "{change}");
        // Welch's interval of -15 around the new base, 115.
        let (lo, hi) = down.ci95_pct.unwrap();
        let (alo, ahi) = down.welch.unwrap().interval(0.95);
        assert!(close(lo, alo / 1.15, 1e-12) && close(hi, ahi / 1.15, 1e-12));
        // (-15 ± 1.1530020676) / 1.15.
        assert!(close(lo, -14.046_088_754_436_594, 1e-9), "{lo}");
        assert!(close(hi, -12.040_867_767_302_536, 1e-9), "{hi}");
    }

    #[test]
    fn single_repeats_and_zero_bases_are_not_tested_in_percent() {
        let one = s(&[100.0]);
        let far = s(&[200.0]);
        let d = Difference::of(&one, &far);
        assert_eq!(d.welch, None);
        assert_eq!(d.ci95_pct, None);
        assert_eq!(d.change_pct, Some(100.0));

        let zero = s(&[0.0, 0.0]);
        let six = s(&[6.0, 6.0]);
        let d = Difference::of(&zero, &six);
        assert_eq!((d.change_pct, d.ci95_pct), (None, None));
        assert_eq!(d.welch.unwrap().p, 0.0);
        // A base below 0 (a net cost) has no percentage either.
        let below = s(&[-2.0, -1.0]);
        let d = Difference::of(&below, &six);
        assert_eq!((d.change_pct, d.ci95_pct), (None, None));
        assert!((d.welch.unwrap().difference - 7.5).abs() < 1e-12);
    }

    #[test]
    fn samples_without_spread() {
        let a = s(&[5.0, 5.0, 5.0]);
        let b = s(&[6.0, 6.0]);
        let same = welch_t_test(&a, &a).unwrap();
        let got = (same.t, same.p, same.interval(0.95));
        assert_eq!(got, (0.0, 1.0, (0.0, 0.0)));
        let w = welch_t_test(&a, &b).unwrap();
        assert_eq!((w.t, w.p), (f64::INFINITY, 0.0));
        assert_eq!(w.interval(0.95), (1.0, 1.0));
        assert_eq!(Difference::of(&a, &b).ci95_pct, Some((20.0, 20.0)));
    }

    #[test]
    fn no_spread_degrees_of_freedom_sign_and_one_single_side() {
        let a = s(&[5.0, 5.0, 5.0]);
        let b = s(&[4.0, 4.0]);
        let w = welch_t_test(&a, &b).unwrap();
        // n_a + n_b - 2 = 3 + 2 - 2 = 3; b lower by 1: t = -inf, p = 0.
        let got = (w.difference, w.df, w.t, w.p, w.std_error);
        assert_eq!(got, (-1.0, 3.0, f64::NEG_INFINITY, 0.0, 0.0));
        // One side with a single repeat is enough to leave no test.
        let one = s(&[5.0]);
        assert_eq!(welch_t_test(&one, &a), None);
        assert_eq!(welch_t_test(&a, &one), None);
        // Spread on one side only: df = n - 1 of that side (here 4), se =
        // sd / sqrt(n) = sqrt(2.5) / sqrt(5) = sqrt(0.5).
        let c = s(&[8.0, 9.0, 10.0, 11.0, 12.0]);
        let w = welch_t_test(&a, &c).unwrap();
        assert!(close(w.df, 4.0, 1e-12), "{w:?}");
        assert!(close(w.std_error, 0.5f64.sqrt(), 1e-12), "{w:?}");
        assert!(close(w.t, 5.0 / 0.5f64.sqrt(), 1e-12), "{w:?}");
    }

    #[test]
    fn a_paired_test_uses_the_per_repeat_differences() {
        // Differences 1, 2, 3 (base 10, 20, 30; test 11, 22, 33): mean 2,
        // sd 1, se 1/√3 = 0.57735, t = 2√3 = 3.4641, df 2; two-sided p of
        // t(2) at 3.4641 = 1 − 3.4641/√(2 + 12) = 0.074180 (t(2)'s CDF is
        // closed: P(|T| < t) = t/√(2 + t²)); the 95% interval 2 ± 4.302653
        // × 0.57735 = [−0.48414, 4.48414], as Summary's CI of the
        // differences. Welch on the two sets sees sd 10 and 11 and no
        // change at all.
        let d = s(&[1.0, 2.0, 3.0]);
        let w = paired_t_test(&d).unwrap();
        assert!((w.t - 12f64.sqrt()).abs() < 1e-12, "{w:?}");
        assert_eq!(w.df, 2.0);
        let p = 1.0 - 12f64.sqrt() / 14f64.sqrt();
        assert!((w.p - p).abs() < 1e-6, "{w:?}");
        let (lo, hi) = w.interval(CONFIDENCE_LEVEL);
        assert!((lo - (-0.48414)).abs() < 1e-4 && (hi - 4.48414).abs() < 1e-4);
        assert!((lo - d.ci95_low).abs() < 1e-9 && (hi - d.ci95_high).abs() < 1e-9);
        let base = s(&[10.0, 20.0, 30.0]);
        let diff = Difference::paired(&base, &d);
        assert!(diff.paired);
        assert_eq!(diff.change_pct, Some(10.0));
        let (plo, phi) = diff.ci95_pct.unwrap();
        assert!((plo - 5.0 * lo).abs() < 1e-9 && (phi - 5.0 * hi).abs() < 1e-9);
        let test = s(&[11.0, 22.0, 33.0]);
        assert!(welch_t_test(&base, &test).unwrap().p > 0.8);
        // Equal differences: no spread, a certain change (or none); one
        // difference: no test.
        // Its t is infinite, with the difference's sign.
        let tp = |v: &[f64]| paired_t_test(&s(v)).map(|w| (w.t, w.p));
        assert_eq!(tp(&[2.0, 2.0]), Some((f64::INFINITY, 0.0)));
        assert_eq!(tp(&[-2.0, -2.0]), Some((f64::NEG_INFINITY, 0.0)));
        assert_eq!(tp(&[0.0, 0.0]).map(|w| w.1), Some(1.0));
        assert_eq!(paired_t_test(&s(&[1.0])), None);
    }
}
