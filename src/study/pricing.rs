//! Which class latencies price the study's prediction and its check: the matrix stage's, the matrix
//! measured again right after the run, or the run's own canaries, chosen by whether the run's
//! canary agrees with them: a short matrix stage and a long run may see different phases of a host
//! that moves vCPUs (docs/evidence.md), so when the run's canary [`disagrees`] with the matrix's
//! pairs of its class, the matrix is measured again after the run and the figures that agree price
//! the model ([`choose`]).

use super::{PricedWith, Pricing, StudyResults};
use crate::matrix::{MatrixResults, PairClass, classify};
use crate::predict::Latencies;
use crate::runner::RunResults;
use crate::runner::interference::canary_cpus;
use crate::stats::median;
use crate::units::si;

/// How far outside a matrix's class range the run's canary may lie and still agree with it, as a
/// fraction of the range's ends.
pub const CANARY_MOVED: f64 = 0.25;

/// True when `canary_ns` lies outside `range` (a class's cheapest and dearest pair, ns) by more
/// than [`CANARY_MOVED`] of its nearer end.
pub fn disagrees(canary_ns: f64, range: [f64; 2]) -> bool {
    canary_ns < (1.0 - CANARY_MOVED) * range[0] || canary_ns > (1.0 + CANARY_MOVED) * range[1]
}

/// The cheapest and dearest pair of `class` in `m`, each pair's median one-way ns.
pub fn class_range(m: &MatrixResults, class: PairClass) -> Option<[f64; 2]> {
    let c = m.classes.iter().find(|c| c.class == class)?;
    Some([c.min_ns, c.max_ns])
}

/// The run's canary: the class of its pair (the run's first two CPUs) and the median over the
/// repeats of each one's canary, ns; `None` without a canary.
pub fn run_canary(run: &RunResults) -> Option<(PairClass, f64)> {
    let (a, b) = canary_cpus(&run.config.writer_cpus, &run.config.reader_cpus)?;
    let class = classify(&run.topology, a, b).ok()?;
    let canaries: Vec<f64> = run
        .repeats_run(None)
        .into_iter()
        .filter_map(|r| r.interference.canary_ns)
        .collect();
    Some((class, median(&canaries)?))
}

/// The matrix measured again after the run: the class's range in it, or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub enum Again {
    /// The run's canary agreed with the first: not measured again.
    NotNeeded,
    /// Measured again: the class's cheapest and dearest pair, ns.
    Measured([f64; 2]),
    /// Needed, but not measured (why: no budget left, a failure).
    Missing(String),
}

/// Which figures price the model: the matrix stage's unless the run's median canary [`disagrees`]
/// with its class's range.
pub fn choose(
    canary_ns: Option<f64>,
    first: Option<[f64; 2]>,
    again: &Again,
    one_class: bool,
) -> PricedWith {
    let (Some(canary), Some(first)) = (canary_ns, first) else {
        return PricedWith::Matrix;
    };
    if !disagrees(canary, first) {
        return PricedWith::Matrix;
    }
    match again {
        Again::Measured(r) if !disagrees(canary, *r) => PricedWith::MatrixAgain,
        _ if one_class => PricedWith::Canary,
        Again::Measured(_) => PricedWith::MatrixAgain,
        Again::NotNeeded | Again::Missing(_) => PricedWith::Matrix,
    }
}

/// `10.5 ns` or `10.5-10.8 ns`: a class's range.
fn range_text(r: [f64; 2]) -> String {
    if si(r[0]) == si(r[1]) {
        format!("{} ns", si(r[0]))
    } else {
        format!("{}-{} ns", si(r[0]), si(r[1]))
    }
}

