//! The writer's load value, like a `cfs_rq`'s `avg.load_avg`: bounded and stationary, replayed from
//! a table of deltas made before the start barrier.

use crate::clock::FakeClock;
use crate::counter::{Filter, PublishPolicy, Writer};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::sync::atomic::AtomicI64;

/// Load a walk starts (and ends each period) at: one nice-0 task (`NICE_0_LOAD` scaled down).
pub const START_LOAD: i64 = 1024;

/// Smallest load a walk reaches: half a nice-0 task.
pub const MIN_LOAD: i64 = 512;

/// Largest load a walk reaches: four nice-0 tasks.
pub const MAX_LOAD: i64 = 4096;

/// Largest step of one update in the default walk, in load units at [`START_LOAD`] (S above).
pub const MAX_STEP: i64 = 26;

/// The largest step a walk takes, in load units at [`START_LOAD`].
pub const LARGEST_STEP: i64 = 512;

/// The seed's publish fraction under `threshold:64`, publishes per update.
pub const SEED_THRESHOLD_PUBLISHES: f64 = 0.40;

/// Updates per period of the walk (a power of two: the index is a mask).
pub const TABLE_LEN: usize = 4096;

/// A step that does not give a publish fraction.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error(
    "threshold:64 publishes {lo:.1}% to {hi:.1}% of updates with any load walk: {asked:.1}% is out of reach",
    lo = 100.0 * reach.0,
    hi = 100.0 * reach.1,
    asked = 100.0 * asked
)]
pub struct StepError {
    /// The fraction asked for, publishes per update.
    pub asked: f64,
    /// The fractions the smallest and the largest step give.
    pub reach: (f64, f64),
}

/// One writer's load sequence: its table of deltas and a cursor over it.
#[derive(Clone)]
pub struct LoadWalk {
    deltas: std::sync::Arc<[i32; TABLE_LEN]>,
    cursor: LoadCursor,
}

/// Where a walk is: the next delta's index and the current load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadCursor {
    at: usize,
    load: i64,
}

impl LoadCursor {
    /// The next load value: the current one moved by the next delta of `deltas`.
    #[inline(always)]
    pub fn next_load(&mut self, deltas: &[i32; TABLE_LEN]) -> i64 {
        self.load += i64::from(deltas[self.at % TABLE_LEN]);
        self.at = self.at.wrapping_add(1);
        self.load
    }
}

impl LoadWalk {
    /// The default walk (largest step [`MAX_STEP`]) of writer `writer` under run seed `seed`.
    pub fn new(seed: u64, writer: u64) -> Self {
        Self::with_step(seed, writer, MAX_STEP)
    }

    /// The walk of writer `writer` under run seed `seed` whose steps at load L are uniform in
    /// ±`max_step`·L/[`START_LOAD`] load units (`max_step` clamped to 1 ..= [`LARGEST_STEP`]).
    pub fn with_step(seed: u64, writer: u64, max_step: i64) -> Self {
        let max_step = max_step.clamp(1, LARGEST_STEP);
        let mixed = seed ^ writer.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(mixed);
        let mut deltas = Box::new([0i32; TABLE_LEN]);
        let half = TABLE_LEN / 2;
        let mut load = START_LOAD;
        for d in deltas.iter_mut().take(half) {
            // The step scales with the load, as `contrib / 64` does.
            let bound = (max_step * load / START_LOAD).max(1);
            let step = (rng.next_u64() % (2 * bound + 1) as u64) as i64 - bound;
            let mut next = load + step;
            if next < MIN_LOAD {
                next = 2 * MIN_LOAD - next;
            } else if next > MAX_LOAD {
                next = 2 * MAX_LOAD - next;
            }
            *d = (next - load) as i32;
            load = next;
        }
        // Back the way it came: the walk returns to START_LOAD.
        for i in 0..half {
            deltas[half + i] = -deltas[half - 1 - i];
        }
        Self {
            deltas: deltas.into(),
            cursor: LoadCursor {
                at: 0,
                load: START_LOAD,
            },
        }
    }

    /// The next load value: the previous one moved by the next delta of the table.
    #[inline(always)]
    pub fn next_load(&mut self) -> i64 {
        self.cursor.next_load(&self.deltas)
    }

