//! `contend predict --check` for a terminal: the model's prediction
//! against the measured net cost, point by point, the median error and
//! the knees.

use super::align;
use crate::predict::CheckResults;
use crate::units::si;
use crate::verdict::rho_text;
use std::fmt::Write;

/// Predicted against measured, point by point, then the median error and
/// the knees.
pub(super) fn render(c: &CheckResults) -> String {
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
