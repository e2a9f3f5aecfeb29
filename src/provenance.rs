//! Where a result came from: the host, kernel and settings that change what a contention number
//! means, read at the start of a run.

use crate::clock::TSC_FALLBACK_NOTE;
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::Path;

/// The facts recorded with every result file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// `uname -n`; where the system has no name (`(none)` or nothing), a stable one from the CPU
    /// model and count ([`fallback_hostname`]).
    pub hostname: String,
    /// True when `hostname` is that fallback, not the system's name.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hostname_fallback: bool,
    /// `model name` from /proc/cpuinfo.
    pub cpu_model: String,
    /// `microcode` from /proc/cpuinfo, if listed.
    pub microcode: Option<String>,
    /// `uname -r`.
    pub kernel_release: String,
    /// Current clocksource (tsc, hpet, kvm-clock, …).
    pub clocksource: Option<String>,
    /// cpufreq governor of CPU 0 (absent in many VMs).
    pub cpufreq_governor: Option<String>,
    /// /proc/sys/kernel/numa_balancing (non-zero: pages may migrate mid-run).
    pub numa_balancing: Option<String>,
    /// Transparent huge page mode, the bracketed choice of
    /// /sys/kernel/mm/transparent_hugepage/enabled.
    pub thp: Option<String>,
    /// TSC-related CPU flags present (constant_tsc, nonstop_tsc, …).
    pub tsc_flags: Vec<String>,
    /// True when the TSC is invariant and so times operations.
    pub tsc_invariant: bool,
    /// Calibrated TSC frequency, Hz.
    pub tsc_hz: f64,
    /// The TSC's step, ticks ([`crate::clock::tsc_step`]): 1 where it ticks every cycle.
    pub tsc_step_ticks: u64,
    /// contend's version.
    pub contend_version: String,
    /// The git commit contend was built from ("unknown" outside a checkout).
    pub git_commit: String,
    /// The command line as given.
    pub command_line: Vec<String>,
    /// Start of the run, RFC 3339 UTC.
    pub started_utc: String,
}

fn read_trimmed(path: &str) -> Option<String> {
    fs::read_to_string(Path::new(path))
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The value of the first `key : value` line of /proc/cpuinfo.
fn cpuinfo_field<'a>(cpuinfo: &'a str, key: &str) -> Option<&'a str> {
    cpuinfo.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim())
    })
}

/// This host's name (`uname -n`, or its fallback), as provenance records it.
pub fn hostname() -> String {
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    name_of_host(uname().0, &cpuinfo).0
}

/// The name `nodename` (`uname -n`) gives this host, and whether it is the fallback.
fn name_of_host(nodename: String, cpuinfo: &str) -> (String, bool) {
    if !matches!(nodename.trim(), "" | "(none)") {
        return (nodename, false);
    }
    let model = cpuinfo_field(cpuinfo, "model name").unwrap_or("");
    let cpus = cpuinfo
        .lines()
        .filter(|l| l.split(':').next().is_some_and(|k| k.trim() == "processor"))
        .count();
    (fallback_hostname(model, cpus), true)
}

/// A host name made of a CPU model and a CPU count, in lower-case letters, digits and dashes.
pub fn fallback_hostname(cpu_model: &str, cpus: usize) -> String {
    let words = cpu_model
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty());
    let name: String = words.map(|w| w.to_ascii_lowercase() + "-").collect();
    let name = if name.is_empty() { "host-" } else { &name };
    format!("{name}{cpus}cpus")
}

fn uname() -> (String, String) {
    // SAFETY: utsname is plain old data; uname fills it.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid utsname.
    if unsafe { libc::uname(&mut u) } != 0 {
        return ("unknown".into(), "unknown".into());
    }
    // Up to the first NUL, never past the field.
    let field = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    (field(&u.nodename), field(&u.release))
}

/// The note kept when automatic NUMA balancing is on.
pub const NUMA_BALANCING_NOTE: &str = "automatic NUMA balancing is on: pages may migrate while they are measured (each was verified once, at allocation)";

