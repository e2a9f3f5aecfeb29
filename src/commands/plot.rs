//! `contend plot`: read run.json or sweep.json (or a folder holding them)
//! and write their SVG charts.

use crate::CliError;
use crate::cli::PlotArgs;
use crate::report::charts::{write_run_charts, write_sweep_charts};
use crate::results::{RunResults, SCHEMA_VERSION, SweepResults};
use serde::de::DeserializeOwned;
use std::fs;
use std::path::{Path, PathBuf};

/// The result files a folder is searched for, in the order plotted.
const RESULT_FILES: [&str; 2] = ["run.json", "sweep.json"];

pub(super) fn run(_root: &Path, args: &PlotArgs) -> Result<(), CliError> {
    let (folder, files) = inputs(&args.results)?;
    let out = args.out.clone().unwrap_or(folder);
    fs::create_dir_all(&out)
        .map_err(|e| CliError::failure(format!("cannot create {}: {e}", out.display())))?;
    let mut written = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file)
            .map_err(|e| CliError::usage(format!("{}: {e}", file.display())))?;
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            CliError::usage(format!("{}: not a JSON result file: {e}", file.display()))
        })?;
        let charts = if value.get("points").is_some() {
            let sweep: SweepResults = parse(file, value)?;
            write_sweep_charts(&out, &sweep)
        } else if value.get("strategies").is_some() {
            let run: RunResults = parse(file, value)?;
            write_run_charts(&out, &run)
        } else if value.get("pairs").is_some() {
            return Err(matrix_not_plotted(file));
        } else {
            return Err(CliError::usage(format!(
                "{}: neither run.json nor sweep.json (no \"strategies\" or \"points\")",
                file.display()
            )));
        };
        let charts = charts.map_err(CliError::failure)?;
        if charts.is_empty() {
            return Err(CliError::usage(format!(
                "{}: nothing to plot (no strategy finished a repeat)",
                file.display()
            )));
        }
        written.extend(charts);
    }
    if !args.quiet {
        for f in &written {
            eprintln!("wrote {}", f.display());
        }
    }
    Ok(())
}

/// The folder charts go to by default and the result files to read: the
/// file itself, or every run.json and sweep.json in the folder.
fn inputs(path: &Path) -> Result<(PathBuf, Vec<PathBuf>), CliError> {
    let meta =
        fs::metadata(path).map_err(|e| CliError::usage(format!("{}: {e}", path.display())))?;
    if !meta.is_dir() {
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        return Ok((folder, vec![path.to_path_buf()]));
    }
    let files: Vec<PathBuf> = RESULT_FILES
        .iter()
        .map(|f| path.join(f))
        .filter(|f| f.is_file())
        .collect();
    if files.is_empty() {
        let matrix = path.join("matrix.json");
        if matrix.is_file() {
            return Err(matrix_not_plotted(&matrix));
        }
        return Err(CliError::usage(format!(
            "{}: no run.json or sweep.json in this folder",
            path.display()
        )));
    }
    Ok((path.to_path_buf(), files))
}

/// A matrix.json is not redrawn: `contend matrix` writes heatmap.svg beside
/// it, and matrix.json is not read back.
fn matrix_not_plotted(file: &Path) -> CliError {
    CliError::usage(format!(
        "{}: matrix results are not plotted here; contend matrix wrote heatmap.svg beside them",
        file.display()
    ))
}

/// `value` as a result of type `T`, of this contend's schema.
fn parse<T: DeserializeOwned>(file: &Path, value: serde_json::Value) -> Result<T, CliError> {
    let schema = value.get("schema").and_then(serde_json::Value::as_u64);
    if schema != Some(u64::from(SCHEMA_VERSION)) {
        return Err(CliError::usage(format!(
            "{}: schema {}, this contend reads schema {SCHEMA_VERSION}",
            file.display(),
            schema.map_or("missing".to_string(), |s| s.to_string())
        )));
    }
    serde_json::from_value(value)
        .map_err(|e| CliError::usage(format!("{}: corrupt result file: {e}", file.display())))
}
