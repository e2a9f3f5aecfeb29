//! What a run's verdict rests on, the lines under its tables: the floors, hand-overs and fairness
//! flat out, the achieved rate paced, interference, noise and the CI target.

use crate::counter::PublishPolicy;
use crate::runner::interference::{STALLED_PCT, canary_cpus};
use crate::runner::{
    CanaryRange, Floor, PairedNet, RepeatResult, RunResults, StrategyResult, alone_difference,
    is_clock_floor, net_busy_ns,
};
use crate::stats::{
    CONFIDENCE_LEVEL, Compared, Decision, Direction, NOISE_THRESHOLD, decide_paired, median,
};
use crate::units::{ONE_REPEAT, Unit, cv_text, human, si, spread_text};
use crate::workload::{Arrivals, Regime, STALL};

/// A coefficient of variation above this % on a run's lead measure makes the strategy too noisy to
/// call.
pub const NOISY_CV_PCT: f64 = 10.0;

/// How much a [`Finding`] matters to a reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// What the numbers rest on, said for the record.
    Info,
    /// What makes the numbers mean less than their labels say.
    Warning,
}

/// What a [`Finding`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FindingKind {
    /// The harness floor flat out.
    HarnessFloor,
    /// A ratelimit's clock read, priced in place.
    ClockFloor,
    /// A paced regime's floor.
    PacedFloor,
    /// Sampled operations against loop ns/op from throughput.
    SampledVsThroughput,
    /// Whether paced threads kept their rate.
    Rate,
    /// Updates per ownership of the line flat out.
    Bursts,
    /// Slowest against fastest writer.
    Fairness,
    /// Steal, context switches, stalls and the canary.
    Interference,
    /// Strategies too noisy to call.
    Noise,
    /// Whether `--target-ci` was reached.
    TargetCi,
    /// How staleness was probed.
    Staleness,
}

/// One line on what a run's numbers rest on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Finding {
    /// What it is about.
    pub kind: FindingKind,
    /// How much it matters.
    pub severity: Severity,
    /// Its first sentence.
    pub head: String,
    /// The rest, if any.
    pub more: Option<String>,
}

impl Finding {
    fn info(kind: FindingKind, head: String) -> Finding {
        Finding {
            kind,
            severity: Severity::Info,
            head,
            more: None,
        }
    }

    /// Its first sentence, `WARNING` before a warning's.
    pub fn brief(&self) -> String {
        match self.severity {
            Severity::Info => self.head.clone(),
            Severity::Warning => format!("WARNING {}", self.head),
        }
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.brief())?;
        match &self.more {
            Some(more) => write!(f, ". {more}"),
            None => Ok(()),
        }
    }
}

/// The coefficient of variation (%) of a strategy's cost per update when it exceeds
/// [`NOISY_CV_PCT`]: too noisy to call; `None` otherwise.
pub fn noisy_cv(s: &StrategyResult) -> Option<f64> {
    let summary = s.summary.as_ref()?;
    let gross = if s.regime.is_paced() {
        summary.write_busy_ns
    } else {
        summary.write_loop_ns
    };
    Some(gross?.stddev_pct).filter(|&cv| cv > NOISY_CV_PCT)
}

/// The closing line of a run's tables: what `n.s.` means, and the strategies too noisy to call.
fn noise_line(run: &RunResults) -> String {
    let noisy = run
        .strategies
        .iter()
        .filter_map(|s| Some((s, noisy_cv(s)?)));
    let noisy: Vec<String> = noisy
        .map(|(s, cv)| format!("{} (varies {})", run.short_name(s), cv_text(cv)))
        .collect();
    let marks = format!(
        "n.s. marks a change the repeats do not support (Welch's test, Holm-adjusted over each table, and the {NOISE_THRESHOLD} noise threshold, as contend compare decides)"
    );
    let noisy = noisy.join(", ");
    match noisy.is_empty() {
        true => format!("noise: {marks}"),
        false => format!(
            "noise: too noisy to call {noisy}: their repeats vary by more than {NOISY_CV_PCT}%, so most changes against them are n.s.; the interference line says whether the machine moved (rerun, or raise --max-time); {marks}"
        ),
    }
}

