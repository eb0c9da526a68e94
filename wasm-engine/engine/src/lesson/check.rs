//! Validating lessons against their scenario and checking their `expect` facts against runs
//! of the engine. The facts are read the way the web app reads them: the latest task-level
//! pick at or before the instant on the CPU (`obs::cursor::pick_at`) with the picks of the
//! same decision at every level, each entity's latest sample at or before the instant, the
//! run's summary, and the events of the step's range.

use super::{
    lesson_time, CountExpect, CpuTimeExpect, Expect, MetricExpect, MigrationsExpect, PlacementsExpect, Step, COUNTABLE,
};
use crate::obs::codes::MigrateClass;
use crate::obs::cursor::{latest_samples_of, pick_at};
use crate::obs::explain::decision_levels;
use crate::obs::log::{flag, BuddySource, EventKind, PickReason};
use crate::obs::summary::Summary;
use crate::obs::why_cpu::PlacementRow;
use crate::scenario::variants::VARIANTS;
use crate::sched::group::GROUP_NODE;
use crate::sched::select::{AffinePath, PlacePath};
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
                || e.on_cpu.iter().any(|c| !variant_ok(&c.variant))
                || e.cpu_time.iter().any(|c| !variant_ok(&c.variant))
                || e.migrations.iter().any(|c| !variant_ok(&c.variant))
                || e.placements.iter().any(|c| !variant_ok(&c.variant))
            {
                err(format!("{what}: a variant is not among the step's ({})", keys.join(", ")));
            }
            for n in e.delayed.iter().chain(&e.sleeping) {
                if n.starts_with('/') {
                    err(format!("{what}: delayed/sleeping name tasks, not cgroups ({n:?})"));
                }
            }
            // A count's range lies inside the step's range, which the view (and so the web
            // app's fetched window of markers) covers.
            let check_range = |r: &Option<[String; 2]>, err: &mut dyn FnMut(String)| {
                if let Some([a, b]) = r {
                    match (lesson_time(a), lesson_time(b), range) {
                        (Ok(a), Ok(b), Some((r0, r1))) if a < b && r0 <= a && b <= r1 => {}
                        _ => err(format!(
                            "{what}: count range [{a}, {b}] must be two increasing times within the step's range"
                        )),
                    }
                }
            };
            for r in e.migrations.iter().map(|m| &m.range).chain(e.placements.iter().map(|p| &p.range)) {
                check_range(r, &mut err);
            }
            for x in e.on_cpu.iter().filter_map(|c| c.at.as_deref()) {
                if let Err(m) = lesson_time(x) {
                    err(format!("{what}: on_cpu at: {m}"));
                }
            }
            for n in e.on_cpu.iter().map(|c| &c.task).chain(e.cpu_time.iter().map(|c| &c.task)) {
                if n.starts_with('/') {
                    err(format!("{what}: on_cpu/cpu_time name tasks, not cgroups ({n:?})"));
                }
            }
            let cpus = e.on_cpu.iter().map(|c| Some(c.cpu)).chain(e.cpu_time.iter().map(|c| c.cpu));
            for c in cpus.chain(e.placements.iter().map(|p| p.cpu)).flatten() {
                if c >= ncpus {
                    err(format!("{what}: cpu {c} does not exist (the scenario has {ncpus})"));
                }
            }
            for c in &e.cpu_time {
                if c.min_pct > c.max_pct {
                    err(format!("{what}: cpu_time of {}: min_pct is above max_pct", c.task));
                }
            }
            for m in &e.migrations {
                let all = MigrateClass::ALL.map(|x| x.name());
                if let Some(msg) = unknown_name("migration class", m.class.as_deref(), &all) {
                    err(format!("{what}: {msg}"));
                }
            }
            for p in &e.placements {
                let rules = PlacePath::ALL.map(|x| x.name());
                if let Some(msg) = unknown_name("placement rule", p.rule.as_deref(), &rules) {
                    err(format!("{what}: {msg}"));
                }
                let parts = AffinePath::ALL.map(|x| x.name());
                if let Some(msg) = unknown_name("wake_affine part", p.affine.as_deref(), &parts) {
                    err(format!("{what}: {msg}"));
                }
            }
            for c in &e.counts {
                check_range(&c.range, &mut err);
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
    v.extend(e.on_cpu.iter().map(|c| c.task.clone()));
    v.extend(e.cpu_time.iter().map(|c| c.task.clone()));
    v.extend(e.migrations.iter().filter_map(|c| c.task.clone()));
    v.extend(e.placements.iter().filter_map(|c| c.task.clone()));
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
        && e.on_cpu.is_empty()
        && e.cpu_time.is_empty()
        && e.migrations.is_empty()
        && e.placements.is_empty()
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
    let range_of = |r: &Option<[String; 2]>| match r {
        Some([a, b]) => (lesson_time(a).unwrap_or(0), lesson_time(b).unwrap_or(0)),
        None => cx.range,
    };
    for c in &e.counts {
        match run(&c.variant.clone().or(e.variant.clone())) {
            Err(x) => out.push(x),
            Ok(s) => out.extend(check_count(s, c, range_of(&c.range))),
        }
    }
    for c in &e.on_cpu {
        match run(&c.variant.clone().or(e.variant.clone())) {
            Err(x) => out.push(x),
            Ok(s) => {
                let at = c.at.as_deref().map(lesson_time).transpose().unwrap_or(None).unwrap_or(at);
                out.extend(check_on_cpu(s, &c.task, c.cpu, at))
            }
        }
    }
    for c in &e.cpu_time {
        match run(&c.variant.clone().or(e.variant.clone())) {
            Err(x) => out.push(x),
            Ok(s) => out.extend(check_cpu_time(s, c)),
        }
    }
    for m in &e.migrations {
        match run(&m.variant.clone().or(e.variant.clone())) {
            Err(x) => out.push(x),
            Ok(s) => out.extend(check_migrations(s, m, range_of(&m.range))),
        }
    }
    for p in &e.placements {
        match run(&p.variant.clone().or(e.variant.clone())) {
            Err(x) => out.push(x),
            Ok(s) => out.extend(check_placements(s, p, range_of(&p.range))),
        }
    }
    out
}

