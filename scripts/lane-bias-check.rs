// An independent check of the bias `contend run --paced in-place` showed
// while lanes of different filters shared one compiled loop: threshold:64
// lanes per CPU read 23 ns dearer beside `always` lanes than alone.
// Shares no code with contend. Two threads pinned to CPUs 0 and 1, paced
// at 22k updates/s on the same TSC schedule (thread 1's phase drawn anew
// each block). Each period, lane T (threshold:64 on a drawn delta: 39% of
// updates publish) adds to this CPU's slot if it publishes, then reads
// both slots (noting a changed one, as a read view does) and divides by
// their sum (the group share); lane A (`always`), half a period later,
// does the same on its own pair of lines. The publish decision is made
// without a branch and waits on a division, so the one branch on it is
// the `if` around the add. Each update is timed fenced (lfence; rdtsc;
// lfence ... rdtscp; lfence). Four variants take turns in 0.25 s blocks,
// 40 rounds:
//   shared alone   T only, through one update function for every policy
//   shared both    T and A through that one function (one publish branch)
//   own alone      T only, through a function compiled for its policy
//   own both       T and A, each through its own compiled function
// It prints T's mean window per variant (ns, mean of block means ± 95%)
// and the paired per-round differences "both - alone" for each code form.
// If "shared" shows a difference and "own" none, one shared branch is
// enough to bias a lane in place.
//
//   rustc -O --edition 2021 scripts/lane-bias-check.rs -o /tmp/lane-bias-check
//   /tmp/lane-bias-check [global]   # global: both CPUs add to one slot
use std::arch::x86_64::{__rdtscp, _mm_lfence, _rdtsc};
use std::hint::black_box;
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};

#[repr(align(4096))]
struct Page([AtomicI64; 512]);

extern "C" {
    fn sched_setaffinity(pid: i32, size: usize, mask: *const u64) -> i32;
}

fn pin(cpu: usize) {
    let mask: [u64; 16] = std::array::from_fn(|i| if i == cpu / 64 { 1 << (cpu % 64) } else { 0 });
    assert_eq!(unsafe { sched_setaffinity(0, 128, mask.as_ptr()) }, 0, "pin to CPU {cpu}");
}

fn tick() -> u64 {
    unsafe {
        _mm_lfence();
        let t = _rdtsc();
        _mm_lfence();
        t
    }
}

fn tock() -> u64 {
    unsafe {
        let mut a = 0;
        let t = __rdtscp(&mut a);
        _mm_lfence();
        t
    }
}

const ALWAYS: u8 = 0;
const THRESHOLD: u8 = 1;

/// One lane on one thread: its slot, the slot it reads, its policy.
struct Lane<'a> {
    mine: &'a AtomicI64,
    other: &'a AtomicI64,
    policy: u8,
    rng: u64,
    /// What this lane last saw in each slot, as contend's read view keeps.
    seen: [i64; 2],
}

/// Whether this update publishes: every one under ALWAYS; otherwise the
/// kernel's threshold test, |delta| > contrib / 64, on a delta drawn
/// (xorshift) from -40 ..= 39 with contrib 1536: 31 of 80, 39%. The
/// divisor is opaque, so the test waits on a division as contend's does.
/// Computed without a branch, so the one branch on it is the `if` around
/// the add, as in contend's update.
#[inline(always)]
fn publishes(policy: u8, rng: &mut u64) -> bool {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    let delta = (*rng % 80) as i64 - 40;
    let contrib: i64 = 1536;
    (policy == ALWAYS) | (delta.unsigned_abs() > (contrib / black_box(64i64)).unsigned_abs())
}

/// The read side: both slots read, a changed one noted (a store), and a
/// share computed from the sum (a division waiting on the loads).
#[inline(always)]
fn read_side(l: &mut Lane) {
    let mut sum = 0;
    for (i, slot) in [l.mine, l.other].into_iter().enumerate() {
        let v = slot.load(Relaxed);
        if v != l.seen[i] {
            l.seen[i] = v;
        }
        sum += v;
    }
    black_box(1024 * 1536 / (sum.abs() + 1536));
}

/// The update, one function for every policy: the policy is data.
#[inline(never)]
fn update_shared(l: &mut Lane) -> u64 {
    let t0 = tick();
    if black_box(publishes(black_box(l.policy), &mut l.rng)) {
        l.mine.fetch_add(1, Relaxed);
    }
    read_side(l);
    tock() - t0
}

/// The update compiled for one policy.
#[inline(never)]
fn update_own<const P: u8>(l: &mut Lane) -> u64 {
    let t0 = tick();
    if black_box(publishes(P, &mut l.rng)) {
        l.mine.fetch_add(1, Relaxed);
    }
    read_side(l);
    tock() - t0
}

