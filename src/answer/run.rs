//! A run's `verdict:` lines.

use super::{Family, Line, RATELIMIT, Test, Topic, is_better, num, pct};
use crate::counter::ShardLevel;
use crate::results::{RunResults, StrategyResult};
use crate::stats::{Decision, Summary};

/// A measure a verdict ranks strategies by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measure {
    /// What the winner has (`most updates/s`, `cheapest read side`).
    pub question: &'static str,
    /// Unit after a value (`updates/s`, `ns`).
    pub unit: &'static str,
    /// The measure's name in a sentence (`updates/s`, `read ns/op`).
    pub name: &'static str,
    /// True when more is better.
    pub higher_is_better: bool,
}

/// Hammer mode's write side: updates/s, all writers.
pub const UPDATES: Measure = Measure {
    question: "most updates/s",
    unit: "updates/s",
    name: "updates/s",
    higher_is_better: true,
};

/// Paced mode's write side: busy ns per update (and its read side).
pub const BUSY: Measure = Measure {
    question: "cheapest update",
    unit: "busy ns/update",
    name: "busy ns/update",
    higher_is_better: false,
};

/// The read side from reader threads' throughput.
pub const READER_NS: Measure = Measure {
    question: "cheapest read side",
    unit: "ns/read",
    name: "reader ns/op",
    higher_is_better: false,
};

/// The read side from sampled (timed) read sides.
pub const SAMPLED_READ_NS: Measure = Measure {
    question: "cheapest read side",
    unit: "ns/read (sampled)",
    name: "sampled read ns/op",
    higher_is_better: false,
};

/// One strategy as a verdict sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Its name in a sentence (`llc/ratelimit:1ms`, with pad and clock
    /// only when the run has several).
    pub name: String,
    /// Shard level.
    pub level: ShardLevel,
    /// Publish policy (`always`, `ratelimit:1ms`).
    pub policy: String,
    /// The rest of the strategy (pad, clock), for matching levels.
    pub rest: String,
    /// The write-side measure.
    pub write: Option<Summary>,
    /// The read-side measure.
    pub read: Option<Summary>,
    /// Mean staleness a reader saw, % of the true total.
    pub staleness_pct: Option<Summary>,
    /// CPU share, % (paced runs).
    pub cpu_share_pct: Option<Summary>,
}

/// What a run's verdict is drawn from.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInput {
    /// Every strategy with a summary, in the order run.
    pub candidates: Vec<Candidate>,
    /// The write-side measure ([`UPDATES`] or, under `--rate`, [`BUSY`]).
    pub write: Measure,
    /// The read-side measure, `None` when no read side ran.
    pub read: Option<Measure>,
    /// Read-side values under this (twice the timer's overhead, for
    /// sampled figures) are below the timer's resolution.
    pub read_resolution_ns: Option<f64>,
    /// `--rate`, ops/s per thread.
    pub rate: Option<f64>,
}

/// How a ranking came out.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// One strategy only: nothing to rank.
    Alone,
    /// The best beats the runner-up by the rule.
    Wins(Test),
    /// The two are within the noise threshold.
    NoDifference(Test),
    /// The data cannot tell the two apart.
    Undecided(Test),
    /// Both are below the timer's resolution (ns).
    BelowResolution(f64),
}

/// The best strategy by one measure and whether the data supports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranking {
    /// The measure.
    pub measure: Measure,
    /// Index of the best candidate.
    pub best: usize,
    /// Index of the runner-up.
    pub runner_up: Option<usize>,
    /// The outcome.
    pub call: Call,
}

impl Ranking {
    /// True when the data supports naming the best.
    pub fn supported(&self) -> bool {
        matches!(self.call, Call::Wins(_) | Call::Alone)
    }
}

/// Splitting at one level against `global/ratelimit:1ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitCheck {
    /// The level split at.
    pub level: ShardLevel,
    /// The write side: base global, test this level.
    pub write: Option<Test>,
    /// The read side.
    pub read: Option<Test>,
    /// True when a sampled read side is below the timer's resolution on
    /// either side: not tested.
    pub read_below_resolution: bool,
}

