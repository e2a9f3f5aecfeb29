//! One repeat: pinned writer and reader threads that start together at a barrier, warm up, count
//! over the same measured interval, and stop.

use super::mirror::Mirror;
use super::pacer::{arrivals_stream, phase_of};
use super::work::{InPlaceFloor, Probing, ReaderWork, Sampling, Work, WriterWork};
use super::{BusyTime, LoadWalk, Pacer, Regime, StalenessSamples};
use crate::clock::{Clock, ClockKind, CoarseClock, MonotonicClock, Spin, Timer, TscClock};
use crate::counter::{PublishPolicy, PublishStats, ShardedCounter, Writer};
use crate::placement::{PinnedThread, Placement, PlacementError, pin_current_thread};
use crate::topology::CpuList;
use hdrhistogram::Histogram;
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
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
    /// Seed of the writers' load tables and of the paced threads' arrivals ([`arrivals_stream`]).
    pub seed: u64,
    /// The writers' load walks' largest step, load units per 1024 of load.
    pub load_step: i64,
    /// Time run before counting starts.
    pub warmup: Duration,
    /// Time counted.
    pub duration: Duration,
    /// What to do when a pin fails.
    pub placement: Placement,
    /// A delay added to every update of a writer, inside its busy window.
    pub inject: Spin,
}

/// What one thread did during the measured interval.
#[derive(Debug, Clone)]
pub struct ThreadReport {
    /// Writer or reader.
    pub role: Role,
    /// Where it was pinned and seen running.
    pub pin: PinnedThread,
    /// Its own measured interval, seconds.
    pub interval_s: Option<f64>,
    /// Updates (writers).
    pub updates: u64,
    /// Read-side operations.
    pub reads: u64,
    /// Lines its read sides had to fetch.
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
    /// Paced: what its operations took inside their busy windows, and the stalls set aside.
    pub busy: Option<BusyTime>,
    /// Paced with a floor in place: what its floor operations took.
    pub floor_busy: Option<BusyTime>,
    /// Pacer slots skipped after stalls during the interval.
    pub missed_slots: u64,
    /// Involuntary context switches during the interval.
    pub involuntary_switches: u64,
}

/// How a repeat ended.
#[derive(Debug)]
pub enum RepeatOutcome {
    /// Every thread ran the whole interval.
    Done(Vec<Vec<ThreadReport>>),
    /// Ctrl-C arrived; the repeat is incomplete and discarded.
    Interrupted,
}

struct Control {
    phase: AtomicU8,
    failed: AtomicBool,
    barrier: Barrier,
}

impl Control {
    /// In phase 0 ([`WARMUP`]), its barrier for `threads` threads and the caller.
    fn new(threads: usize) -> Self {
        let barrier = Barrier::new(threads + 1);
        Control {
            phase: AtomicU8::new(WARMUP),
            failed: AtomicBool::new(false),
            barrier,
        }
    }
}

/// Every thread's result joined, or the first error; a panic goes on in the caller.
fn join_all<T>(
    handles: Vec<std::thread::ScopedJoinHandle<'_, Result<T, PlacementError>>>,
) -> Result<Vec<T>, PlacementError> {
    // Every thread joined before the first error is returned.
    let joined: Vec<_> = handles
        .into_iter()
        .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
        .collect();
    joined.into_iter().collect()
}

/// One strategy of a repeat: its counter, the counter of its floor in place.
#[derive(Clone, Copy)]
pub struct Lane<'a> {
    /// The strategy's counter, fresh for the repeat.
    pub counter: &'a ShardedCounter,
    /// The counter its floor in place runs on.
    pub floor: Option<&'a ShardedCounter>,
    /// Its policy and clock; lanes of one repeat share everything else.
    pub spec: &'a RepeatSpec,
}

