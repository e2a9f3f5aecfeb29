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
use crate::placement::PlacementError;
use crate::provenance::Provenance;
use crate::stats::quantile_of;
use crate::topology::{MemoryNodeError, Topology};
use crate::units::human_s;
use crate::workload::{
    MAX_STEP, Regime, SEED_THRESHOLD_PUBLISHES, Startup, StepError, measure_startup,
};
use serde::{Deserialize, Serialize};
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
#[derive(Debug, Clone, Default, PartialEq)]
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
#[derive(Debug, Clone, Default, PartialEq)]
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
    /// `--placement node:N` names a node without usable memory.
    #[error("--placement node:{node}: {source}")]
    MemoryNode {
        /// The node.
        node: u32,
        /// Why memory cannot go there.
        source: MemoryNodeError,
    },
    /// A strategy list is empty.
    #[error("--level and --publish each need at least one level and one policy")]
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
        "--rate sample:1 times every paced operation, and a timed operation's clock reads are inside its busy window, so none is left to measure busy time on: use 2 or more (or 0 for none)"
    )]
    EverySampled,
    /// A sweep's `--threads` is empty.
    #[error("--threads needs at least one value")]
    NoThreadCounts,
    /// A sweep's `--rates` (or run's `--rate`) is empty.
    #[error("--rate needs at least one regime (a rate such as 22k, or max)")]
    NoRates,
    /// A sweep's `--threads` holds 0.
    #[error("--threads 0: every point needs at least 1 writer thread")]
    ZeroThreads,
    /// `--threshold-publishes` asks for a fraction no load walk gives.
    #[error("--publish walks: {0}")]
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
    // The regimes in the order asked, each once.
    let rates = super::first_seen(request.rates.iter().copied());
    if rates.is_empty() {
        return Err(PlanError::NoRates);
    }
    let c = &request.strategies;
    if c.levels.is_empty() || c.policies.is_empty() || c.pads.is_empty() || c.clocks.is_empty() {
        return Err(PlanError::NoStrategy);
    }
    // Timing every paced operation leaves none to measure busy time on.
    let explicit = request.sample_every;
    if explicit == Some(1) && rates.iter().any(|r| r.is_paced()) {
        return Err(PlanError::EverySampled);
    }
    let every_by_rate: Vec<u64> = rates.iter().map(|&r| sample_every(explicit, r)).collect();
    if let Some(node) = request.counter_node {
        topo.check_memory_node(node)
            .map_err(|source| PlanError::MemoryNode { node, source })?;
    }
    let mut notes = Vec::new();
    let cpus = place_pools(&topo, &request.pools, &mut notes)?;
    let levels = &request.strategies.levels;
    let first = levels[0];
    if levels.contains(&ShardLevel::Global) && first != ShardLevel::Global {
        notes.push(format!(
            "changes are shown against {first}, the first --level"
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
    let sampled = every_by_rate.iter().any(|&e| e > 0);
    let overhead_ticks = if sampled { timer.overhead_ticks() } else { 0 };
    let config = RunConfig {
        read_every: request.read_every,
        sample_every: every_by_rate[0],
        staleness_probes: every_by_rate[0] > 0,
        rates,
        sample_every_by_rate: every_by_rate,
        repeat_duration_s: repeat_duration.as_secs_f64(),
        warmup_s: request.warmup.as_secs_f64(),
        warmup_asked_s: request.warmup.as_secs_f64(),
        repeats: request.repeats as usize,
        seed: request.seed,
        threshold_publishes: Some(SEED_THRESHOLD_PUBLISHES),
        load_step: Some(MAX_STEP),
        timer: timer.kind(),
        timer_overhead_ns: overhead_ticks as f64 * timer.ns_per_tick(),
        target_ci_pct: request.target_ci_pct,
        max_time_s: request.max_time.map(|d| d.as_secs_f64()),
        placement: request.placement,
        oversubscribe: request.pools.oversubscribe,
        counter_node: request.counter_node,
        node_iter: request.node_iter,
        paced: PacedMode::InPlace,
        in_place: Vec::new(),
        inject: None,
        writer_cpus: cpus.writers,
        reader_cpus: cpus.readers,
        clipped: cpus.clipped,
    };
    Ok(RunPlan {
        topo,
        config,
        strategies: request.strategies.strategies(),
        overhead_ticks,
        provenance,
        notes,
    })
}

/// The pools' CPUs on `topo`, with a note for each spec clipped and for
/// threads sharing CPUs.
fn place_pools(
    topo: &Topology,
    asked: &Pools,
    notes: &mut Vec<String>,
) -> Result<PoolCpus, PlanError> {
    let cpus = pools(topo, asked)?;
    notes.extend(cpus.clipped.iter().map(ToString::to_string));
    let threads = cpus.writers.len() + cpus.readers.len();
    let distinct: BTreeSet<u32> = cpus.writers.iter().chain(&cpus.readers).copied().collect();
    if asked.oversubscribe && threads > topo.allowed_cpus.len().min(distinct.len()) {
        notes.push(format!(
            "oversubscribed: {threads} threads share {} CPUs; numbers include time-slicing",
            distinct.len()
        ));
    }
    Ok(cpus)
}

/// What a repeat costs that the start-up probe and the canaries leave
/// out, s: a fresh node-bound counter per strategy (and its floor's),
/// zeroed histograms, the repeat's results folded (a study of 15 s on
/// this 2-vCPU VM ran past its run stage's budget without it).
pub const REPEAT_OVERHEAD_S: f64 = 0.03;

/// Times [`HostCosts::for_cpus`] starts the pool.
pub const PROBES: usize = 3;
// An odd count: the median is one probe's figure, never the mean of two.
const _: () = assert!(PROBES % 2 == 1);

/// A warm-up lasts at least this many times the start-up spread (the
/// longest a busy thread took to hear a phase change, [`Startup`]), so
/// that every thread has had its turn since the start before the
/// interval starts.
pub const WARMUP_SPREADS: f64 = 1.0;

/// A repeat's interval shorter than this many times the start-up spread
/// may pass while a thread waits for its turn: the thread then never
/// sees it start and is left out of the repeat's rates, which the plan
/// says before anything runs.
pub const INTERVAL_SPREADS: f64 = 2.0;

/// What a repeat costs on a host besides its warm-up and interval,
/// measured before anything is: the pool's start-up ([`Startup`]) and the
/// canary before and after each repeat, whose ping-pong also prices the
/// lines. A plan for a topology that is not this host's (a dry run on a
/// fixture) gets this host's figures with the start-up scaled to its
/// threads, and says so.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct HostCosts {
    /// The pool's start-up, for the plan's threads.
    pub startup: Startup,
    /// The CPUs of this host the start-up was measured on, for a plan
    /// of a topology that is not this host's (`None`: measured on the
    /// plan's own CPUs).
    pub scaled_from: Option<usize>,
    /// The canaries before and after one repeat, s.
    pub canary_s: f64,
    /// Their median one-way ns, which prices a line's ping-pong too
    /// (`None` with fewer than two CPUs).
    pub one_way_ns: Option<f64>,
}

/// Each start-up figure's median over `probes` of `threads` threads: a lone slow spawn (the first
/// may take ten times the next) moves none of them.
fn median_startup(probes: &[Startup], threads: usize) -> Startup {
    let median =
        |f: fn(&Startup) -> f64| quantile_of(&probes.iter().map(f).collect::<Vec<_>>(), 0.5);
    Startup {
        threads,
        start_s: median(|s| s.start_s),
        spread_s: median(|s| s.spread_s),
        stop_s: median(|s| s.stop_s),
    }
}

impl HostCosts {
    /// Measured for threads on `cpus` of `topo`: on those CPUs when `topo` is this host's
    /// (`is_live`), else on as many of this host's allowed CPUs (read from `/`). A pool is started
    /// on them [`PROBES`] times (the median figures kept: a lone first spawn may take ten times the
    /// next) and scaled to `cpus`' count ([`Startup::scaled`]); the canary runs on the first two.
    pub fn for_cpus(
        topo: &Topology,
        is_live: bool,
        cpus: &[u32],
        placement: Placement,
    ) -> Result<Self, super::RunError> {
        let here;
        let live = if is_live {
            topo
        } else {
            here = Topology::read(std::path::Path::new("/"))
                .map_err(|e| super::RunError::Request(format!("this host's topology: {e}")))?;
            &here
        };
        let on = super::first_seen(if is_live {
            cpus.to_vec()
        } else {
            live.allowed_cpus.iter().take(cpus.len()).collect()
        });
        let invariant = crate::clock::host_tsc_is_invariant();
        let timer = Timer::for_host(invariant, calibrate_tsc(Duration::from_millis(20)));
        let probes = (0..PROBES)
            .map(|_| measure_startup(&on, &live.allowed_cpus, placement))
            .collect::<Result<Vec<_>, PlacementError>>()?;
        let canary = match on[..] {
            [a, b, ..] => crate::runner::interference::canary(a, b, live, timer).map(|c| {
                let after = crate::runner::interference::canary_after(a, b);
                (c.ms + after.map_or(0.0, |x| x.1), c.ns)
            }),
            _ => None,
        };
        Ok(HostCosts {
            startup: median_startup(&probes, on.len()).scaled(cpus.len()),
            scaled_from: (!is_live).then_some(on.len()),
            canary_s: canary.map_or(0.0, |c| c.0 * 1e-3),
            one_way_ns: canary.map(|c| c.1),
        })
    }
}

/// What a planned run is expected to take and hold, before it runs: its
/// repeats at the measured [`HostCosts`], and the memory its pools and
/// counters hold at once.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEstimate {
    /// What one repeat costs besides warm-up and interval.
    pub costs: HostCosts,
    /// Threads a repeat starts.
    pub threads: usize,
    /// Repeats a round runs (a flat-out strategy one, a paced group in
    /// place one).
    pub runs_per_round: usize,
    /// Strategies at most in one repeat (a paced group in place).
    pub lanes: usize,
    /// Rounds planned (`--repeats`), before `--target-ci` adds any.
    pub rounds: usize,
    /// One repeat all told, s: start-up, warm-up, interval, the
    /// canaries, each strategy's lines priced before and after.
    pub repeat_s: f64,
    /// The harness floor before the rounds (flat out), s.
    pub floor_s: f64,
    /// The planned rounds and the floor, s.
    pub wall_s: f64,
    /// Memory the run holds at once, bytes: each thread's two latency
    /// histograms per strategy in place and its load walk, the counters.
    pub memory_bytes: u64,
}