/// Steal, involuntary context switches, stalls and the canary, in one line.
pub fn interference_line(run: &RunResults) -> Option<String> {
    // Stalls are each strategy's own (its busy and floor windows); steal, context switches and the
    // canary are each repeat's, however many strategies ran in it.
    let results: Vec<&RepeatResult> = run.strategies.iter().flat_map(|s| &s.repeats).collect();
    let records = || results.iter().map(|r| &r.interference);
    let repeats = run.repeats_run(None);
    let per_repeat = || repeats.iter().map(|r| &r.interference);
    let canaries = CanaryRange::of(per_repeat());
    let steal: Option<f64> = per_repeat().map(|i| i.steal_ms).sum();
    let switches: u64 = per_repeat().map(|i| i.involuntary_switches).sum();
    let paced = records().any(|i| !i.stalls.is_empty());
    if canaries.is_none() && steal.is_none() && switches == 0 && !paced {
        return None;
    }
    let steal = steal.map_or("unknown".to_string(), |s| format!("{s:.0} ms"));
    let mut parts = vec![format!(
        "steal {steal}, {switches} involuntary context switches"
    )];
    if paced {
        let stalls = records().flat_map(|i| &i.stalls);
        let (count, ms) = stalls.fold((0, 0.0), |(n, t), s| (n + s.count, t + s.ms));
        let stall = STALL.as_micros();
        parts.push(format!(
            "{count} stalls set aside from busy time ({ms:.1} ms: busy windows or late wake-ups over {stall} µs)"
        ));
    }
    if let Some(c) = canaries {
        let (lo, hi) = (c.lo, c.hi);
        let cost: Vec<f64> = per_repeat().filter_map(|i| i.canary_ms).collect();
        let cost = cost.iter().sum::<f64>() / cost.len().max(1) as f64;
        let moved = per_repeat().filter(|i| i.disturbed).count();
        let summaries = run.strategies.iter().filter_map(|s| s.summary.as_ref());
        let set_aside: usize = summaries.map(|m| m.set_aside).sum();
        let (rounds, results) = (repeats.len(), results.len());
        parts.push(format!(
            "canary (CAS ping-pong before and after each repeat) {lo:.1}-{hi:.1} ns one-way, moved under {moved} of {rounds} repeats; {set_aside} of {results} strategy results (a strategy in one repeat) set aside as disturbed, the canary moved or threads stalled over {STALLED_PCT}% of the interval, in either regime (kept in the result file); it costs {cost:.1} ms per repeat"
        ));
    }
    Some(format!("interference: {}", parts.join(", ")))
}

/// The range and median of each repeat's own counter lines' cost ([`RepeatResult::line_ns`]).
pub fn line_cost_line(run: &RunResults) -> Option<String> {
    let repeats = run.strategies.iter().flat_map(|s| &s.repeats);
    let mut ns: Vec<f64> = repeats.filter_map(|r| r.line_ns).collect();
    ns.sort_by(f64::total_cmp);
    let (lo, hi) = (*ns.first()?, *ns.last()?);
    let cpus = canary_cpus(&run.config.writer_cpus, &run.config.reader_cpus);
    let cpus = cpus.map_or(String::new(), |(a, b)| format!(" on CPUs {a} and {b}"));
    // Under `--paced both` a round's repeats in place and alone share one draw of lines.
    let shared = match run.strategies.iter().any(|s| !s.alone_repeats.is_empty()) {
        true => " (a round's repeats in place and alone share theirs)",
        false => "",
    };
    let median = median(&ns)?;
    Some(format!(
        "lines: each counter's own line, priced by a CAS ping-pong{cpus} before and after every repeat (the lower), {lo:.1}-{hi:.1} ns one-way (median {median:.1}): a hand-over's cost depends on where the line's address falls (its L3 slice), so every repeat draws the lines anew{shared} and paired comparisons adjust for what they cost"
    ))
}

