//! The command line end to end: exit codes, one-line errors, capture.

use std::path::Path;

mod common;
use common::{allowed_cpus, assert_usage_error, contend, results_dir, stderr};
use contend::topology::CpuList;

#[test]
fn bad_requests_exit_2_with_one_line() {
    assert_usage_error(&["verify", "--nodes", "7"], "node 7 does not exist");
    assert_usage_error(&["verify", "--cpus", "node:9"], "node 9 does not exist");
    assert_usage_error(&["verify", "--cpus", "4000"], "names CPU 4000,");
    assert_usage_error(&["verify", "--cpus", "3-1"], "range end before start");
    assert_usage_error(&["verify", "--cpus", "sideways"], "bad CPU spec");
    assert_usage_error(
        &["--sysfs-root", "/nonexistent", "topology"],
        "/nonexistent",
    );
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/topology/vm-4node-norov"
    );
    assert_usage_error(&["--sysfs-root", fixture, "verify"], "live host");
}

#[test]
fn verify_pins_and_binds_here() {
    let out = contend(&["verify", "--print", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let threads = v["threads"].as_array().unwrap();
    // `--cpus all`: one thread per CPU this process may use.
    let mut requested: Vec<u32> = threads
        .iter()
        .map(|t| t["requested_cpu"].as_u64().unwrap() as u32)
        .collect();
    requested.sort_unstable();
    assert_eq!(requested, common::allowed_cpus());
    for t in threads {
        assert_eq!(t["verified"], true);
        assert_eq!(t["requested_cpu"], t["observed_cpu"]);
    }
    // Every node's 4 pages, each on that node.
    let memory = v["memory"].as_array().unwrap();
    assert!(!memory.is_empty());
    assert_eq!(memory[0]["requested_node"], 0);
    for m in memory {
        assert_eq!(m["check"]["status"], "verified", "{m}");
        assert_eq!(m["pages"], 4, "{m}");
        let page_nodes = m["page_nodes"].as_array().unwrap();
        assert_eq!(page_nodes.len(), 4, "{m}");
        assert!(page_nodes.iter().all(|n| *n == m["requested_node"]), "{m}");
    }
    // And only the nodes asked for.
    let out = contend(&["verify", "--print", "json", "--nodes", "0"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let memory = v["memory"].as_array().unwrap();
    assert_eq!(memory.len(), 1, "{v}");
    assert_eq!(
        memory[0]["page_nodes"],
        serde_json::json!([0, 0, 0, 0]),
        "{v}"
    );
}

#[test]
fn capture_reproduces_the_live_host() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("host");
    let cap_str = cap.to_str().unwrap();
    let out = contend(&["topology", "capture", cap_str]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(cap.join("sys/devices/system/cpu/online").is_file());
    let live = contend(&["topology", "--print", "json"]);
    let replay = contend(&["--sysfs-root", cap_str, "topology", "--print", "json"]);
    assert!(live.status.success() && replay.status.success());
    let live: serde_json::Value = serde_json::from_slice(&live.stdout).unwrap();
    let replay: serde_json::Value = serde_json::from_slice(&replay.stdout).unwrap();
    assert_eq!(live, replay);
    // A second capture into the same directory needs --force.
    assert_usage_error(&["topology", "capture", cap_str], "not empty");
    assert!(
        contend(&["topology", "capture", "--force", cap_str])
            .status
            .success()
    );
}

#[test]
fn topology_text_reads_like_numactl() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/topology/vm-4node-norov");
    let out = contend(&["--sysfs-root", fixture.to_str().unwrap(), "topology"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("available: 4 nodes (0-3)"), "{text}");
    assert!(
        text.contains("node 3 cpus: 8 9 10 11 12 13 14 15"),
        "{text}"
    );
    assert!(text.contains("   1:  50  10  70  30"), "{text}");
    assert!(text.contains("last-level caches: 4"), "{text}");
    let no_numa = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/topology/no-numa");
    let out = contend(&["--sysfs-root", no_numa.to_str().unwrap(), "topology"]);
    assert!(
        stderr(&out).contains("note: no sys/devices/system/node"),
        "{}",
        stderr(&out)
    );
}

/// A cpulist of every allowed CPU and the next 6 ids past the last: CPUs
/// this process may not use; and the allowed ones, as contend writes them.
fn beyond_allowed() -> (String, String, Vec<u32>) {
    let allowed = allowed_cpus();
    let last = *allowed.last().unwrap();
    let outside: Vec<u32> = (last + 1..=last + 6).collect();
    let spec = format!("{}-{}", allowed[0], last + 6);
    let list: CpuList = allowed.iter().copied().collect();
    (spec, list.to_string(), outside)
}

#[test]
fn cpus_this_process_may_not_use_are_refused_unless_clipped() {
    let (spec, allowed, outside) = beyond_allowed();
    let may_use = format!("it may use {allowed})");
    let one_reader = format!("1@{spec}");
    let clipped_spec = format!("{spec}:clip");
    for args in [
        vec!["run", "--writers", &spec],
        vec!["run", "--readers", &one_reader],
        vec!["predict", "--host", "same-llc=20ns", "--writers", &spec],
        vec!["matrix", "--cpus", &spec],
        vec!["verify", "--cpus", &spec],
    ] {
        assert_usage_error(&args, &may_use);
        assert_usage_error(&args, "end the spec with :clip");
    }
    // SPEC:clip runs on the allowed CPUs, says so in a note, and run.json
    // records what it dropped.
    let dir = tempfile::tempdir().unwrap();
    let out = contend(&[
        "run",
        "--writers",
        &clipped_spec,
        "--level",
        "global",
        "--publish",
        "always",
        "--rate",
        "max",
        "--duration",
        "20ms",
        "--repeats",
        "1",
        "--print",
        "json",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let note = format!(
        "note: --writers {spec} clipped to CPUs {allowed} ({} are not allowed here)",
        outside.iter().copied().collect::<CpuList>()
    );
    assert!(stderr(&out).lines().any(|l| l == note), "{}", stderr(&out));
    let run: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let clipped = &run["config"]["clipped"][0];
    assert_eq!(clipped["option"], "--writers");
    assert_eq!(clipped["spec"], spec.as_str());
    assert_eq!(clipped["dropped"], serde_json::json!(outside));
    assert_eq!(clipped["kept"], serde_json::json!(allowed_cpus()));
    assert_eq!(
        run["config"]["writer_cpus"],
        serde_json::json!(allowed_cpus())
    );
}

#[test]
fn a_matrix_clipped_records_it() {
    if allowed_cpus().len() < 2 {
        eprintln!("skipped: a matrix needs two allowed CPUs");
        return;
    }
    let (spec, _, outside) = beyond_allowed();
    let dir = tempfile::tempdir().unwrap();
    let out = contend(&[
        "matrix",
        "--cpus",
        &format!("{spec}:clip"),
        "--samples",
        "10",
        "--pairs",
        "1",
        "--print",
        "none",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let m = common::load(&results_dir(dir.path()).unwrap().join("matrix.json"));
    assert_eq!(m["config"]["cpus"], serde_json::json!(allowed_cpus()));
    assert_eq!(m["config"]["clipped"][0]["option"], "--cpus");
    assert_eq!(
        m["config"]["clipped"][0]["dropped"],
        serde_json::json!(outside)
    );
}

#[test]
fn misspelt_names_get_a_guess() {
    for (args, guess) in [
        (vec!["run", "--level", "globl"], "did you mean \"global\"?"),
        (
            vec!["run", "--publish", "ratelimt:1ms"],
            "did you mean \"ratelimit:1ms\"?",
        ),
        (
            vec!["sweep", "--publish", "always,ratelimit:1ms+treshold:64"],
            "did you mean \"ratelimit:1ms+threshold:64\"?",
        ),
        (
            vec!["run", "--publish", "always,clock:monotonc"],
            "did you mean \"monotonic\"?",
        ),
        (
            vec!["run", "--level", "global,pad:12"],
            "did you mean \"128\"?",
        ),
        (vec!["matrix", "--mode", "cass"], "did you mean \"cas\"?"),
        (
            vec!["matrix", "--mode", "cas:home=frst"],
            "did you mean \"first\"?",
        ),
        (
            vec!["matrix", "--cpus", "sprad"],
            "did you mean \"spread\"?",
        ),
        (
            vec!["sweep", "--affinity", "unbond"],
            "did you mean \"unbound\"?",
        ),
        (
            vec!["run", "--rate", "1k:poison"],
            "did you mean \"poisson\"?",
        ),
    ] {
        assert_usage_error(&args, guess);
    }
    // Nothing near: the names it takes, no guess.
    let out = contend(&["run", "--level", "socket"]);
    let err = stderr(&out);
    assert!(
        err.contains("(expected global, node, llc or cpu)") && !err.contains("did you mean"),
        "{err}"
    );
}

#[test]
fn clap_usage_errors_are_one_contend_line() {
    assert_usage_error(&["run", "--bogus"], "unexpected argument '--bogus'");
    assert_usage_error(&["--bogus"], "unexpected argument '--bogus'");
    assert_usage_error(&["compare"], "required arguments were not provided");
    assert_usage_error(&["nonsense"], "unrecognized subcommand 'nonsense'");
    assert_usage_error(&["run", "--repeats", "0"], "'--repeats <N[:P%]>'");
    // --print and --format: a value the command has no use for names the
    // values it takes.
    for (args, named) in [
        (
            vec!["sweep", "--print", "all"],
            "--print all: sweep takes summary, json, none",
        ),
        (
            vec!["run", "--print", "plan:json"],
            "run takes summary, all, json, none, plan",
        ),
        (
            vec!["matrix", "--print", "all"],
            "matrix takes summary, json, none, plan",
        ),
        (
            vec!["topology", "--print", "none"],
            "topology takes summary, json",
        ),
        (
            vec!["study", "--print", "loud"],
            "[possible values: summary, all, json, none, plan, plan:json]",
        ),
        (
            vec!["report", "--format", "json", "x"],
            "--format json: report takes text, markdown, html",
        ),
        (
            vec!["compare", "--format", "html", "a", "b"],
            "compare takes text, markdown",
        ),
        (
            vec!["gallery", "x", "--format", "html"],
            "gallery takes text, markdown, json",
        ),
        (vec!["matrix", "--mode", "cas:home=nowhere"], "unknown home"),
        (
            vec!["matrix", "--mode", "xchg:home=first"],
            "expected cas or rw",
        ),
    ] {
        assert_usage_error(&args, named);
    }
    // A folded value names the part that is wrong.
    for (args, part) in [
        (
            &["run", "--placement", "strct"][..],
            "\"strct\" is not strict, best-effort",
        ),
        (
            &["run", "--placement", "node:x"],
            "\"node:x\" is not strict",
        ),
        (
            &["run", "--writers", "4@nowhere"],
            "bad CPU spec \"nowhere\"",
        ),
        (
            &["run", "--readers", "node:0"],
            "give the readers' count (2@node:1)",
        ),
        (
            &["run", "--readers", "1@0+every:x"],
            "every:K takes a count",
        ),
        (
            &["run", "--rate", "max:poisson"],
            "flat out (max) has no arrivals",
        ),
        (
            &["run", "--rate", "22k,seed:x"],
            "seed:N takes a whole number",
        ),
        (&["run", "--repeats", "5:x"], "\"x\" is not a percentage"),
        (
            &["run", "--publish", "always,walks:2"],
            "not a fraction above 0",
        ),
        (
            &["run", "--rate", "22k,1M:poisson"],
            "one arrival process per run",
        ),
        (
            &["sweep", "--repeats", "5:2%"],
            "a sweep repeats a fixed count",
        ),
        (
            &["sweep", "--placement", "node:0"],
            "a sweep takes strict or best-effort",
        ),
        (
            &["matrix", "--pairs", "0"],
            "is not a count of pairs per class",
        ),
        (&["matrix", "--also", "cousins:2"], "is not contenders:K"),
        (
            &["matrix", "--also", "c2c:x.csv"],
            "--also c2c:FILE needs every pair",
        ),
        (
            &["spread", "--node", "1:new"],
            "is not a node (1) or a node and :old",
        ),
    ] {
        assert_usage_error(args, part);
    }
}

#[test]
fn an_unwritable_out_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "x").unwrap();
    let out = blocker.join("results");
    let out = out.to_str().unwrap();
    let named = format!("--out {out} cannot be written");
    for args in [
        vec!["run", "--out", out],
        vec!["sweep", "--out", out],
        vec!["matrix", "--out", out],
        vec!["study", "--out", out],
        vec!["predict", "--host", "same-llc=20ns", "--out", out],
    ] {
        // Exit 2 and an empty stdout: a run prints what it measured before
        // it saves, so nothing was measured.
        assert_usage_error(&args, &named);
    }
    // Nothing left behind: no folder, no probe, no temporary file.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["file"]);
    // A root that is there and writable is left as it was.
    let root = dir.path().join("fresh");
    let o = contend(&["run", "--writers", "4096", "--out", root.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!root.exists(), "a refused plan made {}", root.display());
}
