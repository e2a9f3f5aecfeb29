//! `contend run` end to end on this host: short runs, their files, their
//! errors, and Ctrl-C.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;
use common::{contend, results_dir, stderr};

const QUICK: [&str; 6] = ["--duration", "60ms", "--repeats", "2", "--warmup", "0"];

fn quick_run(out: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["run", "--json", "--out", out.to_str().unwrap()];
    args.extend(QUICK);
    args.extend(extra);
    let o = contend(&args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn quick_run_writes_exact_verified_results_with_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let v = quick_run(
        dir.path(),
        &["--level", "global,cpu", "--publish", "always,ratelimit:1ms"],
    );
    assert_eq!(v["schema"], 2);
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
    let writers = v["config"]["writer_cpus"].as_array().unwrap().len();
    assert!(writers >= 1);
    for s in strategies {
        assert_eq!(s["exact"], true, "{}", s["name"]);
        let repeats = s["repeats"].as_array().unwrap();
        assert_eq!(repeats.len(), 2);
        for r in repeats {
            assert_eq!(r["final_sum"], r["expected_sum"]);
            assert!(r["write_ops_per_s"].as_f64().unwrap() > 0.0);
            assert_eq!(r["writer_updates"].as_array().unwrap().len(), writers);
        }
        for t in s["threads"].as_array().unwrap() {
            assert_eq!(t["verified"], true);
            assert_eq!(t["cpu"], t["observed_cpu"]);
        }
        for slot in s["slots"].as_array().unwrap() {
            assert_eq!(slot["check"]["status"], "verified");
        }
        let summary = &s["summary"];
        assert_eq!(summary["write_ops_per_s"]["n"], 2);
        assert!(
            summary["write_ops_per_s"]["ci95_low"].as_f64()
                <= summary["write_ops_per_s"]["mean"].as_f64()
        );
    }
    // Ratelimited: far fewer publishes than updates, and the clock cost is recorded.
    let rl = &strategies[2];
    assert!(rl["clock_read_ns"].as_f64().unwrap() > 0.0);
    let r0 = &rl["repeats"][0];
    let updates: u64 = r0["writer_updates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_u64().unwrap())
        .sum();
    assert!(r0["publishes"].as_u64().unwrap() * 10 < updates, "{r0}");
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
    assert!(p["tsc_hz"].as_f64().unwrap() > 1e8);

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
            .starts_with("strategy,level,publish,pad,clock,repeat,")
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
    ];
    args.extend(QUICK);
    let o = contend(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout.clone()).unwrap();
    assert!(text.contains("write side: updates/s"), "{text}");
    assert!(text.contains("read side:"), "{text}");
    // `always   123±1.23%   456±0.12%  +270.7%`
    let row = text.lines().find(|l| l.starts_with("always")).unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert!(cells[1].contains('±') && cells[1].ends_with('%'), "{row}");
    assert!(
        cells[3].starts_with('+') || cells[3].starts_with('-'),
        "{row}"
    );
    assert!(text.contains("exact sums: all 8 repeats exact"), "{text}");
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
            "--oversubscribe",
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
    let cases: [(&[&str], &str); 9] = [
        (&["run", "--level", "socket"], "unknown level"),
        (&["run", "--publish", "sometimes"], "bad publish policy"),
        (&["run", "--duration", "5"], "no unit"),
        (&["run", "--duration", "0ms"], "above zero"),
        (&["run", "--writer-cpus", "4000"], "selects no allowed CPU"),
        (&["run", "--counter-node", "7"], "node 7 does not exist"),
        (&["run", "--writers", "4096"], "--oversubscribe"),
        (&["run", "--clock", "hpet"], "unknown clock"),
        (&["run", "--pad", "32"], "unknown pad"),
    ];
    for (args, needle) in cases {
        let o = contend(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(
            err.lines().filter(|l| l.contains("error")).count() == 1,
            "{args:?}: {err}"
        );
    }
}

#[test]
fn ctrl_c_keeps_finished_repeats_and_marks_the_file_partial() {
    let dir = tempfile::tempdir().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_contend"))
        .args([
            "run",
            "--quiet",
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
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: sending SIGINT to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("interrupted"), "{}", stderr(&out));
    let json: Value = serde_json::from_str(
        &std::fs::read_to_string(
            results_dir(dir.path())
                .expect("a results folder")
                .join("run.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(json["partial"], true);
    let finished: usize = json["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["repeats"].as_array().unwrap().len())
        .sum();
    assert!((1..80).contains(&finished), "{finished} repeats kept");
}

#[test]
fn run_options_work_without_the_word_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "--json",
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
        let mut args = vec!["run", "--json", "--out", dir.path().to_str().unwrap()];
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
    // The table leads with the throughput figure and names the floor.
    let mut args = vec!["run", "--out", dir.path().to_str().unwrap()];
    args.extend(QUICK);
    args.extend(["--level", "global"]);
    let o = contend(&args);
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{}", stderr(&o));
    let first_title = text
        .lines()
        .skip_while(|l| !l.is_empty())
        .find(|l| !l.is_empty())
        .unwrap();
    assert!(
        first_title.starts_with("writer ns/op from throughput"),
        "{text}"
    );
    assert!(text.contains("harness floor: "), "{text}");
    assert!(text.contains("write ns/op, sampled"), "{text}");
}

#[test]
fn warmup_zero_means_none_with_or_without_a_unit() {
    let dir = tempfile::tempdir().unwrap();
    for zero in ["0", "0ms", "0s"] {
        let out = dir.path().to_str().unwrap();
        let args = [
            "run",
            "--json",
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
        assert_eq!(v["config"]["warmup_s"], 0.0, "--warmup {zero}");
    }
}
