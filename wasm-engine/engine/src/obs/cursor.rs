//! State at a cursor time, reconstructed from the log alone: each task's latest sample
//! (vruntime, deadline, vlag, vprot, the queue's V, flags) and the latest pick on a CPU with
//! its candidates and its words. This is what the UI's runqueue and "why this pick" panels
//! show ([`state_at`]); the shapes are part of the engine ⇄ UI contract (`TS` derives, see
//! `schedlab-wasm`'s `contract.rs`).
//!
//! Virtual times are signed 64-bit values, as /proc/sched_debug prints them, which keeps them
//! exact as JSON numbers.

use super::explain::{decision_levels, level_name, node_name};
use super::log::EventKind;
use super::log::{flag, BuddySource, EventLog, PickReason, NO_TASK};
use super::why::pick_words;
use super::why_cpu::{balance_words, migration_words, placement_words};
use crate::sched::features::SchedFeatures;
use crate::sched::group::GROUP_NODE;
use crate::sim::Simulation;
use serde::Serialize;
use ts_rs::TS;

/// Row index of each task's latest sample at or before `t` (None: no sample yet).
pub fn latest_samples(log: &EventLog, ntasks: usize, t: u64) -> Vec<Option<usize>> {
    let s = &log.samples;
    let hi = s.t.partition_point(|&x| x <= t);
    let mut out = vec![None; ntasks];
    let mut missing = ntasks;
    for i in (0..hi).rev() {
        if missing == 0 {
            break;
        }
        let k = s.task[i] as usize;
        if k < ntasks && out[k].is_none() {
            out[k] = Some(i);
            missing -= 1;
        }
    }
    out
}

/// Row index of the latest sample of each of `nodes` (task ids or group node ids) at or
/// before `t`.
pub fn latest_samples_of(log: &EventLog, nodes: &[u32], t: u64) -> Vec<Option<usize>> {
    let s = &log.samples;
    let hi = s.t.partition_point(|&x| x <= t);
    let mut out = vec![None; nodes.len()];
    let mut missing = nodes.len();
    for i in (0..hi).rev() {
        if missing == 0 {
            break;
        }
        if let Some(k) = nodes.iter().position(|&n| n == s.task[i]) {
            if out[k].is_none() {
                out[k] = Some(i);
                missing -= 1;
            }
        }
    }
    out
}

/// Index of the latest completed pick on `cpu` at or before `t`.
pub fn pick_at(log: &EventLog, cpu: u32, t: u64) -> Option<usize> {
    let p = &log.picks;
    let hi = p.t.partition_point(|&x| x <= t);
    (0..hi).rev().find(|&i| p.cpu[i] as u32 == cpu && p.task[i] != NO_TASK && p.task[i] & GROUP_NODE == 0)
}

/// One candidate of a pick: every entity queued at that level.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Candidate {
    /// Task id, or GROUP_NODE | task group for a group entity.
    pub task: u32,
    pub name: String,
    pub vruntime: i64,
    pub deadline: i64,
    pub vprot: i64,
    /// V − vruntime at the pick.
    pub lag: i64,
    pub eligible: bool,
    pub curr: bool,
    pub protected: bool,
    pub buddy: bool,
    pub delayed: bool,
}

/// One pick decision at one level, with its reasoning in words.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Pick {
    /// Row of the picks table.
    pub index: u32,
    pub t: u64,
    pub cpu: u32,
    /// The winner: a task id, or GROUP_NODE | task group.
    pub task: u32,
    pub name: String,
    pub reason: PickReason,
    /// "Why this pick" in words with the numbers (`why::pick_words`).
    pub why: String,
    /// V of the queue at the pick.
    pub avg_vruntime: i64,
    pub candidates: Vec<Candidate>,
    /// Who had set this queue's next buddy at the pick.
    pub buddy_src: BuddySource,
    /// The queue this choice was made on: "the root cfs_rq" or "the cfs_rq of /path".
    pub level: String,
    /// Every level's pick of the same decision, root first (task-level picks only).
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub levels: Option<Vec<Pick>>,
}

