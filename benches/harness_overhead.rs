//! Does the harness add anything to what it measures? (issues 4 and 11)
//!
//! One group, `harness_overhead`, four loops. Three do the same relaxed
//! `fetch_add`s of the same deltas (a `LoadWalk::new(1, 0)` load table,
//! one delta read per update):
//!
//! - `harness`: `contend`'s own writer loop, `WriterWork::run_ops`, around a
//!   `Writer` with the `always` policy on a `cpu`-level counter (the slot is
//!   node-bound, 128-byte padded memory), no read side, sampling off, no
//!   rate cap: exactly what `contend run` executes for 1 writer, cpu level,
//!   `always`.
//! - `harness_sampled`: the same with one update in 1024 timed
//!   (`rdtsc`/`rdtscp` or `clock_gettime`) into the HDR histogram.
//! - `minimal`: a hand-written loop over a `CachePadded<AtomicI64>`:
//!   `delta = load - contrib; fetch_add(delta, Relaxed); contrib = load`,
//!   nothing else.
//! - `minimal_counted`: the same, adding `delta + PUBLISH_TAG` and
//!   counting a hand-over when the add returns anything but what this loop
//!   left, as every `Writer` publish does: `minimal` less this is what the
//!   exact hand-over count costs.
//! - `bare_fetch_add`: `fetch_add(1, Relaxed)` on a private 128-byte
//!   padded line, nothing else: the cost of the atomic alone.
//! - `harness_read`: `harness` with the read side after every update
//!   (`--read-every 1`), its reads counting the lines they fetch
//!   (`ReadView`), as `contend run` does.
//! - `minimal_read`: `minimal_counted` followed by the same read side
//!   written out by hand (`ShardedCounter::read` of the same counter, then
//!   `group_shares`), no fetch count: `harness_read` less this is what the
//!   exact read-fetch count costs (with the harness's own cost, which
//!   `harness` against `minimal_counted` shows is next to none).
//!
//! Targets: `harness` within 3% ns/op of `minimal_counted` (the harness
//! adds almost nothing to the work it does), `harness` at most 1.25 × `bare_fetch_add` (the load model and
//! loop cost little beside the atomic), and `harness_sampled` within 2% of
//! `harness` (sampling on vs off changes throughput by less than 2%).
//!
//! The bench thread is pinned (best effort) to the CPU it starts on, the
//! writer's CPU. `cargo bench --bench harness_overhead`; per-op times and
//! the comparison are in the output and `target/criterion/harness_overhead`.

use contend::clock::{MonotonicClock, calibrate_tsc};
use contend::clock::{Spin, Timer, host_tsc_is_invariant};
use contend::counter::{
    CounterLayout, NodeIter, PUBLISH_TAG, Pad, ShardLevel, ShardedCounter, SlotHome, Writer,
    group_shares,
};
use contend::placement::{Placement, current_cpu, pin_current_thread};
use contend::topology::Topology;
use contend::topology::allowed_cpus;
use contend::workload::{LoadWalk, Sampling, Work, WriterWork};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use crossbeam_utils::CachePadded;
use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