const VARIANTS: [&str; 4] = ["shared alone", "shared both", "own alone", "own both"];
const ROUNDS: usize = 40;

fn main() {
    let global = std::env::args().nth(1).as_deref() == Some("global");
    let hz = {
        let (a, s) = (unsafe { _rdtsc() }, std::time::Instant::now());
        std::thread::sleep(std::time::Duration::from_millis(100));
        (unsafe { _rdtsc() } - a) as f64 / s.elapsed().as_secs_f64()
    };
    let period = (hz / 22_000.0) as u64;
    let block = (hz * 0.25) as u64;
    // Lane T's two slots on page 0 and 2, lane A's on pages 5 and 7, so
    // no two lines share a page (or an adjacent-line prefetch pair).
    let pages: Vec<Page> = (0..8).map(|_| Page(std::array::from_fn(|_| AtomicI64::new(0)))).collect();
    let slot = |p: usize| &pages[p].0[0];
    let start = unsafe { _rdtsc() } + (hz * 0.05) as u64;
    // sums[thread][variant][round] = (T ticks, T updates)
    let sums: Vec<Vec<Vec<(u64, u64)>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2usize)
            .map(|cpu| {
                let (t_mine, t_other) = if global { (0, 0) } else { (2 * cpu, 2 - 2 * cpu) };
                let (a_mine, a_other) = if global { (5, 5) } else { (5 + 2 * cpu, 7 - 2 * cpu) };
                s.spawn(move || {
                    pin(cpu);
                    let mut t = Lane { mine: slot(t_mine), other: slot(t_other), policy: THRESHOLD, rng: 88172645463325252 + cpu as u64, seen: [0; 2] };
                    let mut a = Lane { mine: slot(a_mine), other: slot(a_other), policy: ALWAYS, rng: 1, seen: [0; 2] };
                    let mut out = vec![vec![(0u64, 0u64); ROUNDS]; 4];
                    for k in 0..ROUNDS * 4 {
                        let variant = k % 4;
                        let b0 = start + k as u64 * block;
                        // Thread 1's phase against thread 0: a fresh one
                        // each block, the same on both threads.
                        let phase = if cpu == 1 { (k as u64 * 2654435761) % period } else { 0 };
                        let mut n = 0u64;
                        loop {
                            let due = b0 + phase + n * period;
                            if due + period >= b0 + block {
                                break;
                            }
                            while unsafe { _rdtsc() } < due {}
                            let dt = match variant {
                                0 | 1 => update_shared(&mut t),
                                _ => update_own::<THRESHOLD>(&mut t),
                            };
                            // Stalls (a preemption, an interrupt) set aside.
                            if k >= 4 && dt < period / 10 {
                                out[variant][k / 4].0 += dt;
                                out[variant][k / 4].1 += 1;
                            }
                            if variant % 2 == 1 {
                                while unsafe { _rdtsc() } < due + period / 2 {}
                                match variant {
                                    1 => update_shared(&mut a),
                                    _ => update_own::<ALWAYS>(&mut a),
                                };
                            }
                            n += 1;
                        }
                    }
                    out
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let ns = |ticks: u64, n: u64| ticks as f64 / n as f64 / hz * 1e9;
    // Round 0 is warm-up; per round, T's mean over both threads.
    let mean_of = |v: usize| -> Vec<f64> {
        (1..ROUNDS)
            .map(|r| ns(sums[0][v][r].0 + sums[1][v][r].0, sums[0][v][r].1 + sums[1][v][r].1))
            .collect()
    };
    let ci = |x: &[f64]| {
        let n = x.len() as f64;
        let m = x.iter().sum::<f64>() / n;
        let sd = (x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        (m, 2.02 * sd / n.sqrt())
    };
    println!("{} slots, TSC {:.3} GHz, {} rounds of 4 x 0.25 s", if global { "global" } else { "per-CPU" }, hz / 1e9, ROUNDS - 1);
    let means: Vec<Vec<f64>> = (0..4).map(mean_of).collect();
    for (v, name) in VARIANTS.iter().enumerate() {
        let (m, h) = ci(&means[v]);
        println!("  T window, {name:<13} {m:7.2} ± {h:.2} ns");
    }
    for (alone, both, name) in [(0, 1, "shared"), (2, 3, "own")] {
        let d: Vec<f64> = means[both].iter().zip(&means[alone]).map(|(b, a)| b - a).collect();
        let (m, h) = ci(&d);
        println!("  {name:<6} code: both - alone = {m:+.2} ± {h:.2} ns (paired by round)");
    }
}
