//! The rounds of a run: every entry (each strategy in each regime, and each paced regime's clock
//! floors) takes one repeat per round, flat out in turn, paced in place with the rest of its group
//! in one repeat, so drift hits all alike; with `--target-ci`, further rounds, widest CI first, for
//! the strategies whose CI is still wider than the target or which lost a repeat to a disturbance,
//! while the time budget lasts.

use super::aggregate::{PairedNet, alone_ratio, mark_canary_shifts, net_busy_ns, target_ratio};
use super::in_place::PacedMode;
use super::repeat::{RoundCounters, RoundEntry, one_repeat};
use super::result::{RunConfig, StrategyResult};
use super::{RunError, RunPlan, first_seen};
use crate::workload::{Regime, permutation};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// How the rounds ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RoundsEnd {
    /// Every planned round, and every extra round the target asked for.
    Done,
    /// A stop was requested; finished repeats are kept.
    Interrupted,
    /// The next repeat would have ended past the time budget; finished repeats are kept.
    OutOfTime,
}

/// Runs the rounds of `plan` over `entries`, the run's time budget counted from `started`.
pub(super) fn run(
    plan: &RunPlan,
    entries: &mut [RoundEntry],
    started: Instant,
    interrupted: &AtomicBool,
    notes: &mut Vec<String>,
    mut progress: impl FnMut(usize, usize, &str),
) -> Result<RoundsEnd, RunError> {
    let cfg = &plan.config;
    // Repeats in one round of `groups`, each strategy's alone included.
    let per_round = |entries: &[RoundEntry], groups: &[usize]| -> usize {
        groups
            .iter()
            .map(|&g| {
                let kinds: Vec<_> = entries
                    .iter()
                    .filter(|e| e.group == g)
                    .map(|e| (e.is_floor, e.result.regime))
                    .collect();
                kinds.len() + alone_count(cfg, &kinds)
            })
            .sum()
    };
    let all_groups = first_seen(entries.iter().map(|e| e.group));
    let mut total = per_round(entries, &all_groups) * cfg.repeats;
    let (mut done, mut round) = (0, 0);
    let mut budget = Budget::new(started, cfg);
    loop {
        let view: Vec<(&StrategyResult, bool, usize)> = entries
            .iter()
            .map(|e| (&e.result, e.is_floor, e.group))
            .collect();
        let Some(next) = next_round(round, cfg, &view, budget.one_s(), budget.left_s()) else {
            return Ok(RoundsEnd::Done);
        };
        next.count_retries(entries);
        // Every open entry's group runs, each once, in order.
        let groups = first_seen(next.entries.iter().map(|&i| entries[i].group));
        if round >= cfg.repeats {
            total += per_round(entries, &groups);
        }
        for g in groups {
            let mut group: Vec<&mut RoundEntry> =
                entries.iter_mut().filter(|e| e.group == g).collect();
            // `--paced both`: each strategy of the group alone too, before or after the group in
            // place (`both_order`).
            let members = group.len();
            let alone: Vec<usize> = (0..members)
                .filter(|&i| alone_too(cfg, group[i].is_floor, group[i].result.regime, members))
                .collect();
            // One draw of lines for the round, in place and alone alike.
            let counters = RoundCounters::new(plan, &group, round, notes)?;
            for step in both_order(cfg.seed, round, &alone) {
                let (mut run, lines): (Vec<&mut RoundEntry>, _) = match step {
                    None => (
                        group.iter_mut().map(|e| &mut **e).collect(),
                        counters.cleared(0..members),
                    ),
                    Some(i) => (vec![&mut *group[i]], counters.cleared([i])),
                };
                let Some(results) =
                    budget.run(|| one_repeat(plan, &mut run, &lines, round, interrupted, notes))
                else {
                    return Ok(RoundsEnd::OutOfTime);
                };
                let Some(results) = results? else {
                    return Ok(RoundsEnd::Interrupted);
                };
                for (entry, r) in run.iter_mut().zip(results) {
                    entry.result.keep(r, step.is_some());
                    done += 1;
                    progress(done, total, &entry.result.name);
                }
            }
        }
        // Canary shifts so far, for the next round's retries (the final marks use the whole run's
        // median).
        let repeats = entries.iter_mut().flat_map(|e| {
            e.result
                .repeats
                .iter_mut()
                .chain(&mut e.result.alone_repeats)
        });
        mark_canary_shifts(repeats.collect());
        round += 1;
    }
}

