//! The run's result model: what `contend run` measured, per strategy and per repeat, with the
//! summaries and provenance, serialised as run.json (schema in docs/results-schema.md). The
//! measures a summary holds are in `measures.rs`, a run's views of one regime in `regimes.rs`.

use super::in_place::{InPlaceGroup, PacedMode};
use crate::clock::{ClockKind, TimerKind};
use crate::counter::{NodeIter, Pad, PublishPolicy, ShardLevel, SlotInfo};
use crate::placement::Placement;
use crate::provenance::Provenance;
use crate::stats::{LatencySummary, Summary};
use crate::topology::{Clipped, CpuList, Topology};
use crate::workload::{Regime, Role};
use serde::{Deserialize, Serialize};

/// Version of the run.json layout, bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 4;

/// One counter strategy: shard level × publish policy × padding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Strategy {
    /// How finely the counter is split.
    pub level: ShardLevel,
    /// When writers publish.
    pub publish: PublishPolicy,
    /// Bytes between slots.
    pub pad: Pad,
    /// The clock a ratelimit reads (`None` when the policy reads none).
    pub clock: Option<ClockKind>,
}

impl Strategy {
    /// `level/policy/pad` (plus `/clock` when it reads one), as tables and errors name it.
    pub fn name(&self) -> String {
        let mut name = format!("{}/{}/pad{}", self.level, self.publish, self.pad);
        if let Some(c) = self.clock {
            name.push('/');
            name.push_str(c.name());
        }
        name
    }

    /// Its short name among `all`: `level/policy`, plus `/padN` or `/clock` only where another
    /// strategy of `all` differs in it ([`Strategy::name`] is the full name).
    pub fn short_name(&self, all: &[Strategy]) -> String {
        let twins = || {
            all.iter()
                .filter(|o| o.level == self.level && o.publish == self.publish)
        };
        let mut name = format!("{}/{}", self.level, self.publish);
        if twins().any(|o| o.pad != self.pad) {
            name.push_str(&format!("/pad{}", self.pad));
        }
        if let Some(c) = self
            .clock
            .filter(|_| twins().any(|o| o.clock != self.clock))
        {
            name.push('/');
            name.push_str(c.name());
        }
        name
    }
}

/// The run's settings, as resolved (CPU lists, not specs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// Writer CPUs, in pool order.
    pub writer_cpus: Vec<u32>,
    /// Reader CPUs, in pool order (empty: writers run the read side).
    pub reader_cpus: Vec<u32>,
    /// What `--clip` dropped from each CPU spec (empty when nothing was dropped).
    pub clipped: Vec<Clipped>,
    /// Writers run the read side every this many updates (0 = never).
    pub read_every: u32,
    /// Every regime the run measured, interleaved, in order.
    pub rates: Vec<Regime>,
    /// Measured time of each repeat, seconds.
    pub repeat_duration_s: f64,
    /// Warm-up before each repeat, seconds.
    pub warmup_s: f64,
    /// The warm-up asked for (`--warmup`), seconds.
    pub warmup_asked_s: f64,
    /// Repeats per strategy.
    pub repeats: usize,
    /// Seed of the load walks.
    pub seed: u64,
    /// The fraction of updates `threshold:64` publishes that the load walks were made for
    /// (`--threshold-publishes`).
    pub threshold_publishes: Option<f64>,
    /// The largest step of the writers' load walks that gives it, load units per 1024 of load.
    pub load_step: Option<i64>,
    /// One operation in this many is timed (0 = sampling off), in the first regime.
    pub sample_every: u64,
    /// `sample_every` of each regime of `rates`, in order.
    pub sample_every_by_rate: Vec<u64>,
    /// The per-operation stopwatch: "tsc" or "monotonic" (when the TSC is not invariant).
    pub timer: TimerKind,
    /// Timer overhead subtracted from each sample, ns.
    pub timer_overhead_ns: f64,
    /// `--target-ci`: repeats were added until every strategy's 95% CI of loop ns/op was within
    /// this % of its mean (`None`: fixed repeats).
    pub target_ci_pct: Option<f64>,
    /// `--max-time`: the run's time budget, seconds (`None`: none).
    pub max_time_s: Option<f64>,
    /// True when staleness was probed.
    pub staleness_probes: bool,
    /// Strict or best-effort placement.
    pub placement: Placement,
    /// Threads may share CPUs.
    pub oversubscribe: bool,
    /// `--counter-node`, if given (else slots are local).
    pub counter_node: Option<u32>,
    /// How node-level readers walk slots.
    pub node_iter: NodeIter,
    /// `--paced`: paced strategies in place in every repeat, or each in repeats of its own.
    pub paced: PacedMode,
    /// The groups of paced strategies that ran in place in the same repeats, so their repeats of
    /// one index pair (empty flat out and alone).
    pub in_place: Vec<InPlaceGroup>,
    /// `--inject`: a known cost added to every update of every strategy (`None`: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inject: Option<Injection>,
}

