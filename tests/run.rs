//! `contend run` end to end on this host: short runs, their files, their
//! errors, and Ctrl-C.

use serde_json::Value;
use std::io::BufRead;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;
use common::{contend, results_dir, stderr, stdout};

const QUICK: [&str; 6] = ["--duration", "60ms", "--repeats", "2", "--warmup", "0"];

/// One regime, flat out (a default run has two).
const FLAT_OUT: [&str; 2] = ["--rate", "max"];

fn quick_run(out: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["run", "--print", "json", "--out", out.to_str().unwrap()];
    args.extend(QUICK);
    if !extra.contains(&"--rate") {
        args.extend(FLAT_OUT);
    }
    args.extend(extra);
    common::contend_json(&args)
}

#[test]
fn quick_run_writes_exact_verified_results_with_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let v = quick_run(
        dir.path(),
        &["--level", "global,cpu", "--publish", "always,ratelimit:1ms"],
    );
    assert_eq!(v["schema"], contend::runner::SCHEMA_VERSION);
    assert_eq!(v["partial"], false);
    let strategies = v["strategies"].as_array().unwrap();
    let names: Vec<&str> = strategies
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "global/always/pad128",
            "cpu/always/pad128",
            "global/ratelimit:1ms/pad128/tsc",
            "cpu/ratelimit:1ms/pad128/tsc"
        ]
    );
    // By default every CPU this process may use gets a writer (the child
    // inherits the test's affinity, read from /proc here).
    let allowed = common::allowed_cpus();
    let mut writer_cpus: Vec<u32> = v["config"]["writer_cpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap() as u32)
        .collect();
    let writers = writer_cpus.len();
    writer_cpus.sort_unstable();
    assert_eq!(writer_cpus, allowed, "writers should be the allowed CPUs");
    for s in strategies {
        assert_eq!(s["exact"], true, "{}", s["name"]);
        let repeats = s["repeats"].as_array().unwrap();
        assert_eq!(repeats.len(), 2);
        for r in repeats {
            assert_eq!(r["final_sum"], r["expected_sum"]);
            assert_eq!(r["writer_updates"].as_array().unwrap().len(), writers);
            // Throughput is the sum of each writer's updates over its own
            // measured interval; interval_s is the mean of those
            // intervals. (Σ updates / interval_s is only near it: a
            // writer descheduled at the stop has a longer interval, and
            // on a loaded 2-CPU host the two differed by 11%.) From the
            // slowest and fastest writers' rates, by hand:
            let name = &s["name"];
            let updates: Vec<f64> = r["writer_updates"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| u.as_f64().unwrap())
                .filter(|&u| u > 0.0) // writers outside the window count 0
                .collect();
            let n = updates.len();
            assert_eq!(
                n + r["outside_window"].as_array().unwrap().len(),
                writers,
                "{name}: {r}"
            );
            let interval_s = r["interval_s"].as_f64().unwrap();
            let got = r["write_ops_per_s"].as_f64().unwrap();
            let slow = r["write_ops_per_s_thread_min"].as_f64().unwrap();
            let fast = r["write_ops_per_s_thread_max"].as_f64().unwrap();
            let near = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
            assert!(0.0 < slow && slow <= fast, "{name}: {r}");
            // Every writer's rate lies in [slow, fast], so the sum, and
            // the updates over the mean interval, lie in n × that.
            let pooled = updates.iter().sum::<f64>() / interval_s;
            let (lo, hi) = (n as f64 * slow, n as f64 * fast);
            for x in [got, pooled] {
                assert!(
                    lo * (1.0 - 1e-9) <= x && x <= hi * (1.0 + 1e-9),
                    "{name}: {x} outside {n} x [{slow}, {fast}]: {r}"
                );
            }
            match n {
                1 => assert!(near(got, pooled), "{name}: {got} vs {pooled}"),
                2 => {
                    // Two writers: the total is slow + fast, and their
                    // intervals (updates / rate, one way round or the
                    // other) average to interval_s.
                    assert!(near(got, slow + fast), "{name}: {got} vs {slow} + {fast}");
                    let (u0, u1) = (updates[0], updates[1]);
                    assert!(
                        near((u0 / slow + u1 / fast) / 2.0, interval_s)
                            || near((u0 / fast + u1 / slow) / 2.0, interval_s),
                        "{name}: rates {slow}, {fast} and updates {updates:?} \
                         do not give interval {interval_s}"
                    );
                }
                _ => {}
            }
        }
        // The summary, recomputed from the two repeats: sample stddev of
        // two values is |r0 - r1| / sqrt(2), and the 95% interval is
        // mean ± t(0.975, 1 df) · sd / sqrt(2).
        let (r0, r1) = (
            repeats[0]["write_ops_per_s"].as_f64().unwrap(),
            repeats[1]["write_ops_per_s"].as_f64().unwrap(),
        );
        let mean = (r0 + r1) / 2.0;
        let sd = (r0 - r1).abs() / 2f64.sqrt();
        let half = 12.706_204_736_174_705 * sd / 2f64.sqrt();
        let w = &s["summary"]["write_ops_per_s"];
        let close = |key: &str, want: f64| {
            let got = w[key].as_f64().unwrap_or_else(|| panic!("{key}: {w}"));
            assert!(
                (got - want).abs() <= 1e-9 * mean.abs().max(want.abs()),
                "{} {key}: {got} vs {want} by hand",
                s["name"]
            );
        };
        close("mean", mean);
        close("stddev", sd);
        close("ci95_low", mean - half);
        close("ci95_high", mean + half);
        close("min", r0.min(r1));
        close("max", r0.max(r1));
        for t in s["threads"].as_array().unwrap() {
            assert_eq!(t["verified"], true);
            assert_eq!(t["cpu"], t["observed_cpu"]);
        }
        for slot in s["slots"].as_array().unwrap() {
            assert_eq!(slot["check"]["status"], "verified");
        }
        assert_eq!(w["n"], 2);
    }
    // Ratelimited: each writer publishes at most once per 1 ms period, so
    // over an interval of T s at most T / 1e-3 + 1 times; and the clock
    // cost is recorded.
    for rl in &strategies[2..] {
        assert!(
            rl["clock_read_ns"].as_f64().unwrap() > 0.0,
            "{}",
            rl["name"]
        );
        for r in rl["repeats"].as_array().unwrap() {
            let interval_s = r["interval_s"].as_f64().unwrap();
            let cap = writers as f64 * (interval_s / 1e-3 + 1.0);
            let publishes = r["publishes"].as_u64().unwrap();
            assert!(
                publishes > 0 && publishes as f64 <= cap,
                "{}: {publishes} publishes by {writers} writers in {interval_s} s \
                 (at most {cap})",
                rl["name"]
            );
        }
    }
    for always in &strategies[..2] {
        // `always` publishes every update.
        for r in always["repeats"].as_array().unwrap() {
            let updates: u64 = r["writer_updates"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| u.as_u64().unwrap())
                .sum();
            assert_eq!(r["publishes"].as_u64().unwrap(), updates, "{r}");
        }
    }
    let p = &v["provenance"];
    for key in [
        "hostname",
        "cpu_model",
        "kernel_release",
        "git_commit",
        "contend_version",
        "started_utc",
    ] {
        assert!(p[key].as_str().is_some_and(|s| !s.is_empty()), "{key}");
    }
    // The run's TSC frequency agrees with one calibrated here, against
    // CLOCK_MONOTONIC, within 3%.
    let tsc_hz = p["tsc_hz"].as_f64().unwrap();
    let here = contend::clock::calibrate_tsc(Duration::from_millis(50));
    assert!(
        (tsc_hz / here - 1.0).abs() < 0.03,
        "run says {tsc_hz} Hz, calibrated here {here} Hz"
    );

    let folder = results_dir(dir.path()).expect("a results folder");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("run.json")).unwrap()).unwrap();
    assert_eq!(json["strategies"], v["strategies"]);
    let csv = std::fs::read_to_string(folder.join("run.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 4 * 2, "{csv}");
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .starts_with("strategy,rate,floor,level,publish,pad,clock,repeat,")
    );
}

