//! `contend gallery DIR`: every core-to-core-latency CSV in DIR read,
//! its host inferred and the default comparison predicted, then printed
//! and (with --out) written as one page, Markdown and JSON.

use super::args::FormatArg;
use crate::CliError;
use crate::predict::gallery::{self, Gallery};
use crate::report::{self, Document, Format};
use crate::results::{self, ReadError};
use crate::workload::{SEED_RATE, parse_rate};
use clap::Args;
use std::path::{Path, PathBuf};

/// Options of `contend gallery`.
#[derive(Debug, Args)]
pub struct GalleryArgs {
    /// A folder of core-to-core-latency CSVs (`--csv` output), one host
    /// each; a file that is not one is listed as left out, with why.
    pub dir: PathBuf,

    /// Updates per second per CPU the strategies are predicted at (the
    /// seed's postgres: 22k).
    #[arg(long, value_name = "RATE", value_parser = parse_rate, default_value_t = SEED_RATE)]
    pub rate: f64,

    /// Print the gallery as text, markdown or json.
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    pub format: FormatArg,

    /// Also write gallery.html, gallery.md and gallery.json into DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

pub(super) fn run(_root: &Path, args: &GalleryArgs) -> Result<(), CliError> {
    let format = args.format.only("gallery", &["text", "markdown", "json"])?;
    let files = results::c2c_files(&args.dir)?;
    let matrices = files
        .iter()
        .map(|path| {
            let m = results::read_c2c(path).map_err(|e| match e {
                ReadError::C2c(_, source) => source.to_string(),
                other => other.to_string(),
            });
            (super::file_name(path), m)
        })
        .collect();
    let g: Gallery = gallery::gallery(&args.dir.display().to_string(), matrices, args.rate);
    let doc = Document::Gallery(&g);
    print!("{}", report::render(&doc, format)?);
    if let Some(dir) = &args.out {
        results::create_dir(dir)?;
        for f in report::save(dir, &doc, &[Format::Html, Format::Markdown, Format::Json])? {
            eprintln!("wrote {}", f.display());
        }
    }
    Ok(())
}
