//! `contend compare` and `contend report` end to end, on result files made
//! by a real short run (and edited copies of it, some with summaries of
//! known numbers put in, so the verdicts are known in advance), and on the
//! schema-2 fixture written before net cost and regimes were recorded.

use contend::stats::{Decision, Difference, Summary, Threshold, holm_adjusted};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod common;
use common::{assert_one_line_error, contend, first_run_json, load, s, save, stderr, stdout};

/// One real run (levels global and node, 3 repeats, flat out only: one
/// regime, so rows and tests are counted per strategy), made once for
/// every test: its results folder and run.json.
struct Run {
    _dir: tempfile::TempDir,
    folder: PathBuf,
    json: PathBuf,
}

fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        real_run(&[
            "--duration",
            "60ms",
            "--level",
            "global,node",
            "--publish",
            "always",
            "--rate",
            "max",
        ])
    })
}

/// `contend run --print json` of 3 repeats with no warm-up and `args`, into a
/// folder of its own.
fn real_run(args: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let common = [
        "run",
        "--print",
        "json",
        "--out",
        folder,
        "--repeats",
        "3",
        "--warmup",
        "0",
    ];
    let out = contend(&[&common[..], args].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let json = first_run_json(dir.path()).expect("run wrote run.json");
    Run {
        folder: json.parent().unwrap().to_path_buf(),
        json,
        _dir: dir,
    }
}

/// The strategies of the real run.
const STRATEGIES: [&str; 2] = ["global/always", "node/always"];

/// Their full names, as run.json names them.
const FULL: [&str; 2] = ["global/always/pad128", "node/always/pad128"];

/// The summary fields `contend compare` compares flat out, in its row
/// order: ns/op from throughput first (never the sampled `write_ns`).
const COMPARED: [&str; 3] = ["write_loop_ns", "write_ops_per_s", "read_ops_per_s"];

/// Their rows' names.
const ROWS: [&str; 3] = ["loop ns/op", "updates/s", "read ops/s"];

/// A summary as run.json holds it, of `n` repeats with this mean and
/// sample standard deviation (compare reads only n, mean and stddev).
fn summary(n: usize, mean: f64, sd: f64) -> Value {
    serde_json::json!({
        "n": n, "mean": mean, "stddev": sd, "stddev_pct": 100.0 * sd / mean,
        "ci95_low": mean - sd, "ci95_high": mean + sd,
        "min": mean - sd, "max": mean + sd
    })
}

/// The real run.json with every compared summary of every strategy
/// replaced by `f(strategy, field)` = (repeats, mean, stddev).
fn synthetic(f: impl Fn(&str, &str) -> (usize, f64, f64)) -> Value {
    let mut v = load(&run().json);
    for st in v["strategies"].as_array_mut().unwrap() {
        let name = st["name"].as_str().unwrap().to_string();
        for field in COMPARED {
            let (n, mean, sd) = f(&name, field);
            st["summary"][field] = summary(n, mean, sd);
        }
        st["summary"]["set_aside"] = 0.into();
    }
    v
}

/// `k` copies of the real run, the i-th with every compared summary of
/// every strategy set to `f(strategy, field, i)`, each in a folder of its
/// own under `dir/name`: a side of `k` runs, replicates of one experiment.
fn runs(
    dir: &Path,
    name: &str,
    k: usize,
    f: impl Fn(&str, &str, usize) -> (usize, f64, f64),
) -> PathBuf {
    let side = dir.join(name);
    for i in 0..k {
        let folder = side.join(format!("run{i}"));
        std::fs::create_dir_all(&folder).unwrap();
        save(&folder, "run.json", &synthetic(|st, field| f(st, field, i)));
    }
    side
}

/// The i-th of `k` offsets whose mean is 0 and whose sample standard
/// deviation is exactly 1: run i of a side whose run means spread by `s`
/// lies at `mean + s × spread(k, i)`.
fn spread(k: usize, i: usize) -> f64 {
    let k = k as f64;
    (i as f64 - (k - 1.0) / 2.0) / (k * (k + 1.0) / 12.0).sqrt()
}

/// A field's base value: throughputs near a million, ns/op near 20.
fn base_mean(field: &str) -> f64 {
    if field.ends_with("_ns") { 20.0 } else { 1e6 }
}

/// One printed row of `contend compare`: its cells (separated by three
/// spaces or more) under the pair's title.
#[derive(Debug)]
struct Row {
    pair: String,
    measure: String,
    base: String,
    test: String,
    verdict: String,
    change: String,
    p: String,
}

/// Every row of a text comparison, in order.
fn rows(text: &str) -> Vec<Row> {
    let mut out = Vec::new();
    let mut pair = String::new();
    for line in text.lines() {
        if line.starts_with("    ") {
            // A judged row's run-level detail, under it.
            continue;
        }
        if !line.starts_with(' ') && !line.is_empty() && !line.contains(": ") {
            pair = line.to_string();
        } else if let Some(body) = line.strip_prefix("  ") {
            let cells: Vec<&str> = body
                .split("   ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            assert_eq!(cells.len(), 6, "{line}");
            out.push(Row {
                pair: pair.clone(),
                measure: cells[0].to_string(),
                base: cells[1].to_string(),
                test: cells[2].to_string(),
                verdict: cells[3].to_string(),
                change: cells[4].to_string(),
                p: cells[5].to_string(),
            });
        }
    }
    out
}

/// `contend compare ARGS`, which must succeed: its rows and its text.
fn compare_ok(args: &[&str]) -> (Vec<Row>, String) {
    let out = contend(&[&["compare", "--verbose"], args].concat());
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    (rows(&text), text)
}

#[test]
fn a_file_against_itself_is_no_change_and_one_changed_strategy_is_found() {
    // The real run against itself: one run, its repeats the replicates;
    // t = 0, so p = 1 and never a change; no change only where the
    // interval lies within ±2%. A pair is judged on its cost (loop
    // ns/op); its other rows show their change, not judged.
    let r = run();
    let out = contend(&["compare", "--verbose", s(&r.json), s(&r.folder)]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    for name in STRATEGIES {
        assert!(text.lines().any(|l| l == name), "{text}");
    }
    let all = rows(&text);
    assert_eq!(all.len(), 6, "{text}"); // 2 strategies x 3 measures
    for row in &all {
        assert!(row.test.starts_with("test: "), "{row:?}");
        assert_eq!(row.base.replace("base: ", "test: "), row.test, "{row:?}");
        if row.measure == ROWS[0] {
            assert!(
                ["no change", "inconclusive"].contains(&row.verdict.as_str()),
                "{row:?}"
            );
            assert_eq!(row.p, "p=1.000", "{row:?}");
        } else {
            assert_eq!((row.verdict.as_str(), row.p.as_str()), ("not judged", "-"));
        }
        // +0.0% in an interval symmetric about it: [-x%, +x%].
        assert!(row.change.starts_with("+0.0"), "{row:?}");
        let (lo, hi) = row.change[row.change.find('[').unwrap() + 1..]
            .trim_end_matches(']')
            .split_once(", ")
            .unwrap();
        assert_eq!(
            lo.trim_start_matches(['-', '+']),
            hi.trim_start_matches('+'),
            "{row:?}"
        );
    }
    let measures: Vec<&str> = all.iter().map(|r| r.measure.as_str()).collect();
    assert_eq!(measures, ROWS.repeat(2));

    // Three runs a side whose means spread by 0.5%; in the test runs only
    // node's loop ns/op is 20% higher: exactly that pair is a change, at
    // the run level (4 df: ±2.776 × 0.5% × √(2/3) = ±1.13%, within ±2%
    // for global).
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, bump: f64| {
        runs(dir.path(), name, 3, move |st, field, i| {
            let m = base_mean(field);
            let scale = if st.starts_with("node/") && field == "write_loop_ns" {
                bump
            } else {
                1.0
            };
            (5, m * scale + m * 0.005 * spread(3, i), m / 100.0)
        })
    };
    let (base, test) = (side("base", 1.0), side("test", 1.2));
    let (all, text) = compare_ok(&[s(&base), s(&test)]);
    assert!(text.starts_with("base: "), "{text}");
    assert!(
        text.contains("base (3 runs)") || text.contains("(3 runs)"),
        "{text}"
    );
    assert_eq!(all.len(), 6, "{text}");
    for row in &all {
        match (row.pair.as_str(), row.measure.as_str()) {
            (pair, "loop ns/op") if pair == STRATEGIES[1] => {
                assert_eq!(row.verdict, "dearer", "{row:?}");
                assert_eq!(row.change, "+20.0% [+18.9%, +21.1%]", "{row:?}");
                assert_eq!(row.p, "p<0.001", "{row:?}");
            }
            (_, "loop ns/op") => {
                assert_eq!(row.verdict, "no change", "{row:?}");
                assert_eq!(row.change, "+0.0% [-1.1%, +1.1%]", "{row:?}");
            }
            _ => assert_eq!(row.verdict, "not judged", "{row:?}"),
        }
    }
    assert!(
        text.contains("runs are the replicates (3 base, 3 test"),
        "{text}"
    );
    // A threshold of 25% takes the change in.
    let (all, text) = compare_ok(&[s(&base), s(&test), "--noise", "25"]);
    assert!(
        all.iter()
            .all(|r| ["no change", "not judged"].contains(&r.verdict.as_str())),
        "{text}"
    );
    assert!(text.contains("the noise threshold, ±25%"), "{text}");
}

#[test]
fn a_tiny_significant_difference_is_no_change() {
    // The example at the run level: ten runs of 1,000,000±100
    // against 1,000,200±100 (+0.02%, p about 3e-4) once printed "+0.0%
    // p=0.011" as a measurable difference. By hand: se = 1e-4 × √(2/10)
    // of the mean, 18 df, so the 95% CI is ±0.0094%.
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, scale: f64| {
        runs(dir.path(), name, 10, move |_, field, i| {
            let m = base_mean(field);
            (5, m * scale + m * 1e-4 * spread(10, i), m / 100.0)
        })
    };
    let (base, test) = (side("base", 1.0), side("test", 1.0002));
    let (all, text) = compare_ok(&[s(&base), s(&test)]);
    assert!(
        text.contains("lies beyond the noise threshold, ±2%"),
        "{text}"
    );
    assert!(text.contains("Holm-adjusted over the 2 tests"), "{text}");
    let judged: Vec<&Row> = all.iter().filter(|r| r.measure == ROWS[0]).collect();
    assert_eq!(judged.len(), 2, "{text}");
    for row in judged {
        assert_eq!(row.verdict, "no change", "{row:?}");
        assert_eq!(row.change, "+0.020% [+0.011%, +0.029%]", "{row:?}");
        // Significant even after Holm's correction, and still no change:
        // 2 × 2.95e-4.
        assert_eq!(row.p, "p<0.001", "{row:?}");
    }
    // Without a threshold the same difference is a change.
    let (all, text) = compare_ok(&[s(&base), s(&test), "--noise", "0"]);
    let words: Vec<&str> = all.iter().map(|r| r.verdict.as_str()).collect();
    assert_eq!(
        words,
        ["dearer", "not judged", "not judged"].repeat(2),
        "{text}"
    );
}

#[test]
fn five_percent_is_a_change_with_the_right_word() {
    // global's test runs cost 5% more per update, node's 5% less; ten runs
    // a side whose means spread by 0.01%.
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, test: bool| {
        runs(dir.path(), name, 10, move |st, field, i| {
            let m = base_mean(field);
            let scale = match (test, st.starts_with("global/")) {
                (false, _) => 1.0,
                (true, true) => 1.05,
                (true, false) => 0.95,
            };
            (5, m * scale + m * 1e-4 * spread(10, i), m / 100.0)
        })
    };
    let (base, test) = (side("base", false), side("test", true));
    let (all, text) = compare_ok(&[s(&base), s(&test)]);
    let got: Vec<(&str, &str, &str)> = all
        .iter()
        .map(|r| (r.measure.as_str(), r.verdict.as_str(), r.p.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("loop ns/op", "dearer", "p<0.001"),
            ("updates/s", "not judged", "-"),
            ("read ops/s", "not judged", "-"),
            ("loop ns/op", "cheaper", "p<0.001"),
            ("updates/s", "not judged", "-"),
            ("read ops/s", "not judged", "-"),
        ],
        "{text}"
    );
    assert_eq!(all[0].change, "+5.000% [+4.991%, +5.009%]", "{text}");
    assert_eq!(all[3].change, "-5.000% [-5.009%, -4.991%]", "{text}");
}

#[test]
fn holm_counts_every_test_of_the_invocation() {
    // global's loop ns/op: +25% over 3 runs a side whose means spread by
    // 9.5% of the base. Alone its p is 0.0322 (t = 3.223, 4 df) and its
    // CI [+3.5%, +46.5%] lies beyond ±2%, but it is one of 2 tests (p × 2
    // > 0.05) when both strategies are compared, and one of 1 when global
    // alone is.
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, bump: f64| {
        runs(dir.path(), name, 3, move |st, field, i| {
            let m = base_mean(field);
            if st.starts_with("global/") && field == "write_loop_ns" {
                (3, m * bump + m * 0.095 * spread(3, i), m / 100.0)
            } else {
                (3, m, m / 100.0)
            }
        })
    };
    let (base, test) = (side("base", 1.0), side("test", 1.25));
    let p_of = |row: &Row| -> f64 { row.p.strip_prefix("p=").unwrap().parse().unwrap() };

    let (all, text) = compare_ok(&[s(&base), s(&test)]);
    assert!(text.contains("Holm-adjusted over the 2 tests"), "{text}");
    let row = &all[0];
    assert_eq!(
        (row.pair.as_str(), row.measure.as_str()),
        (STRATEGIES[0], "loop ns/op")
    );
    assert_eq!(row.verdict, "inconclusive", "{text}");
    assert!((p_of(row) - 2.0 * 0.032_19).abs() < 1e-3, "{row:?}");
    assert!(row.change.starts_with("+25.0% [+3"), "{row:?}");

    let (all, text) = compare_ok(&[s(&base), s(&test), "--base", "global", "--test", "global"]);
    assert!(text.contains("Holm-adjusted over the 1 test "), "{text}");
    assert_eq!(all.len(), 3, "{text}");
    assert_eq!(all[0].verdict, "dearer", "{text}");
    assert!((p_of(&all[0]) - 0.032_19).abs() < 1e-3, "{:?}", all[0]);
}

#[test]
fn noise_decides_between_no_change_and_inconclusive() {
    // Four runs a side. global: +1% with run means spread by 0.1% is no
    // change (its CI, about ±0.17%, lies within ±2%); node: +5% with runs
    // spread by 5% is inconclusive (its CI reaches from below -2% to
    // beyond +2%: ±2.447 (6 df) × 3.54%).
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, test: bool| {
        runs(dir.path(), name, 4, move |st, field, i| {
            let m = base_mean(field);
            let (bump, sd) = match st.starts_with("global/") {
                true => (1.01, 0.001),
                false => (1.05, 0.05),
            };
            let scale = if test { bump } else { 1.0 };
            (4, m * scale + m * sd * spread(4, i), m / 100.0)
        })
    };
    let (base, test) = (side("base", false), side("test", true));
    let (all, text) = compare_ok(&[s(&base), s(&test)]);
    let judged: Vec<&Row> = all.iter().filter(|r| r.measure == ROWS[0]).collect();
    assert_eq!(judged[0].verdict, "no change", "{text}");
    assert_eq!(judged[1].verdict, "inconclusive", "{text}");
    assert_eq!(judged[1].change, "+5.0% [-3.7%, +13.7%]", "{text}");
    assert!(text.contains("Holm-adjusted over the 2 tests"), "{text}");

    // One run a side, and no record of the host's spread: nothing can say
    // how far a second run would land, so nothing is called, and the
    // table says why.
    let one = |name: &str| {
        let folder = dir.path().join(name);
        let from = if name == "one-base" { &base } else { &test };
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::copy(from.join("run0/run.json"), folder.join("run.json")).unwrap();
        folder
    };
    let (b, t) = (one("one-base"), one("one-test"));
    let (all, text) = compare_ok(&[s(&b), s(&t)]);
    assert!(
        all.iter()
            .all(|r| ["inconclusive", "not judged"].contains(&r.verdict.as_str())),
        "{text}"
    );
    assert!(
        text.contains("one run per side: between-run noise unknown"),
        "{text}"
    );
    // With the runs of a side as the host's record (3 df), the same pair
    // is tested, the record named.
    let (all, text) = compare_ok(&[s(&b), s(&t), "--noise", s(&base)]);
    assert_eq!(all[0].verdict, "no change", "{text}");
    assert!(text.contains("the host's record"), "{text}");
}

#[test]
fn bad_noise_thresholds_are_one_line_errors() {
    let r = run();
    for bad in ["abc", "-1", "", "inf"] {
        let out = contend(&["compare", s(&r.json), s(&r.json), "--noise", bad]);
        assert_one_line_error(&out, "--noise");
    }
    let out = contend(&["compare", s(&r.json), s(&r.json), "--noise=-0.5"]);
    assert_one_line_error(&out, "a percentage and/or ns per update of 0 or more");
    let out = contend(&["compare", s(&r.json), s(&r.json), "--noise", "2%,3%"]);
    assert_one_line_error(&out, "\"2%,3%\" is not a noise threshold");
}

#[test]
fn levels_inside_one_file() {
    // The real run: the judged row's verdict must be the one the file's
    // own summaries give (Welch, Holm over this 1 test, ±2%); the other
    // rows show their change, not judged.
    let r = run();
    let (all, text) = compare_ok(&[s(&r.json), "--base", "global", "--test", "node"]);
    assert!(text.contains("global/always vs node/always"), "{text}");
    assert!(text.starts_with("base: global in "), "{text}");
    let file = load(&r.json);
    let summary_of = |name: &str, field: &str| -> Summary {
        let st = file["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .find(|st| st["name"] == name)
            .unwrap();
        serde_json::from_value(st["summary"][field].clone()).unwrap()
    };
    let differences: Vec<Difference> = COMPARED
        .iter()
        .map(|f| Difference::of(&summary_of(FULL[0], f), &summary_of(FULL[1], f)))
        .collect();
    let adjusted = holm_adjusted(&[differences[0].welch.unwrap().p]);
    assert_eq!(all.len(), 3, "{text}");
    for (i, row) in all.iter().enumerate() {
        assert_eq!(row.measure, ROWS[i], "{row:?}");
        let change = differences[i].change_pct.unwrap();
        let printed: f64 = row.change[..row.change.find('%').unwrap()].parse().unwrap();
        assert!((printed - change).abs() <= 0.05, "{row:?} {change}");
        if i > 0 {
            assert_eq!((row.verdict.as_str(), row.p.as_str()), ("not judged", "-"));
            continue;
        }
        let rate = COMPARED[i].ends_with("_per_s");
        let word = match (
            Decision::of(&differences[i], Threshold::relative(2.0), adjusted[i]),
            rate,
        ) {
            (Decision::NoChange, _) => "no change",
            (Decision::Inconclusive, _) => "inconclusive",
            (Decision::Increase, true) => "faster",
            (Decision::Decrease, true) => "slower",
            (Decision::Increase, false) => "dearer",
            (Decision::Decrease, false) => "cheaper",
        };
        assert_eq!(row.verdict, word, "{row:?} {:?}", differences[i]);
        let p = adjusted[i];
        let p_text = if p < 0.001 {
            "p<0.001".to_string()
        } else {
            format!("p={p:.3}")
        };
        assert_eq!(row.p, p_text, "{row:?}");
    }

    // And built so the answer is known: node 15% faster, 10% lower ns/op.
    let dir = tempfile::tempdir().unwrap();
    let known = save(
        dir.path(),
        "known.json",
        &synthetic(|name, field| {
            let m = base_mean(field);
            let scale = match (name.starts_with("node/"), field.ends_with("_ns")) {
                (false, _) => 1.0,
                (true, false) => 1.15,
                (true, true) => 0.9,
            };
            (5, m * scale, m / 100.0)
        }),
    );
    let (all, text) = compare_ok(&[s(&known), "--base", "global", "--test", "node"]);
    let words: Vec<&str> = all.iter().map(|r| r.verdict.as_str()).collect();
    assert_eq!(words, ["cheaper", "not judged", "not judged"], "{text}");
    assert!(all[1].change.starts_with("+15.0% [+1"), "{text}");
    assert!(all[0].change.starts_with("-10.0% [-1"), "{text}");

    let missing = contend(&["compare", s(&r.json), "--base", "global", "--test", "cpu"]);
    assert_one_line_error(&missing, "--test cpu matches no strategy");
    let alone = contend(&["compare", s(&r.json)]);
    assert_one_line_error(&alone, "--base and --test");
}

#[test]
fn markdown_has_a_table() {
    let r = run();
    let out = contend(&[
        "compare",
        s(&r.json),
        "--base",
        "global",
        "--test",
        "node",
        "--format",
        "markdown",
    ]);
    // The Markdown as it reads (`p\\<0.001` is `p<0.001`).
    let text = common::unescape_markdown(&stdout(&out));
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.starts_with("| configuration | measure | base | test | change | p |"))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(lines[header + 1], "|---|---|---|---|---|---|");
    let rows: Vec<&str> = lines[header + 2..]
        .iter()
        .take_while(|l| l.starts_with('|'))
        .copied()
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    // The change cell: a verdict word, the change and its CI; then p.
    for row in rows {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(cells.len(), 6, "{row}");
        assert!(
            [
                "faster",
                "slower",
                "dearer",
                "cheaper",
                "no change",
                "inconclusive",
                "not judged"
            ]
            .iter()
            .any(|w| cells[4].starts_with(&format!("{w} ")) && cells[4].contains("%, ")),
            "{row}"
        );
        if cells[4].starts_with("not judged") {
            assert_eq!(cells[5], "-", "{row}");
        } else {
            assert!(cells[5].starts_with("p=") || cells[5] == "p<0.001", "{row}");
        }
    }
    assert!(text.contains("- **verdict:** faster/slower"), "{text}");
    assert!(
        text.contains("lies beyond the noise threshold, ±2%"),
        "{text}"
    );
    assert!(text.contains("- **p:** Welch's t-test"), "{text}");

    // Known inputs: ten runs a side whose means spread by 1e-4 of the
    // base mean; global's test runs 5% higher on every measure, node's the
    // same. By hand: se = 1e-4 × √(2/10) of the mean, 18 df, t = 2.1009,
    // so the 95% CI is ±0.0094%: +5% is [+4.991%, +5.009%] (p far below
    // 0.001 even × 2), and 0 is [-0.009%, +0.009%] with t = 0, p = 1.
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, bump: f64| {
        runs(dir.path(), name, 10, move |st, field, i| {
            let m = base_mean(field);
            let scale = if st.starts_with("global/") { bump } else { 1.0 };
            (5, m * scale + m * 1e-4 * spread(10, i), m / 100.0)
        })
    };
    let (base, test) = (side("base", 1.0), side("test", 1.05));
    let out = contend(&["compare", s(&base), s(&test), "--format", "markdown"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    // The cells as the Markdown reads (`\\[` is `[`).
    let rows: Vec<Vec<String>> = common::unescape_markdown(&text)
        .lines()
        .skip_while(|l| !l.starts_with("|---|"))
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect();
    let want = [
        [
            "global/always",
            "updates/s",
            "not judged +5.000% [+4.991%, +5.009%]",
            "-",
        ],
        [
            "global/always",
            "loop ns/op",
            "dearer +5.000% [+4.991%, +5.009%]",
            "p<0.001",
        ],
        [
            "node/always",
            "loop ns/op",
            "no change +0.000% [-0.009%, +0.009%]",
            "p=1.000",
        ],
        [
            "node/always",
            "read ops/s",
            "not judged +0.000% [-0.009%, +0.009%]",
            "-",
        ],
    ];
    for w in want {
        assert!(
            rows.iter()
                .any(|r| r[0] == w[0] && r[1] == w[1] && r[4] == w[2] && r[5] == w[3]),
            "no row {w:?} in:\n{text}"
        );
    }
    // Figures are written as the text writes them: the mean and its 95%
    // CI's half-width, with units.
    let loop_ns = rows.iter().find(|r| r[1] == "loop ns/op").unwrap();
    assert!(loop_ns[2].starts_with("20.0 ns ±"), "{loop_ns:?}");
    assert!(loop_ns[3].starts_with("21.0 ns ±"), "{loop_ns:?}");
    assert_eq!(rows.len(), 6, "{text}");
    // contend's own intervals and p-values are not escaped: only what
    // came from the files is.
    assert!(text.contains("[+4.991%, +5.009%] | p<0.001 |"), "{text}");
    assert!(!text.contains("\\["), "{text}");
}

#[test]
fn missing_and_corrupt_files_are_one_line_errors() {
    let r = run();
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json");
    assert_one_line_error(&contend(&["compare", s(&missing), s(&r.json)]), "nope.json");
    assert_one_line_error(&contend(&["report", s(&missing)]), "nope.json");

    let corrupt = dir.path().join("corrupt.json");
    std::fs::write(&corrupt, "{\"schema\": 1, \"strategies\": [").unwrap();
    assert_one_line_error(
        &contend(&["compare", s(&r.json), s(&corrupt)]),
        "not a contend result file",
    );
    let wrong = save(dir.path(), "wrong.json", &serde_json::json!({"schema": 1}));
    assert_one_line_error(&contend(&["report", s(&wrong)]), "wrong.json");
    assert_one_line_error(&contend(&["report", s(dir.path())]), "no run.json");
}

#[test]
fn other_hosts_warn_and_unmatched_strategies_are_listed() {
    let r = run();
    let dir = tempfile::tempdir().unwrap();
    let mut other = load(&r.json);
    other["provenance"]["hostname"] = "elsewhere".into();
    other["provenance"]["contend_version"] = "9.9.9".into();
    other["strategies"].as_array_mut().unwrap().remove(1);
    let other = save(dir.path(), "other.json", &other);
    let out = contend(&["compare", "--verbose", s(&r.json), s(&other)]);
    let (text, err) = (stdout(&out), stderr(&out));
    assert!(out.status.success(), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("warning: different hosts") && l.contains("elsewhere")),
        "{err}"
    );
    assert!(
        err.lines()
            .any(|l| l.starts_with("warning: different contend versions")),
        "{err}"
    );
    assert!(
        text.contains("only in base (not compared): node/always"),
        "{text}"
    );
    assert!(text.lines().any(|l| l == "global/always"), "{text}");
}

#[test]
fn clearly_different_runs_report_the_change() {
    // Three runs a side, their loop ns/op 20 and 23 ns (+15%), run means
    // spread by 1%: pooled sd 0.2155 ns (4 df), se 0.176 ns, so the change
    // is 3 ± 2.776 × 0.176 ns: +15.0% [+12.6%, +17.4%].
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, mean: f64| {
        runs(dir.path(), name, 3, move |_, field, i| {
            let m = if field == "write_loop_ns" {
                mean
            } else {
                base_mean(field)
            };
            (3, m + m * 0.01 * spread(3, i), m / 100.0)
        })
    };
    let (base, test) = (side("base", 20.0), side("test", 23.0));
    let out = contend(&["compare", "--verbose", s(&base), s(&test)]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("loop ns/op"))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    for row in rows {
        assert!(row.contains("base: 20.0 ns ±"), "{row}");
        assert!(row.contains("test: 23.0 ns ±"), "{row}");
        assert!(row.contains("dearer"), "{row}");
        assert!(row.contains("+15.0% [+12.6%, +17.4%]"), "{row}");
        assert!(row.contains("p<0.001"), "{row}");
    }
    // Each judged row says how its runs spread.
    assert!(text.contains("    runs 3 + 3, run to run ±"), "{text}");
}

#[test]
fn report_prints_run_and_sweep_files() {
    let r = run();
    let out = contend(&["report", s(&r.json)]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    // The first screen as `contend run` printed it; every table with
    // --verbose.
    assert!(
        text.lines().any(|l| l.starts_with("global/always ")),
        "{text}"
    );
    assert!(!text.contains("write side: updates/s"), "{text}");
    let out = contend(&["report", s(&r.json), "--print", "all"]);
    let text = stdout(&out);
    assert!(
        text.contains("write side: updates/s, all writers (higher is better)"),
        "{text}"
    );
    assert!(
        text.contains("every final sum exact, in all 6 strategy results"),
        "{text}"
    );

    let md = stdout(&contend(&["report", s(&r.folder), "--format", "markdown"]));
    assert!(
        md.contains("\n| policy | global | node |\n|---|---|---|\n| always | "),
        "{md}"
    );
    // The rows, rebuilt from run.json's summaries: `mean ±cv` per level
    // (3 significant digits), node's change against global in brackets,
    // marked n.s. unless Welch's test and the 2% threshold support it (one
    // change per table, so Holm leaves its p as it is).
    use contend::stats::{Decision, Difference, Summary};
    use contend::units::{Unit, ci_pct, cv_text, human, is_noise, noise_text};
    let file = load(&r.json);
    let summary_of = |name: &str, field: &str| -> Summary {
        let st = file["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .find(|st| st["name"] == name)
            .unwrap();
        let sm: Summary = serde_json::from_value(st["summary"][field].clone()).unwrap();
        assert!((sm.stddev_pct - 100.0 * sm.stddev / sm.mean).abs() < 1e-9);
        sm
    };
    for (section, field, unit) in [
        (
            "writer ns/op from throughput",
            "write_loop_ns",
            Unit::Nanoseconds,
        ),
        ("write side: updates/s", "write_ops_per_s", Unit::PerSecond),
    ] {
        let (g, n) = (summary_of(FULL[0], field), summary_of(FULL[1], field));
        let d = Difference::of(&g, &n);
        let p = d.welch.map_or(1.0, |w| w.p);
        let supported = matches!(
            Decision::of(&d, Threshold::relative(2.0), p),
            Decision::Increase | Decision::Decrease
        );
        // A figure whose interval is wider than itself is printed as
        // noise, and no change is printed of it or against it.
        let cell = |s: &Summary| {
            if is_noise(s) {
                noise_text(s)
            } else {
                format!("{} ±{}", human(s.mean, unit), cv_text(ci_pct(s)))
            }
        };
        let row = if is_noise(&g) || is_noise(&n) {
            format!("| always | {} | {} |", cell(&g), cell(&n))
        } else {
            format!(
                "| always | {} | {} ({:+.1}%{}) |",
                cell(&g),
                cell(&n),
                100.0 * (n.mean - g.mean) / g.mean,
                if supported { "" } else { " n.s." }
            )
        };
        // Each regime's tables are `####` sections under its `###` name.
        let table = md
            .split("\n#### ")
            .find(|t| t.starts_with(section))
            .unwrap_or_else(|| panic!("no {section} table: {md}"));
        assert!(table.lines().any(|l| l == row), "{row} not in {table}");
    }
    assert!(md.contains("- **kernel:** Linux "), "{md}");
    assert!(md.contains("**Exact sums:** all 6 repeats exact."), "{md}");

    let dir = tempfile::tempdir().unwrap();
    let sweep = serde_json::json!({
        "schema": contend::runner::SCHEMA_VERSION,
        "partial": false,
        "out_of_time": false,
        "points": [
            { "threads": 1, "affinity": "node0", "rate": null, "results": load(&r.json) },
            { "threads": 2, "affinity": "unbound", "rate": null, "results": load(&r.json) },
        ],
    });
    let sweep = save(dir.path(), "sweep.json", &sweep);
    let out = contend(&["report", s(&sweep), "--format", "markdown"]);
    let md = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(md.starts_with("## contend sweep on "), "{md}");
    assert!(
        md.contains("| threads | affinity | policy | global | node |\n|---|---|---|---|---|\n"),
        "{md}"
    );
    assert!(md.contains("\n| 2 | unbound | always | "), "{md}");
    assert!(md.contains("all 12 repeats exact"), "{md}");
    let text = stdout(&contend(&["report", s(&sweep)]));
    assert!(text.contains("=== 1 threads, affinity node0 ==="), "{text}");

    let refused = contend(&["compare", s(&sweep), s(&r.json)]);
    assert_one_line_error(&refused, "is a sweep");
}

/// Sets `field` of every strategy's summary (that `pick` selects by name
/// and regime) to `n` repeats of `mean` ± 1%.
fn set_all(v: &mut Value, field: &str, n: usize, mean: f64, pick: impl Fn(&str, bool) -> bool) {
    for st in v["strategies"].as_array_mut().unwrap() {
        let paced = !st["rate"].is_null();
        if pick(st["name"].as_str().unwrap(), paced) {
            st["summary"][field] = summary(n, mean, mean / 100.0);
        }
    }
}

#[test]
fn rows_show_the_throughput_figure_never_the_sampled_one() {
    // Sampled write and read ns five times ns/op from throughput, as a
    // fenced sample of a hammering writer reads: 20 ns/op against 100.
    // Three runs a side, their means spread by 0.5%.
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, loop_ns: f64, sampled_ns: f64| {
        let folder = dir.path().join(name);
        for i in 0..3 {
            let mut v = load(&run().json);
            let at = 1.0 + 0.005 * spread(3, i);
            set_all(&mut v, "write_loop_ns", 5, loop_ns * at, |_, _| true);
            set_all(&mut v, "write_ns", 5, sampled_ns * at, |_, _| true);
            set_all(&mut v, "read_ns", 5, sampled_ns * at, |_, _| true);
            let run_folder = folder.join(format!("run{i}"));
            std::fs::create_dir_all(&run_folder).unwrap();
            save(&run_folder, "run.json", &v);
        }
        folder
    };
    let base = side("base", 20.0, 100.0);
    // Only the sampled figure moves (+50%): no change.
    let sampled_moved = side("fenced", 20.0, 150.0);
    // Only the throughput figure moves (+50%): a change.
    let loop_moved = side("loop", 30.0, 100.0);

    let (all, text) = compare_ok(&[s(&base), s(&sampled_moved)]);
    assert_eq!(all.len(), 6, "{text}");
    for row in all.iter().filter(|r| r.measure == "loop ns/op") {
        assert!(row.base.starts_with("base: 20.0 ns ±"), "{row:?}");
        assert!(row.test.starts_with("test: 20.0 ns ±"), "{row:?}");
        assert_eq!(row.verdict, "no change", "{row:?}");
    }
    assert_eq!(all.iter().filter(|r| r.measure == "loop ns/op").count(), 2);
    for sampled in ["100.0", "150.0", "sampled", "write ns/op", "read ns/op"] {
        assert!(!text.contains(sampled), "{sampled} in:\n{text}");
    }

    let (all, text) = compare_ok(&[s(&base), s(&loop_moved)]);
    let loops: Vec<&Row> = all.iter().filter(|r| r.measure == "loop ns/op").collect();
    assert_eq!(loops.len(), 2, "{text}");
    for row in loops {
        assert!(row.test.starts_with("test: 30.0 ns ±"), "{row:?}");
        assert_eq!(row.verdict, "dearer", "{row:?}");
        assert!(row.change.starts_with("+50.0% ["), "{row:?}");
    }
    // The Markdown table too.
    let md = stdout(&contend(&[
        "compare",
        s(&base),
        s(&loop_moved),
        "--format",
        "markdown",
    ]));
    assert!(
        md.contains("| global/always | loop ns/op | 20.0 ns ±"),
        "{md}"
    );
    assert!(md.contains("| dearer +50.0% ["), "{md}");
    assert!(!md.contains("100.0") && !md.contains("sampled"), "{md}");
}

/// tests/fixtures/results/run.json: a flat-out run of two writers, with
/// no paced regime and so no net cost.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/run.json")
}

/// The lines of a text comparison under the pair titled `title`, each
/// split into its cells.
fn block(text: &str, title: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip_while(|l| *l != title)
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            l.split("   ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect()
        })
        .collect()
}

#[test]
fn a_figure_a_file_lacks_is_missing_and_not_replaced() {
    // Flat out, the row is ns/op from throughput.
    let old = fixture();
    let (all, text) = compare_ok(&[s(&old), s(&old)]);
    assert!(!text.contains("note: "), "{text}");
    let measures: Vec<&str> = all.iter().map(|r| r.measure.as_str()).collect();
    assert_eq!(measures, ROWS.repeat(2), "{text}");
    let file = load(&old);
    let loop_ns: Summary =
        serde_json::from_value(file["strategies"][0]["summary"]["write_loop_ns"].clone()).unwrap();
    let ns = |v: f64| contend::units::human(v, contend::units::Unit::Nanoseconds);
    assert_eq!(
        all[0].base,
        format!(
            "base: {} ±{}",
            ns(loop_ns.mean),
            ns(loop_ns.ci95_high - loop_ns.mean)
        ),
        "{text}"
    );

    // Paced with busy ns/op but no net cost: the row is missing, with
    // one note saying so, and busy ns/op is not put in its place.
    let dir = tempfile::tempdir().unwrap();
    let mut paced = file.clone();
    paced["config"]["rates"] = serde_json::json!([22_000.0]);
    for s in paced["strategies"].as_array_mut().unwrap() {
        s["rate"] = 22_000.0.into();
    }
    let busy: Summary =
        serde_json::from_value(paced["strategies"][0]["summary"]["write_busy_ns"].clone()).unwrap();
    let paced = save(dir.path(), "paced.json", &paced);
    let out = contend(&["compare", "--verbose", s(&paced), s(&paced)]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = block(&text, "global/always, paced at 22.0k/s per thread");
    assert_eq!(
        rows,
        [
            ["net ns/update", "base: -", "test: -", "not recorded"],
            ["net CPU %", "base: -", "test: -", "not recorded"],
        ],
        "{text}"
    );
    assert!(!text.contains(&format!("{:.1}", busy.mean)), "{text}");
    let notes: Vec<&str> = text.lines().filter(|l| l.starts_with("note: ")).collect();
    assert_eq!(notes.len(), 2, "{text}");
    assert!(
        notes[0].contains("paced.json has no net ns/update for some strategies (no repeat of the strategy recorded it)"),
        "{text}"
    );
    assert!(notes[1].contains("has no net CPU %"), "{text}");
    // The Markdown says the same.
    let md = stdout(&contend(&[
        "compare",
        s(&paced),
        s(&paced),
        "--format",
        "markdown",
    ]));
    assert!(
        md.contains("| global/always, paced at 22.0k/s per thread | net ns/update | - | - | not recorded |  |"),
        "{md}"
    );
    assert!(md.contains("\n- note: "), "{md}");
}

#[test]
fn two_regimes_pair_regime_by_regime() {
    // A real run of the default regimes: flat out and paced at 22k/s.
    let dir = tempfile::tempdir().unwrap();
    let out = contend(&[
        "run",
        "--print",
        "json",
        "--out",
        s(dir.path()),
        "--duration",
        "40ms",
        "--repeats",
        "2",
        "--warmup",
        "0",
        "--level",
        "global,node",
        "--publish",
        "always",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json = first_run_json(dir.path()).unwrap();
    let flat = |name: &str| format!("{name}, flat out");
    let paced = |name: &str| format!("{name}, paced at 22.0k/s per thread");

    let (all, text) = compare_ok(&[s(&json), s(&json)]);
    assert!(
        !text.contains("not recorded") && !text.contains("note: "),
        "{text}"
    );
    for name in STRATEGIES {
        let rows = block(&text, &flat(name));
        let measures: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(measures, ROWS, "{text}");
        let rows = block(&text, &paced(name));
        let measures: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(measures, ["net ns/update", "net CPU %"], "{text}");
    }
    assert_eq!(all.len(), 2 * 3 + 2 * 2, "{text}");
    // A paced net cost's floor is 1 ns per update (a CPU share's: 1 ns
    // at 22k/s, 0.0022% of a CPU). It bounds the threshold when it is
    // above 2% of the base (or the base is 0 or below). A row is no change
    // (a practical no difference where the floor bounds) only when its
    // interval lies within the threshold; else inconclusive, never a
    // change: the file against itself.
    for r in all.iter().filter(|r| r.verdict != "not judged") {
        let base: f64 = r
            .base
            .trim_start_matches("base: ")
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let floor = match r.measure.as_str() {
            "net ns/update" => 1.0,
            "net CPU %" => 0.0022,
            _ => 0.0,
        };
        let lo: f64 = r.change[r.change.find('[').unwrap() + 1..]
            .split(',')
            .next()
            .unwrap()
            .trim_end_matches('%')
            .parse()
            .unwrap();
        let by_floor = floor > 0.0 && (base <= 0.0 || 100.0 * floor / base > 2.0);
        let limit = if base > 0.0 {
            (100.0 * floor / base).max(2.0)
        } else {
            floor
        };
        let word = match (lo.abs() <= limit, by_floor) {
            (true, true) => "no practical difference",
            (true, false) => "no change",
            (false, _) => "inconclusive",
        };
        assert_eq!(r.verdict, word, "{r:?} {text}");
    }

    // --base/--test inside the file: within each regime.
    let (all, text) = compare_ok(&[s(&json), "--base", "global", "--test", "node"]);
    let pair = "global/always vs node/always";
    assert_eq!(block(&text, &flat(pair)).len(), 3, "{text}");
    assert_eq!(block(&text, &paced(pair)).len(), 2, "{text}");
    assert_eq!(all.len(), 5, "{text}");

    // Known numbers, three runs a side whose means spread by 0.5%: only
    // the paced regime's net cost moves (+50%); the flat-out strategies
    // of the same names do not.
    let known = |name: &str, paced_net: f64| {
        let folder = dir.path().join(name);
        for i in 0..3 {
            let at = 1.0 + 0.005 * spread(3, i);
            let mut v = load(&json);
            for field in COMPARED {
                set_all(&mut v, field, 5, base_mean(field) * at, |_, _| true);
            }
            set_all(&mut v, "net_cpu_share_pct", 5, at, |_, paced| paced);
            set_all(&mut v, "net_ns", 5, 40.0 * at, |_, paced| !paced);
            set_all(&mut v, "net_ns", 5, paced_net * at, |_, paced| paced);
            let run_folder = folder.join(format!("run{i}"));
            std::fs::create_dir_all(&run_folder).unwrap();
            save(&run_folder, "run.json", &v);
        }
        folder
    };
    let (base, test) = (known("base", 40.0), known("test", 60.0));
    let (all, text) = compare_ok(&[s(&base), s(&test)]);
    for row in &all {
        let moved = row.pair.ends_with("per thread") && row.measure == "net ns/update";
        let judged = ["loop ns/op", "net ns/update"].contains(&row.measure.as_str());
        let want = match (moved, judged) {
            (true, _) => "dearer",
            (false, true) => "no change",
            (false, false) => "not judged",
        };
        assert_eq!(row.verdict, want, "{row:?}");
    }
    assert_eq!(
        all.iter().filter(|r| r.verdict == "dearer").count(),
        2,
        "{text}"
    );

    // Against a flat-out-only file: the paced strategies have no partner.
    let (_, text) = compare_ok(&[s(&run().json), s(&json)]);
    assert!(
        text.contains("only in test (not compared): global/always paced at 22.0k/s per thread, node/always paced at 22.0k/s per thread"),
        "{text}"
    );
}

/// A real run of the kernel's counters: global with its /64 threshold,
/// the 1 ms ratelimit on top, and the per-node split, in both regimes
/// (flat out and paced at the seed's 22k/s).
fn kernel_run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        real_run(&[
            "--duration",
            "50ms",
            "--level",
            "global,node",
            "--publish",
            "threshold:64,ratelimit:1ms+threshold:64",
        ])
    })
}

/// The patch table's rows of one regime's section: (strategy, the rest
/// of its line), from the line after the section's title and header; a
/// name on a line of its own is joined with the numbers below it.
fn patch_rows(text: &str, regime: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(regime))
        .unwrap_or_else(|| panic!("no {regime} section in:\n{text}"));
    assert!(lines[at + 1].starts_with("strategy "), "{text}");
    let mut rows: Vec<(String, String)> = Vec::new();
    for l in lines[at + 2..].iter().take_while(|l| !l.is_empty()) {
        match l.split_once(' ') {
            None => rows.push((l.to_string(), String::new())),
            Some(("", rest)) => rows.last_mut().unwrap().1 = rest.trim().to_string(),
            Some((name, rest)) => rows.push((name.to_string(), rest.trim().to_string())),
        }
    }
    rows
}

#[test]
fn the_patch_table_fits_a_commit_message_for_any_number_of_strategies() {
    let r = kernel_run();
    let (base, after, split) = (
        "global/threshold:64",
        "global/ratelimit:1ms+threshold:64",
        "node/threshold:64",
    );
    let out = contend(&[
        "compare",
        s(&r.json),
        "--base",
        base,
        "--test",
        &format!("{after},{split}"),
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    for line in text.lines() {
        assert!(
            line.chars().count() <= 72,
            "{} columns: {line}\n{text}",
            line.chars().count()
        );
    }
    assert!(!text.contains("\\"), "no Markdown escapes in text: {text}");
    let file = load(&r.json);
    for regime in [
        "paced at 22.0k/s per thread: net ns/update",
        "flat out: loop ns/op",
    ] {
        let rows = patch_rows(&text, regime);
        let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(names, [base, after, split], "{text}");
        // The base first, then each test with its change and a word.
        assert!(rows[0].1.ends_with(" base"), "{text}");
        for (_, rest) in &rows[1..] {
            assert!(
                [
                    "cheaper",
                    "dearer",
                    "no change",
                    "no practical difference",
                    "inconclusive"
                ]
                .iter()
                .any(|w| rest.ends_with(w)),
                "{rest}"
            );
            assert!(rest.contains('%') || rest.contains(" ns "), "{rest}");
        }
        // Each figure ± its CI half-width, and its n: the repeats the
        // file's figure used, then +k for those set aside as disturbed.
        let paced = regime.starts_with("paced");
        let (field, decimals) = if paced {
            ("net_ns", 1)
        } else {
            ("write_loop_ns", 1)
        };
        for (name, rest) in &rows {
            let st = file["strategies"]
                .as_array()
                .unwrap()
                .iter()
                .find(|st| {
                    st["name"]
                        .as_str()
                        .unwrap()
                        .starts_with(&format!("{name}/"))
                        && st["rate"].is_null() != paced
                })
                .unwrap();
            let figure = &st["summary"][field];
            let (n, mean) = (
                figure["n"].as_u64().unwrap(),
                figure["mean"].as_f64().unwrap(),
            );
            let set_aside = st["summary"]["set_aside"].as_u64().unwrap();
            let cells: Vec<&str> = rest.split_whitespace().collect();
            assert_eq!(cells[0], format!("{mean:.decimals$}"), "{rest}");
            assert!(cells[1].starts_with('±'), "{rest}");
            let shown = match set_aside {
                0 => n.to_string(),
                k => format!("{n}+{k}"),
            };
            assert_eq!(cells[2], shown, "{rest}");
        }
    }
    // The two-line provenance footer: host and kernel, date and commit.
    let host = file["provenance"]["hostname"].as_str().unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with(&format!("host: {host}, ")) && l.contains("Linux ")),
        "{text}"
    );
    let commit = file["provenance"]["git_commit"].as_str().unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("run: ") && l.contains(commit)),
        "{text}"
    );

    // A unique start of a name selects the same table.
    let prefixed = contend(&[
        "compare",
        s(&r.json),
        "--base",
        "global/thr",
        "--test",
        "global/rate",
        "--test",
        "node/thr",
    ]);
    assert!(prefixed.status.success(), "{}", stderr(&prefixed));
    let body = |t: &str| -> String {
        let lines: Vec<&str> = t.lines().skip_while(|l| !l.starts_with("in ")).collect();
        lines.join("\n")
    };
    assert_eq!(body(&stdout(&prefixed)), body(&text));
    // An ambiguous one lists its candidates on one line; a name the file
    // lacks lists the file's strategies by short name.
    let ambiguous = contend(&["compare", s(&r.json), "--base", "global/", "--test", split]);
    assert_one_line_error(
        &ambiguous,
        &format!(
            "--base global/ is ambiguous in {}: it starts {base}, {after}",
            s(&r.json)
        ),
    );
    let missing = contend(&[
        "compare",
        s(&r.json),
        "--base",
        base,
        "--test",
        "cpu/always",
    ]);
    assert_one_line_error(&missing, "--test cpu/always matches no strategy");
    assert!(!stderr(&missing).contains("pad128"), "{}", stderr(&missing));
}

#[test]
fn the_patch_table_says_what_a_known_difference_is() {
    // node 50% dearer per update than global, 1% noise over 5 repeats
    // (CI about ±1.5%): dearer, +50.0; global against itself, no change.
    let dir = tempfile::tempdir().unwrap();
    let known = save(
        dir.path(),
        "known.json",
        &synthetic(|name, field| {
            let m = base_mean(field);
            let scale = if name.starts_with("node/") { 1.5 } else { 1.0 };
            (5, m * scale, m / 100.0)
        }),
    );
    let out = contend(&["compare", s(&known), "--base", "global", "--test", "node"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = patch_rows(&text, "flat out: loop ns/op");
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!(rows[0].0, "global/always", "{text}");
    assert_eq!(rows[0].1, "20.0 ±0.2  5  base", "{text}");
    assert_eq!(rows[1].0, "node/always", "{text}");
    let cells: Vec<&str> = rows[1].1.split_whitespace().collect();
    assert_eq!(&cells[..3], ["30.0", "±0.2", "5"], "{text}");
    assert_eq!(cells[3], "+50.0", "{text}");
    assert_eq!(cells.last(), Some(&"dearer"), "{text}");
}

#[test]
fn a_side_of_runs_must_repeat_one_experiment() {
    // Three copies of the real run as one side; one from another host,
    // then one with other rates: each is one line naming the odd run and
    // what differs, exit 2.
    let dir = tempfile::tempdir().unwrap();
    let side = |edit: &dyn Fn(&mut Value)| {
        let folder = tempfile::tempdir_in(dir.path()).unwrap().keep();
        for i in 0..3 {
            let mut v = load(&run().json);
            if i == 2 {
                edit(&mut v);
            }
            let run_folder = folder.join(format!("run{i}"));
            std::fs::create_dir_all(&run_folder).unwrap();
            save(&run_folder, "run.json", &v);
        }
        folder
    };
    let fine = side(&|_| {});
    let host = side(&|v| v["provenance"]["hostname"] = "elsewhere".into());
    let out = contend(&["compare", s(&host), s(&fine)]);
    assert_one_line_error(&out, "run2/run.json is not a replicate of");
    assert!(stderr(&out).contains("host elsewhere"), "{}", stderr(&out));
    let rates = side(&|v| v["config"]["rates"] = serde_json::json!([null, 22000.0]));
    let out = contend(&["compare", s(&fine), s(&rates)]);
    assert_one_line_error(&out, "--test: ");
    assert!(
        stderr(&out).contains("its setting rates"),
        "{}",
        stderr(&out)
    );
    // A run with an injected cost is another experiment, not a replicate.
    let injected = side(&|v| {
        v["config"]["inject"] = serde_json::json!({
            "ns": 20.0, "iterations": 17, "ns_per_iteration": 1.15,
            "floor_rate": null, "on_floor": null
        })
    });
    let out = contend(&["compare", s(&fine), s(&injected)]);
    assert_one_line_error(&out, "--test: ");
    assert!(
        stderr(&out).contains("its setting inject"),
        "{}",
        stderr(&out)
    );
    // Another warm-up asked for is another experiment; the same one
    // raised to another start-up measured before the run is a replicate.
    let asked = side(&|v| v["config"]["warmup_asked_s"] = 0.2.into());
    let out = contend(&["compare", s(&fine), s(&asked)]);
    assert_one_line_error(&out, "--test: ");
    assert!(
        stderr(&out).contains("its setting warmup_asked_s"),
        "{}",
        stderr(&out)
    );
    let raised = side(&|v| v["config"]["warmup_s"] = 0.2.into());
    compare_ok(&[s(&fine), s(&raised)]);
    // Replicates compare, runs as the unit.
    let (_, text) = compare_ok(&[s(&fine), s(&fine)]);
    assert!(
        text.contains("runs are the replicates (3 base, 3 test"),
        "{text}"
    );
}

#[test]
fn fail_on_makes_compare_a_ci_gate() {
    // node costs 20% more in the test runs, global 20% less: --fail-on
    // dearer fails (exit 1, after the table), and passes where only the
    // cheaper pair is compared; --fail-on change fails on either.
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, test: bool| {
        runs(dir.path(), name, 3, move |st, field, i| {
            let m = base_mean(field);
            let scale = match (test, st.starts_with("node/")) {
                (false, _) => 1.0,
                (true, true) => 1.2,
                (true, false) => 0.8,
            };
            (5, m * scale + m * 0.005 * spread(3, i), m / 100.0)
        })
    };
    let (base, test) = (side("base", false), side("test", true));
    let out = contend(&["compare", s(&base), s(&test), "--fail-on", "dearer"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("dearer"), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("--fail-on dearer: 1 pair called dearer"),
        "{}",
        stderr(&out)
    );
    let only_global = [
        "compare",
        s(&base),
        s(&test),
        "--base",
        "global",
        "--test",
        "global",
    ];
    let out = contend(&[&only_global[..], &["--fail-on", "dearer"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = contend(&[&only_global[..], &["--fail-on", "change"]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let bad = contend(&["compare", s(&base), s(&test), "--fail-on", "slower"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn a_host_record_bounds_a_comparison_of_one_run_a_side() {
    // Two short runs with --runs 2: each in its folder, and the host's
    // record beside them; then two more runs of the same settings there.
    // Comparing those two uses the record, and says so; the record's own
    // runs, or a record of other settings, are not used, with a warning.
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "run",
        "--print",
        "none",
        "--out",
        s(dir.path()),
        "--runs",
        "2",
        "--duration",
        "40ms",
        "--repeats",
        "2",
        "--warmup",
        "0",
        "--level",
        "global",
        "--publish",
        "always",
        "--rate",
        "max",
    ];
    let out = contend(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let host = std::fs::read_dir(dir.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let record = load(&host.join("noise.json"));
    assert_eq!(record["kind"], "noise");
    assert_eq!(record["runs"].as_array().unwrap().len(), 2);
    let spreads = record["spreads"].as_array().unwrap();
    let cost = spreads
        .iter()
        .find(|r| r["measure"] == "loop ns/op")
        .unwrap_or_else(|| panic!("{record}"));
    assert_eq!(
        (cost["runs"].as_u64(), cost["strategy"].as_str()),
        (Some(2), Some(FULL[0]))
    );
    assert!(cost["run_sd"].as_f64().unwrap() >= 0.0);
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&host)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    let recorded = folders.clone();
    // Two more runs, one at a time, beside the record.
    let at = args.iter().position(|a| *a == "--runs").unwrap();
    let once: Vec<&str> = [&args[..at], &args[at + 2..]].concat();
    for _ in 0..2 {
        let out = contend(&once);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&host)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !recorded.contains(p))
        .collect();
    folders.sort();
    assert_eq!(folders.len(), 2, "{folders:?}");
    let (_, text) = compare_ok(&[s(&folders[0]), s(&folders[1])]);
    assert!(text.contains("the host's record"), "{text}");
    assert!(text.contains("noise.json"), "{text}");
    // A run the record was made from, compared: its spread would count
    // twice, so the record is not used, or, named, an error.
    let out = contend(&["compare", s(&recorded[0]), s(&folders[0])]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("one run per side: between-run noise unknown"),
        "{}",
        stdout(&out)
    );
    let out = contend(&[
        "compare",
        s(&recorded[0]),
        s(&folders[0]),
        "--noise",
        s(&host.join("noise.json")),
    ]);
    assert_one_line_error(&out, "made from a run compared here");
    // The same runs compared against the real run of the other tests (its
    // settings differ): that record is not for them.
    let out = contend(&["compare", s(&run().json), s(&folders[1])]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("noise.json not used"),
        "{}",
        stderr(&out)
    );
    // Named, a record of other settings is an error.
    let out = contend(&[
        "compare",
        s(&run().json),
        s(&run().json),
        "--noise",
        s(&host.join("noise.json")),
    ]);
    assert_one_line_error(&out, "not a record of these runs");
}

#[test]
fn a_side_with_an_injected_cost_says_so() {
    // Three runs a side; the test side's ran with --inject 20ns.
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str| {
        runs(dir.path(), name, 3, |_, field, i| {
            (5, base_mean(field) * (1.0 + 1e-3 * spread(3, i)), 0.1)
        })
    };
    let (base, test) = (side("base"), side("test"));
    for k in 0..3 {
        let folder = test.join(format!("run{k}"));
        let mut v = load(&folder.join("run.json"));
        v["config"]["inject"] = serde_json::json!({
            "ns": 20.0, "iterations": 17, "ns_per_iteration": 1.15,
            "floor_rate": null, "on_floor": null
        });
        save(&folder, "run.json", &v);
    }
    let (_, text) = compare_ok(&[s(&base), s(&test)]);
    assert!(
        text.contains("test: +20 ns per update injected (contend run --inject)"),
        "{text}"
    );
    assert!(!text.contains("base: +20"), "{text}");
}
