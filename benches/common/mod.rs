//! Helpers shared by the bench targets (`mod common;` in each; this
//! directory has no `main.rs`, so cargo does not build it as a bench).
//! Each bench uses some of them, hence the `allow`.

#![allow(dead_code)]

use contend::clock::calibrate_tsc;
use contend::clock::{Timer, host_tsc_is_invariant};
use contend::placement::{Placement, current_cpu, pin_current_thread};
use contend::topology::Topology;
use contend::topology::allowed_cpus;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Pins the calling thread to the CPU it is on (best effort: an unverified
/// pin leaves the thread where the scheduler puts it, and says so) and
/// returns that CPU. For single-thread benches only: the contention bench
/// leaves its main thread unpinned.
pub fn pin_here(bench: &str) -> u32 {
    let cpu = current_cpu().expect("sched_getcpu");
    let allowed = allowed_cpus().expect("sched_getaffinity");
    let pinned = pin_current_thread(cpu, &allowed, Placement::BestEffort).expect("pin");
    if !pinned.verified {
        eprintln!(
            "{bench}: not pinned ({}); numbers may include migrations",
            pinned.note.unwrap_or_default()
        );
    }
    cpu
}

/// This host's layout.
pub fn host_topology() -> Topology {
    Topology::read(Path::new("/")).expect("read this host's topology")
}

/// A fixture tree under `tests/fixtures/topology/`.
pub fn fixture(name: &str) -> Topology {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests/fixtures/topology", name]
        .iter()
        .collect();
    Topology::read(&root).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// Calibrated TSC frequency, ticks per second.
pub fn tsc_hz() -> f64 {
    calibrate_tsc(Duration::from_millis(50))
}

/// The timer `contend run` picks: the TSC when it is invariant, else
/// `CLOCK_MONOTONIC`.
pub fn run_timer(hz: f64) -> Timer {
    Timer::for_host(host_tsc_is_invariant(), hz)
}

/// Bootstrap resamples per benchmark (criterion's default is 100 000).
/// With the plotters backend every bench draws KDEs of its bootstrap
/// distributions, and at 100 000 resamples that costs about 2.7 s per
/// bench on 2 CPUs, more than the measurement; 10 000 still gives a
/// stable 95% interval.
pub const NRESAMPLES: usize = 10_000;