/// The sentence saying why `used` priced the model, from what [`choose`] was given.
pub fn reason(
    used: PricedWith,
    class: Option<PairClass>,
    canary_ns: Option<f64>,
    first: Option<[f64; 2]>,
    again: &Again,
) -> String {
    let (Some(class), Some(c)) = (class, canary_ns) else {
        return "the run recorded no canary to set against it".into();
    };
    let canary = format!(
        "the run's canary ({} ns one-way, the median of its repeats', on a {class} pair)",
        si(c)
    );
    let Some(first) = first else {
        return format!("{canary} has no {class} pair of the matrix to be set against");
    };
    let pct = 100.0 * CANARY_MOVED;
    if !disagrees(c, first) {
        return format!(
            "{canary} lies within {pct:.0}% of the matrix's {class} pairs ({})",
            range_text(first)
        );
    }
    let moved = format!(
        "{canary} lay more than {pct:.0}% outside the matrix stage's {class} pairs ({}): the host's core-to-core latency moved between the two stages",
        range_text(first)
    );
    let again_agrees = matches!(again, Again::Measured(r) if !disagrees(c, *r));
    let measured = match again {
        Again::Measured(r) => format!(
            "measured again right after the run they read {}, {}",
            range_text(*r),
            if again_agrees {
                "which agrees"
            } else {
                "still outside"
            }
        ),
        Again::Missing(why) => format!("the matrix was not measured again ({why})"),
        Again::NotNeeded => "the matrix was not measured again".into(),
    };
    let then = match used {
        PricedWith::Canary => {
            ", so each repeat is priced at its own canary (the run's CPUs make one pair class)"
        }
        PricedWith::MatrixAgain => "",
        _ => ", and a canary prices only its own class here: the figures may be off by as much",
    };
    format!("{moved}; {measured}{then}")
}

/// The figures that price the model, and the record of why, from the study's matrix, its run and
/// the matrix measured again; `None` without a matrix.
pub(super) fn price(study: &StudyResults) -> Option<Pricing> {
    let first = study.parts.matrix.as_ref()?;
    let run = study.parts.run.as_ref();
    let canary = run.and_then(run_canary);
    let (class, canary_ns) = (canary.map(|c| c.0), canary.map(|c| c.1));
    let first_range = class.and_then(|c| class_range(first, c));
    let again = match (&study.parts.matrix_again, class) {
        (None, _) => Again::NotNeeded,
        (Some(Err(why)), _) => Again::Missing(why.clone()),
        (Some(Ok(m)), Some(c)) => class_range(m, c).map_or_else(
            || Again::Missing(format!("it has no {c} pair")),
            Again::Measured,
        ),
        (Some(Ok(_)), None) => Again::Missing("no canary class".into()),
    };
    let used = choose(canary_ns, first_range, &again, first.classes.len() == 1);
    let latencies = match (used, &study.parts.matrix_again, run, canary_ns) {
        (PricedWith::MatrixAgain, Some(Ok(m)), _, _) => {
            Latencies::from_matrix(m, "the matrix measured again after the run")
        }
        (PricedWith::Canary, _, Some(run), Some(ns)) => canary_latencies(run, ns),
        _ => Latencies::from_matrix(first, "this study's matrix"),
    };
    let latencies = latencies.priceable();
    let mut why = reason(used, class, canary_ns, first_range, &again);
    if let Some(e) = &latencies.left_out {
        why.push_str(&format!(
            "; its transactions were left out ({e}), so every transfer is priced at its class's ping-pong"
        ));
    }
    Some(Pricing {
        used,
        why,
        canary_class: class.map(|c| c.to_string()),
        canary_ns,
        matrix_range_ns: first_range,
        again_range_ns: match again {
            Again::Measured(r) => Some(r),
            _ => None,
        },
        latencies,
    })
}

/// The run's median canary `ns` for every class, each transaction priced at the median over the
/// repeats of its ratio to that repeat's canary.
fn canary_latencies(run: &RunResults, ns: f64) -> Latencies {
    let repeats = run.repeats_run(None);
    Latencies::uniform(ns, "the run's median canary").priced_at(|t| {
        let ratios: Vec<f64> = repeats
            .iter()
            .flat_map(|r| &r.interference.canary_transactions)
            .filter(|c| c.transaction == t)
            .map(|c| c.to_pingpong)
            .collect();
        median(&ratios)
    })
}

#[cfg(test)]
mod tests {
    use super::super::stages::{cannot_measure_again, measure_again_if_needed};
    use super::*;
    use crate::matrix::ClassStats;
    use crate::study::{StudyParts, plan_study};
    use std::sync::atomic::AtomicBool;

    #[test]
    fn a_canary_disagrees_beyond_a_quarter_outside_the_class_range() {
        // Pairs from 20 to 30 ns: agreeing from 0.75 × 20 = 15 to
        // 1.25 × 30 = 37.5 ns, both ends included.
        for (canary, off) in [
            (15.0, false),
            (14.9, true),
            (25.0, false),
            (37.5, false),
            (37.6, true),
        ] {
            assert_eq!(disagrees(canary, [20.0, 30.0]), off, "{canary}");
        }
        // The pricing case of docs/evidence.md: 10.5 ns matrix, 27.5 ns canary.
        assert!(disagrees(27.5, [10.5, 10.5]));
    }

