// An independent check of `contend run --paced both`'s "in place against
// alone", sharing no code with contend: does a shared add cost less when
// the same two CPUs hand other lines over between its updates? Two
// threads pinned to CPUs 0 and 1, each at RATE periods/s (default 22k).
// The period is cut into 8 slots: slot 0 is a fenced fetch_add (lfence;
// rdtsc; lfence ... rdtscp; lfence) on line M, which both threads add to,
// slot 4 one on a private line (the floor); net = shared - private. In
// company, slots 1-3 and 5-7 add (untimed) to six other lines both
// threads add to, each on a page of its own: what contend's other lanes
// in place do. Alone, those slots spin. With `foot=N`, each company slot
// also reads N consecutive lines of a buffer of the thread's own (its
// own N lines per slot: 6N lines a period), as contend's other lanes'
// work in place takes room in the L1 cache. Repeats of 100 ms take turns,
// ABBA per pair of rounds, on the same line M (one page, one L3 slice, as
// contend's round shares its lines now); windows over 20 us are left
// out. It prints each mode's mean net and the paired differences company
// - alone of the net, the shared add and the private add, each with its
// 95% CI over the rounds. With `publish=P`, slot 0 adds to M only in P%
// of periods, drawn per thread (a xorshift of its own, the same sequence
// in both modes), as `threshold:64` publishes 40% of its updates: the
// window is timed either way, so the shared add's figure is the mean
// over every period, published or not.
//
//   rustc -O --edition 2021 scripts/company-check.rs -o /tmp/company-check
//   /tmp/company-check [RATE] [rounds=N] [foot=N] [publish=P]   # beside: contend run --paced both
use std::arch::x86_64::{__rdtscp, _mm_lfence, _rdtsc};
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::{Arc, Barrier};

#[repr(align(4096))]
struct Page(AtomicI64);

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

/// Shared and private ns (both threads' means) of one 100 ms repeat.
fn repeat(hz: f64, rate: f64, foot: usize, publish: u64, lines: &Arc<Vec<Page>>, company: bool) -> [f64; 2] {
    let (period, stall) = (hz / rate, (20e-6 * hz) as u64);
    let ops = (0.1 * rate) as u64;
    let barrier = Arc::new(Barrier::new(2));
    let threads: Vec<_> = (0..2)
        .map(|cpu| {
            let (lines, barrier) = (lines.clone(), barrier.clone());
            std::thread::spawn(move || {
                pin(cpu);
                let private = Page(AtomicI64::new(0));
                let buffer = vec![1u64; 6 * 8 * foot + 8];
                let mut read = 0u64;
                // This thread's draws of which periods publish.
                let mut draw = 0x9E37_79B9_7F4A_7C15u64 ^ (cpu as u64 + 1);
                barrier.wait();
                let start = t1() + (0.01 * hz) as u64;
                let (mut s, mut p) = ((0u64, 0u64), (0u64, 0u64));
                for k in 0..ops {
                    for slot in 0..8usize {
                        let other = slot != 0 && slot != 4;
                        if other && !company {
                            continue;
                        }
                        let due = start + ((k as f64 + slot as f64 / 8.0) * period) as u64;
                        while t1() < due {
                            std::hint::spin_loop();
                        }
                        if other {
                            lines[slot].0.fetch_add(1, Relaxed);
                            let lane = if slot < 4 { slot - 1 } else { slot - 2 };
                            for j in 0..foot {
                                let at = &buffer[(lane * foot + j) * 8];
                                read = read.wrapping_add(unsafe { std::ptr::read_volatile(at) });
                            }
                            continue;
                        }
                        if slot == 0 {
                            draw ^= draw << 13;
                            draw ^= draw >> 7;
                            draw ^= draw << 17;
                        }
                        let publishes = slot == 0 && draw % 100 < publish;
                        let a = t0();
                        if publishes {
                            lines[0].0.fetch_add(1, Relaxed);
                        } else if slot == 4 {
                            private.0.fetch_add(1, Relaxed);
                        }
                        let w = t1() - a;
                        let sum = if slot == 0 { &mut s } else { &mut p };
                        if w < stall {
                            (sum.0, sum.1) = (sum.0 + w, sum.1 + 1);
                        }
                    }
                }
                std::hint::black_box(read);
                [s.0 as f64 / s.1 as f64 * 1e9 / hz, p.0 as f64 / p.1 as f64 * 1e9 / hz]
            })
        })
        .collect();
    let each: Vec<[f64; 2]> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    [(each[0][0] + each[1][0]) / 2.0, (each[0][1] + each[1][1]) / 2.0]
}

fn mean_ci(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let sd = (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    // Student's t(0.975, n - 1) for n of 20 or more, near enough.
    (mean, (1.96 + 2.4 / n) * sd / n.sqrt())
}

fn main() {
    let hz = {
        let (a, s) = (t1(), std::time::Instant::now());
        std::thread::sleep(std::time::Duration::from_millis(100));
        (t1() - a) as f64 / s.elapsed().as_secs_f64()
    };
    let args: Vec<String> = std::env::args().collect();
    let rate: f64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(22_000.0);
    let rounds: usize = args
        .iter()
        .find_map(|a| a.strip_prefix("rounds="))
        .map_or(30, |n| n.parse().expect("rounds=N"));
    let foot: usize = args
        .iter()
        .find_map(|a| a.strip_prefix("foot="))
        .map_or(0, |n| n.parse().expect("foot=N"));
    let publish: u64 = args
        .iter()
        .find_map(|a| a.strip_prefix("publish="))
        .map_or(100, |n| n.parse().expect("publish=P (percent)"));
    let lines: Arc<Vec<Page>> = Arc::new((0..8).map(|_| Page(AtomicI64::new(0))).collect());
    // Per round: net alone, net in company, and company - alone of the
    // net, the shared add and the private add.
    let mut by: [Vec<f64>; 5] = Default::default();
    for r in 0..rounds {
        // ABBA: company first in rounds 1, 2, 5, 6, ...
        let company_first = (r + 1) % 4 >= 2;
        let first = repeat(hz, rate, foot, publish, &lines, company_first);
        let second = repeat(hz, rate, foot, publish, &lines, !company_first);
        let (a, c) = if company_first { (second, first) } else { (first, second) };
        let (na, nc) = (a[0] - a[1], c[0] - c[1]);
        for (v, x) in by.iter_mut().zip([na, nc, nc - na, c[0] - a[0], c[1] - a[1]]) {
            v.push(x);
        }
    }
    let [a, c, d, ds, dp] = by.map(|v| mean_ci(&v));
    let ci = |(m, h): (f64, f64)| format!("{m:+.1} ns [{:+.1}, {:+.1}]", m - h, m + h);
    println!(
        "net shared - private fetch_add at {rate}/s on CPUs 0,1, {rounds} rounds of 100 ms each way: alone {:.1} ±{:.1} ns, with six other shared lines in the period (and {} lines of reads) {:.1} ±{:.1} ns; company - alone {} (the shared add {}, the private add {})",
        a.0,
        a.1,
        6 * foot,
        c.0,
        c.1,
        ci(d),
        ci(ds),
        ci(dp)
    );
}
