//! matrix.csv: the median one-way ns of every initiating × responding CPU.

use crate::matrix::MatrixResults;

/// matrix.csv's first header cell: cells are one-way ns = round trip ÷ 2.
const MATRIX_CSV_CORNER: &str = "initiator\\responder (median one-way ns = round trip / 2)";

/// matrix.csv: CPU ids in the header row and first column; cell (i, j) the median one-way ns with i
/// initiating.
pub(super) fn render(r: &MatrixResults) -> Result<Vec<u8>, csv::Error> {
    let cpus = &r.config.cpus;
    let index = |cpu: u32| cpus.binary_search(&cpu).ok();
    let mut cells = vec![vec![String::new(); cpus.len()]; cpus.len()];
    for p in &r.pairs {
        for d in [&p.forward, &p.backward] {
            if let (Some(i), Some(j)) = (index(d.from), index(d.to)) {
                cells[i][j] = format!("{:.1}", d.median_ns);
            }
        }
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    // The corner cell says what the cells are, for a reader of the bare file: one-way ns, a round
    // trip's time halved.
    let header =
        std::iter::once(MATRIX_CSV_CORNER.to_string()).chain(cpus.iter().map(u32::to_string));
    w.write_record(header)?;
    for (cpu, row) in cpus.iter().zip(cells) {
        w.write_record(std::iter::once(cpu.to_string()).chain(row))?;
    }
    w.into_inner().map_err(|e| e.into_error().into())
}
