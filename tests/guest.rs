//! NUMA placement on a real multi-node kernel: `contend` run inside QEMU guests booted by
//! `scripts/numa-vm.sh` (TCG, about 5 s a boot).
//!
//! Every test is ignored by default so that `cargo test` stays fast; CI runs
//!
//!     cargo test --release --test guest -- --ignored --test-threads=1
//!
//! Nothing here skips: a missing script, QEMU, busybox or kernel makes the test fail with
//! the script's message. Boots are few: each guest runs a batch of `contend` commands,
//! and the 2-node guest is booted once and shared by the tests that use it. Inside the
//! guest every command's stdout, stderr and exit status are captured separately (the
//! serial console would merge them) and framed by markers that are split apart here.

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
}

// ---- 4 nodes, node 3 memory-only, asymmetric distances ----------------------------------

#[test]
#[ignore = "boots a QEMU guest: run with --ignored (see .ci/run)"]
fn four_node_guest_with_memory_only_node() {
    // The memory-only node is listed last so that the guest keeps the ids (Linux numbers
    // memory-only nodes after the nodes with CPUs).
    let distances: &[&[u32]] = &[
        &[10, 20, 30, 40],
        &[25, 10, 35, 45],
        &[30, 30, 10, 40],
        &[45, 40, 40, 10],
    ];
    let runs = boot(
        &[
            "--nodes",
            "4",
            "--cpus-per-node",
            "1,1,2,0",
            "--distances",
            "10,20,30,40;25,10,35,45;30,30,10,40;45,40,40,10",
        ],
        &[
            &["topology", "--json"],
            &[
                "verify", "--json", "--cpus", "0", "--nodes", "3", "--pages", "16",
            ],
            &["verify", "--json", "--cpus", "node:2", "--nodes", "0-3"],
            &["verify", "--cpus", "node:3"],
        ],
    );
    let t = runs[0].json();
    assert_topology(&t, &[&[0], &[1], &[2, 3], &[]], distances);
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
