//! Untrusted strings stay text in every format: one hostile run.json (its
//! host name, CPU model, kernel, microcode and a note carrying HTML tags,
//! a Markdown link, code, emphasis, a table pipe, a forged line and
//! terminal escapes), a sweep of it with a hostile affinity set, and a
//! fleet artifact with hostile runner labels, through `contend report`
//! (text, Markdown, HTML), `contend compare` (text, Markdown) and
//! `scripts/fleet-merge` (fleet.md, fleet.html). None of it may come out
//! as markup or as a control character.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

mod common;
use common::{contend, load, s, save, stderr, stdout};

const HOST: &str = "evil<img src=x onerror=alert(1)>";
const CPU: &str = "AMD <script>alert(2)</script> | pipe [link](http://x) `tick` *star* _under_ \u{1b}[31mred\u{7}";
const KERNEL: &str = "6.1\r\n# heading \u{1b}]0;title\u{7}";
const NOTE: &str = "- [note](http://n) <i>x</i>\nverdict: forged \u{9b}2J";

/// tests/fixtures/results/run.json with every provenance string and a
/// note made hostile.
fn hostile_run() -> Value {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/run.json");
    let mut v = load(&fixture);
    let p = &mut v["provenance"];
    p["hostname"] = HOST.into();
    p["cpu_model"] = CPU.into();
    p["kernel_release"] = KERNEL.into();
    p["microcode"] = "<b>0x1</b>".into();
    v["notes"].as_array_mut().unwrap().push(NOTE.into());
    v
}

/// No control character of the file's in `out`, and no line of its
/// making: what every format must hold to.
fn assert_no_controls(what: &str, out: &str) {
    for bad in ["\u{1b}", "\u{7}", "\u{9b}", "\r"] {
        assert!(!out.contains(bad), "{what} contains {bad:?}:\n{out}");
    }
    // The note's line break did not start a line of its own.
    assert!(
        !out.lines()
            .any(|l| l.trim_start().starts_with("verdict: forged")),
        "{what}: the note forged a line:\n{out}"
    );
}

/// The file's HTML tags, which no format may pass on as tags.
const TAGS: [&str; 5] = ["<img", "<script>alert", "<b>", "<i>", "<u>"];

/// HTML: no control character, and every tag of the file's entity-encoded.
fn assert_html(what: &str, html: &str) {
    assert_no_controls(what, html);
    for bad in TAGS {
        assert!(!html.contains(bad), "{what} contains {bad:?}");
    }
}

/// Markdown: no control character, every tag, link, code span, emphasis
/// and heading of the file's backslash-escaped, and the values there.
fn assert_markdown(what: &str, md: &str) {
    assert_no_controls(what, md);
    let bare = |bad: &str| md.match_indices(bad).any(|(i, _)| !md[..i].ends_with('\\'));
    let markup = ["[link](", "[note](", "`tick`", "*star*", "_under_"];
    for bad in TAGS
        .into_iter()
        .chain(markup)
        .chain(["\n# heading", "\n- [note]"])
    {
        assert!(!bare(bad), "{what} contains {bad:?} unescaped:\n{md}");
    }
    assert!(
        md.contains(r"evil\<img src=x onerror=alert(1)\>"),
        "{what}: no escaped host name:\n{md}"
    );
    assert!(
        md.contains(r"AMD \<script\>alert(2)\</script\> \| pipe \[link\](http://x) \`tick\` \*star\* \_under\_ \[31mred"),
        "{what}: no escaped CPU model:\n{md}"
    );
}

