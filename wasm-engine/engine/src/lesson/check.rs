//! Validating lessons against their scenario and checking their `expect` facts against runs
//! of the engine. The facts are read the way the web app reads them: the latest task-level
//! pick at or before the instant on the CPU (`obs::cursor::pick_at`) with the picks of the
//! same decision at every level, each entity's latest sample at or before the instant, the
//! run's summary, and the events of the step's range.

use super::{lesson_time, CountExpect, Expect, MetricExpect, Step, COUNTABLE};
use crate::obs::cursor::{latest_samples_of, pick_at};
use crate::obs::explain::decision_levels;
use crate::obs::log::{flag, BuddySource, EventKind, PickReason};
use crate::obs::summary::Summary;
use crate::scenario::variants::VARIANTS;
use crate::sched::group::GROUP_NODE;
use crate::sim::Simulation;
use serde_json::Value;

/// A variant as loaded: its key and its `NAME=VALUE` overrides.
pub type VariantSpec = (String, Vec<(String, String)>);

/// Applies `NAME=VALUE` overrides to a copy of a scenario and validates it.
pub type ApplyOverrides<'a> = &'a dyn Fn(&[(String, String)]) -> Result<(), String>;

/// The variants a step loads, in order: its named variants (baseline if none).
pub fn step_variants(step: &Step) -> Result<Vec<VariantSpec>, String> {
    let keys: Vec<&str> =
        if step.variants.is_empty() { vec!["baseline"] } else { step.variants.iter().map(|s| s.as_str()).collect() };
    keys.iter()
        .map(|k| {
            VARIANTS
                .iter()
                .find(|v| v.name == *k)
                .map(|v| (k.to_string(), v.overrides.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()))
                .ok_or_else(|| format!("unknown variant {k:?} (see `schedlab variants`)"))
        })
        .collect()
}

/// The variant a step's knob adds with `value`: keyed `KNOB=VALUE`, the step's first
/// variant's overrides plus the knob (the web app builds the same).
pub fn try_variant(step: &Step, value: &str) -> Result<Option<VariantSpec>, String> {
    let Some(t) = &step.try_knob else { return Ok(None) };
    let mut overrides = step_variants(step)?.remove(0).1;
    overrides.retain(|(k, _)| k != &t.knob);
    overrides.push((t.knob.clone(), value.to_string()));
    Ok(Some((format!("{}={}", t.knob, value), overrides)))
}

/// Names of a scenario's entities: tasks by name, task groups by cgroup path.
pub struct Names {
    /// Task names by task id.
    pub tasks: Vec<String>,
    /// cgroup paths by task group id ("/" for the root).
    pub groups: Vec<String>,
}

impl Names {
    /// The names of a simulation's tasks and groups.
    pub fn of(sim: &Simulation) -> Names {
        Names {
            tasks: sim.tasks.iter().map(|t| t.cfg.name.clone()).collect(),
            groups: sim.fair.tgs.iter().map(|g| g.path.clone()).collect(),
        }
    }

    /// A log node's lesson name: a task's name or a group entity's cgroup path.
    pub fn node(&self, node: u32) -> String {
        if node & GROUP_NODE != 0 {
            self.groups.get((node & !GROUP_NODE) as usize).cloned().unwrap_or_else(|| "?".into())
        } else {
            self.tasks.get(node as usize).cloned().unwrap_or_else(|| "<idle>".into())
        }
    }

    /// The log node of a lesson name (not the root group, which has no entity).
    pub fn lookup(&self, name: &str) -> Option<u32> {
        if name.starts_with('/') {
            self.groups.iter().position(|g| g == name).filter(|&g| g != 0).map(|g| GROUP_NODE | g as u32)
        } else {
            self.tasks.iter().position(|t| t == name).map(|t| t as u32)
        }
    }
}

