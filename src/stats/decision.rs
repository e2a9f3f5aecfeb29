//! What a difference amounts to: a change, no change, or too little data
//! to tell, given a noise threshold and a p-value corrected for the
//! number of tests made (Holm–Bonferroni).

use super::Summary;
use super::significance::{CONFIDENCE_LEVEL, Difference, SIGNIFICANCE_LEVEL};

/// The noise threshold: a difference within it is "no change"; % of the base mean with an absolute
/// floor in ns for a cost per update, written `2%,1ns` (`--noise-threshold`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoiseThreshold {
    /// % of the base mean, ≥ 0.
    pub pct: f64,
    /// ns per update, ≥ 0: the practical threshold of a cost per update.
    pub ns: f64,
}

/// The default noise threshold: ±2%, and 1 ns per update.
pub const NOISE_THRESHOLD: NoiseThreshold = NoiseThreshold { pct: 2.0, ns: 1.0 };

/// A `--noise-threshold` that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "\"{0}\" is not a noise threshold: a percentage and/or ns per update of 0 or more, such as 2%,1ns, 0.5% or 2ns"
)]
pub struct NoiseThresholdError(String);

impl std::str::FromStr for NoiseThreshold {
    type Err = NoiseThresholdError;
    /// `2%,1ns`, `0.5%` (the ns left at its default), `2ns`, or a bare
    /// number, a percentage (`2`).
    fn from_str(s: &str) -> Result<Self, NoiseThresholdError> {
        let bad = || NoiseThresholdError(s.to_string());
        let mut t = NOISE_THRESHOLD;
        let (mut pct_seen, mut ns_seen) = (false, false);
        for part in s.split(',') {
            let part = part.trim();
            let (number, ns) = match part.strip_suffix("ns") {
                Some(n) => (n, true),
                None => (part.strip_suffix('%').unwrap_or(part), false),
            };
            let v = number.trim().parse::<f64>().ok();
            let v = v.filter(|v| v.is_finite() && *v >= 0.0).ok_or_else(bad)?;
            let seen = if ns { &mut ns_seen } else { &mut pct_seen };
            if std::mem::replace(seen, true) {
                return Err(bad());
            }
            if ns { t.ns = v } else { t.pct = v }
        }
        Ok(t)
    }
}

impl std::fmt::Display for NoiseThreshold {
    /// `±2% (costs per update: ±1 ns)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "±{}% (costs per update: ±{} ns)", self.pct, self.ns)
    }
}

/// The threshold one difference is decided at: `pct` of its base mean,
/// and at least `abs` in its measure's unit (0: none).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Threshold {
    /// % of the base mean.
    pub pct: f64,
    /// In the measure's unit (ns, % of a CPU); 0 for none.
    pub abs: f64,
}

impl Threshold {
    /// `pct` of the base mean, with no absolute floor.
    pub const fn relative(pct: f64) -> Self {
        Threshold { pct, abs: 0.0 }
    }

    /// The threshold in % of `base`: the larger of `pct` and `abs` as a
    /// percentage of it (`pct` alone when `base` is 0 or below).
    pub fn pct_of(self, base: f64) -> f64 {
        if base > 0.0 {
            self.pct.max(100.0 * self.abs / base)
        } else {
            self.pct
        }
    }

    /// True when the absolute floor is what bounds a difference from
    /// `base`: it lies above `pct` of it (or there is no percentage).
    pub fn absolute_at(self, base: f64) -> bool {
        self.abs > 0.0 && (base <= 0.0 || 100.0 * self.abs / base > self.pct)
    }
}

/// One difference tested and decided, as [`decide_paired`] returns it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// Test against base: the change, its 95% interval and Welch's test.
    pub difference: Difference,
    /// Welch's p-value, Holm-adjusted over the family it was decided in
    /// (`None`: fewer than two repeats on a side, no test).
    pub p_adjusted: Option<f64>,
    /// The rule's decision ([`Decision::of`]).
    pub decision: Decision,
    /// The threshold it was decided at.
    pub threshold: Threshold,
}

/// One difference for [`decide_paired`]: both sides' repeats, its threshold, and the summary of the
/// per-repeat differences (`test − base`) where both ran in the same repeats.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Compared {
    /// The base side's repeats.
    pub base: Summary,
    /// The test side's repeats.
    pub test: Summary,
    /// `test − base` repeat by repeat, where both ran in the same repeats.
    pub paired: Option<Summary>,
    /// The threshold the difference is decided at.
    pub threshold: Threshold,
}

