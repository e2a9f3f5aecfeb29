//! Pacing a thread to a requested operation rate (`--rate`), exactly.
//!
//! Deadlines are absolute: operation k is due at `start + k × period`, so a
//! late wake-up does not push every later deadline back (the old pacer set
//! `next = max(now, next) + period` and lost 1–10% of the requested rate on
//! a busy VM). Lateness up to [`CATCH_UP`] is made up by running the
//! operations that are due back to back; a longer stall (a preemption, a
//! hypervisor descheduling the vCPU) is skipped, not burst through: its
//! slots are counted as missed and the next deadline is the next period
//! boundary after now. Time spent waiting is counted, so the time a thread
//! was busy is its interval less its waits.
//!
//! The pacer reads the run's timer fenced (`rdtscp; lfence`, as
//! [`Timer::end`]): the read that starts a wait is ordered after the
//! operation before it has completed, so the stall of a locked add that
//! had to fetch its line is busy time, as it is for the kernel, not
//! waiting. An unfenced `rdtsc` would run ahead of that add and book its
//! stall as a wait (a transfer of 30 ns then read as 2-4 ns more busy
//! time than no shared write at all).

use super::Regime;
use crate::clock::Timer;
use std::time::Duration;

/// Lateness the pacer makes up by running due operations back to back;
/// slots further behind are skipped and counted as missed. One millisecond
/// covers a timer tick or an interrupt, not a preemption.
pub const CATCH_UP: Duration = Duration::from_millis(1);

/// A source of ticks for the pacer: the run's timer, or a fake in tests.
pub trait Ticks {
    /// The current time in ticks.
    fn now(&mut self) -> u64;
    /// Ticks per second.
    fn ticks_per_sec(&self) -> f64;
}

impl Ticks for Timer {
    /// Fenced: completes after every earlier instruction (see the module
    /// documentation).
    #[inline(always)]
    fn now(&mut self) -> u64 {
        self.end()
    }
    fn ticks_per_sec(&self) -> f64 {
        Timer::ticks_per_sec(*self)
    }
}

/// Holds a thread to a requested number of operations per second.
#[derive(Debug, Clone, Copy)]
pub struct Pacer<T: Ticks = Timer> {
    ticks: T,
    /// Ticks between two operations (fractional: deadlines are computed
    /// from the slot number, so rounding never accumulates).
    period: f64,
    /// Lateness made up, in ticks.
    catch_up: u64,
    /// Tick of slot 0; `None` before the first operation.
    start: Option<u64>,
    /// The next slot to run.
    slot: u64,
    /// Slots skipped after stalls.
    missed: u64,
    /// Ticks spent waiting for a deadline.
    waited: u64,
}

impl Pacer<Timer> {
    /// The pacer of `regime` on `timer`: `None` flat out; paced, one slot
    /// per period at its rate (evenly spaced: the arrivals `contend run
    /// --rate` measures).
    pub fn of(timer: Timer, regime: Regime) -> Option<Self> {
        regime.rate().map(|rate| Pacer::with_ticks(timer, rate))
    }
}

impl<T: Ticks> Pacer<T> {
    /// A pacer for `rate` operations per second reading `ticks`.
    pub fn with_ticks(ticks: T, rate: f64) -> Self {
        let hz = ticks.ticks_per_sec();
        Pacer {
            period: (hz / rate).max(1.0),
            catch_up: (CATCH_UP.as_secs_f64() * hz) as u64,
            ticks,
            start: None,
            slot: 0,
            missed: 0,
            waited: 0,
        }
    }

    /// Waits until the next operation is due (at once if it is already,
    /// or if the pacer is making up lateness).
    #[inline(always)]
    pub fn wait(&mut self) {
        let now = self.ticks.now();
        let Some(start) = self.start else {
            self.start = Some(now);
            self.slot = 1;
            return;
        };
        let due = start + (self.slot as f64 * self.period) as u64;
        if now < due {
            self.spin_until(now, due);
        } else if now - due > self.catch_up {
            // A stall: skip the slots that fell due meanwhile, so the next
            // operation is the first slot after now, not a burst.
            let behind = ((now - due) as f64 / self.period) as u64;
            self.missed += behind;
            self.slot += behind;
        }
        self.slot += 1;
    }

