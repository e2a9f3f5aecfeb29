//! The mean of a measure adjusted for two covariates drawn alike
//! (regression adjustment): what the measure would average were both at
//! their common mean, with its 95% interval, by least squares.

use super::summary::percent_of;
use super::{Summary, t_quantile_975};

/// The mean of `y` with both covariates at their pooled mean `m`, fit `y = μ + β₁·(x₁ − m) + β₂·(x₂
/// − m)` by least squares, with its 95% interval (docs/evidence.md); `None` under five values.
pub fn adjusted_mean(y: &[f64], x: &[[f64; 2]]) -> Option<Summary> {
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
    let m = (m1 + m2) / 2.0;
    let (d1, d2) = (m1 - m, m2 - m);
    let mu = my - b1 * d1 - b2 * d2;
    let residuals: Vec<f64> = (0..n)
        .map(|i| (y[i] - my) - b1 * (x[i][0] - m1) - b2 * (x[i][1] - m2))
        .collect();
    let sse: f64 = residuals.iter().map(|e| e * e).sum();
    let q = (s22 * d1 * d1 - 2.0 * s12 * d1 * d2 + s11 * d2 * d2) / det;
    // The variance of m: each pair's mean varies by v.
    let v = sum(&|i| ((x[i][0] + x[i][1]) / 2.0 - m).powi(2)) / (nf - 1.0);
    let variance = sse / (nf - 3.0) * (1.0 / nf + q) + (b1 + b2).powi(2) * v / nf;
    let half = t_quantile_975(nf - 3.0) * variance.sqrt();
    // The spread Summary's own interval, t(n − 1) · sd / √n, makes `half`;
    // min and max are each repeat's value adjusted, μ plus its residual.
    let stddev = half * nf.sqrt() / t_quantile_975(nf - 1.0);
    let extreme = |pick: fn(f64, f64) -> f64| residuals.iter().fold(0.0, |a, &e| pick(a, e));
    Some(Summary {
        n,
        mean: mu,
        stddev,
        stddev_pct: percent_of(stddev, mu),
        ci95_low: mu - half,
        ci95_high: mu + half,
        min: mu + extreme(f64::min),
        max: mu + extreme(f64::max),
    })
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
        // Worked independently (Python: the uncentred 3×3 normal
        // equations at the pooled mean 68.45 by Gaussian elimination, SE²
        // = σ² (X'X)⁻¹₀₀ + (β₁ + β₂)² v / n): 11.759 850, its standard
        // error 3.070 604, of which the fit alone is 0.263 859.
        let s = adjusted_mean(&y(), &X).unwrap();
        assert_eq!(s.n, 10);
        assert!((s.mean - 11.759_850).abs() < 1e-5, "{s:?}");
        let se = (s.ci95_high - s.mean) / t_quantile_975(7.0);
        assert!((se - 3.070_604).abs() < 1e-5, "{se}");
        let low = s.mean - 3.070_604 * t_quantile_975(7.0);
        assert!((s.ci95_low - low).abs() < 1e-4, "{s:?}");
        // Its stddev is what a paired t-test of the summary reads the same
        // interval from: t(9) · sd / √10 is that half-width, 7.260 825
        // (t(7) = 2.364 624 times 3.070 604), and its percent of the mean.
        let half = t_quantile_975(9.0) * s.stddev / 10f64.sqrt();
        assert!((half - 7.260_825).abs() < 1e-4, "{half}");
        let pct = 100.0 * s.stddev / s.mean;
        assert!((s.stddev_pct - pct).abs() < 1e-9, "{s:?}");
        // The covariates in µs rather than ns: the same fit, the same
        // interval (no threshold hangs on their scale).
        let micro: Vec<[f64; 2]> = X.iter().map(|x| [x[0] / 1e3, x[1] / 1e3]).collect();
        let same = adjusted_mean(&y(), &micro).unwrap();
        assert!((same.mean - s.mean).abs() < 1e-9, "{same:?}");
        assert!((same.ci95_high - s.ci95_high).abs() < 1e-9, "{same:?}");
        // The values are the residuals scaled, sign kept: the largest
        // (0.944 153) over the smallest's size (1.059 237), 0.891 352.
        let ratio = (s.max - s.mean) / (s.mean - s.min);
        assert!((ratio - 0.891_352).abs() < 1e-5, "{ratio}");
        // Slopes that cancel (each side's line moves its own figure
        // alike): the pooled mean no longer matters, and what the lines
        // explain leaves the spread. Worked the same way: 2.999 850,
        // standard error 0.270 718, where the plain mean's is 7.29.
        // Fitted on y = 3 + 0.8 (x₁ − x₂) + noise: the mean and its
        // standard error.
        let fit = |x: &[[f64; 2]]| {
            let y: Vec<f64> = x
                .iter()
                .zip(NOISE)
                .map(|(x, e)| 3.0 + 0.8 * (x[0] - x[1]) + e)
                .collect();
            let s = adjusted_mean(&y, x).unwrap();
            (s.mean, (s.ci95_high - s.mean) / t_quantile_975(7.0), y)
        };
        let (mean, se, cancel) = fit(&X);
        assert!((mean - 2.999_850).abs() < 1e-5, "{mean}");
        assert!((se - 0.270_718).abs() < 1e-5, "{se}");
        let plain = Summary::of(&cancel).unwrap();
        let plain_se = (plain.ci95_high - plain.mean) / t_quantile_975(9.0);
        assert!((plain_se - 7.290_691).abs() < 1e-5, "{plain_se}");
        // The second covariate 20 ns dearer throughout: the pooled mean,
        // 78.45, lies 9.95 from each side's, so the fit's own doubt grows
        // (d'S⁻¹d). Worked the same way: 3.029 779, standard error
        // 0.332 189.
        let shifted: Vec<[f64; 2]> = X.iter().map(|x| [x[0], x[1] + 20.0]).collect();
        let (mean, se, _) = fit(&shifted);
        assert!((mean - 3.029_779).abs() < 1e-5, "{mean}");
        assert!((se - 0.332_189).abs() < 1e-5, "{se}");
    }

    #[test]
    fn an_exact_fit_keeps_the_pooled_means_doubt_and_a_degenerate_one_none() {
        // No noise: at the pooled mean 68.45 the fit is 2 + 2 × 8.45 =
        // 18.9 exactly, and only the pooled mean's doubt is left: 2 √(v /
        // n) = 7.799 501.
        let exact: Vec<f64> = X
            .iter()
            .map(|x| 2.0 + 1.5 * (x[0] - 60.0) + 0.5 * (x[1] - 60.0))
            .collect();
        let s = adjusted_mean(&exact, &X).unwrap();
        assert!((s.mean - 18.9).abs() < 1e-9, "{s:?}");
        let se = (s.ci95_high - s.mean) / t_quantile_975(7.0);
        assert!((se - 7.799_501).abs() < 1e-5, "{se}");
        // Residuals exactly 0 (small integers, eight values, slopes 2 and
        // 4): the values are the mean ± one spread alternately, the
        // interval the pooled mean's doubt alone, 6 √(v / 8) = 5.102 520.
        let (x1, x2) = (
            [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
            [0.0, 2.0, 1.0, 3.0, 5.0, 4.0, 7.0, 6.0],
        );
        let x: Vec<[f64; 2]> = x1.iter().zip(x2).map(|(&a, b)| [a, b]).collect();
        let linear: Vec<f64> = x.iter().map(|x| 1.0 + 2.0 * x[0] + 4.0 * x[1]).collect();
        let s = adjusted_mean(&linear, &x).unwrap();
        assert_eq!(s.mean, 22.0);
        let se = (s.ci95_high - s.mean) / t_quantile_975(5.0);
        assert!((se - 5.102_520).abs() < 1e-5, "{se}");
        assert!((s.max - s.mean - (s.mean - s.min)).abs() < 1e-9, "{s:?}");
        // A constant covariate, covariates moving together, too few values,
        // lengths that differ.
        let flat: Vec<[f64; 2]> = X.iter().map(|x| [x[0], 60.0]).collect();
        assert_eq!(adjusted_mean(&y(), &flat), None);
        let twins: Vec<[f64; 2]> = X.iter().map(|x| [x[0], 2.0 * x[0]]).collect();
        assert_eq!(adjusted_mean(&y(), &twins), None);
        // Nearly twins (apart by 10 fs): no fit either.
        let near: Vec<[f64; 2]> = X
            .iter()
            .enumerate()
            .map(|(i, x)| [x[0], 2.0 * x[0] + 1e-5 * (i % 3) as f64])
            .collect();
        assert_eq!(adjusted_mean(&y(), &near), None);
        assert_eq!(adjusted_mean(&y()[..4], &X[..4]), None);
        assert_eq!(adjusted_mean(&y(), &X[..9]), None);
        // Five values are enough: two degrees of freedom left.
        assert_eq!(adjusted_mean(&y()[..5], &X[..5]).map(|s| s.n), Some(5));
    }
}
