//! `contend verify` as text: where each thread ran and where each node's pages are, verified or
//! not.

use crate::placement::{NodeCheck, VerifyReport};
use crate::topology::CpuList;
use std::fmt::Write;

/// The proof as text: one line per CPU and per node.
pub fn render(report: &VerifyReport) -> String {
    let mut out = String::new();
    for t in &report.threads {
        let (cpu, seen) = (
            t.requested_cpu,
            t.observed_cpu.map_or("?".to_string(), |c| c.to_string()),
        );
        let _ = match &t.note {
            None => writeln!(out, "cpu {cpu:>4}: pinned, sched_getcpu = {seen}  verified"),
            Some(note) => writeln!(out, "cpu {cpu:>4}: UNVERIFIED ({note})"),
        };
    }
    for m in &report.memory {
        let nodes = m.page_nodes.iter().filter_map(|&n| u32::try_from(n).ok());
        let nodes: CpuList = nodes.collect();
        let (at, pages) = (m.requested_node, m.pages);
        let _ = match &m.check {
            NodeCheck::Verified { node } => {
                writeln!(
                    out,
                    "node {at:>3}: {pages} pages bound, move_pages says node {node}  verified"
                )
            }
            NodeCheck::Unverified { reason } => {
                writeln!(
                    out,
                    "node {at:>3}: {pages} pages, pages on nodes [{nodes}]  UNVERIFIED ({reason})"
                )
            }
        };
    }
    out
}
