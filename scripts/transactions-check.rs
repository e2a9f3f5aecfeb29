// An independent check of `contend matrix`'s coherence transactions,
// sharing no code with it. Two threads pinned to CPUs 0 and 1 take turns
// on one 128-byte aligned line (a single turn counter: even = the other
// thread prepares, odd = the timing thread times). After the other thread
// left the line in a state, the timing thread times one operation fenced
// (lfence; rdtsc; lfence ... rdtscp; lfence), then the same on its private
// line; net = shared - private, median of 20,000 samples per direction,
// and the mean of both directions' samples with 5% set aside at each end
// (as the matrix's transactions are estimated, so a coarse clock's step
// biases neither):
//   add moved     the other CPU added to the line          -> fetch_add
//   read fetched  the other CPU added to the line          -> load
//   add upgraded  this CPU added, the other CPU then read  -> fetch_add
// and the one-way CAS ping-pong (round trip / 2, 1M round trips) beside.
//
//   rustc -O --edition 2021 scripts/transactions-check.rs -o /tmp/transactions-check
//   /tmp/transactions-check        # beside: contend matrix --cpus 0,1
use std::arch::x86_64::{__rdtscp, _mm_lfence, _rdtsc};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::*};

#[repr(align(128))]
struct Line(AtomicU64);

extern "C" {
    fn sched_setaffinity(pid: i32, size: usize, mask: *const u64) -> i32;
}

fn pin(cpu: usize) {
    let mask: [u64; 16] = std::array::from_fn(|i| if i == cpu / 64 { 1 << (cpu % 64) } else { 0 });
    assert_eq!(unsafe { sched_setaffinity(0, 128, mask.as_ptr()) }, 0, "pin to CPU {cpu}");
}

fn fenced(op: impl Fn()) -> u64 {
    unsafe {
        _mm_lfence();
        let t = _rdtsc();
        _mm_lfence();
        op();
        let mut a = 0;
        let e = __rdtscp(&mut a);
        _mm_lfence();
        e - t
    }
}

const N: u64 = 20_000;

fn main() {
    let hz = {
        let (a, s) = (unsafe { _rdtsc() }, std::time::Instant::now());
        std::thread::sleep(std::time::Duration::from_millis(100));
        (unsafe { _rdtsc() } - a) as f64 / s.elapsed().as_secs_f64()
    };
    let (line, turn) = (Line(AtomicU64::new(0)), Line(AtomicU64::new(0)));
    for name in ["add moved", "read fetched", "add upgraded"] {
        let (mut medians, mut both) = (Vec::new(), Vec::new());
        for timer_cpu in 0..2usize {
            let nets = std::thread::scope(|s| {
                let (line, turn) = (&line.0, &turn.0);
                turn.store(0, SeqCst);
                let other = s.spawn(move || {
                    pin(1 - timer_cpu);
                    for k in 0..N {
                        while turn.load(Acquire) != 2 * k + 1 {}
                        if name == "add upgraded" {
                            black_box(line.load(Relaxed));
                        } else {
                            line.fetch_add(1, Relaxed);
                        }
                        turn.store(2 * k + 2, Release);
                    }
                });
                pin(timer_cpu);
                let private = Line(AtomicU64::new(0));
                let mut nets = Vec::with_capacity(N as usize);
                for k in 0..N {
                    if name == "add upgraded" {
                        line.fetch_add(1, Relaxed);
                    }
                    turn.store(2 * k + 1, Release);
                    while turn.load(Acquire) != 2 * k + 2 {}
                    let (shared, alone) = if name == "read fetched" {
                        (fenced(|| { black_box(line.load(Relaxed)); }), fenced(|| { black_box(private.0.load(Relaxed)); }))
                    } else {
                        (fenced(|| { line.fetch_add(1, Relaxed); }), fenced(|| { private.0.fetch_add(1, Relaxed); }))
                    };
                    nets.push((shared as f64 - alone as f64) * 1e9 / hz);
                }
                other.join().unwrap();
                nets
            });
            let mut v = nets;
            v.sort_by(f64::total_cmp);
            medians.push(v[v.len() / 2]);
            both.extend(v);
        }
        both.sort_by(f64::total_cmp);
        let cut = both.len() / 20;
        let kept = &both[cut..both.len() - cut];
        let trimmed = kept.iter().sum::<f64>() / kept.len() as f64;
        println!("{name:>13}: CPU 0 timing {:.1} ns, CPU 1 timing {:.1} ns (medians), {trimmed:.1} ns (5% trimmed mean of both; net of a private line)", medians[0], medians[1]);
    }
    let pong = std::thread::scope(|s| {
        let l = &line.0;
        l.store(0, SeqCst);
        s.spawn(move || {
            pin(1);
            for k in 0..1_000_000u64 {
                while l.compare_exchange(2 * k + 1, 2 * k + 2, AcqRel, Relaxed).is_err() {}
            }
        });
        pin(0);
        let t = std::time::Instant::now();
        for k in 0..1_000_000u64 {
            while l.compare_exchange(2 * k, 2 * k + 1, AcqRel, Relaxed).is_err() {}
        }
        while l.load(Acquire) != 2_000_000 {}
        t.elapsed().as_nanos() as f64 / 2e6
    });
    println!("    ping-pong: {pong:.1} ns one-way (CAS, round trip / 2)");
}
