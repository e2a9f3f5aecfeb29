//! `contend run`'s engine and its result: plans an experiment from a request ([`plan()`]), runs
//! every strategy repeat by repeat, each repeat on a fresh node-bound counter with pinned threads
//! ([`execute`]), and gathers the results with their exactness checks into run.json's model
//! ([`RunResults`]).

mod aggregate;
mod floor;
mod in_place;
pub mod interference;
mod measures;
pub mod plan;
mod pools;
mod regimes;
mod repeat;
mod result;
mod rounds;
pub mod signal;

pub use aggregate::{PairedNet, UsedRepeats, alone_difference, net_busy_ns, net_cpu_share_pct};
pub use floor::is_clock_floor;
pub use in_place::{InPlaceGroup, PacedMode};
pub use measures::{Direction, Floor, MEASURES, Measure, PACED, THROUGHPUT_NS, cost_measure};
pub use plan::{
    DEFAULT_REPEATS, DEFAULT_TARGET_CI_PCT, HostCosts, PlanError, RunEstimate, RunRequest,
    StrategyChoice, WARMUP_SPREADS, plan, sample_every,
};
pub use pools::{PoolError, PoolSize, Pools, pools};
pub use regimes::PacedFloor;
pub use result::{
    CanaryRange, HarnessFloor, NodeSummary, RepeatResult, RunConfig, RunResults, SCHEMA_VERSION,
    Staleness, Stopped, Strategy, StrategyResult, StrategySummary, ThreadPlacement,
};
#[cfg(test)]
pub(crate) use result::{fixture_run, near};

use crate::clock::{ClockKind, Spin, Timer, clock_read_cost};
use crate::counter::{CounterError, PublishPolicy};
use crate::provenance::Provenance;
use crate::topology::Topology;
use crate::workload::{MAX_STEP, Regime, RepeatSpec, Sampling};
use repeat::RoundEntry;
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
    /// The timer's own cost in ticks, subtracted from every sample (0 with sampling off).
    pub overhead_ticks: u64,
    /// Provenance, read before any pinning.
    pub provenance: Provenance,
    /// Notes to keep in the results (fallbacks, oversubscription, …).
    pub notes: Vec<String>,
}

impl RunPlan {
    /// One repeat of a strategy with publish policy `policy` reading `clock` in `regime`, without
    /// `--inject`'s delay: every other setting from the plan.
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
            load_step: cfg.load_step.unwrap_or(MAX_STEP),
            warmup: Duration::from_secs_f64(cfg.warmup_s),
            duration: Duration::from_secs_f64(cfg.repeat_duration_s),
            placement: cfg.placement,
            inject: Spin::default(),
        }
    }

    /// The per-operation stopwatch.
    pub fn timer(&self) -> Timer {
        Timer::of_kind(self.config.timer, self.provenance.tsc_hz)
    }

    /// Which operations are timed in `regime`, with the timer overhead to subtract.
    pub fn sampling(&self, regime: Regime) -> Sampling {
        Sampling::new(self.config.sample_every_of(regime), self.overhead_ticks)
    }

    /// How many entries take turns in each round (strategies, and paced regimes' clock floors).
    pub fn entries(&self) -> usize {
        self.round().len()
    }

    /// This plan with paced strategies run as `mode` asks.
    pub fn with_paced(mut self, mode: PacedMode) -> Self {
        self.config.paced = mode;
        self.notes.extend(grouping_note(&entries(&self).1));
        self
    }

    /// Repeats one round runs: a repeat per flat-out entry, one per group of paced entries in place
    /// ([`in_place::groups`]).
    pub fn runs_per_round(&self) -> usize {
        self.groups().iter().map(|&g| g + 1).max().unwrap_or(0)
    }

    /// Each entry of a round, in order: strategy, regime, and whether it is a clock floor.
    fn round(&self) -> Vec<(Strategy, Regime, bool)> {
        let clocks = self.ratelimit_clocks();
        let mut entries = Vec::new();
        for &regime in &self.config.rates {
            let floors = clocks.iter().filter(|_| regime.is_paced());
            entries.extend(floors.map(|&c| (floor::clock_floor(c), regime, true)));
            entries.extend(self.strategies.iter().map(|&s| (s, regime, false)));
        }
        entries
    }

    /// The group of each entry of [`RunPlan::round`], as `config.paced` asks.
    fn groups(&self) -> Vec<usize> {
        let keys: Vec<(Regime, ClockKind)> = self
            .round()
            .iter()
            .map(|(s, regime, _)| (*regime, s.clock.unwrap_or(ClockKind::Tsc)))
            .collect();
        in_place::groups(&keys, self.config.paced)
    }

    /// The clocks the plan's ratelimits read, in order of first use.
    fn ratelimit_clocks(&self) -> Vec<ClockKind> {
        let ratelimits = self
            .strategies
            .iter()
            .filter(|s| s.publish.ratelimit.is_some());
        first_seen(ratelimits.filter_map(|s| s.clock))
    }
}

