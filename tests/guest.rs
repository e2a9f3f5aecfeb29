//! NUMA placement on a real multi-node kernel: `contend` run inside QEMU guests booted by
//! `scripts/numa-vm.sh` (TCG, about 5 s a boot).
//!
//! Every test is ignored by default so that `cargo test` stays fast; CI runs
//!
//!     cargo test --release --test guest -- --ignored --test-threads=1
//!
//! Nothing here skips: a missing script, QEMU, busybox or kernel makes the test fail with
//! the script's message. Boots are few: each guest runs a batch of `contend` commands,
//! and each guest (2 nodes; 4 nodes with a memory-only one) is booted once and shared by
//! the tests that use it: topology, `verify`, `spread` and short `run`s whose placement
//! and exactness (never timings: TCG) are checked. Inside the guest every command's
//! stdout, stderr and exit status are captured separately (the serial console would merge
//! them) and framed by markers that are split apart here.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use serde_json::Value;

/// What one `contend` invocation did inside the guest.
#[derive(Debug)]
struct Run {
    args: Vec<String>,
    stdout: String,
    stderr: String,
    code: i32,
}

impl Run {
    /// Exit 0 and stdout parsed as JSON.
    fn json(&self) -> Value {
        assert_eq!(
            self.code, 0,
            "contend {:?} exited {} in the guest; stderr: {}",
            self.args, self.code, self.stderr
        );
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "contend {:?}: stdout is not JSON ({e}):\n{}",
                self.args, self.stdout
            )
        })
    }

    /// Exit 2, nothing on stdout, and exactly one `contend: error:` line on stderr
    /// containing every needle.
    fn assert_usage_error(&self, needles: &[&str]) {
        assert_eq!(
            self.code, 2,
            "contend {:?}: want exit 2; stdout: {} stderr: {}",
            self.args, self.stdout, self.stderr
        );
        assert_eq!(self.stdout, "", "contend {:?}: stdout not empty", self.args);
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert_eq!(
            lines.len(),
            1,
            "contend {:?}: want one stderr line, got {:?}",
            self.args,
            self.stderr
        );
        assert!(
            lines[0].starts_with("contend: error: "),
            "contend {:?}: {:?}",
            self.args,
            lines[0]
        );
        for needle in needles {
            assert!(
                lines[0].contains(needle),
                "contend {:?}: {:?} does not mention {needle:?}",
                self.args,
                lines[0]
            );
        }
    }
}

