//! JSON: the whole model, pretty-printed, with a final newline. This is what run.json, sweep.json
//! and matrix.json hold, and what `--json` prints.

use super::{Document, Export, ExportError, Rendered};
use serde::Serialize;

/// Writes `<kind>.json`.
pub struct JsonExport;

impl Export for JsonExport {
    fn render(&self, doc: &Document) -> Result<Vec<Rendered>, ExportError> {
        let bytes = match doc {
            Document::Run(r) => pretty(r, "run.json")?,
            Document::Sweep(s) => pretty(s, "sweep.json")?,
            Document::Matrix(m) => pretty(m, "matrix.json")?,
            Document::Verify(v) => pretty(v, "verify.json")?,
            Document::Topology(t) => pretty(t, "topology.json")?,
            Document::Spread(s) => pretty(s, "spread.json")?,
            Document::Predict(p) => pretty(p, "predict.json")?,
            Document::Check(c) => pretty(c, "check.json")?,
            Document::StudyPlan(p) => pretty(p, "study-plan.json")?,
            Document::Study(s) => pretty(s, "study.json")?,
            Document::Gallery(g) => pretty(g, "gallery.json")?,
            // A comparison is derived from two result files: they are its data.
            Document::Compare(..) => return Ok(Vec::new()),
        };
        Ok(vec![Rendered::new(format!("{}.json", doc.kind()), bytes)])
    }
}

fn pretty(value: &impl Serialize, file: &str) -> Result<Vec<u8>, ExportError> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|source| ExportError::Json {
        file: file.to_string(),
        source,
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}
