//! One repeat of strategies in place (paced) or of one strategy (flat
//! out): the canary, a fresh node-bound counter for each (and, paced, the
//! counter of its floor in place), the pinned pools, and each strategy's
//! numbers with the repeat's interference record.

use super::aggregate::{RepeatContext, repeat_result};
use super::floor::in_place_layout;
use super::interference;
use super::result::{RepeatResult, StrategyResult, ThreadPlacement};
use super::{RunError, RunPlan};
use crate::counter::{CounterLayout, ShardedCounter, SlotHome};
use crate::topology::CpuList;
use crate::workload::{Lane, RepeatOutcome, RepeatSpec, Role, run_repeat};
use std::sync::atomic::AtomicBool;

/// One entry of the rounds: its result so far, the repeat it runs, and
/// whether it is a paced regime's clock floor rather than a strategy.
pub(super) struct RoundEntry {
    /// Its result, repeats appended as they finish.
    pub result: StrategyResult,
    /// What one repeat of it runs.
    pub spec: RepeatSpec,
    /// A paced regime's clock floor (kept apart from the strategies).
    pub is_floor: bool,
    /// The repeat it runs in: entries of one group run in place in the
    /// same repeats ([`super::regimes::in_place_groups`]); a flat-out
    /// entry is a group of its own.
    pub group: usize,
}

/// One repeat of a group of strategies in place (paced), or of one
/// (flat out): the canary, a fresh node-bound counter for each (and,
/// paced, the counter of its floor in place), the pinned pools running
/// every strategy in place ([`run_repeat`]), and each strategy's numbers
/// with the repeat's interference record, all under index `repeat`, in
/// the order of `group`; `None` when interrupted. The first repeat also
/// records where the slots and threads were.
pub(super) fn one_repeat(
    plan: &RunPlan,
    group: &mut [&mut RoundEntry],
    repeat: usize,
    interrupted: &AtomicBool,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<RepeatResult>>, RunError> {
    let cfg = &plan.config;
    let mut counters = Vec::with_capacity(group.len());
    let mut floors = Vec::with_capacity(group.len());
    for entry in group.iter() {
        let s = entry.result.strategy;
        let layout = CounterLayout {
            level: s.level,
            pad: s.pad,
            home: cfg.counter_node.map_or(SlotHome::Local, SlotHome::OnNode),
            node_iter: cfg.node_iter,
        };
        let counter = ShardedCounter::new(layout, &plan.topo, &cfg.writer_cpus, cfg.placement)?;
        // Paced, the floor runs in place, on a counter of its own.
        floors.push(if entry.result.regime.is_paced() {
            Some(ShardedCounter::new(
                in_place_layout(layout),
                &plan.topo,
                &cfg.writer_cpus,
                cfg.placement,
            )?)
        } else {
            None
        });
        for note in counter.notes() {
            if !notes.contains(note) {
                notes.push(note.clone());
            }
        }
        counters.push(counter);
    }
    let lanes: Vec<Lane> = group
        .iter()
        .zip(counters.iter().zip(&floors))
        .map(|(e, (counter, floor))| Lane {
            counter,
            floor: floor.as_ref(),
            spec: &e.spec,
        })
        .collect();
    let timer = group[0].spec.timer;
    let canary = interference::canary_cpus(&cfg.writer_cpus, &cfg.reader_cpus)
        .and_then(|(a, b)| interference::canary(a, b, &plan.topo, timer));
    let measured: Vec<u32> = cfg
        .writer_cpus
        .iter()
        .chain(&cfg.reader_cpus)
        .copied()
        .collect();
    let steal_before = interference::steal_ms(&measured);
    let lane_reports = match run_repeat(
        &lanes,
        &cfg.writer_cpus,
        &cfg.reader_cpus,
        &plan.topo.allowed_cpus,
        repeat as u64,
        interrupted,
    )? {
        RepeatOutcome::Done(r) => r,
        RepeatOutcome::Interrupted => return Ok(None),
    };
    let steal_after = interference::steal_ms(&measured);
    let after = interference::canary_cpus(&cfg.writer_cpus, &cfg.reader_cpus)
        .and_then(|(a, b)| interference::canary_after(a, b));
    let node_of = |cpu: u32| plan.topo.node_of_cpu(cpu).unwrap_or(0);
    let mut results = Vec::with_capacity(group.len());
    for ((entry, counter), reports) in group.iter_mut().zip(&counters).zip(&lane_reports) {
        let result = &mut entry.result;
        let slot_node = |cpu: u32| {
            counter
                .slot_of_cpu(cpu)
                .map_or(0, |i| counter.slots()[i].node)
        };
        let ctx = RepeatContext {
            cpu_nodes: cfg.writer_cpus.iter().map(|&c| node_of(c)).collect(),
            slot_nodes: cfg.writer_cpus.iter().map(|&c| slot_node(c)).collect(),
            final_sum: counter.read(),
            ns_per_tick: timer.ns_per_tick(),
            regime: result.regime,
        };
        if result.threads.is_empty() {
            result.slots = counter.slots().to_vec();
            result.read_steps = Some(counter.read_steps());
            result.slot_stride_bytes = counter.slot_stride();
            result.threads = reports
                .iter()
                .map(|r| ThreadPlacement {
                    role: r.role,
                    cpu: r.pin.requested_cpu,
                    observed_cpu: r.pin.observed_cpu,
                    verified: r.pin.verified,
                    node: node_of(r.pin.requested_cpu),
                    slot_node: (r.role == Role::Writer).then(|| slot_node(r.pin.requested_cpu)),
                })
                .collect();
        }
        let mut record = interference::record(
            steal_before,
            steal_after,
            reports.iter().map(|t| t.involuntary_switches).sum(),
            canary.clone(),
            after,
        );
        record.stalls = interference::stalls(reports, ctx.ns_per_tick);
        let mut r = repeat_result(repeat, reports, &ctx);
        r.interference = record;
        if !r.outside_window.is_empty() {
            notes.push(format!(
                "{} repeat {repeat}: threads on CPUs {} never saw the measured interval start (an oversubscribed CPU, or --rate too low for warm-up + interval), so they are left out of its rates and samples",
                result.name,
                r.outside_window.iter().copied().collect::<CpuList>()
            ));
        }
        results.push(r);
    }
    Ok(Some(results))
}
