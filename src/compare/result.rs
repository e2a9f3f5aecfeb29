//! What `contend compare` found: the pairs of strategies matched across the two sides, each
//! compared measure's outcome, and the warnings and notes that qualify them.

use super::Side;
use super::caveats::{canaries, line_costs};
use crate::runner::{Measure, StrategyResult, first_seen};
use crate::stats::{
    Decision, NoiseThreshold, Outcome, RunsDifference, SIGNIFICANCE_LEVEL, Summary,
};
use crate::units::human;

/// Everything `contend compare` prints.
pub struct Comparison<'a> {
    /// The base side.
    pub base: Side<'a>,
    /// The test side.
    pub test: Side<'a>,
    /// True when the replicates are runs, each one ([`crate::stats::runs_difference`]); false when
    /// both sides are one run, whose repeats are the replicates, paired repeat by repeat where two
    /// strategies ran in place together.
    pub across_runs: bool,
    /// The host's record of identical runs that bounded the run-level spread, in words.
    pub record: Option<String>,
    /// Matched strategies (same key, same regime), in the base side's order.
    pub pairs: Vec<Pair<'a>>,
    /// Picked base strategies with no test counterpart in their regime, as listed.
    pub only_base: Vec<String>,
    /// Picked test strategies with no base counterpart, likewise.
    pub only_test: Vec<String>,
    /// Differences in version, host or settings that make the comparison doubtful.
    pub warnings: Vec<String>,
    /// The noise threshold, in %: a smaller change is "no change".
    pub noise: NoiseThreshold,
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
    /// Across runs: the run-level estimate the difference was tested by.
    pub runs: Option<RunsDifference>,
    /// True for the row a pair is judged on (its cost).
    pub judged: bool,
    /// The difference as tested (`None`: a side did not record the measure), decided over every
    /// test of the comparison (a row not judged stays inconclusive).
    pub outcome: Option<Outcome>,
    /// Set when the statistics alone would call a change but the machine changed between the two
    /// files: why the verdict is inconclusive.
    pub machine_changed: Option<String>,
}

impl MeasureRow {
    /// The verdict in words ([`Outcome::word`]), or `not recorded`.
    pub fn verdict(&self) -> String {
        match (self.outcome, &self.machine_changed) {
            (None, _) => "not recorded".to_string(),
            (Some(_), _) if !self.judged => "not judged".to_string(),
            (Some(o), Some(why)) if o.decision == Decision::Inconclusive => {
                format!("inconclusive: {why}")
            }
            (Some(o), _) => o.word(self.measure.direction).to_string(),
        }
    }

    /// The change and its 95% interval ([`Outcome::change_text`]), or empty when not recorded.
    pub fn change_text(&self) -> String {
        self.outcome
            .map_or(String::new(), |o| o.change_text(self.measure.unit.symbol()))
    }

    /// The Holm-adjusted p-value as printed ([`Outcome::p_text`]), or empty when not recorded.
    pub fn p_text(&self) -> String {
        match self.outcome {
            Some(_) if !self.judged => "-".to_string(),
            Some(o) => o.p_text(),
            None => String::new(),
        }
    }

    /// Each side's figure as printed: its mean and the half-width of its 95% CI, in the measure's
    /// unit (`86.0 ns ±8.10 ns`; the mean alone without an interval; `-` when not recorded).
    pub fn figures(&self) -> [String; 2] {
        let h = |v| human(v, self.measure.unit);
        [self.base, self.test].map(|s| match s {
            None => "-".to_string(),
            Some(s) if s.ci95_high > s.mean => {
                format!("{} ±{}", h(s.mean), h(s.ci95_high - s.mean))
            }
            Some(s) => h(s.mean),
        })
    }

    /// Across runs, the run-level estimate of the row in words.
    pub fn runs_text(&self) -> Option<String> {
        let d = self.runs?;
        let h = |v| human(v, self.measure.unit);
        let mut text = format!("runs {} + {}", d.base.runs, d.test.runs);
        if let Some(s) = d.spread {
            text.push_str(&format!(", run to run ±{}", h(s.sd)));
        }
        if let Some(share) = d.base.between_share() {
            text.push_str(&format!(" ({:.0}% between runs)", 100.0 * share));
        }
        if let Some((explained, se)) = d.host {
            let sign = if explained < 0.0 { "-" } else { "+" };
            let (explained, se) = (h(explained.abs()), h(1.96 * se));
            text.push_str(&format!(
                ", the line costs explain {sign}{explained} ±{se} (taken out)"
            ));
        }
        Some(text)
    }
}

