//! `contend compare`'s model: two result files (or two sets of strategies
//! in one) paired strategy by strategy within each regime (flat out, or
//! paced at one rate), every compared measure decided by
//! [`crate::stats::decide`] over the whole comparison (Welch's t-test on
//! the repeats, Holm-adjusted, a noise threshold): change, no change or
//! inconclusive. Rendering lives in [`crate::report`].

use crate::provenance::Provenance;
use crate::runner::{
    MEASURES, Measure, PACED, RunConfig, RunResults, SCHEMA_VERSION, StrategyResult, cost_measure,
};
use crate::stats::{Decision, Outcome, SIGNIFICANCE_LEVEL, Summary};
use crate::workload::Regime;
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

/// One side of the comparison: a file and which of its strategies.
pub struct Side<'a> {
    /// The file read.
    pub path: PathBuf,
    /// Its contents.
    pub run: &'a RunResults,
    /// `--base`/`--test`; `None` takes every strategy.
    pub selector: Option<&'a str>,
}

impl<'a> Side<'a> {
    /// The strategies the selector picks, each with its matching key
    /// (its regime is matched too: see [`Comparison::new`]).
    fn picked(&self) -> Vec<(String, &'a StrategyResult)> {
        self.run
            .strategies
            .iter()
            .filter_map(|s| Some((match_key(&s.name, self.selector)?, s)))
            .collect()
    }

    /// `path` (or `selector in path`) and where it ran; with `code`, the
    /// path and selector as Markdown code.
    pub fn describe(&self, code: bool) -> String {
        let p = &self.run.provenance;
        let quote = |s: String| if code { format!("`{s}`") } else { s };
        format!(
            "{}{}: contend {} ({}) on {} ({}), Linux {}, {}, {} repeat{}",
            self.selector
                .map_or(String::new(), |s| format!("{} in ", quote(s.to_string()))),
            quote(self.path.display().to_string()),
            p.contend_version,
            p.git_commit,
            p.hostname,
            p.cpu_model,
            p.kernel_release,
            p.started_utc,
            self.run.config.repeats,
            if self.run.config.repeats == 1 {
                ""
            } else {
                "s"
            }
        )
    }
}

/// The key a strategy is matched on: its name with the selector's
/// components replaced by `*` (`global/always/pad128` under `global` is
/// `*/always/pad128`), or the whole name without a selector. `None` when
/// the selector is not a run of the name's `/`-separated components.
fn match_key(name: &str, selector: Option<&str>) -> Option<String> {
    let Some(selector) = selector else {
        return Some(name.to_string());
    };
    let parts: Vec<&str> = name.split('/').collect();
    let wanted: Vec<&str> = selector.split('/').collect();
    let at = parts.windows(wanted.len()).position(|w| w == wanted)?;
    let mut key: Vec<&str> = parts[..at].to_vec();
    key.push("*");
    key.extend(&parts[at + wanted.len()..]);
    Some(key.join("/"))
}

/// A base strategy and the test strategy it is compared with.
pub struct Pair<'a> {
    /// The base side's strategy.
    pub base: &'a StrategyResult,
    /// The test side's strategy.
    pub test: &'a StrategyResult,
    /// One row per compared measure, with its verdict.
    pub rows: Vec<Row>,
}

impl Pair<'_> {
    /// `name`, or `base vs test` when the names differ; with `, paced at
    /// R/s per thread` for a paced pair, and `, flat out` for a flat-out
    /// one when `regimes` (the comparison holds a paced pair too).
    pub fn title(&self, regimes: bool) -> String {
        let mut title = if self.base.name == self.test.name {
            self.base.name.clone()
        } else {
            format!("{} vs {}", self.base.name, self.test.name)
        };
        if regimes || self.base.regime.is_paced() {
            title = format!("{title}, {}", self.base.regime);
        }
        title
    }
}

/// One row per compared measure of a pair: both sides' summaries and
/// their difference; the p-value correction and the verdicts come later,
/// over all rows of the comparison.
fn rows_of(base: &StrategyResult, test: &StrategyResult) -> Vec<Row> {
    compared_measures(base.regime)
        .into_iter()
        .map(|m| Row {
            measure: m,
            base: m.of(base),
            test: m.of(test),
            outcome: None,
            machine_changed: None,
        })
        .collect()
}

/// One measure of one pair.
pub struct Row {
    /// What is compared.
    pub measure: &'static Measure,
    /// The base side's summary over its repeats (`None`: not recorded).
    pub base: Option<Summary>,
    /// The test side's.
    pub test: Option<Summary>,
    /// The difference decided over every test of the comparison; `None`
    /// when a side did not record the measure.
    pub outcome: Option<Outcome>,
    /// Set when the statistics alone would call a change but the machine
    /// changed between the two files: why the verdict is inconclusive.
    pub machine_changed: Option<String>,
}

