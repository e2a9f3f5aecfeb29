//! What one pinned thread does per operation, as a loop `contend run` and `cargo bench` both drive:
//! a writer moves its load and calls the policy's update (`update_tg_load_avg`), and every K
//! updates runs the read side (`calc_group_shares`); a reader runs only the read side.

use super::mirror::{Mirror, StalenessSamples};
use super::{LoadWalk, Pacer};
use crate::clock::{Clock, Spin, Timer};
use crate::counter::{
    FILTER_ALWAYS, FILTER_ANY, FILTER_BATCH, FILTER_CHANGED, FILTER_NEVER, FILTER_THRESHOLD,
    PublishPolicy, ReadView, ShardedCounter, WALK_NODE_IDS, WALK_NODE_MASK, WALK_SLOTS, Writer,
    group_shares,
};
use crate::workload::START_LOAD;
use hdrhistogram::Histogram;

/// A histogram for timer ticks from 1 to 10^10 (seconds at a few GHz) at three significant digits.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 10_000_000_000, 3).expect("constant bounds are valid")
}

/// One operation in `every` is timed (a power of two, so the check is a mask).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampling {
    mask: u64,
    ticks_overhead: u64,
}

impl Sampling {
    /// Samples one operation in `every` (rounded up to a power of two); 0 = never.
    pub fn new(every: u64, overhead: u64) -> Self {
        let mask = (every != 0).then(|| every.next_power_of_two() - 1);
        Self {
            mask: mask.unwrap_or(u64::MAX),
            ticks_overhead: overhead,
        }
    }

    /// Sampling off.
    pub fn off() -> Self {
        Self::new(0, 0)
    }

    /// One operation in how many is timed (0 = none).
    pub fn every(self) -> u64 {
        self.mask.wrapping_add(1)
    }

    #[inline(always)]
    fn hit(self, n: u64) -> bool {
        n & self.mask == 0
    }
}

/// The tick before a sampled operation (`timer.start()`), or 0 when it is not sampled.
#[inline(always)]
fn sample_start(sampled: bool, timer: Timer) -> u64 {
    if sampled { timer.start() } else { 0 }
}

/// Ends a sampled operation begun at `t0`.
#[inline(always)]
fn sample_end(sampled: bool, t0: u64, timer: Timer, sampling: Sampling, hist: &mut Histogram<u64>) {
    if sampled {
        let t1 = timer.end();
        let ticks = t1.wrapping_sub(t0).saturating_sub(sampling.ticks_overhead);
        record(hist, ticks);
    }
}

/// Records one sample; kept out of line, off the hot path.
#[inline(never)]
#[cold]
fn record(hist: &mut Histogram<u64>, ticks: u64) {
    hist.saturating_record(ticks);
}

/// The read side: sum the slots, counting into `view` the lines that had to be fetched.
#[inline(always)]
fn read_side<const W: u8>(
    counter: &ShardedCounter,
    view: &mut ReadView,
    left: i64,
    contrib: i64,
    load: i64,
) -> i64 {
    let shares = counter.shares();
    let sum = view.read_as::<W>(counter, left);
    std::hint::black_box(group_shares(shares, sum, contrib, load))
}

/// The paced floor, measured in place: a counter no other thread writes.
pub struct InPlaceFloor<'c, W> {
    counter: &'c ShardedCounter,
    view: ReadView,
    writer: W,
}

impl<'c, C: Clock> InPlaceFloor<'c, Writer<'c, C>> {
    /// A writer's floor on `counter` (slot 0, never publishing), its writer reading `clock` as the
    /// strategy's does.
    pub fn of_writer(counter: &'c ShardedCounter, clock: C) -> Self {
        let writer = Writer::new(counter, 0, PublishPolicy::NEVER, clock);
        Self {
            view: ReadView::new(counter, Some(writer.slot())),
            counter,
            writer,
        }
    }

    /// The floor's update at `load`, and its read side when `read`.
    #[inline(always)]
    fn update(&mut self, load: i64, read: bool) {
        let w = &mut self.writer;
        w.update_as::<false, FILTER_NEVER>(load);
        if read {
            let (left, contrib, load) = (w.left(), w.contrib(), w.load());
            read_side::<WALK_SLOTS>(self.counter, &mut self.view, left, contrib, load);
        }
    }
}

impl<'c> InPlaceFloor<'c, ()> {
    /// A reader's floor on `counter`: the read side alone.
    pub fn of_reader(counter: &'c ShardedCounter) -> Self {
        Self {
            view: ReadView::new(counter, None),
            counter,
            writer: (),
        }
    }

    /// The floor's read side, as a reader's.
    #[inline(always)]
    fn read(&mut self) {
        read_side::<WALK_SLOTS>(self.counter, &mut self.view, 0, 0, START_LOAD);
    }
}

