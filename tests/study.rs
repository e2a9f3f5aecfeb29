//! `contend study` end to end on this host: the plan, a short study's
//! files and page, the budget refused when too small, and SIGTERM keeping
//! the finished stages.

mod common;
use common::{assert_usage_error, contend, results_dir, stderr, stdout};
use serde_json::Value;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The studies here measure: one at a time, or each disturbs the other.
static MEASURING: Mutex<()> = Mutex::new(());

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn the_dry_run_shows_the_arithmetic_and_bad_budgets_are_refused() {
    let out = contend(&["study", "--print", "plan"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for needle in [
        "1. matrix:",
        "2. run:",
        "3. sweep:",
        "4. predict:",
        "total: est.",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    assert_usage_error(&["study", "--max-time", "1s"], "too short for this host");
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/topology/spr-2s-224"
    );
    assert_usage_error(&["--sysfs-root", fixture, "study"], "--print plan");
    let plan = common::contend_json(&["--sysfs-root", fixture, "study", "--print", "plan:json"]);
    assert_eq!(plan["cpus"], 224);
    assert!(plan["est_s"].as_f64().unwrap() < 600.0, "{plan}");
}

#[test]
fn a_short_study_writes_every_part_and_one_page_led_by_its_verdict() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let study = |budget: f64| {
        let started = Instant::now();
        let out = contend(&[
            "study",
            "--max-time",
            &format!("{budget}s"),
            "--out",
            dir.path().to_str().unwrap(),
        ]);
        (out, started.elapsed().as_secs_f64())
    };
    // 15 s, unless the start-up measured before planning says this host
    // needs more for the smallest study (it says so up front, exit 2):
    // then the budget it names.
    let mut budget = 15.0;
    let (mut out, mut took) = study(budget);
    if let Some(needed) = stderr(&out)
        .split("the smallest study here needs ")
        .nth(1)
        .and_then(|t| t.split('s').next())
        .and_then(|n| n.parse::<f64>().ok())
    {
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        budget = needed;
        (out, took) = study(budget);
    }
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("verdict: where the cost jumps"), "{text}");
    assert!(
        text.contains("verdict: at 22.0k/s per CPU on 2 CPUs"),
        "{text}"
    );
    // The study checks its own prediction against its own run, and says
    // every model figure is predicted.
    assert!(
        text.contains("verdict: model against measured, net cost per update: median error "),
        "{text}"
    );
    assert!(
        text.contains("verdict: model against measured, flat out: hand-overs/s median error "),
        "{text}"
    );
    // What the run's figures rest on, as `contend run` prints it: its
    // floors, what could have disturbed it (the canary, switches) and,
    // when it was noisy, which strategies were too noisy to call.
    for line in ["harness floor: ", "paced floor (", "interference: steal "] {
        assert!(
            text.lines().any(|l| l.starts_with(line)),
            "no {line:?} line: {text}"
        );
    }
    for line in text.lines().filter(|l| l.contains("the hottest line is")) {
        assert!(line.contains("predicted"), "{line}");
    }
    let folder = results_dir(dir.path()).unwrap();
    for f in [
        "study.json",
        "matrix.json",
        "run.json",
        "sweep.json",
        "predict.json",
        "predict.svg",
        "check.json",
        "report.html",
    ] {
        assert!(
            folder.join(f).is_file(),
            "{f} missing in {}",
            folder.display()
        );
    }
    let study = read_json(&folder.join("study.json"));
    let stages: Vec<(&str, &str)> = study["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["stage"].as_str().unwrap(),
                s["status"]["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        stages,
        [
            ("matrix", "done"),
            ("run", "done"),
            ("sweep", "done"),
            ("predict", "done")
        ]
    );
    assert_eq!(study["partial"], false);
    // The run stage keeps `contend run`'s stop rule (5 repeats, then
    // rounds until each CI is within 5%), within its planned seconds and
    // its share of the 10% margin.
    let run = read_json(&folder.join("run.json"));
    assert_eq!(run["config"]["target_ci_pct"], 5.0, "{}", run["config"]);
    let run_s = study["plan"]["run"]["est_s"].as_f64().unwrap();
    let max_s = run["config"]["max_time_s"].as_f64().unwrap();
    assert!(
        max_s > 0.0 && max_s <= run_s / 0.9 + 1e-9,
        "{max_s} s of {run_s}"
    );
    // The budget holds within 10%, start-up and saving included.
    assert!(took < budget * 1.1, "{took} s of {budget} s");
    let page = std::fs::read_to_string(folder.join("report.html")).unwrap();
    let at = |needle: &str| {
        page.find(needle)
            .unwrap_or_else(|| panic!("{needle} not on the page"))
    };
    let lead = at("data-section=\"study\"");
    for kind in ["matrix", "run", "sweep", "predict", "check"] {
        assert!(
            at(&format!("data-kind=\"{kind}\"")) > lead,
            "{kind} before the verdict"
        );
    }
    // The check's article: predicted against measured, each predicted
    // column saying so; the prediction's table likewise.
    let check = &page[at("data-kind=\"check\"")..];
    for header in [
        "predicted hand-overs/s",
        "predicted net ns",
        "measured net ns",
    ] {
        assert!(check.contains(header), "{header} not in the check");
    }
    let predict = &page[at("data-kind=\"predict\"")..at("data-kind=\"check\"")];
    assert!(predict.contains("predicted net ns/update"), "{predict}");
    assert!(!predict.contains("<th>net ns/update</th>"), "{predict}");
    assert!(page.contains("where the cost jumps"));
    // The study page opens as a run's does: its run's headline and cost
    // chart on the first 1280 x 800 screen.
    if let Some(browser) = common::browser::chromium_or_skip("the study page's first-screen check")
    {
        let work = tempfile::tempdir().unwrap();
        common::browser::assert_headline_on_first_screen(
            &browser,
            work.path(),
            &folder.join("report.html"),
        );
    }
}

#[test]
fn sigterm_keeps_the_finished_stages() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_contend"))
        .args(["study", "--max-time", "40s", "--print", "none", "--out"])
        .arg(dir.path())
        .spawn()
        .unwrap();
    // study.json appears once the matrix stage is done; the run follows.
    let deadline = Instant::now() + Duration::from_secs(60);
    let study_json = loop {
        if let Some(f) = results_dir(dir.path()).map(|d| d.join("study.json"))
            && f.is_file()
        {
            break f;
        }
        assert!(Instant::now() < deadline, "no study.json after 60 s");
        std::thread::sleep(Duration::from_millis(50));
    };
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1));
    let study = read_json(&study_json);
    let status_of = |i: usize| {
        study["stages"][i]["status"]["status"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(status_of(0), "done");
    assert_eq!(status_of(1), "interrupted");
    assert_eq!(
        (status_of(2), status_of(3)),
        ("skipped".into(), "skipped".into())
    );
    assert_eq!(study["partial"], true);
    let folder = study_json.parent().unwrap();
    assert!(folder.join("matrix.json").is_file() && folder.join("run.json").is_file());
    let page = std::fs::read_to_string(folder.join("report.html")).unwrap();
    assert!(page.contains("PARTIAL"), "no partial banner");
}
