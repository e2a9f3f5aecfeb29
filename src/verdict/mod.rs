//! Verdicts: what a result concludes, in words and numbers, and only as far as the statistics
//! support it; for a run, also what the verdict rests on ([`basis`]).

pub mod basis;
mod gallery;
mod headline;
mod host;
mod matrix;
mod predict;
mod run;
mod study;
mod sweep;
#[cfg(test)]
mod tests;

pub use gallery::gallery_headline;
pub use headline::{Headline, headline};
pub use matrix::matrix_lines;
pub use predict::{
    check_lines, cost_cells, predict_lines, range_text, rho_text, saturation_text,
    sensitivity_cell, share_text,
};
pub use run::run_lines;
pub use study::study_lines;
pub use sweep::sweep_lines;

use crate::counter::{Filter, PublishPolicy};
use crate::runner::Floor;
use crate::stats::{Compared, Decision, Direction, NOISE_THRESHOLD, Outcome, Summary};
use crate::units::{Unit, human, si};
use crate::workload::Regime;
use std::fmt;
use std::time::Duration;

/// The plain shared counter's policy: an atomic add on every update.
pub const PLAIN: PublishPolicy = PublishPolicy::ALWAYS;

/// The kernel's counter before v6.7: publish when |delta| > contrib/64.
/// `global/threshold:64` is what every other strategy is weighed against
/// when the run has it (else the plain counter, `global/always`).
pub const BEFORE_FIX: PublishPolicy = PublishPolicy {
    ratelimit: None,
    filter: Filter::Threshold(64),
};

/// The merged fix (commit 1528c661c24b, v6.7): the same threshold, at
/// most once per millisecond per CPU. Splitting is weighed against
/// `global/ratelimit:1ms+threshold:64` when the run has it (else against
/// a bare ratelimit, [`RATELIMIT`]).
pub const MERGED_FIX: PublishPolicy = PublishPolicy {
    ratelimit: Some(Duration::from_millis(1)),
    filter: Filter::Threshold(64),
};

/// A bare 1 ms ratelimit, what splitting is weighed against in a run
/// without the merged fix.
pub const RATELIMIT: PublishPolicy = PublishPolicy {
    ratelimit: Some(Duration::from_millis(1)),
    filter: Filter::Changed,
};

/// What a verdict line answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    /// Flat out: the strategy with the most updates/s (the least loop
    /// ns/op), and that throughput.
    Saturation,
    /// Flat out: updates per ownership of the line under `global/always`.
    Ownership,
    /// Paced: the net cost per update and CPU share of the reference
    /// (`global/threshold:64`, else `global/always`) and of the cheapest
    /// strategy.
    Cost,
    /// What the merged fix, the other policies and each split save
    /// against the reference (`global/threshold:64`, else
    /// `global/always`).
    Savings,
    /// What splitting saves beyond the merged fix (or a bare ratelimit).
    BeyondRatelimit,
    /// Each node's cost, local against remote to the counter's memory
    /// (runs whose writers span two or more nodes).
    Nodes,
    /// The cheapest read, from reader threads' throughput (`--readers`).
    Read,
    /// What this host cannot answer: levels that equal global here.
    Host,
    /// Where a sweep's throughput stops scaling.
    Scaling,
    /// A sweep's cost and CPU share at a rate, and flat out.
    Rate,
    /// The matrix's split advice.
    Advice,
    /// A prediction: how busy the hot line is and what each strategy
    /// does to that (`contend predict`).
    Prediction,
}

/// One `verdict:` line.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// What it answers.
    pub topic: Topic,
    /// The answer, without the `verdict: ` label, with every test's
    /// interval and p-value.
    pub text: String,
    /// The same answer with each test's change alone (no interval, no
    /// p-value), where it has tests: what a first screen shows, the
    /// statistics behind it (`--verbose`, the page's folded list).
    pub brief: Option<String>,
}

/// How much of a test a verdict line shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// The change alone: `+18.7%`.
    Brief,
    /// The change, its 95% interval and the adjusted p-value.
    Full,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "verdict: {}", self.text)
    }
}

impl Verdict {
    fn new(topic: Topic, text: impl Into<String>) -> Self {
        Verdict {
            topic,
            text: text.into(),
            brief: None,
        }
    }

    /// This verdict with `brief` as its brief form, kept only where it
    /// differs from the full text.
    fn with_brief(mut self, brief: String) -> Self {
        self.brief = (brief != self.text).then_some(brief);
        self
    }

    /// The brief form where there is one, else the full text.
    pub fn brief_text(&self) -> &str {
        self.brief.as_deref().unwrap_or(&self.text)
    }
}

/// One difference a verdict tested, decided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Test {
    /// Test against base, decided over the verdict's family.
    pub outcome: Outcome,
    /// The unit of the measure, for a change shown in it rather than in %
    /// (a base mean of 0 or below, as a net cost near 0 can have).
    pub unit: &'static str,
    /// The regime it was measured in.
    pub regime: Regime,
    /// How much of it a verdict line shows.
    pub detail: Detail,
}

