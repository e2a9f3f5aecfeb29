//! `contend sweep` end to end on this host: a short sweep, its files, its
//! errors, and Ctrl-C.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{contend, results_dir, stderr};

/// True when this host has one NUMA node (then the default affinity sets
/// are just `unbound`).
fn one_node() -> bool {
    std::fs::read_to_string("/sys/devices/system/node/online").map_or(true, |s| s.trim() == "0")
}

#[test]
fn short_sweep_writes_exact_points_and_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = contend(&[
        "sweep",
        "--threads",
        "1,2",
        "--level",
        "global,cpu",
        "--publish",
        "always",
        "--duration",
        "60ms",
        "--repeats",
        "2",
        "--warmup",
        "0",
        "--out",
        out,
        "--print",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["schema"], contend::runner::SCHEMA_VERSION);
    assert_eq!(v["partial"], false);
    let points = v["points"].as_array().unwrap();
    let unbound: Vec<u64> = points
        .iter()
        .filter(|p| p["affinity"] == "unbound")
        .map(|p| p["threads"].as_u64().unwrap())
        .collect();
    assert_eq!(unbound, [1, 2]);
    if one_node() {
        assert_eq!(points.len(), 2);
    }
    for p in points {
        let affinity = p["affinity"].as_str().unwrap();
        assert!(affinity == "unbound" || affinity.starts_with("node"));
        let threads = p["threads"].as_u64().unwrap() as usize;
        let run = &p["results"];
        assert_eq!(run["partial"], false);
        assert_eq!(
            run["config"]["writer_cpus"].as_array().unwrap().len(),
            threads
        );
        let names: Vec<&str> = run["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["global/always/pad128", "cpu/always/pad128"]);
        for s in run["strategies"].as_array().unwrap() {
            assert_eq!(s["exact"], true, "{affinity} × {threads}: {}", s["name"]);
            let repeats = s["repeats"].as_array().unwrap();
            assert_eq!(repeats.len(), 2);
            for r in repeats {
                assert_eq!(r["final_sum"], r["expected_sum"]);
                assert!(r["write_ops_per_s"].as_f64().unwrap() > 0.0);
            }
        }
    }

    let folder = results_dir(dir.path()).expect("a results folder");
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(saved, v, "sweep.json is what --print json printed");

    let csv = std::fs::read_to_string(folder.join("sweep.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    for column in [
        "threads",
        "affinity",
        "strategy",
        "write_ops_per_s_mean",
        "write_ops_per_s_stddev",
        "read_ops_per_s_mean",
        "write_ns_mean",
        "publishes_per_s_mean",
        "staleness_error_mean_pct",
    ] {
        assert!(
            header.contains(&column),
            "sweep.csv lacks {column}: {header:?}"
        );
    }
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), points.len() * 2, "{csv}");
    assert!(
        // The rate column is empty: a hammer point.
        rows[0].starts_with("1,unbound,,global/always/pad128,"),
        "{csv}"
    );

    // Every CSV row holds its point's summary as sweep.json has it.
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs());
    let mut row_no = 0;
    for p in points {
        for s in p["results"]["strategies"].as_array().unwrap() {
            let cells: Vec<&str> = rows[row_no].split(',').collect();
            row_no += 1;
            assert_eq!(
                (
                    cells[col("threads")],
                    cells[col("affinity")],
                    cells[col("strategy")]
                ),
                (
                    p["threads"].to_string().as_str(),
                    p["affinity"].as_str().unwrap(),
                    s["name"].as_str().unwrap()
                ),
                "{csv}"
            );
            let w = &s["summary"]["write_ops_per_s"];
            for (column, key) in [
                ("write_ops_per_s_mean", "mean"),
                ("write_ops_per_s_stddev", "stddev"),
            ] {
                let got: f64 = cells[col(column)].parse().unwrap();
                let want = w[key].as_f64().unwrap();
                assert!(
                    near(got, want),
                    "{column}: {got} in sweep.csv, {want} in sweep.json"
                );
            }
        }
    }
    assert_eq!(row_no, rows.len());

    // sweep.md: the tables, one row per point, the write side's cells
    // rebuilt from sweep.json (mean ±cv to 3 significant digits, cpu's
    // change against global, n.s. unless the statistics support it: one
    // change per single-row table, so Holm leaves its p as it is).
    let md = std::fs::read_to_string(folder.join("sweep.md")).unwrap();
    assert!(md.starts_with("## contend sweep on "), "{md}");
    let write_side = md
        .split("\n### ")
        .find(|t| t.starts_with("write side: updates/s"))
        .unwrap_or_else(|| panic!("no write side table: {md}"));
    let mut table = write_side.lines().skip_while(|l| !l.starts_with('|'));
    assert_eq!(
        table.next(),
        Some("| threads | affinity | policy | global | cpu |"),
        "{md}"
    );
    assert_eq!(table.next(), Some("|---|---|---|---|---|"), "{md}");
    let table: Vec<&str> = table.take_while(|l| l.starts_with('|')).collect();
    assert_eq!(table.len(), points.len(), "{md}");
    use contend::stats::{Decision, Difference, Summary, Threshold};
    use contend::units::{Unit, figure, is_noise};
    // Every point's rows share one table, so Holm adjusts over all of them.
    let summaries: Vec<(Summary, Summary)> = points
        .iter()
        .map(|p| {
            let cell = |i: usize| -> Summary {
                serde_json::from_value(
                    p["results"]["strategies"][i]["summary"]["write_ops_per_s"].clone(),
                )
                .unwrap()
            };
            (cell(0), cell(1))
        })
        .collect();
    let diffs: Vec<Difference> = summaries
        .iter()
        .map(|(g, c)| Difference::of(g, c))
        .collect();
    let adjusted = contend::stats::holm_adjusted(
        &diffs
            .iter()
            .map(|d| d.welch.map_or(1.0, |w| w.p))
            .collect::<Vec<_>>(),
    );
    for (i, (p, line)) in points.iter().zip(&table).enumerate() {
        let (g, c) = summaries[i];
        let supported = matches!(
            Decision::of(&diffs[i], Threshold::relative(2.0), adjusted[i]),
            Decision::Increase | Decision::Decrease
        );
        // A change of or against noise is not printed.
        let change = if is_noise(&g) || is_noise(&c) {
            String::new()
        } else {
            format!(
                " ({:+.1}%{})",
                100.0 * (c.mean - g.mean) / g.mean,
                if supported { "" } else { " n.s." }
            )
        };
        let want = format!(
            "| {} | {} | always | {} | {}{change} |",
            p["threads"],
            p["affinity"].as_str().unwrap(),
            figure(&g, Unit::PerSecond),
            figure(&c, Unit::PerSecond),
        );
        assert_eq!(*line, want, "{md}");
    }
    let repeats = points.len() * 2 * 2;
    assert!(
        md.contains(&format!("**Exact sums:** all {repeats} repeats exact.")),
        "{md}"
    );

    // The charts: a throughput-vs-threads chart per affinity set and the
    // run charts of every point (no staleness chart: no ratelimit), each
    // well-formed SVG with its title.
    let mut svgs: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    svgs.sort();
    let mut want: Vec<String> = Vec::new();
    for p in points {
        let (affinity, threads) = (p["affinity"].as_str().unwrap(), &p["threads"]);
        let sweep_chart = format!("sweep-throughput-{affinity}.svg");
        if !want.contains(&sweep_chart) {
            want.push(sweep_chart);
        }
        for chart in ["latency", "ns-per-op", "throughput"] {
            want.push(format!("point-{affinity}-t{threads}-{chart}.svg"));
        }
    }
    want.sort();
    assert_eq!(svgs, want, "charts in {}", folder.display());
    for name in &svgs {
        let path: PathBuf = folder.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let elements = common::xml::parse_xml(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(elements[0].name, "svg", "{name}");
        let title = elements
            .iter()
            .find(|e| e.name == "text")
            .map(|e| e.text.trim())
            .unwrap_or_default();
        if let Some(affinity) = name
            .strip_prefix("sweep-throughput-")
            .and_then(|n| n.strip_suffix(".svg"))
        {
            assert!(
                title.starts_with(&format!(
                    "Write throughput vs threads, affinity {affinity} on "
                )),
                "{name}: {title:?}"
            );
        } else {
            assert!(!title.is_empty(), "{name} has no title");
        }
    }
}