/// Quote for the guest's `/bin/sh`.
fn sq(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

const DONE: &str = "@@CONTEND-GUEST-DONE@@";

fn cmd_mark(i: usize) -> String {
    format!("@@CONTEND-GUEST-CMD {i}@@\n")
}
// The two markers after each output start with a newline so that output without a final
// newline is still split exactly: the text between markers is the output plus one "\n".
fn err_mark(i: usize) -> String {
    format!("\n@@CONTEND-GUEST-STDERR {i}@@\n")
}
fn rc_mark(i: usize) -> String {
    format!("\n@@CONTEND-GUEST-RC {i}=")
}

/// Boot one guest with `vm_args` (numa-vm.sh layout options) and run every command in
/// `commands` (arguments to `contend`) in it, in order. Panics unless the guest ran all.
fn boot(vm_args: &[&str], commands: &[&[&str]]) -> Vec<Run> {
    let root = env!("CARGO_MANIFEST_DIR");
    let script = Path::new(root).join("scripts/numa-vm.sh");
    assert!(
        script.is_file(),
        "{} is missing: the guest tests cannot run",
        script.display()
    );

    let mut sh = String::new();
    for (i, args) in commands.iter().enumerate() {
        let quoted: Vec<String> = args.iter().map(|a| sq(a)).collect();
        sh.push_str(&format!(
            "contend {} >/tmp/out 2>/tmp/err; rc=$?\n\
             printf '{}'; cat /tmp/out; printf '{}'; cat /tmp/err; printf '{}%d@@\\n' \"$rc\"\n",
            quoted.join(" "),
            cmd_mark(i).replace('\n', "\\n"),
            err_mark(i).replace('\n', "\\n"),
            rc_mark(i).replace('\n', "\\n"),
        ));
    }
    sh.push_str(&format!("echo {DONE}\n"));

    let start = Instant::now();
    let out = Command::new(&script)
        .args(vm_args)
        .args([
            "--timeout",
            "150",
            "--binary",
            env!("CARGO_BIN_EXE_contend"),
        ])
        .args(["--", "sh", "-c", &sh])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!(
        "numa-vm.sh {}: {:.1} s",
        vm_args.join(" "),
        start.elapsed().as_secs_f64()
    );

    let why = match out.status.code() {
        Some(0) => "",
        Some(2) => {
            " (usage or host setup error: qemu, busybox-static, cpio or the kernel missing?)"
        }
        Some(124) => " (timed out)",
        Some(125) => " (the guest never reported an exit status)",
        _ => "",
    };
    assert!(
        out.status.success() && stdout.contains(DONE),
        "numa-vm.sh {vm_args:?} failed: {}{why}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );

    commands
        .iter()
        .enumerate()
        .map(|(i, args)| {
            let section = |from: &str, to: &str, after: usize| -> (String, usize) {
                let s = stdout[after..]
                    .find(from)
                    .map(|p| after + p + from.len())
                    .unwrap_or_else(|| panic!("marker {from:?} missing in\n{stdout}"));
                let e = stdout[s..]
                    .find(to)
                    .map(|p| s + p)
                    .unwrap_or_else(|| panic!("marker {to:?} missing in\n{stdout}"));
                (stdout[s..e].to_string(), e)
            };
            let (out_text, e) = section(&cmd_mark(i), &err_mark(i), 0);
            let (err_text, e) = section(&err_mark(i), &rc_mark(i), e);
            let (rc_text, _) = section(&rc_mark(i), "@@", e);
            // Each section ends with the newline its closing marker put there.
            let strip = |s: String| s.strip_suffix('\n').map(str::to_string).unwrap_or(s);
            Run {
                args: args.iter().map(|a| a.to_string()).collect(),
                stdout: strip(out_text),
                stderr: strip(err_text),
                code: rc_text
                    .parse()
                    .unwrap_or_else(|_| panic!("bad exit status {rc_text:?} for {args:?}")),
            }
        })
        .collect()
}

fn u32s(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_u64().unwrap_or_else(|| panic!("not a u32: {x}")) as u32)
        .collect()
}

/// `topology --json` describes exactly the given nodes (CPUs per node, has_memory all
/// true) and distance matrix, and the per-CPU records agree with the node lists.
fn assert_topology(t: &Value, node_cpus: &[&[u32]], distances: &[&[u32]]) {
    let nodes = t["nodes"].as_array().expect("nodes");
    let ids: Vec<u32> = nodes
        .iter()
        .map(|n| n["id"].as_u64().unwrap() as u32)
        .collect();
    let want_ids: Vec<u32> = (0..node_cpus.len() as u32).collect();
    assert_eq!(ids, want_ids, "node ids: {t}");
    for (n, want) in nodes.iter().zip(node_cpus) {
        assert_eq!(u32s(&n["cpus"]), *want, "cpus of node {}", n["id"]);
        assert_eq!(
            n["has_cpu"],
            !want.is_empty(),
            "has_cpu of node {}",
            n["id"]
        );
        assert_eq!(n["has_memory"], true, "has_memory of node {}", n["id"]);
    }
    let got: Vec<Vec<u32>> = t["distances"]
        .as_array()
        .expect("distances")
        .iter()
        .map(u32s)
        .collect();
    let want: Vec<Vec<u32>> = distances.iter().map(|r| r.to_vec()).collect();
    assert_eq!(got, want, "distance matrix");

    let all_cpus: Vec<u32> = (0..node_cpus.iter().map(|c| c.len()).sum::<usize>() as u32).collect();
    assert_eq!(u32s(&t["online_cpus"]), all_cpus, "online_cpus");
    assert_eq!(u32s(&t["allowed_cpus"]), all_cpus, "allowed_cpus");
    assert_eq!(u32s(&t["possible_nodes"]), want_ids, "possible_nodes");
    assert_eq!(u32s(&t["allowed_mems"]), want_ids, "allowed_mems");
    let cpus = t["cpus"].as_array().expect("cpus");
    assert_eq!(cpus.len(), all_cpus.len(), "cpus records");
    for c in cpus {
        let id = c["id"].as_u64().unwrap() as u32;
        let node = c["node"].as_u64().unwrap() as usize;
        assert!(
            node_cpus.get(node).is_some_and(|l| l.contains(&id)),
            "cpu {id} claims node {node}"
        );
    }
}

/// `verify --json` pinned exactly `cpus` (each observed where requested) and bound memory
/// to exactly `nodes` (every page seen on its node by move_pages), strictly.
fn assert_verified(v: &Value, cpus: &[u32], nodes: &[u32]) {
    assert_eq!(v["placement"], "strict");
    let threads = v["threads"].as_array().expect("threads");
    let requested: Vec<u32> = threads
        .iter()
        .map(|t| t["requested_cpu"].as_u64().unwrap() as u32)
        .collect();
    assert_eq!(requested, cpus, "threads: {v}");
    for t in threads {
        assert_eq!(t["verified"], true, "thread {t}");
        assert_eq!(t["observed_cpu"], t["requested_cpu"], "thread {t}");
    }
    let memory = v["memory"].as_array().expect("memory");
    let requested: Vec<u32> = memory
        .iter()
        .map(|m| m["requested_node"].as_u64().unwrap() as u32)
        .collect();
    assert_eq!(requested, nodes, "memory: {v}");
    for m in memory {
        let node = &m["requested_node"];
        assert_eq!(m["check"]["status"], "verified", "memory {m}");
        assert_eq!(&m["check"]["node"], node, "memory {m}");
        let pages = m["page_nodes"].as_array().expect("page_nodes");
        assert!(!pages.is_empty(), "memory {m}");
        assert_eq!(m["pages"].as_u64(), Some(pages.len() as u64), "memory {m}");
        for p in pages {
            assert_eq!(p, node, "a page off its node: {m}");
        }
    }
}

/// `run --json` finished cleanly: not partial, exactly the strategies `names` (in
/// order), each with at least one repeat, every repeat's final sum equal to the expected
/// one and flagged exact, and the strategy flagged exact.
fn assert_run_ok(r: &Value, names: &[&str]) {
    assert_eq!(r["partial"], false, "partial run");
    let strategies = r["strategies"].as_array().expect("strategies");
    let got: Vec<&str> = strategies
        .iter()
        .map(|s| s["name"].as_str().expect("strategy name"))
        .collect();
    assert_eq!(got, names, "strategies");
    for s in strategies {
        let name = &s["name"];
        let repeats = s["repeats"].as_array().expect("repeats");
        assert!(!repeats.is_empty(), "{name}: no repeats");
        for rep in repeats {
            let sum = rep["final_sum"].as_i64().expect("final_sum");
            let want = rep["expected_sum"].as_i64().expect("expected_sum");
            assert_eq!(sum, want, "{name}: final sum wrong: {rep}");
            assert_eq!(rep["exact"], true, "{name}: {rep}");
        }
        assert_eq!(s["exact"], true, "{name}: not exact");
    }
}

/// The strategy called `name` in `run --json` output.
fn strategy<'a>(r: &'a Value, name: &str) -> &'a Value {
    let strategies = r["strategies"].as_array().expect("strategies");
    strategies
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| {
            let names: Vec<&Value> = strategies.iter().map(|s| &s["name"]).collect();
            panic!("no strategy {name:?} among {names:?}")
        })
}

