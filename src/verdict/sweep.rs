//! A sweep's `verdict:` lines.

use super::{Family, Topic, Verdict, plural};
use crate::runner::Floor;
use crate::runner::cost_measure;
use crate::stats::{Decision, Summary};
use crate::sweep::{SweepPoint, SweepResults};
use crate::units::{Unit, human, si};
use crate::workload::SEED_RATE;

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

fn scaling_line(sweep: &SweepResults, affinity: &str) -> Option<Verdict> {
    let points = sweep.hammer_points(affinity);
    let mut threads: Vec<usize> = points.iter().map(|p| p.threads).collect();
    threads.dedup();
    match threads[..] {
        [] => return None,
        [only] => {
            let text = format!(
                "affinity {affinity}: one thread count ({only}) in hammer mode, no scaling curve"
            );
            return Some(Verdict::new(Topic::Scaling, text));
        }
        _ => {}
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
    // Each strategy's step from one thread count to the next, decided as one family; it stops
    // scaling where the gain does. Strategies that stop alike go together, the first's step shown.
    let mut family = Family::default();
    let ids: Vec<Vec<usize>> = series
        .iter()
        .map(|(_, pts)| {
            pts.windows(2)
                .map(|w| family.add_paired(&w[0].1, &w[1].1, None, "updates/s", Floor::Relative))
                .collect()
        })
        .collect();
    let tests = family.decide();
    let mut groups: Vec<(usize, Option<_>, Vec<String>)> = Vec::new();
    for ((name, pts), ids) in series.into_iter().zip(ids) {
        let mut stops = ids.iter().map(|&i| tests[i].outcome.decision);
        let (peak, next) = match stops.position(|d| d != Decision::Increase) {
            Some(k) => (pts[k].0, Some((pts[k + 1].0, tests[ids[k]]))),
            None => (pts[pts.len() - 1].0, None),
        };
        match groups
            .iter_mut()
            .find(|g| (g.0, g.1.is_some()) == (peak, next.is_some()))
        {
            Some(g) => g.2.push(name),
            None => groups.push((peak, next, vec![name])),
        }
    }
    groups.sort_by_key(|g| (g.1.is_some(), g.0));
    let parts: Vec<String> = groups
        .iter()
        .map(|(peak, next, names)| {
            let names = names.join(", ");
            let Some((t, test)) = next else {
                return format!("still scaling at {peak} threads, the most measured, for {names}");
            };
            let how = match test.outcome.decision {
                Decision::Decrease => "lower",
                Decision::NoChange => "no gain",
                _ => "no measurable gain",
            };
            let peak = plural(*peak, "thread");
            format!(
                "stops scaling at {peak} for {names}, {t} threads: {how} {}",
                test.text()
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
    let closest = " (closest to the seed's 22k), net ns per update and net CPU share";
    let paced = paced.map(|(p, _)| (p, closest));
    let hammer = at().find(|p| !p.regime.is_paced());
    let hammer = hammer.map(|p| (p, ", loop ns/op from throughput"));
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
    let lines = paced.into_iter().chain(hammer).map(|(p, what)| {
        let (regime, costs) = (p.regime, costs(p));
        let text = format!("affinity {affinity}, {threads} threads {regime}{what}: {costs}");
        Verdict::new(Topic::Rate, text)
    });
    lines.collect()
}
