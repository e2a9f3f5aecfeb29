//! The command line end to end: exit codes, one-line errors, capture.

use std::path::Path;

mod common;
use common::{assert_usage_error, contend, stderr};

#[test]
fn bad_requests_exit_2_with_one_line() {
    assert_usage_error(&["verify", "--nodes", "7"], "node 7 does not exist");
    assert_usage_error(&["verify", "--cpus", "node:9"], "node 9 does not exist");
    assert_usage_error(&["verify", "--cpus", "4000"], "selects no allowed CPU");
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
    let out = contend(&["verify", "--json"]);
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
    // Every node's 4 pages (the default --pages), each on that node.
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
    // And a page count asked for is the count placed and checked.
    let out = contend(&["verify", "--json", "--nodes", "0", "--pages", "3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let memory = v["memory"].as_array().unwrap();
    assert_eq!(memory.len(), 1, "{v}");
    assert_eq!(memory[0]["pages"], 3, "{v}");
    assert_eq!(memory[0]["page_nodes"], serde_json::json!([0, 0, 0]), "{v}");
}

#[test]
fn capture_reproduces_the_live_host() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("host");
    let cap_str = cap.to_str().unwrap();
    let out = contend(&["topology", "capture", cap_str]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(cap.join("sys/devices/system/cpu/online").is_file());
    let live = contend(&["topology", "--json"]);
    let replay = contend(&["--sysfs-root", cap_str, "topology", "--json"]);
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