    #[inline(never)]
    fn spin_until(&mut self, mut now: u64, due: u64) {
        let began = now;
        while now < due {
            std::hint::spin_loop();
            now = self.ticks.now();
        }
        self.waited += now - began;
    }

    /// Slots skipped after stalls since the last [`Pacer::reset_counts`].
    pub fn missed(&self) -> u64 {
        self.missed
    }

    /// Ticks spent waiting since the last [`Pacer::reset_counts`].
    pub fn waited_ticks(&self) -> u64 {
        self.waited
    }

    /// Seconds spent waiting since the last [`Pacer::reset_counts`].
    pub fn waited_s(&self) -> f64 {
        self.waited as f64 / self.ticks.ticks_per_sec()
    }

    /// Forgets missed slots and waits (end of warm-up); deadlines stay.
    pub fn reset_counts(&mut self) {
        self.missed = 0;
        self.waited = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock that advances by `step` ticks on every read, and jumps when
    /// told: a deterministic stand-in for the TSC (1 tick = 1 ns).
    struct FakeTicks {
        now: u64,
        step: u64,
    }

    impl Ticks for FakeTicks {
        fn now(&mut self) -> u64 {
            self.now += self.step;
            self.now
        }
        fn ticks_per_sec(&self) -> f64 {
            1e9
        }
    }

    fn pacer(rate: f64, step: u64) -> Pacer<FakeTicks> {
        Pacer::with_ticks(FakeTicks { now: 0, step }, rate)
    }

    /// A clock that returns the readings it is given, in order (1 tick =
    /// 1 ns), then keeps returning the last one plus a tick per read.
    struct ScriptedTicks(std::collections::VecDeque<u64>, u64);

    impl Ticks for ScriptedTicks {
        fn now(&mut self) -> u64 {
            self.1 = self.0.pop_front().unwrap_or(self.1 + 1);
            self.1
        }
        fn ticks_per_sec(&self) -> f64 {
            1e9
        }
    }

    fn scripted(rate: f64, readings: &[u64]) -> Pacer<ScriptedTicks> {
        Pacer::with_ticks(ScriptedTicks(readings.iter().copied().collect(), 0), rate)
    }

    #[test]
    fn lateness_of_exactly_the_catch_up_is_made_up_not_skipped() {
        // 1M/s: slot 1 is due at 1,000. Read 1,001,000: late by exactly
        // CATCH_UP (1 ms), which is still made up.
        let mut p = scripted(1e6, &[0, 1_001_000]);
        p.wait();
        p.wait();
        assert_eq!((p.missed(), p.slot), (0, 2));
        // One tick more is a stall: the 1,000 slots due meanwhile are
        // skipped.
        let mut p = scripted(1e6, &[0, 1_001_001]);
        p.wait();
        p.wait();
        assert_eq!((p.missed(), p.slot), (1_000, 1_002));
    }

    #[test]
    fn a_wait_spins_until_its_deadline_and_counts_exactly_that() {
        // Slot 1 due at 1,000: read at 500, spin, read 1,000 (due: stop).
        let mut p = scripted(1e6, &[0, 500, 1_000, 1_010]);
        p.wait();
        p.wait();
        assert_eq!(p.waited_ticks(), 500);
        // Slot 2 due at 2,000, read exactly then: no wait at all.
        let mut p = scripted(1e6, &[0, 1_000, 2_000]);
        p.wait();
        p.wait();
        p.wait();
        assert_eq!((p.waited_ticks(), p.missed()), (0, 0));
    }

    #[test]
    fn deadlines_are_absolute_and_late_work_is_made_up() {
        // 1M/s: one operation per 1000 ns. Each clock read costs 10 ns.
        let mut p = pacer(1e6, 10);
        p.wait(); // slot 0 at t=10
        let t0 = p.start.unwrap();
        for _ in 1..100 {
            p.wait();
        }
        // 100 operations due at t0 + 0 .. t0 + 99_000: the 100th wait ends
        // within one clock read of its deadline.
        assert!(p.ticks.now >= t0 + 99_000 && p.ticks.now <= t0 + 99_010 + 10);
        // Late by 50 us (under the 1 ms catch-up): the next operations run
        // at once until the deadlines pass now again, then pace.
        p.ticks.now += 50_000;
        let before = p.ticks.now;
        for _ in 0..50 {
            p.wait();
        }
        assert!(p.ticks.now - before < 1_000, "made up 50 slots at once");
        assert_eq!(p.missed(), 0);
        p.wait();
        p.wait();
        assert!(
            p.ticks.now >= t0 + 151_000,
            "pacing again after catching up"
        );
    }

    #[test]
    fn a_long_stall_is_skipped_and_counted_not_burst() {
        let mut p = pacer(1e6, 10);
        for _ in 0..10 {
            p.wait();
        }
        p.reset_counts();
        // A 5 ms preemption: 5000 slots fell due.
        p.ticks.now += 5_000_000;
        p.wait();
        let missed = p.missed();
        assert!((4_990..=5_000).contains(&missed), "missed {missed}");
        // No burst: the next operation waits for its own deadline.
        let before = p.ticks.now;
        p.wait();
        assert!(p.ticks.now - before >= 500, "burst after a stall");
        assert!(p.waited_ticks() > 0);
    }

    #[test]
    fn an_operations_time_between_waits_is_busy_not_waiting() {
        // 1M/s: a slot every 1,000 ticks; each clock read costs 1 tick and
        // each operation 300 (a transfer's stall, which the fenced read
        // after it sees). Over 100 slots the pacer waits the other 700 a
        // slot less its own reads: busy = interval - waited = 300 + reads.
        let mut p = pacer(1e6, 1);
        p.wait();
        let start = p.ticks.now;
        for _ in 0..100 {
            p.ticks.now += 300;
            p.wait();
        }
        let (interval, waited) = (p.ticks.now - start, p.waited_ticks());
        let busy_per_op = (interval - waited) as f64 / 100.0;
        assert!((301.0..=303.0).contains(&busy_per_op), "{busy_per_op}");
        assert_eq!(p.missed(), 0);
    }

    #[test]
    fn waits_are_counted_and_reset() {
        let mut p = pacer(1e6, 10);
        for _ in 0..1_001 {
            p.wait();
        }
        // 1000 periods of 1000 ns, each read costing 10 ns of work: nearly
        // all of it was waiting.
        let waited = p.waited_ticks();
        assert!((980_000..=1_000_000).contains(&waited), "waited {waited}");
        assert!((p.waited_s() - waited as f64 * 1e-9).abs() < 1e-12);
        p.reset_counts();
        assert_eq!((p.waited_ticks(), p.missed()), (0, 0));
    }

    #[test]
    fn a_fractional_period_does_not_drift() {
        // 3 operations per microsecond at 1 tick/ns: 333.33 ticks apart.
        let mut p = pacer(3e6, 7);
        p.wait();
        let t0 = p.start.unwrap();
        for _ in 1..=30_000 {
            p.wait();
        }
        // Slot 30,000 is due at exactly t0 + 10 ms; a rounded period of 333
        // would have ended 10 us early, 334 20 us late.
        let late = p.ticks.now - (t0 + 10_000_000);
        assert!(late <= 7, "late by {late} ticks");
    }

    #[test]
    fn the_real_timer_paces_at_the_rate() {
        let mut p = Pacer::of(Timer::Monotonic, Regime::paced(10_000.0)).unwrap(); // every 100 us
        let t0 = std::time::Instant::now();
        for _ in 0..101 {
            p.wait();
        }
        let elapsed = t0.elapsed().as_secs_f64();
        // 100 periods: at least 10 ms (deadlines are absolute); the upper
        // bound only catches a pacer that waits far too long, with room
        // for a loaded machine.
        assert!(
            (0.0099..0.25).contains(&elapsed),
            "101 ops at 10k/s took {elapsed} s"
        );
    }
}