/// Runs one repeat: a thread per writer CPU and per reader CPU, each pinned and verified before the
/// start barrier opens, then `warmup`, then `duration` counted.
pub fn run_repeat(
    lanes: &[Lane],
    writers: &[u32],
    readers: &[u32],
    allowed: &CpuList,
    repeat: u64,
    interrupted: &AtomicBool,
) -> Result<RepeatOutcome, PlacementError> {
    let spec = lanes[0].spec;
    let ctl = Control::new(writers.len() + readers.len());
    // Staleness is probed while operations are sampled, a mirror a lane.
    let probed = lanes.len() * usize::from(spec.sampling.every() != 0);
    let mirrors: Vec<Mirror> = (0..probed).map(|_| Mirror::new(writers.len())).collect();
    std::thread::scope(|s| {
        let ctl = &ctl;
        let mirrors = &mirrors;
        // Writers first, then readers, each numbered within its role.
        let roles = writers.iter().enumerate().map(|(i, &cpu)| (true, i, cpu));
        let roles = roles.chain(readers.iter().enumerate().map(|(j, &cpu)| (false, j, cpu)));
        let handles: Vec<_> = roles
            .map(|(writes, index, cpu)| {
                s.spawn(move || {
                    // A writer's table is built on the pinned thread, so it is local, before the
                    // start barrier.
                    let (pin, walk) = start(cpu, allowed, spec.placement, ctl, || {
                        writes.then(|| LoadWalk::with_step(spec.seed, index as u64, spec.load_step))
                    })?;
                    let stream = arrivals_stream(spec.seed, u64::from(!writes), index as u64);
                    let phase = phase_of(spec.seed, repeat, stream);
                    let job = Job {
                        lanes,
                        cpu,
                        stream,
                        phase,
                        mirrors,
                        index,
                        ctl,
                        pin,
                    };
                    Ok(match (walk, spec.clock) {
                        (None, _) => job.read(),
                        (Some(walk), ClockKind::Tsc) => {
                            job.write(walk, TscClock { hz: spec.tsc_hz })
                        }
                        (Some(walk), ClockKind::Monotonic) => job.write(walk, MonotonicClock),
                        (Some(walk), ClockKind::Coarse) => job.write(walk, CoarseClock),
                    })
                })
            })
            .collect();
        ctl.barrier.wait();
        let mut was_interrupted = false;
        if !ctl.failed.load(Ordering::Relaxed) {
            was_interrupted = !sleep_unless(spec.warmup, interrupted);
            ctl.phase.store(MEASURE, Ordering::Relaxed);
            was_interrupted = was_interrupted || !sleep_unless(spec.duration, interrupted);
        }
        ctl.phase.store(STOP, Ordering::Relaxed);
        let threads = join_all(handles)?;
        if was_interrupted {
            return Ok(RepeatOutcome::Interrupted);
        }
        // Each thread reported a report a lane, in lane order: by lane, each thread's.
        let mut threads: Vec<_> = threads.into_iter().map(Vec::into_iter).collect();
        let by_lane = |_| threads.iter_mut().filter_map(Iterator::next).collect();
        Ok(RepeatOutcome::Done(lanes.iter().map(by_lane).collect()))
    })
}

/// What starting a repeat's pool costs, measured on the CPUs it will run on ([`measure_startup`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Startup {
    /// Threads started, one per CPU.
    pub threads: usize,
    /// From the first spawn until every thread was pinned and waiting at the start barrier, s.
    pub start_s: f64,
    /// From a phase change until the last of the busy threads saw it, s.
    pub spread_s: f64,
    /// From the stop until every thread was joined, s.
    pub stop_s: f64,
}

impl Startup {
    /// Seconds starting and stopping one thread takes: the probe's start and stop over its threads.
    pub fn per_thread_s(&self) -> f64 {
        (self.start_s + self.stop_s) / self.threads.max(1) as f64
    }

    /// This probe's figures for a pool of `threads` threads: start and stop grow with the threads.
    pub fn scaled(&self, threads: usize) -> Startup {
        let k = threads as f64 / self.threads.max(1) as f64;
        Startup {
            threads,
            start_s: self.start_s * k,
            spread_s: self.spread_s,
            stop_s: self.stop_s * k,
        }
    }

