//! A run for the terminal: the first screen `contend run` prints (header, headline, verdict, one
//! compact table, what the numbers rest on) and, behind `--verbose`, the full tables in the seeds'
//! style.

use super::align;
use crate::counter::ShardLevel;
use crate::placement::NodeCheck;
use crate::report::measures::{RowLabels, StrategyGrid, TableCell, table_measures, table_title};
use crate::report::{exactness, plain};
use crate::runner::first_seen;
use crate::runner::{RunResults, StrategyResult};
use crate::stats::Summary;
use crate::topology::CpuList;
use crate::units::{Unit, figure, human, si};
use crate::verdict::basis::{
    Finding, FindingKind, NOISY_CV_PCT, Severity, alone_line, findings, interference_line,
    line_cost_line, noisy_cv, unconverged,
};
use crate::workload::Regime;
use std::fmt::Write;

/// The first screen of a run, at most 100 columns.
pub fn render(run: &RunResults) -> String {
    let regimes = run.regimes();
    let mut out = header(run);
    out.push('\n');
    out.push_str(&screen(&plain(&crate::verdict::headline(run).answer)));
    out.push('\n');
    out.push_str(&align(&compact_table(&regimes, false)));
    out.push_str(&screen(&terms(run, false)));
    out.push_str(&warnings(run));
    if !checks_pass(run) {
        out.push_str(&screen(&checks_line(run)));
    }
    match run.notes.as_slice() {
        [] => {}
        [one] if one.chars().count() < 92 => {
            out.push_str(&screen(&format!("note: {}", plain(one))))
        }
        all => out.push_str(&screen(&format!(
            "notes: {} on what the machine did during the run (--print all)",
            all.len()
        ))),
    }
    out.push_str(&screen(
        "more: --print all or report.html in the results folder; how to read: \
         docs/reading-the-output.md",
    ));
    out
}

/// Everything the first screen leaves out (`--verbose`).
pub fn verbose(run: &RunResults) -> String {
    let mut out = String::from("\n=== the answer in full ===\n");
    out.push_str(&super::lines(crate::verdict::headline(run).sentences()));
    out.push('\n');
    let brief = crate::verdict::run_lines(run);
    out.push_str(&super::lines(
        brief.iter().map(|l| format!("verdict: {}", l.brief_text())),
    ));
    out.push('\n');
    out.push_str(&align(&compact_table(&run.regimes(), true)));
    let _ = writeln!(out, "{}", terms(run, true));
    if let Some(load) = run.load_text() {
        let _ = writeln!(out, "load walks: {load}");
    }
    out.push_str(&rests_on(run));
    let _ = writeln!(out, "{}", checks_line(run));
    out + &tables(run)
}

/// Whether every final sum was exact and every thread and slot verified.
fn checks_pass(run: &RunResults) -> bool {
    let verified = |s: &StrategyResult| s.threads.iter().all(|t| t.verified);
    run.strategies.iter().all(|s| s.exact && verified(s)) && slots_verified(run)
}

/// Whether every final sum was exact and placement verified.
fn checks_line(run: &RunResults) -> String {
    format!("checks: {}; {}", exact_line(run), placement_line(run))
}

/// `text` as lines of at most 100 columns, broken at spaces, each line after the first indented two
/// spaces; ends with a newline.
fn screen(text: &str) -> String {
    crate::report::wrap(text, 98).join("\n  ") + "\n"
}

/// The line under the compact table that defines each of its terms once.
fn terms(run: &RunResults, verbose: bool) -> String {
    let mut terms = vec![
        "± = half-width of the 95% confidence interval",
        "ns/op = writers x time / updates",
        "net = less the floor (the same loop, no shared write)",
        "CPU = share of each writer's CPU",
    ];
    if verbose {
        terms.push("per ownership = updates a writer makes each time it holds the line");
    }
    let kernel = run.strategies.iter().any(|s| {
        s.strategy.level == ShardLevel::Global && s.strategy.publish == crate::verdict::BEFORE_FIX
    });
    if kernel {
        terms.push("the kernel's counter = global/threshold:64 (before v6.7)");
        terms.push("the merged fix = global/ratelimit:1ms+threshold:64");
    }
    terms.join("; ")
}

