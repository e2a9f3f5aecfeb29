//! SVG: the charts of a run or sweep ([`super::charts`]) and a matrix's
//! heatmap ([`super::heatmap`]), drawn with plotters' SVG backend.

use super::{Document, Export, ExportError, Rendered, charts, heatmap};

/// Writes every chart of a result.
pub struct SvgExport;

impl Export for SvgExport {
    fn render(&self, doc: &Document) -> Result<Vec<Rendered>, ExportError> {
        let drawn = match doc {
            Document::Run(r) => charts::run_charts(r, "")?,
            Document::Sweep(s) => charts::sweep_charts(s)?,
            Document::Predict(p) => charts::predict_charts(p)?,
            Document::Matrix(m) => vec![("heatmap.svg".to_string(), heatmap::render(m)?)],
            _ => Vec::new(),
        };
        Ok(drawn
            .into_iter()
            .map(|(name, svg)| Rendered::new(name, svg))
            .collect())
    }
}
