//! This machine's build, not 6.18.y stable: the vendor wake-placement block of our
//! 6.18.44-fc kernel's `select_task_rq_fair()` and its helper `vcpu_pack_room()`, decoded from
//! the live kernel text (`docs/kernel-6.18.44-findings.md`, "The vendor wake placement").
//! 6.18.26 has neither.
//!
//! The block runs first in `select_task_rq_fair()`, for every task allowed on more than one
//! CPU (it does not look at `PF_VCPU`: "vcpu" is the guest's own vCPUs, which it packs so
//! that the host can idle the others). Its mode is the boot parameter `sched_vcpu_pack=`
//! (15 on the machine: every bit set), a bit per rule:
//! * 1 ([`PACK_IDLE_WAKER`]): a wakeup run by an idle CPU's idle task (a timer or interrupt
//!   there) puts the wakee on that CPU when nothing is queued on it;
//! * 2 ([`PACK_SYNC`]): a WF_SYNC wakeup puts the wakee on the waker's CPU if it has room;
//! * 4 ([`PACK_WAKE`]): any other wakeup: the previous CPU if it is busy and has room, else
//!   the waker's CPU if it has room, else the lowest-numbered busy CPU that has room;
//! * 8 ([`PACK_FORK`]): a fork or exec stays on the parent's CPU if it has room.
//!
//! When no rule places the task, stable's code runs unchanged. Selected by `vcpu_pack`
//! (`"machine"`, the default, = 15; `"6.18"` = 0, stable's behaviour).

use super::entity::EntityId;
use super::fair::Fair;
use super::wakeup::{WF_EXEC, WF_FORK, WF_SYNC, WF_TTWU};

/// `sched_vcpu_pack=` bit 0: wake onto the idle CPU whose idle task runs the wakeup.
pub const PACK_IDLE_WAKER: u32 = 1;
/// Bit 1: a sync wakeup goes to the waker's CPU if it has room.
pub const PACK_SYNC: u32 = 2;
/// Bit 2: a wakeup goes to a busy CPU with room (previous, waker's, then the lowest).
pub const PACK_WAKE: u32 = 4;
/// Bit 3: a fork or exec stays on the parent's CPU if it has room.
pub const PACK_FORK: u32 = 8;
/// `sched_vcpu_pack=15` on the machine's `/proc/cmdline`; the variable (at
/// 0xffffffff83260870 in this build) reads 15.
pub const SCHED_VCPU_PACK_MACHINE: u32 = 15;

impl Fair {
    /// `vcpu_pack_room(p, cpu)` of this build (not in 6.18.y stable; 224 bytes at
    /// 0xffffffff813acee0 on 6.18.44-fc-v669): `cpu` is allowed, has no wakeup pending
    /// (`ttwu_pending`: never, in the engine), runs fair tasks only (`nr_running ==
    /// cfs.h_nr_queued`), has at most one runnable fair task besides `p`, and its CFS
    /// utilization, with `p`'s added when `p` last ran elsewhere, stays under 70 % of its
    /// capacity: `(cpu_util_cfs(cpu) + task_util_est(p)) * 100 < capacity_of(cpu) * 70`.
    /// `task_cpu` is `task_cpu(p)` (the previous CPU of a waking task, the parent's of a
    /// fork).
    pub fn vcpu_pack_room(&self, task: u32, task_cpu: u32, cpu: u32) -> bool {
        self.smp().tasks[task as usize].allowed.contains(cpu as usize) && self.pack_room_allowed(task, task_cpu, cpu)
    }

    /// `vcpu_pack_room()` past its affinity test (`cpu` is allowed).
    #[inline]
    fn pack_room_allowed(&self, task: u32, task_cpu: u32, cpu: u32) -> bool {
        let se = task as EntityId;
        let me = (self.ents[se as usize].on_rq && cpu == task_cpu) as u32;
        let rq = &self.rqs[cpu as usize];
        let root = &self.qs[rq.cfs as usize];
        if rq.nr_running != root.h_nr_queued || root.h_nr_runnable > 1 + me {
            return false;
        }
        let mut util = self.cpu_util_cfs(cpu);
        if cpu != task_cpu {
            // task_util_est(p): max(util_avg, util_est); the engine has no util_est.
            util += self.ents[se as usize].avg.util_avg;
        }
        util * 100 < self.capacity_of(cpu) * 70
    }

    /// The vendor block at the top of this build's `select_task_rq_fair()` (after the sync
    /// flag and `smp_processor_id()` are read, before `record_wakee()`): the CPU it places
    /// the task on, or None for stable's code to run. `mode` is `sched_vcpu_pack`; the
    /// caller has already returned for a task allowed on one CPU.
    pub fn select_task_rq_vcpu_pack(
        &self,
        mode: u32,
        task: u32,
        prev_cpu: u32,
        wake_flags: u32,
        this_cpu: u32,
        waker: Option<u32>,
    ) -> Option<u32> {
        if mode == 0 {
            return None;
        }
        if wake_flags & (WF_FORK | WF_EXEC) != 0 {
            return (mode & PACK_FORK != 0 && self.vcpu_pack_room(task, prev_cpu, this_cpu)).then_some(this_cpu);
        }
        if wake_flags & WF_TTWU == 0 {
            return None;
        }
        // `current->flags & PF_IDLE`: the wakeup runs in the idle task of `this_cpu`.
        if mode & PACK_IDLE_WAKER != 0
            && waker.is_none()
            && self.rqs[this_cpu as usize].nr_running == 0
            && self.smp().tasks[task as usize].allowed.contains(this_cpu as usize)
        {
            return Some(this_cpu);
        }
        if mode & PACK_SYNC != 0 && wake_flags & WF_SYNC != 0 && self.vcpu_pack_room(task, prev_cpu, this_cpu) {
            return Some(this_cpu);
        }
        if mode & PACK_WAKE != 0 {
            if !self.idle_cpu(prev_cpu) && self.vcpu_pack_room(task, prev_cpu, prev_cpu) {
                return Some(prev_cpu);
            }
            // The waker's CPU is not required to be busy.
            if self.vcpu_pack_room(task, prev_cpu, this_cpu) {
                return Some(this_cpu);
            }
            // for_each_cpu_and(cpu, cpu_active_mask, p->cpus_ptr), lowest first.
            let allowed = &self.smp().tasks[task as usize].allowed;
            for cpu in allowed.iter().map(|c| c as u32).filter(|&c| (c as usize) < self.rqs.len()) {
                if !self.idle_cpu(cpu) && self.pack_room_allowed(task, prev_cpu, cpu) {
                    return Some(cpu);
                }
            }
        }
        None
    }
}