impl RunPlan {
    /// What this plan is expected to take at `costs` ([`RunEstimate`]).
    pub fn estimate(&self, costs: HostCosts) -> RunEstimate {
        let cfg = &self.config;
        let threads = cfg.writer_cpus.len() + cfg.reader_cpus.len();
        let groups = self.groups();
        let runs = self.runs_per_round();
        let lanes = (0..runs)
            .map(|g| groups.iter().filter(|&&x| x == g).count())
            .max()
            .unwrap_or(1);
        let mean_lanes = groups.len() as f64 / runs.max(1) as f64;
        // Each strategy's lines are priced before and after its repeat,
        // up to two slots, by a ping-pong as the canaries' (their time
        // measured; their one-way median leaves out the slow chunks).
        let line_round_trips = 2.0 * super::repeat::LINE_ROUND_TRIPS as f64;
        let line_s = costs.canary_s * line_round_trips / CANARY_ROUND_TRIPS;
        let repeat_s = costs.startup.repeat_s()
            + REPEAT_OVERHEAD_S
            + cfg.warmup_s
            + cfg.repeat_duration_s
            + costs.canary_s
            + mean_lanes * 2.0 * line_s;
        let floor_s = if cfg.rates.contains(&Regime::FlatOut) {
            use super::floor::{FLOOR_INTERVAL, FLOOR_RUNS, FLOOR_WARMUP};
            let interval = cfg.repeat_duration_s.min(FLOOR_INTERVAL.as_secs_f64());
            FLOOR_RUNS as f64
                * (FLOOR_WARMUP.as_secs_f64()
                    + interval
                    + costs.startup.per_thread_s()
                    + costs.startup.spread_s)
        } else {
            0.0
        };
        let stride = self.strategies.iter().map(|s| s.pad.stride()).max();
        let memory_bytes =
            pool_memory_bytes(threads, cfg.writer_cpus.len(), lanes, stride.unwrap_or(0));
        RunEstimate {
            costs,
            threads,
            runs_per_round: runs,
            lanes,
            rounds: cfg.repeats,
            repeat_s,
            floor_s,
            wall_s: floor_s + (runs * cfg.repeats) as f64 * repeat_s,
            memory_bytes,
        }
    }

