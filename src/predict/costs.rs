//! What a hot line costs beyond the idle class latencies, each figure with its source: transfer
//! growth with the CPUs queued, the upgrade with sharers, the line's memory home, and which fetches
//! occupy the line.

use super::class::{Bound, ClassLatency, DEFAULT_UNCERTAINTY_PCT, LatencyKey};
use crate::counter::PublishPolicy;
use crate::matrix::{MatrixResults, PairClass};
use crate::topology::Topology;
use crate::workload::Arrivals;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// Which fetches of a line another CPU wrote since occupy the line (queue for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadOccupancy {
    /// Only the first read after a write, whoever makes it.
    First,
    /// The first read from each LLC after a write.
    PerLlc,
    /// The first read from each node after a write.
    PerNode,
    /// Every fetch (each reader's own transfer from the writer's cache).
    #[default]
    Every,
}

impl fmt::Display for ReadOccupancy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ReadOccupancy::First => "first",
            ReadOccupancy::PerLlc => "per-llc",
            ReadOccupancy::PerNode => "per-node",
            ReadOccupancy::Every => "every",
        })
    }
}

/// One point of a published or measured curve: `at` (CPUs at the line, or sharers) and the time
/// there, ns.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostPoint {
    /// CPUs contending for the line (contenders) or readers holding it (sharers).
    pub at: u32,
    /// Time per hand-over (contenders) or the writer's upgrade (sharers), ns.
    pub ns: f64,
}

/// A curve of [`CostPoint`]s, `at` rising, read between points by straight lines and flat past
/// either end.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostCurve {
    /// The points, `at` rising, each `ns` above 0.
    pub points: Vec<CostPoint>,
    /// Where the points came from.
    pub source: String,
}

impl CostCurve {
    /// The time at `x`, ns: interpolated, flat past the ends; `None` without points.
    pub fn at(&self, x: f64) -> Option<f64> {
        let first = self.points.first()?;
        let last = self.points.last()?;
        if x <= f64::from(first.at) {
            return Some(first.ns);
        }
        if x >= f64::from(last.at) {
            return Some(last.ns);
        }
        self.points.windows(2).find_map(|w| {
            let (a, b) = (f64::from(w[0].at), f64::from(w[1].at));
            (x >= a && x <= b).then(|| w[0].ns + (w[1].ns - w[0].ns) * (x - a) / (b - a))
        })
    }

    /// Checks the points against a host of `cpus` CPUs (each `at` 1 to `cpus`, none twice, each
    /// time above 0) and sorts them.
    fn checked(mut self, what: &str, cpus: usize) -> Result<Self, String> {
        self.points.sort_by_key(|p| p.at);
        let (p, n) = (&self.points, format!("{what}: "));
        let bad = (p.iter().find(|p| p.at == 0 || p.at as usize > cpus))
            .map(|p| format!("{n}{} is not between 1 and the host's {cpus} CPUs", p.at))
            .or_else(|| {
                let p = p.iter().find(|p| !(p.ns > 0.0 && p.ns.is_finite()))?;
                Some(format!("{n}{} ns at {} is not a time above 0", p.ns, p.at))
            })
            .or_else(|| {
                let w = p.windows(2).find(|w| w[0].at == w[1].at)?;
                Some(format!("{n}{} is given twice", w[0].at))
            });
        bad.map_or(Ok(self), Err)
    }
}

/// A transfer's time by where the line's memory lives.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HomeCost {
    /// Remote over local for every class; `None`: per class.
    pub factor: Option<f64>,
    /// Remote over local per class (`cross-node` covers every distance without its own).
    #[serde(default)]
    pub by_class: BTreeMap<LatencyKey, f64>,
    /// Where the figures came from.
    pub source: String,
}

impl HomeCost {
    /// How much longer a transfer of `class` to a CPU off the home node takes.
    pub fn remote_factor(&self, class: PairClass) -> Option<f64> {
        self.factor
            .or_else(|| LatencyKey::lookup(&self.by_class, class).copied())
    }

