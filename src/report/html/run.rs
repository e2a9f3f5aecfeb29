//! A run's article: verdict, tables with marks, charts, placement proof, warnings, provenance, each
//! regime's drawn from its view of the run ([`RunResults::regimes`]); and the tables a sweep's
//! points reuse.

use super::placement::placement;
use super::{
    Mark, article_head, inline_svg, marked, marks_legend, provenance_table, regime_heading,
    section, sortable, verdict_section, warnings_list,
};
use crate::placement::Placement;
use crate::report::ExportError;
use crate::report::charts;
use crate::report::measures::{self, StrategyGrid, shown_measures};
use crate::runner::first_seen;
use crate::runner::{Measure, PACED, RunResults, StrategyResult, THROUGHPUT_NS, cost_measure};
use crate::stats::Decision;
use crate::topology::CpuList;
use crate::units::spread_text;
use crate::verdict;
use crate::verdict::basis::{Severity, findings};
use crate::workload::Regime;
use maud::{Markup, html};

/// One regime of a run: its heading (`None` when the run has only one) and its view.
type HeadedView = (Option<String>, RunResults);

/// Every regime of `run`, in order.
fn regimes(run: &RunResults) -> Vec<HeadedView> {
    let views = run.regimes();
    let several = views.len() > 1;
    let headed = |v: RunResults| (several.then(|| regime_heading(v.regime())), v);
    views.into_iter().map(headed).collect()
}

/// The article of one run.
pub(super) fn article(
    id: usize,
    label: Option<&str>,
    run: &RunResults,
) -> Result<Markup, ExportError> {
    let regimes = regimes(run);
    let draw = |(_, view): &HeadedView| {
        let suffix = charts::run::regime_suffix(view.regime());
        charts::run::regime_charts(view, "", &suffix)
    };
    let drawn = regimes.iter().map(draw).collect::<Result<Vec<_>, _>>()?;
    // The run's lines, as the terminal prints them: each names its regime, and what the host cannot
    // answer is said once.
    let verdicts = verdict::run_lines(run);
    let glance = glance(&format!("headline-{id}"), run)?;
    Ok(html! {
        article.result id={ "result-" (id) } data-kind="run" {
            (article_head(id, "run", label, &run.provenance, run.stopped()))
            (glance)
            (verdict_section(id, &verdicts, true))
            (section(id, "tables", "Tables", html! {
                (marks_legend())
                @for r in &regimes {
                    @if let Some(h) = &r.0 { h3.regime { (h) } }
                    (tables(&r.1))
                }
            }))
            (section(id, "charts", "Charts", html! {
                @if drawn.iter().all(Vec::is_empty) {
                    p { "No chart: no strategy finished a repeat." }
                }
                @for (r, charts) in regimes.iter().zip(&drawn) {
                    @if let (Some(h), false) = (&r.0, charts.is_empty()) { h4 { (h) } }
                    @for (name, svg) in charts { (inline_svg(name, svg)) }
                }
            }))
            (section(id, "placement", "Placement proof", placement(run)))
            (section(id, "warnings", "Noise and interference warnings", warnings_list(marked(&warnings(run)))))
            (section(id, "provenance", "Provenance", html! {
                (provenance_table(&run.provenance, Some(&run.topology)))
                h4 { "Settings" }
                (settings(run))
            }))
        }
    })
}

/// The answer at a glance, the section `id`.
pub(super) fn glance(id: &str, run: &RunResults) -> Result<Markup, ExportError> {
    let h = verdict::headline(run);
    let chart = charts::cost::render(run).transpose()?;
    Ok(html! {
        section.headline data-section="headline" id=(id) {
            p.answer { (h.answer) }
            @for m in h.more.iter().chain(&h.flat_out) { p.flat { (m) } }
            @if let Some((name, svg)) = &chart { (inline_svg(name, svg)) }
        }
    })
}

