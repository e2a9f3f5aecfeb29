//! How the run tables lay out the measures, shared by the text table, the
//! Markdown export and `contend compare`: the row labels and the
//! `mean±stddev%` cell. The measures themselves are
//! [`crate::results::MEASURES`].

use crate::compare::DEFAULT_NOISE_THRESHOLD_PCT;
use crate::counter::PublishPolicy;
use crate::results::{MEASURES, Measure, PACED, RunResults, StrategyResult, THROUGHPUT_NS, Unit};
use crate::stats::Summary;
use crate::stats::{Decision, Difference, holm_adjusted};
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
/// `--rate` (`paced`) [`PACED`] (net, then gross busy ns/op and CPU
/// share), flat out loop ns/op from throughput and its net; then reader
/// ns/op and [`MEASURES`]; a measure no strategy recorded (reader ns/op
/// without readers, sampled ns with sampling off) is left out.
pub fn shown_measures<'a>(
    strategies: impl Iterator<Item = &'a StrategyResult> + Clone,
    paced: bool,
) -> Vec<&'static Measure> {
    // Paced, loop ns/op is the pacing period and the net figure is
    // PACED's; flat out, PACED's are not measured.
    let lead: &[Measure] = if paced { &PACED } else { &THROUGHPUT_NS[..2] };
    lead.iter()
        .chain(THROUGHPUT_NS[2..].iter())
        .chain(MEASURES.iter())
        .filter(|m| {
            strategies
                .clone()
                .filter_map(|s| s.summary.as_ref())
                .any(|s| (m.get)(s).is_some())
        })
        .collect()
}

/// The measures a view of one regime gets a table for: [`shown_measures`]
/// less a table that would repeat another (without reader threads, a
/// read side after every update runs exactly as often as updates, so its
/// ops/s would repeat updates/s row for row).
pub fn table_measures(run: &RunResults) -> Vec<&'static Measure> {
    let cfg = &run.config;
    let reads_repeat_updates = cfg.reader_cpus.is_empty() && cfg.read_every == 1;
    shown_measures(run.strategies.iter(), cfg.rate.is_some())
        .into_iter()
        .filter(|m| !(reads_repeat_updates && m.short == "read ops/s"))
        .collect()
}

/// One table cell: the value (3 significant digits, SI prefix or unit,
/// ± the coefficient of variation) or why there is none, and its change
/// against the row's first level with whether the statistics support it.
pub struct Cell {
    /// `54.9M ±31%`, `71.6 ns ±3.3%`, `-` when not recorded, or below
    /// timer resolution.
    pub value: String,
    /// The mean shown, for sorting; `None` when not recorded or below
    /// timer resolution.
    pub mean: Option<f64>,
    /// % change of the mean against the base; `None` in the first column,
    /// with no base, or below resolution.
    pub change_pct: Option<f64>,
    /// The compare rule's verdict on that change ([`Decision::decide`] at
    /// [`DEFAULT_NOISE_THRESHOLD_PCT`], Welch's p Holm-adjusted over the
    /// table's changes); `None` without a change, or when either side has
    /// fewer than 2 repeats (no test).
    pub verdict: Option<Decision>,
}

impl Cell {
    /// The change passes the compare rule: an increase or a decrease
    /// beyond noise and doubt. A change that does not prints `n.s.`.
    pub fn supported(&self) -> bool {
        matches!(self.verdict, Some(Decision::Increase | Decision::Decrease))
    }

    /// The change as a table prints it: `+15.0%`, or `+3.2% n.s.` when
    /// the statistics do not support it; empty without one.
    pub fn change_text(&self) -> String {
        match (self.change_pct, self.supported()) {
            (None, _) => String::new(),
            (Some(pct), true) => format!("{pct:+.1}%"),
            (Some(pct), false) => format!("{pct:+.1}% n.s."),
        }
    }
}

