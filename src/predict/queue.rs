//! Waiting for hot lines: a closed population of CPUs, each doing its
//! own work for a think time Z between events and then waiting for its
//! own transfers on every line it needs before its next event (the
//! finite-source, machine-repairman network: no CPU asks for the line
//! again before its last request is served, so the queue can never grow
//! past the population and a cost exists at any load).
//!
//! Solved by exact mean value analysis (Reiser and Lavenberg 1980): with
//! `n` CPUs, the time an event spends at station k is
//! Rₖ(n) = Dₖ·(1 + Qₖ(n − 1)) (an arrival sees the queue of the other
//! n − 1), the throughput X(n) = n / (Z + Σₖ Rₖ(n)) and Qₖ(n) = X(n)·Rₖ(n)
//! (Little). Dₖ is the per-event demand on station k: visits × transfer
//! time. Exact for exponential transfer times; past saturation
//! R → N·D − Z (the line serves one transfer at a time, 1/D events a
//! second in all).

/// A group of alike stations (hot lines): each asked `demand_ns` of
/// line time per event, mean over the population.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Station {
    /// Line time per event of one CPU, ns (visits × transfer time).
    pub demand_ns: f64,
    /// Alike stations in the group (every CPU's own line under `cpu`).
    pub count: usize,
}

/// The closed network solved at the whole population.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// Per station group, the time one event spends at one of its
    /// stations, ns: its demand and the wait behind the queue.
    pub residence_ns: Vec<f64>,
    /// Per station group, the mean number of CPUs at one of its
    /// stations (waiting or being served).
    pub queue: Vec<f64>,
    /// Events a second of one CPU: 1 / (Z + Σ residences).
    pub rate_per_cpu: f64,
}

impl Solution {
    /// Σ residences over every station, ns: the time an event spends
    /// waiting for and taking the lines.
    pub fn response_ns(&self, stations: &[Station]) -> f64 {
        self.residence_ns
            .iter()
            .zip(stations)
            .map(|(r, s)| r * s.count as f64)
            .sum()
    }
}

/// Exact MVA of `population` CPUs that think `think_ns` between events
/// and visit `stations`; every figure 0 for an empty population.
pub fn mva(population: usize, think_ns: f64, stations: &[Station]) -> Solution {
    let mut queue = vec![0.0f64; stations.len()];
    let mut residence = vec![0.0f64; stations.len()];
    let mut rate = 0.0;
    for n in 1..=population {
        let mut total = 0.0;
        for ((r, q), s) in residence.iter_mut().zip(&queue).zip(stations) {
            *r = s.demand_ns.max(0.0) * (1.0 + q);
            total += *r * s.count as f64;
        }
        let cycle = think_ns.max(0.0) + total;
        let x = if cycle > 0.0 { n as f64 / cycle } else { 0.0 };
        for (q, r) in queue.iter_mut().zip(&residence) {
            *q = x * r;
        }
        rate = x / n as f64;
    }
    Solution {
        residence_ns: residence,
        queue,
        rate_per_cpu: rate * 1e9,
    }
}

/// A group of alike stations asked a different demand per event by each
/// of two classes of customer (the CPUs on the counter's memory node, and
/// the others).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Station2 {
    /// Line time per event of one CPU of each class, ns.
    pub demand_ns: [f64; 2],
    /// Alike stations in the group.
    pub count: usize,
}

/// The two-class network solved at the whole population.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution2 {
    /// Per station group, the time one event of each class spends at one
    /// of its stations, ns.
    pub residence_ns: Vec<[f64; 2]>,
    /// Per station group, the mean number of CPUs at one of its stations.
    pub queue: Vec<f64>,
}

