//! The headline of a run: the seeds' question answered for this host in one sentence (what the
//! kernel's counter costs per update at the seed's rate, what the merged fix saves, whether the
//! node split helps, which strategy is cheapest), then flat out in one more.

use super::host::Reach;
use super::run::{Decided, count, decided, plus_minus, value};
use super::{BEFORE_FIX, MERGED_FIX};
use crate::counter::ShardLevel;
use crate::runner::RunResults;
use crate::stats::{CONFIDENCE_LEVEL, Decision};
use crate::units::{Unit, human, si};
use crate::workload::{Regime, SEED_RATE};

/// The answer at a glance.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Headline {
    /// The regime the answer speaks of.
    pub regime: Regime,
    /// The answer in that regime, in at most two short sentences.
    pub answer: String,
    /// The rest of the answer, a sentence each.
    pub more: Vec<String>,
    /// Flat out in one sentence, when the run has that regime and the answer is not already flat
    /// out.
    pub flat_out: Option<String>,
    /// The strategies (full names) the answer calls cheapest.
    pub cheapest: Vec<String>,
}

impl Headline {
    /// The answer, the rest of it, then the flat-out sentence if any.
    pub fn sentences(&self) -> Vec<&str> {
        std::iter::once(self.answer.as_str())
            .chain(self.more.iter().map(String::as_str))
            .chain(self.flat_out.as_deref())
            .collect()
    }
}

/// The headline of `run`, from the same decisions as its verdict lines.
pub fn headline(run: &RunResults) -> Headline {
    let reach = Reach::of(run);
    let views = run.regimes();
    let all = decided(&views, &reach);
    let flat = all.iter().find(|d| !d.contest.regime.is_paced());
    // The seed's rate, else the paced rate nearest it (by ratio).
    let distance = |d: &&Decided| {
        d.contest
            .regime
            .rate()
            .map_or(f64::INFINITY, |r| (r / SEED_RATE).ln().abs())
    };
    let paced_planned = all.iter().any(|d| d.contest.regime.is_paced());
    // A paced regime answers only where a strategy finished a repeat in it, its cost ranked (a run
    // out of time may have none).
    let paced = all
        .iter()
        .filter(|d| d.contest.regime.is_paced() && d.cost.is_some())
        .min_by(|a, b| distance(a).total_cmp(&distance(b)));
    let Some(d) = paced.or(flat) else {
        let answer = "Nothing was measured: the run has no regime.".to_string();
        return Headline {
            answer,
            ..Headline::default()
        };
    };
    let split = split_clause(d, &reach);
    let (answer, more, flat_out) = if paced.is_some() {
        let (answer, more) = paced_answer(d, &split);
        (
            answer,
            more,
            flat.map(|f| format!("Flat out, {}.", flat_text(f))),
        )
    } else {
        let split = if split.is_empty() {
            split
        } else {
            format!("; {split}")
        };
        let why = if paced_planned {
            "No paced repeat finished"
        } else {
            "No paced regime"
        };
        let answer = format!("{why} in this run, so flat out: {}{split}.", flat_text(d));
        (answer, Vec::new(), None)
    };
    Headline {
        regime: d.contest.regime,
        answer,
        more,
        flat_out,
        cheapest: cheapest(d),
    }
}

/// The full names of the strategies `d` calls cheapest.
fn cheapest(d: &Decided) -> Vec<String> {
    let Some(r) = &d.cost else { return Vec::new() };
    let tied = r
        .runner_up
        .filter(|&(_, t)| d.tests[t].outcome.decision != Decision::Decrease);
    let names = std::iter::once(r.best).chain(tied.map(|(u, _)| u));
    names
        .map(|i| d.contest.candidates[i].result.name.clone())
        .collect()
}

/// The cheapest and by how much, or that the cheapest cannot be told apart.
fn cheapest_text(d: &Decided, what: &str, shown: &dyn Fn(usize) -> String) -> String {
    let c = &d.contest.candidates;
    let Some(r) = &d.cost else {
        return "no strategy recorded its cost".to_string();
    };
    let best = &c[r.best].name;
    match r.runner_up {
        None => format!("{best}, {}, is the only strategy measured", shown(r.best)),
        Some((u, t)) if d.tests[t].outcome.decision == Decision::Decrease => {
            // What the cheapest saves against the runner-up, from their test.
            let pct = d.tests[t].outcome.difference.change_pct;
            let pct = pct.map_or(String::new(), |p| format!(" ({:.0}%)", -p));
            let (value, saved, other) = (shown(r.best), si(-d.tests[t].diff()), &c[u].name);
            format!("{best} is {what} at {value}, {saved} ns{pct} less than {other}")
        }
        Some((u, t)) => format!(
            "the {what}, {best} ({}) and {} ({}), cannot be told apart ({})",
            shown(r.best),
            c[u].name,
            shown(u),
            d.tests[t].why_not()
        ),
    }
}

