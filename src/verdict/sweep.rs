//! A sweep's `verdict:` lines.

use super::{Family, Test, Topic, Verdict};
use crate::runner::Floor;
use crate::runner::cost_measure;
use crate::stats::{Decision, Summary};
use crate::sweep::{SweepPoint, SweepResults};
use crate::units::{Unit, human, si};
use crate::workload::{Regime, SEED_RATE};

/// How a strategy scales over an affinity set's hammer points.
#[derive(Debug, Clone, PartialEq)]
struct Scaling {
    /// The strategy.
    name: String,
    /// The thread count after which throughput stops rising.
    peak_threads: usize,
    /// The step past the peak, when there is one: its thread count and test.
    next: Option<(usize, Test)>,
}

/// The `verdict:` lines of a sweep: where throughput (updates/s) stops scaling per affinity set.
pub fn sweep_lines(sweep: &SweepResults) -> Vec<Verdict> {
    let affinities = sweep.affinities();
    let mut lines = Vec::new();
    for &affinity in &affinities {
        lines.extend(scaling_line(sweep, affinity));
    }
    if sweep.points.iter().any(|p| p.regime.is_paced()) {
        for &affinity in &affinities {
            lines.extend(rate_lines(sweep, affinity));
        }
    }
    if lines.is_empty() {
        lines.push(Verdict::new(
            Topic::Scaling,
            "no point finished: nothing to say",
        ));
    }
    lines
}

/// Each strategy's scaling over `series`.
fn scaling(series: &[(String, Vec<(usize, Summary)>)]) -> Vec<Scaling> {
    let mut family = Family::new(Regime::FlatOut);
    let ids: Vec<Vec<usize>> = series
        .iter()
        .map(|(_, pts)| {
            pts.windows(2)
                .map(|w| family.add_paired(&w[0].1, &w[1].1, None, "updates/s", Floor::Relative))
                .collect()
        })
        .collect();
    let tests = family.decide();
    series
        .iter()
        .zip(ids)
        .filter_map(|((name, pts), ids)| {
            let last = pts.last()?;
            let stop = ids
                .iter()
                .position(|&i| tests[i].outcome.decision != Decision::Increase);
            Some(match stop {
                Some(k) => Scaling {
                    name: name.clone(),
                    peak_threads: pts[k].0,
                    next: Some((pts[k + 1].0, tests[ids[k]])),
                },
                None => Scaling {
                    name: name.clone(),
                    peak_threads: last.0,
                    next: None,
                },
            })
        })
        .collect()
}

fn scaling_line(sweep: &SweepResults, affinity: &str) -> Option<Verdict> {
    let points = sweep.hammer_points(affinity);
    if points.is_empty() {
        return None;
    }
    let mut series: Vec<(String, Vec<(usize, Summary)>)> = Vec::new();
    for p in &points {
        for s in &p.results.strategies {
            let Some(sum) = &s.summary else { continue };
            let at = (p.threads, sum.write_ops_per_s);
            let name = p.results.short_name(s);
            match series.iter_mut().find(|l| l.0 == name) {
                Some(line) => {
                    if line.1.last().is_none_or(|l| l.0 != p.threads) {
                        line.1.push(at);
                    }
                }
                None => series.push((name, vec![at])),
            }
        }
    }
    let threads: Vec<usize> = {
        let mut t: Vec<usize> = points.iter().map(|p| p.threads).collect();
        t.dedup();
        t
    };
    if threads.len() < 2 {
        return Some(Verdict::new(
            Topic::Scaling,
            format!(
                "affinity {affinity}: one thread count ({}) in hammer mode, no scaling curve",
                threads[0]
            ),
        ));
    }
    let results = scaling(&series);
    let mut groups: Vec<(usize, bool, Vec<String>)> = Vec::new();
    for s in &results {
        let stopped = s.next.is_some();
        match groups
            .iter_mut()
            .find(|g| g.0 == s.peak_threads && g.1 == stopped)
        {
            Some(g) => g.2.push(s.name.clone()),
            None => groups.push((s.peak_threads, stopped, vec![s.name.clone()])),
        }
    }
    groups.sort_by_key(|g| (g.1, g.0));
    let parts: Vec<String> = groups
        .iter()
        .map(|(peak, stopped, names)| {
            if *stopped {
                let next = results
                    .iter()
                    .find(|s| &s.name == names.first().expect("non-empty"))
                    .and_then(|s| s.next);
                let step = next.map_or(String::new(), |(t, test)| {
                    format!(
                        ", {t} threads: {} {}",
                        match test.outcome.decision {
                            Decision::Decrease => "lower",
                            Decision::NoChange => "no gain",
                            _ => "no measurable gain",
                        },
                        test.text()
                    )
                });
                format!(
                    "stops scaling at {peak} thread{} for {}{step}",
                    if *peak == 1 { "" } else { "s" },
                    names.join(", "),
                )
            } else {
                format!(
                    "still scaling at {peak} threads, the most measured, for {}",
                    names.join(", ")
                )
            }
        })
        .collect();
    Some(Verdict::new(
        Topic::Scaling,
        format!(
            "affinity {affinity}, write throughput (hammer): {}",
            parts.join("; ")
        ),
    ))
}

