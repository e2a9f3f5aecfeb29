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
    let keys = ["strategy", "rate/CPU"];
    out.push_str(&align(&table(&keys, &predicted, strategy_cells(p))));
    out.push_str(
        "every figure is the model's prediction; ρ = the hottest line's offered utilisation (asked transfers/s × transfer time; above 1 the CPUs slow to what it serves); ranges from the class latencies' uncertainty; net = transfers and waiting, beyond the same loop with no shared write; net CPU = net / (1/rate + net)\n",
    );
    let keys = ["strategy", "rate/CPU", "node", "memory", "writers"];
    let nodes = table(&keys, &["net ns/update", "net CPU"], node_cells(p));
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

/// A cell: its text and the figure the page sorts it by.
pub(crate) type Cell = (String, Option<f64>);

/// The texts of `cells` under a header of `keys`, then each of `predicted` marked as predicted.
fn table(keys: &[&str], predicted: &[&str], cells: Vec<Vec<Cell>>) -> Vec<Vec<String>> {
    let predicted = predicted.iter().map(|h| format!("{h} (predicted)"));
    let head = super::head(keys).into_iter().chain(predicted).collect();
    let rows = cells
        .into_iter()
        .map(|r| r.into_iter().map(|c| c.0).collect());
    std::iter::once(head).chain(rows).collect()
}

/// One row per strategy and rate: the strategy, the rate and the predicted figures.
pub(crate) fn strategy_cells(p: &PredictResults) -> Vec<Vec<Cell>> {
    let mut rows = Vec::new();
    for s in &p.strategies {
        let saturates = saturation_text(s.saturation);
        for q in &s.points {
            let (cost, share) = cost_cells(q);
            let handovers = q.handovers_per_s.map_or("-".into(), |h| range_text(h, si));
            let transfers = format!("{} + {} read", si(q.write_transfers), si(q.read_transfers));
            rows.push(vec![
                (s.name.clone(), None),
                (si(q.rate), Some(q.rate)),
                (format!("{}%", si(100.0 * q.publish_fraction)), None),
                (range_text(q.rho, rho_text), Some(q.rho.mid)),
                (cost, q.cost_ns.map(|c| c.mid)),
                (share, q.cpu_share_pct.map(|c| c.mid)),
                (sensitivity_cell(q), q.share_per_pct),
                (handovers, q.handovers_per_s.map(|h| h.mid)),
                (transfers, None),
                (saturates.clone(), None),
            ]);
        }
    }
    rows
}

/// One row per node of each point that has more than one.
pub(crate) fn node_cells(p: &PredictResults) -> Vec<Vec<Cell>> {
    let mut rows = Vec::new();
    for s in &p.strategies {
        for q in s.points.iter().filter(|q| q.by_node.len() > 1) {
            for n in &q.by_node {
                let share = format!("{}%", range_text(n.cpu_share_pct, share_text));
                rows.push(vec![
                    (s.name.clone(), None),
                    (si(q.rate), Some(q.rate)),
                    (n.node.to_string(), None),
                    (if n.home { "local" } else { "remote" }.into(), None),
                    (n.writers.to_string(), None),
                    (range_text(n.cost_ns, si), Some(n.cost_ns.mid)),
                    (share, Some(n.cpu_share_pct.mid)),
                ]);
            }
        }
    }
    rows
}