/// Under `--paced both`, each strategy's net ns/update in place less alone, paired round by round
/// and decided as one family; `None` without repeats alone.
pub fn alone_line(run: &RunResults) -> Option<String> {
    let mut names = Vec::new();
    let mut family = Vec::new();
    for s in run
        .strategies
        .iter()
        .filter(|s| !s.alone_repeats.is_empty())
    {
        let net = |repeats: &[RepeatResult]| Some(PairedNet::of(repeats, net_busy_ns)?.summary);
        let (Some(base), Some(test), Some(paired)) = (
            net(&s.alone_repeats),
            net(&s.repeats),
            alone_difference(s, net_busy_ns),
        ) else {
            continue;
        };
        names.push((run.short_name(s), paired));
        family.push(Compared {
            base,
            test,
            paired: Some(paired),
            threshold: Floor::PerUpdateNs.threshold(NOISE_THRESHOLD, s.regime),
        });
    }
    if family.is_empty() {
        return None;
    }
    let outcomes = decide_paired(&family);
    let biased = outcomes.iter().filter(|o| o.decision != Decision::NoChange);
    let (biased, all) = (biased.count(), outcomes.len());
    let items: Vec<String> = names
        .iter()
        .zip(&outcomes)
        .map(|((name, paired), o)| {
            let (mean, rounds, word) = (paired.mean, paired.n, o.word(Direction::LowerIsBetter));
            let interval = o.difference.welch.map_or(String::new(), |w| {
                let (lo, hi) = w.interval(CONFIDENCE_LEVEL);
                format!(" [{lo:+.1}, {hi:+.1}]")
            });
            format!("{name} {mean:+.1} ns{interval} over {rounds} rounds, {word}")
        })
        .collect();
    let sum_up = match biased {
        0 => "in place biases none of them".to_string(),
        n => format!(
            "{n} of {all} not shown unbiased: compare their verdicts with a --paced alone run"
        ),
    };
    let items = items.join("; ");
    Some(format!(
        "in place against alone (--paced both): net ns/update in place less alone, paired round by round, 95% CI: {items}; {sum_up}"
    ))
}

/// A paced thread below this % of its requested rate is a warning.
pub const RATE_SHORTFALL_PCT: f64 = 98.0;

/// Updates per ownership of the line above which hammer mode is said to measure bursts.
pub const BURST_LIMIT: f64 = 2.0;

/// Flat out with two or more writers.
fn hammer_basis(run: &RunResults) -> Vec<Finding> {
    let mut lines = Vec::new();
    if run.config.writer_cpus.len() < 2 {
        return lines;
    }
    let always = || {
        let all = run.strategies.iter();
        all.filter(|s| s.strategy.publish == PublishPolicy::ALWAYS)
    };
    let bursts: Vec<(String, f64)> = always()
        .filter_map(|s| {
            let summary = s.summary.as_ref()?;
            let (b, per_s) = (
                summary.updates_per_ownership?.mean,
                summary.handovers_per_s?.mean,
            );
            let per_s = human(per_s, Unit::PerSecond);
            Some((
                format!("{} {b:.2} ({per_s} hand-overs/s)", run.short_name(s)),
                b,
            ))
        })
        .collect();
    if !bursts.is_empty() {
        let list: Vec<&str> = bursts.iter().map(|(text, _)| text.as_str()).collect();
        let list = list.join(", ");
        lines.push(Finding::info(FindingKind::Bursts, format!(
            "bursts: updates per ownership of the line (publishes / hand-overs between writers, counted exactly from each add's returned value): {list}"
        )));
        if bursts.iter().any(|&(_, b)| b > BURST_LIMIT) {
            lines.push(Finding {
                kind: FindingKind::Bursts,
                severity: Severity::Warning,
                head: format!("flat out measures bursts, not one update: a writer keeps the line for over {BURST_LIMIT} updates"),
                more: Some("For the cost a spaced workload pays per update, run with --rate (e.g. --rate 22000) or contend sweep --rates".to_string()),
            });
        }
    }
    let fairness: Vec<String> = always()
        .filter_map(|s| {
            let f = s.summary.as_ref()?.fairness?.mean;
            Some(format!("{} {f:.2}", run.short_name(s)))
        })
        .collect();
    if !fairness.is_empty() {
        let fairness = fairness.join(", ");
        let text = format!("fairness (slowest / fastest writer's updates/s, 1 = fair): {fairness}");
        lines.push(Finding::info(FindingKind::Fairness, text));
    }
    lines
}

/// Largest gap, in %, between a writer loop's sampled figures and its throughput-derived time
/// before the tables say they disagree.
pub const DISAGREEMENT_PCT: f64 = 25.0;