    /// This plan fitted to `costs`: the warm-up raised to
    /// [`WARMUP_SPREADS`] times the start-up spread where it is shorter
    /// (said in a note), and, where `--max-time` cannot hold every
    /// planned repeat at the estimated time, a note saying so before
    /// anything runs, and what would hold them. Returns the estimate.
    pub fn with_costs(mut self, costs: HostCosts) -> (Self, RunEstimate) {
        let (spread, threads) = (costs.startup.spread_s, costs.startup.threads);
        let least = WARMUP_SPREADS * spread;
        if self.config.warmup_s < least {
            let [from, to, took] = [self.config.warmup_s, least, spread].map(human_s);
            self.notes.push(format!(
                "warm-up raised from {from} to {to}: a busy thread here took up to {took} to hear a phase change ({threads} threads, measured before the run), and every thread must have run before the interval starts"
            ));
            self.config.warmup_s = least;
        }
        if self.config.repeat_duration_s < INTERVAL_SPREADS * spread {
            let (repeats, least) = (self.config.repeats as f64, INTERVAL_SPREADS * spread);
            let duration = (repeats * INTERVAL_SPREADS * spread * 10.0).ceil() / 10.0;
            let [interval, waited, each] =
                [self.config.repeat_duration_s, spread, least].map(human_s);
            self.notes.push(format!(
                "each repeat's {interval} interval is shorter than {INTERVAL_SPREADS} times the {waited} a busy thread here waited for its turn (measured): a thread that gets none in it is left out of the repeat's rates; --duration {duration:.1}s ({each} a repeat) would give every thread its turn"
            ));
        }
        let e = self.estimate(costs);
        if let Some(budget) = self.config.max_time_s.filter(|&b| e.wall_s > b) {
            let per_round = e.runs_per_round as f64 * e.repeat_s;
            let rounds = ((budget - e.floor_s) / per_round).floor().max(0.0);
            self.notes.push(format!(
                "--max-time {budget:.0} s cannot hold every planned repeat: {} repeats of about {} each (start-up of {} threads {}, warm-up {}, interval {}, canaries {}) take about {:.0} s, so about {rounds:.0} of {} rounds fit and the run will stop partial; --max-time {:.0}s would hold them (or lower --repeats or --duration)",
                e.runs_per_round * e.rounds,
                human_s(e.repeat_s),
                e.threads,
                human_s(costs.startup.repeat_s()),
                human_s(self.config.warmup_s),
                human_s(self.config.repeat_duration_s),
                human_s(costs.canary_s),
                e.wall_s,
                e.rounds,
                (e.wall_s * 1.1).ceil()
            ));
        }
        (self, e)
    }
}

