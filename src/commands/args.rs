//! Option groups and value parsers shared by several subcommands.

use crate::clock::ClockKind;
use crate::counter::{
    DurationError, Pad, PublishPolicy, ShardLevel, parse_duration, parse_duration_or_zero,
};
use crate::placement::Placement;
use crate::runner::{PoolSize, Pools, StrategyChoice};
use crate::topology::CpuSpec;
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

/// `--duration`: a duration above zero with a unit.
pub(super) fn duration_arg(s: &str) -> Result<Duration, DurationError> {
    parse_duration(s)
}

/// `--warmup`: like `--duration`, but zero (`0`, `0ms`, `0s`) means none.
pub(super) fn warmup_arg(s: &str) -> Result<Duration, DurationError> {
    parse_duration_or_zero(s)
}

/// The longest `--inject`: half of a paced window that is set aside as a
/// stall ([`crate::workload::STALL`]).
const INJECT_MAX: Duration = Duration::from_micros(10);

/// `--inject`: a duration with a unit, above zero and at most
/// [`INJECT_MAX`], in ns.
pub(super) fn inject_arg(s: &str) -> Result<f64, String> {
    match parse_duration(s) {
        Ok(d) if d <= INJECT_MAX => Ok(d.as_secs_f64() * 1e9),
        Ok(_) => Err(format!(
            "\"{s}\" is longer than 10us: a paced update's window over 20 µs is set aside as a stall"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// A percentage that does not parse or is negative.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a percentage of 0 or more (5, 2.5, 5%)")]
pub(super) struct PercentError(String);

/// A percentage ≥ 0 (`5`, `2.5`, `5%`).
pub(super) fn percent_arg(s: &str) -> Result<f64, PercentError> {
    match s.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if p >= 0.0 && p.is_finite() => Ok(p),
        _ => Err(PercentError(s.to_string())),
    }
}

/// A fraction that does not parse or is not between 0 and 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a fraction above 0 and below 1 (0.4 or 40%)")]
pub(super) struct FractionError(String);

/// A fraction strictly between 0 and 1, as a fraction or a percentage
/// (`0.4`, `40%`).
pub(super) fn fraction_arg(s: &str) -> Result<f64, FractionError> {
    let t = s.trim();
    let value = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|p| p / 100.0),
        None => t.parse::<f64>(),
    };
    match value {
        Ok(f) if f > 0.0 && f < 1.0 => Ok(f),
        _ => Err(FractionError(s.to_string())),
    }
}

/// Who runs: writer and reader threads and their CPUs. Shared by `run`
/// and `predict`.
#[derive(Debug, Clone, Args)]
pub struct PoolArgs {
    /// Writer threads: a count or a percentage of allowed CPUs.
    ///
    /// By default every CPU of --writer-cpus, less those --readers take.
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

    /// What to do with CPUs a spec names that this process may not use.
    #[command(flatten)]
    pub clip: ClipArg,
}

/// `--clip`, for every command that takes CPU specs.
#[derive(Debug, Clone, Copy, Args)]
pub struct ClipArg {
    /// Keep only the CPUs this process may use when a CPU list, node or
    /// LLC names others (printed as a note and recorded in the result);
    /// without it that is an error naming the CPUs it may use.
    #[arg(long)]
    pub clip: bool,
}

/// The strategies to compare: every shard level × publish policy × pad,
/// and for ratelimited policies × clock. Shared by `run`, `sweep` and
/// `predict`. The default comparison replays the kernel before and after
/// its fix: `threshold:64` (the counter before v6.7),
/// `ratelimit:1ms+threshold:64` (the merged fix) and `always` (the plain
/// shared counter), each global and per node (Aaron Lu's split;
/// docs/run.md says why these).
#[derive(Debug, Clone, Args)]
pub struct StrategyArgs {
    /// Shard levels to compare, comma-separated: global, node, llc, cpu.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "global,node"
    )]
    pub level: Vec<ShardLevel>,

    #[doc = "Publish policies to compare, comma-separated."]
    #[arg(long, value_delimiter = ',', value_name = "LIST",
          default_value = "threshold:64,ratelimit:1ms+threshold:64,always",
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

impl PoolArgs {
    /// The engine's pools: these options, and whether threads may share
    /// CPUs.
    pub fn pools(&self, oversubscribe: bool) -> Pools {
        Pools {
            writers: self.writers,
            readers: self.readers,
            writer_cpus: self.writer_cpus.clone(),
            reader_cpus: self.reader_cpus.clone(),
            oversubscribe,
            clip: self.clip.clip,
        }
    }
}

impl StrategyArgs {
    /// The engine's view of these options.
    pub fn choice(&self) -> StrategyChoice {
        StrategyChoice {
            levels: self.level.clone(),
            policies: self.publish.clone(),
            pads: self.pad.clone(),
            clocks: self.clock.clone(),
        }
    }
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

/// Where a measuring command (run, sweep, matrix) saves its results folder
/// and what it prints.
#[derive(Debug, Clone, Args)]
pub struct ResultsArgs {
    /// Results root: files go to DIR/<host>/<UTC timestamp>/.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,

    /// Print the result file's JSON to stdout instead of the summary.
    #[arg(long)]
    pub json: bool,

    /// Print nothing but errors (results are still written).
    #[arg(long)]
    pub quiet: bool,
}

/// How a command that reads result files (compare, report) prints.
#[derive(Debug, Clone, Args)]
pub struct PrintArgs {
    /// Print Markdown (tables to paste into a patch description or a pull
    /// request) instead of text.
    #[arg(long)]
    pub markdown: bool,

    /// Write to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Overwrite the --out file if it exists.
    #[arg(long, requires = "out")]
    pub force: bool,
}
