//! Contention: what one operation of `contend run`'s writer loop costs when
//! 1, 2, 4, … N pinned writers hammer the same counter (issue 7).
//!
//! One criterion group, `contention`; one function per strategy
//! (`global/always`, `node/ratelimit:1ms`, …: levels global, node, llc,
//! cpu × policies `always`, `ratelimit:1ms`) and one parameter per writer
//! count. The counts are 1, 2, 4, … and the number of allowed CPUs (on a
//! 224-CPU host: 1, 2, 4, …, 128, 224; every count from 1 to N would be
//! 8 × N benches). Writer k runs on the k-th allowed CPU in ascending
//! order, as `contend run --writers K` takes CPUs from the front of `all`.
//!
//! What each writer runs is the harness's own loop, `WriterWork::run_ops`,
//! with `contend run`'s defaults: the read side after every update
//! (`--read-every 1`), 128-byte padding, slots on their local nodes, compact
//! node iteration, the `tsc` clock for the ratelimit, seed 1. Sampling is
//! off (the `harness_overhead` bench shows it costs under 2%); no rate cap.
//!
//! **Timing.** Each strategy gets one pool of N pinned writer threads,
//! created once before its benches and reused for every sample and every
//! writer count. Per sample, `iter_custom` hands the iteration count and
//! the number of active writers to the pool (mutex + condvar, outside any
//! timed region); the active writers meet at a spinning start barrier, and
//! each times its own `run_ops(iters)` with `Instant`. The sample's time is
//! the slowest writer's. So one "iteration" is one operation (update + read
//! side) by every active writer at once, and `Throughput::Elements(K)`
//! makes criterion's elem/s the total operations per second. The main
//! thread is not pinned; it sleeps on a condvar while writers run.
//!
//! **Exactness.** When a strategy's benches are done every writer flushes,
//! and the counter must read exactly the sum of the writers' final loads;
//! the bench panics otherwise.
//!
//! `cargo bench --bench contention`; `-- global/` to pick strategies.

mod common;

