//! The charts' axes and value labels: tick labels, keyed and log axes, ranges that are never empty
//! (from 0, or below it for a difference), and error bars.

use super::INK;
use crate::stats::Summary;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::prelude::*;
use std::ops::Range;

/// A value for a tick label: three significant digits at most, with a k, M or G suffix from ten
/// thousand up (17.7M rather than 17700000).
pub(super) fn num(v: f64) -> String {
    let a = v.abs();
    let (scaled, suffix) = match a {
        a if a >= 1e9 => (v / 1e9, "G"),
        a if a >= 1e6 => (v / 1e6, "M"),
        a if a >= 1e4 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let magnitude = if scaled == 0.0 {
        0
    } else {
        scaled.abs().log10().floor() as i32
    };
    let digits = (2 - magnitude).clamp(0, 3) as usize;
    let mut s = format!("{scaled:.digits$}");
    if s.contains('.') {
        s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    if s == "-0" {
        s = "0".into();
    }
    s + suffix
}

/// A linear axis whose ticks sit exactly at `keys`.
pub(super) struct Keyed {
    /// The values the axis spans.
    pub range: Range<f64>,
    /// Where its ticks and grid lines are.
    pub keys: Vec<f64>,
}

impl Ranged for Keyed {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let f = (value - self.range.start) / (self.range.end - self.range.start);
        limit.0 + (f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        // Only bold ticks: no light grid lines between keys.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.keys.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// A linear axis range from 0 to a little past the largest value; never empty.
pub(super) fn zero_based(hi: f64) -> Range<f64> {
    let hi = if hi.is_finite() && hi > 0.0 { hi } else { 1.0 };
    0.0..hi * 1.08
}

/// A linear axis range for a difference (a net cost, which noise can take below 0).
pub(super) fn signed_span(lo: f64, hi: f64) -> Range<f64> {
    if !(lo.is_finite() && lo < 0.0) {
        return zero_based(hi);
    }
    let hi = if hi.is_finite() { hi.max(0.0) } else { 0.0 };
    let margin = (hi - lo) * 0.08;
    lo - margin..hi + margin
}

/// Ticks of a log axis over `r`: 1, 2 and 5 times powers of ten inside it, or only the powers of
/// ten when that would be more than 12 ticks.
pub(super) fn log_ticks(r: &Range<f64>) -> Vec<f64> {
    let first = r.start.log10().floor() as i32;
    let last = r.end.log10().ceil() as i32;
    let ticks = |steps: &[f64]| -> Vec<f64> {
        (first..=last)
            .flat_map(|e| steps.iter().map(move |m| m * 10f64.powi(e)))
            .filter(|v| r.contains(v))
            .collect()
    };
    let fine = ticks(&[1.0, 2.0, 5.0]);
    if fine.len() > 12 { ticks(&[1.0]) } else { fine }
}

/// A duration in ns for a tick label, in the unit that suits it.
pub(super) fn duration_label(ns: f64) -> String {
    match ns.abs() {
        a if a >= 1e9 => format!("{} s", num(ns / 1e9)),
        a if a >= 1e6 => format!("{} ms", num(ns / 1e6)),
        a if a >= 1e3 => format!("{} µs", num(ns / 1e3)),
        _ => format!("{} ns", num(ns)),
    }
}

/// A range for a log axis covering `lo..=hi` (positive values), widened a little; never empty.
pub(super) fn log_span(lo: f64, hi: f64) -> Range<f64> {
    let lo = if lo.is_finite() && lo > 0.0 { lo } else { 1.0 };
    let hi = if hi.is_finite() && hi > lo {
        hi
    } else {
        lo * 10.0
    };
    lo / 1.4..hi * 1.4
}

/// A linear range covering `lo..=hi` with a margin on both sides; never empty.
pub(super) fn padded(lo: f64, hi: f64) -> Range<f64> {
    if !(lo.is_finite() && hi.is_finite()) {
        return 0.0..1.0;
    }
    let margin = if hi > lo {
        (hi - lo) * 0.12
    } else {
        (hi.abs() * 0.1).max(1.0)
    };
    (lo - margin)..(hi + margin)
}

/// An error bar over the 95% CI of the mean of `s` (clipped at `floor`) as one path, end caps of
/// half-length `cap`, at `at`; horizontal unless `vertical`.
pub(super) fn whisker(
    s: &Summary,
    at: f64,
    cap: f64,
    vertical: bool,
    floor: f64,
) -> PathElement<(f64, f64)> {
    let (lo, hi) = (s.ci95_low.max(floor), s.ci95_high);
    let path = [
        (lo, at - cap),
        (lo, at + cap),
        (lo, at),
        (hi, at),
        (hi, at + cap),
        (hi, at - cap),
    ];
    let path = path.map(|(v, k)| if vertical { (k, v) } else { (v, k) });
    PathElement::new(path, INK.stroke_width(1))
}

#[cfg(test)]
mod tests {
    use super::super::{file_safe, wrap};
    use super::*;

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(20.03), "20");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(0.125), "0.125");
        assert_eq!(num(950.0), "950");
        assert_eq!(num(12_345.0), "12.3k");
        assert_eq!(num(17_712_957.0), "17.7M");
        assert_eq!(num(2.0e9), "2G");
        assert_eq!(num(-3.0e6), "-3M");
    }

    #[test]
    fn ranges_are_never_empty() {
        assert_eq!(zero_based(0.0), 0.0..1.08);
        let s = Summary::of(&[8.0, 11.0, 14.0]).unwrap();
        let w = whisker(&s, 1.0, 0.1, true, 0.0);
        let path = plotters::element::PointCollection::point_iter(&w);
        // By hand: mean 11, sample stddev sqrt((9 + 0 + 9) / 2) = 3,
        // t(0.975, 2 df) = 4.302653 from the table: the 95% CI is
        // 11 ± 4.302653 × 3 / √3 = 11 ± 7.452416; caps at 1 ± 0.1.
        let half = 4.302_652_729_9 * 3.0 / 3f64.sqrt();
        let want = [
            (0.9, 11.0 - half),
            (1.1, 11.0 - half),
            (1.0, 11.0 - half),
            (1.0, 11.0 + half),
            (1.1, 11.0 + half),
            (0.9, 11.0 + half),
        ];
        assert_eq!(path.len(), want.len());
        for (got, want) in path.iter().zip(want) {
            let near = (got.0 - want.0).abs() < 1e-6 && (got.1 - want.1).abs() < 1e-6;
            assert!(near, "{path:?}");
        }
        // Clipped at 0: mean 5, stddev 4√2, t(0.975, 1 df) = 12.706205:
        // 5 ± 12.706205 × 4 = 5 ± 50.82482; horizontal at 2.
        let s = Summary::of(&[1.0, 9.0]).unwrap();
        let w = whisker(&s, 2.0, 0.5, false, 0.0);
        let path = plotters::element::PointCollection::point_iter(&w);
        let half = 12.706_204_736 * 4.0;
        assert_eq!(path[0], (0.0, 1.5));
        assert_eq!(path[2], (0.0, 2.0));
        assert!((path[3].0 - (5.0 + half)).abs() < 1e-6, "{path:?}");
        assert_eq!(path[3].1, 2.0);
        // A difference's bar is clipped only at its axis' start.
        let w = whisker(&s, 2.0, 0.5, false, -100.0);
        let path = plotters::element::PointCollection::point_iter(&w);
        assert!((path[0].0 - (5.0 - half)).abs() < 1e-6, "{path:?}");
        assert_eq!(signed_span(2.0, 10.0), zero_based(10.0));
        let r = signed_span(-2.0, 8.0);
        assert!(r.start < -2.0 && r.end > 8.0, "{r:?}");
        let r = signed_span(-4.0, -1.0);
        assert!(r.start < -4.0 && r.end > 0.0, "{r:?}");
        assert!(padded(5.0, 5.0).start < 5.0 && padded(5.0, 5.0).end > 5.0);
        let r = log_span(10.0, 10.0);
        assert!(r.start < 10.0 && r.end > 100.0);
        assert_eq!(file_safe("node 0/x"), "node_0_x");
        assert_eq!(log_ticks(&(15.0..700.0)), [20.0, 50.0, 100.0, 200.0, 500.0]);
        assert_eq!(log_ticks(&(1.0..1e9)).len(), 9);
    }

    #[test]
    fn labels_fit() {
        assert_eq!(duration_label(150_000.0), "150 µs");
        assert_eq!(duration_label(2.0e6), "2 ms");
        assert_eq!(duration_label(40.0), "40 ns");
        let lines = wrap("error bars: the 95% CI", 12);
        assert_eq!(lines, ["error bars:", "the 95% CI"]);
    }
}
