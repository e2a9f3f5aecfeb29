//! The fleet on GitHub Actions: the job graph of
//! `.github/workflows/bench.yml` (a matrix over runner label sets, then a
//! fleet job after every host), and `scripts/fleet-merge`, which that job
//! runs, on result folders made here by a real short run: two hosts side
//! by side on one page (drawn by headless Chromium), a host that sent
//! nothing listed as missing, and duplicate host names, partial runs and
//! files of other schemas coped with.
//!
//! The browser test needs `chromium` (`.ci/run` installs it); without one
//! it prints "SKIPPED: chromium not found" and passes.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use yaml_rust2::{Yaml, YamlLoader};

mod common;
use common::browser::{assert_drawn, chromium_or_skip, headless};
use common::{s, stderr};

const INTEL: &str = r#"["self-hosted","linux","multi-socket","intel"]"#;
const AMD: &str = r#"["self-hosted","linux","multi-socket","amd"]"#;
const ARM: &str = r#"["self-hosted","linux","multi-socket","arm"]"#;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One real short run's run.json (default strategies, 3 × 90 ms).
fn run_json() -> &'static Value {
    static RUN: OnceLock<(tempfile::TempDir, Value)> = OnceLock::new();
    &RUN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = common::contend(&[
            "run",
            "--out",
            s(dir.path()),
            "--duration",
            "90ms",
            "--repeats",
            "3",
            "--warmup",
            "0",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let folder = common::results_dir(dir.path()).expect("a results folder");
        let text = std::fs::read_to_string(folder.join("run.json")).unwrap();
        (dir, serde_json::from_str(&text).unwrap())
    })
    .1
}

/// A real quick `contend matrix`'s matrix.json.
fn matrix_json() -> &'static str {
    static MATRIX: OnceLock<String> = OnceLock::new();
    MATRIX.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        read(&common::quick_matrix(dir.path()).join("matrix.json"))
    })
}