/// A known cost added to every update of every strategy, inside its measured window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Injection {
    /// The cost asked for, ns per update.
    pub ns: f64,
    /// Multiplies in the delay's chain: the count nearest `ns` at calibration.
    pub iterations: u64,
    /// What one multiply took at calibration, ns.
    pub ns_per_iteration: f64,
    /// The regime the floor priced it in.
    #[serde(rename = "floor_rate")]
    pub floor: Regime,
    /// What the delay added to the harness floor's loop in that regime, ns per update.
    pub on_floor: Option<Summary>,
}

impl RunConfig {
    /// The index of the group `s` ran in place in, among [`RunConfig::in_place`].
    pub fn group_of(&self, s: &StrategyResult) -> Option<usize> {
        self.in_place
            .iter()
            .position(|g| g.regime == s.regime && g.strategies.contains(&s.name))
    }

    /// One operation in how many is timed in `regime`: its entry of `sample_every_by_rate`, else
    /// `sample_every`.
    pub fn sample_every_of(&self, regime: Regime) -> u64 {
        let i = self.rates.iter().position(|r| *r == regime);
        (i.and_then(|i| self.sample_every_by_rate.get(i)).copied()).unwrap_or(self.sample_every)
    }
}

/// Where one thread ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadPlacement {
    /// Writer or reader.
    pub role: Role,
    /// The CPU it was pinned to.
    pub cpu: u32,
    /// What `sched_getcpu` said after pinning.
    pub observed_cpu: Option<u32>,
    /// Pin verified.
    pub verified: bool,
    /// The node of its CPU.
    pub node: u32,
    /// The node of the slot it writes (writers).
    pub slot_node: Option<u32>,
}

/// How stale the shared sum was as readers saw it: at sampled operations.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Staleness {
    /// Probes taken (0: staleness was not measured, sampling off).
    pub probes: u64,
    /// Mean |published − true|, load units.
    pub error_mean: f64,
    /// Largest |published − true|, load units.
    pub error_max: f64,
    /// Mean of |published − true| as % of the true total at each probe.
    pub error_mean_pct: f64,
    /// Largest such percentage.
    pub error_max_pct: f64,
    /// Mean age of the oldest unpublished change at a probe, ns.
    pub age_mean_ns: f64,
    /// Largest such age, ns.
    pub age_max_ns: f64,
}

/// What could have disturbed one repeat (see `runner::interference`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Interference {
    /// Steal time of the run's CPUs during the repeat, ms (`None`: not readable).
    pub steal_ms: Option<f64>,
    /// Involuntary context switches of the measured threads during the interval.
    pub involuntary_switches: u64,
    /// The canary before the repeat: median one-way CAS ping-pong ns between two of the run's CPUs.
    pub canary_ns: Option<f64>,
    /// The canary after the repeat, on the same pair.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canary_after_ns: Option<f64>,
    /// What the canaries took, ms (before and after).
    pub canary_ms: Option<f64>,
    /// Each coherence transaction timed on the canary's pair right after its ping-pong, with its
    /// ratio to it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub canary_transactions: Vec<crate::matrix::TransactionCost>,
    /// A canary (before or after) read more than 1.5× away from the run's median.
    pub disturbed: bool,
    /// Paced: the stalls each thread's pacer set aside.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stalls: Vec<ThreadStalls>,
}

/// The stalls one paced thread set aside during one repeat's interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadStalls {
    /// The thread's CPU.
    pub cpu: u32,
    /// Stalls.
    pub count: u64,
    /// Time lost to them, ms.
    pub ms: f64,
}

