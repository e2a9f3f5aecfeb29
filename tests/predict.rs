//! `contend predict` end to end: the seeds' hosts from their fixtures and
//! published latencies (docs/predict.md has the table), one-line errors,
//! the files it writes, and `--check` on a paced run measured here.

mod common;
use common::{assert_usage_error, contend, contend_json, results_dir, stderr, stdout};
use serde_json::Value;

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/topology/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The class latencies docs/predict.md gives each seed host, from
/// docs/seeds.md: Ice Lake 8375C's ping-pong (SMT 8, same socket 51,
/// cross socket 108 ns) for the two Intel hosts; Milan 7R13's for the EPYC
/// 7J13 (same CCX 23, cross CCX 90-110, cross socket 197 ns) with Genoa
/// 9274F's SMT 9 ns, Milan having none published.
const INTEL: &str = "smt=8ns,same-llc=51ns,cross-node=108ns";
const EPYC: &str = "smt=9ns,same-llc=23ns,same-node=100ns±10%,cross-node=197ns";

fn seed_host(host: &str, latency: &str, rates: &str) -> Value {
    contend_json(&[
        "--sysfs-root",
        &fixture(host),
        "predict",
        "--latency",
        latency,
        "--rates",
        rates,
        "--level",
        "global,node,llc",
        "--publish",
        "always,ratelimit:1ms",
        "--json",
    ])
}

/// The prediction of `name` at rate index `i`.
fn point<'a>(p: &'a Value, name: &str, i: usize) -> &'a Value {
    let s = p["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no {name}"));
    &s["points"][i]
}

fn rho(p: &Value) -> (f64, f64) {
    (
        p["rho"]["lo"].as_f64().unwrap(),
        p["rho"]["hi"].as_f64().unwrap(),
    )
}

#[test]
fn the_seeds_hosts_put_the_gap_on_the_update_rate() {
    // Sapphire Rapids at the seed's 22k/s per CPU: ρ 0.29-0.49, queueing
    // but below saturation with these idle-line latencies; the ratelimit
    // takes it far below.
    let spr = seed_host("spr-2s-224", INTEL, "22k");
    let (lo, hi) = rho(point(&spr, "global/always", 0));
    assert!(
        (0.28..0.30).contains(&lo) && (0.48..0.50).contains(&hi),
        "{lo} {hi}"
    );
    // The ratelimit caps the publishes; with every fetch occupying the
    // line (the default) the reads after them keep ρ near always's, with
    // only the first read after a write queueing it is far below.
    let (_, hi) = rho(point(&spr, "global/ratelimit:1ms", 0));
    let (_, always_hi) = rho(point(&spr, "global/always", 0));
    assert!(hi < always_hi, "{hi} vs {always_hi}");
    let first = contend_json(&[
        "--sysfs-root",
        &fixture("spr-2s-224"),
        "predict",
        "--latency",
        INTEL,
        "--rates",
        "22k",
        "--level",
        "global",
        "--publish",
        "ratelimit:1ms",
        "--read-occupancy",
        "first",
        "--json",
    ]);
    let (_, hi) = rho(point(&first, "global/ratelimit:1ms", 0));
    assert!(hi < 0.1, "{hi}");
    // One LLC per node: the two splits are the same lines.
    assert_eq!(point(&spr, "node/always", 0), point(&spr, "llc/always", 0));
    // EPYC 7J13 at the same 22k/s: near saturation or past it (its
    // cross-CCX and cross-socket transfers are dearer), and still priced,
    // dearer than SPR's, with its sensitivity; at the rate its thread
    // reported (7k migrations per 5 s on 256 CPUs, 5.5/s per CPU) the
    // line is idle.
    let epyc = seed_host("epyc-7j13-2s-nps1-256", EPYC, "22k,5.5");
    let busy = point(&epyc, "global/always", 0);
    assert!(rho(busy).1 >= 0.8, "{busy}");
    assert!(busy["state"] != "below", "{busy}");
    let share = |p: &Value| p["cpu_share_pct"]["mid"].as_f64().unwrap();
    assert!(
        share(busy) > share(point(&spr, "global/always", 0)),
        "{busy}"
    );
    assert!(busy["share_per_pct"].as_f64().unwrap() > 0.0, "{busy}");
    let (_, hi) = rho(point(&epyc, "global/always", 1));
    assert!(hi < 1e-3, "{hi}");
    assert_ne!(
        point(&epyc, "node/always", 0),
        point(&epyc, "llc/always", 0)
    );
    // Xeon 8358: half the CPUs of SPR, so at 22k/s half the traffic.
    let xeon = seed_host("xeon-8358-2s-128", INTEL, "22k");
    let (x_lo, _) = rho(point(&xeon, "global/always", 0));
    assert!(x_lo < lo, "{x_lo} vs SPR {lo}");
}

