//! From the threads' raw counts to one repeat's numbers, and from repeats to a strategy's summary:
//! the repeats whose canary moved marked, each strategy's net figures against its floor (the hammer
//! floor flat out, the floor in place paced), the CI of its cost and whether `--target-ci` was met.

use super::interference::{self, CANARY_SHIFT};
use super::result::{
    CanaryRange, HarnessFloor, NodeRepeat, NodeSummary, RepeatResult, RunConfig, Staleness,
    Strategy, StrategyResult, StrategySummary,
};
use crate::counter::PublishStats;
use crate::matrix::SCHEDULED_TRANSFER_NS;
use crate::stats::{LatencySummary, NOISE_THRESHOLD, Summary, adjusted_mean, ratio};
use crate::workload::{Regime, Role, StalenessSamples, ThreadReport, new_histogram};
use hdrhistogram::Histogram;
use std::collections::BTreeSet;

/// What [`repeat_result`] needs besides the thread reports.
#[derive(Debug, Clone, Default)]
pub struct RepeatContext {
    /// The node of each writer's CPU, in pool order.
    pub cpu_nodes: Vec<u32>,
    /// The node of each writer's slot (publishes across count as cross-node).
    pub slot_nodes: Vec<u32>,
    /// What the counter read after every writer flushed.
    pub final_sum: i64,
    /// Nanoseconds per timer tick.
    pub ns_per_tick: f64,
    /// The regime the repeat ran in (its rate per thread, paced).
    pub regime: Regime,
}

/// Turns one repeat's thread reports into its numbers.
pub fn repeat_result(repeat: usize, reports: &[ThreadReport], ctx: &RepeatContext) -> RepeatResult {
    let (final_sum, tick) = (ctx.final_sum, ctx.ns_per_tick);
    let writers: Vec<&ThreadReport> = reports.iter().filter(|r| r.role == Role::Writer).collect();
    let readers: Vec<&ThreadReport> = reports.iter().filter(|r| r.role == Role::Reader).collect();
    let in_window: Vec<&ThreadReport> = reports.iter().filter(|r| measured(r)).collect();
    let intervals: Vec<f64> = reports.iter().filter_map(|r| r.interval_s).collect();
    let interval_s = mean(&intervals);
    let writer_rates: Vec<f64> = (writers.iter().filter(|r| measured(r)))
        .map(|r| rate_of(r.updates, r))
        .collect();
    let merged = Merged::of(&writers, &in_window, ctx);
    let stats = merged.stats;
    let write_loop_ns = per_op_ns(&writers, |r| r.interval_s, |r| r.updates).unwrap_or(0.0);
    let busy = |r: &ThreadReport| busy_s(r, tick);
    let write_latency = LatencySummary::of(&merged.write_hist, tick);
    let (cpu_share_pct, floor_cpu_share_pct) = cpu_shares(reports, tick);
    let (achieved_rate_min_pct, arrivals_run_min_pct) = pacing_minima(&in_window, ctx.regime);
    let expected_sum: i64 = writers.iter().map(|w| w.final_load).sum();
    let per_s = |n: u64| ratio(n as f64, interval_s);
    let counted = |side: &[&ThreadReport], n: fn(&ThreadReport) -> u64| -> Vec<u64> {
        side.iter()
            .map(|r| if measured(r) { n(r) } else { 0 })
            .collect()
    };
    let all_reads: u64 = in_window.iter().map(|r| r.reads).sum();
    let read_fetches: u64 = in_window.iter().map(|r| r.read_fetches).sum();
    RepeatResult {
        repeat,
        interval_s,
        writer_updates: counted(&writers, |r| r.updates),
        writer_reads: counted(&writers, |r| r.reads),
        reader_reads: counted(&readers, |r| r.reads),
        writer_read_fetches: counted(&writers, |r| r.read_fetches),
        reader_read_fetches: counted(&readers, |r| r.read_fetches),
        fetches_per_read: (all_reads > 0).then(|| read_fetches as f64 / all_reads as f64),
        write_ops_per_s: writer_rates.iter().sum(),
        read_ops_per_s: reports.iter().map(|r| rate_of(r.reads, r)).sum(),
        write_ops_per_s_thread_min: writer_rates.iter().copied().reduce(f64::min).unwrap_or(0.0),
        write_ops_per_s_thread_max: writer_rates.iter().copied().fold(0.0, f64::max),
        write_latency,
        read_latency: LatencySummary::of(&merged.read_hist, tick),
        publishes: stats.publishes,
        publishes_per_s: per_s(stats.publishes),
        handovers: stats.handovers,
        handovers_per_s: per_s(stats.handovers),
        updates_per_ownership: (stats.handovers > 0)
            .then(|| stats.publishes as f64 / stats.handovers as f64),
        cross_node_publishes: merged.cross_node_publishes,
        staleness: staleness_of(&merged.staleness, write_loop_ns),
        write_loop_ns,
        reader_read_ns: per_op_ns(&readers, |r| r.interval_s, |r| r.reads),
        write_busy_ns: per_op_ns(&writers, busy, |r| busy_ops(r, r.updates)).unwrap_or(0.0),
        reader_busy_ns: per_op_ns(&readers, busy, |r| busy_ops(r, r.reads)),
        cpu_share_pct,
        floor_busy_ns: per_op_ns(&writers, |r| floor_s(r, tick), floor_ops),
        floor_cpu_share_pct,
        achieved_rate_min_pct,
        arrivals_run_min_pct,
        missed_slots: in_window.iter().map(|r| r.missed_slots).sum(),
        sampled_vs_throughput_pct: merged.sampled_vs_throughput_pct(
            write_latency,
            write_loop_ns,
            ctx,
        ),
        line_ns: None,
        interference: Default::default(),
        nodes: node_costs(&writers, ctx),
        outside_window: reports
            .iter()
            .filter(|r| !measured(r))
            .map(|r| r.pin.requested_cpu)
            .collect(),
        final_sum,
        expected_sum,
        exact: final_sum == expected_sum,
    }
}

/// Whether a thread saw the measured interval start.
fn measured(r: &ThreadReport) -> bool {
    r.interval_s.is_some()
}

/// The measured threads' samples and publish counts, merged.
struct Merged {
    write_hist: Histogram<u64>,
    writer_read_hist: Histogram<u64>,
    read_hist: Histogram<u64>,
    stats: PublishStats,
    staleness: StalenessSamples,
    /// Publishes of writers whose slot is on another node than their CPU.
    cross_node_publishes: u64,
    /// Reads the measured writers made.
    writer_reads: u64,
}

impl Merged {
    /// Merges the measured `writers`' write samples and publish counts, and the read samples and
    /// staleness probes of every thread `in_window`.
    fn of(writers: &[&ThreadReport], in_window: &[&ThreadReport], ctx: &RepeatContext) -> Self {
        let mut m = Merged {
            write_hist: new_histogram(),
            writer_read_hist: new_histogram(),
            read_hist: new_histogram(),
            stats: PublishStats::default(),
            staleness: StalenessSamples::default(),
            cross_node_publishes: 0,
            writer_reads: 0,
        };
        for (i, w) in writers.iter().enumerate().filter(|(_, w)| measured(w)) {
            // Histograms share bounds, so adding cannot fail.
            let _ = m.write_hist.add(&w.write_hist);
            let _ = m.writer_read_hist.add(&w.read_hist);
            m.stats.merge(&w.stats);
            m.writer_reads += w.reads;
            if ctx.cpu_nodes.get(i) != ctx.slot_nodes.get(i) {
                m.cross_node_publishes += w.stats.publishes;
            }
        }
        for r in in_window {
            let _ = m.read_hist.add(&r.read_hist);
            m.staleness.merge(&r.staleness);
        }
        m
    }

    /// How far the sampled cost of an update (its timed add plus the reads it made, each at their
    /// sampled mean) is from the loop's ns per update, in %.
    fn sampled_vs_throughput_pct(
        &self,
        write_latency: Option<LatencySummary>,
        write_loop_ns: f64,
        ctx: &RepeatContext,
    ) -> Option<f64> {
        let w = write_latency.filter(|_| write_loop_ns > 0.0 && !ctx.regime.is_paced())?;
        let reads_per_update = self.writer_reads as f64 / self.stats.updates.max(1) as f64;
        let read_ns =
            LatencySummary::of(&self.writer_read_hist, ctx.ns_per_tick).map_or(0.0, |l| l.mean_ns);
        let sampled = w.mean_ns + read_ns * reads_per_update;
        Some(100.0 * (sampled - write_loop_ns) / write_loop_ns)
    }
}

/// A repeat's staleness figures from its probes; ages in ns at `write_loop_ns` per update.
fn staleness_of(s: &StalenessSamples, write_loop_ns: f64) -> Staleness {
    let per_probe = |sum: f64| ratio(sum, s.probes as f64);
    Staleness {
        probes: s.probes,
        error_mean: per_probe(s.error_sum),
        error_max: s.error_max,
        error_mean_pct: per_probe(s.error_pct_sum),
        error_max_pct: s.error_pct_max,
        age_mean_ns: per_probe(s.age_sum_updates) * write_loop_ns,
        age_max_ns: s.age_max_updates as f64 * write_loop_ns,
    }
}

/// A thread's busy seconds: paced, its operations' timed windows.
fn busy_s(r: &ThreadReport, ns_per_tick: f64) -> Option<f64> {
    Some(
        r.busy
            .map_or(r.interval_s?, |b| b.ticks as f64 * ns_per_tick * 1e-9),
    )
}

/// The operations a thread's busy seconds timed (`ops` flat out).
fn busy_ops(r: &ThreadReport, ops: u64) -> u64 {
    r.busy.map_or(ops, |b| b.ops)
}

/// A thread's seconds in its floor in place.
fn floor_s(r: &ThreadReport, ns_per_tick: f64) -> Option<f64> {
    r.interval_s?;
    Some(r.floor_busy?.ticks as f64 * ns_per_tick * 1e-9)
}

/// The iterations a thread's floor in place timed.
fn floor_ops(r: &ThreadReport) -> u64 {
    r.floor_busy.map_or(0, |b| b.ops)
}

/// A thread's operations: updates for a writer, reads for a reader.
fn ops_of(r: &ThreadReport) -> u64 {
    if r.role == Role::Writer {
        r.updates
    } else {
        r.reads
    }
}

