//! A sweep's `verdict:` lines.

use super::{Family, Test, Topic, Verdict, plural};
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
            let mut stops = ids.iter().map(|&i| tests[i].outcome.decision);
            let (peak_threads, next) = match stops.position(|d| d != Decision::Increase) {
                Some(k) => (pts[k].0, Some((pts[k + 1].0, tests[ids[k]]))),
                None => (last.0, None),
            };
            let name = name.clone();
            Some(Scaling {
                name,
                peak_threads,
                next,
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
    let mut threads: Vec<usize> = points.iter().map(|p| p.threads).collect();
    threads.dedup();
    if let [only] = threads[..] {
        let text = format!(
            "affinity {affinity}: one thread count ({only}) in hammer mode, no scaling curve"
        );
        return Some(Verdict::new(Topic::Scaling, text));
    }
    let results = scaling(&series);
    let mut groups: Vec<(usize, bool, Vec<String>)> = Vec::new();
    for s in &results {
        let key = (s.peak_threads, s.next.is_some());
        match groups.iter_mut().find(|g| (g.0, g.1) == key) {
            Some(g) => g.2.push(s.name.clone()),
            None => groups.push((key.0, key.1, vec![s.name.clone()])),
        }
    }
    groups.sort_by_key(|g| (g.1, g.0));
    let parts: Vec<String> = groups
        .iter()
        .map(|(peak, stopped, names)| {
            let (first, names) = (&names[0], names.join(", "));
            if !stopped {
                return format!("still scaling at {peak} threads, the most measured, for {names}");
            }
            let next = results
                .iter()
                .find(|s| &s.name == first)
                .and_then(|s| s.next);
            let step = next.map_or(String::new(), |(t, test)| {
                let how = match test.outcome.decision {
                    Decision::Decrease => "lower",
                    Decision::NoChange => "no gain",
                    _ => "no measurable gain",
                };
                format!(", {t} threads: {how} {}", test.text())
            });
            format!(
                "stops scaling at {} for {names}{step}",
                plural(*peak, "thread")
            )
        })
        .collect();
    let parts = parts.join("; ");
    let text = format!("affinity {affinity}, write throughput (hammer): {parts}");
    Some(Verdict::new(Topic::Scaling, text))
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
                let share = sum.net_cpu_share_pct.filter(|_| p.regime.is_paced());
                let share = share.map_or(String::new(), |c| {
                    format!(" {} CPU", human(c.mean, Unit::Percent))
                });
                let (name, cost) = (p.results.short_name(s), si(cost.mean));
                Some(format!("{name} {cost} ns{share}"))
            })
            .collect();
        list.join(", ")
    };
    let mut lines = Vec::new();
    if let Some((p, _)) = paced {
        let (regime, costs) = (p.regime, costs(p));
        lines.push(Verdict::new(Topic::Rate, format!(
            "affinity {affinity}, {threads} threads {regime} (closest to the seed's 22k), net ns per update and net CPU share: {costs}"
        )));
    }
    if let Some(p) = hammer {
        let (regime, costs) = (p.regime, costs(p));
        let text = format!(
            "affinity {affinity}, {threads} threads {regime}, loop ns/op from throughput: {costs}"
        );
        lines.push(Verdict::new(Topic::Rate, text));
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
