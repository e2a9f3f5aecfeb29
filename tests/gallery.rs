//! `contend gallery DIR`: the published fixtures as one page, Markdown and
//! JSON, hosts sorted with a headline across them, hostile file names
//! escaped in every format, bad files listed as left out, and the page
//! drawn by headless Chromium (skipped, saying so, without one).

mod common;
use common::browser::{assert_drawn, chromium_or_skip, headless, rects};
use common::{assert_usage_error, contend, load, stderr, stdout};
use std::path::Path;

fn fixtures() -> String {
    format!("{}/tests/fixtures/c2c", env!("CARGO_MANIFEST_DIR"))
}

/// `contend gallery DIR --out OUT`, which must succeed; what it printed.
fn gallery(dir: &str, out: &Path, extra: &[&str]) -> String {
    let mut args = vec!["gallery", dir, "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = contend(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stdout(&o)
}

#[test]
fn the_fixtures_make_one_sorted_gallery_with_a_headline() {
    let out = tempfile::tempdir().unwrap();
    let text = gallery(&fixtures(), out.path(), &[]);
    let g = load(&out.path().join("gallery.json"));
    let hosts = g["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 8);
    // Most nodes first, then most CPUs.
    let keys: Vec<(u64, u64)> = hosts
        .iter()
        .map(|h| (h["nodes"].as_u64().unwrap(), h["cpus"].as_u64().unwrap()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(keys, sorted);
    assert_eq!(hosts[0]["file"], "Dual AMD EPYC 7742 64-Core Processor.csv");
    // The two EPYCs jump most leaving the CCX; the Xeons leaving the socket.
    let jump = |file: &str| {
        hosts.iter().find(|h| h["file"] == file).unwrap()["jump"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(jump("AMD EPYC 7R13 48-Core Processor.csv"), "llc");
    assert_eq!(jump("Dual Intel(R) Xeon Gold 6242 @ 2.8GHz.csv"), "node");
    assert_eq!(jump("Intel Core i7-6700K.csv"), "core");
    // 4 two-node hosts, 2 of them jumping at the node; 4 one-node
    // hosts, 2 with several LLCs.
    let headline = "on 2 of 4 multi-node hosts the jump is at the node; on 2 of 4 single-node hosts at the LLC (the other 2 have one LLC)";
    assert!(text.contains(headline), "{text}");
    let md = std::fs::read_to_string(out.path().join("gallery.md")).unwrap();
    assert!(md.contains(headline), "{md}");
    assert!(
        md.contains("| Dual AMD EPYC 7742 64-Core Processor.csv | 256 |"),
        "{md}"
    );
    let html = std::fs::read_to_string(out.path().join("gallery.html")).unwrap();
    assert!(html.contains(headline));
    assert_eq!(html.matches("<article class=\"card\">").count(), 8);
    // Self-contained, as report.html is.
    for bad in ["http://", "https://", "src=", "@import", "url("] {
        assert!(!html.contains(bad), "the page contains {bad:?}");
    }
}

#[test]
fn hostile_file_names_are_escaped_and_bad_files_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(format!("{}/Intel Core i7-6700K.csv", fixtures())).unwrap();
    let hostile = "<img src=x onerror=alert(1)>*_[x](y)|`.csv";
    std::fs::write(dir.path().join(hostile), &good).unwrap();
    std::fs::write(dir.path().join("\u{1b}[31mred.csv"), &good).unwrap();
    std::fs::write(dir.path().join("nan.csv"), ",,\nNaN,,\n1,2,\n").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a csv").unwrap();
    let out = tempfile::tempdir().unwrap();
    let text = gallery(dir.path().to_str().unwrap(), out.path(), &[]);
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(
        text.contains("skipped nan.csv: row 1, column 0: \"NaN\" is NaN"),
        "{text}"
    );
    let html = std::fs::read_to_string(out.path().join("gallery.html")).unwrap();
    assert!(!html.contains("<img"), "raw tag in the page");
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(!html.contains('\u{1b}'));
    let md = std::fs::read_to_string(out.path().join("gallery.md")).unwrap();
    assert!(
        md.contains("\\<img src=x onerror=alert(1)\\>\\*\\_\\[x\\](y)\\|\\`.csv"),
        "{md}"
    );
    assert!(md.contains("- nan.csv: row 1, column 0:"), "{md}");
    let g = load(&out.path().join("gallery.json"));
    assert_eq!(g["hosts"].as_array().unwrap().len(), 2);
    assert_eq!(g["skipped"][0]["file"], "nan.csv");
    // --format json prints what --out writes.
    let json = contend(&["gallery", dir.path().to_str().unwrap(), "--format", "json"]);
    let printed: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(printed, g);
}

#[test]
fn a_folder_without_csvs_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    assert_usage_error(&["gallery", d], "no .csv file in this folder");
    assert_usage_error(
        &["gallery", "/nonexistent-gallery"],
        "cannot read /nonexistent-gallery",
    );
}

#[test]
fn the_gallery_renders_in_a_real_browser() {
    // Needs a browser: headless Chromium (`apt-get install chromium`).
    let Some(browser) = chromium_or_skip("the gallery browser check") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    gallery(&fixtures(), out.path(), &[]);
    let page = out.path().join("gallery.html");
    let work = tempfile::tempdir().unwrap();
    assert_drawn(&browser, work.path(), &page, "gallery.html");
    let (dom, err) = headless(&browser, work.path(), &page, &["--dump-dom"]);
    assert!(dom.contains("</html>"), "no DOM: {err}");
    for section in ["headline", "hosts", "charts"] {
        assert!(
            dom.contains(&format!("data-section=\"{section}\"")),
            "{section}"
        );
    }
    assert!(
        dom.contains("title=\"click to sort\""),
        "the sorter did not run"
    );
    // The headline and the table's first rows are on the first screen;
    // every host's chart is drawn (an svg of non-zero size).
    let found = rects(
        &browser,
        work.path(),
        &page,
        &[
            "section.headline p.answer",
            "table.gallery tbody tr",
            "article.card svg",
        ],
    );
    let [answer, first_row, chart] = [found[0], found[1], found[2]]
        .map(|r| r.expect("the headline, the table and a chart are on the page"));
    assert!(answer.top >= 0.0 && answer.bottom <= 800.0, "{answer:?}");
    assert!(first_row.bottom <= 800.0, "{first_row:?}");
    assert!(
        chart.right - chart.left > 300.0 && chart.bottom - chart.top > 100.0,
        "{chart:?}"
    );
}

#[test]
fn results_published_is_what_the_fixtures_make_now() {
    // Rebuilt from the same relative folder the script names, so the
    // page's source line matches.
    let root = env!("CARGO_MANIFEST_DIR");
    let out = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_contend"))
        .current_dir(root)
        .args(["gallery", "tests/fixtures/c2c", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    for name in ["gallery.html", "gallery.md", "gallery.json"] {
        let committed = Path::new(root).join("results/published").join(name);
        let now = std::fs::read(out.path().join(name)).unwrap();
        let then = std::fs::read(&committed).unwrap_or_default();
        assert!(
            now == then,
            "{} is stale: run scripts/published-gallery.sh and commit it",
            committed.display()
        );
    }
}
