//! `contend sweep`: `contend run` at every thread count × affinity set (seed
//! 002's table), each point planned through `contend run`'s own [`plan`] so
//! bad input is refused before anything runs; one results folder with
//! sweep.json, sweep.csv, sweep.md and the charts.

use super::run::{INTERRUPTED, plan};
use super::{is_live_root, load_topology, print_notes, progress_bar, results_folder};
use crate::CliError;
use crate::cli::{PoolSize, RunArgs, SweepArgs};
use crate::counter::NodeIter;
use crate::report::{charts, markdown, write_atomic};
use crate::results::{SCHEMA_VERSION, SweepPoint, SweepResults};
use crate::runner::{RunError, RunPlan, execute};
use crate::topology::{CpuSpec, Topology};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Instant, SystemTime};

/// One planned point: a whole `contend run` at one thread count and
/// affinity set.
struct Point {
    /// Writer threads.
    threads: usize,
    /// `unbound` or `nodeN`.
    affinity: String,
    /// The run, as `contend run` planned it.
    plan: RunPlan,
}

pub(super) fn run(root: &Path, args: &SweepArgs) -> Result<(), CliError> {
    if !is_live_root(root) {
        return Err(CliError::usage(format!(
            "sweep pins real threads, so it reads the live host; drop --sysfs-root {}",
            root.display()
        )));
    }
    let topo = load_topology(root)?;
    let chatty = !args.quiet && !args.json;
    if chatty {
        print_notes(&topo);
    }
    let (mut points, notes) = plan_points(args, &topo)?;
    if !args.quiet {
        for note in &notes {
            eprintln!("note: {note}");
        }
    }
    // A second handler (tests calling twice in one process) is refused; the
    // first one already sets the same flag.
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::Relaxed));

    let started = Instant::now();
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let host = points[0].plan.provenance.hostname.clone();
    let dir = results_folder(&args.out, &host, &stamp)?;

    let total: usize = points
        .iter()
        .map(|p| p.plan.strategies.len() * p.plan.config.repeats)
        .sum();
    let bar = progress_bar(total, "repeats", args.quiet);
    let say = |line: String| match &bar {
        Some(b) => b.println(line),
        None if !args.quiet => eprintln!("{line}"),
        None => {}
    };

    let mut sweep = SweepResults {
        schema: SCHEMA_VERSION,
        partial: true,
        points: Vec::new(),
    };
    let mut stopped: Option<CliError> = None;
    let mut before = 0;
    let count = points.len();
    for (i, point) in points.iter_mut().enumerate() {
        if INTERRUPTED.load(Ordering::Relaxed) {
            stopped = Some(CliError::failure("interrupted: partial results written"));
            break;
        }
        let label = format!("{} × {} threads", point.affinity, point.threads);
        point.plan.provenance.started_utc =
            humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
        let t0 = Instant::now();
        let outcome = execute(&point.plan, &INTERRUPTED, |done, _, name| {
            if let Some(b) = &bar {
                b.set_position((before + done) as u64);
                b.set_message(format!("{label}: {name}"));
            }
        });
        before += point.plan.strategies.len() * point.plan.config.repeats;
        let results = match outcome {
            Ok(r) if r.partial => {
                stopped = Some(CliError::failure("interrupted: partial results written"));
                break;
            }
            Ok(r) => r,
            Err(e) => {
                stopped = Some(match e {
                    RunError::Request(m) => CliError::usage(format!("{label}: {m}")),
                    RunError::Placement(p) => CliError::failure(format!("{label}: {p}")),
                });
                break;
            }
        };
        say(format!(
            "[{}/{count}] {label}: {} strategies in {:.1} s",
            i + 1,
            results.strategies.len(),
            t0.elapsed().as_secs_f64()
        ));
        sweep.points.push(SweepPoint {
            threads: point.threads,
            affinity: point.affinity.clone(),
            results,
        });
        // Finished points survive a crash: sweep.json, still marked partial.
        write_json(&dir, &sweep)?;
    }
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    sweep.partial = stopped.is_some();

    let files = write_files(&dir, &sweep)?;
    if args.json {
        let text =
            serde_json::to_string_pretty(&sweep).map_err(|e| CliError::failure(e.to_string()))?;
        println!("{text}");
    } else if !args.quiet {
        print!("{}", markdown::sweep_markdown(&sweep));
    }
    if !args.quiet {
        for f in &files {
            eprintln!("wrote {}", f.display());
        }
        eprintln!(
            "sweep: {} of {count} points in {:.1} s",
            sweep.points.len(),
            started.elapsed().as_secs_f64()
        );
    }
    if let Some(e) = stopped {
        return Err(e);
    }
    check_exact(&sweep)
}