/// Whether `task` belongs to `cpu` at `at` (`task_cpu()`): the CPU of its latest sample at or
/// before `at`, queued, running or asleep there.
fn check_on_cpu(sim: &Simulation, task: &str, cpu: u32, at: u64) -> Vec<String> {
    let Some(node) = Names::of(sim).lookup(task) else { return vec![format!("{task} is no task of the scenario")] };
    let s = &sim.fair.log.samples;
    match latest_samples_of(&sim.fair.log, &[node], at).first().copied().flatten() {
        None => vec![format!("{task}: no state at {at} ns")],
        Some(r) if s.cpu[r] as u32 != cpu => vec![format!("{task} is on cpu {} at {at} ns, not cpu {cpu}", s.cpu[r])],
        Some(_) => vec![],
    }
}

/// A task's CPU time on `cpu` (all CPUs if none) as a percentage of the run, from the
/// summary (`cpu_time_ns_by_cpu`, `cpu_time_ns`, `duration_ns`).
pub fn cpu_time_pct(summary: &Value, task: &str, cpu: Option<u32>) -> Option<f64> {
    let t = summary["tasks"].as_array()?.iter().find(|x| x["name"] == task)?;
    let ns = match cpu {
        Some(c) => t["cpu_time_ns_by_cpu"].get(c as usize)?.as_f64()?,
        None => t["cpu_time_ns"].as_f64()?,
    };
    let d = summary["duration_ns"].as_f64().filter(|&d| d > 0.0)?;
    Some(100.0 * ns / d)
}

fn check_cpu_time(sim: &Simulation, c: &CpuTimeExpect) -> Vec<String> {
    let summary = Summary::of(sim).to_json();
    let on = c.cpu.map(|x| format!("cpu {x}")).unwrap_or_else(|| "all cpus".into());
    match cpu_time_pct(&summary, &c.task, c.cpu) {
        None => vec![format!("no CPU time of {} on {on}", c.task)],
        Some(v) if v < c.min_pct || v > c.max_pct => {
            vec![format!("{} ran {v:.2} % of the run on {on}, outside [{}, {}]", c.task, c.min_pct, c.max_pct)]
        }
        Some(_) => vec![],
    }
}