/// Every cell of one measure's table: `rows[r][0]` is a row's first level
/// (its base), `rows[r][k]` level k. Changes are tested with Welch's test
/// and Holm-adjusted over the whole table, then judged by the compare rule
/// at [`DEFAULT_NOISE_THRESHOLD_PCT`]. A sampled value under
/// `resolution_ns` (twice the timer's overhead) prints as below timer
/// resolution, without a change.
pub fn measure_table(
    m: &Measure,
    rows: &[Vec<Option<Summary>>],
    resolution_ns: f64,
) -> Vec<Vec<Cell>> {
    let resolved = |v: &Option<Summary>| resolved(m, *v, resolution_ns);
    // Every change to test: (row, level, difference).
    let mut tests = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        let Some(base) = row.first().and_then(resolved) else {
            continue;
        };
        for (k, v) in row.iter().enumerate().skip(1) {
            if let Some(v) = resolved(v) {
                tests.push((r, k, Difference::of(&base, &v)));
            }
        }
    }
    let p: Vec<f64> = tests
        .iter()
        .map(|(_, _, d)| d.welch.map_or(1.0, |w| w.p))
        .collect();
    let adjusted = holm_adjusted(&p);
    let mut cells: Vec<Vec<Cell>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|v| value_cell(m, *v, resolution_ns))
                .collect()
        })
        .collect();
    for ((r, k, d), p) in tests.iter().zip(adjusted) {
        let cell = &mut cells[*r][*k];
        cell.change_pct = d.change_pct;
        cell.verdict = d
            .welch
            .map(|_| Decision::decide(d, DEFAULT_NOISE_THRESHOLD_PCT, p));
    }
    cells
}

/// One cell of `m` against `base` (`None` for a first column), judged
/// alone: the change's p-value is not adjusted for other cells. Tables use
/// [`measure_table`].
pub fn measure_cell(
    m: &Measure,
    value: Option<Summary>,
    base: Option<Summary>,
    resolution_ns: f64,
) -> Cell {
    match base {
        None => value_cell(m, value, resolution_ns),
        Some(b) => measure_table(m, &[vec![Some(b), value]], resolution_ns)
            .remove(0)
            .remove(1),
    }
}

/// `value`, unless it is a sampled time under `resolution_ns` (twice the
/// timer's overhead), which no table shows as a number.
fn resolved(m: &Measure, value: Option<Summary>, resolution_ns: f64) -> Option<Summary> {
    value.filter(|v| !(m.sampled && v.mean < resolution_ns))
}

/// A cell's value alone, without a change.
fn value_cell(m: &Measure, value: Option<Summary>, resolution_ns: f64) -> Cell {
    let shown = resolved(m, value, resolution_ns);
    let text = match (value, shown) {
        (None, _) => "-".to_string(),
        (Some(_), None) => format!(
            "<{} (below timer resolution)",
            human(resolution_ns, Unit::Nanoseconds)
        ),
        (_, Some(v)) => format!("{} ±{}", human(v.mean, m.unit), cv_text(v.stddev_pct)),
    };
    Cell {
        value: text,
        mean: shown.map(|v| v.mean),
        change_pct: None,
        verdict: None,
    }
}

/// `value` in `unit` to 3 significant digits: a rate with an SI prefix
/// (`54.9M`, `1.99k`, `112`), a time in ns, µs, ms or s (`71.6 ns`,
/// `1.20 µs`), a percentage (`6.53%`, `0.131%`).
pub fn human(value: f64, unit: Unit) -> String {
    match unit {
        Unit::PerSecond => {
            let (scaled, prefix) = si(value, &[(1e9, "G"), (1e6, "M"), (1e3, "k")]);
            format!("{}{prefix}", three_digits(scaled))
        }
        Unit::Nanoseconds => {
            let (scaled, u) = si(value, &[(1e9, "s"), (1e6, "ms"), (1e3, "µs")]);
            format!(
                "{} {}",
                three_digits(scaled),
                if u.is_empty() { "ns" } else { u }
            )
        }
        Unit::Percent => format!("{}%", three_digits(value)),
        Unit::Count => three_digits(value),
    }
}