/// `The merged fix saves 12.0 ±0.4 ns per update (93%).`, then the same of Aaron Lu's node split.
fn kernel_sentences(d: &Decided) -> [Option<String>; 2] {
    let c = &d.contest;
    [
        ("The merged fix", ShardLevel::Global, MERGED_FIX),
        ("Aaron Lu's node split", ShardLevel::Node, BEFORE_FIX),
    ]
    .map(|(who, level, policy)| {
        let a = d.saves.as_ref()?;
        let &(i, t) = a.tested.iter().find(|&&(i, _)| c.is(i, level, policy))?;
        let (o, diff) = (&d.tests[t].outcome, d.tests[t].diff());
        let pm = o.difference.welch.map_or(String::new(), |w| {
            let (lo, hi) = w.interval(CONFIDENCE_LEVEL);
            format!(" {}", plus_minus((hi - lo) / 2.0))
        });
        let pct = o.difference.change_pct;
        let pct = pct.map_or(String::new(), |p| format!(" ({:.0}%)", p.abs()));
        let (saved, cost) = (si(-diff), si(diff));
        let effect = match o.decision {
            Decision::Decrease => format!("saves {saved}{pm} ns per update{pct}"),
            Decision::Increase => format!("costs {cost}{pm} ns more per update{pct}"),
            Decision::NoChange => {
                format!("saves nothing measurable here ({saved}{pm} ns per update)")
            }
            _ => format!("may save {saved}{pm} ns per update: too uncertain to call"),
        };
        let name = match level {
            ShardLevel::Node => format!(", {},", c.candidates[i].name),
            _ => String::new(),
        };
        Some(format!("{who}{name} {effect}."))
    })
}

/// `Per node, it costs 20.0 ±0.20 ns on node 0 (local to its memory) and 42.0 ±0.42 ns on node 1
/// (remote).`, with writers on two or more nodes.
fn nodes_sentence(d: &Decided) -> Option<String> {
    let p = d.nodes.as_ref()?;
    let parts: Vec<String> = d.contest.candidates[p.strategy]
        .summary
        .nodes
        .iter()
        .map(|n| {
            let place = match n.remote {
                true => "remote",
                false => "local to its memory",
            };
            format!("{} on node {} ({place})", value(&n.cost_ns, "ns"), n.node)
        })
        .collect();
    Some(format!("Per node, it costs {}.", parts.join(" and ")))
}

/// The paced answer, `At the seed's rate of 22.0k updates/s per thread, the kernel's counter costs
/// X per update (Y of a CPU).` and what the merged fix saves.
fn paced_answer(d: &Decided, split: &str) -> (String, Vec<String>) {
    let this = &d.contest;
    let rate = this.regime.rate();
    let rate = rate.map_or(String::new(), |r| format!("{} updates/s per thread", si(r)));
    let intro = match this.regime == Regime::SEED {
        true => format!("At the seed's rate of {rate}"),
        false => format!("At {rate}, the run's rate nearest the seed's"),
    };
    let ns = |i: usize| this.cost(i).map_or("-".to_string(), |s| value(&s, "ns"));
    let global = match d.reference {
        Some(g) => {
            let share = this.candidates[g].summary.net_cpu_share_pct;
            let share = share.map_or(String::new(), |p| {
                format!(" ({} of a CPU)", human(p.mean, Unit::Percent))
            });
            let what = match this.is(g, ShardLevel::Global, BEFORE_FIX) {
                true => "the kernel's counter",
                false => "the plain shared counter",
            };
            format!("{what} costs {} per update{share}", ns(g))
        }
        None => "neither the kernel's counter (global/threshold:64) nor the plain shared counter (global/always) was measured".to_string(),
    };
    let [fix, node_split] = kernel_sentences(d);
    let answer = match fix {
        Some(fix) => format!("{intro}, {global}. {fix}"),
        None => format!("{intro}, {global}."),
    };
    let mut more: Vec<String> = nodes_sentence(d).into_iter().chain(node_split).collect();
    more.push(capitalised(&cheapest_text(d, "cheapest", &ns)) + ".");
    if !split.is_empty() {
        more.push(capitalised(split) + ".");
    }
    (answer, more)
}

/// `s` with its first letter upper case: a clause as a sentence.
fn capitalised(s: &str) -> String {
    if s.split(' ').next().is_some_and(|w| w.contains('/')) {
        return s.to_string();
    }
    let mut c = s.chars();
    c.next()
        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

/// Flat out, without its label: the fastest (by loop ns/op from throughput) and by how much, then
/// the reference's updates/s, cost and updates per ownership of the line.
fn flat_text(d: &Decided) -> String {
    let this = &d.contest;
    if this.candidates.is_empty() {
        return "no strategy finished a repeat".to_string();
    }
    let shown = |i: usize| this.throughput(i, "ns per update");
    let fastest = cheapest_text(d, "fastest", &shown);
    let best = d.cost.as_ref().map(|r| r.best);
    let global = d.reference.filter(|&g| Some(g) != best);
    let global = global.map_or(String::new(), |g| {
        let c = &this.candidates[g];
        let ownership = c.summary.updates_per_ownership.map_or(String::new(), |u| {
            format!(", {} updates per ownership of the line", count(u.mean))
        });
        format!("; {}: {}{ownership}", c.name, shown(g))
    });
    format!("{fastest}{global}")
}

/// Whether splitting matters here.
fn split_clause(d: &Decided, reach: &Reach) -> String {
    let c = &d.contest.candidates;
    let mut parts = Vec::new();
    if let Some(a) = d.beyond.as_ref().filter(|a| !a.tested.is_empty()) {
        let base = &c[a.base].name;
        let saving = |t: usize| -d.tests[t].diff();
        let best = a
            .tested
            .iter()
            .filter(|&&(_, t)| d.tests[t].outcome.decision == Decision::Decrease)
            .max_by(|x, y| saving(x.1).total_cmp(&saving(y.1)));
        parts.push(match best {
            Some(&(i, t)) => format!(
                "splitting pays here: {} saves {} ns per update beyond {base}",
                c[i].name,
                si(saving(t))
            ),
            None => format!("no split saves a measurable amount beyond {base} here"),
        });
    }
    parts.extend(reach.split_caveat());
    parts.join("; ")
}
