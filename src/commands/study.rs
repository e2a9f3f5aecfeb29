//! `contend study`: plan, then each stage run and saved as it finishes.

use super::{Bar, Session, check_out, host_name, is_live, load_topology, measuring};
use crate::CliError;
use crate::placement::Placement;
use crate::provenance::Provenance;
use crate::report::{self, Document, Format};
use crate::runner::{HostCosts, signal};
use crate::study::{self, StageProgress, Study, StudyResults};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::args::{Print, ResultsArgs};
use crate::counter::parse_duration;

/// Options of `contend study`.
#[derive(Debug, Args)]
pub struct StudyArgs {
    /// Time budget of the whole study, shared among the stages [60 s up to 16 CPUs, 2 s more per CPU beyond, at most 9 minutes].
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub max_time: Option<Duration>,

    /// Where results go and what is printed.
    #[command(flatten)]
    pub output: ResultsArgs,
}

/// Progress bars and saving, stage by stage.
struct Saver<'a> {
    session: &'a Session,
    dir: PathBuf,
    bar: Bar,
    /// The stage the bar counts.
    stage: &'static str,
    written: Vec<PathBuf>,
}

impl Saver<'_> {
    /// Shows where the stage is: a new bar or line as a stage starts.
    fn show(&mut self, p: StageProgress) {
        if p.stage != self.stage {
            self.stage = p.stage;
            self.bar.finish_and_clear();
            self.bar = self.session.progress_bar(p.total, p.unit);
            if self.bar.is_hidden() && self.session.chatty() {
                eprintln!("study: {} ({} {})", p.stage, p.total, p.unit);
            }
        }
        self.bar.set_position(p.done as u64);
        self.bar.set_message(p.what);
    }

    /// Writes what `stage` produced, then the record and the page as they
    /// stand, so an interrupted study keeps what it finished.
    fn save(&mut self, stage: &str, study: &StudyResults) -> Result<(), CliError> {
        self.bar.finish_and_clear();
        let parts = &study.parts;
        let doc = match stage {
            "matrix" => parts.matrix.as_ref().map(Document::Matrix),
            "run" => parts.run.as_ref().map(Document::Run),
            "sweep" => parts.sweep.as_ref().map(Document::Sweep),
            _ => parts.predict.as_ref().map(Document::Predict),
        };
        let save = |d: &Document| report::save(&self.dir, d, &[Format::Json, Format::Svg]);
        let mut files = doc.as_ref().map(save).transpose()?.unwrap_or_default();
        if let (true, Some(Ok(check))) = (stage == "predict", &parts.check) {
            let check = Document::Check(check);
            files.extend(report::save(&self.dir, &check, &[Format::Json])?);
        }
        let formats = [Format::Json, Format::Html];
        files.extend(report::save(&self.dir, &Document::Study(study), &formats)?);
        for f in files {
            if !self.written.contains(&f) {
                self.written.push(f);
            }
        }
        Ok(())
    }
}

pub(super) fn run(root: &Path, args: &StudyArgs) -> Result<(), CliError> {
    let host = host_name(root);
    use Print::{Json, Plan, PlanJson, Summary};
    let takes = [Summary, Json, Print::None, Plan, PlanJson];
    let print = measuring(root, args.output.print, "study", &takes)?;
    let topo = load_topology(root)?;
    let max_time = args.max_time.map(|d| d.as_secs_f64());
    let cpus = topo.allowed_cpus.to_vec();
    let costs = HostCosts::for_cpus(&topo, is_live(root), &cpus, Placement::Strict)?;
    if print.plan() {
        let plan = study::plan_study(&topo, &host, max_time, &costs).map_err(CliError::usage)?;
        let format = [Format::Text, Format::Json][usize::from(print == PlanJson)];
        print!("{}", report::render(&Document::StudyPlan(&plan), format)?);
        return Ok(());
    }
    let session = Session::new(&args.output, &[]);
    let tsc = crate::clock::calibrate_tsc(Duration::from_millis(50));
    let provenance = Provenance::of_this_host(tsc);
    let plan = study::plan_study(&topo, &provenance.hostname, max_time, &costs)
        .map_err(CliError::usage)?;
    check_out(&args.output.out)?;
    if session.chatty() {
        eprintln!(
            "study: budget {:.0} s ({}), planned {:.0} s; --print plan shows it",
            plan.max_time_s, plan.max_time_rule, plan.est_s
        );
        super::print_notes(&plan.notes);
    }
    let p = &provenance;
    let dir = crate::results::new_results_dir(&args.output.out, &p.hostname, &p.started_utc)?;
    let stop = signal::stop_flag();
    let mut saver = Saver {
        session: &session,
        dir,
        bar: Bar {
            inner: indicatif::ProgressBar::hidden(),
            started: None,
        },
        stage: "",
        written: Vec::new(),
    };
    let mut study = Study::new(plan, provenance);
    while let Some(stage) = study.step(&topo, Placement::Strict, stop, |p| saver.show(p)) {
        saver.save(stage, study.results())?;
    }
    let study = study.into_results();
    session.print(&Document::Study(&study), Format::Text)?;
    session.wrote(&saver.written);
    if study.partial {
        return Err(CliError::failure(
            "the study did not finish every stage: what it finished is written",
        ));
    }
    Ok(())
}