/// Every note and finding of a run.
pub(super) fn warnings(run: &RunResults) -> Vec<(Severity, String)> {
    let note = |n: &String| (Severity::Info, n.clone());
    let mut lines: Vec<(Severity, String)> = run.topology.notes.iter().map(note).collect();
    for (heading, view) in regimes(run) {
        for f in findings(&view) {
            let text = heading
                .as_ref()
                .map_or(f.to_string(), |h| format!("{h}: {f}"));
            lines.push((f.severity, text));
        }
    }
    lines.extend(run.notes.iter().map(note));
    if let Some(bad) = run.first_inexact() {
        lines.insert(0, (Severity::Warning, format!("WARNING exact sums: {bad}")));
    }
    first_seen(lines)
}

/// The page's mark for a change of `m` judged `verdict` (`None`: no test).
fn mark(m: &Measure, verdict: Option<Decision>) -> Option<Mark> {
    match verdict {
        None => Some(Mark::Untested),
        Some(Decision::NoChange) => Some(Mark::Same),
        Some(Decision::Inconclusive) => Some(Mark::Unsure),
        Some(v) => {
            let better = m.direction.better(v);
            better.map(|b| if b { Mark::Better } else { Mark::Worse })
        }
    }
}

/// One measure's table over `grid`.
pub(super) fn measure_table(m: &Measure, grid: &StrategyGrid) -> Markup {
    let cells = grid.cells(m);
    let levels = grid.levels.iter().map(String::as_str);
    let head: Vec<&str> = grid.key_headers.iter().copied().chain(levels).collect();
    html! {
        h4 { (m.heading()) }
        (sortable(&head, html! {
            @for (row, cells) in grid.rows.iter().zip(&cells) {
                tr {
                    @for k in &row.keys { td { (k) } }
                    @for c in cells {
                        @let mark = c.change_pct.and_then(|_| mark(m, c.verdict));
                        @let class = mark.filter(|m| matches!(m, Mark::Better | Mark::Worse)).map(|m| m.parts().1);
                        td class=[class] data-sort=[c.mean] {
                            (c.value)
                            @if let Some(ch) = c.change_pct { " " span.change { (format!("{ch:+.1}%")) } }
                            @if let Some((symbol, class, title)) = mark.map(Mark::parts) {
                                " " span class={ "mark " (class) } title=(title) { (symbol) }
                            }
                        }
                    }
                }
            }
        }))
    }
}

/// The measures one regime's tables show, the trusted first: the cost of one update, its net
/// figure, then updates per ownership (the first two already lead [`shown_measures`]).
pub(super) fn ordered_measures<'a>(
    strategies: impl Iterator<Item = &'a StrategyResult> + Clone,
    regime: Regime,
) -> Vec<&'static Measure> {
    let mut shown = shown_measures(strategies, regime.is_paced());
    let net = if regime.is_paced() {
        &PACED[1]
    } else {
        &THROUGHPUT_NS[1]
    };
    let lead = [cost_measure(regime).title, net.title, "updates/ownership"];
    shown.sort_by_key(|m| !(lead.contains(&m.title) || lead.contains(&m.short)));
    shown
}