#[test]
fn table_is_printed_in_the_seeds_style() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "run",
        "--out",
        dir.path().to_str().unwrap(),
        "--level",
        "global,node",
        "--print",
        "all",
    ];
    args.extend(QUICK);
    args.extend(FLAT_OUT);
    let o = contend(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout.clone()).unwrap();
    assert!(text.contains("write side: updates/s"), "{text}");
    // Without reader threads the read side runs once per update: its
    // table would repeat updates/s row for row, so it is not printed.
    assert!(!text.contains("read side: sum"), "{text}");
    // The first screen's verdict lines give each change alone; --print all
    // prints them again with each test's interval and p-value.
    let (first, verbose) = text
        .split_once("=== the verdict with its statistics")
        .expect("--print all prints the tests");
    let interval = |l: &str| l.contains("%, +") || l.contains("p=") || l.contains("p<");
    for l in first.lines().filter(|l| l.starts_with("verdict: ")) {
        assert!(!interval(l), "{l}");
    }
    assert!(
        verbose
            .lines()
            .any(|l| l.starts_with("verdict: ") && interval(l)),
        "{text}"
    );
    // --print all: after the first screen, the tables of the one regime.
    // The first section, "writer ns/op from throughput", then "write side";
    // rows such as `always   37.4±6.95%   34.9±3.15%  -6.7%`: the change
    // printed is the node mean against the global one, in percent.
    let tables = text
        .split_once("=== flat out ===")
        .expect("--print all tables")
        .1;
    let first_title = tables
        .lines()
        .skip(1)
        .skip_while(|l| !l.is_empty())
        .find(|l| !l.is_empty())
        .unwrap();
    assert!(
        first_title.starts_with("writer ns/op from throughput"),
        "{text}"
    );
    // A cell is `21.6M ±54%` or `37.4 ns ±7.0%`: 3 significant digits
    // with an SI prefix or a time unit, then the spread.
    let mean_of = |cell: &str, row: &str| -> f64 {
        let (mean, sd) = cell
            .split_once(" ±")
            .unwrap_or_else(|| panic!("{cell:?} in {row}"));
        assert!(sd.ends_with('%'), "{row}");
        sd.trim_end_matches('%').parse::<f64>().unwrap();
        let (number, scale) = match mean.split_once(' ') {
            Some((n, "ns")) => (n, 1.0),
            Some((n, "µs")) => (n, 1e3),
            Some((n, "ms")) => (n, 1e6),
            Some(_) => panic!("{cell:?} in {row}"),
            None => match mean.chars().last() {
                Some('k') => (&mean[..mean.len() - 1], 1e3),
                Some('M') => (&mean[..mean.len() - 1], 1e6),
                Some('G') => (&mean[..mean.len() - 1], 1e9),
                _ => (mean, 1.0),
            },
        };
        let significant = number.chars().filter(|c| c.is_ascii_digit()).count();
        assert!(
            (3..=4).contains(&significant),
            "{cell:?}: 3 significant digits"
        );
        number
            .parse::<f64>()
            .unwrap_or_else(|_| panic!("{cell:?} in {row}"))
            * scale
    };
    let (mut checked, mut noisy) = (0, 0);
    for section in ["writer ns/op from throughput", "write side: updates/s"] {
        let mut lines = tables.lines().skip_while(|l| !l.starts_with(section));
        assert!(lines.next().is_some(), "no {section} section: {text}");
        let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
        assert_eq!(header, ["global", "node"], "{text}");
        for publish in ["threshold:64", "ratelimit:1ms+threshold:64", "always"] {
            let row = lines.next().unwrap();
            // A noise cell has no change to check.
            if row.contains("noise (") {
                noisy += 1;
                continue;
            }
            // Columns are 3+ spaces apart, a change 2 after its value.
            let cells: Vec<&str> = row
                .split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            assert_eq!(cells.len(), 4, "{row}");
            assert_eq!(cells[0], publish, "{row}");
            let (m1, m2) = (mean_of(cells[1], row), mean_of(cells[2], row));
            let change_cell = cells[3].trim_end_matches(" n.s.");
            let change: f64 = change_cell
                .strip_suffix('%')
                .unwrap_or_else(|| panic!("{row}"))
                .parse()
                .unwrap();
            assert!(change_cell.starts_with(['+', '-']), "{row}");
            // The printed means are rounded to 3 significant digits, each
            // off by up to 0.5% (1.005 → "1.00"), so their ratio by up to
            // 1%: the change in points by 1% of (100 + change).
            let by_hand = 100.0 * (m2 - m1) / m1;
            assert!(
                (change - by_hand).abs() <= 0.01 * (100.0 + by_hand.abs()),
                "{row}: printed {change}%, the means give {by_hand:.2}%"
            );
            checked += 1;
        }
    }
    // Two sections × the default's three policies; 2 levels × 3
    // policies × 2 repeats.
    assert_eq!(checked + noisy, 6);
    assert!(
        text.contains("every final sum exact, in all 12 strategy results"),
        "{text}"
    );
    assert!(stderr(&o).contains("wrote "));
}

