//! `contend verify`: pin a thread to each chosen CPU and bind memory to each
//! chosen node, and show what the kernel reports back.

use super::args::{CpusArg, HostPrint, PlacementArg};
use super::{load_topology, print_of_host, require_live_root};
use crate::CliError;
use crate::placement::verify_placement;
use crate::report::Document;
use crate::topology::{CpuList, CpuSpec};
use clap::Args;
use std::path::Path;

/// Options of `contend verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[doc = "CPUs to pin a thread to, one after another (SPEC:clip keeps the allowed ones)."]
    #[arg(long, value_name = "SPEC", default_value = "all", long_help = CpuSpec::HELP)]
    pub cpus: CpusArg,

    /// Nodes to bind 4 pages of memory to (a list such as 0-1) [every node with memory this process may use].
    #[arg(long, value_name = "LIST")]
    pub nodes: Option<CpuList>,

    /// strict: a placement that cannot be made or verified is an error; best-effort: report it unverified.
    #[arg(long, value_name = "HOW", default_value = "strict")]
    pub placement: PlacementArg,

    /// What is printed: summary (text) or json.
    #[command(flatten)]
    pub print: HostPrint,
}

/// Pages bound to each node.
const PAGES: usize = 4;

pub(super) fn run(root: &Path, args: &VerifyArgs) -> Result<(), CliError> {
    require_live_root(root, "verify places real threads and memory")?;
    let topo = load_topology(root)?;
    if !args.placement.plain() {
        return Err(CliError::usage(
            "--placement: verify takes strict or best-effort only",
        ));
    }
    let resolved = (args.cpus.spec.resolve(&topo, args.cpus.clip))
        .map_err(|e| CliError::usage(format!("--cpus: {e}")))?;
    if let Some(clipped) = resolved.clipped("--cpus", &args.cpus.spec) {
        eprintln!("note: {clipped}");
    }
    let nodes = args.nodes.as_ref().unwrap_or(&topo.allowed_mems);
    for node in nodes.iter() {
        topo.check_memory_node(node)
            .map_err(|e| CliError::usage(format!("--nodes: {e}")))?;
    }
    if nodes.is_empty() {
        return Err(CliError::usage("--nodes selects no node"));
    }
    let report = verify_placement(
        &topo,
        &resolved.cpus,
        nodes,
        PAGES,
        args.placement.placement,
    )
    .map_err(CliError::failure)?;
    print_of_host(Document::Verify(&report), "verify", &args.print, &topo)
}
