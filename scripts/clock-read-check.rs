// An independent check of `contend run`'s clock floor (what a ratelimit's
// clock read costs per update in place), sharing no code with it. One
// thread pinned to CPU 0, paced at RATE; every period one fenced window
// (lfence; rdtsc; lfence ... rdtscp; lfence) around a private add, and half
// a period later one around the same add preceded by a ratelimit's
// decision: read the TSC, compare with the last publish (1 ms ago at most
// once, so it never publishes after the first). net = second - first,
// mean per repeat of 100 ms, 20 repeats; windows over 20 us left out.
//
//   rustc -O --edition 2021 scripts/clock-read-check.rs -o /tmp/clock-read-check
//   /tmp/clock-read-check 1000000   # beside: contend run --publish ratelimit:1ms --rate 1M
use std::arch::x86_64::{__rdtscp, _mm_lfence, _rdtsc};
use std::hint::black_box;
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};

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

fn main() {
    let rate: f64 = std::env::args().nth(1).map_or(1e6, |a| a.parse().expect("RATE"));
    let mask = [1u64; 1];
    assert_eq!(unsafe { sched_setaffinity(0, 8, mask.as_ptr()) }, 0, "pin to CPU 0");
    let hz = {
        let (a, s) = (t1(), std::time::Instant::now());
        std::thread::sleep(std::time::Duration::from_millis(100));
        (t1() - a) as f64 / s.elapsed().as_secs_f64()
    };
    let (period, stall, limit) = (hz / rate, (20e-6 * hz) as u64, (1e-3 * hz) as u64);
    let line = Line(AtomicI64::new(0));
    let mut last_publish = 0u64;
    let mut nets = Vec::new();
    for _ in 0..20 {
        let start = t1() + (0.01 * hz) as u64;
        let (mut plain, mut clocked) = ((0u64, 0u64), (0u64, 0u64));
        for k in 0..(0.1 * rate) as u64 {
            for (half, with_clock) in [(0.0, false), (0.5, true)] {
                let due = start + ((k as f64 + half) * period) as u64;
                while t1() < due {
                    std::hint::spin_loop();
                }
                let a = t0();
                if with_clock {
                    let now = unsafe { _rdtsc() };
                    if now.wrapping_sub(last_publish) >= limit && last_publish == 0 {
                        last_publish = now;
                    }
                }
                line.0.fetch_add(black_box(1), Relaxed);
                let w = t1() - a;
                let sum = if with_clock { &mut clocked } else { &mut plain };
                if w < stall {
                    (sum.0, sum.1) = (sum.0 + w, sum.1 + 1);
                }
            }
        }
        nets.push((clocked.0 as f64 / clocked.1 as f64 - plain.0 as f64 / plain.1 as f64) * 1e9 / hz);
    }
    let n = nets.len() as f64;
    let mean = nets.iter().sum::<f64>() / n;
    let sd = (nets.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    // t(0.975, 19) = 2.093
    println!(
        "clock read + ratelimit decision in place at {rate}/s on CPU 0: {mean:.1} ns, sd {sd:.1}, 95% CI ±{:.1} ns ({n} repeats of 100 ms)",
        2.093 * sd / n.sqrt()
    );
}