/// A thread's operation loop, driven in batches.
pub trait Work {
    /// Runs `ops` operations.
    fn run_ops(&mut self, ops: u64);
    /// Forgets counts and samples so far (end of warm-up).
    fn reset_counts(&mut self);
    /// The pacer, if the loop is rate-limited.
    fn pacer(&self) -> Option<&Pacer>;
    /// The pacer, to anchor it ([`Pacer::anchor`]).
    fn pacer_mut(&mut self) -> Option<&mut Pacer>;
}

/// Strategies run in place on one thread, a [`Work`] a lane.
impl<W: Work> Work for Vec<W> {
    fn run_ops(&mut self, ops: u64) {
        if let [one] = self.as_mut_slice() {
            return one.run_ops(ops);
        }
        for _ in 0..ops {
            for k in 0..self.len() {
                let due = |w: &W| w.pacer().and_then(Pacer::next_at);
                let first = (0..self.len())
                    .filter_map(|j| Some((due(&self[j])?, j)))
                    .min()
                    .map_or(k, |(_, j)| j);
                self[first].run_ops(1);
            }
        }
    }

    fn reset_counts(&mut self) {
        self.iter_mut().for_each(W::reset_counts);
    }

    /// The first lane's pacer (every lane runs at the same rate).
    fn pacer(&self) -> Option<&Pacer> {
        self.first().and_then(Work::pacer)
    }

    /// The first lane's pacer.
    fn pacer_mut(&mut self) -> Option<&mut Pacer> {
        self.first_mut().and_then(Work::pacer_mut)
    }
}

/// Where a thread mirrors its state and how often it probes staleness (see [`Mirror`]).
#[derive(Clone, Copy)]
pub struct Probing<'c> {
    /// The writers' mirrors.
    pub mirror: &'c Mirror,
    /// This writer's line (ignored for a reader).
    pub writer: usize,
    /// Probe on every this many sampled operations.
    pub stride: u64,
}

impl<'c> Probing<'c> {
    /// Probing of `mirror` by writer `writer` (or a reader), every `mirror.writers()`-th sample.
    pub fn new(mirror: &'c Mirror, writer: usize) -> Self {
        Probing {
            mirror,
            writer,
            stride: mirror.writers().max(1) as u64,
        }
    }
}

/// Counts samples and probes on every `stride`-th; kept out of line.
#[inline(never)]
#[cold]
fn maybe_probe(
    probing: &Probing,
    since_probe: &mut u64,
    counter: &ShardedCounter,
    staleness: &mut StalenessSamples,
) {
    *since_probe += 1;
    if *since_probe >= probing.stride {
        *since_probe = 0;
        staleness.record(probing.mirror.probe(counter));
    }
}

/// The loop state of a writer thread.
pub struct WriterWork<'c, C: Clock> {
    writer: Writer<'c, C>,
    counter: &'c ShardedCounter,
    walk: LoadWalk,
    read_every: u32,
    read_countdown: u32,
    timer: Timer,
    sampling: Sampling,
    pacer: Option<Pacer>,
    floor: Option<InPlaceFloor<'c, Writer<'c, C>>>,
    probing: Option<Probing<'c>>,
    inject: Spin,
    since_probe: u64,
    reads: u64,
    view: ReadView,
    /// What probes saw of staleness (with probing on).
    pub staleness: StalenessSamples,
    /// Sampled update latencies, timer ticks.
    pub write_hist: Histogram<u64>,
    /// Sampled read-side latencies, timer ticks.
    pub read_hist: Histogram<u64>,
}

impl<'c, C: Clock> WriterWork<'c, C> {
    /// A writer loop around `writer`, its load walk, a read side every `read_every` updates.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        writer: Writer<'c, C>,
        counter: &'c ShardedCounter,
        walk: LoadWalk,
        read_every: u32,
        timer: Timer,
        sampling: Sampling,
        pacer: Option<Pacer>,
        floor: Option<InPlaceFloor<'c, Writer<'c, C>>>,
        probing: Option<Probing<'c>>,
        inject: Spin,
    ) -> Self {
        Self {
            view: ReadView::new(counter, Some(writer.slot())),
            writer,
            counter,
            walk,
            read_every,
            read_countdown: read_every,
            timer,
            sampling,
            floor: floor.filter(|_| pacer.is_some()),
            pacer,
            probing: probing.filter(|_| sampling.every() != 0),
            inject,
            since_probe: 0,
            reads: 0,
            staleness: StalenessSamples::default(),
            write_hist: new_histogram(),
            read_hist: new_histogram(),
        }
    }

    /// Updates since the last reset.
    pub fn updates(&self) -> u64 {
        self.writer.updates()
    }

    /// Read-side operations since the last reset.
    pub fn reads(&self) -> u64 {
        self.reads
    }

    /// Lines its read sides fetched since the last reset (see [`ReadView`]).
    pub fn read_fetches(&self) -> u64 {
        self.view.fetched()
    }

    /// The writer, for its stats, load and final flush.
    pub fn writer_mut(&mut self) -> &mut Writer<'c, C> {
        &mut self.writer
    }
}