/// `value` divided by the largest `scale` it reaches, and that scale's
/// name; itself and "" below all of them.
fn si(value: f64, scales: &[(f64, &'static str)]) -> (f64, &'static str) {
    scales
        .iter()
        .find(|(s, _)| value.abs() >= *s)
        .map_or((value, ""), |&(s, name)| (value / s, name))
}

/// 3 significant digits, never in exponent form (`54.9`, `1.99`, `0.131`,
/// `112`, `0`).
fn three_digits(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let magnitude = v.abs().log10().floor() as i32;
    let decimals = (2 - magnitude).clamp(0, 9) as usize;
    format!("{v:.decimals$}")
}

/// A coefficient of variation (stddev as % of the mean) for a table: two
/// significant digits (`31%`, `3.3%`, `0.45%`).
pub fn cv_text(pct: f64) -> String {
    let decimals = if pct >= 10.0 {
        0
    } else if pct >= 1.0 {
        1
    } else {
        2
    };
    format!("{pct:.decimals$}%")
}

/// A coefficient of variation above this % on a run's lead measure makes
/// the strategy too noisy to call.
pub const NOISY_CV_PCT: f64 = 10.0;

/// The coefficient of variation (%) of a strategy's cost per update
/// (loop ns/op flat out, busy ns/op paced) when it exceeds
/// [`NOISY_CV_PCT`]: too noisy to call; `None` otherwise.
pub fn noisy_cv(s: &StrategyResult) -> Option<f64> {
    let summary = s.summary.as_ref()?;
    let gross = if s.rate.is_some() {
        summary.write_busy_ns
    } else {
        summary.write_loop_ns
    };
    Some(gross?.stddev_pct).filter(|&cv| cv > NOISY_CV_PCT)
}

/// The closing line of a run's tables: what `n.s.` means, and the
/// strategies whose cost per update (loop ns/op flat out, busy ns/op
/// paced) varies too much between repeats to call; `None` when nothing is
/// marked.
pub fn noise_line(run: &RunResults) -> Option<String> {
    let noisy: Vec<String> = run
        .strategies
        .iter()
        .filter_map(|s| noisy_cv(s).map(|cv| format!("{} (±{})", s.name, cv_text(cv))))
        .collect();
    let marks = format!(
        "n.s. marks a change the repeats do not support (Welch's test, Holm-adjusted over each table, and a {DEFAULT_NOISE_THRESHOLD_PCT}% noise threshold, as contend compare decides)"
    );
    Some(if noisy.is_empty() {
        format!("noise: {marks}")
    } else {
        format!(
            "noise: too noisy to call {}: their repeats vary by more than {NOISY_CV_PCT}%, so most changes against them are n.s.; the interference line says whether the machine moved (rerun, or raise --max-time); {marks}",
            noisy.join(", ")
        )
    })
}

/// One line summing up what could have disturbed the run: steal time,
/// involuntary context switches, the canary's range and what it cost, and
/// how many repeats it marked disturbed; `None` for a file without
/// interference records.
pub fn interference_line(run: &RunResults) -> Option<String> {
    let repeats: Vec<&crate::results::RepeatResult> =
        run.strategies.iter().flat_map(|s| &s.repeats).collect();
    let records = || repeats.iter().map(|r| &r.interference);
    let canaries = run.canary_range();
    let steal: Option<f64> = records().map(|i| i.steal_ms).sum();
    let switches: u64 = records().map(|i| i.involuntary_switches).sum();
    if canaries.is_none() && steal.is_none() && switches == 0 {
        return None;
    }
    let mut parts = vec![format!(
        "steal {}",
        steal.map_or("unknown".to_string(), |s| format!("{s:.0} ms"))
    )];
    parts.push(format!("{switches} involuntary context switches"));
    if let Some(c) = canaries {
        let (lo, hi) = (c.lo, c.hi);
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
/// (publishes ÷ hand-overs between writers, counted exactly from the
/// adds), a warning when that exceeds [`BURST_LIMIT`], and fairness
/// (slowest ÷ fastest writer).
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
    let bursts: Vec<(String, f64, f64)> = always()
        .filter_map(|s| {
            let summary = s.summary.as_ref()?;
            let per_ownership = summary.updates_per_ownership?.mean;
            let per_s = summary.handovers_per_s?.mean;
            Some((s.name.clone(), per_ownership, per_s))
        })
        .collect();
    if !bursts.is_empty() {
        let list: Vec<String> = bursts
            .iter()
            .map(|(name, b, per_s)| {
                format!(
                    "{name} {b:.2} ({} hand-overs/s)",
                    human(*per_s, Unit::PerSecond)
                )
            })
            .collect();
        lines.push(format!(
            "bursts: updates per ownership of the line (publishes / hand-overs between writers, counted exactly from each add's returned value): {}",
            list.join(", ")
        ));
        if bursts.iter().any(|(_, b, _)| *b > BURST_LIMIT) {
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
    for f in &run.paced_floors {
        let (Some(rate), Some(summary)) = (f.rate, f.summary.as_ref()) else {
            continue;
        };
        if let (Some(busy), Some(share)) = (summary.write_busy_ns, summary.cpu_share_pct) {
            lines.push(format!(
                "paced floor at {}/s: busy {:.1} ns/op ±{:.1}%, CPU share {:.3}% (the same paced loop on the same CPUs with no shared write, its {} repeats interleaved with the strategies'; a strategy's busy ns/op and CPU share less these are its net figures)",
                human(rate, Unit::PerSecond),
                busy.mean,
                busy.stddev_pct,
                share.mean,
                busy.n
            ));
        }
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
    lines.extend(noise_line(run));
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
                "target CI: every strategy's cost per update (loop ns/op flat out, busy ns/op paced) within ±{target}% (95% CI) after {lo}-{hi} repeats"
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

    fn summary(values: &[f64]) -> Summary {
        Summary::of(values).unwrap()
    }

    #[test]
    fn numbers_are_three_significant_digits_with_prefixes() {
        assert_eq!(human(54_946_573.0, Unit::PerSecond), "54.9M");
        assert_eq!(human(1_991.0, Unit::PerSecond), "1.99k");
        assert_eq!(human(112.0, Unit::PerSecond), "112");
        assert_eq!(human(71.6, Unit::Nanoseconds), "71.6 ns");
        assert_eq!(human(1_204.0, Unit::Nanoseconds), "1.20 µs");
        assert_eq!(human(2_500_000.0, Unit::Nanoseconds), "2.50 ms");
        assert_eq!(human(0.1306, Unit::Percent), "0.131%");
        assert_eq!(human(6.5448, Unit::Percent), "6.54%");
        assert_eq!(human(0.0, Unit::Percent), "0%");
        assert_eq!(cv_text(31.37), "31%");
        assert_eq!(cv_text(3.3), "3.3%");
        assert_eq!(cv_text(0.452), "0.45%");
    }

    #[test]
    fn changes_the_repeats_do_not_support_are_marked() {
        let updates = MEASURES.iter().find(|m| m.short == "updates/s").unwrap();
        // Row 1: base 100 ± 1, test +15% ± 1: a change. Row 2: base 100,
        // test +3% with a ±30% spread: not supported.
        let clear = [
            summary(&[99.0, 100.0, 101.0]),
            summary(&[114.0, 115.0, 116.0]),
        ];
        let noisy = [
            summary(&[70.0, 100.0, 130.0]),
            summary(&[73.0, 103.0, 133.0]),
        ];
        let rows = vec![
            vec![Some(clear[0]), Some(clear[1])],
            vec![Some(noisy[0]), Some(noisy[1])],
        ];
        let t = measure_table(updates, &rows, 0.0);
        assert_eq!(t[0][0].value, "100 ±1.0%");
        assert_eq!(t[0][0].change_text(), "");
        assert_eq!(t[0][1].value, "115 ±0.87%");
        assert_eq!(t[0][1].change_text(), "+15.0%");
        assert_eq!(t[1][1].change_text(), "+3.0% n.s.");
        // A 0.5% change, however tight, is within the 2% noise threshold.
        let tiny = vec![vec![
            Some(summary(&[1000.0, 1000.1, 999.9])),
            Some(summary(&[1005.0, 1005.1, 1004.9])),
        ]];
        assert_eq!(
            measure_table(updates, &tiny, 0.0)[0][1].change_text(),
            "+0.5% n.s."
        );
    }

    #[test]
    fn sampled_values_under_the_resolution_are_not_numbers() {
        let write_sampled = MEASURES.iter().find(|m| m.short == "write ns/op").unwrap();
        let loop_ns = &THROUGHPUT_NS[0];
        // 0.4 ns sampled with a 19.6 ns overhead: below resolution (39.2).
        let rows = vec![vec![Some(summary(&[0.5, 0.5])), Some(summary(&[0.4, 0.4]))]];
        let t = measure_table(write_sampled, &rows, 39.2);
        assert_eq!(t[0][1].value, "<39.2 ns (below timer resolution)");
        assert_eq!(t[0][1].change_pct, None);
        // The same value from throughput is a number, with its change.
        let t = measure_table(loop_ns, &rows, 39.2);
        assert_eq!(t[0][1].value, "0.400 ns ±0.00%");
        assert!((t[0][1].change_pct.unwrap() + 20.0).abs() < 1e-9);
        // At or above the resolution a sampled value is shown.
        let rows = vec![vec![
            Some(summary(&[40.0, 40.0])),
            Some(summary(&[60.0, 60.0])),
        ]];
        let t = measure_table(write_sampled, &rows, 39.2);
        assert_eq!(t[0][1].value, "60.0 ns ±0.00%");
        assert_eq!(t[0][1].change_pct, Some(50.0));
        assert_eq!(measure_table(loop_ns, &[vec![None]], 1.0)[0][0].value, "-");
    }
}
