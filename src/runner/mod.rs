//! `contend run`'s engine and its result: plans an experiment from a
//! request ([`plan()`]), runs every strategy repeat by repeat, each repeat
//! on a fresh node-bound counter with pinned threads ([`execute`]), and
//! gathers the results with their exactness checks into run.json's model
//! ([`RunResults`]). [`signal`] is the one place a stop request is caught.

mod aggregate;
mod floor;
pub mod interference;
mod measures;
pub mod plan;
mod pools;
mod regimes;
mod result;
pub mod signal;

pub use measures::{MEASURES, Measure, PACED, THROUGHPUT_NS, cost_measure};
pub use plan::{
    DEFAULT_REPEATS, DEFAULT_SAMPLE_EVERY, DEFAULT_TARGET_CI_PCT, PlanError, RunRequest,
    StrategyChoice, plan,
};
pub use pools::{PoolError, PoolSize, PoolSizeError, Pools, pools};
#[cfg(test)]
pub(crate) use result::fixture_run;
pub use result::{
    CanaryRange, HarnessFloor, InexactSum, Interference, RepeatResult, RunConfig, RunResults,
    SCHEMA_VERSION, Staleness, Strategy, StrategyResult, StrategySummary, ThreadPlacement,
};

use crate::clock::{ClockKind, Timer, clock_read_cost};
use crate::counter::{CounterError, CounterLayout, PublishPolicy, ShardedCounter, SlotHome};
use crate::placement::PlacementError;
use crate::provenance::Provenance;
use crate::stats::Summary;
use crate::topology::{CpuList, Topology};
use crate::workload::{Regime, RepeatOutcome, RepeatSpec, Role, Sampling, run_repeat};
use aggregate::{RepeatContext, repeat_result, strategy_summary};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// A resolved experiment: what to run where, ready to execute.
#[derive(Debug, Clone)]
pub struct RunPlan {
    /// The host layout.
    pub topo: Topology,
    /// Settings, as recorded in the results.
    pub config: RunConfig,
    /// Strategies in the order they take turns.
    pub strategies: Vec<Strategy>,
    /// The timer's own cost in ticks, subtracted from every sample (0 with
    /// sampling off).
    pub overhead_ticks: u64,
    /// Provenance, read before any pinning.
    pub provenance: Provenance,
    /// Notes to keep in the results (fallbacks, oversubscription, …).
    pub notes: Vec<String>,
}

impl RunPlan {
    /// One repeat of a strategy with publish policy `policy` reading
    /// `clock` in `regime`: every other setting
    /// from the plan. Every repeat replays the same load tables (the seed
    /// does not change between repeats).
    pub fn repeat_spec(
        &self,
        policy: PublishPolicy,
        clock: ClockKind,
        regime: Regime,
    ) -> RepeatSpec {
        let cfg = &self.config;
        RepeatSpec {
            policy,
            clock,
            tsc_hz: self.provenance.tsc_hz,
            read_every: cfg.read_every,
            timer: self.timer(),
            sampling: self.sampling(regime),
            regime,
            seed: cfg.seed,
            warmup: self.warmup(),
            duration: self.repeat_duration(),
            placement: cfg.placement,
        }
    }

    /// The per-operation stopwatch.
    pub fn timer(&self) -> Timer {
        Timer::of_kind(self.config.timer, self.provenance.tsc_hz)
    }

    /// Which operations are timed in `regime`, with the timer overhead to
    /// subtract.
    pub fn sampling(&self, regime: Regime) -> Sampling {
        let cfg = &self.config;
        let every = cfg
            .rates
            .iter()
            .position(|r| *r == regime)
            .and_then(|i| cfg.sample_every_by_rate.get(i))
            .copied()
            .unwrap_or(cfg.sample_every);
        Sampling::new(every, self.overhead_ticks)
    }

    /// Warm-up before each repeat.
    pub fn warmup(&self) -> Duration {
        Duration::from_secs_f64(self.config.warmup_s)
    }

    /// Measured interval of each repeat.
    pub fn repeat_duration(&self) -> Duration {
        Duration::from_secs_f64(self.config.repeat_duration_s)
    }

    /// What takes turns in each round: every strategy in every regime,
    /// and each paced regime's floor.
    pub fn entries(&self) -> usize {
        let rates = &self.config.rates;
        self.strategies.len() * rates.len() + rates.iter().filter(|r| r.is_paced()).count()
    }
}

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The request names something this host lacks.
    #[error("{0}")]
    Request(String),
    /// A pin or slot placement failed under strict placement.
    #[error(transparent)]
    Placement(#[from] PlacementError),
}