/// The canaries of some repeats: median, smallest and largest, ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CanaryRange {
    /// Median one-way ns.
    pub median: f64,
    /// Smallest.
    pub lo: f64,
    /// Largest.
    pub hi: f64,
    /// Canaries taken.
    pub count: usize,
}

impl CanaryRange {
    /// The range of the canaries these records hold, before and after their repeats.
    pub fn of<'a>(records: impl Iterator<Item = &'a Interference>) -> Option<Self> {
        let c: Vec<f64> = records
            .flat_map(|i| [i.canary_ns, i.canary_after_ns])
            .flatten()
            .collect();
        Some(CanaryRange {
            median: crate::stats::quantile_of(&c, 0.5),
            lo: c.iter().copied().reduce(f64::min)?,
            hi: c.iter().copied().reduce(f64::max)?,
            count: c.len(),
        })
    }
}

/// One repeat of one strategy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepeatResult {
    /// 0-based repeat number.
    pub repeat: usize,
    /// Mean of the threads' measured intervals, seconds.
    pub interval_s: f64,
    /// Updates per writer thread, in pool order.
    pub writer_updates: Vec<u64>,
    /// Read-side operations per writer thread.
    pub writer_reads: Vec<u64>,
    /// Reads per reader thread.
    pub reader_reads: Vec<u64>,
    /// Lines fetched by each writer thread's read sides.
    pub writer_read_fetches: Vec<u64>,
    /// Lines fetched by each reader thread's reads.
    pub reader_read_fetches: Vec<u64>,
    /// Lines fetched per read side, all threads (`None` without reads).
    pub fetches_per_read: Option<f64>,
    /// Updates per second, all writers.
    pub write_ops_per_s: f64,
    /// Read-side operations per second, all threads.
    pub read_ops_per_s: f64,
    /// Slowest writer's updates per second (fairness).
    pub write_ops_per_s_thread_min: f64,
    /// Fastest writer's updates per second.
    pub write_ops_per_s_thread_max: f64,
    /// Sampled update latency.
    pub write_latency: Option<LatencySummary>,
    /// Sampled read-side latency.
    pub read_latency: Option<LatencySummary>,
    /// Atomic adds to shared slots during the interval.
    pub publishes: u64,
    /// `publishes` per second.
    pub publishes_per_s: f64,
    /// Publishes by a writer whose slot is on another node than its CPU.
    pub cross_node_publishes: u64,
    /// How stale the shared value got, as readers saw it.
    pub staleness: Staleness,
    /// ns per writer loop iteration from throughput: writers × interval ÷ updates.
    pub write_loop_ns: f64,
    /// ns per read of reader threads from throughput: readers × interval ÷ reads.
    pub reader_read_ns: Option<f64>,
    /// Busy ns per writer loop iteration.
    pub write_busy_ns: f64,
    /// Busy ns per reader-thread read (`None` without readers).
    pub reader_busy_ns: Option<f64>,
    /// Mean over measured threads of busy ns per operation × operations ÷ interval, %.
    pub cpu_share_pct: f64,
    /// Paced: the floor in place's busy ns per writer loop iteration, as `write_busy_ns` is.
    pub floor_busy_ns: Option<f64>,
    /// Paced: the floor's CPU share in place, %, as `cpu_share_pct`.
    pub floor_cpu_share_pct: Option<f64>,
    /// With `--rate`: the slowest thread's achieved rate as % of the rate asked for.
    pub achieved_rate_min_pct: Option<f64>,
    /// With `--rate`: the slowest thread's operations as % of the arrivals that fell due in its
    /// interval (run, or skipped after stalls): the pacer's accuracy whatever the arrivals.
    pub arrivals_run_min_pct: Option<f64>,
    /// Pacer slots skipped after stalls longer than the catch-up bound, over threads.
    pub missed_slots: u64,
    /// Publishes that found another writer's add on their slot since their writer's last one.
    pub handovers: u64,
    /// `handovers` per second.
    pub handovers_per_s: f64,
    /// Publishes per hand-over: how many updates a writer makes while it owns the line.
    pub updates_per_ownership: Option<f64>,
    /// How far the sampled figures of a writer loop (sampled update mean + sampled read mean ×
    /// reads per update) are from `write_loop_ns`, as % of it; `None` without samples.
    pub sampled_vs_throughput_pct: Option<f64>,
    /// One-way ns of a CAS ping-pong between the canary's CPUs on this repeat's own counter lines,
    /// the lower of before and after: what a hand-over of the lines this repeat drew costs.
    pub line_ns: Option<f64>,
    /// What could have disturbed it.
    pub interference: Interference,
    /// Each node's writers, when the writers span two or more nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<NodeRepeat>,
    /// CPUs of threads that never saw the measured interval start.
    pub outside_window: Vec<u32>,
    /// What the counter read after every writer flushed.
    pub final_sum: i64,
    /// The sum of the writers' final loads.
    pub expected_sum: i64,
    /// `final_sum == expected_sum`.
    pub exact: bool,
}

