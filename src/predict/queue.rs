//! Waiting for hot lines: a closed population of CPUs, each thinking for Z between events and then
//! waiting for its transfers (the finite-source network: the queue never grows past the population,
//! so a cost exists at any load).

/// A group of alike stations (hot lines), each asked its own demand per event by each of two
/// classes of customer (the CPUs on the counter's memory node, and the others).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Station {
    /// Line time per event of one CPU of each class, ns (visits × transfer time).
    pub demand_ns: [f64; 2],
    /// Alike stations in the group (every CPU's own line under `cpu`).
    pub count: usize,
}

/// The closed network solved at the whole population.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// Per station group, the time one event of each class spends at one of its stations, ns.
    pub residence_ns: Vec<[f64; 2]>,
    /// Per station group, the mean number of CPUs at one of its stations (waiting or being served).
    pub queue: Vec<f64>,
}

/// Exact MVA of two classes of `population` CPUs, each class thinking `think_ns` between events and
/// asking its own demand of each station (Reiser and Lavenberg 1980, multiclass).
pub fn mva2(population: [usize; 2], think_ns: [f64; 2], stations: &[Station]) -> Solution {
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
    Solution {
        residence_ns: r,
        queue: prev[nb * s..(nb + 1) * s].to_vec(),
    }
}

/// The same network solved as one class.
pub fn mva2_as_one(population: [usize; 2], think_ns: [f64; 2], stations: &[Station]) -> Solution {
    let n = population[0] + population[1];
    let mean = |v: [f64; 2]| {
        crate::stats::ratio(
            v[0] * population[0] as f64 + v[1] * population[1] as f64,
            n as f64,
        )
    };
    let one: Vec<Station> = stations
        .iter()
        .map(|st| Station {
            demand_ns: [mean(st.demand_ns), 0.0],
            count: st.count,
        })
        .collect();
    let solved = mva2([n, 0], [mean(think_ns), 0.0], &one);
    Solution {
        residence_ns: one
            .iter()
            .zip(stations)
            .zip(&solved.residence_ns)
            .map(|((o, st), r)| {
                let d = o.demand_ns[0];
                let ratio = if d > 0.0 { r[0] / d } else { 1.0 };
                st.demand_ns.map(|d| d * ratio)
            })
            .collect(),
        queue: solved.queue,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::tests::near;

    /// One class of `n` CPUs thinking `z` at `stations` of `(demand, count)`.
    fn one(n: usize, z: f64, stations: &[(f64, usize)]) -> Solution {
        let st: Vec<Station> = stations
            .iter()
            .map(|&(d, count)| Station {
                demand_ns: [d, 0.0],
                count,
            })
            .collect();
        mva2([n, 0], [z, 0.0], &st)
    }

    #[test]
    fn one_class_matches_the_closed_forms() {
        // N = 1: R = D, Q = D/(Z + D).
        let s = one(1, 900.0, &[(100.0, 1)]);
        near(s.residence_ns[0][0], 100.0, 1e-12);
        near(s.queue[0], 0.1, 1e-12);
        // N = 2, D = 100, Z = 400: Q(1) = 0.2, R(2) = 120, Q(2) = 240/520 (the machine-repairman's
        // p₀ = 8/13 gives R = N/X − Z = 520 − 400 the same way).
        let s = one(2, 400.0, &[(100.0, 1)]);
        near(s.residence_ns[0][0], 120.0, 1e-12);
        near(s.queue[0], 240.0 / 520.0, 1e-12);
        // N = 2, Z = 0, stations of 100 and 300 ns: R = 125 and 525; two alike stations of 100 ns
        // at N = 1 take 100 each.
        let s = one(2, 0.0, &[(100.0, 1), (300.0, 1)]);
        near(s.residence_ns[0][0], 125.0, 1e-12);
        near(s.residence_ns[1][0], 525.0, 1e-12);
        let s = one(1, 0.0, &[(100.0, 2)]);
        near(s.residence_ns[0][0], 100.0, 1e-12);
        // Saturated, N·D = 1000 × 1 µs ≫ Z = 10 µs: R → N·D − Z = 990 µs.
        let s = one(1000, 10_000.0, &[(1000.0, 1)]);
        near(s.residence_ns[0][0], 990_000.0, 1e-6);
        // Nothing to do and no time to think: no traffic, not infinity.
        let s = one(4, 0.0, &[(0.0, 1)]);
        assert_eq!((s.queue[0], s.residence_ns[0][0]), (0.0, 0.0));
        let s = one(0, 100.0, &[(100.0, 1)]);
        assert_eq!(s.residence_ns[0][0], 0.0);
    }

    #[test]
    fn the_seeds_host_figures() {
        // N = 224 CPUs at Z = 1/22000 s (45.45 µs); worked independently (the same recursion in
        // Python): D = 203 ns gives R ≈ 2.47 µs, R/(Z + R) ≈ 5.2%; D = 250 ns gives R ≈ 10.56 µs,
        // 18.9%, and about 42 CPUs at the line, near the asymptote N·D − Z.
        let z = 1e9 / 22e3;
        let r = one(224, z, &[(203.0, 1)]).residence_ns[0][0];
        near(r, 2470.0, 0.01);
        near(r / (z + r), 0.052, 0.02);
        let s = one(224, z, &[(250.0, 1)]);
        let r = s.residence_ns[0][0];
        near(r, 10_560.0, 0.01);
        near(r / (z + r), 0.189, 0.01);
        near(s.queue[0], 42.0, 0.02);
        near(r, 224.0 * 250.0 - z, 0.01);
    }

    #[test]
    fn two_classes_asking_alike_are_one_class() {
        let st = [Station {
            demand_ns: [250.0, 250.0],
            count: 2,
        }];
        let z = 1e9 / 22e3;
        let two = mva2([112, 112], [z, z], &st);
        let one = one(224, z, &[(250.0, 2)]);
        near(two.residence_ns[0][0], one.residence_ns[0][0], 1e-9);
        near(two.residence_ns[0][1], one.residence_ns[0][0], 1e-9);
        near(two.queue[0], one.queue[0], 1e-9);
        let as_one = mva2_as_one([112, 112], [z, z], &st);
        near(as_one.residence_ns[0][1], one.residence_ns[0][0], 1e-12);
    }

    #[test]
    fn two_classes_match_the_hand_worked_network() {
        // One customer of each class, Z = 0, one station asked 100 ns by class a and 300 ns by
        // class b. (1,0): R = 100, Q = 1; (0,1): R = 300, Q = 1; (1,1): Ra = 100·(1 + Q(0,1)) =
        // 200, Rb = 300·(1 + Q(1,0)) = 600: each waits its own demand × the one it finds, and the
        // station always holds both (Q = 2).
        let st = [Station {
            demand_ns: [100.0, 300.0],
            count: 1,
        }];
        let s = mva2([1, 1], [0.0, 0.0], &st);
        near(s.residence_ns[0][0], 200.0, 1e-12);
        near(s.residence_ns[0][1], 600.0, 1e-12);
        near(s.queue[0], 2.0, 1e-12);
        // With think time 400 ns each: Q(1,0) = 100/500, Q(0,1) = 300/700; Ra = 100·(1 + 3/7), Rb =
        // 300·(1 + 1/5).
        let s = mva2([1, 1], [400.0, 400.0], &st);
        near(s.residence_ns[0][0], 100.0 * (1.0 + 3.0 / 7.0), 1e-12);
        near(s.residence_ns[0][1], 360.0, 1e-12);
    }
}
