//! The imbalance of a balance pass (Linux 6.18 fair.c): `sched_balance_find_src_group()`
//! (the decision matrix over local and busiest group types), `calculate_imbalance()`
//! (`migrate_load`, `migrate_util`, `migrate_task`; misfit and asym left out),
//! `sibling_imbalance()` and `sched_balance_find_src_rq()`.

use super::super::fair::Fair;
use super::super::topology::{SCHED_CAPACITY_SCALE, SD_SHARE_LLC};
use super::stats::{GroupType, SdLbStats, SgLbStats};
use super::{LbEnv, MigrationType};

impl Fair {
    /// `sibling_imbalance()`.
    fn sibling_imbalance(&self, env: &LbEnv, sds: &SdLbStats, busiest: &SgLbStats, local: &SgLbStats) -> i64 {
        if !env.idle.any() || busiest.sum_nr_running == 0 {
            return 0;
        }
        let groups = &self.smp().topo.cpus[env.sd_cpu as usize].domains[env.level].groups;
        let nb = groups[sds.busiest.expect("busiest")].cores as i64;
        let nl = groups[sds.local].cores as i64;
        let (bs, ls) = (busiest.sum_nr_running as i64, local.sum_nr_running as i64);
        if nb == nl {
            return (bs - ls).max(0);
        }
        let mut imb = (nl * bs - nb * ls).max(0);
        imb = (2 * imb + nl + nb) / (nl + nb);
        if imb <= 1 && ls == 0 && bs > 1 {
            imb = 2;
        }
        imb
    }

    /// `calculate_imbalance()`.
    fn calculate_imbalance(&self, env: &mut LbEnv, sds: &mut SdLbStats) {
        let busiest = sds.busiest_stat;
        let flags = self.smp().topo.cpus[env.sd_cpu as usize].domains[env.level].flags;
        if busiest.group_type == GroupType::Imbalanced {
            env.migration_type = MigrationType::Task;
            env.imbalance = 1;
            return;
        }
        let local = &mut sds.local_stat;
        if local.group_type == GroupType::HasSpare {
            if busiest.group_type > GroupType::FullyBusy && flags & SD_SHARE_LLC == 0 {
                env.migration_type = MigrationType::Util;
                env.imbalance = (local.group_capacity.max(local.group_util) - local.group_util) as i64;
                if env.idle.any() && env.imbalance == 0 {
                    env.migration_type = MigrationType::Task;
                    env.imbalance = 1;
                }
                return;
            }
            let local_copy = *local;
            env.migration_type = MigrationType::Task;
            env.imbalance = if busiest.group_weight == 1 || sds.prefer_sibling {
                self.sibling_imbalance(env, sds, &busiest, &local_copy)
            } else {
                (local_copy.idle_cpus as i64 - busiest.idle_cpus as i64).max(0)
            };
            env.imbalance >>= 1;
            return;
        }
        if local.group_type < GroupType::Overloaded {
            local.avg_load = local.group_load * SCHED_CAPACITY_SCALE / local.group_capacity;
            if local.avg_load >= busiest.avg_load {
                env.imbalance = 0;
                return;
            }
            sds.avg_load = sds.total_load * SCHED_CAPACITY_SCALE / sds.total_capacity;
            if sds.local_stat.avg_load >= sds.avg_load {
                env.imbalance = 0;
                return;
            }
        }
        let local = &sds.local_stat;
        env.migration_type = MigrationType::Load;
        let a = busiest.avg_load.saturating_sub(sds.avg_load) * busiest.group_capacity;
        let b = sds.avg_load.saturating_sub(local.avg_load) * local.group_capacity;
        env.imbalance = (a.min(b) / SCHED_CAPACITY_SCALE) as i64;
    }

    /// `sched_balance_find_src_group()`: the busiest group if there is an imbalance worth
    /// fixing (with `env.imbalance` set), and its statistics.
    pub(super) fn sched_balance_find_src_group(&mut self, env: &mut LbEnv) -> Option<(usize, GroupType)> {
        let mut sds = self.update_sd_lb_stats(env);
        let b = sds.busiest?;
        let busiest = sds.busiest_stat;
        let local = sds.local_stat;
        let pct = self.smp().topo.cpus[env.sd_cpu as usize].domains[env.level].imbalance_pct as u64;
        let force = 'decide: {
            // No energy model (`rd->pd`) on x86: the overutilized test does not stop us.
            if busiest.group_type == GroupType::Imbalanced {
                break 'decide true;
            }
            if local.group_type > busiest.group_type {
                break 'decide false;
            }
            if local.group_type == GroupType::Overloaded {
                if local.avg_load >= busiest.avg_load {
                    break 'decide false;
                }
                sds.avg_load = sds.total_load * SCHED_CAPACITY_SCALE / sds.total_capacity;
                if local.avg_load >= sds.avg_load {
                    break 'decide false;
                }
                if 100 * busiest.avg_load <= pct * local.avg_load {
                    break 'decide false;
                }
            }
            if sds.prefer_sibling
                && local.group_type == GroupType::HasSpare
                && self.sibling_imbalance(env, &sds, &busiest, &local) > 1
            {
                break 'decide true;
            }
            if busiest.group_type != GroupType::Overloaded {
                if !env.idle.any() {
                    break 'decide false;
                }
                if busiest.group_weight > 1 && local.idle_cpus <= busiest.idle_cpus + 1 {
                    break 'decide false;
                }
                if busiest.sum_h_nr_running == 1 {
                    break 'decide false;
                }
            }
            true
        };
        if !force {
            env.imbalance = 0;
            return None;
        }
        self.calculate_imbalance(env, &mut sds);
        (env.imbalance != 0).then_some((b, busiest.group_type))
    }

    /// `sched_balance_find_src_rq()`: the busiest CPU of group `g`.
    pub(super) fn sched_balance_find_src_rq(&self, env: &LbEnv, g: usize) -> Option<u32> {
        let span = self.smp().topo.cpus[env.sd_cpu as usize].domains[env.level].groups[g].span;
        let (mut busiest, mut b_load, mut b_cap, mut b_util, mut b_nr) = (None, 0u64, 1u64, 0u64, 0u32);
        for i in span.and(env.cpus).iter() {
            let cpu = i as u32;
            let q = &self.qs[self.rqs[i].cfs as usize];
            let nr = q.h_nr_runnable;
            if nr == 0 {
                continue;
            }
            let cap = self.capacity_of(cpu);
            match env.migration_type {
                MigrationType::Load => {
                    let load = q.avg.load_avg;
                    // One task heavier than the imbalance on a CPU of full capacity: leave it.
                    if nr == 1 && load as i64 > env.imbalance {
                        continue;
                    }
                    if load * b_cap > b_load * cap {
                        (b_load, b_cap, busiest) = (load, cap, Some(cpu));
                    }
                }
                MigrationType::Util => {
                    let util = self.cpu_util_cfs(cpu);
                    if nr <= 1 {
                        continue;
                    }
                    if b_util < util {
                        (b_util, busiest) = (util, Some(cpu));
                    }
                }
                MigrationType::Task => {
                    if b_nr < nr {
                        (b_nr, busiest) = (nr, Some(cpu));
                    }
                }
                MigrationType::Misfit => {}
            }
        }
        busiest
    }
}
