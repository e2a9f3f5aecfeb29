//! Seed 004 (Hao Jia, "sched/topology: Optimized copy default topology in
//! sched_init_numa()"): copying the default topology array, 2 or 4 entries
//! of the 64-byte `struct sched_domain_topology_level` (128 and 256 bytes),
//! with the old element loop `tl[i] = sched_domain_topology[i]` against
//! `memcpy`. The patch reported, in RDTSC ticks, 65.71 -> 55.00 for 128
//! bytes and 516.57 -> 85.33 for 256 bytes (Xeon 8260, one cold copy at
//! boot). Here the copy is hot (same buffers every iteration), so this
//! measures the instructions, not the cache misses.
//!
//! One group, `topology_copy_ticks`, measured in TSC ticks through a custom
//! criterion [`Measurement`] ([`Tsc`]: `rdtsc` at the start of a batch,
//! `rdtscp` at its end), as the seed did; `scripts/bench-summary` reports
//! groups whose name contains `ticks` in ticks. Functions `loop` and
//! `memcpy`, parameter the byte count.
//!
//! **Keeping the loop a loop.** Both copies are `#[inline(never)]`
//! functions taking slices whose length is only known at run time (the
//! kernel's count `i` is computed at run time too), so the memcpy variant
//! is a real call to `memcpy`. The loop writes each 8-byte word of each
//! element with `ptr::write_volatile`: the compiler may neither merge the
//! stores nor turn the loop into `memcpy`, and it emits what the kernel's
//! struct assignment compiles to under `-mno-sse`, eight 8-byte loads and
//! stores per element.
//!
//! How that was checked (x86_64, rustc 1.95, after `cargo bench --no-run`):
//! `objdump -d --no-show-raw-insn -C target/release/deps/topology_copy-<hash>`,
//! symbols `topology_copy::copy_loop`, `topology_copy::copy_memcpy` and
//! their call sites in `criterion::bencher::Bencher<M>::iter`.
//! - `copy_loop`: `cmp`/`cmovb` (the shorter slice length), `shl $0x6`,
//!   then a loop whose body is eight `mov k(%rdx,%rax,1),%rcx` /
//!   `mov %rcx,k(%rdi,%rax,1)` pairs, k = 0x0, 0x8, … 0x38, then
//!   `add $0x40,%rax; cmp; jne`: one element per pass, 8-byte general
//!   register moves, no call, no `rep movs`, no vector registers.
//! - `copy_memcpy`: `cmp` of the two lengths (`jne` to the length-mismatch
//!   panic), `shl $0x6`, and a tail `jmp *…(%rip) <memcpy@GLIBC_2.14>`.
//! - `Bencher::iter` calls each directly (`call <topology_copy::copy_loop>`,
//!   `call <topology_copy::copy_memcpy>`), once per iteration.
//!
//! `cargo bench --bench topology_copy`.

mod common;

use contend::clock::{rdtsc, rdtscp};
use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use std::hint::black_box;
use std::time::Duration;

/// TSC ticks: `rdtsc` before a batch of iterations, `rdtscp` (which waits
/// for earlier instructions) after it.
struct Tsc;

impl Measurement for Tsc {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        rdtsc()
    }
    fn end(&self, start: u64) -> u64 {
        rdtscp().wrapping_sub(start)
    }
    fn add(&self, v1: &u64, v2: &u64) -> u64 {
        v1 + v2
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &TicksFormatter
    }
}

/// Values in ticks, unscaled; throughputs per tick.
struct TicksFormatter;

impl ValueFormatter for TicksFormatter {
    fn scale_values(&self, _typical: f64, _values: &mut [f64]) -> &'static str {
        "ticks"
    }

    fn scale_throughputs(
        &self,
        _typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let (per, unit) = match *throughput {
            Throughput::Bytes(b) | Throughput::BytesDecimal(b) => (b as f64, "B/tick"),
            Throughput::Bits(b) => (b as f64, "b/tick"),
            Throughput::Elements(e) | Throughput::ElementsAndBytes { elements: e, .. } => {
                (e as f64, "elem/tick")
            }
        };
        for v in values {
            *v = per / *v;
        }
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ticks"
    }
}

/// `struct sched_domain_topology_level`: 64 bytes, 8-byte aligned (mask
/// and flags function pointers, flags, numa_level, cpumask pointer, name,
/// padding), kept as eight words.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct TopologyLevel {
    words: [u64; 8],
}

const _: () = assert!(std::mem::size_of::<TopologyLevel>() == 64);

/// The old kernel loop, one element at a time; volatile stores keep it from
/// becoming `memcpy` (see the module docs).
#[inline(never)]
fn copy_loop(dst: &mut [TopologyLevel], src: &[TopologyLevel]) {
    for (d, s) in dst.iter_mut().zip(src) {
        for (dw, &sw) in d.words.iter_mut().zip(&s.words) {
            // SAFETY: `dw` is a valid, aligned, exclusive reference.
            unsafe { std::ptr::write_volatile(dw, sw) };
        }
    }
}

/// The patch: one `memcpy` of the whole array.
#[inline(never)]
fn copy_memcpy(dst: &mut [TopologyLevel], src: &[TopologyLevel]) {
    dst.copy_from_slice(src);
}

/// One copy of `entries` elements per iteration. `copy` is a function item,
/// so the call is direct (no function pointer).
fn bench_copy(
    g: &mut BenchmarkGroup<'_, Tsc>,
    name: &str,
    copy: impl Fn(&mut [TopologyLevel], &[TopologyLevel]),
    entries: usize,
    src: &[TopologyLevel],
) {
    let bytes = entries * std::mem::size_of::<TopologyLevel>();
    let mut dst = vec![TopologyLevel::default(); src.len()];
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_with_input(BenchmarkId::new(name, bytes), &entries, |b, &n| {
        b.iter(|| {
            let n = black_box(n);
            copy(black_box(&mut dst[..n]), black_box(&src[..n]));
        })
    });
    assert!(
        dst[..entries]
            .iter()
            .zip(src)
            .all(|(d, s)| d.words == s.words)
    );
}

fn topology_copy(c: &mut Criterion<Tsc>) {
    common::pin_here("topology_copy");
    let src: Vec<TopologyLevel> = (0..4u64)
        .map(|e| TopologyLevel {
            words: std::array::from_fn(|w| e * 8 + w as u64 + 1),
        })
        .collect();
    let mut g = c.benchmark_group("topology_copy_ticks");
    g.measurement_time(Duration::from_secs(1))
        .warm_up_time(Duration::from_millis(300))
        .sample_size(20)
        .nresamples(common::NRESAMPLES);
    for entries in [2usize, 4] {
        bench_copy(&mut g, "loop", copy_loop, entries, &src);
        bench_copy(&mut g, "memcpy", copy_memcpy, entries, &src);
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(Tsc);
    targets = topology_copy
}
criterion_main!(benches);