    /// In words: `2.10×` or `same-llc 1.20×, cross-node 1.85×`.
    pub fn describe(&self) -> String {
        match self.factor {
            Some(f) => format!("{f:.2}×"),
            None => self
                .by_class
                .iter()
                .map(|(c, r)| format!("{c} {r:.2}×"))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    fn checked(self) -> Result<Self, String> {
        let bad = |r: f64| !(r > 0.0 && r.is_finite());
        match (self.factor, self.by_class.is_empty()) {
            (Some(_), false) => Err("home: give factor or by_class, not both".into()),
            (None, true) => Err("home: no factor and no by_class".into()),
            (Some(f), true) if bad(f) => Err(format!("home: factor {f} is not above 0")),
            _ => match self.by_class.iter().find(|(_, r)| bad(**r)) {
                Some((c, r)) => Err(format!("home: {c} {r} is not above 0")),
                None => Ok(self),
            },
        }
    }
}

/// A time with its uncertainty and source (an LLC hit).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CitedNs {
    /// The central figure, ns.
    pub ns: f64,
    /// Its uncertainty, ± percent.
    #[serde(default = "default_pct")]
    pub pct: f64,
    /// Where it came from.
    pub source: String,
}

fn default_pct() -> f64 {
    DEFAULT_UNCERTAINTY_PCT
}

impl CitedNs {
    /// The figure at `bound`, ns.
    pub fn at(&self, bound: Bound) -> f64 {
        ClassLatency::with_pct(self.ns, self.pct).at(bound)
    }
}

/// A count or a ratio with its source.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cited<T> {
    /// The figure.
    pub value: T,
    /// Where it came from.
    pub source: String,
}

/// What a line costs beyond the idle class latencies, from a measurement or a publication, each
/// with its source.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LineCosts {
    /// Time per hand-over of one line with K CPUs contending for it, ns by K.
    pub contenders: CostCurve,
    /// The writer's upgrade with M readers holding the line, ns by M.
    pub sharers: CostCurve,
    /// Transfer time by where the line's memory lives; `None`: alike on every node.
    pub home: Option<HomeCost>,
    /// The node the counter's memory is on.
    pub home_node: u32,
    /// Which fetches occupy the line.
    pub read_occupancy: ReadOccupancy,
    /// A read served from a copy already in the reader's LLC; `None`: a transfer.
    pub llc_hit: Option<CitedNs>,
    /// Alike hot lines every event touches (a task group's and its parent's `load_avg`); `None`:
    /// one.
    pub hot_lines: Option<Cited<u32>>,
}

impl LineCosts {
    /// The line costs `contend matrix` measured in `m`.
    pub fn from_matrix(m: &MatrixResults, name: &str) -> Self {
        let curve = |what: &str, points: Vec<CostPoint>| CostCurve {
            source: if points.is_empty() {
                String::new()
            } else {
                format!("{name}: {what}")
            },
            points,
        };
        let contenders = m
            .contenders
            .iter()
            .filter_map(|c| {
                let ns = c.handover_ns? + c.private_add_ns;
                (ns > 0.0).then_some(CostPoint { at: c.k as u32, ns })
            })
            .collect();
        let sharers = m
            .sharers
            .iter()
            .filter(|s| s.upgrade_ns > 0.0)
            .map(|s| CostPoint {
                at: s.m as u32,
                ns: s.upgrade_ns,
            })
            .collect();
        let by_class: BTreeMap<LatencyKey, f64> = m
            .home_classes
            .iter()
            .filter_map(|h| {
                let remote = h.remote.as_ref()?;
                let (l, r) = (
                    h.local.read_fetched_ns + h.local.add_moved_ns,
                    remote.read_fetched_ns + remote.add_moved_ns,
                );
                (l > 0.0 && r > 0.0).then(|| (LatencyKey::Class(h.class), r / l))
            })
            .collect();
        LineCosts {
            contenders: curve("contenders (time between hand-overs by k)", contenders),
            sharers: curve("sharers (the writer's upgrade by m readers)", sharers),
            home: (!by_class.is_empty()).then(|| HomeCost {
                factor: None,
                by_class,
                source: format!("{name}: home classes (remote over local, per class)"),
            }),
            ..LineCosts::default()
        }
    }

    /// The factor every transfer of a line with `queue` CPUs at it is priced at: t(queue)/t(K₂) of
    /// the contenders curve, K₂ its first K of at least 2.
    pub fn growth(&self, queue: f64) -> f64 {
        let c = &self.contenders;
        let Some(base) = c.points.iter().find(|p| p.at >= 2).or(c.points.first()) else {
            return 1.0;
        };
        if queue <= f64::from(base.at) {
            return 1.0;
        }
        c.at(queue).map_or(1.0, |t| t / base.ns)
    }

    /// Alike hot lines every event touches.
    pub fn lines_per_event(&self) -> u32 {
        self.hot_lines.as_ref().map_or(1, |h| h.value)
    }

