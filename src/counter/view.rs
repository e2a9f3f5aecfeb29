//! What one thread last saw of a counter's slots, and so how many lines its reads had to fetch: the
//! read side's counterpart of a publish's hand-over count.

use super::shards::{ShardedCounter, slot_sum};
use std::sync::atomic::AtomicI64;

/// Bytes in a cache line: slots closer than this share a line.
pub const LINE_BYTES: usize = 64;

/// One thread's view of a counter: the raw value it last saw in each slot.
#[derive(Debug, Clone)]
pub struct ReadView {
    /// Raw value last seen in each slot, by slot index.
    seen: Vec<i64>,
    /// Cache line of each slot (address / [`LINE_BYTES`]).
    line: Vec<usize>,
    /// The slot this thread adds to, if it writes.
    own: Option<usize>,
    /// Lines fetched by reads since creation or the last reset.
    fetched: u64,
}

impl ReadView {
    /// The view of a thread that has just looked at every slot of `counter`.
    pub fn new(counter: &ShardedCounter, own: Option<&AtomicI64>) -> Self {
        let n = counter.slots().len();
        let seen: Vec<i64> = (0..n).map(|i| counter.raw(i)).collect();
        let own = own.and_then(|a| (0..n).find(|&i| std::ptr::eq(counter.slot(i), a)));
        Self {
            seen,
            line: (0..n)
                .map(|i| counter.slot_address(i) / LINE_BYTES)
                .collect(),
            own,
            fetched: 0,
        }
    }

    /// [`ShardedCounter::read`] by this thread, compiled for walk `W`, which must be `counter`'s
    /// [`ShardedCounter::walk_kind`] (see [`ShardedCounter::walk_as`]).
    #[inline(always)]
    pub fn read_as<const W: u8>(&mut self, counter: &ShardedCounter, left: i64) -> i64 {
        let (mut sum, mut lines, mut last) = (0, 0u64, usize::MAX);
        // Inlined into every caller, as the walk is: out of line, one copy of this closure served
        // every lane in place and their floors, so their branches trained each other's predictions.
        counter.walk_as::<W>(
            #[inline(always)]
            |i| {
                let raw = counter.raw(i);
                sum += slot_sum(raw);
                if raw != self.seen[i] && (raw != left || self.own != Some(i)) {
                    self.seen[i] = raw;
                    if self.line[i] != last {
                        lines += 1;
                        last = self.line[i];
                    }
                }
            },
        );
        // No store when nothing was fetched: a locked add that follows would wait for it to drain.
        if lines > 0 {
            self.fetched += lines;
        }
        sum
    }

    /// Lines this thread's reads fetched since creation or the last [`reset`](Self::reset).
    pub fn fetched(&self) -> u64 {
        self.fetched
    }

    /// Zeroes the count (end of warm-up); what was seen stays.
    pub fn reset(&mut self) {
        self.fetched = 0;
    }
}