/// Bytes a repeat's pools and counters hold at once: `threads` threads
/// each with two latency histograms (updates and reads) per strategy of
/// the `lanes` in place, each of the `writers` with its load walk, and
/// each lane's counter and floor with a slot per writer `stride` bytes
/// apart at most.
pub fn pool_memory_bytes(threads: usize, writers: usize, lanes: usize, stride: usize) -> u64 {
    let hist = crate::workload::new_histogram().distinct_values() * 8;
    let walk = crate::workload::TABLE_LEN * 4;
    (threads * lanes * 2 * hist + writers * walk + 2 * lanes * writers * stride) as u64
}

/// Round trips the canaries before and after a repeat take.
const CANARY_ROUND_TRIPS: f64 = (crate::runner::interference::CANARY_ROUND_TRIPS
    + crate::runner::interference::CANARY_AFTER_ROUND_TRIPS) as f64;

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
        strategies: StrategyChoice {
            levels: vec![ShardLevel::Global],
            policies: vec![PublishPolicy::ALWAYS],
            pads: vec![Pad::Line128],
            clocks: vec![ClockKind::Tsc],
        },
        duration: Duration::from_millis(20),
        repeats: 4,
        rates: vec![Regime::FlatOut],
        seed: 1,
        ..RunRequest::default()
    }
}

