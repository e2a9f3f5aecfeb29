//! The writer's load value: a seeded random walk, like a `cfs_rq`'s
//! `avg.load_avg` moving as tasks come and go.

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// Load a walk starts at: one nice-0 task (`NICE_0_LOAD` scaled down).
pub const START_LOAD: i64 = 1024;

/// Largest step of one update, in load units.
pub const MAX_STEP: i64 = 64;

/// A reproducible random walk of load values that never goes below 0.
#[derive(Clone)]
pub struct LoadWalk {
    rng: Xoshiro256PlusPlus,
    load: i64,
}

impl LoadWalk {
    /// The walk of writer `writer` under run seed `seed`: the same pair
    /// always gives the same sequence.
    pub fn new(seed: u64, writer: u64) -> Self {
        let mixed = seed ^ writer.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Self {
            rng: Xoshiro256PlusPlus::seed_from_u64(mixed),
            load: START_LOAD,
        }
    }

    /// The next load value: the previous one moved by a uniform step in
    /// [-MAX_STEP, MAX_STEP], reflected at 0.
    #[inline(always)]
    pub fn next_load(&mut self) -> i64 {
        let span = (2 * MAX_STEP + 1) as u64;
        let step = (self.rng.next_u64() % span) as i64 - MAX_STEP;
        self.load = (self.load + step).abs();
        self.load
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_are_seeded_and_stay_non_negative() {
        let a: Vec<i64> = {
            let mut w = LoadWalk::new(7, 0);
            (0..1000).map(|_| w.next_load()).collect()
        };
        let b: Vec<i64> = {
            let mut w = LoadWalk::new(7, 0);
            (0..1000).map(|_| w.next_load()).collect()
        };
        let c: Vec<i64> = {
            let mut w = LoadWalk::new(7, 1);
            (0..1000).map(|_| w.next_load()).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.iter().all(|&l| l >= 0));
        assert!(a.windows(2).all(|w| (w[1] - w[0]).abs() <= MAX_STEP));
        assert!(a.windows(2).any(|w| w[1] != w[0]));
    }
}
