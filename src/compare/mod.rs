//! `contend compare`'s model: two sides paired strategy by strategy within each regime, each pair
//! judged on its cost over the whole comparison, at the run level across runs
//! ([`crate::stats::runs_difference`]) or on the repeats of one run; rendering lives in
//! [`crate::report`].

mod caveats;
mod result;
mod side;

mod record;

pub use caveats::machine_changed;
pub use record::{HostRecord, RECORD_FILE, RECORD_SCHEMA, RecordRow, run_of};
pub use result::{Comparison, MeasureRow, Pair};
pub use side::Side;

use crate::runner::{MEASURES, Measure, PACED, StrategyResult, cost_measure};
use crate::stats::{
    Decision, Difference, Level, NoiseThreshold, Outcome, Run, Spread, Summary, Threshold,
    decide_differences, runs_difference, t_quantile_975,
};
use crate::workload::Regime;
use caveats::warnings;
use side::{in_every_run, short_names};
use std::path::PathBuf;

/// The measures set side by side for a pair measured in `regime`, its cost first
/// (tests/snapshots/compare-runs-verbose.txt lists them for each pair).
pub fn compared_measures(regime: Regime) -> Vec<&'static Measure> {
    match regime {
        Regime::FlatOut => vec![cost_measure(regime), &MEASURES[0], &MEASURES[1]],
        Regime::Paced { .. } => vec![cost_measure(regime), &PACED[1]],
    }
}

/// One row per compared measure of a pair: both sides' summaries and the difference, undecided
/// (inconclusive, untested) at `noise` until [`decide`] decides the judged rows.
fn rows_of(
    (base, test): (&StrategyResult, &StrategyResult),
    sides: (&Side, &Side),
    across_runs: bool,
    record: Option<&HostRecord>,
    noise: NoiseThreshold,
) -> Vec<MeasureRow> {
    compared_measures(base.regime)
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let (mut b, mut t, mut runs) = (m.of(base), m.of(test), None);
            let difference = if across_runs {
                let of = |side: &Side, s| -> Vec<Run> {
                    let each = in_every_run(&side.runs, s).into_iter();
                    each.filter_map(|o| run_of(o, m)).collect()
                };
                let spread = record.and_then(|r| r.spread(base, m));
                runs = runs_difference(&of(sides.0, base), &of(sides.1, test), spread);
                runs.map(|d| {
                    b = Some(level_summary(&d.base, d.spread));
                    t = Some(level_summary(&d.test, d.spread));
                    Difference::of_runs(d.base.mean, d.welch, d.test.mean - d.base.mean)
                })
            } else {
                let paired = m.paired(&sides.0.run.config, base, test);
                b.zip(t).map(|(b, t)| match paired {
                    Some(d) => Difference::paired(&b, &d),
                    None => Difference::of(&b, &t),
                })
            };
            let outcome = difference.map(|difference| Outcome {
                difference,
                p_adjusted: None,
                decision: Decision::Inconclusive,
                threshold: m.floor.threshold(noise, base.regime),
            });
            MeasureRow {
                measure: m,
                base: b,
                test: t,
                runs,
                judged: i == 0,
                outcome,
                machine_changed: None,
            }
        })
        .collect()
}

/// A side's figure at the run level, as tables show it.
fn level_summary(level: &Level, spread: Option<Spread>) -> Summary {
    let (sd, half) = spread.map_or((0.0, 0.0), |s| {
        let half = t_quantile_975(s.df() as f64) * s.sd / (level.runs as f64).sqrt();
        (s.sd, half)
    });
    Summary {
        n: level.runs,
        mean: level.mean,
        stddev: sd,
        stddev_pct: 100.0 * sd / level.mean.abs(),
        ci95_low: level.mean - half,
        ci95_high: level.mean + half,
        min: level.mean - half,
        max: level.mean + half,
    }
}

/// Why two results cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A selector picks no strategy of its file, or starts the short names of several.
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
        /// True when it starts several short names (`names`).
        ambiguous: bool,
        /// The candidates, by short name.
        names: Vec<String>,
    },
    /// A run of a side is not a replicate of the side's first run.
    #[error(
        "{option}: {} is not a replicate of {} ({what}): the runs of one side must repeat one experiment on one host with one contend build",
        odd.display(),
        first.display()
    )]
    Replicate {
        /// `--base` or `--test` (the side).
        option: &'static str,
        /// The run that differs.
        odd: PathBuf,
        /// The side's first run.
        first: PathBuf,
        /// What differs, in words.
        what: String,
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
    /// Pairs the strategies of both sides by key and regime and decides each pair on its cost,
    /// Holm-adjusted over every pair at `noise`: on the repeats within one run, else on runs.
    pub fn new(
        base: Side<'a>,
        test: Side<'a>,
        noise: NoiseThreshold,
        record: Option<&(PathBuf, HostRecord)>,
    ) -> Result<Self, CompareError> {
        let base_picked = base.picked("--base")?;
        let test_picked = test.picked("--test")?;
        let across_runs = base.runs.len() > 1 || test.runs.len() > 1 || base.path != test.path;
        let record = record.filter(|_| across_runs);
        let groups = test.selectors.len().max(1);
        let mut used = vec![false; test_picked.len()];
        let mut paired = vec![false; base_picked.len()];
        let mut pairs = Vec::new();
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
                        rows: rows_of(
                            (b.strategy, t.strategy),
                            (&base, &test),
                            across_runs,
                            record.map(|r| &r.1),
                            noise,
                        ),
                    });
                }
            }
        }
        let unmatched = |side: &Side, picked: &[side::Pick], matched: &[bool]| -> Vec<String> {
            let picks = picked.iter().zip(matched).filter(|(_, matched)| !**matched);
            picks
                .map(|(p, _)| side.run.short_label(p.strategy))
                .collect()
        };
        let only_base = unmatched(&base, &base_picked, &paired);
        let only_test = unmatched(&test, &test_picked, &used);
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
        decide(&mut pairs);
        let mut warnings = warnings(&base, &test);
        if across_runs && let Some(why) = machine_changed(&base, &test) {
            unclaim(&mut pairs, &why);
            warnings.push(format!(
                "{why}: changes between these runs cannot be told from the machine's; compare strategies inside one run (contend compare FILE --base A --test B), where drift hits both sides alike"
            ));
        }
        Ok(Comparison {
            base,
            test,
            across_runs,
            record: record.map(|(path, r)| r.describe(path)),
            pairs,
            only_base,
            only_test,
            warnings,
            noise,
        })
    }
}

/// Takes back every change called in `pairs`.
fn unclaim(pairs: &mut [Pair], why: &str) {
    for row in pairs.iter_mut().flat_map(|p| &mut p.rows) {
        if let Some(o) = row
            .outcome
            .as_mut()
            .filter(|o| matches!(o.decision, Decision::Increase | Decision::Decrease))
        {
            o.decision = Decision::Inconclusive;
            row.machine_changed = Some(why.to_string());
        }
    }
}

/// Decides every judged row of `pairs` in one family.
fn decide(pairs: &mut [Pair]) {
    let rows = pairs
        .iter_mut()
        .flat_map(|p| &mut p.rows)
        .filter(|r| r.judged);
    let mut judged: Vec<&mut Outcome> = rows.filter_map(|r| r.outcome.as_mut()).collect();
    let family: Vec<(Difference, Threshold)> =
        judged.iter().map(|o| (o.difference, o.threshold)).collect();
    for (o, decided) in judged.iter_mut().zip(decide_differences(&family)) {
        **o = decided;
    }
}