/// What the first screen must not leave out.
fn warnings(run: &RunResults) -> String {
    // Each warning's first sentence; --verbose gives the rest.
    let all_findings = run.regimes().iter().flat_map(findings).collect::<Vec<_>>();
    let warning = |f: &&Finding| f.severity == Severity::Warning;
    let warned = all_findings.iter().filter(warning);
    let mut out: String = warned.map(|f| screen(&plain(&f.brief()))).collect();
    let all = run.strategies.len();
    let noisy = run.strategies.iter().filter(|s| noisy_cv(s).is_some());
    let (noisy, open) = (noisy.count(), unconverged(run).len());
    let mut said = Vec::new();
    if noisy > 0 {
        said.push(format!(
            "{noisy} of {all} strategies vary over {NOISY_CV_PCT}% between repeats"
        ));
    }
    if let (Some(target), true) = (run.config.target_ci_pct, open > 0) {
        said.push(format!(
            "{open} missed ±{target}% in {:.0} s",
            run.config.max_time_s.unwrap_or(0.0)
        ));
    }
    if !said.is_empty() {
        out.push_str(&screen(&format!(
            "noisy: {} (raise --max-time)",
            said.join("; ")
        )));
    }
    out
}

/// What a run's numbers rest on, as `run --verbose` and `study` print it.
pub(super) fn rests_on(run: &RunResults) -> String {
    let all_findings = run.regimes().iter().flat_map(findings).collect::<Vec<_>>();
    let shown = all_findings.iter().filter(|f| {
        let floor = matches!(f.kind, FindingKind::HarnessFloor | FindingKind::PacedFloor);
        floor || f.severity == Severity::Warning
    });
    let mut out = super::lines(shown);
    let lines = [interference_line(run), line_cost_line(run), alone_line(run)];
    out.extend(lines.into_iter().flatten().map(|l| l + "\n"));
    let noisy = run.strategies.iter();
    let noisy = noisy.filter(|s| noisy_cv(s).is_some()).count();
    if noisy > 0 {
        let _ = writeln!(
            out,
            "noise: {} of {} strategies vary by more than {NOISY_CV_PCT}% between repeats, so the verdict calls few differences; --print all lists them (rerun, or raise --max-time)",
            noisy,
            run.strategies.len()
        );
    }
    let open = unconverged(run);
    if let (Some(target), false) = (run.config.target_ci_pct, open.is_empty()) {
        let _ = writeln!(
            out,
            "target CI: ±{target}% not reached within {:.0} s by {} of {} strategies: take their figures as inconclusive, or raise --max-time (--print all names them)",
            run.config.max_time_s.unwrap_or(0.0),
            open.len(),
            run.strategies.len()
        );
    }
    out
}

