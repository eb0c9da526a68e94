//! "Why this pick": the state of every cfs_rq at an instant and the reasoning of the last
//! pick on each CPU, at every level of the hierarchy, in plain words with the numbers
//! (`why.rs` writes the words).
//!
//! Virtual times are printed as signed 64-bit values, as /proc/sched_debug does (they start
//! at −2^20 and wrap), which also keeps them exact as JSON numbers. The running entity's
//! values are those of its last `update_curr()` (the tick or the last scheduling event).

use super::log::EventKind;
use super::log::{flag, BuddySource, PickReason, NO_TASK};
use super::why::pick_words;
use super::why_cpu::{balance_words, last_row, migration_words, placement_words};
use crate::sched::entity::vdiff;
use crate::sched::group::GROUP_NODE;
use crate::sim::Simulation;
use serde_json::{json, Value};

fn name(sim: &Simulation, node: u32) -> String {
    node_name(node, &|t| sim.tasks.get(t as usize).map(|x| x.cfg.name.clone()), &|g| {
        sim.fair.tgs.get(g as usize).map(|x| x.path.clone())
    })
}

/// Name of a log node: a task's comm, a group entity's cgroup path (shown as `[/path]`), or
/// `<idle>`.
pub fn node_name(node: u32, task: &dyn Fn(u32) -> Option<String>, group: &dyn Fn(u32) -> Option<String>) -> String {
    if node == NO_TASK {
        return "<idle>".to_string();
    }
    if node & GROUP_NODE != 0 {
        return group(node & !GROUP_NODE).map(|p| format!("[{p}]")).unwrap_or_else(|| "[?]".to_string());
    }
    task(node).unwrap_or_else(|| format!("#{node}"))
}

/// Describes the entities queued on `q` (curr first, then by deadline), recursing into group
/// entities' own queues, indented by level.
fn describe_queue(sim: &Simulation, q: u32, level: usize, text: &mut String) -> Vec<Value> {
    let f = &sim.fair;
    let cq = &f.qs[q as usize];
    let v = cq.peek_avg_vruntime(&f.ents);
    let pad = "  ".repeat(level);
    let mut out = Vec::new();
    let members: Vec<u32> = cq.curr_on_rq(&f.ents).into_iter().chain(cq.timeline.iter().copied()).collect();
    for id in members {
        let e = &f.ents[id as usize];
        let lag = vdiff(v, e.vruntime);
        let eligible = cq.entity_eligible(&f.ents, id);
        let node = f.node_of(id);
        text.push_str(&format!(
            "{pad}{:<16} vruntime={} deadline={} lag={:+} {} weight={} slice={}{}{}{}\n",
            name(sim, node),
            e.vruntime as i64,
            e.deadline as i64,
            lag,
            if eligible { "eligible" } else { "ineligible" },
            e.load.weight,
            e.slice,
            if cq.curr == Some(id) { format!(" curr vprot={}", e.vprot as i64) } else { String::new() },
            if e.sched_delayed { " delayed" } else { "" },
            if cq.next == Some(id) { " next-buddy" } else { "" },
        ));
        let children = e.my_q.map(|mq| {
            let gq = &f.qs[mq as usize];
            text.push_str(&format!(
                "{pad}  cfs_rq of {}: nr_queued={} load={} V={}\n",
                name(sim, node),
                gq.nr_queued,
                gq.load_weight,
                gq.peek_avg_vruntime(&f.ents) as i64
            ));
            describe_queue(sim, mq, level + 2, text)
        });
        out.push(json!({
            "node": name(sim, node), "level": level / 2, "vruntime": e.vruntime as i64, "deadline": e.deadline as i64, "lag": lag,
            "eligible": eligible, "weight": e.load.weight, "slice": e.slice, "curr": cq.curr == Some(id),
            "vprot": e.vprot as i64, "delayed": e.sched_delayed, "buddy": cq.next == Some(id), "children": children,
        }));
    }
    out
}

/// The picks of one decision (same time and CPU, one per level), ending at `last`.
pub fn decision_levels(sim: &Simulation, last: usize) -> Vec<usize> {
    let p = &sim.fair.log.picks;
    let mut first = last;
    while first > 0
        && p.t[first - 1] == p.t[last]
        && p.cpu[first - 1] == p.cpu[last]
        && p.task[first - 1] != NO_TASK
        && p.task[first - 1] & GROUP_NODE != 0
    {
        first -= 1;
    }
    (first..=last).collect()
}

/// The queue a picked node was chosen on: "the root cfs_rq" or "the cfs_rq of /path".
pub fn level_name(sim: &Simulation, node: u32) -> String {
    let tg = if node & GROUP_NODE != 0 {
        sim.fair.tgs.get((node & !GROUP_NODE) as usize).and_then(|g| g.parent).unwrap_or(0)
    } else {
        sim.tasks.get(node as usize).map(|t| t.cfg.tg).unwrap_or(0)
    };
    if tg == 0 {
        "the root cfs_rq".to_string()
    } else {
        format!("the cfs_rq of {}", sim.fair.tgs[tg as usize].path)
    }
}