/// The strategy's counter slots are exactly `want` (owner, node), in any order, and
/// `move_pages` saw each one on its node.
fn assert_slots(s: &Value, want: &[(&str, u32)]) {
    let name = &s["name"];
    let slots = s["slots"].as_array().expect("slots");
    let mut got: Vec<(String, u32)> = slots
        .iter()
        .map(|slot| {
            let owner = slot["owner"].as_str().expect("owner").to_string();
            let node = slot["node"].as_u64().expect("slot node") as u32;
            assert_eq!(
                slot["check"]["status"], "verified",
                "{name}: slot {slot} not verified"
            );
            assert_eq!(
                slot["check"]["node"], node,
                "{name}: slot {slot} seen off its node"
            );
            (owner, node)
        })
        .collect();
    let mut want: Vec<(String, u32)> = want.iter().map(|&(o, n)| (o.to_string(), n)).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want, "{name}: slots");
}

/// The strategy ran writers on exactly `cpus` (in that order) and no readers; each was
/// observed on its CPU, on `node_of(cpu)`, and published to a slot on `slot_node(cpu)`.
fn assert_writers(
    s: &Value,
    cpus: &[u32],
    node_of: impl Fn(u32) -> u32,
    slot_node: impl Fn(u32) -> u32,
) {
    let name = &s["name"];
    let threads = s["threads"].as_array().expect("threads");
    let got: Vec<(&str, u32)> = threads
        .iter()
        .map(|t| {
            (
                t["role"].as_str().expect("role"),
                t["cpu"].as_u64().expect("cpu") as u32,
            )
        })
        .collect();
    let want: Vec<(&str, u32)> = cpus.iter().map(|&c| ("writer", c)).collect();
    assert_eq!(got, want, "{name}: threads");
    for t in threads {
        let cpu = t["cpu"].as_u64().unwrap() as u32;
        assert_eq!(t["verified"], true, "{name}: thread {t}");
        assert_eq!(t["observed_cpu"], cpu, "{name}: thread {t}");
        assert_eq!(t["node"], node_of(cpu), "{name}: thread {t}");
        assert_eq!(t["slot_node"], slot_node(cpu), "{name}: thread {t}");
    }
}

