//! `contend report`: print a result file (run.json, sweep.json or
//! matrix.json) as the text table or as Markdown.

use super::{check_out, emit};
use crate::CliError;
use crate::report::{Document, Format};
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

pub(super) fn run(_root: &Path, args: &ReportArgs) -> Result<(), CliError> {
    check_out(args.out.as_deref(), args.force)?;
    let (_, file) = results::read(&args.file)?;
    let format = if args.markdown {
        Format::Markdown
    } else {
        Format::Text
    };
    let doc = Document::from(&file);
    emit(&doc, format, args.out.as_deref())
}
