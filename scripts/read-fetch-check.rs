// An independent check of `contend run`'s exact read-fetch count, sharing
// no code with it. Two threads pinned to CPUs 0 and 1, paced at RATE per
// thread for 1 s, run a per-CPU split counter (two 128-byte lines): every
// period a thread adds 1 to its own line, then reads both. For the read of
// the other thread's line it counts
//   - changed: the value differs from the one this thread last read there
//     (what contend counts);
//   - slow: the fenced read (lfence; rdtsc; lfence ... rdtscp; lfence) took
//     more than its own line's median read + MARGIN ns: a physical sign the
//     line came from the other core's cache.
// With SMT siblings sharing an L1, "slow" finds few fetches even when the
// value changed; across cores the two should agree within a few %.
//
//   rustc -O --edition 2021 scripts/read-fetch-check.rs -o /tmp/read-fetch-check
//   /tmp/read-fetch-check 100000 10   # beside: contend run --level cpu --publish always --rate 100k
use std::arch::x86_64::{__rdtscp, _mm_lfence, _rdtsc};
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::{Arc, Barrier};

#[repr(align(128))]
struct Line(AtomicI64);

extern "C" {
    fn sched_setaffinity(pid: i32, size: usize, mask: *const u64) -> i32;
}

fn t0() -> u64 {
    unsafe { _mm_lfence(); let t = _rdtsc(); _mm_lfence(); t }
}

fn t1() -> u64 {
    unsafe { let mut a = 0; let t = __rdtscp(&mut a); _mm_lfence(); t }
}

fn pin(cpu: usize) {
    let mask: [u64; 16] = std::array::from_fn(|i| if i == cpu / 64 { 1 << (cpu % 64) } else { 0 });
    assert_eq!(unsafe { sched_setaffinity(0, 128, mask.as_ptr()) }, 0, "pin to CPU {cpu}");
}

fn main() {
    let args: Vec<f64> = std::env::args().skip(1).map(|a| a.parse().expect("RATE MARGIN_NS")).collect();
    let (rate, margin_ns) = (args.first().copied().unwrap_or(1e5), args.get(1).copied().unwrap_or(10.0));
    let hz = {
        let (a, s) = (t1(), std::time::Instant::now());
        std::thread::sleep(std::time::Duration::from_millis(100));
        (t1() - a) as f64 / s.elapsed().as_secs_f64()
    };
    let period = hz / rate;
    let lines = Arc::new([Line(AtomicI64::new(0)), Line(AtomicI64::new(0))]);
    let barrier = Arc::new(Barrier::new(2));
    let threads: Vec<_> = (0..2usize)
        .map(|me| {
            let (lines, barrier) = (lines.clone(), barrier.clone());
            std::thread::spawn(move || {
                pin(me);
                let (own, other) = (&lines[me].0, &lines[1 - me].0);
                let mut seen = other.load(Relaxed);
                let (mut own_ticks, mut other_ticks) = (Vec::new(), Vec::new());
                let mut changed = Vec::new();
                barrier.wait();
                let start = t1() + (0.01 * hz) as u64;
                for k in 0..rate as u64 {
                    let due = start + (k as f64 * period) as u64;
                    while t1() < due {
                        std::hint::spin_loop();
                    }
                    own.fetch_add(1, Relaxed);
                    let a = t0();
                    std::hint::black_box(own.load(Relaxed));
                    own_ticks.push(t1() - a);
                    let a = t0();
                    let v = other.load(Relaxed);
                    other_ticks.push(t1() - a);
                    changed.push(v != seen);
                    seen = v;
                }
                let mut sorted = own_ticks.clone();
                sorted.sort_unstable();
                let limit = sorted[sorted.len() / 2] as f64 + margin_ns * hz / 1e9;
                let slow = other_ticks.iter().filter(|&&t| t as f64 > limit).count();
                let both = changed.iter().zip(&other_ticks).filter(|(c, t)| **c && **t as f64 > limit).count();
                let n = changed.len();
                let changed = changed.iter().filter(|&&c| c).count();
                (n, changed, slow, both)
            })
        })
        .collect();
    for (cpu, t) in threads.into_iter().enumerate() {
        let (n, changed, slow, both) = t.join().unwrap();
        println!(
            "CPU {cpu}: {n} reads of the other line at {rate}/s: changed {changed} ({:.3}/read), slow (> own median + {margin_ns} ns) {slow} ({:.3}/read), both {both}",
            changed as f64 / n as f64,
            slow as f64 / n as f64
        );
    }
}
