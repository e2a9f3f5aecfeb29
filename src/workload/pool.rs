//! One repeat: pinned writer and reader threads that start together at a
//! barrier, warm up, count over the same measured interval, and stop.

use super::work::{InPlaceFloor, Probing, ReaderWork, Sampling, Work, WriterWork};
use super::{BusyTime, LoadWalk, Mirror, Pacer, Regime, StalenessSamples, arrivals_stream};
use crate::clock::{Clock, ClockKind, CoarseClock, MonotonicClock, Timer, TscClock};
use crate::counter::{PublishPolicy, PublishStats, ShardedCounter, Writer};
use crate::placement::{PinnedThread, Placement, PlacementError, pin_current_thread};
use crate::topology::CpuList;
use hdrhistogram::Histogram;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::{Duration, Instant};

const WARMUP: u8 = 0;
const MEASURE: u8 = 1;
const STOP: u8 = 2;

/// Operations between two looks at the phase flag when not rate-limited.
const BATCH: u64 = 64;

/// What a thread does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Updates the counter (and runs the read side every K updates).
    Writer,
    /// Runs only the read side.
    Reader,
}

/// Everything one repeat needs besides the counter and the CPUs.
#[derive(Debug, Clone, Copy)]
pub struct RepeatSpec {
    /// When writers publish.
    pub policy: PublishPolicy,
    /// The clock a ratelimit reads.
    pub clock: ClockKind,
    /// Calibrated TSC frequency, ticks per second (for the `tsc` clock).
    pub tsc_hz: f64,
    /// Writers run the read side once every this many updates (0 = never).
    pub read_every: u32,
    /// The stopwatch for sampled operations and pacing.
    pub timer: Timer,
    /// Which operations are timed.
    pub sampling: Sampling,
    /// Flat out, or paced at a rate per thread.
    pub regime: Regime,
    /// Seed of the writers' load tables and of the paced threads'
    /// arrivals ([`arrivals_stream`]).
    pub seed: u64,
    /// The writers' load walks' largest step, load units per 1024 of load
    /// ([`LoadWalk::with_step`]).
    pub load_step: i64,
    /// Time run before counting starts.
    pub warmup: Duration,
    /// Time counted.
    pub duration: Duration,
    /// What to do when a pin fails.
    pub placement: Placement,
}

/// What one thread did during the measured interval.
#[derive(Debug, Clone)]
pub struct ThreadReport {
    /// Writer or reader.
    pub role: Role,
    /// Where it was pinned and seen running.
    pub pin: PinnedThread,
    /// Its own measured interval, seconds; `None` when the thread never
    /// saw the interval start (its first batch of operations outlasted
    /// warm-up and interval: an oversubscribed CPU or a very low
    /// `--rate`), so its counts are warm-up only.
    pub interval_s: Option<f64>,
    /// Updates (writers).
    pub updates: u64,
    /// Read-side operations.
    pub reads: u64,
    /// Lines its read sides had to fetch: reads that found a slot changed
    /// since this thread last saw it (`counter::ReadView`), exact.
    pub read_fetches: u64,
    /// Publish counts (writers).
    pub stats: PublishStats,
    /// Load after the final flush (writers; 0 for readers).
    pub final_load: i64,
    /// Sampled update latencies, timer ticks.
    pub write_hist: Histogram<u64>,
    /// Sampled read latencies, timer ticks.
    pub read_hist: Histogram<u64>,
    /// What its staleness probes saw.
    pub staleness: StalenessSamples,
    /// Paced: what its operations took inside their busy windows, and
    /// the stalls set aside (`None` flat out: busy all the interval).
    pub busy: Option<BusyTime>,
    /// Paced with a floor in place: what its floor operations took
    /// ([`InPlaceFloor`], timed as `busy` is, over the same iterations).
    pub floor_busy: Option<BusyTime>,
    /// Pacer slots skipped after stalls during the interval.
    pub missed_slots: u64,
    /// Involuntary context switches during the interval: times the
    /// scheduler took the thread's CPU away.
    pub involuntary_switches: u64,
}

/// How a repeat ended.
#[derive(Debug)]
pub enum RepeatOutcome {
    /// Every thread ran the whole interval.
    Done(Vec<ThreadReport>),
    /// Ctrl-C arrived; the repeat is incomplete and discarded.
    Interrupted,
}

struct Control {
    phase: AtomicU8,
    failed: AtomicBool,
    barrier: Barrier,
}

