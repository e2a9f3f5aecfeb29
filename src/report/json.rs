//! JSON: the whole model, pretty-printed, with a final newline. This is what run.json, sweep.json
//! and matrix.json hold, and what `--json` prints.

use super::{Document, ExportError, Rendered};
use serde_json::to_vec_pretty as json;

/// `<kind>.json`.
pub(super) fn files(doc: &Document) -> Result<Vec<Rendered>, ExportError> {
    // A comparison is derived from two result files: they are its data.
    if let Document::Compare(..) = doc {
        return Ok(Vec::new());
    }
    let file = format!("{}.json", doc.kind());
    let mut bytes = json(doc).map_err(|source| ExportError::Json {
        file: file.clone(),
        source,
    })?;
    bytes.push(b'\n');
    Ok(vec![Rendered::new(file, bytes)])
}
