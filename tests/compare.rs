//! `contend compare` and `contend report` end to end, on result files made
//! by a real short run (and edited copies of it, some with summaries of
//! known numbers put in, so the verdicts are known in advance), and on the
//! schema-2 fixture written before net cost and regimes were recorded.

use contend::stats::{Decision, Difference, Summary, Threshold, holm_adjusted};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod common;
use common::{assert_one_line_error, contend, load, s, save, stderr, stdout};

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

/// `contend run --json` of 3 repeats with no warm-up and `args`, into a
/// folder of its own.
fn real_run(args: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let common = [
        "run",
        "--json",
        "--out",
        folder,
        "--repeats",
        "3",
        "--warmup",
        "0",
    ];
    let out = contend(&[&common[..], args].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let json = find_run_json(dir.path()).expect("run wrote run.json");
    Run {
        folder: json.parent().unwrap().to_path_buf(),
        json,
        _dir: dir,
    }
}

fn find_run_json(dir: &Path) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        if path.is_dir() {
            if let Some(found) = find_run_json(&path) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == "run.json") {
            return Some(path);
        }
    }
    None
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
    // The real run against itself: t = 0, so p = 1 and never a change;
    // no change only where the interval lies within ±2%.
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
        assert!(
            ["no change", "inconclusive"].contains(&row.verdict.as_str()),
            "{row:?}"
        );
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
        assert_eq!(row.p, "p=1.000", "{row:?}");
    }
    let measures: Vec<&str> = all.iter().map(|r| r.measure.as_str()).collect();
    assert_eq!(measures, ROWS.repeat(2));

    // Against a copy in which only node's updates/s is 20% higher, with
    // 1% noise over 5 repeats: exactly that row is a change.
    let dir = tempfile::tempdir().unwrap();
    let noise = |mean: f64| (5, mean, mean / 100.0);
    let base = save(
        dir.path(),
        "base.json",
        &synthetic(|_, field| noise(base_mean(field))),
    );
    let test = save(
        dir.path(),
        "test.json",
        &synthetic(|name, field| {
            let bump = name.starts_with("node/") && field == "write_ops_per_s";
            noise(base_mean(field) * if bump { 1.2 } else { 1.0 })
        }),
    );
    let (all, text) = compare_ok(&[s(&base), s(&test)]);
    assert_eq!(all.len(), 6, "{text}");
    for row in &all {
        if row.pair == STRATEGIES[1] && row.measure == "updates/s" {
            assert_eq!(row.verdict, "faster", "{row:?}");
            assert!(row.change.starts_with("+20.0% [+1"), "{row:?}");
            assert_eq!(row.p, "p<0.001", "{row:?}");
        } else {
            assert_eq!(row.verdict, "no change", "{row:?}");
            assert_eq!(row.p, "p=1.000", "{row:?}");
        }
    }
    // A threshold of 25% takes the change in.
    let (all, text) = compare_ok(&[s(&base), s(&test), "--noise-threshold", "25"]);
    assert!(all.iter().all(|r| r.verdict == "no change"), "{text}");
    assert!(text.contains("the noise threshold, ±25%"), "{text}");
}

#[test]
fn a_tiny_significant_difference_is_no_change() {
    // The example: ten repeats of 1,000,000±100 against
    // 1,000,200±100 (+0.02%, p about 3e-4) once printed "+0.0% p=0.011"
    // as a measurable difference.
    let dir = tempfile::tempdir().unwrap();
    let side = |scale: f64| {
        synthetic(move |_, field| {
            let m = base_mean(field);
            (10, m * scale, m * 1e-4)
        })
    };
    let base = save(dir.path(), "base.json", &side(1.0));
    let test = save(dir.path(), "test.json", &side(1.0002));
    let (all, text) = compare_ok(&[s(&base), s(&test)]);
    assert!(
        text.contains("lies beyond the noise threshold, ±2%"),
        "{text}"
    );
    assert!(text.contains("Holm-adjusted over the 6 tests"), "{text}");
    assert_eq!(all.len(), 6, "{text}");
    for row in &all {
        assert_eq!(row.verdict, "no change", "{row:?}");
        assert_eq!(row.change, "+0.020% [+0.011%, +0.029%]", "{row:?}");
        // Significant even after Holm's correction, and still no change.
        assert_eq!(row.p, "p=0.002", "{row:?}");
    }
    // Without a threshold the same difference is a change, in the words
    // of each measure.
    let (all, text) = compare_ok(&[s(&base), s(&test), "--noise-threshold", "0"]);
    let words: Vec<&str> = all.iter().map(|r| r.verdict.as_str()).collect();
    assert_eq!(words, ["dearer", "faster", "faster"].repeat(2), "{text}");
}

