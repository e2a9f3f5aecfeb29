//! Every `contend run` option, and `contend matrix`'s `--samples`,
//! `--mode` (and its home), tie to the experiment that ran: each test runs
//! the option, reads it back from the result's `config` (or strategy), and
//! checks a behaviour only the asked-for experiment shows: how a read
//! walks the slots, where threads ran, how many operations were timed, how
//! often the shared slot was written, how far apart slots lie, where a
//! pair's line was bound. `--mode rw` shows only in the record: a hand-off
//! by loads and stores counts the same samples as a CAS.
//!
//! Options tested elsewhere: `--warmup`, `--placement oversubscribe`,
//! `--rate` and `--readers` (tests/run.rs); `--repeats N:P%` and
//! `--max-time` (tests/noise.rs); `--placement node:N` on a multi-node
//! guest (tests/guest/); `--sysfs-root` (tests/topology_fixtures.rs); the
//! matrix's `--pairs` selection (tests/matrix.rs).

use serde_json::Value;

mod common;

/// `contend COMMAND --print json --out <a temporary folder> EXTRA`; the
/// result it prints.
fn result_of(command: &str, extra: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        command,
        "--print",
        "json",
        "--out",
        dir.path().to_str().unwrap(),
    ];
    args.extend(extra);
    common::contend_json(&args)
}

/// A short run on this host with `extra` options (60 ms, one repeat, no
/// warm-up unless `extra` says otherwise); its run.json.
fn run(extra: &[&str]) -> Value {
    let mut args = Vec::new();
    for (option, default) in [
        ("--duration", "60ms"),
        ("--repeats", "1"),
        ("--warmup", "0"),
    ] {
        if !extra.contains(&option) {
            args.extend([option, default]);
        }
    }
    args.extend(extra);
    result_of("run", &args)
}

/// The CPUs this test may use when there are two or more; `None`, said on
/// stderr, on a one-CPU machine (one CPU slot: no stride, no second CPU).
fn two_cpus() -> Option<Vec<u32>> {
    let cpus = common::allowed_cpus();
    if cpus.len() < 2 {
        eprintln!("skipped: needs two allowed CPUs");
        return None;
    }
    Some(cpus)
}

/// [`run`] of global/always alone, with `extra`.
fn run_global(extra: &[&str]) -> Value {
    let mut args = vec!["--level", "global", "--publish", "always"];
    args.extend(extra);
    run(&args)
}

fn strategy<'v>(v: &'v Value, name: &str) -> &'v Value {
    v["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no strategy {name}"))
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

#[test]
fn node_iter_decides_how_a_read_walks_the_node_slots() {
    for (asked, how) in [
        (None, "compact"),
        (Some("compact"), "compact"),
        (Some("bitmap"), "bitmap"),
    ] {
        let mut args = vec!["--level", "node,cpu", "--publish", "always"];
        if let Some(a) = asked {
            args.extend(["--placement", a]);
        }
        let v = run(&args);
        assert_eq!(v["config"]["node_iter"], how, "{asked:?}");
        let nodes = v["topology"]["nodes"].as_array().unwrap();
        let ids: Vec<u64> = nodes.iter().map(|n| n["id"].as_u64().unwrap()).collect();
        let nr_node_ids = *u64s(&v["topology"]["possible_nodes"]).last().unwrap() as usize + 1;
        // compact steps over every node id; bitmap loads node-mask words:
        // one per node found (ids below 64 here), then all 16 in the
        // search past the last node.
        let want = match how {
            "compact" => nr_node_ids,
            _ => {
                assert!(ids.iter().all(|&id| id < 64), "{ids:?}");
                ids.len() + 16
            }
        };
        let node = strategy(&v, "node/always/pad128");
        assert_eq!(node["read_steps"], want, "{asked:?}");
        assert_eq!(node["exact"], true);
        // Other levels read every slot, whatever --node-iter says.
        let cpu = strategy(&v, "cpu/always/pad128");
        assert_eq!(cpu["read_steps"], cpu["slots"].as_array().unwrap().len());
    }
}

