//! Issue 23: `contend study` scales on paper. The plan of the 1024-CPU,
//! 16-node fixture (`big-8s-16node-1024`) comes out whole and within the
//! budget's cap, and the report page of a study on that many CPUs, built
//! here from real small results scaled up to the fixture, stays under
//! 2 MB and readable: the matrix drawn as its classes and the sampled
//! CPUs, not a 1024 × 1024 grid.

use contend::counter::{ShardLevel, SlotInfo};
use contend::matrix::{
    MatrixResults, PairClass, PairResult, advise, class_stats, empty_classes, select_pairs,
};
use contend::placement::{NodeCheck, PinnedThread};
use contend::predict::{Latencies, Layout, PredictRequest, predict};
use contend::report::{Document, Format, render};
use contend::runner::{HostCosts, RunResults, Strategy, StrategyResult, ThreadPlacement};
use contend::study::{
    StageRecord, StageStatus, StudyParts, StudyPlan, StudyResults, plan_study, run_strategies,
    sweep_strategies,
};
use contend::sweep::{SweepPoint, SweepResults};
use contend::topology::{CpuSpec, Topology};
use contend::workload::{Arrivals, Regime};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod common;
use common::{contend_json, quick_matrix};

const BIG: &str = "big-8s-16node-1024";

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/topology")
        .join(name)
}

fn fixture(name: &str) -> Topology {
    Topology::read(&fixture_path(name)).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// `contend --sysfs-root <fixture> study --print plan:json`.
fn dry_run(name: &str) -> Value {
    let root = fixture_path(name);
    contend_json(&[
        "--sysfs-root",
        root.to_str().unwrap(),
        "study",
        "--print",
        "plan:json",
    ])
}

/// The sweep's thread steps: (threads, what they reach).
fn steps(plan: &Value) -> Vec<(u64, String)> {
    plan["sweep"]["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let reaches = t["reaches"].as_str().unwrap().to_string();
            (t["threads"].as_u64().unwrap(), reaches)
        })
        .collect()
}

fn step(threads: u64, reaches: &str) -> (u64, String) {
    (threads, reaches.to_string())
}

#[test]
fn the_1024_cpu_plan_reaches_every_class_within_the_cap() {
    let plan = dry_run(BIG);
    assert_eq!(plan["cpus"], 1024);
    assert_eq!(plan["nodes"], 16);
    assert_eq!(plan["llcs"], 16);
    // 60 + 2 × (1024 − 16) = 2076 s, capped at 540.
    assert_eq!(plan["max_time_s"], 540.0);
    let est = plan["est_s"].as_f64().unwrap();
    assert!(est > 0.0 && est <= 540.0, "est_s {est}");

    // The LLC is the node, so no same-node class. Candidates by hand:
    // 512 cores; 16 LLCs of 64 CPUs less the SMT pairs; 8 packages × 64 ×
    // 64 across their two nodes; per half 6 package pairs × 128 × 128; the
    // halves 512 × 512. They add up to 1024 × 1023 / 2.
    let classes: Vec<(String, u64, u64)> = plan["matrix"]["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let name = c["class"].as_str().unwrap().to_string();
            let candidates = c["candidates"].as_u64().unwrap();
            (name, candidates, c["sampled"].as_u64().unwrap())
        })
        .collect();
    let want = [
        ("smt", 512),
        ("same-llc", 16 * (64 * 63 / 2) - 512),
        ("cross-node@12", 8 * 64 * 64),
        ("cross-node@21", 2 * 6 * 128 * 128),
        ("cross-node@31", 512 * 512),
    ];
    assert_eq!(
        classes,
        want.map(|(c, n)| (c.to_string(), n, 4)),
        "{classes:?}"
    );
    assert_eq!(want.iter().map(|w| w.1).sum::<u64>(), 1024 * 1023 / 2);
    assert_eq!(plan["matrix"]["pairs"], 20);

    // The first k CPUs in id order: 0 and 1 share node 0's LLC; CPU 32
    // opens node 1 (package 0's other half, distance 12); CPU 64 opens
    // package 1 (same half, 21); CPU 256 opens package 4 (the other half,
    // 31); CPU 512 is CPU 0's sibling. Then every CPU.
    let threads = steps(&plan);
    assert_eq!(
        threads,
        [
            step(2, "same-llc"),
            step(33, "cross-node@12"),
            step(65, "cross-node@21"),
            step(257, "cross-node@31"),
            step(513, "smt"),
            step(1024, "all CPUs"),
        ]
    );
    let rates = plan["sweep"]["rates"].as_array().unwrap().len();
    assert_eq!(plan["sweep"]["points"], (threads.len() * rates) as u64);
}