    #[test]
    fn the_figures_that_agree_with_the_run_price_the_model() {
        use PricedWith::*;
        let (c, slow, fast) = (Some(27.5), Some([10.5, 10.5]), Some([26.0, 28.0]));
        let (agrees, still) = (Again::Measured([26.9, 27.3]), Again::Measured([10.4, 10.6]));
        let (none, missing) = (Again::NotNeeded, Again::Missing("no budget".into()));
        for (canary, first, again, one_class, want) in [
            // Nothing to set the matrix against: the matrix.
            (None, slow, &none, true, Matrix),
            (c, None, &none, true, Matrix),
            // The canary within the matrix's range: the matrix.
            (c, fast, &none, true, Matrix),
            // Outside it, and the matrix again agrees: that, on any host.
            (c, slow, &agrees, true, MatrixAgain),
            (c, slow, &agrees, false, MatrixAgain),
            // The matrix again still outside, or not measured: with one
            // pair class the canaries; with several, the latest matrix.
            (c, slow, &still, true, Canary),
            (c, slow, &still, false, MatrixAgain),
            (c, slow, &missing, true, Canary),
            (c, slow, &missing, false, Matrix),
        ] {
            let got = choose(canary, first, again, one_class);
            assert_eq!(got, want, "{canary:?} {first:?} {again:?} {one_class}");
        }
    }

    #[test]
    fn the_reason_names_the_figures_it_compared() {
        use PricedWith::*;
        let (llc, slow) = (Some(PairClass::SameLlc), Some([10.5, 10.5]));
        let of = |used, first, again| reason(used, llc, Some(27.5), first, &again);
        let r = of(Matrix, Some([26.0, 28.0]), Again::NotNeeded);
        let within = "the run's canary (27.5 ns one-way, the median of its repeats', on a same-llc pair) lies within 25% of the matrix's same-llc pairs (26.0-28.0 ns)";
        assert_eq!(r, within);
        let r = of(MatrixAgain, slow, Again::Measured([26.9, 27.3]));
        let moved = "lay more than 25% outside the matrix stage's same-llc pairs (10.5 ns)";
        let agrees = "measured again right after the run they read 26.9-27.3 ns, which agrees";
        assert!(r.contains(moved) && r.ends_with(agrees), "{r}");
        let why = "2.0 s of the budget left, its estimate 3.0 s";
        let r = of(Canary, slow, Again::Missing(why.into()));
        let canaries = "the matrix was not measured again (2.0 s of the budget left, its estimate 3.0 s), so each repeat is priced at its own canary (the run's CPUs make one pair class)";
        assert!(r.ends_with(canaries), "{r}");
        let r = reason(Matrix, None, None, None, &Again::NotNeeded);
        assert_eq!(r, "the run recorded no canary to set against it");
    }

    #[test]
    fn the_matrix_is_measured_again_when_the_budget_pays_its_estimate_exactly() {
        // An estimate of 0.8 s: 0.8 s left pays for it, and more does; a
        // nanosecond less does not, and says both figures; a stopped
        // study says so whatever is left.
        let short = |s: &str| Some(format!("{s} s of the budget left, its estimate 0.8 s"));
        for (stopped, left, want) in [
            (false, 0.8, None),
            (false, 5.0, None),
            (false, 0.8 - 1e-9, short("0.8")),
            (false, -3.0, short("0.0")),
            (true, 5.0, Some("the study was interrupted".into())),
        ] {
            let got = cannot_measure_again(stopped, 0.8, left);
            assert_eq!(got, want, "{stopped} {left}");
        }
    }

