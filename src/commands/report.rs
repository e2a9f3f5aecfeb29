//! `contend report`: print a result file (run.json or sweep.json) as the
//! text table or as Markdown. Also the result-file loading and the `--out`
//! writing that `contend compare` shares.

use crate::CliError;
use crate::cli::ReportArgs;
use crate::report::{markdown, table, write_atomic};
use crate::results::{RunResults, SCHEMA_VERSION, SweepResults};
use std::fmt::Write;
use std::path::{Path, PathBuf};

pub(super) fn run(_root: &Path, args: &ReportArgs) -> Result<(), CliError> {
    check_out(args.out.as_deref(), args.force)?;
    let (_, file) = load(&args.file)?;
    let text = match (file, args.markdown) {
        (ResultFile::Run(run), false) => table::render(&run),
        (ResultFile::Run(run), true) => markdown::run_markdown(&run),
        (ResultFile::Sweep(sweep), false) => sweep_text(&sweep),
        (ResultFile::Sweep(sweep), true) => markdown::sweep_markdown(&sweep),
    };
    emit(&text, args.out.as_deref())
}

/// A sweep as text: the run table of every point, under a heading naming
/// its thread count and affinity set.
fn sweep_text(sweep: &SweepResults) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "contend sweep: {} points{}",
        sweep.points.len(),
        if sweep.partial {
            "; PARTIAL (interrupted)"
        } else {
            ""
        }
    );
    for p in &sweep.points {
        let _ = writeln!(
            out,
            "\n=== {} threads, affinity {} ===",
            p.threads, p.affinity
        );
        out.push_str(&table::render(&p.results));
    }
    out
}

/// A result file's contents.
pub(super) enum ResultFile {
    /// run.json.
    Run(Box<RunResults>),
    /// sweep.json.
    Sweep(Box<SweepResults>),
}

/// Reads a result file, telling run.json from sweep.json by content (a
/// sweep has `points`). A folder is read as its run.json, else its
/// sweep.json. Returns the file read. A missing, unreadable or corrupt
/// file is bad input (exit 2), reported in one line.
pub(super) fn load(path: &Path) -> Result<(PathBuf, ResultFile), CliError> {
    let file = if path.is_dir() {
        ["run.json", "sweep.json"]
            .iter()
            .map(|name| path.join(name))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                CliError::usage(format!(
                    "{}: folder holds no run.json or sweep.json",
                    path.display()
                ))
            })?
    } else {
        path.to_path_buf()
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| CliError::usage(format!("cannot read {}: {e}", file.display())))?;
    let corrupt = |e: serde_json::Error| {
        CliError::usage(format!(
            "{} is not a contend result file: {e}",
            file.display()
        ))
    };
    let value: serde_json::Value = serde_json::from_str(&text).map_err(corrupt)?;
    let schema = value.get("schema").and_then(serde_json::Value::as_u64);
    if schema.is_some_and(|s| s != u64::from(SCHEMA_VERSION)) {
        eprintln!(
            "warning: {} has schema {}, this contend reads schema {SCHEMA_VERSION}",
            file.display(),
            schema.unwrap_or_default()
        );
    }
    let result = if value.get("points").is_some() {
        ResultFile::Sweep(Box::new(serde_json::from_value(value).map_err(corrupt)?))
    } else {
        ResultFile::Run(Box::new(serde_json::from_value(value).map_err(corrupt)?))
    };
    Ok((file, result))
}

/// Refuses an existing `--out` file unless `force`: nothing is
/// overwritten by accident. Checked before any work.
pub(super) fn check_out(out: Option<&Path>, force: bool) -> Result<(), CliError> {
    match out {
        Some(path) if !force && path.exists() => Err(CliError::usage(format!(
            "{} exists; add --force to overwrite it",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// Prints `text`, or writes it to `out` (atomically) and says so on
/// stderr.
pub(super) fn emit(text: &str, out: Option<&Path>) -> Result<(), CliError> {
    match out {
        None => {
            print!("{text}");
            Ok(())
        }
        Some(path) => {
            write_atomic(path, text.as_bytes())
                .map_err(|e| CliError::failure(format!("cannot write {}: {e}", path.display())))?;
            eprintln!("wrote {}", path.display());
            Ok(())
        }
    }
}