/// The run's time budget (`--max-time`) as the rounds spend it.
struct Budget {
    started: Instant,
    /// `--max-time`, seconds; `None`: no budget.
    max_time_s: Option<f64>,
    /// What the first repeat is taken to last: warm-up plus interval.
    first_s: f64,
    runs: usize,
    repeats_s: f64,
}

impl Budget {
    /// Nothing spent yet of `cfg`'s budget, counted from `started`.
    fn new(started: Instant, cfg: &RunConfig) -> Self {
        Budget {
            started,
            max_time_s: cfg.max_time_s,
            first_s: cfg.warmup_s + cfg.repeat_duration_s,
            runs: 0,
            repeats_s: 0.0,
        }
    }

    /// Seconds one repeat takes: the mean so far, warm-up plus interval before the first.
    fn one_s(&self) -> f64 {
        if self.runs == 0 {
            self.first_s
        } else {
            self.repeats_s / self.runs as f64
        }
    }

    /// Seconds of the budget left (negative once spent; without one, none left for extra rounds).
    fn left_s(&self) -> f64 {
        self.max_time_s.unwrap_or(0.0) - self.started.elapsed().as_secs_f64()
    }

    /// Whether a repeat started `elapsed_s` into the run would end within the budget, at
    /// [`Budget::one_s`] a repeat (always without one).
    fn fits(&self, elapsed_s: f64) -> bool {
        let ends_s = elapsed_s + self.one_s();
        self.max_time_s.is_none_or(|budget| ends_s <= budget)
    }

    /// Runs `repeat` and counts its time, unless it would end past the budget.
    fn run<T>(&mut self, repeat: impl FnOnce() -> T) -> Option<T> {
        if !self.fits(self.started.elapsed().as_secs_f64()) {
            return None;
        }
        let repeat_started = Instant::now();
        let out = repeat();
        self.repeats_s += repeat_started.elapsed().as_secs_f64();
        self.runs += 1;
        Some(out)
    }
}

/// The repeats one round `round` of a group takes, in the order run.
fn both_order(seed: u64, round: usize, alone: &[usize]) -> Vec<Option<usize>> {
    let drawn = permutation(alone.len(), seed ^ (round as u64).rotate_left(17) ^ 0xB0_7E);
    let mut order: Vec<Option<usize>> = drawn.into_iter().map(|k| Some(alone[k])).collect();
    order.insert(if round % 2 == 0 { 0 } else { order.len() }, None);
    order
}

/// How many of a group's members (each a clock floor or not, and its regime) also run alone each
/// round ([`alone_too`]).
fn alone_count(cfg: &RunConfig, members: &[(bool, Regime)]) -> usize {
    members
        .iter()
        .filter(|&&(is_floor, regime)| alone_too(cfg, is_floor, regime, members.len()))
        .count()
}

/// Whether an entry in place in a group of `members` also runs alone each round: under `--paced
/// both`, a paced strategy (not a clock floor) of a group of two or more.
fn alone_too(cfg: &RunConfig, is_floor: bool, regime: Regime, members: usize) -> bool {
    cfg.paced == PacedMode::Both && members > 1 && !is_floor && regime.is_paced()
}

/// What one round runs: indexes into the entries, in their order, and which of them run because a
/// round of theirs was disturbed.
#[derive(Debug, PartialEq)]
struct Round {
    entries: Vec<usize>,
    retries: Vec<usize>,
}

