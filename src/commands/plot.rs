//! `contend plot`: read run.json, sweep.json or matrix.json (or a folder
//! holding them) and write their SVG charts.

use crate::CliError;
use crate::report::{self, Document, Format};
use crate::results;
use clap::Args;
use std::path::{Path, PathBuf};

/// Options of `contend plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// A result file (run.json, sweep.json or matrix.json), or a results
    /// folder holding any of them.
    #[arg(value_name = "RESULTS")]
    pub results: PathBuf,

    /// Where to write the SVGs (created if absent; default: the results
    /// folder). Charts of the same names there are replaced.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

pub(super) fn run(_root: &Path, args: &PlotArgs) -> Result<(), CliError> {
    let files = results::read_all(&args.results)?;
    let out = match &args.out {
        Some(dir) => dir.clone(),
        None if args.results.is_dir() => args.results.clone(),
        None => match args.results.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        },
    };
    results::create_dir(&out)?;
    let mut written = Vec::new();
    for (file, result) in &files {
        let doc = Document::from(result);
        let charts = report::save(&out, &doc, &[Format::Svg])?;
        if charts.is_empty() {
            return Err(CliError::usage(format!(
                "{}: nothing to plot (no strategy finished a repeat)",
                file.display()
            )));
        }
        written.extend(charts);
    }
    for f in &written {
        eprintln!("wrote {}", f.display());
    }
    Ok(())
}
