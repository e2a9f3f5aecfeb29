//! A study's page: its run's headline and the chart of every strategy's net cost first, then the
//! combined verdict and each stage's status, then the matrix, the run, the sweep and the
//! prediction, each as its own article (the same as their own pages).

use super::{PageSource, page_led, verdict_list, verdict_statistics};
use crate::report::{Document, ExportError};
use crate::study::{StageStatus, StudyResults};
use crate::verdict::{plural, study_lines};
use maud::html;

/// The page of `study`.
pub(super) fn page<'a>(study: &'a StudyResults) -> Result<String, ExportError> {
    let parts = &study.parts;
    let check = parts.check.as_ref().and_then(|c| c.as_ref().ok());
    let docs = [
        ("matrix.json", parts.matrix.as_ref().map(Document::Matrix)),
        ("run.json", parts.run.as_ref().map(Document::Run)),
        ("sweep.json", parts.sweep.as_ref().map(Document::Sweep)),
        (
            "predict.json",
            parts.predict.as_ref().map(Document::Predict),
        ),
        ("check.json", check.map(Document::Check)),
    ];
    let source = |(label, doc): (&'static str, Option<Document<'a>>)| {
        Some(PageSource {
            label: Some(label),
            doc: doc?,
        })
    };
    let sources: Vec<PageSource> = docs.into_iter().filter_map(source).collect();
    let p = &study.plan;
    let lines = study_lines(study);
    let kinds: Vec<&str> = sources.iter().map(|s| s.doc.kind()).collect();
    let anchor = |stage: &str| kinds.iter().position(|k| *k == stage).map(|i| i + 1);
    let glance = parts.run.as_ref();
    let glance = glance.map(|r| super::run::glance("headline-study", r));
    let glance = glance.transpose()?;
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
                (super::head_row(&["stage", "status", "seconds"]))
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
