//! `contend matrix` (and `contend report matrix.json`) as text, in lines of about 72 columns: the
//! pairwise grid, the classes, empty classes, the coherence transactions, contenders, sharers and
//! homes when measured, the advice, drift, stability and the reference check.

use super::{align, head, wrapped};
use crate::matrix::{MatrixResults, PairClass, PairResult, Transaction};
use crate::report::{ns_or_dash, plain};
use crate::verdict;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Most CPUs shown as a CPU × CPU grid (131 columns at 32 CPUs with 3-digit latencies).
const GRID_MAX_CPUS: usize = 32;

/// Classes side by side in one table of coherence transactions.
const TRANSACTION_CLASSES: usize = 3;

/// The text printed without --json.
pub fn render(r: &MatrixResults) -> String {
    let mut s = String::new();
    let c = &r.config;
    let (pairs, cpus) = (verdict::plural(r.pairs.len(), "pair"), c.cpus.len());
    let _ = write!(
        s,
        "{pairs} of {cpus} CPUs, mode {}, home {}",
        c.mode, c.home
    );
    // Files written before the time was recorded hold 0.
    if r.elapsed_s > 0.0 {
        let _ = write!(s, ", {:.2} s", r.elapsed_s);
    }
    let (samples, trips) = (c.samples, c.round_trips_per_sample);
    let _ = writeln!(
        s,
        "\n{samples} samples x {trips} round trips per direction\n"
    );
    grid(&mut s, r);
    s.push('\n');
    classes(&mut s, r);
    transactions(&mut s, r);
    if let Some(line) = transactions_cut_line(r) {
        s.push_str(&wrapped(&line));
    }
    contenders(&mut s, r);
    sharers(&mut s, r);
    home_classes(&mut s, r);
    s.push('\n');
    let lines = verdict::matrix_lines(r);
    s.extend(lines.iter().map(|l| wrapped(&plain(&l.text))));
    drift(&mut s, r);
    let f = &r.reference;
    let (one_way, matrix, diff) = (f.one_way_ns, f.matrix_one_way_ns, f.difference_pct);
    let (a, b) = (f.cpus[0], f.cpus[1]);
    s.push_str(&wrapped(&format!(
        "reference ping-pong {a}-{b}: {one_way:.1} ns one-way, matrix {matrix:.1} ns ({diff:+.1}%)"
    )));
    if !f.agrees() {
        s.push_str(&wrapped(&format!(
            "DISAGREE: the matrix's ping-pong and the minimal one differ by more than {}%: the host moved the CPUs between them (see passes above), or the matrix's figure is off; measure again",
            crate::matrix::REFERENCE_LIMIT_PCT
        )));
    }
    s
}

/// Each pair's median one-way ns (both phases' samples), whole ns, in a CPU × CPU grid over the
/// chosen CPUs: `.` on the diagonal, `-` for a pair a per-class sample left out.
fn grid(s: &mut String, r: &MatrixResults) {
    let cpus = &r.config.cpus;
    if cpus.len() > GRID_MAX_CPUS {
        node_grid(s, r);
        return;
    }
    let both = |p: &PairResult| {
        let v = format!("{:.0}", p.median_ns);
        [
            ((p.cpus[0], p.cpus[1]), v.clone()),
            ((p.cpus[1], p.cpus[0]), v),
        ]
    };
    let ns: BTreeMap<(u32, u32), String> = r.pairs.iter().flat_map(both).collect();
    let label = cpus.iter().map(|c| c.to_string().len()).max().unwrap_or(1);
    let width = ns.values().map(String::len).max().unwrap_or(1).max(label);
    let missing = ns.len() < cpus.len() * (cpus.len() - 1);
    let _ = writeln!(
        s,
        "one-way ns (round trip / 2), each pair's median{}:",
        if missing { "; - = not sampled" } else { "" }
    );
    let _ = write!(s, "{:>label$}", "");
    s.extend(cpus.iter().map(|c| format!(" {c:>width$}")));
    for &a in cpus {
        let _ = write!(s, "\n{a:>label$}");
        for &b in cpus {
            let cell = if a == b {
                "."
            } else {
                ns.get(&(a, b)).map_or("-", String::as_str)
            };
            let _ = write!(s, " {cell:>width$}");
        }
    }
    s.push('\n');
}

