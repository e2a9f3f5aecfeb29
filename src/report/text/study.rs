//! `contend study --dry-run` (the plan and its arithmetic) and the end of a study (the combined
//! verdict, what the run's figures rest on, each stage's time against the plan).

use super::align;
use crate::study::plan::{ASSUMED_ONE_WAY_NS, MARGIN};
use crate::study::{StageStatus, StudyPlan, StudyResults};
use crate::units::{human_s, si};
use crate::verdict::{plural, study_lines};
use std::fmt::Write;

/// `spr-2s-224: 224 CPUs, 2 nodes, 2 LLCs`.
fn host(p: &StudyPlan) -> String {
    let (cpus, nodes) = (plural(p.cpus, "CPU"), plural(p.nodes, "node"));
    format!("{}: {cpus}, {nodes}, {}", p.host, plural(p.llcs, "LLC"))
}

/// The plan, stage by stage, with the numbers its time rests on.
pub fn render_plan(p: &StudyPlan) -> String {
    let mut out = String::new();
    let (host, budget, rule) = (host(p), p.max_time_s, &p.max_time_rule);
    let _ = writeln!(
        out,
        "contend study plan for {host}; budget {budget:.0} s ({rule})\n"
    );
    let m = &p.matrix;
    let class = |c: &crate::study::plan::ClassSample| {
        format!("{} {} of {}", c.class, c.sampled, c.candidates)
    };
    let classes: Vec<String> = m.classes.iter().map(class).collect();
    let _ = writeln!(
        out,
        "1. matrix: {} ({} per class at most: {}), {} samples per direction × {} round trips, {} passes; est. {:.1} s (at an assumed {ASSUMED_ONE_WAY_NS} ns one-way)",
        plural(m.pairs, "pair"),
        m.per_class,
        classes.join(", "),
        m.samples,
        crate::matrix::ROUND_TRIPS_PER_SAMPLE,
        crate::matrix::PASSES,
        m.est_s,
    );
    let r = &p.run;
    let regimes: Vec<String> = r.rates.iter().map(|r| r.to_string()).collect();
    let _ = writeln!(
        out,
        "2. run: {} writers, {} strategies × {} ({}) + the paced and harness floors = {} entries, run as {} repeats a round (the paced ones in place) × {} rounds, {:.2} s measured per entry, then more rounds, widest CI first, while a 95% CI is wider than ±{}% (`contend run`'s stop rule); est. {:.1} s at most",
        r.writers,
        r.strategies,
        r.rates.len(),
        regimes.join(", "),
        r.entries,
        r.runs,
        r.repeats,
        r.duration_s,
        crate::runner::DEFAULT_TARGET_CI_PCT,
        r.est_s
    );
    let s = &p.sweep;
    let steps: Vec<String> = s
        .threads
        .iter()
        .map(|t| format!("{} ({})", t.threads, t.reaches))
        .collect();
    let rates: Vec<String> = s.rates.iter().map(|r| r.to_string()).collect();
    let all = crate::study::sweep_strategies().strategies();
    let names: Vec<String> = all.iter().map(|st| st.short_name(&all)).collect();
    let _ = writeln!(
        out,
        "3. sweep: unbound, threads {} × {} = {} points, {} + a floor = {} entries, run as {} repeats a round × {} rounds, {:.2} s measured per entry; est. {:.1} s",
        steps.join(", "),
        rates.join(" and "),
        s.points,
        names.join(" and "),
        s.entries,
        s.runs,
        s.repeats,
        s.duration_s,
        s.est_s
    );
    let _ = writeln!(
        out,
        "4. predict: what the run measured (its CPUs, strategies, rates and arrivals; {} writers at {}/s per CPU if the run did not finish), with this study's class latencies (the matrix measured again right after the run if the run's canary disagrees with it), then the model checked against the run (predict --check); instant",
        p.cpus,
        si(p.predict_rate)
    );
    let _ = writeln!(
        out,
        "\ntotal: est. {:.0} s of the {:.0} s budget ({:.0}% kept back), {} warm-up a repeat; memory est. {} (the run's pools)",
        p.est_s,
        p.max_time_s,
        MARGIN * 100.0,
        human_s(p.warmup_s),
        super::plan::mib(p.memory_bytes)
    );
    out + &super::plan::ending(&p.costs, &p.notes)
}

/// The run's headline (when the study has a run), the combined verdict, the run's lines on what its
/// figures rest on, then each stage's status and time.
pub fn render(study: &StudyResults) -> String {
    let mut out = String::new();
    let p = &study.plan;
    let (host, started) = (host(p), &study.provenance.started_utc);
    let partial = if study.partial { " (PARTIAL)" } else { "" };
    let (elapsed, budget) = (study.elapsed_s, p.max_time_s);
    let _ = writeln!(
        out,
        "contend study on {host}; {started}: {elapsed:.0} s of a {budget:.0} s budget{partial}\n"
    );
    if let Some(run) = &study.parts.run {
        out.push_str(&super::lines(crate::verdict::headline(run).sentences()));
        out.push('\n');
    }
    let lines = study_lines(study);
    out.push_str(&super::lines(
        lines.iter().map(|l| format!("verdict: {}", l.brief_text())),
    ));
    if lines.iter().any(|l| l.brief.is_some()) {
        out.push_str(
            "(each verdict's 95% interval and p-value: report.html in the study folder)\n",
        );
    }
    // What the run's figures rest on, as `contend run` prints it: its floors, warnings,
    // interference and noise.
    if let Some(run) = &study.parts.run {
        out.push_str(&super::run::rests_on(run));
    }
    let est = |stage: &str| match stage {
        "matrix" => format!("{:.1}", p.matrix.est_s),
        "run" => format!("{:.1}", p.run.est_s),
        "sweep" => format!("{:.1}", p.sweep.est_s),
        _ => "0".into(),
    };
    let mut rows = vec![super::head(&["stage", "status", "seconds", "planned"])];
    for s in &study.stages {
        let status = match &s.status {
            StageStatus::Done => "done".to_string(),
            StageStatus::Interrupted => "interrupted".to_string(),
            StageStatus::Partial(why) => format!("PARTIAL: {why}"),
            StageStatus::Skipped(why) => format!("skipped: {why}"),
            StageStatus::Failed(why) => format!("FAILED: {why}"),
        };
        rows.push(vec![
            s.stage.clone(),
            status,
            format!("{:.1}", s.seconds),
            est(&s.stage),
        ]);
    }
    out.push('\n');
    out.push_str(&align(&rows));
    out
}
