//! Publish policies: when a writer's local change reaches the shared slot.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// When a pending delta is worth publishing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Filter {
    /// Add the delta on every update, even a zero one (today's base case).
    Always,
    /// Publish any non-zero delta (what a bare ratelimit does).
    Changed,
    /// Publish when `|delta| > contrib / D` (the kernel's D = 64).
    Threshold(u32),
    /// Publish when `|delta| >= B` (`percpu_counter` style batching).
    Batch(u32),
    /// Never publish until the final flush: the harness floor, the same loop with no shared write.
    Never,
}

/// The filter a loop's update decides at run time ([`Filter::kind`]'s "any").
pub const FILTER_ANY: u8 = 0;
/// [`Filter::Always`]'s kind.
pub const FILTER_ALWAYS: u8 = 1;
/// [`Filter::Changed`]'s kind.
pub const FILTER_CHANGED: u8 = 2;
/// [`Filter::Threshold`]'s kind.
pub const FILTER_THRESHOLD: u8 = 3;
/// [`Filter::Batch`]'s kind.
pub const FILTER_BATCH: u8 = 4;
/// [`Filter::Never`]'s kind.
pub const FILTER_NEVER: u8 = 5;

impl Filter {
    /// Which filter this is ([`FILTER_ALWAYS`] ... [`FILTER_NEVER`]), for a loop to pick the copy
    /// of [`passes_as`](Self::passes_as) compiled for it, once, outside its timed window.
    pub fn kind(self) -> u8 {
        match self {
            Filter::Always => FILTER_ALWAYS,
            Filter::Changed => FILTER_CHANGED,
            Filter::Threshold(_) => FILTER_THRESHOLD,
            Filter::Batch(_) => FILTER_BATCH,
            Filter::Never => FILTER_NEVER,
        }
    }

    /// Whether a writer whose last published value is `contrib` publishes `delta`, compiled for
    /// filter kind `KIND` ([`FILTER_ANY`]: one copy deciding every filter at run time).
    #[inline(always)]
    pub fn passes_as<const KIND: u8>(self, delta: i64, contrib: i64) -> bool {
        debug_assert!(KIND == FILTER_ANY || KIND == self.kind());
        match (KIND, self) {
            (FILTER_ALWAYS, _) | (FILTER_ANY, Filter::Always) => true,
            (FILTER_CHANGED, _) | (FILTER_ANY, Filter::Changed) => delta != 0,
            (FILTER_THRESHOLD | FILTER_ANY, Filter::Threshold(d)) => {
                delta.unsigned_abs() > (contrib / i64::from(d)).unsigned_abs()
            }
            (FILTER_BATCH | FILTER_ANY, Filter::Batch(b)) => delta.unsigned_abs() >= u64::from(b),
            _ => false,
        }
    }
}

/// A publish policy: optional ratelimit period and a delta filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublishPolicy {
    /// At most one publish per writer per this period, if set.
    pub ratelimit: Option<Duration>,
    /// Which deltas are published.
    pub filter: Filter,
}

impl PublishPolicy {
    /// Atomic add of the delta on every update.
    pub const ALWAYS: PublishPolicy = PublishPolicy {
        ratelimit: None,
        filter: Filter::Always,
    };

    /// No shared write until the final flush: the harness floor.
    pub const NEVER: PublishPolicy = PublishPolicy {
        ratelimit: None,
        filter: Filter::Never,
    };

    /// The syntax `--publish` takes, for help texts.
    pub const HELP: &'static str = "always | threshold:D (publish when |delta| > contrib/D; kernel D=64) | \
        ratelimit:P (at most once per period P per writer, e.g. 1ms, 500us) | \
        ratelimit:P+threshold:D (the merged kernel code) | batch:B (fold when |pending| >= B) | \
        never (no shared write until the final flush: the harness floor)";

