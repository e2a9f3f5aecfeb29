//! The gallery's table, which text, Markdown and HTML share: a row per host (its layout, where the
//! cost jumps, the cheapest strategy, the default comparison's net cost per update at the gallery's
//! rate, its classes' medians). Cells hold untrusted file names as read: each format escapes them.

use crate::predict::LineState;
use crate::predict::gallery::{Gallery, GalleryHost, GalleryStrategy};
use crate::units::si;
use crate::verdict::range_text;

/// The strategies shown, in order: the kernel's counter, its ratelimit, then each split.
pub const SHOWN: [&str; 5] = [
    "global/always",
    "global/ratelimit:1ms",
    "node/always",
    "llc/always",
    "cpu/always",
];

/// The class columns (and the rows of a host's chart), by the prefix of the class name.
pub const CLASSES: [&str; 4] = ["smt", "same-llc", "same-node", "cross-node"];

/// The header row.
pub fn header(g: &Gallery) -> Vec<String> {
    let lead = ["host (file)", "CPUs", "SMT cores / LLCs / nodes", "jump at"].map(String::from);
    let shown = SHOWN.iter().map(|s| format!("{s} ns/update"));
    let cheapest = format!("cheapest at {}/s", si(g.rate));
    let classes = CLASSES.iter().map(|c| format!("{c} ns"));
    lead.into_iter()
        .chain([cheapest])
        .chain(shown)
        .chain(classes)
        .collect()
}

/// A strategy's cell: its net ns per update, or why there is none.
pub fn cost_cell(s: Option<&GalleryStrategy>) -> String {
    match s.map(|s| (s.state, s.cost_ns)) {
        Some((LineState::Saturated, Some(c))) => format!("{} (saturated)", range_text(c, si)),
        Some((_, Some(c))) => range_text(c, si),
        _ => "-".into(),
    }
}

/// A host's row.
pub fn row(h: &GalleryHost) -> Vec<String> {
    let mut layout = format!("{} / {} / {}", h.smt_cores, h.llcs, h.nodes);
    if let Some(home) = h.home_node {
        layout.push_str(&format!(" (home {home})"));
    }
    if h.sockets_from_name.is_some() {
        layout.push_str(" (sockets: name)");
    }
    let jump = match (h.jump, h.jump_ns) {
        (Some(j), Some((a, b))) => format!("{} ({}→{} ns)", j.name(), si(a), si(b)),
        _ => "-".into(),
    };
    let winner = h
        .winner
        .clone()
        .unwrap_or_else(|| "none below saturation".into());
    let r = [h.file.clone(), h.cpus.to_string(), layout, jump, winner];
    let cost = |name: &&str| cost_cell(h.strategies.iter().find(|s| s.name == *name));
    let class = |c: &&str| {
        let x = h
            .classes
            .iter()
            .find(|x| x.class.to_string().starts_with(c));
        x.map_or("-".into(), |x| si(x.median_ns))
    };
    let shown = SHOWN.iter().map(cost);
    r.into_iter()
        .chain(shown)
        .chain(CLASSES.iter().map(class))
        .collect()
}
