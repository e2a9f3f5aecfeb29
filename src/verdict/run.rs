//! A run's `verdict:` lines, one regime at a time: flat out, the saturation throughput and updates
//! per ownership; paced, the net cost per update and CPU share, and what the fix, policies and
//! splits save.

use super::host::Reach;
use super::{
    BEFORE_FIX, Detail, Family, MERGED_FIX, PLAIN, RATELIMIT, Test, Topic, Verdict, plural,
};
use crate::counter::{PublishPolicy, ShardLevel};
use crate::runner::{
    Floor, RunConfig, RunResults, Strategy, StrategyResult, StrategySummary, cost_measure,
};
use crate::stats::{Decision, Summary};
use crate::units::{ONE_REPEAT, Unit, human, si};
use crate::workload::Regime;

/// The `verdict:` lines of a run: the paced regimes.
pub fn run_lines(run: &RunResults) -> Vec<Verdict> {
    let reach = Reach::of(run);
    let views = run.regimes();
    let mut lines: Vec<Verdict> = decided(&views, &reach)
        .iter()
        .flat_map(|d| {
            let (full, brief) = (d.lines(Detail::Full), d.lines(Detail::Brief));
            full.into_iter()
                .zip(brief)
                .map(|(full, brief)| full.with_brief(brief.text))
        })
        .collect();
    lines.extend(reach.line());
    lines
}

/// Every regime of `run` weighed and its family decided, in the order [`run_lines`] speaks of them.
pub(super) fn decided<'a>(views: &'a [RunResults], reach: &Reach) -> Vec<Decided<'a>> {
    let any_paced = views.iter().any(|v| v.regime().is_paced());
    let mut all: Vec<Decided> = views
        .iter()
        .map(|v| {
            let savings = v.regime().is_paced() || !any_paced;
            Contest::of(v).decide(reach, savings)
        })
        .collect();
    // The seed's rate, other paced rates (in the run's order), flat out.
    all.sort_by_key(|d| {
        (
            d.contest.regime != Regime::SEED,
            !d.contest.regime.is_paced(),
        )
    });
    all
}

/// One strategy as a verdict sees it.
pub(super) struct Candidate<'a> {
    /// Its name in a sentence, its short name (`llc/ratelimit:1ms`: [`RunResults::short_name`]).
    pub(super) name: String,
    pub(super) summary: &'a StrategySummary,
    /// Its result: its strategy, its full name and its repeats (for pairing with another run in
    /// place in the same repeats).
    pub(super) result: &'a StrategyResult,
}

/// One regime's strategies, as its verdict weighs them.
pub(super) struct Contest<'a> {
    /// The regime.
    pub(super) regime: Regime,
    /// Reader threads ran (`--readers`).
    readers: usize,
    pub(super) candidates: Vec<Candidate<'a>>,
    /// The run's configuration: which strategies ran in place together.
    config: &'a RunConfig,
}

/// A ranking before its family is decided.
pub(super) struct Ranked {
    /// The cheapest candidate.
    pub(super) best: usize,
    /// The runner-up and the index of its test against the cheapest.
    pub(super) runner_up: Option<(usize, usize)>,
}

/// Alternatives against one base: each tested (its test's index) or the same as global here.
pub(super) struct Against {
    /// The base every alternative is tested against.
    pub(super) base: usize,
    /// Each alternative tested and the index of its test.
    pub(super) tested: Vec<(usize, usize)>,
    /// Alternatives that are the global level on this host.
    pub(super) same_here: Vec<usize>,
}

/// The reference's writers node by node, in a run whose writers span two or more nodes.
pub(super) struct PerNode {
    /// The strategy (the reference).
    pub(super) strategy: usize,
    /// The first node (index into its summary's `nodes`) local to the counter's memory, if any.
    local: Option<usize>,
    /// Each remote node and the index of its test against `local`.
    tested: Vec<(usize, usize)>,
}

