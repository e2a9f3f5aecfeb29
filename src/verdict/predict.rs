//! A prediction's `verdict:` lines: per asked-for rate, how busy the first strategy's hottest line
//! is (global/always by default) and what it costs per update, then what every other strategy does
//! to that.

use super::{Topic, Verdict, plural};
use crate::predict::scoreboard::{self, HostKind};
use crate::predict::{
    AGREEMENT_PCT, Agreement, CheckPoint, CheckResults, HandoverPoint, LineState, PointPrediction,
    PredictResults, Range, SaturationRate, StrategyPrediction,
};
use crate::units::{si, with_interval};

/// `low–high` (the smaller figure first, whichever latency bound gave it), or one figure when they
/// round alike.
pub fn range_text(r: Range, f: impl Fn(f64) -> String) -> String {
    let (lo, hi) = (f(r.lo.min(r.hi)), f(r.lo.max(r.hi)));
    if lo == hi { lo } else { format!("{lo}–{hi}") }
}

/// ρ to two or three decimals, or in exponent form when tiny.
pub fn rho_text(v: f64) -> String {
    match v {
        10.0.. => format!("{v:.0}"),
        0.1.. => format!("{v:.2}"),
        0.001.. => format!("{v:.3}"),
        _ if v > 0.0 => format!("{v:.0e}"),
        _ => "0".into(),
    }
}

/// A CPU share, %, to three significant digits however small (`0.157`, `0.0000654`).
pub fn share_text(v: f64) -> String {
    if v <= 0.0 || !v.is_finite() {
        return "0".into();
    }
    let decimals = (2 - v.log10().floor() as i32).clamp(0, 9) as usize;
    format!("{v:.decimals$}")
}

/// A point's net cost and CPU share.
fn cost_text(p: &PointPrediction) -> String {
    if p.cost_ns.is_none() || p.cpu_share_pct.is_none() {
        return "no cost in this file (written before costs were predicted past saturation)".into();
    }
    let sensitivity = match (p.state, p.share_per_pct) {
        (LineState::Near | LineState::Saturated, Some(d)) => {
            format!(" (+1% transfer time → {} points of CPU)", signed_share(d))
        }
        _ => String::new(),
    };
    let (cost, share) = cost_cells(p);
    format!("{cost} ns net per update, {share} of each CPU{sensitivity}")
}

/// A change of share in points, signed: `+0.532`, `−0.01`.
fn signed_share(d: f64) -> String {
    format!("{}{}", if d < 0.0 { "−" } else { "+" }, share_text(d.abs()))
}

/// What a point's hottest line does: its ρ and what an update costs; every figure the model's.
fn state(p: &PointPrediction) -> String {
    let handovers = p.handovers_per_s.map_or(String::new(), |h| {
        format!(", {} hand-overs/s", range_text(h, si))
    });
    let (rho, queue) = (range_text(p.rho, rho_text), si(p.queue));
    let how = match p.state {
        LineState::Saturated => format!(
            "{rho}× saturated (offered ρ): it serves one transfer at a time and each CPU waits behind the others' ({queue} CPUs at the line on the mean, each achieving {}/s of the asked {}/s)",
            p.achieved_rate.map_or("?".into(), |a| range_text(a, si)),
            si(p.rate),
        ),
        LineState::Near => format!("near the knee (ρ {rho}, {queue} CPUs at the line on the mean)"),
        LineState::Below => format!("at ρ {rho}"),
    };
    let cost = cost_text(p);
    format!("the hottest line is predicted {how}: {cost}{handovers}")
}

