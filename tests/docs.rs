//! The front door renders: every Markdown table in README.md and docs/
//! has as many cells in each row as in its header (as GitHub splits
//! them), and every relative link in README.md and docs/*.md names a file
//! that exists.

use std::path::{Path, PathBuf};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every docs/*.md, sorted.
fn documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    docs.insert(0, repo().join("README.md"));
    docs
}

/// The lines of `text` outside fenced code blocks, with their numbers
/// (from 1).
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// A table row's cells as GitHub splits them: at every pipe not escaped
/// by a backslash (a pipe inside a code span splits too, unless escaped),
/// less the row's leading and trailing pipe.
fn cells(row: &str) -> Vec<String> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let mut cells = vec![String::new()];
    let mut chars = row.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                cells.last_mut().unwrap().push(c);
                cells.last_mut().unwrap().extend(chars.next());
            }
            '|' => cells.push(String::new()),
            c => cells.last_mut().unwrap().push(c),
        }
    }
    if cells.last().is_some_and(|c| c.trim().is_empty()) && row.trim_end().ends_with('|') {
        cells.pop();
    }
    cells
}

/// Every table of `text`: runs of lines starting with `|`, with the
/// number of their first line.
fn tables(text: &str) -> Vec<(usize, Vec<&str>)> {
    let mut out: Vec<(usize, Vec<&str>)> = Vec::new();
    let mut last = 0;
    for (n, line) in prose(text) {
        if !line.trim_start().starts_with('|') {
            continue;
        }
        match out.last_mut() {
            Some((_, rows)) if last + 1 == n => rows.push(line),
            _ => out.push((n, vec![line])),
        }
        last = n;
    }
    out
}

/// Problems with the tables of `text`: a row whose cell count is not the
/// header's, or a second row that is not the separator.
fn table_problems(name: &str, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (first, rows) in tables(text) {
        let width = cells(rows[0]).len();
        let separator = rows.get(1).map(|r| cells(r));
        let dashes = |c: &String| {
            let c = c.trim().trim_matches(':');
            !c.is_empty() && c.chars().all(|ch| ch == '-')
        };
        if !separator.as_ref().is_some_and(|s| s.iter().all(dashes)) {
            problems.push(format!("{name}:{first}: the table has no separator row"));
        }
        for (i, row) in rows.iter().enumerate() {
            let n = cells(row).len();
            if n != width {
                problems.push(format!(
                    "{name}:{}: {n} cells where the header has {width}: {row}",
                    first + i
                ));
            }
        }
    }
    problems
}

/// `line` without its code spans (a run of backticks to the next run of
/// the same length).
fn without_code(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find('`') {
        out.push_str(&rest[..at]);
        let run = rest[at..].chars().take_while(|&c| c == '`').count();
        let fence = "`".repeat(run);
        let after = &rest[at + run..];
        match after.find(&fence) {
            Some(end) => rest = &after[end + run..],
            None => {
                out.push_str(&rest[at..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every inline link's destination in `text` (`[text](dest)` and
/// `![alt](dest)`), outside code, with its line number.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in prose(text) {
        let line = without_code(line);
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let dest = &rest[at + 2..];
            let end = dest.find(')').unwrap_or(dest.len());
            let target = dest[..end].split_whitespace().next().unwrap_or("");
            out.push((n, target.trim_matches(['<', '>']).to_string()));
            rest = &dest[end..];
        }
    }
    out
}

/// Relative links of the document at `path` whose file does not exist.
fn broken_links(path: &Path, text: &str) -> Vec<String> {
    let dir = path.parent().unwrap();
    let name = path.strip_prefix(repo()).unwrap().display();
    links(text)
        .into_iter()
        .filter(|(_, dest)| {
            let external = ["http://", "https://", "mailto:"]
                .iter()
                .any(|p| dest.starts_with(p));
            !external && !dest.starts_with('#')
        })
        .filter_map(|(n, dest)| {
            let file = dest.split('#').next().unwrap();
            (file.is_empty() || !dir.join(file).exists())
                .then(|| format!("{name}:{n}: {dest} does not exist"))
        })
        .collect()
}

#[test]
fn every_table_row_has_its_headers_cells() {
    let mut problems = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.strip_prefix(repo()).unwrap().display().to_string();
        problems.extend(table_problems(&name, &text));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The README's tables are all found: common tasks and documentation.
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert_eq!(tables(&readme).len(), 2);
}

#[test]
fn every_relative_link_names_a_file_that_exists() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        checked += links(&text).len();
        problems.extend(broken_links(&path, &text));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(checked > 20, "only {checked} links found");
}

#[test]
fn the_readme_points_each_task_at_its_document() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let row = |task: &str| {
        readme
            .lines()
            .find(|l| l.starts_with(&format!("| {task}")))
            .map(cells)
            .unwrap_or_else(|| panic!("no row {task:?}"))
    };
    for (task, doc) in [
        ("how busy is the line", "[docs/predict.md](docs/predict.md)"),
        ("did a change help?", "[docs/compare.md](docs/compare.md)"),
        ("the whole study", "[docs/study.md](docs/study.md)"),
        (
            "where does the cost jump",
            "[docs/matrix.md](docs/matrix.md)",
        ),
    ] {
        assert_eq!(row(task)[2].trim(), doc, "{task}");
    }
    // Every document in docs/ is in the Documentation table.
    let (_, documentation) = tables(&readme)
        .into_iter()
        .find(|(_, rows)| rows[0].starts_with("| file | contents |"))
        .expect("the Documentation table");
    for path in documents().iter().skip(1) {
        let file = format!("docs/{}", path.file_name().unwrap().to_str().unwrap());
        let link = format!("| [{file}]({file}) |");
        assert!(
            documentation.iter().any(|r| r.starts_with(&link)),
            "{file} is not in the Documentation table"
        );
    }
}

#[test]
fn the_checks_catch_what_they_look_for() {
    // A spliced row, an escaped pipe, a pipe in a code span.
    let spliced = "| a | b |\n|---|---|\n| x | y | z |\n| w |\n";
    assert_eq!(table_problems("t", spliced).len(), 2);
    let escaped = "| a | b |\n|---|---|\n| `x\\|y` | z |\n";
    assert!(table_problems("t", escaped).is_empty());
    let bare = "| a | b |\n|---|---|\n| `x|y` | z |\n";
    assert_eq!(table_problems("t", bare).len(), 1);
    assert_eq!(table_problems("t", "| a |\n| b |\n").len(), 1);
    // Links: fragments stripped, code and fences skipped.
    let text = "[a](docs/run.md#x) [b](nowhere.md) `[c](gone.md)` [d](https://x) [e](#top)\n\
                ```\n[f](gone.md)\n```\n";
    let broken = broken_links(&repo().join("README.md"), text);
    assert_eq!(broken, ["README.md:1: nowhere.md does not exist"]);
}
