//! Noisy machines: stop signals keep what was measured, a failed write
//! says so and keeps the table, interference is recorded per repeat, the
//! adaptive repeats stop where they should, and compare refuses to call a
//! changed machine a changed result.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;
use common::{contend, results_dir, stderr, stdout};

/// Starts `contend run --print none` writing under `out`, sends `signal` after
/// `after`, and returns its exit code, stderr and run.json.
fn signalled_run(out: &Path, signal: i32, after: Duration) -> (Option<i32>, String, Value) {
    let child = Command::new(env!("CARGO_BIN_EXE_contend"))
        .args([
            "run",
            "--print",
            "none",
            "--level",
            "global,cpu",
            "--publish",
            "always",
            "--duration",
            "2s",
            "--repeats",
            "10",
            "--warmup",
            "0",
            "--out",
        ])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, signal) };
    let o = child.wait_with_output().unwrap();
    let file = results_dir(out).expect("a results folder").join("run.json");
    let json = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    (o.status.code(), stderr(&o), json)
}

#[test]
fn sigterm_and_sighup_keep_finished_repeats_like_ctrl_c() {
    for signal in [libc::SIGTERM, libc::SIGHUP] {
        // 200 ms a repeat, 2 strategies: a signal at 1.2 s (after the
        // floor's ~0.5 s) leaves a few finished, never all 20. On a loaded
        // machine (test suites side by side) the floor and the canaries
        // take longer: then a signal twice as late, up to 4.8 s.
        let mut after = Duration::from_millis(1200);
        let repeats = loop {
            let dir = tempfile::tempdir().unwrap();
            let (code, err, json) = signalled_run(dir.path(), signal, after);
            // Killed by the signal, it would exit 143 (or 129) and write
            // nothing.
            assert_eq!(code, Some(1), "signal {signal}: {err}");
            assert!(err.contains("interrupted"), "signal {signal}: {err}");
            assert_eq!(json["partial"], true, "signal {signal}");
            let strategies = json["strategies"].as_array().unwrap();
            for r in strategies
                .iter()
                .flat_map(|s| s["repeats"].as_array().unwrap())
            {
                assert_eq!(r["exact"], true);
            }
            let repeats: usize = strategies
                .iter()
                .map(|s| s["repeats"].as_array().unwrap().len())
                .sum();
            if repeats > 0 || after >= Duration::from_millis(4800) {
                break repeats;
            }
            after *= 2;
        };
        assert!((1..20).contains(&repeats), "signal {signal}: {repeats}");
    }
}

/// A short run's JSON, writing under `out`.
fn quick(out: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "run",
        "--print",
        "json",
        "--level",
        "global,cpu",
        "--publish",
        "always",
        "--warmup",
        "0",
        "--rate",
        "max",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    common::contend_json(&args)
}

#[test]
fn every_repeat_records_its_interference() {
    let dir = tempfile::tempdir().unwrap();
    let v = quick(dir.path(), &["--duration", "60ms", "--repeats", "2"]);
    let two_cpus = common::allowed_cpus().len() >= 2;
    for s in v["strategies"].as_array().unwrap() {
        for r in s["repeats"].as_array().unwrap() {
            let i = &r["interference"];
            assert!(i["involuntary_switches"].is_u64(), "{i}");
            assert!(i["steal_ms"].as_f64().is_some_and(|s| s >= 0.0), "{i}");
            if two_cpus {
                // A CAS ping-pong between two CPUs takes at least a few ns
                // one-way; over 10 µs (a loaded machine: its threads took
                // turns on one CPU) it is the scheduler's, and the repeat
                // is disturbed.
                let before = i["canary_ns"].as_f64().unwrap();
                assert!(i["canary_ms"].as_f64().unwrap() > 0.0, "{i}");
                // And one after the repeat, on the same pair.
                let after = i["canary_after_ns"].as_f64().unwrap();
                for ns in [before, after] {
                    assert!(ns >= 1.0, "{i}");
                    assert!(ns <= 10_000.0 || i["disturbed"] == true, "{i}");
                }
            }
        }
    }
}