/// Checks one step (number `index`, from 0) of lesson `id` against its scenario: names
/// exist, times lie inside the run, variants and knobs are known (`apply` applies overrides
/// to a copy of the scenario and validates it). Returns every problem, each naming the step.
pub fn validate_step(
    id: &str,
    index: usize,
    st: &Step,
    names: &Names,
    duration: u64,
    ncpus: u32,
    apply: ApplyOverrides,
) -> Vec<String> {
    let mut errs = Vec::new();
    {
        let i = index;
        let lesson_id = id;
        let mut err = |m: String| errs.push(format!("{lesson_id} step {} ({}): {m}", i + 1, st.title));
        if st.text.is_empty() || st.text.iter().any(|p| p.trim().is_empty()) {
            err("text must be one or more non-empty paragraphs".into());
        }
        for h in &st.highlight {
            if names.lookup(h).is_none() {
                err(format!("highlight {h:?} is no task or cgroup of the scenario"));
            }
        }
        let range = match (lesson_time(&st.range[0]), lesson_time(&st.range[1])) {
            (Ok(a), Ok(b)) => Some((a, b)),
            (a, b) => {
                for e in [a.err(), b.err()].into_iter().flatten() {
                    err(format!("range: {e}"));
                }
                None
            }
        };
        if let Some((a, b)) = range {
            if a >= b || b > duration {
                err(format!(
                    "range [{}, {}] must be increasing and end by the scenario's end ({duration} ns)",
                    st.range[0], st.range[1]
                ));
            }
        }
        match lesson_time(&st.at) {
            Ok(at) if range.is_some_and(|(a, b)| at < a || at > b) => {
                err(format!("cursor {} lies outside the range", st.at))
            }
            Ok(_) => {}
            Err(e) => err(format!("at: {e}")),
        }
        if st.cpu >= ncpus {
            err(format!("cpu {} does not exist (the scenario has {ncpus})", st.cpu));
        }
        let variants = match step_variants(st) {
            Ok(v) => v,
            Err(e) => {
                err(e);
                return errs;
            }
        };
        let budget = if st.try_knob.is_some() { 3 } else { 4 };
        if variants.len() > budget {
            err(format!("at most {budget} variants (4 with the knob's)"));
        }
        let mut keys: Vec<String> = variants.iter().map(|v| v.0.clone()).collect();
        if let Some(t) = &st.try_knob {
            if t.values.is_empty() {
                err("try: give at least one value".into());
            }
            for v in &t.values {
                match try_variant(st, v) {
                    Ok(Some((_, o))) => {
                        if let Err(e) = apply(&o) {
                            err(format!("try {}={v}: {e}", t.knob));
                        }
                    }
                    Ok(None) => {}
                    Err(e) => err(e),
                }
            }
            if let Some(v) = t.values.first() {
                keys.push(format!("{}={v}", t.knob));
            }
        }
        let mut check_expect = |e: &Expect, what: &str| {
            for m in expect_names(e) {
                if names.lookup(&m).is_none() {
                    err(format!("{what}: {m:?} is no task or cgroup of the scenario"));
                }
            }
            if let Some(l) = &e.level {
                if !names.groups.contains(l) {
                    err(format!("{what}: level {l:?} is no cgroup of the scenario"));
                }
            }
            if let Some(r) = &e.reason {
                if !(0..6).filter_map(PickReason::from_u8).any(|x| x.name() == r) {
                    err(format!("{what}: unknown pick reason {r:?}"));
                }
            }
            if let Some(b) = &e.buddy {
                if !(0..5).filter_map(BuddySource::from_u8).any(|x| x.name() == b) {
                    err(format!("{what}: unknown buddy source {b:?}"));
                }
            }
            if let Some(at) = &e.at {
                if let Err(x) = lesson_time(at) {
                    err(format!("{what}: at: {x}"));
                }
            }
            let variant_ok = |v: &Option<String>| v.as_deref().is_none_or(|v| keys.iter().any(|k| k == v));
            if !variant_ok(&e.variant)
                || e.metrics.iter().any(|m| !variant_ok(&m.variant))
                || e.counts.iter().any(|c| !variant_ok(&c.variant))
            {
                err(format!("{what}: a variant is not among the step's ({})", keys.join(", ")));
            }
            for n in e.delayed.iter().chain(&e.sleeping) {
                if n.starts_with('/') {
                    err(format!("{what}: delayed/sleeping name tasks, not cgroups ({n:?})"));
                }
            }
            for c in &e.counts {
                if let Some([a, b]) = &c.range {
                    // Inside the step's range, which the view (and so the web app's fetched
                    // window of markers) covers.
                    match (lesson_time(a), lesson_time(b), range) {
                        (Ok(a), Ok(b), Some((r0, r1))) if a < b && r0 <= a && b <= r1 => {}
                        _ => err(format!(
                            "{what}: count range [{a}, {b}] must be two increasing times within the step's range"
                        )),
                    }
                }
                if !COUNTABLE.contains(&c.kind.as_str()) {
                    err(format!("{what}: {:?} is not a countable event kind ({})", c.kind, COUNTABLE.join(", ")));
                }
            }
            if is_empty(e) {
                err(format!("{what}: states no fact"));
            }
        };
        check_expect(&st.expect, "expect");
        if let Some(e) = st.try_knob.as_ref().and_then(|t| t.expect.as_ref()) {
            check_expect(e, "try.expect");
        }
    }
    errs
}

