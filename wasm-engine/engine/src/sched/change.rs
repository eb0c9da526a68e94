//! Changing a task in place while it may be queued or running: the `DEQUEUE_SAVE` …
//! `ENQUEUE_RESTORE` pattern of kernel/sched (Linux 6.18): `set_user_nice()`
//! (kernel/sched/syscalls.c) with `reweight_task_fair()` → `reweight_entity()`, and
//! `sched_move_task()` (kernel/sched/core.c), which autogroups use when a task exits.
//!
//! The pattern: a queued task is dequeued (`DEQUEUE_SAVE`: no delayed dequeue, vlag saved,
//! deadline made relative), a running one is put (`put_prev_task()`); the change is made; the
//! task is enqueued again (`ENQUEUE_RESTORE`: placed with its saved lag) and set running again
//! with `set_next_task()`, i.e. `set_next_entity(first = false)`: no `set_protect_slice()`, so
//! the vlag/vprot union keeps the vlag just restored.
//!
//! * `nice -n 7 prog` forks at the parent's nice and calls `setpriority()` before it execs, so
//!   the task runs its first microseconds at the old weight and is then re-weighed with its lag
//!   kept in real terms (vlag and the relative deadline scaled by old/new weight).
//! * A task of an autogroup that exits is moved to the root task group before its last switch
//!   (`do_exit()` → `sched_autogroup_exit_task()` → `sched_move_task()`, after the
//!   `sched_process_exit` tracepoint and before `exit_notify()` wakes its parent): it leaves its
//!   group's average with its lag and finishes on the root cfs_rq.

use super::entity::EntityId;
use super::fair::{Fair, DEQUEUE_DELAYED, DEQUEUE_SLEEP};
use super::weight::LoadWeight;

/// `DEQUEUE_SAVE` (| `DEQUEUE_MOVE`): in the model's flags, a dequeue that is neither a sleep
/// nor special.
const DEQUEUE_SAVE: u32 = 0;
/// `ENQUEUE_RESTORE` (| `ENQUEUE_MOVE`): in the model's flags, an enqueue that is neither a
/// wakeup nor initial.
const ENQUEUE_RESTORE: u32 = 0;

/// Whether a task group is an autogroup: the engine names them as the kernel's
/// `/proc/PID/autogroup` does, `/autogroup-N` (see `SimConfig`'s autogroups and the replay's
/// layout files).
pub fn is_autogroup(path: &str) -> bool {
    path.starts_with("/autogroup-")
}

impl Fair {
    /// The save/restore around `change` of task entity `se` (see the module docs).
    ///
    /// Named shortcut: a delayed entity (asleep, kept queued by DELAY_DEQUEUE) has its delayed
    /// dequeue finished first and is then changed asleep; the kernel keeps it queued.
    fn change_task(&mut self, se: EntityId, change: impl FnOnce(&mut Fair)) {
        let cpu = self.qs[self.ents[se as usize].cfs_rq as usize].cpu;
        if self.ents[se as usize].sched_delayed {
            self.dequeue_task(se, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
        }
        let queued = self.ents[se as usize].on_rq;
        let running = self.rqs[cpu as usize].curr == Some(se);
        if queued {
            self.dequeue_task(se, DEQUEUE_SAVE);
        }
        if running {
            // put_prev_task(): the whole chain is put.
            self.force_next(cpu, None);
        }
        change(self);
        if queued {
            self.enqueue_task(se, ENQUEUE_RESTORE);
        }
        if running {
            // set_next_task() → set_next_entity(first = false) at every level.
            self.force_next(cpu, Some(se));
            let e = &mut self.ents[se as usize];
            e.vprot = e.vlag as u64;
        }
    }

    /// Models `set_user_nice()` for a SCHED_NORMAL task entity `se`: the weight becomes that of
    /// `nice`. The `prio_changed_fair()` resched that follows is left to the caller.
    pub fn set_user_nice(&mut self, se: EntityId, nice: i32) {
        let lw = LoadWeight::for_nice(nice);
        if self.ents[se as usize].load.weight != lw.weight {
            self.change_task(se, |f| f.reweight_task_fair(se, lw));
        }
    }

    /// Models `reweight_task_fair()` → `reweight_entity()` on a task that is not queued (as
    /// `set_user_nice()` calls it): vlag = V − v is kept as virtual time, so it is scaled by
    /// old/new weight to keep the lag w·(V − v); a relative deadline likewise.
    pub fn reweight_task_fair(&mut self, se: EntityId, lw: LoadWeight) {
        let e = &mut self.ents[se as usize];
        debug_assert!(!e.on_rq, "set_user_nice() dequeues before it re-weighs");
        let (old, new) = (e.load.weight as i128, lw.weight as i128);
        // div_s64(): truncates towards zero, as i128 division does.
        e.vlag = (e.vlag as i128 * old / new) as i64;
        if e.rel_deadline {
            e.deadline = ((e.deadline as i64) as i128 * old / new) as i64 as u64;
        }
        let q = e.cfs_rq;
        self.reweight_load_avg(q, se, |f| f.ents[se as usize].load = lw);
    }

    /// Models `sched_move_task()`: task entity `se` moves to task group `tg` on its CPU
    /// (`sched_change_group()` → `set_task_rq()`); its lag goes with it. The resched that
    /// follows for a running task is left to the caller.
    pub fn sched_move_task(&mut self, se: EntityId, tg: u32) {
        let cpu = self.qs[self.ents[se as usize].cfs_rq as usize].cpu;
        self.change_task(se, |f| f.set_task_rq(se, tg, cpu));
    }
}

#[cfg(test)]
mod tests {
    use crate::sched::entity::{vdiff, SchedEntity};
    use crate::sched::fair::{Fair, SchedParams, ENQUEUE_INITIAL};
    use crate::sched::features::SchedFeatures;
    use crate::sched::weight::LoadWeight;

