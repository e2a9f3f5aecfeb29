//! `contend verify`: pin a thread to each chosen CPU and bind memory to each
//! chosen node, and show what the kernel reports back.

use super::args::{ClipArg, PlacementArg};
use super::{load_topology, print_of_host, require_live_root};
use crate::CliError;
use crate::placement::{Placement, verify_placement};
use crate::report::Document;
use crate::topology::{CpuList, CpuSpec};
use clap::Args;
use std::path::Path;

/// Options of `contend verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[doc = "CPUs to pin a thread to, one after another."]
    #[arg(long, value_name = "SPEC", default_value = "all", long_help = CpuSpec::HELP)]
    pub cpus: CpuSpec,

    /// What to do with CPUs --cpus names that this process may not use.
    #[command(flatten)]
    pub clip: ClipArg,

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

pub(super) fn run(root: &Path, args: &VerifyArgs) -> Result<(), CliError> {
    require_live_root(root, "verify places real threads and memory")?;
    let topo = load_topology(root)?;
    let placement = Placement::from(args.placement);
    let resolved = args
        .cpus
        .resolve(&topo, args.clip.clip)
        .map_err(|e| CliError::usage(format!("--cpus: {e}")))?;
    if let Some(clipped) = resolved.clipped("--cpus", &args.cpus) {
        eprintln!("note: {clipped}");
    }
    let cpus = resolved.cpus;
    let nodes = args
        .nodes
        .clone()
        .unwrap_or_else(|| topo.allowed_mems.clone());
    for node in nodes.iter() {
        topo.check_memory_node(node)
            .map_err(|e| CliError::usage(format!("--nodes: {e}")))?;
    }
    if nodes.is_empty() {
        return Err(CliError::usage("--nodes selects no node"));
    }
    let report = verify_placement(&topo, &cpus, &nodes, args.pages as usize, placement)
        .map_err(CliError::failure)?;
    print_of_host(&Document::Verify(&report), args.json, &topo)
}