/// One node's writers in one repeat.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NodeRepeat {
    /// The node of these writers' CPUs.
    pub node: u32,
    /// Writers on it that saw the measured interval.
    pub writers: usize,
    /// Some of them publish to a slot whose memory is on another node.
    pub remote: bool,
    /// Their cost per update, ns, in the regime's measure: flat out, loop ns/op from throughput.
    pub cost_ns: Option<f64>,
}

/// One node's writers over a strategy's repeats.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NodeSummary {
    /// The node of these writers' CPUs.
    pub node: u32,
    /// The counter's memory is remote to some of them ([`NodeRepeat::remote`]).
    pub remote: bool,
    /// Their cost per update over the repeats used, ns ([`NodeRepeat::cost_ns`]).
    pub cost_ns: Summary,
}

/// Summaries of one strategy over its repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StrategySummary {
    /// Updates per second, all writers.
    pub write_ops_per_s: Summary,
    /// Read-side operations per second, all threads.
    pub read_ops_per_s: Summary,
    /// Mean sampled update latency, ns.
    pub write_ns: Option<Summary>,
    /// Mean sampled read-side latency, ns.
    pub read_ns: Option<Summary>,
    /// Median sampled update latency, ns.
    pub write_p50_ns: Option<Summary>,
    /// Median sampled read-side latency, ns.
    pub read_p50_ns: Option<Summary>,
    /// Publishes per second.
    pub publishes_per_s: Summary,
    /// Mean staleness error as readers saw it, % of the true total, over the repeats that probed.
    pub error_mean_pct: Option<Summary>,
    /// Mean age of the oldest unpublished change, ns, likewise.
    pub age_mean_ns: Option<Summary>,
    /// ns per writer loop iteration from throughput.
    pub write_loop_ns: Option<Summary>,
    /// ns per reader-thread read from throughput.
    pub reader_read_ns: Option<Summary>,
    /// Sampled vs throughput-derived writer loop time, %.
    pub sampled_vs_throughput_pct: Option<Summary>,
    /// Busy ns per writer loop iteration.
    pub write_busy_ns: Option<Summary>,
    /// Busy ns per reader-thread read.
    pub reader_busy_ns: Option<Summary>,
    /// Share of each measured CPU busy with the counter's work, %.
    pub cpu_share_pct: Option<Summary>,
    /// Paced: the floor's busy ns per writer loop iteration, in place.
    pub floor_busy_ns: Option<Summary>,
    /// Paced: the floor's CPU share in place, %.
    pub floor_cpu_share_pct: Option<Summary>,
    /// Disturbed repeats left out of every figure above.
    pub set_aside: usize,
    /// Hand-overs of a slot's line between writers per second.
    pub handovers_per_s: Option<Summary>,
    /// Publishes per hand-over (see `RepeatResult::updates_per_ownership`).
    pub updates_per_ownership: Option<Summary>,
    /// Lines fetched per read side (see `RepeatResult::fetches_per_read`).
    pub fetches_per_read: Option<Summary>,
    /// What one update costs beyond the harness, ns: loop ns/op less the harness floor's.
    pub net_ns: Option<Summary>,
    /// Paced only: CPU share less the floor's in place in the same repeat, percentage points.
    pub net_cpu_share_pct: Option<Summary>,
    /// Slowest ÷ fastest writer's update rate (1 = fair), with 2+ writers.
    pub fairness: Option<Summary>,
    /// Each node's writers' cost per update, when the writers span two or more nodes and every
    /// repeat used recorded it (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<NodeSummary>,
}