#[test]
fn five_percent_is_a_change_with_the_right_word() {
    // global's test side is 5% higher on every measure, node's 5% lower;
    // ten repeats with 0.01% noise.
    let dir = tempfile::tempdir().unwrap();
    let base = save(
        dir.path(),
        "base.json",
        &synthetic(|_, field| (10, base_mean(field), base_mean(field) * 1e-4)),
    );
    let test = save(
        dir.path(),
        "test.json",
        &synthetic(|name, field| {
            let m = base_mean(field);
            let scale = if name.starts_with("global/") {
                1.05
            } else {
                0.95
            };
            (10, m * scale, m * 1e-4)
        }),
    );
    let (all, text) = compare_ok(&[s(&base), s(&test)]);
    let got: Vec<(&str, &str, &str)> = all
        .iter()
        .map(|r| (r.measure.as_str(), r.verdict.as_str(), r.p.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("loop ns/op", "dearer", "p<0.001"),
            ("updates/s", "faster", "p<0.001"),
            ("read ops/s", "faster", "p<0.001"),
            ("loop ns/op", "cheaper", "p<0.001"),
            ("updates/s", "slower", "p<0.001"),
            ("read ops/s", "slower", "p<0.001"),
        ],
        "{text}"
    );
    assert_eq!(all[0].change, "+5.000% [+4.991%, +5.009%]", "{text}");
    assert_eq!(all[5].change, "-5.000% [-5.009%, -4.991%]", "{text}");
}

#[test]
fn holm_counts_every_test_of_the_invocation() {
    // global's updates/s: +10% over 3 repeats of 2.8% noise. Alone its p
    // is about 0.012 and its CI [+3.7%, +16.3%] lies beyond ±2%, but it is
    // one of 6 tests (p × 6 > 0.05) when both strategies are compared, and
    // one of 3 (p × 3 < 0.05) when global alone is.
    let dir = tempfile::tempdir().unwrap();
    let side = |bump: f64| {
        synthetic(move |name, field| {
            let m = base_mean(field);
            if name.starts_with("global/") && field == "write_ops_per_s" {
                (3, m * bump, 28_000.0)
            } else {
                (3, m, m / 100.0)
            }
        })
    };
    let base = save(dir.path(), "base.json", &side(1.0));
    let test = save(dir.path(), "test.json", &side(1.1));
    let p_of = |row: &Row| -> f64 { row.p.strip_prefix("p=").unwrap().parse().unwrap() };

    let (all, text) = compare_ok(&[s(&base), s(&test)]);
    assert!(text.contains("Holm-adjusted over the 6 tests"), "{text}");
    let row = &all[1];
    assert_eq!(
        (row.pair.as_str(), row.measure.as_str()),
        (STRATEGIES[0], "updates/s")
    );
    assert_eq!(row.verdict, "inconclusive", "{text}");
    assert!((0.05..0.1).contains(&p_of(row)), "{row:?}");
    assert!(row.change.starts_with("+10.0% [+"), "{row:?}");
    assert!(
        all.iter()
            .enumerate()
            .all(|(i, r)| i == 1 || r.verdict == "inconclusive"),
        "{text}"
    );

    let (all, text) = compare_ok(&[s(&base), s(&test), "--base", "global", "--test", "global"]);
    assert!(text.contains("Holm-adjusted over the 3 tests"), "{text}");
    assert_eq!(all.len(), 3, "{text}");
    assert_eq!(all[1].verdict, "faster", "{text}");
    assert!((0.01..0.05).contains(&p_of(&all[1])), "{:?}", all[1]);
}

