//! CSV: run.csv (one row per strategy and repeat, the headline numbers), sweep.csv (one row per
//! point and strategy, summarised over repeats) and matrix.csv (median one-way ns per initiating ×
//! responding CPU). The JSON files have everything; these are for spreadsheets.

mod matrix;
mod run;
mod sweep;

use super::{Document, ExportError, Rendered};

/// `<kind>.csv` for runs, sweeps and matrices.
pub(super) fn files(doc: &Document) -> Result<Vec<Rendered>, ExportError> {
    let bytes = match doc {
        Document::Run(r) => run::render(r),
        Document::Sweep(s) => sweep::render(s),
        Document::Matrix(m) => matrix::render(m),
        _ => return Ok(Vec::new()),
    };
    let file = format!("{}.csv", doc.kind());
    let bytes = bytes.map_err(|source| ExportError::Csv {
        file: file.clone(),
        source,
    })?;
    Ok(vec![Rendered::new(file, bytes)])
}