/// Each of `items` once, in the order first seen.
pub fn first_seen<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for x in items {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// Why a run stopped: the counter's own errors (a request this host cannot meet, or a pin or slot
/// placement that failed under strict placement), which every run error is.
pub type RunError = CounterError;

/// Runs every strategy of `plan` for its repeats, taking turns, each repeat preceded by the canary
/// and bracketed by steal time.
pub fn execute(
    plan: &RunPlan,
    interrupted: &AtomicBool,
    progress: impl FnMut(usize, usize, &str),
) -> Result<RunResults, RunError> {
    let started = Instant::now();
    let mut cfg = plan.config.clone();
    let (mut entries, in_place) = entries(plan);
    cfg.in_place = in_place;
    let floor_spec = plan.repeat_spec(PublishPolicy::NEVER, ClockKind::Tsc, Regime::FlatOut);
    // Each clock a ratelimit reads is priced once.
    let mut clock_costs = std::collections::HashMap::new();
    for e in &mut entries {
        e.result.clock_read_ns = (e.result.strategy.clock).map(|c| {
            *clock_costs
                .entry(c)
                .or_insert_with(|| clock_read_cost(c, plan.provenance.tsc_hz))
        });
    }
    let floor = match cfg.writer_cpus.first() {
        Some(&cpu) if cfg.rates.contains(&Regime::FlatOut) => {
            floor::measure_floor(floor_spec, cpu, &plan.topo, cfg.placement, interrupted)?
        }
        _ => None,
    };
    if let (Some(inject), Some(&cpu)) = (&mut cfg.inject, cfg.writer_cpus.first()) {
        // Priced where the run reads a cost from busy windows, if it does.
        let paced = cfg.rates.iter().find(|r| r.is_paced());
        inject.floor = paced.copied().unwrap_or_default();
        inject.on_floor = floor::measure_inject(
            RepeatSpec {
                sampling: plan.sampling(inject.floor),
                regime: inject.floor,
                ..floor_spec
            },
            plan.inject(),
            cpu,
            &plan.topo,
            cfg.placement,
            interrupted,
        )?;
    }
    let mut notes = plan.notes.clone();
    if let Some(n) = grouping_note(&cfg.in_place).filter(|n| !notes.contains(n)) {
        notes.push(n);
    }
    let end = rounds::run(
        plan,
        &mut entries,
        started,
        interrupted,
        &mut notes,
        progress,
    )?;
    let (results, is_floor): (Vec<_>, Vec<_>) =
        entries.into_iter().map(|e| (e.result, e.is_floor)).unzip();
    let (paced_floors, strategies) = aggregate::finish(
        results,
        &is_floor,
        floor.as_ref(),
        cfg.target_ci_pct,
        &mut notes,
    );
    Ok(RunResults {
        schema: SCHEMA_VERSION,
        partial: end != rounds::RoundsEnd::Done,
        out_of_time: end == rounds::RoundsEnd::OutOfTime,
        config: cfg,
        provenance: plan.provenance.clone(),
        topology: plan.topo.clone(),
        floor,
        paced_floors,
        strategies,
        notes,
    })
}

/// What takes turns in each round, in order.
fn entries(plan: &RunPlan) -> (Vec<RoundEntry>, Vec<InPlaceGroup>) {
    let groups = plan.groups();
    let entries: Vec<RoundEntry> = plan
        .round()
        .into_iter()
        .zip(&groups)
        .map(|((s, regime, is_floor), &group)| RoundEntry {
            result: StrategyResult {
                strategy: s,
                name: s.name(),
                regime,
                slots: Vec::new(),
                read_steps: None,
                slot_stride_bytes: None,
                threads: Vec::new(),
                clock_read_ns: None,
                repeats: Vec::new(),
                alone_repeats: Vec::new(),
                summary: None,
                exact: true,
                converged: None,
                retries: 0,
            },
            spec: RepeatSpec {
                inject: if is_floor {
                    Spin::default()
                } else {
                    plan.inject()
                },
                ..plan.repeat_spec(s.publish, s.clock.unwrap_or(ClockKind::Tsc), regime)
            },
            is_floor,
            group,
        })
        .collect();
    let mut in_place: Vec<InPlaceGroup> = Vec::new();
    for g in 0..plan.runs_per_round() {
        let members: Vec<&RoundEntry> = entries.iter().filter(|e| e.group == g).collect();
        let regime = members[0].result.regime;
        if regime.is_paced() && plan.config.paced.in_place() {
            in_place.push(InPlaceGroup {
                regime,
                strategies: members.iter().map(|e| e.result.name.clone()).collect(),
            });
        }
    }
    (entries, in_place)
}

/// The printed line for paced strategies of one regime that did not all fit in place in one period.
fn grouping_note(groups: &[InPlaceGroup]) -> Option<String> {
    let of = |regime: Regime| groups.iter().filter(move |g| g.regime == regime);
    let split = first_seen(
        groups
            .iter()
            .map(|g| g.regime)
            .filter(|&r| of(r).count() > 1),
    );
    let lines: Vec<String> = split
        .iter()
        .map(|&regime| {
            let parts: Vec<String> = of(regime).map(|g| g.strategies.join(", ")).collect();
            format!(
                "{regime}: {} groups in place ({})",
                parts.len(),
                parts.join(" | ")
            )
        })
        .collect();
    (!lines.is_empty()).then(|| {
        format!(
            "paced strategies run in place in groups, where one period cannot hold them all ({} µs a strategy) or they read different clocks: {}",
            in_place::LANE_SPAN.as_micros(),
            lines.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::aggregate::tests::run_with;
    use crate::workload::Role;

    /// Runs `plan` to its end: the results, each progress call's count and total, and its names.
    pub(crate) fn execute_seen(plan: &RunPlan) -> (RunResults, Vec<(usize, usize)>, Vec<String>) {
        let (mut seen, mut names) = (Vec::new(), Vec::new());
        let run = execute(plan, &AtomicBool::new(false), |done, total, name| {
            seen.push((done, total));
            names.push(name.to_string());
        });
        (run.unwrap(), seen, names)
    }

    #[test]
    fn execute_runs_every_repeat_in_turn_and_prices_each_clock_once() {
        // One writer, global/always and global/ratelimit:1ms on both clocks: 3 strategies × 2
        // repeats of 10 ms on this host.
        let mut request = plan::example_request();
        request.pools.writers = Some(PoolSize::Count(1));
        request.pools.readers = Some(PoolSize::Count(1));
        request.repeats = 2;
        request.strategies.policies = vec![PublishPolicy::ALWAYS, "ratelimit:1ms".parse().unwrap()];
        request.strategies.clocks = vec![ClockKind::Tsc, ClockKind::Monotonic];
        let (run, seen, seen_names) = execute_seen(&plan::plan_here(&request));
        let names: Vec<String> = run.strategies.iter().map(|s| s.name.clone()).collect();
        assert_eq!(seen_names, [names.clone(), names].concat());
        assert_eq!(seen, (1..=6).map(|d| (d, 6)).collect::<Vec<_>>());
        assert!(!run.partial);
        // The floor: ns per update of the loop alone (a few to a few tens of ns, debug build
        // included); no paced floor without a rate.
        let floor = run.floor.as_ref().unwrap();
        assert!((0.5..1000.0).contains(&floor.loop_ns.mean), "{floor:?}");
        assert!(run.paced_floors.is_empty());
        for s in &run.strategies {
            let name = &s.name;
            assert_eq!(s.repeats.len(), 2, "{name}");
            assert!(s.exact && s.repeats.iter().all(|r| r.exact), "{name}");
            // Only a ratelimit reads a clock, and each clock has its cost.
            let (read, reads) = (s.clock_read_ns, s.strategy.clock.is_some());
            assert_eq!(read.is_some(), reads, "{name}");
            assert!(read.is_none_or(|ns| ns > 0.0), "{name}");
            assert_eq!(s.converged, None);
            // Where each thread ran; only a writer has a slot.
            let roles = s.threads.iter().map(|t| (t.role, t.slot_node.is_some()));
            let roles: Vec<(Role, bool)> = roles.collect();
            assert_eq!(
                roles,
                [(Role::Writer, true), (Role::Reader, false)],
                "{name}"
            );
        }
        // A single repeat records its slots and threads too.
        request.repeats = 1;
        request.pools.readers = None;
        request.strategies.policies = vec![PublishPolicy::ALWAYS];
        let plan = plan::plan_here(&request);
        let one = execute(&plan, &AtomicBool::new(false), |_, _, _| {}).unwrap();
        assert_eq!(one.strategies[0].threads.len(), 1);
        assert_eq!(one.strategies[0].slots.len(), 1);
        // A note for each repeat with a thread outside its interval (a busy machine starts one
        // late), and none for the others.
        let late = run.strategies.iter().flat_map(|s| &s.repeats);
        let late = late.filter(|r| !r.outside_window.is_empty()).count();
        let noted = run
            .notes
            .iter()
            .filter(|n| n.contains("never saw the measured interval"));
        assert_eq!(noted.count(), late, "{:?}", run.notes);
    }

    #[test]
    fn extra_rounds_grow_the_total_while_max_time_lasts() {
        // A CI target nothing reaches: after the 2 planned rounds the one strategy repeats until
        // --max-time (1 s) would run out.
        let mut request = plan::example_request();
        request.pools.writers = Some(PoolSize::Count(1));
        request.repeats = 2;
        request.target_ci_pct = Some(1e-9);
        request.max_time = Some(Duration::from_secs(1));
        let (run, seen, _) = execute_seen(&plan::plan_here(&request));
        let repeats = run.strategies[0].repeats.len();
        assert!(repeats > 2, "{repeats} repeats");
        // Each progress call counts what is planned so far: 2, then one more per extra round.
        let expected: Vec<(usize, usize)> = (1..=repeats).map(|d| (d, d.max(2))).collect();
        assert_eq!(seen, expected);
        assert_eq!(run.strategies[0].converged, Some(false));
    }

    #[test]
    fn under_paced_both_the_total_counts_each_strategys_repeat_alone() {
        // Two paced strategies in place, each also alone every round: 4 repeats a round, 2 rounds
        // of 10 ms.
        let mut request = plan::example_request();
        request.pools.writers = Some(PoolSize::Count(1));
        request.strategies.policies = vec![PublishPolicy::ALWAYS, PublishPolicy::NEVER];
        request.rates = vec![Regime::SEED];
        (request.repeats, request.duration) = (2, Duration::from_millis(10));
        let (run, seen, _) = execute_seen(&plan::plan_here(&request).with_paced(PacedMode::Both));
        let expected: Vec<(usize, usize)> = (1..=8).map(|d| (d, 8)).collect();
        assert_eq!(seen, expected);
        for s in &run.strategies {
            let (name, alone) = (&s.name, s.alone_repeats.len());
            assert_eq!((s.repeats.len(), alone), (2, 2), "{name}");
            assert!(s.exact, "{}", s.name);
        }
    }

    #[test]
    fn a_run_stops_between_repeats_when_its_budget_runs_out() {
        // Two strategies, 5 repeats of 100 ms (+10 ms warm-up): 1.1 s planned, and the hammer
        // floor's 0.33 s, against a 0.7 s budget. The plan says so; the run keeps the repeats that
        // fit and ends within the budget.
        let mut request = plan::example_request();
        request.pools.writers = Some(PoolSize::Count(1));
        request.strategies.policies = vec![PublishPolicy::ALWAYS, PublishPolicy::NEVER];
        (request.repeats, request.duration) = (5, Duration::from_millis(500));
        request.warmup = Duration::from_millis(10);
        request.max_time = Some(Duration::from_millis(700));
        let plan = plan::plan_here(&request);
        let cpus = plan.config.writer_cpus.clone();
        let costs = HostCosts::for_cpus(&plan.topo, true, &cpus, plan.config.placement).unwrap();
        let (plan, _) = plan.with_costs(costs);
        let said = plan
            .notes
            .iter()
            .any(|n| n.contains("cannot hold every planned repeat"));
        assert!(said, "{:?}", plan.notes);
        let started = Instant::now();
        let run = execute(&plan, &AtomicBool::new(false), |_, _, _| {}).unwrap();
        let took = started.elapsed().as_secs_f64();
        assert!(run.partial && run.out_of_time, "{}", run.partial);
        assert_eq!(run.stopped(), Some(Stopped::OutOfTime));
        let kept: usize = run.strategies.iter().map(|s| s.repeats.len()).sum();
        assert!((1..10).contains(&kept), "{kept} repeats kept");
        // A repeat starts only if the mean repeat so far fits: at worst one slow repeat (110 ms)
        // past the budget.
        assert!(took <= 0.7 + 0.11, "{took} s for a 0.7 s budget");
        // Without a budget nothing stops it early.
        request.max_time = None;
        request.repeats = 1;
        request.duration = Duration::from_millis(20);
        let (run, _, _) = execute_seen(&plan::plan_here(&request));
        assert!(!run.partial && !run.out_of_time && run.stopped().is_none());
    }

    #[test]
    fn a_plan_gives_its_warmup_and_duration_as_durations() {
        let run = run_with(&[&[10.0]]);
        let mut cfg = run.config.clone();
        (cfg.warmup_s, cfg.repeat_duration_s) = (0.25, 1.5);
        let plan = RunPlan {
            topo: run.topology.clone(),
            config: cfg,
            strategies: Vec::new(),
            provenance: run.provenance.clone(),
            overhead_ticks: 0,
            notes: Vec::new(),
        };
        let spec = plan.repeat_spec(PublishPolicy::ALWAYS, ClockKind::Tsc, Regime::FlatOut);
        assert_eq!(spec.warmup, Duration::from_millis(250));
        assert_eq!(spec.duration, Duration::from_millis(1500));
    }
}
