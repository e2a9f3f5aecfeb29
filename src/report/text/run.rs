//! The run as a text table in the seeds' style, one section per measure:
//! `90569±1.15%` per level, and the change against the first level.

use crate::counter::ShardLevel;
use crate::report::measures::{RowLabels, measure_table, run_findings, shown_measures, unique};
use crate::results::{RunResults, StrategyResult, SweepResults};
use crate::topology::CpuList;
use std::fmt::Write;

/// Renders the results as the table `contend run` prints.
pub fn render(run: &RunResults) -> String {
    let mut out = String::new();
    let cfg = &run.config;
    let p = &run.provenance;
    let nodes = |cpus: &[u32]| -> CpuList {
        cpus.iter()
            .filter_map(|&c| run.topology.node_of_cpu(c))
            .collect()
    };
    let _ = writeln!(
        out,
        "contend {} on {} ({}), Linux {}, {}",
        p.contend_version, p.hostname, p.cpu_model, p.kernel_release, p.started_utc
    );
    let _ = write!(
        out,
        "{} writers on CPUs {} (nodes {})",
        cfg.writer_cpus.len(),
        cfg.writer_cpus.iter().copied().collect::<CpuList>(),
        nodes(&cfg.writer_cpus)
    );
    if cfg.reader_cpus.is_empty() {
        let _ = match cfg.read_every {
            0 => writeln!(out, ", no read side"),
            1 => writeln!(out, ", each running the read side after every update"),
            k => writeln!(out, ", each running the read side every {k} updates"),
        };
    } else {
        let _ = writeln!(
            out,
            ", {} readers on CPUs {} (nodes {})",
            cfg.reader_cpus.len(),
            cfg.reader_cpus.iter().copied().collect::<CpuList>(),
            nodes(&cfg.reader_cpus)
        );
    }
    let _ = writeln!(
        out,
        "{} repeats x {:.0} ms per strategy (+{:.0} ms warm-up), mean±stddev; change vs {}{}",
        cfg.repeats,
        cfg.repeat_duration_s * 1e3,
        cfg.warmup_s * 1e3,
        run.strategies
            .first()
            .map_or("-", |s| s.strategy.level.name()),
        if run.partial {
            "; PARTIAL (interrupted)"
        } else {
            ""
        }
    );

    if cfg.sample_every > 0 {
        let _ = writeln!(
            out,
            "latency: 1 op in {} timed with {} ({:.1} ns timer overhead subtracted)",
            cfg.sample_every, cfg.timer, cfg.timer_overhead_ns
        );
    }
    let levels = unique(
        run.strategies
            .iter()
            .map(|s| s.strategy.level.name().to_string()),
    );
    let labels = RowLabels::new(run.strategies.iter());
    let row_label = |s: &StrategyResult| labels.label(s);
    let rows = unique(run.strategies.iter().map(row_label));
    let cell = |row: &str, level: &str| -> Option<&StrategyResult> {
        run.strategies
            .iter()
            .find(|s| row_label(s) == row && s.strategy.level.name() == level)
    };
    let resolution_ns = 2.0 * cfg.timer_overhead_ns;
    for m in shown_measures(run.strategies.iter(), run.config.rate.is_some()) {
        let mut table: Vec<Vec<String>> = Vec::new();
        let mut header = vec![String::new()];
        header.extend(levels.iter().map(|l| l.to_string()));
        table.push(header);
        let values: Vec<Vec<_>> = rows
            .iter()
            .map(|row| {
                levels
                    .iter()
                    .map(|level| cell(row, level).and_then(|s| m.of(s)))
                    .collect()
            })
            .collect();
        for (row, cells) in rows.iter().zip(measure_table(m, &values, resolution_ns)) {
            let mut line = vec![row.clone()];
            line.extend(cells.iter().map(|c| match c.change_pct {
                Some(_) => format!("{}  {}", c.value, c.change_text()),
                None => c.value.clone(),
            }));
            table.push(line);
        }
        let _ = writeln!(out, "\n{}", m.title);
        out.push_str(&align(&table));
    }

    let repeats: usize = run.strategies.iter().map(|s| s.repeats.len()).sum();
    let inexact: Vec<&str> = run
        .strategies
        .iter()
        .filter(|s| !s.exact)
        .map(|s| s.name.as_str())
        .collect();
    if inexact.is_empty() {
        let _ = writeln!(out, "\nexact sums: all {repeats} repeats exact");
    } else {
        let _ = writeln!(out, "\nexact sums: WRONG for {}", inexact.join(", "));
    }
    let clocks = unique(run.strategies.iter().filter_map(|s| {
        Some(format!(
            "{} {:.1} ns",
            s.strategy.clock?.name(),
            s.clock_read_ns?
        ))
    }));
    if !clocks.is_empty() {
        let _ = writeln!(out, "ratelimit clock read cost: {}", clocks.join(", "));
    }
    if let Some(steps) = run
        .strategies
        .iter()
        .find(|s| s.strategy.level == ShardLevel::Node)
        .and_then(|s| s.read_steps)
    {
        let _ = writeln!(
            out,
            "node-level read: {steps} steps (--node-iter {})",
            run.config.node_iter.name()
        );
    }
    for line in run_findings(run) {
        let _ = writeln!(out, "{line}");
    }
    let unverified = run
        .strategies
        .iter()
        .flat_map(|s| &s.threads)
        .filter(|t| !t.verified)
        .count();
    let _ = writeln!(
        out,
        "placement: threads {}, slots {}",
        if unverified == 0 {
            "pinned and verified (sched_getcpu)".to_string()
        } else {
            format!("{unverified} UNVERIFIED")
        },
        slot_nodes_line(run)
    );
    for note in &run.notes {
        let _ = writeln!(out, "note: {note}");
    }
    out.push_str(&crate::report::answer::text(&crate::answer::run_lines(run)));
    out
}

/// A sweep as text: the run table of every point, under a heading naming
/// its thread count and affinity set.
pub fn sweep_text(sweep: &SweepResults) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "contend sweep: {} points{}",
        sweep.points.len(),
        if sweep.partial {
            "; PARTIAL (interrupted)"
        } else {
            ""
        }
    );
    for p in &sweep.points {
        let rate = p
            .rate
            .map_or(String::new(), |r| format!(", {r} ops/s per thread"));
        let _ = writeln!(
            out,
            "\n=== {} threads, affinity {}{rate} ===",
            p.threads, p.affinity
        );
        out.push_str(&render(&p.results));
    }
    out.push_str(&crate::report::answer::text(&crate::answer::sweep_lines(
        sweep,
    )));
    out
}

fn slot_nodes_line(run: &RunResults) -> String {
    let verified = run
        .strategies
        .iter()
        .flat_map(|s| &s.slots)
        .all(|s| matches!(s.check, crate::placement::NodeCheck::Verified { .. }));
    let nodes: CpuList = run
        .strategies
        .iter()
        .flat_map(|s| &s.slots)
        .map(|s| s.node)
        .collect();
    if verified {
        format!("on nodes {nodes}, verified (move_pages)")
    } else {
        format!("on nodes {nodes}, some UNVERIFIED")
    }
}

fn align(table: &[Vec<String>]) -> String {
    let cols = table.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            table
                .iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in table {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let pad = widths[c] - cell.chars().count();
            line.push_str(cell);
            line.push_str(&" ".repeat(pad + 3));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