impl Row {
    /// The verdict in words: `faster`/`slower` for a throughput,
    /// `lower`/`higher` for ns/op, `no change`, `inconclusive`, or `not
    /// recorded`.
    pub fn verdict(&self) -> String {
        let up = self.measure.higher_is_better;
        match self.outcome.map(|o| o.decision) {
            None => "not recorded",
            Some(Decision::NoChange) => "no change",
            Some(Decision::Inconclusive) => match &self.machine_changed {
                Some(why) => return format!("inconclusive: {why}"),
                None => "inconclusive",
            },
            Some(Decision::Increase) if up => "faster",
            Some(Decision::Decrease) if up => "slower",
            Some(Decision::Increase) => "higher",
            Some(Decision::Decrease) => "lower",
        }
        .to_string()
    }

    /// The change and its 95% interval ([`Outcome::change_text`]), or
    /// empty when not recorded.
    pub fn change_text(&self) -> String {
        self.outcome
            .map_or(String::new(), |o| o.change_text(self.measure.unit.symbol()))
    }

    /// The Holm-adjusted p-value as printed ([`Outcome::p_text`]), or
    /// empty when not recorded.
    pub fn p_text(&self) -> String {
        self.outcome.map_or(String::new(), |o| o.p_text())
    }
}

/// Everything `contend compare` prints.
pub struct Comparison<'a> {
    /// The base side.
    pub base: Side<'a>,
    /// The test side.
    pub test: Side<'a>,
    /// Matched strategies (same key, same regime), in the base side's
    /// order.
    pub pairs: Vec<Pair<'a>>,
    /// Picked base strategies with no test counterpart in their regime,
    /// as listed (name, plus the regime when paced).
    pub only_base: Vec<String>,
    /// Picked test strategies with no base counterpart, likewise.
    pub only_test: Vec<String>,
    /// Differences in version, host or settings that make the comparison
    /// doubtful.
    pub warnings: Vec<String>,
    /// One line per side and compared measure that a side did not
    /// record, saying why (a file written before the measure was): the
    /// figure is shown as missing, never replaced by another.
    pub notes: Vec<String>,
    /// The noise threshold, in %: a smaller change is "no change".
    pub noise_threshold_pct: f64,
    /// How many Welch tests the comparison made (rows with two repeats or
    /// more on both sides): the m of the Holm–Bonferroni correction.
    pub tests: usize,
}

/// The canary medians of two files (ns) differ by more than this ratio:
/// the machine changed between them (as `runner::interference` marks
/// repeats within one run).
pub const MACHINE_CHANGE_RATIO: f64 = 1.5;

/// Why two files cannot be compared as the same machine, if they cannot:
/// their canary medians differ by more than [`MACHINE_CHANGE_RATIO`], or
/// their canary ranges do not even overlap and the medians differ by more
/// than 20%. `None` when either file has no canary (or they agree).
pub fn machine_changed(base: &RunResults, test: &RunResults) -> Option<String> {
    let (b, t) = (base.canary_range()?, test.canary_range()?);
    let ratio = b.median.max(t.median) / b.median.min(t.median);
    let disjoint = b.hi < t.lo || t.hi < b.lo;
    (ratio > MACHINE_CHANGE_RATIO || (disjoint && ratio > 1.2)).then(|| {
        format!(
            "the machine changed between runs (canary {:.1} vs {:.1} ns)",
            b.median, t.median
        )
    })
}

/// Why two results cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A selector picks no strategy of its file.
    #[error("{option} {selector} matches no strategy in {} (it has {})", path.display(), names.join(", "))]
    NoMatch {
        /// `--base` or `--test`.
        option: &'static str,
        /// The selector.
        selector: String,
        /// The file.
        path: PathBuf,
        /// Its strategies.
        names: Vec<String>,
    },
    /// No strategy of one side has a partner on the other.
    #[error("nothing to compare: no strategy of {} matches one of {} (base has {}; test has {})", base.display(), test.display(), base_names.join(", "), test_names.join(", "))]
    NoPair {
        /// The base file.
        base: PathBuf,
        /// The test file.
        test: PathBuf,
        /// The base side's strategies.
        base_names: Vec<String>,
        /// The test side's strategies.
        test_names: Vec<String>,
    },
}

