//! `contend run` (and `contend` with no subcommand): plan from the options,
//! execute, save, print.

use super::{is_live_root, load_topology, print_notes, progress_bar, results_folder};
use crate::CliError;
use crate::cli::RunArgs;
use crate::clock::calibrate_tsc;
use crate::counter::ShardLevel;
use crate::placement::Placement;
use crate::provenance::Provenance;
use crate::report::{charts, table, write_results};
use crate::results::RunConfig;
use crate::runner::{RunError, RunPlan, execute, strategies};
use crate::topology::{CpuSpec, Topology};
use crate::workload::{Sampling, Timer};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Set by Ctrl-C: threads stop, finished repeats are kept.
pub(super) static INTERRUPTED: AtomicBool = AtomicBool::new(false);

pub(super) fn run(root: &Path, args: &RunArgs) -> Result<(), CliError> {
    if !is_live_root(root) {
        return Err(CliError::usage(format!(
            "run pins real threads, so it reads the live host; drop --sysfs-root {}",
            root.display()
        )));
    }
    let topo = load_topology(root)?;
    if !args.quiet && !args.json {
        print_notes(&topo);
    }
    let plan = plan(args, topo)?;
    if !args.quiet {
        for note in &plan.notes {
            eprintln!("note: {note}");
        }
    }
    // A second handler (tests calling run twice in one process) is refused;
    // the first one already sets the same flag.
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::Relaxed));

    let total = plan.strategies.len() * plan.config.repeats;
    let bar = progress_bar(total, "repeats", args.quiet);
    let results = execute(&plan, &INTERRUPTED, |done, _, name| {
        if let Some(b) = &bar {
            b.set_position(done as u64);
            b.set_message(name.to_string());
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let results = results.map_err(|e| match e {
        RunError::Request(m) => CliError::usage(m),
        RunError::Placement(p) => CliError::failure(p),
    })?;

    let dir = results_folder(
        &args.out,
        &results.provenance.hostname,
        &results.provenance.started_utc,
    )?;
    let mut files = write_results(&dir, &results).map_err(CliError::failure)?;
    files.extend(charts::write_run_charts(&dir, &results).map_err(CliError::failure)?);
    if args.json {
        let text =
            serde_json::to_string_pretty(&results).map_err(|e| CliError::failure(e.to_string()))?;
        println!("{text}");
    } else if !args.quiet {
        print!("{}", table::render(&results));
    }
    if !args.quiet {
        for f in &files {
            eprintln!("wrote {}", f.display());
        }
    }
    if let Some(bad) = results.strategies.iter().find(|s| !s.exact) {
        let r = bad.repeats.iter().find(|r| !r.exact);
        return Err(CliError::failure(format!(
            "{}: final sum {} != exact total {} (counter lost or invented load)",
            bad.name,
            r.map_or(0, |r| r.final_sum),
            r.map_or(0, |r| r.expected_sum)
        )));
    }
    if results.partial {
        return Err(CliError::failure("interrupted: partial results written"));
    }
    Ok(())
}

/// Resolves the options against the host: CPUs for each pool, strategies,
/// timer and sampling. Every problem is a usage error (exit 2).
pub(super) fn plan(args: &RunArgs, topo: Topology) -> Result<RunPlan, CliError> {
    let allowed = topo.allowed_cpus.len();
    let mut notes = Vec::new();
    let chosen = &args.strategies;
    chosen.check().map_err(CliError::usage)?;
    if let Some(n) = args.counter_node {
        topo.check_memory_node(n)
            .map_err(|e| CliError::usage(format!("--counter-node {n}: {e}")))?;
    }
    let writer_order = args
        .writer_cpus
        .clone()
        .unwrap_or(CpuSpec::All)
        .resolve(&topo)
        .map_err(CliError::usage)?;
    let reader_order = args
        .reader_cpus
        .clone()
        .unwrap_or(CpuSpec::All)
        .resolve(&topo)
        .map_err(CliError::usage)?;
    let readers = args.readers.map_or(0, |r| r.resolve(allowed));
    let writers = match args.writers {
        Some(w) => w.resolve(allowed),
        None if readers > 0 && !args.oversubscribe => {
            writer_order.len().saturating_sub(readers).max(1)
        }
        None => writer_order.len(),
    };
    if writers == 0 {
        return Err(CliError::usage("--writers must be at least 1"));
    }
    let writer_cpus = take_cpus(
        &writer_order,
        writers,
        &[],
        args.oversubscribe,
        "--writers",
        "--writer-cpus",
    )?;
    let reader_cpus = take_cpus(
        &reader_order,
        readers,
        &writer_cpus,
        args.oversubscribe,
        "--readers",
        "--reader-cpus",
    )?;
    let threads = writer_cpus.len() + reader_cpus.len();
    if args.oversubscribe && threads > allowed.min(unique_count(&writer_cpus, &reader_cpus)) {
        notes.push(format!(
            "oversubscribed: {threads} threads share {} CPUs; numbers include time-slicing",
            unique_count(&writer_cpus, &reader_cpus)
        ));
    }
    if chosen.level.contains(&ShardLevel::Global) && chosen.level[0] != ShardLevel::Global {
        notes.push(format!(
            "changes are shown against {}, the first --level",
            chosen.level[0]
        ));
    }

    let tsc_hz = calibrate_tsc(Duration::from_millis(50));
    let provenance = Provenance::collect(tsc_hz);
    let timer = if provenance.tsc_invariant {
        Timer::Tsc { hz: tsc_hz }
    } else {
        notes.push("TSC is not invariant (constant_tsc/nonstop_tsc missing): operations are timed with clock_gettime".into());
        Timer::Monotonic
    };
    let overhead = if args.sample_every > 0 {
        timer.overhead_ticks()
    } else {
        0
    };
    let sampling = Sampling::new(args.sample_every, overhead);
    let repeats = args.repeats as usize;
    let repeat_duration = args.duration / args.repeats;
    if repeat_duration < Duration::from_millis(1) {
        return Err(CliError::usage(format!(
            "--duration {:?} over {repeats} repeats leaves under 1 ms per repeat",
            args.duration
        )));
    }
    let placement = Placement::from(args.placement);
    let strategies = strategies(&chosen.level, &chosen.publish, &chosen.pad, &chosen.clock);
    let config = RunConfig {
        writer_cpus,
        reader_cpus,
        read_every: args.read_every,
        rate: args.rate,
        repeat_duration_s: repeat_duration.as_secs_f64(),
        warmup_s: args.warmup.as_secs_f64(),
        repeats,
        seed: args.seed,
        sample_every: sampling.every(),
        timer: match timer {
            Timer::Tsc { .. } => "tsc".into(),
            Timer::Monotonic => "monotonic".into(),
        },
        timer_overhead_ns: overhead as f64 * timer.ns_per_tick(),
        placement,
        oversubscribe: args.oversubscribe,
        counter_node: args.counter_node,
        node_iter: args.node_iter,
    };
    Ok(RunPlan {
        topo,
        config,
        strategies,
        warmup: args.warmup,
        repeat_duration,
        timer,
        sampling,
        provenance,
        notes,
    })
}

fn unique_count(a: &[u32], b: &[u32]) -> usize {
    a.iter()
        .chain(b)
        .copied()
        .collect::<std::collections::BTreeSet<u32>>()
        .len()
}

/// The first `n` CPUs of `order` not in `taken`; with `oversubscribe`,
/// cycles through `order` when there are not enough.
fn take_cpus(
    order: &[u32],
    n: usize,
    taken: &[u32],
    oversubscribe: bool,
    count_flag: &str,
    cpus_flag: &str,
) -> Result<Vec<u32>, CliError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let free: Vec<u32> = order
        .iter()
        .copied()
        .filter(|c| !taken.contains(c))
        .collect();
    if free.len() >= n {
        return Ok(free[..n].to_vec());
    }
    if !oversubscribe {
        return Err(CliError::usage(format!(
            "{count_flag} {n} needs {n} CPUs but {cpus_flag} leaves {} free ({}); add --oversubscribe to share CPUs",
            free.len(),
            free.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(",")
        )));
    }
    let pool = if free.is_empty() { order } else { &free };
    Ok(pool.iter().copied().cycle().take(n).collect())
}