// ---- 2 nodes × 2 CPUs, booted once for the tests below ----------------------------------

const TWO_NODE_VM: &[&str] = &[
    "--nodes",
    "2",
    "--cpus-per-node",
    "2",
    "--distances",
    "10,21;21,10",
];
const TWO_NODE_CMDS: &[&[&str]] = &[
    &["topology", "--json"],
    &["verify", "--json", "--cpus", "node:1", "--nodes", "1"],
    &["verify", "--json"],
    &["verify", "--json", "--cpus", "all", "--nodes", "0-1"],
    &["verify", "--nodes", "7"],
    &["verify", "--cpus", "node:7"],
    // 6: every CPU writes; node, CPU and global slots, each on its own (or the first
    // writer's) node.
    &[
        "run",
        "--json",
        "--rate",
        "max",
        "--level",
        "node,cpu,global",
        "--publish",
        "always",
        "--duration",
        "40ms",
        "--repeats",
        "1",
        "--warmup",
        "0",
        "--out",
        "/tmp/r",
    ],
    // 7: the global counter forced onto node 1, written from both nodes.
    &[
        "run",
        "--json",
        "--rate",
        "max",
        "--level",
        "global",
        "--publish",
        "always,ratelimit:1ms",
        "--counter-node",
        "1",
        "--duration",
        "40ms",
        "--repeats",
        "1",
        "--warmup",
        "0",
        "--out",
        "/tmp/r",
    ],
    // 8
    &[
        "run",
        "--counter-node",
        "7",
        "--duration",
        "40ms",
        "--repeats",
        "1",
        "--warmup",
        "0",
        "--out",
        "/tmp/r",
    ],
];

fn two_node() -> &'static [Run] {
    static RUNS: OnceLock<Vec<Run>> = OnceLock::new();
    RUNS.get_or_init(|| boot(TWO_NODE_VM, TWO_NODE_CMDS))
}

#[test]
#[ignore = "boots a QEMU guest: run with --ignored (see .ci/run)"]
fn two_node_guest_topology_and_placement() {
    let runs = two_node();
    assert_topology(
        &runs[0].json(),
        &[&[0, 1], &[2, 3]],
        &[&[10, 21], &[21, 10]],
    );
    // CPUs of node 1 only, memory on node 1 only.
    assert_verified(&runs[1].json(), &[2, 3], &[1]);
    // The defaults: every CPU, every node with memory; and the same spelled out.
    assert_verified(&runs[2].json(), &[0, 1, 2, 3], &[0, 1]);
    assert_verified(&runs[3].json(), &[0, 1, 2, 3], &[0, 1]);
}