    fn host(weights: &[LoadWeight]) -> Fair {
        let mut f = Fair::new(
            1,
            SchedFeatures::default(),
            SchedParams {
                base_slice: 1_400_000,
                normalized_base_slice: 700_000,
                tick_nsec: 4_000_000,
                tick_phase: 0,
                yield_flavour: crate::sched::fair::YieldFlavour::Forfeit,
                lag_clamp: crate::sched::fair::LagClamp::MaxSliceTick,
                yield_interval_ns: 0,
                debooster_rate_limit: false,
                yield_to: crate::sched::yield_to::YieldToFlavour::Mainline,
                wakeup_preempt: crate::sched::wakeup::WakeupPreempt::Machine,
                vcpu_pack: crate::sched::select_vendor::SCHED_VCPU_PACK_MACHINE,
            },
        );
        for (i, &lw) in weights.iter().enumerate() {
            f.ents.push(SchedEntity::new_task(i as u32, lw, 1_400_000, false, 0, false));
        }
        f
    }

    /// `set_user_nice()` on the running task: its lag is kept in real terms (vlag scaled by
    /// old/new weight), its relative deadline likewise, and the protection is gone (vprot
    /// holds the restored vlag).
    #[test]
    fn set_user_nice_keeps_the_lag_of_a_running_task_in_real_terms() {
        let mut f = host(&[LoadWeight::for_nice(0), LoadWeight::for_nice(0)]);
        f.enqueue_task(0, ENQUEUE_INITIAL);
        f.enqueue_task(1, ENQUEUE_INITIAL);
        f.force_next(0, Some(1));
        // Task 1 runs 0.8 ms at nice 0, then calls setpriority(7).
        f.now = 800_000;
        f.set_user_nice(1, 7);
        let e = &f.ents[1];
        assert_eq!(e.load, LoadWeight::for_nice(7));
        assert_eq!(f.rqs[0].curr, Some(1));
        let v = f.qs[0].peek_avg_vruntime(&f.ents);
        // At nice 0 it was 0.8 ms past task 0, V halfway: lag −0.4 ms. Kept as w·(V − v), that
        // is −0.4 ms × 1024/215 of virtual time at weight 215 (place_entity()'s (W + w)/W
        // inflation is undone by the task's own weight joining V).
        let lag = vdiff(v, e.vruntime);
        assert!((lag - -400_000 * 1024 / 215).abs() <= 2, "lag {lag}");
        // The deadline, renewed by update_curr() at 0.8 ms to 1.4 ms ahead, likewise.
        let rel = vdiff(e.deadline, e.vruntime);
        assert!((rel - 1_400_000 * 1024 / 215).abs() <= 2, "deadline − vruntime {rel}");
        assert!(!crate::sched::fair::protect_slice(e), "set_next_entity(first = false) sets no protection");
    }

    /// `reweight_task_fair()` on a sleeping task scales its saved lag only.
    #[test]
    fn reweight_task_fair_scales_the_saved_lag_of_a_sleeper() {
        let mut f = host(&[LoadWeight::for_nice(0)]);
        f.ents[0].vlag = -1_000_000;
        f.set_user_nice(0, 3);
        assert_eq!(f.ents[0].vlag, -1_000_000 * 1024 / 526);
        assert_eq!(f.ents[0].load, LoadWeight::for_nice(3));
    }
}
