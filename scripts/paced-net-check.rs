// An independent check of `contend run`'s paced net cost, sharing no code
// with it: two threads pinned to CPUs 0 and 1, each at RATE updates/s
// (default 22k); every period one fenced fetch_add (lfence; rdtsc; lfence
// ... rdtscp; lfence) on a line both threads add to and, half a period
// later, one on a private line. net = shared - private, per repeat of
// 100 ms, 20 repeats; windows over 20 us are left out, as contend sets
// stalls aside. With `poisson`, the shared adds fall at exponential gaps
// of mean 1/RATE (an xorshift64* stream per thread, -ln U), each private
// add half the next gap (at most 1 us) after its shared one. With
// `ratelimit`, the shared update is the kernel's 1 ms ratelimit: a TSC
// read, an add to the thread's private pending line, and an add of the
// pending count to the shared line only when 1 ms has passed since this
// thread last published. `repeats=N` sets the count of 100 ms repeats: a
// default `contend run` gives each 22k/s figure 6-7 of them. With `fresh`,
// each repeat adds to a shared line on a page of its own, newly touched
// (as contend maps a counter afresh for every repeat), instead of one line
// for the whole run: a line's price depends on its L3 slice.
//
//   rustc -O --edition 2021 scripts/paced-net-check.rs -o /tmp/paced-net-check
//   /tmp/paced-net-check       # beside: contend run --rate 22k --level global --publish always
//   /tmp/paced-net-check 1000000 poisson   # beside: ... --rate 1M:poisson
//   /tmp/paced-net-check 22000 ratelimit repeats=7   # beside: ... --publish ratelimit:1ms
//   /tmp/paced-net-check 22000 fresh   # one new line a repeat
use std::arch::x86_64::{__rdtscp, _mm_lfence, _rdtsc};
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::{Arc, Barrier};

#[repr(align(128))]
struct Line(AtomicI64);

#[repr(align(4096))]
struct Page(Line);

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
    let hz = {
        let (a, s) = (t1(), std::time::Instant::now());
        std::thread::sleep(std::time::Duration::from_millis(100));
        (t1() - a) as f64 / s.elapsed().as_secs_f64()
    };
    let args: Vec<String> = std::env::args().collect();
    let rate: f64 = args.get(1).map_or(22_000.0, |a| a.parse().expect("RATE"));
    let poisson = args.iter().any(|a| a == "poisson");
    let ratelimit = args.iter().any(|a| a == "ratelimit");
    let fresh = args.iter().any(|a| a == "fresh");
    let repeats: usize = args
        .iter()
        .find_map(|a| a.strip_prefix("repeats="))
        .map_or(20, |n| n.parse().expect("repeats=N"));
    let (period, stall, ms) = (hz / rate, (20e-6 * hz) as u64, (1e-3 * hz) as u64);
    let ops = (0.1 * rate) as u64;
    // Every page stays mapped to the end, so no repeat reuses another's.
    let mut pages = vec![Arc::new(Page(Line(AtomicI64::new(0))))];
    let mut nets = Vec::new();
    for _ in 0..repeats {
        if fresh && nets.len() > 0 {
            pages.push(Arc::new(Page(Line(AtomicI64::new(0)))));
        }
        let shared = pages.last().unwrap().clone();
        let barrier = Arc::new(Barrier::new(2));
        let threads: Vec<_> = (0..2)
            .map(|cpu| {
                let (shared, barrier) = (shared.clone(), barrier.clone());
                std::thread::spawn(move || {
                    pin(cpu);
                    let private = Box::new(Line(AtomicI64::new(0)));
                    let (pending, mut published) = (Box::new(Line(AtomicI64::new(0))), t1());
                    barrier.wait();
                    let start = t1() + (0.01 * hz) as u64;
                    let (mut s, mut p) = ((0u64, 0u64), (0u64, 0u64));
                    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ (cpu as u64 + 1);
                    let mut gap = || {
                        x ^= x >> 12;
                        x ^= x << 25;
                        x ^= x >> 27;
                        let u = ((x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) + 1) as f64 / (1u64 << 53) as f64;
                        -u.ln() * period
                    };
                    let mut at = 0.0f64;
                    for k in 0..ops {
                        let (shared_at, private_at) = if poisson {
                            let next = gap();
                            let this = at;
                            at += next;
                            (this, this + (next / 2.0).min(1e-6 * hz))
                        } else {
                            (k as f64 * period, (k as f64 + 0.5) * period)
                        };
                        for (offset, is_shared, sum) in [(shared_at, true, &mut s), (private_at, false, &mut p)] {
                            let due = start + offset as u64;
                            while t1() < due {
                                std::hint::spin_loop();
                            }
                            let a = t0();
                            if !is_shared {
                                private.0.fetch_add(1, Relaxed);
                            } else if ratelimit {
                                let now = unsafe { _rdtsc() };
                                let n = pending.0.fetch_add(1, Relaxed) + 1;
                                if now.wrapping_sub(published) >= ms {
                                    published = now;
                                    pending.0.store(0, Relaxed);
                                    shared.0.0.fetch_add(n, Relaxed);
                                }
                            } else {
                                shared.0.0.fetch_add(1, Relaxed);
                            }
                            let w = t1() - a;
                            if w < stall {
                                (sum.0, sum.1) = (sum.0 + w, sum.1 + 1);
                            }
                        }
                    }
                    (s.0 as f64 / s.1 as f64 - p.0 as f64 / p.1 as f64) * 1e9 / hz
                })
            })
            .collect();
        let per_thread: Vec<f64> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        nets.push(per_thread.iter().sum::<f64>() / 2.0);
    }
    let n = nets.len() as f64;
    let mean = nets.iter().sum::<f64>() / n;
    let sd = (nets.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    // Student's t(0.975, n - 1), from a table: the program stays std-only.
    let t = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093]
        .get(repeats.saturating_sub(2))
        .copied()
        .unwrap_or(1.96 + 2.4 / n);
    println!(
        "net {} - private fetch_add at {rate}/s{}{} on CPUs 0,1: {mean:.1} ns, sd {sd:.1}, 95% CI ±{:.1} ns ({n} repeats of 100 ms)",
        if ratelimit { "ratelimit:1ms" } else { "shared" },
        if poisson { " poisson" } else { "" },
        if fresh { ", a fresh line each repeat" } else { "" },
        t * sd / n.sqrt()
    );
}
