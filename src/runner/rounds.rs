//! The rounds of a run: every entry (each strategy in each regime, and
//! each paced regime's floor) takes one repeat per round, in turn, so
//! drift hits all alike; with `--target-ci`, further rounds for the
//! entries whose CI is still wider than the target, while the time budget
//! lasts.

use super::aggregate::ci_half_width_pct;
use super::repeat::one_repeat;
use super::result::{RunConfig, StrategyResult};
use super::{RunError, RunPlan};
use crate::workload::RepeatSpec;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// One entry of the rounds: its result so far, the repeat it runs, and
/// whether it is a paced regime's floor rather than a strategy.
pub(super) struct RoundEntry {
    /// Its result, repeats appended as they finish.
    pub result: StrategyResult,
    /// What one repeat of it runs.
    pub spec: RepeatSpec,
    /// A paced regime's floor (kept apart from the strategies).
    pub is_floor: bool,
}

/// Runs the rounds of `plan` over `entries`, the run's time budget
/// counted from `started`; returns true when `interrupted` stopped it
/// (finished repeats are kept). Notes the counter raises go to `notes`;
/// `progress(done, total, entry)` hears each repeat.
pub(super) fn run(
    plan: &RunPlan,
    entries: &mut [RoundEntry],
    started: Instant,
    interrupted: &AtomicBool,
    notes: &mut Vec<String>,
    mut progress: impl FnMut(usize, usize, &str),
) -> Result<bool, RunError> {
    let cfg = &plan.config;
    let mut total = entries.len() * cfg.repeats;
    let mut done = 0;
    let mut round = 0;
    let mut repeat_s = 0.0;
    loop {
        let left_s = cfg.max_time_s.unwrap_or(0.0) - started.elapsed().as_secs_f64();
        let results: Vec<&StrategyResult> = entries.iter().map(|e| &e.result).collect();
        let Some(active) = next_round(round, cfg, &results, repeat_s, left_s) else {
            return Ok(false);
        };
        if round >= cfg.repeats {
            total += active.len();
        }
        let round_started = Instant::now();
        for &i in &active {
            let entry = &mut entries[i];
            let Some(r) = one_repeat(
                plan,
                &mut entry.result,
                &entry.spec,
                round,
                interrupted,
                notes,
            )?
            else {
                return Ok(true);
            };
            entry.result.exact &= r.exact;
            entry.result.repeats.push(r);
            done += 1;
            progress(done, total, &entry.result.name);
        }
        repeat_s = round_started.elapsed().as_secs_f64() / active.len().max(1) as f64;
        round += 1;
    }
}

/// The strategies round `round` (0-based) repeats, as indexes into
/// `results`, or `None` when the run is done: every strategy in the first
/// `cfg.repeats` rounds; then, under `--target-ci`, those whose CI is still
/// wider than the target, when a repeat of each, at `repeat_s` seconds a
/// repeat (the last round's), fits in the `left_s` seconds of `--max-time`
/// left.
fn next_round(
    round: usize,
    cfg: &RunConfig,
    results: &[&StrategyResult],
    repeat_s: f64,
    left_s: f64,
) -> Option<Vec<usize>> {
    if round < cfg.repeats {
        return Some((0..results.len()).collect());
    }
    let open = unconverged(results, cfg.target_ci_pct);
    (!open.is_empty() && repeat_s * open.len() as f64 <= left_s).then_some(open)
}

/// Indexes of the strategies whose CI is still wider than `target` %.
fn unconverged(results: &[&StrategyResult], target: Option<f64>) -> Vec<usize> {
    let Some(target) = target else {
        return Vec::new();
    };
    (0..results.len())
        .filter(|&i| ci_half_width_pct(results[i]).is_none_or(|h| h > target))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::aggregate::tests::run_with;

    #[test]
    fn extra_rounds_repeat_the_open_strategies_while_the_time_lasts() {
        // Strategy 0 is at ±22.6%, strategy 1 at ±0.25%.
        let run = run_with(&[&[10.0, 11.0, 12.0], &[10.0, 10.01, 10.02]]);
        let mut cfg = run.config.clone();
        cfg.repeats = 3;
        cfg.target_ci_pct = None;
        let all = Some(vec![0, 1]);
        let next = |cfg: &RunConfig, round, repeat_s, left_s| {
            next_round(
                round,
                cfg,
                &run.strategies.iter().collect::<Vec<_>>(),
                repeat_s,
                left_s,
            )
        };
        // The first `repeats` rounds run everything, whatever the time.
        assert_eq!(next(&cfg, 0, 5.0, -1.0), all);
        assert_eq!(next(&cfg, 2, 5.0, -1.0), all);
        // Without --target-ci, that is all.
        assert_eq!(next(&cfg, 3, 0.0, 100.0), None);
        // With one, the strategies above the target, if a repeat of each
        // fits in the time left.
        cfg.target_ci_pct = Some(5.0);
        assert_eq!(next(&cfg, 3, 2.0, 2.0), Some(vec![0]));
        assert_eq!(next(&cfg, 3, 2.0, 1.9), None);
        cfg.target_ci_pct = Some(0.1);
        assert_eq!(next(&cfg, 4, 1.0, 2.0), all);
        assert_eq!(next(&cfg, 4, 1.0, 1.9), None);
        cfg.target_ci_pct = Some(25.0);
        assert_eq!(next(&cfg, 3, 0.0, 100.0), None);
        // A strategy exactly at the target has converged, as the results
        // say (half-width <= target).
        cfg.target_ci_pct = ci_half_width_pct(&run.strategies[0]);
        assert_eq!(next(&cfg, 3, 1.0, 100.0), None);
    }
}
