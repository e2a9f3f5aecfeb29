//! When a prediction agrees with a measurement, one rule for every figure
//! `predict --check` scores (a paced point's net cost, a flat-out
//! strategy's hand-overs/s): inside the measured 95% CI and within
//! ±[`AGREEMENT_PCT`] of the measured figure.

/// How far from the measured figure, %, a prediction may be and agree
/// (besides lying inside the measured 95% CI).
pub const AGREEMENT_PCT: f64 = 25.0;

/// `predicted` lies inside `ci` and its error (% of the measured figure;
/// `None` when it has no finite one) is within ±[`AGREEMENT_PCT`].
pub fn agrees(predicted: f64, ci: [f64; 2], error_pct: Option<f64>) -> bool {
    let [lo, hi] = ci;
    (lo..=hi).contains(&predicted) && error_pct.is_some_and(|e| e <= AGREEMENT_PCT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_needs_the_ci_and_the_margin() {
        assert!(agrees(110.0, [90.0, 120.0], Some(10.0)));
        // 25% is within; a hair more is not.
        assert!(agrees(125.0, [90.0, 130.0], Some(25.0)));
        assert!(!agrees(125.0, [90.0, 130.0], Some(25.01)));
        // Inside the margin but outside the CI, at either end.
        assert!(!agrees(110.0, [90.0, 109.9], Some(10.0)));
        assert!(!agrees(89.0, [89.1, 109.9], Some(10.0)));
        // The CI's ends are inside.
        assert!(agrees(90.0, [90.0, 110.0], Some(10.0)));
        // No finite error never agrees.
        assert!(!agrees(100.0, [90.0, 110.0], None));
    }
}
