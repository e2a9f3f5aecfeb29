//! Text for a terminal, one module per kind of result.

mod compare;
mod matrix;
mod placement;
mod run;
mod spread;
mod topology;

pub use compare::compare_text;
pub use run::{render as run_text, sweep_text, tables as run_tables};

use super::{Document, Export, ExportError, Rendered};

/// Writes `<kind>.txt`: what each command prints.
pub struct TextExport;

impl Export for TextExport {
    fn render(&self, doc: &Document) -> Result<Vec<Rendered>, ExportError> {
        let text = match doc {
            Document::Run(r) => run::render(r),
            Document::Sweep(s) => run::sweep_text(s),
            Document::Matrix(m) => matrix::render(m),
            Document::Compare(c) => compare::compare_text(c),
            Document::Verify(v) => placement::render(v),
            Document::Topology(t) => topology::render(t),
            Document::Spread(s) => spread::render(s),
        };
        Ok(vec![Rendered::new(format!("{}.txt", doc.kind()), text)])
    }
}
