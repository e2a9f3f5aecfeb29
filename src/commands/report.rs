//! `contend report`: result files as text or Markdown, or one HTML page.

use super::args::{FormatArg, Print};
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
    /// Result files (run.json, sweep.json, matrix.json) or folders holding them, printed in turn or with --format html on one page.
    #[arg(value_name = "FILE", required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,

    /// text, markdown, or html[=PAGE]: one self-contained HTML page of every FILE into PAGE (- for stdout; an existing non-HTML file is refused) [report.html beside the first FILE].
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    pub format: FormatArg,

    /// Text: summary (a run's first screen) or all (then every table, regime by regime, as `contend run --print all`).
    #[arg(long, value_name = "WHAT", default_value = "summary")]
    pub print: Print,
}

pub(super) fn run(_root: &Path, args: &ReportArgs) -> Result<(), CliError> {
    let format = args.format.only("report", &["text", "markdown", "html"])?;
    let all = args.print.only("report", &[Print::Summary, Print::All])? == Print::All;
    if all && format != Format::Text {
        let why = "--print all adds tables to text: leave it out with --format markdown or html";
        return Err(CliError::usage(why));
    }
    if format == Format::Html {
        return html(args, args.format.page.as_deref());
    }
    let mut texts = Vec::new();
    for path in &args.files {
        let file = results::read(path)?.1;
        let text = report::render(&Document::from(&file), format)?;
        texts.push(match file {
            ResultFile::Run(run) if all => text + &report::text::run_tables(&run),
            _ => text,
        });
    }
    print!("{}", texts.join("\n"));
    Ok(())
}

/// `--format html`: every file (every result in a folder) on one page.
fn html(args: &ReportArgs, page_path: Option<&Path>) -> Result<(), CliError> {
    let mut loaded: Vec<(PathBuf, ResultFile)> = Vec::new();
    for path in &args.files {
        loaded.extend(results::read_all(path)?);
    }
    let labels: Vec<String> = loaded
        .iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    let sources: Vec<PageSource> = (loaded.iter().zip(&labels))
        .map(|((_, file), label)| PageSource {
            label: Some(label),
            doc: Document::from(file),
        })
        .collect();
    let page = report::html::page(&sources)?;
    let dest = match page_path {
        Some(p) if p.as_os_str() == "-" => {
            print!("{page}");
            return Ok(());
        }
        Some(p) => p.to_path_buf(),
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

/// Refuses to replace an existing file at `dest` that is not an HTML page.
fn refuse_non_page(dest: &Path) -> Result<(), CliError> {
    if !dest.exists() {
        return Ok(());
    }
    let mut head = [0u8; 64];
    let n = std::fs::File::open(dest).and_then(|mut f| f.read(&mut head));
    let text = String::from_utf8_lossy(&head[..n.unwrap_or(0)])
        .trim_start()
        .to_lowercase();
    if dest.is_file() && (text.starts_with("<!doctype html") || text.starts_with("<html")) {
        Ok(())
    } else {
        Err(CliError::usage(format!(
            "{} exists and is not an HTML page; refusing to replace it (name another page: --format html=PAGE)",
            dest.display()
        )))
    }
}
