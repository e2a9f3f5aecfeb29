//! `contend predict` for a terminal: what was assumed, the verdict lines, one row per strategy and
//! rate.

use super::align;
use crate::predict::PredictResults;
use crate::units::si;
use crate::verdict::{
    cost_cells, predict_lines, range_text, rho_text, saturation_text, sensitivity_cell, share_text,
};

/// Header, latencies, verdict, table, notes.
pub fn render(p: &PredictResults) -> String {
    let mut out = p
        .inferred
        .as_ref()
        .map_or_else(String::new, super::inferred::render);
    out.push_str(&header(p));
    out.push_str(&super::lines(predict_lines(p)));
    out.push('\n');
    out.push_str(&align(&strategy_rows(p)));
    out.push_str(
        "every figure is the model's prediction; ρ = the hottest line's offered utilisation (asked transfers/s × transfer time; above 1 the CPUs slow to what it serves); ranges from the class latencies' uncertainty; net = transfers and waiting, beyond the same loop with no shared write; net CPU = net / (1/rate + net)\n",
    );
    let nodes = node_rows(p);
    if nodes.len() > 1 {
        out.push('\n');
        out.push_str(&align(&nodes));
    }
    out.push_str(&super::notes(&p.notes));
    out
}

/// What was predicted for: the host, the pools, the arrivals and the class latencies, two lines.
fn header(p: &PredictResults) -> String {
    let layout = &p.config.layout;
    let reads = match layout.read_every {
        0 => "no read side".to_string(),
        1 => "each reading after every update".to_string(),
        k => format!("each reading every {k} updates"),
    };
    let readers = match layout.readers.len() {
        0 => String::new(),
        n => format!(", {n} readers"),
    };
    let class = |c: &crate::predict::ClassUse| {
        let l = c.latency;
        format!(
            "{} {} ns ({}–{})",
            c.class,
            si(l.ns),
            si(l.lo_ns),
            si(l.hi_ns)
        )
    };
    let classes: Vec<String> = p.classes.iter().map(class).collect();
    format!(
        "contend predict: {} (CPUs {}, nodes {}, LLCs {}): {} writers, {reads}{readers}; arrivals {}\ntransfer time per class ({}): {}\n\n",
        p.host,
        p.cpus,
        p.nodes,
        p.llcs,
        layout.writers.len(),
        p.config.arrivals,
        p.latencies.source,
        classes.join(", ")
    )
}

/// A header row: `keys`, then each of `predicted` marked as predicted.
fn head(keys: &[&str], predicted: &[&str]) -> Vec<String> {
    let predicted = predicted.iter().map(|h| format!("{h} (predicted)"));
    super::head(keys).into_iter().chain(predicted).collect()
}

/// The table's rows, its header first: one per strategy and rate.
fn strategy_rows(p: &PredictResults) -> Vec<Vec<String>> {
    let predicted = [
        "publish",
        "ρ hottest",
        "net ns/update",
        "net CPU",
        "+1% transfer → CPU points",
        "hand-overs/s",
        "transfers/update",
        "saturates at/CPU",
    ];
    let mut rows: Vec<Vec<String>> = vec![head(&["strategy", "rate/CPU"], &predicted)];
    for s in &p.strategies {
        let saturates = saturation_text(s.saturation);
        for q in &s.points {
            let (cost, share) = cost_cells(q);
            rows.push(vec![
                s.name.clone(),
                si(q.rate),
                format!("{}%", si(100.0 * q.publish_fraction)),
                range_text(q.rho, rho_text),
                cost,
                share,
                sensitivity_cell(q),
                q.handovers_per_s.map_or("-".into(), |h| range_text(h, si)),
                format!("{} + {} read", si(q.write_transfers), si(q.read_transfers)),
                saturates.clone(),
            ]);
        }
    }
    rows
}

/// The per-node table's rows, its header first: one per node of each point that has more than one.
fn node_rows(p: &PredictResults) -> Vec<Vec<String>> {
    let keys = ["strategy", "rate/CPU", "node", "memory", "writers"];
    let mut rows: Vec<Vec<String>> = vec![head(&keys, &["net ns/update", "net CPU"])];
    for s in &p.strategies {
        for q in s.points.iter().filter(|q| q.by_node.len() > 1) {
            for n in &q.by_node {
                rows.push(vec![
                    s.name.clone(),
                    si(q.rate),
                    n.node.to_string(),
                    if n.home { "local" } else { "remote" }.into(),
                    n.writers.to_string(),
                    range_text(n.cost_ns, si),
                    format!("{}%", range_text(n.cpu_share_pct, share_text)),
                ]);
            }
        }
    }
    rows
}
