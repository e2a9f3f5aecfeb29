//! A run (run.json) as Markdown: the provenance header, the verdict, one
//! table per measure and regime, what the numbers rest on, exactness and
//! notes.

use super::{escape, exactness, grid_table, notes, provenance_list, repeats_line, verdicts};
use crate::report::measures::{StrategyGrid, table_measures, table_title};
use crate::runner::RunResults;
use crate::topology::CpuList;
use crate::verdict::basis::basis_lines;
use std::fmt::Write;

/// A run (run.json) as Markdown.
pub(super) fn render(run: &RunResults) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## contend run on {}{}\n",
        escape(&run.provenance.hostname),
        if run.partial {
            " (PARTIAL: interrupted)"
        } else {
            ""
        }
    );
    provenance_list(&mut out, &run.provenance);
    let _ = writeln!(out, "- **workload:** {}", workload(run));
    let _ = writeln!(out, "- **repeats:** {}", repeats_line(&run.config));
    out.push_str(&verdicts(&crate::verdict::run_lines(run)));
    for view in run.regimes() {
        let _ = writeln!(out, "\n### {}", view.regime());
        regime_markdown(&mut out, &view);
    }
    out.push('\n');
    exactness(&mut out, run.strategies.iter());
    notes(&mut out, run.notes.iter().map(String::as_str));
    out
}

/// One regime's view: a table per measure, then what its numbers rest on.
fn regime_markdown(out: &mut String, run: &RunResults) {
    let grid = StrategyGrid::of_run(run);
    for m in table_measures(run) {
        let _ = writeln!(out, "\n#### {}\n", table_title(m, run.regime().is_paced()));
        out.push_str(&grid_table(m, &grid));
    }
    for line in basis_lines(run) {
        let _ = writeln!(out, "\n{}", escape(&line));
    }
}

/// Who ran: writers, readers and where, as the text table says it.
fn workload(run: &RunResults) -> String {
    let cfg = &run.config;
    let nodes = |cpus: &[u32]| -> CpuList {
        cpus.iter()
            .filter_map(|&c| run.topology.node_of_cpu(c))
            .collect()
    };
    let writers = format!(
        "{} writers on CPUs {} (nodes {})",
        cfg.writer_cpus.len(),
        cfg.writer_cpus.iter().copied().collect::<CpuList>(),
        nodes(&cfg.writer_cpus)
    );
    let readers = if !cfg.reader_cpus.is_empty() {
        format!(
            ", {} readers on CPUs {} (nodes {})",
            cfg.reader_cpus.len(),
            cfg.reader_cpus.iter().copied().collect::<CpuList>(),
            nodes(&cfg.reader_cpus)
        )
    } else {
        match cfg.read_every {
            0 => ", no read side".to_string(),
            1 => ", each running the read side after every update".to_string(),
            k => format!(", each running the read side every {k} updates"),
        }
    };
    writers + &readers
}
