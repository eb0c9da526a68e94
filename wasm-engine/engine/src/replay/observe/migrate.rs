//! `sched_migrate_task` records: which code wrote each one, read from its context
//! (`MigrateHow`: `sched_exec()`'s stopper, an idle CPU's balance, a newidle pull decided at the
//! CPU's next switch, or anything else).

use super::{Observed, NEWIDLE_SWITCH_NS};
use crate::import::record::{SchedPayload, TraceRecord};
use crate::replay::decisions::{MigrateHow, ObsEvent, Timed};

impl Observed {
    /// A `sched_migrate_task` record. One written by the CPU's stopper for the task that woke
    /// it from its own context is `sched_exec()`'s move (`migration_cpu_stop()`); an active
    /// balance's stopper is woken from the balancing CPU.
    pub(super) fn migrate(&mut self, ts: u64, p: &SchedPayload, rec: &TraceRecord) {
        let SchedPayload::MigrateTask { comm, pid, prio, dest_cpu, .. } = p else { return };
        let i = self.task(*pid, comm, *prio, ts) as u32;
        let by_stopper = stopper_cpu(&rec.comm) == Some(rec.cpu);
        let woke = self.stopper_woken_by.get_mut(rec.cpu as usize).and_then(|s| s.take());
        let how = if by_stopper && woke == Some(i) {
            MigrateHow::Exec
        } else if rec.pid == 0 {
            MigrateHow::Idle
        } else {
            MigrateHow::Other
        };
        let Some(to) = self.named_cpu(*dest_cpu) else { return };
        if how == MigrateHow::Other && to == rec.cpu {
            // Perhaps a newidle pull: decided at this CPU's next switch.
            let pending = &mut self.newidle_pending[rec.cpu as usize];
            match pending {
                Some((pid, at, _)) if *pid == rec.pid => at.push(self.events.len()),
                _ => *pending = Some((rec.pid, vec![self.events.len()], ts)),
            }
        }
        self.events.push(Timed { ts, ev: ObsEvent::Migrate { task: i, to, by: rec.cpu, how } });
    }

    /// At a `sched_switch` on `cpu` of the task with `prev_pid`: the migrations onto `cpu` its
    /// context wrote just before were `sched_balance_newidle()`'s if it blocks now.
    pub(super) fn newidle_switch(&mut self, cpu: u32, ts: u64, prev_pid: i32, blocks: bool) {
        let Some((pid, at, first)) = self.newidle_pending.get_mut(cpu as usize).and_then(Option::take) else {
            return;
        };
        if pid != prev_pid || !blocks || ts.saturating_sub(first) > NEWIDLE_SWITCH_NS {
            return;
        }
        for i in at {
            if let ObsEvent::Migrate { how, .. } = &mut self.events[i].ev {
                *how = MigrateHow::Newidle;
            }
        }
    }
}

/// The CPU whose stopper thread (`migration/N`) `comm` names.
pub(super) fn stopper_cpu(comm: &str) -> Option<u32> {
    comm.strip_prefix("migration/")?.parse().ok()
}
