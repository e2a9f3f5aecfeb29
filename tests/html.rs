//! report.html end to end: written beside run.json by a real short run
//! with the default strategies and regimes (flat out and paced at 22k/s),
//! each regime's verdict, tables and charts from its own view, the trusted
//! figures first, ▲/▼ only on measures with a direction; built by `contend report --format html` from one
//! or more files (hosts side by side, a run beside a matrix, a sweep),
//! escaped where a result file says something hostile, self-contained,
//! and drawn by a real browser: headless Chromium's screenshot must not be
//! blank and its DOM must hold every section.
//!
//! The browser test needs `chromium` (Debian's package; `.ci/run`
//! installs it). Without a Chromium that runs, it prints
//! "SKIPPED: chromium not found" and passes; every other test here runs
//! anyway.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod common;
use common::browser::{
    assert_drawn, assert_headline_on_first_screen, chart_text_px, chromium_or_skip, headless,
};
use common::{assert_one_line_error, contend, load, s, save, stderr, stdout};

/// The sections every result's article has, by `data-section`.
const SECTIONS: [&str; 6] = [
    "verdict",
    "tables",
    "charts",
    "placement",
    "warnings",
    "provenance",
];

/// One real run with the default strategies (levels global, node ×
/// threshold:64, ratelimit:1ms+threshold:64, always) and regimes (flat
/// out, and paced at 22k/s per thread), short: its folder, run.json and
/// what it printed.
struct Run {
    _dir: tempfile::TempDir,
    folder: PathBuf,
    json: PathBuf,
    printed: String,
}

fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = contend(&[
            "run",
            "--out",
            dir.path().to_str().unwrap(),
            "--duration",
            "90ms",
            "--repeats",
            "3",
            "--warmup",
            "0",
            "--print",
            "all",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let folder = common::results_dir(dir.path()).expect("a results folder");
        Run {
            json: folder.join("run.json"),
            folder,
            printed: stdout(&out),
            _dir: dir,
        }
    })
}

/// The page `contend report ARGS --format=html=-` prints.
fn page(args: &[&str]) -> String {
    let mut all = vec!["report"];
    all.extend_from_slice(args);
    all.push("--format=html=-");
    let out = contend(&all);
    assert!(out.status.success(), "{all:?}: {}", stderr(&out));
    stdout(&out)
}

/// Nothing on the page points outside it.
fn assert_self_contained(html: &str) {
    for bad in ["http://", "https://", "//cdn", "src=", "@import", "url("] {
        assert!(!html.contains(bad), "the page contains {bad:?}");
    }
    // One script: the page's own table sorter.
    assert_eq!(html.matches("<script").count(), 1, "scripts on the page");
    assert!(html.starts_with("<!DOCTYPE html>"));
}

/// The text of result `id`'s section `name` (to the next section).
fn section_of<'a>(html: &'a str, name: &str, id: usize) -> &'a str {
    let tag = format!("data-section=\"{name}\" id=\"{name}-{id}\"");
    let from = html
        .find(&tag)
        .unwrap_or_else(|| panic!("no {name} section"));
    let rest = &html[from..];
    let end = rest[tag.len()..]
        .find("<section")
        .map_or(rest.len(), |e| e + tag.len());
    &rest[..end]
}

fn assert_sections(html: &str, id: usize) {
    for section in SECTIONS {
        let tag = format!("data-section=\"{section}\" id=\"{section}-{id}\"");
        assert!(html.contains(&tag), "no {section} section for result {id}");
    }
}