impl From<CounterError> for RunError {
    fn from(e: CounterError) -> Self {
        match e {
            CounterError::Request(m) => RunError::Request(m),
            CounterError::Placement(p) => RunError::Placement(p),
        }
    }
}

/// Runs every strategy of `plan` for its repeats, taking turns, each
/// repeat preceded by the canary and bracketed by steal time. With a
/// target CI (`config.target_ci_pct`), further rounds follow, each giving
/// one more repeat to every strategy not yet within it, until all are or
/// the time budget (`config.max_time_s`) would be overrun.
/// `interrupted` (a stop signal) stops early: finished repeats are kept
/// and the results are marked partial. `progress(done, total, strategy)`
/// is called after each repeat (`total` grows with extra rounds).
pub fn execute(
    plan: &RunPlan,
    interrupted: &AtomicBool,
    mut progress: impl FnMut(usize, usize, &str),
) -> Result<RunResults, RunError> {
    let started = Instant::now();
    let cfg = &plan.config;
    let mut clock_costs: Vec<(ClockKind, f64)> = Vec::new();
    for c in plan.strategies.iter().filter_map(|s| s.clock) {
        if !clock_costs.iter().any(|(k, _)| *k == c) {
            clock_costs.push((c, clock_read_cost(c, plan.provenance.tsc_hz)));
        }
    }
    let entry = |s: &Strategy, regime: Regime| StrategyResult {
        strategy: *s,
        name: s.name(),
        regime,
        slots: Vec::new(),
        read_steps: None,
        slot_stride_bytes: None,
        threads: Vec::new(),
        clock_read_ns: s
            .clock
            .and_then(|c| clock_costs.iter().find(|(k, _)| *k == c).map(|(_, ns)| *ns)),
        repeats: Vec::new(),
        summary: None,
        exact: true,
        converged: None,
    };
    // Every regime's strategies take turns in one round, a paced regime's
    // floor first among them.
    let mut results: Vec<StrategyResult> = Vec::new();
    let mut is_floor: Vec<bool> = Vec::new();
    for &regime in &cfg.rates {
        if regime.is_paced() {
            results.push(entry(&floor::PACED_FLOOR, regime));
            is_floor.push(true);
        }
        for s in &plan.strategies {
            results.push(entry(s, regime));
            is_floor.push(false);
        }
    }
    let mut notes = plan.notes.clone();
    let floor = if cfg.rates.contains(&Regime::FlatOut) {
        floor::measure_floor(plan, interrupted)?
    } else {
        None
    };
    let canary_pair = interference::canary_cpus(&cfg.writer_cpus, &cfg.reader_cpus);
    let mut total = results.len() * cfg.repeats;
    let mut done = 0;
    let mut partial = false;
    let mut round = 0;
    let mut repeat_s = 0.0;
    'rounds: loop {
        let left_s = cfg.max_time_s.unwrap_or(0.0) - started.elapsed().as_secs_f64();
        let Some(active) = next_round(round, cfg, &results, repeat_s, left_s) else {
            break;
        };
        if round >= cfg.repeats {
            total += active.len();
        }
        let round_started = Instant::now();
        for &i in &active {
            let result = &mut results[i];
            let Some(r) = one_repeat(plan, result, round, canary_pair, interrupted, &mut notes)?
            else {
                partial = true;
                break 'rounds;
            };
            result.exact &= r.exact;
            result.repeats.push(r);
            done += 1;
            progress(done, total, &result.name);
        }
        repeat_s = round_started.elapsed().as_secs_f64() / active.len().max(1) as f64;
        round += 1;
    }
    if let Some(warning) =
        interference::mark_canary_shifts(results.iter_mut().flat_map(|r| &mut r.repeats).collect())
    {
        notes.push(warning);
    }
    for result in results.iter_mut() {
        result.summary = strategy_summary(&result.repeats);
        if let Some(target) = cfg.target_ci_pct {
            result.converged = Some(ci_half_width_pct(result).is_some_and(|h| h <= target));
        }
    }
    let (paced_floors, mut strategies): (Vec<_>, Vec<_>) = results
        .into_iter()
        .zip(is_floor)
        .partition(|(_, floor)| *floor);
    let paced_floors: Vec<StrategyResult> = paced_floors.into_iter().map(|(r, _)| r).collect();
    for (s, _) in &mut strategies {
        floor::fill_net(s, floor.as_ref(), &paced_floors);
    }
    Ok(RunResults {
        schema: SCHEMA_VERSION,
        partial,
        config: cfg.clone(),
        provenance: plan.provenance.clone(),
        topology: plan.topo.clone(),
        floor,
        paced_floors,
        strategies: strategies.into_iter().map(|(s, _)| s).collect(),
        notes,
    })
}