impl SplitCheck {
    /// True when the level is better than global on either side.
    pub fn helps(&self, input: &RunInput) -> bool {
        let better = |t: Option<Test>, m: Option<Measure>| match (t, m) {
            (Some(t), Some(m)) => is_better(t.verdict, m.higher_is_better),
            _ => false,
        };
        better(self.write, Some(input.write)) || better(self.read, input.read)
    }
}

/// A run's verdict: the rankings and checks behind the lines, and the
/// lines.
#[derive(Debug, Clone, PartialEq)]
pub struct RunVerdict {
    /// The write side's ranking (`None`: no strategy recorded it).
    pub write: Option<Ranking>,
    /// The read side's ranking.
    pub read: Option<Ranking>,
    /// Each split level against `global/ratelimit:1ms`; `None` without
    /// both.
    pub split: Option<Vec<SplitCheck>>,
    /// The `verdict:` lines, 3 to 6.
    pub lines: Vec<Line>,
}

/// The `verdict:` lines of a run.
pub fn run_lines(run: &RunResults) -> Vec<Line> {
    decide_run(&run_input(run)).lines
}

/// What a run's verdict is drawn from: its strategies' summaries, and the
/// measures its mode calls for.
pub fn run_input(run: &RunResults) -> RunInput {
    let strategies: Vec<&StrategyResult> = run
        .strategies
        .iter()
        .filter(|s| s.summary.is_some())
        .collect();
    let several = |f: &dyn Fn(&StrategyResult) -> String| {
        let first = strategies.first().map(|s| f(s));
        strategies.iter().any(|s| Some(f(s)) != first)
    };
    let pads = several(&|s| s.strategy.pad.to_string());
    let clocks = several(&|s| s.strategy.clock.map_or(String::new(), |c| c.to_string()));
    let paced = run.config.rate.is_some();
    let readers = !run.config.reader_cpus.is_empty();
    let read = if readers {
        Some(READER_NS)
    } else if run.config.read_every > 0 {
        Some(SAMPLED_READ_NS)
    } else {
        None
    };
    let candidates = strategies
        .iter()
        .map(|s| {
            let sum = s.summary.as_ref().expect("filtered");
            let st = &s.strategy;
            let mut name = format!("{}/{}", st.level, st.publish);
            let mut rest = Vec::new();
            if pads {
                name.push_str(&format!("/pad{}", st.pad));
            }
            rest.push(format!("pad{}", st.pad));
            if let Some(c) = st.clock {
                if clocks {
                    name.push_str(&format!("/{c}"));
                }
                rest.push(c.to_string());
            }
            Candidate {
                name,
                level: st.level,
                policy: st.publish.to_string(),
                rest: rest.join("/"),
                write: if paced {
                    sum.write_busy_ns
                } else {
                    Some(sum.write_ops_per_s)
                },
                read: match read {
                    Some(m) if m == READER_NS => sum.reader_read_ns,
                    Some(_) => sum.read_ns,
                    None => None,
                },
                staleness_pct: sum.error_mean_pct.filter(|s| s.n > 0),
                cpu_share_pct: sum.cpu_share_pct,
            }
        })
        .collect();
    RunInput {
        candidates,
        write: if paced { BUSY } else { UPDATES },
        read,
        read_resolution_ns: (read == Some(SAMPLED_READ_NS))
            .then_some(2.0 * run.config.timer_overhead_ns),
        rate: run.config.rate,
    }
}

/// A ranking before the family is decided.
struct PendingRanking {
    measure: Measure,
    best: usize,
    runner_up: Option<usize>,
    test: Option<usize>,
    below: Option<f64>,
}

