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
    for h in &g.hosts {
        if let Some(w) = &h.winner {
            *wins.entry(w.as_str()).or_default() += 1;
        }
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
    kinds.dedup();
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
    use crate::predict::c2c::PairMatrix;
    use crate::predict::gallery::gallery;

    #[test]
    fn counts_the_jumps_and_the_winners_across_hosts() {
        // Two 2-socket hosts (the jump at the node), one single-node host
        // with 2 CCX-like LLCs (at the LLC), one with SMT alone (the core).
        let sockets = PairMatrix::from_fn(16, |i, j| if i / 8 == j / 8 { 40.0 } else { 120.0 });
        let ccx = PairMatrix::from_fn(16, |i, j| if i / 8 == j / 8 { 20.0 } else { 90.0 });
        let smt = PairMatrix::from_fn(8, |i, j| if i / 2 == j / 2 { 7.0 } else { 20.0 });
        let g = gallery(
            "d",
            vec![
                ("Dual a.csv".into(), Ok(sockets.clone())),
                ("Dual b.csv".into(), Ok(sockets)),
                ("c.csv".into(), Ok(ccx)),
                ("d.csv".into(), Ok(smt)),
            ],
            22_000.0,
        );
        let text = gallery_headline(&g);
        assert!(
            text.starts_with(
                "on 2 of 2 multi-node hosts the jump is at the node; on 1 of 2 single-node hosts at the LLC (the other 1 have one LLC); at 22.0k/s per CPU "
            ),
            "{text}"
        );
        assert!(text.contains(" of 4 hosts"), "{text}");
        assert_eq!(
            gallery_headline(&gallery("d", Vec::new(), 22_000.0)),
            "no host could be read"
        );
    }
}
