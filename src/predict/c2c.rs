//! core-to-core-latency's CSV (nviennot/core-to-core-latency, `--csv`): one row per CPU, row `i`
//! holding the one-way CAS latency in ns from CPU `i` to each CPU `j < i` and empty cells
//! elsewhere.

use crate::matrix::MatrixResults;
use std::fmt::Write;

/// The most CPUs a file may have: 4,096 (a 16 Mi-cell matrix).
pub const MAX_CPUS: usize = 4096;

/// The one-way transfer time between every two CPUs, ns, symmetric; CPU `i` is the file's row `i`.
#[derive(Debug, Clone, PartialEq)]
pub struct PairMatrix {
    n: usize,
    /// Row-major, `n` × `n`.
    pub(super) ns: Vec<f64>,
    /// What the reader had to assume, one sentence each.
    pub notes: Vec<String>,
}

impl PairMatrix {
    /// A matrix of `n` CPUs with `ns(i, j)` for every `i > j`.
    pub fn from_fn(n: usize, mut ns: impl FnMut(usize, usize) -> f64) -> Self {
        let mut m = PairMatrix {
            n,
            ns: vec![0.0; n * n],
            notes: Vec::new(),
        };
        for (i, j) in (0..n).flat_map(|i| (0..i).map(move |j| (i, j))) {
            let v = ns(i, j);
            (m.ns[i * n + j], m.ns[j * n + i]) = (v, v);
        }
        m
    }

    /// A `contend matrix` result in this format: row `i` the matrix's `i`-th CPU.
    pub fn of_matrix(m: &MatrixResults) -> Option<Self> {
        let mut cpus = m.config.cpus.clone();
        cpus.sort_unstable();
        cpus.dedup();
        let index = |c: u32| cpus.binary_search(&c).ok();
        let n = cpus.len();
        let mut ns = vec![None; n * n];
        for p in &m.pairs {
            let (a, b) = (index(p.cpus[0])?, index(p.cpus[1])?);
            ns[a * n + b] = Some(p.median_ns);
            ns[b * n + a] = Some(p.median_ns);
        }
        let missing = (0..n).any(|i| (0..i).any(|j| ns[i * n + j].is_none()));
        (!missing).then(|| PairMatrix::from_fn(n, |i, j| ns[i * n + j].unwrap_or_default()))
    }

    /// How many CPUs.
    pub fn cpus(&self) -> usize {
        self.n
    }

    /// The one-way time between CPUs `i` and `j`, ns (0 for `i == j`).
    pub fn ns(&self, i: usize, j: usize) -> f64 {
        self.ns[i * self.n + j]
    }

    /// The matrix as core-to-core-latency writes it.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        for i in 0..self.n {
            for j in 0..self.n {
                if j > 0 {
                    out.push(',');
                }
                if j < i {
                    let _ = write!(out, "{}", self.ns(i, j));
                }
            }
            out.push('\n');
        }
        out
    }
}

/// Why a file is not a core-to-core-latency matrix.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum C2cError {
    /// No rows at all.
    #[error("empty: no rows")]
    Empty,
    /// Too few CPUs to tell any class from another.
    #[error("{cpus} CPUs: too small to infer anything (at least 3 are needed)")]
    TooSmall {
        /// The CPUs the file has.
        cpus: usize,
    },
    /// More CPUs than [`MAX_CPUS`].
    #[error("{cpus} rows: more than {MAX_CPUS} CPUs")]
    TooLarge {
        /// The rows the file has.
        cpus: usize,
    },
    /// A row with another number of cells than the file has rows.
    #[error("row {row} has {cells} cells; a matrix of {rows} rows needs {rows} (ragged rows)")]
    Ragged {
        /// The row (0-based).
        row: usize,
        /// Its cells.
        cells: usize,
        /// The rows of the file.
        rows: usize,
    },
    /// A cell that is not a latency: not a number, negative, 0, NaN or infinite.
    #[error("row {row}, column {col}: \"{text}\" is {why}")]
    Cell {
        /// The row (0-based).
        row: usize,
        /// The column (0-based).
        col: usize,
        /// The cell as written (at most 40 characters).
        text: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A pair that neither triangle gives.
    #[error(
        "row {row}, column {col}: empty in both triangles (no latency for CPUs {row} and {col})"
    )]
    Missing {
        /// The row (0-based).
        row: usize,
        /// The column (0-based).
        col: usize,
    },
    /// Every cell 0: a run that measured nothing.
    #[error("every cell is 0 ns: a run that measured nothing, nothing to infer")]
    AllZero,
}

