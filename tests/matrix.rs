//! `contend matrix`: pair classes and split advice on the fixture
//! topologies with synthetic costs, the heatmap and CSV, and a real run on
//! this host checked against the independent reference ping-pong.

use contend::matrix::{
    self, Advice, Home, MatrixConfig, MatrixResults, Mode, PairClass, PairResult, PairSamples,
    PairSelection, Reference, Split, Transaction, TransactionCost, advise, class_stats, classify,
    empty_classes, select_pairs,
};
use contend::placement::{NodeCheck, PinnedThread};
use contend::provenance::Provenance;
use contend::topology::Topology;
use serde_json::Value;
use std::path::Path;
use std::sync::Mutex;

mod common;
use common::xml::parse_xml;
use common::{assert_usage_error, contend, contend_json, results_dir, stderr};

fn fixture(name: &str) -> Topology {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/topology")
        .join(name);
    Topology::read(&root).unwrap_or_else(|e| panic!("reading fixture {name}: {e}"))
}

fn class(t: &Topology, a: u32, b: u32) -> String {
    classify(t, a, b).unwrap().to_string()
}

#[test]
fn classes_follow_the_fixture_topologies() {
    let epyc = fixture("epyc-7j13-2s-nps1-256");
    assert_eq!(class(&epyc, 0, 128), "smt");
    assert_eq!(class(&epyc, 0, 1), "same-llc");
    assert_eq!(class(&epyc, 0, 135), "same-llc"); // sibling of 7, same CCX
    assert_eq!(class(&epyc, 0, 8), "same-node"); // next CCX
    assert_eq!(class(&epyc, 0, 64), "cross-node@32");
    assert_eq!(class(&epyc, 64, 0), "cross-node@32");

    let nps4 = fixture("amd-2s-nps4-8node");
    assert_eq!(class(&nps4, 0, 64), "smt");
    assert_eq!(class(&nps4, 0, 3), "same-llc");
    assert_eq!(class(&nps4, 0, 4), "same-node");
    assert_eq!(class(&nps4, 0, 8), "cross-node@12");
    assert_eq!(class(&nps4, 0, 32), "cross-node@32");

    let spr = fixture("spr-2s-224");
    assert_eq!(class(&spr, 0, 112), "smt");
    assert_eq!(class(&spr, 0, 55), "same-llc");
    assert_eq!(class(&spr, 0, 56), "cross-node@21");

    // Asymmetric SLIT [[10,20],[30,10]]: the larger entry names the class.
    let asym = fixture("asymmetric");
    assert_eq!(class(&asym, 0, 4), "cross-node@30");
    assert!(
        classify(&asym, 0, 99)
            .unwrap_err()
            .to_string()
            .contains("CPU 99")
    );
}

#[test]
fn pairs_are_sampled_per_class_deterministically() {
    let epyc = fixture("epyc-7j13-2s-nps1-256");
    let all: Vec<u32> = (0..256).collect();
    let sel = select_pairs(&epyc, &all, Some(64)).unwrap();
    let counts: Vec<(String, usize)> = sel
        .candidates
        .iter()
        .map(|(c, n)| (c.to_string(), *n))
        .collect();
    // 128 SMT pairs; 16 LLCs of 16 CPUs; 2 nodes of 128 CPUs.
    let same_llc = 16 * (16 * 15 / 2) - 128;
    let same_node = 2 * (128 * 127 / 2) - 16 * (16 * 15 / 2);
    assert_eq!(
        counts,
        [
            ("smt".to_string(), 128),
            ("same-llc".to_string(), same_llc),
            ("same-node".to_string(), same_node),
            ("cross-node@32".to_string(), 128 * 128),
        ]
    );
    assert_eq!(sel.pairs.len(), 4 * 64);
    for c in sel.candidates.keys() {
        assert_eq!(sel.pairs.iter().filter(|p| p.class == *c).count(), 64);
    }
    assert!(
        sel.pairs
            .windows(2)
            .all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b))
    );
    assert!(
        sel.pairs
            .iter()
            .all(|p| p.a < p.b && class(&epyc, p.a, p.b) == p.class.to_string())
    );
    // The lowest pair of each class is kept, and the sample reaches across
    // the machine on both sides of the pair.
    assert!(sel.pairs.iter().any(|p| (p.a, p.b) == (0, 1)));
    assert!(sel.pairs.iter().any(|p| (p.a, p.b) == (0, 128)));
    let cross = sel.pairs.iter().filter(|p| !p.class.within_node());
    let rows: std::collections::BTreeSet<u32> = cross.clone().map(|p| p.a).collect();
    let cols: std::collections::BTreeSet<u32> = cross.map(|p| p.b).collect();
    assert!(rows.len() >= 32 && cols.len() >= 32, "{rows:?} {cols:?}");
    assert_eq!(select_pairs(&epyc, &all, Some(64)).unwrap(), sel);
    // --pairs all, and duplicates / order in the CPU list do not matter.
    let every = select_pairs(&epyc, &[3, 1, 2, 1, 0], None).unwrap();
    assert_eq!(every.pairs.len(), 6);
}

/// Class stats and advice for `cpus` of `topo` when every pair of a class
/// costs `cost(class)` ns (± a little, so the statistics are not trivial).
fn advice_for(
    topo: &Topology,
    cpus: &[u32],
    cost: impl Fn(PairClass) -> f64,
) -> (Advice, Vec<String>) {
    let sel: PairSelection = select_pairs(topo, cpus, Some(64)).unwrap();
    let costs = sel
        .pairs
        .iter()
        .enumerate()
        .map(|(i, p)| (p.class, cost(p.class) * (1.0 + 0.01 * (i % 5) as f64)));
    let stats = class_stats(costs, &sel.candidates);
    for s in &stats {
        assert!(s.min_ns <= s.median_ns && s.median_ns <= s.p90_ns && s.p90_ns <= s.max_ns);
        assert_eq!(s.candidates, sel.candidates[&s.class]);
    }
    let empty = empty_classes(&stats)
        .iter()
        .map(|e| e.class.to_string())
        .collect();
    (advise(&stats), empty)
}

fn ns(smt: f64, llc: f64, node: f64, cross: &[(u32, f64)]) -> impl Fn(PairClass) -> f64 {
    let cross = cross.to_vec();
    move |c| match c {
        PairClass::Smt => smt,
        PairClass::SameLlc => llc,
        PairClass::SameNode => node,
        PairClass::CrossNode(d) => cross.iter().find(|x| x.0 == d).unwrap().1,
    }
}