/// Over [`GRID_MAX_CPUS`] CPUs, the grid by node.
fn node_grid(s: &mut String, r: &MatrixResults) {
    let node_of = |cpu: u32| r.topology.node_of_cpu(cpu);
    let mut nodes: BTreeMap<u32, crate::topology::CpuList> = BTreeMap::new();
    for (n, c) in r.config.cpus.iter().filter_map(|&c| Some((node_of(c)?, c))) {
        nodes.entry(n).or_default().insert(c);
    }
    let mut medians: BTreeMap<(u32, u32), Vec<f64>> = BTreeMap::new();
    for p in &r.pairs {
        if let (Some(a), Some(b)) = (node_of(p.cpus[0]), node_of(p.cpus[1])) {
            medians
                .entry((a.min(b), a.max(b)))
                .or_default()
                .push(p.median_ns);
        }
    }
    let cell = |a: u32, b: u32| {
        let median = medians
            .get(&(a.min(b), a.max(b)))
            .and_then(|v| crate::stats::median(v));
        median.map_or("-".to_string(), |m| format!("{m:.0}"))
    };
    let _ = writeln!(
        s,
        "{} CPUs, one-way ns by node (median of its pairs; - = none):",
        r.config.cpus.len()
    );
    let ids: Vec<u32> = nodes.keys().copied().collect();
    let cells = ids
        .iter()
        .flat_map(|&a| ids.iter().map(move |&b| cell(a, b).len()));
    let heads = ids.iter().map(|n| format!("node {n}").len());
    let width = cells.chain(heads).max().unwrap_or(1);
    let list = nodes.values().map(|l| l.to_string().len()).max();
    let list = list.unwrap_or(4);
    let _ = write!(s, "{:<7} {:<list$}", "", "CPUs");
    let heads = ids
        .iter()
        .map(|n| format!(" {:>width$}", format!("node {n}")));
    s.extend(heads);
    for (&a, l) in &nodes {
        let _ = write!(s, "\n{:<7} {:<list$}", format!("node {a}"), l.to_string());
        s.extend(ids.iter().map(|&b| format!(" {:>width$}", cell(a, b))));
    }
    s.push('\n');
}

/// The class table (pairs, median, p90, range), then the classes with no pair and why.
fn classes(s: &mut String, r: &MatrixResults) {
    let _ = writeln!(
        s,
        "{:<14} {:>7} {:>10} {:>8} {:>8} {:>8}",
        "class", "pairs", "median ns", "p90 ns", "min ns", "max ns"
    );
    for k in &r.classes {
        let pairs = match k.pairs == k.candidates {
            true => k.pairs.to_string(),
            false => format!("{}/{}", k.pairs, k.candidates),
        };
        let (class, median, p90, min, max) = (
            k.class.to_string(),
            k.median_ns,
            k.p90_ns,
            k.min_ns,
            k.max_ns,
        );
        let _ = writeln!(
            s,
            "{class:<14} {pairs:>7} {median:>10.1} {p90:>8.1} {min:>8.1} {max:>8.1}"
        );
    }
    let empty = r.empty_classes.iter();
    s.extend(empty.map(|e| wrapped(&plain(&format!("no {} pairs: {}", e.class, e.reason)))));
}