impl PendingRanking {
    fn finish(self, tests: &[Test]) -> Ranking {
        let call = match (self.runner_up, self.below, self.test) {
            (None, _, _) => Call::Alone,
            (Some(_), Some(res), _) => Call::BelowResolution(res),
            (Some(_), None, Some(i)) => {
                let t = tests[i];
                if is_better(t.verdict, self.measure.higher_is_better) {
                    Call::Wins(t)
                } else if t.verdict == Decision::NoChange {
                    Call::NoDifference(t)
                } else {
                    Call::Undecided(t)
                }
            }
            (Some(_), None, None) => Call::Alone,
        };
        Ranking {
            measure: self.measure,
            best: self.best,
            runner_up: self.runner_up,
            call,
        }
    }
}

/// Ranks `values` (index, summary) by mean, best first, and adds the test
/// of the best against the runner-up to `family`.
fn rank(
    family: &mut Family,
    measure: Measure,
    values: &[(usize, Summary)],
    resolution: Option<f64>,
) -> Option<PendingRanking> {
    let mut sorted: Vec<(usize, Summary)> = values.to_vec();
    sorted.sort_by(|a, b| {
        let o = a.1.mean.total_cmp(&b.1.mean);
        if measure.higher_is_better {
            o.reverse()
        } else {
            o
        }
    });
    let (best, b) = *sorted.first()?;
    let runner = sorted.get(1).copied();
    let below = resolution.filter(|&r| runner.is_some_and(|(_, s)| s.mean < r) && b.mean < r);
    let test = match (runner, below) {
        (Some((_, r)), None) => Some(family.add(&r, &b)),
        _ => None,
    };
    Some(PendingRanking {
        measure,
        best,
        runner_up: runner.map(|r| r.0),
        test,
        below,
    })
}

/// Decides a run's verdict from its input (see the module docs).
pub fn decide_run(input: &RunInput) -> RunVerdict {
    let c = &input.candidates;
    let mut family = Family::default();
    let values = |f: &dyn Fn(&Candidate) -> Option<Summary>| -> Vec<(usize, Summary)> {
        c.iter()
            .enumerate()
            .filter_map(|(i, x)| Some((i, f(x)?)))
            .collect()
    };
    let write = rank(&mut family, input.write, &values(&|x| x.write), None);
    let read = input.read.and_then(|m| {
        rank(
            &mut family,
            m,
            &values(&|x| x.read),
            input.read_resolution_ns,
        )
    });

    // Each split level's ratelimit:1ms against global's, same pad/clock.
    let global = c
        .iter()
        .find(|x| x.level == ShardLevel::Global && x.policy == RATELIMIT);
    type Pending = (ShardLevel, Option<usize>, Option<usize>, bool);
    let split_pending: Option<Vec<Pending>> = global.map(|g| {
        c.iter()
            .filter(|x| x.level != ShardLevel::Global && x.policy == RATELIMIT)
            .filter(|x| x.rest == g.rest)
            .map(|x| {
                let pair = |a: Option<Summary>, b: Option<Summary>, fam: &mut Family| match (a, b) {
                    (Some(a), Some(b)) => Some(fam.add(&a, &b)),
                    _ => None,
                };
                let w = pair(g.write, x.write, &mut family);
                let below = |s: Option<Summary>| {
                    s.zip(input.read_resolution_ns)
                        .is_some_and(|(s, res)| s.mean < res)
                };
                let r = if below(g.read) || below(x.read) {
                    None
                } else {
                    pair(g.read, x.read, &mut family)
                };
                (x.level, w, r, below(g.read) || below(x.read))
            })
            .collect()
    });

    let tests = family.decide();
    let write = write.map(|p| p.finish(&tests));
    let read = read.map(|p| p.finish(&tests));
    let split = split_pending.map(|v| {
        v.into_iter()
            .map(|(level, w, r, below)| SplitCheck {
                level,
                write: w.map(|i| tests[i]),
                read: r.map(|i| tests[i]),
                read_below_resolution: below,
            })
            .collect::<Vec<_>>()
    });

    let mut lines = Vec::new();
    if c.is_empty() {
        lines.push(Line::new(
            Topic::Write,
            "no strategy finished a repeat: nothing to rank",
        ));
        return RunVerdict {
            write,
            read,
            split,
            lines,
        };
    }
    lines.push(write.as_ref().map_or_else(
        || {
            Line::new(
                Topic::Write,
                format!("{}: not recorded", input.write.question),
            )
        },
        |r| ranking_line(Topic::Write, r, input),
    ));
    lines.push(match (&read, input.read) {
        (Some(r), _) => ranking_line(Topic::Read, r, input),
        (None, Some(m)) => Line::new(Topic::Read, format!("{}: not recorded", m.question)),
        (None, None) => Line::new(
            Topic::Read,
            "read side: none ran (--read-every 0 and no --readers)",
        ),
    });
    lines.push(staleness_line(input, write.as_ref(), read.as_ref()));
    lines.push(split_line(input, split.as_deref()));
    lines.push(sides_line(input, write.as_ref(), read.as_ref()));
    RunVerdict {
        write,
        read,
        split,
        lines,
    }
}