    /// The table, and the cursor to step through it.
    #[inline(always)]
    pub fn split(&mut self) -> (&[i32; TABLE_LEN], &mut LoadCursor) {
        (&self.deltas, &mut self.cursor)
    }
}

/// Walks (writers 0..4 of a seed) a stepped publish fraction averages over.
pub const STEPPED_WALKS: u64 = 4;

/// Publishes per update, 0 to 1, of writers 0..[`STEPPED_WALKS`] of seed `seed` (largest step
/// `max_step`) under `policy` at `rate`, after a warm-up of one walk period, with no threads.
pub fn stepped_publish_fraction(
    policy: PublishPolicy,
    rate: f64,
    seed: u64,
    max_step: i64,
    updates: u64,
) -> f64 {
    let step_ns = 1e9 / rate;
    let mut published = 0u64;
    for w in 0..STEPPED_WALKS {
        let slot = AtomicI64::new(0);
        let clock = FakeClock::default();
        let mut writer = Writer::on_slot(&slot, policy, clock.clone());
        let mut walk = LoadWalk::with_step(seed, w, max_step);
        let mut at_ns = 0.0f64;
        // A table's worth of updates first, not counted.
        for i in 0..TABLE_LEN as u64 + updates {
            if i == TABLE_LEN as u64 {
                writer.reset_stats();
            }
            let next = at_ns + step_ns;
            clock.advance(next as u64 - at_ns as u64);
            at_ns = next;
            writer.update(walk.next_load());
        }
        published += writer.stats().publishes;
    }
    published as f64 / (STEPPED_WALKS * updates) as f64
}

/// Publishes per update of `threshold:64` on walks of seed `seed` with largest step `max_step`,
/// over two walk periods per walk (a threshold reads no clock: the rate does not matter).
pub fn threshold_publish_fraction(max_step: i64, seed: u64) -> f64 {
    // The kernel's filter before v6.7, with no ratelimit.
    let kernel = PublishPolicy {
        ratelimit: None,
        filter: Filter::Threshold(64),
    };
    stepped_publish_fraction(kernel, 1e6, seed, max_step, 2 * TABLE_LEN as u64)
}

