//! JSON: the whole model, pretty-printed, with a final newline. This is what run.json, sweep.json
//! and matrix.json hold, and what `--json` prints.

use super::{Document, Export, ExportError, Rendered};
use serde_json::to_vec_pretty as json;

/// Writes `<kind>.json`.
pub struct JsonExport;

impl Export for JsonExport {
    fn render(&self, doc: &Document) -> Result<Vec<Rendered>, ExportError> {
        let bytes = match doc {
            Document::Run(r) => json(r),
            Document::Sweep(s) => json(s),
            Document::Matrix(m) => json(m),
            Document::Verify(v) => json(v),
            Document::Topology(t) => json(t),
            Document::Spread(s) => json(s),
            Document::Predict(p) => json(p),
            Document::Check(c) => json(c),
            Document::StudyPlan(p) => json(p),
            Document::Study(s) => json(s),
            Document::Gallery(g) => json(g),
            // A comparison is derived from two result files: they are its data.
            Document::Compare(..) => return Ok(Vec::new()),
        };
        let file = format!("{}.json", doc.kind());
        let mut bytes = bytes.map_err(|source| ExportError::Json {
            file: file.clone(),
            source,
        })?;
        bytes.push(b'\n');
        Ok(vec![Rendered::new(file, bytes)])
    }
}