#[test]
fn bad_input_is_one_line_exit_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    for (args, says) in [
        (&["--threads", "0"][..], "--threads 0"),
        (&["--affinity", "node7"][..], "node 7 does not exist"),
        (&["--threads", "100000"][..], "skipped"),
        (
            &["--threads", "1", "--repeats", "20"][..],
            "under 1 ms per repeat",
        ),
    ] {
        let mut all = vec!["sweep", "--out", out, "--duration", "10ms"];
        all.extend(args);
        common::assert_usage_error(&all, says);
    }
    assert!(results_dir(dir.path()).is_none(), "bad input made a folder");
    // A fixture is no place to pin threads: refused, saying why.
    common::assert_usage_error(
        &[
            "--sysfs-root",
            "tests/fixtures/topology/spr-2s-224",
            "sweep",
            "--out",
            out,
        ],
        "live host",
    );
    assert!(results_dir(dir.path()).is_none(), "a fixture made a folder");
}

#[test]
fn ctrl_c_keeps_finished_points_and_marks_the_sweep_partial() {
    let dir = tempfile::tempdir().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_contend"))
        .args([
            "sweep",
            "--threads",
            "1,2",
            "--affinity",
            "unbound",
            "--level",
            "global",
            "--publish",
            "always",
            "--duration",
            "1500ms",
            "--repeats",
            "1",
            "--warmup",
            "0",
            "--print",
            "none",
            "--out",
            dir.path().to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // sweep.json appears once the first point has finished; the second
    // point then runs for another 1.5 s.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !results_dir(dir.path()).is_some_and(|d| d.join("sweep.json").exists()) {
        assert!(Instant::now() < deadline, "the first point never finished");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: sending SIGINT to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("interrupted"), "{}", stderr(&out));
    let folder = results_dir(dir.path()).unwrap();
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(json["partial"], true);
    let points = json["points"].as_array().unwrap();
    assert_eq!(points.len(), 1, "only the finished point is kept");
    assert_eq!(points[0]["threads"], 1);
    assert_eq!(points[0]["results"]["partial"], false);
    assert!(folder.join("sweep.csv").exists());
    assert!(folder.join("sweep.md").exists());
}
