//! `contend compare`'s model: two result files (or two sets of strategies
//! in one) paired strategy by strategy within each regime (flat out, or
//! paced at one rate), every compared measure decided by
//! [`crate::stats::decide_paired`] over the whole comparison (Welch's
//! t-test on the repeats, or, for two strategies of one run measured in
//! place in the same repeats, the paired t-test on their per-repeat
//! differences; Holm-adjusted, a noise threshold): change, no change or
//! inconclusive. Rendering lives in [`crate::report`].

mod caveats;
mod result;
mod side;

pub use caveats::machine_changed;
pub use result::{Comparison, MeasureRow, Pair};
pub use side::Side;

use crate::runner::{MEASURES, Measure, PACED, RunConfig, StrategyResult, cost_measure};
use crate::stats::{Compared, Decision, NoiseThreshold};
use crate::workload::Regime;
use caveats::{unrecorded, warnings};
use side::short_names;
use std::path::PathBuf;

/// The measures set side by side for a pair measured in `regime`: first
/// the cost of one update, [`cost_measure`] (ns/op from throughput flat
/// out, net busy ns per update paced; never the sampled ns, which the
/// fence perturbs); then, flat out, updates/s and read ops/s; paced, where
/// ops/s is the pacing rate, the net CPU share (%).
pub fn compared_measures(regime: Regime) -> Vec<&'static Measure> {
    match regime {
        Regime::FlatOut => vec![cost_measure(regime), &MEASURES[0], &MEASURES[1]],
        Regime::Paced { .. } => vec![cost_measure(regime), &PACED[1]],
    }
}

/// One row per compared measure of a pair: both sides' summaries, their
/// per-repeat difference where both sides ran in place in the same
/// repeats of one run (`one_run`: its configuration, when both sides are
/// the same file; [`Measure::paired`]), and their difference; the p-value
/// correction and the verdicts come later, over all rows of the
/// comparison.
fn rows_of(
    base: &StrategyResult,
    test: &StrategyResult,
    one_run: Option<&RunConfig>,
) -> Vec<MeasureRow> {
    compared_measures(base.regime)
        .into_iter()
        .map(|m| MeasureRow {
            measure: m,
            base: m.of(base),
            test: m.of(test),
            paired: one_run.and_then(|config| m.paired(config, base, test)),
            outcome: None,
            machine_changed: None,
        })
        .collect()
}

/// Why two results cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A selector picks no strategy of its file, or starts the short names
    /// of several.
    #[error(
        "{option} {selector} {} in {}: {}",
        if *ambiguous { "is ambiguous" } else { "matches no strategy" },
        path.display(),
        if *ambiguous { format!("it starts {}", names.join(", ")) } else { format!("it has {}", names.join(", ")) }
    )]
    Selector {
        /// `--base` or `--test`.
        option: &'static str,
        /// The selector.
        selector: String,
        /// The file.
        path: PathBuf,
        /// True when it starts several short names (`names`); else it
        /// matches none, and `names` are every strategy of the file.
        ambiguous: bool,
        /// The candidates, by short name.
        names: Vec<String>,
    },
    /// No strategy of one side has a partner on the other.
    #[error("nothing to compare: no strategy of {} matches one of {} in the same regime (base has {}; test has {})", base.display(), test.display(), base_names.join(", "), test_names.join(", "))]
    NoPair {
        /// The base file.
        base: PathBuf,
        /// The test file.
        test: PathBuf,
        /// The base side's strategies, by short name.
        base_names: Vec<String>,
        /// The test side's strategies, by short name.
        test_names: Vec<String>,
    },
}