/// Reads core-to-core-latency's CSV. See the module docs.
pub fn parse(text: &str) -> Result<PairMatrix, C2cError> {
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let end = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(0, |p| p + 1);
    let rows: Vec<Vec<&str>> = lines[..end]
        .iter()
        .map(|l| l.split(',').collect())
        .collect();
    let n = rows.len();
    if n == 0 {
        return Err(C2cError::Empty);
    }
    if n > MAX_CPUS {
        return Err(C2cError::TooLarge { cpus: n });
    }
    let mut notes = Vec::new();
    // A trailing comma on every row: one empty cell past the last column.
    let trailing = rows
        .iter()
        .all(|r| r.len() == n + 1 && r[n].trim().is_empty());
    if trailing {
        notes.push("every row ends in a comma: the empty last cell is ignored".to_string());
    }
    let mut cells: Vec<Option<f64>> = vec![None; n * n];
    let (mut lower, mut upper, mut diagonal, mut zeros) = (0usize, 0usize, 0usize, 0usize);
    for (row, r) in rows.iter().enumerate() {
        let r = if trailing { &r[..n] } else { &r[..] };
        for (col, text) in r.iter().enumerate().take(n) {
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            let v = cell(text, row, col)?;
            match col.cmp(&row) {
                std::cmp::Ordering::Less => lower += 1,
                std::cmp::Ordering::Greater => upper += 1,
                std::cmp::Ordering::Equal => {
                    diagonal += 1;
                    continue;
                }
            }
            if v == 0.0 {
                zeros += 1;
            }
            cells[row * n + col] = Some(v);
        }
        if r.len() != n {
            return Err(C2cError::Ragged {
                row,
                cells: r.len(),
                rows: n,
            });
        }
    }
    if zeros > 0 && zeros == lower + upper {
        return Err(C2cError::AllZero);
    }
    if n <= 2 {
        return Err(C2cError::TooSmall { cpus: n });
    }
    if upper > 0 && lower == 0 {
        notes.push("the file holds the upper triangle: read as its mirror".to_string());
    } else if upper > 0 {
        notes.push(
            "the file holds both triangles: each pair is the mean of its two cells".to_string(),
        );
    }
    if diagonal > 0 {
        notes.push(format!(
            "{diagonal} diagonal cells (a CPU with itself) are ignored"
        ));
    }
    let mut m = mirrored(n, &cells)?;
    m.notes = notes;
    Ok(m)
}

/// One cell's latency, ns; an error names the cell and what is wrong.
fn cell(text: &str, row: usize, col: usize) -> Result<f64, C2cError> {
    let err = |why| C2cError::Cell {
        row,
        col,
        text: text.chars().take(40).collect(),
        why,
    };
    match text.parse::<f64>().map_err(|_| err("not a number"))? {
        v if v.is_nan() => Err(err("NaN, not a latency")),
        v if v.is_infinite() => Err(err("infinite, not a latency")),
        v if v < 0.0 => Err(err("negative, not a latency")),
        v => Ok(v),
    }
}

