//! `contend predict --check` for a terminal: the model's prediction against the measurement, point
//! by point (transfers per update against the exact counts, net cost against its CI), how many
//! agree, the median error, the worst point and the knees.

use super::{align, head};
use crate::predict::CheckResults;
use crate::report::error_cell;
use crate::units::{si, with_interval};
use crate::verdict::check_lines;
use crate::verdict::rho_text;
use crate::workload::Arrivals;
use std::fmt::Write;

/// Predicted against measured, point by point, then the median error and the knees.
pub(super) fn render(c: &CheckResults) -> String {
    let mut out = String::new();
    let (file, source) = (&c.file, &c.latency_source);
    let _ = writeln!(
        out,
        "contend predict --check {file}: transfer time = {source}\n"
    );
    out.push_str(&super::lines(check_lines(c)));
    out.push('\n');
    if !c.flat_out.is_empty() {
        flat_out(&mut out, c);
    }
    if c.points.is_empty() {
        out.push_str(&super::notes(&c.notes));
        return out;
    }
    let mut rows = vec![head(&[
        "series",
        "rate/writer",
        "canary ns",
        "ρ",
        "transfers/update predicted",
        "exact",
        "predicted ns",
        "of it clock ns",
        "measured net ns [95% CI]",
        "error",
        "agrees",
    ])];
    for p in &c.points {
        rows.push(vec![
            p.series.clone(),
            match p.arrivals {
                Some(Arrivals::Poisson) => format!("{} poisson", si(p.rate)),
                _ => si(p.rate),
            },
            Some(p.canary_ns)
                .filter(|c| c.is_finite())
                .map_or("-".into(), si),
            rho_text(p.rho),
            format!("{:.3}", p.predicted_transfers),
            p.measured_transfers
                .map_or("-".into(), |m| format!("{m:.3}")),
            p.predicted_ns.map_or("saturated".into(), si),
            p.local_ns.map_or("-".into(), si),
            with_interval(p.measured_ns, p.measured_ci_ns, p.repeats, ""),
            error_cell(p.error_pct(), p.no_error()),
            p.agreement().word().into(),
        ]);
    }
    out.push_str(&align(&rows));
    match c.transfers_median_error_pct {
        Some(e) => {
            let _ = writeln!(
                out,
                "structure: median error of transfers per update (hand-overs + read fetches, against the run's exact counts) {e:.1}%"
            );
        }
        None => out.push_str(
            "structure: transfers per update not scored (no exact counts, or most counted 0 where the model predicts some)\n",
        ),
    }
    let per_s = |r: Option<f64>, none: &str| r.map_or(none.into(), |r| format!("{}/s", si(r)));
    for k in &c.knees {
        let (m, p) = (
            per_s(k.measured_rate, "not reached"),
            per_s(k.predicted_rate, "never"),
        );
        let ratio = k.ratio.map(|r| format!(" (measured/predicted {r:.2})"));
        let ratio = ratio.unwrap_or_default();
        let _ = writeln!(
            out,
            "knee of {}: measured {m} (first rate whose net cost rose >25% above its lowest rate's, its 95% CI above it); predicted saturation {p}{ratio}",
            k.series
        );
    }
    out.push_str(&super::notes(&c.notes));
    out
}

/// Flat out: hand-overs a second predicted against the exact count, and what that makes each update
/// wait.
fn flat_out(out: &mut String, c: &CheckResults) {
    let mut rows = vec![head(&[
        "flat out",
        "writers",
        "lines saturated",
        "hand-overs/s predicted",
        "counted [95% CI]",
        "error",
        "agrees",
        "round ns predicted",
        "updates/ownership",
        "hold ns/ownership implied",
        "ns/update predicted",
        "loop ns/update",
    ])];
    for p in &c.flat_out {
        rows.push(vec![
            p.series.clone(),
            p.writers.to_string(),
            p.saturated_lines.to_string(),
            si(p.predicted_per_s),
            with_interval(p.measured_per_s, p.measured_ci, p.repeats, ""),
            error_cell(p.error_pct(), Some("none counted")),
            p.agreement().word().into(),
            p.predicted_round_ns.map_or("-".into(), si),
            p.updates_per_ownership.map_or("-".into(), si),
            p.implied_hold_ns().map_or("-".into(), si),
            p.predicted_ns_per_update().map_or("-".into(), si),
            p.measured_ns_per_update.map_or("-".into(), si),
        ]);
    }
    out.push_str(&align(&rows));
    out.push_str(
        "flat out, predicted: a line with two or more writers moves one transfer at a time over its hand-over class mix; the round is each writer's wait per ownership, and over the run's updates per ownership (counted, not predicted) the wait per update. A writer that keeps the line for several updates holds it longer than a transfer, which the model does not predict: the implied hold is how much longer each hand-over took than predicted\n\n",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_tables_give_the_measured_interval_or_say_one_repeat() {
        let c = CheckResults::example();
        let text = render(&c);
        let row = |name: &str| {
            text.lines()
                .find(|l| l.starts_with(name))
                .unwrap_or_else(|| panic!("no row {name} in:\n{text}"))
        };
        assert!(row("f3 ").contains("18.0M [17.0M, 21.0M]"), "{text}");
        assert!(row("f1 ").contains("18.0M (1 repeat)"), "{text}");
        assert!(row("p5 ").contains("100 [80.0, 120]"), "{text}");
        assert!(row("p1 ").contains("100 (1 repeat)"), "{text}");
        assert!(!row("p1 ").contains("[100, 100]"), "{text}");
        // Whether each agrees: one repeat cannot tell (10% and 11% off,
        // within the margin).
        let cell = |name: &str, column: usize| {
            let cells = row(name).split("  ").map(str::trim);
            cells.filter(|c| !c.is_empty()).nth(column).unwrap()
        };
        let agrees = [("p5 ", 10), ("p1 ", 10), ("f3 ", 6), ("f1 ", 6)].map(|(r, c)| cell(r, c));
        assert_eq!(agrees, ["yes", "1 repeat", "yes", "1 repeat"], "{text}");
    }
}
