//! Student's t from `statrs`: two-sided p-values and quantiles for any df, fractional too; above
//! [`NORMAL_ABOVE_DF`] both use the standard normal (docs/evidence.md), so an interval excludes a
//! value exactly when its p is below the level.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Degrees of freedom above which Student's t is taken as the standard normal (statrs's quantile
/// loses digits beyond; docs/evidence.md).
pub const NORMAL_ABOVE_DF: f64 = 1e5;

/// The distribution used for `df` degrees of freedom; `None` for a `df`
/// that is NaN or not positive (statrs refuses it).
enum Distribution {
    Student(StudentsT),
    Normal(Normal),
}

impl Distribution {
    fn for_df(df: f64) -> Option<Distribution> {
        if df > NORMAL_ABOVE_DF {
            return Some(Distribution::Normal(Normal::standard()));
        }
        StudentsT::new(0.0, 1.0, df).ok().map(Distribution::Student)
    }

    fn sf(&self, x: f64) -> f64 {
        match self {
            Distribution::Student(d) => d.sf(x),
            Distribution::Normal(d) => d.sf(x),
        }
    }

    fn inverse_cdf(&self, q: f64) -> f64 {
        match self {
            Distribution::Student(d) => d.inverse_cdf(q),
            Distribution::Normal(d) => d.inverse_cdf(q),
        }
    }
}

/// Two-sided p-value of Student's t with `df` degrees of freedom, `P(|T| >= |t|)`: twice statrs's
/// upper tail (no `1 - cdf` cancellation).
pub fn student_t_two_sided_p(t: f64, df: f64) -> f64 {
    match Distribution::for_df(df) {
        Some(d) if !t.is_nan() => 2.0 * d.sf(t.abs()),
        _ => f64::NAN,
    }
}

