//! What a dry run prints: the plan of `contend run` or `contend matrix`, with its expected wall
//! time and memory, and the start-up measured for it (the study's plan is `study.rs`'s, with the
//! same line on it).

use crate::matrix::{ASSUMED_ONE_WAY_NS, MatrixPlan};
use crate::runner::{HostCosts, RunEstimate, RunPlan};
use crate::topology::CpuList;
use crate::units::human_s;
use crate::verdict::plural;
use std::fmt::Write;

/// Bytes for people, in MiB (`310 MiB`, `2.4 GiB`).
pub(super) fn mib(bytes: u64) -> String {
    match bytes as f64 / (1u64 << 20) as f64 {
        m if m >= 1024.0 => format!("{:.1} GiB", m / 1024.0),
        m if m >= 10.0 => format!("{m:.0} MiB"),
        m => format!("{m:.1} MiB"),
    }
}

/// The start-up a plan rests on, and where it was measured.
pub(super) fn costs_line(c: &HostCosts) -> String {
    let s = &c.startup;
    let threads = s.threads;
    let whence = match c.scaled_from {
        Some(n) => format!(
            "not this host: measured on this host's {}, for {threads} threads",
            plural(n, "CPU")
        ),
        None => format!("measured on the {threads} CPUs the threads run on"),
    };
    let one_way = c.one_way_ns.map(|ns| format!(" ({ns:.0} ns one-way)"));
    let one_way = one_way.unwrap_or_default();
    format!(
        "start-up ({whence}): {} a thread to start and stop, a phase change heard by every busy thread within {}; canaries {}{one_way} a repeat",
        human_s(s.per_thread_s()),
        human_s(s.spread_s),
        human_s(c.canary_s),
    )
}

/// `contend run --dry-run`: who runs where, the rounds, what a repeat and the run take, the budget,
/// the memory, the plan's notes.
pub fn run_plan(host: &str, p: &RunPlan, e: &RunEstimate) -> String {
    let cfg = &p.config;
    let mut out = String::new();
    let nodes = p.topo.nodes.iter().filter(|n| !n.cpus.is_empty()).count();
    let (cpus, nodes) = (
        plural(p.topo.allowed_cpus.len(), "CPU"),
        plural(nodes, "node"),
    );
    let llcs = plural(p.topo.llcs.len(), "LLC");
    let _ = writeln!(
        out,
        "contend run plan for {host}: {cpus}, {nodes}, {llcs} (nothing measured but the start-up)\n"
    );
    let writers: CpuList = cfg.writer_cpus.iter().copied().collect();
    let readers: CpuList = cfg.reader_cpus.iter().copied().collect();
    let readers = match readers.len() {
        0 => String::new(),
        n => format!(", {n} readers on CPUs {readers}"),
    };
    let _ = writeln!(
        out,
        "threads: {} writers on CPUs {writers}{readers}",
        cfg.writer_cpus.len()
    );
    let regimes: Vec<String> = cfg.rates.iter().map(ToString::to_string).collect();
    let _ = writeln!(
        out,
        "rounds: {} of {} repeats each ({} strategies × {}; paced strategies in place, up to {} a repeat){}",
        e.rounds,
        e.runs_per_round,
        p.strategies.len(),
        regimes.join(", "),
        e.lanes,
        cfg.target_ci_pct
            .map(|t| format!(", then more while a 95% CI is wider than ±{t}%, within --max-time"))
            .unwrap_or_default()
    );
    let _ = writeln!(
        out,
        "a repeat: about {}: start-up {}, warm-up {}, interval {}, canaries and lines {}",
        human_s(e.repeat_s),
        human_s(e.costs.startup.repeat_s()),
        human_s(cfg.warmup_s),
        human_s(cfg.repeat_duration_s),
        human_s(e.repeat_s - e.costs.startup.repeat_s() - cfg.warmup_s - cfg.repeat_duration_s)
    );
    let budget = cfg.max_time_s.map_or(String::new(), |b| {
        let fits = if e.wall_s <= b {
            "fits"
        } else {
            "does NOT fit (see the note)"
        };
        format!(" of the {b:.0} s budget: {fits}")
    });
    let _ = writeln!(
        out,
        "wall time: est. {:.1} s (harness floor {}, {} repeats){budget}",
        e.wall_s,
        human_s(e.floor_s),
        e.rounds * e.runs_per_round
    );
    let _ = writeln!(
        out,
        "memory: est. {} allocated (each thread's 2 latency histograms per strategy in place, the load walks, the counters)",
        mib(e.memory_bytes)
    );
    out + &ending(&e.costs, &p.notes)
}

/// `contend matrix --dry-run`: the CPUs, the classes and their pairs, the expected time and memory.
pub fn matrix_plan(host: &str, p: &MatrixPlan, costs: &HostCosts) -> String {
    let mut out = String::new();
    let cpus: CpuList = p.cpus.iter().copied().collect();
    let pair_setup = 2.0 * costs.startup.per_thread_s() + costs.startup.spread_s;
    let _ = writeln!(
        out,
        "contend matrix plan for {host}: {} of {} ({cpus}), {} samples × {} round trips per direction (nothing measured but the start-up)\n",
        plural(p.pairs.len(), "pair"),
        plural(p.cpus.len(), "CPU"),
        p.procedure.samples,
        p.procedure.round_trips,
    );
    let _ = writeln!(out, "{:<14} {:>8} {:>10}", "class", "pairs", "of");
    for (class, &n) in &p.candidates {
        let sampled = p.pairs.iter().filter(|(pp, _)| pp.class == *class).count();
        let _ = writeln!(out, "{:<14} {sampled:>8} {n:>10}", class.to_string());
    }
    let extra = [
        (p.contenders.len(), "contender counts"),
        (p.sharers.len(), "sharer counts"),
        (p.home_pairs.len(), "home pairs"),
    ];
    let extra: Vec<String> = extra
        .iter()
        .filter(|e| e.0 > 0)
        .map(|(n, w)| format!("{n} {w}"))
        .collect();
    let _ = writeln!(
        out,
        "\nwall time: est. {:.1} s for the pairs at an assumed {ASSUMED_ONE_WAY_NS} ns one-way, a pass's threads started in {}{}",
        p.estimate_s(pair_setup),
        human_s(pair_setup),
        match extra.is_empty() {
            true => String::new(),
            false => format!("; {} not counted", extra.join(", ")),
        }
    );
    let memory = mib(p.memory_bytes());
    let _ = writeln!(
        out,
        "memory: est. {memory} (the samples of every pair; two threads run at a time)"
    );
    out + &ending(costs, &p.notes)
}

/// A plan's last lines: the start-up it rests on, then its notes.
pub(super) fn ending(costs: &HostCosts, notes: &[String]) -> String {
    let notes = notes.iter().map(|n| format!("note: {n}\n"));
    costs_line(costs) + "\n" + &notes.collect::<String>()
}
