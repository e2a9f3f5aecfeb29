//! The command line, as clap parses it. Only the shape of the options lives
//! here; [`crate::commands`] turns them into work.

use crate::clock::ClockKind;
use crate::counter::{NodeIter, Pad, PublishPolicy, ShardLevel, parse_duration};
use crate::placement::Placement;
use crate::topology::{CpuList, CpuSpec};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

mod compare;
mod plot;
mod report;
mod sweep;

pub use compare::CompareArgs;
pub use plot::PlotArgs;
pub use report::ReportArgs;
pub use sweep::SweepArgs;

/// Measures what one hot shared counter costs when CPUs across LLCs and
/// NUMA nodes hammer it, and which fix (split per node/LLC/CPU, ratelimit,
/// threshold) wins on this host.
#[derive(Debug, Parser)]
#[command(name = "contend", version, about, long_about = None)]
pub struct Cli {
    /// Read the host layout from this directory instead of `/` (a tree made
    /// by `contend topology capture` or a test fixture).
    #[arg(long, global = true, value_name = "DIR", default_value = "/")]
    pub sysfs_root: PathBuf,

    /// What to do.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands. With none, `contend` runs `contend run` with its
/// defaults: the default comparison.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Hammer the counter with pinned writers (and readers) for every chosen
    /// strategy, and print and save the comparison (default command).
    Run(Box<RunArgs>),
    /// Compare two result files (or two strategies in one) side by side,
    /// with a significance verdict from the repeats.
    Compare(Box<CompareArgs>),
    /// Print a result file (run.json or sweep.json) as a table, or as
    /// Markdown to paste into a patch description.
    Report(ReportArgs),
    /// Run `contend run` over thread counts, affinity sets and strategies,
    /// into one results folder with charts.
    Sweep(Box<SweepArgs>),
    /// Draw SVG charts of a result file (run.json or sweep.json).
    Plot(PlotArgs),
    /// Show the host layout: nodes, distances, last-level caches, SMT pairs
    /// and the CPUs and memory nodes this process may use.
    Topology(TopologyArgs),
    /// Print the order in which the kernel's cpumask_local_spread(i, node)
    /// hands out CPUs (NUMA hop order since v6.3, or the old order), as the
    /// CPU spec local-spread:N fills pools.
    Spread(SpreadArgs),
    /// Pin a thread to each chosen CPU and bind memory to each chosen node,
    /// and report what sched_getcpu and move_pages say: a check that
    /// placement works here (in a container, a cpuset, a VM).
    Verify(VerifyArgs),
    /// Time a cache line's hand-off between every pair of CPUs (or a
    /// per-class sample of pairs), group the costs by distance class (SMT,
    /// same LLC, same node, cross-node at each distance) and say whether to
    /// split a hot counter at llc, at node, or not at all.
    #[command(long_about = crate::matrix::LONG_ABOUT)]
    Matrix(MatrixArgs),
}

/// How many threads a pool gets: a count, or a percentage of the CPUs this
/// process may use (`50%`, as the seeds' nr_thread=50%).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PoolSize {
    /// This many threads.
    Count(usize),
    /// This percentage of the allowed CPUs (rounded, at least 1).
    Percent(f64),
}

impl PoolSize {
    /// The thread count for a host with `allowed` usable CPUs.
    pub fn resolve(self, allowed: usize) -> usize {
        match self {
            PoolSize::Count(n) => n,
            PoolSize::Percent(p) => ((p / 100.0 * allowed as f64).round() as usize).max(1),
        }
    }
}

impl std::str::FromStr for PoolSize {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad =
            || format!("\"{s}\" is not a thread count (4) or a percentage of allowed CPUs (50%)");
        match s.strip_suffix('%') {
            Some(p) => match p.parse::<f64>() {
                Ok(v) if v > 0.0 && v <= 100.0 => Ok(PoolSize::Percent(v)),
                _ => Err(format!(
                    "\"{s}\": a percentage must be above 0 and at most 100"
                )),
            },
            None => s.parse::<usize>().map(PoolSize::Count).map_err(|_| bad()),
        }
    }
}

fn duration_arg(s: &str) -> Result<Duration, String> {
    parse_duration(s)
}

fn warmup_arg(s: &str) -> Result<Duration, String> {
    if s.trim() == "0" {
        Ok(Duration::ZERO)
    } else {
        parse_duration(s)
    }
}

