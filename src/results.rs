//! The one place result files are read and written: run.json, sweep.json and matrix.json are told
//! apart by content, checked against one schema policy, and every error names the file; so does a
//! core-to-core-latency CSV's (`predict --latencies FILE.csv`, `gallery`).

use crate::compare::{HostRecord, RECORD_SCHEMA};
use crate::matrix::MatrixResults;
use crate::predict::c2c::{self, C2cError, PairMatrix};
use crate::runner::{RunResults, SCHEMA_VERSION};
use crate::sweep::SweepResults;
use serde::de::DeserializeOwned;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The result files a folder is searched for, in this order.
pub const RESULT_FILES: [&str; 3] = ["run.json", "sweep.json", "matrix.json"];

/// A result file's contents.
#[derive(Debug, Clone)]
pub enum ResultFile {
    /// run.json: one `contend run`.
    Run(Box<RunResults>),
    /// sweep.json: one `contend sweep`.
    Sweep(Box<SweepResults>),
    /// matrix.json: one `contend matrix`.
    Matrix(Box<MatrixResults>),
}

/// A result file that cannot be read. Each names the file.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file or folder cannot be read: what was read, and why.
    #[error("cannot read {}: {}", .0.display(), .1)]
    Io(PathBuf, #[source] io::Error),
    /// A folder holds none of [`RESULT_FILES`].
    #[error("{}: no run.json, sweep.json or matrix.json in this folder", .0.display())]
    EmptyFolder(PathBuf),
    /// Not JSON at all: the file, and the parser's complaint.
    #[error("{} is not a contend result file: not a JSON result file ({})", .0.display(), .1)]
    NotJson(PathBuf, #[source] serde_json::Error),
    /// JSON, but not one of the three kinds.
    #[error(
        "{} is not a contend result file: not run.json, sweep.json or matrix.json (no \"strategies\", \"points\" or \"pairs\")",
        .0.display()
    )]
    UnknownKind(PathBuf),
    /// A schema this contend cannot read: missing, older or newer than the one it writes. The
    /// file, the schema it declares (`missing` when absent), and the one of its kind this contend
    /// reads and writes.
    #[error("{}: schema {}, this contend reads schema {} only (rerun the experiment with this contend, or read the file with the contend that wrote it)", .0.display(), .1, .2)]
    Schema(PathBuf, String, u32),
    /// Not a core-to-core-latency matrix: the file, and what is wrong, naming the row and column.
    #[error("{}: {}", .0.display(), .1)]
    C2c(PathBuf, #[source] C2cError),
    /// A folder without a `.csv` file (`contend gallery`).
    #[error("{}: no .csv file in this folder", .0.display())]
    NoCsv(PathBuf),
    /// A folder with no run.json in it or under it.
    #[error("{}: no run.json in this folder or its folders", .0.display())]
    NoRuns(PathBuf),
    /// A sweep or matrix where runs are wanted.
    #[error("{} is a sweep or matrix; compare takes run.json files (contend report prints the others)", .0.display())]
    NotARun(PathBuf),
    /// Not a host's record of runs.
    #[error("{} is not a host's record of runs (noise.json, from contend run --runs K)", .0.display())]
    NotARecord(PathBuf),
    /// Parsed, but a value no run could have written: the file, where in it as a JSON path
    /// (`strategies[2].summary`), and what is wrong with it.
    #[error("{}: {} {}", .0.display(), .1, .2)]
    Invalid(PathBuf, String, &'static str),
    /// The right kind and schema, but fields missing or of the wrong type: the file, and what.
    #[error("{} is not a contend result file: corrupt result file ({})", .0.display(), .1)]
    Corrupt(PathBuf, #[source] serde_json::Error),
}

/// Reads a core-to-core-latency CSV (`predict --latencies FILE.csv`).
pub fn read_c2c(path: &Path) -> Result<PairMatrix, ReadError> {
    let text = fs::read_to_string(path).map_err(io_error(path))?;
    c2c::parse(&text).map_err(|e| ReadError::C2c(path.into(), e))
}

/// An I/O error on `path`, as a [`ReadError`].
fn io_error(path: &Path) -> impl Fn(io::Error) -> ReadError + '_ {
    |e| ReadError::Io(path.into(), e)
}

/// The JSON text of `path`.
fn read_json(path: &Path) -> Result<serde_json::Value, ReadError> {
    let text = fs::read_to_string(path).map_err(io_error(path))?;
    serde_json::from_str(&text).map_err(|e| ReadError::NotJson(path.into(), e))
}

/// The paths in the folder `dir`.
fn entries(dir: &Path) -> Result<Vec<PathBuf>, ReadError> {
    let io = io_error(dir);
    let entries = fs::read_dir(dir).map_err(&io)?;
    entries.map(|e| e.map(|e| e.path()).map_err(&io)).collect()
}

/// The `.csv` files in `dir`, by name (`contend gallery`).
pub fn c2c_files(dir: &Path) -> Result<Vec<PathBuf>, ReadError> {
    let mut files = entries(dir)?;
    files.retain(|p| p.is_file() && p.extension().is_some_and(|e| e == "csv"));
    files.sort();
    if files.is_empty() {
        return Err(ReadError::NoCsv(dir.to_path_buf()));
    }
    Ok(files)
}

/// Reads one result file, or the first of [`RESULT_FILES`] in a folder.
pub fn read(path: &Path) -> Result<(PathBuf, ResultFile), ReadError> {
    let file = files_of(path)?.remove(0);
    let result = read_file(&file)?;
    Ok((file, result))
}

/// How deep under a folder [`read_runs`] looks for run.json files.
const RUNS_DEPTH: usize = 3;

/// The runs a path names: a run.json, a run's folder, or a folder holding runs' folders.
pub fn read_runs(path: &Path) -> Result<Vec<(PathBuf, RunResults)>, ReadError> {
    let files = if path.is_dir() && !path.join("run.json").is_file() {
        let mut found = Vec::new();
        run_files(path, RUNS_DEPTH, &mut found)?;
        found.sort();
        if found.is_empty() {
            return Err(ReadError::NoRuns(path.to_path_buf()));
        }
        found
    } else {
        vec![path.to_path_buf()]
    };
    files
        .into_iter()
        .map(|f| match read(&f)? {
            (file, ResultFile::Run(run)) => Ok((file, *run)),
            (file, _) => Err(ReadError::NotARun(file)),
        })
        .collect()
}

/// Every run.json under `dir`, `depth` levels down at most, into `found`.
fn run_files(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) -> Result<(), ReadError> {
    for path in entries(dir)? {
        if path.is_dir() && depth > 0 {
            run_files(&path, depth - 1, found)?;
        } else if path.file_name().is_some_and(|n| n == "run.json") {
            found.push(path);
        }
    }
    Ok(())
}

/// Reads a host's record of identical runs (noise.json).
pub fn read_record(path: &Path) -> Result<HostRecord, ReadError> {
    let value = read_json(path)?;
    if value.get("kind").and_then(serde_json::Value::as_str) != Some("noise") {
        return Err(ReadError::NotARecord(path.to_path_buf()));
    }
    Ok(*parse(path, value, RECORD_SCHEMA)?)
}

/// Reads a result file, or every one of [`RESULT_FILES`] in a folder.
pub fn read_all(path: &Path) -> Result<Vec<(PathBuf, ResultFile)>, ReadError> {
    let files = files_of(path)?.into_iter();
    files.map(|f| read_file(&f).map(|r| (f, r))).collect()
}

/// `path`, or the result files in the folder `path`, in [`RESULT_FILES`] order; at least one.
fn files_of(folder: &Path) -> Result<Vec<PathBuf>, ReadError> {
    if !folder.is_dir() {
        return Ok(vec![folder.to_path_buf()]);
    }
    let files: Vec<PathBuf> = RESULT_FILES
        .iter()
        .map(|name| folder.join(name))
        .filter(|p| p.is_file())
        .collect();
    if files.is_empty() {
        return Err(ReadError::EmptyFolder(folder.to_path_buf()));
    }
    Ok(files)
}

/// Reads one file: kind by content.
fn read_file(file: &Path) -> Result<ResultFile, ReadError> {
    let value = read_json(file)?;
    let invalid = |(field, problem)| ReadError::Invalid(file.into(), field, problem);
    check_means(&value, "").map_err(invalid)?;
    if value.get("points").is_some() {
        let sweep: Box<SweepResults> = parse(file, value, SCHEMA_VERSION)?;
        for (i, point) in sweep.points.iter().enumerate() {
            check_run(&point.results, &format!("points[{i}].results.")).map_err(invalid)?;
        }
        Ok(ResultFile::Sweep(sweep))
    } else if value.get("strategies").is_some() {
        let run: Box<RunResults> = parse(file, value, SCHEMA_VERSION)?;
        check_run(&run, "").map_err(invalid)?;
        Ok(ResultFile::Run(run))
    } else if value.get("pairs").is_some() {
        let schema = crate::matrix::SCHEMA_VERSION;
        Ok(ResultFile::Matrix(parse(file, value, schema)?))
    } else {
        Err(ReadError::UnknownKind(file.to_path_buf()))
    }
}

/// Summaries whose mean is a difference, and may be negative.
const SIGNED: [&str; 4] = [
    "net_ns",
    "net_cpu_share_pct",
    "sampled_vs_throughput_pct",
    "cost_ns",
];

/// Every summary (an object with a `mean` and a `stddev`) under `value`, at JSON path `path`, has
/// a finite mean, not negative unless its field is in [`SIGNED`].
fn check_means(value: &serde_json::Value, path: &str) -> Result<(), (String, &'static str)> {
    use serde_json::Value;
    match value {
        Value::Object(fields) => {
            if let (Some(mean), true) = (fields.get("mean"), fields.contains_key("stddev")) {
                let field = path.rsplit(['.', '[']).next().unwrap_or_default();
                let problem = match mean.as_f64().filter(|m| m.is_finite()) {
                    None => Some("is not a finite number"),
                    Some(m) => (m < 0.0 && !SIGNED.contains(&field)).then_some("is negative"),
                };
                problem.map_or(Ok(()), |p| Err((format!("{path}.mean"), p)))?;
            }
            let dot = if path.is_empty() { "" } else { "." };
            fields
                .iter()
                .try_for_each(|(key, v)| check_means(v, &format!("{path}{dot}{key}")))
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, v)| check_means(v, &format!("{path}[{i}]"))),
        _ => Ok(()),
    }
}

