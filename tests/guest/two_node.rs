//! 2 nodes × 2 CPUs (distances 10/21), booted once and shared by the tests below.

use std::sync::OnceLock;

use serde_json::Value;

use crate::checks::{
    assert_run_ok, assert_slots, assert_topology, assert_verified, assert_writers, strategy, u32s,
};
use crate::vm::{Batch, Run, boot, booted};

const TWO_NODE_VM: &[&str] = &[
    "--nodes",
    "2",
    "--cpus-per-node",
    "2",
    "--distances",
    "10,21;21,10",
];
const TWO_NODE_CMDS: &[&[&str]] = &[
    &["topology", "--print", "json"],
    &[
        "verify", "--print", "json", "--cpus", "node:1", "--nodes", "1",
    ],
    &["verify", "--print", "json"],
    &[
        "verify", "--print", "json", "--cpus", "all", "--nodes", "0-1",
    ],
    &["verify", "--nodes", "7"],
    &["verify", "--cpus", "node:7"],
    // 6: every CPU writes; node, CPU and global slots, each on its own (or the first
    // writer's) node.
    &[
        "run",
        "--print",
        "json",
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
        "--print",
        "json",
        "--rate",
        "max",
        "--level",
        "global",
        "--publish",
        "always,ratelimit:1ms",
        "--placement",
        "node:1",
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
        "--placement",
        "node:7",
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
    static RUNS: Batch = OnceLock::new();
    booted(&RUNS, || boot(TWO_NODE_VM, TWO_NODE_CMDS))
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
    runs[8].assert_usage_error(&["--placement node:7", "node 7"]);
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

    // --placement node:1: the one slot lives on node 1 for every policy, so the writers on
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

#[test]
#[ignore = "boots a QEMU guest: run with --ignored (see .ci/run)"]
fn two_node_guest_frames_every_one_of_300_short_commands() {
    // Each command's watchdog ends as its command does; the guest's shell must
    // reap it before printing the frame. Unreaped, 2 of 2 such boots lost a
    // marker line (the 1st command's, the 36th's).
    let cmds: Vec<&[&str]> = (0..300).map(|_| &["sh", "-c", "sleep 0.05"][..]).collect();
    let runs = boot(TWO_NODE_VM, &cmds).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(runs.len(), 300);
    for r in &runs {
        assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
    }
}