/// Per class (a column each), each coherence transaction's net ns and its ratio to the class's
/// ping-pong, then the clock's step when coarse.
fn transactions(s: &mut String, r: &MatrixResults) {
    let measured = r.pairs.iter().filter(|p| !p.transactions.is_empty());
    let classes: BTreeSet<PairClass> = measured.map(|p| p.class).collect();
    let classes: Vec<PairClass> = classes.into_iter().collect();
    if classes.is_empty() {
        return;
    }
    let of_class = |class: PairClass| -> Vec<&PairResult> {
        r.pairs.iter().filter(|p| p.class == class).collect()
    };
    let median = |pairs: &[&PairResult], f: &dyn Fn(&PairResult) -> Option<f64>| {
        let v: Vec<f64> = pairs.iter().filter_map(|p| f(p)).collect();
        crate::stats::median(&v)
    };
    s.push('\n');
    s.push_str(&wrapped(
        "coherence transactions: one CPU times the operation fenced right after the other left the line so, less the same on a private line; net ns (x its ping-pong), each pair's figure the trimmed mean of its timings, median of the class's pairs",
    ));
    let mut smallest = f64::INFINITY;
    // At most 3 classes a table, so that each fits 72 columns.
    for (i, chunk) in classes.chunks(TRANSACTION_CLASSES).enumerate() {
        let pingpong = |&k: &PairClass| ns_or_dash(median(&of_class(k), &|p| Some(p.median_ns)));
        let names = chunk.iter().map(ToString::to_string);
        let mut rows = vec![
            [String::new()].into_iter().chain(names).collect(),
            [head(&["ping-pong"]), chunk.iter().map(pingpong).collect()].concat(),
        ];
        for t in Transaction::ALL {
            let of = |p: &PairResult| p.transactions.iter().find(|c| c.transaction == t).cloned();
            let mut row = vec![t.name().to_string()];
            for &k in chunk {
                let pairs = of_class(k);
                let ns = median(&pairs, &|p| of(p).map(|c| c.net_ns));
                let ratio = median(&pairs, &|p| of(p).map(|c| c.to_pingpong));
                let positive = ns.filter(|&ns| ns > 0.0);
                smallest = positive.map_or(smallest, |ns| smallest.min(ns));
                row.push(match (ns, ratio) {
                    (Some(ns), Some(x)) => format!("{ns:.1} ({x:.2})"),
                    _ => "-".into(),
                });
            }
            rows.push(row);
        }
        if i > 0 {
            s.push('\n');
        }
        s.push_str(&align(&rows));
    }
    if let Some(line) = r.provenance.tsc_step_line(smallest) {
        s.push_str(&wrapped(&line));
    }
}

/// The pairs whose transactions stopped short of their plan.
fn transactions_cut_line(r: &MatrixResults) -> Option<String> {
    let cut: Vec<&PairResult> = r.pairs.iter().filter(|p| p.transactions_cut()).collect();
    let least = |p: &&PairResult| {
        let missing = p.transactions.len() < Transaction::ALL.len();
        let least = p.transactions.iter().map(|t| t.samples).min();
        let least = least.filter(|_| !missing);
        (least.unwrap_or(0), p.transactions_planned)
    };
    let (fewest, planned) = cut.iter().map(least).min()?;
    let (n, all, us) = (
        cut.len(),
        r.pairs.len(),
        crate::matrix::SCHEDULED_TRANSFER_NS / 1000,
    );
    Some(format!(
        "transactions cut short on {n} of {all} pairs (fewest {fewest} of {planned} samples a transaction): their two threads took turns on one CPU, over {us} µs a transfer (a loaded machine, or both vCPUs on one host CPU), so those pairs' figures rest on fewer samples, or none"
    ))
}

/// CPU ids joined by commas, the first 16 and then how many more.
fn cpu_run(cpus: &[u32]) -> String {
    let shown: Vec<String> = cpus.iter().take(16).map(ToString::to_string).collect();
    match cpus.len().saturating_sub(16) {
        0 => shown.join(","),
        more => format!("{} and {more} more", shown.join(",")),
    }
}

/// `--contenders`: per k, the widest class, the counts and the line's net ns per hand-over.
fn contenders(s: &mut String, r: &MatrixResults) {
    let Some(widest) = r.contenders.iter().max_by_key(|p| p.k) else {
        return;
    };
    s.push('\n');
    s.push_str(&wrapped(&format!(
        "contenders: k CPUs adding to one line at once, the first k of {}; ns/hand-over = window / hand-overs - the same add on a private line, add ns/CPU = k x window / adds - private add, trimmed means over {} windows; a hand-over is an add whose previous value another CPU wrote",
        cpu_run(&widest.cpus),
        widest.windows
    )));
    let titles = [
        "k",
        "widest class",
        "adds",
        "hand-overs",
        "ns/hand-over",
        "add ns/CPU",
    ];
    let mut rows = vec![head(&titles)];
    for p in &r.contenders {
        let adds: u64 = p.adds.iter().sum();
        let handovers: u64 = p.handovers.iter().sum();
        rows.push(vec![
            p.k.to_string(),
            p.widest_class.to_string(),
            adds.to_string(),
            format!(
                "{handovers} ({:.0}%)",
                100.0 * handovers as f64 / adds.max(1) as f64
            ),
            ns_or_dash(p.handover_ns),
            format!("{:.1}", p.add_ns),
        ]);
    }
    s.push_str(&align(&rows));
}

