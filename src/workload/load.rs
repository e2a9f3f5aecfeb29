//! The writer's load value, like a `cfs_rq`'s `avg.load_avg`: bounded and
//! stationary, replayed from a table of deltas made before the start
//! barrier.
//!
//! PELT's `load_avg` moves by small steps and stays within a range set by
//! the tasks on the queue; an unbounded random walk would not (it grows
//! like √updates, so a `threshold:D` policy, which publishes past
//! `contrib / D`, would publish less the longer a run lasts). Each writer
//! gets a closed walk: [`TABLE_LEN`]`/2` uniform steps in
//! [-[`MAX_STEP`], [`MAX_STEP`]] reflected inside
//! [[`MIN_LOAD`], [`MAX_LOAD`]] from [`START_LOAD`], then the same steps
//! backwards and negated, so the walk returns to its start and repeats
//! with period [`TABLE_LEN`]. The statistics of every period are the same,
//! every strategy and repeat replays the same sequence, and the hot path
//! reads one delta from a 16 KiB table (no random number generator).

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// Load a walk starts (and ends each period) at: one nice-0 task
/// (`NICE_0_LOAD` scaled down).
pub const START_LOAD: i64 = 1024;

/// Smallest load a walk reaches: half a nice-0 task.
pub const MIN_LOAD: i64 = 512;

/// Largest load a walk reaches: four nice-0 tasks.
pub const MAX_LOAD: i64 = 4096;

/// Largest step of one update, in load units.
pub const MAX_STEP: i64 = 16;

/// Updates per period of the walk (a power of two: the index is a mask).
pub const TABLE_LEN: usize = 4096;

/// One writer's load sequence: its table of deltas and a cursor over it.
pub struct LoadWalk {
    deltas: Box<[i32; TABLE_LEN]>,
    cursor: LoadCursor,
}

/// Where a walk is: the next delta's index and the current load. Small
/// and `Copy`, so a loop can keep it in registers ([`LoadWalk::split`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadCursor {
    at: usize,
    load: i64,
}

impl LoadCursor {
    /// The next load value: the current one moved by the next delta of
    /// `deltas`.
    #[inline(always)]
    pub fn next_load(&mut self, deltas: &[i32; TABLE_LEN]) -> i64 {
        self.load += i64::from(deltas[self.at % TABLE_LEN]);
        self.at = self.at.wrapping_add(1);
        self.load
    }
}

impl LoadWalk {
    /// The walk of writer `writer` under run seed `seed`: the same pair
    /// always gives the same sequence. Builds the table (a few µs): call it
    /// on the writer's own thread, after pinning, so the table is local.
    pub fn new(seed: u64, writer: u64) -> Self {
        let mixed = seed ^ writer.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(mixed);
        let mut deltas = Box::new([0i32; TABLE_LEN]);
        let half = TABLE_LEN / 2;
        let span = (2 * MAX_STEP + 1) as u64;
        let mut load = START_LOAD;
        for d in deltas.iter_mut().take(half) {
            let step = (rng.next_u64() % span) as i64 - MAX_STEP;
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
            deltas,
            cursor: LoadCursor {
                at: 0,
                load: START_LOAD,
            },
        }
    }

    /// The next load value: the previous one moved by the next delta of
    /// the table.
    #[inline(always)]
    pub fn next_load(&mut self) -> i64 {
        self.cursor.next_load(&self.deltas)
    }

    /// The table, and the cursor to step through it: a loop copies the
    /// cursor into a local and writes it back when done.
    #[inline(always)]
    pub fn split(&mut self) -> (&[i32; TABLE_LEN], &mut LoadCursor) {
        (&self.deltas, &mut self.cursor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loads(seed: u64, writer: u64, n: usize) -> Vec<i64> {
        let mut w = LoadWalk::new(seed, writer);
        (0..n).map(|_| w.next_load()).collect()
    }

    #[test]
    fn walks_are_seeded_bounded_and_periodic() {
        let a = loads(7, 0, 3 * TABLE_LEN);
        assert_eq!(a, loads(7, 0, 3 * TABLE_LEN));
        assert_ne!(a, loads(7, 1, 3 * TABLE_LEN));
        assert!(a.iter().all(|&l| (MIN_LOAD..=MAX_LOAD).contains(&l)));
        assert!(a.windows(2).all(|w| (w[1] - w[0]).abs() <= MAX_STEP));
        assert!(a.windows(2).any(|w| w[1] != w[0]));
        // Every period ends where the walk started, and repeats.
        assert_eq!(a[TABLE_LEN - 1], START_LOAD);
        assert_eq!(a[..TABLE_LEN], a[TABLE_LEN..2 * TABLE_LEN]);
        // It moves: the first half wanders away from the start.
        let far = a[..TABLE_LEN / 2]
            .iter()
            .map(|l| (l - START_LOAD).abs())
            .max()
            .unwrap();
        assert!(far > 4 * MAX_STEP, "the walk stayed within {far}");
    }

    #[test]
    fn reflection_keeps_a_walk_near_a_bound_inside() {
        // Seeds differ in where they wander; over many writers some walk
        // reaches each bound region, and none leaves the range.
        let all: Vec<i64> = (0..64).flat_map(|w| loads(3, w, TABLE_LEN)).collect();
        assert!(all.iter().all(|&l| (MIN_LOAD..=MAX_LOAD).contains(&l)));
        assert!(all.iter().any(|&l| l < MIN_LOAD + 2 * MAX_STEP));
    }
}