/// Each node's writers, when they span two or more nodes.
fn node_costs(writers: &[&ThreadReport], ctx: &RepeatContext) -> Vec<NodeRepeat> {
    let (cpu_nodes, slot_nodes, tick) = (&ctx.cpu_nodes, &ctx.slot_nodes, ctx.ns_per_tick);
    let writer_nodes: BTreeSet<u32> = cpu_nodes.iter().take(writers.len()).copied().collect();
    if writer_nodes.len() < 2 {
        return Vec::new();
    }
    writer_nodes
        .iter()
        .map(|&node| {
            let on: Vec<usize> = (0..writers.len())
                .filter(|&i| cpu_nodes.get(i) == Some(&node))
                .collect();
            let group: Vec<&ThreadReport> = on.iter().map(|&i| writers[i]).collect();
            let cost_ns = if ctx.regime.is_paced() {
                per_op_ns(&group, |r| busy_s(r, tick), |r| busy_ops(r, r.updates))
                    .zip(per_op_ns(&group, |r| floor_s(r, tick), floor_ops))
                    .map(|(busy, floor)| busy - floor)
            } else {
                per_op_ns(&group, |r| r.interval_s, |r| r.updates)
            };
            NodeRepeat {
                node,
                writers: group.iter().filter(|r| measured(r)).count(),
                remote: on.iter().any(|&i| slot_nodes.get(i) != Some(&node)),
                cost_ns,
            }
        })
        .collect()
}

/// The threads' mean share of their CPU, %, and their floors' in place.
fn cpu_shares(reports: &[ThreadReport], ns_per_tick: f64) -> (f64, Option<f64>) {
    let share = |r: &ThreadReport, seconds: Option<f64>, timed: u64| {
        let s = r.interval_s.filter(|&s| s > 0.0)?;
        let per_op_s = seconds? / (timed > 0).then_some(timed as f64)?;
        Some(100.0 * per_op_s * ops_of(r) as f64 / s)
    };
    let shares: Vec<(f64, Option<f64>)> = reports
        .iter()
        .filter_map(|r| {
            let busy = share(r, busy_s(r, ns_per_tick), busy_ops(r, ops_of(r)))?;
            Some((busy, share(r, floor_s(r, ns_per_tick), floor_ops(r))))
        })
        .collect();
    let floor_shares: Option<Vec<f64>> = shares.iter().map(|s| s.1).collect();
    (
        mean(&shares.iter().map(|s| s.0).collect::<Vec<_>>()),
        floor_shares.filter(|f| !f.is_empty()).map(|f| mean(&f)),
    )
}

/// Paced, the lowest of the measured threads' achieved rates (% of the regime's) and of their
/// shares of arrival slots run (%); `None` flat out.
fn pacing_minima(in_window: &[&ThreadReport], regime: Regime) -> (Option<f64>, Option<f64>) {
    let Some(rate) = regime.rate() else {
        return (None, None);
    };
    let min =
        |pct: &dyn Fn(&ThreadReport) -> f64| in_window.iter().map(|r| pct(r)).reduce(f64::min);
    (
        min(&|r| 100.0 * rate_of(ops_of(r), r) / rate),
        min(&|r| 100.0 * ops_of(r) as f64 / (ops_of(r) + r.missed_slots).max(1) as f64),
    )
}

/// Operations per second of one thread over its measured interval (0 when it has none).
fn rate_of(count: u64, r: &ThreadReport) -> f64 {
    ratio(count as f64, r.interval_s.unwrap_or(0.0))
}

/// ns per operation over `threads`.
fn per_op_ns(
    threads: &[&ThreadReport],
    seconds: impl Fn(&ThreadReport) -> Option<f64>,
    ops: impl Fn(&ThreadReport) -> u64,
) -> Option<f64> {
    let (total_s, count) = threads
        .iter()
        .filter_map(|r| Some((seconds(r)?, ops(r))))
        .fold((0.0, 0u64), |(s, n), (t, c)| (s + t, n + c));
    (count > 0).then(|| total_s * 1e9 / count as f64)
}

/// The arithmetic mean; 0 for no values.
fn mean(values: &[f64]) -> f64 {
    ratio(values.iter().sum(), values.len() as f64)
}

/// Folds a run's repeats into its clock floors and strategies.
pub(super) fn finish(
    mut results: Vec<StrategyResult>,
    is_floor: &[bool],
    floor: Option<&HarnessFloor>,
    target_ci_pct: Option<f64>,
    notes: &mut Vec<String>,
) -> (Vec<StrategyResult>, Vec<StrategyResult>) {
    let repeats = results
        .iter_mut()
        .flat_map(|r| r.repeats.iter_mut().chain(&mut r.alone_repeats));
    if let Some(warning) = mark_canary_shifts(repeats.collect()) {
        notes.push(warning);
    }
    let all: Vec<Strategy> = results.iter().map(|r| r.strategy).collect();
    for (result, &is_floor) in results.iter_mut().zip(is_floor) {
        result.summary = strategy_summary(&result.repeats);
        fill_net(result, floor);
        if let Some(target) = target_ci_pct.filter(|_| !is_floor) {
            result.converged = Some(target_ratio(result, target).is_some_and(|r| r <= 1.0));
        }
        if UsedRepeats::of(&result.repeats).all_repeats {
            // A clock floor is a ratelimit that never publishes: named for what it is, not its
            // period.
            let what = match (is_floor, result.strategy.clock) {
                (true, Some(c)) => format!("the {} clock floor", c.name()),
                (true, None) => "the clock floor".to_string(),
                (false, _) => result.strategy.short_name(&all),
            };
            let name = result.regime.label(&what);
            notes.push(format!(
                "{name}: fewer than 2 repeats undisturbed, so its figures use every repeat, disturbed ones included"
            ));
        }
    }
    let (floors, strategies): (Vec<_>, Vec<_>) =
        results.into_iter().zip(is_floor).partition(|(_, f)| **f);
    let strip = |v: Vec<(StrategyResult, &bool)>| v.into_iter().map(|(r, _)| r).collect();
    (strip(floors), strip(strategies))
}

/// How far the 95% CI of a strategy's cost per update is from `--target-ci` `target` %.
pub fn target_ratio(result: &StrategyResult, target: f64) -> Option<f64> {
    match result.regime {
        Regime::FlatOut => {
            let values: Vec<f64> = UsedRepeats::of(&result.repeats)
                .used
                .iter()
                .map(|r| r.write_loop_ns)
                .collect();
            let s = Summary::of(&values).filter(|s| s.n > 1 && s.mean > 0.0)?;
            Some(100.0 * (s.ci95_high - s.mean) / s.mean / target)
        }
        Regime::Paced { .. } => {
            let s = PairedNet::of(&result.repeats, net_busy_ns)?.summary;
            let allowed = (target / 100.0 * s.mean.abs()).max(NOISE_THRESHOLD.ns);
            (s.n > 1 && allowed > 0.0).then(|| (s.ci95_high - s.mean) / allowed)
        }
    }
}

/// Under `--paced both`, the 95% CI half-width of in place less alone ([`alone_difference`]) over
/// the threshold's ns.
pub fn alone_ratio(result: &StrategyResult) -> Option<f64> {
    let s = alone_difference(result, net_busy_ns).filter(|s| s.n > 1)?;
    Some((s.ci95_high - s.mean) / NOISE_THRESHOLD.ns)
}

/// A paced repeat's net busy ns per update: its busy ns/op less its floor's in place.
pub fn net_busy_ns(r: &RepeatResult) -> Option<f64> {
    Some(r.write_busy_ns - r.floor_busy_ns?)
}

/// A paced repeat's net CPU share, percentage points: its CPU share less its floor's in place.
pub fn net_cpu_share_pct(r: &RepeatResult) -> Option<f64> {
    Some(r.cpu_share_pct - r.floor_cpu_share_pct?)
}

/// The repeats a strategy's figures are over, in both regimes, by one rule.
#[derive(Debug, Clone, PartialEq)]
pub struct UsedRepeats<'a> {
    /// The repeats the figures are over, in order.
    pub used: Vec<&'a RepeatResult>,
    /// Disturbed repeats left out of `used` (0 when `all_repeats`).
    pub set_aside: usize,
    /// Disturbed repeats among all of them, whether left out or not.
    pub disturbed: usize,
    /// Under two undisturbed repeats, every repeat was used, disturbed or not.
    pub all_repeats: bool,
}

impl<'a> UsedRepeats<'a> {
    /// The rule applied to `repeats`.
    pub fn of(repeats: impl IntoIterator<Item = &'a RepeatResult>) -> Self {
        let repeats: Vec<&RepeatResult> = repeats.into_iter().collect();
        let clean: Vec<&RepeatResult> = repeats
            .iter()
            .copied()
            .filter(|r| !interference::disturbed(r))
            .collect();
        let disturbed = repeats.len() - clean.len();
        let all_repeats = clean.len() < 2 && disturbed > 0;
        let (used, set_aside) = if all_repeats {
            (repeats, 0)
        } else {
            (clean, disturbed)
        };
        UsedRepeats {
            used,
            set_aside,
            disturbed,
            all_repeats,
        }
    }
}

/// A paced strategy's net figure repeat by repeat.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedNet {
    /// Over the repeats used ([`UsedRepeats`]).
    pub summary: Summary,
    /// Repeats with a net figure.
    pub repeats: usize,
    /// Of those, repeats disturbed ([`interference::disturbed`]).
    pub disturbed: usize,
    /// Under two undisturbed repeats, every repeat was used, disturbed or not.
    pub all_repeats: bool,
}

impl PairedNet {
    /// The paired net figure of `repeats`.
    pub fn of(
        repeats: &[RepeatResult],
        net: impl Fn(&RepeatResult) -> Option<f64>,
    ) -> Option<PairedNet> {
        let kept = UsedRepeats::of(repeats.iter().filter(|r| net(r).is_some()));
        let used: Vec<f64> = kept.used.iter().filter_map(|r| net(r)).collect();
        Some(PairedNet {
            summary: Summary::of(&used)?,
            repeats: kept.used.len() + kept.set_aside,
            disturbed: kept.disturbed,
            all_repeats: kept.all_repeats,
        })
    }
}

