//! Waiting for one cache line: a hot line is a single server that hands
//! itself to one CPU at a time, each hand-over taking one transfer time.
//!
//! With N CPUs each asking for the line at rate λ, the finite-source queue
//! (the machine-repairman model, M/M/1//N) gives the wait exactly for
//! exponential service; transfers take a near-constant time, so its
//! queueing part is halved (Pollaczek-Khinchine's (1 + Cs²)/2 with
//! Cs = 0). With many CPUs this tends to M/D/1, whose wait is
//! S·ρ/(2(1−ρ)) at utilisation ρ = N·λ·S; with one CPU nobody waits.

/// Bisection steps when solving for the think time (each halves a log
/// interval of about e⁴⁰, to a part in 10¹⁴).
const SOLVE_STEPS: usize = 80;

/// Mean time a transfer waits for the line before its own transfer
/// starts, ns, when `sources` CPUs each complete `rate_per_s` transfers a
/// second through a line whose transfers take `service_ns` each; `None`
/// when the line is saturated (ρ = sources × rate × service ≥ 1: it cannot
/// serve that many, and the wait is set by how far the queue backs up, not
/// by the rate). Zero with no traffic or a single source.
pub fn wait_ns(sources: usize, rate_per_s: f64, service_ns: f64) -> Option<f64> {
    let rho = utilisation(sources, rate_per_s, service_ns);
    if rho >= 1.0 {
        return None;
    }
    if sources <= 1 || rate_per_s <= 0.0 || service_ns <= 0.0 {
        return Some(0.0);
    }
    // The think time Z at which N sources complete N·λ transfers a second:
    // throughput falls as Z grows (from 1/S at Z = 0 to below N·λ at
    // Z = 1/λ), so bisect on ln Z.
    let s = service_ns * 1e-9;
    let target = sources as f64 * rate_per_s;
    let (mut lo, mut hi) = ((s * 1e-9).ln(), (1.0 / rate_per_s).ln());
    for _ in 0..SOLVE_STEPS {
        let mid = 0.5 * (lo + hi);
        if repairman_throughput(sources, mid.exp(), s) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let think = (0.5 * (lo + hi)).exp();
    // Response time R = N / X − Z = 1/λ − Z; the wait is R − S.
    let response = 1.0 / rate_per_s - think;
    Some(((response - s) * 0.5 * 1e9).max(0.0))
}

/// ρ = `sources` × `rate_per_s` × `service_ns`: the fraction of time the
/// line is being handed over.
pub fn utilisation(sources: usize, rate_per_s: f64, service_ns: f64) -> f64 {
    sources as f64 * rate_per_s * service_ns * 1e-9
}

/// Transfers a second through the line in the machine-repairman model:
/// `n` sources that each think (do other work) for a mean `think_s`
/// between requests, one server of mean service `service_s` (both
/// exponential). X = (1 − p₀)/S with p₀ = 1 / Σₖ N!/(N−k)! (S/Z)ᵏ, summed
/// in logarithms so that a thousand sources do not overflow.
pub fn repairman_throughput(n: usize, think_s: f64, service_s: f64) -> f64 {
    let ratio = service_s / think_s;
    let mut log_terms = Vec::with_capacity(n + 1);
    let mut log_t = 0.0f64;
    log_terms.push(log_t);
    for k in 1..=n {
        log_t += ((n - k + 1) as f64 * ratio).ln();
        log_terms.push(log_t);
    }
    let top = log_terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = log_terms.iter().map(|t| (t - top).exp()).sum();
    let p0 = (-top).exp() / sum;
    (1.0 - p0) / service_s
}

/// The M/D/1 wait at utilisation `rho` < 1, ns: S·ρ/(2(1−ρ)), the limit
/// of [`wait_ns`] for many sources.
pub fn md1_wait_ns(rho: f64, service_ns: f64) -> f64 {
    service_ns * rho / (2.0 * (1.0 - rho))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-12)
    }

    #[test]
    fn two_sources_match_the_closed_form() {
        // N = 2, S = 100 ns, Z = 400 ns: S/Z = 1/4, p0 = 1 / (1 + 2/4 +
        // 2/16) = 8/13, X = (5/13)/S, R = N/X − Z = 2·13/5·S − 4S = 1.2 S,
        // so the exponential wait is 0.2 S and the deterministic one 10 ns.
        let x = repairman_throughput(2, 400e-9, 100e-9);
        assert!(close(x, 5.0 / 13.0 / 100e-9, 1e-12), "{x}");
        let per_source = x / 2.0;
        let w = wait_ns(2, per_source, 100.0).unwrap();
        assert!(close(w, 10.0, 1e-6), "{w}");
    }

    #[test]
    fn four_sources_match_the_closed_form() {
        // N = 4, S/Z = 1/10: terms 1, 0.4, 0.12, 0.024, 0.0024; sum
        // 1.5464. X = (1 − 1/1.5464)/S; R = 4/X − Z.
        let (s, z) = (50e-9, 500e-9);
        let p0 = 1.0 / 1.5464;
        let x = (1.0 - p0) / s;
        assert!(close(repairman_throughput(4, z, s), x, 1e-9));
        let r = 4.0 / x - z;
        let want = (r - s) * 0.5 * 1e9;
        let w = wait_ns(4, x / 4.0, 50.0).unwrap();
        assert!(close(w, want, 1e-6), "{w} vs {want}");
        // Utilisation is the arrivals times the service.
        assert!(close(utilisation(4, x / 4.0, 50.0), 1.0 - p0, 1e-9));
    }

    #[test]
    fn many_sources_tend_to_md1_and_one_source_never_waits() {
        for rho in [0.1, 0.5, 0.8] {
            let n = 20_000;
            let rate = rho / (n as f64 * 100e-9);
            let w = wait_ns(n, rate, 100.0).unwrap();
            let md1 = md1_wait_ns(rho, 100.0);
            assert!(close(w, md1, 0.01), "rho {rho}: {w} vs M/D/1 {md1}");
        }
        assert_eq!(wait_ns(1, 1e6, 100.0), Some(0.0));
        assert_eq!(wait_ns(8, 0.0, 100.0), Some(0.0));
        // Few sources wait less than M/D/1 at the same utilisation.
        let few = wait_ns(2, 0.25 / 100e-9, 100.0).unwrap();
        assert!(few < md1_wait_ns(0.5, 100.0) * 0.7, "{few}");
    }

    #[test]
    fn no_source_or_an_instant_transfer_never_waits() {
        // No CPU asks for the line: no traffic, no wait (a solve would
        // find no think time that gives 0 transfers and report ~450 ns).
        assert_eq!(wait_ns(0, 1e6, 100.0), Some(0.0));
        // Transfers that take no time leave nothing to queue behind.
        assert_eq!(wait_ns(2, 1e6, 0.0), Some(0.0));
        assert_eq!(wait_ns(64, 1e6, 0.0), Some(0.0));
    }

    #[test]
    fn a_busy_pair_thinks_for_less_than_one_transfer() {
        // N = 2, Z = S/2 (S/Z = 2): p0 = 1 / (1 + 4 + 8) = 1/13, X =
        // (12/13)/S, so each source runs at λ = 6/(13 S) and R = 1/λ − Z
        // = 13S/6 − S/2 = 5S/3: the deterministic wait is S/3. (Terms above
        // 1: the sum in logarithms is scaled by the largest, ln 8.)
        let x = repairman_throughput(2, 50e-9, 100e-9);
        assert!(close(x, 12.0 / 13.0 / 100e-9, 1e-12), "{x}");
        let w = wait_ns(2, 6.0 / (13.0 * 100e-9), 100.0).unwrap();
        assert!(close(w, 100.0 / 3.0, 1e-6), "{w}");
    }

    #[test]
    fn a_rate_below_once_a_second_waits_next_to_nothing() {
        // ρ = 2 × 0.5/s × 100 ns = 1e-7: M/D/1 gives S·ρ/2 = 5e-6 ns and
        // two sources wait less.
        let w = wait_ns(2, 0.5, 100.0).unwrap();
        assert!((0.0..1e-5).contains(&w), "{w}");
    }

    #[test]
    fn saturation_is_not_a_number() {
        assert_eq!(wait_ns(2, 5e6, 100.0), None); // ρ = 1
        assert_eq!(wait_ns(224, 22e3, 300.0), None); // ρ = 1.48
        assert!(wait_ns(2, 4.9e6, 100.0).is_some());
    }
}
