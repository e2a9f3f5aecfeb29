//! A study's combined verdict: the lines of its parts in the order a reader asks (matrix, run,
//! sweep, predict and its check), what this host cannot answer, and a line for each stage that did
//! not finish.

use super::{Topic, Verdict, check_lines, matrix_lines, predict_lines, run_lines, sweep_lines};
use crate::matrix::MatrixResults;
use crate::study::{StageStatus, StudyResults};
use crate::units::si;

/// The class medians nearest first, and the largest step between two.
fn jumps(m: &MatrixResults) -> Option<Verdict> {
    let classes = &m.classes;
    let first = classes.first()?;
    let chain: Vec<String> = classes
        .iter()
        .map(|c| format!("{} {} ns", c.class, si(c.median_ns)))
        .collect();
    let step = classes
        .windows(2)
        .filter(|w| w[0].median_ns > 0.0)
        .map(|w| (w[1].median_ns / w[0].median_ns, &w[1].class))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let text = match step {
        Some((ratio, class)) => format!(
            "where the cost jumps: {} (the largest step: to {class}, {ratio:.1}×)",
            chain.join(" → ")
        ),
        None => format!(
            "where the cost jumps: one class here ({} {} ns); a host with several LLCs or nodes answers it",
            first.class,
            si(first.median_ns)
        ),
    };
    Some(Verdict::new(Topic::Advice, text))
}

/// The combined verdict of `study`.
pub fn study_lines(study: &StudyResults) -> Vec<Verdict> {
    let parts = &study.parts;
    let mut lines = Vec::new();
    if let Some(m) = &parts.matrix {
        lines.extend(jumps(m));
        lines.extend(matrix_lines(m));
    }
    let run = parts.run.as_ref().map(run_lines).unwrap_or_default();
    use Topic::{BeyondRatelimit, Cost, Saturation, Savings};
    for topic in [Cost, Savings, BeyondRatelimit, Saturation] {
        lines.extend(run.iter().filter(|l| l.topic == topic).cloned());
    }
    if let Some(s) = &parts.sweep {
        let sweep = sweep_lines(s).into_iter();
        lines.extend(sweep.filter(|l| l.topic == Topic::Scaling));
    }
    if let Some(p) = &parts.predict {
        lines.extend(predict_lines(p).into_iter().take(1));
    }
    if let Some(p) = &study.pricing {
        let text = format!("model priced with {}: {}", p.used.name(), p.why);
        lines.push(Verdict::new(Topic::Prediction, text));
    }
    match &parts.check {
        Some(Ok(c)) => lines.extend(check_lines(c)),
        Some(Err(why)) => lines.push(Verdict::new(
            Topic::Prediction,
            format!("model against measured: not checked ({why})"),
        )),
        None => {}
    }
    lines.extend(run.iter().filter(|l| l.topic == Topic::Host).cloned());
    for s in &study.stages {
        let why = match &s.status {
            StageStatus::Done => continue,
            StageStatus::Interrupted => {
                "interrupted (Ctrl-C or SIGTERM); what it finished is kept".to_string()
            }
            StageStatus::Partial(why) => format!("stopped early: {why}; what it finished is kept"),
            StageStatus::Skipped(why) => format!("not run: {why}"),
            StageStatus::Failed(why) => format!("failed: {why}"),
        };
        let text = format!("the {} stage {why}", s.stage);
        lines.push(Verdict::new(Topic::Host, text));
    }
    lines
}