impl Test {
    /// `+12.0% [+10.1%, +13.9%], p<0.001`; `+3.0% (fewer than 2 repeats:
    /// no test)` without a test; `-0.30 ns [-0.52, -0.08], p=0.010` when
    /// the base mean is 0 or below (no percentage of it makes sense).
    pub fn text(&self) -> String {
        let o = &self.outcome;
        match (o.p_adjusted, o.difference.change_pct) {
            (Some(_), _) => format!("{}, {}", o.change_text(self.unit), o.p_text()),
            (None, Some(_)) => format!(
                "{} (fewer than 2 repeats: no test)",
                o.change_text(self.unit)
            ),
            (None, None) => "fewer than 2 repeats: no test".to_string(),
        }
    }

    /// The test as its `detail` asks: [`Test::text`] in full; briefly the change alone, `+18.7%`
    /// (`-0.30 ns` against a base at or below 0).
    pub fn shown(&self) -> String {
        match self.detail {
            Detail::Full => self.text(),
            Detail::Brief => self.claim(),
        }
    }

    /// A claim's size and, in full, its significance: `-93.5%, p<0.001`, or `-0.40 ns, p<0.001`
    /// against a base at or below 0. The interval, which [`Test::text`] adds, lies beyond the noise
    /// threshold by the rule, so a claim leaves it out.
    pub fn claim(&self) -> String {
        let o = &self.outcome;
        let p = match (self.detail, o.p_adjusted) {
            (Detail::Full, Some(_)) => format!(", {}", o.p_text()),
            _ => String::new(),
        };
        match (o.difference.change_pct, o.difference.welch) {
            (Some(change), _) => format!("{change:+.1}%{p}"),
            (None, Some(w)) => format!("{:+.2} {}{p}", w.difference, self.unit),
            (None, None) => "fewer than 2 repeats: no test".to_string(),
        }
    }

    /// The tested difference, `test − base` (0 without a test).
    fn diff(&self) -> f64 {
        self.outcome.difference.welch.map_or(0.0, |w| w.difference)
    }

    /// `{head}` and the change claimed, `less` or `more` with its size in place of `{}` (`x saves
    /// 5 ns (-12%)`), or `{head}: no practical difference (change, why not)`.
    fn said(&self, head: &str, [less, more]: [&str; 2]) -> String {
        let diff = self.diff();
        let (word, size) = match self.outcome.decision {
            Decision::Decrease => (less, -diff),
            Decision::Increase => (more, diff),
            _ => {
                let (shown, why) = (self.shown(), self.why_not());
                return format!("{head}: {} ({shown}, {why})", self.no_claim());
            }
        };
        let claim = self.claim();
        format!("{head}{} ({claim})", word.replace("{}", &si(size)))
    }

    /// What a difference that is not a claim is called, in the words of
    /// [`crate::stats::Outcome::word`]: `no practical difference` or `no
    /// change` only where the whole interval lies within the threshold,
    /// else `inconclusive`.
    fn no_claim(&self) -> &'static str {
        self.outcome.word(Direction::LowerIsBetter)
    }

    /// Why a difference is not a claim: its interval within the ns floor
    /// (`< 1 ns per update, < 0.0022% CPU`) or within the noise threshold;
    /// or, inconclusive, its interval reaching across the threshold, or
    /// lying beyond it without significance after Holm's correction.
    fn why_not(&self) -> String {
        let o = &self.outcome;
        let ns = NOISE_THRESHOLD.ns;
        let base = o.difference.base_mean;
        let threshold = if o.threshold.absolute_at(base) {
            format!("±{} ns", o.threshold.abs)
        } else {
            format!("±{}%", o.threshold.pct)
        };
        match o.decision {
            Decision::NoChange if o.practically_none() => {
                let cpu = self.regime.rate().map_or(String::new(), |r| {
                    format!(", < {} CPU", human(ns * r * 1e-7, Unit::Percent))
                });
                format!("< {ns} ns per update{cpu}")
            }
            Decision::NoChange => format!("within the {threshold} noise threshold"),
            _ if o.p_adjusted.is_none() => "no test".to_string(),
            _ if o.beyond_threshold() => {
                format!("beyond the {threshold} noise threshold but not significant")
            }
            _ => format!("its interval reaches across the {threshold} noise threshold"),
        }
    }
}

/// The differences one verdict tests, in one regime, decided together
/// ([`crate::stats::decide_paired`]) at the default noise threshold.
#[derive(Default)]
struct Family {
    regime: Regime,
    pairs: Vec<Compared>,
    units: Vec<&'static str>,
}

impl Family {
    /// Adds the test of `test` against `base`, both in `unit`, decided with `floor`'s threshold,
    /// paired on `paired` (`test − base` repeat by repeat) where the two ran in place in the same
    /// repeats; returns its index in [`Family::decide`]'s answer.
    fn add_paired(
        &mut self,
        base: &Summary,
        test: &Summary,
        paired: Option<Summary>,
        unit: &'static str,
        floor: Floor,
    ) -> usize {
        self.pairs.push(Compared {
            base: *base,
            test: *test,
            paired,
            threshold: floor.threshold(NOISE_THRESHOLD, self.regime),
        });
        self.units.push(unit);
        self.pairs.len() - 1
    }

    /// Every test added, decided with the p-values Holm-adjusted together.
    fn decide(&self) -> Vec<Test> {
        crate::stats::decide_paired(&self.pairs)
            .into_iter()
            .zip(&self.units)
            .map(|(outcome, &unit)| Test {
                outcome,
                unit,
                regime: self.regime,
                detail: Detail::Full,
            })
            .collect()
    }
}

/// `1 node`, `2 nodes`: a count and its noun.
pub fn plural(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}
