//! Options of `contend report`.

use clap::Args;
use std::path::PathBuf;

/// Options of `contend report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The result file: run.json, sweep.json, or a results folder holding
    /// one of them.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Print Markdown (a provenance header and one table per measure) to
    /// paste into a patch description or a pull request.
    #[arg(long)]
    pub markdown: bool,

    /// Write the report to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Overwrite the --out file if it exists.
    #[arg(long, requires = "out")]
    pub force: bool,
}
