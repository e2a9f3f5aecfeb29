// An independent check of `contend run`'s flat-out hand-over count and of
// the model's one-transfer-at-a-time bound, sharing no code with either.
// Two threads pinned to CPUs 0 and 1 hammer fetch_add on one 128-byte
// aligned line for 1 s: thread 0 adds 1, thread 1 adds 1 << 32, so each
// add's returned value tells whether anyone else added since this
// thread's last add (a hand-over: it differs from the last return plus
// its own increment). Beside it, the one-way CAS ping-pong (round trip /
// 2, 1M round trips) the model prices a hand-over at.
//
//   rustc -O --edition 2021 scripts/handover-check.rs -o /tmp/handover-check
//   /tmp/handover-check        # beside: contend run --rate max --level global --publish always
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::time::{Duration, Instant};

#[repr(align(128))]
struct Line(AtomicU64);

extern "C" {
    fn sched_setaffinity(pid: i32, size: usize, mask: *const u64) -> i32;
}

fn pin(cpu: usize) {
    let mask: [u64; 16] = std::array::from_fn(|i| if i == cpu / 64 { 1 << (cpu % 64) } else { 0 });
    assert_eq!(unsafe { sched_setaffinity(0, 128, mask.as_ptr()) }, 0, "pin to CPU {cpu}");
}

/// Updates and hand-overs of one thread in `d`.
fn hammer(line: &Line, id: usize, go: &AtomicBool, stop: &AtomicBool) -> (u64, u64) {
    pin(id);
    let inc = if id == 0 { 1 } else { 1u64 << 32 };
    while !go.load(Acquire) {}
    let (mut updates, mut handovers) = (0u64, 0u64);
    let mut last = line.0.fetch_add(inc, SeqCst);
    while !stop.load(Relaxed) {
        for _ in 0..256 {
            let got = line.0.fetch_add(inc, SeqCst);
            if got != last.wrapping_add(inc) {
                handovers += 1;
            }
            last = got;
            updates += 1;
        }
    }
    (updates, handovers)
}

fn pingpong_ns(rounds: u64) -> f64 {
    let line = Line(AtomicU64::new(0));
    let t = std::thread::scope(|s| {
        s.spawn(|| {
            pin(1);
            for i in 0..rounds {
                while line.0.compare_exchange(2 * i + 1, 2 * i + 2, SeqCst, Relaxed).is_err() {}
            }
        });
        pin(0);
        let t0 = Instant::now();
        for i in 0..rounds {
            while line.0.compare_exchange(2 * i, 2 * i + 1, SeqCst, Relaxed).is_err() {}
        }
        while line.0.load(SeqCst) != 2 * rounds {}
        t0.elapsed()
    });
    t.as_secs_f64() * 1e9 / (2 * rounds) as f64
}

fn main() {
    let one_way = pingpong_ns(1_000_000);
    let line = Line(AtomicU64::new(0));
    let (go, stop) = (AtomicBool::new(false), AtomicBool::new(false));
    let d = Duration::from_secs(1);
    let counts = std::thread::scope(|s| {
        let h: Vec<_> = (0..2).map(|id| {
            let (line, go, stop) = (&line, &go, &stop);
            s.spawn(move || hammer(line, id, go, stop))
        }).collect();
        go.store(true, Release);
        std::thread::sleep(d);
        stop.store(true, Relaxed);
        h.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>()
    });
    let updates: u64 = counts.iter().map(|c| c.0).sum();
    let handovers: u64 = counts.iter().map(|c| c.1).sum();
    let secs = d.as_secs_f64();
    let after = pingpong_ns(1_000_000);
    println!("ping-pong one-way: {one_way:.1} ns before, {after:.1} ns after");
    println!(
        "flat out, 2 writers: {:.2}M updates/s, {:.2}M hand-overs/s, {:.1} updates per ownership",
        updates as f64 / secs / 1e6,
        handovers as f64 / secs / 1e6,
        updates as f64 / handovers.max(1) as f64
    );
    println!(
        "one transfer at a time at the ping-pong: {:.2}M hand-overs/s (before) / {:.2}M (after)",
        1e3 / one_way,
        1e3 / after
    );
}