    /// Checks that a home cost given per class covers every class in `classes`.
    pub fn check_home(
        &self,
        mut classes: impl Iterator<Item = PairClass>,
    ) -> Result<(), HostCostsError> {
        let Some(h) = &self.home else {
            return Ok(());
        };
        match classes.find(|c| h.remote_factor(*c).is_none()) {
            None => Ok(()),
            Some(c) => Err(HostCostsError {
                file: h.source.clone(),
                reason: format!(
                    "home: no ratio for class {c} (the chosen CPUs have pairs of it); add it to by_class"
                ),
            }),
        }
    }

    /// Each input and its source, one clause each.
    pub fn inputs(&self) -> Vec<String> {
        let mut out = vec![format!(
            "fetches that occupy the line: {}",
            self.read_occupancy
        )];
        let curve = |c: &CostCurve| {
            c.points
                .iter()
                .map(|p| format!("{}: {} ns", p.at, crate::units::si(p.ns)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        out.push(if self.contenders.points.is_empty() {
            "transfer time under load: the idle class latencies (no contenders curve)".into()
        } else {
            format!(
                "transfer time by CPUs queued at the line, read at the queue's own length ({}): {}",
                self.contenders.source,
                curve(&self.contenders)
            )
        });
        out.push(if self.sharers.points.is_empty() {
            "a write's upgrade with sharers: the class latencies' one-sharer upgrade, the cross-node latency once when a sharer is on another node (no sharers curve)".into()
        } else {
            let (source, points) = (&self.sharers.source, curve(&self.sharers));
            format!("a write's upgrade by sharers ({source}): {points}")
        });
        out.push(match &self.home {
            None => format!(
                "where the line's memory lives: not priced, every node alike; memory on node {}",
                self.home_node
            ),
            Some(h) => format!(
                "where the line's memory lives ({}): node {}, a transfer to another node's CPU {} its class latency",
                h.source,
                self.home_node,
                h.describe()
            ),
        });
        if let Some(h) = &self.llc_hit {
            out.push(format!(
                "a read served from a copy in the reader's LLC: {} ns ±{}% ({})",
                crate::units::si(h.ns),
                h.pct,
                h.source
            ));
        }
        if let Some(h) = &self.hot_lines {
            out.push(format!(
                "{} alike hot lines per event ({})",
                h.value, h.source
            ));
        }
        out
    }
}

/// A publish fraction published or measured for a policy, used at every rate in place of the load
/// walks' (a kernel's writes over its events).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GivenPublish {
    /// The policy it is for.
    pub policy: PublishPolicy,
    /// The central fraction of updates that publish.
    pub fraction: f64,
    /// The lowest (with the lowest latencies); the central one if not given.
    pub lo: Option<f64>,
    /// The highest (with the highest latencies).
    pub hi: Option<f64>,
    /// Where it came from.
    pub source: String,
}

impl GivenPublish {
    /// The fraction at `bound`.
    pub fn at(&self, bound: Bound) -> f64 {
        match bound {
            Bound::Low => self.lo.unwrap_or(self.fraction),
            Bound::Mid => self.fraction,
            Bound::High => self.hi.unwrap_or(self.fraction),
        }
    }
}

/// A host-costs file (`--host FILE`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostCosts {
    /// What the file describes.
    #[serde(default)]
    pub about: String,
    /// Time per hand-over by CPUs at the line.
    pub contenders: Option<CostCurve>,
    /// The writer's upgrade by sharers.
    pub sharers: Option<CostCurve>,
    /// Where the line's memory lives and what a remote CPU pays.
    pub home: Option<HomeCost>,
    /// The node the counter's memory is on.
    #[serde(default)]
    pub home_node: u32,
    /// Which fetches occupy the line.
    pub read_occupancy: Option<Cited<ReadOccupancy>>,
    /// A read served from a copy in the reader's LLC.
    pub llc_hit: Option<CitedNs>,
    /// Alike hot lines per event.
    pub hot_lines: Option<Cited<u32>>,
    /// A writer's read of its own line after another CPU read it, × each class's ping-pong.
    pub read_back: Option<Cited<f64>>,
    /// How events fall in time (default poisson, as a kernel's).
    pub arrivals: Option<Arrivals>,
    /// Seed of the load walks publish fractions are stepped over.
    pub seed: Option<u64>,
    /// The fraction threshold:64 publishes on the load walks (their step is chosen for it).
    pub threshold_publishes: Option<f64>,
    /// Publish fractions given per policy, in place of the walks'.
    #[serde(default)]
    pub publishes: Vec<GivenPublish>,
    /// With a core-to-core-latency CSV: the host's sockets, when the matrix cannot tell.
    pub sockets: Option<u32>,
}

/// A host-costs file that cannot be read or does not fit the host.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--host {file}: {reason}")]
pub struct HostCostsError {
    /// The file (or the figure's source).
    pub file: String,
    /// What is wrong.
    pub reason: String,
}

impl HostCosts {
    /// Reads `path`; an error names the file and the field.
    pub fn read(path: &Path) -> Result<Self, HostCostsError> {
        let err = |reason: String| HostCostsError {
            file: path.display().to_string(),
            reason,
        };
        let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
        let costs: HostCosts = serde_json::from_str(&text).map_err(|e| err(e.to_string()))?;
        costs.simple_checks().map_err(err)?;
        Ok(costs)
    }