#[test]
fn level_decides_the_slots_and_whom_they_serve() {
    let v = run(&["--level", "global,llc,node,cpu", "--publish", "always"]);
    let writers = u64s(&v["config"]["writer_cpus"]);
    let topo = &v["topology"];
    let owners = |name: &str| -> Vec<String> {
        strategy(&v, name)["slots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["owner"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(owners("global/always/pad128"), ["global"]);
    // One slot per CPU, LLC and node of the host, read from the topology
    // the run recorded.
    let per = |key: &str, what: &str| -> Vec<String> {
        topo[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| format!("{what} {}", x["id"]))
            .collect()
    };
    assert_eq!(owners("cpu/always/pad128"), per("cpus", "cpu"));
    assert_eq!(owners("llc/always/pad128"), per("llcs", "llc"));
    assert_eq!(owners("node/always/pad128"), per("nodes", "node"));
    for name in ["global", "llc", "node", "cpu"] {
        let s = strategy(&v, &format!("{name}/always/pad128"));
        assert_eq!(s["strategy"]["level"], name);
        assert_eq!(
            s["repeats"][0]["writer_updates"].as_array().unwrap().len(),
            writers.len()
        );
    }
}

#[test]
fn pad_decides_how_far_apart_the_slots_lie() {
    if two_cpus().is_none() {
        return;
    }
    let v = run(&[
        "--level",
        "cpu,global,pad:128,pad:64,pad:0",
        "--publish",
        "always",
    ]);
    for (pad, bytes) in [("128", 128), ("64", 64), ("0", 8)] {
        let s = strategy(&v, &format!("cpu/always/pad{pad}"));
        assert_eq!(s["strategy"]["pad"], pad);
        // Read from the slots' addresses: all on this host's one node.
        if v["topology"]["nodes"].as_array().unwrap().len() == 1 {
            assert_eq!(s["slot_stride_bytes"], bytes, "pad {pad}");
        }
        assert_eq!(s["exact"], true);
        // One slot: no stride.
        let g = strategy(&v, &format!("global/always/pad{pad}"));
        assert!(g["slot_stride_bytes"].is_null(), "pad {pad}: {g}");
    }
}

#[test]
fn publish_policy_decides_how_often_the_shared_slot_is_written() {
    let v = run(&[
        "--level",
        "global",
        "--publish",
        "always,ratelimit:1ms,threshold:64,never",
    ]);
    let publishes = |name: &str| -> (u64, u64, f64) {
        let r = &strategy(&v, name)["repeats"][0];
        let updates: u64 = u64s(&r["writer_updates"]).iter().sum();
        (
            r["publishes"].as_u64().unwrap(),
            updates,
            r["interval_s"].as_f64().unwrap(),
        )
    };
    let writers = v["config"]["writer_cpus"].as_array().unwrap().len() as f64;
    let (p, u, _) = publishes("global/always/pad128");
    assert_eq!(p, u, "always: every update publishes");
    // At most one publish per writer per millisecond, plus the first.
    let (p, u, secs) = publishes("global/ratelimit:1ms/pad128/tsc");
    assert!(p > 0 && p < u, "ratelimit:1ms: {p} of {u}");
    assert!(
        (p as f64) <= writers * (secs / 1e-3 + 2.0),
        "ratelimit:1ms: {p} publishes in {secs} s from {writers} writers"
    );
    // The load moves at most 16 per update and publishes at |delta| >
    // load/64 >= 8: never more than every update, and far fewer.
    let (p, u, _) = publishes("global/threshold:64/pad128");
    assert!(p > 0 && p < u, "threshold:64: {p} of {u}");
    // never: the shared slot is written only by the final flush.
    let (p, u, _) = publishes("global/never/pad128");
    assert!(u > 0);
    assert!(p as f64 <= writers, "never: {p} publishes");
    for s in v["strategies"].as_array().unwrap() {
        assert_eq!(s["exact"], true, "{}", s["name"]);
    }
}

#[test]
fn writer_and_reader_cpus_pin_threads_where_asked() {
    let Some(cpus) = two_cpus() else {
        return;
    };
    let (w, r) = (cpus[1], cpus[0]);
    let (ws, rs) = (w.to_string(), r.to_string());
    let v = run_global(&[
        "--writers",
        &format!("1@{ws}"),
        "--readers",
        &format!("1@{rs}"),
    ]);
    assert_eq!(u64s(&v["config"]["writer_cpus"]), [u64::from(w)]);
    assert_eq!(u64s(&v["config"]["reader_cpus"]), [u64::from(r)]);
    let threads = strategy(&v, "global/always/pad128")["threads"]
        .as_array()
        .unwrap();
    let observed = |role: &str| -> Vec<u64> {
        threads
            .iter()
            .filter(|t| t["role"] == role)
            .map(|t| t["observed_cpu"].as_u64().unwrap())
            .collect()
    };
    // sched_getcpu on each thread, recorded by the run.
    assert_eq!(observed("writer"), [u64::from(w)]);
    assert_eq!(observed("reader"), [u64::from(r)]);
    let rep = &strategy(&v, "global/always/pad128")["repeats"][0];
    let reads = u64s(&rep["reader_reads"])[0];
    assert!(reads > 0);
    // Read fetches, per thread: a reader writes nothing, so the lone
    // writer's reads always find what its adds left; the reader's find
    // the writer's adds, at most one fetch per read and per publish (one
    // more: a publish late in warm-up, found by the interval's first read).
    assert_eq!(u64s(&rep["writer_read_fetches"]), [0]);
    let fetched = u64s(&rep["reader_read_fetches"])[0];
    let publishes = rep["publishes"].as_u64().unwrap();
    assert!(
        fetched > 0 && fetched <= reads.min(publishes + 1),
        "{fetched} fetches, {reads} reads, {publishes} publishes"
    );
}

#[test]
fn read_every_sets_the_updates_per_writer_read() {
    for k in [1u64, 4, 0] {
        let v = run_global(&["--readers", &format!("every:{k}")]);
        assert_eq!(v["config"]["read_every"], k);
        let r = &strategy(&v, "global/always/pad128")["repeats"][0];
        let updates = u64s(&r["writer_updates"]);
        let reads = u64s(&r["writer_reads"]);
        for (u, &n) in updates.iter().zip(&reads) {
            match u.checked_div(k) {
                None => assert_eq!(n, 0, "every:0 reads nothing"),
                // The countdown runs across the start of the window, so a
                // writer is off by at most one read.
                Some(want) => assert!(
                    want <= n + 1 && n <= want + 1,
                    "k {k}: {n} reads, {u} updates"
                ),
            }
        }
    }
}

#[test]
fn sample_every_sets_how_many_operations_are_timed() {
    for (asked, every) in [("64", 64u64), ("100", 128), ("0", 0)] {
        let v = run_global(&["--rate", &format!("sample:{asked}")]);
        assert_eq!(v["config"]["sample_every"], every, "sample:{asked}");
        assert_eq!(v["config"]["staleness_probes"], every != 0);
        let r = &strategy(&v, "global/always/pad128")["repeats"][0];
        let updates = u64s(&r["writer_updates"]);
        if every == 0 {
            assert!(r["write_latency"].is_null(), "{}", r["write_latency"]);
            continue;
        }
        // One update in `every` is timed: update n is sampled when
        // n % every == 0, counted from the start of the window.
        let want: u64 = updates.iter().map(|u| u / every).sum();
        let got = r["write_latency"]["samples"].as_u64().unwrap();
        let slack = updates.len() as u64;
        assert!(
            got + slack >= want && got <= want + slack,
            "sample:{asked}: {got} samples, {want} expected"
        );
    }
}

#[test]
fn duration_and_repeats_shape_the_measurement() {
    let v = run_global(&["--duration", "90ms", "--repeats", "3"]);
    // --duration is the measured time per strategy, split over the repeats.
    assert_eq!(v["config"]["repeat_duration_s"], 0.03);
    assert_eq!(v["config"]["repeats"], 3);
    let repeats = strategy(&v, "global/always/pad128")["repeats"]
        .as_array()
        .unwrap();
    assert_eq!(repeats.len(), 3);
    for r in repeats {
        // Each thread's interval runs from when it sees the measuring
        // phase to when it sees the stop: 30 ms, less a late start on a
        // loaded machine, plus a late stop; far from the default's 333 ms.
        let secs = r["interval_s"].as_f64().unwrap();
        assert!(
            (0.015..0.2).contains(&secs),
            "interval {secs} s for 90ms / 3"
        );
    }
}

#[test]
fn counter_node_binds_every_slot_there() {
    let node = highest_memory_node();
    let ns = node.to_string();
    let v = run(&[
        "--level",
        "cpu",
        "--publish",
        "always",
        "--placement",
        &format!("node:{ns}"),
    ]);
    assert_eq!(v["config"]["counter_node"], node);
    for slot in strategy(&v, "cpu/always/pad128")["slots"]
        .as_array()
        .unwrap()
    {
        // move_pages said where the page is.
        assert_eq!(slot["node"], node, "{slot}");
        assert_eq!(slot["check"]["status"], "verified", "{slot}");
        assert_eq!(slot["check"]["node"], node, "{slot}");
    }
}

/// The highest node with memory on this host (node 0 on a one-node box).
fn highest_memory_node() -> u64 {
    let v = run_global(&["--duration", "10ms"]);
    v["topology"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["has_memory"] == true)
        .map(|n| n["id"].as_u64().unwrap())
        .max()
        .unwrap()
}

#[test]
fn seed_is_recorded_and_the_sum_stays_exact() {
    // What the seed changes (the load table) is checked in workload/load.rs;
    // the per-writer table is not visible in run.json, so here only the
    // record and the invariants a seed must not break.
    let v = run_global(&["--rate", "seed:7"]);
    assert_eq!(v["config"]["seed"], 7);
    // Every final load lies in the walk's bounds, 512..=4096.
    let r = &strategy(&v, "global/always/pad128")["repeats"][0];
    let writers = r["writer_updates"].as_array().unwrap().len() as i64;
    let sum = r["final_sum"].as_i64().unwrap();
    assert!((512 * writers..=4096 * writers).contains(&sum), "{sum}");
    assert_eq!(r["final_sum"], r["expected_sum"]);
}

/// A `contend matrix` on this host with `extra`; its matrix.json.
fn matrix(extra: &[&str]) -> Value {
    result_of("matrix", extra)
}

#[test]
fn matrix_samples_mode_and_home_are_the_ones_measured() {
    if two_cpus().is_none() {
        return;
    }
    let node = highest_memory_node();
    let home = format!("node:{node}");
    let mode = format!("rw:home={home}");
    let v = matrix(&["--samples", "30", "--mode", &mode]);
    assert_eq!(v["config"]["samples"], 30);
    assert_eq!(v["config"]["mode"], "rw");
    assert_eq!(v["config"]["home"], home);
    let pairs = v["pairs"].as_array().unwrap();
    assert!(!pairs.is_empty());
    for p in pairs {
        // Every direction timed --samples times; every pair's line bound
        // to the node asked, as move_pages saw it.
        assert_eq!(p["forward"]["samples"], 30, "{p}");
        assert_eq!(p["backward"]["samples"], 30, "{p}");
        assert_eq!(p["home_node"], node, "{p}");
        assert_eq!(p["line"]["status"], "verified", "{p}");
        assert_eq!(p["line"]["node"], node, "{p}");
    }
    // The default is a CAS ping-pong with 200 samples per direction.
    let v = matrix(&[]);
    assert_eq!(v["config"]["mode"], "cas");
    assert_eq!(v["pairs"][0]["forward"]["samples"], 200);
}

#[test]
fn inject_adds_its_cost_to_every_update_and_not_to_the_floors() {
    // 2 µs a paced update (far above this host's noise): the net cost,
    // busy time less the floor's in place, carries it; the floor's own
    // busy time and the harness floor do not; the price on the harness
    // floor is recorded beside the calibration.
    let v = run_global(&[
        "--rate",
        "max,22k",
        "--inject",
        "2us",
        "--duration",
        "200ms",
    ]);
    let inject = &v["config"]["inject"];
    assert_eq!(inject["ns"], 2000.0);
    let per = inject["ns_per_iteration"].as_f64().unwrap();
    let iterations = inject["iterations"].as_u64().unwrap();
    assert_eq!(iterations, (2000.0 / per).round() as u64, "{inject}");
    // (A loaded machine or a debug build stretches it; it is there.)
    let on_floor = inject["on_floor"]["mean"].as_f64().unwrap();
    assert!(on_floor > 500.0, "{inject}");
    let paced = v["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["rate"] == 22000.0)
        .unwrap();
    let net = paced["summary"]["net_ns"]["mean"].as_f64().unwrap();
    let floor = paced["summary"]["floor_busy_ns"]["mean"].as_f64().unwrap();
    assert!(net > 1000.0, "net {net} ns: the delay is not in the window");
    assert!(
        floor < 1000.0,
        "floor {floor} ns: the floor carries the delay"
    );
    assert!(v["floor"]["loop_ns"]["mean"].as_f64().unwrap() < 1000.0);
    // Without it, nothing is recorded.
    assert!(
        run_global(&[])
            .get("config")
            .unwrap()
            .get("inject")
            .is_none()
    );
}
