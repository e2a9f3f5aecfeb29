//! `contend plot`: read run.json, sweep.json or matrix.json (or a folder
//! holding them) and write their SVG charts.

use crate::CliError;
use crate::cli::PlotArgs;
use crate::matrix::MatrixResults;
use crate::report::charts::{write_run_charts, write_sweep_charts};
use crate::report::{heatmap, write_atomic};
use crate::results::{RunResults, SCHEMA_VERSION, SweepResults};
use serde::de::DeserializeOwned;
use std::fs;
use std::path::{Path, PathBuf};

/// The result files a folder is searched for, in the order plotted.
const RESULT_FILES: [&str; 3] = ["run.json", "sweep.json", "matrix.json"];

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
            let sweep: SweepResults = parse(file, value, SCHEMA_VERSION)?;
            write_sweep_charts(&out, &sweep)
        } else if value.get("strategies").is_some() {
            let run: RunResults = parse(file, value, SCHEMA_VERSION)?;
            write_run_charts(&out, &run)
        } else if value.get("pairs").is_some() {
            let matrix: MatrixResults = parse(file, value, crate::matrix::SCHEMA_VERSION)?;
            write_heatmap(&out, &matrix)
        } else {
            return Err(CliError::usage(format!(
                "{}: not run.json, sweep.json or matrix.json (no \"strategies\", \"points\" or \"pairs\")",
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
        return Err(CliError::usage(format!(
            "{}: no run.json, sweep.json or matrix.json in this folder",
            path.display()
        )));
    }
    Ok((path.to_path_buf(), files))
}

/// Redraws the pair-latency heatmap of a matrix run as `heatmap.svg`.
fn write_heatmap(out: &Path, matrix: &MatrixResults) -> Result<Vec<PathBuf>, String> {
    let svg = heatmap::render(matrix)?;
    let path = out.join("heatmap.svg");
    write_atomic(&path, svg.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(vec![path])
}

/// `value` as a result of type `T`, of schema `expected`.
fn parse<T: DeserializeOwned>(
    file: &Path,
    value: serde_json::Value,
    expected: u32,
) -> Result<T, CliError> {
    let schema = value.get("schema").and_then(serde_json::Value::as_u64);
    if schema != Some(u64::from(expected)) {
        return Err(CliError::usage(format!(
            "{}: schema {}, this contend reads schema {expected}",
            file.display(),
            schema.map_or("missing".to_string(), |s| s.to_string())
        )));
    }
    serde_json::from_value(value)
        .map_err(|e| CliError::usage(format!("{}: corrupt result file: {e}", file.display())))
}