impl<'a> Comparison<'a> {
    /// Pairs the strategies of both sides by key and regime (a run of two
    /// regimes pairs each with the same regime of the other side; with
    /// `--base`/`--test` in one file, within a regime), tests every compared
    /// measure of every pair, Holm-adjusts the p-values over all those
    /// tests and decides each row's verdict at `noise_threshold_pct` (a
    /// percentage, ≥ 0). A selector that picks nothing, or no pair at all,
    /// is bad input.
    pub fn new(
        base: Side<'a>,
        test: Side<'a>,
        noise_threshold_pct: f64,
    ) -> Result<Self, CompareError> {
        let base_picked = base.picked();
        let test_picked = test.picked();
        for (side, flag, picked) in [
            (&base, "--base", &base_picked),
            (&test, "--test", &test_picked),
        ] {
            if let (Some(sel), true) = (side.selector, picked.is_empty()) {
                return Err(CompareError::NoMatch {
                    option: flag,
                    selector: sel.to_string(),
                    path: side.path.clone(),
                    names: names(side.run),
                });
            }
        }
        let mut used = vec![false; test_picked.len()];
        let mut pairs = Vec::new();
        let mut only_base = Vec::new();
        for (key, b) in &base_picked {
            let found = test_picked
                .iter()
                .enumerate()
                .find(|(i, (k, t))| !used[*i] && k == key && t.regime == b.regime);
            match found {
                Some((i, (_, t))) => {
                    used[i] = true;
                    pairs.push(Pair {
                        base: b,
                        test: t,
                        rows: rows_of(b, t),
                    });
                }
                None => only_base.push(b.label()),
            }
        }
        let only_test: Vec<String> = test_picked
            .iter()
            .zip(&used)
            .filter(|(_, used)| !**used)
            .map(|((_, t), _)| t.label())
            .collect();
        if pairs.is_empty() {
            return Err(CompareError::NoPair {
                base: base.path.clone(),
                test: test.path.clone(),
                base_names: names(base.run),
                test_names: names(test.run),
            });
        }
        let tests = decide(&mut pairs, noise_threshold_pct);
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
            noise_threshold_pct,
            tests,
        })
    }

    /// True when some pair is paced: titles then name every pair's
    /// regime.
    pub fn has_regimes(&self) -> bool {
        self.pairs.iter().any(|p| p.base.regime.is_paced())
    }

    /// True when some difference could not be tested (`n<2`).
    pub fn any_untested(&self) -> bool {
        self.rows()
            .any(|r| r.outcome.is_some_and(|o| o.p_adjusted.is_none()))
    }

    /// Every row of every pair.
    pub fn rows(&self) -> impl Iterator<Item = &Row> {
        self.pairs.iter().flat_map(|p| &p.rows)
    }

    /// The rule of [`Decision::of`] with this comparison's
    /// noise threshold, in one line (without a `verdict: ` label).
    pub fn rule(&self) -> String {
        let t = self.noise_threshold_pct;
        let alpha = SIGNIFICANCE_LEVEL;
        format!(
            "faster/slower (ns/op: lower/higher) when p < {alpha} and the 95% CI of the change \
             lies beyond ±{t}%; no change when the CI lies within ±{t}%, or the change is \
             within ±{t}% and p ≥ {alpha}; otherwise inconclusive"
        )
    }

    /// What the printed p is, in one line (without a `p: ` label): Welch's
    /// two-sided p, Holm-adjusted over this comparison's tests.
    pub fn p_note(&self) -> String {
        format!(
            "Welch's t-test on the repeats (two-sided), Holm-adjusted over the {} test{} of this comparison",
            self.tests,
            if self.tests == 1 { "" } else { "s" }
        )
    }
}

/// Decides every recorded row of `pairs` in one family
/// ([`crate::stats::decide`]); returns the number of tests.
fn decide(pairs: &mut [Pair], noise_threshold_pct: f64) -> usize {
    let family: Vec<(Summary, Summary)> = pairs
        .iter()
        .flat_map(|p| &p.rows)
        .filter_map(|r| Some((r.base?, r.test?)))
        .collect();
    let mut outcomes = crate::stats::decide(&family, noise_threshold_pct).into_iter();
    let mut tests = 0;
    for row in pairs.iter_mut().flat_map(|p| &mut p.rows) {
        if row.base.is_some() && row.test.is_some() {
            row.outcome = outcomes.next();
            tests += usize::from(row.outcome.is_some_and(|o| o.p_adjusted.is_some()));
        }
    }
    tests
}

fn names(run: &RunResults) -> Vec<String> {
    run.strategies.iter().map(StrategyResult::label).collect()
}