#[test]
fn noise_decides_between_no_change_and_inconclusive() {
    // +1% over four repeats of 0.1% noise is no change (its CI, about
    // ±0.17%, lies within ±2%); +5% over four repeats of 5% noise is
    // inconclusive (its CI reaches from below -2% to beyond +2%), and so
    // would +1% be with that noise; one repeat (of loop ns/op) cannot be
    // tested.
    let dir = tempfile::tempdir().unwrap();
    let side = |test: bool| {
        synthetic(move |_, field| {
            let m = base_mean(field);
            match (field, test) {
                ("write_ops_per_s", true) => (4, m * 1.01, m * 0.001),
                ("write_ops_per_s", false) => (4, m, m * 0.001),
                ("read_ops_per_s", true) => (4, m * 1.05, m * 0.05),
                ("write_loop_ns", false) => (1, m, 0.0),
                ("write_loop_ns", true) => (1, m * 1.03, 0.0),
                _ => (4, m, m * 0.05),
            }
        })
    };
    let base = save(dir.path(), "base.json", &side(false));
    let test = save(dir.path(), "test.json", &side(true));
    let (all, text) = compare_ok(&[s(&base), s(&test)]);
    let got: Vec<(&str, &str)> = all[..3]
        .iter()
        .map(|r| (r.verdict.as_str(), r.p.as_str()))
        .collect();
    assert_eq!(got[0], ("inconclusive", "n<2"), "{text}");
    assert_eq!(got[1].0, "no change", "{text}");
    assert_eq!(got[2].0, "inconclusive", "{text}");
    // Welch: 5% ± 2.447 (6 df) × 3.54%.
    assert_eq!(all[2].change, "+5.0% [-3.7%, +13.7%]", "{text}");
    // One repeat a side: the change (20 → 20.6 ns/op, +3%) with no
    // interval, no spread and no verdict.
    assert_eq!(all[0].change, "+3.0%", "{text}");
    assert_eq!(all[0].base, "base: 20.0 (1 repeat)", "{text}");
    assert_eq!(all[0].test, "test: 20.6 (1 repeat)", "{text}");
    assert!(text.contains("Holm-adjusted over the 4 tests"), "{text}");
    assert!(
        text.contains("\nn<2: a side has fewer than 2 repeats"),
        "{text}"
    );
}

#[test]
fn bad_noise_thresholds_are_one_line_errors() {
    let r = run();
    for bad in ["abc", "-1", "", "inf"] {
        let out = contend(&["compare", s(&r.json), s(&r.json), "--noise-threshold", bad]);
        assert_one_line_error(&out, "--noise-threshold");
    }
    let out = contend(&["compare", s(&r.json), s(&r.json), "--noise-threshold=-0.5"]);
    assert_one_line_error(&out, "a percentage and/or ns per update of 0 or more");
    let out = contend(&[
        "compare",
        s(&r.json),
        s(&r.json),
        "--noise-threshold",
        "2%,3%",
    ]);
    assert_one_line_error(&out, "\"2%,3%\" is not a noise threshold");
}

