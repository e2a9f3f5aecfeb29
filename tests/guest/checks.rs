//! Checks on the JSON that `contend` printed in a guest, shared by every guest layout.

use serde_json::Value;

/// The JSON array `v` as `u32`s; panics on anything else.
pub(crate) fn u32s(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_u64().unwrap_or_else(|| panic!("not a u32: {x}")) as u32)
        .collect()
}

/// `topology --print json` describes exactly the given nodes (CPUs per node, has_memory all
/// true) and distance matrix, and the per-CPU records agree with the node lists.
pub(crate) fn assert_topology(t: &Value, node_cpus: &[&[u32]], distances: &[&[u32]]) {
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

/// `verify --print json` pinned exactly `cpus` (each observed where requested) and bound memory
/// to exactly `nodes` (every page seen on its node by move_pages), strictly.
pub(crate) fn assert_verified(v: &Value, cpus: &[u32], nodes: &[u32]) {
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

/// `run --print json` finished cleanly: not partial, exactly the strategies `names` (in
/// order), each with at least one repeat, every repeat's final sum equal to the expected
/// one and flagged exact, and the strategy flagged exact.
pub(crate) fn assert_run_ok(r: &Value, names: &[&str]) {
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

/// The strategy called `name` in `run --print json` output.
pub(crate) fn strategy<'a>(r: &'a Value, name: &str) -> &'a Value {
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
pub(crate) fn assert_slots(s: &Value, want: &[(&str, u32)]) {
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
pub(crate) fn assert_writers(
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