/// One regime's tables (a view of one regime): one per measure, the trusted ones first.
fn tables(run: &RunResults) -> Markup {
    let grid = StrategyGrid::of_run(run);
    let mut ordered = ordered_measures(run.strategies.iter(), run.regime());
    ordered.retain(|m| !measures::repeats_updates(run, m));
    let (diagnostic, trusted): (Vec<&Measure>, Vec<&Measure>) =
        ordered.into_iter().partition(|m| measures::diagnostic(m));
    let hammer = !run.regime().is_paced();
    let paced_floor = run.paced_floor(run.regime());
    let table = |m: &Measure| {
        html! {
            (measure_table(m, &grid))
            @if m.sampled && hammer {
                p.note {
                    "Fenced samples: timing an update stalls a hammering writer, so these read several times ns/op from throughput; for the cost of an update read loop ns/op."
                }
            }
        }
    };
    let names: Vec<&str> = diagnostic.iter().map(|m| m.short).collect();
    html! {
        @for m in &trusted { (table(m)) }
        @if !diagnostic.is_empty() {
            details.diagnostic {
                summary { "Diagnostic tables (" (diagnostic.len()) "): " (names.join(", ")) }
                @for m in &diagnostic { (table(m)) }
            }
        }
        (exactness([run].into_iter()))
        @if let Some(f) = &run.floor {
            p {
                "Harness floor: " (format!("{:.1}", f.loop_ns.mean)) " ns/op "
                (spread_text(&f.loop_ns)) " (the same writer loop on CPU "
                (f.cpu) " alone, no shared write)."
            }
        }
        @if let Some(f) = paced_floor {
            p {
                "Paced floor: "
                (format!("{:.1}", f.busy_ns.mean)) " busy ns/op " (spread_text(&f.busy_ns))
                @if let Some(share) = f.cpu_share_pct {
                    ", CPU share " (format!("{:.3}", share.mean)) "% " (spread_text(&share))
                }
                " (" (f.how()) ")."
            }
        }
    }
}

/// Whether every repeat's final sum was exact in these runs.
pub(super) fn exactness<'a>(runs: impl Iterator<Item = &'a RunResults>) -> Markup {
    let named = runs.flat_map(|r| r.strategies.iter().zip(r.short_names()));
    html! {
        @match crate::report::exactness(named) {
            Ok(repeats) => p { span.ok { "Exact sums:" } " all " (repeats) " repeats exact." },
            Err(wrong) => p {
                span.bad { "Exact sums WRONG" } " for " (first_seen(wrong).join(", ")) "."
            },
        }
    }
}

/// How operations were sampled, per regime: `off`, or `1 op in N`.
fn sampling(run: &RunResults) -> String {
    let c = &run.config;
    let regimes = regimes(run);
    if regimes.iter().all(|r| r.1.config.sample_every == 0) {
        return "off".to_string();
    }
    let each = |(heading, view): &HeadedView| {
        let text = match view.config.sample_every {
            0 => "off".to_string(),
            every => format!("1 op in {every}"),
        };
        let heading = heading.as_ref();
        heading.map_or(text.clone(), |h| format!("{h}: {text}"))
    };
    let each: Vec<String> = regimes.iter().map(each).collect();
    let (timer, overhead) = (&c.timer, c.timer_overhead_ns);
    let each = each.join(", ");
    format!("{each}; timer {timer} ({overhead:.1} ns overhead subtracted)")
}