impl Provenance {
    /// What the host's state means for any measurement, as notes.
    pub fn host_notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.hostname_fallback {
            notes.push(format!(
                "this host has no name (uname -n says \"(none)\"): its results are filed as {}, from its CPU model and count (set one with hostname(1))",
                self.hostname
            ));
        }
        if !self.tsc_invariant {
            notes.push(TSC_FALLBACK_NOTE.to_string());
        }
        if self.numa_balancing.as_deref().is_some_and(|v| v != "0") {
            notes.push(NUMA_BALANCING_NOTE.to_string());
        }
        notes
    }

    /// One line on the clock's step when it is coarser than a tenth of `smallest_ns`, the smallest
    /// figure shown: single timings are then quantized, so figures are means. Nothing without a
    /// calibrated TSC.
    pub fn tsc_step_line(&self, smallest_ns: f64) -> Option<String> {
        let step = (self.tsc_hz > 0.0).then(|| self.tsc_step_ticks as f64 * 1e9 / self.tsc_hz)?;
        (step > 0.1 * smallest_ns).then(|| {
            format!(
                "clock: the TSC steps by {step:.1} ns ({} ticks) here, more than a tenth of the smallest figure shown ({smallest_ns:.1} ns): a single operation's timing is quantized to it; figures from throughput and means over many timings are not",
                self.tsc_step_ticks
            )
        })
    }

    /// Reads this host's facts.
    pub fn of_this_host(tsc_hz: f64) -> Self {
        let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let (nodename, kernel_release) = uname();
        let (hostname, hostname_fallback) = name_of_host(nodename, &cpuinfo);
        let flags = cpuinfo_field(&cpuinfo, "flags").unwrap_or("");
        let tsc_flags = flags.split_whitespace().filter(|f| f.contains("tsc"));
        let tsc_flags = tsc_flags.map(str::to_string).collect();
        let thp = read_trimmed("/sys/kernel/mm/transparent_hugepage/enabled").map(|s| {
            let chosen = s.split_whitespace().find(|w| w.starts_with('['));
            chosen.map_or(s.clone(), |w| w.trim_matches(['[', ']']).to_string())
        });
        Provenance {
            hostname,
            hostname_fallback,
            cpu_model: cpuinfo_field(&cpuinfo, "model name")
                .unwrap_or("unknown")
                .into(),
            microcode: cpuinfo_field(&cpuinfo, "microcode").map(str::to_string),
            kernel_release,
            clocksource: read_trimmed(
                "/sys/devices/system/clocksource/clocksource0/current_clocksource",
            ),
            cpufreq_governor: read_trimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
            numa_balancing: read_trimmed("/proc/sys/kernel/numa_balancing"),
            thp,
            tsc_flags,
            tsc_invariant: crate::clock::tsc_is_invariant(&cpuinfo),
            tsc_hz,
            tsc_step_ticks: crate::clock::tsc_step(),
            contend_version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit: env!("CONTEND_GIT_COMMIT").to_string(),
            command_line: std::env::args().collect(),
            started_utc: humantime::format_rfc3339_seconds(std::time::SystemTime::now())
                .to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_host_and_notes_the_unnamed_host_the_timer_fallback_and_numa_balancing() {
        let mut p = Provenance::of_this_host(1e9);
        assert!(!p.hostname.is_empty() && p.started_utc.ends_with('Z'));
        let release = &p.kernel_release;
        assert!(
            release.starts_with(|c: char| c.is_ascii_digit()),
            "{release}"
        );
        let model = cpuinfo_field("model name\t: X Y\nflags\t: a b", "model name");
        assert_eq!(model, Some("X Y"));
        (p.hostname_fallback, p.tsc_invariant, p.numa_balancing) = (false, true, None);
        assert!(p.host_notes().is_empty());
        // The fallback is kept in the file only when true.
        let json = serde_json::to_string(&p).unwrap();
        assert!(!json.contains("hostname_fallback"), "{json}");
        for (balancing, notes) in [("0", 0), ("1", 1), ("2", 1)] {
            p.numa_balancing = Some(balancing.into());
            assert_eq!(
                p.host_notes(),
                vec![NUMA_BALANCING_NOTE; notes],
                "{balancing}"
            );
        }
        (p.tsc_invariant, p.numa_balancing) = (false, None);
        assert_eq!(p.host_notes(), [TSC_FALLBACK_NOTE]);
        (p.hostname, p.hostname_fallback, p.tsc_invariant) = ("host-64cpus".into(), true, true);
        let notes = p.host_notes();
        assert!(
            notes.len() == 1 && notes[0].contains("filed as host-64cpus"),
            "{notes:?}"
        );
        let back: Provenance = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
        assert!(back.hostname_fallback);
    }

    #[test]
    fn the_clock_step_is_said_when_coarser_than_a_tenth_of_a_figure() {
        let mut p = Provenance::of_this_host(2.6e9);
        assert!(p.tsc_step_ticks >= 1);
        // 26 ticks at 2.6 GHz: 10 ns.
        p.tsc_step_ticks = 26;
        let line = p.tsc_step_line(25.6).unwrap();
        assert!(line.contains("steps by 10.0 ns (26 ticks)"), "{line}");
        assert!(line.contains("(25.6 ns)"), "{line}");
        // Exactly a tenth, or finer: nothing to say.
        assert_eq!(p.tsc_step_line(100.0), None);
        assert_eq!(p.tsc_step_line(500.0), None);
        // No frequency: unknown, so nothing said.
        p.tsc_hz = 0.0;
        assert_eq!(p.tsc_step_line(1.0), None);
    }

    #[test]
    fn a_host_without_a_name_is_named_by_its_cpu() {
        let cpuinfo = "processor\t: 0\nmodel name\t: QEMU TCG CPU version 2.5+\n\n\
                       processor\t: 1\nmodel name\t: QEMU TCG CPU version 2.5+\n";
        let rows = [
            ("(none)", cpuinfo, "qemu-tcg-cpu-version-2-5-2cpus", true),
            ("", cpuinfo, "qemu-tcg-cpu-version-2-5-2cpus", true),
            (" ", cpuinfo, "qemu-tcg-cpu-version-2-5-2cpus", true),
            ("spr1", cpuinfo, "spr1", false),
            ("(none)", "", "host-0cpus", true),
        ];
        for (nodename, cpuinfo, name, fallback) in rows {
            let (got, is_fallback) = name_of_host(nodename.into(), cpuinfo);
            let got = (got.as_str(), is_fallback);
            assert_eq!(got, (name, fallback), "{nodename:?}");
        }
        let xeon = fallback_hostname("Intel(R) Xeon(R) Platinum 8480+", 224);
        assert_eq!(xeon, "intel-r-xeon-r-platinum-8480-224cpus");
        assert_eq!(fallback_hostname("", 64), "host-64cpus");
    }
}
