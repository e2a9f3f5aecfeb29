// An independent check of `contend run`'s paced net cost, sharing no code
// with it: two threads pinned to CPUs 0 and 1, each at 22k updates/s; every
// period one fenced fetch_add (lfence; rdtsc; lfence ... rdtscp; lfence) on
// a line both threads add to and, half a period later, one on a private
// line. net = shared - private, per repeat of 100 ms, 20 repeats; windows
// over 20 us are left out, as contend sets stalls aside.
//
//   rustc -O --edition 2021 scripts/paced-net-check.rs -o /tmp/paced-net-check
//   /tmp/paced-net-check       # beside: contend run --rate 22k --level global --publish always
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
    let hz = {
        let (a, s) = (t1(), std::time::Instant::now());
        std::thread::sleep(std::time::Duration::from_millis(100));
        (t1() - a) as f64 / s.elapsed().as_secs_f64()
    };
    let (period, stall) = (hz / 22_000.0, (20e-6 * hz) as u64);
    let shared = Arc::new(Line(AtomicI64::new(0)));
    let mut nets = Vec::new();
    for _ in 0..20 {
        let barrier = Arc::new(Barrier::new(2));
        let threads: Vec<_> = (0..2)
            .map(|cpu| {
                let (shared, barrier) = (shared.clone(), barrier.clone());
                std::thread::spawn(move || {
                    pin(cpu);
                    let private = Box::new(Line(AtomicI64::new(0)));
                    barrier.wait();
                    let start = t1() + (0.01 * hz) as u64;
                    let (mut s, mut p) = ((0u64, 0u64), (0u64, 0u64));
                    for k in 0..2200u64 {
                        for (half, line, sum) in [(0.0, &shared.0, &mut s), (0.5, &private.0, &mut p)] {
                            let due = start + ((k as f64 + half) * period) as u64;
                            while t1() < due {
                                std::hint::spin_loop();
                            }
                            let a = t0();
                            line.fetch_add(1, Relaxed);
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
    // t(0.975, 19) = 2.093
    println!(
        "net shared - private fetch_add at 22k/s on CPUs 0,1: {mean:.1} ns, sd {sd:.1}, 95% CI ±{:.1} ns ({n} repeats of 100 ms)",
        2.093 * sd / n.sqrt()
    );
}