/// Exact MVA of two classes of `population` CPUs, each class thinking
/// `think_ns` between events and asking its own demand of each station:
/// for every population (a, b), Rₖ,c = Dₖ,c·(1 + Qₖ(less one of c)),
/// X_c = n_c / (Z_c + Σₖ Rₖ,c), Qₖ = Σ_c X_c·Rₖ,c (Reiser and Lavenberg
/// 1980, multiclass). A class's wait at a line is its own transfer time ×
/// the queue it finds: a CPU whose every hand-over takes longer (its
/// request crosses to the memory's node and back) waits longer behind the
/// same queue. (a + 1)(b + 1) steps per station.
pub fn mva2(population: [usize; 2], think_ns: [f64; 2], stations: &[Station2]) -> Solution2 {
    let [na, nb] = population;
    let s = stations.len();
    let mut prev = vec![0.0f64; (nb + 1) * s];
    let mut cur = vec![0.0f64; (nb + 1) * s];
    let mut r = vec![[0.0f64; 2]; s];
    for a in 0..=na {
        for b in 0..=nb {
            if a == 0 && b == 0 {
                cur[..s].fill(0.0);
                continue;
            }
            let mut total = [0.0f64; 2];
            for (k, st) in stations.iter().enumerate() {
                let ra = if a > 0 {
                    st.demand_ns[0].max(0.0) * (1.0 + prev[b * s + k])
                } else {
                    0.0
                };
                let rb = if b > 0 {
                    st.demand_ns[1].max(0.0) * (1.0 + cur[(b - 1) * s + k])
                } else {
                    0.0
                };
                r[k] = [ra, rb];
                total[0] += ra * st.count as f64;
                total[1] += rb * st.count as f64;
            }
            let x = [(a, 0), (b, 1)].map(|(n, c)| {
                let cycle = think_ns[c].max(0.0) + total[c];
                if n > 0 && cycle > 0.0 {
                    n as f64 / cycle
                } else {
                    0.0
                }
            });
            for (k, rk) in r.iter().enumerate() {
                cur[b * s + k] = x[0] * rk[0] + x[1] * rk[1];
            }
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Solution2 {
        residence_ns: r,
        queue: prev[nb * s..(nb + 1) * s].to_vec(),
    }
}

/// The same network solved as one class (each station's demand and the
/// think time the population's mean): exact when both classes ask alike,
/// N steps per station where [`mva2`] takes (a + 1)(b + 1). Each class's
/// residence is its own demand × the one class's residence over demand.
pub fn mva2_as_one(population: [usize; 2], think_ns: [f64; 2], stations: &[Station2]) -> Solution2 {
    let n = population[0] + population[1];
    let mean = |v: [f64; 2]| {
        if n == 0 {
            0.0
        } else {
            (v[0] * population[0] as f64 + v[1] * population[1] as f64) / n as f64
        }
    };
    let one: Vec<Station> = stations
        .iter()
        .map(|st| Station {
            demand_ns: mean(st.demand_ns),
            count: st.count,
        })
        .collect();
    let solved = mva(n, mean(think_ns), &one);
    Solution2 {
        residence_ns: one
            .iter()
            .zip(stations)
            .zip(&solved.residence_ns)
            .map(|((o, st), r)| {
                let ratio = if o.demand_ns > 0.0 {
                    r / o.demand_ns
                } else {
                    1.0
                };
                st.demand_ns.map(|d| d * ratio)
            })
            .collect(),
        queue: solved.queue,
    }
}

/// ρ = `sources` × `rate_per_s` × `service_ns`: the offered utilisation,
/// the fraction of time the line would be busy if every CPU kept its
/// asked rate (above 1 it cannot: the queue slows them).
pub fn utilisation(sources: usize, rate_per_s: f64, service_ns: f64) -> f64 {
    sources as f64 * rate_per_s * service_ns * 1e-9
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-12)
    }

    fn one(demand_ns: f64) -> [Station; 1] {
        [Station {
            demand_ns,
            count: 1,
        }]
    }

    #[test]
    fn one_cpu_never_waits() {
        // N = 1: R = D, X = 1/(Z + D).
        let s = mva(1, 900.0, &one(100.0));
        assert!(close(s.residence_ns[0], 100.0, 1e-12), "{s:?}");
        assert!(close(s.rate_per_cpu, 1e9 / 1000.0, 1e-12), "{s:?}");
        assert!(close(s.queue[0], 0.1, 1e-12), "{s:?}");
    }

    #[test]
    fn nothing_to_do_and_no_time_to_think_is_no_rate_not_infinity() {
        // Z = 0 and D = 0: the cycle takes no time, so there is nothing
        // to divide by; the solution is no traffic, not an infinite rate
        // or a queue of NaN.
        let s = mva(4, 0.0, &one(0.0));
        assert_eq!(
            (s.rate_per_cpu, s.queue[0], s.residence_ns[0]),
            (0.0, 0.0, 0.0)
        );
    }

    #[test]
    fn two_cpus_match_the_closed_form() {
        // N = 2, D = 100, Z = 400: Q(1) = D/(Z + D) = 0.2, R(2) = D·1.2 =
        // 120 ns, X(2) = 2/520 per ns, Q(2) = 240/520.
        let s = mva(2, 400.0, &one(100.0));
        assert!(close(s.residence_ns[0], 120.0, 1e-12), "{s:?}");
        assert!(close(s.rate_per_cpu, 1e9 / 520.0, 1e-12), "{s:?}");
        assert!(close(s.queue[0], 240.0 / 520.0, 1e-12), "{s:?}");
        // The same against the machine-repairman's p₀: S/Z = 1/4, p₀ =
        // 1/(1 + 2/4 + 2/16) = 8/13, X = (1 − p₀)/S = 5/13 per 100 ns, so
        // R = N/X − Z = 520 − 400.
    }

    #[test]
    fn two_stations_share_the_cycle() {
        // N = 2, Z = 0, stations of 100 and 300 ns: N = 1 gives R = 100,
        // 300, X = 1/400, Q = 0.25, 0.75; N = 2 gives R = 125, 525,
        // X = 2/650, so each CPU's events are 650 ns apart.
        let st = [
            Station {
                demand_ns: 100.0,
                count: 1,
            },
            Station {
                demand_ns: 300.0,
                count: 1,
            },
        ];
        let s = mva(2, 0.0, &st);
        assert!(close(s.residence_ns[0], 125.0, 1e-12), "{s:?}");
        assert!(close(s.residence_ns[1], 525.0, 1e-12), "{s:?}");
        assert!(close(s.response_ns(&st), 650.0, 1e-12), "{s:?}");
        // Two alike stations of 100 ns count twice.
        let twin = [Station {
            demand_ns: 100.0,
            count: 2,
        }];
        let s = mva(1, 0.0, &twin);
        assert!(close(s.response_ns(&twin), 200.0, 1e-12), "{s:?}");
    }

    #[test]
    fn a_saturated_line_serves_one_transfer_at_a_time() {
        // N·D = 1000 × 1 µs ≫ Z = 10 µs: R → N·D − Z = 990 µs and every
        // CPU's events come N·D apart.
        let s = mva(1000, 10_000.0, &one(1000.0));
        assert!(close(s.residence_ns[0], 990_000.0, 1e-6), "{s:?}");
        assert!(close(s.rate_per_cpu, 1e9 / 1e6, 1e-6), "{s:?}");
    }

    #[test]
    fn the_seeds_host_figures() {
        // N = 224 CPUs at Z = 1/22000 s (45.45 µs); worked independently
        // (the same recursion in Python): D = 203 ns gives R ≈ 2.47 µs,
        // R/(Z + R) ≈ 5.2%; D = 250 ns gives R ≈ 10.56 µs, 18.9%, and
        // about 42 CPUs at the line.
        let z = 1e9 / 22e3;
        let s = mva(224, z, &one(203.0));
        let r = s.residence_ns[0];
        assert!(close(r, 2470.0, 0.01), "{r}");
        assert!(close(r / (z + r), 0.052, 0.02), "{r}");
        let s = mva(224, z, &one(250.0));
        let r = s.residence_ns[0];
        assert!(close(r, 10_560.0, 0.01), "{r}");
        assert!(close(r / (z + r), 0.189, 0.01), "{r}");
        assert!(close(s.queue[0], 42.0, 0.02), "{s:?}");
        // The asymptote N·D − Z: 56 µs − 45.45 µs = 10.55 µs.
        assert!(close(r, 224.0 * 250.0 - z, 0.01), "{r}");
    }

    #[test]
    fn nobody_or_nothing_waits_for_nothing() {
        let s = mva(0, 100.0, &one(100.0));
        assert_eq!((s.residence_ns[0], s.rate_per_cpu), (0.0, 0.0));
        let s = mva(64, 1000.0, &one(0.0));
        assert_eq!(s.residence_ns[0], 0.0);
        assert!(close(s.rate_per_cpu, 1e6, 1e-12));
        assert!(close(utilisation(224, 22e3, 203.0), 1.000_384, 1e-9));
    }

    #[test]
    fn two_classes_asking_alike_are_one_class() {
        let st = [Station2 {
            demand_ns: [250.0, 250.0],
            count: 2,
        }];
        let z = 1e9 / 22e3;
        let two = mva2([112, 112], [z, z], &st);
        let one = mva(
            224,
            z,
            &[Station {
                demand_ns: 250.0,
                count: 2,
            }],
        );
        assert!(
            close(two.residence_ns[0][0], one.residence_ns[0], 1e-9),
            "{two:?}"
        );
        assert!(close(two.residence_ns[0][1], one.residence_ns[0], 1e-9));
        assert!(close(two.queue[0], one.queue[0], 1e-9));
        let as_one = mva2_as_one([112, 112], [z, z], &st);
        assert!(close(as_one.residence_ns[0][1], one.residence_ns[0], 1e-12));
        // An empty class changes nothing.
        let lone = mva2([224, 0], [z, 0.0], &st);
        assert!(close(lone.residence_ns[0][0], one.residence_ns[0], 1e-9));
    }

    #[test]
    fn two_classes_match_the_hand_worked_network() {
        // One customer of each class, Z = 0, one station asked 100 ns by
        // class a and 300 ns by class b. (1,0): R = 100, Q = 1; (0,1):
        // R = 300, Q = 1; (1,1): Ra = 100·(1 + Q(0,1)) = 200, Rb =
        // 300·(1 + Q(1,0)) = 600: each waits its own demand × the one it
        // finds, and the station always holds both (Q = 2).
        let st = [Station2 {
            demand_ns: [100.0, 300.0],
            count: 1,
        }];
        let s = mva2([1, 1], [0.0, 0.0], &st);
        assert!(close(s.residence_ns[0][0], 200.0, 1e-12), "{s:?}");
        assert!(close(s.residence_ns[0][1], 600.0, 1e-12), "{s:?}");
        assert!(close(s.queue[0], 2.0, 1e-12), "{s:?}");
        // With think time 400 ns each: Q(1,0) = 100/500, Q(0,1) = 300/700;
        // Ra = 100·(1 + 3/7), Rb = 300·(1 + 1/5).
        let s = mva2([1, 1], [400.0, 400.0], &st);
        assert!(close(
            s.residence_ns[0][0],
            100.0 * (1.0 + 3.0 / 7.0),
            1e-12
        ));
        assert!(close(s.residence_ns[0][1], 360.0, 1e-12));
    }
}