#[test]
fn adaptive_repeats_stop_at_the_target_or_at_the_time_limit() {
    let dir = tempfile::tempdir().unwrap();
    // A target no run can miss: no repeat beyond the first two, but for
    // a disturbed one measured again (the same rule in both regimes).
    // Two repeats' CI is ±12.7 x half their difference, so ±1000% would
    // be missed by repeats 8x apart, as a host moving its vCPUs between
    // phases 10x apart can make them.
    let v = quick(
        dir.path(),
        &["--duration", "40ms", "--repeats", "2:1000000%"],
    );
    assert_eq!(v["config"]["target_ci_pct"], 1e6);
    for s in v["strategies"].as_array().unwrap() {
        let retries = s["retries"].as_u64().unwrap() as usize;
        assert_eq!(
            s["repeats"].as_array().unwrap().len(),
            2 + retries,
            "{}",
            s["name"]
        );
        assert_eq!(s["converged"], true);
    }
    // A target no flat-out run can meet: repeats are added until the time
    // is up, and the strategies are named as not converged (paced, a
    // net CI within the 1 ns threshold meets any target: a lucky run
    // does so in 2 s).
    let started = std::time::Instant::now();
    let mut args = vec![
        "run",
        "--level",
        "global",
        "--publish",
        "always",
        "--warmup",
        "0",
        "--out",
    ];
    let unmet = tempfile::tempdir().unwrap();
    args.push(unmet.path().to_str().unwrap());
    args.extend([
        "--duration",
        "40ms",
        "--repeats",
        "2:0.000001%",
        "--max-time",
        "2s",
    ]);
    let o = contend(&args);
    let text = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    let took = started.elapsed().as_secs_f64();
    assert!(took < 6.0, "--max-time 2s took {took} s");
    assert!(text.contains("missed ±0.000001% in 2 s"), "{text}");
    // The flat-out entry is named as not there, and the count is the
    // file's.
    let file = results_dir(unmet.path()).unwrap().join("run.json");
    let run: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let strategies = run["strategies"].as_array().unwrap();
    let flat = strategies.iter().find(|s| s["rate"].is_null()).unwrap();
    assert_eq!(flat["converged"], false);
    let open = strategies
        .iter()
        .filter(|s| s["converged"] == false)
        .count();
    assert!(
        text.contains(&format!("{open} missed ±0.000001% in 2 s")),
        "{text}"
    );
    // With --repeats alone the count is fixed (no target).
    let v = quick(dir.path(), &["--duration", "40ms", "--repeats", "3"]);
    assert!(v["config"]["target_ci_pct"].is_null());
    for s in v["strategies"].as_array().unwrap() {
        assert_eq!(s["repeats"].as_array().unwrap().len(), 3);
        assert!(s["converged"].is_null());
    }
}

/// Every canary of `run` times `factor`.
fn scale_canaries(run: &mut Value, factor: f64) {
    for s in run["strategies"].as_array_mut().unwrap() {
        for r in s["repeats"].as_array_mut().unwrap() {
            let ns = r["interference"]["canary_ns"].as_f64().unwrap_or(27.0);
            r["interference"]["canary_ns"] = Value::from(ns * factor);
            // The canary after each repeat, where the run took one, moved
            // with the machine too.
            if let Some(after) = r["interference"]["canary_after_ns"].as_f64() {
                r["interference"]["canary_after_ns"] = Value::from(after * factor);
            }
        }
    }
}

/// Every strategy's loop ns/op of `run` set to `mean`, over 5 repeats
/// whose stddev is 0.1% of it.
fn set_cost(run: &mut Value, mean: f64) {
    for s in run["strategies"].as_array_mut().unwrap() {
        s["summary"]["write_loop_ns"] = serde_json::json!({
            "n": 5, "mean": mean, "stddev": mean / 1000.0, "stddev_pct": 0.1,
            "ci95_low": mean * 0.999, "ci95_high": mean * 1.001,
            "min": mean * 0.998, "max": mean * 1.002
        });
    }
}

/// Three copies of `run`, run i's cost at `mean` + (i - 1) x 0.5%, each
/// run.json in a folder of its own under `dir/name`: a side of runs.
fn side(dir: &Path, name: &str, run: &Value, mean: f64) -> PathBuf {
    for i in 0..3 {
        let folder = dir.join(name).join(format!("run{i}"));
        std::fs::create_dir_all(&folder).unwrap();
        let mut v = run.clone();
        set_cost(&mut v, mean * (1.0 + (i as f64 - 1.0) * 0.005));
        std::fs::write(folder.join("run.json"), serde_json::to_vec(&v).unwrap()).unwrap();
    }
    dir.join(name)
}

/// The test side's rows of the flat-out cost table (loop ns/op) of a
/// text comparison: its strategies' rows that are not the base.
fn cost_rows(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with("flat out: loop ns/op"))
        .take_while(|l| !l.is_empty())
        .filter(|l| l.contains("/always") && !l.ends_with("base"))
        .collect()
}

#[test]
fn compare_calls_a_changed_machine_inconclusive_not_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let run = quick(dir.path(), &["--duration", "40ms", "--repeats", "2"]);
    let base = side(dir.path(), "base", &run, 100.0);
    // Same machine: +30% per update is a change, in both strategies.
    let same = side(dir.path(), "same", &run, 130.0);
    let o = contend(&["compare", base.to_str().unwrap(), same.to_str().unwrap()]);
    let text = stdout(&o);
    let rows = cost_rows(&text);
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows.iter().all(|r| r.contains("dearer")), "{text}");
    // The hypervisor moved the vCPUs: the canary reads 4x. The same +30%
    // is not a change any more.
    let mut moved_run = run.clone();
    scale_canaries(&mut moved_run, 4.0);
    let moved = side(dir.path(), "moved", &moved_run, 130.0);
    let o = contend(&["compare", base.to_str().unwrap(), moved.to_str().unwrap()]);
    let (text, err) = (stdout(&o), stderr(&o));
    assert!(o.status.success(), "{err}");
    let rows = cost_rows(&text);
    assert_eq!(rows.len(), 2, "{text}");
    for row in rows {
        assert!(row.ends_with("inconclusive"), "{row}");
    }
    assert!(
        err.contains("the machine changed between the sides (canary"),
        "{err}"
    );
    assert!(err.contains("compare strategies inside one run"), "{err}");
    // Inside one file the machine is the same for both sides: no such
    // verdict.
    let one = moved.join("run0").join("run.json");
    let o = contend(&[
        "compare",
        one.to_str().unwrap(),
        "--base",
        "global",
        "--test",
        "cpu",
    ]);
    assert!(!stdout(&o).contains("machine changed"), "{}", stdout(&o));
}