/// Two strategies' per-repeat difference, `value(test) − value(base)` in each repeat index both
/// have, summarised: measured in the same milliseconds, so what moved both cancels.
pub fn paired_difference(
    config: &RunConfig,
    base: &StrategyResult,
    test: &StrategyResult,
    value: impl Fn(&RepeatResult) -> Option<f64>,
) -> Option<Summary> {
    // Only strategies in place in the same repeats pair: both in one group (of one regime).
    let group = config.group_of(base);
    if group.is_none() || config.group_of(test) != group {
        return None;
    }
    repeat_by_repeat(&base.repeats, &test.repeats, value)
}

/// A strategy in place less itself alone, round by round, under `--paced both`.
pub fn alone_difference(
    strategy: &StrategyResult,
    value: impl Fn(&RepeatResult) -> Option<f64>,
) -> Option<Summary> {
    repeat_by_repeat(&strategy.alone_repeats, &strategy.repeats, value)
}

/// `value(test) − value(base)` in each repeat index both have, kept and adjusted as
/// [`paired_difference`] says.
fn repeat_by_repeat(
    base: &[RepeatResult],
    test: &[RepeatResult],
    value: impl Fn(&RepeatResult) -> Option<f64>,
) -> Option<Summary> {
    // (difference, either side disturbed, both lines' cost), repeat by repeat.
    let pairs: Vec<(f64, bool, Option<[f64; 2]>)> = test
        .iter()
        .filter_map(|t| {
            let b = base.iter().find(|b| b.repeat == t.repeat)?;
            let disturbed = interference::disturbed(b) || interference::disturbed(t);
            let lines = t.line_ns.zip(b.line_ns).map(|(t, b)| [t, b]);
            Some((value(t)? - value(b)?, disturbed, lines))
        })
        .collect();
    let clean = pairs.iter().filter(|p| !p.1).count();
    let kept: Vec<_> = pairs.iter().filter(|p| clean < 2 || !p.1).collect();
    let differences: Vec<f64> = kept.iter().map(|p| p.0).collect();
    let lines: Option<Vec<[f64; 2]>> = kept.iter().map(|p| p.2).collect();
    lines
        .and_then(|x| adjusted_mean(&differences, &x))
        .or_else(|| Summary::of(&differences))
}

/// Marks disturbed every repeat whose canary is [`CANARY_SHIFT`]× off the run's median or over
/// [`SCHEDULED_TRANSFER_NS`] one-way; returns the warning to print, if any.
pub fn mark_canary_shifts(mut repeats: Vec<&mut RepeatResult>) -> Option<String> {
    let c = CanaryRange::of(repeats.iter().map(|r| &r.interference))?;
    let (median, lo, hi) = (c.median, c.lo, c.hi);
    // A median to differ from: two canaries or more, of a working clock.
    let has_median = c.count >= 2 && median > 0.0;
    let scheduled = SCHEDULED_TRANSFER_NS as f64;
    let mut marked = 0;
    for r in repeats.iter_mut() {
        let i = &mut r.interference;
        if i.canary_ns.is_some() || i.canary_after_ns.is_some() {
            // Either canary away: the phase changed before, or during.
            let away = [i.canary_ns, i.canary_after_ns]
                .into_iter()
                .flatten()
                .any(|c| {
                    c > scheduled
                        || has_median
                            && !(1.0 / CANARY_SHIFT..=CANARY_SHIFT).contains(&(c / median))
                });
            i.disturbed = away;
            marked += usize::from(away);
        }
    }
    let changed = has_median && hi / lo > CANARY_SHIFT;
    (changed || hi > scheduled).then(|| {
        let cause = if hi > scheduled {
            format!(
                "a canary over {} µs one-way is no cache's: both vCPUs ran on one host CPU, taking turns",
                scheduled / 1e3
            )
        } else {
            "a hypervisor probably moved vCPUs".to_string()
        };
        let what = if changed { "changed during" } else { "was the scheduler's throughout" };
        format!(
            "core-to-core latency {what} the run: {} → {} ns (median {}); {cause}; {marked} repeats measured away from the median or over {} µs are marked disturbed",
            round(lo),
            round(hi),
            round(median),
            scheduled / 1e3
        )
    })
}

/// A latency for a warning: whole ns, or one decimal under 10.
fn round(ns: f64) -> String {
    format!("{:.*}", usize::from(ns < 10.0), ns)
}

/// Fills a strategy's net figures: flat out, net ns per update = loop ns/op − the hammer `floor`'s.
fn fill_net(result: &mut StrategyResult, floor: Option<&HarnessFloor>) {
    let (busy, share) = (
        PairedNet::of(&result.repeats, net_busy_ns),
        PairedNet::of(&result.repeats, net_cpu_share_pct),
    );
    let regime = result.regime;
    let Some(summary) = result.summary.as_mut() else {
        return;
    };
    match regime {
        Regime::FlatOut => {
            summary.net_ns = summary
                .write_loop_ns
                .zip(floor)
                .map(|(ns, f)| ns.less(&f.loop_ns));
        }
        Regime::Paced { .. } => {
            summary.net_ns = busy.map(|p| p.summary);
            summary.net_cpu_share_pct = share.map(|p| p.summary);
        }
    }
}

/// Summarises a strategy's repeats over those [`UsedRepeats`] keeps.
pub fn strategy_summary(all: &[RepeatResult]) -> Option<StrategySummary> {
    let kept = UsedRepeats::of(all);
    let repeats = || kept.used.iter().copied();
    let of = |f: &dyn Fn(&RepeatResult) -> f64| Summary::of(&repeats().map(f).collect::<Vec<_>>());
    let of_some = |f: &dyn Fn(&RepeatResult) -> Option<f64>| {
        let values: Option<Vec<f64>> = repeats().map(f).collect();
        values.and_then(|v| Summary::of(&v))
    };
    // Staleness over the repeats whose probes saw something.
    let of_probed = |f: &dyn Fn(&RepeatResult) -> f64| {
        let values: Vec<f64> = repeats()
            .filter(|r| r.staleness.probes > 0)
            .map(f)
            .collect();
        Summary::of(&values)
    };
    let of_latency = |f: &dyn Fn(&LatencySummary) -> f64,
                      side: &dyn Fn(&RepeatResult) -> Option<LatencySummary>| {
        of_some(&|r| side(r).map(|l| f(&l)))
    };
    Some(StrategySummary {
        write_ops_per_s: of(&|r| r.write_ops_per_s)?,
        read_ops_per_s: of(&|r| r.read_ops_per_s)?,
        write_ns: of_latency(&|l| l.mean_ns, &|r| r.write_latency),
        read_ns: of_latency(&|l| l.mean_ns, &|r| r.read_latency),
        write_p50_ns: of_latency(&|l| l.p50_ns, &|r| r.write_latency),
        read_p50_ns: of_latency(&|l| l.p50_ns, &|r| r.read_latency),
        publishes_per_s: of(&|r| r.publishes_per_s)?,
        error_mean_pct: of_probed(&|r| r.staleness.error_mean_pct),
        age_mean_ns: of_probed(&|r| r.staleness.age_mean_ns),
        write_loop_ns: of_some(&|r| (r.write_loop_ns > 0.0).then_some(r.write_loop_ns)),
        reader_read_ns: of_some(&|r| r.reader_read_ns),
        sampled_vs_throughput_pct: of_some(&|r| r.sampled_vs_throughput_pct),
        write_busy_ns: of_some(&|r| (r.write_busy_ns > 0.0).then_some(r.write_busy_ns)),
        reader_busy_ns: of_some(&|r| r.reader_busy_ns),
        cpu_share_pct: of(&|r| r.cpu_share_pct),
        floor_busy_ns: of_some(&|r| r.floor_busy_ns),
        floor_cpu_share_pct: of_some(&|r| r.floor_cpu_share_pct),
        handovers_per_s: of_some(&|r| (r.publishes > 0).then_some(r.handovers_per_s)),
        updates_per_ownership: of_some(&|r| r.updates_per_ownership),
        fetches_per_read: of_some(&|r| r.fetches_per_read),
        net_ns: None,
        net_cpu_share_pct: None,
        set_aside: kept.set_aside,
        fairness: of_some(&|r| {
            (r.writer_updates.len() > 1 && r.write_ops_per_s_thread_max > 0.0)
                .then(|| r.write_ops_per_s_thread_min / r.write_ops_per_s_thread_max)
        }),
        nodes: node_summaries(&kept.used),
    })
}

