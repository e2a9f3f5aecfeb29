//! A gallery's headline: across its hosts, where the cost jumps and which fix wins at the gallery's
//! rate, in one sentence.

use crate::predict::LineState;
use crate::predict::gallery::{BASELINE, Gallery, Jump};
use crate::predict::scoreboard::{self, HostKind};
use crate::units::si;
use std::collections::BTreeMap;

/// `on 9 of 12 multi-node hosts the jump is at the node; …`.
pub fn gallery_headline(g: &Gallery) -> String {
    let count = |multi: bool, jump: Jump| -> usize {
        g.hosts
            .iter()
            .filter(|h| (h.nodes > 1) == multi && h.jump == Some(jump))
            .count()
    };
    let of = |multi: bool| g.hosts.iter().filter(|h| (h.nodes > 1) == multi).count();
    let mut parts = Vec::new();
    let (multi, single) = (of(true), of(false));
    if multi > 0 {
        parts.push(format!(
            "on {} of {multi} multi-node hosts the jump is at the node",
            count(true, Jump::Node)
        ));
    }
    if single > 0 {
        let at_llc = count(false, Jump::Llc);
        parts.push(format!(
            "on {at_llc} of {single} single-node hosts at the LLC (the other {} have one LLC)",
            single - at_llc
        ));
    }
    let mut wins: BTreeMap<&str, usize> = BTreeMap::new();
    for w in g.hosts.iter().filter_map(|h| h.winner.as_deref()) {
        *wins.entry(w).or_default() += 1;
    }
    if let Some((name, k)) = wins
        .iter()
        .max_by_key(|(n, k)| (**k, std::cmp::Reverse(**n)))
    {
        parts.push(format!(
            "at {}/s per CPU {name} is cheapest on {k} of {} hosts",
            si(g.rate),
            g.hosts.len()
        ));
    }
    let saturated = g
        .hosts
        .iter()
        .filter(|h| {
            h.strategies
                .iter()
                .any(|s| s.name == BASELINE && s.state != LineState::Below)
        })
        .count();
    if saturated > 0 {
        parts.push(format!(
            "the kernel's counter ({BASELINE}) is at or near saturation on {saturated}"
        ));
    }
    // Beside hosts near the knee, what the scoreboard says of the model on the seeds' hosts of
    // their kind.
    let mut kinds: Vec<HostKind> = g
        .hosts
        .iter()
        .filter(|h| h.strategies.iter().any(|s| s.state != LineState::Below))
        .map(|h| HostKind::of(h.nodes, h.llcs))
        .collect();
    kinds.sort_by_key(|k| *k == HostKind::SeveralLlcsPerNode);
    kinds.dedup();
    parts.extend(kinds.into_iter().filter_map(scoreboard::summary));
    if parts.is_empty() {
        return "no host could be read".to_string();
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::gallery::gallery;

    /// A gallery's headline across hosts (the jumps, the winners) is
    /// tests/snapshots/gallery.txt's third line; without a host, this.
    #[test]
    fn a_gallery_without_a_host_says_so() {
        let g = gallery("d", Vec::new(), 22_000.0);
        assert_eq!(gallery_headline(&g), "no host could be read");
    }
}
