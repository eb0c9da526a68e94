//! Each task's cgroup, where a trace says it: tracefs `cgroup:cgroup_attach_task` records
//! (`dst_root=… dst_id=… dst_level=… dst_path=/sl_A pid=… comm=…`, kept by the store as other
//! events with their fields), followed through `sched_process_fork` (a child starts in its
//! parent's cgroup, which no attach record says), and a replay layout file's `[tasks]`
//! table (comm or `comm-pid` → path) for the tasks the trace does not place.
//!
//! What a task's cgroup is: the `dst_path` of the **last** attach of it in the whole trace (so
//! the cgroup it ended the trace in; the task table covers the whole trace, not a window), else
//! its parent's cgroup at the fork that created it, else the layout's entry. Named shortcuts:
//! under cgroup v1 each hierarchy attaches the task once (`dst_root` differs) and the last one
//! printed wins, whichever controller it is; a task the trace never names in a record has no
//! task id, so an attach of it is dropped.

use super::store::TraceStore;
use std::collections::BTreeMap;

/// The event whose records move a task into a cgroup (`kernel/cgroup/cgroup.c`,
/// `trace_cgroup_attach_task`).
pub const ATTACH_EVENT: &str = "cgroup_attach_task";
/// The event whose records name a new task's parent.
const FORK_EVENT: &str = "sched_process_fork";

/// Per task id of `store`: its cgroup path from the trace's attach and fork records (see the
/// module doc), then from `layout` (comm or `comm-pid` → path) for tasks still without one.
pub fn task_cgroups(store: &TraceStore, layout: Option<&BTreeMap<String, String>>) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = vec![None; store.tasks.len()];
    let attach = store.events.id(ATTACH_EVENT);
    let fork = store.events.id(FORK_EVENT);
    if attach.is_some() || fork.is_some() {
        let o = &store.others;
        // In time order (file order within a time), as a merged trace prints them.
        let mut rows: Vec<usize> =
            (0..o.ts.len()).filter(|&i| Some(o.event[i]) == attach || Some(o.event[i]) == fork).collect();
        rows.sort_by_key(|&i| (o.ts[i], o.line[i]));
        for i in rows {
            let fields = store.other_fields(i);
            let get = |k: &str| fields.iter().find(|(n, _)| *n == k).map(|(_, v)| *v);
            let ts = o.ts[i];
            if Some(o.event[i]) == attach {
                let (Some(path), Some(pid)) = (get("dst_path"), get("pid").and_then(|p| p.parse::<i32>().ok())) else {
                    continue;
                };
                if let Some(t) = generation_at(store, pid, ts) {
                    out[t] = Some(path.to_string());
                }
            } else if let (Some(parent), Some(child)) =
                (get("pid").and_then(|p| p.parse::<i32>().ok()), get("child_pid").and_then(|p| p.parse::<i32>().ok()))
            {
                let (Some(p), Some(c)) = (generation_at(store, parent, ts), generation_at(store, child, ts)) else {
                    continue;
                };
                if out[c].is_none() {
                    out[c] = out[p].clone();
                }
            }
        }
    }
    if let Some(layout) = layout {
        for (i, t) in store.tasks.iter().enumerate() {
            if out[i].is_some() || t.pid == 0 {
                continue;
            }
            let with_pid = |c: u32| layout.get(&format!("{}-{}", store.comms.get(c), t.pid));
            let by_comm = |c: u32| layout.get(store.comms.get(c));
            // The last comm first (an exec renames a task into its workload's name).
            out[i] = t.comms.iter().rev().find_map(|&c| with_pid(c).or_else(|| by_comm(c))).cloned();
        }
    }
    out
}