use contend::clock::TscClock;
use contend::clock::{Spin, Timer};
use contend::counter::{
    CounterLayout, NodeIter, Pad, PublishPolicy, PublishStats, ShardLevel, ShardedCounter,
    SlotHome, Writer, check_exact,
};
use contend::placement::{Placement, pin_current_thread};
use contend::topology::allowed_cpus;
use contend::topology::{CpuList, Topology};
use contend::workload::{LoadWalk, Sampling, Work, WriterWork};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The publish policies compared (`contend run`'s default list).
const POLICIES: [&str; 2] = ["always", "ratelimit:1ms"];
/// `--read-every`: the read side after every update.
const READ_EVERY: u32 = 1;
/// `--seed`.
const SEED: u64 = 1;

/// What the pool's writers are told to do next.
#[derive(Default)]
struct Command {
    /// Bumped once per sample.
    generation: u64,
    /// Operations each active writer runs.
    iters: u64,
    /// Writers 0..active run; the rest sit this sample out.
    active: usize,
    /// Flush and exit.
    stop: bool,
}

/// The control block one strategy's writers share with the main thread.
struct Pool {
    command: Mutex<Command>,
    wake: Condvar,
    /// Spinning start barrier: active writers that have arrived.
    arrived: AtomicUsize,
    /// Active writers that have finished this sample.
    done: Mutex<usize>,
    done_cv: Condvar,
    /// Each writer's own time for its last sample, nanoseconds.
    elapsed_ns: Vec<AtomicU64>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Pool {
    fn new(writers: usize) -> Self {
        Self {
            command: Mutex::new(Command::default()),
            wake: Condvar::new(),
            arrived: AtomicUsize::new(0),
            done: Mutex::new(0),
            done_cv: Condvar::new(),
            elapsed_ns: (0..writers).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// One sample: writers `0..active` each run `iters` operations,
    /// starting together; returns the slowest one's own time.
    fn sample(&self, active: usize, iters: u64) -> Duration {
        // Every writer of the previous sample has reported, so nobody is
        // still at the barrier or about to bump `done`.
        self.arrived.store(0, Ordering::Relaxed);
        *lock(&self.done) = 0;
        {
            let mut c = lock(&self.command);
            c.generation += 1;
            c.iters = iters;
            c.active = active;
        }
        self.wake.notify_all();
        let mut done = lock(&self.done);
        while *done < active {
            done = self.done_cv.wait(done).unwrap_or_else(|e| e.into_inner());
        }
        drop(done);
        let slowest = self.elapsed_ns[..active]
            .iter()
            .map(|e| e.load(Ordering::Relaxed))
            .max()
            .unwrap_or(0);
        Duration::from_nanos(slowest)
    }

    fn stop(&self) {
        lock(&self.command).stop = true;
        self.wake.notify_all();
    }
}

/// Stops the pool when dropped, so a panic on the main thread does not
/// leave `thread::scope` waiting for writers that wait for a command.
struct StopOnDrop<'p>(&'p Pool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// What every writer of one strategy shares.
struct Setup<'a> {
    pool: &'a Pool,
    allowed: &'a CpuList,
    counter: &'a ShardedCounter,
    policy: PublishPolicy,
    clock: TscClock,
    timer: Timer,
}

/// One writer thread: pinned to `cpu`, then samples until told to stop;
/// returns its final load (after the flush) and its publish counts.
fn writer(setup: &Setup<'_>, index: usize, cpu: u32) -> (i64, PublishStats) {
    let Setup {
        pool,
        allowed,
        counter,
        policy,
        clock,
        timer,
    } = *setup;
    let pin = pin_current_thread(cpu, allowed, Placement::BestEffort).expect("pin");
    if !pin.verified {
        eprintln!(
            "contention: writer {index} not pinned to CPU {cpu} ({})",
            pin.note.unwrap_or_default()
        );
    }
    let slot = counter.slot_of_cpu(cpu).expect("slot of a writer CPU");
    let mut work = WriterWork::new(
        Writer::new(counter, slot, policy, clock),
        counter,
        LoadWalk::new(SEED, index as u64),
        READ_EVERY,
        timer,
        Sampling::off(),
        None,
        None,
        None,
        Spin::default(),
    );
    let mut seen = 0;
    loop {
        let (iters, active) = {
            let mut c = lock(&pool.command);
            while !c.stop && c.generation == seen {
                c = pool.wake.wait(c).unwrap_or_else(|e| e.into_inner());
            }
            if c.stop {
                break;
            }
            seen = c.generation;
            (c.iters, c.active)
        };
        if index >= active {
            continue;
        }
        pool.arrived.fetch_add(1, Ordering::AcqRel);
        while pool.arrived.load(Ordering::Acquire) < active {
            std::hint::spin_loop();
        }
        let t0 = Instant::now();
        work.run_ops(iters);
        let ns = t0.elapsed().as_nanos() as u64;
        pool.elapsed_ns[index].store(ns, Ordering::Relaxed);
        *lock(&pool.done) += 1;
        pool.done_cv.notify_one();
    }
    let w = work.writer_mut();
    w.flush();
    (w.load(), w.stats())
}

/// The strategy's counter, slots on their local nodes; best-effort
/// placement (with a note) where the kernel refuses `mbind`.
fn counter_for(level: ShardLevel, topo: &Topology, cpus: &[u32]) -> ShardedCounter {
    let layout = CounterLayout {
        level,
        pad: Pad::Line128,
        home: SlotHome::Local,
        node_iter: NodeIter::Compact,
    };
    ShardedCounter::new(layout, topo, cpus, Placement::Strict).unwrap_or_else(|e| {
        eprintln!("contention: {level}: strict placement failed ({e}); best effort");
        ShardedCounter::new(layout, topo, cpus, Placement::BestEffort)
            .unwrap_or_else(|e| panic!("{level} counter: {e}"))
    })
}

/// 1, 2, 4, … below `n`, then `n`.
fn writer_counts(n: usize) -> Vec<usize> {
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |k| k.checked_mul(2))
        .take_while(|&k| k < n)
        .collect();
    counts.push(n);
    counts
}

fn contention(c: &mut Criterion) {
    // Read before any thread is pinned, and the main thread never is.
    let allowed = allowed_cpus().expect("sched_getaffinity");
    let topo = common::host_topology();
    let cpus: Vec<u32> = allowed.intersection(&topo.online_cpus).to_vec();
    assert!(!cpus.is_empty(), "no allowed online CPU");
    let hz = common::tsc_hz();
    let clock = TscClock { hz };
    let timer = common::run_timer(hz);
    let counts = writer_counts(cpus.len());
    eprintln!(
        "contention: writers on CPUs {:?}, counts {counts:?}, read side every update",
        cpus
    );

    let mut g = c.benchmark_group("contention");
    g.sample_size(20)
        .nresamples(common::NRESAMPLES)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for level in ShardLevel::ALL {
        for policy_name in POLICIES {
            let policy: PublishPolicy = policy_name.parse().expect("policy");
            let strategy = format!("{level}/{policy_name}");
            let counter = counter_for(level, &topo, &cpus);
            let pool = Pool::new(cpus.len());
            let setup = Setup {
                pool: &pool,
                allowed: &allowed,
                counter: &counter,
                policy,
                clock,
                timer,
            };
            let results: Vec<(i64, PublishStats)> = std::thread::scope(|s| {
                let handles: Vec<_> = cpus
                    .iter()
                    .enumerate()
                    .map(|(index, &cpu)| {
                        let setup = &setup;
                        s.spawn(move || writer(setup, index, cpu))
                    })
                    .collect();
                let stopper = StopOnDrop(&pool);
                for &n in &counts {
                    g.throughput(Throughput::Elements(n as u64));
                    g.bench_with_input(BenchmarkId::new(&strategy, n), &n, |b, &n| {
                        b.iter_custom(|iters| pool.sample(n, iters))
                    });
                }
                drop(stopper);
                handles
                    .into_iter()
                    .map(|h| h.join().expect("writer thread"))
                    .collect()
            });
            let expected: i64 = results.iter().map(|(load, _)| load).sum();
            let mut stats = PublishStats::default();
            for (_, s) in &results {
                stats.merge(s);
            }
            if let Err(e) = check_exact(&counter, expected, &strategy) {
                panic!("contention: counter not exact after the final flush: {e}");
            }
            eprintln!(
                "contention: {strategy}: exact (sum {expected}); {} updates, {} published ({:.2e})",
                stats.updates,
                stats.publishes,
                stats.publishes as f64 / stats.updates.max(1) as f64
            );
        }
    }
    g.finish();
}

criterion_group!(benches, contention);
criterion_main!(benches);
