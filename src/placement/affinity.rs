//! Pinning threads to CPUs with `sched_setaffinity`, verified with `sched_getcpu`.

use super::{Placement, PlacementError};
use crate::topology::CpuList;
use std::io;

/// The CPU the calling thread is running on right now (`sched_getcpu`).
pub fn current_cpu() -> io::Result<u32> {
    // SAFETY: sched_getcpu has no preconditions.
    let cpu = unsafe { libc::sched_getcpu() };
    u32::try_from(cpu).map_err(|_| io::Error::last_os_error())
}

/// Where a thread asked to run and where it was seen running.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PinnedThread {
    /// The CPU the thread was pinned to.
    pub requested_cpu: u32,
    /// What `sched_getcpu` returned after pinning (`None` if it failed).
    pub observed_cpu: Option<u32>,
    /// True when the pin succeeded and `observed_cpu == requested_cpu`.
    pub verified: bool,
    /// Why it is not verified (only under `--placement best-effort`).
    pub note: Option<String>,
}

/// Pins the calling thread to `cpu` and checks with `sched_getcpu` that it runs there.
pub fn pin_current_thread(
    cpu: u32,
    allowed: &CpuList,
    placement: Placement,
) -> Result<PinnedThread, PlacementError> {
    let (observed_cpu, note) = match pin_strict(cpu, allowed) {
        Ok(observed) => (Some(observed), None),
        Err(e) if placement == Placement::BestEffort => (current_cpu().ok(), Some(e.to_string())),
        Err(e) => return Err(e),
    };
    let verified = note.is_none();
    Ok(PinnedThread {
        requested_cpu: cpu,
        observed_cpu,
        verified,
        note,
    })
}

fn pin_strict(cpu: u32, allowed: &CpuList) -> Result<u32, PlacementError> {
    let words = (cpu as usize / 64 + 1).max(1024 / 64);
    let mut mask = vec![0u64; words];
    mask[cpu as usize / 64] |= 1u64 << (cpu % 64);
    // SAFETY: the kernel reads `words * 8` bytes from `mask`.
    let rc = unsafe { libc::syscall(libc::SYS_sched_setaffinity, 0, words * 8, mask.as_ptr()) };
    if rc != 0 {
        let errno = io::Error::last_os_error();
        return Err(PlacementError::Pin(cpu, allowed.clone(), errno));
    }
    // The kernel migrates a running task before sched_setaffinity returns.
    let observed = || current_cpu().map_err(|e| PlacementError::GetCpu(cpu, e));
    let mut seen = observed()?;
    for _ in 0..100 {
        if seen == cpu {
            return Ok(seen);
        }
        std::thread::yield_now();
        seen = observed()?;
    }
    Err(PlacementError::PinNotHonoured(cpu, seen))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::allowed_cpus;

    #[test]
    fn pins_to_every_allowed_cpu() {
        let allowed = allowed_cpus().unwrap();
        assert!(!allowed.is_empty());
        // A scoped thread so the test harness's own thread keeps its mask.
        std::thread::scope(|s| {
            s.spawn(|| {
                for cpu in allowed.iter() {
                    // (Verified, seen there: tests/cli.rs verify_pins_and_binds_here.)
                    pin_current_thread(cpu, &allowed, Placement::Strict).unwrap();
                    assert_eq!(current_cpu().unwrap(), cpu);
                    // After pinning, sched_getaffinity reports only that CPU.
                    assert_eq!(allowed_cpus().unwrap().to_vec(), vec![cpu]);
                }
            });
        });
    }

    #[test]
    fn pin_outside_the_allowed_set_names_it() {
        let allowed = allowed_cpus().unwrap();
        let outside = 4000; // no CPU of this id exists on the test host
        std::thread::scope(|s| {
            s.spawn(|| {
                let err = pin_current_thread(outside, &allowed, Placement::Strict).unwrap_err();
                let text = err.to_string();
                assert!(
                    text.contains("CPU 4000") && text.contains(&allowed.to_string()),
                    "{text}"
                );
                let best = pin_current_thread(outside, &allowed, Placement::BestEffort).unwrap();
                assert!(!best.verified && best.note.unwrap().contains("CPU 4000"));
            });
        });
    }
}