/// The comparison engine: each difference tested (the paired t-test where both sides ran in the
/// same repeats, else Welch's), every p-value Holm-adjusted together, each decided at its
/// threshold, in order.
pub fn decide_paired(family: &[Compared]) -> Vec<Outcome> {
    let differences: Vec<(Difference, Threshold)> = family
        .iter()
        .map(|c| {
            let d = match &c.paired {
                Some(d) => Difference::paired(&c.base, d),
                None => Difference::of(&c.base, &c.test),
            };
            (d, c.threshold)
        })
        .collect();
    decide_differences(&differences)
}

/// The end of every decision: the p-values of `family` that have a test Holm-adjusted together,
/// then each difference decided at its threshold ([`Decision::of`]).
pub fn decide_differences(family: &[(Difference, Threshold)]) -> Vec<Outcome> {
    let raw: Vec<f64> = family
        .iter()
        .filter_map(|(d, _)| d.welch)
        .map(|w| w.p)
        .collect();
    let mut adjusted = holm_adjusted(&raw).into_iter();
    family
        .iter()
        .map(|&(difference, threshold)| {
            let p_adjusted = difference
                .welch
                .map(|_| adjusted.next().expect("one per test"));
            Outcome {
                difference,
                p_adjusted,
                decision: Decision::of(&difference, threshold, p_adjusted.unwrap_or(1.0)),
                threshold,
            }
        })
        .collect()
}

impl Outcome {
    /// True for "no practical difference": no change where the threshold is the absolute floor (ns
    /// per update) rather than the percentage.
    pub fn practically_none(&self) -> bool {
        self.decision == Decision::NoChange && self.threshold.absolute_at(self.difference.base_mean)
    }

    /// True when the whole 95% interval lies beyond the threshold on one
    /// side (what a change needs besides significance).
    pub fn beyond_threshold(&self) -> bool {
        let d = &self.difference;
        let (interval, t) = match (d.ci95_pct, d.welch) {
            (Some(ci), _) => (ci, self.threshold.pct_of(d.base_mean)),
            (None, Some(w)) => (w.interval(CONFIDENCE_LEVEL), self.threshold.abs),
            (None, None) => return false,
        };
        interval.0 > t || interval.1 < -t
    }

    /// The decision in words for a measure better `direction`: `faster`/`slower`,
    /// `cheaper`/`dearer`, `higher`/`lower`, `no change` or `inconclusive`.
    pub fn word(&self, direction: Direction) -> &'static str {
        match (self.decision, direction) {
            (Decision::NoChange, _) if self.practically_none() => "no practical difference",
            (Decision::NoChange, _) => "no change",
            (Decision::Inconclusive, _) => "inconclusive",
            (Decision::Increase, Direction::HigherIsBetter) => "faster",
            (Decision::Decrease, Direction::HigherIsBetter) => "slower",
            (Decision::Increase, Direction::LowerIsBetter) => "dearer",
            (Decision::Decrease, Direction::LowerIsBetter) => "cheaper",
            (Decision::Increase, Direction::Neither) => "higher",
            (Decision::Decrease, Direction::Neither) => "lower",
        }
    }

    /// The change of the means and its 95% interval (`+15.0% [+13.1%, +16.9%]`); in `unit` when the
    /// base mean is 0 or below; the change alone without a test.
    pub fn change_text(&self, unit: &str) -> String {
        let d = &self.difference;
        match (d.change_pct, d.ci95_pct, d.welch) {
            (Some(change), Some((lo, hi)), _) => {
                let n = percent_decimals(hi - lo);
                format!("{change:+.n$}% [{lo:+.n$}%, {hi:+.n$}%]")
            }
            (Some(change), None, _) => format!("{change:+.1}%"),
            (None, _, Some(w)) => {
                let (lo, hi) = w.interval(CONFIDENCE_LEVEL);
                format!("{:+.2} {unit} [{lo:+.2}, {hi:+.2}]", w.difference)
            }
            (None, _, None) => "no test".to_string(),
        }
    }

    /// The change and the half-width of its 95% interval, for a narrow table (`-80.8 ±4.3%`); in
    /// `unit` when the base is at or below 0.
    pub fn change_pm_text(&self, unit: &str) -> String {
        let d = &self.difference;
        match (d.change_pct, d.ci95_pct, d.welch) {
            (Some(c), Some((lo, hi)), _) => format!("{c:+.1} ±{:.1}%", (hi - lo) / 2.0),
            (Some(c), None, _) => format!("{c:+.1}%"),
            (None, _, Some(w)) => {
                let (lo, hi) = w.interval(CONFIDENCE_LEVEL);
                format!("{:+.2} ±{:.2} {unit}", w.difference, (hi - lo) / 2.0)
            }
            (None, _, None) => "no test".to_string(),
        }
    }

    /// The adjusted p-value as printed: `p<0.001`, `p=0.012`, or `n<2`
    /// when there was no test.
    pub fn p_text(&self) -> String {
        match self.p_adjusted {
            None => "n<2".to_string(),
            Some(p) if p < 0.001 => "p<0.001".to_string(),
            Some(p) => format!("p={p:.3}"),
        }
    }
}