    /// True when the policy reads the clock on every update.
    pub fn reads_clock(&self) -> bool {
        self.ratelimit.is_some()
    }
}

/// The names a policy's parts start with, for "did you mean".
const PART_NAMES: [&str; 5] = ["always", "never", "threshold", "batch", "ratelimit"];

/// A `--publish` value that is not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad publish policy \"{policy}\": {reason}")]
pub struct PolicyError {
    /// The value as given.
    pub policy: String,
    /// What is wrong.
    pub reason: String,
}

impl FromStr for PublishPolicy {
    type Err = PolicyError;

    fn from_str(s: &str) -> Result<Self, PolicyError> {
        let err = |reason: String| PolicyError {
            policy: s.to_string(),
            reason,
        };
        if s.trim().is_empty() {
            return Err(err("empty".into()));
        }
        let (mut ratelimit, mut filter) = (None, None);
        for part in s.trim().split('+') {
            let (name, arg) = part.split_once(':').unwrap_or((part, ""));
            let number = |what: &str| {
                let why = format!("{what} needs a whole number above 0, found \"{arg}\"");
                arg.parse::<u32>()
                    .ok()
                    .filter(|&v| v > 0)
                    .ok_or_else(|| err(why))
            };
            let new_filter = match (name, arg) {
                ("always", "") => Filter::Always,
                ("never", "") => Filter::Never,
                ("threshold", _) => Filter::Threshold(number("threshold:D")?),
                ("batch", _) => Filter::Batch(number("batch:B")?),
                ("ratelimit", _) if ratelimit.is_some() => {
                    return Err(err("ratelimit given twice".into()));
                }
                ("ratelimit", _) => {
                    let period = parse_duration(arg);
                    ratelimit = Some(period.map_err(|e| err(format!("ratelimit period: {e}")))?);
                    continue;
                }
                _ => {
                    // A misspelt name keeps its argument in the guess.
                    let reason = match crate::error::nearest(name, PART_NAMES) {
                        Some(near) => {
                            let fixed = [near, arg].join(if arg.is_empty() { "" } else { ":" });
                            let meant = s.trim().replacen(part, &fixed, 1);
                            format!("unknown part \"{part}\": did you mean \"{meant}\"?")
                        }
                        None => format!(
                            "unknown part \"{part}\" (expected always, threshold:D, ratelimit:P, ratelimit:P+threshold:D, batch:B or never)"
                        ),
                    };
                    return Err(err(reason));
                }
            };
            if filter.replace(new_filter).is_some() {
                return Err(err("more than one of always/threshold/batch/never".into()));
            }
        }
        let filter = match (ratelimit, filter) {
            (Some(_), None) => Filter::Changed,
            (Some(_), Some(f @ (Filter::Always | Filter::Never))) => {
                let name = if f == Filter::Always {
                    "always"
                } else {
                    "never"
                };
                return Err(err(format!("{name} cannot be ratelimited")));
            }
            (_, Some(f)) => f,
            (None, None) => return Err(err("no ratelimit and no filter".into())),
        };
        Ok(PublishPolicy { ratelimit, filter })
    }
}

/// Writes the policy in the form it parses from (`ratelimit:1ms+threshold:64`).
impl fmt::Display for PublishPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = self.ratelimit {
            write!(f, "ratelimit:{}", format_duration(p))?;
            if self.filter != Filter::Changed {
                f.write_str("+")?;
            }
        }
        match self.filter {
            Filter::Always => f.write_str("always"),
            Filter::Changed => Ok(()),
            Filter::Threshold(d) => write!(f, "threshold:{d}"),
            Filter::Batch(b) => write!(f, "batch:{b}"),
            Filter::Never => f.write_str("never"),
        }
    }
}