impl<C: Clock> WriterWork<'_, C> {
    /// The loop, compiled once per combination of features in use, so a plain hammering loop
    /// carries no pacing, read-side or sampling code and keeps its state in registers.
    #[inline(always)]
    fn run_loop<
        const PACED: bool,
        const READS: bool,
        const SAMPLED: bool,
        const RATE: bool,
        const FILTER: u8,
        const WALK: u8,
    >(
        &mut self,
        ops: u64,
    ) {
        let mut writer = self.writer.clone();
        let (deltas, walk_at) = self.walk.split();
        let mut walk = *walk_at;
        let (mut reads, mut countdown) = (self.reads, self.read_countdown);
        let (timer, sampling, counter, read_every, probing, inject) = (
            self.timer,
            self.sampling,
            self.counter,
            self.read_every,
            self.probing,
            self.inject,
        );
        for _ in 0..ops {
            let load = walk.next_load(deltas);
            // What this iteration does (sampled? a read side?)
            let sampled = SAMPLED && sampling.hit(writer.updates() + 1);
            let mut read_now = false;
            if READS {
                countdown -= 1;
                if countdown == 0 {
                    countdown = read_every;
                    read_now = true;
                    reads += 1;
                }
            }
            let read_sampled = read_now && SAMPLED && sampling.hit(reads);
            let unsampled = !sampled && !read_sampled;
            // The floor first, half a slot before the update: in place it then has behind it what
            // the update has, the other lanes' work since this lane last ran.
            if PACED
                && let Some(p) = &mut self.pacer
                && let Some(floor) = &mut self.floor
            {
                let released = p.wait_floor();
                floor.update(load, read_now);
                p.floor_done(released, unsampled);
            }
            // Paced, the busy window opens at the fenced tick that released the update and closes
            // after its read side: only what the kernel's update does is inside.
            let released = if PACED && let Some(p) = &mut self.pacer {
                p.wait()
            } else {
                0
            };
            let t0 = sample_start(sampled, timer);
            writer.update_as::<RATE, FILTER>(load);
            sample_end(sampled, t0, timer, sampling, &mut self.write_hist);
            // What the update's add returned, and its read side's result: an injected delay starts
            // from them, so it runs after both.
            let mut done = writer.left();
            if read_now {
                let (left, contrib, load) = (writer.left(), writer.contrib(), writer.load());
                let t0 = sample_start(read_sampled, timer);
                done ^= read_side::<WALK>(counter, &mut self.view, left, contrib, load);
                sample_end(read_sampled, t0, timer, sampling, &mut self.read_hist);
            }
            inject.run_after(done as u64);
            if PACED && let Some(p) = &mut self.pacer {
                p.done(released, unsampled);
            }
            if SAMPLED && let Some(p) = &probing {
                p.mirror
                    .store(p.writer, load, writer.pending_since(), writer.updates());
                if sampled {
                    maybe_probe(p, &mut self.since_probe, counter, &mut self.staleness);
                }
            }
        }
        self.writer = writer;
        *self.walk.split().1 = walk;
        (self.reads, self.read_countdown) = (reads, countdown);
    }
}