#[test]
fn a_run_ends_with_verdict_lines_and_writes_its_page() {
    let r = run();
    // The first screen: at most 30 lines of at most 100 columns, the
    // headline's answer at the seed's rate before the table.
    let (screen, verbose) = r
        .printed
        .split_once("\n=== the answer in full ===\n")
        .expect("--verbose's part");
    let lines: Vec<&str> = screen.lines().collect();
    assert!(lines.len() <= 30, "{screen}");
    assert!(lines.iter().all(|l| l.chars().count() <= 100), "{screen}");
    let answer = lines
        .iter()
        .position(|l| {
            l.starts_with(
                "At the seed's rate of 22.0k updates/s per thread, the kernel's counter costs ",
            )
        })
        .unwrap_or_else(|| panic!("no headline: {screen}"));
    let table = lines
        .iter()
        .position(|l| l.starts_with("strategy "))
        .unwrap();
    assert!(answer < table, "{screen}");
    assert!(!screen.contains("verdict: "), "{screen}");
    // --verbose: the whole headline, flat out last, then 3 to 8 verdict
    // lines: flat out the saturation throughput, paced the cost at the
    // seed's rate, and what this one-node host cannot answer.
    let lines: Vec<&str> = verbose.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.starts_with("verdict: "))
        .unwrap();
    let verdicts: Vec<&str> = lines[first..]
        .iter()
        .take_while(|l| l.starts_with("verdict: "))
        .copied()
        .collect();
    assert!((3..=8).contains(&verdicts.len()), "{verbose}");
    assert!(lines[0].starts_with("At the seed's rate"), "{verbose}");
    assert!(lines[first - 2].starts_with("Flat out, "), "{verbose}");
    assert!(
        verbose.contains("verdict: flat out, saturation: "),
        "{verbose}"
    );
    assert!(
        verdicts[0].starts_with("verdict: paced at 22.0k/s per thread (the seed's rate)"),
        "{}",
        r.printed
    );
    assert!(
        r.printed
            .contains("verdict: paced at 22.0k/s per thread, against global/threshold:64 ("),
        "{}",
        r.printed
    );

    // report.html beside run.json, every section, self-contained, small.
    let path = r.folder.join("report.html");
    let html = std::fs::read_to_string(&path).expect("report.html beside run.json");
    assert_self_contained(&html);
    assert_sections(&html, 1);
    assert!(html.contains("<svg"), "no inline chart");
    let size = html.len();
    eprintln!("default run's report.html: {size} bytes");
    assert!(size <= 1_000_000, "report.html is {size} bytes");
    // The page's verdict is the terminal's, line for line.
    let verdict = section_of(&html, "verdict", 1);
    for line in &verdicts {
        let escaped = line
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        assert!(verdict.contains(&escaped), "{line} not in {verdict}");
    }
    // Each regime's tables lead with its trusted figures, never the
    // sampled ns: flat out loop ns/op from throughput, its net and
    // updates per ownership; paced net ns per update and net CPU share.
    let tables = section_of(&html, "tables", 1);
    // No table repeats another: writers read after every update and there
    // are no reader threads, so read-side ops/s would be updates/s again.
    assert!(
        !tables.contains("read side: sum + calc_group_shares"),
        "{tables}"
    );
    let titles = |regime: &str| -> Vec<String> {
        let from = tables.find(regime).unwrap_or_else(|| panic!("{regime}"));
        tables[from..]
            .split("<h4>")
            .skip(1)
            .map(|t| t[..t.find("</h4>").unwrap()].to_string())
            .collect()
    };
    let flat = titles("<h3 class=\"regime\">Flat out</h3>");
    assert!(
        flat[0].starts_with("writer ns/op from throughput"),
        "{flat:?}"
    );
    assert!(
        flat[1].starts_with("net ns per update, flat out"),
        "{flat:?}"
    );
    // The diagnostic figures follow, folded under a heading the reader
    // opens, updates per ownership first.
    let diagnostic = tables
        .find("<details class=\"diagnostic\">")
        .expect("the diagnostic tables are folded");
    let ownership = tables
        .find("<h4>updates per ownership")
        .expect("an updates-per-ownership table");
    assert!(diagnostic < ownership, "{tables}");
    let folded = flat
        .iter()
        .position(|t| t.starts_with("updates per ownership"))
        .unwrap();
    assert!(folded >= 2, "{flat:?}");
    let paced_from = "net ns per update, paced";
    for t in flat[folded..]
        .iter()
        .take_while(|t| !t.starts_with(paced_from))
    {
        assert!(
            !t.starts_with("writer ns/op from throughput") && !t.starts_with("net ns"),
            "a trusted figure among the diagnostic ones: {flat:?}"
        );
    }
    let paced = titles("<h3 class=\"regime\">Paced at 22.0k/s per thread</h3>");
    assert!(
        paced[0].starts_with("net ns per update, paced"),
        "{paced:?}"
    );
    assert!(paced[1].starts_with("net CPU share"), "{paced:?}");
    assert!(
        !paced
            .iter()
            .any(|t| t.starts_with("writer ns/op from throughput")),
        "loop ns/op is the pacing interval when paced: {paced:?}"
    );
    // The charts: the net cost of every strategy in both regimes under
    // the headline, then each regime's, the flat-out ns/op chart first.
    let captions: Vec<&str> = html
        .split("<figcaption>")
        .skip(1)
        .map(|c| &c[..c.find("</figcaption>").unwrap()])
        .collect();
    assert_eq!(captions[..2], ["cost.svg", "ns-per-op.svg"], "{captions:?}");
    let headline = section_of(&html, "headline", 1);
    assert!(headline.contains("<figcaption>cost.svg</figcaption>"));
    let head = html.find("data-section=\"headline\"").unwrap();
    assert!(
        Some(head) < html.find("data-section=\"verdict\""),
        "the headline comes before the verdict"
    );
    for chart in [
        "ns-per-op-r22000.svg",
        "cpu-share-r22000.svg",
        "latency.svg",
    ] {
        assert!(captions.contains(&chart), "{chart}: {captions:?}");
    }
    // Every thread's requested and observed CPU is in the proof.
    let v = load(&r.json);
    for t in v["strategies"][0]["threads"].as_array().unwrap() {
        let cpu = t["cpu"].as_u64().unwrap();
        assert!(html.contains(&format!("<td data-sort=\"{cpu}\">{cpu}</td>")));
    }
    assert!(!html.contains("PARTIAL"), "a complete run has no banner");

    // `contend report` of the run says the same verdicts, in text and in
    // Markdown.
    let text = stdout(&contend(&["report", s(&r.json), "--print", "all"]));
    let md = stdout(&contend(&["report", s(&r.json), "--format", "markdown"]));
    assert!(md.contains("\n**Verdict**\n"), "{md}");
    // The headline, as the terminal's, before the verdict.
    // Markdown wraps its paragraphs: compare words.
    let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let read = words(&common::unescape_markdown(&md));
    for l in lines[..first].iter().filter(|l| !l.is_empty()) {
        assert!(text.contains(l), "{l} not in {text}");
        assert!(read.contains(&words(l)), "{l} not in {md}");
    }
    let bold = md.find("**At the seed's rate").expect("the answer in bold");
    assert!(Some(bold) < md.find("**Verdict**"), "{md}");
    // The verdict lines as the Markdown reads (escapes and all), each
    // once, with its statistics.
    for line in &verdicts {
        assert!(text.contains(line), "{line} not in {text}");
    }
    let (_, full) = text
        .split_once("=== the verdict with its statistics")
        .expect("--verbose's tests");
    let full: Vec<&str> = full
        .lines()
        .filter(|l| l.starts_with("verdict: "))
        .collect();
    assert_eq!(read.matches("verdict: ").count(), full.len(), "{md}");
    for line in full {
        assert_eq!(read.matches(&words(line)).count(), 1, "{line} in {md}");
    }
}

