//! `contend report`: print result files (run.json, sweep.json or
//! matrix.json) as the text table or as Markdown, or build one
//! self-contained HTML page from one or more of them (`--html`).

use super::args::PrintArgs;
use crate::CliError;
use crate::report::html::{PAGE, PageSource};
use crate::report::{self, Document, Format};
use crate::results::{self, ResultFile};
use clap::Args;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Options of `contend report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The result files: run.json, sweep.json, matrix.json, or results
    /// folders holding them (a folder gives its first for text and
    /// Markdown, all of them for --html). Several are printed in turn, or
    /// with --html put on one page.
    #[arg(value_name = "FILE", required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,

    /// Build one self-contained HTML page from every FILE: verdict,
    /// tables, charts, placement proof, warnings, provenance; runs from
    /// different hosts side by side. Written to report.html beside the
    /// first FILE unless --output says otherwise.
    #[arg(long, conflicts_with_all = ["markdown", "out"])]
    pub html: bool,

    /// With --html: where the page goes, a file or - for stdout [default:
    /// report.html beside the first FILE]. An existing page is replaced;
    /// an existing file that is not an HTML page is refused.
    #[arg(long, value_name = "PAGE", requires = "html")]
    pub output: Option<PathBuf>,

    /// Text: after a run's first screen, every table, regime by regime
    /// (as `contend run --verbose`).
    #[arg(long, short, conflicts_with_all = ["markdown", "html"])]
    pub verbose: bool,

    /// How and where to print text or Markdown.
    #[command(flatten)]
    pub print: PrintArgs,
}

/// A run's every table when `verbose` (empty otherwise, and for any other
/// kind of result).
fn tables(file: &ResultFile, verbose: bool) -> String {
    match file {
        ResultFile::Run(run) if verbose => report::text::run_tables(run),
        _ => String::new(),
    }
}

pub(super) fn run(_root: &Path, args: &ReportArgs) -> Result<(), CliError> {
    if args.html {
        return html(args);
    }
    args.print.check()?;
    let mut files = Vec::new();
    for path in &args.files {
        files.push(results::read(path)?.1);
    }
    if let ([file], false) = (files.as_slice(), args.verbose) {
        return args.print.emit(&Document::from(file));
    }
    let format = if args.print.markdown {
        Format::Markdown
    } else {
        Format::Text
    };
    let mut texts = Vec::new();
    for file in &files {
        let text = report::render(&Document::from(file), format)?;
        texts.push(text + &tables(file, args.verbose));
    }
    let text = texts.join("\n");
    match &args.print.out {
        None => print!("{text}"),
        Some(path) => {
            report::save_text(path, &text)?;
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// `--html`: every file (every result in a folder) on one page.
fn html(args: &ReportArgs) -> Result<(), CliError> {
    let mut loaded: Vec<(PathBuf, ResultFile)> = Vec::new();
    for path in &args.files {
        loaded.extend(results::read_all(path)?);
    }
    let labels: Vec<String> = loaded
        .iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    let sources: Vec<PageSource> = loaded
        .iter()
        .zip(&labels)
        .map(|((_, file), label)| PageSource {
            label: Some(label),
            doc: Document::from(file),
        })
        .collect();
    let page = report::html::page(&sources)?;
    let dest = match &args.output {
        Some(p) if p.as_os_str() == "-" => {
            print!("{page}");
            return Ok(());
        }
        Some(p) => p.clone(),
        None => beside(&args.files[0]),
    };
    refuse_non_page(&dest)?;
    report::save_text(&dest, &page)?;
    eprintln!("wrote {}", dest.display());
    Ok(())
}

/// report.html beside `file` (inside it, for a folder).
fn beside(file: &Path) -> PathBuf {
    if file.is_dir() {
        file.join(PAGE)
    } else {
        file.parent().unwrap_or(Path::new("")).join(PAGE)
    }
}

/// An existing file at `dest` is replaced only if it is an HTML page: a
/// result file or anything else named by mistake is left alone (exit 2).
fn refuse_non_page(dest: &Path) -> Result<(), CliError> {
    if !dest.exists() {
        return Ok(());
    }
    let mut head = [0u8; 64];
    let n = std::fs::File::open(dest)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    let text = String::from_utf8_lossy(&head[..n])
        .trim_start()
        .to_lowercase();
    if dest.is_file() && (text.starts_with("<!doctype html") || text.starts_with("<html")) {
        Ok(())
    } else {
        Err(CliError::usage(format!(
            "{} exists and is not an HTML page; refusing to replace it (name another --output)",
            dest.display()
        )))
    }
}