/// A host's artifact as the workflow uploads it: `in/NAME/` with
/// fleet-host.json (unless `labels` is None) and the run's run.json,
/// edited, under contend's own `<host>/<stamp>/`.
fn artifact(
    root: &Path,
    name: &str,
    labels: Option<&str>,
    status: &str,
    edit: impl FnOnce(&mut Value),
) -> PathBuf {
    let mut v = run_json().clone();
    edit(&mut v);
    let host = v["provenance"]["hostname"].as_str().unwrap_or("unknown");
    let folder = root.join(name).join(host).join("20260101T000000Z");
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("run.json");
    std::fs::write(&file, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    if let Some(labels) = labels {
        let meta = format!(r#"{{"labels": {labels}, "runner": "{name}", "status": "{status}"}}"#);
        std::fs::write(root.join(name).join("fleet-host.json"), meta).unwrap();
    }
    file
}

fn rename(v: &mut Value, host: &str, cpu: &str) {
    v["provenance"]["hostname"] = host.into();
    v["provenance"]["cpu_model"] = cpu.into();
}

/// `scripts/fleet-merge ARGS` with this build's contend.
fn merge(args: &[&str], summary: Option<&Path>) -> Output {
    let mut cmd = Command::new(repo().join("scripts/fleet-merge"));
    cmd.arg("--contend")
        .arg(env!("CARGO_BIN_EXE_contend"))
        .args(args)
        .env_remove("GITHUB_STEP_SUMMARY");
    if let Some(path) = summary {
        cmd.env("GITHUB_STEP_SUMMARY", path);
    }
    cmd.output().unwrap()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Two hosts (the second with its host name and CPU model rewritten, as
/// two machines differ), and an expected third that sent nothing.
/// The first also has a matrix and a sweep, as `contend matrix` and
/// `contend sweep --rates` leave beside the run.
fn two_hosts(root: &Path) -> (PathBuf, PathBuf) {
    let input = root.join("in");
    let run = artifact(&input, "contend-host-0-spr", Some(INTEL), "success", |v| {
        rename(v, "spr-2s", "Intel(R) Xeon(R) Platinum 8480+")
    });
    let first = run.parent().unwrap();
    std::fs::write(first.join("matrix.json"), matrix_json()).unwrap();
    let r: Value = serde_json::from_str(&read(&run)).unwrap();
    let sweep = serde_json::json!({
        "schema": r["schema"],
        "partial": false,
        "out_of_time": false,
        "points": [
            {"threads": 1, "affinity": "unbound", "rate": null, "results": r},
            {"threads": 2, "affinity": "unbound", "rate": null, "results": r},
        ]
    });
    std::fs::write(first.join("sweep.json"), sweep.to_string()).unwrap();
    artifact(&input, "contend-host-1-epyc", Some(AMD), "success", |v| {
        rename(v, "epyc-nps1", "AMD EPYC 7J13 64-Core Processor")
    });
    (input, root.join("out"))
}

#[test]
fn two_hosts_side_by_side_and_a_missing_one_listed() {
    let dir = tempfile::tempdir().unwrap();
    let (input, out_dir) = two_hosts(dir.path());
    let summary = dir.path().join("step-summary.md");
    std::fs::write(&summary, "earlier steps\n").unwrap();
    let expected = format!("[{INTEL},{AMD},{ARM}]");
    let out = merge(
        &["--expected", &expected, s(&input), s(&out_dir)],
        Some(&summary),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let md = read(&out_dir.join("fleet.md"));
    assert!(
        md.starts_with("# contend fleet: 2 of 3 hosts reported\n"),
        "{md}"
    );
    let rows: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.starts_with("| # | runner labels |"))
        .take_while(|l| l.starts_with('|'))
        .filter(|l| !l.starts_with("|---"))
        .collect();
    assert_eq!(rows.len(), 4, "header and three hosts: {md}");
    assert!(rows[1].contains("| spr-2s | Intel(R) Xeon(R) Platinum 8480+ |"));
    assert!(
        rows[1].contains("| success | run, matrix, sweep |"),
        "{}",
        rows[1]
    );
    assert!(rows[2].contains("multi-socket, amd | epyc-nps1 | AMD EPYC 7J13"));
    assert!(
        rows[3].contains("multi-socket, arm | **MISSING** |"),
        "{}",
        rows[3]
    );
    assert!(md.contains("**Missing hosts (1)**"));
    assert!(
        md.contains("\n- self-hosted, linux, multi-socket, arm\n"),
        "{md}"
    );
    // Each result's own report follows, as contend prints it: Markdown,
    // or the text table where a kind has none (a matrix).
    // Two runs and the sweep have verdicts in Markdown.
    assert_eq!(md.matches("\n**Verdict**\n").count(), 3, "{md}");
    assert!(md.contains("\n```text\n"), "{md}");
    assert!(!md.contains("UNREADABLE"), "{md}");
    // The job summary got the same text, after what was there.
    assert_eq!(read(&summary), format!("earlier steps\n{md}"));

    let html = read(&out_dir.join("fleet.html"));
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("contend report: spr-2s vs epyc-nps1"));
    // One table per measure with a column group per host, side by side.
    let side = html
        .find("<th class=\"host\" colspan=\"2\">spr-2s</th>")
        .expect("spr-2s column group");
    let next = html[side..].find("</tr>").unwrap() + side;
    assert!(
        html[side..next].contains("<th class=\"host\" colspan=\"2\">epyc-nps1</th>"),
        "the hosts are not in one header row"
    );
    // The fleet table and the missing host are on the page too, before
    // the results, escaped like the rest.
    let fleet = html.find("data-section=\"fleet\"").expect("fleet section");
    assert!(fleet < html.find("data-section=\"hosts\"").unwrap());
    assert!(html.contains("MISSING: no results from self-hosted, linux, multi-socket, arm"));
    assert!(
        !html.contains("PARTIAL: a result"),
        "nothing here is partial"
    );
    // Runs first, for the hosts side by side, then the matrix and sweep.
    let kinds: Vec<&str> = html
        .split("data-kind=\"")
        .skip(1)
        .map(|t| &t[..t.find('"').unwrap()])
        .collect();
    assert_eq!(kinds, ["run", "run", "matrix", "sweep"]);
    for bad in ["http://", "https://", "src=", "url("] {
        assert!(!html.contains(bad), "the page contains {bad:?}");
    }
}

#[test]
fn the_fleet_page_renders_in_a_real_browser() {
    let Some(browser) = chromium_or_skip("the fleet browser check") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (input, out_dir) = two_hosts(dir.path());
    let expected = format!("[{INTEL},{AMD}]");
    let out = merge(&["--expected", &expected, s(&input), s(&out_dir)], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let page = out_dir.join("fleet.html");

    assert_drawn(&browser, dir.path(), &page, "fleet");

    // The DOM after the browser parsed it: both hosts in one header row of
    // every side-by-side table, every article (two runs, the matrix, the
    // sweep), the fleet table.
    let (dom, err) = headless(&browser, dir.path(), &page, &["--dump-dom"]);
    assert!(dom.contains("</html>"), "no DOM: {err}");
    assert!(
        dom.contains("data-section=\"hosts\""),
        "no hosts side by side"
    );
    assert!(dom.contains("data-section=\"fleet\""), "no fleet table");
    let groups = dom
        .matches("<th class=\"host\" colspan=\"2\">spr-2s</th>")
        .count();
    assert!(groups >= 3, "{groups} side-by-side tables");
    assert_eq!(
        groups,
        dom.matches("<th class=\"host\" colspan=\"2\">epyc-nps1</th>")
            .count()
    );
    assert_eq!(dom.matches("data-section=\"verdict\"").count(), 4);
    assert!(
        dom.contains("title=\"click to sort\""),
        "the sorter did not run"
    );
    assert!(
        !dom.contains("data-section=\"fleet-missing\""),
        "no host missing"
    );
}

#[test]
fn duplicate_names_partial_runs_and_other_schemas_are_listed_not_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    // Two machines that call themselves the same.
    artifact(&input, "contend-host-0-a", Some(INTEL), "success", |v| {
        rename(v, "node01", "Intel(R) Xeon(R) Platinum 8480+")
    });
    // The same name again, stopped by a timeout: a partial run.
    artifact(&input, "contend-host-1-b", Some(AMD), "cancelled", |v| {
        rename(v, "node01", "AMD EPYC 9654 96-Core Processor");
        v["partial"] = true.into();
    });
    let old = artifact(&input, "contend-host-2-c", Some(ARM), "success", |v| {
        rename(v, "graviton", "Neoverse-V1");
    });
    let folder = old.parent().unwrap();
    // Beside it: a sweep of a newer schema, a matrix of an older one, a
    // file that is not JSON.
    std::fs::write(folder.join("sweep.json"), r#"{"schema": 99, "points": []}"#).unwrap();
    std::fs::write(folder.join("matrix.json"), r#"{"schema": 1, "pairs": 3}"#).unwrap();
    let noise = input.join("contend-host-3-d");
    std::fs::create_dir_all(&noise).unwrap();
    std::fs::write(noise.join("run.json"), "{ not json").unwrap();

    let out_dir = dir.path().join("out");
    let expected = format!("[{INTEL},{AMD},{ARM}]");
    let out = merge(&["--expected", &expected, s(&input), s(&out_dir)], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let md = read(&out_dir.join("fleet.md"));
    assert!(
        md.starts_with("# contend fleet: 4 of 4 hosts reported"),
        "{md}"
    );
    assert!(md.contains("| node01 #1 | Intel"), "{md}");
    assert!(md.contains("| node01 #2 | AMD EPYC 9654"), "{md}");
    assert!(md.contains("| cancelled | run (PARTIAL) |"), "{md}");
    assert!(md.contains("| graviton | Neoverse-V1 |"), "{md}");
    assert!(
        md.contains("| run, matrix (UNREADABLE), sweep (UNREADABLE) |"),
        "{md}"
    );
    // The artifact without fleet-host.json is kept, and says so.
    assert!(
        md.contains("| no fleet-host.json | run (UNREADABLE) |"),
        "{md}"
    );
    assert!(!md.contains("MISSING"), "every expected set reported: {md}");
    // Each unreadable file with contend's own reason.
    assert!(md.contains("**Unreadable result files (3)**"), "{md}");
    for (file, reason) in [
        ("sweep.json", "schema 99, this contend reads schema"),
        ("matrix.json", "schema 1, this contend reads schema 2 only"),
        ("contend-host-3-d/run.json", "not a JSON result file"),
    ] {
        let line = md
            .lines()
            .find(|l| l.starts_with("- contend-host-") && l.contains(&format!("{file}: ")))
            .unwrap_or_else(|| panic!("{file} not listed: {md}"));
        assert!(line.contains(reason), "{line}");
    }
    assert!(md.contains("**Partial results (1)**"), "{md}");

    // The page: three readable runs, the two of the same name numbered as
    // the list numbers them, the partial banner, the unreadable named.
    let html = read(&out_dir.join("fleet.html"));
    for host in ["node01 #1", "node01 #2", "graviton"] {
        assert!(html.contains(&format!(">{host}</th>")), "no {host} column");
    }
    assert!(html.contains("PARTIAL: a result on this page was interrupted"));
    assert!(
        html.contains(
            "UNREADABLE: contend-host-2-c/graviton/20260101T000000Z/sweep.json: schema 99"
        )
    );
    assert_eq!(html.matches("data-section=\"verdict\"").count(), 3);
}

#[test]
fn nothing_readable_is_exit_1_and_bad_usage_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    let out_dir = dir.path().join("out");
    // Every host failed before uploading: all missing, no page.
    let expected = format!("[{INTEL},{AMD}]");
    let out = merge(&["--expected", &expected, s(&input), s(&out_dir)], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let md = read(&out_dir.join("fleet.md"));
    assert!(
        md.starts_with("# contend fleet: 0 of 2 hosts reported"),
        "{md}"
    );
    assert!(md.contains("**Missing hosts (2)**"), "{md}");
    assert!(!out_dir.join("fleet.html").exists());

    let missing = dir.path().join("nowhere");
    for (args, needle) in [
        (
            vec!["--expected", "[[\"a\"]", s(&input), s(&out_dir)],
            "not JSON",
        ),
        (
            vec!["--expected", "[]", s(&input), s(&out_dir)],
            "non-empty JSON list",
        ),
        (
            vec!["--expected", "[[\"a\", 3]]", s(&input), s(&out_dir)],
            "lists of labels",
        ),
        (vec![s(&missing), s(&out_dir)], "not a folder"),
        (vec![s(&input)], "IN_DIR and OUT_DIR are required"),
        (
            vec!["--bogus", s(&input), s(&out_dir)],
            "unrecognized arguments",
        ),
    ] {
        let out = merge(&args, None);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("fleet-merge: error: "), "{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // --check-expected prints the sets compact, for the workflow's matrix.
    let out = merge(
        &["--check-expected", &format!("[ {INTEL} ,\n {AMD} ]")],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let compact = String::from_utf8(out.stdout).unwrap();
    assert_eq!(compact, format!("[{INTEL},{AMD}]\n"));
}

/// The workflow, parsed.
fn workflow() -> Yaml {
    let text = read(&repo().join(".github/workflows/bench.yml"));
    YamlLoader::load_from_str(&text)
        .expect("bench.yml is YAML")
        .remove(0)
}

fn text(y: &Yaml) -> &str {
    y.as_str().unwrap_or_else(|| panic!("not a string: {y:?}"))
}

/// A job's `needs`, one name or a list.
fn needs(job: &Yaml) -> Vec<&str> {
    match &job["needs"] {
        Yaml::String(one) => vec![one.as_str()],
        Yaml::Array(list) => list.iter().map(text).collect(),
        _ => Vec::new(),
    }
}

/// The step of `job` whose `uses` or `run` contains `needle`.
fn step<'a>(job: &'a Yaml, needle: &str) -> &'a Yaml {
    job["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .find(|s| {
            [&s["uses"], &s["run"], &s["name"]]
                .iter()
                .any(|f| f.as_str().is_some_and(|t| t.contains(needle)))
        })
        .unwrap_or_else(|| panic!("no step with {needle}"))
}

#[test]
fn the_workflow_job_graph_runs_the_fleet_then_merges_it() {
    let wf = workflow();
    let jobs = wf["jobs"].as_hash().expect("jobs");
    let names: Vec<&str> = jobs.keys().map(text).collect();
    for name in ["charts", "fleet-hosts", "multi-socket", "fleet"] {
        assert!(names.contains(&name), "no job {name}: {names:?}");
    }
    // Every need names a job, and the graph has no cycle (each job needs
    // only jobs listed before it).
    for (i, (name, job)) in jobs.iter().enumerate() {
        for need in needs(job) {
            let at = names.iter().position(|n| *n == need);
            assert!(at.is_some_and(|j| j < i), "{name:?} needs {need}");
        }
        assert!(
            job["timeout-minutes"].as_i64().is_some(),
            "{name:?}: no timeout"
        );
        for st in job["steps"].as_vec().unwrap() {
            // Actions pinned to a commit.
            if let Some(uses) = st["uses"].as_str() {
                let sha = uses.split_once('@').map(|(_, r)| r).unwrap_or("");
                assert!(
                    sha.len() == 40 && sha.chars().all(|c| c.is_ascii_hexdigit()),
                    "{uses} is not pinned to a commit"
                );
            }
            // Every script a step runs exists and is executable.
            for word in st["run"].as_str().unwrap_or("").split_whitespace() {
                if let Some(script) = word.strip_prefix("scripts/") {
                    let path = repo().join("scripts").join(script);
                    let mode = std::os::unix::fs::PermissionsExt::mode(
                        &std::fs::metadata(&path)
                            .unwrap_or_else(|_| panic!("{word} missing"))
                            .permissions(),
                    );
                    assert!(mode & 0o111 != 0, "{word} is not executable");
                }
            }
        }
    }

    // The label sets: a repository variable or the default, checked.
    let hosts = &wf["jobs"]["fleet-hosts"];
    let fleet_var = text(&step(hosts, "--check-expected")["env"]["FLEET"]);
    let default = fleet_var
        .strip_prefix("${{ vars.CONTEND_FLEET || '")
        .and_then(|t| t.strip_suffix("' }}"))
        .expect("FLEET is vars.CONTEND_FLEET or a default");
    let sets: Value = serde_json::from_str(default).expect("the default is JSON");
    let sets: Vec<String> = sets
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(sets, [INTEL, AMD], "the default fleet");
    assert_eq!(
        text(&hosts["outputs"]["labels"]),
        "${{ steps.hosts.outputs.labels }}"
    );

    // The matrix: one job per label set, each on its own runners, not
    // stopping the others when it fails; its results uploaded whatever
    // happened, under a name the fleet job downloads.
    let ms = &wf["jobs"]["multi-socket"];
    assert_eq!(needs(ms), ["fleet-hosts"]);
    assert_eq!(
        text(&ms["strategy"]["matrix"]["labels"]),
        "${{ fromJSON(needs.fleet-hosts.outputs.labels) }}"
    );
    assert_eq!(text(&ms["runs-on"]), "${{ matrix.labels }}");
    assert_eq!(ms["strategy"]["fail-fast"].as_bool(), Some(false));
    for job in [hosts, ms] {
        assert_eq!(text(&job["if"]), "github.event_name != 'pull_request'");
    }
    let runs = text(&step(ms, "contend run")["run"]);
    for cmd in ["contend matrix", "contend run", "contend sweep"] {
        let line = runs.lines().find(|l| l.contains(cmd)).expect(cmd);
        assert!(line.contains("--out target/fleet"), "{line}");
    }
    assert!(runs.contains("--rates "), "{runs}");
    let describe = step(ms, "fleet-host.json");
    assert_eq!(text(&describe["if"]), "always()");
    assert!(text(&describe["run"]).contains("> target/fleet/fleet-host.json"));
    assert_eq!(text(&describe["env"]["STATUS"]), "${{ job.status }}");
    let upload = step(ms, "this host's results");
    assert_eq!(text(&upload["if"]), "always()");
    assert_eq!(text(&upload["with"]["path"]), "target/fleet");
    let name = text(&upload["with"]["name"]);
    assert!(
        name.starts_with("contend-host-${{ strategy.job-index }}-"),
        "{name}"
    );

    // The fleet job: after the matrix, whatever its outcome; every host's
    // artifact in, one page and summary out, with the same label sets.
    let fleet = &wf["jobs"]["fleet"];
    assert!(needs(fleet).contains(&"multi-socket"));
    assert!(needs(fleet).contains(&"fleet-hosts"));
    assert!(
        text(&fleet["if"]).starts_with("always() && "),
        "runs after failures"
    );
    let download = step(fleet, "actions/download-artifact@");
    assert_eq!(text(&download["with"]["pattern"]), "contend-host-*");
    let merge = step(fleet, "scripts/fleet-merge");
    assert_eq!(
        text(&merge["env"]["FLEET"]),
        "${{ needs.fleet-hosts.outputs.labels }}"
    );
    let cmd = text(&merge["run"]);
    let input = text(&download["with"]["path"]);
    assert!(cmd.contains("--expected \"$FLEET\""), "{cmd}");
    assert!(cmd.contains(&format!(" {input} target/fleet-out")), "{cmd}");
    let up = step(fleet, "upload the fleet page");
    assert_eq!(text(&up["with"]["name"]), "contend-fleet");
    assert_eq!(text(&up["with"]["path"]), "target/fleet-out");
}