/// `58.2M updates/s ±4.8%`.
fn value(s: &Summary, m: &Measure) -> String {
    format!("{} {} ±{:.1}%", num(s.mean), m.unit, s.stddev_pct)
}

fn ranking_line(topic: Topic, r: &Ranking, input: &RunInput) -> Line {
    let c = &input.candidates;
    let m = &r.measure;
    let get = |i: usize| match topic {
        Topic::Read => c[i].read,
        _ => c[i].write,
    };
    let best = &c[r.best];
    let best_value = get(r.best).map_or("-".to_string(), |s| value(&s, m));
    let mut question = m.question.to_string();
    if let (Topic::Write, Some(rate)) = (topic, input.rate) {
        question = format!("{question} at {} ops/s per thread", num(rate));
    }
    let share = |i: usize| match (topic, input.rate, c[i].cpu_share_pct) {
        (Topic::Write, Some(_), Some(s)) => format!(", CPU share {:.2}%", s.mean),
        _ => String::new(),
    };
    let text = match (&r.call, r.runner_up) {
        (Call::Alone, _) | (_, None) => format!(
            "{question}: only one strategy measured, {} ({best_value}{})",
            best.name,
            share(r.best)
        ),
        (Call::Wins(t), Some(u)) => format!(
            "{question}: {}, {best_value}{} ({} against the runner-up {})",
            best.name,
            share(r.best),
            t.text(),
            c[u].name
        ),
        (Call::NoDifference(t) | Call::Undecided(t), Some(u)) => format!(
            "{question}: no measurable difference between {} ({best_value}{}) and {} ({}{}): {}, {}",
            best.name,
            share(r.best),
            c[u].name,
            get(u).map_or("-".to_string(), |s| value(&s, m)),
            share(u),
            t.text(),
            t.why_not()
        ),
        (Call::BelowResolution(res), Some(u)) => {
            let below = c
                .iter()
                .filter(|x| {
                    (match topic {
                        Topic::Read => x.read,
                        _ => x.write,
                    })
                    .is_some_and(|s| s.mean < *res)
                })
                .count();
            format!(
                "{question}: no measurable difference between {} and {}: {m} is below the timer's resolution (<{res:.1} ns) for {below} of {} strategies (--readers N gives a throughput figure)",
                best.name,
                c[u].name,
                c.len(),
                m = m.name
            )
        }
    };
    Line::new(topic, text)
}