#[test]
fn the_text_leads_with_the_verdict_and_teaches_its_terms() {
    let out = contend(&[
        "--sysfs-root",
        &fixture("spr-2s-224"),
        "predict",
        "--latency",
        INTEL,
        "--rates",
        "22k",
        "--level",
        "global,node,llc,cpu",
        "--publish",
        "always,ratelimit:1ms",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let first_verdict = text
        .lines()
        .position(|l| l.starts_with("verdict: "))
        .unwrap();
    let table = text
        .lines()
        .position(|l| l.starts_with("strategy "))
        .unwrap();
    assert!(first_verdict < table, "{text}");
    assert!(
        text.contains("verdict: at 22.0k/s per CPU on 224 CPUs, global/always: the hottest line is predicted at ρ 0.29–0.49"),
        "{text}"
    );
    // Flat out, one transfer at a time on the one line; nothing handed
    // over when every CPU has its own.
    assert!(
        text.contains("verdict: flat out, global/always (predicted): 1 saturated line hands over one transfer at a time"),
        "{text}"
    );
    assert!(
        text.contains("verdict: flat out, cpu/always (predicted): no line has two writers"),
        "{text}"
    );
    assert!(text.contains("net ns/update (predicted)"), "{text}");
    assert!(text.contains("cross-node@21 108 ns (81.0–135)"), "{text}");
    assert!(
        text.contains("ρ = the hottest line's offered utilisation"),
        "{text}"
    );
    // Two nodes of writers: each node's cost on the first screen, and
    // which inputs priced the line.
    assert!(
        text.contains(
            "global/always per node (memory on node 0): node 0 (the memory's, 112 writers)"
        ),
        "{text}"
    );
    assert!(
        text.contains("transfer time under load: the idle class latencies"),
        "{text}"
    );
}

#[test]
fn published_line_costs_price_the_remote_node_and_are_recorded() {
    // The counter's memory on node 1 and a remote transfer 1.6× the
    // local (Skylake 6132's MLC, docs/predict.md): node 0's writers pay
    // more than node 1's; every input is kept
    // in predict.json with its source.
    let p = contend_json(&[
        "--sysfs-root",
        &fixture("spr-2s-224"),
        "predict",
        "--latency",
        INTEL,
        "--rates",
        "22k",
        "--level",
        "global",
        "--publish",
        "always",
        "--contenders",
        "1:37ns,32:56ns,64:56ns",
        "--sharers",
        "1:60ns,16:140ns",
        "--home",
        "remote=1.6x",
        "--home-node",
        "1",
        "--json",
    ]);
    let q = point(&p, "global/always", 0);
    let nodes = q["by_node"].as_array().unwrap();
    assert_eq!(nodes.len(), 2, "{q}");
    let (n0, n1) = (&nodes[0], &nodes[1]);
    assert_eq!(
        (n0["home"].as_bool(), n1["home"].as_bool()),
        (Some(false), Some(true))
    );
    let cost = |n: &Value| n["cost_ns"]["mid"].as_f64().unwrap();
    assert!(cost(n0) > cost(n1), "{q}");
    let costs = &p["latencies"]["costs"];
    assert_eq!(
        costs["contenders"]["source"],
        "--contenders 1:37ns,32:56ns,64:56ns"
    );
    assert_eq!(costs["sharers"]["points"][1]["at"], 16);
    assert_eq!(costs["home"]["source"], "--home remote=1.6x");
    assert_eq!(
        (
            costs["home_node"].as_u64(),
            costs["read_occupancy"].as_str()
        ),
        (Some(1), Some("every"))
    );
}

#[test]
fn bad_requests_exit_2_with_one_line() {
    let spr = fixture("spr-2s-224");
    let base = ["--sysfs-root", spr.as_str(), "predict"];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let run = |extra: &[&str], needle: &str| {
        let args = with(extra);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_usage_error(&refs, needle);
    };
    run(&["--latency", "same-socket=51ns"], "same-socket");
    run(
        &["--latency", "same-llc=51ns,cross-node=108ns"],
        "no latency for class smt",
    );
    run(&["--latency", INTEL, "--rates", "fast"], "fast");
    run(&["--latency", INTEL, "--rates", ""], "rate");
    run(&[], "no class latencies");
    run(
        &["--latency", INTEL, "--contenders", "300:56ns"],
        "300 is not between 1 and the host's 224 CPUs",
    );
    run(
        &["--latency", INTEL, "--sharers", "1:-3ns"],
        "bad --sharers",
    );
    run(
        &["--latency", INTEL, "--contenders", "1:37ms"],
        "\"37ms\" is not a time",
    );
    run(
        &["--latency", INTEL, "--home", "local=100ns"],
        "no remote figure",
    );
    run(&["--latency", INTEL, "--home", "remote=lots"], "bad --home");
    run(&["--latency", INTEL, "--home-node", "7"], "--home-node 7");
    run(
        &["--latency", INTEL, "--home", "same-llc=1.2x,smt=1x"],
        "no ratio for class cross-node@21",
    );
    run(&["--latency", INTEL, "--writers", "300"], "--writers 300");
    run(&["--latency", INTEL, "--arrivals", "bursty"], "bursty");
    run(
        &["--latency", INTEL, "--read-back", "lots"],
        "\"lots\" is not a ratio",
    );
    let flat = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/results/run.json"
    );
    run(&["--check", flat], "no paced strategy");
}

#[test]
fn a_read_back_given_as_published_is_paid_by_few_writers_not_by_many() {
    // threshold:64 at 22k/s, paced: with two writers a writer's read
    // after its own publish finds only the other's read since 0.6 × 0.4
    // × 0.6 of the time, and at 1× a transfer that costs; with every
    // CPU of the host writing, someone else nearly always wrote since.
    let share = |writers: &str, extra: &[&str]| {
        let spr = fixture("spr-2s-224");
        let mut args = vec![
            "--sysfs-root",
            spr.as_str(),
            "predict",
            "--latency",
            INTEL,
            "--writers",
            writers,
            "--rates",
            "22k",
            "--level",
            "global",
            "--publish",
            "threshold:64",
            "--arrivals",
            "paced",
            "--json",
        ];
        args.extend(extra);
        point(&contend_json(&args), "global/threshold:64", 0)["cpu_share_pct"]["mid"]
            .as_f64()
            .unwrap()
    };
    let (free, back) = (share("2", &[]), share("2", &["--read-back", "1x"]));
    assert!(back > free * 1.1, "{free} {back}");
    let (free, back) = (share("224", &[]), share("224", &["--read-back", "1x"]));
    assert!(back >= free && back < free * 1.02, "{free} {back}");
}

#[test]
fn out_writes_the_json_and_the_chart() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p");
    let o = contend(&[
        "--sysfs-root",
        &fixture("xeon-8358-2s-128"),
        "predict",
        "--latency",
        INTEL,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: Value =
        serde_json::from_slice(&std::fs::read(out.join("predict.json")).unwrap()).unwrap();
    assert_eq!(json["config"]["rates"].as_array().unwrap().len(), 3);
    let svg = std::fs::read_to_string(out.join("predict.svg")).unwrap();
    let nodes = common::xml::parse_xml(&svg).unwrap();
    assert!(!nodes.is_empty());
    assert!(svg.contains("global/ratelimit:1ms") && svg.contains("ρ of the hottest line"));
}

#[test]
fn check_sets_the_model_against_a_paced_run_here() {
    let dir = tempfile::tempdir().unwrap();
    let o = contend(&[
        "run",
        "--writers",
        "2",
        "--level",
        "global",
        "--publish",
        "always",
        "--rate",
        "100k,1M",
        "--duration",
        "100ms",
        "--repeats",
        "2",
        "--warmup",
        "10ms",
        "--quiet",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = results_dir(dir.path()).unwrap().join("run.json");
    let c = contend_json(&["predict", "--check", run.to_str().unwrap(), "--json"]);
    let points = c["points"].as_array().unwrap();
    assert_eq!(points.len(), 2, "{c}");
    for p in points {
        assert!(p["canary_ns"].as_f64().unwrap() > 0.0, "{p}");
        assert_eq!(p["writers"], 2);
        assert_eq!(p["repeats"], 2);
        // Exact transfers: at most one hand-over per update and one fetch
        // per read (a read after every update); predicted: one hand-over.
        let exact = p["measured_transfers"].as_f64().unwrap();
        assert!((0.0..=2.0).contains(&exact), "{p}");
        assert_eq!(p["predicted_transfers"], 1.0, "{p}");
    }
    // The line-cost flags reach the check and are said: which fetches
    // occupied the line.
    assert!(
        c["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "fetches that occupy the line: every (--read-occupancy)"),
        "{c}"
    );
    let first = contend_json(&[
        "predict",
        "--check",
        run.to_str().unwrap(),
        "--read-occupancy",
        "first",
        "--json",
    ]);
    assert!(
        first["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "fetches that occupy the line: first (--read-occupancy)"),
        "{first}"
    );
    let text = stdout(&contend(&["predict", "--check", run.to_str().unwrap()]));
    assert!(
        text.contains("verdict: model against measured, net cost per update: median error "),
        "{text}"
    );
    assert!(
        text.contains("points agree (prediction inside the measured 95% CI"),
        "{text}"
    );
    assert!(text.contains("; worst: global/always"), "{text}");
    assert!(
        text.contains("structure: median error of transfers per update"),
        "{text}"
    );
    assert!(
        text.contains(
            "transfer time = each repeat's canary, standing in for the run's one pair class"
        ),
        "{text}"
    );
    // --max-error: a failure when the median error is over it, none when
    // not; only with --check.
    // Two short repeats may measure a point at or below 0: then the
    // median of two is not finite and over any maximum.
    let path = run.to_str().unwrap();
    let loose = contend(&["predict", "--check", path, "--max-error", "1e9"]);
    if c["median_abs_error_pct"].is_f64() {
        assert!(loose.status.success(), "{}", stderr(&loose));
    } else {
        assert_eq!(loose.status.code(), Some(1), "{}", stdout(&loose));
        assert!(
            stderr(&loose).contains("median error is not finite"),
            "{}",
            stderr(&loose)
        );
    }
    let strict = contend(&["predict", "--check", path, "--max-error", "0"]);
    assert_eq!(strict.status.code(), Some(1), "{}", stdout(&strict));
    assert!(stderr(&strict).contains("--max-error 0%: the model's median error is"));
    let alone = contend(&["predict", "--max-error", "5"]);
    assert_eq!(alone.status.code(), Some(2));

    // A sweep's paced points, each named by its series (strategy, threads,
    // affinity); with three rates the series has a knee line.
    let sweep_dir = tempfile::tempdir().unwrap();
    let o = contend(&[
        "sweep",
        "--threads",
        "2",
        "--affinity",
        "unbound",
        "--rates",
        "100k,300k,1M",
        "--level",
        "global",
        "--publish",
        "always",
        "--duration",
        "60ms",
        "--repeats",
        "2",
        "--warmup",
        "10ms",
        "--quiet",
        "--out",
        sweep_dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sweep = results_dir(sweep_dir.path()).unwrap().join("sweep.json");
    let c = contend_json(&["predict", "--check", sweep.to_str().unwrap(), "--json"]);
    let points = c["points"].as_array().unwrap();
    assert_eq!(points.len(), 3, "{c}");
    assert!(
        points
            .iter()
            .all(|p| p["series"] == "global/always/pad128 2 threads unbound"),
        "{c}"
    );
    assert_eq!(c["knees"].as_array().unwrap().len(), 1, "{c}");
}

/// The seed's host from cited figures only (docs/predict.md, "The seed's
/// host from cited figures only"): the SPR's second-hand class latencies,
/// the seed's write fractions, lockhammer's contention curve.
fn seed_from_cited(extra: &[&str]) -> Value {
    let mut args = vec![
        "--sysfs-root".to_string(),
        fixture("spr-2s-224"),
        "predict".into(),
        "--latency".into(),
        "smt=8ns,same-llc=75ns±25ns,cross-node=135ns±15ns".into(),
        "--rates".into(),
        "22k".into(),
        "--level".into(),
        "global,node".into(),
        "--publish".into(),
        "threshold:64,ratelimit:1ms+threshold:64".into(),
        "--publishes".into(),
        "ratelimit:1ms+threshold:64=0.1%".into(),
        "--contenders".into(),
        "1:37.3ns,2:39.1ns,4:44.5ns,8:46.0ns,16:50.3ns,32:56.0ns,64:56.8ns".into(),
        "--json".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    contend_json(&refs)
}

#[test]
fn the_seeds_host_from_cited_figures_is_the_table_docs_give() {
    let share = |p: &Value, name: &str| {
        let s = &point(p, name, 0)["cpu_share_pct"];
        (s["lo"].as_f64().unwrap(), s["hi"].as_f64().unwrap())
    };
    let near = |(lo, hi): (f64, f64), (a, b): (f64, f64)| {
        (lo - a).abs() <= 0.01 * a.max(0.01) && (hi - b).abs() <= 0.01 * b.max(0.01)
    };
    let p = seed_from_cited(&[]);
    let before = share(&p, "global/threshold:64");
    assert!(near(before, (0.82, 3.60)), "{before:?}");
    // The merged fix at the seed's 25k adds per 5 s: at most 0.5% of a
    // CPU, far under the counter before it.
    let fix = share(&p, "global/ratelimit:1ms+threshold:64");
    assert!(fix.1 <= 0.5 && fix.1 < before.0, "{fix:?}");
    // The split's reads of both lines: dearer than global here.
    let split = share(&p, "node/threshold:64");
    assert!(split.0 > before.0, "{split:?} vs {before:?}");
    // With Skylake 6132's home penalty the remote node pays more.
    let home = seed_from_cited(&["--home", "remote=1.6x"]);
    let nodes = point(&home, "global/threshold:64", 0)["by_node"]
        .as_array()
        .unwrap()
        .clone();
    let mid = |n: &Value| n["cpu_share_pct"]["mid"].as_f64().unwrap();
    assert_eq!(nodes[0]["home"].as_bool(), Some(true));
    assert!(mid(&nodes[1]) > mid(&nodes[0]), "{nodes:?}");
    let with_home = share(&home, "global/threshold:64");
    assert!(near(with_home, (2.07, 18.8)), "{with_home:?}");
}