/// The run's settings as a key/value table.
fn settings(run: &RunResults) -> Markup {
    let c = &run.config;
    let cpus = |v: &[u32]| match v.len() {
        0 => "-".to_string(),
        n => format!("{n} on CPUs {}", v.iter().copied().collect::<CpuList>()),
    };
    let read_side = match c.read_every {
        0 => "writers run none".to_string(),
        1 => "writers run it after every update".to_string(),
        k => format!("writers run it every {k} updates"),
    };
    let regimes: Vec<String> = run.rates().iter().map(Regime::to_string).collect();
    let (ms, warmup) = (c.repeat_duration_s * 1e3, c.warmup_s * 1e3);
    let placement = match c.placement {
        Placement::Strict => "strict",
        Placement::BestEffort => "best-effort",
    };
    let each_own = "each slot on its own node".to_string();
    let repeats = format!(
        "{} × {ms:.0} ms per strategy, +{warmup:.0} ms warm-up",
        c.repeats
    );
    let rows: Vec<(&str, String)> = vec![
        ("writers", cpus(&c.writer_cpus)),
        ("readers", cpus(&c.reader_cpus)),
        ("read side", read_side),
        ("regimes", regimes.join(", then ")),
        ("repeats", repeats),
        ("seed", c.seed.to_string()),
        ("load walks", run.load_text().unwrap_or("-".to_string())),
        ("injected", run.inject_text().unwrap_or("-".to_string())),
        ("sampling", sampling(run)),
        ("placement", placement.to_string()),
        ("oversubscribe", c.oversubscribe.to_string()),
        (
            "counter node",
            c.counter_node.map_or(each_own, |n| n.to_string()),
        ),
        ("node iteration", c.node_iter.name().to_string()),
    ];
    super::kv_table(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::{Direction, MEASURES, THROUGHPUT_NS};

    #[test]
    fn tables_lead_with_the_trusted_figures_of_their_regime() {
        let mut run = crate::runner::fixture_run();
        for s in &mut run.strategies {
            let sum = s.summary.as_mut().unwrap();
            sum.net_ns = sum.write_loop_ns;
            sum.updates_per_ownership = sum.fairness;
            sum.net_cpu_share_pct = sum.cpu_share_pct;
        }
        let order = |run: &RunResults| -> Vec<&str> {
            let ordered = ordered_measures(run.strategies.iter(), run.regime());
            ordered.iter().map(|m| m.short).collect()
        };
        let flat = order(&run);
        assert_eq!(
            flat[..3],
            ["loop ns/op", "net ns/update", "updates/ownership"]
        );
        let sampled = flat.iter().position(|m| *m == "write ns/op").unwrap();
        assert!(sampled > 3, "{flat:?}");
        // Paced: the net figures lead, and loop ns/op (the pacing
        // interval) is not shown.
        run.config.rates = vec![Regime::SEED];
        for s in &mut run.strategies {
            s.regime = Regime::SEED;
        }
        let paced = order(&run);
        assert_eq!(
            paced[..3],
            ["net ns/update", "net CPU %", "updates/ownership"]
        );
        assert!(!paced.contains(&"loop ns/op"), "{paced:?}");
        assert_eq!(paced.iter().filter(|m| **m == "net ns/update").count(), 1);
    }

    #[test]
    fn an_inexact_sum_names_its_strategy_as_the_page_does() {
        let mut run = crate::runner::fixture_run();
        let repeats: usize = run.strategies.iter().map(|s| s.repeats.len()).sum();
        let ok = exactness([&run].into_iter()).into_string();
        let all = format!(" all {repeats} repeats exact.");
        assert!(ok.contains(&all), "{ok}");
        run.strategies[1].exact = false;
        let shown = run.short_names();
        let wrong = exactness([&run].into_iter()).into_string();
        let named = format!("Exact sums WRONG</span> for {}.", shown[1]);
        assert!(wrong.contains(&named), "{wrong}");
    }

    #[test]
    fn a_mark_says_better_only_in_the_measures_good_direction() {
        let (rate, ns) = (&MEASURES[0], &THROUGHPUT_NS[0]);
        let publishes = MEASURES.iter().find(|m| m.short == "publishes/s").unwrap();
        assert_eq!(rate.direction, Direction::HigherIsBetter);
        assert_eq!(ns.direction, Direction::LowerIsBetter);
        assert_eq!(publishes.direction, Direction::Neither);
        for (m, increase, decrease) in [
            (rate, Some(Mark::Better), Some(Mark::Worse)),
            (ns, Some(Mark::Worse), Some(Mark::Better)),
            // No direction: a change beyond noise and doubt, unjudged.
            (publishes, None, None),
        ] {
            assert_eq!(mark(m, Some(Decision::Increase)), increase, "{}", m.short);
            assert_eq!(mark(m, Some(Decision::Decrease)), decrease, "{}", m.short);
            assert_eq!(mark(m, Some(Decision::NoChange)), Some(Mark::Same));
            assert_eq!(mark(m, Some(Decision::Inconclusive)), Some(Mark::Unsure));
            assert_eq!(mark(m, None), Some(Mark::Untested));
        }
    }
}
