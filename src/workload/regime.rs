//! The regime a thread's updates are offered in: flat out (every thread as fast as it can), or
//! paced at a rate per thread with evenly spaced or irregular arrivals.

use crate::units::si;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The seed's rate, updates per second per CPU.
pub const SEED_RATE: f64 = 22_000.0;

/// How a paced thread's updates fall in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    /// Irregular, as a kernel's updates at wakeups and migrations.
    Poisson,
    /// Evenly spaced, one per period, as `contend run --rate` paces each thread.
    Paced,
}

crate::named_enum!(Arrivals, "arrivals", [Paced => "paced", Poisson => "poisson"]);

/// Flat out, or paced at a rate per thread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(from = "RegimeRepr", into = "RegimeRepr")]
pub enum Regime {
    /// Every thread as fast as it can: saturation throughput, updates per ownership of the line.
    #[default]
    FlatOut,
    /// Each thread offered `rate` operations per second.
    Paced {
        /// Operations per second per thread, above 0.
        rate: f64,
        /// How they fall in time.
        arrivals: Arrivals,
    },
}

impl Regime {
    /// The seed's regime: evenly paced at [`SEED_RATE`].
    pub const SEED: Regime = Regime::paced(SEED_RATE);

    /// Evenly paced at `rate` operations per second per thread.
    pub const fn paced(rate: f64) -> Regime {
        Regime::Paced {
            rate,
            arrivals: Arrivals::Paced,
        }
    }

    /// The offered rate per thread; `None` flat out.
    pub fn rate(self) -> Option<f64> {
        match self {
            Regime::FlatOut => None,
            Regime::Paced { rate, .. } => Some(rate),
        }
    }

    /// True when paced at a rate.
    pub fn is_paced(self) -> bool {
        matches!(self, Regime::Paced { .. })
    }

    /// A strategy's `name` as a list of several regimes' strategies names it.
    pub fn label(self, name: &str) -> String {
        match self {
            Regime::FlatOut => name.to_string(),
            paced => format!("{name} {paced}"),
        }
    }
}

impl fmt::Display for Regime {
    /// `flat out`, `paced at 22.0k/s per thread`, or with irregular arrivals `paced at 22.0k/s per
    /// thread, poisson arrivals`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Regime::FlatOut => f.write_str("flat out"),
            Regime::Paced { rate, arrivals } => {
                write!(f, "paced at {}/s per thread", si(*rate))?;
                match arrivals {
                    Arrivals::Paced => Ok(()),
                    other => write!(f, ", {other} arrivals"),
                }
            }
        }
    }
}

/// A regime or rate that does not parse, or a rate not above zero.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "\"{0}\" is not a rate above 0 (operations per second per thread: 22000, 22k, 1.5M) or max (flat out)"
)]
pub struct RateError(String);

/// Operations per second: a number with an optional `k`.
pub fn parse_rate(s: &str) -> Result<f64, RateError> {
    let t = s.trim();
    let (number, scale) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1e3),
        Some('M') => (&t[..t.len() - 1], 1e6),
        Some('G') => (&t[..t.len() - 1], 1e9),
        _ => (t, 1.0),
    };
    match number.parse::<f64>() {
        Ok(v) if v > 0.0 && (v * scale).is_finite() => Ok(v * scale),
        _ => Err(RateError(s.to_string())),
    }
}

impl FromStr for Regime {
    type Err = RateError;
    /// `max` is flat out; a rate ([`parse_rate`]) is evenly paced at it.
    fn from_str(s: &str) -> Result<Self, RateError> {
        if s.trim() == "max" {
            Ok(Regime::FlatOut)
        } else {
            parse_rate(s).map(Regime::paced)
        }
    }
}

/// A regime as result files hold it.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum RegimeRepr {
    /// `null` or an evenly paced rate: every schema's form.
    Rate(Option<f64>),
    /// A rate with other arrivals.
    Arrivals { rate: f64, arrivals: Arrivals },
}

impl From<RegimeRepr> for Regime {
    fn from(r: RegimeRepr) -> Self {
        match r {
            RegimeRepr::Rate(None) => Regime::FlatOut,
            RegimeRepr::Rate(Some(rate)) => Regime::paced(rate),
            RegimeRepr::Arrivals { rate, arrivals } => Regime::Paced { rate, arrivals },
        }
    }
}

impl From<Regime> for RegimeRepr {
    fn from(r: Regime) -> Self {
        match r {
            Regime::Paced { rate, arrivals } if arrivals != Arrivals::Paced => {
                RegimeRepr::Arrivals { rate, arrivals }
            }
            even_or_flat_out => RegimeRepr::Rate(even_or_flat_out.rate()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_regimes_parse_print_and_are_filed_one_way() {
        let rates = ["22k", "1.5M", "250", "1G"].map(|r| parse_rate(r).unwrap());
        assert_eq!(rates, [22_000.0, 1_500_000.0, 250.0, 1e9]);
        for bad in ["0", "-5k", "k", "fast", "inf", "1e300G"] {
            assert!(parse_rate(bad).is_err(), "{bad}");
        }
        assert_eq!("max".parse::<Regime>(), Ok(Regime::FlatOut));
        assert_eq!("22k".parse::<Regime>(), Ok(Regime::SEED));
        assert!("fast".parse::<Regime>().is_err());
        assert_eq!(Regime::FlatOut.to_string(), "flat out");
        assert_eq!(Regime::SEED.to_string(), "paced at 22.0k/s per thread");
        let (rate, arrivals) = (1e6, Arrivals::Poisson);
        let irregular = Regime::Paced { rate, arrivals };
        let text = "paced at 1.00M/s per thread, poisson arrivals";
        assert_eq!(irregular.to_string(), text);
        let rates = (Regime::FlatOut.rate(), irregular.rate());
        assert_eq!(rates, (None, Some(1e6)));
        assert!(irregular.is_paced() && !Regime::FlatOut.is_paced());
        assert_eq!("poisson".parse::<Arrivals>(), Ok(Arrivals::Poisson));
        assert_eq!("paced".parse::<Arrivals>(), Ok(Arrivals::Paced));
        let even = "even".parse::<Arrivals>().unwrap_err().to_string();
        let want = "unknown arrivals \"even\" (expected paced or poisson)";
        assert_eq!(even, want);
        let json = |r: Regime| serde_json::to_string(&r).unwrap();
        let back = |s: &str| serde_json::from_str::<Regime>(s).unwrap();
        assert_eq!(
            [json(Regime::FlatOut), json(Regime::SEED)],
            ["null", "22000.0"]
        );
        assert_eq!(
            [back("null"), back("22000")],
            [Regime::FlatOut, Regime::SEED]
        );
        let (rate, arrivals) = (1e5, Arrivals::Poisson);
        let irregular = Regime::Paced { rate, arrivals };
        assert_eq!(json(irregular), r#"{"rate":100000.0,"arrivals":"poisson"}"#);
        assert_eq!(back(&json(irregular)), irregular);
        assert!(serde_json::from_str::<Regime>(r#""fast""#).is_err());
    }
}