/// Every entity name an expectation mentions.
fn expect_names(e: &Expect) -> Vec<String> {
    let mut v: Vec<String> = e.picked.iter().cloned().collect();
    v.extend(e.eligible.iter().chain(&e.not_eligible).chain(&e.delayed).chain(&e.sleeping).cloned());
    v.extend(e.metrics.iter().filter_map(|m| m.task.clone()));
    v.extend(e.counts.iter().filter_map(|c| c.task.clone()));
    v
}

fn is_empty(e: &Expect) -> bool {
    e.picked.is_none()
        && e.reason.is_none()
        && e.buddy.is_none()
        && e.eligible.is_empty()
        && e.not_eligible.is_empty()
        && e.delayed.is_empty()
        && e.sleeping.is_empty()
        && e.metrics.is_empty()
        && e.counts.is_empty()
}

/// Where and on what an expectation is checked.
pub struct Context<'a> {
    /// The runs, by variant key.
    pub runs: &'a [(String, &'a Simulation)],
    /// The variant facts are about unless they say otherwise.
    pub variant: &'a str,
    /// The step's cursor (ns).
    pub at: u64,
    /// The step's CPU.
    pub cpu: u32,
    /// The step's range `[start, end)` (ns), for counts.
    pub range: (u64, u64),
}

/// Checks one expectation; returns what does not hold (empty: all of it holds).
pub fn check_expect(e: &Expect, cx: &Context) -> Vec<String> {
    let mut out = Vec::new();
    let run = |v: &Option<String>| -> Result<&Simulation, String> {
        let key = v.as_deref().unwrap_or(cx.variant);
        cx.runs.iter().find(|(k, _)| k == key).map(|(_, s)| *s).ok_or_else(|| format!("variant {key:?} was not run"))
    };
    let sim = match run(&e.variant) {
        Ok(s) => s,
        Err(x) => return vec![x],
    };
    let names = Names::of(sim);
    let at = e.at.as_deref().map(lesson_time).transpose().unwrap_or(None).unwrap_or(cx.at);
    let cpu = e.cpu.unwrap_or(cx.cpu);
    let wants_pick = e.picked.is_some()
        || e.reason.is_some()
        || e.buddy.is_some()
        || !e.eligible.is_empty()
        || !e.not_eligible.is_empty();
    if wants_pick {
        match pick_row(sim, cpu, at, e.level.as_deref()) {
            Err(x) => out.push(x),
            Ok(i) => out.extend(check_pick(sim, &names, i, e)),
        }
    }
    let nodes: Vec<u32> = e.delayed.iter().chain(&e.sleeping).filter_map(|n| names.lookup(n)).collect();
    let rows = latest_samples_of(&sim.fair.log, &nodes, at);
    let s = &sim.fair.log.samples;
    for (k, n) in e.delayed.iter().chain(&e.sleeping).enumerate() {
        let want_delayed = k < e.delayed.len();
        match rows.get(k).copied().flatten() {
            None => out.push(format!("{n}: no state at {at} ns")),
            Some(r) => {
                let f = s.flags[r];
                if want_delayed && !(f & flag::ON_RQ != 0 && f & flag::DELAYED != 0) {
                    out.push(format!("{n} is not delayed at {at} ns (flags {f:#x})"));
                }
                if !want_delayed && f & flag::ON_RQ != 0 {
                    out.push(format!("{n} is queued at {at} ns, not asleep"));
                }
            }
        }
    }
    for m in &e.metrics {
        match run(&m.variant.clone().or(e.variant.clone())) {
            Err(x) => out.push(x),
            Ok(s) => out.extend(check_metric(s, m)),
        }
    }
    for c in &e.counts {
        match run(&c.variant.clone().or(e.variant.clone())) {
            Err(x) => out.push(x),
            Ok(s) => {
                let range = match &c.range {
                    Some([a, b]) => (lesson_time(a).unwrap_or(0), lesson_time(b).unwrap_or(0)),
                    None => cx.range,
                };
                out.extend(check_count(s, c, range))
            }
        }
    }
    out
}

/// The pick row of the latest decision at or before `at` on `cpu`: the task-level row, or
/// the row on the cfs_rq of cgroup `level`.
pub fn pick_row(sim: &Simulation, cpu: u32, at: u64, level: Option<&str>) -> Result<usize, String> {
    let log = &sim.fair.log;
    let i = pick_at(log, cpu, at).ok_or_else(|| format!("no pick on cpu {cpu} at or before {at} ns"))?;
    let Some(level) = level else { return Ok(i) };
    decision_levels(sim, i).into_iter().find(|&j| level_path(sim, log.picks.task[j]) == level).ok_or_else(|| {
        format!("the decision at {} ns on cpu {cpu} made no pick on the cfs_rq of {level}", log.picks.t[i])
    })
}