/// Where sampled operations disagree with loop ns/op from throughput by more than
/// [`DISAGREEMENT_PCT`]; paced, n/a (loop ns/op is the pacing interval there).
fn sampled_vs_throughput(run: &RunResults) -> Option<Finding> {
    if run.regime().is_paced() {
        let mut summaries = run.strategies.iter().filter_map(|s| s.summary.as_ref());
        let sampled = summaries.any(|m| m.write_ns.is_some());
        return sampled.then(|| {
            Finding::info(FindingKind::SampledVsThroughput, "sampled vs throughput: n/a paced (ops/s is the pacing rate, so there is no ns/op from throughput to compare the timed operations with; the cost is busy ns/op)".to_string())
        });
    }
    let resolution_ns = 2.0 * run.config.timer_overhead_ns;
    let disagree: Vec<String> = run
        .strategies
        .iter()
        .filter_map(|s| {
            let summary = s.summary.as_ref()?;
            let pct = summary.sampled_vs_throughput_pct?.mean;
            let resolved = summary.write_ns?.mean >= resolution_ns;
            (resolved && pct.abs() > DISAGREEMENT_PCT)
                .then(|| format!("{} {pct:+.0}%", run.short_name(s)))
        })
        .collect();
    let disagree = disagree.join(", ");
    (!disagree.is_empty()).then(|| {
        Finding::info(FindingKind::SampledVsThroughput, format!(
            "sampled vs throughput: the timed operations disagree with loop ns/op by more than {DISAGREEMENT_PCT}% for {disagree} (timing a contended operation perturbs it; trust loop ns/op)"
        ))
    })
}

/// Whether the paced threads kept up.
fn rate_line(run: &RunResults, rate: f64, arrivals: Arrivals) -> Finding {
    use Severity::{Info, Warning};
    let poisson = arrivals == Arrivals::Poisson;
    // Poisson arrivals offer a random count: whether a thread kept up is judged against the
    // arrivals that fell due, not the mean rate.
    let kept_up = |r: &RepeatResult| match poisson {
        true => r.arrivals_run_min_pct,
        false => r.achieved_rate_min_pct,
    };
    let worst_of = |s: &StrategyResult, pick: &dyn Fn(&RepeatResult) -> Option<f64>| {
        s.repeats.iter().filter_map(pick).reduce(f64::min)
    };
    let short: Vec<String> = run
        .strategies
        .iter()
        .filter_map(|s| Some((s, worst_of(s, &kept_up)?)))
        .filter(|&(_, worst)| worst < RATE_SHORTFALL_PCT)
        .map(|(s, worst)| format!("{} {worst:.1}%", run.short_name(s)))
        .collect();
    let (rate, worst) = (si(rate), short.join(", "));
    let repeats = run.strategies.iter().flat_map(|s| &s.repeats);
    let missed: u64 = repeats.map(|r| r.missed_slots).sum();
    let (severity, head, more) = if poisson {
        let achieved = run
            .strategies
            .iter()
            .filter_map(|s| worst_of(s, &|r| r.achieved_rate_min_pct))
            .reduce(f64::min)
            .map_or("-".into(), |a| format!("{a:.1}%"));
        let (severity, what) = match short.is_empty() {
            true => (
                Info,
                format!("every thread ran at least {RATE_SHORTFALL_PCT}% of its arrivals"),
            ),
            false => (
                Warning,
                format!(
                    "the slowest thread ran only {worst} of its arrivals: the CPU cannot keep up, or it was taken away"
                ),
            ),
        };
        let seed = run.config.seed;
        let head = format!(
            "rate: poisson arrivals at a mean {rate} ops/s per thread (seed {seed}, one stream per thread): {what}; the slowest thread's count was {achieved} of the mean rate (a poisson count varies by chance); {missed} arrivals skipped after stalls"
        );
        (severity, head, None)
    } else if short.is_empty() {
        let head = format!(
            "rate: every thread achieved at least {RATE_SHORTFALL_PCT}% of {rate} ops/s; {missed} pacer slots skipped after stalls"
        );
        (Info, head, None)
    } else {
        // A stall shows in one repeat: the mean repeat says whether the whole run fell short or one
        // moment did.
        let mean = run
            .strategies
            .iter()
            .filter_map(|s| {
                let all: Vec<f64> = s.repeats.iter().filter_map(&kept_up).collect();
                (!all.is_empty()).then(|| all.iter().sum::<f64>() / all.len() as f64)
            })
            .reduce(f64::min);
        let mean_text = mean.map_or("-".into(), |m| format!("{m:.1}%"));
        let asked = format!("rate: asked {rate}/s per thread, got {mean_text} on the mean");
        let slots = format!("({missed} pacer slots skipped after stalls)");
        // The rate held on the mean: a moment's stall, said but not a warning (each figure is a
        // mean over its repeats).
        if mean.is_some_and(|m| m >= RATE_SHORTFALL_PCT) {
            let head = format!(
                "{asked}; a stall left the slowest thread of its worst repeat at {worst} of it {slots}"
            );
            (Info, head, None)
        } else {
            let more = format!(
                "In its worst repeat the slowest thread achieved only {worst} of it {slots}"
            );
            (
                Warning,
                format!("{asked}: the CPU was busy or too slow"),
                Some(more),
            )
        }
    };
    Finding {
        kind: FindingKind::Rate,
        severity,
        head,
        more,
    }
}

