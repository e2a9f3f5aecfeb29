//! A run for the terminal: the first screen `contend run` prints (header,
//! headline, verdict, one compact table of every strategy in every regime, what the
//! numbers rest on) and, behind `--verbose`, the full tables in the seeds'
//! style, one section per measure: `90569±1.15%` per level, and the change
//! against the first level.

use super::align;
use crate::counter::ShardLevel;
use crate::report::measures::{RowLabels, StrategyGrid, table_measures, table_title, unique};
use crate::report::plain;
use crate::runner::{RunResults, StrategyResult};
use crate::topology::CpuList;
use crate::units::{Unit, human, spread_text};
use crate::verdict::basis::{
    NOISY_CV_PCT, alone_line, basis_lines, interference_line, line_cost_line, noisy_cv, unconverged,
};
use crate::workload::Regime;
use std::fmt::Write;

/// The first screen of a run: who and where, the headline (the answer at
/// the seed's rate, then flat out), the verdict, one compact
/// table (per strategy: flat out, ns/op from throughput, net of the
/// harness floor, updates/s and updates per ownership; per paced regime,
/// net ns per update, net CPU share and busy ns/op), and the lines that
/// say what the numbers rest on. `--verbose` adds [`tables`].
pub fn render(run: &RunResults) -> String {
    let mut out = header(run);
    let regimes = run.regimes();
    let _ = writeln!(
        out,
        "regimes, interleaved: {}",
        regimes
            .iter()
            .map(|v| v.regime().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    out.push('\n');
    out.push_str(&super::headline(&crate::verdict::headline(run)));
    out.push('\n');
    out.push_str(&super::brief_verdicts(&crate::verdict::run_lines(run)));
    out.push('\n');
    out.push_str(&align(&compact_table(&regimes)));
    let _ = writeln!(
        out,
        "± = stddev over repeats; ns/op = writers x interval / updates; net = less the floor of its regime (flat out: the same loop alone; paced: the same paced loop, no shared write); per ownership = publishes / hand-overs between writers"
    );
    out.push_str(&rests_on(run));
    let _ = writeln!(out, "{}", exact_line(run));
    let _ = writeln!(out, "{}", placement_line(run));
    for note in &run.notes {
        let _ = writeln!(out, "note: {}", plain(note));
    }
    let _ = writeln!(
        out,
        "every table and each verdict's interval and p-value: --verbose, or report.html in the results folder"
    );
    out
}

/// The first screen's lines on what a run's numbers rest on, as `run`
/// and `study` print them: per regime its floor and its warnings; for the
/// run, what could have disturbed it (interference), which strategies
/// were too noisy to call, and a `--target-ci` not reached.
pub(super) fn rests_on(run: &RunResults) -> String {
    let mut out = String::new();
    let regimes = run.regimes();
    for view in &regimes {
        for line in basis_lines(view) {
            let keep = ["WARNING", "harness floor", "paced floor"]
                .iter()
                .any(|p| line.starts_with(p));
            if keep {
                let _ = writeln!(out, "{}", plain(&line));
            }
        }
    }
    out.extend(interference_line(run).map(|l| l + "\n"));
    out.extend(line_cost_line(run).map(|l| l + "\n"));
    out.extend(alone_line(run).map(|l| l + "\n"));
    let noisy: Vec<String> = run
        .strategies
        .iter()
        .filter(|s| noisy_cv(s).is_some())
        .map(|s| run.short_name(s))
        .collect();
    if !noisy.is_empty() {
        let _ = writeln!(
            out,
            "noise: {} of {} strategies vary by more than {NOISY_CV_PCT}% between repeats, so the verdict calls few differences; --verbose lists them (rerun, or raise --max-time)",
            noisy.len(),
            run.strategies.len()
        );
    }
    let open = unconverged(run);
    if let (Some(target), false) = (run.config.target_ci_pct, open.is_empty()) {
        let _ = writeln!(
            out,
            "target CI: ±{target}% not reached within {:.0} s by {} of {} strategies: take their figures as inconclusive, or raise --max-time (--verbose names them)",
            run.config.max_time_s.unwrap_or(0.0),
            open.len(),
            run.strategies.len()
        );
    }
    out
}

/// The compact table: one row per strategy (and one for the floors), the
/// columns of each regime side by side.
fn compact_table(regimes: &[RunResults]) -> Vec<Vec<String>> {
    let all: Vec<&StrategyResult> = regimes.iter().flat_map(|v| &v.strategies).collect();
    let labels = RowLabels::new(all.iter().copied());
    let row_of = |s: &StrategyResult| format!("{}/{}", s.strategy.level, labels.label(s));
    let rows = unique(all.iter().map(|s| row_of(s)));
    let mut groups = vec![String::new()];
    let mut heads = vec!["strategy".to_string()];
    for view in regimes {
        let columns: &[&str] = match view.regime() {
            Regime::FlatOut => &["ns/op", "net", "updates/s", "per ownership"],
            Regime::Paced { .. } => &["net ns/update", "net CPU", "busy ns/op"],
        };
        groups.push(view.regime().to_string());
        groups.extend((1..columns.len()).map(|_| String::new()));
        heads.extend(columns.iter().map(|c| c.to_string()));
    }
    let mut table = vec![groups, heads];
    let ns = |v: f64| human(v, Unit::Nanoseconds);
    let with_cv = |s: crate::stats::Summary| format!("{} {}", ns(s.mean), spread_text(&s));
    for row in &rows {
        let mut line = vec![row.clone()];
        for view in regimes {
            let found = view.strategies.iter().find(|s| &row_of(s) == row);
            let summary = found.and_then(|s| s.summary.as_ref());
            let cells: Vec<String> = match (view.regime().is_paced(), summary) {
                (false, Some(m)) => vec![
                    m.write_loop_ns.map_or("-".into(), with_cv),
                    m.net_ns.map_or("-".into(), |n| ns(n.mean)),
                    human(m.write_ops_per_s.mean, Unit::PerSecond),
                    m.updates_per_ownership
                        .map_or("-".into(), |u| human(u.mean, Unit::Count)),
                ],
                (true, Some(m)) => vec![
                    m.net_ns.map_or("-".into(), with_cv),
                    m.net_cpu_share_pct
                        .map_or("-".into(), |p| human(p.mean, Unit::Percent)),
                    m.write_busy_ns.map_or("-".into(), |b| ns(b.mean)),
                ],
                (false, None) => vec!["-".into(); 4],
                (true, None) => vec!["-".into(); 3],
            };
            line.extend(cells);
        }
        table.push(line);
    }
    let mut floor = vec!["floor (no shared write)".to_string()];
    for view in regimes {
        match view.regime() {
            Regime::FlatOut => {
                floor.push(
                    view.floor
                        .as_ref()
                        .map_or("-".into(), |f| with_cv(f.loop_ns)),
                );
                floor.extend(["", "", ""].map(String::from));
            }
            Regime::Paced { .. } => {
                let busy = view.paced_floor(view.regime()).map(|f| f.busy_ns);
                floor.extend(["", ""].map(String::from));
                floor.push(busy.map_or("-".into(), |b| ns(b.mean)));
            }
        }
    }
    table.push(floor);
    table
}

/// Whether every repeat's final sum was exact.
fn exact_line(run: &RunResults) -> String {
    let repeats: usize = run.strategies.iter().map(|s| s.repeats.len()).sum();
    let inexact: Vec<String> = run
        .strategies
        .iter()
        .filter(|s| !s.exact)
        .map(|s| run.short_name(s))
        .collect();
    if inexact.is_empty() {
        format!("exact sums: all {repeats} repeats exact")
    } else {
        format!("exact sums: WRONG for {}", plain(&inexact.join(", ")))
    }
}

/// Where threads and slots were, and whether that was verified.
fn placement_line(run: &RunResults) -> String {
    let unverified = run
        .strategies
        .iter()
        .flat_map(|s| &s.threads)
        .filter(|t| !t.verified)
        .count();
    format!(
        "placement: threads {}, slots {}",
        if unverified == 0 {
            "pinned and verified (sched_getcpu)".to_string()
        } else {
            format!("{unverified} UNVERIFIED")
        },
        slot_nodes_line(run)
    )
}

/// Who ran what where: contend, host, kernel, time; the threads.
pub(super) fn header(run: &RunResults) -> String {
    let mut out = String::new();
    let cfg = &run.config;
    let p = &run.provenance;
    let who = format!(
        "contend {} on {} ({}), Linux {}, {}",
        p.contend_version, p.hostname, p.cpu_model, p.kernel_release, p.started_utc
    );
    let _ = writeln!(out, "{}", plain(&who));
    let _ = writeln!(out, "{}", run.pools_text());
    if let Some(load) = run.load_text() {
        let _ = writeln!(out, "load walks: {load}");
    }
    if let Some(inject) = run.inject_text() {
        let _ = writeln!(out, "{inject}");
    }
    let smallest = run
        .strategies
        .iter()
        .filter_map(|s| crate::runner::cost_measure(s.regime).of(s))
        .map(|c| c.mean)
        .filter(|&ns| ns > 0.0)
        .reduce(f64::min);
    if let Some(line) = smallest.and_then(|ns| p.tsc_step_line(ns)) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(
        out,
        "{} x {:.0} ms per strategy (+{:.0} ms warm-up){}",
        run.repeats_text(),
        cfg.repeat_duration_s * 1e3,
        cfg.warmup_s * 1e3,
        run.stopped()
            .map_or(String::new(), |why| format!("; PARTIAL ({why})"))
    );
    out
}

/// Every table of a run, regime by regime, in the seeds' style, with
/// every line on what the numbers rest on (`--verbose`, and the tables
/// under each sweep point).
pub fn tables(run: &RunResults) -> String {
    let mut out = String::new();
    let lines = crate::verdict::run_lines(run);
    if lines.iter().any(|l| l.brief.is_some()) {
        out.push_str(
            "\n=== the verdict with its statistics (change [95% interval], Holm-adjusted p of Welch's t-test, or of the paired t-test on per-repeat differences, adjusted for each repeat's line costs, for strategies run in place in the same repeats) ===\n",
        );
        out.push_str(&super::verdicts(&lines));
    }
    for view in run.regimes() {
        let _ = writeln!(out, "\n=== {} ===", view.regime());
        out.push_str(&regime_tables(&view));
    }
    for note in &run.notes {
        let _ = writeln!(out, "note: {}", plain(note));
    }
    out
}

/// The tables of one regime's view.
fn regime_tables(run: &RunResults) -> String {
    let mut out = String::new();
    let cfg = &run.config;
    let _ = writeln!(
        out,
        "mean±stddev; change vs {}",
        run.strategies
            .first()
            .map_or("-", |s| s.strategy.level.name())
    );

    if cfg.sample_every > 0 {
        let _ = writeln!(
            out,
            "latency: 1 op in {} timed with {} ({:.1} ns timer overhead subtracted)",
            cfg.sample_every, cfg.timer, cfg.timer_overhead_ns
        );
    }
    let grid = StrategyGrid::of_run(run);
    for m in table_measures(run) {
        let mut header = vec![String::new()];
        header.extend(grid.levels.iter().cloned());
        let mut table = vec![header];
        for (row, cells) in grid.rows.iter().zip(grid.cells(m)) {
            let mut line = row.keys.clone();
            line.extend(cells.iter().map(|c| match c.change_pct {
                Some(_) => format!("{}  {}", c.value, c.change_text()),
                None => c.value.clone(),
            }));
            table.push(line);
        }
        let _ = writeln!(out, "\n{}", table_title(m, run.regime().is_paced()));
        out.push_str(&align(&table));
    }

    let _ = writeln!(out, "\n{}", exact_line(run));
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
    for line in basis_lines(run) {
        let _ = writeln!(out, "{}", plain(&line));
    }
    let _ = writeln!(out, "{}", placement_line(run));
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
