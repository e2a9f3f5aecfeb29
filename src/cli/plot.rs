//! Options of `contend plot`.

use clap::Args;
use std::path::PathBuf;

/// Options of `contend plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// A result file (run.json or sweep.json), or a results folder holding
    /// one or both.
    #[arg(value_name = "RESULTS")]
    pub results: PathBuf,

    /// Where to write the SVGs (created if absent; default: the results
    /// folder). Charts of the same names there are replaced.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Print nothing but errors.
    #[arg(long)]
    pub quiet: bool,
}