/// One regime's contest with its family decided.
pub(super) struct Decided<'a> {
    /// The strategies weighed.
    pub(super) contest: Contest<'a>,
    /// The cheapest update, against the runner-up.
    pub(super) cost: Option<Ranked>,
    read: Option<Ranked>,
    /// The reference every strategy is weighed against, when the run has it.
    pub(super) reference: Option<usize>,
    /// Every other policy at the global level and every split of the reference's policy, against
    /// the reference.
    pub(super) saves: Option<Against>,
    /// Each split of the merged fix against `global/ratelimit:1ms+threshold:64`.
    pub(super) beyond: Option<Against>,
    /// The reference's cost node by node, local against remote.
    pub(super) nodes: Option<PerNode>,
    /// The family's tests, decided together.
    pub(super) tests: Vec<Test>,
}

impl<'a> Contest<'a> {
    fn of(view: &'a RunResults) -> Contest<'a> {
        let candidates = view.strategies.iter().filter_map(|s| {
            let (name, summary) = (view.short_name(s), s.summary.as_ref()?);
            Some(Candidate {
                name,
                summary,
                result: s,
            })
        });
        Contest {
            regime: view.regime(),
            readers: view.config.reader_cpus.len(),
            candidates: candidates.collect(),
            config: &view.config,
        }
    }

    /// The floor of this regime's costs per update: the ns paced, none flat out.
    fn floor(&self) -> Floor {
        cost_measure(self.regime).floor
    }

    /// The cost of one update: [`cost_measure`] of this regime.
    pub(super) fn cost(&self, i: usize) -> Option<Summary> {
        (cost_measure(self.regime).get)(self.candidates[i].summary)
    }

    /// The cost of one update of `test` less `base`'s repeat by repeat, where the two ran in place
    /// in the same repeats (paced).
    fn cost_paired(&self, base: usize, test: usize) -> Option<Summary> {
        let c = &self.candidates;
        cost_measure(self.regime).paired(self.config, c[base].result, c[test].result)
    }

    /// The cost of one read by a reader thread: ns/op from throughput flat out, busy ns per read
    /// paced.
    fn read(&self, i: usize) -> Option<Summary> {
        let s = self.candidates[i].summary;
        match self.regime {
            Regime::FlatOut => s.reader_read_ns,
            Regime::Paced { .. } => s.reader_busy_ns,
        }
    }

    /// The first of `policies` this regime measured at the global level.
    fn find_global(&self, policies: &[PublishPolicy]) -> Option<usize> {
        let n = self.candidates.len();
        policies
            .iter()
            .find_map(|&p| (0..n).find(|&i| self.is(i, ShardLevel::Global, p)))
    }

    /// Whether candidate `i` is `level/policy`.
    pub(super) fn is(&self, i: usize, level: ShardLevel, policy: PublishPolicy) -> bool {
        let s = self.strategy(i);
        s.level == level && s.publish == policy
    }

    /// Candidate `i`'s strategy: its level, policy, padding and clock.
    fn strategy(&self, i: usize) -> Strategy {
        self.candidates[i].result.strategy
    }

    /// The cheapest by `value`, tested against the runner-up in `family`, paired by `paired(base,
    /// test)` where it pairs them.
    fn rank(
        &self,
        family: &mut Family,
        value: &dyn Fn(usize) -> Option<Summary>,
        paired: &dyn Fn(usize, usize) -> Option<Summary>,
    ) -> Option<Ranked> {
        let mut values: Vec<(usize, Summary)> = (0..self.candidates.len())
            .filter_map(|i| Some((i, value(i)?)))
            .collect();
        values.sort_by(|a, b| a.1.mean.total_cmp(&b.1.mean));
        let (best, b) = *values.first()?;
        let runner_up = values.get(1).map(|&(i, r)| {
            let pair = paired(i, best);
            (i, family.add_paired(&r, &b, pair, "ns", self.floor()))
        });
        Some(Ranked { best, runner_up })
    }

    /// Tests each of `alternatives` against `base` in `family`, in cost, leaving out a split that
    /// is global here.
    fn against(
        &self,
        family: &mut Family,
        reach: &Reach,
        base: usize,
        alternatives: impl Iterator<Item = usize>,
    ) -> Against {
        let mut out = Against {
            base,
            tested: Vec::new(),
            same_here: Vec::new(),
        };
        for i in alternatives {
            if reach.same_as_global(self.strategy(i).level) {
                out.same_here.push(i);
            } else if let (Some(b), Some(t)) = (self.cost(base), self.cost(i)) {
                let pair = self.cost_paired(base, i);
                out.tested
                    .push((i, family.add_paired(&b, &t, pair, "ns", self.floor())));
            }
        }
        out
    }

    /// Weighs this regime: the cheapest update (and read) against the runner-up and, with
    /// `savings`, what every other policy and split saves against the reference, as one family.
    fn decide(self, reach: &Reach, savings: bool) -> Decided<'a> {
        let c = &self.candidates;
        let mut family = Family {
            regime: self.regime,
            ..Family::default()
        };
        let cost = self.rank(&mut family, &|i| self.cost(i), &|b, t| {
            self.cost_paired(b, t)
        });
        let read = match self.readers {
            0 => None,
            _ => self.rank(&mut family, &|i| self.read(i), &|_, _| None),
        };
        let reference = self.find_global(&[BEFORE_FIX, PLAIN]);
        let fix = self.find_global(&[MERGED_FIX, RATELIMIT]);
        let st = |i| self.strategy(i);
        // The alternatives to `base` that `keep(alternative, base)` picks, tested against it.
        let mut against = |base: Option<usize>, keep: &dyn Fn(Strategy, Strategy) -> bool| {
            let g = base.filter(|_| savings)?;
            let alternatives = (0..c.len()).filter(|&i| keep(st(i), st(g)));
            Some(self.against(&mut family, reach, g, alternatives))
        };
        // (`g` itself is global with its own policy: left out.)
        let saves = against(reference, &|s, g| {
            s.pad == g.pad && ((s.level == ShardLevel::Global) != (s.publish == g.publish))
        });
        let beyond = against(fix, &|s, g| {
            s.level != ShardLevel::Global
                && (s.publish, s.pad, s.clock) == (g.publish, g.pad, g.clock)
        });
        let nodes = reference.and_then(|g| {
            let n = &c[g].summary.nodes;
            (n.len() > 1).then(|| {
                let local = n.iter().position(|x| !x.remote);
                let tested = local.map_or(Vec::new(), |l| {
                    (0..n.len())
                        .filter(|&i| n[i].remote)
                        .map(|i| {
                            let (base, test) = (&n[l].cost_ns, &n[i].cost_ns);
                            (i, family.add_paired(base, test, None, "ns", self.floor()))
                        })
                        .collect()
                });
                PerNode {
                    strategy: g,
                    local,
                    tested,
                }
            })
        });
        let tests = family.decide();
        Decided {
            contest: self,
            cost,
            read,
            reference,
            saves,
            beyond,
            nodes,
            tests,
        }
    }
}