/// Every point to run, planned by `contend run`'s [`plan`], affinity set by
/// affinity set with thread counts ascending, and the notes to print (counts
/// skipped, the runs' own notes). Bad input is a usage error (exit 2).
fn plan_points(args: &SweepArgs, topo: &Topology) -> Result<(Vec<Point>, Vec<String>), CliError> {
    if args.threads.is_empty() {
        return Err(CliError::usage("--threads needs at least one value"));
    }
    if args.threads.contains(&PoolSize::Count(0)) {
        return Err(CliError::usage(
            "--threads 0: every point needs at least 1 writer thread",
        ));
    }
    let nodes_with_cpus: Vec<u32> = topo
        .nodes
        .iter()
        .filter(|n| !n.cpus.intersection(&topo.allowed_cpus).is_empty())
        .map(|n| n.id)
        .collect();
    let mut notes = Vec::new();
    let mut points = Vec::new();
    for affinity in args.affinity_sets(&nodes_with_cpus) {
        let spec = affinity.cpu_spec();
        let cpus = set_cpus(&spec, topo)
            .map_err(|e| CliError::usage(format!("--affinity {affinity}: {e}")))?;
        let mut counts = Vec::new();
        for t in &args.threads {
            let n = t.resolve(cpus.len());
            if n > cpus.len() {
                notes.push(format!(
                    "{affinity}: {n} threads skipped, the set has {} allowed CPUs",
                    cpus.len()
                ));
            } else if !counts.contains(&n) {
                counts.push(n);
            }
        }
        counts.sort_unstable();
        for threads in counts {
            let run_args = run_args(args, threads, spec.clone());
            let plan = plan(&run_args, topo.clone())?;
            for note in &plan.notes {
                if !notes.contains(note) {
                    notes.push(note.clone());
                }
            }
            points.push(Point {
                threads,
                affinity: affinity.to_string(),
                plan,
            });
        }
    }
    if points.is_empty() {
        return Err(CliError::usage(format!(
            "no point to run: {}",
            notes.join("; ")
        )));
    }
    Ok((points, notes))
}

/// The allowed CPUs of an affinity set, with a message naming what exists
/// when the set names a node this host lacks.
fn set_cpus(spec: &CpuSpec, topo: &Topology) -> Result<Vec<u32>, String> {
    if let CpuSpec::Node(n) = spec {
        if topo.node(*n).is_none() {
            return Err(format!(
                "node {n} does not exist (online nodes: {})",
                topo.node_ids()
            ));
        }
    }
    spec.resolve(topo).map_err(|e| e.to_string())
}

/// The `contend run` options of one point: `threads` writers from
/// `writer_cpus`, each running the read side, with the sweep's strategies
/// and timing; everything else at `contend run`'s defaults.
fn run_args(args: &SweepArgs, threads: usize, writer_cpus: CpuSpec) -> RunArgs {
    RunArgs {
        writers: Some(PoolSize::Count(threads)),
        readers: None,
        writer_cpus: Some(writer_cpus),
        reader_cpus: None,
        read_every: 1,
        strategies: args.strategies.clone(),
        counter_node: None,
        node_iter: NodeIter::Compact,
        duration: args.duration(),
        warmup: args.warmup(),
        repeats: args.repeats(),
        rate: None,
        seed: args.seed,
        sample_every: 1024,
        placement: args.placement,
        oversubscribe: false,
        out: args.out.clone(),
        json: args.json,
        quiet: args.quiet,
    }
}

/// Writes sweep.json into `dir` atomically; returns its path.
fn write_json(dir: &Path, sweep: &SweepResults) -> Result<PathBuf, CliError> {
    let text = serde_json::to_string_pretty(sweep).map_err(|e| CliError::failure(e.to_string()))?;
    write_file(dir, "sweep.json", text.as_bytes())
}

