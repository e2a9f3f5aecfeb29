//! Verdict lines: the answer a result gives, in words and numbers, and
//! only as far as the statistics support it.
//!
//! A run ends with 3 to 6 `verdict:` lines: which level × policy gives the
//! most updates/s (under `--rate`: the cheapest update) and which the
//! cheapest read side, at what staleness, whether splitting (node, llc,
//! cpu) adds anything beyond `ratelimit:1ms`, and whether the write and
//! the read side agree. A sweep says where throughput stops scaling per
//! affinity set, and with a rate axis what each strategy costs at the rate
//! closest to the seed's 22k/s per thread and in hammer mode. A matrix
//! keeps its advice line.
//!
//! Every claim rests on the rule of `contend compare`
//! ([`crate::stats::Decision::decide`]): Welch's t-test on the repeats, the
//! p-values Holm-adjusted over every test one verdict makes, and the
//! default ±2% noise threshold. A winner is named only when it beats the
//! runner-up by that rule; otherwise the line says "no measurable
//! difference between A and B" and why (within the noise threshold, or
//! inconclusive).

mod matrix;
mod run;
mod sweep;

pub use matrix::matrix_lines;
pub use run::{
    BUSY, Call, Candidate, Measure, READER_NS, Ranking, RunInput, RunVerdict, SAMPLED_READ_NS,
    SplitCheck, UPDATES, decide_run, run_input, run_lines,
};
pub use sweep::{Scaling, scaling, sweep_lines};

use crate::compare::DEFAULT_NOISE_THRESHOLD_PCT;
use crate::stats::{Decision, Difference, Summary, holm_adjusted};
use std::fmt;

/// The noise threshold verdicts use, % of the base mean (`contend
/// compare`'s default).
pub const NOISE_THRESHOLD_PCT: f64 = DEFAULT_NOISE_THRESHOLD_PCT;

/// The policy splitting is weighed against: the merged kernel fix
/// (commit 1528c661c24b).
pub const RATELIMIT: &str = "ratelimit:1ms";

/// What a verdict line answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    /// The write side's winner (most updates/s, or the cheapest update
    /// under `--rate`).
    Write,
    /// The read side's winner.
    Read,
    /// The staleness readers saw under the winners.
    Staleness,
    /// Whether splitting adds anything beyond `ratelimit:1ms`.
    Split,
    /// Whether the write and the read side agree.
    Sides,
    /// Where a sweep's throughput stops scaling.
    Scaling,
    /// A sweep's cost and CPU share at a rate, and in hammer mode.
    Rate,
    /// The matrix's split advice.
    Advice,
}

/// One `verdict:` line.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// What it answers.
    pub topic: Topic,
    /// The answer, without the `verdict: ` label.
    pub text: String,
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "verdict: {}", self.text)
    }
}

impl Line {
    fn new(topic: Topic, text: impl Into<String>) -> Self {
        Line {
            topic,
            text: text.into(),
        }
    }
}

/// One difference the verdict tested, decided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Test {
    /// Test against base: change, interval, Welch.
    pub difference: Difference,
    /// Holm-adjusted p-value over the verdict's tests (`None`: fewer than
    /// two repeats on a side, no test).
    pub p_adjusted: Option<f64>,
    /// The rule's outcome.
    pub verdict: Decision,
}

impl Test {
    /// `+12.0% [+10.1%, +13.9%], p<0.001`; `+3.0% (n<2: no test)` without
    /// a test.
    pub fn text(&self) -> String {
        let d = &self.difference;
        let Some(change) = d.change_pct else {
            return "base mean is 0".to_string();
        };
        match (d.ci95_pct, self.p_adjusted) {
            (Some((lo, hi)), Some(p)) => {
                let n = percent_decimals(hi - lo);
                format!("{change:+.n$}% [{lo:+.n$}%, {hi:+.n$}%], {}", p_text(p))
            }
            _ => format!("{change:+.1}% (fewer than 2 repeats: no test)"),
        }
    }

    /// Why a difference is not a claim: within the noise threshold or
    /// inconclusive.
    fn why_not(&self) -> String {
        match self.verdict {
            Decision::NoChange => format!("within the ±{NOISE_THRESHOLD_PCT}% noise threshold"),
            _ => "inconclusive".to_string(),
        }
    }
}

/// Holm–Bonferroni over every difference one verdict tests.
#[derive(Default)]
struct Family {
    diffs: Vec<Difference>,
}

impl Family {
    fn add(&mut self, base: &Summary, test: &Summary) -> usize {
        self.diffs.push(Difference::of(base, test));
        self.diffs.len() - 1
    }

    fn decide(&self) -> Vec<Test> {
        let raw: Vec<f64> = self
            .diffs
            .iter()
            .filter_map(|d| d.welch)
            .map(|w| w.p)
            .collect();
        let mut adjusted = holm_adjusted(&raw).into_iter();
        self.diffs
            .iter()
            .map(|d| {
                let p = d.welch.map(|_| adjusted.next().expect("one per test"));
                Test {
                    difference: *d,
                    p_adjusted: p,
                    verdict: Decision::decide(d, NOISE_THRESHOLD_PCT, p.unwrap_or(1.0)),
                }
            })
            .collect()
    }
}

/// True when `verdict` on (test − base) means the test side is better.
fn is_better(verdict: Decision, higher_is_better: bool) -> bool {
    matches!(
        (verdict, higher_is_better),
        (Decision::Increase, true) | (Decision::Decrease, false)
    )
}

/// `58.2M`, `22.0k`, `123`, `34.5`, `0.128`.
pub fn num(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.2}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.2}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.1}k", v / 1e3)
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// A percentage with decimals enough for small values (`0.1275%`).
fn pct(v: f64) -> String {
    if v.abs() >= 10.0 {
        format!("{v:.1}%")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}%")
    } else {
        format!("{v:.4}%")
    }
}

/// `p<0.001` or `p=0.012`.
fn p_text(p: f64) -> String {
    if p < 0.001 {
        "p<0.001".to_string()
    } else {
        format!("p={p:.3}")
    }
}

/// Decimals for a percentage whose interval is `width` wide (1 to 3), as
/// `contend compare` prints them.
fn percent_decimals(width: f64) -> usize {
    let half = width / 2.0;
    if half.is_nan() || half <= 0.0 || half.is_infinite() {
        return 1;
    }
    (1.0 - half.log10().floor()).clamp(1.0, 3.0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(num(58_170_964.0), "58.17M");
        assert_eq!(num(22_000.0), "22.0k");
        assert_eq!(num(975.0), "975");
        assert_eq!(num(34.54), "34.5");
        assert_eq!(num(0.1275), "0.128");
        assert_eq!(pct(0.1275), "0.1275%");
        assert_eq!(pct(6.5569), "6.56%");
    }
}
