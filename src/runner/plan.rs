//! From what a user asks for ([`RunRequest`]) to what runs where
//! ([`RunPlan`]): CPUs for each pool, the strategies, the timer and the
//! sampling, resolved against the host. Every problem is a [`PlanError`]
//! naming the option involved, found before anything runs.

use super::RunPlan;
use super::in_place::PacedMode;
use super::pools::{PoolCpus, PoolError, Pools, pools};
use super::result::{Injection, RunConfig, Strategy};
use crate::clock::{ClockKind, Spin, Timer, calibrate_tsc};
use crate::counter::{NodeIter, Pad, PublishPolicy, ShardLevel};
use crate::placement::Placement;
use crate::provenance::Provenance;
use crate::topology::{MemoryNodeError, Topology};
use crate::workload::{MAX_STEP, Regime, SEED_THRESHOLD_PUBLISHES, StepError};
use std::collections::BTreeSet;
use std::time::Duration;

/// Repeats per strategy by default.
pub const DEFAULT_REPEATS: u32 = 5;

/// The default `--target-ci`, %: a default run adds repeats until every
/// strategy's loop ns/op is known within ±5% (95% CI) or its time is up.
pub const DEFAULT_TARGET_CI_PCT: f64 = 5.0;

/// One operation in this many is timed by default (`--sample-every`).
pub const DEFAULT_SAMPLE_EVERY: u64 = 1024;

/// Paced threads are sampled about this often per second by default.
pub const PACED_SAMPLES_PER_S: f64 = 10_000.0;

/// One operation in how many is timed, a power of two (0 = none):
/// `explicit` rounded up, else [`DEFAULT_SAMPLE_EVERY`] when hammering, or
/// paced at a rate one in rate ÷ [`PACED_SAMPLES_PER_S`] (at least 2, at
/// most the default), so a paced thread, idle most of the time, still
/// gets enough samples for percentiles and staleness probes, and at least
/// half its operations are left untimed for busy time (a sampled
/// operation's clock reads are inside its busy window).
pub fn sample_every(explicit: Option<u64>, regime: Regime) -> u64 {
    match (explicit, regime.rate()) {
        (Some(0), _) => 0,
        (Some(k), _) => k.next_power_of_two(),
        (None, None) => DEFAULT_SAMPLE_EVERY,
        (None, Some(r)) => ((r / PACED_SAMPLES_PER_S).ceil().max(2.0) as u64)
            .next_power_of_two()
            .min(DEFAULT_SAMPLE_EVERY),
    }
}

/// The strategies to compare: every shard level × publish policy × pad,
/// and for ratelimited policies × clock.
#[derive(Debug, Clone, PartialEq)]
pub struct StrategyChoice {
    /// Shard levels.
    pub levels: Vec<ShardLevel>,
    /// Publish policies.
    pub policies: Vec<PublishPolicy>,
    /// Bytes between slots.
    pub pads: Vec<Pad>,
    /// Clocks a ratelimit reads.
    pub clocks: Vec<ClockKind>,
}

impl StrategyChoice {
    /// The strategies: every level × policy × pad, and for ratelimited
    /// policies × clock; duplicates dropped, order kept (policy, pad,
    /// clock, then level, so levels of one policy sit together).
    pub fn strategies(&self) -> Vec<Strategy> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for &publish in &self.policies {
            for &pad in &self.pads {
                let clock_choices: Vec<Option<ClockKind>> = if publish.reads_clock() {
                    self.clocks.iter().map(|&c| Some(c)).collect()
                } else {
                    vec![None]
                };
                for clock in clock_choices {
                    for &level in &self.levels {
                        let s = Strategy {
                            level,
                            publish,
                            pad,
                            clock,
                        };
                        if seen.insert(s.name()) {
                            out.push(s);
                        }
                    }
                }
            }
        }
        out
    }
}

