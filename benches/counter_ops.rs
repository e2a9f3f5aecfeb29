//! Single-thread costs behind the "counter strategies" comparison: what one
//! `Writer::update` costs under each publish policy (and, for the
//! ratelimit, each clock it can read). The read side is `read_side.rs`, the
//! clocks alone `clock.rs`, many writers `contention.rs`.
//!
//! Everything runs on the bench's own thread, pinned (best effort) to the
//! CPU it started on so the writer's slot stays local and the thread does
//! not migrate mid-sample. Nothing here is contended: these are floors, the
//! price of the code path itself with the line already in L1.
//!
//! `cargo bench --bench counter_ops`; reports land in `target/criterion`.

mod common;

use contend::clock::{Clock, CoarseClock, MonotonicClock, TscClock};
use contend::counter::{
    CounterLayout, NodeIter, Pad, PublishPolicy, ShardLevel, ShardedCounter, SlotHome, Writer,
};
use contend::placement::Placement;
use contend::workload::LoadWalk;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Pre-generated loads per writer; a power of two so the index is a mask.
/// 4096 × 8 bytes = 32 KiB: it stays in L1/L2 and its reads are cheap,
/// sequential and prefetched, so the timed loop holds no RNG work.
const LOADS: usize = 4096;

fn tune(g: &mut BenchmarkGroup<'_, WallTime>) {
    g.measurement_time(Duration::from_secs(1))
        .warm_up_time(Duration::from_millis(300))
        .sample_size(20)
        .nresamples(10_000)
        .throughput(Throughput::Elements(1));
}

/// One `Writer::update` per iteration, loads taken from a pre-generated
/// `LoadWalk` (see [`LOADS`]) so the RNG is outside the timed loop.
fn bench_update<C: Clock>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    id: &str,
    counter: &ShardedCounter,
    slot: usize,
    policy: &str,
    clock: C,
    loads: &[i64],
) {
    let policy: PublishPolicy = policy.parse().expect("policy");
    let mut writer = Writer::new(counter, slot, policy, clock);
    let mask = loads.len() - 1;
    let mut i = 0usize;
    g.bench_function(id, |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                writer.update(loads[i & mask]);
                i = i.wrapping_add(1);
            }
            let elapsed = start.elapsed();
            black_box(&mut writer);
            elapsed
        })
    });
    let stats = writer.stats();
    eprintln!(
        "  update/{id}: {} of {} updates published ({:.2e})",
        stats.publishes,
        stats.updates,
        stats.publishes as f64 / stats.updates.max(1) as f64
    );
}

fn update(c: &mut Criterion) {
    let cpu = common::pin_here("counter_ops");
    let topo = common::host_topology();
    let layout = CounterLayout {
        level: ShardLevel::Global,
        pad: Pad::Line128,
        home: SlotHome::Local,
        node_iter: NodeIter::Compact,
    };
    let counter = ShardedCounter::new(layout, &topo, &[cpu], Placement::Strict)
        .expect("global counter on this host");
    let slot = counter.slot_of_cpu(cpu).expect("slot of this CPU");
    let mut walk = LoadWalk::new(1, 0);
    let loads: Vec<i64> = (0..LOADS).map(|_| walk.next_load()).collect();
    let tsc = TscClock {
        hz: common::tsc_hz(),
    };

    let mut g = c.benchmark_group("update");
    tune(&mut g);
    let (ctr, l) = (&counter, &loads[..]);
    bench_update(&mut g, "always", ctr, slot, "always", MonotonicClock, l);
    bench_update(
        &mut g,
        "threshold:64",
        ctr,
        slot,
        "threshold:64",
        MonotonicClock,
        l,
    );
    bench_update(
        &mut g,
        "ratelimit:1ms/tsc",
        ctr,
        slot,
        "ratelimit:1ms",
        tsc,
        l,
    );
    bench_update(
        &mut g,
        "ratelimit:1ms+threshold:64/tsc",
        ctr,
        slot,
        "ratelimit:1ms+threshold:64",
        tsc,
        l,
    );
    bench_update(&mut g, "batch:32", ctr, slot, "batch:32", MonotonicClock, l);
    bench_update(
        &mut g,
        "ratelimit:1ms/monotonic",
        ctr,
        slot,
        "ratelimit:1ms",
        MonotonicClock,
        l,
    );
    bench_update(
        &mut g,
        "ratelimit:1ms/coarse",
        ctr,
        slot,
        "ratelimit:1ms",
        CoarseClock,
        l,
    );
    g.finish();
}

criterion_group!(benches, update);
criterion_main!(benches);
