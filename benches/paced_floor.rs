//! What the paced loop adds to the busy time it measures (issue 29).
//!
//! One group, `paced_floor`, each bench paced at the seed's 22k updates/s
//! on one pinned CPU, and each reporting **busy ns per update**, not wall
//! time: `iter_custom` returns the mean of the timed busy windows times
//! the iterations, so criterion's per-iteration figure is the busy ns of
//! one update.
//!
//! - `minimal_fenced_add`: a hand-written paced loop: spin until the
//!   slot's deadline, then `lfence; rdtsc; lfence`, one relaxed
//!   `fetch_add` on a private 128-byte line, `rdtscp; lfence`. The window
//!   between the two reads is what an update costs with nothing around it.
//! - `minimal_fenced_add_and_read_side`: the same with the read side in
//!   the window, written out: the floor's counter summed and
//!   `calc_group_shares` (`shares × load / tg_weight`, a 64-bit division).
//! - `floor`: `contend run`'s paced floor, exactly: `WriterWork` with
//!   policy `never` on a global slot nobody writes, the read side after
//!   every update (`--read-every 1`), one update in 4 sampled (the
//!   default at 22k/s), its busy time from its pacer (the windows from the
//!   fenced tick that released each unsampled update to the one after its
//!   read side).
//! - `floor_no_read_side`: the same with `--read-every 0`: what the read
//!   side (a load of the slot and `calc_group_shares`' division) adds.
//!
//! Goal: `floor` at most 1.5 × `minimal_fenced_add`, and its spread
//! between samples within 1 ns; `floor_no_read_side` against
//! `minimal_fenced_add` and `floor` against
//! `minimal_fenced_add_and_read_side` show what the loop itself adds.
//! `cargo bench --bench paced_floor`.

mod common;

use contend::clock::{Spin, Timer, TscClock};
use contend::counter::{
    CounterLayout, NodeIter, Pad, PublishPolicy, ShardLevel, ShardedCounter, SlotHome, Writer,
    group_shares,
};
use contend::placement::Placement;
use contend::workload::{LoadWalk, Pacer, Regime, SEED_RATE, Sampling, Work, WriterWork};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use crossbeam_utils::CachePadded;
use std::hint::black_box;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

/// `iters` updates whose busy windows averaged `ticks / ops` timer ticks,
/// as the duration criterion divides by `iters`.
fn as_duration(ticks: u64, ops: u64, iters: u64, timer: Timer) -> Duration {
    let per_op_ns = ticks as f64 * timer.ns_per_tick() / ops.max(1) as f64;
    Duration::from_secs_f64(per_op_ns * iters as f64 * 1e-9)
}

/// `iters` operations `op(k)` paced at the seed's rate by hand: spin to
/// slot k's deadline, then time `op` between `lfence; rdtsc; lfence` and
/// `rdtscp; lfence`. Returns the ticks inside the windows.
fn fenced_windows(timer: Timer, iters: u64, mut op: impl FnMut(u64)) -> u64 {
    let period = timer.ticks_per_sec() / SEED_RATE;
    let start = timer.end();
    let mut busy = 0;
    for k in 1..=iters {
        let due = start + (k as f64 * period) as u64;
        while timer.end() < due {
            std::hint::spin_loop();
        }
        let t0 = timer.start();
        op(k);
        busy += timer.end() - t0;
    }
    busy
}

fn paced_floor(c: &mut Criterion) {
    let cpu = common::pin_here("paced_floor");
    let topo = common::host_topology();
    let hz = common::tsc_hz();
    let timer = common::run_timer(hz);
    let layout = CounterLayout {
        level: ShardLevel::Global,
        pad: Pad::Line128,
        home: SlotHome::Local,
        node_iter: NodeIter::Compact,
    };
    let counter =
        ShardedCounter::new(layout, &topo, &[cpu], Placement::Strict).expect("global counter");
    let every = contend::runner::sample_every(None, Regime::SEED);
    let floor_work = |read_every: u32| {
        let writer = Writer::new(&counter, 0, PublishPolicy::NEVER, TscClock { hz });
        WriterWork::new(
            writer,
            &counter,
            LoadWalk::new(1, 0),
            read_every,
            timer,
            Sampling::new(every, timer.overhead_ticks()),
            Pacer::of(timer, Regime::SEED, 0),
            None,
            None,
            Spin::default(),
        )
    };

    let mut g = c.benchmark_group("paced_floor");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500))
        .sample_size(20)
        .nresamples(common::NRESAMPLES)
        .throughput(Throughput::Elements(1));

    let private = Box::new(CachePadded::new(AtomicI64::new(0)));
    let line: &AtomicI64 = black_box(&private);
    g.bench_function("minimal_fenced_add", |b| {
        b.iter_custom(|iters| {
            let busy = fenced_windows(timer, iters, |_| {
                line.fetch_add(1, Ordering::Relaxed);
            });
            as_duration(busy, iters, iters, timer)
        })
    });
    g.bench_function("minimal_fenced_add_and_read_side", |b| {
        b.iter_custom(|iters| {
            let busy = fenced_windows(timer, iters, |k| {
                let load = black_box(1024 + (k % 2048) as i64);
                line.fetch_add(1, Ordering::Relaxed);
                black_box(group_shares(counter.shares(), counter.read(), 0, load));
            });
            as_duration(busy, iters, iters, timer)
        })
    });

    for (name, read_every) in [("floor", 1), ("floor_no_read_side", 0)] {
        let mut work = floor_work(read_every);
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                work.reset_counts();
                work.run_ops(iters);
                let busy = work.pacer().expect("paced").busy();
                as_duration(busy.ticks, busy.ops, iters, timer)
            })
        });
    }
    g.finish();
    eprintln!(
        "paced_floor: timer {timer:?}, one update in {every} sampled; the private line ends at {}",
        line.load(Ordering::Relaxed)
    );
}

criterion_group!(benches, paced_floor);
criterion_main!(benches);