#[test]
fn reader_pool_and_oversubscription_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let v = quick_run(
        dir.path(),
        &[
            "--level",
            "node",
            "--publish",
            "always",
            "--writers",
            "1",
            "--readers",
            "1",
        ],
    );
    assert_eq!(v["config"]["writer_cpus"].as_array().unwrap().len(), 1);
    assert_eq!(v["config"]["reader_cpus"].as_array().unwrap().len(), 1);
    assert_ne!(v["config"]["writer_cpus"][0], v["config"]["reader_cpus"][0]);
    let roles: Vec<&str> = v["strategies"][0]["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["writer", "reader"]);
    assert!(
        v["strategies"][0]["repeats"][0]["reader_reads"][0]
            .as_u64()
            .unwrap()
            > 0
    );

    let allowed = v["topology"]["allowed_cpus"].as_array().unwrap().len();
    let too_many = (allowed + 1).to_string();
    let dir2 = tempfile::tempdir().unwrap();
    let v = quick_run(
        dir2.path(),
        &[
            "--level",
            "global",
            "--publish",
            "always",
            "--writers",
            &too_many,
            "--placement",
            "oversubscribe",
        ],
    );
    assert!(
        v["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("oversubscribed")),
        "{}",
        v["notes"]
    );
    assert_eq!(v["strategies"][0]["exact"], true);
}

#[test]
fn rate_caps_each_thread() {
    let dir = tempfile::tempdir().unwrap();
    let v = quick_run(
        dir.path(),
        &[
            "--level",
            "global",
            "--publish",
            "always",
            "--writers",
            "1",
            "--rate",
            "2000",
        ],
    );
    let rate = v["strategies"][0]["summary"]["write_ops_per_s"]["mean"]
        .as_f64()
        .unwrap();
    // The cap is the property; a loaded CI machine may deschedule the
    // thread and so run below it, never above.
    assert!(
        rate <= 2000.0 * 1.05 && rate > 0.0,
        "{rate} updates/s at --rate 2000"
    );
    let unlimited = quick_run(
        dir.path(),
        &["--level", "global", "--publish", "always", "--writers", "1"],
    );
    let free = unlimited["strategies"][0]["summary"]["write_ops_per_s"]["mean"]
        .as_f64()
        .unwrap();
    assert!(
        free > 20_000.0,
        "uncapped writer only reached {free} updates/s"
    );
}

#[test]
fn bad_run_requests_exit_2_with_one_line() {
    let cases: [(&[&str], &str); 17] = [
        (&["run", "--level", "socket"], "unknown level"),
        (
            &["run", "--publish", "walks:1.5"],
            "\"1.5\" is not a fraction above 0 and below 1 (0.4 or 40%)",
        ),
        (
            &["run", "--publish", "walks:0%"],
            "is not a fraction above 0 and below 1",
        ),
        (
            &["run", "--publish", "walks:lots"],
            "is not a fraction above 0 and below 1",
        ),
        (
            &["run", "--publish", "always,walks:99.9%"],
            "--publish walks: threshold:64 publishes 0.2% to 96.0% of updates with any load walk: 99.9% is out of reach",
        ),
        (&["run", "--publish", "sometimes"], "bad publish policy"),
        (&["run", "--duration", "5"], "no unit"),
        (&["run", "--duration", "0ms"], "above zero"),
        (&["run", "--writers", "1@4000"], "names CPU 4000,"),
        (&["run", "--placement", "node:7"], "node 7 does not exist"),
        (&["run", "--writers", "4096"], "--placement oversubscribe"),
        (&["run", "--publish", "clock:hpet"], "unknown clock"),
        (&["run", "--level", "pad:32"], "unknown pad"),
        (&["run", "--rate", "0"], "or max (flat out)"),
        (&["run", "--rate", "max,fast"], "\"fast\" is not a rate"),
        (
            &["run", "--rate", "22k:even"],
            "unknown arrivals \"even\" (expected paced or poisson)",
        ),
        (
            &["run", "--rate", "max:poisson"],
            "flat out (max) has no arrivals",
        ),
    ];
    for (args, needle) in cases {
        common::assert_usage_error(args, needle);
    }
}

#[test]
fn ctrl_c_keeps_finished_repeats_and_marks_the_file_partial() {
    // A host stalled past the signal's time finishes no repeat before it:
    // a run with nothing to keep proves nothing, so it is tried again.
    let (said, json) = (0..3)
        .map(|_| interrupted_run())
        .find(|(_, json)| kept_repeats(json).iter().sum::<usize>() > 0)
        .expect("no repeat finished before the signal in 3 tries");
    assert!(said.contains("interrupted"), "{said}");
    assert_eq!(json["partial"], true);
    // 2 s over 10 repeats is 200 ms a repeat, and SIGINT comes 7.5
    // repeats after the plan, so at most 7 repeats can have finished,
    // of the 8 strategies x 2 regimes x 10 = 160 asked for (and the clock
    // floor's 10), and the one running at the signal is dropped.
    let per_strategy = kept_repeats(&json);
    assert_eq!(per_strategy.len(), 16, "{per_strategy:?}");
    assert_eq!(json["config"]["repeat_duration_s"], 0.2);
    let finished: usize = per_strategy.iter().sum();
    assert!(finished <= 7, "{finished} repeats kept");
    // Strategies take turns, flat out first, so the kept repeats are one
    // round-robin prefix: the first `finished` strategies have one repeat
    // each, and the paced regime's clock floor (after the 8 flat-out
    // ones) none.
    let expected: Vec<usize> = (0..16).map(|i| usize::from(i < finished)).collect();
    assert_eq!(
        json["paced_floors"][0]["repeats"].as_array().unwrap().len(),
        0
    );
    assert_eq!(per_strategy, expected);
}

/// A run of 16 strategies at 200 ms a repeat, sent SIGINT 7.5 repeats
/// after its plan: what it said on stderr, and the run.json it wrote.
fn interrupted_run() -> (String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_contend"))
        .args([
            "run",
            "--level",
            "global,node,llc,cpu",
            "--publish",
            "always,ratelimit:1ms",
            "--duration",
            "2s",
            "--repeats",
            "10",
            "--warmup",
            "0",
            "--out",
        ])
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Start-up (threads, wake-up latency) takes a loaded host seconds, so
    // the signal is timed from the plan's note, printed once start-up is
    // measured and the repeats are about to begin.
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut said = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        said += &line;
        said.push('\n');
        if line.contains("warm-up raised") {
            break;
        }
    }
    // The harness raises the warm-up to the start-up spread it measured,
    // which a loaded host makes long, so a repeat takes that warm-up and
    // its 200 ms.
    let repeat_s = raised_warmup_s(&said) + 0.2;
    std::thread::sleep(Duration::from_secs_f64(7.5 * repeat_s));
    // SAFETY: sending SIGINT to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    for line in lines {
        said += &line.unwrap();
        said.push('\n');
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{said}");
    let folder = results_dir(dir.path()).expect("a results folder");
    let json = serde_json::from_str(&std::fs::read_to_string(folder.join("run.json")).unwrap());
    (said, json.unwrap())
}