#[test]
fn advice_follows_the_written_rule() {
    let epyc = fixture("epyc-7j13-2s-nps1-256");
    let all_epyc: Vec<u32> = (0..256).collect();
    // Milan 7R13 from docs/seeds.md: same CCX 23, cross CCX ~100, cross
    // socket 197: crossing a CCX is half of crossing a socket -> node.
    let (a, empty) = advice_for(&epyc, &all_epyc, ns(8.0, 23.0, 100.0, &[(32, 197.0)]));
    assert_eq!((a.split, a.rule), (Split::Node, 4), "{a}");
    assert!(a.reason.contains("cross-node@32"), "{a}");
    assert!(empty.is_empty());
    // Cross-CCX already close to cross-socket -> llc.
    let (a, _) = advice_for(&epyc, &all_epyc, ns(8.0, 23.0, 95.0, &[(32, 110.0)]));
    assert_eq!((a.split, a.rule), (Split::Llc, 3), "{a}");
    assert!(
        a.reason.contains("same-node") && a.reason.contains("0.75"),
        "{a}"
    );
    // Everything within 20% -> no split.
    let (a, _) = advice_for(&epyc, &all_epyc, ns(50.0, 52.0, 55.0, &[(32, 58.0)]));
    assert_eq!((a.split, a.rule), (Split::None, 2), "{a}");
    // One node with several LLCs (node 0 of EPYC) -> llc.
    let node0: Vec<u32> = (0..64).chain(128..192).collect();
    let (a, empty) = advice_for(&epyc, &node0, ns(8.0, 23.0, 100.0, &[]));
    assert_eq!((a.split, a.rule), (Split::Llc, 5), "{a}");
    assert_eq!(empty, ["cross-node"]);

    // NPS4: the nearest cross-node class (@12) is the comparison.
    let nps4 = fixture("amd-2s-nps4-8node");
    let all_nps4: Vec<u32> = (0..128).collect();
    let (a, _) = advice_for(
        &nps4,
        &all_nps4,
        ns(10.0, 25.0, 90.0, &[(12, 100.0), (32, 200.0)]),
    );
    assert_eq!((a.split, a.rule), (Split::Llc, 3), "{a}");
    assert!(a.reason.contains("cross-node@12"), "{a}");
    let (a, _) = advice_for(
        &nps4,
        &all_nps4,
        ns(10.0, 25.0, 40.0, &[(12, 100.0), (32, 200.0)]),
    );
    assert_eq!((a.split, a.rule), (Split::Node, 4), "{a}");

    // Sapphire Rapids (Ice Lake-like costs): one LLC per socket, so node and
    // LLC are the same split; there are no same-node pairs to say so.
    let spr = fixture("spr-2s-224");
    let all_spr: Vec<u32> = (0..224).collect();
    let (a, empty) = advice_for(&spr, &all_spr, ns(8.0, 51.0, 0.0, &[(21, 108.0)]));
    assert_eq!((a.split, a.rule), (Split::Node, 4), "{a}");
    assert!(a.reason.contains("same set"), "{a}");
    assert_eq!(empty, ["same-node"]);
    // Only SMT and same-LLC pairs differ: no boundary to split at.
    let (a, empty) = advice_for(&spr, &[0, 1, 112], ns(8.0, 50.0, 0.0, &[]));
    assert_eq!((a.split, a.rule), (Split::None, 6), "{a}");
    assert_eq!(empty, ["same-node", "cross-node"]);
    // One class only (this 2-vCPU host): nothing to compare.
    let (a, empty) = advice_for(&spr, &[0, 1], ns(0.0, 50.0, 0.0, &[]));
    assert_eq!((a.split, a.rule), (Split::CannotAdvise, 1), "{a}");
    assert_eq!(empty, ["smt", "same-node", "cross-node"]);
    assert!(a.to_string().starts_with("cannot advise: only one class"));
}

/// The element names of `text`, read as well-formed XML.
fn well_formed_xml(text: &str) -> Result<Vec<String>, String> {
    Ok(parse_xml(text)?.into_iter().map(|e| e.name).collect())
}

#[test]
fn the_xml_checker_rejects_broken_documents() {
    assert!(well_formed_xml("<svg a=\"1\"><g><rect/></g><text>x &amp; y</text></svg>").is_ok());
    assert!(well_formed_xml("<svg><g></svg>").is_err());
    assert!(well_formed_xml("<svg a=1></svg>").is_err());
    assert!(well_formed_xml("<svg>a & b</svg>").is_err());
    assert!(well_formed_xml("<svg></svg><svg></svg>").is_err());
    assert!(well_formed_xml("<svg>").is_err());
}

fn pinned(cpu: u32) -> PinnedThread {
    PinnedThread {
        requested_cpu: cpu,
        observed_cpu: Some(cpu),
        verified: true,
        note: None,
    }
}

/// A matrix of synthetic results over `per_class` pairs of each class of
/// `cpus` (`None`: every pair).
fn synthetic(
    topo: Topology,
    cpus: Vec<u32>,
    per_class: Option<usize>,
    cost: impl Fn(PairClass) -> f64,
) -> MatrixResults {
    let sel = select_pairs(&topo, &cpus, per_class).unwrap();
    let pairs: Vec<PairResult> = sel
        .pairs
        .iter()
        .map(|&p| {
            let c = cost(p.class);
            let samples = PairSamples {
                threads: [pinned(p.a), pinned(p.b)],
                line: NodeCheck::Verified { node: 0 },
                forward: vec![c, c + 1.0, c + 2.0],
                backward: vec![c * 1.5; 3],
                transactions: Vec::new(),
            };
            PairResult::from_passes(p, 0, vec![samples])
        })
        .collect();
    let classes = class_stats(
        pairs.iter().map(|p| (p.class, p.median_ns)),
        &sel.candidates,
    );
    MatrixResults {
        schema: matrix::SCHEMA_VERSION,
        config: MatrixConfig {
            cpus,
            mode: Mode::Cas,
            home: Home::First,
            samples: 3,
            round_trips_per_sample: matrix::ROUND_TRIPS_PER_SAMPLE,
            warmup_samples: matrix::WARMUP_SAMPLES,
            per_class,
            timer: contend::clock::TimerKind::Tsc,
            asymmetry_limit_pct: matrix::ASYMMETRY_LIMIT_PCT,
            reference_round_trips: 1,
            clipped: Vec::new(),
        },
        provenance: Provenance::of_this_host(1e9),
        topology: topo,
        reference: Reference::new(
            [pairs[0].cpus[0], pairs[0].cpus[1]],
            1,
            20.0,
            pairs[0].median_ns,
        ),
        advice: advise(&classes),
        empty_classes: empty_classes(&classes),
        classes,
        pairs,
        notes: Vec::new(),
        elapsed_s: 0.0,
        contenders: Vec::new(),
        sharers: Vec::new(),
        home_classes: Vec::new(),
    }
}

