//! Pacing a thread to a requested operation rate (`--rate`), exactly, and timing what the thread
//! does between its waits.

use super::{Arrivals, Regime};
use crate::clock::Timer;
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::time::Duration;

/// Lateness the pacer makes up by running due operations back to back.
pub const CATCH_UP: Duration = Duration::from_millis(1);

/// A busy window, or a late wake-up, longer than this is a stall.
pub const STALL: Duration = Duration::from_micros(20);

/// A source of ticks for the pacer: the run's timer, or a fake in tests.
pub trait Ticks {
    /// The current time in ticks, after every earlier instruction.
    fn now(&mut self) -> u64;
    /// The current time in ticks, before every later instruction: the start of a busy window.
    fn start(&mut self) -> u64;
    /// Ticks per second.
    fn ticks_per_sec(&self) -> f64;
}

impl Ticks for Timer {
    /// Fenced: completes after every earlier instruction (see the module documentation).
    #[inline(always)]
    fn now(&mut self) -> u64 {
        self.end()
    }
    /// Fenced on both sides, as [`Timer::start`].
    #[inline(always)]
    fn start(&mut self) -> u64 {
        Timer::start(*self)
    }
    fn ticks_per_sec(&self) -> f64 {
        Timer::ticks_per_sec(*self)
    }
}

/// What a paced thread's operations took between its waits, in ticks of its timer, since the last
/// [`Pacer::reset_counts`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BusyTime {
    /// Ticks inside the windows of unsampled operations that were not stalls.
    pub ticks: u64,
    /// Operations those windows timed.
    pub ops: u64,
    /// Stalls set aside: windows longer than [`STALL`], and wake-ups more than [`STALL`] late.
    pub stalls: u64,
    /// Ticks lost to those stalls.
    pub stall_ticks: u64,
}

impl BusyTime {
    fn stall(&mut self, ticks: u64) {
        self.stalls += 1;
        self.stall_ticks += ticks;
    }

    /// Adds one window of `window` ticks.
    #[inline(always)]
    fn add(&mut self, window: u64, stall: u64, counted: bool) {
        if window > stall {
            self.stall(window);
        } else if counted {
            self.ticks += window;
            self.ops += 1;
        }
    }
}

/// When the slots fall due, from the start, in ticks.
#[derive(Debug, Clone)]
enum Gaps {
    /// Slot k at k × period (computed from the slot number, so rounding never accumulates).
    Even,
    /// Exponential gaps of mean period.
    Exponential {
        rng: Box<Xoshiro256PlusPlus>,
        next: f64,
    },
}

/// Holds a thread to a requested number of operations per second, and times its operations between
/// waits ([`BusyTime`]).
#[derive(Debug, Clone)]
pub struct Pacer<T: Ticks = Timer> {
    ticks: T,
    /// Ticks between two operations, mean (fractional).
    period: f64,
    /// How the slots fall.
    gaps: Gaps,
    /// Lateness made up, in ticks.
    catch_up: u64,
    /// [`STALL`] in ticks.
    stall: u64,
    /// Tick of slot 0; `None` before the first operation.
    start: Option<u64>,
    /// The next slot to run.
    slot: u64,
    /// Slots skipped after stalls.
    missed: u64,
    /// The end of the last busy window.
    last_end: u64,
    busy: BusyTime,
    /// The tick the last released slot fell due.
    due: u64,
    /// What the floor operations took ([`Pacer::wait_floor`]).
    floor: BusyTime,
    /// The share of the time to the next slot this pacer's slots own.
    spacing: f64,
}

impl Pacer<Timer> {
    /// The pacer of `regime` on `timer`: `None` flat out.
    pub fn of(timer: Timer, regime: Regime, stream: u64) -> Option<Self> {
        let Regime::Paced { rate, arrivals } = regime else {
            return None;
        };
        Some(Pacer::with_ticks(timer, rate, arrivals, stream))
    }
}

/// The generator stream of one thread's arrivals.
pub fn arrivals_stream(seed: u64, role: u64, index: u64) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (role << 32) ^ index
}