fn rate_arg(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if r > 0.0 && r.is_finite() => Ok(r),
        _ => Err(format!(
            "\"{s}\" is not a rate above 0 (operations per second per thread)"
        )),
    }
}

/// The strategies to compare: every shard level × publish policy × pad,
/// and for ratelimited policies × clock. Shared by `run` and `sweep`.
#[derive(Debug, Clone, Args)]
pub struct StrategyArgs {
    /// Shard levels to compare, comma-separated: global, node, llc, cpu.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "global,node,llc,cpu"
    )]
    pub level: Vec<ShardLevel>,

    #[doc = "Publish policies to compare, comma-separated."]
    #[arg(long, value_delimiter = ',', value_name = "LIST", default_value = "always,ratelimit:1ms",
          long_help = PublishPolicy::HELP)]
    pub publish: Vec<PublishPolicy>,

    /// Bytes between slots, comma-separated: 128 (CachePadded), 64 (the
    /// kernel's ____cacheline_aligned), 0 (packed next to a read-mostly
    /// field: false sharing on purpose).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "128"
    )]
    pub pad: Vec<Pad>,

    /// Clocks a ratelimit reads, comma-separated: tsc, monotonic, coarse.
    /// Only ratelimited policies are run once per clock.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "tsc"
    )]
    pub clock: Vec<ClockKind>,
}

impl StrategyArgs {
    /// Each list must name at least one value.
    pub fn check(&self) -> Result<(), String> {
        if self.level.is_empty()
            || self.publish.is_empty()
            || self.pad.is_empty()
            || self.clock.is_empty()
        {
            return Err(
                "--level, --publish, --pad and --clock each need at least one value".into(),
            );
        }
        Ok(())
    }
}

/// Options of `contend run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Writer threads: a count or a percentage of allowed CPUs (default:
    /// every CPU of --writer-cpus, less those --readers take).
    #[arg(long, value_name = "N|P%")]
    pub writers: Option<PoolSize>,

    /// Reader threads that run only the read side (default: none; writers
    /// then run the read side themselves, as every CPU does in the kernel).
    #[arg(long, value_name = "N|P%")]
    pub readers: Option<PoolSize>,

    #[doc = "CPUs writers take, in order."]
    #[arg(long, value_name = "SPEC", long_help = CpuSpec::HELP)]
    pub writer_cpus: Option<CpuSpec>,

    #[doc = "CPUs readers take, in order, skipping writers' CPUs."]
    #[arg(long, value_name = "SPEC", long_help = CpuSpec::HELP)]
    pub reader_cpus: Option<CpuSpec>,

    /// Each writer runs the read side once every K updates (0 = never).
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub read_every: u32,

    /// The strategies to compare.
    #[command(flatten)]
    pub strategies: StrategyArgs,

    /// Put every counter slot on this node (default: each slot on its own
    /// node; global on the node of the first writer).
    #[arg(long, value_name = "N")]
    pub counter_node: Option<u32>,

    /// How node-level readers walk slots: compact (to nr_node_ids) or
    /// bitmap (a 1024-bit mask, as for_each_node with NODES_SHIFT=10).
    #[arg(long, value_name = "HOW", default_value = "compact")]
    pub node_iter: NodeIter,

    /// Measured time per strategy, split evenly over the repeats
    /// (1s with 5 repeats = 5 intervals of 200ms). Units: ns, us, ms, s.
    #[arg(long, value_name = "TIME", default_value = "1s", value_parser = duration_arg)]
    pub duration: Duration,

    /// Warm-up before each repeat's interval (0 = none).
    #[arg(long, value_name = "TIME", default_value = "50ms", value_parser = warmup_arg)]
    pub warmup: Duration,

    /// Repeats per strategy; spread and confidence intervals come from them.
    /// Strategies take turns, repeat by repeat, so drift hits all alike.
    #[arg(long, value_name = "N", default_value_t = 5,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeats: u32,

    /// Cap each thread at R operations per second (default: unlimited,
    /// i.e. hammer). E.g. the seed's 14M wakeups + 11M migrations in 5 s
    /// over 224 CPUs is about 22000 updates/s per CPU.
    #[arg(long, value_name = "R", value_parser = rate_arg)]
    pub rate: Option<f64>,

    /// Seed of the writers' random load walks.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Time one operation in K (rounded up to a power of two) for latency
    /// percentiles; 0 turns sampling off.
    #[arg(long, value_name = "K", default_value_t = 1024)]
    pub sample_every: u64,

    /// strict: a thread or slot that cannot be placed and verified stops
    /// the run; best-effort: go on and record it unverified.
    #[arg(long, value_enum, default_value_t = PlacementArg::Strict)]
    pub placement: PlacementArg,

    /// Let threads share CPUs when there are more threads than CPUs (the
    /// output says so). Without it that is an error.
    #[arg(long)]
    pub oversubscribe: bool,

    /// Results root: files go to DIR/<host>/<UTC timestamp>/.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,

    /// Print run.json to stdout instead of the table.
    #[arg(long)]
    pub json: bool,

    /// Print nothing but errors (results are still written).
    #[arg(long)]
    pub quiet: bool,
}