/// Decimals for a percentage whose interval is `width` wide: one past the first significant digit
/// of half the width, between 1 and 3.
fn percent_decimals(width: f64) -> usize {
    let half = width / 2.0;
    if half.is_nan() || half <= 0.0 || half.is_infinite() {
        return 1;
    }
    (1.0 - half.log10().floor()).clamp(1.0, 3.0) as usize
}

/// The decision on one difference. Words are the caller's: for a
/// throughput an increase is "faster", for a latency "higher".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The difference is within the noise threshold.
    NoChange,
    /// The test side is higher, beyond the threshold and beyond doubt.
    Increase,
    /// The test side is lower, beyond the threshold and beyond doubt.
    Decrease,
    /// The data cannot tell (or, with fewer than two repeats on a side,
    /// there was no test).
    Inconclusive,
}

/// Which way a change of a measure is an improvement, if either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Less is better: a cost (ns per update or per read, a CPU share)
    /// or an error (staleness).
    LowerIsBetter,
    /// More is better: a throughput (updates/s, read ops/s).
    HigherIsBetter,
    /// Neither: a figure that moves with throughput or with how the strategy is built, or one that
    /// timing perturbs; its change is shown, never judged.
    Neither,
}

impl Direction {
    /// Whether a change decided `decision` is an improvement: `Some(true)` better, `Some(false)`
    /// worse, `None` when no change is beyond noise and doubt or the measure has no direction.
    pub fn better(self, decision: Decision) -> Option<bool> {
        match (self, decision) {
            (Direction::Neither, _) | (_, Decision::NoChange | Decision::Inconclusive) => None,
            (d, x) => Some((d == Direction::HigherIsBetter) == (x == Decision::Increase)),
        }
    }

    /// The direction in words, as a heading ends: `lower is better`.
    pub fn words(self) -> &'static str {
        match self {
            Direction::LowerIsBetter => "lower is better",
            Direction::HigherIsBetter => "higher is better",
            Direction::Neither => "neither way is better",
        }
    }
}

impl Decision {
    /// The rule, `[lo, hi]` the 95% interval, `T` the threshold: a change by sign if `p < 0.05` and
    /// `lo > T` or `hi < -T`; no change only within `[-T, T]`; else inconclusive.
    pub fn of(difference: &Difference, threshold: Threshold, p_adjusted: f64) -> Decision {
        let Some(welch) = difference.welch else {
            return Decision::Inconclusive;
        };
        match difference.ci95_pct {
            Some(ci) => Decision::rule(ci, threshold.pct_of(difference.base_mean), p_adjusted),
            None => Decision::rule(welch.interval(CONFIDENCE_LEVEL), threshold.abs, p_adjusted),
        }
    }

    /// The rule of [`Decision::of`] on bare numbers: the interval `(lo, hi)` and threshold `T ≥ 0`
    /// in one unit, and the adjusted p-value.
    pub fn rule((lo, hi): (f64, f64), threshold: f64, p_adjusted: f64) -> Decision {
        let significant = p_adjusted < SIGNIFICANCE_LEVEL;
        if significant && lo > threshold {
            Decision::Increase
        } else if significant && hi < -threshold {
            Decision::Decrease
        } else if -threshold <= lo && hi <= threshold {
            Decision::NoChange
        } else {
            Decision::Inconclusive
        }
    }
}

