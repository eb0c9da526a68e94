//! `sched_migrate_task` records: which code wrote each one, read from its context
//! (`MigrateHow`: `sched_exec()`'s stopper, an idle CPU's balance, a newidle pull decided at the
//! CPU's next switch, or anything else).

use super::{Observed, NEWIDLE_SWITCH_NS};

/// How soon after a task's `sched_migrate_task` its `sched_wakeup` from the same context shows
/// the move was the wakeup's: one `try_to_wake_up()` writes both, microseconds apart (3 µs in
/// `linux-6.18-smp/pipe-pair-and-hog` at +1,261 ms).
pub const WAKEUP_MIGRATION_NS: u64 = 20_000;
use crate::import::record::{trace_flags, SchedPayload, TraceRecord};
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
        // `sched_balance_newidle()` runs in `__schedule()` with interrupts off, never in an
        // interrupt: a pull written in softirq context is a busy CPU's periodic balance.
        let task_context = rec.flags.is_some_and(|f| f & (trace_flags::HARDIRQ | trace_flags::SOFTIRQ) == 0);
        if how == MigrateHow::Other && to == rec.cpu && task_context {
            // Perhaps a newidle pull: decided at this CPU's next switch.
            let pending = &mut self.newidle_pending[rec.cpu as usize];
            match pending {
                Some((pid, at, first)) if *pid == rec.pid && ts.saturating_sub(*first) <= NEWIDLE_SWITCH_NS => {
                    at.push(self.events.len())
                }
                _ => *pending = Some((rec.pid, vec![self.events.len()], ts)),
            }
        }
        self.events.push(Timed { ts, ev: ObsEvent::Migrate { task: i, to, by: rec.cpu, how } });
    }

    /// A `sched_wakeup` of `task` written right after a `sched_migrate_task` of it by the same
    /// context (within [`WAKEUP_MIGRATION_NS`]): that move was `try_to_wake_up()`'s
    /// `set_task_cpu()`, so the kernel had the task off its runqueue (a delayed task is requeued
    /// where it is, `ttwu_runnable()`), whatever the model holds.
    pub(super) fn wakeup_migration(&mut self, ts: u64, task: u32, rec: &TraceRecord) {
        // The wakeup's `update_curr()` (a `sched_stat_runtime`) may come between.
        let last = self.events.iter_mut().rev().find(|e| !matches!(e.ev, ObsEvent::Runtime { .. }));
        let Some(Timed { ts: at, ev: ObsEvent::Migrate { task: moved, by, how, .. } }) = last else {
            return;
        };
        if *moved == task
            && *by == rec.cpu
            && *how == MigrateHow::Other
            && ts.saturating_sub(*at) <= WAKEUP_MIGRATION_NS
        {
            *how = MigrateHow::Wakeup;
        }
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
            if let ObsEvent::Migrate { how: how @ MigrateHow::Other, .. } = &mut self.events[i].ev {
                *how = MigrateHow::Newidle;
            }
        }
    }
}

/// The CPU whose stopper thread (`migration/N`) `comm` names.
pub(super) fn stopper_cpu(comm: &str) -> Option<u32> {
    comm.strip_prefix("migration/")?.parse().ok()
}
