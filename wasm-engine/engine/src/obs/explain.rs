//! "Why this pick": the state of every cfs_rq at an instant and the reasoning of the last
//! pick on each CPU, in plain words with the numbers.
//!
//! Virtual times are printed as signed 64-bit values, as /proc/sched_debug does (they start
//! at −2^20 and wrap), which also keeps them exact as JSON numbers. The running entity's
//! values are those of its last `update_curr()` (the tick or the last scheduling event).

use super::log::{flag, PickReason, NO_TASK};
use crate::sched::entity::vdiff;
use crate::sim::Simulation;
use serde_json::{json, Value};

fn name(sim: &Simulation, task: u32) -> String {
    if task == NO_TASK {
        "<idle>".to_string()
    } else {
        sim.tasks[task as usize].cfg.name.clone()
    }
}

/// Index of the last pick on `cpu` at or before now.
fn last_pick(sim: &Simulation, cpu: u32) -> Option<usize> {
    let p = &sim.fair.log.picks;
    (0..p.t.len()).rev().find(|&i| p.cpu[i] as u32 == cpu && p.task[i] != NO_TASK)
}

/// Plain-words reason for a pick.
pub fn reason_text(reason: PickReason) -> &'static str {
    match reason {
        PickReason::OnlyEntity => "it was the only entity queued",
        PickReason::Buddy => "it was the eligible next buddy (PICK_BUDDY)",
        PickReason::Protected => "it was running, still eligible and protected by RUN_TO_PARITY (vruntime < vprot)",
        PickReason::EarliestEligibleDeadline => "it had the earliest virtual deadline among the eligible entities",
        PickReason::CurrEarlierDeadline => {
            "it was running, eligible, and its deadline was earlier than any queued eligible entity's"
        }
        PickReason::DelayedDequeued => {
            "the winner was a delayed (sleeping) entity, which was dequeued; the pick was redone"
        }
    }
}

/// The explanation at the simulation's current time, as JSON and as text.
pub fn explain(sim: &Simulation) -> (Value, String) {
    let f = &sim.fair;
    let mut text = format!("t = {} ns\n", sim.now());
    let mut cpus = Vec::new();
    for rq in &f.rqs {
        let q = &f.qs[rq.cfs as usize];
        let v = q.peek_avg_vruntime(&f.ents);
        let v_signed = v as i64;
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
        let mut ents = Vec::new();
        let members: Vec<u32> = q.curr_on_rq(&f.ents).into_iter().chain(q.timeline.iter().copied()).collect();
        for id in members {
            let e = &f.ents[id as usize];
            let lag = vdiff(v, e.vruntime);
            let eligible = q.entity_eligible(&f.ents, id);
            let task = e.task.unwrap_or(NO_TASK);
            text.push_str(&format!(
                "  {:<16} vruntime={} deadline={} lag={:+} {} weight={} slice={}{}{}{}\n",
                name(sim, task),
                (e.vruntime as i64),
                (e.deadline as i64),
                lag,
                if eligible { "eligible" } else { "ineligible" },
                e.load.weight,
                e.slice,
                if q.curr == Some(id) { format!(" curr vprot={}", (e.vprot as i64)) } else { String::new() },
                if e.sched_delayed { " delayed" } else { "" },
                if q.next == Some(id) { " next-buddy" } else { "" },
            ));
            ents.push(json!({
                "task": name(sim, task), "vruntime": (e.vruntime as i64), "deadline": (e.deadline as i64), "lag": lag,
                "eligible": eligible, "weight": e.load.weight, "slice": e.slice, "curr": q.curr == Some(id),
                "vprot": (e.vprot as i64), "delayed": e.sched_delayed, "buddy": q.next == Some(id),
            }));
        }
        let pick = last_pick(sim, rq.cpu).map(|i| {
            let p = &f.log.picks;
            let reason = PickReason::from_u8(p.reason[i]).expect("valid reason");
            let c = &f.log.cands;
            let (s, n) = (p.cand_start[i] as usize, p.cand_len[i] as usize);
            let eligible: Vec<String> = (s..s + n).filter(|&k| c.flags[k] & flag::ELIGIBLE != 0).map(|k| name(sim, c.task[k])).collect();
            text.push_str(&format!(
                "  last pick at t={}: {} because {}; V={}; eligible: [{}]\n",
                p.t[i],
                name(sim, p.task[i]),
                reason_text(reason),
                (p.avg_vruntime[i] as i64),
                eligible.join(", ")
            ));
            let cands: Vec<Value> = (s..s + n)
                .map(|k| {
                    json!({"task": name(sim, c.task[k]), "vruntime": (c.vruntime[k] as i64), "deadline": (c.deadline[k] as i64),
                    "vprot": (c.vprot[k] as i64), "eligible": c.flags[k] & flag::ELIGIBLE != 0, "curr": c.flags[k] & flag::CURR != 0,
                    "protected": c.flags[k] & flag::PROTECTED != 0, "buddy": c.flags[k] & flag::BUDDY != 0,
                    "delayed": c.flags[k] & flag::DELAYED != 0})
                })
                .collect();
            json!({"t": p.t[i], "task": name(sim, p.task[i]), "reason": reason.name(), "why": reason_text(reason),
                   "avg_vruntime": (p.avg_vruntime[i] as i64), "candidates": cands})
        });
        cpus.push(
            json!({"cpu": rq.cpu, "running": name(sim, running), "avg_vruntime": v_signed, "zero_vruntime": (q.zero_vruntime as i64),
            "nr_queued": q.nr_queued, "load_weight": q.load_weight, "entities": ents, "last_pick": pick}),
        );
    }
    (json!({"t": sim.now(), "cpus": cpus}), text)
}