/// Everything measured for one strategy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StrategyResult {
    /// What was measured.
    pub strategy: Strategy,
    /// `strategy.name()`, for readers of the JSON.
    pub name: String,
    /// The regime it was measured in (the file's `rate`: ops/s per thread, or `null` flat out).
    #[serde(rename = "rate")]
    pub regime: Regime,
    /// Every slot's owner and verified node.
    pub slots: Vec<SlotInfo>,
    /// Positions one read of the counter examines, as counted by walking it the way a read does.
    pub read_steps: Option<usize>,
    /// Bytes between the first two slots' addresses, read from the counter's memory.
    pub slot_stride_bytes: Option<usize>,
    /// Where every thread ran (from the first repeat).
    pub threads: Vec<ThreadPlacement>,
    /// Cost of one read of the ratelimit clock, ns (ratelimited policies).
    pub clock_read_ns: Option<f64>,
    /// Each repeat's raw numbers.
    pub repeats: Vec<RepeatResult>,
    /// Under `--paced both`: the strategy alone, one repeat a round, under its in-place repeat's
    /// index.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alone_repeats: Vec<RepeatResult>,
    /// Over the repeats; `None` if no repeat finished.
    pub summary: Option<StrategySummary>,
    /// Every repeat's final sum was exact.
    pub exact: bool,
    /// With `--target-ci`: whether its CI came within the target (`None` without a target).
    pub converged: Option<bool>,
    /// Paced: rounds measured again because a round was disturbed.
    pub retries: usize,
}

/// Why a result is partial: what stopped it before its last repeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// Ctrl-C or SIGTERM.
    Interrupted,
    /// Its time budget (`--max-time`): no repeat starts that would end past it.
    OutOfTime,
}

impl Stopped {
    /// `partial` and `out_of_time` as a result file records them.
    pub fn of(partial: bool, out_of_time: bool) -> Option<Stopped> {
        match (partial, out_of_time) {
            (false, _) => None,
            (true, false) => Some(Stopped::Interrupted),
            (true, true) => Some(Stopped::OutOfTime),
        }
    }
}

impl std::fmt::Display for Stopped {
    /// `interrupted`, or `out of time (--max-time)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stopped::Interrupted => "interrupted",
            Stopped::OutOfTime => "out of time (--max-time)",
        })
    }
}

impl StrategyResult {
    /// Keeps one finished repeat of it: among `repeats`.
    pub fn keep(&mut self, repeat: RepeatResult, alone: bool) {
        self.exact &= repeat.exact;
        if alone {
            self.alone_repeats.push(repeat);
        } else {
            self.repeats.push(repeat);
        }
    }

    /// Its name, with its regime when paced (`global/always/pad128 paced at 22.0k/s per thread`).
    pub fn label(&self) -> String {
        self.regime.label(&self.name)
    }
}

/// A whole `contend run`: run.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResults {
    /// [`SCHEMA_VERSION`].
    pub schema: u32,
    /// True when Ctrl-C or the time budget stopped the run: only finished repeats are kept.
    pub partial: bool,
    /// True when the time budget (`config.max_time_s`) stopped it before every planned repeat ran.
    pub out_of_time: bool,
    /// The settings.
    pub config: RunConfig,
    /// Where and with what it ran.
    pub provenance: Provenance,
    /// The host layout used.
    pub topology: Topology,
    /// What the harness loop costs with no shared write, flat out.
    pub floor: Option<HarnessFloor>,
    /// Per paced regime, its clock floors.
    pub paced_floors: Vec<StrategyResult>,
    /// Per strategy, in the order run.
    pub strategies: Vec<StrategyResult>,
    /// Fallbacks and warnings printed during the run.
    pub notes: Vec<String>,
}

/// The harness floor: the same writer loop on one thread, flat out, with no shared write (policy
/// `never`) and the read side on a slot nobody else touches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HarnessFloor {
    /// The CPU it ran on (the first writer's).
    pub cpu: u32,
    /// ns per loop iteration from throughput, over the floor's runs.
    pub loop_ns: Summary,
}

