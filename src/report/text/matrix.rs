//! `contend matrix` as text: the classes, empty classes, advice,
//! asymmetric pairs and the reference check.

use super::align;
use crate::matrix::{MatrixResults, PairClass, Transaction};
use std::fmt::Write;

/// The text printed without --json: classes, empty classes, advice,
/// asymmetric pairs, the reference check.
pub fn render(r: &MatrixResults) -> String {
    let mut s = String::new();
    let c = &r.config;
    let _ = write!(
        s,
        "{} pair{} of {} CPUs, mode {}, home {}, {} samples x {} round trips per direction",
        r.pairs.len(),
        if r.pairs.len() == 1 { "" } else { "s" },
        c.cpus.len(),
        c.mode,
        c.home,
        c.samples,
        c.round_trips_per_sample,
    );
    // Files written before the time was recorded hold 0.
    if r.elapsed_s > 0.0 {
        let _ = write!(s, ", {:.2} s", r.elapsed_s);
    }
    s.push('\n');
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
    transactions(&mut s, r);
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
    // A round trip is the same two hand-offs whoever starts it: the two
    // phases (i initiating, then j) differ only by drift between them.
    if asym.is_empty() {
        let _ = writeln!(
            s,
            "phases agree: every pair's i-initiating and j-initiating medians within {}% (no drift between the two phases)",
            c.asymmetry_limit_pct
        );
    } else {
        let _ = writeln!(
            s,
            "drift between phases (i-initiating vs j-initiating medians differ by more than {}%): {}",
            c.asymmetry_limit_pct,
            asym.join("; ")
        );
    }
    let unstable: Vec<String> = r
        .pairs
        .iter()
        .filter(|p| p.unstable)
        .map(|p| {
            let passes: Vec<String> = p.passes.iter().map(|m| format!("{m:.1}")).collect();
            format!("{}-{} ({} ns)", p.cpus[0], p.cpus[1], passes.join(" / "))
        })
        .collect();
    let passes = r.pairs.iter().map(|p| p.passes.len()).max().unwrap_or(0);
    if passes > 1 {
        if unstable.is_empty() {
            let _ = writeln!(
                s,
                "stable: every pair's {passes} passes within {}% of each other",
                crate::matrix::UNSTABLE_LIMIT_PCT
            );
        } else {
            let _ = writeln!(
                s,
                "UNSTABLE ({} of {} pairs: passes differ by more than {}%; the machine moved under them, their medians mix phases, marked x on the heatmap): {}",
                unstable.len(),
                r.pairs.len(),
                crate::matrix::UNSTABLE_LIMIT_PCT,
                unstable.join("; ")
            );
        }
    }
    let f = &r.reference;
    let _ = writeln!(
        s,
        "reference CAS ping-pong on {}-{}: {:.1} ns one-way (round trip / 2); matrix ({}) {:.1} ns ({:+.1}%)",
        f.cpus[0], f.cpus[1], f.one_way_ns, c.mode, f.matrix_one_way_ns, f.difference_pct
    );
    if !f.agrees() {
        let _ = writeln!(
            s,
            "DISAGREE: the matrix's ping-pong and the minimal one differ by more than {}%: the host moved the CPUs between them (see passes above), or the matrix's figure is off; measure again",
            crate::matrix::REFERENCE_LIMIT_PCT
        );
    }
    s
}

/// Per class, each coherence transaction's net ns (the median over the
/// class's pairs) and its ratio to the class's ping-pong; nothing for a
/// file from before they were measured.
fn transactions(s: &mut String, r: &MatrixResults) {
    let mut classes: Vec<PairClass> = r
        .pairs
        .iter()
        .filter(|p| !p.transactions.is_empty())
        .map(|p| p.class)
        .collect();
    classes.sort();
    classes.dedup();
    if classes.is_empty() {
        return;
    }
    let mut rows = vec![
        ["class", "ping-pong ns"]
            .into_iter()
            .map(String::from)
            .chain(
                Transaction::ALL
                    .iter()
                    .map(|t| format!("{} ns (x)", t.name())),
            )
            .collect::<Vec<_>>(),
    ];
    for class in classes {
        let pairs: Vec<_> = r.pairs.iter().filter(|p| p.class == class).collect();
        let median = |f: &dyn Fn(&crate::matrix::PairResult) -> Option<f64>| {
            let v: Vec<f64> = pairs.iter().filter_map(|p| f(p)).collect();
            crate::stats::median(&v)
        };
        let mut row = vec![
            class.to_string(),
            median(&|p| Some(p.median_ns)).map_or("-".into(), |m| format!("{m:.1}")),
        ];
        for t in Transaction::ALL {
            let of = |p: &crate::matrix::PairResult| {
                p.transactions.iter().find(|c| c.transaction == t).cloned()
            };
            let ns = median(&|p| of(p).map(|c| c.net_ns));
            let ratio = median(&|p| of(p).map(|c| c.to_pingpong));
            row.push(match (ns, ratio) {
                (Some(ns), Some(x)) => format!("{ns:.1} ({x:.2})"),
                _ => "-".into(),
            });
        }
        rows.push(row);
    }
    let _ = writeln!(
        s,
        "coherence transactions: one CPU times the operation fenced right after the other left the line so, less the same on a private line; median of the class's pairs, (x) = ÷ its ping-pong"
    );
    s.push_str(&align(&rows));
}