impl Decided<'_> {
    /// The regime's `verdict:` lines, each test shown as `detail` says.
    fn lines(&self, detail: Detail) -> Vec<Verdict> {
        let (this, regime) = (&self.contest, self.contest.regime);
        if this.candidates.is_empty() {
            let text = format!("{regime}: no strategy finished a repeat: nothing to rank");
            return vec![Verdict::new(Topic::Cost, text)];
        }
        let tests: Vec<Test> = self.tests.iter().map(|&t| Test { detail, ..t }).collect();
        let mut lines = Vec::new();
        match (regime, &self.cost) {
            (Regime::FlatOut, Some(r)) => {
                lines.push(this.saturation_line(r, &tests));
                lines.push(this.ownership_line(self.reference.unwrap_or(0)));
            }
            (Regime::Paced { .. }, Some(r)) => {
                lines.push(this.cost_line(r, self.reference, &tests))
            }
            (_, None) => {
                let text = format!("{regime}: {} not recorded", cost_measure(regime).short);
                lines.push(Verdict::new(Topic::Cost, text));
            }
        }
        if let Some(r) = &self.read {
            let unit = match regime {
                Regime::FlatOut => "ns/read",
                Regime::Paced { .. } => "busy ns/read",
            };
            let shown = |i| this.read(i).map_or("-".to_string(), |s| value(&s, unit));
            let readers = plural(this.readers, "reader thread");
            let text = format!(
                "{regime}, the cheapest read ({readers}): {}",
                this.ranking_text(r, &tests, &shown)
            );
            lines.push(Verdict::new(Topic::Read, text));
        }
        let said = |a: &&Against| !a.tested.is_empty() || !a.same_here.is_empty();
        if let Some(a) = self.saves.as_ref().filter(said) {
            lines.push(this.against_line(Topic::Savings, "against", a, &tests));
        }
        if let Some(a) = self.beyond.as_ref().filter(|a| !a.tested.is_empty()) {
            lines.push(this.against_line(Topic::BeyondRatelimit, "splitting beyond", a, &tests));
        }
        if let Some(p) = &self.nodes {
            lines.push(this.nodes_line(p, &tests));
        }
        lines
    }
}