/// Writes `bytes` to `dir/name` atomically; returns the path.
fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, CliError> {
    let path = dir.join(name);
    write_atomic(&path, bytes)
        .map_err(|e| CliError::failure(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

/// Writes sweep.json, sweep.csv, sweep.md and (when a point finished) the
/// charts; returns the paths written.
fn write_files(dir: &Path, sweep: &SweepResults) -> Result<Vec<PathBuf>, CliError> {
    let mut files = vec![
        write_json(dir, sweep)?,
        write_file(dir, "sweep.csv", &sweep_csv(sweep)?)?,
        write_file(dir, "sweep.md", markdown::sweep_markdown(sweep).as_bytes())?,
    ];
    if !sweep.points.is_empty() {
        files.extend(
            charts::write_sweep_charts(dir, sweep)
                .map_err(|e| CliError::failure(format!("charts: {e}")))?,
        );
    }
    Ok(files)
}

/// One sweep.csv row: one strategy at one point, summarised over its
/// repeats. Rates are per second, times ns; an empty cell means not
/// measured (sampling off, or no repeat finished).
#[derive(Serialize)]
struct CsvRow<'a> {
    threads: usize,
    affinity: &'a str,
    strategy: &'a str,
    level: &'a str,
    publish: String,
    pad: &'a str,
    clock: &'a str,
    repeats: usize,
    write_ops_per_s_mean: Option<f64>,
    write_ops_per_s_stddev: Option<f64>,
    write_ops_per_s_stddev_pct: Option<f64>,
    read_ops_per_s_mean: Option<f64>,
    read_ops_per_s_stddev: Option<f64>,
    write_ns_mean: Option<f64>,
    read_ns_mean: Option<f64>,
    write_p50_ns: Option<f64>,
    read_p50_ns: Option<f64>,
    publishes_per_s_mean: Option<f64>,
    staleness_error_mean_pct: Option<f64>,
    staleness_age_mean_ns: Option<f64>,
    exact: bool,
}

/// sweep.csv: a header, then one row per point × strategy.
fn sweep_csv(sweep: &SweepResults) -> Result<Vec<u8>, CliError> {
    let fail = |e: csv::Error| CliError::failure(format!("sweep.csv: {e}"));
    let mut w = csv::Writer::from_writer(Vec::new());
    for p in &sweep.points {
        for s in &p.results.strategies {
            let sum = s.summary.as_ref();
            w.serialize(CsvRow {
                threads: p.threads,
                affinity: &p.affinity,
                strategy: &s.name,
                level: s.strategy.level.name(),
                publish: s.strategy.publish.to_string(),
                pad: s.strategy.pad.name(),
                clock: s.strategy.clock.map_or("", |c| c.name()),
                repeats: s.repeats.len(),
                write_ops_per_s_mean: sum.map(|x| x.write_ops_per_s.mean),
                write_ops_per_s_stddev: sum.map(|x| x.write_ops_per_s.stddev),
                write_ops_per_s_stddev_pct: sum.map(|x| x.write_ops_per_s.stddev_pct),
                read_ops_per_s_mean: sum.map(|x| x.read_ops_per_s.mean),
                read_ops_per_s_stddev: sum.map(|x| x.read_ops_per_s.stddev),
                write_ns_mean: sum.and_then(|x| x.write_ns.map(|v| v.mean)),
                read_ns_mean: sum.and_then(|x| x.read_ns.map(|v| v.mean)),
                write_p50_ns: sum.and_then(|x| x.write_p50_ns.map(|v| v.mean)),
                read_p50_ns: sum.and_then(|x| x.read_p50_ns.map(|v| v.mean)),
                publishes_per_s_mean: sum.map(|x| x.publishes_per_s.mean),
                staleness_error_mean_pct: sum.map(|x| x.error_mean_pct.mean),
                staleness_age_mean_ns: sum.map(|x| x.age_mean_ns.mean),
                exact: s.exact,
            })
            .map_err(fail)?;
        }
    }
    w.into_inner()
        .map_err(|e| CliError::failure(format!("sweep.csv: {e}")))
}

/// Fails (exit 1) naming the first point and strategy whose final sum was
/// not exact.
fn check_exact(sweep: &SweepResults) -> Result<(), CliError> {
    let bad = sweep.points.iter().find_map(|p| {
        p.results
            .strategies
            .iter()
            .find(|s| !s.exact)
            .map(|s| (p, s))
    });
    match bad {
        None => Ok(()),
        Some((p, s)) => {
            let r = s.repeats.iter().find(|r| !r.exact);
            Err(CliError::failure(format!(
                "{} × {} threads: {}: final sum {} != exact total {} (counter lost or invented load)",
                p.affinity,
                p.threads,
                s.name,
                r.map_or(0, |r| r.final_sum),
                r.map_or(0, |r| r.expected_sum)
            )))
        }
    }
}
