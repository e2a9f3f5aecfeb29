//! A check's article (`predict --check`, and the study's own): the model against what a run
//! measured: its verdict lines, then flat out the hand-overs/s predicted against the exact count,
//! and per paced point the net cost predicted against the measured 95% CI.

use super::{notes, section, sortable, verdict_section, warnings_list};
use crate::predict::CheckResults;
use crate::report::{error_cell, plain};
use crate::units::{si, with_interval};
use crate::verdict::{check_lines, rho_text};
use maud::{Markup, html};

/// The article of one check.
pub(super) fn article(id: usize, label: Option<&str>, c: &CheckResults) -> Markup {
    html! {
        article.result id={ "result-" (id) } data-kind="check" {
            h2 { "The model against what was measured" }
            p.sub {
                "checked: " code { (plain(&c.file)) } "; transfer time: " (plain(&c.latency_source))
                @if let Some(l) = label { br; "file: " code { (l) } }
            }
            (verdict_section(id, &check_lines(c), false))
            (section(id, "tables", "Predicted against measured", html! {
                @if !c.flat_out.is_empty() {
                    h4 { "Flat out: hand-overs/s" }
                    (sortable(&[
                        "strategy", "predicted hand-overs/s", "counted [95% CI]", "error", "agrees",
                        "predicted round ns", "updates/ownership (counted)", "hold ns/ownership (implied)",
                    ], html! { @for p in &c.flat_out { tr {
                            td { (plain(&p.series)) }
                            td data-sort=(p.predicted_per_s) { (si(p.predicted_per_s)) }
                            td data-sort=(p.measured_per_s) {
                                (with_interval(p.measured_per_s, p.measured_ci, p.repeats, ""))
                            }
                            td { (error_cell(p.error_pct(), Some("none counted"))) }
                            td { (p.agreement().word()) }
                            td { (p.predicted_round_ns.map_or("-".into(), si)) }
                            td { (p.updates_per_ownership.map_or("-".into(), si)) }
                            td { (p.implied_hold_ns().map_or("-".into(), si)) }
                        } } }))
                    p.note {
                        "Predicted: a line with two or more writers moves one transfer at a time over its hand-over class mix. The model does not predict how long a writer keeps the line: the implied hold is how much longer each hand-over took than predicted."
                    }
                }
                @if !c.points.is_empty() {
                    h4 { "Paced: net ns per update" }
                    (sortable(&[
                        "strategy", "rate/writer", "predicted ρ", "predicted transfers/update", "exact",
                        "predicted net ns", "measured net ns [95% CI]", "error", "agrees",
                    ], html! { @for p in &c.points { tr {
                            td { (plain(&p.series)) }
                            td data-sort=(p.rate) {
                                (si(p.rate)) @if let Some(a) = p.arrivals { " " (a.to_string()) }
                            }
                            td { (rho_text(p.rho)) }
                            td { (format!("{:.3}", p.predicted_transfers)) }
                            td { (p.measured_transfers.map_or("-".into(), |m| format!("{m:.3}"))) }
                            td data-sort=[p.predicted_ns] { (p.predicted_ns.map_or("saturated".into(), si)) }
                            td data-sort=(p.measured_ns) {
                                (with_interval(p.measured_ns, p.measured_ci_ns, p.repeats, ""))
                            }
                            td { (error_cell(p.error_pct(), p.no_error())) }
                            td { (p.agreement().word()) }
                        } } }))
                }
            }))
            (section(id, "warnings", "Notes", warnings_list(notes(&c.notes))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_article_gives_each_points_agreement_and_escapes_the_file() {
        let mut c = CheckResults::example();
        c.file = "<b>run</b>.json".into();
        c.points[0].series = "p5<script>".into();
        let page = article(3, Some("from host b"), &c).into_string();
        assert!(page.contains(r#"id="result-3""#), "{page}");
        // A file from another host is data: escaped, never markup.
        assert!(page.contains("&lt;b&gt;run&lt;/b&gt;.json"), "{page}");
        assert!(page.contains("p5&lt;script&gt;"), "{page}");
        let markup = page.contains("<script>") || page.contains("<b>run");
        assert!(!markup, "{page}");
        // Each kind's agreement: yes over several repeats, and neither
        // yes nor no over one.
        assert_eq!(page.matches("<td>yes</td>").count(), 2, "{page}");
        assert_eq!(page.matches("<td>1 repeat</td>").count(), 2, "{page}");
        assert!(!page.contains("<td>no</td>"), "{page}");
        assert!(page.contains("100 (1 repeat)"), "{page}");
    }
}