#[test]
fn levels_inside_one_file() {
    // The real run: each row's verdict must be the one the file's own
    // summaries give (Welch, Holm over these 3 tests, ±2%).
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
    let raw: Vec<f64> = differences.iter().map(|d| d.welch.unwrap().p).collect();
    let adjusted = holm_adjusted(&raw);
    assert_eq!(all.len(), 3, "{text}");
    for (i, row) in all.iter().enumerate() {
        assert_eq!(row.measure, ROWS[i], "{row:?}");
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
        let change = differences[i].change_pct.unwrap();
        let printed: f64 = row.change[..row.change.find('%').unwrap()].parse().unwrap();
        assert!((printed - change).abs() <= 0.05, "{row:?} {change}");
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
    assert_eq!(words, ["cheaper", "faster", "faster"], "{text}");
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
        "--markdown",
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
                "inconclusive"
            ]
            .iter()
            .any(|w| cells[4].starts_with(&format!("{w} ")) && cells[4].contains("%, ")),
            "{row}"
        );
        assert!(cells[5].starts_with("p=") || cells[5] == "p<0.001", "{row}");
    }
    assert!(text.contains("- **verdict:** faster/slower"), "{text}");
    assert!(
        text.contains("lies beyond the noise threshold, ±2%"),
        "{text}"
    );
    assert!(text.contains("- **p:** Welch's t-test"), "{text}");

    // Known inputs: ten repeats a side with sd 1e-4 of the base mean;
    // global's test side 5% higher on every measure, node's the same.
    // By hand: se = sqrt(2 × 1e-8 / 10) = 4.472e-5 of the mean, 18 df,
    // t = 2.1009, so the 95% CI is ±0.0094%: +5% is [+4.991%, +5.009%]
    // (p far below 0.001 even × 6), and 0 is [-0.009%, +0.009%] with
    // t = 0, p = 1.
    let dir = tempfile::tempdir().unwrap();
    let side = |bump: f64| {
        synthetic(move |name, field| {
            let m = base_mean(field);
            let scale = if name.starts_with("global/") {
                bump
            } else {
                1.0
            };
            (10, m * scale, m * 1e-4)
        })
    };
    let base = save(dir.path(), "base.json", &side(1.0));
    let test = save(dir.path(), "test.json", &side(1.05));
    let out = contend(&["compare", s(&base), s(&test), "--markdown"]);
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
            "1000000±0.01%",
            "1050000±0.01%",
            "faster +5.000% [+4.991%, +5.009%]",
            "p<0.001",
        ],
        [
            "global/always",
            "loop ns/op",
            "20.0±0.01%",
            "21.0±0.01%",
            "dearer +5.000% [+4.991%, +5.009%]",
            "p<0.001",
        ],
        [
            "node/always",
            "updates/s",
            "1000000±0.01%",
            "1000000±0.01%",
            "no change +0.000% [-0.009%, +0.009%]",
            "p=1.000",
        ],
        [
            "node/always",
            "read ops/s",
            "1000000±0.01%",
            "1000000±0.01%",
            "no change +0.000% [-0.009%, +0.009%]",
            "p=1.000",
        ],
    ];
    for w in want {
        assert!(rows.iter().any(|r| r == &w), "no row {w:?} in:\n{text}");
    }
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
fn out_is_never_overwritten_without_force() {
    let r = run();
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("compare.md");
    std::fs::write(&out_file, "keep me").unwrap();
    let args = ["compare", s(&r.json), s(&r.json), "--out", s(&out_file)];
    assert_one_line_error(&contend(&args), "compare.md");
    assert_eq!(std::fs::read_to_string(&out_file).unwrap(), "keep me");

    let forced = contend(&[&args[..], &["--force", "--markdown"]].concat());
    assert!(forced.status.success(), "{}", stderr(&forced));
    assert!(stdout(&forced).is_empty());
    let written = std::fs::read_to_string(&out_file).unwrap();
    assert!(written.contains("| configuration |"), "{written}");

    let report = dir.path().join("report.md");
    let ok = contend(&["report", s(&r.json), "--markdown", "--out", s(&report)]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert_one_line_error(
        &contend(&["report", s(&r.json), "--out", s(&report)]),
        "report.md",
    );
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
    let r = run();
    let dir = tempfile::tempdir().unwrap();
    let summary = |mean: f64| {
        serde_json::json!({
            "n": 3, "mean": mean, "stddev": mean / 100.0, "stddev_pct": 1.0,
            "ci95_low": mean * 0.97, "ci95_high": mean * 1.03,
            "min": mean * 0.99, "max": mean * 1.01
        })
    };
    let with_writes = |mean: f64| {
        let mut v = load(&r.json);
        for st in v["strategies"].as_array_mut().unwrap() {
            st["summary"]["write_ops_per_s"] = summary(mean);
        }
        v
    };
    let base = save(dir.path(), "base.json", &with_writes(90_569.0));
    let test = save(dir.path(), "test.json", &with_writes(104_152.0));
    let out = contend(&["compare", "--verbose", s(&base), s(&test)]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("updates/s"))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    for row in rows {
        // ± is the 95% CI's half-width: here 3.00% of the mean.
        assert!(row.contains("base: 90569±3.00%"), "{row}");
        assert!(row.contains("test: 104152±3.00%"), "{row}");
        assert!(row.contains("faster"), "{row}");
        // Welch: difference 13583 ± 2.79 × 797 (3.9 df), of 90569.
        assert!(row.contains("+15.0% [+12.5%, +17.5%]"), "{row}");
        assert!(row.contains("p<0.001"), "{row}");
    }
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
    let out = contend(&["report", s(&r.json), "--verbose"]);
    let text = stdout(&out);
    assert!(
        text.contains("write side: updates/s, all writers (higher is better)"),
        "{text}"
    );
    assert!(
        text.contains("every final sum exact, in all 6 strategy results"),
        "{text}"
    );

    let md = stdout(&contend(&["report", s(&r.folder), "--markdown"]));
    assert!(
        md.contains("\n| policy | global | node |\n|---|---|---|\n| always | "),
        "{md}"
    );
    // The rows, rebuilt from run.json's summaries: `mean ±cv` per level
    // (3 significant digits), node's change against global in brackets,
    // marked n.s. unless Welch's test and the 2% threshold support it (one
    // change per table, so Holm leaves its p as it is).
    use contend::stats::{Decision, Difference, Summary};
    use contend::units::{Unit, ci_pct, cv_text, human};
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
        let row = format!(
            "| always | {} ±{} | {} ±{} ({:+.1}%{}) |",
            human(g.mean, unit),
            cv_text(ci_pct(&g)),
            human(n.mean, unit),
            cv_text(ci_pct(&n)),
            100.0 * (n.mean - g.mean) / g.mean,
            if supported { "" } else { " n.s." }
        );
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
        "schema": 1,
        "partial": false,
        "points": [
            { "threads": 1, "affinity": "node0", "results": load(&r.json) },
            { "threads": 2, "affinity": "unbound", "results": load(&r.json) },
        ],
    });
    let sweep = save(dir.path(), "sweep.json", &sweep);
    let out = contend(&["report", s(&sweep), "--markdown"]);
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
    let dir = tempfile::tempdir().unwrap();
    let file = |loop_ns: f64, sampled_ns: f64| {
        let mut v = load(&run().json);
        set_all(&mut v, "write_loop_ns", 5, loop_ns, |_, _| true);
        set_all(&mut v, "write_ns", 5, sampled_ns, |_, _| true);
        set_all(&mut v, "read_ns", 5, sampled_ns, |_, _| true);
        v
    };
    let base = save(dir.path(), "base.json", &file(20.0, 100.0));
    // Only the sampled figure moves (+50%): no change.
    let sampled_moved = save(dir.path(), "fenced.json", &file(20.0, 150.0));
    // Only the throughput figure moves (+50%): a change.
    let loop_moved = save(dir.path(), "loop.json", &file(30.0, 100.0));

    let (all, text) = compare_ok(&[s(&base), s(&sampled_moved)]);
    assert_eq!(all.len(), 6, "{text}");
    for row in all.iter().filter(|r| r.measure == "loop ns/op") {
        assert_eq!(row.base, "base: 20.0±1.00%", "{row:?}");
        assert_eq!(row.test, "test: 20.0±1.00%", "{row:?}");
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
        assert_eq!(row.test, "test: 30.0±1.00%", "{row:?}");
        assert_eq!(row.verdict, "dearer", "{row:?}");
        assert!(row.change.starts_with("+50.0% ["), "{row:?}");
    }
    // The Markdown table too.
    let md = stdout(&contend(&[
        "compare",
        s(&base),
        s(&loop_moved),
        "--markdown",
    ]));
    assert!(
        md.contains("| global/always | loop ns/op | 20.0±1.00% | 30.0±1.00% | dearer +50.0% ["),
        "{md}"
    );
    assert!(!md.contains("100.0") && !md.contains("sampled"), "{md}");
}

