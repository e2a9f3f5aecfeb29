//! Every renderer and exporter, for every kind of result: one [`files`] per format, each format a
//! folder with one file per kind, as hyperfine's `src/export/`. Commands hand a [`Document`]
//! to [`render`] (stdout) or [`save`] (files in a results folder).

pub mod charts;
mod csv;
pub mod gallery;
pub mod html;
mod json;
mod markdown;
pub mod measures;
pub mod text;

use crate::compare::Comparison;
use crate::matrix::MatrixResults;
use crate::placement::VerifyReport;
use crate::predict::gallery::Gallery;
use crate::predict::{CheckResults, PredictResults};
use crate::results::{ResultFile, WriteError, write_atomic};
use crate::runner::{RunResults, StrategyResult};
use crate::study::{StudyPlan, StudyResults};
use crate::sweep::SweepResults;
use crate::topology::{SpreadReport, Topology};
use std::fmt;
use std::path::{Path, PathBuf};

/// Anything contend renders; as JSON, the thing itself.
#[derive(Clone, Copy, serde::Serialize)]
#[serde(untagged)]
pub enum Document<'a> {
    /// A `contend run` (run.json).
    Run(&'a RunResults),
    /// A `contend sweep` (sweep.json).
    Sweep(&'a SweepResults),
    /// A `contend matrix` (matrix.json).
    Matrix(&'a MatrixResults),
    /// A `contend compare`: as text, the patch table ([`crate::verdict::Detail::Brief`]) or every
    /// measure of every pair (`Full`, `--verbose`); Markdown always shows every measure.
    #[serde(skip)]
    Compare(&'a Comparison<'a>, crate::verdict::Detail),
    /// A `contend verify`.
    Verify(&'a VerifyReport),
    /// The host layout (`contend topology`).
    Topology(&'a Topology),
    /// A `contend spread`.
    Spread(&'a SpreadReport),
    /// A `contend predict` (predict.json).
    Predict(&'a PredictResults),
    /// A `contend predict --check`: the model against a measured run.
    Check(&'a CheckResults),
    /// A `contend study --dry-run`: what it would run.
    StudyPlan(&'a StudyPlan),
    /// A `contend study` (study.json, its parts in their own files).
    Study(&'a StudyResults),
    /// A `contend gallery` (gallery.json, gallery.md, gallery.html).
    Gallery(&'a Gallery),
}

impl Document<'_> {
    /// The kind's name, as file names use it (`run`, `sweep`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            Document::Run(_) => "run",
            Document::Sweep(_) => "sweep",
            Document::Matrix(_) => "matrix",
            Document::Compare(..) => "compare",
            Document::Verify(_) => "verify",
            Document::Topology(_) => "topology",
            Document::Spread(_) => "spread",
            Document::Predict(_) => "predict",
            Document::Check(_) => "check",
            Document::StudyPlan(_) => "study-plan",
            Document::Study(_) => "study",
            Document::Gallery(_) => "gallery",
        }
    }
}

impl<'a> From<&'a ResultFile> for Document<'a> {
    fn from(file: &'a ResultFile) -> Self {
        match file {
            ResultFile::Run(r) => Document::Run(r),
            ResultFile::Sweep(s) => Document::Sweep(s),
            ResultFile::Matrix(m) => Document::Matrix(m),
        }
    }
}

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned text for a terminal.
    Text,
    /// Markdown tables for a patch description or a pull request.
    Markdown,
    /// CSV rows for spreadsheets and scripts.
    Csv,
    /// The whole model as pretty JSON (the result files).
    Json,
    /// SVG charts.
    Svg,
    /// One self-contained page (report.html).
    Html,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Text => "text",
            Format::Markdown => "Markdown",
            Format::Csv => "CSV",
            Format::Json => "JSON",
            Format::Svg => "SVG",
            Format::Html => "HTML",
        })
    }
}

/// One rendered file: its name inside a results folder and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// File name (`run.json`, `latency.svg`).
    pub name: String,
    /// Contents.
    pub bytes: Vec<u8>,
}

impl Rendered {
    /// A file named `name` holding `bytes`.
    pub fn new(name: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        Rendered {
            name: name.into(),
            bytes: bytes.into(),
        }
    }
}

/// A plotters drawing that failed, with plotters' message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DrawError(pub String);

impl DrawError {
    /// The same error, naming the chart it happened in.
    pub fn in_chart(self, chart: &str) -> Self {
        DrawError(format!("{chart}: {}", self.0))
    }
}

/// Why a document could not be rendered or saved.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A chart could not be drawn.
    #[error("charts: {0}")]
    Draw(#[from] DrawError),
    /// CSV serialisation failed.
    #[error("{file}: {source}")]
    Csv {
        /// The file being made.
        file: String,
        /// Why.
        source: ::csv::Error,
    },
    /// JSON serialisation failed.
    #[error("{file}: {source}")]
    Json {
        /// The file being made.
        file: String,
        /// Why.
        source: serde_json::Error,
    },
    /// The format has nothing for this kind of result.
    #[error("{format} output is not available for {kind} results")]
    Unsupported {
        /// The format asked for.
        format: Format,
        /// The kind of result.
        kind: &'static str,
    },
    /// Writing a file failed.
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// The files `format` makes of `doc`, in the order written.
pub fn files(doc: &Document, format: Format) -> Result<Vec<Rendered>, ExportError> {
    match format {
        Format::Text => Ok(text::files(doc)),
        Format::Markdown => Ok(markdown::files(doc)),
        Format::Csv => csv::files(doc),
        Format::Json => json::files(doc),
        Format::Svg => charts::files(doc),
        Format::Html => html::files(doc),
    }
}

/// `doc` in `format` as one text (for stdout or an `--out` file).
pub fn render(doc: &Document, format: Format) -> Result<String, ExportError> {
    let mut files = files(doc, format)?;
    if files.is_empty() {
        return Err(ExportError::Unsupported {
            format,
            kind: doc.kind(),
        });
    }
    let file = files.swap_remove(0);
    Ok(String::from_utf8_lossy(&file.bytes).into_owned())
}

/// Writes every file of `doc` in each of `formats` into `dir`.
pub fn save(dir: &Path, doc: &Document, formats: &[Format]) -> Result<Vec<PathBuf>, ExportError> {
    let mut written = Vec::new();
    for &format in formats {
        for file in files(doc, format)? {
            let path = dir.join(&file.name);
            write_atomic(&path, &file.bytes)?;
            written.push(path);
        }
    }
    Ok(written)
}

/// `text` broken at spaces into lines of at most `width` characters (a longer word stays whole).
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// An untrusted string read from a result file as plain text on one line.
pub fn plain(text: &str) -> String {
    text.chars()
        .filter_map(|c| match c {
            '\n' | '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

/// The repeats these results ran if every final sum was exact, else the inexact ones' names.
pub(crate) fn exactness<'a>(
    named: impl Iterator<Item = (&'a StrategyResult, String)>,
) -> Result<usize, Vec<String>> {
    let mut named: Vec<_> = named.collect();
    let repeats = named.iter().map(|(s, _)| s.repeats.len()).sum();
    named.retain(|(s, _)| !s.exact);
    let wrong: Vec<String> = named.into_iter().map(|n| n.1).collect();
    wrong.is_empty().then_some(repeats).ok_or(wrong)
}

/// A check's error for a cell: `12%`, or why none (`-` when nothing says).
pub(crate) fn error_cell(e: Option<f64>, why: Option<&str>) -> String {
    e.map_or(why.unwrap_or("-").to_string(), |e| format!("{e:.0}%"))
}

/// `ns` to one decimal, or `-` for none.
pub(crate) fn ns_or_dash(ns: Option<f64>) -> String {
    ns.map_or("-".into(), |ns| format!("{ns:.1}"))
}

/// Writes `text` to `path` atomically (an `--out` file).
pub fn save_text(path: &Path, text: &str) -> Result<(), ExportError> {
    Ok(write_atomic(path, text.as_bytes())?)
}
