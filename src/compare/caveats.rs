//! What can make a comparison doubtful: a machine that changed between the two sides (their
//! canaries and line costs), or a different version, host or setting.

use super::Side;
use crate::runner::interference::CANARY_SHIFT;
use crate::runner::{CanaryRange, RunResults};
use crate::stats::quantile_of;

/// The canaries of every repeat of every run of `side`.
pub(super) fn canaries(side: &Side) -> Option<CanaryRange> {
    let repeats = side.runs.iter().flat_map(|(_, r)| r.repeats_run(None));
    CanaryRange::of(repeats.map(|r| &r.interference))
}

/// The median line cost of every repeat of every strategy of `side`'s runs that priced one, ns.
pub(super) fn line_costs(side: &Side) -> Option<f64> {
    let repeats = side.runs.iter().flat_map(|(_, r)| &r.strategies);
    let all: Vec<f64> = repeats
        .flat_map(|s| &s.repeats)
        .filter_map(|r| r.line_ns)
        .collect();
    (!all.is_empty()).then(|| quantile_of(&all, 0.5))
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

/// What differs between the two sides beyond the strategies.
pub(super) fn warnings(base: &Side, test: &Side) -> Vec<String> {
    type Fact = fn(&RunResults) -> String;
    let facts: [(&str, Fact); 5] = [
        ("contend versions", |r| r.provenance.contend_version.clone()),
        ("hosts", |r| r.provenance.hostname.clone()),
        ("CPU models", |r| r.provenance.cpu_model.clone()),
        ("kernels", |r| r.provenance.kernel_release.clone()),
        ("thread counts", |r| {
            let (w, r) = (r.config.writer_cpus.len(), r.config.reader_cpus.len());
            format!("{w} writers + {r} readers")
        }),
    ];
    let (b, t) = (base.run, test.run);
    let mut out: Vec<String> = facts
        .iter()
        .filter(|(_, f)| f(b) != f(t))
        .map(|(what, f)| format!("different {what}: base {} vs test {}", f(b), f(t)))
        .collect();
    let (bd, td) = (b.config.repeat_duration_s, t.config.repeat_duration_s);
    if bd != td {
        out.push(format!(
            "different repeat lengths: base {:.0} ms vs test {:.0} ms",
            bd * 1e3,
            td * 1e3
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