/// What `contend run` is asked to measure, before it is resolved against
/// the host: no output options.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRequest {
    /// Writer and reader threads, on which CPUs.
    pub pools: Pools,
    /// Writers run the read side every this many updates (0 = never).
    pub read_every: u32,
    /// The strategies to compare.
    pub strategies: StrategyChoice,
    /// Every slot on this node (default: each slot local).
    pub counter_node: Option<u32>,
    /// How node-level readers walk slots.
    pub node_iter: NodeIter,
    /// Measured time per strategy, split over the repeats.
    pub duration: Duration,
    /// Warm-up before each repeat.
    pub warmup: Duration,
    /// Repeats per strategy (at least; see `target_ci_pct`).
    pub repeats: u32,
    /// Add repeats until every strategy's 95% CI of loop ns/op is within
    /// this % of its mean (`None`: exactly `repeats`).
    pub target_ci_pct: Option<f64>,
    /// Time budget of the whole run (`None`: none): no repeat starts
    /// that would end past it, and `--target-ci`'s extra rounds fit in it.
    pub max_time: Option<Duration>,
    /// The regimes to measure, interleaved in one run. At least one.
    pub rates: Vec<Regime>,
    /// Seed of the writers' load walks.
    pub seed: u64,
    /// One operation in this many is timed (0 = none); `None` chooses
    /// ([`sample_every`]).
    pub sample_every: Option<u64>,
    /// Strict or best-effort placement.
    pub placement: Placement,
}

/// Why a request cannot run on this host. Each names the option involved.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The pools cannot be filled: a CPU spec, a count, too few CPUs.
    #[error(transparent)]
    Pools(#[from] PoolError),
    /// `--counter-node` (or `--home node:N`) names a node without usable
    /// memory.
    #[error("{option} {node}: {source}")]
    MemoryNode {
        /// The option naming the node.
        option: &'static str,
        /// The node.
        node: u32,
        /// Why memory cannot go there.
        source: MemoryNodeError,
    },
    /// A strategy list is empty.
    #[error("--level, --publish, --pad and --clock each need at least one value")]
    NoStrategy,
    /// `--duration` / `--repeats` leaves under a millisecond per repeat.
    #[error("--duration {duration:?} over {repeats} repeats leaves under 1 ms per repeat")]
    RepeatTooShort {
        /// `--duration`.
        duration: Duration,
        /// `--repeats`.
        repeats: u32,
    },
    /// `--sample-every 1` with a rate: every operation timed, none left
    /// to measure busy time on.
    #[error(
        "--sample-every 1 with a rate times every operation, and a timed operation's clock reads are inside its busy window, so none is left to measure busy time on: use 2 or more (or 0 for none)"
    )]
    EverySampled,
    /// A sweep's `--threads` is empty.
    #[error("--threads needs at least one value")]
    NoThreadCounts,
    /// A sweep's `--rates` (or run's `--rate`) is empty.
    #[error("--rates needs at least one value (a rate such as 22k, or max)")]
    NoRates,
    /// A sweep's `--threads` holds 0.
    #[error("--threads 0: every point needs at least 1 writer thread")]
    ZeroThreads,
    /// `--threshold-publishes` asks for a fraction no load walk gives.
    #[error("--threshold-publishes: {0}")]
    ThresholdPublishes(#[from] StepError),
    /// Every point of a sweep was skipped.
    #[error("no point to run: {}", notes.join("; "))]
    NothingToRun {
        /// Why each was skipped.
        notes: Vec<String>,
    },
}