#[test]
fn the_spr_plan_fits_its_budget() {
    let plan = dry_run("spr-2s-224");
    // 60 + 2 × (224 − 16).
    assert_eq!(plan["max_time_s"], 476.0);
    let est = plan["est_s"].as_f64().unwrap();
    assert!(est > 0.0 && est < 600.0 && est <= 476.0, "est_s {est}");
    // CPU 1 shares the socket's LLC, CPU 56 opens node 1, CPU 112 is CPU
    // 0's sibling.
    assert_eq!(
        steps(&plan),
        [
            step(2, "same-llc"),
            step(57, "cross-node@21"),
            step(113, "smt"),
            step(224, "all CPUs"),
        ]
    );
}

#[test]
fn planning_1024_cpus_takes_under_a_second_optimised() {
    let topo = fixture(BIG);
    let t0 = Instant::now();
    let plan = plan_study(&topo, BIG, None, &HostCosts::default()).unwrap();
    let took = t0.elapsed();
    assert_eq!(plan.cpus, 1024);
    // Unoptimised builds are several times slower; the bound is for the
    // release binary (`cargo test --release`).
    if !cfg!(debug_assertions) {
        assert!(took < Duration::from_secs(1), "planning took {took:?}");
    }
}

// --- The page -------------------------------------------------------------

/// Per-class factor on the real pair's cost, nearest class cheapest.
fn class_factor(class: PairClass) -> f64 {
    match class {
        PairClass::Smt => 0.5,
        PairClass::SameLlc => 1.0,
        PairClass::SameNode => 1.5,
        PairClass::CrossNode(d) => f64::from(d) / 8.0,
    }
}

fn pinned(template: &PinnedThread, cpu: u32) -> PinnedThread {
    PinnedThread {
        requested_cpu: cpu,
        observed_cpu: Some(cpu),
        ..template.clone()
    }
}

/// A real quick matrix of this host with its pairs moved onto the
/// fixture's per-class sample (4 a class, each labelled by the fixture),
/// the real pair's costs scaled by [`class_factor`].
fn scaled_matrix(topo: &Topology) -> MatrixResults {
    let dir = tempfile::tempdir().unwrap();
    let json = std::fs::read_to_string(quick_matrix(dir.path()).join("matrix.json")).unwrap();
    let mut m: MatrixResults = serde_json::from_str(&json).unwrap();
    let cpus = topo.allowed_cpus.to_vec();
    let sel = select_pairs(topo, &cpus, Some(4)).unwrap();
    let real = m.pairs[0].clone();
    m.pairs = sel
        .pairs
        .iter()
        .map(|p| {
            let f = class_factor(p.class);
            let mut r: PairResult = real.clone();
            r.cpus = [p.a, p.b];
            r.class = p.class;
            r.home_node = topo.node_of_cpu(p.a).unwrap();
            r.line = NodeCheck::Verified { node: r.home_node };
            r.threads = [pinned(&real.threads[0], p.a), pinned(&real.threads[1], p.b)];
            (r.forward.from, r.forward.to) = (p.a, p.b);
            (r.backward.from, r.backward.to) = (p.b, p.a);
            r.forward.median_ns *= f;
            r.backward.median_ns *= f;
            r.median_ns *= f;
            r.passes.iter_mut().for_each(|x| *x *= f);
            r
        })
        .collect();
    m.classes = class_stats(
        m.pairs.iter().map(|p| (p.class, p.median_ns)),
        &sel.candidates,
    );
    m.advice = advise(&m.classes);
    m.empty_classes = empty_classes(&m.classes);
    m.config.cpus = cpus;
    m.config.per_class = Some(4);
    m.reference.cpus = m.pairs[0].cpus;
    m.topology = topo.clone();
    m
}

/// The slots a counter of `level` has for writers on `cpus` of `topo`.
fn slots(topo: &Topology, cpus: &[u32], level: ShardLevel) -> Vec<SlotInfo> {
    let slot = |owner: String, node: u32| SlotInfo {
        owner,
        node,
        check: NodeCheck::Verified { node },
    };
    let node = |c: u32| topo.node_of_cpu(c).unwrap();
    match level {
        ShardLevel::Global => vec![slot("global".into(), node(cpus[0]))],
        ShardLevel::Node => {
            let nodes: BTreeSet<u32> = cpus.iter().map(|&c| node(c)).collect();
            nodes
                .into_iter()
                .map(|n| slot(format!("node {n}"), n))
                .collect()
        }
        ShardLevel::Llc => {
            let llcs: BTreeSet<u32> = cpus.iter().map(|&c| topo.cpu(c).unwrap().llc).collect();
            llcs.into_iter()
                .map(|l| {
                    let first = topo.llcs[l as usize].cpus.first().unwrap();
                    slot(format!("llc {l}"), node(first))
                })
                .collect()
        }
        ShardLevel::Cpu => cpus
            .iter()
            .map(|&c| slot(format!("cpu {c}"), node(c)))
            .collect(),
    }
}