fn rate_lines(sweep: &SweepResults, affinity: &str) -> Vec<Verdict> {
    let Some((threads, points)) = sweep.widest(affinity) else {
        return Vec::new();
    };
    let at = || points.iter().copied();
    let paced = at()
        .filter_map(|p| Some((p, p.regime.rate()?)))
        .min_by(|a, b| (a.1 - SEED_RATE).abs().total_cmp(&(b.1 - SEED_RATE).abs()));
    let hammer = at().find(|p| !p.regime.is_paced());
    // Each strategy's cost in its point's one figure (net busy ns per update paced, loop ns/op flat
    // out) and, paced, its net CPU share.
    let costs = |p: &SweepPoint| -> String {
        let list: Vec<String> = p
            .results
            .strategies
            .iter()
            .filter_map(|s| {
                let sum = s.summary.as_ref()?;
                let cost = (cost_measure(p.regime).get)(sum)?;
                let share = sum
                    .net_cpu_share_pct
                    .filter(|_| p.regime.is_paced())
                    .map_or(String::new(), |c| {
                        format!(" {} CPU", human(c.mean, Unit::Percent))
                    });
                Some(format!(
                    "{} {} ns{share}",
                    p.results.short_name(s),
                    si(cost.mean)
                ))
            })
            .collect();
        list.join(", ")
    };
    let mut lines = Vec::new();
    if let Some((p, _)) = paced {
        lines.push(Verdict::new(
            Topic::Rate,
            format!(
                "affinity {affinity}, {threads} threads {} (closest to the seed's 22k), net ns per update and net CPU share: {}",
                p.regime,
                costs(p)
            ),
        ));
    }
    if let Some(p) = hammer {
        lines.push(Verdict::new(
            Topic::Rate,
            format!(
                "affinity {affinity}, {threads} threads {}, loop ns/op from throughput: {}",
                p.regime,
                costs(p)
            ),
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::tests::summary;

    #[test]
    fn scaling_stops_where_the_gain_does() {
        // a: 1→2 +90%, 2→4 +1% (stops at 2); b: rises at every step.
        let series = |name: &str, means: [f64; 3]| {
            let points = [1, 2, 4].into_iter().zip(means);
            let points = points.map(|(n, m)| (n, summary(5, m, 1e4))).collect();
            (name.to_string(), points)
        };
        let series = vec![
            series("a", [1e6, 1.9e6, 1.92e6]),
            series("b", [1e6, 2e6, 4e6]),
        ];
        let s = scaling(&series);
        assert_eq!(s[0].peak_threads, 2);
        assert_eq!(s[0].next.unwrap().0, 4);
        assert_eq!(s[0].next.unwrap().1.outcome.decision, Decision::NoChange);
        assert_eq!(s[1].peak_threads, 4);
        assert!(s[1].next.is_none());
    }
    #[test]
    fn the_rate_lines_give_net_cost_paced_and_loop_ns_flat_out() {
        use crate::runner::{SCHEMA_VERSION, fixture_run};
        use crate::sweep::SweepPoint;
        // Both fixture strategies: busy 105 and 125 ns, net 5 and 25 ns
        // (the paced floor 100), net CPU share 0.011% and 0.055%; flat
        // out, loop ns/op 40 and 10.
        let point = |regime: Regime| {
            let mut results = fixture_run();
            for (s, (net, loop_ns)) in results
                .strategies
                .iter_mut()
                .zip([(5.0, 40.0), (25.0, 10.0)])
            {
                s.regime = regime;
                let sum = s.summary.as_mut().unwrap();
                sum.write_busy_ns = Some(summary(4, 100.0 + net, 1.0));
                sum.net_ns = Some(summary(4, net, 1.0));
                sum.cpu_share_pct = Some(summary(4, 50.0, 1.0));
                sum.net_cpu_share_pct = Some(summary(4, net * 22e3 / 1e7, 0.001));
                sum.write_loop_ns = Some(summary(4, loop_ns, 1.0));
            }
            SweepPoint {
                threads: 2,
                affinity: "unbound".to_string(),
                regime,
                results,
            }
        };
        let sweep = SweepResults {
            schema: SCHEMA_VERSION,
            partial: false,
            out_of_time: false,
            points: vec![point(Regime::SEED), point(Regime::FlatOut)],
        };
        let lines: Vec<String> = rate_lines(&sweep, "unbound")
            .iter()
            .map(|l| l.to_string())
            .collect();
        assert_eq!(
            lines,
            [
                "verdict: affinity unbound, 2 threads paced at 22.0k/s per thread (closest to the seed's 22k), net ns per update and net CPU share: global/always 5.00 ns 0.0110% CPU, cpu/always 25.0 ns 0.0550% CPU",
                "verdict: affinity unbound, 2 threads flat out, loop ns/op from throughput: global/always 40.0 ns, cpu/always 10.0 ns",
            ]
        );
    }
}
