//! run.json: the whole [`RunResults`], pretty-printed.

use super::Export;
use crate::results::RunResults;

/// Writes run.json.
pub struct JsonExport;

impl Export for JsonExport {
    fn file_name(&self) -> &'static str {
        "run.json"
    }

    fn render(&self, run: &RunResults) -> Result<Vec<u8>, String> {
        let mut bytes = serde_json::to_vec_pretty(run).map_err(|e| e.to_string())?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}
