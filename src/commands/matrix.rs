//! `contend matrix`: plan the pairs, measure them, check the first against
//! the reference ping-pong, classify, advise, save, print.

use super::{is_live_root, load_topology, print_notes, progress_bar, results_folder};
use crate::CliError;
use crate::cli::MatrixArgs;
use crate::clock::calibrate_tsc;
use crate::matrix::{
    self, Home, MatrixConfig, MatrixResults, PlannedPair, Procedure, Reference, advise,
    class_stats, empty_classes, measure_all, reference_pingpong, select_pairs,
};
use crate::provenance::Provenance;
use crate::report::{heatmap, write_atomic};
use crate::topology::Topology;
use crate::workload::Timer;
use std::path::Path;
use std::time::{Duration, Instant};

pub(super) fn run(root: &Path, args: &MatrixArgs) -> Result<(), CliError> {
    if !is_live_root(root) {
        return Err(CliError::usage(format!(
            "matrix pins real threads, so it reads the live host; drop --sysfs-root {}",
            root.display()
        )));
    }
    let topo = load_topology(root)?;
    if !args.json {
        print_notes(&topo);
    }
    let (cpus, pairs, candidates) = plan(args, &topo)?;

    let tsc_hz = calibrate_tsc(Duration::from_millis(50));
    let provenance = Provenance::collect(tsc_hz);
    let mut notes = Vec::new();
    let timer = if provenance.tsc_invariant {
        Timer::Tsc { hz: tsc_hz }
    } else {
        notes.push("TSC is not invariant (constant_tsc/nonstop_tsc missing): samples are timed with clock_gettime".to_string());
        Timer::Monotonic
    };
    if provenance
        .numa_balancing
        .as_deref()
        .is_some_and(|v| v != "0")
    {
        notes.push("automatic NUMA balancing is on: a pair's page may migrate while it is measured (each page was verified once, at allocation)".to_string());
    }
    for n in &notes {
        eprintln!("note: {n}");
    }
    let procedure = Procedure {
        mode: args.mode,
        samples: args.samples as usize,
        round_trips: matrix::ROUND_TRIPS_PER_SAMPLE,
        warmup_samples: matrix::WARMUP_SAMPLES,
        timer,
    };

    let (first, _) = pairs[0];
    let reference_ns = reference_pingpong(first.a, first.b, matrix::REFERENCE_ROUND_TRIPS)
        .map_err(CliError::failure)?;

    let bar = progress_bar(pairs.len(), "pairs", false);
    let started = Instant::now();
    let measured = measure_all(&pairs, &procedure, &topo.allowed_cpus, |done, _| {
        if let Some(b) = &bar {
            b.set_position(done as u64);
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let measured = measured.map_err(CliError::failure)?;
    let elapsed = started.elapsed();

    let classes = class_stats(measured.iter().map(|p| (p.class, p.median_ns)), &candidates);
    let results = MatrixResults {
        schema: matrix::SCHEMA_VERSION,
        config: MatrixConfig {
            cpus,
            mode: args.mode,
            home: args.home,
            samples: procedure.samples,
            round_trips_per_sample: procedure.round_trips,
            warmup_samples: procedure.warmup_samples,
            per_class: (!args.all_pairs).then_some(args.per_class as usize),
            timer: match timer {
                Timer::Tsc { .. } => "tsc".into(),
                Timer::Monotonic => "monotonic".into(),
            },
            asymmetry_limit_pct: matrix::ASYMMETRY_LIMIT_PCT,
            reference_round_trips: matrix::REFERENCE_ROUND_TRIPS,
        },
        reference: Reference::new(
            [first.a, first.b],
            matrix::REFERENCE_ROUND_TRIPS,
            reference_ns,
            measured[0].median_ns,
        ),
        advice: advise(&classes),
        empty_classes: empty_classes(&classes),
        classes,
        pairs: measured,
        provenance,
        topology: topo,
        notes,
    };
    let files = write_files(args, &results)?;
    if args.json {
        let text =
            serde_json::to_string_pretty(&results).map_err(|e| CliError::failure(e.to_string()))?;
        println!("{text}");
    } else {
        print!("{}", summary(&results, elapsed));
    }
    for f in &files {
        eprintln!("wrote {}", f.display());
    }
    Ok(())
}

/// The chosen CPUs (ascending), the pairs to measure with each one's home
/// node, and every class's pair count. Every problem is a usage error.
type Plan = (
    Vec<u32>,
    Vec<(PlannedPair, u32)>,
    std::collections::BTreeMap<matrix::PairClass, usize>,
);

fn plan(args: &MatrixArgs, topo: &Topology) -> Result<Plan, CliError> {
    let mut cpus = args
        .cpus
        .resolve(topo)
        .map_err(|e| CliError::usage(format!("--cpus: {e}")))?;
    cpus.sort_unstable();
    cpus.dedup();
    if cpus.len() < 2 {
        return Err(CliError::usage(format!(
            "--cpus {} selects only CPU {}; a matrix needs at least 2 CPUs",
            args.cpus, cpus[0]
        )));
    }
    if let Home::Node(n) = args.home {
        topo.check_memory_node(n)
            .map_err(|e| CliError::usage(format!("--home node:{n}: {e}")))?;
    }
    let per_class = (!args.all_pairs).then_some(args.per_class as usize);
    let selection = select_pairs(topo, &cpus, per_class).map_err(CliError::usage)?;
    let pairs = selection
        .pairs
        .iter()
        .map(|&p| {
            let cpu = if args.home == Home::Second { p.b } else { p.a };
            let node = args
                .home
                .node_for(topo, p.a, p.b)
                .ok_or_else(|| CliError::usage(format!("CPU {cpu} is not online")))?;
            topo.check_memory_node(node).map_err(|e| {
                CliError::usage(format!(
                    "--home {}: CPU {cpu} is on node {node}: {e}; choose --home node:N",
                    args.home
                ))
            })?;
            Ok((p, node))
        })
        .collect::<Result<Vec<_>, CliError>>()?;
    Ok((cpus, pairs, selection.candidates))
}

/// Writes matrix.csv, matrix.json and heatmap.svg into a fresh results
/// folder; returns their paths.
fn write_files(
    args: &MatrixArgs,
    results: &MatrixResults,
) -> Result<Vec<std::path::PathBuf>, CliError> {
    let dir = results_folder(
        &args.out,
        &results.provenance.hostname,
        &results.provenance.started_utc,
    )?;
    let json = serde_json::to_vec_pretty(results).map_err(|e| CliError::failure(e.to_string()))?;
    let files = [
        ("matrix.csv", results.csv().map_err(CliError::failure)?),
        ("matrix.json", json),
        (
            "heatmap.svg",
            heatmap::render(results)
                .map_err(CliError::failure)?
                .into_bytes(),
        ),
    ];
    let mut written = Vec::new();
    for (name, bytes) in files {
        let path = dir.join(name);
        write_atomic(&path, &bytes)
            .map_err(|e| CliError::failure(format!("cannot write {}: {e}", path.display())))?;
        written.push(path);
    }
    Ok(written)
}

/// The text printed without --json: classes, empty classes, advice,
/// asymmetric pairs, the reference check.
fn summary(r: &MatrixResults, elapsed: Duration) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let c = &r.config;
    let _ = writeln!(
        s,
        "{} pair{} of {} CPUs, mode {}, home {}, {} samples x {} round trips per direction, {:.2} s",
        r.pairs.len(),
        if r.pairs.len() == 1 { "" } else { "s" },
        c.cpus.len(),
        c.mode,
        c.home,
        c.samples,
        c.round_trips_per_sample,
        elapsed.as_secs_f64()
    );
    let _ = writeln!(
        s,
        "{:<16} {:>7} {:>10} {:>10} {:>10} {:>10}",
        "class", "pairs", "median ns", "p90 ns", "min ns", "max ns"
    );
    for k in &r.classes {
        let pairs = if k.pairs == k.candidates {
            k.pairs.to_string()
        } else {
            format!("{}/{}", k.pairs, k.candidates)
        };
        let _ = writeln!(
            s,
            "{:<16} {:>7} {:>10.1} {:>10.1} {:>10.1} {:>10.1}",
            k.class.to_string(),
            pairs,
            k.median_ns,
            k.p90_ns,
            k.min_ns,
            k.max_ns
        );
    }
    for e in &r.empty_classes {
        let _ = writeln!(s, "{:<16} no pairs: {}", e.class, e.reason);
    }
    let _ = writeln!(s, "advice: {}", r.advice);
    let asym: Vec<String> = r
        .pairs
        .iter()
        .filter(|p| p.asymmetric)
        .map(|p| {
            format!(
                "{}->{} {:.1} ns / {}->{} {:.1} ns",
                p.forward.from,
                p.forward.to,
                p.forward.median_ns,
                p.backward.from,
                p.backward.to,
                p.backward.median_ns
            )
        })
        .collect();
    if asym.is_empty() {
        let _ = writeln!(
            s,
            "directions agree: every pair's i->j and j->i medians within {}%",
            c.asymmetry_limit_pct
        );
    } else {
        let _ = writeln!(
            s,
            "asymmetric (directions differ by more than {}%): {}",
            c.asymmetry_limit_pct,
            asym.join("; ")
        );
    }
    let f = &r.reference;
    let _ = writeln!(
        s,
        "reference CAS ping-pong on {}-{}: {:.1} ns one-way; matrix ({}) {:.1} ns ({:+.1}%)",
        f.cpus[0], f.cpus[1], f.one_way_ns, c.mode, f.matrix_one_way_ns, f.difference_pct
    );
    s
}