/// The pair matrix of `cells` (row-major, `n` × `n`).
fn mirrored(n: usize, cells: &[Option<f64>]) -> Result<PairMatrix, C2cError> {
    let mut m = PairMatrix::from_fn(n, |_, _| 0.0);
    for i in 0..n {
        for j in 0..i {
            let v = match (cells[i * n + j], cells[j * n + i]) {
                (Some(a), Some(b)) => 0.5 * (a + b),
                (Some(v), None) | (None, Some(v)) => v,
                (None, None) => return Err(C2cError::Missing { row: i, col: j }),
            };
            if v == 0.0 {
                let col = if cells[i * n + j].is_some() { j } else { i };
                let row = if col == j { i } else { j };
                return Err(C2cError::Cell {
                    row,
                    col,
                    text: "0".into(),
                    why: "0 ns, not a latency",
                });
            }
            (m.ns[i * n + j], m.ns[j * n + i]) = (v, v);
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::tests::{noted, says};

    #[test]
    fn reads_the_lower_triangle_with_empty_cells() {
        let m = parse(",,\n5,,\n20,6.5,\n").unwrap();
        assert_eq!(m.cpus(), 3);
        assert_eq!((m.ns(1, 0), m.ns(0, 1)), (5.0, 5.0));
        assert_eq!((m.ns(2, 0), m.ns(2, 1), m.ns(1, 2)), (20.0, 6.5, 6.5));
        assert!(m.notes.is_empty());
        // Written back the same way, it reads the same.
        assert_eq!(m.to_csv(), ",,\n5,,\n20,6.5,\n");
        assert_eq!(parse(&m.to_csv()).unwrap(), m);
    }

    #[test]
    fn a_matrix_of_every_pair_writes_in_cpu_order_and_a_sample_does_not() {
        // Every pair of CPUs 2, 5 and 9 at 10, 20 and 30 ns: rows in CPU order whatever the pairs'
        // order.
        let pair = |a, b, ns| {
            crate::matrix::fixture_pair(a, b, crate::matrix::PairClass::SameLlc, ns, &[])
        };
        let mut m = crate::matrix::fixture_matrix(&crate::runner::fixture_run(), Vec::new());
        m.config.cpus = vec![9, 2, 5];
        m.pairs = vec![pair(5, 9, 30.0), pair(2, 5, 10.0), pair(2, 9, 20.0)];
        let c = PairMatrix::of_matrix(&m).unwrap();
        assert_eq!(c.to_csv(), ",,\n10,,\n20,30,\n");
        m.pairs.pop();
        assert_eq!(PairMatrix::of_matrix(&m), None);
    }

    #[test]
    fn takes_a_trailing_comma_an_upper_triangle_and_both_with_notes() {
        let m = parse(",,,\n5,,,\n20,6.5,,\n").unwrap();
        assert_eq!(m.ns(2, 1), 6.5);
        says(&m.notes[0], "ends in a comma");
        let up = parse(",5,20\n,,6.5\n,,\n").unwrap();
        assert_eq!((up.ns(1, 0), up.ns(2, 0), up.ns(2, 1)), (5.0, 20.0, 6.5));
        says(&up.notes[0], "upper triangle");
        let both = parse("1,5,20\n7,,6.5\n20,6.5,\n").unwrap();
        assert_eq!(both.ns(1, 0), 6.0);
        noted(&both.notes, "both triangles");
        noted(&both.notes, "1 diagonal cells");
    }

    #[test]
    fn bad_cells_name_their_row_and_column() {
        let err = |t: &str| parse(t).unwrap_err().to_string();
        let zeros = "every cell is 0 ns: a run that measured nothing, nothing to infer";
        let ragged = "row 1 has 2 cells; a matrix of 3 rows needs 3 (ragged rows)";
        let missing = "row 2, column 0: empty in both triangles (no latency for CPUs 2 and 0)";
        let small = "2 CPUs: too small to infer anything (at least 3 are needed)";
        // Text, negative and NaN cells are tests/c2c.rs's (bad_files_are_one_line_naming_...).
        for (text, want) in [
            (
                ",,\ninf,,\n20,3,\n",
                "row 1, column 0: \"inf\" is infinite, not a latency",
            ),
            (
                ",,\n5,,\n0,3,\n",
                "row 2, column 0: \"0\" is 0 ns, not a latency",
            ),
            (",,\n5,\n20,3,\n", ragged),
            (",,\n5,,\n,3,\n", missing),
            (",,\n0,,\n0,0,\n", zeros),
            (",\n5,\n", small),
            ("\n\n", "empty: no rows"),
        ] {
            assert_eq!(err(text), want, "{text:?}");
        }
        let header = "Num cores: 2\nUsing RDTSC to measure time: false\n";
        says(
            &err(header),
            "row 0, column 0: \"Num cores: 2\" is not a number",
        );
        let big = ",".repeat(MAX_CPUS) + "\n";
        assert_eq!(
            err(&big.repeat(MAX_CPUS + 1)),
            "4097 rows: more than 4096 CPUs"
        );
    }
}
