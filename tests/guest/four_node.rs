//! 4 nodes, node 3 memory-only, asymmetric distances, booted once and shared by the
//! tests below.

use std::sync::OnceLock;

use crate::checks::{
    assert_run_ok, assert_slots, assert_topology, assert_verified, assert_writers, strategy, u32s,
};
use crate::vm::{Batch, Run, boot, booted};

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
    &["topology", "--print", "json"],
    &["verify", "--print", "json", "--cpus", "0", "--nodes", "3"],
    &[
        "verify", "--print", "json", "--cpus", "node:2", "--nodes", "0-3",
    ],
    &["verify", "--cpus", "node:3"],
    // 4..=7: the v6.3 hop order from every node.
    &["spread", "--node", "0", "--print", "json"],
    &["spread", "--node", "1", "--print", "json"],
    &["spread", "--node", "2", "--print", "json"],
    &["spread", "--node", "3", "--print", "json"],
    // 8, 9: the pre-v6.3 order.
    &["spread", "--node", "0:old", "--print", "json"],
    &["spread", "--node", "3:old", "--print", "json"],
    // 10: two writers placed as cpumask_local_spread(0..2, 1) would place them.
    &[
        "run",
        "--print",
        "json",
        "--rate",
        "max",
        "--level",
        "node",
        "--publish",
        "always",
        "--writers",
        "2@local-spread:1",
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
    static RUNS: Batch = OnceLock::new();
    booted(&RUNS, || boot(FOUR_NODE_VM, FOUR_NODE_CMDS))
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
    assert_eq!(v["memory"][0]["pages"], 4);
    // Both CPUs of node 2, memory on all four nodes.
    assert_verified(&runs[2].json(), &[2, 3], &[0, 1, 2, 3]);
    // No CPU to pin to on node 3.
    runs[3].assert_usage_error(&["node:3", "no allowed CPU"]);
}

/// The kernel's NUMA hops from `node` (docs/seeds.md, "NUMA hop order"), modelled
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
        assert_eq!(s["node"], node, "spread --node {node}:old: {s}");
        assert_eq!(s["algorithm"], "old", "spread --node {node}:old: {s}");
        assert_eq!(u32s(&s["order"]), order, "spread --node {node}:old: order");
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
