//! One balance pass (Linux 6.18 fair.c): `sched_balance_rq()` with `should_we_balance()`,
//! the LBF_DST_PINNED retry, LBF_ALL_PINNED, `nr_balance_failed` and `balance_interval`
//! updates, and `need_active_balance()`; the stopper's `active_load_balance_cpu_stop()`
//! (queued here, run by the simulation: `Fair::active_load_balance_cpu_stop`).

use super::super::fair::Fair;
use super::{
    CpuIdle, GroupType, LbEnv, MigrationType, Reject, LBF_ACTIVE_LB, LBF_ALL_PINNED, LBF_DST_PINNED, LBF_NEED_BREAK,
    MAX_PINNED_INTERVAL, SCHED_NR_MIGRATE_BREAK,
};
use crate::obs::codes::{BalanceOutcome, MigrateClass};

impl Fair {
    /// `should_we_balance()` (no SMT: the first idle CPU of the local group's balance mask,
    /// else its first CPU).
    fn should_we_balance(&self, env: &LbEnv) -> bool {
        if !env.cpus.contains(env.dst_cpu as usize) {
            return false;
        }
        if env.idle == CpuIdle::NewlyIdle {
            return self.rqs[env.dst_cpu as usize].nr_running == 0;
        }
        let sg = &self.smp().topo.cpus[env.sd_cpu as usize].domains[env.level].groups[0];
        if let Some(c) = sg.balance_mask.and(env.cpus).iter().find(|&c| self.idle_cpu(c as u32)) {
            return c as u32 == env.dst_cpu;
        }
        sg.balance_mask.first() == Some(env.dst_cpu as usize)
    }

    /// `need_active_balance()` (no asym packing, no reduced capacity, no misfit).
    fn need_active_balance(&self, env: &LbEnv) -> bool {
        let sd = &self.smp().topo.cpus[env.sd_cpu as usize].domains[env.level];
        env.migration_type == MigrationType::Task && sd.nr_balance_failed > sd.cache_nice_tries + 2
    }

