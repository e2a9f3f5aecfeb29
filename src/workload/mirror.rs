//! Staleness as a reader sees it.

use crate::counter::ShardedCounter;
use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// `pending_since` of a writer with nothing unpublished.
const NOTHING_PENDING: u64 = u64::MAX;

/// One writer's true state.
#[derive(Default)]
struct WriterLine {
    load: AtomicI64,
    pending_since: AtomicU64,
    updates: AtomicU64,
}

/// Every writer's true state, one padded line each.
pub struct Mirror {
    lines: Box<[CachePadded<WriterLine>]>,
}

impl Mirror {
    /// Mirrors for `writers` writers, each at load 0 with nothing pending.
    pub fn new(writers: usize) -> Self {
        Mirror {
            lines: (0..writers)
                .map(|_| {
                    let line = CachePadded::new(WriterLine::default());
                    line.pending_since.store(NOTHING_PENDING, Ordering::Relaxed);
                    line
                })
                .collect(),
        }
    }

    /// Writers mirrored.
    pub fn writers(&self) -> usize {
        self.lines.len()
    }

    /// Writer `writer`'s state after an update.
    #[inline(always)]
    pub fn store(&self, writer: usize, load: i64, pending_since: Option<u64>, updates: u64) {
        let line = &self.lines[writer];
        line.load.store(load, Ordering::Relaxed);
        line.pending_since
            .store(pending_since.unwrap_or(NOTHING_PENDING), Ordering::Relaxed);
        line.updates.store(updates, Ordering::Relaxed);
    }

    /// Reads what a reader of `counter` sees against the truth.
    pub fn probe(&self, counter: &ShardedCounter) -> Probe {
        let published = counter.read();
        let mut truth = 0;
        let mut oldest = 0;
        for line in self.lines.iter() {
            truth += line.load.load(Ordering::Relaxed);
            let since = line.pending_since.load(Ordering::Relaxed);
            if since != NOTHING_PENDING {
                let now = line.updates.load(Ordering::Relaxed);
                oldest = oldest.max(now.saturating_sub(since));
            }
        }
        Probe {
            published,
            truth,
            oldest_pending_updates: oldest,
        }
    }
}

/// One look at the shared sum against the truth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// What the slots summed to.
    pub published: i64,
    /// What the writers' loads summed to.
    pub truth: i64,
    /// Age of the oldest unpublished change, in updates of its writer (0 when nothing is pending).
    pub oldest_pending_updates: u64,
}

/// Probes of one thread (or merged over threads), as sums and maxima.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StalenessSamples {
    /// Probes taken.
    pub probes: u64,
    /// Sum of |published − truth|, load units.
    pub error_sum: f64,
    /// Largest |published − truth|, load units.
    pub error_max: f64,
    /// Sum of |published − truth| as % of |truth|.
    pub error_pct_sum: f64,
    /// Largest such percentage.
    pub error_pct_max: f64,
    /// Sum of the oldest unpublished change's age, updates.
    pub age_sum_updates: f64,
    /// Largest such age, updates.
    pub age_max_updates: u64,
}

impl StalenessSamples {
    /// Adds one probe.
    pub fn record(&mut self, p: Probe) {
        let error = (p.published - p.truth).unsigned_abs() as f64;
        let pct = 100.0 * error / p.truth.unsigned_abs().max(1) as f64;
        self.probes += 1;
        self.error_sum += error;
        self.error_max = self.error_max.max(error);
        self.error_pct_sum += pct;
        self.error_pct_max = self.error_pct_max.max(pct);
        self.age_sum_updates += p.oldest_pending_updates as f64;
        self.age_max_updates = self.age_max_updates.max(p.oldest_pending_updates);
    }

    /// Adds another thread's probes.
    pub fn merge(&mut self, other: &StalenessSamples) {
        self.probes += other.probes;
        self.error_sum += other.error_sum;
        self.error_max = self.error_max.max(other.error_max);
        self.error_pct_sum += other.error_pct_sum;
        self.error_pct_max = self.error_pct_max.max(other.error_pct_max);
        self.age_sum_updates += other.age_sum_updates;
        self.age_max_updates = self.age_max_updates.max(other.age_max_updates);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::tests::host_counter;

    fn seen(p: Probe) -> (i64, i64, u64) {
        (p.published, p.truth, p.oldest_pending_updates)
    }

    #[test]
    fn a_reader_is_off_by_the_sum_of_every_pending_delta_and_merges_add_it() {
        // Three writers hold back 10, 20 and -5 of their loads 1000, 2000 and 500: the slots hold
        // 990 + 1980 + 505 = 3475, the truth is 3500, and a reader is off by the sum, 25.
        let c = host_counter();
        c.slot(0).fetch_add(990 + 1980 + 505, Ordering::Relaxed);
        let m = Mirror::new(3);
        m.store(0, 1000, Some(7), 10); // pending for 3 updates
        m.store(1, 2000, Some(2), 12); // pending for 10 updates
        m.store(2, 500, None, 4);
        let p = m.probe(&c);
        assert_eq!(seen(p), (3475, 3500, 10));
        let mut s = StalenessSamples::default();
        s.record(p);
        assert_eq!((s.error_sum, s.age_max_updates), (25.0, 10));
        assert!((s.error_pct_sum - 100.0 * 25.0 / 3500.0).abs() < 1e-12);
        // Nothing pending anywhere: no age, and no error once published.
        c.slot(0).fetch_add(25, Ordering::Relaxed);
        m.store(0, 1000, None, 11);
        m.store(1, 2000, None, 13);
        let p = m.probe(&c);
        assert_eq!(seen(p), (3500, 3500, 0));
        s.record(p);
        assert_eq!((s.probes, s.error_sum, s.error_max), (2, 25.0, 25.0));
        assert!((s.age_sum_updates - 10.0).abs() < 1e-12);
        // A mirror has one line per writer; fresh lines: load 0, nothing pending.
        assert_eq!((Mirror::new(0).writers(), Mirror::new(3).writers()), (0, 3));
        assert_eq!(seen(Mirror::new(3).probe(&host_counter())), (0, 0, 0));
        let one = |error: i64, age: u64| {
            let mut s = StalenessSamples::default();
            let (published, truth, oldest_pending_updates) = (1000 - error, 1000, age);
            s.record(Probe {
                published,
                truth,
                oldest_pending_updates,
            });
            s
        };
        let mut a = one(10, 4);
        a.merge(&one(30, 2));
        assert_eq!(a.probes, 2);
        assert_eq!((a.error_sum, a.error_max), (40.0, 30.0));
        assert_eq!((a.error_pct_sum, a.error_pct_max), (4.0, 3.0));
        assert_eq!((a.age_sum_updates, a.age_max_updates), (6.0, 4));
    }
}