/// One note per side and compared measure that some pair lacks on that
/// side (the row shows `-` and "not recorded"), naming the file and why:
/// net cost and ns/op from throughput came with schema 3 and 2.
fn unrecorded(pairs: &[Pair], base: &Side, test: &Side) -> Vec<String> {
    let base_value: fn(&Row) -> Option<Summary> = |r| r.base;
    let test_value: fn(&Row) -> Option<Summary> = |r| r.test;
    let mut notes = Vec::new();
    for (side, value) in [(base, base_value), (test, test_value)] {
        let mut missing: Vec<&'static Measure> = Vec::new();
        for row in pairs.iter().flat_map(|p| &p.rows) {
            if value(row).is_none() && !missing.iter().any(|m| m.title == row.measure.title) {
                missing.push(row.measure);
            }
        }
        for m in missing {
            let why = if side.run.schema < SCHEMA_VERSION {
                format!(
                    "it was written by an older contend (schema {}), before {} was recorded",
                    side.run.schema, m.short
                )
            } else {
                "no repeat of the strategy recorded it".to_string()
            };
            let note = format!(
                "note: {} has no {} for some strategies ({why}); shown as missing, not replaced by another figure",
                side.path.display(),
                m.short
            );
            // The same file on both sides says it once.
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }
    notes
}

/// What differs between the two sides beyond the strategies: contend
/// version, host, CPU, kernel and the workload's settings.
fn warnings(base: &Side, test: &Side) -> Vec<String> {
    let mut out = Vec::new();
    let (b, t) = (&base.run.provenance, &test.run.provenance);
    let mut differs = |what: &str, f: fn(&Provenance) -> &str| {
        if f(b) != f(t) {
            out.push(format!("different {what}: base {} vs test {}", f(b), f(t)));
        }
    };
    differs("contend versions", |p| &p.contend_version);
    differs("hosts", |p| &p.hostname);
    differs("CPU models", |p| &p.cpu_model);
    differs("kernels", |p| &p.kernel_release);
    let (bc, tc) = (&base.run.config, &test.run.config);
    let threads = |c: &RunConfig| (c.writer_cpus.len(), c.reader_cpus.len());
    if threads(bc) != threads(tc) {
        out.push(format!(
            "different thread counts: base {} writers + {} readers vs test {} writers + {} readers",
            bc.writer_cpus.len(),
            bc.reader_cpus.len(),
            tc.writer_cpus.len(),
            tc.reader_cpus.len()
        ));
    }
    if bc.repeat_duration_s != tc.repeat_duration_s {
        out.push(format!(
            "different repeat lengths: base {:.0} ms vs test {:.0} ms",
            bc.repeat_duration_s * 1e3,
            tc.repeat_duration_s * 1e3
        ));
    }
    for side in [base, test] {
        if side.run.partial {
            out.push(format!(
                "{} is partial (interrupted): only finished repeats are compared",
                side.path.display()
            ));
        }
    }
    // The same file on both sides says it once.
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compared_measures_lead_with_the_cost_of_its_regime_and_are_never_sampled() {
        let better = |rate| -> Vec<(&str, bool)> {
            compared_measures(rate)
                .iter()
                .map(|m| (m.short, m.higher_is_better))
                .collect()
        };
        assert_eq!(
            better(Regime::FlatOut),
            [
                ("loop ns/op", false),
                ("updates/s", true),
                ("read ops/s", true)
            ]
        );
        assert_eq!(
            better(Regime::SEED),
            [("net ns/update", false), ("net CPU %", false)]
        );
        for regime in [Regime::FlatOut, Regime::paced(1e6)] {
            assert_eq!(
                compared_measures(regime)[0].title,
                cost_measure(regime).title
            );
            assert!(compared_measures(regime).iter().all(|m| !m.sampled));
        }
    }

    #[test]
    fn keys_match_on_the_rest_of_the_name() {
        let key = |name, sel| match_key(name, sel);
        assert_eq!(
            key("global/always/pad128", None).as_deref(),
            Some("global/always/pad128")
        );
        assert_eq!(
            key("global/always/pad128", Some("global")),
            key("node/always/pad128", Some("node"))
        );
        assert_eq!(
            key("global/always/pad128", Some("global")).as_deref(),
            Some("*/always/pad128")
        );
        // A part of the name in the middle, and a full name.
        assert_eq!(
            key("llc/ratelimit:1ms/pad128/tsc", Some("ratelimit:1ms")),
            key("llc/always/pad128", Some("always")).map(|k| k + "/tsc")
        );
        assert_eq!(
            key("node/always/pad64", Some("node/always/pad64")).as_deref(),
            Some("*")
        );
        // Whole components only.
        assert_eq!(key("global/always/pad128", Some("glob")), None);
        assert_eq!(key("global/always/pad128", Some("pad")), None);
        assert_eq!(key("node/always", Some("node/always/pad128")), None);
    }
}
