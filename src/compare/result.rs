//! What `contend compare` found: the pairs of strategies matched across
//! the two sides, each compared measure's outcome, and the warnings and
//! notes that qualify them.

use super::Side;
#[cfg(doc)]
use crate::runner::RunResults;
use crate::runner::{Measure, StrategyResult};
use crate::stats::{Decision, NoiseThreshold, Outcome, SIGNIFICANCE_LEVEL, Summary};

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
    pub noise: NoiseThreshold,
    /// How many tests the comparison made (rows with two repeats or more
    /// on both sides, or two paired differences): the m of the
    /// Holm–Bonferroni correction.
    pub tests: usize,
}

/// A base strategy and the test strategy it is compared with.
pub struct Pair<'a> {
    /// The base side's strategy.
    pub base: &'a StrategyResult,
    /// The test side's strategy.
    pub test: &'a StrategyResult,
    /// One row per compared measure, with its verdict.
    pub rows: Vec<MeasureRow>,
}

/// One measure of one pair.
pub struct MeasureRow {
    /// What is compared.
    pub measure: &'static Measure,
    /// The base side's summary over its repeats (`None`: not recorded).
    pub base: Option<Summary>,
    /// The test side's.
    pub test: Option<Summary>,
    /// `test − base` repeat by repeat, summarised, where both sides ran in
    /// place in the same repeats of one run: the difference is decided on
    /// it (the paired t-test). `None` otherwise (Welch's test).
    pub paired: Option<Summary>,
    /// The difference decided over every test of the comparison; `None`
    /// when a side did not record the measure.
    pub outcome: Option<Outcome>,
    /// Set when the statistics alone would call a change but the machine
    /// changed between the two files: why the verdict is inconclusive.
    pub machine_changed: Option<String>,
}

impl MeasureRow {
    /// The verdict in words ([`Outcome::word`]: `faster`/`slower` for a
    /// throughput, `cheaper`/`dearer` for a cost, `no change` only when the
    /// interval lies within the threshold, `inconclusive`), or `not
    /// recorded`; an inconclusive row of files from changed machines says
    /// why.
    pub fn verdict(&self) -> String {
        match (self.outcome, &self.machine_changed) {
            (None, _) => "not recorded".to_string(),
            (Some(o), Some(why)) if o.decision == Decision::Inconclusive => {
                format!("inconclusive: {why}")
            }
            (Some(o), _) => o.word(self.measure.direction).to_string(),
        }
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

impl Comparison<'_> {
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
    pub fn rows(&self) -> impl Iterator<Item = &MeasureRow> {
        self.pairs.iter().flat_map(|p| &p.rows)
    }

    /// The rule of [`Decision::of`] with this comparison's noise
    /// threshold, in one line (without a `verdict: ` label).
    pub fn rule(&self) -> String {
        let (t, ns) = (self.noise.pct, self.noise.ns);
        let alpha = SIGNIFICANCE_LEVEL;
        format!(
            "faster/slower (a cost: cheaper/dearer) when p < {alpha} and the 95% CI of the change \
             lies beyond the noise threshold, ±{t}% (a paced cost per update: at least ±{ns} ns; \
             a CPU share: what {ns} ns per update takes at its rate); no change only when the \
             whole CI lies within it (no practical difference when the ns bound it); otherwise \
             inconclusive"
        )
    }

    /// The rule in a few words, for the patch table's footer: `cheaper or
    /// dearer (faster or slower) beyond ±2% and ±1 ns per update at p <
    /// 0.05 after Holm over 6 tests; no change when the whole CI lies
    /// within that; else inconclusive`.
    pub fn rule_brief(&self) -> String {
        format!(
            "cheaper or dearer beyond ±{}% and ±{} ns per update, at p < {} after Holm over {} test{}; no change only when the whole CI lies within that; else inconclusive",
            self.noise.pct,
            self.noise.ns,
            SIGNIFICANCE_LEVEL,
            self.tests,
            if self.tests == 1 { "" } else { "s" }
        )
    }

    /// A pair's title: its short name, or `base vs test` when the names
    /// differ ([`RunResults::short_name`] in each file); with `, paced at
    /// R/s per thread` for a paced pair, and `, flat out` for a flat-out
    /// one when some pair of the comparison is paced.
    pub fn title(&self, pair: &Pair) -> String {
        let (base, test) = (
            self.base.run.short_name(pair.base),
            self.test.run.short_name(pair.test),
        );
        let mut title = if base == test {
            base
        } else {
            format!("{base} vs {test}")
        };
        if self.has_regimes() || pair.base.regime.is_paced() {
            title = format!("{title}, {}", pair.base.regime);
        }
        title
    }

    /// What the printed p is, in one line (without a `p: ` label): Welch's
    /// two-sided p, or the paired t-test's for rows of strategies run in
    /// place in the same repeats, Holm-adjusted over this comparison's
    /// tests.
    pub fn p_note(&self) -> String {
        let rows = self.pairs.iter().flat_map(|p| &p.rows);
        let paired = rows
            .filter(|r| r.outcome.is_some_and(|o| o.difference.paired))
            .count();
        let test = if paired == 0 {
            "Welch's t-test on the repeats".to_string()
        } else {
            format!(
                "Welch's t-test on the repeats, or for the {paired} row{} of strategies run in place in the same repeats the paired t-test on their per-repeat differences",
                if paired == 1 { "" } else { "s" }
            )
        };
        format!(
            "{test} (two-sided), Holm-adjusted over the {} test{} of this comparison",
            self.tests,
            if self.tests == 1 { "" } else { "s" }
        )
    }

    /// The strategies left unmatched, what `n<2` means, which rows were
    /// paired repeat by repeat and which figures a file did not record, if
    /// any: one line each, in plain words (every
    /// format prints these lines under its table, escaped as its own).
    pub fn footer(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if !self.only_base.is_empty() {
            lines.push(format!(
                "only in base (not compared): {}",
                self.only_base.join(", ")
            ));
        }
        if !self.only_test.is_empty() {
            lines.push(format!(
                "only in test (not compared): {}",
                self.only_test.join(", ")
            ));
        }
        if self.any_untested() {
            lines.push(
                "n<2: a side has fewer than 2 repeats, so there is no spread to test a difference against"
                    .to_string(),
            );
        }
        let paired = self
            .pairs
            .iter()
            .flat_map(|p| &p.rows)
            .filter(|r| r.outcome.is_some_and(|o| o.difference.paired))
            .count();
        if paired > 0 {
            lines.push(format!(
                "paired: in {paired} row{} both strategies ran in place in the same repeats, so the change and its ±95% CI are the mean of each repeat's difference and its Student-t CI (the paired t-test), adjusted for what each repeat's lines cost where the file priced them (line_ns); the ± beside each strategy is its own",
                if paired == 1 { "" } else { "s" }
            ));
        }
        lines.extend(self.notes.iter().cloned());
        lines
    }
}