impl<C: Clock> Work for WriterWork<'_, C> {
    /// Runs `ops` updates (and their share of reads).
    fn run_ops(&mut self, ops: u64) {
        let paced = self.pacer.is_some();
        let reads = self.read_every != 0;
        let sampled = self.sampling.every() != 0;
        let rate = self.writer.ratelimited();
        // One loop per combination, so a plain hammering loop carries no pacing, read-side,
        // sampling or clock code.
        let walk = self.counter.walk_kind();
        let filter = self.writer.filter_kind();
        macro_rules! dispatch {
            ($($p:literal [$($s:literal $l:literal),*] $fp:pat => $f:ident);*) => {
                match (paced, reads, sampled, rate, filter, walk) {
                    $($(
                        ($p, false, $s, $l, $fp, _) => {
                            self.run_loop::<$p, false, $s, $l, $f, WALK_SLOTS>(ops)
                        }
                        ($p, true, $s, $l, $fp, WALK_NODE_IDS) => {
                            self.run_loop::<$p, true, $s, $l, $f, WALK_NODE_IDS>(ops)
                        }
                        ($p, true, $s, $l, $fp, WALK_NODE_MASK) => {
                            self.run_loop::<$p, true, $s, $l, $f, WALK_NODE_MASK>(ops)
                        }
                        ($p, true, $s, $l, $fp, _) => {
                            self.run_loop::<$p, true, $s, $l, $f, WALK_SLOTS>(ops)
                        }
                    )*)*
                }
            };
        }
        // Paced, each filter `--publish` makes has its copy: [sampled ratelimited, ...] per filter.
        dispatch!(
            true [false false, true false] FILTER_ALWAYS => FILTER_ALWAYS;
            true [false false, true false] FILTER_NEVER => FILTER_NEVER;
            true [false true, true true] FILTER_CHANGED => FILTER_CHANGED;
            true [false false, true false, false true, true true]
                FILTER_THRESHOLD => FILTER_THRESHOLD;
            true [false false, true false, false true, true true]
                FILTER_BATCH => FILTER_BATCH;
            true [false false, false true, true false, true true] _ => FILTER_ANY;
            false [false false, false true, true false, true true] _ => FILTER_ANY
        )
    }

    /// Forgets counts and samples so far (end of warm-up); the writer's load and contribution stay.
    fn reset_counts(&mut self) {
        self.reads = 0;
        self.view.reset();
        self.writer.reset_stats();
        self.write_hist.reset();
        self.read_hist.reset();
        self.staleness = StalenessSamples::default();
        self.pacer.iter_mut().for_each(Pacer::reset_counts);
    }

    fn pacer(&self) -> Option<&Pacer> {
        self.pacer.as_ref()
    }

    fn pacer_mut(&mut self) -> Option<&mut Pacer> {
        self.pacer.as_mut()
    }
}

/// The loop state of a reader thread.
pub struct ReaderWork<'c> {
    counter: &'c ShardedCounter,
    timer: Timer,
    sampling: Sampling,
    pacer: Option<Pacer>,
    floor: Option<InPlaceFloor<'c, ()>>,
    probing: Option<Probing<'c>>,
    since_probe: u64,
    reads: u64,
    view: ReadView,
    /// What probes saw of staleness (with probing on).
    pub staleness: StalenessSamples,
    /// Sampled read-side latencies, timer ticks.
    pub read_hist: Histogram<u64>,
}

impl<'c> ReaderWork<'c> {
    /// A reader loop over `counter`, paced by `pacer` (`None` flat out), with its floor in place
    /// (`None`: none), probing staleness on sampled reads when `probing` is given.
    pub fn new(
        counter: &'c ShardedCounter,
        timer: Timer,
        sampling: Sampling,
        pacer: Option<Pacer>,
        floor: Option<InPlaceFloor<'c, ()>>,
        probing: Option<Probing<'c>>,
    ) -> Self {
        Self {
            counter,
            timer,
            sampling,
            floor: floor.filter(|_| pacer.is_some()),
            pacer,
            probing: probing.filter(|_| sampling.every() != 0),
            since_probe: 0,
            reads: 0,
            view: ReadView::new(counter, None),
            staleness: StalenessSamples::default(),
            read_hist: new_histogram(),
        }
    }

    /// Reads since the last reset.
    pub fn reads(&self) -> u64 {
        self.reads
    }

    /// Lines its reads fetched since the last reset (see [`ReadView`]).
    pub fn read_fetches(&self) -> u64 {
        self.view.fetched()
    }
}

impl ReaderWork<'_> {
    /// The reader's loop, its read side compiled for walk `WALK` (see [`WriterWork`]'s `run_ops`).
    #[inline(always)]
    fn run_loop<const WALK: u8>(&mut self, ops: u64) {
        let counter = self.counter;
        for _ in 0..ops {
            self.reads += 1;
            let sampled = self.sampling.hit(self.reads);
            if let Some(p) = &mut self.pacer
                && let Some(floor) = &mut self.floor
            {
                let released = p.wait_floor();
                floor.read();
                p.floor_done(released, !sampled);
            }
            let released = self.pacer.as_mut().map_or(0, |p| p.wait());
            let t0 = sample_start(sampled, self.timer);
            read_side::<WALK>(counter, &mut self.view, 0, 0, START_LOAD);
            sample_end(sampled, t0, self.timer, self.sampling, &mut self.read_hist);
            if let Some(p) = &mut self.pacer {
                p.done(released, !sampled);
            }
            if sampled && let Some(p) = &self.probing {
                maybe_probe(p, &mut self.since_probe, counter, &mut self.staleness);
            }
        }
    }
}