impl Comparison<'_> {
    /// One note per side and compared measure that some pair lacks on that side.
    fn unrecorded(&self) -> Vec<String> {
        let rows = || self.pairs.iter().flat_map(|p| &p.rows);
        let base_lacks = rows().filter(|r| r.base.is_none()).map(|r| (&self.base, r));
        let test_lacks = rows().filter(|r| r.test.is_none()).map(|r| (&self.test, r));
        // Each measure once, and the same file on both sides says it once.
        first_seen(base_lacks.chain(test_lacks).map(|(side, row): (&Side, &MeasureRow)| {
            format!(
                "note: {} has no {} for some strategies (no repeat of the strategy recorded it); shown as missing, not replaced by another figure",
                side.path.display(),
                row.measure.short
            )
        }))
    }

    /// How many pairs were called a change.
    pub fn called(&self, worse: bool) -> usize {
        self.rows()
            .filter(|r| r.judged)
            .filter_map(|r| r.measure.direction.better(r.outcome?.decision))
            .filter(|&better| !(worse && better))
            .count()
    }

    /// Across runs, what the replicates were and what bounded the intervals, in one line.
    pub fn replicates_line(&self) -> Option<String> {
        if !self.across_runs {
            return None;
        }
        let (b, t) = (self.base.runs.len(), self.test.runs.len());
        let spread = self
            .rows()
            .filter(|r| r.judged)
            .find_map(|r| r.runs.and_then(|d| d.spread));
        let bound = match (spread, &self.record) {
            (None, _) if b == 1 && t == 1 => {
                return Some(
                    "one run per side: between-run noise unknown, so no change is called (give \
                     several runs per side, or record this host's spread with contend run --runs 5); \
                     each run's mean is adjusted to the same line cost"
                        .to_string(),
                );
            }
            (Some(s), Some(record)) if s.from_runs == 0 => {
                format!("the host's record {record} alone ({} df)", s.from_record)
            }
            (Some(s), Some(record)) => format!(
                "the sides' runs ({} df) and the host's record {record} ({} df)",
                s.from_runs, s.from_record
            ),
            (Some(s), None) => format!("the sides' runs ({} df)", s.from_runs),
            (None, _) => "nothing: no row has a spread".to_string(),
        };
        Some(format!(
            "runs are the replicates ({b} base, {t} test; each figure the mean of its runs' means, \
             each run's mean adjusted to the same line cost): the ±95% CIs come from how run means \
             spread, here {bound}"
        ))
    }

    /// Across runs where the sides' host states, what moves every figure of a run with the host's
    /// phase, differ by 5% or more: their canaries' medians and median line costs, ns one-way.
    pub fn host_line(&self) -> Option<String> {
        if !self.across_runs {
            return None;
        }
        let (b, t) = (&self.base, &self.test);
        let canary = (canaries(b)?.median, canaries(t)?.median);
        let lines = line_costs(b).zip(line_costs(t));
        let moved = |(a, b): (f64, f64)| (b / a - 1.0).abs() >= 0.05;
        if !moved(canary) && !lines.is_some_and(moved) {
            return None;
        }
        let pair = |what: &str, (a, b): (f64, f64)| {
            format!(
                "{what} {a:.1} -> {b:.1} ns ({:+.0}%)",
                100.0 * (b / a - 1.0)
            )
        };
        let mut line = format!("host: {}", pair("canary", canary));
        if let Some(l) = lines {
            line.push_str(&format!(", lines {}", pair("", l).trim_start()));
        }
        let explained: Vec<f64> = self
            .rows()
            .filter(|r| r.judged)
            // (+ 0.0 writes a -0.0 as 0.0.)
            .filter_map(|r| r.runs?.host.map(|(e, _)| e + 0.0))
            .collect();
        if let (Some(lo), Some(hi)) = (
            explained.iter().copied().reduce(f64::min),
            explained.iter().copied().reduce(f64::max),
        ) {
            line.push_str(&format!(
                "; the line costs alone would explain {lo:+.1} to {hi:+.1} ns of the changes, taken \
                 out of them"
            ));
        }
        Some(line)
    }

    /// How many rows were decided on their paired (per-repeat) differences.
    fn paired_rows(&self) -> usize {
        let paired = |r: &&MeasureRow| r.outcome.is_some_and(|o| o.difference.paired);
        self.rows().filter(paired).count()
    }

    /// Every row of every pair.
    pub fn rows(&self) -> impl Iterator<Item = &MeasureRow> {
        self.pairs.iter().flat_map(|p| &p.rows)
    }

    /// The rule of [`Decision::of`] with this comparison's noise threshold, in one line.
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

    /// The rule in a few words, for the patch table's footer.
    pub fn rule_brief(&self) -> String {
        let (pct, ns, tests) = (self.noise.pct, self.noise.ns, self.tests_text());
        format!(
            "cheaper or dearer beyond ±{pct}% and ±{ns} ns per update, at p < {SIGNIFICANCE_LEVEL} after Holm over {tests}; no change only when the whole CI lies within that; else inconclusive"
        )
    }

    /// `1 test`, `3 tests`: how many the comparison made (judged rows with two repeats or more on
    /// both sides, or two paired differences), the m of the Holm–Bonferroni correction.
    fn tests_text(&self) -> String {
        let tested =
            |r: &&MeasureRow| r.judged && r.outcome.is_some_and(|o| o.p_adjusted.is_some());
        let tests = self.rows().filter(tested).count();
        format!("{tests} test{}", if tests == 1 { "" } else { "s" })
    }

    /// A pair's title: its short name, or `base vs test` when the names differ.
    pub fn title(&self, pair: &Pair) -> String {
        let base = self.base.run.short_name(pair.base);
        let test = self.test.run.short_name(pair.test);
        let mut title = if base == test {
            base
        } else {
            format!("{base} vs {test}")
        };
        // When some pair is paced, every title names its regime.
        if self.pairs.iter().any(|p| p.base.regime.is_paced()) {
            title = format!("{title}, {}", pair.base.regime);
        }
        title
    }

    /// What the printed p is, in one line (without a `p: ` label).
    pub fn p_note(&self) -> String {
        let paired = self.paired_rows();
        let test = if self.across_runs {
            let record = self
                .record
                .as_ref()
                .map_or("", |_| " and the host's record");
            format!(
                "Student's t on the runs' means, each adjusted to the same line cost (their spread pooled over both sides{record})"
            )
        } else if paired == 0 {
            "Welch's t-test on the repeats".to_string()
        } else {
            format!(
                "Welch's t-test on the repeats, or for the {paired} row{} of strategies run in place in the same repeats the paired t-test on their per-repeat differences",
                if paired == 1 { "" } else { "s" }
            )
        };
        let tests = self.tests_text();
        format!("{test} (two-sided), Holm-adjusted over the {tests} of this comparison")
    }

    /// The strategies left unmatched, what `n<2` means, which rows were paired and which figures a
    /// file did not record: one line each, in plain words.
    pub fn footer(&self) -> Vec<String> {
        let only = [("base", &self.only_base), ("test", &self.only_test)];
        let mut lines: Vec<String> = only
            .iter()
            .filter(|(_, names)| !names.is_empty())
            .map(|(side, names)| format!("only in {side} (not compared): {}", names.join(", ")))
            .collect();
        lines.extend(self.replicates_line());
        lines.extend(self.host_line());
        let one_run = std::ptr::eq(self.base.run, self.test.run);
        // One run on both sides says it once.
        let sides = [("base", &self.base), ("test", &self.test)];
        for (label, side) in sides.into_iter().take(2 - usize::from(one_run)) {
            if let Some(i) = side.run.config.inject {
                let (who, ns) = (if one_run { "the run" } else { label }, i.ns);
                lines.push(format!(
                    "{who}: {ns:+} ns per update injected (contend run --inject): a known cost, inside its figures"
                ));
            }
        }
        let untested = self
            .rows()
            .any(|r| r.outcome.is_some_and(|o| o.p_adjusted.is_none()));
        if untested && !self.across_runs {
            lines.push(
                "n<2: a side has fewer than 2 repeats, so there is no spread to test a difference against"
                    .to_string(),
            );
        }
        let paired = self.paired_rows();
        if paired > 0 {
            lines.push(format!(
                "paired: in {paired} row{} both strategies ran in place in the same repeats, so the change and its ±95% CI are the mean of each repeat's difference and its Student-t CI (the paired t-test), adjusted for what each repeat's lines cost where the file priced them (line_ns); the ± beside each strategy is its own",
                if paired == 1 { "" } else { "s" }
            ));
        }
        lines.extend(self.unrecorded());
        lines
    }
}
