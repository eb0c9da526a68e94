//! Moving queued tasks between CPUs (Linux 6.18 fair.c and core.c): `can_migrate_task()`
//! with `task_hot()` and `task_is_ineligible_on_dst_cpu()`, `detach_task()`
//! (`deactivate_task()`: a non-sleep dequeue, so the lag is saved and PLACE_REL_DEADLINE
//! keeps the deadline relative; PELT `DO_DETACH`), `set_task_cpu()` →
//! `migrate_task_rq_fair()`, `attach_task()` (`activate_task()` with ENQUEUE_MIGRATED:
//! `place_entity()` with the saved lag, PELT attach, `exec_start = 0`; then
//! `wakeup_preempt()`), `detach_tasks()`, `attach_tasks()` and `detach_one_task()`.
//!
//! A delayed (DELAY_DEQUEUE) task moves only for `migrate_load`, as 6.18's
//! `can_migrate_task()` says, and stays delayed on its new CPU (not runnable there; its
//! `h_nr_runnable` share was already taken away): the engine clears the mark for the
//! non-sleep dequeue and sets it again after the enqueue, which leaves the counters where
//! the kernel's `dequeue_entities()`/`enqueue_task_fair()` leave them; only the PELT update
//! at the dequeue sees it runnable (a named shortcut).

use super::super::fair::{Fair, ENQUEUE_MIGRATED};
use super::super::topology::SD_SHARE_CPUCAPACITY;
use super::super::wakeup::SYSCTL_SCHED_MIGRATION_COST_NS;
use super::{
    CpuIdle, LbEnv, MigrationType, Reject, LBF_ACTIVE_LB, LBF_ALL_PINNED, LBF_DST_PINNED, LBF_NEED_BREAK,
    LBF_SOME_PINNED, SCHED_NR_MIGRATE_BREAK,
};
use crate::obs::codes::MigrateClass;
use crate::obs::log::EventKind;

/// `shr_bound()`: `val >> shift`, the shift capped at the word size minus one.
fn shr_bound(val: u64, shift: u32) -> u64 {
    val >> shift.min(63)
}

impl Fair {
    /// The tasks queued on `cpu` (running one included), `cfs_tasks` from its tail.
    pub(super) fn cfs_tasks_from_tail(&self, cpu: u32) -> Vec<u32> {
        let smp = self.smp();
        let mut v: Vec<u32> = (0..smp.tasks.len() as u32)
            .filter(|&t| {
                let e = &self.ents[t as usize];
                e.on_rq && self.qs[e.cfs_rq as usize].cpu == cpu
            })
            .collect();
        v.sort_by_key(|&t| smp.lb.cfs_seq[t as usize]);
        v
    }

    /// `task_hot()`.
    fn task_hot(&self, env: &LbEnv, task: u32) -> bool {
        let e = &self.ents[task as usize];
        if e.idle {
            return false;
        }
        let sd = &self.smp().topo.cpus[env.sd_cpu as usize].domains[env.level];
        if sd.flags & SD_SHARE_CPUCAPACITY != 0 {
            return false;
        }
        if self.feat.cache_hot_buddy
            && self.rqs[env.dst_cpu as usize].nr_running > 0
            && self.qs[e.cfs_rq as usize].next == Some(task)
        {
            return true;
        }
        (self.now as i64 - e.exec_start as i64) < SYSCTL_SCHED_MIGRATION_COST_NS as i64
    }

    /// `task_is_ineligible_on_dst_cpu()`.
    fn task_is_ineligible_on_dst_cpu(&self, task: u32, dst: u32) -> bool {
        let q = self.ents[task as usize].cfs_rq;
        let tg = self.qs[q as usize].tg;
        let dst_q = self.tgs[tg as usize].cfs_rq[dst as usize];
        self.feat.place_lag
            && self.qs[dst_q as usize].nr_queued > 0
            && !self.qs[q as usize].entity_eligible(&self.ents, task)
    }