/// Each node's cost at point `i` of `s`, local or remote to the counter's memory.
fn per_node(q: &PointPrediction) -> Option<String> {
    (q.by_node.len() > 1).then(|| {
        q.by_node
            .iter()
            .map(|n| {
                format!(
                    "node {} ({}, {}) {} ns, {}% of each CPU",
                    n.node,
                    if n.home { "the memory's" } else { "remote" },
                    plural(n.writers, "writer"),
                    range_text(n.cost_ns, si),
                    range_text(n.cpu_share_pct, share_text)
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// What a strategy does flat out, as the model puts it.
fn flat_out_text(s: &StrategyPrediction) -> Option<String> {
    let f = s.flat_out.as_ref()?;
    let h = range_text(f.handovers_per_s, si);
    let what = match (f.saturated_lines, f.round_ns) {
        (0, _) if f.handovers_per_s.mid <= 0.0 => {
            "no line has two writers, so nothing is handed over".into()
        }
        (0, _) if s.publish.ratelimit.is_some() => format!(
            "the ratelimit caps each CPU's publishes, and its line stays below saturation: {h} hand-overs/s"
        ),
        (0, _) => format!(
            "its lines stay below saturation (few enough transfers at their prices): {h} hand-overs/s"
        ),
        (_, round) => format!(
            "{} hands over one transfer at a time, {h} hand-overs/s{}",
            plural(f.saturated_lines, "saturated line"),
            round.map_or(String::new(), |r| format!(
                "; each writer waits a round of {} ns per ownership, so its cost per update is that over the updates it makes per ownership (contend run counts them; the model does not predict how long a writer holds the line)",
                range_text(r, si)
            ))
        ),
    };
    Some(format!("flat out, {} (predicted): {what}", s.name))
}

/// A point's net ns per update and net CPU share % for a table cell.
pub fn cost_cells(q: &PointPrediction) -> (String, String) {
    match (q.cost_ns, q.cpu_share_pct) {
        (Some(c), Some(sh)) => (
            range_text(c, si),
            format!("{}%", range_text(sh, share_text)),
        ),
        _ => ("-".into(), "-".into()),
    }
}

/// How much +1% on every transfer moves a point's CPU share, points, for a table cell.
pub fn sensitivity_cell(q: &PointPrediction) -> String {
    q.share_per_pct.map_or("-".into(), signed_share)
}

/// The saturation rate per CPU for a table cell: `45.2k–75.3k`, `45.2k–never`.
pub fn saturation_text(sat: SaturationRate) -> String {
    match (sat.lo, sat.hi) {
        (Some(lo), Some(hi)) => format!("{}–{}", si(lo), si(hi)),
        (Some(lo), None) => format!("{}–never", si(lo)),
        _ => "never".into(),
    }
}

/// Where a strategy saturates, per CPU, or why it never does: read from its own figures.
fn saturates(s: &StrategyPrediction) -> String {
    let sat = s.saturation;
    match (sat.lo, sat.hi) {
        (Some(lo), Some(hi)) if si(lo) != si(hi) => {
            format!("; it saturates from {}–{}/s per CPU", si(lo), si(hi))
        }
        (Some(lo), _) => format!("; it saturates from {}/s per CPU", si(lo)),
        (None, _) => {
            let top = s.curve.iter().map(|q| q.rho.hi).fold(0.0, f64::max);
            let (rho, to) = (rho_text(top), si(crate::predict::CURVE_TO));
            let why = match s.publish.ratelimit {
                _ if top <= 0.0 => "no CPU takes a line from another at any rate".into(),
                Some(_) => format!(
                    "the ratelimit caps each CPU's publishes, and the line stays at ρ {rho} or less at the high latencies up to {to}/s"
                ),
                None => format!("ρ stays at {rho} or less at the high latencies up to {to}/s"),
            };
            format!("; it never saturates ({why})")
        }
    }
}

/// For a saturated point of one strategy, what every other strategy brings the offered ρ to at the
/// same rate: `; the others bring ρ to global/ratelimit:1ms 0.38–0.56, node/always 0.33–0.54`.
fn others_rho(p: &PredictResults, k: usize, i: usize) -> String {
    if p.strategies[k].points[i].state != LineState::Saturated {
        return String::new();
    }
    let others: Vec<String> = p
        .strategies
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != k)
        .map(|(_, o)| format!("{} {}", o.name, range_text(o.points[i].rho, rho_text)))
        .collect();
    if others.is_empty() {
        return String::new();
    }
    format!("; the others bring ρ to {}", others.join(", "))
}

/// Strategy `k`'s line at the `i`-th rate, against the first strategy's; the first's own names
/// the writers and where it saturates.
fn strategy_line(p: &PredictResults, k: usize, i: usize) -> String {
    let (base, s) = (&p.strategies[0], &p.strategies[k]);
    let (b, q) = (&base.points[i], &s.points[i]);
    let on = match k {
        0 => format!(" on {} CPUs", p.config.layout.writers.len()),
        _ => String::new(),
    };
    let mut text = format!("at {}/s per CPU{on}, {}", si(p.config.rates[i]), s.name);
    if s.publish != base.publish {
        text.push_str(&format!(
            " (publishes {}% of updates)",
            si(100.0 * q.publish_fraction)
        ));
    }
    if s.level != base.level {
        text.push_str(&format!(
            " ({}, {} on the hottest against {})",
            plural(s.lines, "line"),
            plural(q.hottest_writers, "writer"),
            b.hottest_writers
        ));
    }
    text.push_str(&format!(": {}", state(q)));
    if k == 0 {
        text.push_str(&saturates(s));
    }
    text.push_str(&others_rho(p, k, i));
    if q.read_transfers > b.read_transfers + 0.01 {
        text.push_str(&format!(
            "; each update's read side fetches {} lines (against {})",
            si(q.read_transfers),
            si(b.read_transfers)
        ));
    }
    text
}

/// The verdict lines of a prediction.
pub fn predict_lines(p: &PredictResults) -> Vec<Verdict> {
    let Some(base) = p.strategies.first() else {
        return Vec::new();
    };
    let twin = |k: usize| -> Option<&StrategyPrediction> {
        let s = &p.strategies[k];
        p.strategies[..k]
            .iter()
            .find(|e| e.publish == s.publish && e.lines == s.lines && e.points == s.points)
    };
    // The first strategy has no twin before it.
    let own = || (0..p.strategies.len()).filter(|&k| twin(k).is_none());
    let mut lines = Vec::new();
    for (i, &rate) in p.config.rates.iter().enumerate() {
        for k in own() {
            lines.push(strategy_line(p, k, i));
            if let Some(nodes) = per_node(&base.points[i]).filter(|_| k == 0) {
                let home = p.latencies.costs.home_node;
                let (rate, name) = (si(rate), &base.name);
                lines.push(format!(
                    "at {rate}/s per CPU, {name} per node (memory on node {home}): {nodes}"
                ));
            }
        }
    }
    lines.extend(own().filter_map(|k| flat_out_text(&p.strategies[k])));
    let near = p
        .strategies
        .iter()
        .flat_map(|s| &s.points)
        .any(|q| q.state != LineState::Below);
    if let Some(board) = near
        .then(|| scoreboard::summary(HostKind::of(p.nodes, p.llcs)))
        .flatten()
    {
        lines.push(format!("near the knee the model is least sure: {board}"));
    }
    let same: Vec<String> = (1..p.strategies.len())
        .filter_map(|k| twin(k).map(|e| format!("{} = {}", p.strategies[k].name, e.name)))
        .collect();
    if !same.is_empty() {
        lines.push(format!(
            "the same lines on this host ({}, {}), so the same figures: {}",
            plural(p.nodes, "node"),
            plural(p.llcs, "LLC"),
            same.join(", ")
        ));
    }
    lines
        .into_iter()
        .map(|t| Verdict::new(Topic::Prediction, t))
        .collect()
}

/// A median error for a sentence: `12.3%`, or why it is not finite.
fn median_text(e: Option<f64>) -> String {
    e.map_or(
        "not finite (most points without a finite error)".into(),
        |e| format!("{e:.1}%"),
    )
}

/// The clause for the points of `agreements` that one repeat left undecided.
fn untold(agreements: impl Iterator<Item = Agreement>) -> String {
    match agreements.filter(|a| *a == Agreement::OneRepeat).count() {
        0 => String::new(),
        k => format!(
            "; {k} more within ±{AGREEMENT_PCT:.0}% but measured in one repeat (no interval to judge by)"
        ),
    }
}

/// The verdict of a check (`predict --check`, and the study's own).
pub fn check_lines(c: &CheckResults) -> Vec<Verdict> {
    let mut lines = Vec::new();
    let n = c.points.len();
    if n > 0 {
        let worst = c
            .worst
            .and_then(|i| c.points.get(i))
            .map_or(String::new(), |w| {
                let error = match (w.error_pct(), w.no_error()) {
                    (Some(e), _) => format!("{e:.0}% off"),
                    (None, why) => why.unwrap_or("-").to_string(),
                };
                format!(
                    "; worst: {} at {}/s, predicted {} against measured {} ({error})",
                    w.series,
                    si(w.rate),
                    w.predicted_ns
                        .map_or("nothing".into(), |p| format!("{} ns", si(p))),
                    with_interval(w.measured_ns, w.measured_ci_ns, w.repeats, "ns"),
                )
            });
        let untold = untold(c.points.iter().map(CheckPoint::agreement));
        lines.push(format!(
            "model against measured, net cost per update: median error {} over {n} points; {} of {n} points agree (prediction inside the measured 95% CI and within ±{AGREEMENT_PCT:.0}%){untold}{worst}",
            median_text(c.median_abs_error_pct),
            c.agreeing,
        ));
    }
    let (none, handed): (Vec<&HandoverPoint>, Vec<_>) =
        c.flat_out.iter().partition(|p| p.nothing_handed_over());
    let (none, m) = (none.len(), handed.len());
    let nothing = match none {
        0 => String::new(),
        1 => "; 1 more strategy hands nothing over (one writer per line), as predicted".into(),
        n => format!("; {n} more strategies hand nothing over (one writer per line), as predicted"),
    };
    if m > 0 {
        let untold = untold(handed.iter().map(|p| p.agreement()));
        lines.push(format!(
            "model against measured, flat out: hand-overs/s median error {} over {m} strategies that hand the line over; {} of {m} agree with the exact count (inside its 95% CI and within ±{AGREEMENT_PCT:.0}%){untold}{nothing}",
            median_text(c.flat_out_median_error_pct),
            c.flat_out_agreeing,
        ));
    } else if none > 0 {
        lines.push(format!(
            "model against measured, flat out: no strategy hands the line over (one writer per line), as predicted ({none} of them)"
        ));
    }
    lines
        .into_iter()
        .map(|t| Verdict::new(Topic::Prediction, t))
        .collect()
}