/// The largest step (1 ..= [`LARGEST_STEP`]) whose walks of seed `seed` make `threshold:64` publish
/// closest to `fraction` of updates, with the fraction they give.
pub fn step_for_threshold_publishes(fraction: f64, seed: u64) -> Result<(i64, f64), StepError> {
    let of = |step: i64| threshold_publish_fraction(step, seed);
    let reach = (of(1), of(LARGEST_STEP));
    let within = fraction > 0.0 && fraction < 1.0;
    if !(within && fraction >= reach.0 - 0.03 && fraction <= reach.1 + 0.03) {
        return Err(StepError {
            asked: fraction,
            reach,
        });
    }
    let (mut lo, mut hi) = (1, LARGEST_STEP);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if of(mid) < fraction {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok((lo.saturating_sub(2).max(1)..=(hi + 2).min(LARGEST_STEP))
        .map(|s| (s, of(s)))
        .min_by(|a, b| (a.1 - fraction).abs().total_cmp(&(b.1 - fraction).abs()))
        .expect("a range of at least one step"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest step between two successive loads of a walk of step
    /// `s`: its bound at the load it was drawn at, the first of the pair
    /// going out and the second coming back (the same steps negated).
    fn bound(s: i64, pair: &[i64]) -> i64 {
        (s * pair[0].max(pair[1]) / START_LOAD).max(1)
    }

    fn loads(seed: u64, writer: u64, n: usize) -> Vec<i64> {
        let mut w = LoadWalk::new(seed, writer);
        (0..n).map(|_| w.next_load()).collect()
    }

    #[test]
    fn walks_are_seeded_bounded_reflected_and_periodic() {
        let a = loads(7, 0, 3 * TABLE_LEN);
        assert_eq!(a, loads(7, 0, 3 * TABLE_LEN));
        assert_ne!(a, loads(7, 1, 3 * TABLE_LEN));
        assert!(a.iter().all(|&l| (MIN_LOAD..=MAX_LOAD).contains(&l)));
        let steps = || {
            a.windows(2)
                .map(|w| ((w[1] - w[0]).abs(), bound(MAX_STEP, w)))
        };
        assert!(steps().all(|(step, most)| step <= most) && steps().any(|(step, _)| step != 0));
        // Every period ends where the walk started, and repeats.
        assert_eq!(a[TABLE_LEN - 1], START_LOAD);
        assert_eq!(a[..TABLE_LEN], a[TABLE_LEN..2 * TABLE_LEN]);
        // It moves: the first half wanders away from the start.
        let far = a[..TABLE_LEN / 2]
            .iter()
            .map(|l| (l - START_LOAD).abs())
            .max();
        assert!(far > Some(4 * MAX_STEP), "the walk stayed within {far:?}");
        // Seeds differ in where they wander; over many writers some walk reaches each bound region,
        // and none leaves the range.
        let all: Vec<i64> = (0..64).flat_map(|w| loads(3, w, TABLE_LEN)).collect();
        assert!(all.iter().all(|&l| (MIN_LOAD..=MAX_LOAD).contains(&l)));
        assert!(all.iter().any(|&l| l < MIN_LOAD + 2 * MAX_STEP));
    }

    #[test]
    fn a_walk_of_step_s_moves_by_at_most_s_per_1024_of_load_and_a_clone_walks_on_its_own() {
        let mut a = LoadWalk::new(7, 0);
        let mut b = a.clone();
        assert!(std::ptr::eq(a.split().0, b.split().0));
        // Each replays the whole sequence from the start, whatever the other did.
        let first: Vec<i64> = (0..100).map(|_| a.next_load()).collect();
        let second: Vec<i64> = (0..100).map(|_| b.next_load()).collect();
        assert_eq!(first, second);
        assert_eq!(first, loads(7, 0, 100));
        let stepped = |step| {
            let mut w = LoadWalk::with_step(7, 0, step);
            (0..TABLE_LEN).map(|_| w.next_load()).collect::<Vec<i64>>()
        };
        let a = stepped(40);
        assert!(a.windows(2).all(|p| (p[1] - p[0]).abs() <= bound(40, p)));
        let beyond = |p: &[i64]| (p[1] - p[0]).abs() > bound(MAX_STEP, p);
        assert!(a.windows(2).any(beyond));
        assert_eq!(loads(7, 0, TABLE_LEN), stepped(MAX_STEP));
    }

    #[test]
    fn threshold_64_publishes_the_seeds_fraction_and_once_per_first_passage_of_unit_steps() {
        // The seed: about 10M adds in about 25M events, 0.40 of events.
        // Other seeds walk elsewhere and publish alike.
        for seed in [1, 2, 3] {
            let f = threshold_publish_fraction(MAX_STEP, seed);
            let off = (f - SEED_THRESHOLD_PUBLISHES).abs();
            assert!(off <= 0.03, "seed {seed}: {f}");
        }
        // Steps of -1, 0, +1 (variance 2/3 per update) near START_LOAD, where contrib/64 is 16 (±1
        // as the walk wanders ±40): a publish needs |delta| = 17, first reached after 17² / (2/3) ≈
        // 434 updates on average, so about 1/434 = 0.0023 of updates publish.
        let f = threshold_publish_fraction(1, 1);
        assert!((0.0015..0.0035).contains(&f), "{f}");
    }

    #[test]
    fn the_step_for_a_fraction_gives_that_fraction() {
        let (step, f) = step_for_threshold_publishes(SEED_THRESHOLD_PUBLISHES, 1).unwrap();
        assert!((f - 0.40).abs() <= 0.03, "step {step}: {f}");
        assert_eq!(f, threshold_publish_fraction(step, 1));
        // A larger fraction needs a larger step.
        let (more, g) = step_for_threshold_publishes(0.6, 1).unwrap();
        assert!(more > step && (g - 0.6).abs() <= 0.03, "step {more}: {g}");
        // Beyond what any walk reaches: an error naming the reach.
        let e = step_for_threshold_publishes(0.999, 1).unwrap_err();
        assert_eq!(e.asked, 0.999);
        assert!(e.reach.1 < 0.999 - 0.03, "{e:?}");
        assert!(e.to_string().contains("out of reach"), "{e}");
        assert!(step_for_threshold_publishes(0.0, 1).is_err());
    }
}
