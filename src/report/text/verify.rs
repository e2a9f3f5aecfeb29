//! `contend verify` as text: where each thread ran and where each node's pages are, verified or
//! not.

use crate::placement::{NodeCheck, VerifyReport};
use crate::topology::CpuList;
use std::fmt::Write;

/// The proof as text: one line per CPU and per node.
pub fn render(report: &VerifyReport) -> String {
    let mut out = String::new();
    for t in &report.threads {
        let seen = t.observed_cpu.map_or("?".to_string(), |c| c.to_string());
        let _ = match &t.note {
            None => writeln!(
                out,
                "cpu {:>4}: pinned, sched_getcpu = {seen}  verified",
                t.requested_cpu
            ),
            Some(note) => writeln!(out, "cpu {:>4}: UNVERIFIED ({note})", t.requested_cpu),
        };
    }
    for m in &report.memory {
        let nodes: CpuList = m
            .page_nodes
            .iter()
            .filter(|&&n| n >= 0)
            .map(|&n| n as u32)
            .collect();
        let _ = match &m.check {
            NodeCheck::Verified { node } => writeln!(
                out,
                "node {:>3}: {} pages bound, move_pages says node {node}  verified",
                m.requested_node, m.pages
            ),
            NodeCheck::Unverified { reason } => writeln!(
                out,
                "node {:>3}: {} pages, pages on nodes [{nodes}]  UNVERIFIED ({reason})",
                m.requested_node, m.pages
            ),
        };
    }
    out
}