/// Resolves `request` against `topo`: CPUs for each pool, strategies,
/// timer and sampling, and the provenance read now (before any pinning).
pub fn plan(request: &RunRequest, topo: Topology) -> Result<RunPlan, PlanError> {
    let allowed = topo.allowed_cpus.len();
    let mut notes = Vec::new();
    let chosen = &request.strategies;
    if request.rates.is_empty() {
        return Err(PlanError::NoRates);
    }
    let mut rates: Vec<Regime> = Vec::new();
    for &r in &request.rates {
        if !rates.contains(&r) {
            rates.push(r);
        }
    }
    if chosen.levels.is_empty()
        || chosen.policies.is_empty()
        || chosen.pads.is_empty()
        || chosen.clocks.is_empty()
    {
        return Err(PlanError::NoStrategy);
    }
    if request.sample_every == Some(1) && rates.iter().any(|r| r.is_paced()) {
        return Err(PlanError::EverySampled);
    }
    let every_by_rate: Vec<u64> = rates
        .iter()
        .map(|&r| sample_every(request.sample_every, r))
        .collect();
    let strategies = chosen.strategies();
    if let Some(node) = request.counter_node {
        topo.check_memory_node(node)
            .map_err(|source| PlanError::MemoryNode {
                option: "--counter-node",
                node,
                source,
            })?;
    }
    let PoolCpus {
        writers: writer_cpus,
        readers: reader_cpus,
        clipped,
    } = pools(&topo, &request.pools)?;
    notes.extend(clipped.iter().map(ToString::to_string));
    let threads = writer_cpus.len() + reader_cpus.len();
    let distinct: BTreeSet<u32> = writer_cpus.iter().chain(&reader_cpus).copied().collect();
    if request.pools.oversubscribe && threads > allowed.min(distinct.len()) {
        notes.push(format!(
            "oversubscribed: {threads} threads share {} CPUs; numbers include time-slicing",
            distinct.len()
        ));
    }
    if chosen.levels.contains(&ShardLevel::Global) && chosen.levels[0] != ShardLevel::Global {
        notes.push(format!(
            "changes are shown against {}, the first --level",
            chosen.levels[0]
        ));
    }
    let repeat_duration = request.duration / request.repeats.max(1);
    if repeat_duration < Duration::from_millis(1) {
        return Err(PlanError::RepeatTooShort {
            duration: request.duration,
            repeats: request.repeats,
        });
    }

    let provenance = Provenance::of_this_host(calibrate_tsc(Duration::from_millis(50)));
    let timer = Timer::for_host(provenance.tsc_invariant, provenance.tsc_hz);
    notes.extend(provenance.host_notes());
    let every = every_by_rate[0];
    let overhead_ticks = if every_by_rate.iter().any(|&e| e > 0) {
        timer.overhead_ticks()
    } else {
        0
    };
    let config = RunConfig {
        writer_cpus,
        reader_cpus,
        clipped,
        read_every: request.read_every,
        rate: rates.iter().find_map(|r| r.rate()),
        rates,
        sample_every_by_rate: every_by_rate,
        repeat_duration_s: repeat_duration.as_secs_f64(),
        warmup_s: request.warmup.as_secs_f64(),
        repeats: request.repeats as usize,
        seed: request.seed,
        threshold_publishes: Some(SEED_THRESHOLD_PUBLISHES),
        load_step: Some(MAX_STEP),
        sample_every: every,
        timer: timer.kind(),
        timer_overhead_ns: overhead_ticks as f64 * timer.ns_per_tick(),
        staleness_probes: every > 0,
        target_ci_pct: request.target_ci_pct,
        max_time_s: request.max_time.map(|d| d.as_secs_f64()),
        placement: request.placement,
        oversubscribe: request.pools.oversubscribe,
        counter_node: request.counter_node,
        node_iter: request.node_iter,
        paced: PacedMode::InPlace,
        in_place: Vec::new(),
        inject: None,
    };
    let mut plan = RunPlan {
        topo,
        config,
        strategies,
        overhead_ticks,
        provenance,
        notes,
    };
    if let Some(budget) = plan.config.max_time_s {
        let need = plan.runs_per_round() as f64
            * plan.config.repeats as f64
            * (plan.config.warmup_s + plan.config.repeat_duration_s);
        if need > budget {
            plan.notes.push(format!(
                "the planned repeats take at least {need:.1} s, more than --max-time {budget:.1} s: the run will stop at the budget, partial (raise --max-time, or lower --repeats or --duration)"
            ));
        }
    }
    Ok(plan)
}