    /// `can_migrate_task()`; the rejection reason is kept in `env.reject`.
    fn can_migrate_task(&mut self, env: &mut LbEnv, task: u32) -> bool {
        let e = &self.ents[task as usize];
        if e.sched_delayed && env.migration_type != MigrationType::Load {
            env.reject = Reject::Delayed;
            return false;
        }
        let tg = self.qs[e.cfs_rq as usize].tg;
        if self.qs[self.tgs[tg as usize].cfs_rq[env.dst_cpu as usize] as usize].throttle_count > 0 {
            env.reject = Reject::Pinned;
            return false;
        }
        let failed = self.smp().topo.cpus[env.sd_cpu as usize].domains[env.level].nr_balance_failed;
        if failed == 0 && self.task_is_ineligible_on_dst_cpu(task, env.dst_cpu) {
            env.reject = Reject::Ineligible;
            return false;
        }
        let allowed = self.smp().tasks[task as usize].allowed;
        if !allowed.contains(env.dst_cpu as usize) {
            env.flags |= LBF_SOME_PINNED;
            env.reject = Reject::Pinned;
            if env.idle == CpuIdle::NewlyIdle || env.flags & (LBF_DST_PINNED | LBF_ACTIVE_LB) != 0 {
                return false;
            }
            if let Some(c) = env.dst_grpmask.and(env.cpus).and(allowed).first() {
                env.flags |= LBF_DST_PINNED;
                env.new_dst_cpu = c as u32;
            }
            return false;
        }
        env.flags &= !LBF_ALL_PINNED;
        if self.rqs[env.src_cpu as usize].curr == Some(task) {
            env.reject = Reject::Running;
            return false;
        }
        if env.flags & LBF_ACTIVE_LB != 0 {
            return true;
        }
        let cache_nice_tries = self.smp().topo.cpus[env.sd_cpu as usize].domains[env.level].cache_nice_tries;
        if !self.task_hot(env, task) || failed > cache_nice_tries {
            return true;
        }
        env.reject = Reject::Hot;
        false
    }

    /// `detach_task()`: `deactivate_task()` then `set_task_cpu()`.
    pub(super) fn detach_task(&mut self, task: u32, dst: u32, class: MigrateClass) {
        let se = task;
        let delayed = self.ents[se as usize].sched_delayed;
        if delayed {
            // The kernel dequeues a delayed task as it is: `dequeue_entity()`'s
            // `update_load_avg()` runs while `sched_delayed` is set, so `se_runnable()` is 0 for
            // the time since its last update, and the levels above do not count it runnable
            // (`dequeue_entities()` leaves their `h_nr_runnable` alone). Here the entity is
            // un-delayed to be dequeued like any queued task, so every level is brought up to
            // now first, while it is still delayed: the dequeue then ages nothing.
            let mut cur = Some(se);
            while let Some(s) = cur {
                self.update_load_avg(self.ents[s as usize].cfs_rq, s, 0);
                cur = self.ents[s as usize].parent;
            }
            self.mark_delayed(se, false);
        }
        self.smp.as_deref_mut().expect("smp").lb.migrating = Some(se);
        self.dequeue_task(se, 0);
        self.smp.as_deref_mut().expect("smp").lb.migrating = None;
        if delayed {
            // Still delayed, off every queue for the instant of the move.
            self.ents[se as usize].sched_delayed = true;
        }
        self.set_task_cpu(task, dst, class);
    }

    /// `set_task_cpu()` → `migrate_task_rq_fair()` for a task being migrated: the Migrate row,
    /// the task's cfs_rq on the new CPU, `se->avg.last_update_time = 0` (it attaches there).
    pub(crate) fn set_task_cpu(&mut self, task: u32, dst: u32, class: MigrateClass) {
        let se = task;
        let src = self.qs[self.ents[se as usize].cfs_rq as usize].cpu;
        self.log.event(self.now, EventKind::Migrate, dst, task, class as u32, src as i64);
        self.ents[se as usize].avg.last_update_time = 0;
        let tg = self.qs[self.ents[se as usize].cfs_rq as usize].tg;
        self.set_task_rq(se, tg, dst);
        self.smp.as_deref_mut().expect("smp").lb.moved.push((task, dst));
    }