/// A strategy whose final sum was not the exact total of the writers' loads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{strategy}: final sum {final_sum} != exact total {expected_sum} (counter lost or invented load)"
)]
pub struct InexactSum {
    /// The strategy's name.
    pub strategy: String,
    /// What the counter read after every writer flushed.
    pub final_sum: i64,
    /// The sum of the writers' final loads.
    pub expected_sum: i64,
}

impl RunResults {
    /// Why it is partial, if it is.
    pub fn stopped(&self) -> Option<Stopped> {
        Stopped::of(self.partial, self.out_of_time)
    }

    /// Who ran where, in words: `2 writers on CPUs 0-1 (node 0), each running the read side after
    /// every update` (or the readers' CPUs and nodes, or no read side).
    pub fn pools_text(&self) -> String {
        let cfg = &self.config;
        let pool = |n: &str, cpus: &[u32]| {
            let nodes: CpuList = cpus
                .iter()
                .filter_map(|&c| self.topology.node_of_cpu(c))
                .collect();
            let list: CpuList = cpus.iter().copied().collect();
            let (n, node) = match (cpus.len(), nodes.len()) {
                (1, _) => (n.trim_end_matches('s'), "node"),
                (_, 1) => (n, "node"),
                _ => (n, "nodes"),
            };
            format!("{} {n} on CPUs {list} ({node} {nodes})", cpus.len())
        };
        let readers = match (cfg.reader_cpus.is_empty(), cfg.read_every) {
            (false, _) => format!(", {}", pool("readers", &cfg.reader_cpus)),
            (true, 0) => ", no read side".to_string(),
            (true, 1) => ", each running the read side after every update".to_string(),
            (true, k) => format!(", each running the read side every {k} updates"),
        };
        pool("writers", &cfg.writer_cpus) + &readers
    }

    /// The injected cost in words: `+20 ns per update injected (24 multiplies of 0.83 ns; on the
    /// harness floor +19.8 ±0.3 ns, 95% CI)`; `None` without one.
    pub fn inject_text(&self) -> Option<String> {
        let i = self.config.inject?;
        let floor = i
            .on_floor
            .map_or("not measured on the floor".to_string(), |s| {
                let (regime, mean, half) = (i.floor, s.mean, (s.ci95_high - s.ci95_low) / 2.0);
                format!("on the harness floor {regime} {mean:+.1} ±{half:.1} ns, 95% CI")
            });
        Some(format!(
            "{:+} ns per update injected ({} multiplies of {:.2} ns; {floor})",
            i.ns, i.iterations, i.ns_per_iteration
        ))
    }

    /// The writers' load walks in words.
    pub fn load_text(&self) -> Option<String> {
        let (f, step) = (self.config.threshold_publishes?, self.config.load_step?);
        Some(format!(
            "threshold:64 publishes {} of updates (steps up to ±{step} per 1024 of load)",
            crate::units::human(100.0 * f, crate::units::Unit::Percent)
        ))
    }

    /// The short name of `strategy`, one of this run's ([`Strategy::short_name`] among them all).
    pub fn short_name(&self, strategy: &StrategyResult) -> String {
        let all: Vec<Strategy> = self.strategies.iter().map(|s| s.strategy).collect();
        strategy.strategy.short_name(&all)
    }

    /// Every strategy's short name ([`RunResults::short_name`]), in `strategies` order.
    pub fn short_names(&self) -> Vec<String> {
        self.strategies.iter().map(|s| self.short_name(s)).collect()
    }

    /// The short label of `strategy`: its short name, with its regime when paced.
    pub fn short_label(&self, strategy: &StrategyResult) -> String {
        strategy.regime.label(&self.short_name(strategy))
    }

    /// The repeats its strategies used for their cost figures.
    pub fn repeats_text(&self) -> String {
        let done = || self.strategies.iter().filter(|s| s.summary.is_some());
        let used: Vec<usize> = done()
            .map(|s| {
                super::cost_measure(s.regime)
                    .of(s)
                    .map_or(s.repeats.len(), |m| m.n)
            })
            .collect();
        let set_aside: usize = done()
            .filter_map(|s| s.summary.as_ref().map(|m| m.set_aside))
            .sum();
        let [lo, hi] = [used.iter().min(), used.iter().max()].map(|n| n.copied().unwrap_or(0));
        let range = if lo == hi {
            lo.to_string()
        } else {
            format!("{lo}-{hi}")
        };
        let plural = if hi == 1 { "" } else { "s" };
        match set_aside {
            0 => format!("{range} repeat{plural}"),
            k => format!("{range} repeat{plural} ({k} set aside as disturbed)"),
        }
    }