/// Each node's cost over `repeats`, for the nodes the first of them recorded and every one of them
/// has a cost for (none with one node).
fn node_summaries(repeats: &[&RepeatResult]) -> Vec<NodeSummary> {
    let Some(first) = repeats.first() else {
        return Vec::new();
    };
    first
        .nodes
        .iter()
        .filter_map(|n| {
            let costs: Option<Vec<f64>> = repeats
                .iter()
                .map(|r| r.nodes.iter().find(|m| m.node == n.node)?.cost_ns)
                .collect();
            Some(NodeSummary {
                node: n.node,
                remote: n.remote,
                cost_ns: Summary::of(&costs?)?,
            })
        })
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use crate::runner::RunResults;
    /// tests/fixtures/results/run.json with as many strategies as
    /// `loop_ns`, strategy `i`'s repeats measuring `loop_ns[i]` ns/update.
    pub(crate) fn run_with(loop_ns: &[&[f64]]) -> RunResults {
        let mut run = crate::runner::fixture_run();
        let first = run.strategies[0].clone();
        run.strategies.resize(loop_ns.len(), first);
        for (s, values) in run.strategies.iter_mut().zip(loop_ns) {
            let template = s.repeats[0].clone();
            s.repeats = values
                .iter()
                .map(|&ns| RepeatResult {
                    write_loop_ns: ns,
                    ..template.clone()
                })
                .collect();
        }
        run
    }

    #[test]
    fn the_target_ratio_is_students_t_half_width_by_hand() {
        // mean 11, sd √2, t(0.975, 1) = 12.7062: ±115.51% of the mean, 23.10× a 5% target.
        let run = run_with(&[&[10.0, 12.0], &[10.0, 11.0, 12.0], &[10.0], &[0.0, 0.0]]);
        let r: Vec<Option<f64>> = run
            .strategies
            .iter()
            .map(|s| target_ratio(s, 5.0))
            .collect();
        near(r[0].unwrap(), 115.510_952_147_042_77 / 5.0, 1e-9);
        // mean 11, sd 1, t(0.975, 2) = 4.30265: 4.30265 / √3 / 11.
        near(r[1].unwrap(), 22.583_070_106_821_192 / 5.0, 1e-9);
        // One repeat, or a zero mean: no interval.
        assert_eq!((r[2], r[3]), (None, None));
    }

    #[test]
    fn a_paced_target_is_the_paired_net_within_the_target_or_1_ns() {
        // Busy 40, 43, 41 ns against the floor's 30, 32, 31 in place in the same repeats: nets 10,
        // 11, 10, mean 10.33, sd 0.577, half-width 4.30265 × 0.577 / √3 = 1.434 ns. Unpaired, the
        // two sides' own spreads (1.53 and 1.0 ns) would give ±4.5 ns.
        let mut s = over_floors(&[40.0, 43.0, 41.0]);
        let half = 4.302_652_729_911_275 * (1.0f64 / 3.0).sqrt() / 3f64.sqrt();
        // A 5% target allows 0.52 ns, less than 1 ns: 1 ns it is.
        let r = target_ratio(&s, 5.0).unwrap();
        near(r, half, 1e-9);
        // 20% allows 2.07 ns: met.
        let r = target_ratio(&s, 20.0).unwrap();
        near(r, half / (0.2 * 31.0 / 3.0), 1e-9);
        // No floor in place: no paired net, no ratio.
        let bare = paced(Regime::SEED, &[40.0, 43.0, 41.0], &[0.1; 3]);
        assert_eq!(target_ratio(&bare, 5.0), None);
        // The second repeat disturbed: it is left out, nets 10 and 10, no spread.
        s.repeats[1].interference.disturbed = true;
        let p = PairedNet::of(&s.repeats, net_busy_ns).unwrap();
        assert_eq!((p.repeats, p.disturbed, p.all_repeats), (3, 1, false));
        let s2 = p.summary;
        assert_eq!((s2.n, s2.mean, s2.stddev), (2, 10.0, 0.0));
        // Two of three disturbed: too few left, every repeat is used.
        s.repeats[2].interference.disturbed = true;
        let p = PairedNet::of(&s.repeats, net_busy_ns).unwrap();
        assert_eq!(
            (p.repeats, p.disturbed, p.all_repeats, p.summary.n),
            (3, 2, true, 3)
        );
        // A repeat without a floor in place has no net figure.
        s.repeats[0].floor_busy_ns = None;
        let p = PairedNet::of(&s.repeats, net_busy_ns).unwrap();
        assert_eq!((p.repeats, p.summary.n), (2, 2));
        // One undisturbed repeat alone is no fallback to every repeat.
        s.repeats.truncate(1);
        s.repeats[0].floor_busy_ns = Some(30.0);
        s.repeats[0].interference.disturbed = false;
        let p = PairedNet::of(&s.repeats, net_busy_ns).unwrap();
        assert_eq!((p.repeats, p.disturbed, p.all_repeats), (1, 0, false));
    }

    /// The fixture's first repeat, of 0.1 s, undisturbed, its canary
    /// `ns` before it.
    fn repeat_with_canary(ns: f64) -> RepeatResult {
        let mut r = crate::runner::fixture_run().strategies[0].repeats[0].clone();
        r.interval_s = 0.1;
        r.interference = Default::default();
        r.interference.canary_ns = Some(ns);
        r
    }

    /// Repeats of the fixture with these canaries before them ([`repeat_with_canary`]).
    fn canaries(ns: &[f64]) -> Vec<RepeatResult> {
        ns.iter().map(|&c| repeat_with_canary(c)).collect()
    }

    /// Marks `repeats` ([`mark_canary_shifts`]): its warning, and which repeats are disturbed.
    fn mark(repeats: &mut [RepeatResult]) -> (Option<String>, Vec<bool>) {
        let warning = mark_canary_shifts(repeats.iter_mut().collect());
        (
            warning,
            repeats.iter().map(|r| r.interference.disturbed).collect(),
        )
    }

    #[test]
    fn a_repeat_whose_threads_stalled_over_5_pct_is_disturbed() {
        // 0.1 s intervals, two threads: 200 ms of thread time, 5% of it is 10 ms.
        let mut r = repeat_with_canary(27.0);
        let stalls = |ms: f64| ThreadStalls {
            cpu: 0,
            count: 1,
            ms,
        };
        r.interference.stalls = vec![stalls(7.5), stalls(2.5)];
        assert!(!interference::disturbed(&r));
        r.interference.stalls = vec![stalls(7.5), stalls(2.51)];
        assert!(interference::disturbed(&r));
        // A canary away from the median disturbs it too.
        r.interference.stalls.clear();
        assert!(!interference::disturbed(&r));
        r.interference.disturbed = true;
        assert!(interference::disturbed(&r));
    }

    #[test]
    fn a_canary_that_moves_marks_the_odd_repeats_and_warns() {
        // The development VM's phases: 27 ns, then the hypervisor moves a vCPU and the same pair
        // reads 110 ns.
        let mut repeats = canaries(&[27.0, 26.0, 27.4, 110.0, 28.0]);
        let (warning, marks) = mark(&mut repeats);
        assert_eq!(
            warning.unwrap(),
            "core-to-core latency changed during the run: 26 → 110 ns (median 27); a hypervisor probably moved vCPUs; 1 repeats measured away from the median or over 10 µs are marked disturbed"
        );
        assert_eq!(marks, [false, false, false, true, false]);
        // Marked as the run goes: once the 110 ns phase is the median, the 27 ns repeats are the
        // odd ones and the 110 ns one is not.
        repeats.extend(canaries(&[110.0, 111.0, 109.0, 112.0]));
        let (warning, marks) = mark(&mut repeats);
        assert!(warning.is_some());
        assert_eq!(
            marks,
            [true, true, true, false, true, false, false, false, false]
        );
    }

    #[test]
    fn a_canary_after_the_repeat_sees_a_phase_that_began_during_it() {
        // Before every repeat 60 ns; after the third, 7 ns (the host put the vCPUs on one core
        // during it): the third is disturbed, and the warning's range spans both.
        let mut repeats = canaries(&[60.0, 61.0, 59.0, 60.0]);
        for (r, after) in repeats.iter_mut().zip([60.0, 62.0, 7.0, 59.0]) {
            r.interference.canary_after_ns = Some(after);
        }
        let (warning, marks) = mark(&mut repeats);
        assert!(warning.unwrap().contains("7.0 → 62 ns (median 60)"));
        assert_eq!(marks, [false, false, true, false]);
        // Without canaries after (an older file), before alone decides.
        for r in &mut repeats {
            r.interference.canary_after_ns = None;
        }
        assert_eq!(mark(&mut repeats), (None, vec![false; 4]));
    }

    #[test]
    fn a_canary_of_milliseconds_says_both_vcpus_took_turns_on_one_cpu() {
        // As read in a guest whose vCPUs were put on one host CPU: 4 ms one-way, a host time slice,
        // against 70 ns.
        let (warning, _) = mark(&mut canaries(&[70.0, 71.0, 4_000_099.8, 72.0]));
        assert!(
            warning.unwrap().contains("70 → 4000100 ns (median 72); a canary over 10 µs one-way is no cache's: both vCPUs ran on one host CPU, taking turns; 1 repeats")
        );
        // 10 µs itself could still be a (very slow) cache.
        let (warning, _) = mark(&mut canaries(&[70.0, 71.0, 10_000.0]));
        assert!(warning.unwrap().contains("hypervisor probably moved"));
    }

    #[test]
    fn a_run_that_took_turns_throughout_is_disturbed_throughout() {
        // Every canary a time slice (within 1.5× of their median): no change, yet no repeat
        // measured a cache.
        let (warning, marks) = mark(&mut canaries(&[3_000_000.0, 4_000_000.0, 3_500_000.0]));
        assert_eq!(
            warning.unwrap(),
            "core-to-core latency was the scheduler's throughout the run: 3000000 → 4000000 ns (median 3500000); a canary over 10 µs one-way is no cache's: both vCPUs ran on one host CPU, taking turns; 3 repeats measured away from the median or over 10 µs are marked disturbed"
        );
        assert_eq!(marks, [true; 3]);
        // One canary has no median, but a time slice is one still; 10 µs is not.
        for (canary, disturbed) in [(20_000.0, true), (10_000.0, false)] {
            let (warning, marks) = mark(&mut canaries(&[canary]));
            assert_eq!((warning.is_some(), marks[0]), (disturbed, disturbed));
        }
    }

    #[test]
    fn two_canaries_are_enough_and_zero_ones_mark_nothing() {
        // Median of 10 and 40 is 25: both are 2.5× away, 40/10 = 4.
        let (warning, marks) = mark(&mut canaries(&[10.0, 40.0]));
        assert_eq!(
            warning.unwrap(),
            "core-to-core latency changed during the run: 10 → 40 ns (median 25); a hypervisor probably moved vCPUs; 2 repeats measured away from the median or over 10 µs are marked disturbed"
        );
        assert_eq!(marks, [true, true]);
        // A steady canary marks nothing; one canary has nothing to differ from; canaries of 0 ns (a
        // broken clock) have no ratio; a spread of exactly CANARY_SHIFT is not a change.
        for c in [&[27.0, 30.0, 25.0][..], &[10.0], &[0.0, 0.0], &[10.0, 15.0]] {
            let (warning, marks) = mark(&mut canaries(c));
            assert_eq!((warning, marks.contains(&true)), (None, false), "{c:?}");
        }
    }

    #[test]
    fn warnings_round_to_whole_ns_from_ten_up() {
        assert_eq!(round(7.25), "7.2");
        assert_eq!(round(9.94), "9.9");
        assert_eq!(round(10.0), "10");
        assert_eq!(round(27.6), "28");
    }

    #[test]
    fn two_strategies_in_place_pair_repeat_by_repeat() {
        // Nets in place: a 10, 11, 10 (busy 40, 43, 41 less floors 30, 32, 31); b 15, 17, 13 (45,
        // 49, 44 less the same floors): the differences 5, 6, 3, mean 14/3, sd √(7/3) = 1.5275
        // (squares 1/9 + 16/9 + 25/9 = 42/9 over 2).
        let (a, mut b) = (
            over_floors(&[40.0, 43.0, 41.0]),
            over_floors(&[45.0, 49.0, 44.0]),
        );
        b.name = "node/always/pad128".into();
        let mut config = crate::runner::fixture_run().config;
        let paired =
            |config: &RunConfig, b: &StrategyResult| paired_difference(config, &a, b, net_busy_ns);
        // Not recorded in place together: no pairing.
        assert_eq!(paired(&config, &b), None);
        config.in_place = vec![crate::runner::InPlaceGroup {
            regime: Regime::SEED,
            strategies: vec![a.name.clone(), b.name.clone()],
        }];
        let d = paired(&config, &b).unwrap();
        assert_eq!(d.n, 3);
        near(d.mean, 14.0 / 3.0, 1e-12);
        near(d.stddev, (7.0f64 / 3.0).sqrt(), 1e-12);
        // b's repeat 2 disturbed: set aside (two remain), so only repeats 0 and 1 pair: 5 and 6.
        b.repeats[2].interference.disturbed = true;
        let d = paired(&config, &b).unwrap();
        assert_eq!((d.n, d.mean), (2, 5.5));
    }

    #[test]
    fn paired_differences_are_adjusted_for_each_repeats_line_costs() {
        // Each repeat's lines (one-way ns) for a and b, each set averaging 60: a's net is 20 + 0.5
        // (line − 60), b's 30 + 0.9 (line − 60), so b − a is 10 on lines of equal cost, and 10 +
        // 0.9 (x_b − 60) − 0.5 (x_a − 60) as drawn: −7.2 to +46 ns.
        let xa = [50.0, 70.0, 60.0, 55.0, 65.0, 90.0, 30.0, 60.0];
        let xb = [62.0, 58.0, 100.0, 20.0, 61.0, 59.0, 60.0, 60.0];
        // Busy 30 + net, floors 30, each repeat's line priced.
        let strategy = |net: f64, slope: f64, x: &[f64]| {
            let busy: Vec<f64> = x.iter().map(|l| 30.0 + net + slope * (l - 60.0)).collect();
            let mut s = in_place(
                paced(Regime::SEED, &busy, &[0.1; 8]),
                &[30.0; 8],
                &[0.05; 8],
            );
            for (r, &l) in s.repeats.iter_mut().zip(x) {
                r.line_ns = Some(l);
            }
            s
        };
        let mut a = strategy(20.0, 0.5, &xa);
        let mut b = strategy(30.0, 0.9, &xb);
        b.name = "node/always/pad128".into();
        let mut config = crate::runner::fixture_run().config;
        config.in_place = vec![crate::runner::InPlaceGroup {
            regime: Regime::SEED,
            strategies: vec![a.name.clone(), b.name.clone()],
        }];
        // No noise: only the pooled mean's doubt is left, (0.9 − 0.5) √(v / n) with v = 197.5, the
        // variance of each repeat's two lines' mean: 1.98746 ns.
        let se =
            |d: &Summary| (d.ci95_high - d.mean) / crate::stats::t_quantile_975(d.n as f64 - 3.0);
        let d = paired_difference(&config, &a, &b, net_busy_ns).unwrap();
        assert_eq!(d.n, 8);
        near(d.mean, 10.0, 1e-9);
        near(se(&d), 1.987_46, 1e-5);
        // One repeat without a price: the plain differences, the same mean (each set of lines
        // averages 60) with the draw's spread.
        b.repeats[3].line_ns = None;
        let d = paired_difference(&config, &a, &b, net_busy_ns).unwrap();
        assert!((d.mean - 10.0).abs() < 1e-9 && d.stddev > 15.0, "{d:?}");
        // A disturbed repeat is left out while others remain: repeat 3,
        // the one without a price, so the rest fit again. Their lines
        // pool at 885/14 ns, where b − a is 10 + (0.9 − 0.5) (885/14 −
        // 60) = 11.2857; v = 133.988, so 0.4 √(v / 7) = 1.75002.
        a.repeats[3].interference.disturbed = true;
        let d = paired_difference(&config, &a, &b, net_busy_ns).unwrap();
        assert_eq!(d.n, 7);
        let at_pool = 10.0 + 0.4 * (885.0 / 14.0 - 60.0);
        near(d.mean, at_pool, 1e-9);
        near(se(&d), 1.750_02, 1e-5);
        // Strategies that did not run in the same repeats do not pair: b in no group, then in a
        // group of its own.
        config.in_place[0].strategies.retain(|s| *s == a.name);
        assert!(paired_difference(&config, &a, &b, net_busy_ns).is_none());
        config.in_place.push(crate::runner::InPlaceGroup {
            regime: Regime::SEED,
            strategies: vec![b.name.clone()],
        });
        assert!(paired_difference(&config, &a, &b, net_busy_ns).is_none());
    }

    /// The fixture's first strategy in `regime`, one repeat (rounds 0, 1, ...) per busy ns and CPU
    /// share given, summarised.
    pub(crate) fn paced(regime: Regime, busy: &[f64], share: &[f64]) -> StrategyResult {
        let mut s = crate::runner::fixture_run().strategies[0].clone();
        s.regime = regime;
        let template = s.repeats[0].clone();
        s.repeats = busy
            .iter()
            .zip(share)
            .enumerate()
            .map(|(repeat, (&write_busy_ns, &cpu_share_pct))| RepeatResult {
                repeat,
                write_busy_ns,
                cpu_share_pct,
                write_loop_ns: 45_454.5,
                interference: Default::default(),
                ..template.clone()
            })
            .collect();
        s.summary = strategy_summary(&s.repeats);
        s
    }

    /// Paced at the seed rate, busy `busy` ns against floors in place of 30, 32 and 31 ns.
    pub(crate) fn over_floors(busy: &[f64]) -> StrategyResult {
        in_place(
            paced(Regime::SEED, busy, &[0.1; 3]),
            &[30.0, 32.0, 31.0],
            &[0.05; 3],
        )
    }

    /// `s` with each repeat's floor in place: busy ns and CPU share.
    pub(crate) fn in_place(mut s: StrategyResult, busy: &[f64], share: &[f64]) -> StrategyResult {
        for (r, (&b, &c)) in s.repeats.iter_mut().zip(busy.iter().zip(share)) {
            (r.floor_busy_ns, r.floor_cpu_share_pct) = (Some(b), Some(c));
        }
        s.summary = strategy_summary(&s.repeats);
        s
    }

    /// Paced at the seed rate in place, busy `busy` ns, with repeats alone (`--paced both`) of busy
    /// ns `alone` in rounds `rounds`, floors of 30 ns in both.
    pub(crate) fn with_alone(busy: &[f64], alone: &[f64], rounds: &[usize]) -> StrategyResult {
        let floors = |busy: &[f64]| {
            let n = busy.len();
            in_place(
                paced(Regime::SEED, busy, &vec![0.1; n]),
                &vec![30.0; n],
                &vec![0.05; n],
            )
        };
        let (mut s, by_round) = (floors(busy), floors(alone));
        s.alone_repeats = by_round.repeats;
        for (r, &round) in s.alone_repeats.iter_mut().zip(rounds) {
            r.repeat = round;
        }
        s
    }

    #[test]
    fn the_alone_ratio_is_the_half_width_of_in_place_less_alone_by_hand() {
        // Nets in place 40, 44, 42 and alone 38, 41, 40 (floors 30): differences +2, +3, +2, sd
        // 0.5774, t(0.975, 2) = 4.3027, so ±1.434 ns, 1.434× the 1 ns threshold.
        let s = with_alone(&[70.0, 74.0, 72.0], &[68.0, 71.0, 70.0], &[0, 1, 2]);
        let r = alone_ratio(&s).unwrap();
        near(r, 1.434, 1e-3);
        // +2, +2.1, +2.2: sd 0.1, ±0.248 ns: narrow enough, however far from 0 the mean.
        let s = with_alone(&[70.0, 74.1, 72.2], &[68.0, 72.0, 70.0], &[0, 1, 2]);
        let r = alone_ratio(&s).unwrap();
        near(r, 0.2484, 1e-3);
        // One round with both, or none alone: no ratio.
        let one = with_alone(&[70.0, 74.0], &[68.0], &[1]);
        assert_eq!(alone_ratio(&one), None);
        let none_alone = paced(Regime::SEED, &[70.0, 74.0], &[0.1; 2]);
        assert_eq!(alone_ratio(&none_alone), None);
    }

    #[test]
    fn in_place_pairs_with_alone_round_by_round() {
        // In place, busy 70, 74, 90, 72 in rounds 0-3; alone 68, 71, 93 in rounds 0, 1, 3 (round
        // 2's alone repeat lost): the pairs are rounds 0, 1 and 3, differences +2, +3 and -21.
        let s = with_alone(&[70.0, 74.0, 90.0, 72.0], &[68.0, 71.0, 93.0], &[0, 1, 3]);
        let d = alone_difference(&s, net_busy_ns).unwrap();
        assert_eq!(d.n, 3);
        near(d.mean, (2.0 + 3.0 - 21.0) / 3.0, 1e-9);
        // A disturbed round is left out while two others remain, on either side: round 3 alone,
        // then round 0 in place.
        let mut t = s.clone();
        t.alone_repeats[2].interference.disturbed = true;
        let d = alone_difference(&t, net_busy_ns).unwrap();
        assert_eq!((d.n, d.mean), (2, 2.5));
        t.repeats[0].interference.disturbed = true;
        let d = alone_difference(&t, net_busy_ns).unwrap();
        assert_eq!(d.n, 3, "under two clean pairs, every pair: {d:?}");
        // Each side's line priced: adjusted as paired_difference is; with both at 60 ns in every
        // round the plain differences stand.
        let mut u = s.clone();
        for r in u.repeats.iter_mut().chain(&mut u.alone_repeats) {
            r.line_ns = Some(60.0);
        }
        let d = alone_difference(&u, net_busy_ns).unwrap();
        assert!((d.mean + 16.0 / 3.0).abs() < 1e-9, "{d:?}");
        // No repeat alone: nothing to pair.
        let mut v = s;
        v.alone_repeats.clear();
        assert_eq!(alone_difference(&v, net_busy_ns), None);
    }

    #[test]
    fn a_paced_strategy_pays_its_busy_time_less_its_floor_in_place() {
        // At 22k/s: busy 130 and 134 ns against the floor's 100 and 102 in place in the same
        // repeats; CPU share 0.29 and 0.30% against 0.22 and 0.22%.
        let with_floor = |s| in_place(s, &[100.0, 102.0], &[0.22, 0.22]);
        let mut s = with_floor(paced(Regime::SEED, &[130.0, 134.0], &[0.29, 0.30]));
        fill_net(&mut s, None);
        let summary = s.summary.unwrap();
        let net = summary.net_ns.unwrap();
        near(net.mean, 31.0, 1e-9);
        // Nets 30 and 32: the paired spread, √2 (unpaired: √10).
        near(net.stddev, 2f64.sqrt(), 1e-9);
        let share = summary.net_cpu_share_pct.unwrap();
        near(share.mean, 0.075, 1e-9);
        // No floor in place: no net figure, not the gross one.
        let mut s = paced(Regime::paced(5e3), &[130.0, 134.0], &[0.29, 0.30]);
        fill_net(&mut s, None);
        assert_eq!(s.summary.unwrap().net_ns, None);
        // One of two repeats disturbed: every repeat is used, and a note says so, in either regime.
        for regime in [Regime::SEED, Regime::FlatOut] {
            let mut s = with_floor(paced(regime, &[130.0, 134.0], &[0.29, 0.30]));
            s.repeats[0].interference.disturbed = true;
            let mut notes = Vec::new();
            let (_, done) = finish(vec![s], &[false], None, None, &mut notes);
            assert_eq!(notes.len(), 1, "{notes:?}");
            assert!(
                notes[0].contains("fewer than 2 repeats undisturbed"),
                "{notes:?}"
            );
            let s = done[0].summary.as_ref().unwrap();
            assert_eq!((s.write_busy_ns.unwrap().n, s.set_aside), (2, 0));
        }
        // A clock floor is named for what it is, not as the ratelimit of a 100,000 s period it
        // runs.
        let mut f = with_floor(paced(Regime::SEED, &[130.0, 134.0], &[0.29, 0.30]));
        f.strategy = crate::runner::floor::clock_floor(crate::clock::ClockKind::Tsc);
        f.repeats[0].interference.disturbed = true;
        let mut notes = Vec::new();
        finish(vec![f], &[true], None, None, &mut notes);
        assert!(
            notes[0].starts_with("the tsc clock floor paced at") && !notes[0].contains("100000"),
            "{notes:?}"
        );
        // --target-ci judges the strategies, never a floor: nets 30 and 32 give 31 ±12.7 ns
        // (t = 12.71 at 1 df), inside 50% of 31 ns and outside 5%.
        for (target, met) in [(50.0, true), (5.0, false)] {
            let pair = || with_floor(paced(Regime::SEED, &[130.0, 134.0], &[0.29, 0.30]));
            let (floors, done) = finish(
                vec![pair(), pair()],
                &[true, false],
                None,
                Some(target),
                &mut notes,
            );
            assert_eq!((floors[0].converged, done[0].converged), (None, Some(met)));
        }
    }

    #[test]
    fn one_rule_sets_disturbed_repeats_aside_in_both_regimes() {
        // Loop ns/op 20, 22 and 100; the third repeat's canary moved.
        let run = run_with(&[&[20.0, 22.0, 100.0]]);
        for regime in [Regime::FlatOut, Regime::SEED] {
            let mut s = run.strategies[0].clone();
            s.regime = regime;
            s.repeats[2].interference.disturbed = true;
            let summary = strategy_summary(&s.repeats).unwrap();
            let loop_ns = summary.write_loop_ns.unwrap();
            assert_eq!((loop_ns.n, loop_ns.mean), (2, 21.0), "{regime}");
            assert_eq!(summary.write_ops_per_s.n, 2, "{regime}");
            assert_eq!(summary.set_aside, 1, "{regime}");
            // The repeat stays in the result, marked.
            assert_eq!(s.repeats.len(), 3);
            // --target-ci judges the same repeats: 20 and 22, ±12.7 × 1.
            let ratio = target_ratio(&s, 100.0);
            if regime == Regime::FlatOut {
                let half = 12.706_204_736_174_7 * 2f64.sqrt() / 2f64.sqrt();
                near(ratio.unwrap(), half / 21.0, 1e-6);
            }
        }
        // Two of three disturbed: too few left, every repeat counts.
        let mut s = run.strategies[0].clone();
        s.repeats[1].interference.disturbed = true;
        s.repeats[2].interference.disturbed = true;
        let sum = strategy_summary(&s.repeats).unwrap();
        assert_eq!((sum.write_loop_ns.unwrap().n, sum.set_aside), (3, 0));
        let kept = UsedRepeats::of(&s.repeats);
        assert_eq!((kept.disturbed, kept.all_repeats), (2, true));
    }

    #[test]
    fn a_hammer_strategy_pays_its_loop_time_less_the_hammer_floor() {
        let mut s = paced(Regime::FlatOut, &[1.0, 1.0], &[100.0, 100.0]);
        s.summary.as_mut().unwrap().write_loop_ns = Summary::of(&[20.0, 24.0]);
        let floor = HarnessFloor {
            cpu: 0,
            loop_ns: Summary::of(&[6.0, 6.0, 6.0]).unwrap(),
        };
        fill_net(&mut s, Some(&floor));
        let summary = s.summary.unwrap();
        assert_eq!(summary.net_ns.unwrap().mean, 16.0);
        assert_eq!(summary.net_cpu_share_pct, None);
        // No floor measured: no net figure.
        let mut s = paced(Regime::FlatOut, &[1.0], &[100.0]);
        fill_net(&mut s, None);
        assert_eq!(s.summary.unwrap().net_ns, None);
    }

    use super::*;
    use crate::placement::PinnedThread;
    use crate::runner::{near, result::ThreadStalls};
    use crate::workload::{BusyTime, Probe};

    fn report(
        role: Role,
        cpu: u32,
        updates: u64,
        reads: u64,
        publishes: u64,
        final_load: i64,
    ) -> ThreadReport {
        let mut write_hist = new_histogram();
        let mut read_hist = new_histogram();
        if role == Role::Writer {
            write_hist.record(100).unwrap();
            read_hist.record(20).unwrap();
        }
        ThreadReport {
            role,
            pin: PinnedThread {
                requested_cpu: cpu,
                observed_cpu: Some(cpu),
                verified: true,
                note: None,
            },
            interval_s: Some(0.5),
            updates,
            reads,
            read_fetches: reads / 2,
            stats: PublishStats {
                updates,
                publishes,
                flushed: 0,
                handovers: publishes / 4,
            },
            final_load,
            write_hist,
            read_hist,
            staleness: StalenessSamples::default(),
            busy: None,
            floor_busy: None,
            missed_slots: 0,
            involuntary_switches: 0,
        }
    }

    /// The context of a repeat whose two writers sit on nodes 0 and 1 with their slots on node 0,
    /// the counter reading `final_sum`.
    fn ctx(final_sum: i64, ns_per_tick: f64) -> RepeatContext {
        RepeatContext {
            cpu_nodes: vec![0, 1],
            slot_nodes: vec![0, 0],
            final_sum,
            ns_per_tick,
            regime: Regime::FlatOut,
        }
    }

    /// 900 timed windows of `per_op` ticks each, and `stalls` stalls of `stall_ticks` in all.
    fn timed(per_op: u64, stalls: u64, stall_ticks: u64) -> BusyTime {
        let (ticks, ops) = (900 * per_op, 900);
        BusyTime {
            ticks,
            ops,
            stalls,
            stall_ticks,
        }
    }

    /// A probe that saw `error` load units of `truth` unpublished, the oldest change `age` updates
    /// old.
    fn probe(error: i64, truth: i64, age: u64) -> Probe {
        Probe {
            published: truth - error,
            truth,
            oldest_pending_updates: age,
        }
    }

    #[test]
    fn rates_staleness_and_exactness() {
        let mut reports = [
            report(Role::Writer, 0, 1000, 1000, 100, 600),
            report(Role::Writer, 1, 3000, 3000, 300, 400),
            report(Role::Reader, 2, 0, 500, 0, 0),
        ];
        // The reader saw 30 of 1000 missing, 4 updates old; writer 0 saw 10 of 1000, 2 updates old.
        reports[2].staleness.record(probe(30, 1000, 4));
        reports[0].staleness.record(probe(10, 1000, 2));
        let r = repeat_result(0, &reports, &ctx(1000, 2.0));
        assert_eq!(r.write_ops_per_s, 8000.0);
        assert_eq!(r.read_ops_per_s, 9000.0);
        assert_eq!(
            (r.write_ops_per_s_thread_min, r.write_ops_per_s_thread_max),
            (2000.0, 6000.0)
        );
        assert_eq!(r.publishes, 400);
        assert_eq!(r.publishes_per_s, 800.0);
        assert_eq!(r.cross_node_publishes, 300); // writer 1: CPU node 1, slot node 0
        // Two writers over 0.5 s made 4000 updates: 250 us per update.
        assert_eq!(r.write_loop_ns, 250_000.0);
        // One reader over 0.5 s made 500 reads: 1 ms per read.
        assert_eq!(r.reader_read_ns, Some(1_000_000.0));
        assert_eq!(r.staleness.probes, 2);
        let z = &r.staleness;
        assert_eq!((z.error_mean, z.error_max), (20.0, 30.0));
        assert_eq!(z.error_mean_pct, 2.0); // (3% + 1%) / 2
        assert_eq!(z.error_max_pct, 3.0);
        // Mean age 3 updates, max 4, at 250 us per update.
        assert_eq!((z.age_mean_ns, z.age_max_ns), (750_000.0, 1_000_000.0));
        // Sampled: update 100 ticks x 2 ns + read 20 x 2 ns x 1 read per update = 240 ns, against
        // 250 us from throughput.
        let pct = r.sampled_vs_throughput_pct.unwrap();
        near(pct, 100.0 * (240.0 - 250_000.0) / 250_000.0, 1e-9);
        assert!(r.exact && r.outside_window.is_empty());
        assert_eq!(r.write_latency.unwrap().samples, 2);
        assert_eq!(r.read_latency.unwrap().samples, 2);
        assert!(!repeat_result(0, &reports, &ctx(999, 1.0)).exact);
        // Unpaced: busy is the whole interval.
        assert_eq!(r.write_busy_ns, r.write_loop_ns);
        assert_eq!(r.cpu_share_pct, 100.0);
        assert_eq!(r.achieved_rate_min_pct, None);
        let s = strategy_summary(&[r.clone(), r]).unwrap();
        assert_eq!(s.write_ops_per_s.mean, 8000.0);
        assert_eq!(s.read_ns.unwrap().mean, 40.0);
        assert_eq!(s.write_p50_ns.unwrap().mean, 200.0);
        assert_eq!(s.write_loop_ns.unwrap().mean, 250_000.0);
        assert_eq!(s.error_mean_pct.unwrap().mean, 2.0);
    }

    #[test]
    fn a_thread_outside_the_window_is_left_out_not_counted_as_zero() {
        let mut late = report(Role::Writer, 5, 70, 70, 70, 300);
        late.interval_s = None;
        late.staleness.record(probe(500, 1000, 9));
        let reports = [report(Role::Writer, 4, 1000, 0, 100, 600), late];
        let r = repeat_result(0, &reports, &ctx(900, 1.0));
        assert_eq!(r.outside_window, [5]);
        assert_eq!(r.write_ops_per_s, 2000.0);
        // The slowest writer is the one measured, not a silent 0.
        assert_eq!(r.write_ops_per_s_thread_min, 2000.0);
        assert_eq!(r.writer_updates, [1000, 0]);
        assert_eq!(r.publishes, 100);
        assert_eq!(r.staleness.probes, 0);
        assert_eq!(r.write_latency.unwrap().samples, 1);
        // Its load still counts: 600 + 300.
        assert_eq!(r.expected_sum, 900);
        assert!(r.exact);
    }

    #[test]
    fn each_node_s_writers_are_priced_local_against_remote() {
        // Four writers over 0.5 s each: two on node 0, where their slot is (local), two on node 1
        // publishing to node 0 (remote).
        let mut reports = [
            report(Role::Writer, 0, 1000, 1000, 100, 0),
            report(Role::Writer, 1, 3000, 3000, 100, 0),
            report(Role::Writer, 2, 500, 500, 100, 0),
            report(Role::Writer, 3, 500, 500, 100, 0),
            report(Role::Reader, 4, 0, 500, 0, 0),
        ];
        let mut c = ctx(0, 1.0);
        (c.cpu_nodes, c.slot_nodes) = (vec![0, 0, 1, 1], vec![0; 4]);
        let node = |node, remote, cost_ns| NodeRepeat {
            node,
            writers: 2,
            remote,
            cost_ns: Some(cost_ns),
        };
        // Flat out, loop ns/op: node 0, 2 × 0.5 s over 4000 updates = 250 us; node 1, 1 s over 1000
        // = 1 ms.
        let r = repeat_result(0, &reports, &c);
        assert_eq!(r.nodes, [node(0, false, 250e3), node(1, true, 1e6)]);
        // Over two such repeats: those figures, no spread.
        let s = strategy_summary(&[r.clone(), r]).unwrap();
        let costs: Vec<(u32, bool, f64, f64)> = s
            .nodes
            .iter()
            .map(|n| (n.node, n.remote, n.cost_ns.mean, n.cost_ns.stddev))
            .collect();
        assert_eq!(costs, [(0, false, 250e3, 0.0), (1, true, 1e6, 0.0)]);
        // Paced, 1 ns ticks: busy less floor in place. Node 0: busy (900 × 100 us + 900 × 50 us) /
        // 1800 = 75 us, floor (900 × 40 us + 900 × 30 us) / 1800 = 35 us, net 40 us; node 1: 200 us
        // less 40 us, 160 us.
        for (w, (busy, floor)) in reports.iter_mut().zip([
            (100_000, 40_000),
            (50_000, 30_000),
            (200_000, 40_000),
            (200_000, 40_000),
        ]) {
            (w.busy, w.floor_busy) = (Some(timed(busy, 0, 0)), Some(timed(floor, 0, 0)));
        }
        c.regime = Regime::paced(2000.0);
        let r = repeat_result(0, &reports, &c);
        assert_eq!(r.nodes.len(), 2);
        near(r.nodes[0].cost_ns.unwrap(), 40e3, 1e-6);
        near(r.nodes[1].cost_ns.unwrap(), 160e3, 1e-6);
        // Every writer on one node: no per-node figures.
        c.cpu_nodes = vec![0; 4];
        let r = repeat_result(0, &reports, &c);
        assert!(r.nodes.is_empty());
        assert!(strategy_summary(&[r]).unwrap().nodes.is_empty());
    }

    #[test]
    fn paced_threads_report_busy_time_cpu_share_and_achieved_rate() {
        // Rate 2000/s over 0.5 s: 1000 updates asked of each thread.
        let mut a = report(Role::Writer, 0, 1000, 0, 10, 5);
        let mut b = report(Role::Writer, 1, 950, 0, 10, 5);
        // Ticks of 1 ns. a timed 900 windows of 100 us (the other 100 updates were sampled or
        // stalls), b 900 of 50 us.
        a.busy = Some(timed(100_000, 2, 3_000_000));
        b.busy = Some(timed(50_000, 2, 3_000_000));
        b.missed_slots = 50;
        let mut c = ctx(10, 1.0);
        c.regime = Regime::paced(2000.0);
        let reports = [a, b];
        let r = repeat_result(0, &reports, &c);
        // The stalls are recorded per thread, in ms.
        let stalls = crate::runner::interference::stalls(&reports, c.ns_per_tick);
        let each = ThreadStalls {
            cpu: 0,
            count: 2,
            ms: 3.0,
        };
        assert_eq!(stalls, [each, ThreadStalls { cpu: 1, ..each }]);
        // Busy ns per update: the timed windows' mean, 75 us; stalls and untimed updates are not in
        // it.
        near(r.write_busy_ns, 75_000.0, 1e-6);
        // Loop time from throughput still counts the waits: 1 s / 1950.
        near(r.write_loop_ns, 1e9 / 1950.0, 1e-6);
        // CPU share: 100 us × 1000 and 50 us × 950 updates in 0.5 s, 20% and 9.5%, mean 14.75%.
        near(r.cpu_share_pct, 14.75, 1e-9);
        // The slower thread made 1900/s of 2000/s asked: 95%.
        near(r.achieved_rate_min_pct.unwrap(), 95.0, 1e-9);
        assert_eq!(r.missed_slots, 50);
        // Of the arrivals that fell due, b ran 950 and skipped 50: 95%; a skipped none: 100%. The
        // slowest: 95%.
        near(r.arrivals_run_min_pct.unwrap(), 95.0, 1e-9);
        // With b skipping nothing but counting 950 of a poisson stream's arrivals, it kept up
        // (100%) though its rate is 95% of the mean.
        let mut reports = reports;
        reports[1].missed_slots = 0;
        let r = repeat_result(0, &reports, &c);
        assert_eq!(r.arrivals_run_min_pct, Some(100.0));
        near(r.achieved_rate_min_pct.unwrap(), 95.0, 1e-9);
        // Flat out there are no arrivals.
        let r = repeat_result(0, &reports, &ctx(10, 1.0));
        assert_eq!(r.arrivals_run_min_pct, None);
    }

    #[test]
    fn a_paced_repeat_records_its_floor_in_place_and_the_floors_stalls() {
        // Rate 2000/s over 0.5 s, ticks of 1 ns. a: 1000 updates, 900 windows of 100 us, its floor
        // 900 windows of 40 us; b: 950 updates, 900 of 50 us, floor 900 of 30 us and one stall of
        // 25 us.
        let mut a = report(Role::Writer, 0, 1000, 0, 10, 5);
        let mut b = report(Role::Writer, 1, 950, 0, 10, 5);
        (a.busy, a.floor_busy) = (Some(timed(100_000, 0, 0)), Some(timed(40_000, 0, 0)));
        (b.busy, b.floor_busy) = (Some(timed(50_000, 0, 0)), Some(timed(30_000, 1, 25_000)));
        let mut c = ctx(10, 1.0);
        c.regime = Regime::paced(2000.0);
        let reports = [a, b];
        let r = repeat_result(0, &reports, &c);
        // Floor busy ns per update over writers: (36 + 27 ms) / 1800.
        near(r.floor_busy_ns.unwrap(), 35_000.0, 1e-6);
        // Its CPU share, each thread at its own operations: 40 us × 1000 and 30 us × 950 in 0.5 s,
        // 8% and 5.7%, mean 6.85%.
        near(r.floor_cpu_share_pct.unwrap(), 6.85, 1e-9);
        // So the net figures: 75 - 35 us, and 14.75 - 6.85 points.
        near(net_busy_ns(&r).unwrap(), 40_000.0, 1e-6);
        near(net_cpu_share_pct(&r).unwrap(), 7.9, 1e-9);
        // The floor's stall is the thread's.
        let stalls = crate::runner::interference::stalls(&reports, c.ns_per_tick);
        assert_eq!(stalls[1].count, 1);
        near(stalls[1].ms, 0.025, 1e-12);
        // In ticks of 2 ns, twice the time.
        let stalls = crate::runner::interference::stalls(&reports, 2.0);
        near(stalls[1].ms, 0.05, 1e-12);
        // Ticks of 2 ns: every figure doubles, the floor's with them.
        let mut c2 = c.clone();
        c2.ns_per_tick = 2.0;
        let r2 = repeat_result(0, &reports, &c2);
        near(r2.floor_busy_ns.unwrap(), 70_000.0, 1e-6);
        near(r2.floor_cpu_share_pct.unwrap(), 13.7, 1e-9);
        // A thread whose floor timed nothing has no floor share, so neither has the repeat (one
        // thread's would not be every thread's); nor has one without a floor in place.
        let mut reports = reports;
        reports[1].floor_busy = Some(BusyTime::default());
        let r = repeat_result(0, &reports, &c);
        assert_eq!(r.floor_cpu_share_pct, None);
        reports[1].floor_busy = None;
        let r = repeat_result(0, &reports, &c);
        assert_eq!(r.floor_cpu_share_pct, None);
        near(r.floor_busy_ns.unwrap(), 40_000.0, 1e-6);
        // A thread that timed no update of its own (all sampled) has no share, and its floor is
        // left out with it: the floor share is a's alone, 8%.
        reports[1].busy = Some(BusyTime::default());
        reports[1].floor_busy = Some(timed(30_000, 0, 0));
        let r = repeat_result(0, &reports, &c);
        near(r.cpu_share_pct, 20.0, 1e-9);
        near(r.floor_cpu_share_pct.unwrap(), 8.0, 1e-9);
        // Likewise a thread whose interval was empty.
        reports[1].busy = Some(timed(50_000, 0, 0));
        reports[1].interval_s = Some(0.0);
        let r = repeat_result(0, &reports, &c);
        near(r.floor_cpu_share_pct.unwrap(), 8.0, 1e-9);
        // No thread saw the interval: no share, no floor share.
        for t in &mut reports {
            t.interval_s = None;
        }
        let r = repeat_result(0, &reports, &c);
        assert_eq!((r.cpu_share_pct, r.floor_cpu_share_pct), (0.0, None));
    }

    #[test]
    fn hand_overs_are_summed_over_writers_and_give_updates_per_ownership() {
        // Writer a: 1000 publishes, 250 hand-overs (`report` sets a quarter); b: 600 and 150. Over
        // 0.5 s: 800 hand-overs/s, and 1600 publishes / 400 hand-overs = 4 updates per ownership.
        let a = report(Role::Writer, 0, 1000, 0, 1000, 5);
        let b = report(Role::Writer, 1, 1000, 0, 600, 5);
        let r = repeat_result(0, &[a, b], &ctx(10, 1.0));
        assert_eq!((r.handovers, r.handovers_per_s), (400, 800.0));
        assert_eq!(r.updates_per_ownership, Some(4.0));
        let s = strategy_summary(&[r]).unwrap();
        assert_eq!(s.updates_per_ownership.unwrap().mean, 4.0);
        assert_eq!(s.handovers_per_s.unwrap().mean, 800.0);
        // Equal rates: perfectly fair.
        assert_eq!(s.fairness.unwrap().mean, 1.0);
    }

    #[test]
    fn read_fetches_are_kept_per_thread_and_divided_by_every_read_side() {
        // `report` sets fetches to half the reads: writer a 400 reads, 200
        // fetches; writer b 100, 50; reader c 300, 150; reader d never saw
        // the interval (left out). 400 fetches / 800 reads = 0.5.
        let a = report(Role::Writer, 0, 1000, 400, 1000, 5);
        let b = report(Role::Writer, 1, 1000, 100, 600, 5);
        let c = report(Role::Reader, 2, 0, 300, 0, 0);
        let mut d = report(Role::Reader, 3, 0, 1000, 0, 0);
        d.interval_s = None;
        let r = repeat_result(0, &[a, b, c, d], &ctx(10, 1.0));
        assert_eq!(r.writer_read_fetches, [200, 50]);
        assert_eq!(r.reader_read_fetches, [150, 0]);
        assert_eq!(r.fetches_per_read, Some(0.5));
        let s = strategy_summary(&[r]).unwrap();
        assert_eq!(s.fetches_per_read.unwrap().mean, 0.5);
        // No read side at all: no figure, not 0/0.
        let r = repeat_result(0, &[report(Role::Writer, 0, 1000, 0, 10, 5)], &ctx(5, 1.0));
        assert_eq!(r.fetches_per_read, None);
        assert_eq!(strategy_summary(&[r]).unwrap().fetches_per_read, None);
    }

    #[test]
    fn without_a_hand_over_there_is_no_ownership_figure_not_a_division_by_zero() {
        // 3 publishes, 0 hand-overs (3 / 4 rounds down): one writer alone.
        let a = report(Role::Writer, 0, 1000, 0, 3, 5);
        let r = repeat_result(0, &[a], &ctx(5, 1.0));
        assert_eq!((r.handovers, r.updates_per_ownership), (0, None));
        assert_eq!(strategy_summary(&[r]).unwrap().updates_per_ownership, None);
        // No publish at all (`never`): no hand-over rate either, not 0/s.
        let quiet = report(Role::Writer, 0, 1000, 0, 0, 5);
        let r = repeat_result(0, &[quiet], &ctx(5, 1.0));
        assert_eq!(strategy_summary(&[r]).unwrap().handovers_per_s, None);
    }

    #[test]
    fn sampled_time_counts_the_reads_made_per_update() {
        // 1000 updates and 2000 reads over 0.5 s: 500 us per update from throughput. Sampled:
        // update 100 ticks + 2 reads x 20 ticks, at 3 ns per tick = 420 ns.
        let w = report(Role::Writer, 0, 1000, 2000, 10, 5);
        let r = repeat_result(0, &[w], &ctx(5, 3.0));
        assert_eq!(r.write_loop_ns, 500_000.0);
        let pct = r.sampled_vs_throughput_pct.unwrap();
        let expected = 100.0 * (420.0 - 500_000.0) / 500_000.0;
        near(pct, expected, 1e-9);
        // Paced, the loop from throughput is the pacing interval: no figure to set the samples
        // against.
        let w = report(Role::Writer, 0, 1000, 2000, 10, 5);
        let mut paced = ctx(5, 3.0);
        paced.regime = Regime::SEED;
        let r = repeat_result(0, &[w], &paced);
        assert_eq!(r.sampled_vs_throughput_pct, None);
    }

    #[test]
    fn zero_intervals_and_empty_sides_give_zero_or_none_not_a_division_by_zero() {
        // One writer whose measured interval is 0 s (100 updates, 10 publishes, one 100-tick
        // sample) and one reader with no reads.
        let mut w = report(Role::Writer, 0, 100, 0, 10, 7);
        w.interval_s = Some(0.0);
        let mut idle = report(Role::Reader, 1, 0, 0, 0, 0);
        idle.interval_s = Some(0.0);
        let r = repeat_result(0, &[w, idle], &ctx(7, 1.0));
        assert_eq!(r.interval_s, 0.0);
        assert_eq!((r.write_ops_per_s, r.read_ops_per_s), (0.0, 0.0));
        assert_eq!(r.publishes, 10);
        assert_eq!(r.publishes_per_s, 0.0);
        assert_eq!(r.cpu_share_pct, 0.0);
        assert_eq!(r.write_loop_ns, 0.0);
        assert_eq!(r.write_busy_ns, 0.0);
        // The reader made no reads: no time per read.
        assert_eq!((r.reader_read_ns, r.reader_busy_ns), (None, None));
        // A sampled update but no loop time: nothing to compare it with.
        assert!(r.write_latency.is_some());
        assert_eq!(r.sampled_vs_throughput_pct, None);
        // No probes: staleness is 0, not 0/0.
        assert_eq!(r.staleness.probes, 0);
        let z = &r.staleness;
        assert_eq!([z.error_mean, z.error_mean_pct, z.age_mean_ns], [0.0; 3]);
        let s = strategy_summary(std::slice::from_ref(&r)).unwrap();
        assert_eq!(s.write_loop_ns, None);
        assert_eq!(s.write_busy_ns, None);
        assert_eq!(s.reader_read_ns, None);
        assert_eq!(s.error_mean_pct, None);
        assert_eq!(s.age_mean_ns, None);
        // A single writer has no fairness; nor do two that made nothing.
        assert_eq!(s.fairness, None);
        let mut w2 = report(Role::Writer, 1, 0, 0, 0, 0);
        w2.interval_s = Some(0.0);
        let mut w1 = report(Role::Writer, 0, 0, 0, 0, 0);
        w1.interval_s = Some(0.0);
        let r2 = repeat_result(0, &[w1, w2], &ctx(0, 1.0));
        assert_eq!(strategy_summary(&[r2]).unwrap().fairness, None);
        // A single writer that did run has none either.
        let one = repeat_result(0, &[report(Role::Writer, 0, 1000, 0, 10, 5)], &ctx(5, 1.0));
        assert_eq!(one.write_ops_per_s, 2000.0);
        assert_eq!(strategy_summary(&[one]).unwrap().fairness, None);
    }

    #[test]
    fn staleness_is_summarised_over_the_probed_repeats_only() {
        // Repeat 0: the reader saw 30 of 1000 (3%) and 10 of 1000 (1%), 4 and 2 updates old; repeat
        // 1 took no probe.
        let mut probed = [
            report(Role::Writer, 0, 1000, 0, 100, 600),
            report(Role::Reader, 2, 0, 500, 0, 0),
        ];
        probed[1].staleness.record(probe(30, 1000, 4));
        probed[1].staleness.record(probe(10, 1000, 2));
        let unprobed = [
            report(Role::Writer, 0, 1000, 0, 100, 600),
            report(Role::Reader, 2, 0, 500, 0, 0),
        ];
        let a = repeat_result(0, &probed, &ctx(600, 1.0));
        let b = repeat_result(1, &unprobed, &ctx(600, 1.0));
        assert_eq!(a.staleness.error_mean_pct, 2.0);
        // One writer over 0.5 s made 1000 updates: 500 us each; mean age 3.
        assert_eq!(a.staleness.age_mean_ns, 1_500_000.0);
        // The unpaced reader's 500 reads over 0.5 s: 1 ms each, all busy.
        assert_eq!(a.reader_read_ns, Some(1_000_000.0));
        assert_eq!(a.reader_busy_ns, Some(1_000_000.0));
        let s = strategy_summary(&[a, b]).unwrap();
        let e = s.error_mean_pct.unwrap();
        assert_eq!((e.n, e.mean), (1, 2.0));
        let age = s.age_mean_ns.unwrap();
        assert_eq!((age.n, age.mean), (1, 1_500_000.0));
        // Throughput is over both repeats; so is the busy time per update (unpaced: the whole 500
        // us).
        assert_eq!(s.write_ops_per_s.n, 2);
        let busy = s.write_busy_ns.unwrap();
        assert_eq!((busy.n, busy.mean), (2, 500_000.0));
    }
}
