//! `contend predict --host FILE.csv`: published core-to-core-latency matrices
//! (tests/fixtures/c2c, README there) read back to their CPUs' published
//! layouts, a capture that wins and disagrees, and every kind of bad file
//! as one line and exit 2.

mod common;
use common::{assert_usage_error, contend, contend_json, stderr, stdout};

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/c2c/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn inferred(file: &str, extra: &[&str]) -> serde_json::Value {
    let path = fixture(file);
    let mut args = vec!["predict", "--host", &path, "--rates", "22k", "--json"];
    args.extend_from_slice(extra);
    contend_json(&args)
}

/// SMT cores, LLCs, nodes and the home node.
type Counts = (usize, usize, usize, Option<u64>);

/// The [`Counts`] of a prediction's inferred host.
fn counts(p: &serde_json::Value) -> Counts {
    let t = &p["inferred"]["topology"];
    let cpus = t["cpus"].as_array().unwrap();
    let smt = cpus
        .iter()
        .filter(|c| c["siblings"].as_array().unwrap().len() > 1)
        .count()
        / 2;
    (
        smt,
        t["llcs"].as_array().unwrap().len(),
        t["nodes"].as_array().unwrap().len(),
        p["inferred"]["home_node"].as_u64(),
    )
}

#[test]
fn published_matrices_read_back_to_their_cpus_specifications() {
    // (file, sockets × cores × threads and L3 per socket/CCX from the
    // vendors' specifications) → (SMT cores, LLCs, nodes, home node).
    let cases: [(&str, Counts); 8] = [
        // EPYC 7R13: 2 × 48 × 2, Milan CCX = 8 cores: 12 CCXs.
        ("AMD EPYC 7R13 48-Core Processor.csv", (96, 12, 2, Some(0))),
        // EPYC 7742: 2 × 64 × 2, Rome CCX = 4 cores: 32 CCXs.
        (
            "Dual AMD EPYC 7742 64-Core Processor.csv",
            (128, 32, 2, Some(1)),
        ),
        // E5-2630 v4: 2 × 10 × 2, one L3 per socket.
        (
            "Dual Intel(R) Xeon(R) CPU E5-2630 v4 @ 2.20GHz.csv",
            (20, 2, 2, None),
        ),
        // Gold 6242: 2 × 16 × 2, one L3 per socket.
        (
            "Dual Intel(R) Xeon Gold 6242 @ 2.8GHz.csv",
            (32, 2, 2, None),
        ),
        // Gold 6242, one socket: 16 × 2.
        ("Intel(R) Xeon Gold 6242 @ 2.8GHz.csv", (16, 1, 1, None)),
        // Ryzen 9 5950X: 16 × 2, two CCDs of 8 cores.
        ("AMD Ryzen 9 5950X @ 3.40 GHz.csv", (16, 2, 1, None)),
        // EPYC 7773X: 64 × 2, Milan-X CCX = 8 cores: 8 CCXs.
        ("AMD EPYC 7773X.csv", (64, 8, 1, None)),
        // Core i7-6700K: 4 × 2, one L3.
        ("Intel Core i7-6700K.csv", (4, 1, 1, None)),
    ];
    for (file, want) in cases {
        let p = inferred(file, &[]);
        assert_eq!(counts(&p), want, "{file}");
        assert_eq!(p["cpus"].as_u64().unwrap() as usize, {
            let t = &p["inferred"]["topology"]["cpus"];
            t.as_array().unwrap().len()
        });
        // The default comparison, every strategy predicted at 22k/s.
        let strategies = p["strategies"].as_array().unwrap();
        assert_eq!(strategies.len(), 6, "{file}");
        assert!(strategies.iter().all(|s| s["points"][0]["rate"] == 22000.0));
    }
}