fn staleness_line(input: &RunInput, write: Option<&Ranking>, read: Option<&Ranking>) -> Line {
    let c = &input.candidates;
    if c.iter().all(|x| x.staleness_pct.is_none()) {
        return Line::new(
            Topic::Staleness,
            "staleness: not measured (sampling off: --sample-every 0)",
        );
    }
    let mut subjects: Vec<usize> = Vec::new();
    // A ranking below the timer's resolution has no top to speak of.
    let ranked = [write, read]
        .into_iter()
        .flatten()
        .filter(|r| !matches!(r.call, Call::BelowResolution(_)));
    for r in ranked {
        if !subjects.contains(&r.best) {
            subjects.push(r.best);
        }
    }
    let shown: Vec<String> = subjects
        .iter()
        .map(|&i| {
            c[i].staleness_pct
                .map_or(format!("{} not measured", c[i].name), |s| {
                    format!("{} {} ±{:.1}%", c[i].name, pct(s.mean), s.stddev_pct)
                })
        })
        .collect();
    let least = c
        .iter()
        .filter_map(|x| Some((x, x.staleness_pct?)))
        .min_by(|a, b| a.1.mean.total_cmp(&b.1.mean));
    let mut text = format!(
        "staleness a reader saw (mean |published - true| as % of the true total) under the top {}: {}",
        if subjects.len() == 1 {
            "strategy"
        } else {
            "strategies"
        },
        shown.join(", ")
    );
    if let Some((x, s)) = least.filter(|(x, _)| !subjects.iter().any(|&i| c[i].name == x.name)) {
        text.push_str(&format!("; least stale: {} {}", x.name, pct(s.mean)));
    }
    Line::new(Topic::Staleness, text)
}

fn split_line(input: &RunInput, split: Option<&[SplitCheck]>) -> Line {
    let Some(checks) = split.filter(|s| !s.is_empty()) else {
        return Line::new(
            Topic::Split,
            format!(
                "splitting beyond {RATELIMIT}: not measured here (needs global/{RATELIMIT} and node, llc or cpu with {RATELIMIT})"
            ),
        );
    };
    let side = |t: Option<Test>, m: Option<Measure>| -> Option<String> {
        let (t, m) = (t?, m?);
        let word = match t.verdict {
            Decision::NoChange => "no measurable difference".to_string(),
            Decision::Inconclusive => "inconclusive".to_string(),
            v if is_better(v, m.higher_is_better) => "better".to_string(),
            _ => "worse".to_string(),
        };
        Some(format!("{} {} ({word})", m.name, t.text()))
    };
    let details: Vec<String> = checks
        .iter()
        .map(|s| {
            let read = if s.read_below_resolution {
                input
                    .read
                    .map(|m| format!("{} below the timer's resolution", m.name))
            } else {
                side(s.read, input.read)
            };
            let parts: Vec<String> = [side(s.write, Some(input.write)), read]
                .into_iter()
                .flatten()
                .collect();
            format!("{}: {}", s.level, parts.join(", "))
        })
        .collect();
    let helping: Vec<String> = checks
        .iter()
        .filter(|s| s.helps(input))
        .map(|s| s.level.to_string())
        .collect();
    let head = if helping.is_empty() {
        format!("splitting adds nothing measurable beyond {RATELIMIT} on this host")
    } else {
        format!(
            "splitting at {} adds something beyond {RATELIMIT} on this host",
            helping.join(", ")
        )
    };
    Line::new(
        Topic::Split,
        format!(
            "{head} (against global/{RATELIMIT}: {})",
            details.join("; ")
        ),
    )
}