/// Half-width of the 95% CI of a strategy's cost per update, as % of its
/// mean: loop ns/op (from throughput) flat out, busy ns/op when paced
/// (where loop ns/op is the pacing period); `None` before two repeats.
pub fn ci_half_width_pct(result: &StrategyResult) -> Option<f64> {
    let values: Vec<f64> = result
        .repeats
        .iter()
        .map(|r| match result.regime {
            Regime::Paced { .. } => r.write_busy_ns,
            Regime::FlatOut => r.write_loop_ns,
        })
        .collect();
    let s = Summary::of(&values).filter(|s| s.n > 1 && s.mean > 0.0)?;
    Some(100.0 * (s.ci95_high - s.mean) / s.mean)
}

/// The strategies round `round` (0-based) repeats, as indexes into
/// `results`, or `None` when the run is done: every strategy in the first
/// `cfg.repeats` rounds; then, under `--target-ci`, those whose CI is still
/// wider than the target, when a repeat of each, at `repeat_s` seconds a
/// repeat (the last round's), fits in the `left_s` seconds of `--max-time`
/// left.
fn next_round(
    round: usize,
    cfg: &RunConfig,
    results: &[StrategyResult],
    repeat_s: f64,
    left_s: f64,
) -> Option<Vec<usize>> {
    if round < cfg.repeats {
        return Some((0..results.len()).collect());
    }
    let open = unconverged(results, cfg.target_ci_pct);
    (!open.is_empty() && repeat_s * open.len() as f64 <= left_s).then_some(open)
}

/// Indexes of the strategies whose CI is still wider than `target` %.
fn unconverged(results: &[StrategyResult], target: Option<f64>) -> Vec<usize> {
    let Some(target) = target else {
        return Vec::new();
    };
    (0..results.len())
        .filter(|&i| ci_half_width_pct(&results[i]).is_none_or(|h| h > target))
        .collect()
}

