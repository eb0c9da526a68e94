//! State at a cursor time, reconstructed from the log alone: each task's latest sample
//! (vruntime, deadline, vlag, vprot, the queue's V, flags) and the latest pick on a CPU with
//! its candidates. This is what the UI's runqueue and "why this pick" panels show.

use super::log::{flag, BuddySource, EventLog, PickReason, NO_TASK};
use super::why::pick_words;
use crate::sched::features::SchedFeatures;
use crate::sched::group::GROUP_NODE;
use serde_json::{json, Value};

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

/// The pick at `index` as JSON, with plain-words reasoning (`why::pick_words`) and every
/// candidate. Virtual times are signed (exact in JSON). `feat` are the run's features.
pub fn pick_json(log: &EventLog, names: &[String], groups: &[String], feat: &SchedFeatures, index: usize) -> Value {
    let name = |t: u32| {
        super::explain::node_name(t, &|k| names.get(k as usize).cloned(), &|g| groups.get(g as usize).cloned())
    };
    let p = &log.picks;
    let c = &log.cands;
    let reason = PickReason::from_u8(p.reason[index]).expect("valid pick reason");
    let (s, n) = (p.cand_start[index] as usize, p.cand_len[index] as usize);
    let v = p.avg_vruntime[index] as i64;
    let cands: Vec<Value> = (s..s + n)
        .map(|k| {
            json!({
                "task": c.task[k], "name": name(c.task[k]),
                "vruntime": c.vruntime[k] as i64, "deadline": c.deadline[k] as i64, "vprot": c.vprot[k] as i64,
                "lag": v.wrapping_sub(c.vruntime[k] as i64),
                "eligible": c.flags[k] & flag::ELIGIBLE != 0, "curr": c.flags[k] & flag::CURR != 0,
                "protected": c.flags[k] & flag::PROTECTED != 0, "buddy": c.flags[k] & flag::BUDDY != 0,
                "delayed": c.flags[k] & flag::DELAYED != 0,
            })
        })
        .collect();
    let buddy_src = BuddySource::from_u8(p.buddy_src.get(index).copied().unwrap_or(0)).unwrap_or_default();
    json!({
        "index": index, "t": p.t[index], "cpu": p.cpu[index], "task": p.task[index], "name": name(p.task[index]),
        "reason": reason.name(), "why": pick_words(log, index, &name, feat), "avg_vruntime": v, "candidates": cands,
        "buddy_src": buddy_src.name(),
    })
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
