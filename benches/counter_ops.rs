//! Single-thread costs behind the "counter strategies" comparison: what one
//! `Writer::update` costs under each publish policy, what one
//! `ShardedCounter::read` costs at each shard level (on this host and on
//! fixture layouts with many slots), and what one read of each ratelimit
//! clock costs.
//!
//! Everything runs on the bench's own thread, pinned (best effort) to the
//! CPU it started on so the writer's slot stays local and the thread does
//! not migrate mid-sample. Nothing here is contended: these are floors, the
//! price of the code path itself with the line already in L1.
//!
//! `cargo bench --bench counter_ops`; reports land in `target/criterion`.

use contend::clock::{Clock, CoarseClock, MonotonicClock, TscClock, calibrate_tsc};
use contend::counter::{
    CounterLayout, NodeIter, Pad, PublishPolicy, ShardLevel, ShardedCounter, SlotHome, Writer,
};
use contend::placement::{Placement, allowed_cpus, current_cpu, pin_current_thread};
use contend::topology::Topology;
use contend::workload::LoadWalk;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Pre-generated loads per writer; a power of two so the index is a mask.
/// 4096 × 8 bytes = 32 KiB: it stays in L1/L2 and its reads are cheap,
/// sequential and prefetched, so the timed loop holds no RNG work.
const LOADS: usize = 4096;

/// Pins the bench thread to the CPU it is on (best effort: an unverified
/// pin just leaves the thread where the scheduler puts it) and returns that
/// CPU.
fn pin_here() -> u32 {
    let cpu = current_cpu().expect("sched_getcpu");
    let allowed = allowed_cpus().expect("sched_getaffinity");
    let pinned = pin_current_thread(cpu, &allowed, Placement::BestEffort).expect("pin");
    if !pinned.verified {
        eprintln!(
            "counter_ops: not pinned ({}); numbers may include migrations",
            pinned.note.unwrap_or_default()
        );
    }
    cpu
}

fn host_topology() -> Topology {
    Topology::read(Path::new("/")).expect("read this host's topology")
}

fn fixture(name: &str) -> Topology {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests/fixtures/topology", name]
        .iter()
        .collect();
    Topology::read(&root).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

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
    let cpu = pin_here();
    let topo = host_topology();
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
        hz: calibrate_tsc(Duration::from_millis(50)),
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

/// One `ShardedCounter::read` per iteration on `topo` at `level`.
fn bench_read(
    g: &mut BenchmarkGroup<'_, WallTime>,
    id: &str,
    topo: &Topology,
    writer_cpu: u32,
    level: ShardLevel,
    home: SlotHome,
    node_iter: NodeIter,
) {
    let layout = CounterLayout {
        level,
        pad: Pad::Line128,
        home,
        node_iter,
    };
    let counter = ShardedCounter::new(layout, topo, &[writer_cpu], Placement::Strict)
        .unwrap_or_else(|e| panic!("{id}: {e}"));
    let slots = counter.slots().len();
    let counter = &counter;
    g.bench_function(format!("{id} ({slots} slots)"), |b| {
        b.iter(|| black_box(counter).read())
    });
}

fn read(c: &mut Criterion) {
    let cpu = pin_here();
    let host = host_topology();
    let mut g = c.benchmark_group("read");
    tune(&mut g);
    for level in ShardLevel::ALL {
        let id = format!("host/{level}");
        bench_read(
            &mut g,
            &id,
            &host,
            cpu,
            level,
            SlotHome::Local,
            NodeIter::Compact,
        );
    }
    // Fixture layouts: every slot on node 0 (the one node every host has),
    // so the slot count is the fixture's while the memory is real.
    let epyc = fixture("epyc-7j13-2s-nps1-256");
    let first = epyc.online_cpus.first().expect("fixture CPUs");
    for level in ShardLevel::ALL {
        let id = format!("epyc-7j13-2s-nps1-256/{level}");
        bench_read(
            &mut g,
            &id,
            &epyc,
            first,
            level,
            SlotHome::OnNode(0),
            NodeIter::Compact,
        );
    }
    let amd = fixture("amd-2s-nps4-8node");
    let first = amd.online_cpus.first().expect("fixture CPUs");
    for (name, iter) in [("compact", NodeIter::Compact), ("bitmap", NodeIter::Bitmap)] {
        let id = format!("amd-2s-nps4-8node/node/{name}");
        bench_read(
            &mut g,
            &id,
            &amd,
            first,
            ShardLevel::Node,
            SlotHome::OnNode(0),
            iter,
        );
    }
    g.finish();
}

/// One `Clock::now` per iteration.
fn bench_clock<C: Clock>(g: &mut BenchmarkGroup<'_, WallTime>, id: &str, clock: C) {
    g.bench_function(id, |b| b.iter(|| Clock::now(black_box(&clock))));
}

fn clock(c: &mut Criterion) {
    pin_here();
    let tsc = TscClock {
        hz: calibrate_tsc(Duration::from_millis(50)),
    };
    let mut g = c.benchmark_group("clock");
    tune(&mut g);
    bench_clock(&mut g, "tsc", tsc);
    bench_clock(&mut g, "monotonic", MonotonicClock);
    bench_clock(&mut g, "coarse", CoarseClock);
    g.finish();
}

criterion_group!(benches, update, read, clock);
criterion_main!(benches);