/// Each strategy's count of kept repeats in a run.json.
fn kept_repeats(json: &Value) -> Vec<usize> {
    json["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["repeats"].as_array().unwrap().len())
        .collect()
}

/// The warm-up, in seconds, that the plan's note says it was raised to
/// ("warm-up raised from 0 ns to 127 µs: …"), read as `--warmup` is.
fn raised_warmup_s(said: &str) -> f64 {
    let to = said
        .split("warm-up raised from 0 ns to ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .unwrap_or_else(|| panic!("no raised warm-up in {said}"));
    contend::counter::parse_duration(&to.replace(' ', ""))
        .unwrap_or_else(|e| panic!("{e}"))
        .as_secs_f64()
}

#[test]
fn run_options_work_without_the_word_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "--print",
        "json",
        "--out",
        dir.path().to_str().unwrap(),
        "--level",
        "cpu",
        "--publish",
        "always",
    ];
    args.extend(QUICK);
    let o = contend(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["strategies"][0]["name"], "cpu/always/pad128");
    // A misspelt option is still an error, not a run.
    let o = contend(&["--levle", "cpu"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--levle"), "{}", stderr(&o));
}

/// Fraction of updates that published, over every repeat and writer.
fn publish_fraction(v: &Value) -> f64 {
    let (mut publishes, mut updates) = (0.0, 0.0);
    for s in v["strategies"].as_array().unwrap() {
        for r in s["repeats"].as_array().unwrap() {
            publishes += r["publishes"].as_f64().unwrap();
            for u in r["writer_updates"].as_array().unwrap() {
                updates += u.as_f64().unwrap();
            }
        }
    }
    publishes / updates
}

#[test]
fn threshold_publishes_the_same_fraction_in_short_and_long_repeats() {
    // With an unbounded load walk, threshold:64 published 1.16% of updates
    // in 200 ms repeats and 0.54% in 4 s ones.
    let dir = tempfile::tempdir().unwrap();
    let run = |duration: &str| {
        let mut args = vec![
            "run",
            "--print",
            "json",
            "--out",
            dir.path().to_str().unwrap(),
        ];
        args.extend([
            "--level",
            "global",
            "--publish",
            "threshold:64",
            "--repeats",
            "1",
            "--duration",
            duration,
        ]);
        let o = contend(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        publish_fraction(&serde_json::from_slice(&o.stdout).unwrap())
    };
    let (short, long) = (run("200ms"), run("4s"));
    assert!(short > 0.0 && long > 0.0, "{short} {long}");
    let ratio = long / short;
    assert!(
        (0.8..=1.2).contains(&ratio),
        "publish fraction {short:.5} with 200 ms, {long:.5} with 4 s"
    );
}

#[test]
fn threshold_64_publishes_the_fraction_asked_for_and_run_json_says_so() {
    // The default walk: the seed's 40%; asked for 60%, a larger step.
    // Counted from the publishes and updates of a real run.
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["--level", "global", "--publish", "threshold:64"];
        args.extend(extra);
        quick_run(dir.path(), &args)
    };
    let seed = run(&[]);
    assert_eq!(seed["config"]["threshold_publishes"], 0.4);
    assert_eq!(seed["config"]["load_step"], 26);
    let f = publish_fraction(&seed);
    assert!((f - 0.40).abs() <= 0.03, "threshold:64 published {f}");
    let more = run(&["--publish", "walks:60%"]);
    assert_eq!(more["config"]["threshold_publishes"], 0.6);
    assert!(more["config"]["load_step"].as_i64().unwrap() > 26);
    let g = publish_fraction(&more);
    assert!((g - 0.60).abs() <= 0.03, "threshold:64 published {g}");
}

#[test]
fn floor_throughput_ns_and_staleness_are_recorded_and_printed() {
    let dir = tempfile::tempdir().unwrap();
    let v = quick_run(
        dir.path(),
        &["--level", "global", "--publish", "always,threshold:64"],
    );
    let floor = v["floor"]["loop_ns"]["mean"].as_f64().unwrap();
    assert!(floor > 0.0 && floor < 1e6, "floor {floor} ns");
    assert_eq!(v["config"]["staleness_probes"], true);
    let writers = v["config"]["writer_cpus"].as_array().unwrap().len() as f64;
    for s in v["strategies"].as_array().unwrap() {
        for r in s["repeats"].as_array().unwrap() {
            // loop ns/op is writers x interval / updates, from the counts.
            let updates: f64 = r["writer_updates"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| u.as_f64().unwrap())
                .sum();
            let expect = writers * r["interval_s"].as_f64().unwrap() * 1e9 / updates;
            let got = r["write_loop_ns"].as_f64().unwrap();
            assert!((got - expect).abs() / expect < 0.05, "{got} vs {expect}");
            assert!(r["staleness"]["probes"].as_u64().unwrap() > 0, "{r}");
        }
    }
    // The first screen: the headline first (flat out only: it says so),
    // then the verdict, then one compact table whose first figure is
    // ns/op from throughput, and the floor it rests on; the sampled
    // tables only with --print all.
    let mut args = vec!["run", "--out", dir.path().to_str().unwrap()];
    args.extend(QUICK);
    args.extend(FLAT_OUT);
    args.extend(["--level", "global"]);
    let o = contend(&args);
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{}", stderr(&o));
    let after_header = text
        .lines()
        .skip_while(|l| !l.is_empty())
        .find(|l| !l.is_empty())
        .unwrap();
    assert!(
        after_header.starts_with("No paced regime in this run, so flat out: "),
        "{text}"
    );
    let after_headline = text
        .lines()
        .skip_while(|l| !l.is_empty())
        .skip(1)
        .skip_while(|l| !l.is_empty())
        .find(|l| !l.is_empty())
        .unwrap();
    assert!(
        after_headline.trim_start().starts_with("flat out"),
        "{text}"
    );
    let heads = text
        .lines()
        .find(|l| l.starts_with("strategy "))
        .unwrap_or_else(|| panic!("no compact table: {text}"));
    let columns: Vec<&str> = heads
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(columns, ["strategy", "ns/op", "updates/s"], "{text}");
    assert!(!text.contains("write ns/op, sampled"), "{text}");
    args.extend(["--print", "all"]);
    let o = contend(&args);
    let verbose = stdout(&o);
    assert!(verbose.contains("harness floor: "), "{verbose}");
    let sampled = verbose
        .lines()
        .find(|l| l.starts_with("write ns/op, sampled"))
        .unwrap_or_else(|| panic!("{verbose}"));
    // Flat out, a sampled table says what fenced samples do to a hammer.
    assert!(
        sampled.contains("fenced samples perturb a hammering writer"),
        "{sampled}"
    );
    let o = contend(&args);
    assert!(
        stdout(&o).contains("write ns/op, sampled"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn warmup_zero_means_none_with_or_without_a_unit() {
    let dir = tempfile::tempdir().unwrap();
    for zero in ["0", "0ms", "0s"] {
        let out = dir.path().to_str().unwrap();
        let args = [
            "run",
            "--print",
            "json",
            "--out",
            out,
            "--level",
            "global",
            "--duration",
            "20ms",
            "--repeats",
            "1",
            "--warmup",
            zero,
        ];
        let o = contend(&args);
        assert!(o.status.success(), "--warmup {zero}: {}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        // Zero is asked; where a busy thread here took longer to start
        // than that, the run raises it and says so in a note.
        let raised = v["notes"].as_array().unwrap().iter().any(|n| {
            n.as_str()
                .unwrap()
                .starts_with("warm-up raised from 0 ns to ")
        });
        assert!(
            v["config"]["warmup_s"] == 0.0 || raised,
            "--warmup {zero}: {}",
            v["notes"]
        );
    }
}

#[test]
fn one_repeat_prints_no_spread_and_says_why() {
    // A standard deviation over one repeat is undefined: the tables, the
    // verdict and compare must not print the 0 the file stores as "±0".
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = contend(&[
        "run",
        "--out",
        out,
        "--level",
        "global",
        "--publish",
        "always,threshold:64",
        "--rate",
        "max",
        "--duration",
        "20ms",
        "--repeats",
        "1",
        "--warmup",
        "0",
        "--print",
        "all",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains(" ns (1 repeat)"), "{text}");
    for zero in ["±0.0 ", "±0.00%", "±0%"] {
        assert!(!text.contains(zero), "{zero} in:\n{text}");
    }
    let json = results_dir(dir.path()).unwrap().join("run.json");
    let json = json.to_str().unwrap();
    let o = contend(&["compare", json, json]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    // The heading names the interval; no strategy's row has one.
    assert!(text.contains("±95% CI"), "{text}");
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("global/")).collect();
    assert_eq!(rows.len(), 4, "{text}");
    for row in rows {
        assert!(!row.contains('±'), "{row} in:\n{text}");
    }
}

#[test]
fn a_default_run_answers_both_regimes_verdict_first_in_one_compact_table() {
    // The default regimes (flat out and the seed's 22k/s), shortened.
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["run", "--out", dir.path().to_str().unwrap()];
    args.extend(QUICK);
    args.extend(["--level", "global,cpu", "--publish", "always,never"]);
    let o = contend(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains(" per strategy, interleaved"), "{text}");
    // The headline comes before the table; the table has one group of
    // columns per regime, a row per strategy and one for the floors.
    let lines: Vec<&str> = text.lines().collect();
    let first_verdict = lines
        .iter()
        .position(|l| l.starts_with("At the seed's rate"))
        .unwrap();
    let heads = lines
        .iter()
        .position(|l| l.starts_with("strategy "))
        .unwrap();
    assert!(first_verdict < heads, "{text}");
    assert!(
        lines[heads - 1].contains("flat out") && lines[heads - 1].contains("at 22.0k/s per thread")
    );
    for column in ["ns/op", "updates/s", "net ns/update", "net CPU"] {
        assert!(lines[heads].contains(column), "{column}: {text}");
    }
    let rows: Vec<&str> = lines[heads + 1..]
        .iter()
        .take_while(|l| !l.starts_with("± = "))
        .copied()
        .collect();
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r.split("  ").next().unwrap().trim())
        .collect();
    assert_eq!(
        names,
        [
            "global/always",
            "cpu/always",
            "global/never",
            "cpu/never",
            "floor (no shared write)"
        ],
        "{text}"
    );
    // The floors' lines are --print all's.
    assert!(!text.contains("paced floor (paced at"), "{text}");
    // No table repeats another: the full tables are behind --print all.
    assert!(!text.contains("write side: updates/s"), "{text}");
    // The file keeps both regimes, gross, floor and net; the paced floor
    // ran in place in every paced repeat, no entry of its own.
    let folder = results_dir(dir.path()).expect("a results folder");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("run.json")).unwrap()).unwrap();
    assert_eq!(v["config"]["rates"], serde_json::json!([null, 22000.0]));
    assert_eq!(v["paced_floors"], serde_json::json!([]));
    for s in v["strategies"].as_array().unwrap() {
        let summary = &s["summary"];
        assert!(summary["net_ns"]["mean"].is_f64(), "{}", s["name"]);
        if s["rate"].is_null() {
            assert!(summary["write_loop_ns"]["mean"].is_f64());
            assert!(s["repeats"][0]["floor_busy_ns"].is_null());
        } else {
            assert!(summary["write_busy_ns"]["mean"].is_f64());
            assert!(summary["net_cpu_share_pct"]["mean"].is_f64());
            for r in s["repeats"].as_array().unwrap() {
                assert!(r["floor_busy_ns"].as_f64().unwrap() > 0.0, "{r}");
                assert!(r["floor_cpu_share_pct"].as_f64().unwrap() > 0.0, "{r}");
            }
        }
    }
    let csv = std::fs::read_to_string(folder.join("run.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    for column in [
        "rate",
        "floor",
        "write_busy_ns",
        "floor_ns",
        "net_ns",
        "handovers",
    ] {
        assert!(header.split(',').any(|c| c == column), "{column}: {header}");
    }
    // 4 strategies x 2 regimes x 2 repeats; a paced row's floor is its
    // repeat's floor in place.
    assert_eq!(csv.lines().count(), 1 + 4 * 2 * 2, "{csv}");
    let mut rows = csv::Reader::from_reader(csv.as_bytes());
    let at = |name: &str| header.split(',').position(|c| c == name).unwrap();
    for row in rows.records().map(Result::unwrap) {
        if !row[at("rate")].is_empty() {
            let number = |name: &str| row[at(name)].parse::<f64>().unwrap();
            let net = number("write_busy_ns") - number("floor_ns");
            assert!((number("net_ns") - net).abs() < 1e-6, "{row:?}");
        }
    }
}
