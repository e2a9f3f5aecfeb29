//! `contend spread`: the kernel's `cpumask_local_spread` order from a node.

use super::{load_topology, print_of_host};
use crate::CliError;
use crate::report::Document;
use crate::topology::SpreadReport;
use clap::Args;
use std::path::Path;

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

pub(super) fn run(root: &Path, args: &SpreadArgs) -> Result<(), CliError> {
    let topo = load_topology(root)?;
    let view = SpreadReport::new(&topo, args.node, args.old)
        .map_err(|e| CliError::usage(format!("--node: {e}")))?;
    print_of_host(&Document::Spread(&view), args.json, &topo)
}
