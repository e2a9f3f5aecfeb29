//! The mean of a measure adjusted for two covariates (regression
//! adjustment): what the measure would average were both covariates at a
//! given point, with its 95% interval, by least squares.

use super::{Summary, t_quantile_975};

/// The mean of `y` with both covariates at `at`: the intercept of the
/// least-squares fit `y = μ + β₁·(x₁ − at₁) + β₂·(x₂ − at₂)` over the
/// pairs `x`, in `y`'s unit. What it is for: a difference measured repeat
/// by repeat that also moves with something measured beside it (each
/// side's line cost, in the runner's paired comparisons); where that
/// something averages `at` on both sides, the adjusted mean estimates the
/// same difference as the plain mean, with what the covariates explain
/// taken out of its spread.
///
/// Returned as the [`Summary`] of `y.len()` values whose mean is `μ` and
/// whose 95% interval (Student's t with n − 1 degrees of freedom, as every
/// `Summary`) equals the fit's: `t(n − 3) · σ · √(1/n + d'S⁻¹d)`, σ² the
/// residuals' sum of squares over n − 3, `d` the covariates' means less
/// `at`, `S` their centred cross-products. The values are `μ` plus each
/// residual scaled to that width, so a paired t-test of the summary tests
/// `μ`. `None` under five values, when `x` and `y` differ in length, or
/// when a covariate is constant or the two move together exactly (the fit
/// has no answer).
pub fn adjusted_mean(y: &[f64], x: &[[f64; 2]], at: [f64; 2]) -> Option<Summary> {
    let n = y.len();
    if n < 5 || x.len() != n {
        return None;
    }
    let nf = n as f64;
    let mean = |v: &dyn Fn(usize) -> f64| (0..n).map(v).sum::<f64>() / nf;
    let (my, m1, m2) = (mean(&|i| y[i]), mean(&|i| x[i][0]), mean(&|i| x[i][1]));
    let sum = |v: &dyn Fn(usize) -> f64| (0..n).map(v).sum::<f64>();
    let s11 = sum(&|i| (x[i][0] - m1).powi(2));
    let s22 = sum(&|i| (x[i][1] - m2).powi(2));
    // A centred cross-product needs one side centred: the other's mean
    // times a sum of deviations is 0.
    let s12 = sum(&|i| (x[i][0] - m1) * x[i][1]);
    let s1y = sum(&|i| (x[i][0] - m1) * y[i]);
    let s2y = sum(&|i| (x[i][1] - m2) * y[i]);
    let det = s11 * s22 - s12 * s12;
    // Constant or collinear covariates (and NaN) leave no fit.
    if det.is_nan() || det <= 1e-12 * s11 * s22 {
        return None;
    }
    let b1 = (s22 * s1y - s12 * s2y) / det;
    let b2 = (s11 * s2y - s12 * s1y) / det;
    let (d1, d2) = (m1 - at[0], m2 - at[1]);
    let mu = my - b1 * d1 - b2 * d2;
    let residuals: Vec<f64> = (0..n)
        .map(|i| (y[i] - my) - b1 * (x[i][0] - m1) - b2 * (x[i][1] - m2))
        .collect();
    let sse: f64 = residuals.iter().map(|e| e * e).sum();
    let q = (s22 * d1 * d1 - 2.0 * s12 * d1 * d2 + s11 * d2 * d2) / det;
    let half = t_quantile_975(nf - 3.0) * (sse / (nf - 3.0) * (1.0 / nf + q)).sqrt();
    // Residuals scaled so that Summary's own interval, t(n − 1) · sd /
    // √n, is `half`.
    let spread = t_quantile_975(nf - 1.0) * (sse / (nf - 1.0)).sqrt() / nf.sqrt();
    let scale = if spread > 0.0 { half / spread } else { 0.0 };
    let values: Vec<f64> = residuals.iter().map(|e| mu + scale * e).collect();
    Summary::of(&values)
}

#[cfg(test)]
mod tests {
    use super::*;

    // y = 5 + 0.9 (x1 − 60) − 0.1 (x2 − 60) + noise.
    const X: [[f64; 2]; 10] = [
        [60.0, 59.0],
        [62.0, 88.0],
        [58.0, 61.0],
        [90.0, 60.0],
        [61.0, 62.0],
        [59.0, 58.0],
        [115.0, 60.0],
        [63.0, 116.0],
        [57.0, 61.0],
        [60.0, 59.0],
    ];
    const NOISE: [f64; 10] = [0.5, -1.2, 0.3, 0.8, -0.4, 1.1, -0.7, 0.2, -0.9, 0.3];

    fn y() -> Vec<f64> {
        X.iter()
            .zip(NOISE)
            .map(|(x, e)| 5.0 + 0.9 * (x[0] - 60.0) - 0.1 * (x[1] - 60.0) + e)
            .collect()
    }

    #[test]
    fn the_adjusted_mean_and_its_interval_match_a_fit_done_another_way() {
        // Worked independently (Python, the uncentred 3×3 normal
        // equations by Gaussian elimination, SE² = σ² (X'X)⁻¹₀₀): the
        // intercept at (60, 60) is 5.131 059, its standard error 0.325 484.
        let s = adjusted_mean(&y(), &X, [60.0, 60.0]).unwrap();
        assert_eq!(s.n, 10);
        assert!((s.mean - 5.131_059).abs() < 1e-5, "{s:?}");
        let se = (s.ci95_high - s.mean) / t_quantile_975(7.0);
        assert!((se - 0.325_484).abs() < 1e-5, "{se}");
        // The plain mean is far off: the covariates averaged 68.5 and 68.4.
        let plain = Summary::of(&y()).unwrap();
        assert!((plain.mean - 11.81).abs() < 1e-9, "{plain:?}");
        assert!(plain.ci95_high - plain.mean > 10.0 * (s.ci95_high - s.mean));
    }

    #[test]
    fn an_exact_fit_has_a_zero_width_interval_and_a_degenerate_one_none() {
        let exact: Vec<f64> = X
            .iter()
            .map(|x| 2.0 + 1.5 * (x[0] - 60.0) + 0.5 * (x[1] - 60.0))
            .collect();
        let s = adjusted_mean(&exact, &X, [60.0, 60.0]).unwrap();
        assert!(
            (s.mean - 2.0).abs() < 1e-9 && s.ci95_high - s.mean < 1e-9,
            "{s:?}"
        );
        // A constant covariate, covariates moving together, too few values,
        // lengths that differ.
        let flat: Vec<[f64; 2]> = X.iter().map(|x| [x[0], 60.0]).collect();
        assert_eq!(adjusted_mean(&y(), &flat, [60.0, 60.0]), None);
        let twins: Vec<[f64; 2]> = X.iter().map(|x| [x[0], 2.0 * x[0]]).collect();
        assert_eq!(adjusted_mean(&y(), &twins, [60.0, 60.0]), None);
        assert_eq!(adjusted_mean(&y()[..4], &X[..4], [60.0, 60.0]), None);
        // Five values are enough: two degrees of freedom left.
        assert_eq!(
            adjusted_mean(&y()[..5], &X[..5], [60.0, 60.0]).map(|s| s.n),
            Some(5)
        );
        assert_eq!(adjusted_mean(&y(), &X[..9], [60.0, 60.0]), None);
    }
}