#[test]
fn report_html_goes_beside_the_first_file_or_where_asked() {
    let r = run();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("run.json");
    std::fs::copy(&r.json, &copy).unwrap();
    let out = contend(&["report", s(&copy), "--format", "html"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = dir.path().join("report.html");
    assert!(page.exists());
    assert!(stderr(&out).contains(&format!("wrote {}", page.display())));
    // Again: the page is replaced.
    assert!(
        contend(&["report", s(&copy), "--format", "html"])
            .status
            .success()
    );
    // --format html=PAGE elsewhere; a folder as the file.
    let other = dir.path().join("other.html");
    let out = contend(&[
        "report",
        s(dir.path()),
        &format!("--format=html={}", s(&other)),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::read_to_string(&other)
            .unwrap()
            .contains("contend run on")
    );
    // A file that is not a page is never replaced.
    let out = contend(&["report", s(&copy), &format!("--format=html={}", s(&copy))]);
    assert_one_line_error(&out, "is not an HTML page");
    assert!(load(&copy)["strategies"].is_array());
    // html with --print all, or an --output option, is a usage error.
    let out = contend(&["report", s(&copy), "--format", "html", "--print", "all"]);
    assert_one_line_error(&out, "--print all adds tables to text");
    let out = contend(&["report", s(&copy), "--output", "x.html"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn bad_input_is_one_error_line_naming_the_file() {
    let r = run();
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("notes.txt");
    std::fs::write(&junk, "not a result\n").unwrap();
    let other = save(dir.path(), "other.json", &serde_json::json!({"schema": 1}));
    let missing = dir.path().join("missing.json");
    for bad in [&junk, &other, &missing] {
        for html in [true, false] {
            let mut args = vec!["report", s(&r.json), s(bad)];
            if html {
                args.push("--format=html=-");
            }
            let out = contend(&args);
            assert_one_line_error(&out, s(bad));
        }
    }
    // A folder with no result file, too.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = contend(&["report", s(&empty), "--format", "html"]);
    assert_one_line_error(&out, s(&empty));
}

/// The run's run.json with `edit` applied, saved as `name` in `dir`.
fn edited(dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let mut v = load(&run().json);
    edit(&mut v);
    save(dir, name, &v)
}

#[test]
fn hostile_strings_from_a_result_file_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let evil = "<script>alert(1)</script>";
    let attr = "\"><img src=x onerror=alert(2)>";
    let file = edited(dir.path(), "run.json", |v| {
        v["provenance"]["hostname"] = evil.into();
        v["provenance"]["cpu_model"] = attr.into();
        v["provenance"]["kernel_release"] = evil.into();
        v["provenance"]["command_line"] = serde_json::json!(["contend", evil, attr]);
        v["notes"] = serde_json::json!([evil, format!("WARNING {attr}")]);
        v["topology"]["notes"] = serde_json::json!([evil]);
        v["strategies"][0]["name"] = evil.into();
        v["strategies"][0]["slots"][0]["owner"] = attr.into();
    });
    let html = page(&[s(&file)]);
    assert!(!html.contains("<script>alert"), "unescaped script");
    assert!(!html.contains("<img"), "unescaped attribute break-out");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"));
    assert_eq!(html.matches("<script").count(), 1);
    // Beside another host: the side-by-side tables escape too.
    let other = edited(dir.path(), "b.json", |v| {
        v["provenance"]["hostname"] = "amd-box".into();
    });
    let both = page(&[s(&file), s(&other)]);
    assert!(!both.contains("<script>alert") && !both.contains("<img"));
    assert_eq!(both.matches("<script").count(), 1);
}

#[test]
fn hosts_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let intel = edited(dir.path(), "intel.json", |v| {
        v["provenance"]["hostname"] = "spr-2s".into();
        v["provenance"]["cpu_model"] = "Intel(R) Xeon(R) Platinum 8480+".into();
    });
    let amd = edited(dir.path(), "amd.json", |v| {
        v["provenance"]["hostname"] = "epyc-nps1".into();
        v["provenance"]["cpu_model"] = "AMD EPYC 7J13 64-Core Processor".into();
        v["provenance"]["kernel_release"] = "6.8.0-amd".into();
    });
    let out_page = dir.path().join("page.html");
    let out = contend(&[
        "report",
        s(&intel),
        s(&amd),
        &format!("--format=html={}", s(&out_page)),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(&out_page).unwrap();
    assert_self_contained(&html);
    assert!(html.contains("data-section=\"hosts\""));
    assert!(html.contains("contend report: spr-2s vs epyc-nps1"));
    for needle in [
        "Intel(R) Xeon(R) Platinum 8480+",
        "AMD EPYC 7J13 64-Core Processor",
        "Linux 6.8.0-amd",
        "<th class=\"host\" colspan=\"2\">spr-2s</th>",
        "<th class=\"host\" colspan=\"2\">epyc-nps1</th>",
    ] {
        assert!(html.contains(needle), "no {needle}");
    }
    // Each host keeps its own full article.
    assert_sections(&html, 1);
    assert_sections(&html, 2);

    // contend compare across hosts names both in its header.
    let out = contend(&["compare", "--verbose", s(&intel), s(&amd)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let head: Vec<&str> = text.lines().take(2).collect();
    assert!(head[0].starts_with("base: ") && head[0].contains("on spr-2s (Intel"));
    assert!(head[1].starts_with("test: ") && head[1].contains("on epyc-nps1 (AMD"));
    assert!(stderr(&out).contains("different hosts: base spr-2s vs test epyc-nps1"));
}

#[test]
fn a_partial_run_shows_a_banner() {
    let dir = tempfile::tempdir().unwrap();
    let file = edited(dir.path(), "run.json", |v| v["partial"] = true.into());
    let html = page(&[s(&file)]);
    assert!(html.contains("class=\"banner partial\""), "no banner");
    assert!(html.contains("PARTIAL: this run was interrupted"));
}

/// A sweep made of the real run at two thread counts (the same numbers,
/// so throughput does not scale).
fn sweep_file(dir: &Path) -> PathBuf {
    let r = load(&run().json);
    let sweep = serde_json::json!({
        "schema": r["schema"],
        "partial": false,
        "out_of_time": false,
        "points": [
            {"threads": 1, "affinity": "unbound", "rate": null, "results": r},
            {"threads": 2, "affinity": "unbound", "rate": null, "results": r},
        ]
    });
    save(dir, "sweep.json", &sweep)
}

#[test]
fn a_run_a_matrix_and_a_sweep_are_separate_sections() {
    let dir = tempfile::tempdir().unwrap();
    let mfolder = common::quick_matrix(dir.path());
    let mpage = std::fs::read_to_string(mfolder.join("report.html")).expect("matrix report.html");
    assert_self_contained(&mpage);
    assert_sections(&mpage, 1);
    assert!(mpage.contains("verdict: advice: "), "no advice line");
    assert!(mpage.contains("Cost of a cache line"), "no class table");

    let sweep = sweep_file(dir.path());
    let html = page(&[s(&run().json), s(&mfolder.join("matrix.json")), s(&sweep)]);
    assert_self_contained(&html);
    for (id, kind) in [(1, "run"), (2, "matrix"), (3, "sweep")] {
        assert!(
            html.contains(&format!("id=\"result-{id}\" data-kind=\"{kind}\"")),
            "no {kind} article"
        );
        assert_sections(&html, id);
    }
    // One run: no hosts side by side.
    assert!(!html.contains("data-section=\"hosts\""));
    // The sweep's verdict: where throughput stops scaling.
    assert!(
        html.contains("verdict: affinity unbound, write throughput (hammer): "),
        "no scaling verdict"
    );
}

#[test]
fn the_page_renders_in_a_real_browser() {
    // Needs a browser: headless Chromium (`apt-get install chromium`).
    let Some(browser) = chromium_or_skip("the browser check") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = run().folder.join("report.html");
    assert_drawn(&browser, dir.path(), &page, "report.html");

    // The DOM after the browser has parsed it (and run the sorter).
    let (dom, err) = headless(&browser, dir.path(), &page, &["--dump-dom"]);
    assert!(dom.contains("</html>"), "no DOM: {err}");
    for section in SECTIONS {
        assert!(
            dom.contains(&format!("data-section=\"{section}\"")),
            "the browser's DOM has no {section} section"
        );
    }
    assert!(dom.contains("verdict: flat out, saturation: "));
    // The sorter ran: it titles the sortable headers.
    assert!(
        dom.contains("title=\"click to sort\""),
        "the sorter did not run"
    );

    // Two hosts and a sweep on one page: the browser sees every part.
    let amd = edited(dir.path(), "amd.json", |v| {
        v["provenance"]["hostname"] = "epyc-nps1".into();
    });
    let sweep = sweep_file(dir.path());
    let multi = dir.path().join("multi.html");
    let out = contend(&[
        "report",
        s(&run().json),
        s(&amd),
        s(&sweep),
        &format!("--format=html={}", s(&multi)),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (dom, err) = headless(&browser, dir.path(), &multi, &["--dump-dom"]);
    assert!(dom.contains("</html>"), "no DOM: {err}");
    assert!(
        dom.contains("data-section=\"hosts\""),
        "no hosts side by side"
    );
    assert_eq!(dom.matches("data-section=\"verdict\"").count(), 3);
    assert!(dom.contains("epyc-nps1"));
}

#[test]
fn the_headline_and_the_cost_chart_are_on_the_first_screen() {
    // Needs a browser: headless Chromium (`apt-get install chromium`).
    let Some(browser) = chromium_or_skip("the browser check") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = run().folder.join("report.html");
    assert_headline_on_first_screen(&browser, dir.path(), &page);
}

#[test]
fn chart_text_is_at_least_11_px_at_1280_wide() {
    // Needs a browser: headless Chromium (`apt-get install chromium`).
    let Some(browser) = chromium_or_skip("the chart text check") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = run().folder.join("report.html");
    let charts = chart_text_px(&browser, dir.path(), &page);
    eprintln!("smallest chart text at 1280 px wide: {charts:?}");
    // cost.svg under the headline, then every regime's charts.
    assert!(charts.len() >= 7, "{charts:?}");
    assert_eq!(charts[0].0, "cost.svg");
    for (name, px) in &charts {
        assert!(*px >= 11.0, "{name}: its smallest text is {px:.1} px");
    }
}

/// A summary as run.json holds it: 5 repeats of `mean` ± 1%.
fn known(mean: f64) -> Value {
    let sd = mean / 100.0;
    serde_json::json!({
        "n": 5, "mean": mean, "stddev": sd, "stddev_pct": 1.0,
        "ci95_low": mean - 2.0 * sd, "ci95_high": mean + 2.0 * sd,
        "min": mean - sd, "max": mean + sd
    })
}

/// The largest x-axis tick value of the inline chart captioned `name`.
fn top_tick(html: &str, name: &str) -> f64 {
    let end = html
        .find(&format!("<figcaption>{name}</figcaption>"))
        .unwrap_or_else(|| panic!("no chart {name}"));
    let start = html[..end].rfind("<svg ").unwrap();
    let svg = &html[start..end];
    let svg = &svg[..svg.rfind("</svg>").unwrap() + "</svg>".len()];
    let elements = common::xml::parse_xml(svg).unwrap_or_else(|e| panic!("{name}: {e}"));
    elements
        .iter()
        .filter(|e| e.name == "text" && e.attr("text-anchor") == "middle")
        .filter_map(|e| e.text.trim().parse::<f64>().ok())
        .fold(f64::NEG_INFINITY, f64::max)
}

#[test]
fn the_page_shows_the_throughput_figure_not_the_sampled_one() {
    // Sampled ns five times the trusted figure, as fenced samples of a
    // hammering writer read: flat out 21.7 ns/op from throughput against
    // 108.5 sampled; paced 43.2 net ns per update (129.6 busy) against
    // 216 sampled.
    let dir = tempfile::tempdir().unwrap();
    let file = edited(dir.path(), "run.json", |v| {
        for st in v["strategies"].as_array_mut().unwrap() {
            let flat_out = st["rate"].is_null();
            let sum = &mut st["summary"];
            if flat_out {
                sum["write_loop_ns"] = known(21.7);
                sum["net_ns"] = known(11.3);
                sum["write_ns"] = known(108.5);
            } else {
                sum["net_ns"] = known(43.2);
                sum["write_busy_ns"] = known(129.6);
                sum["write_ns"] = known(216.0);
            }
        }
    });
    let html = page(&[s(&file)]);
    let tables = section_of(&html, "tables", 1);
    let (flat, paced) = tables
        .split_once("<h3 class=\"regime\">Paced at 22.0k/s per thread</h3>")
        .unwrap();
    // The trusted figure is the first table's, the sampled one later and
    // marked as fenced samples.
    let first = |part: &str, value: &str| part.find(value).unwrap_or_else(|| panic!("{value}"));
    assert!(
        first(flat, "21.7 ns ±2.0%") < first(flat, "108 ns ±2.0%"),
        "{flat}"
    );
    let sampled = &flat[first(flat, "108 ns ±2.0%")..];
    assert!(sampled.contains("Fenced samples: "), "{sampled}");
    assert!(
        first(paced, "43.2 ns ±2.0%") < first(paced, "216 ns ±2.0%"),
        "{paced}"
    );
    // The ns/op charts' axes span the trusted figures, not the samples.
    let top = top_tick(&html, "ns-per-op.svg");
    assert!((20.0..50.0).contains(&top), "ns-per-op.svg axis to {top}");
    let top = top_tick(&html, "ns-per-op-r22000.svg");
    assert!(
        (120.0..200.0).contains(&top),
        "ns-per-op-r22000.svg axis to {top}"
    );
}

#[test]
fn only_measures_with_a_direction_get_a_better_or_worse_mark() {
    // Flat out, every level beyond global ran 14% slower than global:
    // its cost rose and updates/s fell (judged), and so did publishes/s,
    // its hand-overs fell to 0 and its sampled write ns by 15% (changes
    // of measures with no direction: shown, never judged).
    let dir = tempfile::tempdir().unwrap();
    let file = edited(dir.path(), "run.json", |v| {
        for st in v["strategies"].as_array_mut().unwrap() {
            if !st["rate"].is_null() {
                continue;
            }
            let base = st["strategy"]["level"] == "global";
            let (rate, ns) = if base { (1.0, 1.0) } else { (0.86, 0.85) };
            let sum = &mut st["summary"];
            sum["write_ops_per_s"] = known(10e6 * rate);
            sum["write_loop_ns"] = known(100.0 / rate);
            sum["publishes_per_s"] = known(10e6 * rate);
            sum["handovers_per_s"] = known(if base { 4e6 } else { 0.0 });
            sum["write_ns"] = known(200.0 * ns);
        }
    });
    let html = page(&[s(&file)]);
    let tables = section_of(&html, "tables", 1);
    let (flat, _) = tables
        .split_once("<h3 class=\"regime\">Paced at 22.0k/s per thread</h3>")
        .unwrap();
    let table = |title: &str| -> &str {
        let part = flat
            .split("<h4>")
            .find(|t| t.starts_with(title))
            .unwrap_or_else(|| panic!("no table {title}: {flat}"));
        &part[..part.find("</table>").unwrap()]
    };
    for title in ["writer ns/op from throughput", "write side: updates/s"] {
        let t = table(title);
        assert!(t.contains("▼") && t.contains("<td class=\"worse\""), "{t}");
        assert!(!t.contains("▲"), "{t}");
    }
    for (title, change) in [
        ("publishes/s", "-14.0%"),
        ("hand-overs/s", "-100.0%"),
        ("write ns/op, sampled", "-15.0%"),
    ] {
        let t = table(title);
        assert!(
            t.contains(title) && t.contains("(neither way is better)"),
            "{t}"
        );
        assert!(t.contains(change), "{t}");
        for judged in [
            "▲",
            "▼",
            "class=\"better\"",
            "class=\"worse\"",
            "mark better",
            "mark worse",
        ] {
            assert!(!t.contains(judged), "{title}: {judged} in {t}");
        }
    }
}