impl RunPlan {
    /// This plan with the writers' load walks made for `threshold:64` to
    /// publish `fraction` of updates (`--threshold-publishes`): the
    /// walks' largest step chosen by stepping the writer's decision
    /// without threads (`workload::step_for_threshold_publishes`), both
    /// recorded in the config. A fraction no walk gives is a
    /// [`PlanError::ThresholdPublishes`].
    pub fn with_threshold_publishes(mut self, fraction: f64) -> Result<Self, PlanError> {
        let (step, _) = crate::workload::step_for_threshold_publishes(fraction, self.config.seed)?;
        self.config.threshold_publishes = Some(fraction);
        self.config.load_step = Some(step);
        Ok(self)
    }
}

impl RunPlan {
    /// This plan with a delay of about `ns` added to every update of every
    /// strategy (`--inject`): a [`Spin`] calibrated now, recorded in the
    /// config; `execute` measures what it adds to the harness floor.
    pub fn with_inject(mut self, ns: f64) -> Self {
        let (spin, per) = Spin::calibrate(ns);
        self.config.inject = Some(Injection {
            ns,
            iterations: spin.iterations,
            ns_per_iteration: per,
            floor: Regime::FlatOut,
            on_floor: None,
        });
        self
    }

    /// The delay every strategy's update carries (none without
    /// `--inject`).
    pub fn inject(&self) -> Spin {
        Spin {
            iterations: self.config.inject.map_or(0, |i| i.iterations),
        }
    }
}