/// Index of the last pick on `cpu` at or before now.
fn last_pick(sim: &Simulation, cpu: u32) -> Option<usize> {
    let p = &sim.fair.log.picks;
    (0..p.t.len()).rev().find(|&i| p.cpu[i] as u32 == cpu && p.task[i] != NO_TASK && p.task[i] & GROUP_NODE == 0)
}

/// The explanation at the simulation's current time, as JSON and as text.
pub fn explain(sim: &Simulation) -> (Value, String) {
    let f = &sim.fair;
    let mut text = format!("t = {} ns\n", sim.now());
    let mut cpus = Vec::new();
    for rq in &f.rqs {
        let q = &f.qs[rq.cfs as usize];
        let v_signed = q.peek_avg_vruntime(&f.ents) as i64;
        let running = rq.curr.map(|c| f.task_of(c)).unwrap_or(NO_TASK);
        text.push_str(&format!(
            "cpu {}: running {} | cfs_rq: nr_queued={} load={} V(avg_vruntime)={} zero_vruntime={}\n",
            rq.cpu,
            name(sim, running),
            q.nr_queued,
            q.load_weight,
            v_signed,
            (q.zero_vruntime as i64)
        ));
        let ents = describe_queue(sim, rq.cfs, 1, &mut text);
        // The last decision on this CPU: one pick per level, root first.
        let levels: Vec<usize> = last_pick(sim, rq.cpu).map(|i| decision_levels(sim, i)).unwrap_or_default();
        let picks: Vec<Value> = levels
            .iter()
            .map(|&i| {
                let p = &f.log.picks;
                let reason = PickReason::from_u8(p.reason[i]).expect("valid reason");
                let c = &f.log.cands;
                let (s, n) = (p.cand_start[i] as usize, p.cand_len[i] as usize);
                let level = level_name(sim, p.task[i]);
                let words = pick_words(&f.log, i, &|n| name(sim, n), &f.feat);
                let buddy_src = BuddySource::from_u8(p.buddy_src[i]).unwrap_or_default();
                text.push_str(&format!("  pick at t={} on {level}: {}. {words}\n", p.t[i], name(sim, p.task[i])));
                let cands: Vec<Value> = (s..s + n)
                    .map(|k| {
                        json!({"node": name(sim, c.task[k]), "vruntime": c.vruntime[k] as i64, "deadline": c.deadline[k] as i64,
                        "vprot": c.vprot[k] as i64, "eligible": c.flags[k] & flag::ELIGIBLE != 0, "curr": c.flags[k] & flag::CURR != 0,
                        "protected": c.flags[k] & flag::PROTECTED != 0, "buddy": c.flags[k] & flag::BUDDY != 0,
                        "delayed": c.flags[k] & flag::DELAYED != 0})
                    })
                    .collect();
                json!({"t": p.t[i], "level": level, "node": name(sim, p.task[i]), "reason": reason.name(), "why": words,
                       "buddy_src": buddy_src.name(), "avg_vruntime": p.avg_vruntime[i] as i64, "candidates": cands})
            })
            .collect();
        let pick = if picks.is_empty() { Value::Null } else { Value::Array(picks) };
        // Why tasks are on this CPU: the last placement onto it and the last migration to it.
        let rows = f.log.events.t.len();
        let mut arrivals = [Value::Null, Value::Null, Value::Null];
        for (slot, kind) in [EventKind::SelectRq, EventKind::Migrate, EventKind::Balance].into_iter().enumerate() {
            if let Some(i) = last_row(&f.log, kind, rq.cpu, rows) {
                let words = match kind {
                    EventKind::SelectRq => placement_words(&f.log, i, &|n| name(sim, n)),
                    EventKind::Migrate => migration_words(&f.log, i, &|n| name(sim, n)),
                    _ => balance_words(&f.log, i),
                };
                let t = f.log.events.t[i];
                let what = ["placement", "migration", "balance"][slot];
                let onto = if slot == 2 { "by" } else { "onto" };
                text.push_str(&format!("  last {what} {onto} cpu {} at t={t}: {words}\n", rq.cpu));
                arrivals[slot] = json!({"t": t, "task": name(sim, f.log.events.task[i]), "why": words});
            }
        }
        let [placement, migration, balance] = arrivals;
        cpus.push(
            json!({"cpu": rq.cpu, "running": name(sim, running), "avg_vruntime": v_signed, "zero_vruntime": (q.zero_vruntime as i64),
            "nr_queued": q.nr_queued, "load_weight": q.load_weight, "entities": ents, "last_pick": pick,
            "last_placement": placement, "last_migration": migration, "last_balance": balance}),
        );
    }
    (json!({"t": sim.now(), "cpus": cpus}), text)
}