/// Runs one repeat: a thread per writer CPU and per reader CPU, each pinned
/// and verified before the start barrier opens, then `warmup`, then
/// `duration` counted. Writers flush at the end so the counter is exact.
/// Paced, each thread runs its floor in place on `floor` between
/// operations ([`InPlaceFloor`]; `None`: no floor). `interrupted` (set by
/// Ctrl-C) ends the repeat early.
pub fn run_repeat(
    counter: &ShardedCounter,
    floor: Option<&ShardedCounter>,
    writers: &[u32],
    readers: &[u32],
    allowed: &CpuList,
    spec: &RepeatSpec,
    interrupted: &AtomicBool,
) -> Result<RepeatOutcome, PlacementError> {
    let ctl = Control {
        phase: AtomicU8::new(WARMUP),
        failed: AtomicBool::new(false),
        barrier: Barrier::new(writers.len() + readers.len() + 1),
    };
    // Staleness is probed while operations are sampled.
    let mirror = (spec.sampling.every() != 0).then(|| Mirror::new(writers.len()));
    std::thread::scope(|s| {
        let ctl = &ctl;
        let mirror = mirror.as_ref();
        let mut handles = Vec::new();
        for (i, &cpu) in writers.iter().enumerate() {
            handles.push(s.spawn(move || {
                // The table is built on the pinned thread, so it is local,
                // before the start barrier; every strategy and repeat
                // replays the same one.
                let (pin, walk) = start(cpu, allowed, spec.placement, ctl, || {
                    LoadWalk::with_step(spec.seed, i as u64, spec.load_step)
                })?;
                let slot = counter.slot_of_cpu(cpu).unwrap_or(0);
                let job = WriterJob {
                    counter,
                    floor,
                    slot,
                    stream: arrivals_stream(spec.seed, 0, i as u64),
                    walk,
                    probing: mirror.map(|m| Probing::new(m, i)),
                    spec,
                    ctl,
                    pin,
                };
                Ok(match spec.clock {
                    ClockKind::Tsc => job.run(TscClock { hz: spec.tsc_hz }),
                    ClockKind::Monotonic => job.run(MonotonicClock),
                    ClockKind::Coarse => job.run(CoarseClock),
                })
            }));
        }
        for (j, &cpu) in readers.iter().enumerate() {
            handles.push(s.spawn(move || {
                let (pin, ()) = start(cpu, allowed, spec.placement, ctl, || ())?;
                let probing = mirror.map(|m| Probing::new(m, 0));
                let stream = arrivals_stream(spec.seed, 1, j as u64);
                Ok(reader(counter, floor, probing, spec, ctl, pin, stream))
            }));
        }
        ctl.barrier.wait();
        let mut was_interrupted = false;
        if !ctl.failed.load(Ordering::Relaxed) {
            was_interrupted = !sleep_unless(spec.warmup, interrupted);
            ctl.phase.store(MEASURE, Ordering::Relaxed);
            was_interrupted = was_interrupted || !sleep_unless(spec.duration, interrupted);
        }
        ctl.phase.store(STOP, Ordering::Relaxed);
        let mut reports = Vec::with_capacity(handles.len());
        let mut first_error = None;
        for h in handles {
            match h.join() {
                Ok(Ok(r)) => reports.push(r),
                Ok(Err(e)) => {
                    first_error.get_or_insert(e);
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        match (first_error, was_interrupted) {
            (Some(e), _) => Err(e),
            (None, true) => Ok(RepeatOutcome::Interrupted),
            (None, false) => Ok(RepeatOutcome::Done(reports)),
        }
    })
}

/// Sleeps `d` in short steps; false if `interrupted` was set meanwhile.
fn sleep_unless(d: Duration, interrupted: &AtomicBool) -> bool {
    let end = Instant::now() + d;
    loop {
        if interrupted.load(Ordering::Relaxed) {
            return false;
        }
        let now = Instant::now();
        if now >= end {
            return true;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(100)));
    }
}

/// Pins the thread, runs `prepare` there, and waits at the start barrier;
/// a failed pin still reaches the barrier (so nobody waits forever) and is
/// returned after it.
fn start<T>(
    cpu: u32,
    allowed: &CpuList,
    placement: Placement,
    ctl: &Control,
    prepare: impl FnOnce() -> T,
) -> Result<(PinnedThread, T), PlacementError> {
    let pin = pin_current_thread(cpu, allowed, placement);
    if pin.is_err() {
        ctl.failed.store(true, Ordering::Relaxed);
    }
    let prepared = prepare();
    ctl.barrier.wait();
    pin.map(|p| (p, prepared))
}

/// Runs batches until the phase changes to measuring, resets the counts,
/// runs until stop; returns the measured interval in seconds (`None` when
/// the thread never saw the interval start) and the involuntary context
/// switches the thread suffered during it.
fn drive(ctl: &Control, rate_limited: bool, work: &mut impl Work) -> (Option<f64>, u64) {
    let batch = if rate_limited { 1 } else { BATCH };
    let mut measuring_since: Option<(Instant, u64)> = None;
    loop {
        work.run_ops(batch);
        match ctl.phase.load(Ordering::Relaxed) {
            MEASURE if measuring_since.is_none() => {
                work.reset_counts();
                measuring_since = Some((Instant::now(), involuntary_switches()));
            }
            STOP => break,
            _ => {}
        }
    }
    match measuring_since {
        Some((t, switches)) => (
            Some(t.elapsed().as_secs_f64()),
            involuntary_switches().saturating_sub(switches),
        ),
        None => (None, 0),
    }
}

/// Involuntary context switches of the calling thread so far
/// (`getrusage(RUSAGE_THREAD)`: the scheduler took the CPU away); 0 when
/// the call fails.
fn involuntary_switches() -> u64 {
    // SAFETY: rusage is plain old data; getrusage fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid rusage for the kernel to write.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    if rc == 0 { usage.ru_nivcsw as u64 } else { 0 }
}

/// One writer thread's work, before its clock type is chosen.
struct WriterJob<'a> {
    counter: &'a ShardedCounter,
    /// The counter of its floor in place, paced.
    floor: Option<&'a ShardedCounter>,
    slot: usize,
    /// Its pacer's arrivals stream ([`arrivals_stream`]).
    stream: u64,
    walk: LoadWalk,
    probing: Option<Probing<'a>>,
    spec: &'a RepeatSpec,
    ctl: &'a Control,
    pin: PinnedThread,
}

impl WriterJob<'_> {
    /// Runs the writer loop with `clock` for the ratelimit, flushes, and
    /// reports.
    fn run<C: Clock>(self, clock: C) -> ThreadReport {
        let spec = self.spec;
        let floor = self
            .floor
            .map(|f| InPlaceFloor::of_writer(f, clock.clone()));
        let w = Writer::new(self.counter, self.slot, spec.policy, clock);
        let mut work = WriterWork::new(
            w,
            self.counter,
            self.walk,
            spec.read_every,
            spec.timer,
            spec.sampling,
            Pacer::of(spec.timer, spec.regime, self.stream),
            floor,
            self.probing,
        );
        let (interval_s, involuntary_switches) = drive(self.ctl, spec.regime.is_paced(), &mut work);
        let Pacing {
            busy,
            floor_busy,
            missed_slots,
        } = pacing(&work);
        let (updates, reads, read_fetches) = (work.updates(), work.reads(), work.read_fetches());
        let w = work.writer_mut();
        w.flush();
        ThreadReport {
            role: Role::Writer,
            pin: self.pin,
            interval_s,
            updates,
            reads,
            read_fetches,
            stats: w.stats(),
            final_load: w.load(),
            write_hist: std::mem::replace(&mut work.write_hist, super::new_histogram()),
            read_hist: std::mem::replace(&mut work.read_hist, super::new_histogram()),
            staleness: work.staleness,
            busy,
            floor_busy,
            missed_slots,
            involuntary_switches,
        }
    }
}

