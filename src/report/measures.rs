//! How the run tables lay out the measures, shared by the text table, the
//! Markdown export and `contend compare`: the row labels and the
//! `mean±stddev%` cell. The measures themselves are
//! [`crate::results::MEASURES`].

use crate::counter::PublishPolicy;
use crate::results::{MEASURES, Measure, PACED, RunResults, StrategyResult, THROUGHPUT_NS};
use crate::stats::Summary;
use std::fmt::Write;

/// Row labels: the publish policy, plus the pad and clock when the
/// strategies shown use more than one.
pub struct RowLabels {
    pads: bool,
    clocks: bool,
}

impl RowLabels {
    /// The labelling for these strategies.
    pub fn new<'a>(strategies: impl Iterator<Item = &'a StrategyResult> + Clone) -> Self {
        RowLabels {
            pads: unique(strategies.clone().map(|s| s.strategy.pad.to_string())).len() > 1,
            clocks: unique(
                strategies
                    .filter_map(|s| s.strategy.clock)
                    .map(|c| c.to_string()),
            )
            .len()
                > 1,
        }
    }

    /// The row `s` belongs to.
    pub fn label(&self, s: &StrategyResult) -> String {
        let mut label = s.strategy.publish.to_string();
        if self.pads {
            let _ = write!(label, " pad{}", s.strategy.pad);
        }
        if let Some(c) = s.strategy.clock.filter(|_| self.clocks) {
            let _ = write!(label, " {c}");
        }
        label
    }
}

/// The items in first-seen order, without repeats.
pub fn unique(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for item in items {
        if !seen.contains(&item) {
            seen.push(item);
        }
    }
    seen
}

/// `mean±stddev%`, as the seeds print it.
pub fn fmt_summary(s: &Summary, decimals: usize) -> String {
    format!("{:.*}±{:.2}%", decimals, s.mean, s.stddev_pct)
}

/// A measure's `mean±stddev%` cell, or `-` when it was not recorded.
pub fn shown(value: Option<Summary>, decimals: usize) -> String {
    value.map_or("-".to_string(), |v| fmt_summary(&v, decimals))
}

/// The measures tables show for these strategies, in order: under
/// `--rate` (`paced`) the busy ns/op and CPU share first, then ns/op from
/// throughput, then [`MEASURES`]; a measure no strategy recorded (reader
/// ns/op without readers, sampled ns with sampling off) is left out.
pub fn shown_measures<'a>(
    strategies: impl Iterator<Item = &'a StrategyResult> + Clone,
    paced: bool,
) -> Vec<&'static Measure> {
    let paced: &[Measure] = if paced { &PACED } else { &[] };
    paced
        .iter()
        .chain(THROUGHPUT_NS.iter())
        .chain(MEASURES.iter())
        .filter(|m| {
            strategies
                .clone()
                .filter_map(|s| s.summary.as_ref())
                .any(|s| (m.get)(s).is_some())
        })
        .collect()
}

/// One table cell: the value as `mean±stddev%` (or why there is none) and
/// its change against the row's first level.
pub struct Cell {
    /// `mean±stddev%`, `-` when not recorded, or below timer resolution.
    pub value: String,
    /// % change of the mean against `base`; `None` in the first column,
    /// with no base, or below resolution.
    pub change_pct: Option<f64>,
}

/// The cell of measure `m` whose value is `value`, against `base` (the
/// row's first level; `None` for the first column itself). A sampled
/// value under `resolution_ns` (twice the timer's overhead) prints as
/// below timer resolution, without a change.
pub fn measure_cell(
    m: &Measure,
    value: Option<Summary>,
    base: Option<Summary>,
    resolution_ns: f64,
) -> Cell {
    match value {
        None => Cell {
            value: "-".to_string(),
            change_pct: None,
        },
        Some(v) if m.sampled && v.mean < resolution_ns => Cell {
            value: format!("<{resolution_ns:.1} (below timer resolution)"),
            change_pct: None,
        },
        Some(v) => Cell {
            value: fmt_summary(&v, m.decimals),
            change_pct: base
                .filter(|b| b.mean != 0.0)
                .map(|b| 100.0 * (v.mean - b.mean) / b.mean),
        },
    }
}

