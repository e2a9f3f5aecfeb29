//! What one read of each clock a ratelimit can use costs (issue 7): `tsc`
//! (`rdtsc`), `monotonic` (`clock_gettime(CLOCK_MONOTONIC)`, vDSO) and
//! `coarse` (`CLOCK_MONOTONIC_COARSE`). The kernel's ratelimit on
//! `tg->load_avg` reads `sched_clock_cpu()` on every update, and that read
//! was later found to cost up to 17% of a CPU; `contend run` reports the
//! same read cost (`clock_read_ns`) beside every ratelimit result.
//!
//! `tsc_fenced` is the read the pacer (`--rate`) makes before every wait:
//! `rdtscp; lfence` (`Timer::end`), which waits for the update before it
//! to complete so a transfer's stall counts as busy time. What it costs
//! beyond `tsc` is in every paced figure and in the paced floor, so net
//! figures carry none of it.
//!
//! One group, `clock`, on one thread pinned (best effort) to the CPU it
//! starts on. `cargo bench --bench clock`.

mod common;

use contend::clock::{Clock, CoarseClock, MonotonicClock, Timer, TscClock};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

/// One `Clock::now` per iteration.
fn bench_clock<C: Clock>(g: &mut BenchmarkGroup<'_, WallTime>, id: &str, clock: C) {
    g.bench_function(id, |b| b.iter(|| Clock::now(black_box(&clock))));
}

fn clock(c: &mut Criterion) {
    common::pin_here("clock");
    let tsc = TscClock {
        hz: common::tsc_hz(),
    };
    let mut g = c.benchmark_group("clock");
    g.measurement_time(Duration::from_secs(1))
        .warm_up_time(Duration::from_millis(300))
        .sample_size(20)
        .nresamples(common::NRESAMPLES)
        .throughput(Throughput::Elements(1));
    bench_clock(&mut g, "tsc", tsc);
    let fenced = Timer::Tsc { hz: tsc.hz };
    g.bench_function("tsc_fenced", |b| b.iter(|| black_box(fenced).end()));
    bench_clock(&mut g, "monotonic", MonotonicClock);
    bench_clock(&mut g, "coarse", CoarseClock);
    g.finish();
}

criterion_group!(benches, clock);
criterion_main!(benches);
