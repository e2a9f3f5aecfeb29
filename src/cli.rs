//! The command line, as clap parses it. Only the shape of the options lives
//! here; [`crate::commands`] turns them into work.

use crate::placement::Placement;
use crate::topology::{CpuList, CpuSpec};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

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

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the host layout: nodes, distances, last-level caches, SMT pairs
    /// and the CPUs and memory nodes this process may use.
    Topology(TopologyArgs),
    /// Pin a thread to each chosen CPU and bind memory to each chosen node,
    /// and report what sched_getcpu and move_pages say: a check that
    /// placement works here (in a container, a cpuset, a VM).
    Verify(VerifyArgs),
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