    fn simple_checks(&self) -> Result<(), String> {
        let fraction = |what: &str, f: f64, upper: bool| {
            let ok = f > 0.0 && (f < 1.0 || (upper && f <= 1.0));
            ok.then_some(())
                .ok_or_else(|| format!("{what}: {f} is not a fraction above 0 and below 1"))
        };
        if let Some(f) = self.threshold_publishes {
            fraction("threshold_publishes", f, false)?;
        }
        for p in &self.publishes {
            let what = format!("publishes {}", p.policy);
            for f in [Some(p.fraction), p.lo, p.hi].into_iter().flatten() {
                fraction(&what, f, true)?;
            }
            if p.at(Bound::Low) > p.fraction || p.at(Bound::High) < p.fraction {
                return Err(format!("{what}: want lo <= fraction <= hi"));
            }
        }
        if let Some(h) = &self.llc_hit
            && !(h.ns > 0.0 && h.ns.is_finite() && (0.0..100.0).contains(&h.pct))
        {
            return Err(format!(
                "llc_hit: {} ns ±{}% is not a time above 0 within 0% to below 100%",
                h.ns, h.pct
            ));
        }
        if self.hot_lines.as_ref().is_some_and(|h| h.value == 0) {
            return Err("hot_lines: 0 lines (at least 1)".into());
        }
        if let Some(r) = &self.read_back
            && !(r.value >= 0.0 && r.value.is_finite())
        {
            return Err(format!(
                "read_back: {} is not a ratio of 0 or more",
                r.value
            ));
        }
        if self.sockets == Some(0) {
            return Err("sockets: 0 (at least 1)".into());
        }
        Ok(())
    }