#[test]
fn the_home_socket_is_said_and_its_classes_priced_from_it() {
    let out = contend(&[
        "predict",
        "--host",
        &fixture("AMD EPYC 7R13 48-Core Processor.csv"),
        "--rates",
        "22k",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("host inferred from AMD EPYC 7R13 48-Core Processor.csv (192 CPUs): 2 node(s), 12 LLC group(s), 96 SMT core(s)"), "{text}");
    assert!(text.contains("home: the line lived on node 0 while measured"));
    assert!(
        text.contains("llc  11 (L3, node 1): 88-95,184-191 (16 cpus)"),
        "{text}"
    );
    // Same-node from the home socket's pairs (docs/seeds.md: 108 ns), the
    // other socket's cross-CCX pairs shown apart at the cross price.
    assert!(text.contains("same-node off home (not used)"), "{text}");
    let p = inferred("AMD EPYC 7R13 48-Core Processor.csv", &[]);
    let lat = &p["latencies"]["classes"];
    let ns = |c: &str| lat[c]["ns"].as_f64().unwrap();
    assert!((100.0..115.0).contains(&ns("same-node")), "{lat}");
    assert!((190.0..205.0).contains(&ns("cross-node@20")), "{lat}");
    let away = p["inferred"]["away_same_node"]["median_ns"]
        .as_f64()
        .unwrap();
    assert!(away > 1.7 * ns("same-node"), "{away}");
    // Classes given with --host still override the matrix's.
    let q = inferred(
        "AMD EPYC 7R13 48-Core Processor.csv",
        &["--host", "same-llc=30ns"],
    );
    assert_eq!(q["latencies"]["classes"]["same-llc"]["ns"], 30.0);
}

#[test]
fn sockets_settle_what_the_matrix_cannot_tell() {
    let p = inferred("AMD Ryzen 9 5950X @ 3.40 GHz.csv", &[]);
    let notes = p["inferred"]["notes"].to_string();
    assert!(notes.contains("2 in a host-costs file"), "{notes}");
    let dir = tempfile::tempdir().unwrap();
    let costs = dir.path().join("two-sockets.json");
    std::fs::write(&costs, r#"{"sockets": 2}"#).unwrap();
    let two = inferred(
        "AMD Ryzen 9 5950X @ 3.40 GHz.csv",
        &["--host", costs.to_str().unwrap()],
    );
    assert_eq!(counts(&two), (16, 2, 2, None));
    std::fs::write(&costs, r#"{"sockets": 0}"#).unwrap();
    let out = contend(&[
        "predict",
        "--host",
        &fixture("AMD Ryzen 9 5950X @ 3.40 GHz.csv"),
        "--host",
        costs.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("sockets: 0"), "{}", stderr(&out));
}

#[test]
fn a_capture_wins_and_the_disagreement_is_said() {
    // The 7742's matrix (4-core CCXs) against a 7J13 capture (8-core CCXs,
    // 256 CPUs): the capture's layout, and the pairs the two class
    // differently counted.
    let root = format!(
        "{}/tests/fixtures/topology/epyc-7j13-2s-nps1-256",
        env!("CARGO_MANIFEST_DIR")
    );
    let p = contend_json(&[
        "--sysfs-root",
        &root,
        "predict",
        "--host",
        &fixture("Dual AMD EPYC 7742 64-Core Processor.csv"),
        "--rates",
        "22k",
        "--json",
    ]);
    assert_eq!(p["llcs"], 16);
    let d = p["inferred"]["disagreements"].as_array().unwrap();
    // Each 7J13 CCX holds two of the 7742's: 16 × (4 × 4 cores × 4
    // thread pairs) = 1024 same-llc pairs the matrix sees as same-node.
    let pairs = |m: &str, c: &str| {
        d.iter()
            .find(|x| x["matrix"] == m && x["capture"] == c)
            .map_or(0, |x| x["pairs"].as_u64().unwrap())
    };
    assert_eq!(pairs("same-node", "same-llc"), 1024, "{d:?}");
    let notes = p["inferred"]["notes"].to_string();
    assert!(notes.contains("disagree on"), "{notes}");
}

#[test]
fn bad_files_are_one_line_naming_the_row_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("ragged.csv", ",,\n5,\n20,6,\n", "row 1 has 2 cells"),
        (
            "text.csv",
            ",,\n5,,\n20,abc,\n",
            "row 2, column 1: \"abc\" is not a number",
        ),
        (
            "negative.csv",
            ",,\n-5,,\n20,6,\n",
            "row 1, column 0: \"-5\" is negative",
        ),
        (
            "nan.csv",
            ",,\n5,,\n20,NaN,\n",
            "row 2, column 1: \"NaN\" is NaN",
        ),
        (
            "zeros.csv",
            ",,,\n0,,,\n0,0,,\n0,0,0,\n",
            "every cell is 0 ns",
        ),
        ("two.csv", ",\n5,\n", "2 CPUs: too small"),
        (
            "missing-pair.csv",
            ",,\n5,,\n,6,\n",
            "row 2, column 0: empty in both",
        ),
    ];
    for (name, text, needle) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let p = path.to_str().unwrap();
        assert_usage_error(&["predict", "--host", p], needle);
        assert_usage_error(&["predict", "--host", p], name);
    }
    assert_usage_error(
        &["predict", "--host", "/nonexistent/x.csv"],
        "cannot read /nonexistent/x.csv",
    );
}

#[test]
fn a_1024_cpu_file_is_read_inferred_and_predicted() {
    // 8 sockets × 64 cores × 2 threads, CCXs of 8 cores (CPU c's core is
    // c mod 512): smt 8, same-llc 25, same-node 110, cross-node 200 ns.
    let n = 1024;
    let core = |c: usize| c % 512;
    let ns = |i: usize, j: usize| {
        let (a, b) = (core(i), core(j));
        if a == b {
            8.0
        } else if a / 8 == b / 8 {
            25.0
        } else if a / 64 == b / 64 {
            110.0
        } else {
            200.0
        }
    };
    let mut text = String::new();
    for i in 0..n {
        let row: Vec<String> = (0..n)
            .map(|j| {
                if j < i {
                    ns(i, j).to_string()
                } else {
                    String::new()
                }
            })
            .collect();
        text.push_str(&row.join(","));
        text.push('\n');
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.csv");
    std::fs::write(&path, text).unwrap();
    // One strategy: the model's cost grows with the CPUs, and this test
    // is about the file (the timed run is in docs/predict.md).
    let p = contend_json(&[
        "predict",
        "--host",
        path.to_str().unwrap(),
        "--rates",
        "22k",
        "--level",
        "global",
        "--publish",
        "always",
        "--json",
    ]);
    assert_eq!(counts(&p), (512, 64, 8, None));
}

#[test]
fn contend_matrix_writes_the_same_format() {
    // Every pair of this host's allowed CPUs, as core-to-core-latency
    // writes them: the pair's median one-way ns, lower triangle.
    let out = tempfile::tempdir().unwrap();
    let csv = out.path().join("here.csv");
    let o = contend(&[
        "matrix",
        "--samples",
        "20",
        "--pairs",
        "all",
        "--print",
        "none",
        "--also",
        &format!("c2c:{}", csv.display()),
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let m = common::load(&common::results_dir(out.path()).unwrap().join("matrix.json"));
    let cpus = common::allowed_cpus();
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), cpus.len());
    for pair in m["pairs"].as_array().unwrap() {
        let (a, b) = (
            pair["cpus"][0].as_u64().unwrap(),
            pair["cpus"][1].as_u64().unwrap(),
        );
        let (i, j) = [b, a]
            .map(|c| cpus.iter().position(|&x| u64::from(x) == c).unwrap())
            .into();
        let cell: f64 = rows[i][j].parse().unwrap();
        // The same f64 (serde_json reads matrix.json's to within an ulp).
        let want = pair["median_ns"].as_f64().unwrap();
        assert!((cell / want - 1.0).abs() < 1e-12, "{cell} against {want}");
        assert_eq!(rows[j][i], "");
    }
    // Without every pair there is no such matrix: refused before measuring.
    let o = contend(&["matrix", "--also", &format!("c2c:{}", csv.display())]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--pairs all"), "{}", stderr(&o));
}