/// One line summing up what could have disturbed the run: steal time,
/// involuntary context switches, the canary's range and what it cost, and
/// how many repeats it marked disturbed; `None` for a file without
/// interference records.
fn interference_line(run: &RunResults) -> Option<String> {
    let repeats: Vec<&crate::results::RepeatResult> =
        run.strategies.iter().flat_map(|s| &s.repeats).collect();
    let records = || repeats.iter().map(|r| &r.interference);
    let canaries: Vec<f64> = records().filter_map(|i| i.canary_ns).collect();
    let steal: Option<f64> = records().map(|i| i.steal_ms).sum();
    let switches: u64 = records().map(|i| i.involuntary_switches).sum();
    if canaries.is_empty() && steal.is_none() && switches == 0 {
        return None;
    }
    let mut parts = vec![format!(
        "steal {}",
        steal.map_or("unknown".to_string(), |s| format!("{s:.0} ms"))
    )];
    parts.push(format!("{switches} involuntary context switches"));
    if !canaries.is_empty() {
        let (lo, hi) = canaries
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), &c| {
                (lo.min(c), hi.max(c))
            });
        let cost: Vec<f64> = records().filter_map(|i| i.canary_ms).collect();
        let cost = cost.iter().sum::<f64>() / cost.len().max(1) as f64;
        let disturbed = records().filter(|i| i.disturbed).count();
        parts.push(format!(
            "canary (CAS ping-pong before each repeat) {lo:.1}-{hi:.1} ns one-way, {disturbed} of {} repeats disturbed; it costs {cost:.1} ms per repeat",
            repeats.len()
        ));
    }
    Some(format!("interference: {}", parts.join(", ")))
}

/// A paced thread below this % of its requested rate is a warning.
pub const RATE_SHORTFALL_PCT: f64 = 98.0;

/// Updates per ownership of the line above which hammer mode is said to
/// measure bursts.
pub const BURST_LIMIT: f64 = 2.0;

/// What hammer mode (no `--rate`) measured with two or more writers: how
/// many updates a writer makes per ownership of the line under `always`
/// (100 ÷ % of sampled updates slower than a local hit), a warning when
/// that exceeds [`BURST_LIMIT`], and fairness (slowest ÷ fastest writer).
fn hammer_findings(run: &RunResults) -> Vec<String> {
    let mut lines = Vec::new();
    if run.config.writer_cpus.len() < 2 {
        return lines;
    }
    let always = || {
        run.strategies
            .iter()
            .filter(|s| s.strategy.publish == PublishPolicy::ALWAYS)
    };
    let bursts: Vec<(String, f64)> = always()
        .filter_map(|s| {
            let slow = s.summary.as_ref()?.slow_update_pct?.mean;
            (slow > 0.0).then(|| (s.name.clone(), 100.0 / slow))
        })
        .collect();
    if !bursts.is_empty() {
        let list: Vec<String> = bursts
            .iter()
            .map(|(name, b)| format!("{name} {b:.2}"))
            .collect();
        lines.push(format!(
            "bursts: updates per ownership of the line (100 / % of sampled updates slower than a local hit): {}",
            list.join(", ")
        ));
        if bursts.iter().any(|(_, b)| *b > BURST_LIMIT) {
            lines.push(format!(
                "WARNING hammer mode is measuring bursts: a writer keeps the line for more than {BURST_LIMIT} updates before another takes it, so ops/s is not the cost of one update; for the cost a spaced workload pays per update, run with --rate (e.g. --rate 22000) or contend sweep --rates"
            ));
        }
    }
    let fairness: Vec<String> = always()
        .filter_map(|s| {
            let f = s.summary.as_ref()?.fairness?.mean;
            Some(format!("{} {f:.2}", s.name))
        })
        .collect();
    if !fairness.is_empty() {
        lines.push(format!(
            "fairness (slowest / fastest writer's updates/s, 1 = fair): {}",
            fairness.join(", ")
        ));
    }
    lines
}

/// Largest gap, in %, between a writer loop's sampled figures and its
/// throughput-derived time before the tables say they disagree.
pub const DISAGREEMENT_PCT: f64 = 25.0;

