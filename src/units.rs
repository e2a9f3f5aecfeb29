//! How numbers are written for people, in one place for the terminal, Markdown, HTML and a regime's
//! name: three significant digits, a k, M or G prefix on rates and counts, ns, µs, ms or s on
//! times, and one ±: the half-width of the 95% confidence interval of the mean over repeats.

use crate::stats::{SPREAD_REPEATS, Summary};

/// The unit of a figure, for printing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Per second (ops/s, publishes/s).
    PerSecond,
    /// Nanoseconds.
    Nanoseconds,
    /// Percent.
    Percent,
    /// A plain count or ratio (updates per ownership).
    Count,
}

impl Unit {
    /// The unit after a number: `/s`, `ns`, `%`, or empty for a count.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::PerSecond => "/s",
            Unit::Nanoseconds => "ns",
            Unit::Percent => "%",
            Unit::Count => "",
        }
    }
}

/// `value` in `unit` to 3 significant digits (`54.9M`, `71.6 ns`, `6.53%`, `1.52`).
pub fn human(value: f64, unit: Unit) -> String {
    match unit {
        Unit::PerSecond => si(value),
        Unit::Nanoseconds => {
            let (scaled, u) = scaled(value, &[(1e9, "s"), (1e6, "ms"), (1e3, "µs")]);
            let u = if u.is_empty() { "ns" } else { u };
            format!("{} {u}", three_digits(scaled))
        }
        Unit::Percent => format!("{}%", three_digits(value)),
        Unit::Count => three_digits(value),
    }
}

/// Seconds for people: `850 µs`, `12.3 ms`, `4.10 s`.
pub fn human_s(s: f64) -> String {
    human(s * 1e9, Unit::Nanoseconds)
}

/// 3 significant digits with a k (10³), M (10⁶) or G (10⁹) prefix.
pub fn si(value: f64) -> String {
    let (scaled, prefix) = scaled(value, &[(1e9, "G"), (1e6, "M"), (1e3, "k")]);
    format!("{}{prefix}", three_digits(scaled))
}

/// `value` divided by the largest `scale` it reaches, and that scale's name.
fn scaled(value: f64, scales: &[(f64, &'static str)]) -> (f64, &'static str) {
    scales
        .iter()
        .find(|(s, _)| value.abs() >= *s)
        .map_or((value, ""), |&(s, name)| (value / s, name))
}

/// 3 significant digits, never in exponent form (`54.9`, `1.99`, `0.131`, `112`, `0`).
fn three_digits(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let magnitude = v.abs().log10().floor() as i32;
    let decimals = (2 - magnitude).clamp(0, 9) as usize;
    format!("{v:.decimals$}")
}

/// A percentage for a ±: two significant digits (`31%`, `3.3%`, `0.45%`).
pub fn cv_text(pct: f64) -> String {
    // 0 decimals from 10%, 1 from 1%, else 2.
    let decimals = usize::from(pct < 10.0) + usize::from(pct < 1.0);
    format!("{pct:.decimals$}%")
}

/// The half-width of `s`'s 95% confidence interval, as a % of its mean's size.
pub fn ci_pct(s: &Summary) -> f64 {
    50.0 * (s.ci95_high - s.ci95_low) / s.mean.abs()
}

/// True when `s`'s 95% confidence interval is wider than its value.
pub fn is_noise(s: &Summary) -> bool {
    s.has_spread() && ci_pct(s) > 100.0
}

/// `noise (±510%)`: what stands in for a figure whose interval is wider than itself ([`is_noise`]).
pub fn noise_text(s: &Summary) -> String {
    format!("noise (±{})", cv_text(ci_pct(s)))
}

/// The ± after a summary's mean: its 95% CI's half-width in % of the mean.
pub fn spread_text(s: &Summary) -> String {
    if s.has_spread() {
        format!("±{}", cv_text(ci_pct(s)))
    } else {
        ONE_REPEAT.to_string()
    }
}

/// `84.4 ns ±4.4%`: a mean in `unit` and its ±.
pub fn figure(s: &Summary, unit: Unit) -> String {
    if is_noise(s) {
        noise_text(s)
    } else {
        format!("{} {}", human(s.mean, unit), spread_text(s))
    }
}

/// `178 ns [150, 206]`: a mean over `repeats` in `unit` (none: empty) and its 95% interval, three
/// significant digits each ([`si`]).
pub fn with_interval(mean: f64, ci: [f64; 2], repeats: usize, unit: &str) -> String {
    let mean = match unit {
        "" => si(mean),
        unit => format!("{} {unit}", si(mean)),
    };
    if repeats >= SPREAD_REPEATS {
        format!("{mean} [{}, {}]", si(ci[0]), si(ci[1]))
    } else {
        format!("{mean} {ONE_REPEAT}")
    }
}

/// What stands in for a ± or an interval that one repeat cannot give.
pub const ONE_REPEAT: &str = "(1 repeat)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_three_significant_digits_with_prefixes() {
        for (value, unit, text) in [
            (54_946_573.0, Unit::PerSecond, "54.9M"),
            (1_991.0, Unit::PerSecond, "1.99k"),
            (112.0, Unit::PerSecond, "112"),
            (71.6, Unit::Nanoseconds, "71.6 ns"),
            (1_204.0, Unit::Nanoseconds, "1.20 µs"),
            (2_500_000.0, Unit::Nanoseconds, "2.50 ms"),
            (0.1306, Unit::Percent, "0.131%"),
            (6.5448, Unit::Percent, "6.54%"),
            (0.0, Unit::Percent, "0%"),
            (1.5234, Unit::Count, "1.52"),
        ] {
            assert_eq!(human(value, unit), text);
        }
        for (value, text) in [(58_170_964.0, "58.2M"), (22_000.0, "22.0k"), (975.0, "975")]
            .into_iter()
            .chain([(34.54, "34.5"), (0.1275, "0.128"), (-3.5e9, "-3.50G")])
        {
            assert_eq!(si(value), text);
        }
        let cvs = [31.37, 10.0, 9.96, 3.3, 1.0, 0.452].map(cv_text);
        assert_eq!(cvs, ["31%", "10%", "10.0%", "3.3%", "1.0%", "0.45%"]);
        let units = [
            Unit::PerSecond,
            Unit::Nanoseconds,
            Unit::Percent,
            Unit::Count,
        ];
        assert_eq!(units.map(Unit::symbol), ["/s", "ns", "%", ""]);
    }

    #[test]
    fn a_spread_needs_two_repeats() {
        // 10 ± t(0.975, 1) · 1.414 / sqrt(2) = 10 ± 12.7: wider than
        // itself, noise; 100 ± the same is ±13%.
        let two = Summary::of(&[9.0, 11.0]).unwrap();
        assert_eq!(spread_text(&two), "±127%");
        assert_eq!(figure(&two, Unit::Nanoseconds), "noise (±127%)");
        let wide = Summary::of(&[99.0, 101.0]).unwrap();
        assert_eq!(figure(&wide, Unit::Nanoseconds), "100 ns ±13%");
        let one = Summary::of(&[10.0]).unwrap();
        assert_eq!(spread_text(&one), "(1 repeat)");
        let (ci, none) = ([150.0, 206.4], [178.2, 178.2]);
        assert_eq!(with_interval(178.2, ci, 2, ""), "178 [150, 206]");
        assert_eq!(with_interval(178.2, ci, 2, "ns"), "178 ns [150, 206]");
        assert_eq!(with_interval(178.2, none, 1, "ns"), "178 ns (1 repeat)");
    }
}