    /// Seconds a repeat costs besides its warm-up and interval.
    pub fn repeat_s(&self) -> f64 {
        self.start_s + self.spread_s + self.stop_s
    }
}

/// Phase changes [`measure_startup`] times; the longest counts.
pub const STARTUP_CHANGES: u32 = 3;

/// The longest a phase change is waited for, s: past it the probe stops waiting and counts this.
const STARTUP_WAIT_S: f64 = 10.0;

/// Starts a pinned thread on each of `cpus` as a repeat does.
pub fn measure_startup(
    cpus: &[u32],
    allowed: &CpuList,
    placement: Placement,
) -> Result<Startup, PlacementError> {
    use std::sync::atomic::AtomicUsize;
    let ctl = Control::new(cpus.len());
    let seen = AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|s| {
        let (ctl, seen) = (&ctl, &seen);
        let handles: Vec<_> = cpus
            .iter()
            .map(|&cpu| {
                s.spawn(move || {
                    start(cpu, allowed, placement, ctl, || ())?;
                    let mut last = 0;
                    loop {
                        let now = ctl.phase.load(Ordering::Relaxed);
                        if now != last {
                            last = now;
                            seen.fetch_add(1, Ordering::Relaxed);
                        }
                        if now == u8::MAX {
                            return Ok(());
                        }
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        ctl.barrier.wait();
        let start_s = started.elapsed().as_secs_f64();
        let mut spread_s: f64 = 0.0;
        let n = cpus.len();
        let changes = STARTUP_CHANGES * u32::from(!ctl.failed.load(Ordering::Relaxed));
        for change in 1..=changes {
            let t = Instant::now();
            ctl.phase.store(change as u8, Ordering::Relaxed);
            while seen.load(Ordering::Relaxed) < n * change as usize
                && t.elapsed().as_secs_f64() < STARTUP_WAIT_S
            {
                std::thread::sleep(Duration::from_micros(50));
            }
            spread_s = spread_s.max(t.elapsed().as_secs_f64());
        }
        let stopping = Instant::now();
        ctl.phase.store(u8::MAX, Ordering::Relaxed);
        join_all(handles)?;
        let stop_s = stopping.elapsed().as_secs_f64();
        Ok(Startup {
            threads: n,
            start_s,
            spread_s,
            stop_s,
        })
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

/// Pins the thread, runs `prepare` there, and waits at the start barrier.
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

/// Runs batches until the phase changes to measuring, resets the counts, runs until stop.
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
    measuring_since.map_or((None, 0), |(t, switches)| {
        let interval_s = t.elapsed().as_secs_f64();
        let switched = involuntary_switches().saturating_sub(switches);
        (Some(interval_s), switched)
    })
}

/// Involuntary context switches of the calling thread so far.
fn involuntary_switches() -> u64 {
    // SAFETY: rusage is plain old data; getrusage fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid rusage for the kernel to write.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    if rc == 0 { usage.ru_nivcsw as u64 } else { 0 }
}

/// One thread of a repeat, pinned: what it runs every lane with.
struct Job<'a> {
    lanes: &'a [Lane<'a>],
    cpu: u32,
    /// Its pacers' arrivals stream ([`arrivals_stream`]).
    stream: u64,
    /// Its relative phase this repeat, a fraction of the period.
    phase: f64,
    /// The lanes' staleness mirrors (empty: no probing).
    mirrors: &'a [Mirror],
    /// Its index among the threads of its role.
    index: usize,
    ctl: &'a Control,
    pin: PinnedThread,
}

/// The pacer of lane `k` on a thread of arrivals stream `stream`, its poisson arrivals (if any) a
/// stream of the lane's own; [`anchor`] places it.
fn lane_pacer(spec: &RepeatSpec, stream: u64, k: usize) -> Option<Pacer> {
    Pacer::of(spec.timer, spec.regime, stream ^ ((k as u64) << 40))
}

/// A permutation of `0..n` drawn from `seed` (Fisher-Yates on xoshiro256++), each of the n!
pub fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for i in (1..n).rev() {
        order.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    order
}

impl Job<'_> {
    /// Runs every lane's writer loop in place, each on a clone of `walk` (the same sequence) with
    /// `clock` (a copy of its own a lane) for the ratelimits, flushes, and reports, a report a lane.
    fn write<C: Clock>(self, walk: LoadWalk, clock: C) -> Vec<ThreadReport> {
        let make = |k: usize| {
            let (lane, spec) = (&self.lanes[k], self.lanes[k].spec);
            let c = lane.counter;
            let floor = lane
                .floor
                .map(|f| InPlaceFloor::of_writer(f, clock.clone()));
            let slot = c.slot_of_cpu(self.cpu).unwrap_or(0);
            let w = Writer::new(c, slot, spec.policy, clock.clone());
            let pacer = lane_pacer(spec, self.stream, k);
            let probing = self.mirrors.get(k).map(|m| Probing::new(m, self.index));
            let (walk, timer, sampling) = (walk.clone(), spec.timer, spec.sampling);
            let (read_every, inject) = (spec.read_every, spec.inject);
            WriterWork::new(
                w, c, walk, read_every, timer, sampling, pacer, floor, probing, inject,
            )
        };
        run_lanes(&self, make, |work, blank| {
            let (updates, reads, read_fetches) =
                (work.updates(), work.reads(), work.read_fetches());
            let w = work.writer_mut();
            w.flush();
            ThreadReport {
                role: Role::Writer,
                updates,
                reads,
                read_fetches,
                stats: w.stats(),
                final_load: w.load(),
                write_hist: std::mem::replace(&mut work.write_hist, super::new_histogram()),
                read_hist: std::mem::replace(&mut work.read_hist, super::new_histogram()),
                staleness: std::mem::take(&mut work.staleness),
                ..blank
            }
        })
    }

    /// Runs every lane's read side in place, as [`Job::write`] runs writers.
    fn read(self) -> Vec<ThreadReport> {
        let make = |k: usize| {
            let (lane, spec) = (&self.lanes[k], self.lanes[k].spec);
            let pacer = lane_pacer(spec, self.stream, k);
            let floor = lane.floor.map(InPlaceFloor::of_reader);
            let probing = self.mirrors.get(k).map(|m| Probing::new(m, 0));
            ReaderWork::new(
                lane.counter,
                spec.timer,
                spec.sampling,
                pacer,
                floor,
                probing,
            )
        };
        run_lanes(&self, make, |work, blank| ThreadReport {
            reads: work.reads(),
            read_fetches: work.read_fetches(),
            read_hist: std::mem::replace(&mut work.read_hist, super::new_histogram()),
            staleness: std::mem::take(&mut work.staleness),
            ..blank
        })
    }
}

/// The order a thread runs its `n` lanes in, drawn from its `phase`, each lane with the phase of
/// the period its pacer starts at: the j-th to run at `phase + j/n`, so that the lanes share the
/// period evenly.
fn lane_slots(n: usize, phase: f64) -> Vec<(usize, f64)> {
    let (order, share) = (permutation(n, phase.to_bits()), 1.0 / n as f64);
    let at = |j: usize| (phase + j as f64 * share) % 1.0;
    order
        .into_iter()
        .enumerate()
        .map(|(j, k)| (k, at(j)))
        .collect()
}

/// Runs a thread's lanes in place until the stop, lane `k`'s work made by `make(k)`, in the order
/// and at the phases of [`lane_slots`], anchored on one grid boundary after now (each owning 1/n
/// of the period). Then a report a lane, in lane order, each from a reader's blank report of the
/// thread (its pin, interval and switches) with what its pacer recorded, completed by `report`.
fn run_lanes<W: Work>(
    job: &Job,
    mut make: impl FnMut(usize) -> W,
    mut report: impl FnMut(&mut W, ThreadReport) -> ThreadReport,
) -> Vec<ThreadReport> {
    let slots = lane_slots(job.lanes.len(), job.phase);
    let mut works: Vec<W> = slots.iter().map(|&(k, _)| make(k)).collect();
    let (spec, share) = (job.lanes[0].spec, 1.0 / works.len() as f64);
    let now = spec.timer.end();
    for (work, &(_, at)) in works.iter_mut().zip(&slots) {
        if let Some(p) = work.pacer_mut() {
            p.anchor(now, at, share);
        }
    }
    let (interval_s, involuntary_switches) = drive(job.ctl, spec.regime.is_paced(), &mut works);
    let mut reports: Vec<(usize, ThreadReport)> = works
        .iter_mut()
        .zip(slots.iter().map(|&(k, _)| k))
        .map(|(work, k)| {
            let p = work.pacer();
            let floor_busy = p.map(Pacer::floor_busy);
            let blank = ThreadReport {
                role: Role::Reader,
                pin: job.pin.clone(),
                interval_s,
                updates: 0,
                reads: 0,
                read_fetches: 0,
                stats: PublishStats::default(),
                final_load: 0,
                write_hist: super::new_histogram(),
                read_hist: super::new_histogram(),
                staleness: StalenessSamples::default(),
                busy: p.map(Pacer::busy),
                floor_busy: floor_busy.filter(|f| *f != BusyTime::default()),
                missed_slots: p.map_or(0, Pacer::missed),
                involuntary_switches,
            };
            (k, report(work, blank))
        })
        .collect();
    reports.sort_by_key(|&(k, _)| k);
    reports.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::tests::{global_counter, here as host};
    use crate::topology::Topology;

    fn spec(policy: &str, regime: Regime, duration_ms: u64) -> RepeatSpec {
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
            duration: Duration::from_millis(duration_ms),
            placement: Placement::Strict,
            inject: Spin::default(),
        }
    }

    /// One lane of `counter` and `spec`, without a floor.
    fn lane<'a>(counter: &'a ShardedCounter, spec: &'a RepeatSpec) -> Lane<'a> {
        let floor = None;
        Lane {
            counter,
            floor,
            spec,
        }
    }

    /// The repeat of `lanes` (repeat 0), its reports by lane.
    fn done(
        lanes: &[Lane],
        writers: &[u32],
        readers: &[u32],
        topo: &Topology,
    ) -> Vec<Vec<ThreadReport>> {
        let stop = AtomicBool::new(false);
        match run_repeat(lanes, writers, readers, &topo.allowed_cpus, 0, &stop).unwrap() {
            RepeatOutcome::Done(r) => r,
            RepeatOutcome::Interrupted => panic!("interrupted"),
        }
    }

    #[test]
    fn a_repeat_pins_counts_over_the_interval_and_ends_exact() {
        let (topo, cpus) = host();
        let (writers, readers) = (&cpus[..1], &cpus[cpus.len() - 1..]);
        let c = global_counter(&topo, writers);
        let s = spec("ratelimit:1ms", Regime::FlatOut, 60);
        let reports = done(&[lane(&c, &s)], writers, readers, &topo).remove(0);
        let roles: Vec<Role> = reports.iter().map(|r| r.role).collect();
        assert_eq!(roles, [Role::Writer, Role::Reader]);
        let (w, r) = (&reports[0], &reports[1]);
        assert_eq!(w.pin.requested_cpu, writers[0]);
        let observed = (w.pin.observed_cpu, r.pin.observed_cpu);
        assert_eq!(observed, (Some(writers[0]), Some(readers[0])));
        // Each thread's own interval: from when it saw the measuring phase to when it saw the stop,
        // so the 60 ms asked less a late start (a stalled thread) or plus a late stop.
        for t in &reports {
            let secs = t.interval_s.unwrap();
            assert!((0.03..0.5).contains(&secs), "{:?}: {secs} s", t.role);
        }
        // Counts of the interval only: a read every 2 updates; one update in 16 timed.
        assert!(w.updates > 1_000, "{}", w.updates);
        let (reads, updates) = (w.reads, w.updates);
        assert!(reads.abs_diff(updates / 2) <= 1, "{reads} {updates}");
        assert!(w.write_hist.len().abs_diff(w.updates / 16) <= 1);
        assert_eq!(w.stats.updates, w.updates);
        // ratelimit:1ms publishes at most once a millisecond (the final flush may add one).
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
    fn strategies_in_place_each_keep_their_rate_counter_and_floor() {
        // Two strategies in place at 10k/s for 60 ms, one writer and one reader: each lane's
        // updates at most its own rate (600 and a made-up lateness under 1 ms, 10 slots), each
        // counter exact, each floor timed apart, and each lane's own policy: `never` never
        // publishes before the flush (which may publish once), `always` on every update.
        let (topo, cpus) = host();
        let (writers, readers) = (&cpus[..1], &cpus[cpus.len() - 1..]);
        let counters: Vec<ShardedCounter> =
            (0..4).map(|_| global_counter(&topo, writers)).collect();
        let (a, b, fa, fb) = (&counters[0], &counters[1], &counters[2], &counters[3]);
        let sa = spec("always", Regime::paced(1e4), 60);
        let sb = spec("never", Regime::paced(1e4), 60);
        let (mut la, mut lb) = (lane(a, &sa), lane(b, &sb));
        (la.floor, lb.floor) = (Some(fa), Some(fb));
        let lanes = [la, lb];
        let stop = AtomicBool::new(false);
        let outcome = run_repeat(&lanes, writers, readers, &topo.allowed_cpus, 3, &stop);
        let Ok(RepeatOutcome::Done(reports)) = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(reports.len(), 2);
        for (lane, c) in reports.iter().zip([a, b]) {
            let (w, r) = (&lane[0], &lane[1]);
            assert_eq!((w.role, r.role), (Role::Writer, Role::Reader));
            // Each thread paces over its own interval: the reader's may start or end apart.
            for (n, t, what) in [(w.updates, w, "updates"), (r.reads, r, "reads")] {
                let most = 10_000.0 * t.interval_s.unwrap() + 20.0;
                assert!(n > 0 && n as f64 <= most, "{n} {what} over {most}");
            }
            // The unsampled updates' windows were timed (15 in 16), and busy time is a small part
            // of the interval.
            let (busy, secs) = (w.busy.unwrap(), w.interval_s.unwrap());
            assert!(
                busy.ops > w.updates / 2 && busy.ops <= w.updates,
                "{busy:?}"
            );
            let busy_s = busy.ticks as f64 * sa.timer.ns_per_tick() * 1e-9;
            assert!(busy_s > 0.0 && busy_s < secs / 2.0, "{busy_s} of {secs} s");
            assert!(w.floor_busy.unwrap().ops > 0);
            assert_eq!(c.read(), w.final_load);
        }
        let (always, never) = (&reports[0][0].stats, &reports[1][0].stats);
        assert!(always.publishes >= always.updates, "{always:?}");
        assert!(never.publishes <= 1, "{never:?}");
    }

    #[test]
    fn a_threads_lane_order_is_a_permutation_replayed_by_its_phase() {
        let order = |n, phase: f64| permutation(n, phase.to_bits());
        let mut sorted = order(7, 0.3);
        sorted.sort_unstable();
        assert_eq!(sorted, (0..7).collect::<Vec<_>>());
        assert_eq!(order(7, 0.3), order(7, 0.3));
        // Other phases give other orders (7! of them: these differ).
        let orders: Vec<Vec<usize>> = (0..8).map(|i| order(7, i as f64 / 8.0)).collect();
        assert!(orders.iter().any(|o| *o != orders[0]), "{orders:?}");
        assert_eq!(order(1, 0.5), [0]);
        // A thread runs its lanes in that order, the j-th of 4 starting j/4 of a period after its
        // phase, wrapping past 1.
        let slots = lane_slots(4, 0.3);
        let (lanes, at): (Vec<usize>, Vec<f64>) = slots.into_iter().unzip();
        assert_eq!(lanes, order(4, 0.3));
        assert_ne!(lanes, [0, 1, 2, 3]);
        for (got, want) in at.iter().zip([0.3, 0.55, 0.8, 0.05]) {
            assert!((got - want).abs() < 1e-12, "{at:?}");
        }
    }

    #[test]
    fn an_interrupt_or_a_failed_pin_ends_the_repeat_at_once() {
        let (topo, cpus) = host();
        let writers = &cpus[..1];
        let c = global_counter(&topo, writers);
        let stop = AtomicBool::new(true);
        let s = spec("always", Regime::FlatOut, 30_000);
        let t0 = Instant::now();
        let outcome = run_repeat(&[lane(&c, &s)], writers, &[], &topo.allowed_cpus, 0, &stop);
        assert!(matches!(outcome, Ok(RepeatOutcome::Interrupted)));
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
        // sleep_unless: true after the whole sleep, false when interrupted.
        let calm = AtomicBool::new(false);
        let t0 = Instant::now();
        assert!(sleep_unless(Duration::from_millis(20), &calm));
        assert!(t0.elapsed() >= Duration::from_millis(20));
        assert!(!sleep_unless(Duration::from_secs(30), &stop));
        let (topo, cpus) = host();
        // CPU 4000 does not exist: its pin fails before the barrier, so the 12 s asked are never
        // slept, whether it was to be a second writer or a reader.
        let c = global_counter(&topo, &cpus[..1]);
        let stop = AtomicBool::new(false);
        let s = spec("always", Regime::FlatOut, 12_000);
        for (writers, readers) in [(vec![cpus[0], 4000], vec![]), (vec![cpus[0]], vec![4000])] {
            let t0 = Instant::now();
            let (lanes, allowed) = ([lane(&c, &s)], &topo.allowed_cpus);
            let err = run_repeat(&lanes, &writers, &readers, allowed, 0, &stop).unwrap_err();
            assert!(t0.elapsed() < Duration::from_secs(8), "{:?}", t0.elapsed());
            assert!(matches!(err, PlacementError::Pin(4000, ..)), "{err}");
        }
    }

    #[test]
    fn two_busy_threads_on_one_cpu_switch_each_other_out() {
        // Both spin for 200 ms on the same CPU: the scheduler must take the CPU from each of them
        // (time slices are a few ms), and getrusage counts it.
        let (topo, cpus) = host();
        let counts: Vec<u64> = std::thread::scope(|s| {
            let spin = || {
                pin_current_thread(cpus[0], &topo.allowed_cpus, Placement::Strict).unwrap();
                let (before, t0) = (involuntary_switches(), Instant::now());
                while t0.elapsed() < Duration::from_millis(200) {
                    std::hint::spin_loop();
                }
                involuntary_switches() - before
            };
            let (a, b) = (s.spawn(spin), s.spawn(spin));
            vec![a.join().unwrap(), b.join().unwrap()]
        });
        assert!(counts.iter().all(|&n| n > 0), "switches {counts:?}");
    }

    #[test]
    fn the_startup_probe_starts_pins_and_joins_every_thread() {
        let allowed = crate::topology::allowed_cpus().unwrap();
        let cpus: Vec<u32> = allowed.iter().collect();
        let s = measure_startup(&cpus, &allowed, Placement::Strict).unwrap();
        assert_eq!(s.threads, cpus.len());
        // Every thread saw every change, well within the wait: a change nobody saw would have
        // counted the whole wait.
        assert!(s.spread_s > 0.0 && s.spread_s < STARTUP_WAIT_S, "{s:?}");
        assert!(s.start_s > 0.0 && s.stop_s > 0.0, "{s:?}");
        assert!(s.repeat_s() >= s.start_s + s.spread_s);
        // Scaled to 10 times the threads: start and stop 10 times, the spread as measured.
        let big = s.scaled(10 * cpus.len());
        assert!((big.start_s - 10.0 * s.start_s).abs() < 1e-12);
        assert!((big.stop_s - 10.0 * s.stop_s).abs() < 1e-12);
        assert_eq!(big.spread_s, s.spread_s);
        assert!((big.per_thread_s() - s.per_thread_s()).abs() < 1e-12);
        // A CPU this process may not use fails the probe, as it would fail the repeat.
        assert!(measure_startup(&[100_000], &allowed, Placement::Strict).is_err());
    }
}