/// What a run's numbers rest on, the lines under its tables.
pub fn findings(run: &RunResults) -> Vec<Finding> {
    use FindingKind::*;
    let mut lines = Vec::new();
    if let Some(f) = &run.floor {
        let (ns, spread, cpu) = (f.loop_ns.mean, spread_text(&f.loop_ns), f.cpu);
        lines.push(Finding::info(HarnessFloor, format!(
            "harness floor: {ns:.1} ns/op {spread} (the same writer loop on CPU {cpu} alone, no shared write; a strategy's loop ns/op less this is what the counter costs)"
        )));
    }
    let clock_floors = run
        .paced_floors
        .iter()
        .filter(|f| is_clock_floor(&f.strategy));
    let priced = |f: &StrategyResult| {
        let clock = f.strategy.clock?;
        Some((f.regime, clock, run.clock_cost(f.regime, clock)?))
    };
    for (regime, clock, cost) in clock_floors.filter_map(priced) {
        let spread = match cost.has_spread() {
            true => format!("±{:.1}", cost.ci95_high - cost.mean),
            false => ONE_REPEAT.to_string(),
        };
        lines.push(Finding::info(ClockFloor, format!(
            "clock floor ({regime}, {}): a ratelimit's clock read costs {:.1} ns {spread} per update in place (the paced floor's loop reading the clock on every update and never publishing, less its floor in place, repeat by repeat; contend predict charges it)",
            clock.name(),
            cost.mean,
        )));
    }
    let paced_floors = run.rates().into_iter();
    for (regime, floor) in paced_floors.filter_map(|r| Some((r, run.paced_floor(r)?))) {
        let (mut repeats, mut disturbed, mut retries) = (0, 0, 0);
        for s in run.strategies.iter().filter(|s| s.regime == regime) {
            if let Some(p) = PairedNet::of(&s.repeats, net_busy_ns) {
                // Disturbed repeats are set aside only while two others remain
                // ([`crate::runner::UsedRepeats`]).
                let set_aside = if p.all_repeats { 0 } else { p.disturbed };
                (repeats, disturbed) = (repeats + p.repeats, disturbed + set_aside);
            }
            retries += s.retries;
        }
        let share = floor.cpu_share_pct;
        let share = share.map_or(String::new(), |s| format!(", CPU share {:.3}%", s.mean));
        let (ns, spread, how) = (floor.busy_ns.mean, spread_text(&floor.busy_ns), floor.how());
        let rounds = run.repeats_run(Some(regime)).len();
        lines.push(Finding::info(PacedFloor, format!(
            "paced floor ({regime}): busy {ns:.1} ns/op {spread}{share} ({how}; over {rounds} repeats, {disturbed} of their {repeats} strategy results set aside as disturbed (the canary moved, or threads stalled over {STALLED_PCT}% of the interval), {retries} measured again)"
        )));
    }
    lines.extend(sampled_vs_throughput(run));
    match run.regime() {
        Regime::Paced { rate, arrivals } => lines.push(rate_line(run, rate, arrivals)),
        Regime::FlatOut => lines.extend(hammer_basis(run)),
    }
    lines.extend(interference_line(run).map(|line| Finding::info(Interference, line)));
    lines.push(Finding::info(Noise, noise_line(run)));
    if let Some(target) = run.config.target_ci_pct {
        let repeats = run.strategies.iter().map(|s| s.repeats.len());
        let lo = repeats.clone().min().unwrap_or(0);
        let hi = repeats.max().unwrap_or(0);
        let open = unconverged(run);
        let (budget, ns) = (run.config.max_time_s.unwrap_or(0.0), NOISE_THRESHOLD.ns);
        lines.push(Finding::info(TargetCi, match open.is_empty() {
            true => format!(
                "target CI: every strategy's cost per update (loop ns/op flat out; net ns/update paced, paired with the floor round by round) within ±{target}% or, paced, ±{ns} ns (95% CI) after {lo}-{hi} repeats"
            ),
            false => format!(
                "target CI: ±{target}% not reached within {budget:.0} s ({lo}-{hi} repeats) by {}: the machine is noisier than that; take their figures as inconclusive, or raise --max-time",
                open.join(", ")
            ),
        }));
    }
    if run.config.staleness_probes {
        lines.push(Finding::info(Staleness,
            "staleness: probed at sampled operations, |published sum - true sum| as a reader sees it; writers mirror their load into their own line after every update while probing (its cost is in loop ns/op and the floor; --rate sample:0 turns both off)".to_string(),
        ));
    }
    lines
}

