//! `contend spread`: the kernel's `cpumask_local_spread` order from a node.

use super::args::HostPrint;
use super::{load_topology, print_of_host};
use crate::CliError;
use crate::report::Document;
use crate::topology::SpreadReport;
use clap::Args;
use std::path::Path;

/// Options of `contend spread`.
#[derive(Debug, Args)]
pub struct SpreadArgs {
    /// The node to spread from; N:old for the pre-v6.3 order (the node's CPUs, then the rest by id).
    #[arg(long, value_name = "N[:old]")]
    pub node: SpreadFrom,

    /// What is printed: summary (text) or json.
    #[command(flatten)]
    pub print: HostPrint,
}

/// `--node N` or `N:old`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpreadFrom {
    node: u32,
    old: bool,
}

impl std::str::FromStr for SpreadFrom {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (n, old) =
            (s.trim().strip_suffix(":old").map(|n| (n, true))).unwrap_or((s.trim(), false));
        n.parse()
            .map(|node| SpreadFrom { node, old })
            .map_err(|_| format!("\"{s}\" is not a node (1) or a node and :old (1:old)"))
    }
}

pub(super) fn run(root: &Path, args: &SpreadArgs) -> Result<(), CliError> {
    let topo = load_topology(root)?;
    let view = SpreadReport::new(&topo, args.node.node, args.node.old)
        .map_err(|e| CliError::usage(format!("--node: {e}")))?;
    print_of_host(Document::Spread(&view), "spread", &args.print, &topo)
}