impl serde::Serialize for PublishPolicy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for PublishPolicy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A duration that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// A number without a unit.
    #[error("\"{0}\" has no unit (use ns, us, ms or s)")]
    NoUnit(String),
    /// The number part (the whole text, its number part) is not a number.
    #[error("\"{0}\": \"{1}\" is not a number")]
    NotANumber(String, String),
    /// A unit (the whole text, its unit part) other than ns, us, ms or s.
    #[error("\"{0}\": unknown unit \"{1}\" (use ns, us, ms or s)")]
    Unit(String, String),
    /// Zero, negative, or absurdly long.
    #[error("\"{0}\" must be above zero and below 1e6 s")]
    Range(String),
}

/// Parses a duration with a unit: `ns`, `us`, `ms` or `s` (`1ms`, `250us`, `1.5s`).
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| DurationError::NoUnit(text.to_string()))?;
    let (number, unit) = text.split_at(split);
    let nan = |_| DurationError::NotANumber(text.into(), number.into());
    let value: f64 = number.parse().map_err(nan)?;
    let scale = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return Err(DurationError::Unit(text.to_string(), unit.to_string())),
    };
    let secs = value * scale;
    if !(secs > 0.0 && secs < 1e6) {
        return Err(DurationError::Range(text.to_string()));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Like [`parse_duration`], but zero, with or without a unit.
pub fn parse_duration_or_zero(text: &str) -> Result<Duration, DurationError> {
    match parse_duration(text) {
        Err(DurationError::NoUnit(t) | DurationError::Range(t))
            if t.trim_end_matches(|c: char| c.is_alphabetic())
                .parse::<f64>()
                .is_ok_and(|v| v == 0.0) =>
        {
            Ok(Duration::ZERO)
        }
        other => other,
    }
}

/// Writes a duration in the largest unit that keeps it whole.
pub fn format_duration(d: Duration) -> String {
    let ns = d.as_nanos();
    for (unit, size) in [("s", 1_000_000_000u128), ("ms", 1_000_000), ("us", 1_000)] {
        if ns >= size && ns % size == 0 {
            return format!("{}{unit}", ns / size);
        }
    }
    format!("{ns}ns")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_every_form() {
        for text in [
            "always",
            "threshold:64",
            "ratelimit:1ms",
            "ratelimit:250us+threshold:64",
            "ratelimit:1ms+batch:32",
            "batch:32",
            "never",
        ] {
            let p: PublishPolicy = text.parse().unwrap();
            assert_eq!(p.to_string(), text);
            assert_eq!(p.reads_clock(), text.starts_with("ratelimit"), "{text}");
        }
        assert_eq!("never".parse(), Ok(PublishPolicy::NEVER));
        let merged: PublishPolicy = "ratelimit:1ms+threshold:64".parse().unwrap();
        let want = (Some(Duration::from_millis(1)), Filter::Threshold(64));
        assert_eq!((merged.ratelimit, merged.filter), want);
        let bare: PublishPolicy = "ratelimit:1ms".parse().unwrap();
        assert_eq!(bare.filter, Filter::Changed);
    }

    #[test]
    fn rejects_bad_policies_with_reasons_and_the_policy_a_misspelt_part_meant() {
        for (text, needle) in [
            ("", "empty"),
            ("sometimes", "unknown part"),
            ("threshold:0", "above 0"),
            ("threshold:x", "whole number"),
            ("ratelimit:1", "no unit"),
            ("ratelimit:0ms", "above zero"),
            ("ratelimit:1h", "unknown unit"),
            ("ratelimit:1ms+ratelimit:2ms", "twice"),
            ("threshold:64+batch:2", "more than one"),
            ("ratelimit:1ms+always", "cannot be ratelimited"),
            // always and never take no argument.
            ("always:3", "unknown part"),
            ("never:1ms", "unknown part"),
        ] {
            let e = text.parse::<PublishPolicy>().unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
        for (text, meant) in [
            ("ratelimt:1ms", "ratelimit:1ms"),
            ("ratelimit:1ms+treshold:64", "ratelimit:1ms+threshold:64"),
            ("alway", "always"),
        ] {
            let e = text.parse::<PublishPolicy>().unwrap_err().to_string();
            let guess = format!("did you mean \"{meant}\"?");
            assert!(e.contains(&guess), "{text}: {e}");
            assert!(meant.parse::<PublishPolicy>().is_ok(), "{meant}");
        }
        // Nothing near: no guess.
        let e = "sometimes".parse::<PublishPolicy>().unwrap_err();
        assert!(!e.to_string().contains("did you mean"), "{e}");
    }

    #[test]
    fn each_filter_decides_by_its_formula_in_every_copy() {
        let filters = [
            Filter::Always,
            Filter::Changed,
            Filter::Threshold(64),
            Filter::Batch(32),
            Filter::Never,
        ];
        // Each filter's own copy below is picked by its kind, which `passes_as` checks (a debug
        // assertion). Decisions known by hand: (delta, contrib) -> passes, per filter. Threshold is the
        // kernel's abs(delta) > contrib / 64: 16 > 1024/64 is false, and 63 / 64 == 0.
        let cases = [
            (0, 5),
            (16, 1024),
            (17, 1024),
            (-17, 1024),
            (31, 0),
            (-32, 0),
        ];
        let cases = cases.into_iter().chain([(-16, 1024), (1, 63), (0, 63)]);
        let (t, f) = (true, false);
        let truth = [
            [t; 9],
            [f, t, t, t, t, t, t, t, f],
            [f, f, t, t, t, t, f, t, f],
            [f, f, f, f, f, t, f, f, f],
            [f; 9],
        ];
        for (f, want) in filters.iter().zip(truth) {
            for ((delta, contrib), want) in cases.clone().zip(want) {
                let own = match f.kind() {
                    FILTER_ALWAYS => f.passes_as::<FILTER_ALWAYS>(delta, contrib),
                    FILTER_CHANGED => f.passes_as::<FILTER_CHANGED>(delta, contrib),
                    FILTER_THRESHOLD => f.passes_as::<FILTER_THRESHOLD>(delta, contrib),
                    FILTER_BATCH => f.passes_as::<FILTER_BATCH>(delta, contrib),
                    _ => f.passes_as::<FILTER_NEVER>(delta, contrib),
                };
                let any = f.passes_as::<FILTER_ANY>(delta, contrib);
                let case = format!("{f:?}, delta {delta} contrib {contrib}");
                assert_eq!((own, any), (want, want), "{case}: own copy, at run time");
            }
        }
    }

    #[test]
    fn durations_round_trip() {
        for zero in ["0", "0ms", "0s", "0.0us"] {
            assert_eq!(parse_duration_or_zero(zero), Ok(Duration::ZERO), "{zero}");
            assert!(parse_duration(zero).is_err(), "{zero}");
        }
        assert_eq!(parse_duration_or_zero("5ms"), Ok(Duration::from_millis(5)));
        assert!(parse_duration_or_zero("5").is_err());
        assert!(parse_duration_or_zero("0parsecs").is_err());
        // Every unit, by its scale.
        for (text, want) in [
            ("1ms", Duration::from_millis(1)),
            ("1.5s", Duration::from_millis(1500)),
            ("750ns", Duration::from_nanos(750)),
            ("250us", Duration::from_micros(250)),
            ("250µs", Duration::from_micros(250)),
            ("2s", Duration::from_secs(2)),
        ] {
            assert_eq!(parse_duration(text), Ok(want), "{text}");
        }
        // The range is open at 1e6 s (11.6 days): just below passes, the bound itself does not.
        assert!(parse_duration("999999s").is_ok());
        let range = DurationError::Range("1000000s".into());
        assert_eq!(parse_duration("1000000s"), Err(range));
        assert_eq!(format_duration(Duration::from_micros(250)), "250us");
        assert_eq!(format_duration(Duration::from_nanos(1500)), "1500ns");
    }
}