/// Text with its wrapped lines joined again (a continuation line starts
/// with two spaces).
fn unwrapped(text: &str) -> String {
    text.replace("\n  ", " ")
}

#[test]
fn predict_prices_a_matrix_whose_transaction_found_no_transfer_at_its_ping_pongs() {
    // A same-llc add moved at -0.01 x its ping-pong (a host that moved the
    // vCPUs mid-matrix): predict leaves the transactions out, says so in
    // its notes, and prices every transfer at its class's ping-pong.
    let epyc = "epyc-7j13-2s-nps1-256";
    let mut r = synthetic(
        fixture(epyc),
        vec![0, 1, 64],
        None,
        ns(8.0, 23.0, 100.0, &[(32, 197.0)]),
    );
    for p in &mut r.pairs {
        let moved = if p.class == PairClass::SameLlc {
            -0.01
        } else {
            1.0
        };
        p.transactions = Transaction::ALL
            .iter()
            .map(|&transaction| TransactionCost {
                transaction,
                net_ns: p.median_ns,
                to_pingpong: if transaction == Transaction::AddMoved {
                    moved
                } else {
                    1.0
                },
                samples: 10,
            })
            .collect();
    }
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("matrix.json");
    std::fs::write(&m, serde_json::to_string(&r).unwrap()).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/topology")
        .join(epyc);
    let args = [
        "--sysfs-root",
        root.to_str().unwrap(),
        "predict",
        "--host",
        m.to_str().unwrap(),
    ];
    let p = contend_json(&[&args[..], &["--writers", "0,1,64", "--json"]].concat());
    assert_eq!(p["latencies"]["transactions"], serde_json::json!({}), "{p}");
    // Said where the pricing is, naming the figure, with nothing that asks for a matrix.
    let notes = p["notes"].to_string();
    let why = "nothing overlapping (the measured transactions were left out: the same-llc transfer is priced at -0.2";
    assert!(notes.contains(why), "{notes}");
    assert!(!notes.contains("no measured transactions"), "{notes}");
}

#[test]
fn the_summary_has_each_class_transactions_beside_its_ping_pong() {
    // Two classes of the EPYC fixture, transactions set by hand: per
    // class the median of its pairs' figures and of their ratios.
    let mut r = synthetic(
        fixture("epyc-7j13-2s-nps1-256"),
        vec![0, 1, 64],
        None,
        ns(8.0, 23.0, 100.0, &[(32, 197.0)]),
    );
    for p in &mut r.pairs {
        let base = p.median_ns;
        p.transactions = Transaction::ALL
            .iter()
            .enumerate()
            .map(|(i, &transaction)| TransactionCost {
                transaction,
                net_ns: base * (1.0 + i as f64 / 10.0),
                to_pingpong: 1.0 + i as f64 / 10.0,
                samples: 10,
            })
            .collect();
    }
    let text = contend::report::render(
        &contend::report::Document::Matrix(&r),
        contend::report::Format::Text,
    )
    .unwrap();
    assert!(
        unwrapped(&text).contains("coherence transactions: one CPU times the operation fenced"),
        "{text}"
    );
    // A column per class, a row per transaction.
    let header = text
        .lines()
        .find(|l| l.starts_with(' ') && l.trim_start().starts_with("same-llc"))
        .unwrap_or_else(|| panic!("no class header: {text}"));
    assert_eq!(
        header.split_whitespace().collect::<Vec<_>>(),
        ["same-llc", "cross-node@32"]
    );
    let median = r.pairs[0].median_ns;
    assert_eq!(r.pairs[0].class, PairClass::SameLlc);
    for (i, t) in Transaction::ALL.iter().enumerate() {
        let row = text
            .lines()
            .find(|l| l.starts_with(t.name()))
            .unwrap_or_else(|| panic!("no {} row: {text}", t.name()));
        let cells: Vec<&str> = row[t.name().len()..]
            .split("   ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        let x = 1.0 + i as f64 / 10.0;
        assert_eq!(cells.len(), 2, "{row}");
        assert_eq!(cells[0], format!("{:.1} ({x:.2})", median * x), "{row}");
    }
    // A TSC stepping by 26 ticks at 2.6 GHz (10 ns), more than a tenth of
    // the smallest transaction shown (same-llc's add moved, its ping-pong
    // median): the summary says so; a TSC ticking every cycle says
    // nothing.
    r.provenance.tsc_hz = 2.6e9;
    let render = |r: &MatrixResults| {
        let text = contend::report::render(
            &contend::report::Document::Matrix(r),
            contend::report::Format::Text,
        )
        .unwrap();
        unwrapped(&text)
    };
    r.provenance.tsc_step_ticks = 26;
    let line = format!(
        "clock: the TSC steps by 10.0 ns (26 ticks) here, more than a tenth of the smallest figure shown ({median:.1} ns)"
    );
    assert!(render(&r).contains(&line), "{}", render(&r));
    r.provenance.tsc_step_ticks = 1;
    assert!(!render(&r).contains("clock: the TSC steps"));
    // Every transaction got its 10 planned samples: nothing said. One
    // pair's add moved stopped at 4 (its threads took turns), then
    // another's last transaction got none: both counted, the fewest 0.
    let cut = "transactions cut short on";
    for p in &mut r.pairs {
        p.transactions_planned = 10;
    }
    assert!(!render(&r).contains(cut), "{}", render(&r));
    r.pairs[0].transactions[0].samples = 4;
    let one = format!(
        "transactions cut short on 1 of {} pairs (fewest 4 of 10 samples a transaction): their two threads took turns on one CPU, over 10 µs a transfer",
        r.pairs.len()
    );
    assert!(render(&r).contains(&one), "{}", render(&r));
    r.pairs[1].transactions.pop();
    assert!(
        render(&r).contains(&format!(
            "cut short on 2 of {} pairs (fewest 0 of 10 samples",
            r.pairs.len()
        )),
        "{}",
        render(&r)
    );
    // A file without the plan (0) says nothing of cuts.
    for p in &mut r.pairs {
        p.transactions_planned = 0;
    }
    assert!(!render(&r).contains(cut));
    // The reference ping-pong: within 5% of the matrix's, nothing said;
    // 5.5% off, the summary says they disagree.
    let mut summary = |one_way: f64| {
        r.reference = Reference::new([0, 1], 1000, one_way, 100.0);
        contend::report::render(
            &contend::report::Document::Matrix(&r),
            contend::report::Format::Text,
        )
        .unwrap()
    };
    assert!(!summary(95.5).contains("DISAGREE"));
    assert!(
        unwrapped(&summary(94.7)).contains(
            "DISAGREE: the matrix's ping-pong and the minimal one differ by more than 5%"
        )
    );
}

#[test]
fn synthetic_matrix_renders_csv_and_svg() {
    let r = synthetic(
        fixture("epyc-7j13-2s-nps1-256"),
        (0..256).collect(),
        Some(16),
        ns(8.0, 23.0, 100.0, &[(32, 197.0)]),
    );
    let p = &r.pairs[0];
    assert_eq!(p.cpus, [0, 1]);
    assert_eq!((p.forward.from, p.forward.to), (0, 1));
    assert_eq!((p.backward.from, p.backward.to), (1, 0));
    assert_eq!(p.forward.median_ns, 24.0);
    assert_eq!(p.backward.median_ns, 34.5);
    assert!(p.asymmetric && (p.asymmetry_pct - 43.75).abs() < 1e-9);
    assert!(p.verified());

    let csv = contend::report::render(
        &contend::report::Document::Matrix(&r),
        contend::report::Format::Csv,
    )
    .unwrap();
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 257);
    assert_eq!(
        rows[0][..3],
        [
            "initiator\\responder (median one-way ns = round trip / 2)",
            "0",
            "1"
        ]
    );
    assert_eq!(rows[1][..3], ["0", "", "24.0"]);
    assert_eq!(rows[2][..3], ["1", "34.5", ""]);
    assert!(rows.iter().all(|r| r.len() == 257));
    let filled = rows[1..]
        .iter()
        .flat_map(|r| &r[1..])
        .filter(|c| !c.is_empty())
        .count();
    assert_eq!(filled, 2 * r.pairs.len());

    let svg = contend::report::charts::heatmap::render(&r).unwrap();
    let elements = well_formed_xml(&svg).unwrap_or_else(|e| panic!("heatmap.svg: {e}"));
    assert_eq!(elements[0], "svg");
    // One cell per direction, plus the colour scale's steps.
    let rects = elements.iter().filter(|e| *e == "rect").count();
    assert!(rects > 2 * r.pairs.len(), "{rects}");
    assert!(svg.contains("contend matrix (cas)"));
    assert!(svg.contains("one-way ns"));
    assert!(svg.contains("CPU (initiating)") && svg.contains("CPU (responding)"));
}