impl Round {
    /// Counts a retry on each entry this round measures again after a disturbed repeat.
    fn count_retries(&self, entries: &mut [RoundEntry]) {
        for &i in &self.retries {
            entries[i].result.retries += 1;
        }
    }
}

/// What round `round` (0-based) repeats of `entries`.
fn next_round(
    round: usize,
    cfg: &RunConfig,
    entries: &[(&StrategyResult, bool, usize)],
    repeat_s: f64,
    left_s: f64,
) -> Option<Round> {
    if round < cfg.repeats {
        return Some(Round {
            entries: (0..entries.len()).collect(),
            retries: Vec::new(),
        });
    }
    let target = cfg.target_ci_pct?;
    // (retry, how far from the target, entry)
    let mut open: Vec<(bool, f64, usize)> = Vec::new();
    for (i, &(e, _, _)) in entries.iter().enumerate().filter(|(_, e)| !e.1) {
        // A retry is for a paced strategy's paired net alone: flat out, a host whose every repeat
        // is disturbed (a TCG guest) would retry to the end of the budget.
        let retry = PairedNet::of(&e.repeats, net_busy_ns)
            .is_some_and(|p| p.repeats - p.disturbed < cfg.repeats);
        let ratio = target_ratio(e, target).unwrap_or(f64::INFINITY);
        // Under `--paced both`, also until its check of in place against alone can decide at the
        // threshold.
        let alone = (!e.alone_repeats.is_empty()).then(|| alone_ratio(e).unwrap_or(f64::INFINITY));
        let ratio = ratio.max(alone.unwrap_or(0.0));
        if retry || ratio > 1.0 {
            open.push((retry, ratio, i));
        }
    }
    open.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)));
    // Repeats one round of group `g` takes.
    let runs_of = |g: usize| {
        let kinds: Vec<_> = entries
            .iter()
            .filter(|e| e.2 == g)
            .map(|e| (e.1, e.0.regime))
            .collect();
        1 + alone_count(cfg, &kinds)
    };
    let (mut chosen, mut retries, mut groups) = (Vec::new(), Vec::new(), Vec::new());
    let mut runs = 0;
    for (retry, _, i) in open {
        let group = entries[i].2;
        if !groups.contains(&group) {
            if (runs + runs_of(group)) as f64 * repeat_s > left_s {
                continue;
            }
            runs += runs_of(group);
            groups.push(group);
        }
        chosen.push(i);
        if retry {
            retries.push(i);
        }
    }
    chosen.sort_unstable();
    (!chosen.is_empty()).then_some(Round {
        entries: chosen,
        retries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::PublishPolicy;
    use crate::runner::aggregate::tests::{over_floors, run_with, with_alone};
    use crate::workload::Regime;

    #[test]
    fn a_round_runs_each_group_once_however_its_entries_are_listed() {
        // Two clocks' floors, then their strategies: groups 2 and 3 come round twice; each runs
        // once, in the order first seen.
        assert_eq!(first_seen([0, 1, 2, 3, 2, 3, 4]), [0, 1, 2, 3, 4]);
        assert_eq!(first_seen([5, 5, 1]), [5, 1]);
        assert!(first_seen([0usize; 0]).is_empty());
    }

    #[test]
    fn a_repeat_runs_only_if_it_would_end_within_the_budget() {
        let mut cfg = run_with(&[&[1.0]]).config;
        (cfg.warmup_s, cfg.repeat_duration_s) = (50.0, 50.0);
        // No budget: every repeat runs and is counted; one repeat then lasts what the ones so far
        // did (far less than the 100 s assumed before the first); none is left for extra rounds.
        cfg.max_time_s = None;
        let mut budget = Budget::new(Instant::now(), &cfg);
        assert_eq!(budget.one_s(), 100.0);
        assert!(budget.left_s() <= 0.0);
        assert_eq!(budget.run(|| 7), Some(7));
        assert_eq!(budget.run(|| 8), Some(8));
        assert_eq!(budget.runs, 2);
        assert!(budget.one_s() < 1.0, "{}", budget.one_s());
        // 99 s: a first repeat taken to last 100 s does not start.
        cfg.max_time_s = Some(99.0);
        let mut budget = Budget::new(Instant::now(), &cfg);
        let mut ran = false;
        assert_eq!(budget.run(|| ran = true), None);
        assert!(!ran);
        assert_eq!(budget.runs, 0);
        assert!(budget.left_s() > 98.0 && budget.left_s() <= 99.0);
        // 101 s: it does.
        cfg.max_time_s = Some(101.0);
        let mut budget = Budget::new(Instant::now(), &cfg);
        assert_eq!(budget.run(|| 1), Some(1));
        // 4 repeats in 10 s: 2.5 s a repeat, so one started at 7.5 s of a 10 s budget ends on it
        // and fits; a moment later it does not.
        (budget.runs, budget.repeats_s, budget.max_time_s) = (4, 10.0, Some(10.0));
        assert_eq!(budget.one_s(), 2.5);
        assert!(budget.fits(7.5));
        assert!(!budget.fits(7.5001));
    }

    #[test]
    fn under_paced_both_in_place_takes_turns_first_and_last_and_alone_is_shuffled() {
        let alone = [1, 2, 3, 4, 5];
        let mut orders = Vec::new();
        for round in 0..8 {
            let steps = both_order(1, round, &alone);
            // Every member alone once, and the group in place once: first in even rounds, last in
            // odd ones.
            assert_eq!(steps.len(), 6);
            let in_place = steps.iter().position(Option::is_none);
            assert_eq!(in_place, Some(if round % 2 == 0 { 0 } else { 5 }));
            let mut members: Vec<usize> = steps.iter().flatten().copied().collect();
            let order = members.clone();
            members.sort_unstable();
            assert_eq!(members, alone);
            orders.push(order);
        }
        // The order alone changes from round to round, and replays from the seed.
        orders.dedup();
        assert!(orders.len() > 4, "{orders:?}");
        assert_eq!(both_order(1, 3, &alone), both_order(1, 3, &alone));
        // A uniform shuffle: over 500 rounds each member comes first about 100 times (binomial sd
        // 8.9), the first member included, which a shuffle of cycles only (Sattolo's) never puts
        // there.
        let mut first = [0; 6];
        for round in 0..500 {
            let steps = both_order(1, round, &alone);
            first[steps.iter().flatten().next().copied().unwrap()] += 1;
        }
        for &m in &alone {
            assert!((60..=140).contains(&first[m]), "{first:?}");
        }
        // Nothing alone: the group in place only.
        assert_eq!(both_order(1, 1, &[]), [None]);
    }

    #[test]
    fn a_round_counts_the_repeats_alone_of_each_group() {
        let mut cfg = run_with(&[&[1.0]]).config;
        let (paced, flat) = (Regime::SEED, Regime::FlatOut);
        // A clock floor and two strategies in place; flat out alone.
        let group = [(true, paced), (false, paced), (false, paced)];
        cfg.paced = PacedMode::Both;
        assert_eq!(alone_count(&cfg, &group), 2);
        assert_eq!(alone_count(&cfg, &[(false, paced)]), 0);
        assert_eq!(alone_count(&cfg, &[(false, flat)]), 0);
        cfg.paced = PacedMode::InPlace;
        assert_eq!(alone_count(&cfg, &group), 0);
    }

    #[test]
    fn extra_rounds_repeat_the_widest_open_strategies_while_the_time_lasts() {
        // Flat out: strategy 0 at ±22.6% of its mean, 1 at ±0.25%, 2 at ±115.5%.
        let run = run_with(&[&[10.0, 11.0, 12.0], &[10.0, 10.01, 10.02], &[10.0, 12.0]]);
        let mut cfg = run.config.clone();
        (cfg.repeats, cfg.target_ci_pct) = (2, None);
        let s = &run.strategies;
        let entries = [(&s[0], false, 0), (&s[1], false, 1), (&s[2], false, 2)];
        let next = |cfg: &RunConfig, round, repeat_s, left_s| {
            next_round(round, cfg, &entries, repeat_s, left_s).map(|r| r.entries)
        };
        // The first `repeats` rounds run everything, whatever the time.
        assert_eq!(next(&cfg, 0, 5.0, -1.0), Some(vec![0, 1, 2]));
        assert_eq!(next(&cfg, 1, 5.0, -1.0), Some(vec![0, 1, 2]));
        // Without --target-ci, that is all.
        assert_eq!(next(&cfg, 2, 0.0, 100.0), None);
        // With one, the strategies above the target that fit in the time left, the widest first:
        // time for one picks strategy 2.
        cfg.target_ci_pct = Some(5.0);
        assert_eq!(next(&cfg, 2, 2.0, 4.0), Some(vec![0, 2]));
        assert_eq!(next(&cfg, 2, 2.0, 3.9), Some(vec![2]));
        assert_eq!(next(&cfg, 2, 2.0, 1.9), None);
        cfg.target_ci_pct = Some(0.1);
        assert_eq!(next(&cfg, 3, 1.0, 3.0), Some(vec![0, 1, 2]));
        cfg.target_ci_pct = Some(200.0);
        assert_eq!(next(&cfg, 2, 0.0, 100.0), None);
        // A strategy exactly at the target has converged, as the results say (ratio <= 1).
        cfg.target_ci_pct = target_ratio(&run.strategies[0], 1.0);
        assert_eq!(next(&cfg, 2, 1.0, 100.0), Some(vec![2]));
    }

    #[test]
    fn strategies_in_place_share_the_cost_of_an_extra_round() {
        // Strategies 0 and 2 open (±22.6% and ±115.5%, over a 5% target), 1 converged. Time for one
        // repeat: alone, only the widest (2) fits; with 0 and 2 in one group in place, one repeat
        // serves both.
        let run = run_with(&[&[10.0, 11.0, 12.0], &[10.0, 10.01, 10.02], &[10.0, 12.0]]);
        let mut cfg = run.config.clone();
        (cfg.repeats, cfg.target_ci_pct) = (2, Some(5.0));
        let s = &run.strategies;
        let alone = [(&s[0], false, 0), (&s[1], false, 1), (&s[2], false, 2)];
        let in_place = [(&s[0], false, 0), (&s[1], false, 1), (&s[2], false, 0)];
        let next = |entries: &[(&StrategyResult, bool, usize)]| {
            next_round(2, &cfg, entries, 1.0, 1.5).map(|r| r.entries)
        };
        assert_eq!(next(&alone), Some(vec![2]));
        assert_eq!(next(&in_place), Some(vec![0, 2]));
    }

    #[test]
    fn under_paced_both_each_paced_strategy_of_a_shared_group_runs_alone_too() {
        let mut cfg = run_with(&[&[1.0]]).config;
        for mode in [PacedMode::InPlace, PacedMode::Alone] {
            cfg.paced = mode;
            assert!(!alone_too(&cfg, false, Regime::SEED, 3), "{mode}");
        }
        cfg.paced = PacedMode::Both;
        assert!(alone_too(&cfg, false, Regime::SEED, 2));
        assert!(!alone_too(&cfg, true, Regime::SEED, 2), "a clock floor");
        assert!(!alone_too(&cfg, false, Regime::SEED, 1), "alone already");
        assert!(!alone_too(&cfg, false, Regime::FlatOut, 2), "flat out");
    }

    #[test]
    fn under_paced_both_a_strategy_stays_open_until_in_place_less_alone_can_decide() {
        // Nets 40, 40.1, 40.2 in place: ±0.25 ns, within a 5% target.
        let mut cfg = run_with(&[&[1.0]]).config;
        (cfg.repeats, cfg.target_ci_pct, cfg.paced) = (3, Some(5.0), PacedMode::Both);
        let next = |alone: &[f64]| {
            let s = with_alone(&[70.0, 70.1, 70.2], alone, &[0, 1, 2]);
            assert!(target_ratio(&s, 5.0).unwrap() <= 1.0);
            next_round(3, &cfg, &[(&s, false, 0)], 1.0, 10.0).map(|r| r.entries)
        };
        // Alone 38, 41.5, 40 net: in place less alone +2, -1.4, +0.2, ±4.2 ns: another round.
        assert_eq!(next(&[68.0, 71.5, 70.0]), Some(vec![0]));
        // Alone 2 ns under in place in every round: decided, done.
        assert_eq!(next(&[68.0, 68.1, 68.2]), None);
        // Nothing alone yet to pair: open too.
        assert_eq!(next(&[68.0]), Some(vec![0]));
    }

    #[test]
    fn a_round_counts_a_retry_on_each_entry_it_measures_again() {
        let mut request = crate::runner::plan::example_request();
        request.strategies.policies = vec![PublishPolicy::ALWAYS, PublishPolicy::NEVER];
        let plan = crate::runner::plan::plan_here(&request);
        let (mut entries, _) = super::super::entries(&plan);
        let round = Round {
            entries: vec![0, 1],
            retries: vec![1],
        };
        round.count_retries(&mut entries);
        round.count_retries(&mut entries);
        let retries: Vec<usize> = entries.iter().map(|e| e.result.retries).collect();
        assert_eq!(retries, [0, 2]);
    }

    #[test]
    fn a_paced_strategy_that_lost_a_repeat_to_a_disturbance_goes_first() {
        // Paced: nets 10, 11, 10 against the floor in place (±1.43 ns), over a 1 ns target; flat
        // out: strategy at ±115.5%, wider in ratio (23×). A clock floor is never an extra round's.
        let flat = run_with(&[&[10.0, 12.0]]).strategies.remove(0);
        let mut strategy = over_floors(&[40.0, 43.0, 41.0]);
        let floor = strategy.clone();
        let mut cfg = run_with(&[&[1.0]]).config;
        (cfg.repeats, cfg.target_ci_pct) = (3, Some(5.0));
        let round = |s: &StrategyResult, left_s| {
            let entries = [(&flat, false, 0), (&floor, true, 1), (s, false, 2)];
            next_round(3, &cfg, &entries, 1.0, left_s)
        };
        let open = |entries: Vec<usize>, retries: Vec<usize>| Some(Round { entries, retries });
        // Time for two: both strategies; for one, the widest (flat).
        assert_eq!(round(&strategy, 2.0), open(vec![0, 2], vec![]));
        assert_eq!(round(&strategy, 1.0), open(vec![0], vec![]));
        // Its repeat 1 disturbed: 2 undisturbed repeats of 3, so it goes first, as a retry.
        strategy.repeats[1].interference.disturbed = true;
        assert_eq!(round(&strategy, 1.0), open(vec![2], vec![2]));
        // In place with the clock floor under --paced both, its group also runs it alone: two
        // repeats, so only from 2 s left.
        let mut both = cfg.clone();
        both.paced = PacedMode::Both;
        let round = |left_s| {
            let entries = [(&flat, false, 0), (&floor, true, 2), (&strategy, false, 2)];
            next_round(3, &both, &entries, 1.0, left_s)
        };
        assert_eq!(round(1.0), open(vec![0], vec![]));
        assert_eq!(round(2.0), open(vec![2], vec![2]));
        assert_eq!(round(3.0), open(vec![0, 2], vec![2]));
    }
}