#[test]
#[ignore = "boots a QEMU guest: run with --ignored (see .ci/run)"]
fn two_node_guest_refuses_unknown_nodes() {
    let runs = two_node();
    runs[4].assert_usage_error(&["node 7 does not exist"]);
    runs[5].assert_usage_error(&["node 7 does not exist", "node:7"]);
    runs[8].assert_usage_error(&["--counter-node", "node 7"]);
}

/// Node of each CPU in the 2-node guest.
fn two_node_cpu_node(cpu: u32) -> u32 {
    match cpu {
        0 | 1 => 0,
        2 | 3 => 1,
        _ => panic!("the 2-node guest has no CPU {cpu}"),
    }
}

#[test]
#[ignore = "boots a QEMU guest: run with --ignored (see .ci/run)"]
fn two_node_guest_run_places_slots_and_writers() {
    let runs = two_node();

    // Default slot placement: node and CPU slots on their own node, the global one on
    // the node of the first writer (CPU 0, node 0).
    let r = runs[6].json();
    assert_run_ok(
        &r,
        &[
            "node/always/pad128",
            "cpu/always/pad128",
            "global/always/pad128",
        ],
    );
    assert_eq!(
        u32s(&r["config"]["writer_cpus"]),
        [0, 1, 2, 3],
        "writer_cpus"
    );
    assert_eq!(r["config"]["counter_node"], Value::Null, "counter_node");

    let s = strategy(&r, "node/always/pad128");
    assert_slots(s, &[("node 0", 0), ("node 1", 1)]);
    assert_writers(s, &[0, 1, 2, 3], two_node_cpu_node, two_node_cpu_node);

    let s = strategy(&r, "cpu/always/pad128");
    assert_slots(s, &[("cpu 0", 0), ("cpu 1", 0), ("cpu 2", 1), ("cpu 3", 1)]);
    assert_writers(s, &[0, 1, 2, 3], two_node_cpu_node, two_node_cpu_node);

    let s = strategy(&r, "global/always/pad128");
    assert_slots(s, &[("global", 0)]);
    assert_writers(s, &[0, 1, 2, 3], two_node_cpu_node, |_| 0);

    // --counter-node 1: the one slot lives on node 1 for every policy, so the writers on
    // CPUs 0 and 1 (node 0) publish across the interconnect.
    let r = runs[7].json();
    let names = ["global/always/pad128", "global/ratelimit:1ms/pad128/tsc"];
    assert_run_ok(&r, &names);
    assert_eq!(r["config"]["counter_node"], 1, "counter_node");
    for name in names {
        let s = strategy(&r, name);
        assert_slots(s, &[("global", 1)]);
        assert_writers(s, &[0, 1, 2, 3], two_node_cpu_node, |_| 1);
    }
}

// ---- 4 nodes, node 3 memory-only, asymmetric distances, booted once ----------------------

// The memory-only node is listed last so that the guest keeps the ids (Linux numbers
// memory-only nodes after the nodes with CPUs).
const FOUR_NODE_VM: &[&str] = &[
    "--nodes",
    "4",
    "--cpus-per-node",
    "1,1,2,0",
    "--distances",
    "10,20,30,40;25,10,35,45;30,30,10,40;45,40,40,10",
];
const FOUR_NODE_CPUS: &[&[u32]] = &[&[0], &[1], &[2, 3], &[]];
const FOUR_NODE_DISTANCES: &[&[u32]] = &[
    &[10, 20, 30, 40],
    &[25, 10, 35, 45],
    &[30, 30, 10, 40],
    &[45, 40, 40, 10],
];
const FOUR_NODE_CMDS: &[&[&str]] = &[
    &["topology", "--json"],
    &[
        "verify", "--json", "--cpus", "0", "--nodes", "3", "--pages", "16",
    ],
    &["verify", "--json", "--cpus", "node:2", "--nodes", "0-3"],
    &["verify", "--cpus", "node:3"],
    // 4..=7: the v6.3 hop order from every node.
    &["spread", "--node", "0", "--json"],
    &["spread", "--node", "1", "--json"],
    &["spread", "--node", "2", "--json"],
    &["spread", "--node", "3", "--json"],
    // 8, 9: the pre-v6.3 order.
    &["spread", "--node", "0", "--old", "--json"],
    &["spread", "--node", "3", "--old", "--json"],
    // 10: two writers placed as cpumask_local_spread(0..2, 1) would place them.
    &[
        "run",
        "--json",
        "--rate",
        "max",
        "--level",
        "node",
        "--publish",
        "always",
        "--writers",
        "2",
        "--writer-cpus",
        "local-spread:1",
        "--duration",
        "40ms",
        "--repeats",
        "1",
        "--warmup",
        "0",
        "--out",
        "/tmp/r",
    ],
];