    /// The line costs on `topo`, over `base`.
    pub fn line_costs(
        &self,
        file: &str,
        topo: &Topology,
        base: LineCosts,
    ) -> Result<LineCosts, HostCostsError> {
        let err = |reason: String| HostCostsError {
            file: file.to_string(),
            reason,
        };
        let cpus = topo.online_cpus.len();
        let curve = |what, c: &Option<CostCurve>, measured: CostCurve| match c {
            Some(c) => c.clone().checked(what, cpus).map_err(err),
            None => Ok(measured),
        };
        let with_cpus: Vec<u32> = topo
            .nodes
            .iter()
            .filter(|n| !n.cpus.is_empty())
            .map(|n| n.id)
            .collect();
        if !with_cpus.contains(&self.home_node) {
            return Err(err(format!(
                "home_node {}: no node of that id with CPUs (nodes: {})",
                self.home_node,
                with_cpus
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let home = match &self.home {
            Some(h) => Some(h.clone().checked().map_err(err)?),
            None => base.home,
        };
        Ok(LineCosts {
            contenders: curve("contenders", &self.contenders, base.contenders)?,
            sharers: curve("sharers", &self.sharers, base.sharers)?,
            home,
            home_node: self.home_node,
            read_occupancy: self
                .read_occupancy
                .as_ref()
                .map_or(base.read_occupancy, |o| o.value),
            llc_hit: self.llc_hit.clone().or(base.llc_hit),
            hot_lines: self.hot_lines.clone().or(base.hot_lines),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::tests::{curve, says};

    #[test]
    fn the_contention_growth_is_read_at_the_queue_from_the_first_hand_over() {
        // lockhammer's x86-1: 37.3 ns alone (a local add), 39.1 at 2, 56.8 at 64: the growth is
        // t(Q)/t(2), 1 below two CPUs at the line.
        let costs = LineCosts {
            contenders: curve(&[(1, 37.3), (2, 39.1), (4, 44.5), (64, 56.8)]),
            ..LineCosts::default()
        };
        assert_eq!(costs.growth(0.5), 1.0);
        assert_eq!(costs.growth(2.0), 1.0);
        assert!((costs.growth(3.0) - (39.1 + 0.5 * 5.4) / 39.1).abs() < 1e-12);
        assert!((costs.growth(64.0) - 56.8 / 39.1).abs() < 1e-12);
        assert!((costs.growth(500.0) - 56.8 / 39.1).abs() < 1e-12);
        assert_eq!(LineCosts::default().growth(32.0), 1.0);
        // A curve without a two-CPU point starts at its first.
        let from_8 = LineCosts {
            contenders: curve(&[(8, 40.0), (16, 60.0)]),
            ..LineCosts::default()
        };
        assert!((from_8.growth(12.0) - 50.0 / 40.0).abs() < 1e-12);
        assert_eq!(curve(&[]).at(3.0), None);
    }

    #[test]
    fn a_home_cost_is_one_factor_or_one_per_class() {
        let far = PairClass::CrossNode(21);
        let one: HomeCost = serde_json::from_str(r#"{"factor": 1.85, "source": "7R13"}"#).unwrap();
        assert_eq!(one.remote_factor(far), Some(1.85));
        let per: HomeCost = serde_json::from_str(
            r#"{"by_class": {"same-llc": 1.2, "cross-node": 1.5, "smt": 1}, "source": "m"}"#,
        )
        .unwrap();
        assert_eq!(per.remote_factor(far), Some(1.5));
        assert_eq!(per.remote_factor(PairClass::SameLlc), Some(1.2));
        assert_eq!(per.remote_factor(PairClass::SameNode), None);
        assert_eq!(
            per.describe(),
            "smt 1.00×, same-llc 1.20×, cross-node 1.50×"
        );
        // check_home's refusal is tests/predict.rs's (bad_requests_exit_2_with_one_line).
        let costs = LineCosts {
            home: Some(per),
            ..LineCosts::default()
        };
        assert!(
            costs
                .check_home([PairClass::SameLlc, far].into_iter())
                .is_ok()
        );
        for (bad, why) in [
            (
                r#"{"factor": 2, "by_class": {"smt": 1}, "source": ""}"#,
                "not both",
            ),
            (r#"{"factor": 0, "source": ""}"#, "not above 0"),
            (r#"{"by_class": {"smt": -1}, "source": ""}"#, "not above 0"),
        ] {
            let h: HomeCost = serde_json::from_str(bad).unwrap();
            assert!(h.checked().unwrap_err().contains(why), "{bad}");
        }
        let e = serde_json::from_str::<HomeCost>(r#"{"by_class": {"far": 2}, "source": ""}"#)
            .unwrap_err()
            .to_string();
        says(&e, "\"far\" is not a class");
    }

    #[test]
    fn a_host_costs_file_is_checked_against_the_host() {
        let dir = tempfile::tempdir().unwrap();
        let topo = crate::topology::fixture("spr-2s-224");
        let write = |text: &str| {
            let p = dir.path().join("h.json");
            std::fs::write(&p, text).unwrap();
            p
        };
        let good = write(
            r#"{"contenders": {"points": [{"at": 64, "ns": 56.8}, {"at": 2, "ns": 39.1}], "source": "lh"},
                "home_node": 1, "hot_lines": {"value": 2, "source": "docker"},
                "publishes": [{"policy": "threshold:64", "fraction": 0.78, "lo": 0.76, "hi": 0.8, "source": "k"}]}"#,
        );
        let h = HostCosts::read(&good).unwrap();
        let costs = h.line_costs("h.json", &topo, LineCosts::default()).unwrap();
        assert_eq!(costs.contenders.points[0].at, 2, "sorted");
        assert_eq!((costs.home_node, costs.lines_per_event()), (1, 2));
        assert_eq!(h.publishes[0].at(Bound::Low), 0.76);
        for (text, why) in [
            (r#"{"contendrs": null}"#, "unknown field `contendrs`"),
            (
                r#"{"hot_lines": {"value": 0, "source": ""}}"#,
                "hot_lines: 0",
            ),
            (r#"{"threshold_publishes": 1.5}"#, "not a fraction"),
            (
                r#"{"publishes": [{"policy": "always", "fraction": 0.5, "lo": 0.6, "source": ""}]}"#,
                "lo <= fraction",
            ),
            (r#"{"llc_hit": {"ns": -3, "source": ""}}"#, "llc_hit"),
        ] {
            let e = HostCosts::read(&write(text)).unwrap_err().to_string();
            assert!(e.starts_with("--host ") && e.contains(why), "{text}: {e}");
        }
        // A point given twice (the host's CPU range and home node are tests/predict.rs's).
        let twice =
            r#"{"sharers": {"points": [{"at": 1, "ns": 5}, {"at": 1, "ns": 6}], "source": ""}}"#;
        let h = HostCosts::read(&write(twice)).unwrap();
        let e = h
            .line_costs("h.json", &topo, LineCosts::default())
            .unwrap_err();
        says(&e.to_string(), "1 is given twice");
    }
}