    /// `sched_balance_rq()`: balance `cpu` within its domain at `level`; returns the number of
    /// tasks moved.
    pub(super) fn sched_balance_rq(
        &mut self,
        cpu: u32,
        level: usize,
        idle: CpuIdle,
        continue_balancing: &mut bool,
    ) -> u32 {
        let nohz = self.smp().lb.nohz_pass;
        let (span, grpmask, has_parent) = {
            let cd = &self.smp().topo.cpus[cpu as usize];
            let sd = &cd.domains[level];
            (sd.span, sd.groups[0].balance_mask, level + 1 < cd.domains.len())
        };
        let _ = has_parent; // sgc->imbalance is not modelled (module doc).
        let mut env = LbEnv {
            sd_cpu: cpu,
            level,
            src_cpu: cpu,
            dst_cpu: cpu,
            dst_grpmask: grpmask,
            new_dst_cpu: cpu,
            idle,
            imbalance: 0,
            cpus: span,
            flags: 0,
            loop_: 0,
            loop_break: SCHED_NR_MIGRATE_BREAK,
            loop_max: 0,
            migration_type: MigrationType::Load,
            tasks: Vec::new(),
            class: Self::class_of(idle, nohz),
            reject: Reject::None,
        };
        let mut ld_moved = 0;
        let mut active = false;
        let mut group_type = GroupType::HasSpare;
        let mut src: Option<u32> = None;
        // 0: balanced, 1: all pinned, 2: one pinned, 3: unbalanced (moved or failed).
        let end = 'redo: loop {
            if !self.should_we_balance(&env) {
                *continue_balancing = false;
                break 'redo 0;
            }
            let Some((g, gt)) = self.sched_balance_find_src_group(&mut env) else { break 'redo 0 };
            group_type = gt;
            let Some(busiest) = self.sched_balance_find_src_rq(&env, g) else {
                self.log_balance(
                    cpu,
                    level,
                    idle,
                    gt,
                    env.migration_type,
                    env.imbalance,
                    0,
                    BalanceOutcome::NoBusiestRq,
                    Reject::None,
                    None,
                );
                break 'redo 0;
            };
            src = Some(busiest);
            env.src_cpu = busiest;
            env.flags |= LBF_ALL_PINNED;
            if self.rqs[busiest as usize].nr_running > 1 {
                env.loop_max = SCHED_NR_MIGRATE_BREAK.min(self.rqs[busiest as usize].nr_running);
                loop {
                    let cur = self.detach_tasks(&mut env);
                    if cur > 0 {
                        self.attach_tasks(&mut env);
                        ld_moved += cur;
                    }
                    if env.flags & LBF_NEED_BREAK != 0 {
                        env.flags &= !LBF_NEED_BREAK;
                        continue;
                    }
                    if env.flags & LBF_DST_PINNED != 0 && env.imbalance > 0 {
                        env.cpus = env.cpus.without(env.dst_cpu as usize);
                        env.dst_cpu = env.new_dst_cpu;
                        env.flags &= !LBF_DST_PINNED;
                        env.loop_ = 0;
                        env.loop_break = SCHED_NR_MIGRATE_BREAK;
                        continue;
                    }
                    break;
                }
                if env.flags & LBF_ALL_PINNED != 0 {
                    env.cpus = env.cpus.without(busiest as usize);
                    if !env.cpus.is_subset(env.dst_grpmask) {
                        env.loop_ = 0;
                        env.loop_break = SCHED_NR_MIGRATE_BREAK;
                        continue 'redo;
                    }
                    break 'redo 1;
                }
            }
            break 'redo 3;
        };
        let sd_fail_reset = |f: &mut Fair| {
            f.smp.as_deref_mut().expect("smp").topo.cpus[cpu as usize].domains[level].nr_balance_failed = 0
        };
        let mut one_pinned = false;
        if end == 3 {
            let busiest = env.src_cpu;
            let mut outcome = BalanceOutcome::Moved;
            if ld_moved == 0 {
                outcome = BalanceOutcome::Failed;
                if idle != CpuIdle::NewlyIdle && env.migration_type != MigrationType::Misfit {
                    let sd = &mut self.smp.as_deref_mut().expect("smp").topo.cpus[cpu as usize].domains[level];
                    sd.nr_balance_failed += 1;
                }
                if self.need_active_balance(&env) {
                    let curr = self.rqs[busiest as usize].curr.map(|se| self.task_of(se));
                    if curr.is_some_and(|t| !self.smp().tasks[t as usize].allowed.contains(cpu as usize)) {
                        outcome = BalanceOutcome::OnePinned;
                        one_pinned = true;
                    } else {
                        env.flags &= !LBF_ALL_PINNED;
                        let lb = &mut self.smp.as_deref_mut().expect("smp").lb;
                        if lb.active_balance[busiest as usize].is_none() {
                            lb.active_balance[busiest as usize] = Some(cpu);
                            lb.stopper.push((busiest, cpu));
                            active = true;
                            outcome = BalanceOutcome::ActiveBalance;
                        }
                    }
                }
            } else {
                sd_fail_reset(self);
            }
            self.log_balance(
                cpu,
                level,
                idle,
                group_type,
                env.migration_type,
                env.imbalance,
                ld_moved,
                outcome,
                env.reject,
                src,
            );
            if !one_pinned {
                if !active || self.need_active_balance(&env) {
                    let sd = &mut self.smp.as_deref_mut().expect("smp").topo.cpus[cpu as usize].domains[level];
                    sd.balance_interval = sd.min_interval as u32;
                }
                return ld_moved;
            }
        } else {
            if end == 1 {
                self.log_balance(
                    cpu,
                    level,
                    idle,
                    group_type,
                    env.migration_type,
                    env.imbalance,
                    0,
                    BalanceOutcome::AllPinned,
                    env.reject,
                    src,
                );
            }
            sd_fail_reset(self);
        }
        // out_one_pinned: back off (not for newidle).
        if env.idle == CpuIdle::NewlyIdle || env.migration_type == MigrationType::Misfit {
            return 0;
        }
        let sd = &mut self.smp.as_deref_mut().expect("smp").topo.cpus[cpu as usize].domains[level];
        if (env.flags & LBF_ALL_PINNED != 0 && sd.balance_interval < MAX_PINNED_INTERVAL)
            || (sd.balance_interval as u64) < sd.max_interval
        {
            sd.balance_interval *= 2;
        }
        0
    }

    /// `active_load_balance_cpu_stop()` on `busiest` for `target`, run by the simulation once
    /// the stopper has taken `busiest` (its running task put back on the queue): detach one
    /// task and attach it on `target`. Returns the task moved.
    pub fn active_load_balance_cpu_stop(&mut self, busiest: u32, target: u32) -> Option<u32> {
        self.smp.as_deref_mut().expect("smp").lb.active_balance[busiest as usize] = None;
        // The stopper itself counts in nr_running: there is a task to move if one is queued.
        if self.rqs[busiest as usize].nr_running == 0 || busiest == target {
            return None;
        }
        let ndom = self.smp().topo.cpus[target as usize].domains.len();
        let level =
            (0..ndom).find(|&l| self.smp().topo.cpus[target as usize].domains[l].span.contains(busiest as usize))?;
        let mut env = LbEnv {
            sd_cpu: target,
            level,
            src_cpu: busiest,
            dst_cpu: target,
            dst_grpmask: self.smp().topo.cpus[target as usize].domains[level].groups[0].balance_mask,
            new_dst_cpu: target,
            idle: CpuIdle::Idle,
            imbalance: 0,
            cpus: self.smp().topo.cpus[target as usize].domains[level].span,
            flags: LBF_ACTIVE_LB,
            loop_: 0,
            loop_break: SCHED_NR_MIGRATE_BREAK,
            loop_max: 0,
            migration_type: MigrationType::Load,
            tasks: Vec::new(),
            class: MigrateClass::Active,
            reject: Reject::None,
        };
        let p = self.detach_one_task(&mut env);
        if let Some(p) = p {
            self.smp.as_deref_mut().expect("smp").topo.cpus[target as usize].domains[level].nr_balance_failed = 0;
            self.attach_task(target, p);
        }
        p
    }
}