/// A run's strategies, at JSON path `at`: each with repeats has a summary, and none repeats one of
/// the same regime.
fn check_run(run: &RunResults, at: &str) -> Result<(), (String, &'static str)> {
    for (i, s) in run.strategies.iter().enumerate() {
        let (field, problem) = if s.summary.is_none() && !s.repeats.is_empty() {
            ("summary", "is missing, but it has repeats")
        } else if run.strategies[..i]
            .iter()
            .any(|t| t.name == s.name && t.regime == s.regime)
        {
            ("name", "repeats a strategy of the same regime")
        } else {
            continue;
        };
        return Err((format!("{at}strategies[{i}].{field}"), problem));
    }
    Ok(())
}

/// `value` as a `T`, if its schema is present and is `supported`.
fn parse<T: DeserializeOwned>(
    file: &Path,
    value: serde_json::Value,
    supported: u32,
) -> Result<Box<T>, ReadError> {
    let schema = value.get("schema").and_then(serde_json::Value::as_u64);
    if schema != Some(u64::from(supported)) {
        let found = schema.map_or("missing".to_string(), |s| s.to_string());
        return Err(ReadError::Schema(file.into(), found, supported));
    }
    serde_json::from_value(value).map_err(|e| ReadError::Corrupt(file.into(), e))
}