/// The cgroup path of the queue a picked node sat on ("/" for the root cfs_rq).
pub fn level_path(sim: &Simulation, node: u32) -> String {
    let tg = if node & GROUP_NODE != 0 {
        sim.fair.tgs.get((node & !GROUP_NODE) as usize).and_then(|g| g.parent).unwrap_or(0)
    } else {
        sim.tasks.get(node as usize).map(|t| t.cfg.tg).unwrap_or(0)
    };
    sim.fair.tgs[tg as usize].path.clone()
}

fn check_pick(sim: &Simulation, names: &Names, i: usize, e: &Expect) -> Vec<String> {
    let log = &sim.fair.log;
    let p = &log.picks;
    let mut out = Vec::new();
    let when = format!("the pick at {} ns on cpu {}", p.t[i], p.cpu[i]);
    let winner = names.node(p.task[i]);
    if let Some(w) = &e.picked {
        if &winner != w {
            out.push(format!("{when} chose {winner}, not {w}"));
        }
    }
    let reason = PickReason::from_u8(p.reason[i]).map(|r| r.name()).unwrap_or("?");
    if let Some(r) = &e.reason {
        if reason != r {
            out.push(format!("{when} was for {reason}, not {r}"));
        }
    }
    let buddy = BuddySource::from_u8(p.buddy_src[i]).unwrap_or_default().name();
    if let Some(b) = &e.buddy {
        if buddy != b {
            out.push(format!("{when} had buddy source {buddy}, not {b}"));
        }
    }
    let (s, n) = (p.cand_start[i] as usize, p.cand_len[i] as usize);
    let c = &log.cands;
    let cand = |name: &str| (s..s + n).find(|&k| names.node(c.task[k]) == name);
    for (list, want) in [(&e.eligible, true), (&e.not_eligible, false)] {
        for name in list {
            match cand(name) {
                None => out.push(format!("{name} was no candidate of {when}")),
                Some(k) if (c.flags[k] & flag::ELIGIBLE != 0) != want => {
                    out.push(format!("{name} was {}eligible at {when}", if want { "not " } else { "" }))
                }
                Some(_) => {}
            }
        }
    }
    out
}

/// A field of the summary JSON: a task's, or a dotted path from the top.
pub fn metric_value(summary: &Value, task: Option<&str>, field: &str) -> Option<f64> {
    let base = match task {
        Some(t) => summary["tasks"].as_array()?.iter().find(|x| x["name"] == t)?,
        None => summary,
    };
    field.split('.').try_fold(base, |v, k| v.get(k))?.as_f64()
}

fn check_metric(sim: &Simulation, m: &MetricExpect) -> Vec<String> {
    let summary = Summary::of(sim).to_json();
    match metric_value(&summary, m.task.as_deref(), &m.field) {
        None => vec![format!("no metric {} {}", m.task.as_deref().unwrap_or("(summary)"), m.field)],
        Some(v) if v < m.min || v > m.max => {
            vec![format!(
                "{} {} = {v}, outside [{}, {}]",
                m.task.as_deref().unwrap_or("summary"),
                m.field,
                m.min,
                m.max
            )]
        }
        Some(_) => vec![],
    }
}

/// Events of `c.kind` (with `c.task` and `c.val` if given) in `[t0, t1)`.
pub fn count_events(sim: &Simulation, c: &CountExpect, (t0, t1): (u64, u64)) -> u64 {
    let names = Names::of(sim);
    let log = &sim.fair.log;
    let (lo, hi) = log.event_window(t0, t1);
    let e = &log.events;
    let kind = EventKind::ALL.iter().find(|k| k.name() == c.kind).map(|k| *k as u8);
    let task = c.task.as_deref().and_then(|t| names.lookup(t));
    (lo..hi)
        .filter(|&i| Some(e.kind[i]) == kind)
        .filter(|&i| task.is_none_or(|t| e.task[i] == t))
        .filter(|&i| c.val.is_none_or(|v| e.val[i] == v))
        .count() as u64
}

fn check_count(sim: &Simulation, c: &CountExpect, range: (u64, u64)) -> Vec<String> {
    let n = count_events(sim, c, range);
    if n < c.min || n > c.max {
        vec![format!(
            "{} {} events{} in [{}, {}) ns: {n}, outside [{}, {}]",
            c.task.as_deref().unwrap_or("all"),
            c.kind,
            c.val.map(|v| format!(" with value {v}")).unwrap_or_default(),
            range.0,
            range.1,
            c.min,
            c.max
        )]
    } else {
        vec![]
    }
}