/// `template` (tests/fixtures/results/run.json, a real 2-writer run) as
/// one writer on each of `cpus` of `topo`, for every strategy in every
/// rate: each strategy cloned from the template's of its level (global, or
/// the per-CPU one for the rest), each thread and per-writer count from
/// the template's first writer.
fn scaled_run(
    template: &RunResults,
    topo: &Topology,
    cpus: &[u32],
    strategies: &[Strategy],
    rates: &[Regime],
) -> RunResults {
    let entry = |s: Strategy, regime: Regime| -> StrategyResult {
        let from = usize::from(s.level != ShardLevel::Global);
        let mut r = template.strategies[from].clone();
        r.strategy = s;
        r.name = s.name();
        r.regime = regime;
        r.slots = slots(topo, cpus, s.level);
        r.threads = cpus
            .iter()
            .map(|&c| {
                let node = topo.node_of_cpu(c).unwrap();
                let slot_node = match s.level {
                    ShardLevel::Global => r.slots[0].node,
                    _ => node,
                };
                ThreadPlacement {
                    cpu: c,
                    observed_cpu: Some(c),
                    node,
                    slot_node: Some(slot_node),
                    ..r.threads[0].clone()
                }
            })
            .collect();
        for rep in &mut r.repeats {
            rep.writer_updates = vec![rep.writer_updates[0]; cpus.len()];
            rep.writer_reads = vec![rep.writer_reads[0]; cpus.len()];
        }
        r
    };
    let mut run = template.clone();
    run.topology = topo.clone();
    run.config.writer_cpus = cpus.to_vec();
    run.config.rates = rates.to_vec();
    run.strategies = rates
        .iter()
        .flat_map(|&rate| strategies.iter().map(move |&s| (s, rate)))
        .map(|(s, rate)| entry(s, rate))
        .collect();
    run
}

/// The study the fixture's plan would produce: a real matrix, run and
/// sweep of this host scaled onto the fixture, and a real prediction.
fn big_study() -> StudyResults {
    let topo = fixture(BIG);
    let plan: StudyPlan = plan_study(&topo, BIG, None, &HostCosts::default()).unwrap();
    let matrix = scaled_matrix(&topo);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/run.json");
    let template: RunResults =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cpus = topo.allowed_cpus.to_vec();
    let run = scaled_run(
        &template,
        &topo,
        &cpus,
        &run_strategies().strategies(),
        &plan.run.rates,
    );
    // Unbound sweep points run on the first CPUs of `spread`.
    let spread = "spread"
        .parse::<CpuSpec>()
        .unwrap()
        .resolve(&topo, false)
        .unwrap()
        .cpus;
    let sweep_strategies = sweep_strategies().strategies();
    let mut points = Vec::new();
    for t in &plan.sweep.threads {
        for &regime in &plan.sweep.rates {
            points.push(SweepPoint {
                threads: t.threads,
                affinity: "unbound".into(),
                regime,
                results: scaled_run(
                    &template,
                    &topo,
                    &spread[..t.threads],
                    &sweep_strategies,
                    &[regime],
                ),
            });
        }
    }
    let sweep = SweepResults {
        schema: template.schema,
        partial: false,
        out_of_time: false,
        points,
    };
    let request = PredictRequest {
        layout: Layout {
            writers: cpus,
            readers: Vec::new(),
            read_every: 1,
        },
        levels: ShardLevel::ALL.to_vec(),
        policies: run_strategies().policies,
        rates: vec![plan.predict_rate],
        // As the study prices it: a live matrix whose transactions found no
        // transfer (the host moved the vCPUs) is priced at its ping-pongs.
        latencies: Latencies::from_matrix(&matrix, "this study's matrix").priceable(),
        arrivals: Arrivals::Poisson,
        walks: contend::predict::Walks::of_seed(1),
        publishes: Vec::new(),
    };
    let predicted = predict(&topo, BIG, &request).unwrap();
    let stages = contend::study::STAGES
        .iter()
        .map(|s| StageRecord {
            stage: s.to_string(),
            status: StageStatus::Done,
            seconds: 1.0,
        })
        .collect();
    StudyResults {
        schema: contend::study::SCHEMA_VERSION,
        plan,
        provenance: matrix.provenance.clone(),
        stages,
        elapsed_s: 4.0,
        partial: false,
        pricing: None,
        parts: StudyParts {
            matrix: Some(matrix),
            run: Some(run),
            sweep: Some(sweep),
            predict: Some(predicted),
            check: None,
            matrix_again: None,
        },
    }
}