/// A file or folder that could not be written. Names the path.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}; nothing was saved there", path.display())]
pub struct WriteError {
    /// What was being written.
    pub path: PathBuf,
    /// Why it failed.
    pub source: io::Error,
}

impl WriteError {
    /// An I/O error on `path`, as a [`WriteError`].
    fn at(path: &Path) -> impl FnOnce(io::Error) -> WriteError + '_ {
        |source| WriteError {
            path: path.into(),
            source,
        }
    }
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, then a rename, so a reader
/// never sees half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let tmp = path.with_extension("tmp");
    let result = fs::write(&tmp, bytes).and_then(|()| fs::rename(&tmp, path));
    result.map_err(|source| {
        let _ = fs::remove_file(&tmp);
        WriteError::at(path)(source)
    })
}

/// Creates `dir` and its parents if absent.
pub fn create_dir(dir: &Path) -> Result<(), WriteError> {
    fs::create_dir_all(dir).map_err(WriteError::at(dir))
}

/// Checks, before anything is measured, that results folders can be written under `root`.
pub fn check_writable(root: &Path) -> Result<(), WriteError> {
    create_dir(root)?;
    let probe = root.join(format!(".contend-probe-{}", std::process::id()));
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .and_then(|_| fs::remove_file(&probe))
        .map_err(WriteError::at(root))
}