/// What the pacer of a thread's loop recorded.
struct Pacing {
    busy: Option<BusyTime>,
    floor_busy: Option<BusyTime>,
    missed_slots: u64,
}

/// Busy time, the floor's in place and slots missed in the pacer of
/// `work` (`None`, `None`, 0 unpaced; the floor's `None` when it ran none).
fn pacing(work: &impl Work) -> Pacing {
    let p = work.pacer();
    Pacing {
        busy: p.map(Pacer::busy),
        floor_busy: p
            .map(Pacer::floor_busy)
            .filter(|f| *f != BusyTime::default()),
        missed_slots: p.map_or(0, Pacer::missed),
    }
}

fn reader(
    counter: &ShardedCounter,
    floor: Option<&ShardedCounter>,
    probing: Option<Probing>,
    spec: &RepeatSpec,
    ctl: &Control,
    pin: PinnedThread,
    stream: u64,
) -> ThreadReport {
    let pacer = Pacer::of(spec.timer, spec.regime, stream);
    let floor = floor.map(InPlaceFloor::of_reader);
    let mut work = ReaderWork::new(counter, spec.timer, spec.sampling, pacer, floor, probing);
    let (interval_s, involuntary_switches) = drive(ctl, spec.regime.is_paced(), &mut work);
    let Pacing {
        busy,
        floor_busy,
        missed_slots,
    } = pacing(&work);
    ThreadReport {
        role: Role::Reader,
        pin,
        interval_s,
        updates: 0,
        reads: work.reads(),
        read_fetches: work.read_fetches(),
        stats: PublishStats::default(),
        final_load: 0,
        write_hist: super::new_histogram(),
        read_hist: std::mem::replace(&mut work.read_hist, super::new_histogram()),
        staleness: work.staleness,
        busy,
        floor_busy,
        missed_slots,
        involuntary_switches,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::{CounterLayout, NodeIter, Pad, ShardLevel, SlotHome};
    use crate::topology::Topology;

    fn host() -> (Topology, Vec<u32>) {
        let topo = Topology::read(std::path::Path::new("/")).unwrap();
        let cpus = topo.allowed_cpus.to_vec();
        (topo, cpus)
    }

    fn counter(topo: &Topology, writers: &[u32]) -> ShardedCounter {
        let layout = CounterLayout {
            level: ShardLevel::Global,
            pad: Pad::Line128,
            home: SlotHome::Local,
            node_iter: NodeIter::Compact,
        };
        ShardedCounter::new(layout, topo, writers, Placement::Strict).unwrap()
    }

    fn spec(policy: &str, regime: Regime) -> RepeatSpec {
        RepeatSpec {
            policy: policy.parse().unwrap(),
            clock: ClockKind::Monotonic,
            tsc_hz: 1e9,
            read_every: 2,
            timer: Timer::Monotonic,
            sampling: Sampling::new(16, 0),
            regime,
            seed: 3,
            load_step: crate::workload::MAX_STEP,
            warmup: Duration::from_millis(10),
            duration: Duration::from_millis(60),
            placement: Placement::Strict,
        }
    }

    fn done(outcome: RepeatOutcome) -> Vec<ThreadReport> {
        match outcome {
            RepeatOutcome::Done(r) => r,
            RepeatOutcome::Interrupted => panic!("interrupted"),
        }
    }

    #[test]
    fn a_repeat_pins_counts_over_the_interval_and_ends_exact() {
        let (topo, cpus) = host();
        let (writers, readers) = (&cpus[..1], &cpus[cpus.len() - 1..]);
        let c = counter(&topo, writers);
        let stop = AtomicBool::new(false);
        let s = spec("ratelimit:1ms", Regime::FlatOut);
        let reports =
            done(run_repeat(&c, None, writers, readers, &topo.allowed_cpus, &s, &stop).unwrap());
        let roles: Vec<Role> = reports.iter().map(|r| r.role).collect();
        assert_eq!(roles, [Role::Writer, Role::Reader]);
        let (w, r) = (&reports[0], &reports[1]);
        assert_eq!(w.pin.requested_cpu, writers[0]);
        assert_eq!(w.pin.observed_cpu, Some(writers[0]));
        assert_eq!(r.pin.observed_cpu, Some(readers[0]));
        // Each thread's own interval: from when it saw the measuring
        // phase to when it saw the stop, so the 60 ms asked less a late
        // start (a stalled thread) or plus a late stop.
        for t in &reports {
            let secs = t.interval_s.unwrap();
            assert!((0.03..0.5).contains(&secs), "{:?}: {secs} s", t.role);
        }
        // Counts of the interval only: a read every 2 updates; one update
        // in 16 timed.
        assert!(w.updates > 1_000, "{}", w.updates);
        assert!(
            w.reads.abs_diff(w.updates / 2) <= 1,
            "{} {}",
            w.reads,
            w.updates
        );
        assert!(w.write_hist.len().abs_diff(w.updates / 16) <= 1);
        assert_eq!(w.stats.updates, w.updates);
        // ratelimit:1ms publishes at most once a millisecond (the final
        // flush may add one).
        assert!(w.stats.publishes <= 2 + (w.interval_s.unwrap() * 1e3) as u64);
        assert!(r.reads > 0 && r.updates == 0 && r.final_load == 0);
        assert!(r.read_hist.len().abs_diff(r.reads / 16) <= 1);
        // Flushed: the counter holds the writer's final load exactly.
        assert_eq!(c.read(), w.final_load);
        assert!((512..=4096).contains(&w.final_load));
        // Probes ran (sampling is on); unpaced threads have no pacer.
        assert!(w.staleness.probes > 0 && r.staleness.probes > 0);
        assert_eq!((w.busy, w.missed_slots), (None, 0));
    }

    #[test]
    fn a_rate_paces_every_thread_and_its_busy_time_is_timed() {
        let (topo, cpus) = host();
        let writers = &cpus[..1];
        let c = counter(&topo, writers);
        let stop = AtomicBool::new(false);
        // 20k/s for 60 ms: at most about 1,200 updates (the lateness made
        // up at the start of the interval is under 1 ms, 20 slots); fewer
        // when the machine stalls the thread, as counted in missed slots.
        let s = spec("always", Regime::paced(20_000.0));
        let reports =
            done(run_repeat(&c, None, writers, &[], &topo.allowed_cpus, &s, &stop).unwrap());
        let w = &reports[0];
        let secs = w.interval_s.unwrap();
        let most = 20_000.0 * secs + 30.0;
        assert!(
            w.updates > 0 && w.updates as f64 <= most,
            "{} updates in {secs} s",
            w.updates
        );
        // The unsampled updates' windows were timed (15 in 16), and busy
        // time is a small part of the interval.
        let busy = w.busy.unwrap();
        assert!(
            busy.ops > w.updates / 2 && busy.ops <= w.updates,
            "{busy:?}"
        );
        let busy_s = busy.ticks as f64 * s.timer.ns_per_tick() * 1e-9;
        assert!(
            busy_s > 0.0 && busy_s < secs / 2.0,
            "busy {busy_s} of {secs} s"
        );
        assert_eq!(c.read(), w.final_load);
    }

    #[test]
    fn an_interrupt_discards_the_repeat_and_sleeps_end_early() {
        let (topo, cpus) = host();
        let writers = &cpus[..1];
        let c = counter(&topo, writers);
        let stop = AtomicBool::new(true);
        let mut s = spec("always", Regime::FlatOut);
        s.duration = Duration::from_secs(30);
        let t0 = Instant::now();
        let outcome = run_repeat(&c, None, writers, &[], &topo.allowed_cpus, &s, &stop).unwrap();
        assert!(matches!(outcome, RepeatOutcome::Interrupted));
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
        // sleep_unless: true after the whole sleep, false when interrupted.
        let calm = AtomicBool::new(false);
        let t0 = Instant::now();
        assert!(sleep_unless(Duration::from_millis(20), &calm));
        assert!(t0.elapsed() >= Duration::from_millis(20));
        assert!(!sleep_unless(Duration::from_secs(30), &stop));
    }

    #[test]
    fn a_failed_pin_ends_the_repeat_at_once_and_names_the_cpu() {
        let (topo, cpus) = host();
        // CPU 4000 does not exist: its pin fails before the barrier, so
        // the 12 s asked are never slept, whether it was to be a second
        // writer or a reader.
        let c = counter(&topo, &cpus[..1]);
        let stop = AtomicBool::new(false);
        let mut s = spec("always", Regime::FlatOut);
        s.duration = Duration::from_secs(12);
        for (writers, readers) in [(vec![cpus[0], 4000], vec![]), (vec![cpus[0]], vec![4000])] {
            let t0 = Instant::now();
            let err = run_repeat(&c, None, &writers, &readers, &topo.allowed_cpus, &s, &stop)
                .unwrap_err();
            assert!(t0.elapsed() < Duration::from_secs(8), "{:?}", t0.elapsed());
            assert!(
                matches!(err, PlacementError::Pin { cpu: 4000, .. }),
                "{err}"
            );
        }
    }

    #[test]
    fn two_busy_threads_on_one_cpu_switch_each_other_out() {
        // Both spin for 200 ms on the same CPU: the scheduler must take
        // the CPU from each of them (time slices are a few ms), and
        // getrusage counts it.
        let (topo, cpus) = host();
        let cpu = cpus[0];
        let allowed = &topo.allowed_cpus;
        let counts: Vec<u64> = std::thread::scope(|s| {
            let spin = || {
                pin_current_thread(cpu, allowed, Placement::Strict).unwrap();
                let before = involuntary_switches();
                let t0 = Instant::now();
                while t0.elapsed() < Duration::from_millis(200) {
                    std::hint::spin_loop();
                }
                involuntary_switches() - before
            };
            let a = s.spawn(spin);
            let b = s.spawn(spin);
            vec![a.join().unwrap(), b.join().unwrap()]
        });
        assert!(
            counts.iter().all(|&n| n > 0),
            "involuntary switches {counts:?}"
        );
    }
}
