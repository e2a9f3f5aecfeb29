//! The placement proof of a run (and of each sweep point): every thread's requested and observed
//! CPU, every slot's node, verified or not.

use super::sortable;
use crate::placement::NodeCheck;
use crate::runner::RunResults;
use crate::topology::CpuList;
use crate::workload::Role;
use maud::{Markup, html};

/// Every thread's requested and observed CPU (grouped: strategies whose threads landed alike share
/// one table) and every slot's node, verified or not.
pub(super) fn placement(run: &RunResults) -> Markup {
    type Key = Vec<(Role, u32, Option<u32>, bool, u32)>;
    let mut groups: Vec<(Key, Vec<String>)> = Vec::new();
    for s in &run.strategies {
        let key = s
            .threads
            .iter()
            .map(|t| (t.role, t.cpu, t.observed_cpu, t.verified, t.node));
        let key: Key = key.collect();
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(s.label()),
            None => groups.push((key, vec![s.label()])),
        }
    }
    let threads = run.strategies.iter().flat_map(|s| &s.threads);
    let unverified_threads = threads.clone().filter(|t| !t.verified).count();
    let slots = run.strategies.iter().flat_map(|s| &s.slots);
    let unverified_slots = slots.filter(|s| !matches!(s.check, NodeCheck::Verified { .. }));
    let unverified_slots = unverified_slots.count();
    html! {
        p {
            "Threads: "
            @if unverified_threads == 0 {
                span.ok { "every thread pinned and verified" } " (sched_getcpu after pinning)"
            } @else {
                span.bad { (unverified_threads) " UNVERIFIED" } " (--placement best-effort)"
            }
            ". Slots: "
            @if unverified_slots == 0 {
                span.ok { "every slot's memory on its node, verified" } " (move_pages)"
            } @else {
                span.bad { (unverified_slots) " UNVERIFIED" }
            }
            "."
        }
        @for (key, names) in &groups {
            h4 { "Threads of " (names.join(", ")) }
            (sortable(&["role", "requested CPU", "observed CPU", "node", "verified"], html! {
                @for (r, cpu, observed, verified, node) in key { tr {
                    td { (if *r == Role::Writer { "writer" } else { "reader" }) }
                    td data-sort=(cpu) { (cpu) }
                    td data-sort=[observed] { (observed.map_or("-".to_string(), |c| c.to_string())) }
                    td data-sort=(node) { (node) }
                    @if *verified { td.ok { "yes" } } @else { td.bad { "NO" } }
                } }
            }))
        }
        h4 { "Slots" }
        @for s in &run.strategies {
            @let nodes: CpuList = s.slots.iter().map(|x| x.node).collect();
            @let bad = s.slots.iter().filter(|x| !matches!(x.check, NodeCheck::Verified { .. })).count();
            details {
                summary {
                    (s.label()) ": " (s.slots.len()) " slot" @if s.slots.len() != 1 { "s" }
                    " on node" @if nodes.len() != 1 { "s" } " " (nodes) ", "
                    @if bad == 0 { span.ok { "verified" } } @else { span.bad { (bad) " UNVERIFIED" } }
                }
                (sortable(&["slot", "node", "move_pages"], html! {
                    @for x in &s.slots { tr {
                        td { (x.owner) }
                        td data-sort=(x.node) { (x.node) }
                        @match &x.check {
                            NodeCheck::Verified { node } => td.ok { "verified on node " (node) },
                            NodeCheck::Unverified { reason } => td.bad { "UNVERIFIED: " (reason) },
                        }
                    } }
                }))
            }
        }
    }
}