// --- On this host -------------------------------------------------------

/// The class of `(a, b)` worked out from the topology JSON by hand.
fn class_from_topology(topo: &Value, a: u64, b: u64) -> String {
    let cpu = |id: u64| {
        topo["cpus"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()
            .clone()
    };
    let (ca, cb) = (cpu(a), cpu(b));
    if ca["siblings"].as_array().unwrap().iter().any(|s| *s == b) {
        return "smt".into();
    }
    if ca["llc"] == cb["llc"] {
        return "same-llc".into();
    }
    if ca["node"] == cb["node"] {
        return "same-node".into();
    }
    let nodes = topo["nodes"].as_array().unwrap();
    let at = |n: &Value| nodes.iter().position(|x| x["id"] == *n).unwrap();
    let (i, j) = (at(&ca["node"]), at(&cb["node"]));
    let d = topo["distances"][i][j]
        .as_u64()
        .unwrap()
        .max(topo["distances"][j][i].as_u64().unwrap());
    format!("cross-node@{d}")
}

/// The matrices here measure on the same CPUs: one at a time, or each disturbs the other.
static MEASURING: Mutex<()> = Mutex::new(());

#[test]
fn matrix_on_this_host_agrees_with_the_reference() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let quick = [
        "matrix",
        "--print",
        "json",
        "--samples",
        "40",
        "--pairs",
        "4",
        "--out",
        dir.path().to_str().unwrap(),
    ];
    let out = contend(&quick);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], 2);
    let allowed = v["topology"]["allowed_cpus"].as_array().unwrap();
    let (a, b) = (allowed[0].as_u64().unwrap(), allowed[1].as_u64().unwrap());

    let pairs = v["pairs"].as_array().unwrap();
    let first = &pairs[0];
    assert_eq!(first["cpus"], serde_json::json!([a, b]));
    for (dir, from, to) in [("forward", a, b), ("backward", b, a)] {
        let d = &first[dir];
        assert_eq!(
            (d["from"].as_u64(), d["to"].as_u64()),
            (Some(from), Some(to))
        );
        assert_eq!(d["samples"], 40);
        assert!(d["median_ns"].as_f64().unwrap() > 0.0);
        assert!(d["p90_ns"].as_f64().unwrap() >= d["median_ns"].as_f64().unwrap());
    }
    // The six coherence transactions, each from both CPUs' samples of
    // every pass, with its ratio to the pair's ping-pong.
    let tx = first["transactions"].as_array().unwrap();
    let names: Vec<&str> = tx
        .iter()
        .map(|t| t["transaction"].as_str().unwrap())
        .collect();
    // In order; fewer, with fewer samples, only where the pair's threads
    // took turns on one CPU (a loaded machine: the text says so).
    let all = [
        "add_moved",
        "read_fetched",
        "add_upgraded",
        "read_back",
        "add_then_read_other",
        "add_then_read_same",
    ];
    assert_eq!(names, all[..names.len()]);
    assert_eq!(first["transactions_planned"], 2 * 3 * 300);
    let pingpong = first["median_ns"].as_f64().unwrap();
    for t in tx {
        let samples = t["samples"].as_u64().unwrap();
        assert!((1..=2 * 3 * 300).contains(&samples), "{t}");
        let (ns, x) = (
            t["net_ns"].as_f64().unwrap(),
            t["to_pingpong"].as_f64().unwrap(),
        );
        assert!((x - ns / pingpong).abs() < 1e-9, "{t}");
    }
    for p in pairs {
        assert_eq!(p["line"]["status"], "verified", "{p}");
        assert_eq!(p["line"]["node"], p["home_node"]);
        for t in p["threads"].as_array().unwrap() {
            assert_eq!(t["verified"], true, "{t}");
            assert_eq!(t["observed_cpu"], t["requested_cpu"]);
        }
    }

    let expected = class_from_topology(&v["topology"], a, b);
    assert_eq!(first["class"], expected.as_str());
    let classes: Vec<&str> = v["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["class"].as_str().unwrap())
        .collect();
    assert!(classes.contains(&expected.as_str()), "{classes:?}");
    let advice = &v["advice"];
    assert!(
        [
            "split at llc",
            "split at node",
            "no split needed",
            "cannot advise"
        ]
        .contains(&advice["split"].as_str().unwrap()),
        "{advice}"
    );
    assert!(!advice["reason"].as_str().unwrap().is_empty());
    if classes.len() == 1 {
        assert!(!v["empty_classes"].as_array().unwrap().is_empty());
        // Rule 1 of src/matrix/advice.rs: nothing to compare.
        let only = &v["classes"][0];
        assert_eq!(advice["split"], "cannot advise", "{advice}");
        assert_eq!(advice["rule"], 1, "{advice}");
        assert_eq!(
            advice["reason"].as_str().unwrap(),
            format!(
                "only one class measured ({} {:.1} ns), nothing to compare",
                only["class"].as_str().unwrap(),
                only["median_ns"].as_f64().unwrap()
            ),
            "{advice}"
        );
    }

    let files = results_dir(dir.path()).expect("a results folder");
    let csv = std::fs::read_to_string(files.join("matrix.csv")).unwrap();
    assert!(
        csv.starts_with(&format!(
            "initiator\\responder (median one-way ns = round trip / 2),{a},{b}"
        )),
        "{csv}"
    );
    assert!(files.join("matrix.json").is_file());
    let svg = std::fs::read_to_string(files.join("heatmap.svg")).unwrap();
    well_formed_xml(&svg).unwrap_or_else(|e| panic!("heatmap.svg: {e}"));
    let host = v["provenance"]["hostname"].as_str().unwrap();
    assert!(
        svg.contains(&format!("contend matrix (cas): {host}")),
        "title"
    );
    assert!(svg.contains("one-way ns"), "legend");
    // `contend plot` reads matrix.json back and redraws the same heatmap.
    let redrawn = dir.path().join("redrawn");
    let out = contend(&[
        "plot",
        files.to_str().unwrap(),
        "--out",
        redrawn.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(redrawn.join("heatmap.svg")).unwrap(),
        svg
    );

    // The goal is ±10% on a quiet host; CI shares its 2 CPUs, so ±25% here.
    let r = &v["reference"];
    let (reference, matrix) = (
        r["one_way_ns"].as_f64().unwrap(),
        r["matrix_one_way_ns"].as_f64().unwrap(),
    );
    assert_eq!(r["cpus"], serde_json::json!([a, b]), "{r}");
    assert_eq!(matrix, first["median_ns"].as_f64().unwrap());
    assert!(reference > 0.0, "{r}");
    // The difference, recomputed; the stored figure must be the same.
    let diff = 100.0 * (matrix - reference) / reference;
    let stored = r["difference_pct"].as_f64().unwrap();
    assert!(
        (stored - diff).abs() <= 1e-9,
        "difference_pct {stored} but 100 x ({matrix} - {reference}) / {reference} = {diff}"
    );
    eprintln!("pair {a}-{b}: matrix {matrix:.1} ns, reference {reference:.1} ns ({diff:+.1}%)");
    // The hypervisor moves the vCPUs between cores in phases of seconds
    // (a ping-pong reads ~27 or ~110 ns): one phase change between the
    // matrix and the reference is not a defect. Up to two more runs; the
    // closest agreement counts, and every try is printed.
    let mut diffs = vec![diff];
    while diffs.iter().all(|d| d.abs() > 25.0) && diffs.len() < 3 {
        let again = contend(&quick);
        assert!(again.status.success(), "{}", stderr(&again));
        let v: Value = serde_json::from_slice(&again.stdout).unwrap();
        let d = v["reference"]["difference_pct"].as_f64().unwrap();
        eprintln!("again: {d:+.1}%");
        diffs.push(d);
    }
    assert!(
        diffs.iter().any(|d| d.abs() <= 25.0),
        "matrix vs reference, every try beyond 25%: {diffs:?}"
    );
}

/// The topology's memory nodes this process may bind to.
fn memory_nodes(topo: &Value) -> usize {
    let allowed: Vec<u64> = topo["allowed_mems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    topo["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["has_memory"] == true && allowed.contains(&n["id"].as_u64().unwrap()))
        .count()
}

#[test]
fn contenders_sharers_and_homes_are_stored_and_printed() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    // Two contenders and one sharer on the first two CPUs, and each
    // class's homes: end to end, the shapes and counts that do not depend
    // on timing.
    let dir = tempfile::tempdir().unwrap();
    let out = contend(&[
        "matrix",
        "--print",
        "json",
        "--samples",
        "6",
        "--pairs",
        "1",
        "--also",
        "contenders:2",
        "--also",
        "sharers:1",
        "--also",
        "home",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], 2);
    let allowed = v["topology"]["allowed_cpus"].as_array().unwrap();
    let (a, b) = (allowed[0].as_u64().unwrap(), allowed[1].as_u64().unwrap());

    let c = v["contenders"].as_array().unwrap();
    assert_eq!(c.len(), 1, "{c:?}");
    let c = &c[0];
    assert_eq!(c["k"], 2);
    // On two CPUs the span order is the two; the class is their pair's.
    assert_eq!(c["cpus"], serde_json::json!([a, b]));
    assert_eq!(c["widest_class"], v["pairs"][0]["class"]);
    assert_eq!(c["windows"], matrix::WINDOWS);
    assert_eq!(c["line"]["status"], "verified", "{c}");
    assert_eq!(c["line"]["node"], c["home_node"]);
    for t in c["threads"].as_array().unwrap() {
        assert_eq!(t["verified"], true, "{t}");
    }
    let adds: Vec<u64> = c["adds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    let handovers: Vec<u64> = c["handovers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    // The first CPU makes its share of every window exactly: 8192 / 2.
    assert_eq!(adds[0], matrix::WINDOWS as u64 * matrix::WINDOW_ADDS / 2);
    assert!(adds.iter().zip(&handovers).all(|(a, h)| h <= a), "{c}");
    // A price per hand-over exactly when there was a hand-over.
    let any = handovers.iter().sum::<u64>() > 0;
    assert_eq!(c["handover_ns"].is_f64(), any, "{c}");
    assert!(c["private_add_ns"].as_f64().unwrap() > 0.0, "{c}");

    let s = v["sharers"].as_array().unwrap();
    assert_eq!(s.len(), 1, "{s:?}");
    let s = &s[0];
    assert_eq!((s["m"].as_u64(), s["writer"].as_u64()), (Some(1), Some(a)));
    assert_eq!(s["readers"], serde_json::json!([b]));
    // The reader read every one of the writer's 300 timed writes.
    assert_eq!(s["rounds"], matrix::SHARER_ROUNDS);
    assert_eq!(s["reads"], matrix::SHARER_ROUNDS);
    assert_eq!(s["fresh_reads"], matrix::SHARER_ROUNDS);
    assert!(s["upgrade_ns"].is_f64(), "{s}");

    // One entry per class measured, local always; remote when there is
    // another memory node.
    let h = v["home_classes"].as_array().unwrap();
    let classes: Vec<&Value> = v["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["class"])
        .collect();
    assert_eq!(h.iter().map(|c| &c["class"]).collect::<Vec<_>>(), classes);
    for c in h {
        assert_eq!(c["local"]["distance"], 10, "{c}");
        assert!(c["local"]["samples"].as_u64().unwrap() >= 600, "{c}");
        assert_eq!(
            c["remote"].is_null(),
            memory_nodes(&v["topology"]) == 1,
            "{c}"
        );
    }

    // The text, from the file, has the three tables.
    let files = results_dir(dir.path()).expect("a results folder");
    let out = contend(&["report", files.join("matrix.json").to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    for header in [
        "k   widest class   adds",
        "m   widest class   fresh reads   upgrade ns",
        "class      pairs",
    ] {
        assert!(text.contains(header), "{header:?} in {text}");
    }
    let fresh = format!("{0}/{0}", matrix::SHARER_ROUNDS);
    assert!(
        text.lines()
            .any(|l| l.starts_with("1 ") && l.contains(&fresh)),
        "{text}"
    );
    // And the page.
    let page = std::fs::read_to_string(files.join("report.html")).unwrap();
    for heading in [
        "Contenders: k CPUs",
        "Sharers: one writer",
        "Homes: read fetched",
    ] {
        assert!(page.contains(heading), "{heading:?} not on the page");
    }
    assert!(page.contains(&fresh), "fresh reads not on the page");

    // predict --host matrix.json prices with what the matrix measured: its
    // contenders and sharers curves, named by the file, unless a
    // host-costs file replaces one.
    let m = files.join("matrix.json");
    let p = contend_json(&["predict", "--host", m.to_str().unwrap(), "--json"]);
    let costs = &p["latencies"]["costs"];
    // No hand-over (one CPU made all its adds before the other began, as
    // a loaded host can have it) leaves no price, and so no point.
    let private_add = c["private_add_ns"].as_f64().unwrap();
    let handover = c["handover_ns"].as_f64().map_or(0.0, |h| h + private_add);
    if handover > 0.0 {
        assert_eq!(costs["contenders"]["points"][0]["at"], 2, "{costs}");
        assert!((costs["contenders"]["points"][0]["ns"].as_f64().unwrap() - handover).abs() < 1e-9);
        assert!(
            costs["contenders"]["source"]
                .as_str()
                .unwrap()
                .contains("matrix.json"),
            "{costs}"
        );
    }
    if s["upgrade_ns"].as_f64().unwrap() > 0.0 {
        assert_eq!(costs["sharers"]["points"][0]["at"], 1, "{costs}");
    }
    let given = files.join("host-costs.json");
    std::fs::write(
        &given,
        r#"{"contenders": {"points": [{"at": 1, "ns": 40}, {"at": 2, "ns": 50}], "source": "given"}}"#,
    )
    .unwrap();
    let p = contend_json(&[
        "predict",
        "--host",
        m.to_str().unwrap(),
        "--host",
        given.to_str().unwrap(),
        "--json",
    ]);
    let costs = &p["latencies"]["costs"];
    assert_eq!(costs["contenders"]["source"], "given");
}

#[test]
fn a_matrix_of_an_older_schema_is_refused_naming_it() {
    let topo = fixture("cpuless-memless");
    let mut m = synthetic(topo, vec![0, 1, 2], None, |_| 20.0);
    m.schema = 1;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("matrix.json");
    std::fs::write(&path, serde_json::to_string(&m).unwrap()).unwrap();
    let out = contend(&["report", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("matrix.json: schema 1, this contend reads schema 2 only"),
        "{err}"
    );
}

#[test]
fn bad_requests_exit_2_with_one_line() {
    assert_usage_error(&["matrix", "--cpus", "0"], "at least 2 CPUs");
    assert_usage_error(&["matrix", "--cpus", "4000-4001"], "names CPUs 4000-4001,");
    assert_usage_error(
        &["matrix", "--cpus", "4000-4001:clip"],
        "selects no allowed CPU",
    );
    assert_usage_error(
        &["matrix", "--mode", "cas:home=node:9"],
        "node 9 does not exist",
    );
    assert_usage_error(
        &["matrix", "--mode", "rw:home=sideways"],
        "first, second or node:N",
    );
    assert_usage_error(&["matrix", "--mode", "xchg"], "expected cas or rw");
    // Contenders and sharers beyond the chosen CPUs (or below the least).
    assert_usage_error(
        &["matrix", "--cpus", "0-1", "--also", "contenders:2,999"],
        "--also contenders 999: needs 999 CPUs; --cpus 0-1 selects 2",
    );
    assert_usage_error(
        &["matrix", "--cpus", "0-1", "--also", "sharers:2"],
        "--also sharers 2: a writer and 2 readers need 3 CPUs; --cpus 0-1 selects 2",
    );
    assert_usage_error(
        &["matrix", "--also", "contenders:1"],
        "--also contenders 1: at least 2 CPUs",
    );
    assert_usage_error(
        &["matrix", "--also", "sharers:0"],
        "--also sharers 0: at least 1 reader",
    );
    assert_usage_error(
        &["matrix", "--also", "sharers:few"],
        "expected all or counts",
    );
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/topology/vm-4node-norov"
    );
    assert_usage_error(&["--sysfs-root", fixture, "matrix"], "live host");
}

#[test]
fn help_writes_the_rule_and_the_sample_size() {
    let out = contend(&["matrix", "--help"]);
    assert!(out.status.success());
    // --help is wrapped to the terminal: compare words.
    let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let help = words(&String::from_utf8(out.stdout).unwrap());
    assert!(help.contains(&words(matrix::RULE)), "{help}");
    let r = matrix::ROUND_TRIPS_PER_SAMPLE;
    assert!(
        help.contains(&format!("{r} round trips, its time / {}", 2 * r)),
        "{help}"
    );
}

/// Every `<text>` element's content.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..];
            Some(body[..body.find("</text>")?].trim().to_string())
        })
        .collect()
}

/// The heatmap of `m`.
fn heatmap(m: &MatrixResults) -> String {
    let doc = contend::report::Document::Matrix(m);
    let files = contend::report::files(&doc, contend::report::Format::Svg).unwrap();
    String::from_utf8(files[0].bytes.clone()).unwrap()
}

/// Steps of the heatmap's colour scale.
const SCALE_STEPS: usize = 64;

#[test]
fn a_sampled_matrix_heatmap_draws_only_its_sampled_cpus() {
    // SPR: 3 classes (smt, same-llc, cross-node@21), 2 pairs each.
    let spr = fixture("spr-2s-224");
    // Costs 10-12 ns (medians 11-13, backward 15-18): the colour scale's
    // labels carry a decimal, so the axes' CPU ids are the only whole
    // numbers drawn.
    let cost = |c| match c {
        PairClass::Smt => 10.0,
        PairClass::SameLlc => 11.0,
        _ => 12.0,
    };
    let r = synthetic(spr.clone(), spr.allowed_cpus.to_vec(), Some(2), cost);
    assert_eq!(r.pairs.len(), 6);
    let sampled: std::collections::BTreeSet<u32> = r.pairs.iter().flat_map(|p| p.cpus).collect();
    let svg = heatmap(&r);
    let labels: std::collections::BTreeSet<u32> =
        texts(&svg).iter().filter_map(|t| t.parse().ok()).collect();
    assert_eq!(labels, sampled);
    // The background, one cell per direction of each pair, the colour
    // scale: no blank 224 × 224 grid.
    assert_eq!(svg.matches("<rect").count(), 1 + 2 * 6 + SCALE_STEPS);
    let note = format!("sampled: {} of 224 CPUs, 2 pairs per class", sampled.len());
    assert!(
        texts(&svg).iter().any(|t| t.ends_with(&note)),
        "{:?}",
        texts(&svg)
    );
    // A full matrix draws every CPU and says nothing of sampling.
    let small = fixture("no-numa");
    let full = synthetic(small.clone(), small.allowed_cpus.to_vec(), None, cost);
    let svg = heatmap(&full);
    assert_eq!(svg.matches("<rect").count(), 1 + 2 * 6 + SCALE_STEPS);
    assert!(!svg.contains("sampled"));
}

/// `r` as `contend matrix` prints it.
fn text_of(r: &MatrixResults) -> String {
    contend::report::render(
        &contend::report::Document::Matrix(r),
        contend::report::Format::Text,
    )
    .unwrap()
}

/// The grid's lines of `text`: the CPU header, then a row per CPU.
fn grid_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip_while(|l| !l.starts_with("one-way ns (round trip / 2)"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().map(String::from).collect())
        .collect()
}

#[test]
fn the_text_shows_every_pair_in_a_grid_up_to_32_cpus() {
    // CPUs 0 and 1 of the EPYC fixture share an LLC; 64 is on the other
    // socket.
    let epyc = || fixture("epyc-7j13-2s-nps1-256");
    let r = synthetic(
        epyc(),
        vec![0, 1, 64],
        None,
        ns(8.0, 23.0, 100.0, &[(32, 197.0)]),
    );
    let text = text_of(&r);
    let at = |a: u32, b: u32| {
        let p = r.pairs.iter().find(|p| p.cpus == [a, b]).unwrap();
        format!("{:.0}", p.median_ns)
    };
    assert_eq!(
        grid_rows(&text),
        [
            vec!["0".to_string(), "1".into(), "64".into()],
            vec!["0".into(), ".".into(), at(0, 1), at(0, 64)],
            vec!["1".into(), at(0, 1), ".".into(), at(1, 64)],
            vec!["64".into(), at(0, 64), at(1, 64), ".".into()],
        ],
        "{text}"
    );
    assert!(!text.contains("not sampled"), "{text}");
    for line in text.lines() {
        assert!(line.chars().count() <= 72, "{} columns: {line}", line.len());
    }
    // 16 CPUs, one pair per class: the rest are marked as not sampled,
    // and the grid still fits 72 columns.
    let r = synthetic(
        epyc(),
        (0..16).collect(),
        Some(1),
        ns(8.0, 23.0, 100.0, &[]),
    );
    let text = text_of(&r);
    let rows = grid_rows(&text);
    assert_eq!(rows.len(), 17, "{text}");
    let measured = rows[1..]
        .iter()
        .flatten()
        .filter(|c| c.parse::<f64>().is_ok());
    // Row labels are numbers too: 16 of them, and each pair twice.
    assert_eq!(measured.count(), 16 + 2 * r.pairs.len(), "{text}");
    assert!(text.contains("; - = not sampled"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 72), "{text}");
    // Over 32 CPUs, a grid by node: 32 CPUs of each socket, each node's
    // CPUs as a range list, each cell the median of the pairs' medians
    // between the two nodes, worked out here from the pairs.
    let cpus: Vec<u32> = (0..32).chain(64..96).collect();
    let r = synthetic(epyc(), cpus, Some(4), ns(8.0, 23.0, 100.0, &[(32, 197.0)]));
    let text = text_of(&r);
    assert!(grid_rows(&text).is_empty(), "{text}");
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip_while(|l| !l.starts_with("64 CPUs, one-way ns by node"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert_eq!(rows[0], ["CPUs", "node", "0", "node", "1"], "{text}");
    let node = |c: u32| u32::from(c >= 64);
    let cell = |a: u32, b: u32| {
        let mut v: Vec<f64> = r
            .pairs
            .iter()
            .filter(|p| {
                let (x, y) = (node(p.cpus[0]), node(p.cpus[1]));
                (x.min(y), x.max(y)) == (a.min(b), a.max(b))
            })
            .map(|p| p.median_ns)
            .collect();
        v.sort_by(f64::total_cmp);
        let m = if v.len() % 2 == 1 {
            v[v.len() / 2]
        } else {
            (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
        };
        format!("{m:.0}")
    };
    for (row, (n, list)) in rows[1..].iter().zip([(0, "0-31"), (1, "64-95")]) {
        assert_eq!(row[..3], ["node", &n.to_string(), list], "{text}");
        assert_eq!(row[3..], [cell(n, 0), cell(n, 1)], "{text}");
    }
    assert_ne!(cell(0, 0), cell(0, 1), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 72), "{text}");
}

#[test]
fn one_class_cannot_advise_in_the_words_a_run_uses() {
    // CPUs 0 and 1 of the EPYC fixture: one LLC, one node, one class.
    let mut r = synthetic(
        fixture("epyc-7j13-2s-nps1-256"),
        vec![0, 1],
        None,
        ns(8.0, 23.0, 100.0, &[]),
    );
    assert_eq!((r.advice.split, r.advice.rule), (Split::CannotAdvise, 1));
    let words = "this host cannot say what splitting across nodes or LLCs saves: its";
    let said = format!(
        "advice: cannot advise: {words} CPUs share one node and one LLC; only one class measured"
    );
    let text = unwrapped(&text_of(&r));
    assert!(text.contains(&said), "{text}");
    assert!(!text.contains("no split needed"), "{text}");
    // A file from before "cannot advise" said "no split needed" for rule
    // 1: it reads the same now.
    r.advice.split = Split::None;
    assert!(unwrapped(&text_of(&r)).contains(&said));
    // A run on a host of one node and one LLC says it of its writers.
    let run = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/results/run.json"
    );
    let out = contend(&["report", run, "--print", "all"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("{words} writers share one node and one LLC")),
        "{text}"
    );
}

#[test]
fn a_heatmap_of_one_value_has_one_swatch_labelled_with_it() {
    let small = fixture("no-numa");
    let mut r = synthetic(small, vec![0, 1], None, |_| 28.0);
    let pair = &mut r.pairs[0];
    (pair.forward.median_ns, pair.backward.median_ns) = (28.0, 28.0);
    let svg = heatmap(&r);
    // Besides the CPU ids, the one value: no range around it.
    let scale: Vec<String> = texts(&svg)
        .into_iter()
        .filter(|t| t.parse::<f64>().is_ok() && t.parse::<u32>().is_err())
        .collect();
    assert_eq!(scale, ["28.0"], "{:?}", texts(&svg));
    assert!(
        texts(&svg).iter().any(|t| t.ends_with(": every pair")),
        "{:?}",
        texts(&svg)
    );
    // The background, both cells, one swatch.
    assert_eq!(svg.matches("<rect").count(), 1 + 2 + 1);
    // Within 5% of the lower (28 and 29.3 ns): one colour too, labelled
    // with their middle, the scale saying how far apart they are.
    r.pairs[0].backward.median_ns = 29.3;
    let svg = heatmap(&r);
    assert_eq!(svg.matches("<rect").count(), 1 + 2 + 1);
    assert!(
        texts(&svg)
            .iter()
            .any(|t| t.ends_with(": every pair within 5% (28.0-29.3)")),
        "{:?}",
        texts(&svg)
    );
    assert!(
        texts(&svg).iter().any(|t| t == "28.6" || t == "28.7"),
        "{:?}",
        texts(&svg)
    );
    // Two values over 5% apart (28 and 29.5): the scale is a range
    // again.
    r.pairs[0].backward.median_ns = 29.5;
    let svg = heatmap(&r);
    assert_eq!(svg.matches("<rect").count(), 1 + 2 + SCALE_STEPS);
    assert!(!svg.contains("every pair"));
}

#[test]
fn the_load_tables_print_what_each_point_holds() {
    // Two contenders points (one with no hand-over, so no price) and a
    // sharer whose reader missed one write: the rows say so as stored.
    let topo = fixture("cpuless-memless");
    let mut m = synthetic(topo, vec![0, 1, 2], None, |_| 20.0);
    let point = |k: usize, handovers: u64, ns: Option<f64>| matrix::ContendersPoint {
        k,
        cpus: (0..k as u32).collect(),
        widest_class: PairClass::SameLlc,
        home_node: 0,
        line: NodeCheck::Verified { node: 0 },
        threads: (0..k as u32).map(pinned).collect(),
        windows: 12,
        adds: vec![400; k],
        handovers: vec![handovers; k],
        private_add_ns: 8.0,
        handover_ns: ns,
        add_ns: 31.3,
    };
    m.contenders = vec![point(2, 0, None), point(3, 100, Some(55.5))];
    m.sharers = vec![matrix::SharersPoint {
        m: 1,
        writer: 0,
        readers: vec![1],
        widest_class: PairClass::SameLlc,
        home_node: 0,
        line: NodeCheck::Verified { node: 0 },
        threads: vec![pinned(0), pinned(1)],
        rounds: 300,
        reads: 300,
        fresh_reads: 299,
        upgrade_ns: 70.4,
    }];
    let text = text_of(&m);
    // The row starting `first` in the table under the header starting
    // `header`.
    let row = |header: &str, first: &str| -> Vec<String> {
        text.lines()
            .skip_while(|l| !l.starts_with(header))
            .find(|l| l.starts_with(first))
            .unwrap_or_else(|| panic!("no row {first:?}: {text}"))
            .split("   ")
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty())
            .collect()
    };
    // k = 2: 800 adds, no hand-over, no price; k = 3: 300 of 1200 (25%).
    assert_eq!(
        row("k ", "2 "),
        ["2", "same-llc", "800", "0 (0%)", "-", "31.3"]
    );
    assert_eq!(
        row("k ", "3 "),
        ["3", "same-llc", "1200", "300 (25%)", "55.5", "31.3"]
    );
    assert_eq!(row("m ", "1 "), ["1", "same-llc", "299/300", "70.4"]);
    assert!(text.contains("the first k of 0,1,2;"), "{text}");
}