/// The pick at row `index` of the log, named with `names` (tasks) and `groups` (cgroup paths)
/// and described in words. `level` names the queue it was made on; `levels` is left empty.
pub fn pick(log: &EventLog, names: &[String], groups: &[String], feat: &SchedFeatures, index: usize) -> Pick {
    let name = |t: u32| node_name(t, &|k| names.get(k as usize).cloned(), &|g| groups.get(g as usize).cloned());
    let p = &log.picks;
    let c = &log.cands;
    let (s, n) = (p.cand_start[index] as usize, p.cand_len[index] as usize);
    let v = p.avg_vruntime[index] as i64;
    let candidates = (s..s + n)
        .map(|k| Candidate {
            task: c.task[k],
            name: name(c.task[k]),
            vruntime: c.vruntime[k] as i64,
            deadline: c.deadline[k] as i64,
            vprot: c.vprot[k] as i64,
            lag: v.wrapping_sub(c.vruntime[k] as i64),
            eligible: c.flags[k] & flag::ELIGIBLE != 0,
            curr: c.flags[k] & flag::CURR != 0,
            protected: c.flags[k] & flag::PROTECTED != 0,
            buddy: c.flags[k] & flag::BUDDY != 0,
            delayed: c.flags[k] & flag::DELAYED != 0,
        })
        .collect();
    Pick {
        index: index as u32,
        t: p.t[index],
        cpu: p.cpu[index] as u32,
        task: p.task[index],
        name: name(p.task[index]),
        reason: PickReason::from_u8(p.reason[index]).expect("valid pick reason"),
        why: pick_words(log, index, &name, feat),
        avg_vruntime: v,
        candidates,
        buddy_src: BuddySource::from_u8(p.buddy_src.get(index).unwrap_or(0)).unwrap_or_default(),
        level: String::new(),
        levels: None,
    }
}

/// A task's latest sampled state at the cursor.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct EntityState {
    pub task: u32,
    pub name: String,
    /// When it was sampled (or, for a queued entity read against a newer V of its queue, the
    /// time of that V).
    pub t: u64,
    pub cpu: u32,
    pub vruntime: i64,
    pub deadline: i64,
    /// vlag as last saved.
    pub vlag: i64,
    pub vprot: i64,
    pub avg_vruntime: i64,
    /// avg_vruntime − vruntime.
    pub lag: i64,
    pub on_rq: bool,
    pub eligible: bool,
    pub curr: bool,
    pub delayed: bool,
    pub protected: bool,
    pub buddy: bool,
}

/// One CPU at the cursor: its queued task entities and its latest task-level pick.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CpuState {
    pub cpu: u32,
    pub entities: Vec<EntityState>,
    pub pick: Option<Pick>,
    /// "Why this CPU": its latest placement, migration onto it and balance pass at or before
    /// the cursor, newest first (none before any, and none under `smp = "static"`).
    pub why_cpu: Vec<CpuWhy>,
}

/// What a "why this CPU" entry explains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CpuWhyKind {
    /// A `select_rq` row: `select_task_rq()` placed a waking or new task on this CPU.
    Placement,
    /// A `migrate` row: a task moved onto this CPU.
    Migration,
    /// A `balance` row: a load-balance pass run by this CPU that found an imbalance.
    Balance,
}

/// One placement, migration or balance pass of a CPU, in words with its numbers
/// (`why_cpu.rs`).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CpuWhy {
    pub kind: CpuWhyKind,
    pub t: u64,
    /// The task placed or moved (None for a balance pass).
    pub task: Option<u32>,
    pub why: String,
}

/// How far back (in event rows) `why_cpu_at` looks for a CPU's decisions.
pub const WHY_CPU_LOOKBACK: usize = 200_000;

/// Each CPU's latest `select_rq`, `migrate` and `balance` rows at or before `t`, in words,
/// newest first.
pub fn why_cpu_at(log: &EventLog, ncpus: usize, t: u64, name: &dyn Fn(u32) -> String) -> Vec<Vec<CpuWhy>> {
    let e = &log.events;
    let hi = e.t.partition_point(|&x| x <= t);
    let lo = hi.saturating_sub(WHY_CPU_LOOKBACK);
    let kinds = [EventKind::SelectRq, EventKind::Migrate, EventKind::Balance];
    let mut found: Vec<[Option<usize>; 3]> = vec![[None; 3]; ncpus];
    let mut left = ncpus * 3;
    for i in (lo..hi).rev() {
        if left == 0 {
            break;
        }
        let Some(k) = kinds.iter().position(|&k| k as u8 == e.kind[i]) else { continue };
        let c = e.cpu[i] as usize;
        if c < ncpus && found[c][k].is_none() {
            found[c][k] = Some(i);
            left -= 1;
        }
    }
    found
        .into_iter()
        .map(|rows| {
            let mut rows: Vec<(usize, usize)> =
                rows.iter().enumerate().filter_map(|(k, r)| r.map(|i| (i, k))).collect();
            rows.sort_unstable_by_key(|r| std::cmp::Reverse(r.0));
            rows.into_iter()
                .map(|(i, k)| {
                    let (kind, task, why) = match k {
                        0 => (CpuWhyKind::Placement, Some(e.task[i]), placement_words(log, i, name)),
                        1 => (CpuWhyKind::Migration, Some(e.task[i]), migration_words(log, i, name)),
                        _ => (CpuWhyKind::Balance, None, balance_words(log, i)),
                    };
                    CpuWhy { kind, t: e.t[i], task, why }
                })
                .collect()
        })
        .collect()
}