/// `--sharers`: per m, the widest class, the reads and the writer's net upgrade ns.
fn sharers(s: &mut String, r: &MatrixResults) {
    let Some(first) = r.sharers.first() else {
        return;
    };
    s.push('\n');
    s.push_str(&wrapped(&format!(
        "sharers: CPU {} adds to a line that m readers (the next m of the span order) read between its writes; upgrade ns = its fenced add less the same add on a private line, trimmed mean over {} rounds; fresh reads = reads that saw its latest write",
        first.writer, first.rounds
    )));
    let mut rows = vec![head(&["m", "widest class", "fresh reads", "upgrade ns"])];
    for p in &r.sharers {
        rows.push(vec![
            p.m.to_string(),
            p.widest_class.to_string(),
            format!("{}/{}", p.fresh_reads, p.reads),
            format!("{:.1}", p.upgrade_ns),
        ]);
    }
    s.push_str(&align(&rows));
}

/// `--home-classes`: per class, read fetched and add moved with the line local and remote to the
/// requester; nothing when not measured.
fn home_classes(s: &mut String, r: &MatrixResults) {
    if r.home_classes.is_empty() {
        return;
    }
    s.push('\n');
    s.push_str(&wrapped(
        "home: read fetched / add moved net ns (trimmed means) with the line on the requesting CPU's node (local) and on another node (remote, at SLIT distance d)",
    ));
    let mut rows = vec![head(&["class", "pairs", "local", "remote", "d"])];
    for h in &r.home_classes {
        let pair = |f: f64, a: f64| format!("{f:.1} / {a:.1}");
        let remote = h.remote.as_ref();
        rows.push(vec![
            h.class.to_string(),
            h.pairs.len().to_string(),
            pair(h.local.read_fetched_ns, h.local.add_moved_ns),
            remote.map_or("-".into(), |c| pair(c.read_fetched_ns, c.add_moved_ns)),
            remote.map_or("-".into(), |c| c.distance.to_string()),
        ]);
    }
    s.push_str(&align(&rows));
}

/// Whether the two phases (i initiating, then j) and the passes agree, pair by pair.
fn drift(s: &mut String, r: &MatrixResults) {
    let limit = r.config.asymmetry_limit_pct;
    let side =
        |d: &crate::matrix::DirectionStats| format!("{}->{} {:.1} ns", d.from, d.to, d.median_ns);
    let asym = r.pairs.iter().filter(|p| p.asymmetric);
    let asym = asym.map(|p| format!("{} / {}", side(&p.forward), side(&p.backward)));
    let asym: Vec<String> = asym.collect();
    s.push_str(&wrapped(&match asym.is_empty() {
        true => format!("phases agree: each pair's i- and j-initiating medians within {limit}%"),
        false => format!(
            "drift between phases (i- and j-initiating medians over {limit}% apart): {}",
            asym.join("; ")
        ),
    }));
    let unstable = |p: &PairResult| {
        let passes: Vec<String> = p.passes.iter().map(|m| format!("{m:.1}")).collect();
        format!("{}-{} ({} ns)", p.cpus[0], p.cpus[1], passes.join(" / "))
    };
    let unstable = r.pairs.iter().filter(|p| p.unstable).map(unstable);
    let unstable: Vec<String> = unstable.collect();
    let passes = r.pairs.iter().map(|p| p.passes.len()).max().unwrap_or(0);
    if passes > 1 {
        let (limit, n, all) = (
            crate::matrix::UNSTABLE_LIMIT_PCT,
            unstable.len(),
            r.pairs.len(),
        );
        s.push_str(&wrapped(&match n {
            0 => format!("stable: every pair's {passes} passes within {limit}% of each other"),
            _ => format!(
                "UNSTABLE ({n} of {all} pairs: passes differ by more than {limit}%; the machine moved under them, their medians mix phases, marked x on the heatmap): {}",
                unstable.join("; ")
            ),
        }));
    }
}
