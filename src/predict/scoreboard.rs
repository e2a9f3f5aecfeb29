//! What the scoreboard (docs/predict.md) says of this model on the seeds' hosts, by kind of host:
//! how many published figures it is within, and how far its central share is from them at worst.

use std::collections::BTreeMap;

const SUMMARY: &str = include_str!("../../results/published/scoreboard-summary.json");

/// The scoreboard's figures for one kind of host.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
struct KindSummary {
    name: String,
    rows: usize,
    within: usize,
    worst_share_factor: Option<f64>,
}

/// The kinds of host the scoreboard tells apart: where the line's copies live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostKind {
    /// One LLC per node (the seeds' Intel hosts).
    OneLlcPerNode,
    /// Several LLCs per node (the seeds' AMD host).
    SeveralLlcsPerNode,
}

impl HostKind {
    /// The kind of a host of `nodes` nodes with CPUs and `llcs` LLCs.
    pub fn of(nodes: usize, llcs: usize) -> Self {
        if llcs > nodes.max(1) {
            HostKind::SeveralLlcsPerNode
        } else {
            HostKind::OneLlcPerNode
        }
    }

    fn key(self) -> &'static str {
        match self {
            HostKind::OneLlcPerNode => "one-llc-per-node",
            HostKind::SeveralLlcsPerNode => "several-llcs-per-node",
        }
    }
}

/// The scoreboard's sentence for hosts of `kind`; `None` when it scored none of them.
pub fn summary(kind: HostKind) -> Option<String> {
    sentence(SUMMARY, kind)
}

fn sentence(summary: &str, kind: HostKind) -> Option<String> {
    let kinds: BTreeMap<String, KindSummary> = serde_json::from_str(summary).ok()?;
    let k = kinds.get(kind.key()).filter(|k| k.rows > 0)?;
    let worst = k.worst_share_factor.map_or(String::new(), |w| {
        format!(", its central CPU share up to {w}× off the published one")
    });
    Some(format!(
        "on the seeds' hosts with {}, this model is within the published range of {} of {} figures{worst} (docs/predict.md, the scoreboard)",
        k.name, k.within, k.rows
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_says_what_the_summary_holds() {
        let s = r#"{"one-llc-per-node": {"name": "one LLC per node", "rows": 12, "within": 4, "worst_share_factor": 20.5},
                    "several-llcs-per-node": {"name": "several", "rows": 0, "within": 0, "worst_share_factor": null}}"#;
        assert_eq!(
            sentence(s, HostKind::OneLlcPerNode).unwrap(),
            "on the seeds' hosts with one LLC per node, this model is within the published range of 4 of 12 figures, its central CPU share up to 20.5× off the published one (docs/predict.md, the scoreboard)"
        );
        assert_eq!(sentence(s, HostKind::SeveralLlcsPerNode), None);
        assert_eq!(HostKind::of(2, 16), HostKind::SeveralLlcsPerNode);
        assert_eq!(HostKind::of(2, 2), HostKind::OneLlcPerNode);
        assert_eq!(HostKind::of(1, 1), HostKind::OneLlcPerNode);
        // The file the binary carries reads.
        assert!(summary(HostKind::OneLlcPerNode).is_some());
    }
}
