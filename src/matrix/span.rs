//! The order in which `--contenders` and `--sharers` take CPUs, so that the first k of them span as
//! many distance classes as k CPUs can.

use super::{OfflineCpu, PairClass, classify, cpu_of};
use crate::topology::Topology;
use std::collections::BTreeMap;

/// `cpus` (online ids, any order, duplicates ignored) in span order: the lowest CPU.
pub fn span_order(topo: &Topology, cpus: &[u32]) -> Result<Vec<u32>, OfflineCpu> {
    let mut ids = cpus.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let Some(&first) = ids.first() else {
        return Ok(Vec::new());
    };
    let mut nearest: BTreeMap<PairClass, u32> = BTreeMap::new();
    for &c in &ids[1..] {
        nearest.entry(classify(topo, first, c)?).or_insert(c);
    }
    let mut order = vec![first];
    order.extend(nearest.values());
    // node -> LLC -> core (its lowest CPU) -> CPUs, every level by id.
    let mut tree: BTreeMap<u32, BTreeMap<u32, BTreeMap<u32, Vec<u32>>>> = BTreeMap::new();
    for &c in &ids {
        let cpu = cpu_of(topo, c)?;
        let core = cpu.siblings.iter().next().unwrap_or(c).min(c);
        tree.entry(cpu.node)
            .or_default()
            .entry(cpu.llc)
            .or_default()
            .entry(core)
            .or_default()
            .push(c);
    }
    let spread = interleave(tree.into_values().map(|llcs| {
        interleave(
            llcs.into_values()
                .map(|cores| interleave(cores.into_values())),
        )
    }));
    let rest: Vec<u32> = spread.into_iter().filter(|c| !order.contains(c)).collect();
    order.extend(rest);
    Ok(order)
}

/// The lists' first items in list order, then their second items, and so on.
fn interleave(lists: impl Iterator<Item = Vec<u32>>) -> Vec<u32> {
    let lists: Vec<Vec<u32>> = lists.collect();
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    (0..longest)
        .flat_map(|i| lists.iter().filter_map(move |l| l.get(i).copied()))
        .collect()
}

/// The widest class among the pairs of `order[..k]`, for every k from 2 to `order.len()`.
pub fn widest_classes(topo: &Topology, order: &[u32]) -> Result<Vec<PairClass>, OfflineCpu> {
    let mut out = Vec::with_capacity(order.len().saturating_sub(1));
    let mut widest = None;
    for k in 1..order.len() {
        for &a in &order[..k] {
            let c = classify(topo, a, order[k])?;
            widest = Some(widest.map_or(c, |w: PairClass| w.max(c)));
        }
        out.extend(widest);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::fixture;

    #[test]
    fn interleave_takes_one_of_each_in_turn() {
        let got = interleave([vec![1, 2, 3], vec![10], vec![20, 21]].into_iter());
        assert_eq!(got, [1, 10, 20, 2, 21, 3]);
        assert!(interleave(std::iter::empty()).is_empty());
    }

    #[test]
    fn the_order_reaches_every_class_first_then_spreads() {
        // spr-2s-224: node 0 = CPUs 0-55 and their siblings 112-167, one
        // LLC; node 1 = 56-111, 168-223. From 0: sibling 112 (smt), 1
        // (same-llc), 56 (cross-node@21); then node 0's cores' first CPUs
        // and node 1's in turn (0 and 56 already taken), siblings last.
        let spr = fixture("spr-2s-224");
        let all: Vec<u32> = (0..224).collect();
        let order = span_order(&spr, &all).unwrap();
        assert_eq!(order[..8], [0, 112, 1, 56, 57, 2, 58, 3]);
        assert_eq!(order.len(), 224);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, all, "every CPU once");
        // The 112 first CPUs of cores come before any second sibling but
        // 112 itself.
        assert!(order[4..113].iter().all(|&c| c < 112), "{order:?}");
        let widest = widest_classes(&spr, &order).unwrap();
        assert_eq!(widest.len(), 223);
        // k = 2: {0, 112}; k = 3 adds 1; k = 4 adds 56.
        assert_eq!(widest[..2], [PairClass::Smt, PairClass::SameLlc]);
        assert!(widest[2..].iter().all(|&c| c == PairClass::CrossNode(21)));
    }

    #[test]
    fn a_subset_keeps_its_own_order_and_offline_cpus_are_named() {
        let spr = fixture("spr-2s-224");
        // Two CPUs of one LLC: just the two.
        assert_eq!(span_order(&spr, &[5, 3]).unwrap(), [3, 5]);
        assert_eq!(widest_classes(&spr, &[3, 5]).unwrap(), [PairClass::SameLlc]);
        assert!(span_order(&spr, &[]).unwrap().is_empty());
        let e = span_order(&spr, &[0, 4000]).unwrap_err();
        assert_eq!(e.cpu, 4000);
    }
}