/// [`plan`] of `request` on this host.
#[cfg(test)]
pub(crate) fn plan_here(request: &RunRequest) -> RunPlan {
    plan(request, Topology::read(std::path::Path::new("/")).unwrap()).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::TSC_FALLBACK_NOTE;

    use super::example_request as request;
    use crate::runner::{PoolSize, near};

    #[test]
    fn start_up_keeps_each_figures_median_over_the_probes() {
        let probe = |start_s, spread_s, stop_s| Startup {
            threads: 2,
            start_s,
            spread_s,
            stop_s,
        };
        let probes = [
            probe(0.030, 1e-5, 5e-4),
            probe(0.003, 3e-5, 4e-4),
            probe(0.004, 2e-5, 6e-4),
        ];
        assert_eq!(median_startup(&probes, 2), probe(0.004, 2e-5, 5e-4));
    }

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
        assert_eq!(p.strategies, request().strategies.strategies());
        assert_eq!(p.strategies.len(), 1);
    }

    #[test]
    fn readers_take_cpus_from_the_writers_unless_oversubscribed() {
        let sizes = |p: &RunPlan| (p.config.writer_cpus.len(), p.config.reader_cpus.len());
        let oversubscribed = |p: &RunPlan| {
            let said = p.notes.iter().filter(|n| n.starts_with("oversubscribed"));
            said.cloned().collect::<Vec<_>>()
        };
        let mut r = request();
        assert_eq!(sizes(&planned(&r).unwrap()), (16, 0));
        r.pools.readers = Some(PoolSize::Count(4));
        let p = planned(&r).unwrap();
        assert_eq!((sizes(&p), oversubscribed(&p)), ((12, 4), vec![]));
        // Oversubscribed: 16 writers and 4 readers on 16 CPUs, said so.
        r.pools.oversubscribe = true;
        let p = planned(&r).unwrap();
        assert_eq!(sizes(&p), (16, 4));
        assert_eq!(
            oversubscribed(&p),
            ["oversubscribed: 20 threads share 16 CPUs; numbers include time-slicing"]
        );
        // Allowed to oversubscribe but not doing it: no note.
        r.pools.readers = None;
        assert!(oversubscribed(&planned(&r).unwrap()).is_empty());
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

    #[test]
    fn the_measured_start_up_sets_the_warm_up_and_the_budget_says_so_up_front() {
        // 16 writers, one strategy flat out, 4 repeats of 5 ms, no
        // warm-up asked; a start-up of 16 ms, a 10 ms spread, 16 ms to
        // stop, 20 ms of canaries.
        let mut r = request();
        r.max_time = Some(Duration::from_millis(300));
        let costs = HostCosts {
            startup: Startup {
                threads: 16,
                start_s: 0.016,
                spread_s: 0.010,
                stop_s: 0.016,
            },
            scaled_from: None,
            canary_s: 0.020,
            one_way_ns: Some(100.0),
        };
        let (p, e) = planned(&r).unwrap().with_costs(costs);
        // The warm-up is raised to the spread, and the 5 ms interval,
        // under twice it, is said to leave threads out.
        assert_eq!(p.config.warmup_s, 0.010);
        let said = |start: &str| p.notes.iter().find(|n| n.starts_with(start)).cloned();
        let raised = said("warm-up raised from 0 ns to 10.0 ms").unwrap();
        assert!(
            raised.contains("(16 threads, measured before the run)"),
            "{raised}"
        );
        let short =
            said("each repeat's 5.00 ms interval is shorter than 2 times the 10.0 ms").unwrap();
        assert!(
            short.ends_with("--duration 0.1s (20.0 ms a repeat) would give every thread its turn"),
            "{short}"
        );
        // By hand: a repeat is 42 ms of start-up, 30 ms besides, 10 + 5
        // ms, 20 ms of canaries and its lines priced twice at 2048 of the
        // canaries' 20,000 round trips (4.096 ms): 111.096 ms. The floor:
        // 3 × (10 + 5 ms, 2 ms to start and stop a thread, the 10 ms
        // spread).
        assert_eq!(
            (e.runs_per_round, e.lanes, e.rounds, e.threads),
            (1, 1, 4, 16)
        );
        near(e.repeat_s, 0.111_096, 1e-9);
        near(e.floor_s, 0.081, 1e-9);
        near(e.wall_s, 0.081 + 4.0 * 0.111_096, 1e-9);
        let hist = crate::workload::new_histogram().distinct_values() as u64 * 8;
        assert_eq!(e.memory_bytes, 16 * 2 * hist + 16 * 4096 * 4 + 2 * 16 * 128);
        // 0.525 s does not fit in 0.3 s: said before anything runs, with
        // the rounds that fit ((0.3 - 0.081) / 0.111096 = 1.97) and a
        // budget that would hold them.
        let over =
            said("--max-time 0 s cannot hold every planned repeat: 4 repeats of about 111 ms")
                .unwrap();
        assert!(over.contains("about 1 of 4 rounds fit"), "{over}");
        assert!(over.contains("--max-time 1s would hold them"), "{over}");
        // With a second to spend, and a warm-up and interval long enough,
        // nothing is said.
        r.max_time = Some(Duration::from_secs(1));
        r.warmup = Duration::from_millis(50);
        r.duration = Duration::from_millis(100);
        let (p, e) = planned(&r).unwrap().with_costs(costs);
        assert_eq!(p.config.warmup_s, 0.05);
        assert!(e.wall_s < 1.0);
        assert!(
            p.notes.iter().all(|n| !n.contains("--max-time")
                && !n.contains("warm-up")
                && !n.contains("interval")),
            "{:?}",
            p.notes
        );
    }
}
