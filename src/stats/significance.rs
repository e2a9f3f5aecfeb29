//! Is a difference between two sets of repeats real? Welch's t-test (no
//! equal-variance assumption) with its two-sided p-value from Student's t
//! distribution, computed here through the regularized incomplete beta
//! function.

use super::Summary;

/// A difference with a p-value below this is "measurable" (a two-sided
/// test at the 5% level).
pub const SIGNIFICANCE_LEVEL: f64 = 0.05;

/// The outcome of Welch's t-test on two samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Welch {
    /// `(mean_b - mean_a) / sqrt(var_a/n_a + var_b/n_b)`; infinite when
    /// both samples have no spread and different means.
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value: the chance of a |t| at least this large if the
    /// true means were equal.
    pub p: f64,
}

/// Welch's t-test of `b` against `a`, from their summaries (n, mean and
/// sample standard deviation are all it needs). `None` when either side
/// has fewer than two values: there is no spread to test against.
pub fn welch_t_test(a: &Summary, b: &Summary) -> Option<Welch> {
    if a.n < 2 || b.n < 2 {
        return None;
    }
    let (na, nb) = (a.n as f64, b.n as f64);
    let (va, vb) = (a.stddev.powi(2) / na, b.stddev.powi(2) / nb);
    let se2 = va + vb;
    let diff = b.mean - a.mean;
    if se2 == 0.0 {
        // Neither side varies: the means either agree exactly or differ
        // beyond any doubt.
        let df = na + nb - 2.0;
        return Some(if diff == 0.0 {
            Welch { t: 0.0, df, p: 1.0 }
        } else {
            Welch {
                t: diff.signum() * f64::INFINITY,
                df,
                p: 0.0,
            }
        });
    }
    let t = diff / se2.sqrt();
    let df = se2.powi(2) / (va.powi(2) / (na - 1.0) + vb.powi(2) / (nb - 1.0));
    Some(Welch {
        t,
        df,
        p: student_t_two_sided_p(t, df),
    })
}

/// How `test` differs from `base`: the change of the means and whether
/// the repeats show it beyond their noise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    /// `100 × (test - base) / base`; `None` when the base mean is 0.
    pub change_pct: Option<f64>,
    /// Welch's t-test; `None` with fewer than two repeats on a side.
    pub welch: Option<Welch>,
}

impl Difference {
    /// Compares two summaries of the same measure.
    pub fn of(base: &Summary, test: &Summary) -> Self {
        Difference {
            change_pct: (base.mean != 0.0).then(|| 100.0 * (test.mean - base.mean) / base.mean),
            welch: welch_t_test(base, test),
        }
    }

    /// True when the test found the difference (p below
    /// [`SIGNIFICANCE_LEVEL`]).
    pub fn is_measurable(&self) -> bool {
        self.welch.is_some_and(|w| w.p < SIGNIFICANCE_LEVEL)
    }

    /// The verdict as the seeds write it: the signed change (`+15.0%`) when
    /// measurable, else `no measurable difference`.
    pub fn verdict(&self) -> String {
        match (self.is_measurable(), self.change_pct) {
            (true, Some(pct)) => format!("{pct:+.1}%"),
            (true, None) => "changed (base mean is 0)".to_string(),
            (false, _) => "no measurable difference".to_string(),
        }
    }

    /// The p-value as printed beside the verdict (`p=0.003`, `p<0.001`),
    /// or `n<2` when there were too few repeats to test.
    pub fn p_text(&self) -> String {
        match self.welch {
            None => "n<2".to_string(),
            Some(w) if w.p < 0.001 => "p<0.001".to_string(),
            Some(w) => format!("p={:.3}", w.p),
        }
    }
}

/// Two-sided p-value of Student's t distribution with `df` degrees of
/// freedom: `P(|T| >= |t|) = I_{df/(df+t²)}(df/2, 1/2)`.
pub fn student_t_two_sided_p(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return 0.0;
    }
    let x = df / (df + t * t);
    regularized_incomplete_beta(df / 2.0, 0.5, x)
}

/// The regularized incomplete beta function `I_x(a, b)` for `a, b > 0`
/// and `0 <= x <= 1`, by its continued fraction (Lentz's method, as in
/// Numerical Recipes' `betai`/`betacf`).
pub fn regularized_incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    // The continued fraction converges fast for x < (a+1)/(a+b+2); use
    // the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) on the other side.
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_continued_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of the incomplete beta function (modified
/// Lentz).
fn beta_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    const MAX_ITERATIONS: usize = 300;
    const EPS: f64 = 1e-15;
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=MAX_ITERATIONS {
        let m = m as f64;
        let m2 = 2.0 * m;
        // Even step, then odd step.
        h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &mut c, &mut d);
        let delta = lentz_step(
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
            &mut c,
            &mut d,
        );
        h *= delta;
        if (delta - 1.0).abs() < EPS {
            break;
        }
    }
    h
}

/// One step of Lentz's method with coefficient `aa`: updates `c` and `d`
/// (kept away from zero) and returns the factor for the running product.
fn lentz_step(aa: f64, c: &mut f64, d: &mut f64) -> f64 {
    const TINY: f64 = 1e-300;
    *d = 1.0 + aa * *d;
    if d.abs() < TINY {
        *d = TINY;
    }
    *c = 1.0 + aa / *c;
    if c.abs() < TINY {
        *c = TINY;
    }
    *d = 1.0 / *d;
    *d * *c
}