/// The task id of `pid` at `ts`: the generation alive then (first..=last record), else the
/// first one seen after `ts` (an attach or fork precedes the task's own records), else its last.
fn generation_at(store: &TraceStore, pid: i32, ts: u64) -> Option<usize> {
    let gens = store.tasks.iter().enumerate().filter(|(_, t)| t.pid == pid);
    let mut after = None;
    let mut last = None;
    for (i, t) in gens {
        if t.first_ts <= ts && ts <= t.last_ts {
            return Some(i);
        }
        if t.first_ts > ts && after.is_none() {
            after = Some(i);
        }
        last = Some(i);
    }
    after.or(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::import_text;

    /// A tracefs trace: bash moves k_a (pid 101) into /sl_A, then k_a into /sl_B; k_a forks
    /// k_c (pid 103), which inherits /sl_B; k_b (102) is never attached.
    const TRACE: &str = "\
# tracer: nop
#
            bash-100   [000] .....   10.000000: cgroup_attach_task: dst_root=0 dst_id=7 dst_level=1 dst_path=/sl_A pid=101 comm=k_a
            bash-100   [000] d..2.   10.000010: sched_switch: prev_comm=bash prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=k_a next_pid=101 next_prio=120
             k_a-101   [000] d..2.   10.001000: sched_switch: prev_comm=k_a prev_pid=101 prev_prio=120 prev_state=R ==> next_comm=k_b next_pid=102 next_prio=120
             k_b-102   [000] .....   10.001500: cgroup_attach_task: dst_root=0 dst_id=8 dst_level=1 dst_path=/sl_B pid=101 comm=k_a
             k_b-102   [000] d..2.   10.002000: sched_switch: prev_comm=k_b prev_pid=102 prev_prio=120 prev_state=R ==> next_comm=k_a next_pid=101 next_prio=120
             k_a-101   [000] .....   10.002100: sched_process_fork: comm=k_a pid=101 child_comm=k_a child_pid=103
             k_a-101   [000] d..2.   10.003000: sched_switch: prev_comm=k_a prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=k_c next_pid=103 next_prio=120
";

    fn by_pid(store: &TraceStore, cg: &[Option<String>]) -> Vec<(i32, Option<String>)> {
        store.tasks.iter().zip(cg).map(|(t, c)| (t.pid, c.clone())).collect()
    }

    #[test]
    fn last_attach_wins_and_forks_inherit() {
        let (store, _) = import_text(TRACE.as_bytes());
        assert_eq!(store.count(ATTACH_EVENT), 2);
        let cg = task_cgroups(&store, None);
        let got = by_pid(&store, &cg);
        let want = |pid: i32| got.iter().find(|(p, _)| *p == pid).map(|(_, c)| c.clone()).unwrap();
        assert_eq!(want(101), Some("/sl_B".into()), "the last attach of k_a");
        assert_eq!(want(103), Some("/sl_B".into()), "k_c forked by k_a after it moved");
        assert_eq!(want(102), None);
        assert_eq!(want(100), None);
    }

    #[test]
    fn the_layout_fills_tasks_the_trace_does_not_place() {
        let (store, _) = import_text(TRACE.as_bytes());
        let layout: BTreeMap<String, String> =
            [("k_a", "/ignored"), ("k_b-102", "/sl_C"), ("bash", "/user")].map(|(a, b)| (a.into(), b.into())).into();
        let cg = task_cgroups(&store, Some(&layout));
        let got = by_pid(&store, &cg);
        let want = |pid: i32| got.iter().find(|(p, _)| *p == pid).map(|(_, c)| c.clone()).unwrap();
        assert_eq!(want(101), Some("/sl_B".into()), "the trace's attach wins over the layout");
        assert_eq!(want(102), Some("/sl_C".into()), "comm-pid");
        assert_eq!(want(100), Some("/user".into()), "comm");
    }

    #[test]
    fn an_attach_before_the_task_is_seen_goes_to_the_generation_after_it() {
        let text = "\
            bash-100   [000] .....   5.000000: cgroup_attach_task: dst_root=0 dst_id=7 dst_level=1 dst_path=/late pid=200 comm=w
            bash-100   [000] d..2.   6.000000: sched_switch: prev_comm=bash prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=w next_pid=200 next_prio=120
";
        let (store, _) = import_text(text.as_bytes());
        let cg = task_cgroups(&store, None);
        let i = store.tasks.iter().position(|t| t.pid == 200).unwrap();
        assert_eq!(cg[i].as_deref(), Some("/late"));
    }
}