/// A fresh folder `root/<host>/<UTC timestamp>`.
pub fn new_results_dir(root: &Path, host: &str, started_utc: &str) -> Result<PathBuf, WriteError> {
    let stamp: String = started_utc
        .chars()
        .filter(|c| !matches!(c, '-' | ':'))
        .collect();
    let keep = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '.';
    let host: String = host
        .chars()
        .map(|c| if keep(c) { c } else { '_' })
        .collect();
    let base = root.join(host).join(stamp);
    let mut dir = base.clone();
    let mut n = 1;
    while dir.exists() {
        n += 1;
        dir = PathBuf::from(format!("{}-{n}", base.display()));
    }
    create_dir(&dir)?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tests/fixtures/results/run.json, a real run.
    fn fixture_text() -> String {
        fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/run.json"),
        )
        .unwrap()
    }

    #[test]
    fn writes_replace_atomically_an_unwritable_root_is_found_first_and_folders_never_collide() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        // The parent of the target is a file: the write must fail, naming it.
        let blocker = dir.path().join("file");
        fs::write(&blocker, "x").unwrap();
        let err = write_atomic(&blocker.join("run.json"), b"{}").unwrap_err();
        assert!(err.to_string().contains("run.json"), "{err}");
        // A target that is a folder: the temporary file is written, the rename fails, and the
        // temporary file must go.
        let target = dir.path().join("dir.json");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("keep"), "x").unwrap();
        assert!(write_atomic(&target, b"{}").is_err());
        assert!(!dir.path().join("run.tmp").exists() && !dir.path().join("dir.tmp").exists());
        // host/stamp, the stamp without - and :, odd host characters replaced; the same second
        // again gets -2, then -3.
        let stamp = "2026-11-30T23:10:00Z";
        let first = new_results_dir(dir.path(), "web 01/x", stamp).unwrap();
        assert_eq!(first, dir.path().join("web_01_x").join("20261130T231000Z"));
        let second = new_results_dir(dir.path(), "web 01/x", stamp).unwrap();
        assert_eq!(second, dir.path().join("web_01_x/20261130T231000Z-2"));
        let third = new_results_dir(dir.path(), "web 01/x", stamp).unwrap();
        assert!(third.ends_with("20261130T231000Z-3") && third.is_dir());
        let lab = new_results_dir(dir.path(), "db-1.lab", stamp).unwrap();
        assert_eq!(lab, dir.path().join("db-1.lab/20261130T231000Z"));
        let dir = tempfile::tempdir().unwrap();
        // Absent folders are made, and the probe leaves nothing behind.
        let root = dir.path().join("a/b");
        check_writable(&root).unwrap();
        assert!(root.is_dir());
        assert_eq!(fs::read_dir(&root).unwrap().count(), 0);
        // Under a file nothing can be made, whoever runs the test.
        let blocker = dir.path().join("file");
        fs::write(&blocker, "x").unwrap();
        let err = check_writable(&blocker.join("results")).unwrap_err();
        assert_eq!(err.path, blocker.join("results"));
        // A file as the root itself: the probe cannot go in it.
        let err = check_writable(&blocker).unwrap_err();
        assert_eq!(err.path, blocker);
    }

    #[test]
    fn files_are_told_apart_by_content_and_folders_read_in_order() {
        let dir = tempfile::tempdir().unwrap();
        // Names do not decide the kind: a sweep saved as run.json is a sweep.
        let sweep = "{\"schema\": 4, \"partial\": false, \"out_of_time\": false, \"points\": []}";
        fs::write(dir.path().join("run.json"), sweep).unwrap();
        let (file, kind) = read(&dir.path().join("run.json")).unwrap();
        assert_eq!(file, dir.path().join("run.json"));
        assert!(matches!(kind, ResultFile::Sweep(s) if s.points.is_empty()));
        // A folder: run.json first, then sweep.json.
        fs::write(dir.path().join("run.json"), fixture_text()).unwrap();
        fs::write(dir.path().join("sweep.json"), sweep).unwrap();
        let (file, kind) = read(dir.path()).unwrap();
        assert_eq!(file, dir.path().join("run.json"));
        assert!(matches!(kind, ResultFile::Run(r) if r.strategies.len() == 2));
        let all = read_all(dir.path()).unwrap();
        let names: Vec<_> = all.iter().map(|(f, _)| f.file_name().unwrap()).collect();
        assert_eq!(names, ["run.json", "sweep.json"]);
        assert!(matches!(all[1].1, ResultFile::Sweep(_)));
        // One file through read_all is that file.
        assert_eq!(read_all(&dir.path().join("sweep.json")).unwrap().len(), 1);
    }

    #[test]
    fn schema_policy_is_one_for_every_kind() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("x.json");
        for (text, needle) in [
            ("{\"strategies\": []}", "x.json: schema missing"),
            ("{\"schema\": 5, \"points\": []}", "schema 5"),
            ("{\"schema\": 9, \"pairs\": []}", "schema 9"),
            ("[1", "not a JSON result file"),
            ("{\"schema\": 1}", "not run.json, sweep.json or matrix.json"),
            ("{\"schema\": 4, \"points\": 3}", "corrupt result file"),
            (
                "{\"schema\": 2, \"strategies\": []}",
                "schema 2, this contend reads schema 4 only",
            ),
        ] {
            fs::write(&file, text).unwrap();
            let err = read(&file).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
            assert!(err.contains("x.json"), "{text}: {err}");
        }
    }

    #[test]
    fn values_no_run_writes_are_refused_naming_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("run.json");
        let good: serde_json::Value = serde_json::from_str(&fixture_text()).unwrap();
        const SUMMARY: &str = "/strategies/0/summary";
        type Edit = fn(&mut serde_json::Value);
        let cases: [(Edit, &str); 4] = [
            (
                |v| v.pointer_mut(SUMMARY).unwrap()["write_ops_per_s"]["mean"] = (-5.0).into(),
                "strategies[0].summary.write_ops_per_s.mean is negative",
            ),
            (
                |v| v.pointer_mut(SUMMARY).unwrap()["write_ns"]["mean"] = serde_json::Value::Null,
                "strategies[0].summary.write_ns.mean is not a finite number",
            ),
            (
                |v| *v.pointer_mut(SUMMARY).unwrap() = serde_json::Value::Null,
                "strategies[0].summary is missing, but it has repeats",
            ),
            (
                |v| v["strategies"][1]["name"] = v["strategies"][0]["name"].clone(),
                "strategies[1].name repeats a strategy of the same regime",
            ),
        ];
        for (edit, needle) in cases {
            let mut v = good.clone();
            edit(&mut v);
            fs::write(&file, v.to_string()).unwrap();
            let err = read(&file).unwrap_err().to_string();
            assert_eq!(err, format!("{}: {needle}", file.display()));
        }
        // A difference may be negative; the same check runs inside a sweep.
        let mut v = good.clone();
        v.pointer_mut(SUMMARY).unwrap()["sampled_vs_throughput_pct"]["mean"] = (-3.0).into();
        v["strategies"][1]["name"] = v["strategies"][0]["name"].clone();
        let sweep = serde_json::json!({"schema": 4, "partial": false, "out_of_time": false,
            "points": [{"threads": 2, "affinity": "unbound", "rate": null, "results": v}]});
        fs::write(&file, sweep.to_string()).unwrap();
        let err = read(&file).unwrap_err().to_string();
        let want = "points[0].results.strategies[1].name repeats a strategy of the same regime";
        assert!(err.ends_with(want), "{err}");
    }
}