/// Migrate rows (of `m.task`, of class `m.class`) in `[t0, t1)`.
pub fn count_migrations(sim: &Simulation, m: &MigrationsExpect, (t0, t1): (u64, u64)) -> u64 {
    let names = Names::of(sim);
    let log = &sim.fair.log;
    let (lo, hi) = log.event_window(t0, t1);
    let e = &log.events;
    let task = m.task.as_deref().and_then(|t| names.lookup(t));
    let class = m.class.as_deref().and_then(|k| MigrateClass::ALL.iter().find(|x| x.name() == k)).map(|x| *x as u32);
    (lo..hi)
        .filter(|&i| e.kind[i] == EventKind::Migrate as u8)
        .filter(|&i| task.is_none_or(|t| e.task[i] == t))
        .filter(|&i| class.is_none_or(|k| e.arg[i] == k))
        .count() as u64
}

fn check_migrations(sim: &Simulation, m: &MigrationsExpect, range: (u64, u64)) -> Vec<String> {
    let n = count_migrations(sim, m, range);
    if n < m.min || n > m.max {
        vec![format!(
            "{} migrations{} in [{}, {}) ns: {n}, outside [{}, {}]",
            m.task.as_deref().unwrap_or("all"),
            m.class.as_deref().map(|k| format!(" ({k})")).unwrap_or_default(),
            range.0,
            range.1,
            m.min,
            m.max
        )]
    } else {
        vec![]
    }
}

/// select_rq rows (of `p.task`, by rule `p.rule`, with wake_affine() part `p.affine`, onto
/// `p.cpu`) in `[t0, t1)`.
pub fn count_placements(sim: &Simulation, p: &PlacementsExpect, (t0, t1): (u64, u64)) -> u64 {
    let names = Names::of(sim);
    let log = &sim.fair.log;
    let (lo, hi) = log.event_window(t0, t1);
    let e = &log.events;
    let task = p.task.as_deref().and_then(|t| names.lookup(t));
    (lo..hi)
        .filter(|&i| e.kind[i] == EventKind::SelectRq as u8)
        .filter(|&i| task.is_none_or(|t| e.task[i] == t))
        .filter(|&i| p.cpu.is_none_or(|c| e.cpu[i] as u32 == c))
        .filter(|&i| {
            let row = PlacementRow::unpack(e.val[i]);
            p.rule.as_deref().is_none_or(|r| row.is_some_and(|x| x.path.name() == r))
                && p.affine.as_deref().is_none_or(|a| row.is_some_and(|x| x.affine.name() == a))
        })
        .count() as u64
}