/// The compact table: a row per strategy (and the floors'), each regime's [`columns`] side by side.
fn compact_table(regimes: &[RunResults], full: bool) -> Vec<Vec<String>> {
    let all: Vec<&StrategyResult> = regimes.iter().flat_map(|v| &v.strategies).collect();
    let labels = RowLabels::new(all.iter().copied());
    let row_of = |s: &StrategyResult| format!("{}/{}", s.strategy.level, labels.label(s));
    let rows = first_seen(all.iter().map(|s| row_of(s)));
    let mut groups = vec![String::new()];
    let mut heads = vec!["strategy".to_string()];
    for view in regimes {
        let columns = keep(view.regime(), full, columns(view.regime()));
        groups.push(match view.regime() {
            Regime::FlatOut => "flat out".to_string(),
            Regime::Paced { rate, .. } => format!("at {}/s per thread", si(rate)),
        });
        groups.resize(groups.len() + columns.len() - 1, String::new());
        heads.extend(columns.iter().map(|c| c.to_string()));
    }
    let mut table = vec![groups, heads];
    let mean = |s: Option<Summary>, unit| s.map_or("-".into(), |s| human(s.mean, unit));
    let with_cv = |s: Option<Summary>| s.map_or("-".into(), |s| figure(&s, Unit::Nanoseconds));
    let (ns, count, pct) = (Unit::Nanoseconds, Unit::Count, Unit::Percent);
    for row in &rows {
        let mut line = vec![row.clone()];
        for view in regimes {
            let found = view.strategies.iter().find(|s| &row_of(s) == row);
            let summary = found.and_then(|s| s.summary.as_ref());
            let cells: Vec<String> = match (view.regime().is_paced(), summary) {
                (false, Some(m)) => vec![
                    with_cv(m.write_loop_ns),
                    mean(m.net_ns, ns),
                    mean(Some(m.write_ops_per_s), Unit::PerSecond),
                    mean(m.updates_per_ownership, count),
                ],
                (true, Some(m)) => vec![
                    with_cv(m.net_ns),
                    mean(m.net_cpu_share_pct, pct),
                    mean(m.write_busy_ns, ns),
                ],
                (false, None) => vec!["-".into(); 4],
                (true, None) => vec!["-".into(); 3],
            };
            line.extend(keep(view.regime(), full, cells));
        }
        table.push(line);
    }
    let mut floor = vec!["floor (no shared write)".to_string()];
    for view in regimes {
        let cells = match view.regime() {
            Regime::FlatOut => {
                let loop_ns = with_cv(view.floor.as_ref().map(|f| f.loop_ns));
                [vec![loop_ns], vec![String::new(); 3]].concat()
            }
            Regime::Paced { .. } => {
                let busy = mean(view.paced_floor(view.regime()).map(|f| f.busy_ns), ns);
                [vec![String::new(); 2], vec![busy]].concat()
            }
        };
        floor.extend(keep(view.regime(), full, cells));
    }
    table.push(floor);
    table
}

/// A regime's columns in the compact table ([`compact_table`]), all of them.
fn columns(regime: Regime) -> Vec<&'static str> {
    match regime {
        Regime::FlatOut => vec!["ns/op", "net", "updates/s", "per ownership"],
        Regime::Paced { .. } => vec!["net ns/update", "net CPU", "busy ns/op"],
    }
}

/// Of a regime's cells in [`columns`]' full order, those shown.
fn keep<T>(regime: Regime, full: bool, cells: Vec<T>) -> Vec<T> {
    let shown: &[usize] = match (full, regime) {
        (true, _) => &[0, 1, 2, 3],
        (false, Regime::FlatOut) => &[0, 2],
        (false, Regime::Paced { .. }) => &[0, 1],
    };
    let cells = cells.into_iter().enumerate();
    let shown = cells.filter(|(i, _)| shown.contains(i));
    shown.map(|c| c.1).collect()
}

/// Whether every repeat's final sum was exact.
fn exact_line(run: &RunResults) -> String {
    match exactness(run.strategies.iter().zip(run.short_names())) {
        Ok(repeats) => format!("every final sum exact, in all {repeats} strategy results"),
        Err(wrong) => format!("exact sums: WRONG for {}", plain(&wrong.join(", "))),
    }
}

/// Where threads and slots were, and whether that was verified.
fn placement_line(run: &RunResults) -> String {
    let threads = run.strategies.iter().flat_map(|s| &s.threads);
    let threads = match threads.filter(|t| !t.verified).count() {
        0 => "pinned and verified (sched_getcpu)".to_string(),
        n => format!("{n} UNVERIFIED"),
    };
    let slots = run.strategies.iter().flat_map(|s| &s.slots);
    let nodes: CpuList = slots.map(|s| s.node).collect();
    let how = if slots_verified(run) {
        "verified (move_pages)"
    } else {
        "some UNVERIFIED"
    };
    format!("placement: threads {threads}, slots on nodes {nodes}, {how}")
}