impl Contest<'_> {
    /// `X, its value (change, p against Y)`, or `no measurable difference between X (value) and Y
    /// (value): change [interval], p, why`.
    fn ranking_text(&self, r: &Ranked, tests: &[Test], shown: &dyn Fn(usize) -> String) -> String {
        let c = &self.candidates;
        let (best, value) = (&c[r.best].name, shown(r.best));
        match r.runner_up {
            None => format!("only one strategy measured, {best} ({value})"),
            Some((u, t)) if tests[t].outcome.decision == Decision::Decrease => {
                format!(
                    "{best}, {value} ({} against {})",
                    tests[t].claim(),
                    c[u].name
                )
            }
            Some((u, t)) => {
                let (no, other, why) = (tests[t].no_claim(), &c[u].name, tests[t].why_not());
                let (theirs, change) = (shown(u), tests[t].shown());
                format!("{no} between {best} ({value}) and {other} ({theirs}): {change}, {why}")
            }
        }
    }

    /// Flat out, candidate `i`'s updates/s and its cost in `unit`.
    pub(super) fn throughput(&self, i: usize, unit: &str) -> String {
        let per_s = si(self.candidates[i].summary.write_ops_per_s.mean);
        let cost = self.cost(i).map_or("-".to_string(), |c| value(&c, unit));
        format!("{per_s} updates/s, {cost}")
    }

    /// Flat out: the most updates/s, ranked by loop ns/op.
    fn saturation_line(&self, r: &Ranked, tests: &[Test]) -> Verdict {
        let ranking = self.ranking_text(r, tests, &|i| self.throughput(i, "loop ns/op"));
        let text = format!("{}, saturation: {ranking}", self.regime);
        Verdict::new(Topic::Saturation, text)
    }

    /// Flat out: how many updates a writer makes per ownership of the line, under `base`.
    fn ownership_line(&self, base: usize) -> Verdict {
        let c = &self.candidates[base];
        let s = c.summary;
        let owned =
            s.updates_per_ownership
                .map_or("updates per ownership not recorded".to_string(), |u| {
                    let h = s.handovers_per_s;
                    let h = h.map_or(String::new(), |h| format!(" ({} hand-overs/s)", si(h.mean)));
                    format!("{} updates per ownership of the line{h}", count(u.mean))
                });
        let fetched = s.fetches_per_read.map_or(String::new(), |f| {
            format!(
                ", {} lines fetched per read side",
                human(f.mean, Unit::Count)
            )
        });
        let (regime, name, per_s) = (self.regime, &c.name, si(s.write_ops_per_s.mean));
        let text = format!("{regime}, {name}: {per_s} updates/s, {owned}{fetched}");
        Verdict::new(Topic::Ownership, text)
    }

    /// Paced: the net cost per update and CPU share of the reference and of the cheapest.
    fn cost_line(&self, r: &Ranked, reference: Option<usize>, tests: &[Test]) -> Verdict {
        let shown = |i: usize| {
            let share = self.candidates[i].summary.net_cpu_share_pct;
            let share = share.map_or(String::new(), |p| {
                format!(", {} CPU", human(p.mean, Unit::Percent))
            });
            let cost = self.cost(i).map_or("-".to_string(), |c| value(&c, "ns"));
            format!("{cost}{share}")
        };
        let seed = match self.regime == Regime::SEED {
            true => " (the seed's rate)",
            false => "",
        };
        let global = reference.filter(|&g| g != r.best);
        let global = global.map_or(String::new(), |g| {
            format!("{} {}; ", self.candidates[g].name, shown(g))
        });
        let (regime, ranking) = (self.regime, self.ranking_text(r, tests, &shown));
        let text = format!("{regime}{seed}, net cost per update: {global}the cheapest: {ranking}");
        Verdict::new(Topic::Cost, text)
    }

    /// Each alternative against `a.base`.
    fn against_line(&self, topic: Topic, head: &str, a: &Against, tests: &[Test]) -> Verdict {
        let c = &self.candidates;
        let mut parts: Vec<String> = a
            .tested
            .iter()
            .map(|&(i, t)| {
                let stale = c[i]
                    .summary
                    .error_mean_pct
                    .filter(|_| self.strategy(i).publish != PLAIN);
                let stale = stale.map_or(String::new(), |s| {
                    format!(", staleness {}", human(s.mean, Unit::Percent))
                });
                let words = [" saves {} ns", " costs {} ns more"];
                tests[t].said(&c[i].name, words) + &stale
            })
            .collect();
        if !a.same_here.is_empty() {
            let names: Vec<&str> = a.same_here.iter().map(|&i| c[i].name.as_str()).collect();
            parts.push(format!("{}: = global here", names.join(", ")));
        }
        let cost = self.cost(a.base);
        let cost = cost.map_or(String::new(), |s| format!(" ({} ns)", si(s.mean)));
        let (regime, base, parts) = (self.regime, &c[a.base].name, parts.join("; "));
        Verdict::new(topic, format!("{regime}, {head} {base}{cost}: {parts}"))
    }

    /// The reference's cost node by node.
    fn nodes_line(&self, p: &PerNode, tests: &[Test]) -> Verdict {
        let c = &self.candidates[p.strategy];
        let unit = match self.regime {
            Regime::FlatOut => "loop ns/op",
            Regime::Paced { .. } => "ns",
        };
        let nodes = c.summary.nodes.iter().enumerate();
        let parts: Vec<String> = nodes
            .map(|(i, n)| {
                let place = match n.remote {
                    true => "remote",
                    false => "local to the counter's memory",
                };
                let head = format!("node {} ({place}) {}", n.node, value(&n.cost_ns, unit));
                match p.tested.iter().find(|&&(j, _)| j == i) {
                    Some(&(_, t)) => tests[t].said(&head, [", {} ns less", ", {} ns more"]),
                    None => head,
                }
            })
            .collect();
        let against = p
            .local
            .map_or(" (no node is local to the counter's memory)", |_| "");
        let (regime, name, parts) = (self.regime, &c.name, parts.join("; "));
        let text = format!("{regime}, per node, {name}{against}: {parts}");
        Verdict::new(Topic::Nodes, text)
    }
}

/// `31.2 ±1.3 ns`: the mean and the half-width of its 95% confidence interval, the latter to two
/// significant digits; `31.2 ns (1 repeat)` where one repeat gives no interval.
pub(super) fn value(s: &Summary, unit: &str) -> String {
    if !s.has_spread() {
        return format!("{} {unit} {ONE_REPEAT}", si(s.mean));
    }
    let half = (s.ci95_high - s.ci95_low) / 2.0;
    format!("{} {} {unit}", si(s.mean), plus_minus(half))
}

/// `±1.3`: a half-width to two significant digits.
pub(super) fn plus_minus(half: f64) -> String {
    let decimals = if half > 0.0 && half.is_finite() {
        // (the nudge keeps 0.1 from reading as 0.0999…)
        (1.0 - (half.log10() + 1e-9).floor()).clamp(0.0, 3.0) as usize
    } else {
        1
    };
    format!("±{half:.decimals$}")
}

/// `1.52`, `16.4`, `408`: a count with two decimals below 10.
pub(super) fn count(v: f64) -> String {
    if v.abs() < 10.0 {
        format!("{v:.2}")
    } else {
        si(v)
    }
}
