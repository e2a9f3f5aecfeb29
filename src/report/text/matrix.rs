//! `contend matrix` as text: the classes, empty classes, advice,
//! asymmetric pairs and the reference check.

use crate::matrix::MatrixResults;
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