impl Work for ReaderWork<'_> {
    /// Runs `ops` reads, the walk's loop chosen outside the busy window.
    fn run_ops(&mut self, ops: u64) {
        match self.counter.walk_kind() {
            WALK_NODE_IDS => self.run_loop::<WALK_NODE_IDS>(ops),
            WALK_NODE_MASK => self.run_loop::<WALK_NODE_MASK>(ops),
            _ => self.run_loop::<WALK_SLOTS>(ops),
        }
    }

    /// Forgets counts and samples so far.
    fn reset_counts(&mut self) {
        self.reads = 0;
        self.view.reset();
        self.read_hist.reset();
        self.staleness = StalenessSamples::default();
        self.pacer.iter_mut().for_each(Pacer::reset_counts);
    }

    fn pacer(&self) -> Option<&Pacer> {
        self.pacer.as_ref()
    }

    fn pacer_mut(&mut self) -> Option<&mut Pacer> {
        self.pacer.as_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::FakeClock;
    use crate::counter::tests::{host_counter, on_node0};
    use crate::counter::{Pad, ShardLevel};
    use crate::workload::{BusyTime, Regime};
    use std::sync::atomic::Ordering;

    /// A writer loop on `c` with policy `always` and walk (5, 0), a read every `read_every` updates.
    fn writer_loop<'c>(
        c: &'c ShardedCounter,
        read_every: u32,
        sampling: Sampling,
        regime: Regime,
        probing: Option<Probing<'c>>,
    ) -> WriterWork<'c, FakeClock> {
        let writer = Writer::new(c, 0, PublishPolicy::ALWAYS, FakeClock::default());
        let (walk, timer, spin) = (LoadWalk::new(5, 0), Timer::Monotonic, Spin::default());
        let pacer = Pacer::of(timer, regime, 0);
        WriterWork::new(
            writer, c, walk, read_every, timer, sampling, pacer, None, probing, spin,
        )
    }

    /// [`writer_loop`] flat out, one operation in `every` sampled.
    fn writer_work(c: &ShardedCounter, read_every: u32, every: u64) -> WriterWork<'_, FakeClock> {
        let sampling = Sampling::new(every, 0);
        writer_loop(c, read_every, sampling, Regime::FlatOut, None)
    }

    fn reader_loop(c: &ShardedCounter, sampling: Sampling, regime: Regime) -> ReaderWork<'_> {
        let (timer, pacer) = (Timer::Monotonic, Pacer::of(Timer::Monotonic, regime, 0));
        ReaderWork::new(c, timer, sampling, pacer, None, None)
    }

    /// The load after `n` steps of walk (5, 0).
    fn load_after(n: u64) -> i64 {
        let mut walk = LoadWalk::new(5, 0);
        (0..n).fold(START_LOAD, |_, _| walk.next_load())
    }

    /// A CPU-level counter on `cpus` of the SPR fixture, every slot on this host's node 0.
    fn spr_counter(pad: Pad, cpus: &[u32]) -> ShardedCounter {
        on_node0(
            &crate::topology::fixture("spr-2s-224"),
            cpus,
            (ShardLevel::Cpu, pad),
        )
    }

    /// `busy` timed at most `n` windows and at least `n` with its stalls.
    fn timed(busy: BusyTime, n: u64) {
        assert!(busy.ops <= n && busy.ops + busy.stalls >= n, "{busy:?}");
    }

    #[test]
    fn a_writer_loop_counts_updates_reads_and_samples_exactly() {
        let c = host_counter();
        let mut w = writer_work(&c, 4, 8);
        w.run_ops(1_000);
        w.run_ops(1_000);
        // A read every 4 updates; one update in 8 and one read in 8 timed.
        assert_eq!((w.updates(), w.reads()), (2_000, 500));
        assert_eq!((w.write_hist.len(), w.read_hist.len()), (250, 62));
        // Policy always: the slot holds the walk's load after 2000 steps.
        let want = load_after(2_000);
        assert_eq!((w.writer_mut().load(), c.read()), (want, want));
        assert!(w.pacer().is_none());
        // Alone on its line, a writer's reads find what its adds left: no line was fetched.
        assert_eq!(w.read_fetches(), 0);
        // Update n (from 1) is timed when n is a multiple of 8: not the first, the eighth.
        let other = host_counter();
        let mut fresh = writer_work(&other, 0, 8);
        fresh.run_ops(7);
        assert_eq!(fresh.write_hist.len(), 0);
        fresh.run_ops(1);
        assert_eq!(fresh.write_hist.len(), 1);
        // The end of warm-up forgets counts and samples, not the load.
        w.reset_counts();
        assert_eq!((w.updates(), w.reads()), (0, 0));
        assert_eq!((w.write_hist.len(), w.read_hist.len()), (0, 0));
        assert_eq!(w.writer_mut().stats().publishes, 0);
        w.run_ops(16);
        assert_eq!((w.updates(), w.reads(), w.write_hist.len()), (16, 4, 2));
        assert_eq!(c.read(), load_after(2_016));
        // Without reads or sampling the loop only updates.
        let c = host_counter();
        let mut w = writer_work(&c, 0, 0);
        w.run_ops(777);
        assert_eq!((w.updates(), w.reads()), (777, 0));
        assert_eq!((w.write_hist.len(), w.read_hist.len()), (0, 0));
        assert_eq!(c.read(), load_after(777));
    }

    #[test]
    fn sampling_rounds_to_powers_of_two_and_takes_the_timers_overhead_off() {
        let c = host_counter();
        // An overhead beyond any sample: every sample becomes 0 ticks.
        let mut w = writer_loop(&c, 1, Sampling::new(1, u64::MAX / 2), Regime::FlatOut, None);
        w.run_ops(100);
        assert_eq!((w.write_hist.len(), w.write_hist.max()), (100, 0));
        assert_eq!((w.read_hist.len(), w.read_hist.max()), (100, 0));
        // With none to take off, samples are the timer's own differences: over 100 of them, not all 0.
        let mut w = writer_work(&c, 1, 1);
        w.run_ops(100);
        assert!(w.write_hist.mean() > 0.0 && w.read_hist.mean() > 0.0);
        let s = Sampling::new(1000, 0);
        assert_eq!((s.every(), Sampling::off().every()), (1024, 0));
        assert!(s.hit(1024) && s.hit(2048) && !s.hit(1000));
        assert!(!Sampling::off().hit(1) && !Sampling::off().hit(1 << 40));
        assert!(Sampling::new(1, 0).hit(7));
    }

    #[test]
    fn probes_run_on_every_stride_th_sample_and_see_the_truth() {
        let c = host_counter();
        let mirror = Mirror::new(1);
        let mut probing = Probing::new(&mirror, 0);
        probing.stride = 3;
        let mut w = writer_loop(&c, 0, Sampling::new(2, 0), Regime::FlatOut, Some(probing));
        w.run_ops(600);
        // 300 samples, a probe on every third; policy always publishes every update: no error.
        assert_eq!((w.write_hist.len(), w.staleness.probes), (300, 100));
        assert_eq!(w.staleness.error_max, 0.0);
        w.reset_counts();
        assert_eq!(w.staleness.probes, 0);
        // Without sampling there are no probes (the mirror is not kept).
        let mut off = writer_loop(&c, 0, Sampling::off(), Regime::FlatOut, Some(probing));
        off.run_ops(600);
        assert_eq!(off.staleness.probes, 0);
        // A stride of one per writer is the default.
        let mirror = Mirror::new(3);
        let p = Probing::new(&mirror, 2);
        assert_eq!((p.stride, p.writer), (3, 2));
    }

    #[test]
    fn the_read_side_really_reads_every_slot() {
        // 224 slots on this host's node 0: a read loads 224 lines, so its median, less the timer's
        // own cost, is tens of ns; a read of one slot is a few. A read side that did nothing would
        // time as 0.
        let timer = Timer::for_host(
            crate::clock::host_tsc_is_invariant(),
            crate::clock::calibrate_tsc(std::time::Duration::from_millis(20)),
        );
        let sampling = Sampling::new(1, timer.overhead_ticks());
        let cpus = crate::topology::fixture("spr-2s-224").online_cpus.to_vec();
        let wide = spr_counter(Pad::Line64, &cpus);
        assert_eq!(wide.slots().len(), 224);
        let median_ns = |c: &ShardedCounter| {
            let mut r = ReaderWork::new(c, timer, sampling, None, None, None);
            r.run_ops(20_000);
            r.read_hist.value_at_quantile(0.5) as f64 * timer.ns_per_tick()
        };
        let (one, many) = (median_ns(&host_counter()), median_ns(&wide));
        assert!(many >= 20.0 && many > 2.0 * one, "{many} ns, 1 slot {one}");
    }

    #[test]
    fn reads_count_the_lines_other_threads_changed() {
        // A reader made before a writer's 50 updates (each a publish), reading once after each: 50
        // fetches in 50 reads. The writer's own read after each of its adds fetches nothing.
        let c = host_counter();
        let mut r = reader_loop(&c, Sampling::off(), Regime::FlatOut);
        let mut w = writer_work(&c, 1, 0);
        for _ in 0..50 {
            w.run_ops(1);
            r.run_ops(1);
        }
        assert_eq!((r.reads(), r.read_fetches()), (50, 50));
        assert_eq!((w.reads(), w.read_fetches()), (50, 0));
        // The end of warm-up forgets them. What a view fetches on its own (a second read, a
        // reader's reads moving no line): counter::tests::
        // a_read_fetches_a_line_only_when_another_thread_changed_it.
        r.reset_counts();
        assert_eq!(r.read_fetches(), 0);
        // Two slots (SPR CPUs 0 and 1); slot 1 changes before each of 9 updates of slot 0's writer:
        // a read every 3rd update, so 3 read sides, each fetching slot 1's line once.
        let c = spr_counter(Pad::Line128, &[0, 1]);
        let mut w = writer_work(&c, 3, 0);
        for _ in 0..9 {
            c.slot(1).fetch_add(1, Ordering::Relaxed);
            w.run_ops(1);
        }
        assert_eq!((w.updates(), w.reads(), w.read_fetches()), (9, 3, 3));
    }

    #[test]
    fn a_reader_loop_counts_reads_samples_and_probes() {
        let c = host_counter();
        c.slot(0).store(900, Ordering::Relaxed);
        let mirror = Mirror::new(1);
        mirror.store(0, 1_000, None, 1);
        let mut probing = Probing::new(&mirror, 0);
        probing.stride = 2;
        let mut r = reader_loop(&c, Sampling::new(4, 0), Regime::FlatOut);
        r.probing = Some(probing);
        r.run_ops(400);
        let counts = |r: &ReaderWork| (r.reads(), r.read_hist.len(), r.staleness.probes);
        assert_eq!(counts(&r), (400, 100, 50));
        // Published 900 against a true 1000.
        assert_eq!(r.staleness.error_max, 100.0);
        assert!(r.pacer().is_none());
        r.reset_counts();
        assert_eq!(counts(&r), (0, 0, 0));
    }

    #[test]
    fn a_paced_loop_publishes_as_its_policy_does_in_its_own_copy() {
        // Paced, each filter runs its own compiled copy of the update; it must publish exactly when
        // the policy's update (one copy for all) does, on the same walk and clock: 1 µs a period,
        // the clock moved 300 µs an update, so 1ms ratelimits let every 4th update through.
        let c = host_counter();
        let mut published = Vec::new();
        for policy in [
            "always",
            "never",
            "threshold:64",
            "batch:32",
            "ratelimit:1ms",
        ]
        .into_iter()
        .chain(["ratelimit:1ms+threshold:64", "ratelimit:1ms+batch:32"])
        {
            let policy: PublishPolicy = policy.parse().unwrap();
            let (clock, mut walk) = (FakeClock::default(), LoadWalk::new(5, 0));
            let mut reference = Writer::new(&c, 0, policy, clock.clone());
            let want: Vec<u64> = (0..64)
                .map(|_| {
                    reference.update(walk.next_load());
                    clock.advance(300_000);
                    reference.stats().publishes
                })
                .collect();
            for read_every in [0, 1] {
                let clock = FakeClock::default();
                let writer = Writer::new(&c, 0, policy, clock.clone());
                let (timer, walk, off) = (Timer::Monotonic, LoadWalk::new(5, 0), Sampling::off());
                let pacer = Pacer::of(timer, Regime::paced(1e6), 0);
                let spin = Spin::default();
                let mut w = WriterWork::new(
                    writer, &c, walk, read_every, timer, off, pacer, None, None, spin,
                );
                let got: Vec<u64> = (0..64)
                    .map(|_| {
                        w.run_ops(1);
                        clock.advance(300_000);
                        w.writer_mut().stats().publishes
                    })
                    .collect();
                assert_eq!(got, want, "{policy}, a read every {read_every}");
                w.writer_mut().flush();
            }
            reference.flush();
            published.push(want[63]);
        }
        // The policies differ, so a copy run for the wrong one would show.
        assert_eq!(published[..2], [64, 0]);
        let some = published[2..].iter().all(|&n| n > 0 && n < 64);
        assert!(some, "{published:?}");
        assert!(published[4] > published[5], "{published:?}");
    }

    #[test]
    fn a_rate_gives_the_loop_a_pacer_that_holds_it_back_and_times_unsampled_windows() {
        let c = host_counter();
        let mut r = reader_loop(&c, Sampling::off(), Regime::paced(1e4));
        let mut w = writer_loop(&c, 0, Sampling::off(), Regime::paced(1e4), None);
        // 21 operations at 10k/s: at least 20 periods of 100 µs waited.
        let t0 = std::time::Instant::now();
        w.run_ops(21);
        r.run_ops(21);
        // At least 20 periods (deadlines are absolute); the upper bound only catches a pacer that
        // waits far too long, with room for a loaded machine.
        let elapsed = t0.elapsed().as_secs_f64();
        assert!(
            (0.004..0.25).contains(&elapsed),
            "42 ops at 10k/s took {elapsed} s"
        );
        assert_eq!((w.updates(), r.reads()), (21, 21));
        // Busy time is the windows: much less than the 2 ms paced.
        for busy in [w.pacer().unwrap().busy(), r.pacer().unwrap().busy()] {
            assert!(busy.ops > 0 && busy.ticks < 1_000_000, "{busy:?}");
        }
        w.reset_counts();
        r.reset_counts();
        assert_eq!(w.pacer().unwrap().busy(), Default::default());
        assert_eq!(r.pacer().unwrap().busy(), Default::default());
        // One update in 2 timed (n even) and a read every 3rd update, one read in 2 timed. The read
        // countdown outlives the end of warm-up, so after one update and a reset, reads 1-8 run at
        // updates 2, 5, 8, ..., 23 and the timed ones (reads 2, 4, 6, 8) at the odd updates 5, 11,
        // 17 and 23. Clean: the other 8 odd updates.
        let c = host_counter();
        let sampling = Sampling::new(2, 0);
        let mut w = writer_loop(&c, 3, sampling, Regime::paced(1e4), None);
        w.run_ops(1);
        w.reset_counts();
        w.run_ops(24);
        assert_eq!((w.write_hist.len(), w.read_hist.len()), (12, 4));
        timed(w.pacer().unwrap().busy(), 8);
        // A reader's sampled reads likewise: 24 reads, 12 timed.
        let mut r = reader_loop(&c, sampling, Regime::paced(1e4));
        r.run_ops(24);
        timed(r.pacer().unwrap().busy(), 12);
    }

    #[test]
    fn a_paced_loop_runs_its_floor_in_place_and_an_injected_delay_only_in_its_own_window() {
        // 20 updates at 10k/s with a read side each, every 2nd one sampled: the floor runs once per
        // update on its own counter, never writing it, and is timed over the same 10 unsampled
        // iterations as busy time (less any stalls; a late wake-up on a loaded machine is a stall).
        let (c, floor) = (host_counter(), host_counter());
        let mut w = writer_loop(&c, 1, Sampling::new(2, 0), Regime::paced(1e4), None);
        w.floor = Some(InPlaceFloor::of_writer(&floor, FakeClock::default()));
        // Another thread's add to the floor's slot after the floor saw it: its first read side must
        // fetch that line, once.
        floor.slot(0).fetch_add(7, Ordering::Relaxed);
        w.run_ops(20);
        let p = w.pacer().unwrap();
        timed(p.busy(), 10);
        timed(p.floor_busy(), 10);
        let floor_busy = p.floor_busy();
        assert!(floor_busy.ops > 0 && floor_busy.ticks > 0, "{floor_busy:?}");
        // The floor updated 20 times, publishing nothing of it; its read side fetched the one line
        // that changed, once.
        let f = w.floor.as_ref().unwrap();
        assert_eq!((f.writer.updates(), f.writer.load()), (20, load_after(20)));
        assert_eq!((floor.read(), c.read()), (7, load_after(20)));
        assert_eq!(f.view.fetched(), 1);
        // A reader's floor is a read side of its own.
        let mut r = reader_loop(&c, Sampling::off(), Regime::paced(1e4));
        r.floor = Some(InPlaceFloor::of_reader(&floor));
        floor.slot(0).fetch_add(1, Ordering::Relaxed);
        r.run_ops(8);
        assert_eq!(r.floor.as_ref().unwrap().view.fetched(), 1);
        timed(r.pacer().unwrap().floor_busy(), 8);
        // Flat out there is no floor in place.
        let floor = Some(InPlaceFloor::of_reader(&c));
        let r = ReaderWork::new(&c, Timer::Monotonic, Sampling::off(), None, floor, None);
        assert!(r.floor.is_none() && r.pacer().is_none());
        // 10 µs a delay (under a stall), at 1k/s: every update's window holds it (the busy mean is
        // at least half of it whatever the clock speed did since the calibration), its floor's none.
        let inject = Spin::calibrate(10_000.0).0;
        let run = || {
            let (c, floor) = (host_counter(), host_counter());
            let mut w = writer_loop(&c, 1, Sampling::off(), Regime::paced(1e3), None);
            w.floor = Some(InPlaceFloor::of_writer(&floor, FakeClock::default()));
            w.inject = inject;
            w.run_ops(10);
            let p = w.pacer().unwrap();
            let ns = |b: BusyTime| Timer::Monotonic.ns_per_tick() * b.ticks as f64 / b.ops as f64;
            (ns(p.busy()), ns(p.floor_busy()), c.read())
        };
        // A floor window preempted on a loaded host lifts the floor's mean past the bound: up to 5
        // tries, the first whose floor stays under it checked. A delay in the floor's windows lifts
        // every try's.
        let mut got = run();
        for _ in 1..5 {
            if got.1 < 2_500.0 {
                break;
            }
            got = run();
        }
        let (busy, floor_busy, sum) = got;
        assert!(busy > 5_000.0, "{busy} ns a window");
        assert!(floor_busy < 2_500.0, "{floor_busy} ns a floor window");
        assert_eq!(sum, load_after(10));
    }
}