/// Holm–Bonferroni adjusted p-values in the order given: the i-th smallest (from 0) of m becomes
/// `min(1, max over j <= i of (m - j) · p_(j))`; a `NaN` counts as 1.
pub fn holm_adjusted(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let clean = |x: f64| if x.is_nan() { 1.0 } else { x.clamp(0.0, 1.0) };
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| clean(p[a]).total_cmp(&clean(p[b])));
    let mut adjusted = vec![0.0; m];
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * clean(p[i])).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Summary;
    use Decision::*;
    use Direction::{HigherIsBetter, LowerIsBetter, Neither};

    const R2: Threshold = Threshold::relative(2.0);
    const FLOOR1: Threshold = Threshold { pct: 2.0, abs: 1.0 };

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
    }

    fn s(values: &[f64]) -> Summary {
        Summary::of(values).unwrap()
    }

    /// Each `(base, test, threshold)` tested by Welch's t-test and decided in one family.
    fn decide(family: &[(Summary, Summary, Threshold)]) -> Vec<Outcome> {
        let welch = |&(base, test, threshold)| Compared {
            base,
            test,
            paired: None,
            threshold,
        };
        decide_paired(&family.iter().map(welch).collect::<Vec<_>>())
    }

    fn one(base: Summary, test: Summary, t: Threshold) -> Outcome {
        decide(&[(base, test, t)])[0]
    }

    #[test]
    fn holm_by_hand() {
        // Sorted: 0.005×4 = 0.02, 0.01×3 = 0.03, 0.03×2 = 0.06,
        // 0.04×1 = 0.04 → raised to the running maximum, 0.06.
        // Then capped at 1, ties, NaN as 1, empty.
        let rows: [(&[f64], &[f64]); 5] = [
            (&[0.01, 0.04, 0.03, 0.005], &[0.03, 0.06, 0.06, 0.02]),
            (&[0.5, 0.5, f64::NAN], &[1.0, 1.0, 1.0]),
            (&[0.001, 0.001], &[0.002, 0.002]),
            (&[0.2], &[0.2]),
            (&[], &[]),
        ];
        for (p, want) in rows {
            let adj = holm_adjusted(p);
            assert!(close(&adj, want), "{p:?}: {adj:?}");
        }
    }

    #[test]
    fn holm_keeps_the_familywise_error_near_alpha() {
        // 36 strategies × 4 measures of identical noise: uniform p-values.
        // Raw, about 7 would be below 0.05; adjusted, none of these.
        // The smallest, 1/145, adjusts to 144/145; the rest to more.
        let p: Vec<f64> = (1..=144).map(|i| i as f64 / 145.0).collect();
        let adj = holm_adjusted(&p);
        assert!((adj[0] - 144.0 / 145.0).abs() < 1e-12, "{}", adj[0]);
        assert!(adj.iter().all(|&x| x >= 0.05));
        // Two small p-values among 144: Holm multiplies the smallest by
        // 144 (0.0432) and the next by 143 (0.0572), where Bonferroni
        // would multiply both by 144 (0.0576) and a no-op would keep
        // 0.0003 and 0.0004. The other 142 (>= 0.5, times >= 2, and the
        // running maximum) adjust to 1.
        let mut p = vec![0.0003, 0.0004];
        p.extend((0..142).map(|i| 0.5 + i as f64 / 1000.0));
        let adj = holm_adjusted(&p);
        assert!(close(&adj[..2], &[0.0432, 0.0572]), "{adj:?}");
        assert!(adj[2..].iter().all(|&x| x == 1.0), "{adj:?}");
        assert_eq!(adj.iter().filter(|&&x| x < 0.05).count(), 1);
    }

    #[test]
    fn the_rule_on_bare_numbers_and_at_each_boundary() {
        // (interval, threshold, p, decision), the threshold 2 unless said.
        let rows = [
            // Beyond the threshold and significant: a change, by sign.
            ((13.1, 16.9), 2.0, 0.001, Increase),
            ((-16.9, -13.1), 2.0, 0.001, Decrease),
            // Significant but inside the band: no change, whatever p says.
            ((0.011, 0.029), 2.0, 1e-4, NoChange),
            ((-1.99, -1.8), 2.0, 1e-9, NoChange),
            // Not significant, the point estimate small, but the interval
            // wide: it shows nothing, so inconclusive, never no change.
            ((-9.0, 10.0), 2.0, 0.8, Inconclusive),
            ((-13.6, 16.5), 2.0, 1.0, Inconclusive),
            // Reaches across the threshold: inconclusive.
            ((1.0, 5.0), 2.0, 0.001, Inconclusive),
            ((1.0, 2.5), 2.0, 0.001, Inconclusive),
            ((-3.0, 13.0), 2.0, 0.3, Inconclusive),
            // Beyond the band but not significant after correction.
            ((3.0, 7.0), 2.0, 0.06, Inconclusive),
            // A threshold of 0 is the plain test.
            ((0.05, 0.15), 0.0, 0.01, Increase),
            ((0.0, 0.0), 0.0, 1.0, NoChange),
            ((-0.05, 0.25), 0.0, 0.2, Inconclusive),
            // p exactly 0.05 is not below the level: not significant.
            ((3.0, 7.0), 2.0, 0.05, Inconclusive),
            ((3.0, 7.0), 2.0, 0.049, Increase),
            // An interval that starts exactly at +T (or ends at -T) does not
            // lie wholly beyond it.
            ((2.0, 4.0), 2.0, 0.001, Inconclusive),
            ((-4.0, -2.0), 2.0, 0.001, Inconclusive),
            ((-4.0, -2.1), 2.0, 0.001, Decrease),
            // An interval reaching exactly ±T lies within [-T, T], whatever p.
            ((-2.0, 1.0), 2.0, 0.001, NoChange),
            ((-1.0, 2.0), 2.0, 0.9, NoChange),
            ((-2.0, 2.0), 2.0, 1.0, NoChange),
            // Just past ±T on either end, not significant: inconclusive.
            ((-2.01, 1.0), 2.0, 0.5, Inconclusive),
            ((-1.0, 2.01), 2.0, 0.5, Inconclusive),
            // Significant, interval across -T: inconclusive.
            ((-3.0, 1.0), 2.0, 0.001, Inconclusive),
        ];
        for (ci, t, p, want) in rows {
            assert_eq!(Decision::rule(ci, t, p), want, "{ci:?} at {t}, p {p}");
        }
    }

    #[test]
    fn each_decision_has_one_word_per_direction() {
        let base = summary(10, 100.0, 1.0);
        let (up, down) = (summary(10, 110.0, 1.0), summary(10, 90.0, 1.0));
        // Pinned inside ±2%: no change; inside a 5 ns floor on 100 ns (5%),
        // where the floor bounds: no practical difference. A wide interval:
        // inconclusive in every direction.
        let (same, wide) = (summary(10, 100.2, 1.0), summary(4, 100.5, 20.0));
        let floor = Threshold { pct: 2.0, abs: 5.0 };
        let rows = [
            (up, R2, HigherIsBetter, "faster"),
            (down, R2, HigherIsBetter, "slower"),
            (up, R2, LowerIsBetter, "dearer"),
            (down, R2, LowerIsBetter, "cheaper"),
            (up, R2, Neither, "higher"),
            (down, R2, Neither, "lower"),
            (same, R2, LowerIsBetter, "no change"),
            (same, floor, LowerIsBetter, "no practical difference"),
            (wide, R2, HigherIsBetter, "inconclusive"),
            (wide, R2, LowerIsBetter, "inconclusive"),
            (wide, R2, Neither, "inconclusive"),
        ];
        for (test, t, d, want) in rows {
            assert_eq!(one(base, test, t).word(d), want, "{test:?} {d:?}");
        }
    }

    #[test]
    fn only_a_measure_with_a_direction_calls_a_change_better_or_worse() {
        let rows = [
            (HigherIsBetter, [Some(true), Some(false)]),
            (LowerIsBetter, [Some(false), Some(true)]),
            (Neither, [None, None]),
        ];
        for (d, [up, down]) in rows {
            let got = [Increase, Decrease, NoChange, Inconclusive].map(|x| d.better(x));
            assert_eq!(got, [up, down, None, None], "{d:?}");
        }
    }

    /// An A/A comparison: 96 rows (32 strategies × 3 measures) whose two
    /// sides are 5 repeats drawn from one distribution (mean 100, sd 5,
    /// normal by Box–Muller from a fixed seed), decided in one family as
    /// `contend compare` decides them. Nothing differs, so no row may be
    /// called a change beyond the allowance (≤ 2 of 96), and, the sides
    /// being the same, none may be called a change when each row's test
    /// side is its base.
    #[test]
    fn an_a_a_comparison_of_96_rows_calls_at_most_two_changes() {
        use rand_xoshiro::Xoshiro256PlusPlus;
        use rand_xoshiro::rand_core::{Rng, SeedableRng};
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xA_A);
        let mut uniform = move || ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        let mut normal = move || {
            let (u, v) = (uniform(), uniform());
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        let mut side = || s(&(0..5).map(|_| 100.0 + 5.0 * normal()).collect::<Vec<_>>());
        let family: Vec<_> = (0..96).map(|_| (side(), side(), R2)).collect();
        let count = |family: &[(Summary, Summary, Threshold)], f: fn(Decision) -> bool| {
            decide(family).iter().filter(|o| f(o.decision)).count()
        };
        let change = |d: Decision| matches!(d, Increase | Decrease);
        let calls = count(&family, change);
        assert!(calls <= 2, "{calls} of 96 called a change");
        // With sd 5% over 5 repeats, no interval is narrow enough to lie
        // within ±2%: an honest rule calls most rows inconclusive, where
        // the old rule (a small change, not significant) said no change.
        let inconclusive = count(&family, |d| d == Inconclusive);
        assert!(inconclusive > 90, "{inconclusive}");
        let itself: Vec<_> = family.iter().map(|&(b, _, t)| (b, b, t)).collect();
        assert_eq!(count(&itself, change), 0);
    }

    /// `n` repeats with mean `mean` and sample standard deviation `sd`.
    fn summary(n: usize, mean: f64, sd: f64) -> Summary {
        // Half at mean - a, half at mean + a (n even): sample sd is
        // a·sqrt(n/(n-1)).
        let a = sd * ((n - 1) as f64 / n as f64).sqrt();
        let values: Vec<f64> = (0..n).map(|i| mean + [-a, a][i % 2]).collect();
        let s = s(&values);
        assert!((s.stddev - sd).abs() < 1e-6 * sd.max(1.0), "{s:?}");
        s
    }

    #[test]
    fn the_issue_examples() {
        let base = summary(10, 1e6, 100.0);
        let of =
            |d: &Difference, pct| Decision::of(d, Threshold::relative(pct), d.welch.unwrap().p);
        // +0.02%: p = 0.0006, yet far inside ±2%; with no threshold it is a
        // (tiny) change.
        let tiny = Difference::of(&base, &summary(10, 1.0002e6, 100.0));
        assert!(tiny.welch.unwrap().p < 0.001, "{tiny:?}");
        assert_eq!((of(&tiny, 2.0), of(&tiny, 0.0)), (NoChange, Increase));
        // +5% with small noise: a change, either way.
        let up = Difference::of(&base, &summary(10, 1.05e6, 100.0));
        let down = Difference::of(&base, &summary(10, 0.95e6, 100.0));
        assert_eq!((of(&up, 2.0), of(&down, 2.0)), (Increase, Decrease));
        // +5% with 4 repeats of 5% noise: cannot tell.
        let noisy = Difference::of(&summary(4, 1e6, 5e4), &summary(4, 1.05e6, 5e4));
        assert!(noisy.welch.unwrap().p > 0.05, "{noisy:?}");
        assert_eq!(of(&noisy, 2.0), Inconclusive);
    }

    #[test]
    fn the_engine_adjusts_over_the_family_it_is_given() {
        let base = summary(10, 1e6, 100.0);
        let up = summary(10, 1.05e6, 100.0);
        let near = summary(10, 1.00012e6, 100.0);
        let family = [(base, up, R2), (base, s(&[1.2e6]), R2), (base, near, R2)];
        let out = decide(&family);
        assert_eq!(out.len(), 3);
        // Two tests (the single repeat has none): Holm multiplies the
        // smaller raw p by 2 and the larger by 1, kept at least the first.
        let raw = |t: &Summary| super::super::welch_t_test(&base, t).unwrap().p;
        let (p_up, p_near) = (raw(&up), raw(&near));
        assert!(p_up < p_near, "{p_up} {p_near}");
        let p = [(2.0 * p_up).min(1.0), p_near.max(2.0 * p_up)];
        let got: Vec<_> = out.iter().map(|o| (o.p_adjusted, o.decision)).collect();
        let want = [
            (Some(p[0]), Increase),
            (None, Inconclusive),
            (Some(p[1]), NoChange),
        ];
        assert_eq!(got, want);
        // Alone, the near pair is judged on its raw p.
        assert_eq!(decide(&family[2..])[0].p_adjusted, Some(p_near));
        // The threshold is the caller's: at 0 the +0.012% is a change.
        let at_zero = one(base, near, Threshold::relative(0.0));
        assert_eq!(at_zero.decision, Increase);
        assert!(decide(&[]).is_empty());
    }

    #[test]
    fn an_outcome_prints_its_change_interval_and_p() {
        let base = s(&[99.0, 100.0, 101.0, 100.0]);
        let test = s(&[114.0, 115.0, 116.0, 115.0]);
        let o = one(base, test, R2);
        // ±1.3 around +15: one decimal; a narrow table shows the half-width.
        let (lo, hi) = o.difference.ci95_pct.unwrap();
        let (text, pm) = (o.change_text("ns"), o.change_pm_text("ns"));
        assert_eq!(text, format!("+15.0% [{lo:+.1}%, {hi:+.1}%]"));
        assert_eq!(pm, format!("+15.0 ±{:.1}%", (hi - lo) / 2.0));
        assert_eq!(o.p_text(), "p<0.001");
        // No test: the change alone, and n<2. A base at or below 0: the
        // difference in the unit (-1 against 2 ns, no spread); none at all
        // with one repeat below 0.
        let rows = [
            (s(&[100.0]), test, "+15.0%", "+15.0%", "n<2"),
            (
                s(&[-1.0, -1.0]),
                s(&[2.0, 2.0]),
                "+3.00 ns [+3.00, +3.00]",
                "+3.00 ±0.00 ns",
                "p<0.001",
            ),
            (s(&[-1.0]), test, "no test", "no test", "n<2"),
        ];
        for (base, test, text, pm, p) in rows {
            let o = one(base, test, R2);
            assert_eq!(o.change_text("ns"), text);
            assert_eq!(o.change_pm_text("ns"), pm);
            assert_eq!(o.p_text(), p, "{text}");
        }
        // p as printed at its boundaries.
        let mut o = o;
        o.p_adjusted = Some(0.001);
        assert_eq!(o.p_text(), "p=0.001");
        o.p_adjusted = Some(0.000_999);
        assert_eq!(o.p_text(), "p<0.001");
    }

    #[test]
    fn paired_differences_are_tested_paired_and_adjusted_with_the_family() {
        // Pair 1: base 10, 20, 30, test 11, 22, 33, differences 1, 2, 3:
        // paired t = 2√3, df 2, p = 1 − √(12/14) = 0.074180 (t(2)'s CDF is
        // closed), change 2/20 = +10%, interval 2 ± 2.48414 in % of 20:
        // [−2.42%, +22.42%], across ±2%: inconclusive. Pair 2: base 10,
        // 20, differences 2, 2: no spread, p = 0, +13.3%: an increase.
        // Holm over both: 0 × 2 = 0, then 0.074180 × 1.
        let (base, test) = (s(&[10.0, 20.0, 30.0]), s(&[11.0, 22.0, 33.0]));
        let pair = |base, test, paired: &[f64]| Compared {
            base,
            test,
            paired: Summary::of(paired),
            threshold: R2,
        };
        let family = [
            pair(base, test, &[1.0, 2.0, 3.0]),
            pair(s(&[10.0, 20.0]), s(&[12.0, 22.0]), &[2.0, 2.0]),
        ];
        let out = decide_paired(&family);
        assert!(out[0].difference.paired && out[1].difference.paired);
        let p = 1.0 - (12.0f64 / 14.0).sqrt();
        assert!((out[0].p_adjusted.unwrap() - p).abs() < 1e-6, "{out:?}");
        assert_eq!(out[1].p_adjusted, Some(0.0));
        let (lo, hi) = out[0].difference.ci95_pct.unwrap();
        assert!((lo + 2.4207).abs() < 1e-3 && (hi - 22.4207).abs() < 1e-3);
        assert_eq!((out[0].decision, out[1].decision), (Inconclusive, Increase));
        // Without the differences, the same pair is Welch's.
        let welch = Compared {
            paired: None,
            ..family[0]
        };
        assert_eq!(decide_paired(&[welch]), decide(&[(base, test, R2)]));
        assert!(!decide_paired(&[welch])[0].difference.paired);
    }

    #[test]
    fn beyond_the_threshold_means_the_whole_interval_on_one_side() {
        use crate::stats::Welch;
        // An outcome whose interval, in % of a base of 100, is `ci`, at a
        // threshold of 2%; or, without a percentage, a Welch difference of
        // 3 ± 1.114 (t(0.975, 10) × 0.5) against an absolute floor.
        let outcome = |ci95_pct: Option<(f64, f64)>, welch, base_mean, abs| Outcome {
            difference: Difference {
                change_pct: ci95_pct.map(|(lo, hi)| (lo + hi) / 2.0),
                ci95_pct,
                welch,
                base_mean,
                paired: false,
            },
            p_adjusted: Some(0.2),
            decision: Inconclusive,
            threshold: Threshold { pct: 2.0, abs },
        };
        let pct = |ci| outcome(Some(ci), None, 100.0, 0.0).beyond_threshold();
        // An end exactly at ±T, or across it, is not beyond.
        let rows = [
            ((3.0, 7.0), true),
            ((-7.0, -3.0), true),
            ((2.0, 4.0), false),
            ((-4.0, -2.0), false),
            ((1.0, 5.0), false),
            ((-5.0, -1.0), false),
            ((-1.0, 1.0), false),
        ];
        for (ci, want) in rows {
            assert_eq!(pct(ci), want, "{ci:?}");
        }
        let welch = |difference: f64| Welch {
            difference,
            std_error: 0.5,
            t: difference / 0.5,
            df: 10.0,
            p: 0.2,
        };
        let abs = |floor, d| outcome(None, Some(welch(d)), -1.0, floor).beyond_threshold();
        let rows = [
            (1.0, 3.0, true),
            (1.0, -3.0, true),
            (2.0, 3.0, false),
            (2.0, -3.0, false),
        ];
        for (floor, d, want) in rows {
            assert_eq!(abs(floor, d), want, "{floor} {d}");
        }
        // No test: nothing is beyond.
        assert!(!outcome(None, None, -1.0, 1.0).beyond_threshold());
    }

    #[test]
    fn percentages_show_the_interval_width() {
        // ±1.9%, ±0.3%, ±0.0094%, …
        let rows = [
            (3.8, 1),
            (0.6, 2),
            (0.0188, 3),
            (1e-9, 3),
            (80.0, 1),
            (0.0, 1),
            (f64::NAN, 1),
        ];
        for (width, want) in rows {
            assert_eq!(percent_decimals(width), want, "{width}");
        }
        // change_text takes the width of the interval, not its position:
        // +10% known to ±0.004% prints three decimals (its ends summed,
        // 20%, would print one).
        let o = one(summary(10, 100.0, 0.005), summary(10, 110.0, 0.005), R2);
        let text = o.change_text("ns");
        assert!(text.starts_with("+10.000% [+9.99"), "{text}");
    }

    #[test]
    fn the_practical_threshold_is_a_floor_in_the_measures_unit() {
        // A 6 ns net cost against 6.5 ns, both ±0.2 ns over 10 repeats: a
        // significant +8.3%, beyond ±2%, but inside ±1 ns.
        let (a, b) = (summary(10, 6.0, 0.2), summary(10, 6.5, 0.2));
        assert_eq!(one(a, b, R2).decision, Increase);
        let o = one(a, b, FLOOR1);
        assert_eq!(o.decision, NoChange);
        assert!(o.threshold.absolute_at(6.0));
        // 1 ns of 6 is 16.7%: the floor as a percentage of the base.
        assert!((FLOOR1.pct_of(6.0) - 100.0 / 6.0).abs() < 1e-12);
        // On a large base the percentage bounds instead: 2% of 100 ns.
        assert_eq!(FLOOR1.pct_of(100.0), 2.0);
        assert!(!FLOOR1.absolute_at(100.0));
        // 6 ns against 9 ns: beyond 1 ns, a change.
        assert_eq!(one(a, summary(10, 9.0, 0.2), FLOOR1).decision, Increase);
        // A base at or below 0 has no percentage: the floor is the
        // threshold of the absolute difference (-0.5 against +0.2 ns).
        let (below, above) = (summary(10, -0.5, 0.1), summary(10, 0.2, 0.1));
        let o = one(below, above, FLOOR1);
        assert_eq!(o.decision, NoChange);
        assert!(o.threshold.absolute_at(-0.5));
        assert_eq!(one(below, above, R2).decision, Increase);
    }

    #[test]
    fn no_practical_difference_needs_the_interval_inside_the_floor() {
        // (base, test, decision, practically none), all at ±2%, 1 ns.
        let rows = [
            // 6 against 6.5 ns ±0.2: the interval, about +8.3% ± 3.2%, lies
            // inside ±16.7% (1 ns): pinned down, too small to matter.
            ((10, 6.0, 0.2), (10, 6.5, 0.2), NoChange, true),
            // 6 against 6.5 ns ±3: the change is within 1 ns, but the
            // interval reaches ±3 ns: inconclusive, never no change.
            ((10, 6.0, 3.0), (10, 6.5, 3.0), Inconclusive, false),
            // On a base of 100 ns the percentage bounds: no change there is
            // not a practical one.
            ((10, 100.0, 0.1), (10, 100.5, 0.1), NoChange, false),
            // At or below 0: the absolute interval against ±1 ns.
            ((10, -0.5, 0.1), (10, 0.2, 0.1), NoChange, true),
            ((10, -0.5, 2.0), (10, 0.2, 2.0), Inconclusive, false),
        ];
        for ((n, m, sd), (tn, tm, tsd), decision, none) in rows {
            let o = one(summary(n, m, sd), summary(tn, tm, tsd), FLOOR1);
            let got = (o.decision, o.practically_none());
            assert_eq!(got, (decision, none), "{o:?}");
        }
    }

    #[test]
    fn noise_thresholds_parse_and_print() {
        let t = |s: &str| s.parse::<NoiseThreshold>();
        let rows = [
            ("2%,1ns", NOISE_THRESHOLD),
            ("0.5", NoiseThreshold { pct: 0.5, ns: 1.0 }),
            ("3%", NoiseThreshold { pct: 3.0, ns: 1.0 }),
            ("2ns", NoiseThreshold { pct: 2.0, ns: 2.0 }),
            (" 1% , 0ns ", NoiseThreshold { pct: 1.0, ns: 0.0 }),
        ];
        for (text, want) in rows {
            assert_eq!(t(text), Ok(want), "{text}");
        }
        for bad in [
            "-1", "abc", "", "inf", "NaN", "%", "1%,", "-2ns", "2%,3%", "1ns,2ns",
        ] {
            let e = t(bad).unwrap_err();
            assert!(e.to_string().contains(bad), "{e}");
        }
        assert_eq!(NOISE_THRESHOLD.to_string(), "±2% (costs per update: ±1 ns)");
    }

    #[test]
    fn untested_and_zero_bases() {
        let (zero, six) = (s(&[0.0, 0.0]), s(&[6.0, 6.0]));
        let rows = [
            (s(&[100.0]), s(&[200.0]), 0.0, Inconclusive),
            (zero, six, 0.0, Increase),
            (zero, zero, 1.0, NoChange),
        ];
        for (base, test, p, want) in rows {
            let d = Difference::of(&base, &test);
            assert_eq!(Decision::of(&d, R2, p), want, "{test:?}");
        }
    }
}
