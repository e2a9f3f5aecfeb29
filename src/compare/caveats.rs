//! What can make a comparison doubtful: a machine that changed between
//! the two files (their canaries), a different version, host or setting,
//! and measures a side did not record.

use super::Side;
use super::result::{MeasureRow, Pair};
use crate::provenance::Provenance;
use crate::runner::interference::CANARY_SHIFT;
use crate::runner::{Measure, RunConfig, RunResults, SCHEMA_VERSION};
use crate::stats::Summary;

/// Why two files cannot be compared as the same machine, if they cannot:
/// their canary medians differ by more than [`CANARY_SHIFT`] (the ratio
/// that marks a repeat disturbed within one run), or
/// their canary ranges do not even overlap and the medians differ by more
/// than 20%. `None` when either file has no canary (or they agree).
pub fn machine_changed(base: &RunResults, test: &RunResults) -> Option<String> {
    let (b, t) = (base.canary_range()?, test.canary_range()?);
    let ratio = b.median.max(t.median) / b.median.min(t.median);
    let disjoint = b.hi < t.lo || t.hi < b.lo;
    (ratio > CANARY_SHIFT || (disjoint && ratio > 1.2)).then(|| {
        format!(
            "the machine changed between runs (canary {:.1} vs {:.1} ns)",
            b.median, t.median
        )
    })
}

/// One note per side and compared measure that some pair lacks on that
/// side (the row shows `-` and "not recorded"), naming the file and why:
/// net cost and ns/op from throughput came with schema 3 and 2.
pub(super) fn unrecorded(pairs: &[Pair], base: &Side, test: &Side) -> Vec<String> {
    let base_value: fn(&MeasureRow) -> Option<Summary> = |r| r.base;
    let test_value: fn(&MeasureRow) -> Option<Summary> = |r| r.test;
    let mut notes = Vec::new();
    for (side, value) in [(base, base_value), (test, test_value)] {
        let mut missing: Vec<&'static Measure> = Vec::new();
        for row in pairs.iter().flat_map(|p| &p.rows) {
            if value(row).is_none() && !missing.iter().any(|m| m.title == row.measure.title) {
                missing.push(row.measure);
            }
        }
        for m in missing {
            let why = if side.run.schema < SCHEMA_VERSION {
                format!(
                    "it was written by an older contend (schema {}), before {} was recorded",
                    side.run.schema, m.short
                )
            } else {
                "no repeat of the strategy recorded it".to_string()
            };
            let note = format!(
                "note: {} has no {} for some strategies ({why}); shown as missing, not replaced by another figure",
                side.path.display(),
                m.short
            );
            // The same file on both sides says it once.
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }
    notes
}

/// What differs between the two sides beyond the strategies: contend
/// version, host, CPU, kernel and the workload's settings.
pub(super) fn warnings(base: &Side, test: &Side) -> Vec<String> {
    let mut out = Vec::new();
    let (b, t) = (&base.run.provenance, &test.run.provenance);
    let mut differs = |what: &str, f: fn(&Provenance) -> &str| {
        if f(b) != f(t) {
            out.push(format!("different {what}: base {} vs test {}", f(b), f(t)));
        }
    };
    differs("contend versions", |p| &p.contend_version);
    differs("hosts", |p| &p.hostname);
    differs("CPU models", |p| &p.cpu_model);
    differs("kernels", |p| &p.kernel_release);
    let (bc, tc) = (&base.run.config, &test.run.config);
    let threads = |c: &RunConfig| (c.writer_cpus.len(), c.reader_cpus.len());
    if threads(bc) != threads(tc) {
        out.push(format!(
            "different thread counts: base {} writers + {} readers vs test {} writers + {} readers",
            bc.writer_cpus.len(),
            bc.reader_cpus.len(),
            tc.writer_cpus.len(),
            tc.reader_cpus.len()
        ));
    }
    if bc.repeat_duration_s != tc.repeat_duration_s {
        out.push(format!(
            "different repeat lengths: base {:.0} ms vs test {:.0} ms",
            bc.repeat_duration_s * 1e3,
            tc.repeat_duration_s * 1e3
        ));
    }
    for side in [base, test] {
        if let Some(why) = side.run.stopped() {
            out.push(format!(
                "{} is partial ({why}): only finished repeats are compared",
                side.path.display()
            ));
        }
    }
    // The same file on both sides says it once.
    out.dedup();
    out
}