/// A thread's relative phase in one repeat, a fraction of the period in [0, 1).
pub fn phase_of(seed: u64, repeat: u64, stream: u64) -> f64 {
    let mixed = seed ^ repeat.wrapping_add(1).wrapping_mul(0xD1B5_4A32_D192_ED03) ^ stream;
    unit_open(Xoshiro256PlusPlus::seed_from_u64(mixed).next_u64()) % 1.0
}

/// One exponential gap of mean 1 from `rng`: −ln U with U uniform in (0, 1].
fn exponential(rng: &mut Xoshiro256PlusPlus) -> f64 {
    -unit_open(rng.next_u64()).ln()
}

/// The top 53 bits of `bits` as a number in (0, 1]: k + 1 over 2⁵³, so 0 never comes out.
fn unit_open(bits: u64) -> f64 {
    ((bits >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
}

impl<T: Ticks> Pacer<T> {
    /// A pacer for `rate` operations per second reading `ticks`, its slots falling as `arrivals`
    /// says (poisson: gaps from generator `stream`).
    pub fn with_ticks(ticks: T, rate: f64, arrivals: Arrivals, stream: u64) -> Self {
        let hz = ticks.ticks_per_sec();
        let period = (hz / rate).max(1.0);
        let gaps = match arrivals {
            Arrivals::Paced => Gaps::Even,
            Arrivals::Poisson => {
                let mut rng = Box::new(Xoshiro256PlusPlus::seed_from_u64(stream));
                let next = period * exponential(&mut rng);
                Gaps::Exponential { rng, next }
            }
        };
        Pacer {
            gaps,
            period,
            catch_up: (CATCH_UP.as_secs_f64() * hz) as u64,
            stall: (STALL.as_secs_f64() * hz) as u64,
            ticks,
            start: None,
            slot: 0,
            missed: 0,
            last_end: 0,
            busy: BusyTime::default(),
            due: 0,
            floor: BusyTime::default(),
            spacing: 1.0,
        }
    }

    /// Anchors slot 0 on a grid every thread shares.
    pub fn anchor(&mut self, now: u64, phase: f64, spacing: f64) {
        self.spacing = spacing.clamp(f64::MIN_POSITIVE, 1.0);
        let grid = ((now as f64 / self.period).floor() + 1.0) * self.period;
        self.start = Some((grid + phase * self.period) as u64);
        (self.last_end, self.due) = (now, now);
    }

    /// The tick the next slot falls due; `None` before the first wait of a pacer not anchored.
    pub fn next_at(&self) -> Option<u64> {
        let offset = match &self.gaps {
            Gaps::Even => self.slot as f64 * self.period,
            Gaps::Exponential { next, .. } => *next,
        };
        Some(self.start? + offset as u64)
    }

    /// The offset from the start of the slot being waited for, ticks; and moves on to the next.
    #[inline(always)]
    fn next_due(&mut self) -> f64 {
        let slot = self.slot;
        self.slot += 1;
        match &mut self.gaps {
            Gaps::Even => slot as f64 * self.period,
            Gaps::Exponential { rng, next } => {
                let due = *next;
                *next += self.period * exponential(rng);
                due
            }
        }
    }

    /// Waits until the next operation is due (at once if it is already, or if the pacer is making
    /// up lateness) and returns the fenced tick that released it: the start of its busy window.
    #[inline(always)]
    pub fn wait(&mut self) -> u64 {
        self.pace();
        self.ticks.start()
    }

    /// The pacing of [`Pacer::wait`]: spins to the next deadline, or records how late it is.
    #[inline(always)]
    fn pace(&mut self) {
        let now = self.ticks.now();
        let Some(start) = self.start else {
            self.start = Some(now);
            self.slot = 1;
            (self.last_end, self.due) = (now, now);
            return;
        };
        let due = start + self.next_due() as u64;
        self.due = due;
        let now = if now < due { self.spin_until(due) } else { now };
        if now - due > self.stall {
            self.late(now, due);
        }
    }

    /// A release at `now`, more than [`STALL`] after the slot's deadline `due`.
    #[inline(never)]
    fn late(&mut self, now: u64, due: u64) {
        let lost = now.saturating_sub(due.max(self.last_end));
        if lost > self.stall {
            self.busy.stall(lost);
        }
        if now - due > self.catch_up {
            let behind = match &mut self.gaps {
                Gaps::Even => {
                    let behind = ((now - due) as f64 / self.period) as u64;
                    self.slot += behind;
                    behind
                }
                Gaps::Exponential { rng, next } => {
                    let (start, mut behind) = (self.start.unwrap_or(0) as f64, 0);
                    while start + *next < now as f64 {
                        *next += self.period * exponential(rng);
                        behind += 1;
                    }
                    self.slot += behind;
                    behind
                }
            };
            self.missed += behind;
        }
    }

    /// Spins until `due`; returns the tick it saw then.
    #[inline(never)]
    fn spin_until(&mut self, due: u64) -> u64 {
        loop {
            std::hint::spin_loop();
            let now = self.ticks.now();
            if now >= due {
                return now;
            }
        }
    }

    /// Ends the busy window of the operation released at `released` ([`Pacer::wait`]'s tick) with a
    /// fenced read.
    #[inline(always)]
    pub fn done(&mut self, released: u64, unsampled: bool) {
        let window = self.end_window(released);
        self.busy.add(window, self.stall, unsampled);
    }

    /// Reads the fenced tick that ends a window opened at `released`; returns the window, ticks.
    #[inline(always)]
    fn end_window(&mut self, released: u64) -> u64 {
        let end = self.ticks.now();
        self.last_end = end;
        end.saturating_sub(released)
    }

    /// Waits until half a slot before the next slot ([`Pacer::anchor`] in place) and returns the
    /// fenced tick that released the thread's floor operation: the start of its window.
    #[inline(always)]
    pub fn wait_floor(&mut self) -> u64 {
        if let Some(next) = self.next_at() {
            let gap = match &self.gaps {
                Gaps::Even => self.period,
                Gaps::Exponential { .. } => next.saturating_sub(self.due) as f64,
            };
            let due = next.saturating_sub((gap / 2.0 * self.spacing) as u64);
            if self.ticks.now() < due {
                self.spin_until(due);
            }
        }
        self.ticks.start()
    }

    /// Ends the floor operation's window released at `released`.
    #[inline(always)]
    pub fn floor_done(&mut self, released: u64, counted: bool) {
        let window = self.end_window(released);
        self.floor.add(window, self.stall, counted);
    }

    /// What the floor operations took since the last [`Pacer::reset_counts`] (zero when none ran).
    pub fn floor_busy(&self) -> BusyTime {
        self.floor
    }

    /// Slots skipped after stalls since the last [`Pacer::reset_counts`].
    pub fn missed(&self) -> u64 {
        self.missed
    }

    /// Busy time and stalls since the last [`Pacer::reset_counts`].
    pub fn busy(&self) -> BusyTime {
        self.busy
    }

    /// Forgets missed slots, busy time, the floor's and stalls (end of warm-up); deadlines stay.
    pub fn reset_counts(&mut self) {
        self.missed = 0;
        self.busy = BusyTime::default();
        self.floor = BusyTime::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock (1 tick = 1 ns) that returns the readings of `script` in order, then advances by
    /// `step` a read; a window start is free (the last reading). A deterministic stand-in for the TSC.
    struct FakeTicks {
        script: std::collections::VecDeque<u64>,
        now: u64,
        step: u64,
    }

    impl Ticks for FakeTicks {
        fn now(&mut self) -> u64 {
            self.now = self.script.pop_front().unwrap_or(self.now + self.step);
            self.now
        }
        fn start(&mut self) -> u64 {
            self.now
        }
        fn ticks_per_sec(&self) -> f64 {
            1e9
        }
    }

    fn ticks(step: u64) -> FakeTicks {
        FakeTicks {
            script: Default::default(),
            now: 0,
            step,
        }
    }

    fn pacer(rate: f64, step: u64) -> Pacer<FakeTicks> {
        Pacer::with_ticks(ticks(step), rate, Arrivals::Paced, 0)
    }

    fn scripted(rate: f64, readings: &[u64]) -> Pacer<FakeTicks> {
        let script = readings.iter().copied().collect();
        Pacer::with_ticks(FakeTicks { script, ..ticks(1) }, rate, Arrivals::Paced, 0)
    }

    /// A scripted pacer at 1M/s after its first `waits` waits.
    fn waited(waits: usize, readings: &[u64]) -> Pacer<FakeTicks> {
        let mut p = scripted(1e6, readings);
        wait_n(&mut p, waits);
        p
    }

    /// `n` waits of `p`.
    fn wait_n<T: Ticks>(p: &mut Pacer<T>, n: usize) {
        (0..n).for_each(|_| _ = p.wait());
    }

    /// Ticks, operations, stalls and their ticks.
    fn busy(b: BusyTime) -> (u64, u64, u64, u64) {
        (b.ticks, b.ops, b.stalls, b.stall_ticks)
    }

    #[test]
    fn lateness_up_to_the_catch_up_is_made_up_and_a_stall_past_it_skipped() {
        // 1M/s: slot 1 is due at 1,000. Read 1,001,000: late by exactly CATCH_UP (1 ms), which is
        // still made up; one tick more is a stall: the 1,000 slots due meanwhile are skipped.
        let p = waited(2, &[0, 1_001_000]);
        assert_eq!((p.missed(), p.slot), (0, 2));
        let p = waited(2, &[0, 1_001_001]);
        assert_eq!((p.missed(), p.slot), (1_000, 1_002));
        // 1M/s: slot 1 due at 1,000. Spinning at 500, the thread is preempted and next reads
        // 3,001,000: 3 ms late, one stall of 3,000,000 ticks, the slots due meanwhile skipped.
        let mut p = waited(1, &[0, 500, 3_001_000]);
        assert_eq!(p.wait(), 3_001_000);
        assert_eq!((busy(p.busy()), p.missed()), ((0, 0, 1, 3_000_000), 3_000));
        // Spinning past the deadline by 20 µs or less is not a stall.
        let p = waited(2, &[0, 500, 21_000]);
        assert_eq!((p.busy().stalls, p.missed()), (0, 0));
    }

    #[test]
    fn a_wait_spins_to_its_absolute_deadline_that_does_not_drift_and_late_work_is_made_up() {
        // Slot 1 due at 1,000: read at 500, spin, read 1,000 (due: stop).
        let mut p = scripted(1e6, &[0, 500, 1_000, 1_010]);
        assert_eq!([p.wait(), p.wait()], [0, 1_000]);
        // Slot 2 due at 2,000, read exactly then: released at once.
        let mut p = scripted(1e6, &[0, 1_000, 2_000]);
        assert_eq!([p.wait(), p.wait(), p.wait()], [0, 1_000, 2_000]);
        assert_eq!((p.busy(), p.missed()), (BusyTime::default(), 0));
        // 1M/s: one operation per 1000 ns. Each clock read costs 10 ns.
        let mut p = pacer(1e6, 10);
        p.wait(); // slot 0 at t=10
        let t0 = p.start.unwrap();
        wait_n(&mut p, 99);
        // 100 operations due at t0 + 0 .. t0 + 99_000: the 100th wait ends within one clock read of
        // its deadline.
        assert!(p.ticks.now >= t0 + 99_000 && p.ticks.now <= t0 + 99_010 + 10);
        // Late by 50 us (under the 1 ms catch-up): the next operations run at once until the
        // deadlines pass now again, then pace.
        p.ticks.now += 50_000;
        let before = p.ticks.now;
        wait_n(&mut p, 50);
        assert!(p.ticks.now - before < 1_000, "made up 50 slots at once");
        assert_eq!(p.missed(), 0);
        p.wait();
        p.wait();
        assert!(p.ticks.now >= t0 + 151_000, "not pacing after catching up");
        // 3 operations per microsecond at 1 tick/ns: 333.33 ticks apart.
        let mut p = pacer(3e6, 7);
        p.wait();
        let t0 = p.start.unwrap();
        wait_n(&mut p, 30_000);
        // Slot 30,000 is due at exactly t0 + 10 ms; a rounded period of 333 would have ended 10 us
        // early, 334 20 us late.
        let late = p.ticks.now - (t0 + 10_000_000);
        assert!(late <= 7, "late by {late} ticks");
    }

    #[test]
    fn an_anchored_pacer_starts_on_the_shared_grid_at_its_phase() {
        // 1M/s (period 1,000): anchored at 2,500 with phase 0.25, slot 0 falls on the next boundary
        // (3,000) plus 250; slot 1 a period on.
        let mut p = scripted(1e6, &[2_600, 3_250, 3_300, 4_250]);
        assert_eq!(p.next_at(), None);
        p.anchor(2_500, 0.25, 1.0);
        assert_eq!(p.next_at(), Some(3_250));
        assert_eq!([p.wait(), p.wait()], [3_250, 4_250]);
        assert_eq!(p.next_at(), Some(5_250));
        // One of 4 in place: its floor half a share (125 ticks) before each of its slots, after the
        // slot of the lane before (3,000 + 0 and 4,000 + 0, a quarter of the period earlier).
        let readings = [2_600, 3_125, 3_200, 3_250, 3_260, 4_125, 4_200, 4_250];
        let mut p = scripted(1e6, &readings);
        p.anchor(2_500, 0.25, 0.25);
        let released = [p.wait_floor(), p.wait(), p.wait_floor(), p.wait()];
        assert_eq!(released, [3_125, 3_250, 4_125, 4_250]);
        // Not anchored, before its first slot: at once, without waiting (no reading taken), and the
        // first slot starts the pacer.
        let mut p = scripted(1e6, &[10, 11]);
        p.wait_floor();
        assert_eq!(p.wait(), 10);
        // A phase is a fraction of the period, replayed by its seed and differing between repeats
        // and threads.
        let phases: Vec<f64> = (0..4).map(|r| phase_of(7, r, 0)).collect();
        assert!(phases.iter().all(|f| (0.0..1.0).contains(f)), "{phases:?}");
        assert_eq!(phase_of(7, 1, 0), phases[1]);
        assert_ne!(phases[0], phases[1]);
        assert_ne!(phase_of(7, 0, 1), phases[0]);
    }

    #[test]
    fn the_floor_is_released_half_way_to_the_next_slot_even_or_poisson_and_timed_apart() {
        // 1M/s: slot 1 due at 1,000, slot 2 at 2,000. The floor after slot 1 is due at 1,500: read
        // 1,200 (spin), 1,500 (go); its window ends at 1,560 and is the floor's, not busy time.
        let mut p = waited(1, &[0, 1_000, 1_040, 1_200, 1_500, 1_560]);
        let released = p.wait();
        p.done(released, true);
        assert_eq!(p.wait_floor(), 1_500);
        p.floor_done(1_500, true);
        assert_eq!(busy(p.busy()), (40, 1, 0, 0));
        assert_eq!(busy(p.floor_busy()), (60, 1, 0, 0));
        // Past its time (the update ran late): released at once; a window of a sampled update's
        // floor is not counted; one over STALL is a stall of the floor's.
        let mut p = waited(1, &[0, 1_000, 1_700, 1_700, 1_750]);
        let released = p.wait();
        p.done(released, false);
        assert_eq!(p.wait_floor(), 1_700);
        p.floor_done(1_700, false);
        assert_eq!(p.floor_busy(), BusyTime::default());
        // A window of 29,500 is a stall; one of exactly STALL (20 us) is still the floor's time.
        for (end, want) in [(30_000, (0, 0, 1, 29_500)), (20_500, (20_000, 1, 0, 0))] {
            let mut p = waited(1, &[0, 500, end]);
            let released = p.wait_floor();
            p.floor_done(released, true);
            assert_eq!(busy(p.floor_busy()), want, "{end}");
            p.reset_counts();
            assert_eq!(p.floor_busy(), BusyTime::default());
        }
        // Exponential gaps: the floor before each slot is due half way from the last slot's
        // deadline to its own, whatever the gap (the half rounded down, then taken from the next
        // deadline).
        let mut p = Pacer::with_ticks(ticks(1), 1e6, Arrivals::Poisson, 7);
        p.wait();
        let mut waited = 0;
        for _ in 0..50 {
            p.wait();
            let (due, start, now) = (p.due, p.start.unwrap(), p.ticks.now);
            let Gaps::Exponential { next, .. } = &p.gaps else {
                unreachable!()
            };
            let next_due = (start as f64 + next) as u64;
            let at = next_due - ((next_due - due) as f64 / 2.0) as u64;
            let released = p.wait_floor();
            // Released exactly then (each read is one tick), or at the next read when that time has
            // passed.
            if at > now + 1 {
                assert_eq!(released, at, "due {due}, now {now}");
                waited += 1;
            } else {
                assert_eq!(released, now + 1, "due {due}, at {at}");
            }
        }
        // Gaps of mean 1,000 ticks: nearly every floor waited.
        assert!(waited > 40, "{waited}");
    }

    #[test]
    fn a_long_stall_is_skipped_and_counted_not_burst_even_or_poisson() {
        let mut p = pacer(1e6, 10);
        wait_n(&mut p, 10);
        p.reset_counts();
        // A 5 ms preemption: 5000 slots fell due.
        p.ticks.now += 5_000_000;
        p.wait();
        let missed = p.missed();
        assert!((4_990..=5_000).contains(&missed), "missed {missed}");
        // Its time is one stall, not busy time.
        let b = p.busy();
        assert_eq!((b.stalls, b.ops, b.ticks), (1, 0, 0));
        assert!((4_990_000..=5_000_010).contains(&b.stall_ticks), "{b:?}");
        // No burst: the next operation waits for its own deadline.
        let before = p.ticks.now;
        p.wait();
        assert!(p.ticks.now - before >= 500, "burst after a stall");
        // 1M/s poisson: a 5 ms preemption lets about 5,000 arrivals fall due (a Poisson count:
        // within ±5σ = ±354); each is counted missed, none is run, and the next release is after
        // the stall.
        let mut p = Pacer::with_ticks(ticks(1), 1e6, Arrivals::Poisson, 5);
        wait_n(&mut p, 10);
        p.reset_counts();
        p.ticks.now += 5_000_000;
        let resumed = p.ticks.now;
        p.wait();
        let missed = p.missed();
        assert!((4_646..=5_354).contains(&missed), "missed {missed}");
        assert_eq!(p.busy().stalls, 1);
        let next = p.wait();
        assert!(next > resumed, "{next} after {resumed}");
    }
    #[test]
    fn busy_time_is_the_windows_between_release_and_done_less_stalls_and_reset_alone() {
        // 1M/s: a slot every 1,000 ticks; each clock read costs 1 tick and each operation 300 (a
        // transfer's stall, which the fenced read after it sees). Busy time is exactly the windows:
        // 300 + the end read, whatever the loop does outside them.
        let mut p = pacer(1e6, 1);
        for _ in 0..100 {
            let released = p.wait();
            p.ticks.now += 300;
            p.done(released, true);
            p.ticks.now += 200; // bookkeeping after the window
        }
        let b = p.busy();
        assert_eq!((b.ops, b.ticks, b.stalls), (100, 100 * 301, 0));
        assert_eq!(p.missed(), 0);
        // A sampled operation's window is left out of busy time.
        let released = p.wait();
        p.done(released, false);
        assert_eq!((p.busy().ops, p.busy().ticks), (100, 100 * 301));
        // 10k/s at 1 tick/ns: a slot every 100,000 ticks; STALL is 20,000.
        let mut p = scripted(1e4, &[0, 100_000, 119_000]);
        p.wait();
        let released = p.wait();
        p.done(released, true); // 19,000: long, but busy
        assert_eq!((p.busy().ops, p.busy().ticks), (1, 19_000));
        // Released at 200,000 and preempted 2 ms inside the window: one stall of the window's
        // length. The late wake-up after it lost only the 5,000 ticks since the window ended, under
        // the bound.
        let mut p = scripted(1e4, &[0, 100_000, 200_000, 2_200_000, 2_205_000]);
        p.wait();
        p.wait();
        let released = p.wait();
        p.done(released, true);
        p.wait();
        assert_eq!(busy(p.busy()), (0, 0, 1, 2_000_000));
        assert!(p.missed() > 0);
        // Woken 30,000 after its deadline with the last window long over: a stall of those 30,000,
        // under the catch-up (nothing missed).
        let mut p = scripted(1e4, &[0, 130_000]);
        p.wait();
        p.wait();
        assert_eq!((busy(p.busy()), p.missed()), ((0, 0, 1, 30_000), 0));
        let mut p = waited(1, &[0, 1_000, 1_300, 2_000_000, 2_000_100]);
        let released = p.wait();
        p.done(released, true);
        p.wait(); // 2 ms late: a stall, slots skipped
        assert_ne!((p.busy(), p.missed()), (BusyTime::default(), 0));
        p.reset_counts();
        assert_eq!((p.busy(), p.missed()), (BusyTime::default(), 0));
        // Slot numbering went on: the next slot is due after 2,000,000.
        assert!(p.start == Some(0) && p.slot > 2_000);
    }

    /// The mean and the coefficient of variation of `gaps`.
    fn mean_cv(gaps: &[f64]) -> (f64, f64) {
        let n = gaps.len() as f64;
        let mean = gaps.iter().sum::<f64>() / n;
        let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n).sqrt();
        (mean, sd / mean)
    }

    /// The release ticks of `n` slots of a poisson pacer at 1M/s (mean gap 1,000 ticks) on
    /// generator `stream`, each clock read 1 tick.
    fn poisson_releases(stream: u64, n: usize) -> Vec<u64> {
        let mut p = Pacer::with_ticks(ticks(1), 1e6, Arrivals::Poisson, stream);
        (0..n).map(|_| p.wait()).collect()
    }

    #[test]
    fn poisson_gaps_are_exponential_at_the_mean_rate_from_the_first() {
        // 100,000 gaps of an exponential of mean 1,000: the mean within 1% (its standard error is
        // 0.3%), the standard deviation equal to the mean (CV 1, where an even pacer's is 0), and a
        // fraction 1 − e⁻¹ = 0.632 of the gaps below the mean.
        let t = poisson_releases(7, 100_001);
        let gaps: Vec<f64> = t.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
        let (mean, cv) = mean_cv(&gaps);
        let below = gaps.iter().filter(|&&g| g < 1000.0).count() as f64 / gaps.len() as f64;
        assert!((mean - 1000.0).abs() < 10.0, "mean gap {mean}");
        assert!((cv - 1.0).abs() < 0.02, "CV {cv}");
        assert!((below - (1.0 - (-1f64).exp())).abs() < 0.01, "{below}");
        // Gaps shorter than a clock read are run back to back, not lost: every slot is released and
        // none is missed.
        assert_eq!(t.len(), 100_001);
        // The first gap of 2,000 streams, each seeded before its pacer started: exponential of mean
        // 1,000 ticks (the mean within 8%, 3.6 standard errors; CV 1 within 0.1), the streams' gaps
        // as varied as whole ticks let them be (not one gap for all).
        let first: Vec<f64> = (0..2000)
            .map(|stream| {
                let t = poisson_releases(stream, 2);
                (t[1] - t[0]) as f64
            })
            .collect();
        let (mean, cv) = mean_cv(&first);
        assert!((mean - 1000.0).abs() < 80.0, "mean first gap {mean}");
        assert!((cv - 1.0).abs() < 0.1, "CV {cv}");
        let mut distinct = first.clone();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        assert!(distinct.len() > 1000, "{} distinct", distinct.len());
    }

    #[test]
    fn a_stream_replays_its_arrivals_streams_differ_and_no_gap_is_infinite() {
        assert_eq!(poisson_releases(3, 1000), poisson_releases(3, 1000));
        assert_ne!(poisson_releases(3, 1000), poisson_releases(4, 1000));
        assert_ne!(arrivals_stream(1, 0, 0), arrivals_stream(1, 1, 0));
        assert_ne!(arrivals_stream(1, 0, 0), arrivals_stream(1, 0, 1));
        assert_ne!(arrivals_stream(1, 0, 0), arrivals_stream(2, 0, 0));
        // An even pacer has no stream: seeding leaves its slots as they are.
        let mut even = Pacer::with_ticks(ticks(1), 1e6, Arrivals::Paced, 9);
        let t: Vec<u64> = (0..4).map(|_| even.wait()).collect();
        assert_eq!(t, [1, 1_001, 2_001, 3_001]);
        // The smallest draw is 2⁻⁵³ (a gap of 36.7 periods), the largest exactly 1 (a gap of 0).
        assert_eq!(unit_open(0), 1.0 / (1u64 << 53) as f64);
        assert_eq!(unit_open(u64::MAX), 1.0);
        assert_eq!(unit_open(1 << 11), 2.0 / (1u64 << 53) as f64);
        assert!((-unit_open(0).ln() - 53.0 * std::f64::consts::LN_2).abs() < 1e-9);
    }
}
