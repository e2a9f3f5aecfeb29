//! `contend report`: print a result file (run.json, sweep.json or
//! matrix.json) as the text table or as Markdown.

use super::args::PrintArgs;
use crate::CliError;
use crate::report::Document;
use crate::results;
use clap::Args;
use std::path::{Path, PathBuf};

/// Options of `contend report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The result file: run.json, sweep.json, matrix.json, or a results
    /// folder holding one of them.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// How and where to print.
    #[command(flatten)]
    pub print: PrintArgs,
}

pub(super) fn run(_root: &Path, args: &ReportArgs) -> Result<(), CliError> {
    args.print.check()?;
    let (_, file) = results::read(&args.file)?;
    let doc = Document::from(&file);
    args.print.emit(&doc)
}