/// `ln Γ(x)` for `x > 0` (Lanczos approximation, g = 7, 9 terms; about 15
/// significant digits).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEF: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1-x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = COEF[0];
    for (i, &c) in COEF.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn ln_gamma_matches_factorials() {
        for (n, fact) in [(1.0, 1.0), (2.0, 1.0), (5.0, 24.0), (11.0, 3_628_800.0f64)] {
            assert!(close(ln_gamma(n), fact.ln(), 1e-12), "{n}");
        }
        // Γ(1/2) = √π
        assert!(close(
            ln_gamma(0.5),
            std::f64::consts::PI.sqrt().ln(),
            1e-12
        ));
        assert!(close(ln_gamma(0.25), 1.288_022_524_698_077_5, 1e-12));
    }

    #[test]
    fn incomplete_beta_known_values() {
        // Reference values from mpmath.betainc(a, b, 0, x, regularized=True).
        assert!(close(
            regularized_incomplete_beta(2.0, 3.0, 0.4),
            0.5248,
            1e-12
        ));
        assert!(close(
            regularized_incomplete_beta(0.5, 0.5, 0.3),
            0.369_010_119_565_545,
            1e-12
        ));
        assert!(close(
            regularized_incomplete_beta(10.0, 20.0, 0.3),
            0.364_004_081_071_944,
            1e-12
        ));
        assert_eq!(regularized_incomplete_beta(2.0, 3.0, 0.0), 0.0);
        assert_eq!(regularized_incomplete_beta(2.0, 3.0, 1.0), 1.0);
    }

    #[test]
    fn student_t_p_values() {
        // Textbook: t = 2.0 with 10 df, two-sided p = 0.0734.
        assert!(close(
            student_t_two_sided_p(2.0, 10.0),
            0.073_388_034_770_74,
            1e-9
        ));
        // The tabled 97.5% quantile gives p = 0.05.
        assert!(close(
            student_t_two_sided_p(2.228, 10.0),
            0.050_011_771_817,
            1e-9
        ));
        // One df is the Cauchy distribution: P(|T| >= 1) = 1/2.
        assert!(close(student_t_two_sided_p(1.0, 1.0), 0.5, 1e-12));
        // Two df has a closed form: 1 - |t| / sqrt(2 + t²).
        let t: f64 = 1.7;
        let exact = 1.0 - t / (2.0 + t * t).sqrt();
        assert!(close(student_t_two_sided_p(-t, 2.0), exact, 1e-12));
        // Fractional df, as Welch gives, and a far tail.
        assert!(close(
            student_t_two_sided_p(3.0, 2.5),
            0.072_576_095_549_03,
            1e-9
        ));
        assert!(close(
            student_t_two_sided_p(10.0, 4.3),
            3.881_771_818_566_77e-4,
            1e-12
        ));
        assert!(close(
            student_t_two_sided_p(0.5, 30.0),
            0.620_723_004_885_128,
            1e-9
        ));
        assert_eq!(student_t_two_sided_p(0.0, 7.0), 1.0);
        assert_eq!(student_t_two_sided_p(f64::INFINITY, 7.0), 0.0);
    }

    #[test]
    fn welch_matches_the_textbook_example() {
        // Wikipedia's Welch's t-test example 1: t = 2.46 (sign: b - a),
        // df = 24.99, p = 0.021.
        let a = [
            27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7,
            21.4,
        ];
        let b = [
            27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5,
            24.4,
        ];
        let w = welch_t_test(&Summary::of(&a).unwrap(), &Summary::of(&b).unwrap()).unwrap();
        assert!(close(w.t, 2.455_356_398_286_01, 1e-9), "{w:?}");
        assert!(close(w.df, 24.988_529_291_423, 1e-6), "{w:?}");
        assert!(close(w.p, 0.021_378_001_462_867, 1e-9), "{w:?}");
    }

    #[test]
    fn clearly_different_samples_report_the_change() {
        let base = Summary::of(&[100.0, 101.0, 99.0, 100.5, 99.5]).unwrap();
        let test = Summary::of(&[115.0, 116.0, 114.0, 115.5, 114.5]).unwrap();
        let d = Difference::of(&base, &test);
        assert!(d.is_measurable(), "{d:?}");
        assert_eq!(d.verdict(), "+15.0%");
        assert_eq!(d.p_text(), "p<0.001");
        let down = Difference::of(&test, &base);
        assert_eq!(down.verdict(), "-13.0%");
    }

    #[test]
    fn noise_and_single_repeats_are_no_measurable_difference() {
        let base = Summary::of(&[100.0, 110.0, 90.0]).unwrap();
        let test = Summary::of(&[103.0, 93.0, 112.0]).unwrap();
        let d = Difference::of(&base, &test);
        assert!(!d.is_measurable());
        assert_eq!(d.verdict(), "no measurable difference");
        assert!(d.p_text().starts_with("p=0."), "{}", d.p_text());

        let one = Summary::of(&[100.0]).unwrap();
        let far = Summary::of(&[200.0]).unwrap();
        let d = Difference::of(&one, &far);
        assert_eq!(d.welch, None);
        assert_eq!(d.verdict(), "no measurable difference");
        assert_eq!(d.p_text(), "n<2");
    }

    #[test]
    fn samples_without_spread() {
        let a = Summary::of(&[5.0, 5.0, 5.0]).unwrap();
        let b = Summary::of(&[6.0, 6.0]).unwrap();
        assert_eq!(welch_t_test(&a, &a).unwrap().p, 1.0);
        let w = welch_t_test(&a, &b).unwrap();
        assert_eq!((w.t, w.p), (f64::INFINITY, 0.0));
        assert_eq!(Difference::of(&a, &b).verdict(), "+20.0%");
        let zero = Summary::of(&[0.0, 0.0]).unwrap();
        assert_eq!(
            Difference::of(&zero, &b).verdict(),
            "changed (base mean is 0)"
        );
    }
}