/// One repeat of one strategy: the canary, a fresh node-bound counter, the
/// pinned pools, and the repeat's numbers with their interference record;
/// `None` when interrupted. The first repeat also records where the slots
/// and threads were.
fn one_repeat(
    plan: &RunPlan,
    result: &mut StrategyResult,
    repeat: usize,
    canary_pair: Option<(u32, u32)>,
    interrupted: &AtomicBool,
    notes: &mut Vec<String>,
) -> Result<Option<RepeatResult>, RunError> {
    let cfg = &plan.config;
    let s = result.strategy;
    let layout = CounterLayout {
        level: s.level,
        pad: s.pad,
        home: cfg.counter_node.map_or(SlotHome::Local, SlotHome::OnNode),
        node_iter: cfg.node_iter,
    };
    let counter = ShardedCounter::new(layout, &plan.topo, &cfg.writer_cpus, cfg.placement)?;
    for note in counter.notes() {
        if !notes.contains(note) {
            notes.push(note.clone());
        }
    }
    let canary = canary_pair.and_then(|(a, b)| interference::canary(a, b));
    let measured: Vec<u32> = cfg
        .writer_cpus
        .iter()
        .chain(&cfg.reader_cpus)
        .copied()
        .collect();
    let steal_before = interference::steal_ms(&measured);
    let spec = plan.repeat_spec(s.publish, s.clock.unwrap_or(ClockKind::Tsc), result.regime);
    let reports = match run_repeat(
        &counter,
        &cfg.writer_cpus,
        &cfg.reader_cpus,
        &plan.topo.allowed_cpus,
        &spec,
        interrupted,
    )? {
        RepeatOutcome::Done(r) => r,
        RepeatOutcome::Interrupted => return Ok(None),
    };
    let steal_after = interference::steal_ms(&measured);
    let node_of = |cpu: u32| plan.topo.node_of_cpu(cpu).unwrap_or(0);
    let slot_node = |cpu: u32| {
        counter
            .slot_of_cpu(cpu)
            .map_or(0, |i| counter.slots()[i].node)
    };
    let ctx = RepeatContext {
        cpu_nodes: cfg.writer_cpus.iter().map(|&c| node_of(c)).collect(),
        slot_nodes: cfg.writer_cpus.iter().map(|&c| slot_node(c)).collect(),
        final_sum: counter.read(),
        ns_per_tick: plan.timer().ns_per_tick(),
        regime: result.regime,
    };
    if repeat == 0 {
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
    let mut r = repeat_result(repeat, &reports, &ctx);
    r.interference = interference::record(
        steal_before,
        steal_after,
        reports.iter().map(|t| t.involuntary_switches).sum(),
        canary,
    );
    if !r.outside_window.is_empty() {
        notes.push(format!(
            "{} repeat {repeat}: threads on CPUs {} never saw the measured interval start (an oversubscribed CPU, or --rate too low for warm-up + interval), so they are left out of its rates and samples",
            result.name,
            r.outside_window.iter().copied().collect::<CpuList>()
        ));
    }
    Ok(Some(r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// tests/fixtures/results/run.json with as many strategies as
    /// `loop_ns`, strategy `i`'s repeats measuring `loop_ns[i]` ns/update.
    fn run_with(loop_ns: &[&[f64]]) -> RunResults {
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
    fn the_ci_half_width_is_students_t_by_hand() {
        // mean 11, sd √2, t(0.975, 1) = 12.7062: 12.7062 / 11.
        let run = run_with(&[&[10.0, 12.0], &[10.0, 11.0, 12.0], &[10.0], &[0.0, 0.0]]);
        let h: Vec<Option<f64>> = run.strategies.iter().map(ci_half_width_pct).collect();
        assert!(
            (h[0].unwrap() - 115.510_952_147_042_77).abs() < 1e-9,
            "{h:?}"
        );
        // mean 11, sd 1, t(0.975, 2) = 4.30265: 4.30265 / √3 / 11.
        assert!(
            (h[1].unwrap() - 22.583_070_106_821_192).abs() < 1e-9,
            "{h:?}"
        );
        // One repeat, or a zero mean: no interval.
        assert_eq!((h[2], h[3]), (None, None));
        // Paced, the interval is of busy ns/op (loop ns/op is the pacing
        // period): busy 10x the first strategy's figures, loop constant.
        let mut paced = run.strategies[0].clone();
        paced.regime = Regime::SEED;
        for r in &mut paced.repeats {
            (r.write_busy_ns, r.write_loop_ns) = (10.0 * r.write_loop_ns, 45_454.5);
        }
        let busy = ci_half_width_pct(&paced).unwrap();
        assert!((busy - h[0].unwrap()).abs() < 1e-9, "{busy}");
    }

    #[test]
    fn extra_rounds_repeat_the_open_strategies_while_the_time_lasts() {
        // Strategy 0 is at ±22.6%, strategy 1 at ±0.25%.
        let run = run_with(&[&[10.0, 11.0, 12.0], &[10.0, 10.01, 10.02]]);
        let mut cfg = run.config.clone();
        cfg.repeats = 3;
        cfg.target_ci_pct = None;
        let all = Some(vec![0, 1]);
        let next = |cfg: &RunConfig, round, repeat_s, left_s| {
            next_round(round, cfg, &run.strategies, repeat_s, left_s)
        };
        // The first `repeats` rounds run everything, whatever the time.
        assert_eq!(next(&cfg, 0, 5.0, -1.0), all);
        assert_eq!(next(&cfg, 2, 5.0, -1.0), all);
        // Without --target-ci, that is all.
        assert_eq!(next(&cfg, 3, 0.0, 100.0), None);
        // With one, the strategies above the target, if a repeat of each
        // fits in the time left.
        cfg.target_ci_pct = Some(5.0);
        assert_eq!(next(&cfg, 3, 2.0, 2.0), Some(vec![0]));
        assert_eq!(next(&cfg, 3, 2.0, 1.9), None);
        cfg.target_ci_pct = Some(0.1);
        assert_eq!(next(&cfg, 4, 1.0, 2.0), all);
        assert_eq!(next(&cfg, 4, 1.0, 1.9), None);
        cfg.target_ci_pct = Some(25.0);
        assert_eq!(next(&cfg, 3, 0.0, 100.0), None);
        // A strategy exactly at the target has converged, as the results
        // say (half-width <= target).
        cfg.target_ci_pct = ci_half_width_pct(&run.strategies[0]);
        assert_eq!(next(&cfg, 3, 1.0, 100.0), None);
    }

    #[test]
    fn execute_runs_every_repeat_in_turn_and_prices_each_clock_once() {
        // One writer, global/always and global/ratelimit:1ms on both
        // clocks: 3 strategies × 2 repeats of 10 ms on this host.
        let mut request = plan::example_request();
        request.pools.writers = Some(PoolSize::Count(1));
        request.pools.readers = Some(PoolSize::Count(1));
        request.repeats = 2;
        request.strategies.policies = vec![PublishPolicy::ALWAYS, "ratelimit:1ms".parse().unwrap()];
        request.strategies.clocks = vec![ClockKind::Tsc, ClockKind::Monotonic];
        let topo = Topology::read(Path::new("/")).unwrap();
        let plan = plan::plan(&request, topo).unwrap();
        let mut seen = Vec::new();
        let run = execute(&plan, &AtomicBool::new(false), |done, total, name| {
            seen.push((done, total, name.to_string()))
        })
        .unwrap();
        let names: Vec<&str> = run.strategies.iter().map(|s| s.name.as_str()).collect();
        let rounds = [names.clone(), names.clone()].concat();
        let expected: Vec<(usize, usize, String)> = rounds
            .iter()
            .enumerate()
            .map(|(i, n)| (i + 1, 6, n.to_string()))
            .collect();
        assert_eq!(seen, expected);
        assert!(!run.partial);
        // The floor: ns per update of the loop alone (a few to a few tens
        // of ns, debug build included); no paced floor without a rate.
        let floor = run.floor.as_ref().unwrap();
        assert!((0.5..1000.0).contains(&floor.loop_ns.mean), "{floor:?}");
        assert!(run.paced_floors.is_empty());
        for s in &run.strategies {
            assert_eq!(s.repeats.len(), 2, "{}", s.name);
            assert!(s.exact && s.repeats.iter().all(|r| r.exact), "{}", s.name);
            // Only a ratelimit reads a clock, and each clock has its cost.
            assert_eq!(
                s.clock_read_ns.is_some(),
                s.strategy.clock.is_some(),
                "{}",
                s.name
            );
            assert!(s.clock_read_ns.is_none_or(|ns| ns > 0.0), "{}", s.name);
            assert_eq!(s.converged, None);
            // Where each thread ran; only a writer has a slot.
            let roles: Vec<(Role, bool)> = s
                .threads
                .iter()
                .map(|t| (t.role, t.slot_node.is_some()))
                .collect();
            assert_eq!(
                roles,
                [(Role::Writer, true), (Role::Reader, false)],
                "{}",
                s.name
            );
        }
        // A single repeat records its slots and threads too.
        request.repeats = 1;
        request.pools.readers = None;
        request.strategies.policies = vec![PublishPolicy::ALWAYS];
        let plan = plan::plan(&request, Topology::read(Path::new("/")).unwrap()).unwrap();
        let one = execute(&plan, &AtomicBool::new(false), |_, _, _| {}).unwrap();
        assert_eq!(one.strategies[0].threads.len(), 1);
        assert_eq!(one.strategies[0].slots.len(), 1);
        // A note for each repeat with a thread outside its interval (a
        // busy machine starts one late), and none for the others.
        let late = run.strategies.iter().flat_map(|s| &s.repeats);
        assert_eq!(
            run.notes
                .iter()
                .filter(|n| n.contains("never saw the measured interval"))
                .count(),
            late.filter(|r| !r.outside_window.is_empty()).count(),
            "{:?}",
            run.notes
        );
    }

    #[test]
    fn extra_rounds_grow_the_total_while_max_time_lasts() {
        // A CI target nothing reaches: after the 2 planned rounds the one
        // strategy repeats until --max-time (1 s) would run out.
        let mut request = plan::example_request();
        request.pools.writers = Some(PoolSize::Count(1));
        request.repeats = 2;
        request.target_ci_pct = Some(1e-9);
        request.max_time = Duration::from_secs(1);
        let topo = Topology::read(Path::new("/")).unwrap();
        let plan = plan::plan(&request, topo).unwrap();
        let mut seen = Vec::new();
        let run = execute(&plan, &AtomicBool::new(false), |done, total, _| {
            seen.push((done, total))
        })
        .unwrap();
        let repeats = run.strategies[0].repeats.len();
        assert!(repeats > 2, "{repeats} repeats");
        // Each progress call counts what is planned so far: 2, then one
        // more per extra round.
        let expected: Vec<(usize, usize)> = (1..=repeats).map(|d| (d, d.max(2))).collect();
        assert_eq!(seen, expected);
        assert_eq!(run.strategies[0].converged, Some(false));
    }

    #[test]
    fn a_plan_gives_its_warmup_and_duration_as_durations() {
        let run = run_with(&[&[10.0]]);
        let mut cfg = run.config.clone();
        cfg.warmup_s = 0.25;
        cfg.repeat_duration_s = 1.5;
        let plan = RunPlan {
            topo: run.topology.clone(),
            config: cfg,
            strategies: Vec::new(),
            provenance: run.provenance.clone(),
            overhead_ticks: 0,
            notes: Vec::new(),
        };
        assert_eq!(plan.warmup(), Duration::from_millis(250));
        assert_eq!(plan.repeat_duration(), Duration::from_millis(1500));
    }
}
