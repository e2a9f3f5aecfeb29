//! A writer's local state and its publish decision: the `cfs_rq` side of `update_tg_load_avg()`.

use super::policy::{FILTER_ANY, Filter, PublishPolicy};
use super::shards::{PUBLISH_TAG, ShardedCounter};
use crate::clock::Clock;
use std::sync::atomic::{AtomicI64, Ordering};

/// What one writer published, in counts; the run turns these into rates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PublishStats {
    /// Calls to [`Writer::update`].
    pub updates: u64,
    /// Atomic adds to the shared slot made by updates (not by the final flush).
    pub publishes: u64,
    /// |delta| left for the final flush (load units).
    pub flushed: u64,
    /// Publishes that found another writer's add on the slot since this writer's last one.
    pub handovers: u64,
}

impl PublishStats {
    /// Adds another writer's counts to these.
    pub fn merge(&mut self, other: &PublishStats) {
        self.updates += other.updates;
        self.publishes += other.publishes;
        self.flushed += other.flushed;
        self.handovers += other.handovers;
    }
}

/// `Writer::pending_since` when nothing is pending.
const NOTHING_PENDING: u64 = u64::MAX;

/// One writer: its load value, its last published contribution and the time it last published, like
/// a `cfs_rq`'s `avg.load_avg`, `tg_load_avg_contrib` and `last_update_tg_load_avg`.
#[derive(Clone)]
pub struct Writer<'c, C: Clock> {
    slot: &'c AtomicI64,
    filter: Filter,
    /// Ratelimit period in clock ticks; `None` = no ratelimit.
    period: Option<u64>,
    clock: C,
    load: i64,
    contrib: i64,
    last_publish: u64,
    /// Update number of the oldest unpublished change, or [`NOTHING_PENDING`]: an integer the loop
    /// keeps in a register (a store per update would make the next locked add wait).
    pending_since: u64,
    /// Updates that did not publish.
    held: u64,
    /// The slot's raw value right after this writer's last add.
    left: i64,
    /// Publishes that followed another writer's add (see [`PublishStats::handovers`]).
    handovers: u64,
    /// Counts; `publishes` is filled in by [`Writer::stats`].
    stats: PublishStats,
}

impl<'c, C: Clock> Writer<'c, C> {
    /// A writer adding to slot `slot` of `counter` under `policy`, reading `clock` for the
    /// ratelimit.
    pub fn new(counter: &'c ShardedCounter, slot: usize, policy: PublishPolicy, clock: C) -> Self {
        Self::on_slot(counter.slot(slot), policy, clock)
    }

    /// A writer adding to `slot` itself, any atomic.
    pub fn on_slot(slot: &'c AtomicI64, policy: PublishPolicy, clock: C) -> Self {
        let period = policy.ratelimit.map(|p| clock.ticks(p).max(1));
        let last_publish = period.map_or(0, |p| clock.now().wrapping_sub(p));
        Self {
            left: slot.load(Ordering::Relaxed),
            handovers: 0,
            slot,
            filter: policy.filter,
            period,
            clock,
            load: 0,
            contrib: 0,
            last_publish,
            pending_since: NOTHING_PENDING,
            held: 0,
            stats: PublishStats::default(),
        }
    }

    /// Sets the writer's load and publishes the change if the policy says so.
    #[inline(always)]
    pub fn update(&mut self, load: i64) {
        if self.period.is_some() {
            self.update_as::<true, FILTER_ANY>(load);
        } else {
            self.update_as::<false, FILTER_ANY>(load);
        }
    }

    /// True when the policy has a ratelimit (and so reads the clock).
    pub fn ratelimited(&self) -> bool {
        self.period.is_some()
    }

    /// The kind of the policy's filter ([`Filter::kind`]).
    pub fn filter_kind(&self) -> u8 {
        self.filter.kind()
    }