/// A 20 ms, 4-repeat request for global/always on every CPU, strict
/// placement, default sampling: what tests start from.
#[cfg(test)]
pub(crate) fn example_request() -> RunRequest {
    RunRequest {
        pools: Pools::default(),
        read_every: 0,
        strategies: StrategyChoice {
            levels: vec![ShardLevel::Global],
            policies: vec![PublishPolicy::ALWAYS],
            pads: vec![Pad::Line128],
            clocks: vec![ClockKind::Tsc],
        },
        counter_node: None,
        node_iter: NodeIter::Compact,
        duration: Duration::from_millis(20),
        warmup: Duration::ZERO,
        repeats: 4,
        target_ci_pct: None,
        max_time: None,
        rates: vec![Regime::FlatOut],
        seed: 1,
        sample_every: None,
        placement: Placement::Strict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::TSC_FALLBACK_NOTE;

    use super::example_request as request;
    use crate::runner::PoolSize;

    #[test]
    fn paced_runs_sample_more_often() {
        assert_eq!(sample_every(None, Regime::FlatOut), 1024);
        assert_eq!(sample_every(Some(1000), Regime::paced(22_000.0)), 1024);
        assert_eq!(sample_every(Some(0), Regime::paced(22_000.0)), 0);
        assert_eq!(sample_every(None, Regime::paced(22_000.0)), 4); // 2.2 -> 3 -> 4
        assert_eq!(sample_every(None, Regime::paced(1e6)), 128); // 100 -> 128
        assert_eq!(sample_every(None, Regime::paced(5_000.0)), 2);
        assert_eq!(sample_every(None, Regime::paced(1e9)), 1024);
        // Every operation timed leaves none for busy time: refused with a
        // rate, allowed flat out.
        let mut r = request();
        r.sample_every = Some(1);
        assert!(planned(&r).is_ok());
        r.rates = vec![Regime::FlatOut, Regime::SEED];
        assert!(matches!(planned(&r), Err(PlanError::EverySampled)));
        r.sample_every = Some(2);
        assert!(planned(&r).is_ok());
    }

    use crate::topology::fixture;

    /// vm-4node-norov: 16 CPUs, nodes {0-3}, {4,5}, {6,7}, {8-15}.
    fn planned(r: &RunRequest) -> Result<RunPlan, PlanError> {
        plan(r, fixture("vm-4node-norov"))
    }

    #[test]
    fn every_strategy_axis_needs_a_choice() {
        let empty: [fn(&mut StrategyChoice); 4] = [
            |c| c.levels.clear(),
            |c| c.policies.clear(),
            |c| c.pads.clear(),
            |c| c.clocks.clear(),
        ];
        for clear in empty {
            let mut r = request();
            clear(&mut r.strategies);
            assert!(matches!(planned(&r), Err(PlanError::NoStrategy)));
        }
        let p = planned(&request()).unwrap();
        let names: Vec<String> = p.strategies.iter().map(|s| s.name()).collect();
        assert_eq!(
            names,
            request()
                .strategies
                .strategies()
                .iter()
                .map(|s| s.name())
                .collect::<Vec<_>>()
        );
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn readers_take_cpus_from_the_writers_unless_oversubscribed() {
        let mut r = request();
        let p = planned(&r).unwrap();
        assert_eq!(p.config.writer_cpus.len(), 16);
        assert!(p.config.reader_cpus.is_empty());
        r.pools.readers = Some(PoolSize::Count(4));
        let p = planned(&r).unwrap();
        assert_eq!(
            (p.config.writer_cpus.len(), p.config.reader_cpus.len()),
            (12, 4)
        );
        assert!(
            p.notes.iter().all(|n| !n.starts_with("oversubscribed")),
            "{:?}",
            p.notes
        );
        // Oversubscribed: 16 writers and 4 readers on 16 CPUs, said so.
        r.pools.oversubscribe = true;
        let p = planned(&r).unwrap();
        assert_eq!(
            (p.config.writer_cpus.len(), p.config.reader_cpus.len()),
            (16, 4)
        );
        assert!(
            p.notes.contains(
                &"oversubscribed: 20 threads share 16 CPUs; numbers include time-slicing"
                    .to_string()
            ),
            "{:?}",
            p.notes
        );
        // Allowed to oversubscribe but not doing it: no note.
        r.pools.readers = None;
        let p = planned(&r).unwrap();
        assert!(
            p.notes.iter().all(|n| !n.starts_with("oversubscribed")),
            "{:?}",
            p.notes
        );
    }

    #[test]
    fn changes_are_shown_against_the_first_level_when_global_is_not_first() {
        let note = "changes are shown against node, the first --level";
        let mut r = request();
        for (levels, noted) in [
            (vec![ShardLevel::Node, ShardLevel::Global], true),
            (vec![ShardLevel::Global, ShardLevel::Node], false),
            (vec![ShardLevel::Node], false),
        ] {
            r.strategies.levels = levels;
            let p = planned(&r).unwrap();
            assert_eq!(p.notes.iter().any(|n| n == note), noted, "{:?}", p.notes);
        }
    }

    #[test]
    fn repeats_split_the_duration_down_to_a_millisecond() {
        let mut r = request();
        r.duration = Duration::from_millis(10);
        r.repeats = 10;
        let p = planned(&r).unwrap();
        assert_eq!(p.config.repeat_duration_s, 0.001);
        assert_eq!(p.repeat_duration(), Duration::from_millis(1));
        r.repeats = 11;
        assert!(matches!(
            planned(&r),
            Err(PlanError::RepeatTooShort { repeats: 11, .. })
        ));
    }

    #[test]
    fn sampling_sets_the_timer_overhead_and_the_probes() {
        let mut r = request();
        let p = planned(&r).unwrap();
        assert_eq!(
            p.notes.iter().any(|n| n == TSC_FALLBACK_NOTE),
            !p.provenance.tsc_invariant
        );
        assert_eq!(p.config.sample_every, 1024);
        assert!(p.config.staleness_probes);
        assert!(p.overhead_ticks > 0);
        // The overhead in ns is its ticks at the timer's rate.
        let ns = p.overhead_ticks as f64 * p.timer().ns_per_tick();
        assert!((p.config.timer_overhead_ns - ns).abs() <= 1e-9 * ns);
        r.sample_every = Some(0);
        let p = planned(&r).unwrap();
        assert_eq!((p.overhead_ticks, p.config.timer_overhead_ns), (0, 0.0));
        assert!(!p.config.staleness_probes);
    }
}
