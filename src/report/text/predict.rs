//! `contend predict` and `contend predict --check` for a terminal: what
//! was assumed, the verdict lines, one row per strategy and rate; the
//! check's predicted-against-measured table, the median error and the
//! knees.

use super::align;
use crate::predict::{CheckResults, PredictResults};
use crate::units::si;
use crate::verdict::{cost_cells, predict_lines, range_text, rho_text, saturation_text};
use std::fmt::Write;

/// Header, latencies, verdict, table, notes.
pub fn render(p: &PredictResults) -> String {
    let mut out = String::new();
    let layout = &p.config.layout;
    let reads = match layout.read_every {
        0 => "no read side".to_string(),
        1 => "each reading after every update".to_string(),
        k => format!("each reading every {k} updates"),
    };
    let _ = writeln!(
        out,
        "contend predict: {} (CPUs {}, nodes {}, LLCs {}): {} writers, {reads}{}; arrivals {}",
        p.host,
        p.cpus,
        p.nodes,
        p.llcs,
        layout.writers.len(),
        if layout.readers.is_empty() {
            String::new()
        } else {
            format!(", {} readers", layout.readers.len())
        },
        p.config.arrivals
    );
    let classes: Vec<String> = p
        .classes
        .iter()
        .map(|c| {
            let l = c.latency;
            format!(
                "{} {} ns ({}–{})",
                c.class,
                si(l.ns),
                si(l.lo_ns),
                si(l.hi_ns)
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "transfer time per class ({}): {}\n",
        p.latencies.source,
        classes.join(", ")
    );
    out.push_str(&super::verdicts(&predict_lines(p)));
    out.push('\n');
    let header = [
        "strategy",
        "rate/CPU",
        "publish",
        "ρ hottest",
        "net ns/update",
        "net CPU",
        "transfers/update",
        "saturates at/CPU",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|h| h.to_string()).collect()];
    for s in &p.strategies {
        let saturates = saturation_text(s.saturation);
        for q in &s.points {
            let (cost, share) = cost_cells(q);
            rows.push(vec![
                s.name.clone(),
                si(q.rate),
                format!("{}%", si(100.0 * q.publish_fraction)),
                range_text(q.rho, rho_text),
                cost,
                share,
                format!("{} + {} read", si(q.write_transfers), si(q.read_transfers)),
                saturates.clone(),
            ]);
        }
    }
    out.push_str(&align(&rows));
    out.push_str(
        "ρ = the hottest line's utilisation (transfers/s × transfer time); ranges from the class latencies' uncertainty; net = transfers and waiting, beyond the same loop with no shared write\n",
    );
    for n in &p.notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

/// Predicted against measured, point by point, then the median error and
/// the knees.
pub fn render_check(c: &CheckResults) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "contend predict --check {}: transfer time = {}, arrivals paced (as contend run --rate)\n",
        c.file, c.latency_source
    );
    let mut rows = vec![
        [
            "series",
            "rate/writer",
            "canary ns",
            "ρ",
            "predicted ns",
            "measured net ns [95% CI]",
            "predicted/measured",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for p in &c.points {
        rows.push(vec![
            p.series.clone(),
            si(p.rate),
            si(p.canary_ns),
            rho_text(p.rho),
            p.predicted_ns.map_or("saturated".into(), si),
            format!(
                "{} [{}, {}]",
                si(p.measured_ns),
                si(p.measured_ci_ns[0]),
                si(p.measured_ci_ns[1])
            ),
            match (p.ratio, p.unscored()) {
                (Some(r), None) => format!("{r:.2}"),
                (Some(r), Some(why)) => format!("{r:.2} ({why})"),
                (None, _) => "-".into(),
            },
        ]);
    }
    out.push_str(&align(&rows));
    match c.median_abs_error_pct {
        Some(e) => {
            let _ = writeln!(
                out,
                "median |predicted/measured - 1| over the {} points at ρ ≤ 0.5: {e:.1}%",
                c.scored
            );
        }
        None => out.push_str("no point at ρ ≤ 0.5 with a measured cost above 0: nothing scored\n"),
    }
    for k in &c.knees {
        let m = k
            .measured_rate
            .map_or("not reached".into(), |r| format!("{}/s", si(r)));
        let p = k
            .predicted_rate
            .map_or("never".into(), |r| format!("{}/s", si(r)));
        let ratio = k
            .ratio
            .map_or(String::new(), |r| format!(" (measured/predicted {r:.2})"));
        let _ = writeln!(
            out,
            "knee of {}: measured {m} (first rate whose net cost is >25% off its low-rate level, beyond its 95% CI); predicted saturation {p}{ratio}",
            k.series
        );
    }
    for n in &c.notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}
