//! What one thread last saw of a counter's slots, and so how many lines its
//! reads had to fetch: the read side's counterpart of a publish's
//! hand-over count.

use super::shards::ShardedCounter;
use std::sync::atomic::AtomicI64;

/// Bytes in a cache line: slots closer than this share a line.
pub const LINE_BYTES: usize = 64;

/// One thread's view of a counter: the raw value it last saw in each slot
/// (through its reads, or through its own adds), and the lines its reads
/// fetched.
///
/// A read that finds a slot holding anything but what this thread last saw
/// there follows another thread's add to that slot, which took the line
/// away from this CPU's cache: the read had to fetch it. Every publish
/// changes its slot's raw value (it adds a [`PUBLISH_TAG`](super::PUBLISH_TAG)),
/// so the count is exact as far as values go: one per line that changed,
/// counted once per read however many of its slots changed. It does not see
/// a line evicted for capacity, nor (with `--pad 0`) a line the thread's own
/// add already brought back with a neighbour's newer value in it: that read
/// is counted as a fetch too.
#[derive(Debug, Clone)]
pub struct ReadView {
    /// Raw value last seen in each slot, by slot index.
    seen: Vec<i64>,
    /// Cache line of each slot (address / [`LINE_BYTES`]).
    line: Vec<usize>,
    /// The slot this thread adds to, if it writes.
    own: Option<usize>,
    /// The raw value this thread's last add left in its own slot.
    own_left: i64,
    /// Lines fetched by reads since creation or the last reset.
    fetched: u64,
}

impl ReadView {
    /// The view of a thread that has just looked at every slot of
    /// `counter` (so its first read counts only what changes after this),
    /// adding to `own` if it is a writer (a slot of `counter`; any other
    /// atomic is not read, so it is ignored).
    pub fn new(counter: &ShardedCounter, own: Option<&AtomicI64>) -> Self {
        let n = counter.slots().len();
        let seen: Vec<i64> = (0..n).map(|i| counter.raw(i)).collect();
        let own = own.and_then(|a| (0..n).find(|&i| std::ptr::eq(counter.slot(i), a)));
        let own_left = own.map_or(0, |i| seen[i]);
        Self {
            seen,
            line: (0..n)
                .map(|i| counter.slot_address(i) / LINE_BYTES)
                .collect(),
            own,
            own_left,
            fetched: 0,
        }
    }

    /// Notes what this thread's last add left in its own slot (a writer's
    /// `Writer::left`): a read of it that finds just that fetches nothing.
    /// Call before each read; an unchanged value (no publish since) is
    /// ignored, so what a read saw after it stays seen.
    #[inline(always)]
    pub fn own_add(&mut self, left: i64) {
        if let Some(own) = self.own
            && left != self.own_left
        {
            self.own_left = left;
            self.seen[own] = left;
        }
    }

    /// Notes that a read found `raw` in slot `slot`; returns the slot's
    /// line when that is news (the read had to fetch it).
    #[inline(always)]
    pub(super) fn saw(&mut self, slot: usize, raw: i64) -> Option<usize> {
        if raw == self.seen[slot] {
            return None;
        }
        self.seen[slot] = raw;
        Some(self.line[slot])
    }

    /// Adds the lines one read fetched.
    #[inline(always)]
    pub(super) fn count(&mut self, lines: u64) {
        self.fetched += lines;
    }

    /// Lines this thread's reads fetched since creation or the last
    /// [`reset`](Self::reset).
    pub fn fetched(&self) -> u64 {
        self.fetched
    }

    /// Zeroes the count (end of warm-up); what was seen stays.
    pub fn reset(&mut self) {
        self.fetched = 0;
    }
}