fn harness_overhead(c: &mut Criterion) {
    let cpu = current_cpu().expect("sched_getcpu");
    let allowed = allowed_cpus().expect("sched_getaffinity");
    let pinned = pin_current_thread(cpu, &allowed, Placement::BestEffort).expect("pin");
    if !pinned.verified {
        eprintln!(
            "harness_overhead: not pinned ({}); numbers may include migrations",
            pinned.note.unwrap_or_default()
        );
    }
    let topo = Topology::read(Path::new("/")).expect("read this host's topology");
    let layout = CounterLayout {
        level: ShardLevel::Cpu,
        pad: Pad::Line128,
        home: SlotHome::Local,
        node_iter: NodeIter::Compact,
    };
    let counter =
        ShardedCounter::new(layout, &topo, &[cpu], Placement::Strict).expect("cpu-level counter");
    let slot = counter.slot_of_cpu(cpu).expect("slot of this CPU");
    let timer = Timer::for_host(
        host_tsc_is_invariant(),
        calibrate_tsc(Duration::from_millis(50)),
    );
    // The writer loop, `always`, with a read side every `read_every`
    // updates (0: none) and `sampling`.
    let writer_work = |read_every: u32, sampling: Sampling| {
        let writer = Writer::new(
            &counter,
            slot,
            "always".parse().expect("policy"),
            MonotonicClock,
        );
        WriterWork::new(
            writer,
            &counter,
            LoadWalk::new(1, 0),
            read_every,
            timer,
            sampling,
            None,
            None,
            None,
            Spin::default(),
        )
    };

    let mut g = c.benchmark_group("harness_overhead");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500))
        .sample_size(30)
        .throughput(Throughput::Elements(1));

    let mut work = writer_work(0, Sampling::off());
    g.bench_function("harness", |b| {
        b.iter_custom(|iters| {
            let t = Instant::now();
            work.run_ops(iters);
            t.elapsed()
        })
    });
    drop(work);

    let mut work = writer_work(0, Sampling::new(1024, timer.overhead_ticks()));
    g.bench_function("harness_sampled", |b| {
        b.iter_custom(|iters| {
            let t = Instant::now();
            work.run_ops(iters);
            t.elapsed()
        })
    });
    let samples = work.write_hist.len();
    drop(work);

    let atomic = Box::new(CachePadded::new(AtomicI64::new(0)));
    let a: &AtomicI64 = black_box(&atomic);
    let mut walk = LoadWalk::new(1, 0);
    let mut contrib = 0i64;
    g.bench_function("minimal", |b| {
        b.iter_custom(|iters| {
            // Locals, as the harness keeps them: a store per iteration
            // would make each locked add wait for the store buffer.
            let (deltas, at) = walk.split();
            let (mut cursor, mut c) = (*at, contrib);
            let t = Instant::now();
            for _ in 0..iters {
                let load = cursor.next_load(deltas);
                let delta = load - c;
                a.fetch_add(delta, Ordering::Relaxed);
                c = load;
            }
            let elapsed = t.elapsed();
            (*at, contrib) = (cursor, c);
            elapsed
        })
    });
    let counted = Box::new(CachePadded::new(AtomicI64::new(0)));
    let tagged: &AtomicI64 = black_box(&counted);
    let mut walk = LoadWalk::new(1, 0);
    let (mut contrib_counted, mut left, mut handovers) = (0i64, 0i64, 0u64);
    g.bench_function("minimal_counted", |b| {
        b.iter_custom(|iters| {
            let (deltas, at) = walk.split();
            let (mut cursor, mut c, mut l, mut h) = (*at, contrib_counted, left, handovers);
            let t = Instant::now();
            for _ in 0..iters {
                let load = cursor.next_load(deltas);
                let add = (load - c).wrapping_add(PUBLISH_TAG);
                let before = tagged.fetch_add(add, Ordering::Relaxed);
                h += u64::from(before != l);
                l = before.wrapping_add(add);
                c = load;
            }
            let elapsed = t.elapsed();
            (*at, contrib_counted, left, handovers) = (cursor, c, l, h);
            elapsed
        })
    });
    let bare = Box::new(CachePadded::new(AtomicI64::new(0)));
    let one: &AtomicI64 = black_box(&bare);
    g.bench_function("bare_fetch_add", |b| {
        b.iter_custom(|iters| {
            let t = Instant::now();
            for _ in 0..iters {
                one.fetch_add(1, Ordering::Relaxed);
            }
            t.elapsed()
        })
    });
    let mut work = writer_work(1, Sampling::off());
    g.bench_function("harness_read", |b| {
        b.iter_custom(|iters| {
            let t = Instant::now();
            work.run_ops(iters);
            t.elapsed()
        })
    });
    let fetched = work.read_fetches();
    drop(work);

    let own = counter.slot(slot);
    let mut walk = LoadWalk::new(1, 0);
    let (mut contrib_read, mut handovers_read) = (0i64, 0u64);
    let mut left_read = own.load(Ordering::Relaxed);
    g.bench_function("minimal_read", |b| {
        b.iter_custom(|iters| {
            let (deltas, at) = walk.split();
            let (mut cursor, mut c, mut l, mut h) = (*at, contrib_read, left_read, handovers_read);
            let t = Instant::now();
            for _ in 0..iters {
                let load = cursor.next_load(deltas);
                let add = (load - c).wrapping_add(PUBLISH_TAG);
                let before = own.fetch_add(add, Ordering::Relaxed);
                h += u64::from(before != l);
                l = before.wrapping_add(add);
                c = load;
                black_box(group_shares(counter.shares(), counter.read(), c, load));
            }
            let elapsed = t.elapsed();
            (*at, contrib_read, left_read, handovers_read) = (cursor, c, l, h);
            elapsed
        })
    });
    g.finish();
    eprintln!(
        "harness_overhead: harness_read's reads fetched {fetched} lines (0: nobody else adds)"
    );
    eprintln!(
        "harness_overhead: timer {timer:?}, harness_sampled recorded {samples} samples; \
         minimal's atomic ends at {} (its walk's load {contrib}); minimal_counted \
         counted {handovers} hand-overs (0: nobody else adds)",
        a.load(Ordering::Relaxed)
    );
}

criterion_group!(benches, harness_overhead);
criterion_main!(benches);