fn sides_line(input: &RunInput, write: Option<&Ranking>, read: Option<&Ranking>) -> Line {
    let c = &input.candidates;
    let text = match (write, read) {
        (_, None) => "write vs read side: only the write side was ranked".to_string(),
        (None, Some(_)) => "write vs read side: only the read side was ranked".to_string(),
        (Some(w), Some(r)) => match (w.supported(), r.supported()) {
            (true, true) if w.best == r.best => format!(
                "the write and the read side agree: {} wins both",
                c[w.best].name
            ),
            (true, true) => format!(
                "the answer differs between the sides: {} on the write side, {} on the read side",
                c[w.best].name, c[r.best].name
            ),
            (true, false) => format!(
                "write vs read side: {} wins the write side; the read side shows no measurable winner, so whether they agree cannot be told",
                c[w.best].name
            ),
            (false, true) => format!(
                "write vs read side: {} wins the read side; the write side shows no measurable winner, so whether they agree cannot be told",
                c[r.best].name
            ),
            (false, false) => {
                "write vs read side: neither side shows a measurable winner, so there is no answer to compare".to_string()
            }
        },
    };
    Line::new(Topic::Sides, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` repeats with mean `mean` and sample standard deviation `sd`.
    fn summary(n: usize, mean: f64, sd: f64) -> Summary {
        let a = sd * ((n - 1) as f64 / n as f64).sqrt();
        let values: Vec<f64> = (0..n)
            .map(|i| if i % 2 == 0 { mean - a } else { mean + a })
            .collect();
        Summary::of(&values).unwrap()
    }

    fn candidate(level: ShardLevel, policy: &str, write: Summary, read: Summary) -> Candidate {
        Candidate {
            name: format!("{level}/{policy}"),
            level,
            policy: policy.to_string(),
            rest: "pad128".to_string(),
            write: Some(write),
            read: Some(read),
            staleness_pct: Some(summary(6, if policy == "always" { 0.1 } else { 6.0 }, 0.01)),
            cpu_share_pct: None,
        }
    }

    fn input(candidates: Vec<Candidate>) -> RunInput {
        RunInput {
            candidates,
            write: UPDATES,
            read: Some(READER_NS),
            read_resolution_ns: None,
            rate: None,
        }
    }

    fn text(v: &RunVerdict) -> String {
        v.lines
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_clear_case_names_its_winners() {
        use ShardLevel::*;
        // 6 repeats of 1% noise: node/ratelimit is 20% ahead on updates/s,
        // global/always reads 30% cheaper than anyone; splitting adds 20%
        // updates/s beyond global/ratelimit, and makes reads dearer.
        let v = decide_run(&input(vec![
            candidate(
                Global,
                "always",
                summary(6, 1e6, 1e4),
                summary(6, 7.0, 0.07),
            ),
            candidate(
                Node,
                "always",
                summary(6, 1.1e6, 1.1e4),
                summary(6, 10.0, 0.1),
            ),
            candidate(
                Global,
                "ratelimit:1ms",
                summary(6, 2e6, 2e4),
                summary(6, 10.0, 0.1),
            ),
            candidate(
                Node,
                "ratelimit:1ms",
                summary(6, 2.4e6, 2.4e4),
                summary(6, 14.0, 0.14),
            ),
        ]));
        let all = text(&v);
        assert!((3..=6).contains(&v.lines.len()), "{all}");
        assert!(
            v.lines
                .iter()
                .all(|l| l.to_string().starts_with("verdict: "))
        );
        let w = v.write.as_ref().unwrap();
        assert!(matches!(w.call, Call::Wins(_)), "{all}");
        assert_eq!(w.best, 3);
        assert_eq!(w.runner_up, Some(2));
        assert!(
            v.lines[0]
                .text
                .starts_with("most updates/s: node/ratelimit:1ms, 2.40M updates/s ±1.0% (+20.0% ["),
            "{all}"
        );
        assert!(
            v.lines[0]
                .text
                .contains("against the runner-up global/ratelimit:1ms")
        );
        let r = v.read.as_ref().unwrap();
        assert!(matches!(r.call, Call::Wins(_)), "{all}");
        assert_eq!(r.best, 0);
        assert!(
            v.lines[1]
                .text
                .starts_with("cheapest read side: global/always, 7.0 ns/read"),
            "{all}"
        );
        // Staleness of both winners.
        assert!(
            v.lines[2].text.contains("node/ratelimit:1ms 6.00%"),
            "{all}"
        );
        assert!(v.lines[2].text.contains("global/always 0.1000%"), "{all}");
        // Splitting at node is better on the write side.
        let split = v.split.as_ref().unwrap();
        assert_eq!(split.len(), 1);
        assert_eq!(split[0].write.unwrap().verdict, Decision::Increase);
        assert_eq!(split[0].read.unwrap().verdict, Decision::Increase);
        assert!(
            v.lines[3]
                .text
                .starts_with("splitting at node adds something beyond ratelimit:1ms"),
            "{all}"
        );
        assert!(v.lines[3].text.contains("reader ns/op +40.0%"), "{all}");
        assert!(v.lines[3].text.contains("(worse)"), "{all}");
        assert_eq!(
            v.lines[4].text,
            "the answer differs between the sides: node/ratelimit:1ms on the write side, global/always on the read side"
        );
    }

    #[test]
    fn an_inconclusive_case_claims_nothing() {
        use ShardLevel::*;
        // 4 repeats of 5% noise, 3% apart at most: nothing is measurable.
        let v = decide_run(&input(vec![
            candidate(
                Global,
                "ratelimit:1ms",
                summary(4, 1e6, 5e4),
                summary(4, 10.0, 0.5),
            ),
            candidate(
                Node,
                "ratelimit:1ms",
                summary(4, 1.03e6, 5e4),
                summary(4, 10.1, 0.5),
            ),
            candidate(
                Cpu,
                "ratelimit:1ms",
                summary(4, 1.01e6, 5e4),
                summary(4, 10.2, 0.5),
            ),
        ]));
        let all = text(&v);
        assert!(!v.write.as_ref().unwrap().supported(), "{all}");
        assert!(!v.read.as_ref().unwrap().supported(), "{all}");
        assert!(
            v.lines[0].text.starts_with(
                "most updates/s: no measurable difference between node/ratelimit:1ms (1.03M updates/s ±4.9%) and cpu/ratelimit:1ms"
            ),
            "{all}"
        );
        assert!(
            v.lines[1].text.starts_with(
                "cheapest read side: no measurable difference between global/ratelimit:1ms"
            ),
            "{all}"
        );
        assert!(
            v.lines[3]
                .text
                .starts_with("splitting adds nothing measurable beyond ratelimit:1ms on this host"),
            "{all}"
        );
        assert!(v.lines[3].text.contains("node: updates/s +3.0%"), "{all}");
        assert!(
            v.lines[4]
                .text
                .contains("neither side shows a measurable winner"),
            "{all}"
        );
    }

    #[test]
    fn within_the_noise_threshold_is_no_difference() {
        use ShardLevel::*;
        // +0.5% with 0.1% noise: significant, but inside ±2%.
        let v = decide_run(&input(vec![
            candidate(
                Global,
                "always",
                summary(10, 1e6, 1e3),
                summary(10, 5.0, 0.01),
            ),
            candidate(
                Node,
                "always",
                summary(10, 1.005e6, 1e3),
                summary(10, 5.0, 0.01),
            ),
        ]));
        let w = v.write.as_ref().unwrap();
        assert!(matches!(w.call, Call::NoDifference(_)), "{w:?}");
        assert!(
            v.lines[0].text.ends_with("within the ±2% noise threshold"),
            "{}",
            v.lines[0]
        );
        assert!(
            v.lines[3].text.contains("not measured here"),
            "{}",
            v.lines[3]
        );
    }

    #[test]
    fn sampled_reads_below_resolution_are_not_ranked() {
        use ShardLevel::*;
        let mut i = input(vec![
            candidate(Global, "always", summary(5, 1e6, 1e3), summary(5, 3.0, 1.0)),
            candidate(Node, "always", summary(5, 2e6, 1e3), summary(5, 9.0, 1.0)),
        ]);
        i.read = Some(SAMPLED_READ_NS);
        i.read_resolution_ns = Some(27.7);
        let v = decide_run(&i);
        assert_eq!(v.read.as_ref().unwrap().call, Call::BelowResolution(27.7));
        assert!(
            v.lines[1]
                .text
                .contains("below the timer's resolution (<27.7 ns) for 2 of 2"),
            "{}",
            v.lines[1]
        );
        assert!(v.write.as_ref().unwrap().supported());
    }

    #[test]
    fn one_strategy_is_alone() {
        let v = decide_run(&input(vec![candidate(
            ShardLevel::Global,
            "always",
            summary(3, 1e6, 1e3),
            summary(3, 5.0, 0.1),
        )]));
        assert_eq!(v.write.as_ref().unwrap().call, Call::Alone);
        assert!(v.lines[0].text.contains("only one strategy measured"));
        assert!(v.lines.len() >= 3);
    }
}