    /// One record for each repeat the runner ran, of `regime`.
    pub fn repeats_run(&self, regime: Option<Regime>) -> Vec<&RepeatResult> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for s in &self.strategies {
            if regime.is_some_and(|r| r != s.regime) {
                continue;
            }
            let group = self.config.group_of(s);
            for r in &s.repeats {
                if group.is_none_or(|g| seen.insert((g, r.repeat))) {
                    out.push(r);
                }
            }
            out.extend(&s.alone_repeats);
        }
        out
    }

    /// The first strategy (and its first repeat) whose final sum was not exact, if any.
    pub fn first_inexact(&self) -> Option<InexactSum> {
        let s = self.strategies.iter().find(|s| !s.exact)?;
        let r = s.repeats.iter().find(|r| !r.exact);
        Some(InexactSum {
            strategy: s.name.clone(),
            final_sum: r.map_or(0, |r| r.final_sum),
            expected_sum: r.map_or(0, |r| r.expected_sum),
        })
    }
}

/// Asserts `a` is within `eps` of `b`.
#[cfg(test)]
#[track_caller]
pub(crate) fn near(a: f64, b: f64, eps: f64) {
    assert!((a - b).abs() < eps, "{a} is not {b} ±{eps}");
}

/// tests/fixtures/results/run.json.
#[cfg(test)]
pub(crate) fn fixture_run() -> RunResults {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/run.json");
    match crate::results::read(&path).unwrap().1 {
        crate::results::ResultFile::Run(run) => *run,
        other => panic!("not a run: {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ClockKind;

    #[test]
    fn the_texts_say_what_ran_where_and_over_how_many_repeats() {
        assert_eq!(Stopped::Interrupted.to_string(), "interrupted");
        assert_eq!(Stopped::OutOfTime.to_string(), "out of time (--max-time)");
        // The fixture: two writers on CPUs 0 and 1 of node 0, the read side after every update (that
        // line is in tests/snapshots/report-run.txt); global/always and cpu/always flat out, 2
        // repeats each, none set aside.
        let mut run = fixture_run();
        run.config.read_every = 3;
        assert!(
            run.pools_text()
                .ends_with(", each running the read side every 3 updates")
        );
        run.config.read_every = 0;
        assert!(run.pools_text().ends_with(", no read side"));
        run.config.reader_cpus = vec![1];
        assert!(run.pools_text().ends_with(", 1 reader on CPUs 1 (node 0)"));
        // Flat out a label is the name; paced, the name and its regime.
        let mut s = run.strategies[0].clone();
        assert_eq!(s.label(), "global/always/pad128");
        assert_eq!(run.short_label(&s), "global/always");
        s.regime = Regime::SEED;
        assert_eq!(
            s.label(),
            "global/always/pad128 paced at 22.0k/s per thread"
        );
        assert_eq!(
            run.short_label(&s),
            "global/always paced at 22.0k/s per thread"
        );
        // Repeats used: one count, a range, one repeat, and those set aside.
        assert_eq!(run.repeats_text(), "2 repeats");
        let used = |run: &mut RunResults, i: usize, n: usize, set_aside: usize| {
            let summary = run.strategies[i].summary.as_mut().unwrap();
            summary.write_loop_ns.as_mut().unwrap().n = n;
            summary.set_aside = set_aside;
        };
        used(&mut run, 1, 5, 3);
        assert_eq!(run.repeats_text(), "2-5 repeats (3 set aside as disturbed)");
        used(&mut run, 0, 1, 0);
        used(&mut run, 1, 1, 0);
        assert_eq!(run.repeats_text(), "1 repeat");
    }

    #[test]
    fn a_short_name_keeps_a_suffix_only_where_it_tells_two_apart() {
        use {ClockKind::*, Pad::*, ShardLevel::*};
        let st = |level: ShardLevel, policy: &str, pad: Pad, clock: Option<ClockKind>| Strategy {
            level,
            publish: policy.parse().unwrap(),
            pad,
            clock,
        };
        let all = [
            st(Global, "threshold:64", Line128, None),
            st(Global, "always", Line128, None),
            st(Global, "always", Line64, None),
            st(Node, "ratelimit:1ms", Line128, Some(Tsc)),
            st(Global, "ratelimit:1ms", Line128, Some(Tsc)),
            st(Global, "ratelimit:1ms", Line128, Some(Coarse)),
        ];
        let names: Vec<String> = all.iter().map(|s| s.short_name(&all)).collect();
        assert_eq!(
            names,
            [
                "global/threshold:64",
                "global/always/pad128",
                "global/always/pad64",
                "node/ratelimit:1ms",
                "global/ratelimit:1ms/tsc",
                "global/ratelimit:1ms/coarse",
            ]
        );
        // Alone, every strategy is its level and policy.
        for s in &all {
            assert_eq!(
                s.short_name(std::slice::from_ref(s)).matches('/').count(),
                1
            );
        }
        // A run's names: the fixture's strategies differ by level alone.
        let run = fixture_run();
        for s in &run.strategies {
            let short = run.short_name(s);
            assert!(s.name.starts_with(&short), "{} {short}", s.name);
            assert_eq!(short.matches('/').count(), 1, "{short}");
        }
    }

    #[test]
    fn the_load_walks_are_said_where_the_file_recorded_them() {
        // The fixture predates them: nothing is said.
        let mut run = fixture_run();
        assert_eq!(run.load_text(), None);
        (run.config.threshold_publishes, run.config.load_step) = (Some(0.25), Some(14));
        assert_eq!(
            run.load_text().as_deref(),
            Some("threshold:64 publishes 25.0% of updates (steps up to ±14 per 1024 of load)")
        );
    }

    #[test]
    fn the_canary_range_spans_every_repeat_of_every_strategy() {
        let run = fixture_run();
        // Median of 10, 20, 30, 40: 25.
        let range = |run: &RunResults| {
            CanaryRange::of(run.repeats_run(None).into_iter().map(|r| &r.interference))
        };
        let c = range(&run).unwrap();
        assert_eq!((c.median, c.lo, c.hi, c.count), (25.0, 10.0, 40.0, 4));
        let mut none = run.clone();
        for s in &mut none.strategies {
            for r in &mut s.repeats {
                r.interference.canary_ns = None;
            }
        }
        assert_eq!(range(&none), None);
    }

    #[test]
    fn a_kept_repeat_goes_where_it_ran_and_one_inexact_sum_marks_the_strategy() {
        let mut s = fixture_run().strategies.remove(0);
        assert!(s.exact && s.alone_repeats.is_empty());
        let in_place = s.repeats.len();
        let exact = s.repeats[0].clone();
        let mut lost = exact.clone();
        (lost.final_sum, lost.exact) = (lost.expected_sum - 3, false);
        // Exact in place: one more repeat, still exact.
        s.keep(exact.clone(), false);
        assert_eq!((s.repeats.len(), s.alone_repeats.len()), (in_place + 1, 0));
        assert!(s.exact);
        // An alone repeat that lost 3: among the alone ones, and the strategy is no longer exact;
        // an exact one after does not undo it.
        s.keep(lost, true);
        assert_eq!((s.repeats.len(), s.alone_repeats.len()), (in_place + 1, 1));
        assert!(!s.exact);
        s.keep(exact, false);
        assert!(!s.exact);
    }

    #[test]
    fn the_first_inexact_sum_names_its_strategy_and_numbers() {
        let mut run = fixture_run();
        assert!(run.strategies.iter().all(|s| s.exact));
        assert_eq!(run.first_inexact(), None);
        // The cpu strategy's second repeat lost 5.
        let cpu = &mut run.strategies[1];
        let r = &mut cpu.repeats[1];
        r.final_sum = r.expected_sum - 5;
        r.exact = false;
        cpu.exact = false;
        let (found, expected) = (r.final_sum, r.expected_sum);
        let bad = run.first_inexact().unwrap();
        assert_eq!(
            bad,
            InexactSum {
                strategy: "cpu/always/pad128".into(),
                final_sum: found,
                expected_sum: expected,
            }
        );
        assert_eq!(
            bad.to_string(),
            format!(
                "cpu/always/pad128: final sum {found} != exact total {expected} (counter lost or invented load)"
            )
        );
    }
}