    #[test]
    fn a_canary_prices_each_transaction_at_its_median_ratio_over_the_repeats() {
        use crate::matrix::{Transaction::*, TransactionCost};
        // The fixture run's four repeats, each priced by its canary: an
        // add that moves a line at 1.0, 1.2, 1.4 and 3.0 × the ping-pong
        // (median 1.3), an upgrade at 0.5, 0.7, 0.9 and 0.6 (0.65), a
        // fetch at 0.8 and an upgrade with a fetch at 1.9 in every
        // repeat, a read back in the first two only (0.2, 0.4: 0.3).
        let mut run = crate::runner::fixture_run();
        fn repeats(run: &mut RunResults) -> impl Iterator<Item = &mut crate::runner::RepeatResult> {
            run.strategies.iter_mut().flat_map(|s| &mut s.repeats)
        }
        assert_eq!(repeats(&mut run).count(), 4, "the fixture's repeats");
        for (i, r) in repeats(&mut run).enumerate() {
            let mut ratios = vec![
                (AddMoved, [1.0, 1.2, 1.4, 3.0][i]),
                (ReadFetched, 0.8),
                (AddUpgraded, [0.5, 0.7, 0.9, 0.6][i]),
                (AddThenReadOther, 1.9),
            ];
            if i < 2 {
                ratios.push((ReadBack, [0.2, 0.4][i]));
            }
            let net = |x: f64| x * r.interference.canary_ns.unwrap();
            r.interference.canary_transactions = (ratios.into_iter())
                .map(|(transaction, x)| TransactionCost {
                    transaction,
                    net_ns: net(x),
                    to_pingpong: x,
                    samples: 120,
                })
                .collect();
        }
        let l = canary_latencies(&run, 25.0);
        assert_eq!(l.classes.len(), 4);
        assert!(
            l.classes
                .values()
                .all(|c| (c.ns, c.lo_ns, c.hi_ns) == (25.0, 25.0, 25.0))
        );
        assert_eq!(l.transactions.len(), 4, "{:?}", l.transactions);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        for (class, r) in &l.transactions {
            assert!(
                close(r.add_moved, 1.3)
                    && close(r.read_fetched, 0.8)
                    && close(r.add_upgraded, 0.65)
                    && r.read_back.is_some_and(|x| close(x, 0.3))
                    && close(r.add_then_read_other, 1.9),
                "{class}: {r:?}"
            );
        }
        // No repeat measured the upgrade: no transaction is priced, every
        // transfer stays at the ping-pong.
        for r in repeats(&mut run) {
            let kept = &mut r.interference.canary_transactions;
            kept.retain(|c| c.transaction != AddUpgraded);
        }
        assert!(canary_latencies(&run, 25.0).transactions.is_empty());
    }

    /// A matrix of the run's host whose one class, `class`, costs `ns`.
    fn matrix(run: &RunResults, class: PairClass, ns: f64) -> MatrixResults {
        crate::matrix::fixture_matrix(run, vec![ClassStats::one_pair(class, ns)])
    }

    /// A study of `run`'s host stopped after its matrix (one class at
    /// `first` ns), its run and, if any, the matrix measured again.
    fn partial_study(
        run: &RunResults,
        first: f64,
        again: Option<Result<f64, &str>>,
    ) -> StudyResults {
        let (class, _) = run_canary(run).unwrap();
        let costs = crate::study::plan::example_costs();
        let plan = plan_study(&run.topology, "fixture", Some(600.0), &costs).unwrap();
        let mut s = crate::study::Study::new(plan, run.provenance.clone()).into_results();
        s.parts = StudyParts {
            matrix: Some(matrix(run, class, first)),
            run: Some(run.clone()),
            matrix_again: again.map(|a| a.map(|ns| matrix(run, class, ns)).map_err(str::to_string)),
            ..StudyParts::default()
        };
        s
    }

    #[test]
    fn transactions_that_price_a_transfer_at_or_below_zero_are_left_out_and_said() {
        // The fixture run's canary (25 ns) agrees with a 24 ns matrix, which prices the model;
        // its one pair measured the add that moves the line at `add_moved` × the ping-pong.
        let run = crate::runner::fixture_run();
        let (class, _) = run_canary(&run).unwrap();
        let priced = |add_moved: f64| {
            let mut s = partial_study(&run, 24.0, None);
            let m = s.parts.matrix.as_mut().unwrap();
            let mut transactions = [24.0; crate::matrix::Transaction::ALL.len()];
            transactions[0] = add_moved * 24.0;
            m.pairs.push(crate::matrix::fixture_pair(
                0,
                1,
                class,
                24.0,
                &transactions,
            ));
            price(&s).unwrap()
        };
        let p = priced(1.5);
        assert_eq!(p.used, PricedWith::Matrix);
        assert!(p.latencies.priced() && p.latencies.left_out.is_none());
        assert!(!p.why.contains("left out"), "{}", p.why);
        // At -0.5 × 24 ns: every transfer at its class's ping-pong, and the reason says why.
        let p = priced(-0.5);
        assert!(!p.latencies.priced() && p.latencies.left_out.is_some());
        let clause = format!(
            "; its transactions were left out (the {class} transfer is priced at -12.0 ns (this study's matrix)"
        );
        assert!(p.why.contains(&clause), "{}", p.why);
        let end = "so every transfer is priced at its class's ping-pong";
        assert!(p.why.ends_with(end), "{}", p.why);
    }

