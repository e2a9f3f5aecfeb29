//! What fraction of updates publish under a policy at a given update rate: the writers' load walks
//! ([`Walks`]) stepped through the writer's own publish decision with a clock that moves 1/rate per
//! update, with no threads.

use crate::counter::PublishPolicy;
use crate::workload::{MAX_STEP, TABLE_LEN, stepped_publish_fraction};

/// The load walks a run's writers replay: their seed and their step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Walks {
    /// Seed of the walks (`--seed`).
    pub seed: u64,
    /// Their largest step, load units at the start load.
    pub step: i64,
}

impl Walks {
    /// The default walks (step [`MAX_STEP`]) of seed `seed`.
    pub fn of_seed(seed: u64) -> Self {
        Walks {
            seed,
            step: MAX_STEP,
        }
    }

    /// The walks a run replayed: its seed and the step run.json records.
    pub fn of_run(config: &crate::runner::RunConfig) -> Self {
        Walks {
            seed: config.seed,
            step: config.load_step.unwrap_or(MAX_STEP),
        }
    }
}

/// Ratelimit periods stepped per walk, at least.
const PERIODS: f64 = 100.0;

/// Updates stepped per walk, at most.
const MAX_UPDATES: u64 = 1 << 16;

/// Publishes per update, 0 to 1, of a writer under `policy` updating `rate` times a second.
pub fn publish_fraction(policy: PublishPolicy, rate: f64, walks: Walks) -> f64 {
    let Some(period) = policy.ratelimit else {
        return stepped(policy, rate, walks, 2 * TABLE_LEN as u64);
    };
    let fits = MAX_UPDATES as f64 / (PERIODS * period.as_secs_f64());
    if rate > fits {
        return stepped(policy, fits, walks, MAX_UPDATES) * fits / rate;
    }
    let updates = ((PERIODS * period.as_secs_f64() * rate) as u64).max(2 * TABLE_LEN as u64);
    stepped(policy, rate, walks, updates)
}

/// Publishes per update over `updates` updates per walk at `rate`.
fn stepped(policy: PublishPolicy, rate: f64, walks: Walks, updates: u64) -> f64 {
    stepped_publish_fraction(policy, rate, walks.seed, walks.step, updates)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(s: &str) -> PublishPolicy {
        s.parse().unwrap()
    }

    #[test]
    fn always_publishes_every_update_and_never_none() {
        let at = |p| publish_fraction(p, 22e3, Walks::of_seed(1));
        assert_eq!(
            (at(PublishPolicy::ALWAYS), at(PublishPolicy::NEVER)),
            (1.0, 0.0)
        );
    }

    #[test]
    fn a_ratelimit_caps_publishes_at_one_per_period() {
        // Far past what fits in the steps: still one publish per period.
        let fast = publish_fraction(policy("ratelimit:1ms"), 1e8, Walks::of_seed(1));
        assert!((fast * 1e8 * 1e-3 - 1.0).abs() < 0.01, "{fast}");
        // 22k updates/s under 1 ms: 22 updates take 22/22000 s = 1 ms exactly, and the writer holds
        // back only while less than the period has passed, so the 22nd update after a publish
        // publishes: 1/22. Each of the 4 walks steps 2 × 4096 updates, so a period cut at either
        // end moves the fraction by at most 1/8192 = 1.2e-4 (and a walk back at the published value
        // when due, under 1% of periods, by less).
        let f = publish_fraction(policy("ratelimit:1ms"), 22e3, Walks::of_seed(1));
        assert!((f - 1.0 / 22.0).abs() < 3e-4, "{f}");
        // At 22.5k/s, 22 updates are 0.978 ms and 23 are 1.022 ms: 1/23.
        let f = publish_fraction(policy("ratelimit:1ms"), 22.5e3, Walks::of_seed(1));
        assert!((f - 1.0 / 23.0).abs() < 3e-4, "{f}");
        // Slower than once per period, a ratelimit holds back only the updates that change nothing:
        // a step of 0, 1 in 2·b + 1 where the walk's bound b is 26·load/1024, 13 at the smallest
        // load and 26 at the start, so at most 1 in 27 and about 1 in 53.
        let slow = publish_fraction(policy("ratelimit:1ms"), 500.0, Walks::of_seed(1));
        assert!((26.0 / 27.0..1.0).contains(&slow), "{slow}");
    }

    #[test]
    fn a_threshold_publishes_a_fraction_that_does_not_depend_on_rate() {
        // |delta| > contrib/64 on the default walk: the seed's fraction,
        // 0.40 (about 10M adds in 25M events), at any rate.
        let a = publish_fraction(policy("threshold:64"), 1e3, Walks::of_seed(1));
        let b = publish_fraction(policy("threshold:64"), 1e6, Walks::of_seed(1));
        assert!((a - 0.40).abs() <= 0.03, "{a}");
        assert_eq!(a, b);
    }
}
