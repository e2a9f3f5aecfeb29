//! Pacing a thread to a requested operation rate (`--rate`).

use crate::clock::Timer;

/// Holds a thread to at most a given number of operations per second
/// (`--rate`), without bursting to catch up after a stall.
#[derive(Debug, Clone, Copy)]
pub struct Pacer {
    timer: Timer,
    interval: u64,
    next_due: u64,
}

impl Pacer {
    /// A pacer for `rate` operations per second.
    pub fn new(timer: Timer, rate: f64) -> Self {
        Self {
            timer,
            interval: (timer.ticks_per_sec() / rate).max(1.0) as u64,
            next_due: 0,
        }
    }

    /// Waits until the next operation is due.
    #[inline(always)]
    pub fn wait(&mut self) {
        let mut now = self.timer.start();
        while now < self.next_due {
            std::hint::spin_loop();
            now = self.timer.start();
        }
        self.next_due = now.max(self.next_due) + self.interval;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacer_holds_the_rate() {
        let timer = Timer::Monotonic;
        let mut pacer = Pacer::new(timer, 10_000.0); // every 100 us
        let t0 = std::time::Instant::now();
        for _ in 0..101 {
            pacer.wait();
        }
        let elapsed = t0.elapsed().as_secs_f64();
        assert!(elapsed >= 0.0099, "101 ops at 10k/s took {elapsed} s");
    }
}