/// The strategies `--target-ci` did not bring within its target.
pub fn unconverged(run: &RunResults) -> Vec<String> {
    run.strategies
        .iter()
        .filter(|s| s.converged == Some(false))
        .map(|s| run.short_name(s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::fixture_run;

    /// The fixture run, paced at 100k/s with `arrivals`, every repeat's
    /// slowest thread at `achieved` % of the rate and `ran` % of its
    /// arrivals.
    fn paced(arrivals: Arrivals, achieved: f64, ran: f64) -> RunResults {
        let mut run = fixture_run();
        let regime = Regime::Paced {
            rate: 1e5,
            arrivals,
        };
        run.config.rates = vec![regime];
        for s in &mut run.strategies {
            s.regime = regime;
            for r in &mut s.repeats {
                (r.achieved_rate_min_pct, r.arrivals_run_min_pct) = (Some(achieved), Some(ran));
            }
        }
        run
    }

    // Sampled against throughput, flat out and n/a paced: tests/snapshots/report-run-verbose.txt
    // lines 127 and 217.

    #[test]
    fn a_poisson_thread_is_judged_on_its_arrivals_not_the_mean_rate() {
        use Severity::{Info, Warning};
        // Evenly paced, every repeat's slowest thread at `achieved` % of
        // the rate but the first's at `first` %.
        let stalled = |achieved: f64, first: f64| {
            let mut run = paced(Arrivals::Paced, achieved, 100.0);
            for s in &mut run.strategies {
                s.repeats[0].achieved_rate_min_pct = Some(first);
            }
            run
        };
        let (poisson, even) = (Arrivals::Poisson, Arrivals::Paced);
        #[rustfmt::skip]
        let cases = [
            // A poisson count 3% under the mean, every arrival run: kept up.
            (paced(poisson, 97.0, 100.0), Info, &["mean 100k", "at least 98% of its arrivals", "97.0% of the mean rate"][..]),
            // Arrivals skipped: a warning whatever the count.
            (paced(poisson, 99.0, 90.0), Warning, &["90.0% of its arrivals"]),
            // Evenly paced, the same 97% of the rate is a shortfall.
            (paced(even, 97.0, 100.0), Warning, &["asked 100k", "97.0% on the mean"]),
            // One repeat at 81%, the other at 99%: the worst is named, and
            // the mean (90%) says the rest kept up better.
            (stalled(99.0, 81.0), Warning, &["global/always 81.0%", "90.0% on the mean"]),
            // One repeat at 95%, the other at 101%: the mean (98%) held, so
            // the stall is said without a warning.
            (stalled(101.0, 95.0), Info, &["98.0% on the mean", "global/always 95.0%"]),
            (paced(even, 99.0, 90.0), Info, &["at least 98% of 100k"]),
        ];
        for (run, severity, holds) in cases {
            let finding = findings(&run)
                .into_iter()
                .find(|f| f.kind == FindingKind::Rate);
            let finding = finding.expect("a rate line");
            let line = finding.to_string();
            assert_eq!(finding.severity, severity, "{line}");
            assert!(holds.iter().all(|h| line.contains(h)), "{line}");
        }
    }
}