fn check_placements(sim: &Simulation, p: &PlacementsExpect, range: (u64, u64)) -> Vec<String> {
    let n = count_placements(sim, p, range);
    if n < p.min || n > p.max {
        let mut what = Vec::new();
        what.extend(p.rule.as_deref().map(|r| format!("rule {r}")));
        what.extend(p.affine.as_deref().map(|a| format!("wake_affine {a}")));
        what.extend(p.cpu.map(|c| format!("onto cpu {c}")));
        vec![format!(
            "{} placements{} in [{}, {}) ns: {n}, outside [{}, {}]",
            p.task.as_deref().unwrap_or("all"),
            if what.is_empty() { String::new() } else { format!(" ({})", what.join(", ")) },
            range.0,
            range.1,
            p.min,
            p.max
        )]
    } else {
        vec![]
    }
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

/// "unknown KIND \"value\" (a, b, c)" when `value` is given and not one of `names`.
fn unknown_name(kind: &str, value: Option<&str>, names: &[&str]) -> Option<String> {
    let v = value.filter(|v| !names.contains(v))?;
    Some(format!("unknown {kind} {v:?} ({})", names.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::Step;

    /// Three hogs free on two CPUs (the start of `linux-6.18-smp/three-hogs-two-cpus`), and a
    /// pipe pair beside a hog: periodic balancing, exec balancing, sync wakeups.
    const HOGS: &str = r#"
version = 1
name = "three-hogs"
duration = "300ms"
[kernel]
smp = "fair"
[host]
cpus = 2
hz = 250
[[tasks]]
name = "k_a"
parent_cpu = 0
start = "2.416ms"
program = [{ run = "forever" }]
[[tasks]]
name = "k_b"
parent_cpu = 0
start = "2.623ms"
program = [{ run = "forever" }]
[[tasks]]
name = "k_c"
parent_cpu = 0
start = "4.616ms"
program = [{ run = "forever" }]
"#;

    const PIPE: &str = r#"
version = 1
name = "pipe"
duration = "20ms"
[kernel]
smp = "fair"
[host]
cpus = 2
hz = 250
[[tasks]]
name = "k_p"
parent_cpu = 0
start = "2.733ms"
program = [{ pipe = { peer = "k_q", work = "55.92us" } }]
[[tasks]]
name = "k_q"
parent_cpu = 1
start = "4.955ms"
program = [{ pipe = { peer = "k_p", work = "55.92us", first = true } }]
[[tasks]]
name = "k_h"
parent_cpu = 0
start = "3.226ms"
program = [{ run = "forever" }]
"#;

    fn run(text: &str) -> Simulation {
        let (_, mut sim) = crate::load("t.toml", text, &[]).expect("loads");
        sim.run();
        sim
    }

    fn expect(json: &str) -> Expect {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"))
    }

    fn check(sim: &Simulation, e: &Expect, at: u64, range: (u64, u64)) -> Vec<String> {
        let runs = [("baseline".to_string(), sim)];
        check_expect(e, &Context { runs: &runs, variant: "baseline", at, cpu: 0, range })
    }

    const MS: u64 = 1_000_000;

    #[test]
    fn on_cpu_is_task_cpu_at_the_instant() {
        let sim = run(HOGS);
        // Periodic balancing pulled k_a to CPU 1 at 144 ms; k_b went there at its exec.
        let e = expect(
            r#"{"on_cpu": [{"task": "k_a", "cpu": 0, "at": "100ms"}, {"task": "k_a", "cpu": 1}, {"task": "k_b", "cpu": 1}, {"task": "k_c", "cpu": 0}]}"#,
        );
        assert_eq!(check(&sim, &e, 150 * MS, (0, 300 * MS)), Vec::<String>::new());
        let e = expect(r#"{"on_cpu": [{"task": "k_a", "cpu": 0}]}"#);
        assert_eq!(
            check(&sim, &e, 150 * MS, (0, 300 * MS)),
            vec!["k_a is on cpu 1 at 150000000 ns, not cpu 0".to_string()]
        );
        let e = expect(r#"{"on_cpu": [{"task": "k_c", "cpu": 0}]}"#);
        assert_eq!(check(&sim, &e, MS, (0, 300 * MS)), vec!["k_c: no state at 1000000 ns".to_string()]);
        // A sleeping task is on the CPU it will be woken from.
        let pipe = run(PIPE);
        let e =
            expect(r#"{"on_cpu": [{"task": "k_p", "cpu": 1}, {"task": "k_q", "cpu": 1}, {"task": "k_h", "cpu": 0}]}"#);
        assert_eq!(check(&pipe, &e, 8 * MS, (0, 20 * MS)), Vec::<String>::new());
    }

    #[test]
    fn cpu_time_per_cpu_and_in_all() {
        let sim = run(HOGS);
        let summary = Summary::of(&sim).to_json();
        let on = |c| cpu_time_pct(&summary, "k_a", c).expect("k_a");
        assert!((on(Some(0)) + on(Some(1)) - on(None)).abs() < 1e-9);
        let e = expect(
            r#"{"cpu_time": [{"task": "k_a", "min_pct": 40, "max_pct": 60}, {"task": "k_a", "cpu": 1, "min_pct": 10, "max_pct": 60}]}"#,
        );
        assert_eq!(check(&sim, &e, 0, (0, 300 * MS)), Vec::<String>::new());
        let e = expect(r#"{"cpu_time": [{"task": "k_a", "cpu": 1, "min_pct": 90, "max_pct": 100}]}"#);
        let f = check(&sim, &e, 0, (0, 300 * MS));
        assert_eq!(f.len(), 1);
        assert!(f[0].starts_with("k_a ran ") && f[0].ends_with(" % of the run on cpu 1, outside [90, 100]"), "{f:?}");
        assert!(cpu_time_pct(&summary, "k_a", Some(2)).is_none());
    }

    #[test]
    fn migrations_by_task_class_and_range() {
        let sim = run(HOGS);
        let e = expect(
            r#"{"migrations": [{"class": "exec", "task": "k_b", "min": 1, "max": 1},
                {"task": "k_a", "class": "periodic", "range": ["140ms", "150ms"], "min": 1, "max": 1},
                {"class": "wake", "min": 0, "max": 0}]}"#,
        );
        assert_eq!(check(&sim, &e, 0, (0, 300 * MS)), Vec::<String>::new());
        let e = expect(r#"{"migrations": [{"task": "k_a", "class": "periodic", "min": 0, "max": 0}]}"#);
        let f = check(&sim, &e, 0, (0, 200 * MS));
        assert_eq!(f, vec!["k_a migrations (periodic) in [0, 200000000) ns: 1, outside [0, 0]".to_string()]);
    }

    #[test]
    fn placements_by_rule_affine_and_cpu() {
        let sim = run(PIPE);
        // k_q's first write wakes k_p (WF_SYNC): wake_affine_idle() takes the waker's CPU 1.
        let e = expect(
            r#"{"placements": [{"task": "k_p", "affine": "idle", "cpu": 1, "range": ["5ms", "5.1ms"], "min": 1, "max": 1},
                {"rule": "target_busy", "cpu": 1, "range": ["5.1ms", "12ms"], "min": 100, "max": 200},
                {"cpu": 0, "range": ["5.1ms", "12ms"], "min": 0, "max": 0}],
              "counts": [{"kind": "wakeup", "task": "k_p", "val": 16, "range": ["5ms", "5.1ms"], "min": 1, "max": 1}]}"#,
        );
        assert_eq!(check(&sim, &e, 0, (0, 20 * MS)), Vec::<String>::new());
        let e = expect(r#"{"placements": [{"task": "k_p", "rule": "idle_scan", "min": 1, "max": 9}]}"#);
        let f = check(&sim, &e, 0, (0, 20 * MS));
        assert_eq!(f, vec!["k_p placements (rule idle_scan) in [0, 20000000) ns: 0, outside [1, 9]".to_string()]);
    }

    #[test]
    fn smp_facts_are_validated_and_located() {
        let sim = run(HOGS);
        let names = Names::of(&sim);
        let step: Step = serde_json::from_str(
            r#"{"title": "T", "text": ["x"], "range": ["0ms", "100ms"], "at": "50ms", "question": "q",
                "expect": {"on_cpu": [{"task": "/", "cpu": 0}, {"task": "k_a", "cpu": 2, "at": "5 ms"}],
                           "cpu_time": [{"task": "k_z", "min_pct": 5, "max_pct": 1}],
                           "migrations": [{"class": "sideways", "range": ["50ms", "200ms"], "min": 0, "max": 1}],
                           "placements": [{"rule": "somewhere", "affine": "maybe", "cpu": 7, "min": 0, "max": 1}]}}"#,
        )
        .expect("parses");
        let ok = |_: &[(String, String)]| Ok(());
        let errs = validate_step("l", 0, &step, &names, 300 * MS, 2, &ok).join("\n");
        for want in [
            "l step 1 (T): expect: \"k_z\" is no task or cgroup of the scenario",
            "on_cpu at: \"5 ms\": expected a number and a unit",
            "on_cpu/cpu_time name tasks, not cgroups (\"/\")",
            "expect: cpu 2 does not exist (the scenario has 2)",
            "expect: cpu 7 does not exist",
            "cpu_time of k_z: min_pct is above max_pct",
            "unknown migration class \"sideways\" (wake, periodic, newidle, nohz, active, affinity, exec)",
            "unknown placement rule \"somewhere\"",
            "unknown wake_affine part \"maybe\" (none, idle, weight, prev)",
            "count range [50ms, 200ms] must be two increasing times within the step's range",
        ] {
            assert!(errs.contains(want), "missing {want:?} in\n{errs}");
        }
        // A fact list alone is a fact.
        let only: Step = serde_json::from_str(
            r#"{"title": "T", "text": ["x"], "range": ["0ms", "100ms"], "at": "50ms", "question": "q",
                "expect": {"on_cpu": [{"task": "k_a", "cpu": 0}]}}"#,
        )
        .expect("parses");
        assert_eq!(validate_step("l", 0, &only, &names, 300 * MS, 2, &ok), Vec::<String>::new());
    }
}