/// The lines under a run's tables that say what its numbers rest on: the
/// harness floor, where sampled and throughput figures disagree, and how
/// staleness was measured.
pub fn run_findings(run: &RunResults) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(f) = &run.floor {
        lines.push(format!(
            "harness floor: {:.1} ns/op ±{:.1}% (the same writer loop on CPU {} alone, no shared write; a strategy's loop ns/op less this is what the counter costs)",
            f.loop_ns.mean, f.loop_ns.stddev_pct, f.cpu
        ));
    }
    // Samples below the timer's resolution say nothing either way.
    let resolution_ns = 2.0 * run.config.timer_overhead_ns;
    let disagree: Vec<String> = run
        .strategies
        .iter()
        .filter_map(|s| {
            let summary = s.summary.as_ref()?;
            let pct = summary.sampled_vs_throughput_pct?.mean;
            let resolved = summary.write_ns?.mean >= resolution_ns;
            (resolved && pct.abs() > DISAGREEMENT_PCT).then(|| format!("{} {pct:+.0}%", s.name))
        })
        .collect();
    if !disagree.is_empty() {
        lines.push(format!(
            "sampled vs throughput: the timed operations disagree with loop ns/op by more than {DISAGREEMENT_PCT}% for {} (timing a contended operation perturbs it; trust loop ns/op)",
            disagree.join(", ")
        ));
    }
    if let Some(rate) = run.config.rate {
        let short: Vec<String> = run
            .strategies
            .iter()
            .filter_map(|s| {
                let worst = s
                    .repeats
                    .iter()
                    .filter_map(|r| r.achieved_rate_min_pct)
                    .reduce(f64::min)?;
                (worst < RATE_SHORTFALL_PCT).then(|| format!("{} {worst:.1}%", s.name))
            })
            .collect();
        let missed: u64 = run
            .strategies
            .iter()
            .flat_map(|s| &s.repeats)
            .map(|r| r.missed_slots)
            .sum();
        if short.is_empty() {
            lines.push(format!(
                "rate: every thread achieved at least {RATE_SHORTFALL_PCT}% of {rate} ops/s; {missed} pacer slots skipped after stalls"
            ));
        } else {
            lines.push(format!(
                "WARNING rate: asked {rate} ops/s per thread, but the slowest thread achieved only {} of it ({missed} pacer slots skipped after stalls): the CPU cannot keep up, or it was taken away",
                short.join(", ")
            ));
        }
    } else {
        lines.extend(hammer_findings(run));
    }
    lines.extend(interference_line(run));
    if let Some(target) = run.config.target_ci_pct {
        let open: Vec<&str> = run
            .strategies
            .iter()
            .filter(|s| s.converged == Some(false))
            .map(|s| s.name.as_str())
            .collect();
        let repeats: Vec<usize> = run.strategies.iter().map(|s| s.repeats.len()).collect();
        let (lo, hi) = (
            repeats.iter().min().copied().unwrap_or(0),
            repeats.iter().max().copied().unwrap_or(0),
        );
        let budget = run.config.max_time_s.unwrap_or(0.0);
        if open.is_empty() {
            lines.push(format!(
                "target CI: every strategy's loop ns/op within ±{target}% (95% CI) after {lo}-{hi} repeats"
            ));
        } else {
            lines.push(format!(
                "target CI: ±{target}% not reached within {budget:.0} s ({lo}-{hi} repeats) by {}: the machine is noisier than that; take their figures as inconclusive, or raise --max-time",
                open.join(", ")
            ));
        }
    }
    if run.config.staleness_probes {
        lines.push(
            "staleness: probed at sampled operations, |published sum - true sum| as a reader sees it; writers mirror their load into their own line after every update while probing (its cost is in loop ns/op and the floor; --sample-every 0 turns both off)".to_string(),
        );
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(mean: f64) -> Summary {
        Summary::of(&[mean, mean]).unwrap()
    }

    #[test]
    fn sampled_values_under_the_resolution_are_not_numbers() {
        let write_sampled = MEASURES.iter().find(|m| m.short == "write ns/op").unwrap();
        let loop_ns = &THROUGHPUT_NS[0];
        // 0.4 ns sampled with a 19.6 ns overhead: below resolution (39.2).
        let c = measure_cell(write_sampled, Some(summary(0.4)), Some(summary(0.5)), 39.2);
        assert_eq!(c.value, "<39.2 (below timer resolution)");
        assert_eq!(c.change_pct, None);
        // The same value from throughput is a number.
        let c = measure_cell(loop_ns, Some(summary(0.4)), Some(summary(0.5)), 39.2);
        assert_eq!(c.value, "0.4±0.00%");
        assert!((c.change_pct.unwrap() + 20.0).abs() < 1e-9);
        // At or above the resolution a sampled value is shown, changes too.
        let c = measure_cell(
            write_sampled,
            Some(summary(60.0)),
            Some(summary(40.0)),
            39.2,
        );
        assert_eq!((c.value.as_str(), c.change_pct), ("60.0±0.00%", Some(50.0)));
        assert_eq!(measure_cell(loop_ns, None, None, 1.0).value, "-");
    }
}