/// Who ran what where: contend, host, kernel, time; the threads; the repeats and regimes.
pub(super) fn header(run: &RunResults) -> String {
    let mut out = String::new();
    let cfg = &run.config;
    let p = &run.provenance;
    let who = format!(
        "contend {} on {} ({}), Linux {}, {}",
        p.contend_version, p.hostname, p.cpu_model, p.kernel_release, p.started_utc
    );
    out.push_str(&screen(&plain(&who)));
    out.push_str(&screen(&run.pools_text()));
    if let Some(inject) = run.inject_text() {
        out.push_str(&screen(&inject));
    }
    let cost = |s: &StrategyResult| crate::runner::cost_measure(s.regime).of(s);
    let costs = run.strategies.iter().filter_map(cost).map(|c| c.mean);
    let smallest = costs.filter(|&ns| ns > 0.0).reduce(f64::min);
    if let Some(line) = smallest.and_then(|ns| p.tsc_step_line(ns)) {
        out.push_str(&screen(&line));
    }
    let interleaved = (run.regimes().len() > 1).then_some(", interleaved");
    let interleaved = interleaved.unwrap_or_default();
    let stopped = run.stopped().map(|why| format!("; PARTIAL ({why})"));
    let stopped = stopped.unwrap_or_default();
    out.push_str(&screen(&format!(
        "{} x {:.0} ms (+{:.0} ms warm-up) per strategy{interleaved}{stopped}",
        run.repeats_text(),
        cfg.repeat_duration_s * 1e3,
        cfg.warmup_s * 1e3,
    )));
    out
}

/// Every table of a run, regime by regime, in the seeds' style, with every line on what the numbers
/// rest on (`--verbose`, and the tables under each sweep point).
pub fn tables(run: &RunResults) -> String {
    let mut out = String::new();
    let lines = crate::verdict::run_lines(run);
    if lines.iter().any(|l| l.brief.is_some()) {
        out.push_str(
            "\n=== the verdict with its statistics (change [95% interval], Holm-adjusted p of Welch's t-test, or of the paired t-test on per-repeat differences, adjusted for each repeat's line costs, for strategies run in place in the same repeats) ===\n",
        );
        out.push_str(&super::lines(&lines));
    }
    for view in run.regimes() {
        let _ = writeln!(out, "\n=== {} ===", view.regime());
        out.push_str(&regime_tables(&view));
    }
    out.push_str(&super::notes(&run.notes));
    out
}

/// The tables of one regime's view.
fn regime_tables(run: &RunResults) -> String {
    let mut out = String::new();
    let cfg = &run.config;
    let first = run.strategies.first();
    let first = first.map_or("-", |s| s.strategy.level.name());
    let _ = writeln!(out, "mean±stddev; change vs {first}");
    if cfg.sample_every > 0 {
        let _ = writeln!(
            out,
            "latency: 1 op in {} timed with {} ({:.1} ns timer overhead subtracted)",
            cfg.sample_every, cfg.timer, cfg.timer_overhead_ns
        );
    }
    let grid = StrategyGrid::of_run(run);
    for m in table_measures(run) {
        let mut table = vec![[&[String::new()], &grid.levels[..]].concat()];
        for (row, cells) in grid.rows.iter().zip(grid.cells(m)) {
            let cell = |c: &TableCell| match c.change_pct {
                Some(_) => format!("{}  {}", c.value, c.change_text()),
                None => c.value.clone(),
            };
            table.push([row.keys.clone(), cells.iter().map(cell).collect()].concat());
        }
        let _ = writeln!(out, "\n{}", table_title(m, run.regime().is_paced()));
        out.push_str(&align(&table));
    }

    let _ = writeln!(out, "\n{}", exact_line(run));
    let clock = |s: &StrategyResult| Some((s.strategy.clock?.name(), s.clock_read_ns?));
    let clocks = run.strategies.iter().filter_map(clock);
    let clocks = first_seen(clocks.map(|(c, ns)| format!("{c} {ns:.1} ns")));
    if !clocks.is_empty() {
        let _ = writeln!(out, "ratelimit clock read cost: {}", clocks.join(", "));
    }
    let mut all = run.strategies.iter();
    let node = all.find(|s| s.strategy.level == ShardLevel::Node);
    if let Some(steps) = node.and_then(|s| s.read_steps) {
        let _ = writeln!(
            out,
            "node-level read: {steps} steps (--placement {})",
            run.config.node_iter.name()
        );
    }
    out.push_str(&super::lines(findings(run)));
    let _ = writeln!(out, "{}", placement_line(run));
    out
}

/// Whether every slot's node was verified.
fn slots_verified(run: &RunResults) -> bool {
    let mut slots = run.strategies.iter().flat_map(|s| &s.slots);
    slots.all(|s| matches!(s.check, NodeCheck::Verified { .. }))
}