/// Options of `contend topology`.
#[derive(Debug, Args)]
pub struct TopologyArgs {
    /// Print the model as JSON (schema in README.md) instead of text.
    #[arg(long)]
    pub json: bool,

    /// Capture instead of printing.
    #[command(subcommand)]
    pub action: Option<TopologyAction>,
}

/// Subcommands of `contend topology`.
#[derive(Debug, Subcommand)]
pub enum TopologyAction {
    /// Copy exactly the files the topology reader uses into DIR, so that
    /// `--sysfs-root DIR` reproduces this host anywhere (attach DIR to bug
    /// reports).
    Capture {
        /// Where to write the tree; must be empty or absent.
        dir: PathBuf,
        /// Write into DIR even if it is not empty.
        #[arg(long)]
        force: bool,
    },
}

/// Options of `contend spread`.
#[derive(Debug, Args)]
pub struct SpreadArgs {
    /// The node to spread from.
    #[arg(long, value_name = "N")]
    pub node: u32,

    /// The pre-v6.3 algorithm: the node's own CPUs, then every other CPU by
    /// id, ignoring distance.
    #[arg(long)]
    pub old: bool,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of `contend verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[doc = "CPUs to pin a thread to, one after another."]
    #[arg(long, value_name = "SPEC", default_value = "all", long_help = CpuSpec::HELP)]
    pub cpus: CpuSpec,

    /// Nodes to bind memory to (a list such as 0-1; default: every node with
    /// memory this process may use).
    #[arg(long, value_name = "LIST")]
    pub nodes: Option<CpuList>,

    /// Pages to allocate on each node.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub pages: u32,

    /// strict: a placement that cannot be made or verified is an error;
    /// best-effort: go on and report it unverified.
    #[arg(long, value_enum, default_value_t = PlacementArg::Strict)]
    pub placement: PlacementArg,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of `contend matrix`.
#[derive(Debug, Args)]
pub struct MatrixArgs {
    #[doc = "CPUs whose pairs are measured (the matrix's rows and columns, by id)."]
    #[arg(long, value_name = "SPEC", default_value = "all", long_help = CpuSpec::HELP)]
    pub cpus: CpuSpec,

    /// Timed samples per direction of each pair; a sample is a batch of
    /// 100 round trips, its time / 200 one one-way latency.
    #[arg(long, value_name = "N", default_value_t = 200,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub samples: u32,

    /// The node each pair's lines are bound to: first (node of the pair's
    /// lower CPU), second (node of the higher CPU) or node:N.
    #[arg(long, value_name = "WHERE", default_value = "first")]
    pub home: crate::matrix::Home,

    /// cas: CAS ping-pong (a locked read-modify-write each turn); rw: flag
    /// hand-off with plain loads and stores.
    #[arg(long, value_name = "MODE", default_value = "cas")]
    pub mode: crate::matrix::Mode,

    /// Measure every pair instead of at most --per-class pairs per class.
    #[arg(long)]
    pub all_pairs: bool,

    /// Pairs measured per distance class: the class's lowest pair and a
    /// fixed-seed random sample of the rest (ignored with --all-pairs).
    #[arg(long, value_name = "CAP", default_value_t = 64,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub per_class: u32,

    /// Results root: files go to DIR/<host>/<UTC timestamp>/.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,

    /// Print matrix.json to stdout instead of the summary.
    #[arg(long)]
    pub json: bool,
}

/// `--placement` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlacementArg {
    /// Every thread and page must be where it was asked to be.
    Strict,
    /// Continue and record "unverified".
    BestEffort,
}

impl From<PlacementArg> for Placement {
    fn from(arg: PlacementArg) -> Self {
        match arg {
            PlacementArg::Strict => Placement::Strict,
            PlacementArg::BestEffort => Placement::BestEffort,
        }
    }
}