#[test]
fn hostile_strings_stay_text_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let run = save(dir.path(), "run.json", &hostile_run());

    let md = stdout(&contend(&["report", s(&run), "--format", "markdown"]));
    assert_markdown("report --format markdown", &md);
    assert!(md.starts_with(r"## contend run on evil\<img"), "{md}");
    assert!(
        md.contains("\n- **kernel:** Linux 6.1 # heading \\]0;title\n"),
        "{md}"
    );
    assert!(
        md.contains(r"- \- \[note\](http://n) \<i\>x\</i\> verdict: forged 2J"),
        "{md}"
    );

    let out = contend(&["report", s(&run), "--print", "all"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_no_controls("report (text)", &text);
    // Text shows the strings as they are, less their control characters.
    assert!(
        text.contains(&format!("on {HOST} (AMD <script>alert(2)</script> | pipe")),
        "{text}"
    );

    let page = dir.path().join("page.html");
    let out = contend(&["report", s(&run), &format!("--format=html={}", s(&page))]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_html("report --format html", &html);
    assert!(
        html.contains("<h2>contend run on evil&lt;img src=x onerror=alert(1)&gt;</h2>"),
        "no escaped host heading"
    );

    for args in [vec!["--format", "markdown"], vec![]] {
        let out = contend(&[&["compare", s(&run), s(&run)], &args[..]].concat());
        assert!(out.status.success(), "{}", stderr(&out));
        let what = format!("compare {args:?}");
        if args.is_empty() {
            assert_no_controls(&what, &stdout(&out));
        } else {
            assert_markdown(&what, &stdout(&out));
        }
        assert_no_controls(&format!("{what} (stderr)"), &stderr(&out));
    }

    let sweep = serde_json::json!({
        "schema": 4,
        "partial": false,
        "out_of_time": false,
        "points": [
            {"threads": 2, "affinity": "node0 <u>|</u> `x`", "rate": null, "results": load(&run)},
        ],
    });
    let sweep = save(dir.path(), "sweep.json", &sweep);
    let md = stdout(&contend(&["report", s(&sweep), "--format", "markdown"]));
    assert_markdown("sweep --format markdown", &md);
    assert!(md.contains(r"affinity node0 \<u\>\|\</u\> \`x\`)"), "{md}");
    let text = stdout(&contend(&["report", s(&sweep)]));
    assert_no_controls("sweep (text)", &text);
}

#[test]
fn fleet_merge_escapes_what_it_writes_itself() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    let host = input.join("contend-host-0-x");
    let stamp = host.join("vm").join("20260101T000000Z");
    std::fs::create_dir_all(&stamp).unwrap();
    save(&stamp, "run.json", &hostile_run());
    let labels = serde_json::json!({
        "labels": ["self-hosted", "<img src=y>", "[l](http://l)"],
        "runner": "`runner`",
        "status": "success\u{1b}[2J",
    });
    save(&host, "fleet-host.json", &labels);
    // An unreadable file whose name and reason carry markup.
    let odd = input.join("contend-host-1-y").join("*bold*_[z](y)");
    std::fs::create_dir_all(&odd).unwrap();
    std::fs::write(odd.join("run.json"), "{ <script>alert(3)</script>").unwrap();

    let out_dir = dir.path().join("out");
    let out = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/fleet-merge"))
        .arg("--contend")
        .arg(env!("CARGO_BIN_EXE_contend"))
        .args([s(&input), s(&out_dir)])
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let md = std::fs::read_to_string(out_dir.join("fleet.md")).unwrap();
    assert_markdown("fleet.md", &md);
    for bad in ["<script>alert(3)", "*bold*", "[z](", "[l](", "`runner`"] {
        let bare = md.match_indices(bad).any(|(i, _)| !md[..i].ends_with('\\'));
        assert!(!bare, "fleet.md contains {bad:?} unescaped:\n{md}");
    }
    assert!(
        md.contains(r"self-hosted, \<img src=y\>, \[l\](http://l)"),
        "{md}"
    );
    assert!(md.contains(r"\*bold\*\_\[z\](y)/run.json"), "{md}");
    // Every row of the fleet table has its 7 cells: no pipe of a value
    // split one.
    let rows: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.starts_with("| # |"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(rows.len(), 4, "{md}");
    for row in rows {
        let pipes = row
            .char_indices()
            .filter(|&(i, c)| c == '|' && !row[..i].ends_with('\\'))
            .count();
        assert_eq!(pipes, 8, "{row}");
    }

    let html = std::fs::read_to_string(out_dir.join("fleet.html")).unwrap();
    assert_html("fleet.html", &html);
    assert!(!html.contains("<script>alert(3)"), "fleet.html");
    assert!(html.contains("&lt;img src=y&gt;"), "no escaped label");
}
