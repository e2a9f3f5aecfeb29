//! `contend topology` and `contend topology capture DIR`.

use super::args::HostPrint;
use super::{load_topology, print_of_host};
use crate::CliError;
use crate::report::Document;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

/// Options of `contend topology`.
#[derive(Debug, Args)]
pub struct TopologyArgs {
    /// What is printed: summary (text) or json.
    #[command(flatten)]
    pub print: HostPrint,

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

pub(super) fn run(root: &Path, args: &TopologyArgs) -> Result<(), CliError> {
    match &args.action {
        Some(TopologyAction::Capture { dir, force }) => capture(root, dir, *force),
        None => {
            let topo = load_topology(root)?;
            print_of_host(Document::Topology(&topo), "topology", &args.print, &topo)
        }
    }
}

fn capture(root: &Path, dir: &Path, force: bool) -> Result<(), CliError> {
    let occupied = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
    if occupied && !force {
        return Err(CliError::usage(format!(
            "capture directory {} is not empty (add --force to write into it)",
            dir.display()
        )));
    }
    let files =
        crate::topology::capture(root, dir).map_err(|e| CliError::failure(e.to_string()))?;
    let dir = dir.display();
    eprintln!(
        "captured {files} files into {dir}; reproduce with: contend --sysfs-root {dir} topology"
    );
    Ok(())
}
