//! Turning models and results into text people paste and files tools read:
//! one module per format.

pub mod charts;
mod csv;
pub mod heatmap;
mod json;
pub mod markdown;
pub mod measures;
pub mod table;
pub mod topology_text;

pub use csv::CsvExport;
pub use json::JsonExport;

use crate::results::RunResults;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// A result-file format.
pub trait Export {
    /// The file name this format is written to inside a results folder.
    fn file_name(&self) -> &'static str;
    /// The file's bytes.
    fn render(&self, run: &RunResults) -> Result<Vec<u8>, String>;
}

/// Every format written after a run.
pub fn exporters() -> Vec<Box<dyn Export>> {
    vec![Box::new(JsonExport), Box::new(CsvExport)]
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, then a
/// rename, so a reader never sees half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, bytes)?;
    fs::rename(&tmp, path)
}

/// A fresh folder `root/<host>/<UTC timestamp>` (a `-2`, `-3`, … suffix if
/// that second is taken), created.
pub fn new_results_dir(root: &Path, host: &str, started_utc: &str) -> io::Result<PathBuf> {
    let stamp: String = started_utc
        .chars()
        .filter(|c| !matches!(c, '-' | ':'))
        .collect();
    let host: String = host
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let base = root.join(host).join(stamp);
    let mut dir = base.clone();
    let mut n = 1;
    while dir.exists() {
        n += 1;
        dir = PathBuf::from(format!("{}-{n}", base.display()));
    }
    fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Writes every format into `dir`; returns the paths written.
pub fn write_results(dir: &Path, run: &RunResults) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    for e in exporters() {
        let path = dir.join(e.file_name());
        let bytes = e.render(run)?;
        write_atomic(&path, &bytes)
            .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}