/// The `q` quantile of Student's t with `df` degrees of freedom (any df > 0, fractional or
/// infinite); `NaN` for q outside (0, 1) or df ≤ 0.
pub fn t_quantile(q: f64, df: f64) -> f64 {
    if q.is_nan() || q <= 0.0 || q >= 1.0 {
        return f64::NAN;
    }
    Distribution::for_df(df).map_or(f64::NAN, |d| d.inverse_cdf(q))
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom: the multiplier of a two-sided
/// 95% interval (12.706 at df 1).
pub fn t_quantile_975(df: f64) -> f64 {
    if df == 0.0 {
        return f64::INFINITY;
    }
    t_quantile(0.975, df)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn student_t_p_values() {
        // (t, df, exact p, absolute tolerance). Textbook: t = 2.0 with 10 df,
        // p = 0.0734; the tabled 97.5% quantile gives p = 0.05; one df is the
        // Cauchy distribution: P(|T| >= 1) = 1/2; two df has a closed form,
        // 1 - |t| / sqrt(2 + t²); fractional df, as Welch gives, and a far tail.
        let two_df = 1.0 - 1.7 / (2.0f64 + 1.7 * 1.7).sqrt();
        let rows = [
            (2.0, 10.0, 0.073_388_034_770_74, 1e-9),
            (2.228, 10.0, 0.050_011_771_817, 1e-9),
            (1.0, 1.0, 0.5, 1e-12),
            (-1.7, 2.0, two_df, 1e-12),
            (3.0, 2.5, 0.072_576_095_549_03, 1e-9),
            (10.0, 4.3, 3.881_771_818_566_77e-4, 1e-12),
            (0.5, 30.0, 0.620_723_004_885_128, 1e-9),
        ];
        for (t, df, exact, tol) in rows {
            let p = student_t_two_sided_p(t, df);
            assert!(close(p, exact, tol), "t {t} df {df}: {p}");
        }
        // (t, df, exact p, relative tolerance). Many df (mpmath's betainc at
        // 40 digits): statrs keeps 1e-10 up to the switch to the normal.
        // Beyond it, the normal's p: within 1e-4 of Student's at 1e6 df
        // (mpmath), where statrs's own is off by 1e-6 at 1e9 df and 2e-3 at
        // 1e12; 2 Φ(-2) exactly at 1e15 df (statrs's own: 0.138). Infinite
        // df is the normal distribution, 2 Φ(-|z|): statrs's erfc is good to
        // 1e-10 (2.7e-11 off at z = 1).
        let inf = f64::INFINITY;
        let rows = [
            (1.0, 100.0, 0.319_724_155_784_123_4, 1e-10),
            (3.0, 100.0, 0.003_407_915_343_329_449_5, 1e-10),
            (2.0, 1e3, 0.045_770_346_493_251_64, 1e-10),
            (5.0, 1e4, 5.830_326_613_662_647e-7, 1e-10),
            (2.0, 1e5, 0.045_502_963_457_506_46, 1e-10),
            (0.5, 1e6, 0.617_075_187_472_371_4, 1e-6),
            (2.0, 1e7, 0.045_500_290_891_842_95, 1e-6),
            (2.0, 1e15, 0.045_500_263_896_358_41, 1e-6),
            (1.959_963_984_540_054, inf, 0.05, 1e-10),
            (1.0, inf, 0.317_310_507_862_914_1, 1e-10),
            (3.0, inf, 2.699_796_063_260_189e-3, 1e-10),
        ];
        for (t, df, exact, tol) in rows {
            let p = student_t_two_sided_p(t, df);
            assert!(close(p, exact, tol * exact), "t {t} df {df}: {p}");
        }
        assert_eq!(student_t_two_sided_p(0.0, 7.0), 1.0);
        assert_eq!(student_t_two_sided_p(inf, 7.0), 0.0);
        // Without a valid df there is no answer, even for an infinite t.
        for df in [f64::NAN, 0.0, -3.0] {
            let p = [inf, 1.0].map(|t| student_t_two_sided_p(t, df));
            assert!(p.iter().all(|p| p.is_nan()), "{df}: {p:?}");
        }
        assert!(student_t_two_sided_p(f64::NAN, 7.0).is_nan());
    }

    #[test]
    fn t_quantiles_match_the_published_table() {
        // Student's t table, two-sided 95% column (e.g. NIST/SEMATECH
        // e-Handbook 1.3.6.7.2), to its printed digits.
        for (df, table) in [
            (1.0, 12.706),
            (2.0, 4.303),
            (4.0, 2.776),
            (10.0, 2.228),
            (30.0, 2.042),
            (31.0, 2.0395),
            (100.0, 1.984),
            (1000.0, 1.962),
        ] {
            let t = t_quantile_975(df);
            assert!(close(t, table, 5e-4), "df {df}: {t} vs {table}");
        }
        // To 2e-12, against mpmath (findroot on betainc at 40 digits),
        // including the fractional df of the Welch example.
        for (df, exact) in [
            (1.0, 12.706_204_736_174_705),
            (10.0, 2.228_138_851_986_275),
            (31.0, 2.039_513_446_396_408_5),
            (1000.0, 1.962_339_080_826_408_5),
            (1500.0, 1.961_546_753_895_018_7),
            (24.988_529_291_423, 2.059_586_491_360_643),
        ] {
            let t = t_quantile_975(df);
            assert!(close(t, exact, 2e-12 * exact), "df {df}: {t} vs {exact}");
        }
        // df 31 was the old table's first miss: 1.96 was 3.9% too narrow.
        assert!(t_quantile_975(31.0) > 2.039);
        assert_eq!(t_quantile_975(0.0), f64::INFINITY);
    }

    #[test]
    fn t_quantiles_match_closed_forms() {
        for q in [0.6, 0.9, 0.975, 0.995, 0.9999] {
            // One df: Cauchy, tan(π(q - 1/2)). Two df: (2q - 1) / sqrt(2q(1 - q)).
            let cauchy = (std::f64::consts::PI * (q - 0.5)).tan();
            assert!(close(t_quantile(q, 1.0), cauchy, 1e-11 * cauchy), "{q}");
            let two = (2.0 * q - 1.0) / (2.0 * q * (1.0 - q)).sqrt();
            assert!(close(t_quantile(q, 2.0), two, 1e-12 * two), "{q}");
            assert_eq!(t_quantile(1.0 - q, 7.5), -t_quantile(q, 7.5));
        }
        // The lower tail of 1 df down to 1e-6, Cauchy's -cot(πq) (~3e5):
        // where statrs is still exact (at 1e-7 it is 1e-6 off).
        for q in [1e-3, 1e-6] {
            let cauchy = -1.0 / (std::f64::consts::PI * q).tan();
            assert!(close(t_quantile(q, 1.0), cauchy, -1e-12 * cauchy), "{q}");
        }
        assert_eq!(t_quantile(0.5, 3.0), 0.0);
        // No quantile outside 0 < q < 1, or without a valid df.
        for (q, df) in [
            (f64::NAN, 3.0),
            (-0.1, 3.0),
            (0.0, 3.0),
            (1.0, 3.0),
            (1.5, 3.0),
        ] {
            assert!(t_quantile(q, df).is_nan(), "{q}");
        }
        for df in [f64::NAN, 0.0, -2.0] {
            assert!(t_quantile(0.9, df).is_nan(), "{df}");
        }
    }

    #[test]
    fn t_quantiles_invert_the_p_value_for_every_df() {
        // To 2e-12 where statrs's quantile is exact, to 1e-10 on the normal
        // (statrs's erfc), to its lost digits between (a quantile 2e-5 off
        // moves p by 1e-4).
        let exact: &[f64] = &[
            0.7, 1.0, 2.3, 3.9, 9.0, 30.0, 31.0, 57.5, 120.0, 999.0, 1500.0,
        ];
        for (dfs, tol) in [
            (exact, 2e-12),
            (&[2e4, NORMAL_ABOVE_DF], 2e-4),
            (&[1e6, 1e12], 1e-10),
        ] {
            for (&df, q) in dfs
                .iter()
                .flat_map(|df| [0.9, 0.975, 0.999].map(|q| (df, q)))
            {
                let p = student_t_two_sided_p(t_quantile(q, df), df);
                let want = 2.0 * (1.0 - q);
                assert!(close(p, want, tol * want.max(1e-3)), "df {df} q {q}: {p}");
            }
        }
        // Quantiles fall towards the normal's as df grows, and reach it
        // past the switch.
        let dfs = [
            1.0,
            2.0,
            5.0,
            30.0,
            31.0,
            1e3,
            1e4,
            NORMAL_ABOVE_DF,
            f64::INFINITY,
        ];
        let t = dfs.map(t_quantile_975);
        assert!(t.windows(2).all(|w| w[1] < w[0]), "{t:?}");
        for df in [1e6, 1e9] {
            assert_eq!(t_quantile_975(df), t[8], "df {df}");
        }
    }

    #[test]
    fn large_df_quantiles_stay_within_3e_5() {
        // mpmath at 40 digits, the 97.5%, 99.95% and 75% quantiles, on both
        // sides of the switch to the normal. statrs alone gives 1.8266 for
        // the first at 1e7 df (and never returns at 1e9), so this fails
        // without the switch.
        let rows = [
            (1e7, 0.975, 1.959_964_221_767_205_5),
            (1e7, 0.9995, 3.290_527_704_465_222_4),
            (1e7, 0.75, 0.674_489_774_729_575_2),
            (1e6, 0.975, 1.959_966_356_814_107),
            (1e6, 0.9995, 3.290_536_461_248_691),
            (1e6, 0.75, 0.674_489_995_531_087_4),
            (1e5, 0.975, 1.959_987_707_534_609_6),
            (1e5, 0.9995, 3.290_624_031_411_882_7),
            (1e5, 0.75, 0.674_492_203_553_292_2),
            (5e4, 0.975, 1.960_011_431_093_68),
            (5e4, 0.9995, 3.290_721_336_558_793_7),
            (5e4, 0.75, 0.674_494_656_926_400_7),
            (1e4, 0.975, 1.960_201_239_890_626_3),
            (1e4, 0.9995, 3.291_499_965_941_605),
            (1e4, 0.75, 0.674_514_284_483_592_4),
            (2e3, 0.975, 1.961_150_826_099_438),
            (2e3, 0.9995, 3.295_398_136_729_739_6),
            (2e3, 0.75, 0.674_612_437_531_021_9),
        ];
        for (df, q, exact) in rows {
            let t = t_quantile(q, df);
            let near = close(t, exact, 3e-5 * exact);
            assert!(near, "df {df} q {q}: {t} vs {exact}");
        }
        // Infinite df: the normal's 1.959964 (statrs's own Student's t at
        // infinite df never returns).
        let t = t_quantile_975(f64::INFINITY);
        assert!(close(t, 1.959_963_984_540_054, 1e-13), "{t}");
    }
}
