//! When a prediction agrees with a measurement, one rule for every figure `predict --check` scores
//! (a paced point's net cost, a flat-out strategy's hand-overs/s): inside the measured 95% CI and
//! within ±[`AGREEMENT_PCT`] of the measured figure.

use crate::stats::SPREAD_REPEATS;

/// How far from the measured figure, %, a prediction may be and agree.
pub const AGREEMENT_PCT: f64 = 25.0;

/// What a check can say of one prediction against its measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agreement {
    /// Inside the measured 95% CI and within ±[`AGREEMENT_PCT`].
    Agrees,
    /// Outside either, or no finite error.
    Disagrees,
    /// Within ±[`AGREEMENT_PCT`], but measured in one repeat: no interval to judge by, so neither.
    OneRepeat,
}

impl Agreement {
    /// What a check table prints: `yes`, `no`, or `1 repeat`.
    pub fn word(self) -> &'static str {
        match self {
            Agreement::Agrees => "yes",
            Agreement::Disagrees => "no",
            Agreement::OneRepeat => "1 repeat",
        }
    }
}

/// How far `predicted` is off `measured`, %; at a measured 0, 0 when the two are equal, else none.
pub fn off_pct(predicted: f64, measured: f64) -> Option<f64> {
    let d = (predicted - measured).abs();
    if measured > 0.0 {
        Some(100.0 * d / measured)
    } else {
        (d == 0.0).then_some(0.0)
    }
}

/// Whether `predicted` agrees with a figure measured over `repeats` (95% CI `ci`, `error_pct` off):
/// outside ±[`AGREEMENT_PCT`] (or not predicted) it disagrees; inside, it agrees when inside a `ci`
/// with spread.
pub fn agreement(
    predicted: Option<f64>,
    [lo, hi]: [f64; 2],
    error_pct: Option<f64>,
    repeats: usize,
) -> Agreement {
    let Some(predicted) = predicted else {
        return Agreement::Disagrees;
    };
    if !error_pct.is_some_and(|e| e <= AGREEMENT_PCT) {
        Agreement::Disagrees
    } else if repeats < SPREAD_REPEATS {
        Agreement::OneRepeat
    } else if (lo..=hi).contains(&predicted) {
        Agreement::Agrees
    } else {
        Agreement::Disagrees
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_needs_the_ci_and_the_margin_and_more_than_one_repeat() {
        use Agreement::{Agrees, Disagrees, OneRepeat};
        for (predicted, ci, error_pct, repeats, want) in [
            (110.0, [90.0, 120.0], Some(10.0), 5, Agrees),
            // 25% is within; a hair more is not.
            (125.0, [90.0, 130.0], Some(25.0), 5, Agrees),
            (125.0, [90.0, 130.0], Some(25.01), 5, Disagrees),
            // Inside the margin but outside the CI, at either end; the CI's ends are inside.
            (110.0, [90.0, 109.9], Some(10.0), 5, Disagrees),
            (89.0, [89.1, 109.9], Some(10.0), 5, Disagrees),
            (90.0, [90.0, 110.0], Some(10.0), 5, Agrees),
            // No finite error never agrees.
            (100.0, [90.0, 110.0], None, 5, Disagrees),
            // 100 predicted against 105 measured once: its CI is [105, 105], which says nothing,
            // so neither yes nor no; two repeats decide. Beyond the margin one repeat says no.
            (100.0, [105.0, 105.0], Some(4.8), 1, OneRepeat),
            (100.0, [105.0, 105.0], Some(4.8), 2, Disagrees),
            (105.0, [105.0, 105.0], Some(0.0), 1, OneRepeat),
            (150.0, [105.0, 105.0], Some(42.9), 1, Disagrees),
            (100.0, [105.0, 105.0], None, 1, Disagrees),
        ] {
            let got = agreement(Some(predicted), ci, error_pct, repeats);
            assert_eq!(got, want, "{predicted} {ci:?} {error_pct:?} {repeats}");
        }
        // Nothing predicted never agrees, whatever the error and repeats say.
        for repeats in [1, 5] {
            let got = agreement(None, [90.0, 110.0], Some(0.0), repeats);
            assert_eq!(got, Disagrees, "{repeats}");
        }
        let words = [Agrees, Disagrees, OneRepeat].map(Agreement::word);
        assert_eq!(words, ["yes", "no", "1 repeat"]);
    }
}