fn four_node() -> &'static [Run] {
    static RUNS: OnceLock<Vec<Run>> = OnceLock::new();
    RUNS.get_or_init(|| boot(FOUR_NODE_VM, FOUR_NODE_CMDS))
}

/// Node of each CPU in the 4-node guest.
fn four_node_cpu_node(cpu: u32) -> u32 {
    FOUR_NODE_CPUS
        .iter()
        .position(|cpus| cpus.contains(&cpu))
        .unwrap_or_else(|| panic!("the 4-node guest has no CPU {cpu}")) as u32
}

#[test]
#[ignore = "boots a QEMU guest: run with --ignored (see .ci/run)"]
fn four_node_guest_with_memory_only_node() {
    let runs = four_node();
    let t = runs[0].json();
    assert_topology(&t, FOUR_NODE_CPUS, FOUR_NODE_DISTANCES);
    assert_eq!(t["nodes"][3]["has_cpu"], false);
    assert_eq!(t["nodes"][3]["has_memory"], true);

    // Memory bound to the CPU-less node, from a thread on node 0.
    let v = runs[1].json();
    assert_verified(&v, &[0], &[3]);
    assert_eq!(v["memory"][0]["pages"], 16);
    // Both CPUs of node 2, memory on all four nodes.
    assert_verified(&runs[2].json(), &[2, 3], &[0, 1, 2, 3]);
    // No CPU to pin to on node 3.
    runs[3].assert_usage_error(&["node:3", "no allowed CPU"]);
}

/// The kernel's NUMA hops from `node` (BACKGROUND.md, "NUMA hop order"), modelled
/// independently of contend: (source node, one (distance, CPUs added) per level).
fn model_hops(node_cpus: &[&[u32]], dist: &[&[u32]], node: usize) -> (usize, Vec<(u32, Vec<u32>)>) {
    let cpu_nodes: Vec<usize> = (0..node_cpus.len())
        .filter(|&n| !node_cpus[n].is_empty())
        .collect();
    // A CPU-less node spreads from its nearest CPU node, by its own row; ties to the
    // lowest id (strict < while scanning upward).
    let source = if node_cpus[node].is_empty() {
        let mut best = cpu_nodes[0];
        for &k in &cpu_nodes {
            if dist[node][k] < dist[node][best] {
                best = k;
            }
        }
        best
    } else {
        node
    };
    // levels: the sorted unique distances among CPU-bearing nodes.
    let mut levels: Vec<u32> = cpu_nodes
        .iter()
        .flat_map(|&a| cpu_nodes.iter().map(move |&b| dist[a][b]))
        .collect();
    levels.sort_unstable();
    levels.dedup();
    let mut seen: Vec<u32> = Vec::new();
    let hops = levels
        .iter()
        .map(|&level| {
            let mut added: Vec<u32> = cpu_nodes
                .iter()
                .filter(|&&k| dist[source][k] <= level)
                .flat_map(|&k| node_cpus[k].iter().copied())
                .filter(|c| !seen.contains(c))
                .collect();
            added.sort_unstable();
            seen.extend(&added);
            (level, added)
        })
        .collect();
    (source, hops)
}