/// tests/fixtures/results/run.json: a schema-2 file, written before
/// regimes, the paced floor and net cost were recorded.
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
fn files_written_before_net_cost_still_compare() {
    // Flat out, a schema-2 file has ns/op from throughput: that is its row.
    let old = fixture();
    let (all, text) = compare_ok(&[s(&old), s(&old)]);
    assert!(!text.contains("note: "), "{text}");
    let measures: Vec<&str> = all.iter().map(|r| r.measure.as_str()).collect();
    assert_eq!(measures, ROWS.repeat(2), "{text}");
    let file = load(&old);
    let loop_ns: Summary =
        serde_json::from_value(file["strategies"][0]["summary"]["write_loop_ns"].clone()).unwrap();
    assert_eq!(
        all[0].base,
        format!(
            "base: {:.1}±{:.2}%",
            loop_ns.mean,
            50.0 * (loop_ns.ci95_high - loop_ns.ci95_low) / loop_ns.mean
        ),
        "{text}"
    );

    // Paced, it has busy ns/op but no net cost: the row is missing, with
    // one note saying why, and busy ns/op is not put in its place.
    let dir = tempfile::tempdir().unwrap();
    let mut paced = file.clone();
    paced["config"]["rate"] = 22_000.0.into();
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
        notes[0].contains("paced.json has no net ns/update for some strategies (it was written by an older contend (schema 2)"),
        "{text}"
    );
    assert!(notes[1].contains("has no net CPU %"), "{text}");
    // The Markdown says the same.
    let md = stdout(&contend(&["compare", s(&paced), s(&paced), "--markdown"]));
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
        "--json",
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
    let json = find_run_json(dir.path()).unwrap();
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
    for r in &all {
        let base: f64 = r
            .base
            .trim_start_matches("base: ")
            .split('±')
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

    // Known numbers: only the paced regime's net cost moves (+50%); the
    // flat-out strategies of the same names do not.
    let known = |paced_net: f64| {
        let mut v = load(&json);
        for field in COMPARED {
            set_all(&mut v, field, 5, base_mean(field), |_, _| true);
        }
        set_all(&mut v, "net_cpu_share_pct", 5, 1.0, |_, paced| paced);
        set_all(&mut v, "net_ns", 5, 40.0, |_, paced| !paced);
        set_all(&mut v, "net_ns", 5, paced_net, |_, paced| paced);
        v
    };
    let base = save(dir.path(), "base.json", &known(40.0));
    let test = save(dir.path(), "test.json", &known(60.0));
    let (all, text) = compare_ok(&[s(&base), s(&test)]);
    for row in &all {
        let moved = row.pair.ends_with("per thread") && row.measure == "net ns/update";
        let want = if moved { "dearer" } else { "no change" };
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