    #[test]
    fn the_matrix_is_measured_again_only_when_the_canary_disagrees_and_time_allows() {
        // The fixture run's canary (25 ns median) against a one-class
        // matrix; nothing here measures: each case stops before.
        let run = crate::runner::fixture_run();
        let after = |first: f64, left_s: f64, stopped: bool| {
            let mut s = partial_study(&run, first, None);
            let stop = AtomicBool::new(stopped);
            measure_again_if_needed(&mut s, &run.topology, &stop, left_s, &mut |_| {});
            s.parts.matrix_again.map(|a| a.map(|_| ()))
        };
        let est = partial_study(&run, 20.0, None).plan.matrix.est_s;
        // Within 25% (20 ns: 25 is 1.25 × 20 exactly): not needed.
        assert_eq!(after(20.0, 100.0, false), None);
        // 10.5 ns: needed; a budget below the matrix's estimate, or a
        // stopped study, says why it was not measured.
        let why = after(10.5, est / 2.0, false).unwrap().unwrap_err();
        assert!(why.contains("of the budget left, its estimate"), "{why}");
        let why = after(10.5, 100.0, true).unwrap().unwrap_err();
        assert_eq!(why, "the study was interrupted");
    }

    #[test]
    fn a_study_whose_stages_disagree_prices_with_what_agrees_and_says_so() {
        // The fixture run (writers 0 and 1, one pair class), paced at
        // 1k/s with a net cost measured; its canaries 10, 40, 20 and 30
        // ns: median 25.
        let mut run = crate::runner::fixture_run();
        for s in &mut run.strategies {
            s.regime = crate::workload::Regime::paced(1e3);
            s.summary.as_mut().unwrap().net_ns = crate::stats::Summary::of(&[18.0, 22.0]);
        }
        let (class, canary) = run_canary(&run).unwrap();
        assert_eq!(canary, 25.0);
        let topo = run.topology.clone();
        let study = |first: f64, again: Option<Result<f64, &str>>| {
            let mut s = partial_study(&run, first, again);
            let status = super::super::stages::study_predict(&mut s, &topo);
            assert_eq!(status, crate::study::StageStatus::Done);
            s
        };
        // The matrix at 24 ns: the canary agrees; the matrix prices it.
        let s = study(24.0, None);
        let p = s.pricing.as_ref().unwrap();
        assert_eq!((p.used, p.canary_ns), (PricedWith::Matrix, Some(25.0)));
        assert_eq!(p.latencies.source, "this study's matrix");
        // A 10.5 ns matrix, measured again at 26 ns: the second prices
        // the prediction and the check, and the record keeps both.
        let s = study(10.5, Some(Ok(26.0)));
        let p = s.pricing.as_ref().unwrap();
        assert_eq!(p.used, PricedWith::MatrixAgain);
        let ranges = (p.matrix_range_ns, p.again_range_ns);
        assert_eq!(ranges, (Some([10.5, 10.5]), Some([26.0, 26.0])));
        assert_eq!(p.latencies.of(class).unwrap().ns, 26.0);
        let check = s.parts.check.as_ref().unwrap().as_ref().unwrap();
        let source = &check.latency_source;
        assert!(source.starts_with("the matrix measured again"), "{source}");
        // Measured again still at 10.4 ns, or not at all: one pair class,
        // so each repeat is priced at its own canary (the check's
        // predicted cost for global/always is its mean canary, 25 ns).
        for again in [Some(Ok(10.4)), Some(Err("no budget"))] {
            let s = study(10.5, again);
            let p = s.pricing.as_ref().unwrap();
            assert_eq!(p.used, PricedWith::Canary, "{}", p.why);
            assert_eq!(p.latencies.of(class).unwrap().ns, 25.0);
            let check = s.parts.check.as_ref().unwrap().as_ref().unwrap();
            let source = &check.latency_source;
            assert!(source.starts_with("each repeat's canary"), "{source}");
            let global = check.points[0].predicted_ns.unwrap();
            assert!((global - 25.0).abs() < 0.01, "{global}");
        }
        // The verdict says what priced the model, in one line.
        let s = study(10.5, Some(Ok(26.0)));
        let lines: Vec<String> = crate::verdict::study_lines(&s)
            .into_iter()
            .map(|l| l.text)
            .filter(|t| t.starts_with("model priced with"))
            .collect();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].starts_with("model priced with the matrix measured again after the run: the run's canary (25.0 ns"), "{}", lines[0]);
    }
}