#[test]
#[ignore = "boots a QEMU guest: run with --ignored (see .ci/run)"]
fn four_node_guest_spread_follows_numa_hops() {
    // By hand, from FOUR_NODE_CPUS and FOUR_NODE_DISTANCES. Levels = unique distances
    // among the CPU nodes 0-2 = {10, 20, 25, 30, 35}. Rows, not columns, are read:
    //   node 0, row 10,20,30 (to nodes 0,1,2): 0 | 1 | - | 2 3 | -
    //   node 1, row 25,10,35: 1 | - | 0 | - | 2 3
    //   node 2, row 30,30,10: 2 3 | - | - | 0 1 | -
    //   node 3 (no CPUs), row 45,40,40: nodes 1 and 2 tie at 40, the lower id wins,
    //   so it spreads as node 1.
    // (Columns would give node 0 hops at 10/25/30 and node 3 would pick node 0.)
    // (source node, order, one (distance, CPUs added) per level), for nodes 0..=3.
    type Want = (u32, &'static [u32], &'static [(u32, &'static [u32])]);
    let want: [Want; 4] = [
        (
            0,
            &[0, 1, 2, 3],
            &[(10, &[0]), (20, &[1]), (25, &[]), (30, &[2, 3]), (35, &[])],
        ),
        (
            1,
            &[1, 0, 2, 3],
            &[(10, &[1]), (20, &[]), (25, &[0]), (30, &[]), (35, &[2, 3])],
        ),
        (
            2,
            &[2, 3, 0, 1],
            &[
                (10, &[2, 3]),
                (20, &[]),
                (25, &[]),
                (30, &[0, 1]),
                (35, &[]),
            ],
        ),
        (
            1,
            &[1, 0, 2, 3],
            &[(10, &[1]), (20, &[]), (25, &[0]), (30, &[]), (35, &[2, 3])],
        ),
    ];
    let runs = four_node();
    for (node, &(source, order, hops)) in want.iter().enumerate() {
        let hops: Vec<(u32, Vec<u32>)> = hops.iter().map(|&(d, c)| (d, c.to_vec())).collect();
        // The hand computation and the model of the rules agree.
        assert_eq!(
            model_hops(FOUR_NODE_CPUS, FOUR_NODE_DISTANCES, node),
            (source as usize, hops.clone()),
            "hand-computed hops of node {node}"
        );
        let flat: Vec<u32> = hops.iter().flat_map(|(_, c)| c.iter().copied()).collect();
        assert_eq!(flat, order, "hand-computed order of node {node}");

        let s = runs[4 + node].json();
        assert_eq!(s["node"], node, "spread --node {node}: {s}");
        assert_eq!(s["algorithm"], "hops", "spread --node {node}: {s}");
        assert_eq!(s["source_node"], source, "spread --node {node}: {s}");
        assert_eq!(u32s(&s["order"]), order, "spread --node {node}: order");
        let got: Vec<(u32, Vec<u32>)> = s["hops"]
            .as_array()
            .expect("hops")
            .iter()
            .map(|h| {
                (
                    h["distance"].as_u64().expect("distance") as u32,
                    u32s(&h["cpus"]),
                )
            })
            .collect();
        assert_eq!(got, hops, "spread --node {node}: hops");
    }

    // Before v6.3: the node's own CPUs, then the rest by id. Node 0 owns CPU 0; node 3
    // owns none, so its old order is every CPU by id (unlike its hop order 1 0 2 3).
    for (run, node, order) in [(&runs[8], 0, [0, 1, 2, 3]), (&runs[9], 3, [0, 1, 2, 3])] {
        let s = run.json();
        assert_eq!(s["node"], node, "spread --node {node} --old: {s}");
        assert_eq!(s["algorithm"], "old", "spread --node {node} --old: {s}");
        assert_eq!(
            u32s(&s["order"]),
            order,
            "spread --node {node} --old: order"
        );
    }
}

#[test]
#[ignore = "boots a QEMU guest: run with --ignored (see .ci/run)"]
fn four_node_guest_run_local_spread_writers() {
    let runs = four_node();
    // The writers take the first two CPUs of node 1's hop order.
    let order = u32s(&runs[5].json()["order"]);
    assert_eq!(order[..2], [1, 0], "spread --node 1");
    let r = runs[10].json();
    assert_run_ok(&r, &["node/always/pad128"]);
    assert_eq!(u32s(&r["config"]["writer_cpus"]), order[..2], "writer_cpus");
    let s = strategy(&r, "node/always/pad128");
    // One slot per node, the memory-only node 3 included, each on its own node.
    assert_slots(
        s,
        &[("node 0", 0), ("node 1", 1), ("node 2", 2), ("node 3", 3)],
    );
    assert_writers(s, &order[..2], four_node_cpu_node, four_node_cpu_node);
}