    /// `move_queued_task()` (core.c): a queued task (the stopper has put it back on its
    /// queue) detached and attached on `dst`, as `migration_cpu_stop()` does for
    /// `sched_exec()`.
    pub fn move_queued_task(&mut self, task: u32, dst: u32, class: MigrateClass) {
        self.detach_task(task, dst, class);
        self.attach_task(dst, task);
    }

    /// `attach_task()`: `activate_task()` (ENQUEUE_MIGRATED) and `wakeup_preempt(rq, p, 0)`.
    pub(super) fn attach_task(&mut self, dst: u32, task: u32) {
        let se = task;
        let delayed = self.ents[se as usize].sched_delayed;
        if delayed {
            self.ents[se as usize].sched_delayed = false;
        }
        self.enqueue_task(se, ENQUEUE_MIGRATED);
        if delayed {
            self.mark_delayed(se, true);
            return;
        }
        let normal = self.smp().lb.normal[task as usize];
        self.check_preempt_wakeup_fair(dst, se, 0, normal);
    }

    /// `detach_tasks()`: detach up to the imbalance from `env.src_cpu`; returns how many.
    pub(super) fn detach_tasks(&mut self, env: &mut LbEnv) -> u32 {
        if self.rqs[env.src_cpu as usize].nr_running <= 1 {
            env.flags &= !LBF_ALL_PINNED;
            return 0;
        }
        if env.imbalance <= 0 {
            return 0;
        }
        let mut detached = 0;
        let failed = self.smp().topo.cpus[env.sd_cpu as usize].domains[env.level].nr_balance_failed;
        for p in self.cfs_tasks_from_tail(env.src_cpu) {
            if env.idle.any() && self.rqs[env.src_cpu as usize].nr_running <= 1 {
                break;
            }
            env.loop_ += 1;
            if env.loop_ > env.loop_max {
                break;
            }
            if env.loop_ > env.loop_break {
                env.loop_break += SCHED_NR_MIGRATE_BREAK;
                env.flags |= LBF_NEED_BREAK;
                break;
            }
            let ok = self.can_migrate_task(env, p) && {
                match env.migration_type {
                    MigrationType::Load => {
                        let load = self.task_h_load(p).max(1);
                        if self.feat.lb_min && load < 16 && failed == 0 {
                            env.reject = Reject::LbMin;
                            false
                        } else if shr_bound(load, failed) as i64 > env.imbalance {
                            env.reject = Reject::TooBig;
                            false
                        } else {
                            env.imbalance -= load as i64;
                            true
                        }
                    }
                    MigrationType::Util => {
                        let util = self.ents[p as usize].avg.util_avg;
                        if shr_bound(util, failed) as i64 > env.imbalance {
                            env.reject = Reject::TooBig;
                            false
                        } else {
                            env.imbalance -= util as i64;
                            true
                        }
                    }
                    MigrationType::Task => {
                        env.imbalance -= 1;
                        true
                    }
                    MigrationType::Misfit => false,
                }
            };
            if !ok {
                // list_move() to the head of the source's cfs_tasks.
                self.cfs_tasks_head(p);
                continue;
            }
            self.detach_task(p, env.dst_cpu, env.class);
            env.tasks.push(p);
            detached += 1;
            // CONFIG_PREEMPTION (PREEMPT_DYNAMIC on our machine): newidle stops at one task.
            if env.idle == CpuIdle::NewlyIdle || env.imbalance <= 0 {
                break;
            }
        }
        detached
    }

    /// `attach_tasks()`: in the order detached.
    pub(super) fn attach_tasks(&mut self, env: &mut LbEnv) {
        for p in std::mem::take(&mut env.tasks) {
            self.attach_task(env.dst_cpu, p);
        }
    }

    /// `detach_one_task()` (active balancing): the first migratable task from the tail.
    pub(super) fn detach_one_task(&mut self, env: &mut LbEnv) -> Option<u32> {
        for p in self.cfs_tasks_from_tail(env.src_cpu) {
            if !self.can_migrate_task(env, p) {
                continue;
            }
            self.detach_task(p, env.dst_cpu, MigrateClass::Active);
            return Some(p);
        }
        None
    }
}