/// Bytes of the page from each `<article`, `<section` and `<style` /
/// `<script` opening to the next, named by kind and section, largest
/// first.
fn section_sizes(page: &str) -> Vec<(usize, String)> {
    let mut marks: Vec<(usize, String)> = Vec::new();
    let mut article = String::from("page");
    let mut at = 0;
    while let Some(i) = page[at..].find('<').map(|i| i + at) {
        let rest = &page[i..];
        let attr = |name: &str| {
            let key = format!("{name}=\"");
            let start = rest.find(&key)? + key.len();
            let end = rest[start..].find('"')?;
            Some(rest[start..start + end].to_string())
        };
        if rest.starts_with("<article") {
            article = attr("data-kind").unwrap_or_else(|| "article".into());
            marks.push((i, article.clone()));
        } else if rest.starts_with("<section") {
            let name = attr("data-section").unwrap_or_default();
            marks.push((i, format!("{article}/{name}")));
        } else if rest.starts_with("<style") || rest.starts_with("<script") {
            marks.push((i, rest[1..7].to_string()));
        }
        at = i + 1;
    }
    let mut sizes: Vec<(usize, String)> = marks
        .iter()
        .enumerate()
        .map(|(k, (i, name))| {
            let end = marks.get(k + 1).map_or(page.len(), |m| m.0);
            (end - i, name.clone())
        })
        .collect();
    sizes.sort_by_key(|s| std::cmp::Reverse(s.0));
    sizes
}

/// The value of attribute `name` in the tag that starts `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag[..tag.find('>')?].find(&key)? + key.len();
    Some(&tag[start..start + tag[start..].find('"')?])
}

/// Every `<text>` element of `svg` left of its colour scale (the last
/// `legend_px` of its width): the heatmap's titles and axis labels.
fn heatmap_texts(svg: &str, legend_px: f64) -> Vec<String> {
    let width: f64 = attr(svg, "width").unwrap().parse().unwrap();
    svg.split("<text")
        .skip(1)
        .filter(|t| attr(t, "x").is_some_and(|x| x.parse::<f64>().unwrap() < width - legend_px))
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..];
            Some(body[..body.find("</text>")?].trim().to_string())
        })
        .collect()
}

#[test]
fn a_1024_cpu_study_page_stays_small_and_readable() {
    let study = big_study();
    let page = render(&Document::Study(&study), Format::Html).unwrap();
    // To look at it: STUDY_SCALE_PAGE=/tmp/study.html cargo test --test study_scale.
    if let Some(path) = std::env::var_os("STUDY_SCALE_PAGE") {
        std::fs::write(path, &page).unwrap();
    }
    let sizes = section_sizes(&page);
    for (bytes, name) in sizes.iter().take(12) {
        eprintln!("{bytes:>9}  {name}");
    }
    eprintln!("{:>9}  the whole page", page.len());
    assert!(
        page.len() < 2_000_000,
        "page {} bytes; largest parts: {:?}",
        page.len(),
        &sizes[..sizes.len().min(8)]
    );
    let rects = page.matches("<rect").count();
    eprintln!("{rects} <rect elements");
    assert!(rects < 20_000, "{rects} <rect elements");

    // The class table: the five classes, each sampled 4 of its candidates.
    let m = study.parts.matrix.as_ref().unwrap();
    for (class, candidates) in [
        ("smt", 512),
        ("same-llc", 31744),
        ("cross-node@12", 32768),
        ("cross-node@21", 196608),
        ("cross-node@31", 262144),
    ] {
        let row = format!("<td>{class}</td><td data-sort=\"4\">4/{candidates}</td>");
        assert!(page.contains(&row), "no class row {row}");
    }
    assert!(!page.contains("<td>same-node</td>"));

    // The heatmap: only sampled CPUs on its axes, and it says so.
    let sampled: BTreeSet<u32> = m.pairs.iter().flat_map(|p| p.cpus).collect();
    assert!(sampled.len() > 20 && sampled.len() <= 40, "{sampled:?}");
    let caption = page
        .find("<figcaption>heatmap.svg</figcaption>")
        .expect("a heatmap");
    let svg = &page[page[..caption].rfind("<svg").unwrap()..caption];
    // The colour scale (its 150 px strip on the right) has numbers too.
    let labels: BTreeSet<u32> = heatmap_texts(svg, 150.0)
        .iter()
        .filter_map(|t| t.parse().ok())
        .collect();
    assert!(
        labels.len() >= 16 && labels.is_subset(&sampled),
        "labels {labels:?} not among the sampled CPUs {sampled:?}"
    );
    let note = format!("sampled: {} of 1024 CPUs, 4 pairs per class", sampled.len());
    assert!(svg.contains(&note), "no {note:?}");
    // 1 background, 2 cells per pair, 64 scale steps.
    assert_eq!(svg.matches("<rect").count(), 1 + 2 * 20 + 64);
}
