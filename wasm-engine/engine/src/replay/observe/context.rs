//! The two context events the capture tool records beside the sched tracepoints: the CFS
//! bandwidth period timer's expiry (`hrtimer_expire_entry` of `sched_cfs_period_timer`) and a
//! task's move into a cgroup (`cgroup_attach_task`). Neither says anything about the running
//! task; each becomes one `ObsEvent` for the per-decision replay.

use super::{Observed, ShadowOp};
use crate::import::record::{SchedPayload, TraceRecord};
use crate::replay::decisions::{ObsEvent, Timed};

impl Observed {
    /// `cgroup_attach_task`: a task moved into a cgroup (by itself or another task writing its
    /// pid to `tasks`/`cgroup.procs`). A pid the trace has not named yet is not a task here.
    pub(super) fn cgroup_attach(&mut self, ts: u64, rec: &TraceRecord) {
        let SchedPayload::Other { fields, .. } = &rec.payload else { return };
        let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        let (Some(pid), Some(path)) = (field("pid").and_then(|p| p.parse::<i32>().ok()), field("dst_path")) else {
            return;
        };
        let Some(&task) = self.by_pid.get(&pid) else { return };
        let path = match self.cgroup_paths.iter().position(|p| p == path) {
            Some(i) => i,
            None => {
                self.cgroup_paths.push(path.to_string());
                self.cgroup_paths.len() - 1
            }
        } as u32;
        self.events.push(Timed { ts, ev: ObsEvent::CgroupMove { task, path } });
        // The shadow's step: the burst so far ends here when it is running (as at a causal
        // wakeup), then the move.
        let line = self.line;
        let t = &mut self.tasks[task as usize];
        if t.on_cpu.is_some() {
            t.burst_to(ts, line);
        }
        t.push(ShadowOp::Cgroup(path), line);
    }
}

/// The hrtimer of a CFS bandwidth period timer's expiry: an `hrtimer_expire_entry` whose
/// `function` is `sched_cfs_period_timer` (tracefs prints `function=sched_cfs_period_timer`,
/// `trace-cmd report` `function=sched_cfs_period_timer/0x0`, the `.dat` decoder the symbol
/// from the file's kallsyms). The hrtimer's address, hashed or not, names the task group's
/// timer (0 when it does not parse).
pub(super) fn bandwidth_timer(rec: &TraceRecord) -> Option<u64> {
    if rec.event != "hrtimer_expire_entry" {
        return None;
    }
    let SchedPayload::Other { fields, .. } = &rec.payload else { return None };
    let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    let function = field("function")?;
    let symbol = function.split(['+', '/']).next().unwrap_or(function);
    if symbol != "sched_cfs_period_timer" {
        return None;
    }
    let hrtimer = field("hrtimer").unwrap_or("0");
    let hex = hrtimer.strip_prefix("0x").unwrap_or(hrtimer);
    Some(u64::from_str_radix(hex, 16).unwrap_or(0))
}