impl<'a> Comparison<'a> {
    /// Pairs the strategies of both sides by key and regime (a run of two
    /// regimes pairs each with the same regime of the other side; with
    /// `--base`/`--test` in one file, within a regime), each test selector
    /// (`--test B,C`) with the base on its own, tests every compared
    /// measure of every pair, Holm-adjusts the p-values over all those
    /// tests and decides each row's verdict at `noise` (its percentage;
    /// its ns per update for a paced cost, or what they take of a CPU for
    /// a CPU share: [`crate::runner::Measure::threshold`]). A selector
    /// that picks nothing or is ambiguous, or no pair at all, is bad
    /// input.
    pub fn new(
        base: Side<'a>,
        test: Side<'a>,
        noise: NoiseThreshold,
    ) -> Result<Self, CompareError> {
        let base_picked = base.picked("--base")?;
        let test_picked = test.picked("--test")?;
        let groups = test.selectors.len().max(1);
        let mut used = vec![false; test_picked.len()];
        let mut paired = vec![false; base_picked.len()];
        let mut pairs = Vec::new();
        let one_run = (base.path == test.path).then_some(&base.run.config);
        for group in 0..groups {
            for (bi, b) in base_picked.iter().enumerate() {
                let found = test_picked.iter().enumerate().find(|(i, t)| {
                    !used[*i]
                        && t.group == group
                        && t.key == b.key
                        && t.strategy.regime == b.strategy.regime
                });
                if let Some((i, t)) = found {
                    used[i] = true;
                    paired[bi] = true;
                    pairs.push(Pair {
                        base: b.strategy,
                        test: t.strategy,
                        rows: rows_of(b.strategy, t.strategy, one_run),
                    });
                }
            }
        }
        let only_base: Vec<String> = base_picked
            .iter()
            .zip(&paired)
            .filter(|(_, paired)| !**paired)
            .map(|(b, _)| base.run.short_label(b.strategy))
            .collect();
        let only_test: Vec<String> = test_picked
            .iter()
            .zip(&used)
            .filter(|(_, used)| !**used)
            .map(|(t, _)| test.run.short_label(t.strategy))
            .collect();
        if pairs.is_empty() {
            return Err(CompareError::NoPair {
                base: base.path.clone(),
                test: test.path.clone(),
                base_names: short_names(base.run),
                test_names: short_names(test.run),
            });
        }
        // Each base strategy's pairs together, in the base side's order.
        pairs.sort_by_key(|p| {
            base_picked
                .iter()
                .position(|b| std::ptr::eq(b.strategy, p.base))
        });
        let tests = decide(&mut pairs, noise);
        let notes = unrecorded(&pairs, &base, &test);
        let mut warnings = warnings(&base, &test);
        if base.path != test.path {
            if let Some(why) = machine_changed(base.run, test.run) {
                for row in pairs.iter_mut().flat_map(|p| &mut p.rows) {
                    if let Some(o) = row
                        .outcome
                        .as_mut()
                        .filter(|o| matches!(o.decision, Decision::Increase | Decision::Decrease))
                    {
                        o.decision = Decision::Inconclusive;
                        row.machine_changed = Some(why.clone());
                    }
                }
                warnings.push(format!(
                    "{why}: changes between these files cannot be told from the machine's; compare strategies inside one run (contend compare FILE --base A --test B), where drift hits both sides alike"
                ));
            }
        }
        Ok(Comparison {
            base,
            test,
            pairs,
            only_base,
            only_test,
            warnings,
            notes,
            noise,
            tests,
        })
    }
}

/// Decides every recorded row of `pairs` in one family
/// ([`crate::stats::decide_paired`]: a row of two strategies run in place
/// in the same repeats on its per-repeat differences, any other by
/// Welch's test); returns the number of tests.
fn decide(pairs: &mut [Pair], noise: NoiseThreshold) -> usize {
    let family: Vec<Compared> = pairs
        .iter()
        .flat_map(|p| p.rows.iter().map(move |r| (r, p.base.regime)))
        .filter_map(|(r, regime)| {
            Some(Compared {
                base: r.base?,
                test: r.test?,
                paired: r.paired,
                threshold: r.measure.threshold(noise, regime),
            })
        })
        .collect();
    let mut outcomes = crate::stats::decide_paired(&family).into_iter();
    let mut tests = 0;
    for row in pairs.iter_mut().flat_map(|p| &mut p.rows) {
        if row.base.is_some() && row.test.is_some() {
            row.outcome = outcomes.next();
            tests += usize::from(row.outcome.is_some_and(|o| o.p_adjusted.is_some()));
        }
    }
    tests
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::Direction;

    #[test]
    fn compared_measures_lead_with_the_cost_of_its_regime_and_are_never_sampled() {
        let better = |rate| -> Vec<(&str, Direction)> {
            compared_measures(rate)
                .iter()
                .map(|m| (m.short, m.direction))
                .collect()
        };
        assert_eq!(
            better(Regime::FlatOut),
            [
                ("loop ns/op", Direction::LowerIsBetter),
                ("updates/s", Direction::HigherIsBetter),
                ("read ops/s", Direction::HigherIsBetter)
            ]
        );
        assert_eq!(
            better(Regime::SEED),
            [
                ("net ns/update", Direction::LowerIsBetter),
                ("net CPU %", Direction::LowerIsBetter)
            ]
        );
        for regime in [Regime::FlatOut, Regime::paced(1e6)] {
            assert_eq!(
                compared_measures(regime)[0].title,
                cost_measure(regime).title
            );
            assert!(compared_measures(regime).iter().all(|m| !m.sampled));
        }
    }
}
