//! A study's page: its run's headline and the chart of every strategy's net cost first, then the
//! combined verdict and each stage's status, then the matrix, the run, the sweep and the
//! prediction, each as its own article (the same as their own pages).

use super::{PageSource, page_led, verdict_list, verdict_statistics};
use crate::report::{Document, ExportError};
use crate::study::{StageStatus, StudyResults};
use crate::verdict::{plural, study_lines};
use maud::html;

/// The page of `study`.
pub(super) fn page(study: &StudyResults) -> Result<String, ExportError> {
    let parts = &study.parts;
    let mut sources = Vec::new();
    if let Some(m) = &parts.matrix {
        sources.push(PageSource {
            label: Some("matrix.json"),
            doc: Document::Matrix(m),
        });
    }
    if let Some(r) = &parts.run {
        sources.push(PageSource {
            label: Some("run.json"),
            doc: Document::Run(r),
        });
    }
    if let Some(s) = &parts.sweep {
        sources.push(PageSource {
            label: Some("sweep.json"),
            doc: Document::Sweep(s),
        });
    }
    if let Some(p) = &parts.predict {
        sources.push(PageSource {
            label: Some("predict.json"),
            doc: Document::Predict(p),
        });
    }
    if let Some(Ok(c)) = &parts.check {
        sources.push(PageSource {
            label: Some("check.json"),
            doc: Document::Check(c),
        });
    }
    let p = &study.plan;
    let lines = study_lines(study);
    let kinds: Vec<&str> = sources.iter().map(|s| s.doc.kind()).collect();
    let anchor = |stage: &str| kinds.iter().position(|k| *k == stage).map(|i| i + 1);
    let glance = parts
        .run
        .as_ref()
        .map(|r| super::run::glance("headline-study", r))
        .transpose()?;
    let lead = html! {
        section.verdict.study data-section="study" id="study" {
            h2 { "Study: the combined verdict" }
            p.sub {
                (p.host) ": " (plural(p.cpus, "CPU")) ", " (plural(p.nodes, "node")) ", "
                (plural(p.llcs, "LLC")) "; started "
                (study.provenance.started_utc) "; " (format!("{:.0}", study.elapsed_s)) " s of a "
                (format!("{:.0}", p.max_time_s)) " s budget (" (p.max_time_rule) ")"
            }
            @if let Some(g) = &glance { (g) }
            @if study.partial {
                div.banner.partial role="alert" data-section="partial" {
                    "PARTIAL: not every stage finished; the table says which, and the page shows what did."
                }
            }
            (verdict_list(&lines))
            (verdict_statistics(lines.iter()))
            h3 { "Stages" }
            table {
                thead { tr { th { "stage" } th { "status" } th { "seconds" } } }
                tbody {
                    @for s in &study.stages {
                        tr {
                            td {
                                @match anchor(&s.stage) {
                                    Some(i) => { a href={ "#result-" (i) } { (s.stage) } }
                                    None => { (s.stage) }
                                }
                            }
                            td {
                                @match &s.status {
                                    StageStatus::Done => "done",
                                    StageStatus::Interrupted => "interrupted",
                                    StageStatus::Partial(why) => { "partial: " (why) }
                                    StageStatus::Skipped(why) => { "skipped: " (why) }
                                    StageStatus::Failed(why) => { "failed: " (why) }
                                }
                            }
                            td { (format!("{:.1}", s.seconds)) }
                        }
                    }
                }
            }
        }
    };
    page_led(&format!("contend study: {}", p.host), Some(lead), &sources)
}
