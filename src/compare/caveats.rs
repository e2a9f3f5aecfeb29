//! What can make a comparison doubtful: a machine that changed between the two sides (their
//! canaries and line costs), a different version, host or setting, and measures a side did not
//! record.

use super::Side;
use super::result::{HostStates, MeasureRow, Pair};
use crate::provenance::Provenance;
use crate::runner::interference::CANARY_SHIFT;
use crate::runner::{CanaryRange, RunConfig};
use crate::stats::{Summary, quantile_of};

/// The canaries of every repeat of every run of `side`.
fn canaries(side: &Side) -> Option<CanaryRange> {
    let repeats = side.runs.iter().flat_map(|(_, r)| r.repeats_run(None));
    CanaryRange::of(repeats.map(|r| &r.interference))
}

/// The median line cost of every repeat of every strategy of `side`'s runs that priced one, ns.
fn lines(side: &Side) -> Option<f64> {
    let repeats = side.runs.iter().flat_map(|(_, r)| &r.strategies);
    let all: Vec<f64> = repeats
        .flat_map(|s| &s.repeats)
        .filter_map(|r| r.line_ns)
        .collect();
    (!all.is_empty()).then(|| quantile_of(&all, 0.5))
}

impl HostStates {
    /// Both sides' canaries and line costs (medians over their runs).
    pub fn of(base: &Side, test: &Side) -> Option<HostStates> {
        Some(HostStates {
            canary: (canaries(base)?.median, canaries(test)?.median),
            lines: lines(base).zip(lines(test)),
        })
    }
}

/// Why two sides cannot be compared as the same machine, if they cannot: canary medians more than
/// [`CANARY_SHIFT`] apart, or canary ranges apart and medians more than 20%.
pub fn machine_changed(base: &Side, test: &Side) -> Option<String> {
    let (b, t) = (canaries(base)?, canaries(test)?);
    let ratio = b.median.max(t.median) / b.median.min(t.median);
    let disjoint = b.hi < t.lo || t.hi < b.lo;
    (ratio > CANARY_SHIFT || (disjoint && ratio > 1.2)).then(|| {
        format!(
            "the machine changed between the sides (canary {:.1} vs {:.1} ns)",
            b.median, t.median
        )
    })
}

/// One note per side and compared measure that some pair lacks on that side.
pub(super) fn unrecorded(pairs: &[Pair], base: &Side, test: &Side) -> Vec<String> {
    let base_value: fn(&MeasureRow) -> Option<Summary> = |r| r.base;
    let test_value: fn(&MeasureRow) -> Option<Summary> = |r| r.test;
    let mut notes = Vec::new();
    for (side, value) in [(base, base_value), (test, test_value)] {
        for row in pairs
            .iter()
            .flat_map(|p| &p.rows)
            .filter(|r| value(r).is_none())
        {
            let note = format!(
                "note: {} has no {} for some strategies (no repeat of the strategy recorded it); shown as missing, not replaced by another figure",
                side.path.display(),
                row.measure.short
            );
            // Each measure once, and the same file on both sides says it once.
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }
    notes
}

/// What differs between the two sides beyond the strategies.
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
