//! A lesson step's `expect` facts checked against runs of the engine, read the way the web app
//! reads them: the latest task-level pick at or before the instant on the CPU
//! (`obs::cursor::pick_at`) with the picks of the same decision at every level, each entity's
//! latest sample at or before the instant, the run's summary, and the events of the step's
//! range.

use super::check::Names;
use super::{lesson_time, CountExpect, CpuTimeExpect, Expect, MetricExpect, MigrationsExpect, PlacementsExpect};
use crate::obs::codes::MigrateClass;
use crate::obs::cursor::{latest_samples_of, pick_at};
use crate::obs::explain::decision_levels;
use crate::obs::log::{flag, BuddySource, EventKind, PickReason};
use crate::obs::summary::Summary;
use crate::obs::why_cpu::PlacementRow;
use crate::sched::group::GROUP_NODE;
use crate::sim::Simulation;
use serde_json::Value;

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