    /// [`Writer::update`] compiled for a policy with or without a ratelimit (`RATELIMITED`) and for
    /// filter kind `FILTER`, so a loop carries no clock code it does not need.
    #[inline(always)]
    pub fn update_as<const RATELIMITED: bool, const FILTER: u8>(&mut self, load: i64) {
        debug_assert_eq!(RATELIMITED, self.period.is_some());
        self.load = load;
        let n = self.stats.updates;
        self.stats.updates = n + 1;
        let mut now = 0;
        if RATELIMITED && let Some(period) = self.period {
            now = self.clock.now();
            if now.wrapping_sub(self.last_publish) < period {
                self.note_pending(n);
                return;
            }
        }
        let delta = load - self.contrib;
        if self.filter.passes_as::<FILTER>(delta, self.contrib) {
            // Every publish also adds one tag above the sum's bits, so the value the add returns
            // tells whether any other writer added in between, even adds that cancel out (+16 then
            // -16).
            let add = delta.wrapping_add(PUBLISH_TAG);
            let before = self.slot.fetch_add(add, Ordering::Relaxed);
            self.handovers += u64::from(before != self.left);
            self.left = before.wrapping_add(add);
            self.contrib = load;
            if RATELIMITED {
                self.last_publish = now;
            }
            self.pending_since = NOTHING_PENDING;
        } else {
            self.note_pending(n);
        }
    }

    /// An update that did not publish.
    #[inline(always)]
    fn note_pending(&mut self, update: u64) {
        self.held += 1;
        if self.load == self.contrib {
            self.pending_since = NOTHING_PENDING;
        } else if self.pending_since == NOTHING_PENDING {
            self.pending_since = update;
        }
    }

    /// The update number (counted from 0 since creation or the last [`Writer::reset_stats`]) of the
    /// oldest change readers have not seen, or `None` when the published value is the load.
    #[inline(always)]
    pub fn pending_since(&self) -> Option<u64> {
        (self.pending_since != NOTHING_PENDING).then_some(self.pending_since)
    }

    /// The writer's current load value.
    #[inline(always)]
    pub fn load(&self) -> i64 {
        self.load
    }

    /// The slot this writer adds to.
    pub fn slot(&self) -> &'c AtomicI64 {
        self.slot
    }

    /// The raw value (sum and publish tags) this writer's last add left in its slot.
    #[inline(always)]
    pub fn left(&self) -> i64 {
        self.left
    }

    /// The writer's last published contribution.
    #[inline(always)]
    pub fn contrib(&self) -> i64 {
        self.contrib
    }

    /// Publishes whatever is still unpublished, unconditionally.
    pub fn flush(&mut self) {
        let delta = self.load - self.contrib;
        if delta != 0 {
            self.slot.fetch_add(delta, Ordering::Relaxed);
            self.contrib = self.load;
            self.stats.flushed += delta.unsigned_abs();
        }
        self.pending_since = NOTHING_PENDING;
    }

    /// Zeroes the counts (end of warm-up); load, contribution and the last publish time stay.
    pub fn reset_stats(&mut self) {
        self.stats = PublishStats::default();
        self.held = 0;
        self.handovers = 0;
        // Update numbers restart at 0; a delta already pending counts from there.
        self.pending_since = if self.load != self.contrib {
            0
        } else {
            NOTHING_PENDING
        };
    }

    /// Counts since creation or the last [`Writer::reset_stats`].
    pub fn stats(&self) -> PublishStats {
        PublishStats {
            publishes: self.stats.updates - self.held,
            handovers: self.handovers,
            ..self.stats
        }
    }

    /// Updates since creation or the last [`Writer::reset_stats`].
    #[inline(always)]
    pub fn updates(&self) -> u64 {
        self.stats.updates
    }
}

/// A counter whose slots do not add up to what its writers hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{strategy}: final sum {found} != exact total {expected} (off by {})", found - expected)]
pub struct ExactnessError {
    /// The strategy that lost or invented load, as `level/policy/pad`.
    pub strategy: String,
    /// What the counter read.
    pub found: i64,
    /// The sum of every writer's final load.
    pub expected: i64,
}

/// Checks, after every writer has flushed, that the counter reads exactly `expected`.
pub fn check_exact(
    counter: &ShardedCounter,
    expected: i64,
    strategy: &str,
) -> Result<(), ExactnessError> {
    let (strategy, found) = (strategy.to_string(), counter.read());
    let error = ExactnessError {
        strategy,
        found,
        expected,
    };
    if found == expected {
        Ok(())
    } else {
        Err(error)
    }
}