/// The state at a cursor time (`SimHandle.state_at`, the inspector).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CursorState {
    pub t: u64,
    pub cpus: Vec<CpuState>,
    /// Every task's latest sample at or before t, queued or not.
    pub tasks: Vec<EntityState>,
}

fn entity_state(log: &EventLog, name: &str, task: usize, i: usize) -> EntityState {
    let s = &log.samples;
    let f = s.flags[i];
    let (v, vr) = (s.avg_vruntime[i] as i64, s.vruntime[i] as i64);
    EntityState {
        task: task as u32,
        name: name.to_string(),
        t: s.t[i],
        cpu: s.cpu[i] as u32,
        vruntime: vr,
        deadline: s.deadline[i] as i64,
        vlag: s.vlag[i],
        vprot: s.vprot[i] as i64,
        avg_vruntime: v,
        lag: v.wrapping_sub(vr),
        on_rq: f & flag::ON_RQ != 0,
        eligible: f & flag::ELIGIBLE != 0,
        curr: f & flag::CURR != 0,
        delayed: f & flag::DELAYED != 0,
        protected: f & flag::PROTECTED != 0,
        buddy: f & flag::BUDDY != 0,
    }
}

/// The runqueue of every CPU at `t`, the latest pick on each (with the picks of the same
/// decision at every level), and every task's latest state, queued or not.
///
/// A queued entity's own sample may be older than its queue's V: each lag is read against the
/// newest V sampled on the same cfs_rq (the task's group on that CPU), so the runqueue table
/// agrees with the pick it sits beside.
pub fn state_at(sim: &Simulation, t: u64) -> CursorState {
    let log = &sim.fair.log;
    let names: Vec<String> = sim.tasks.iter().map(|x| x.cfg.name.clone()).collect();
    let groups: Vec<String> = sim.fair.tgs.iter().map(|g| g.path.clone()).collect();
    let latest = latest_samples(log, names.len(), t);
    let smp = &log.samples;
    let tg = |task: usize| sim.tasks[task].cfg.tg;
    let task_name = |k: u32| names.get(k as usize).cloned().unwrap_or_else(|| format!("#{k}"));
    let mut why_cpu = why_cpu_at(log, sim.cpus.len(), t, &task_name).into_iter();
    let cpus = (0..sim.cpus.len() as u32)
        .map(|cpu| {
            let queued: Vec<(usize, usize)> = latest
                .iter()
                .enumerate()
                .filter_map(|(task, row)| row.map(|i| (task, i)))
                .filter(|&(_, i)| smp.cpu[i] as u32 == cpu && smp.flags[i] & flag::ON_RQ != 0)
                .collect();
            let newest = |g: u32| queued.iter().filter(|&&(x, _)| tg(x) == g).map(|&(_, i)| i).max();
            let entities = queued
                .iter()
                .map(|&(task, i)| {
                    let mut e = entity_state(log, &names[task], task, i);
                    if let Some(n) = newest(tg(task)).filter(|&n| n != i && smp.t[n] > smp.t[i]) {
                        e.avg_vruntime = smp.avg_vruntime[n] as i64;
                        e.lag = e.avg_vruntime.wrapping_sub(e.vruntime);
                        e.eligible = e.lag >= 0;
                        e.t = smp.t[n];
                    }
                    e
                })
                .collect();
            let pick = pick_at(log, cpu, t).map(|i| {
                let at_level = |j: usize| Pick {
                    level: level_name(sim, log.picks.task[j]),
                    ..pick(log, &names, &groups, &sim.fair.feat, j)
                };
                Pick { levels: Some(decision_levels(sim, i).into_iter().map(at_level).collect()), ..at_level(i) }
            });
            CpuState { cpu, entities, pick, why_cpu: why_cpu.next().unwrap_or_default() }
        })
        .collect();
    let tasks = latest
        .iter()
        .enumerate()
        .filter_map(|(task, row)| row.map(|i| entity_state(log, &names[task], task, i)))
        .collect();
    CursorState { t, cpus, tasks }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latest_sample_per_task() {
        let mut log = EventLog::new();
        for (t, task) in [(1u64, 0u32), (2, 1), (5, 0), (9, 1)] {
            let s = &mut log.samples;
            s.t.push(t);
            s.task.push(task);
            s.cpu.push(0);
            s.vruntime.push(t * 10);
            s.deadline.push(0);
            s.vlag.push(0);
            s.vprot.push(0);
            s.avg_vruntime.push(0);
            s.flags.push(0);
        }
        assert_eq!(latest_samples(&log, 3, 6), vec![Some(2), Some(1), None]);
        assert_eq!(latest_samples(&log, 2, 0), vec![None, None]);
    }
}
