//! Fork and exec balancing (Linux 6.18 fair.c): `sched_balance_find_dst_cpu()` walking down
//! the domains with the balance flag, `sched_balance_find_dst_group()` with
//! `update_sg_wakeup_stats()` and `update_pick_idlest()`, and
//! `sched_balance_find_dst_group_cpu()`. No NUMA imbalance rules (one node), no asym
//! capacity, no core cookies; no cpuidle states on the VM (`idle_get_state()` is NULL, so
//! an idle CPU is chosen by its latest `idle_stamp`).

use super::super::entity::EntityId;
use super::super::fair::Fair;
use super::super::topology::{SCHED_CAPACITY_SCALE, SD_NUMA};
use super::stats::{group_classify, GroupType, SgLbStats};

impl Fair {
    /// Whether `task`'s load counts on `cpu` (`cpu_*_without()` subtract it).
    fn counts_on(&self, task: u32, cpu: u32) -> bool {
        let e = &self.ents[task as usize];
        self.qs[e.cfs_rq as usize].cpu == cpu && e.avg.last_update_time != 0
    }

    /// `update_sg_wakeup_stats()`.
    fn update_sg_wakeup_stats(&self, cpu0: u32, level: usize, g: usize, task: u32) -> SgLbStats {
        let sd = &self.smp().topo.cpus[cpu0 as usize].domains[level];
        let group = &sd.groups[g];
        let mut sgs = SgLbStats::default();
        let e = &self.ents[task as usize];
        for i in group.span.iter() {
            let cpu = i as u32;
            let q = &self.qs[self.rqs[i].cfs as usize];
            let mine = self.counts_on(task, cpu);
            let sub = |v: u64, p: u64| if mine { v.saturating_sub(p) } else { v };
            sgs.group_load += sub(q.avg.load_avg, e.avg.load_avg);
            sgs.group_util += sub(q.avg.util_avg, e.avg.util_avg).min(self.capacity_of(cpu));
            sgs.group_runnable += sub(q.avg.runnable_avg, e.avg.runnable_avg);
            let local = u32::from(self.qs[e.cfs_rq as usize].cpu == cpu && self.rqs[i].curr == Some(task));
            sgs.sum_h_nr_running += q.h_nr_runnable - local;
            let nr = self.rqs[i].nr_running - local;
            sgs.sum_nr_running += nr;
            let curr_ok = self.rqs[i].curr.is_none() || self.rqs[i].curr == Some(task);
            if nr == 0 && curr_ok {
                sgs.idle_cpus += 1;
            }
        }
        sgs.group_capacity = group.capacity;
        sgs.group_weight = group.group_weight;
        sgs.group_type = group_classify(sd.imbalance_pct as u64, &sgs);
        if matches!(sgs.group_type, GroupType::FullyBusy | GroupType::Overloaded) {
            sgs.avg_load = sgs.group_load * SCHED_CAPACITY_SCALE / sgs.group_capacity;
        }
        sgs
    }

    /// `update_pick_idlest()`.
    fn update_pick_idlest(idlest: &SgLbStats, sgs: &SgLbStats) -> bool {
        if sgs.group_type != idlest.group_type {
            return sgs.group_type < idlest.group_type;
        }
        match sgs.group_type {
            GroupType::Overloaded | GroupType::FullyBusy => idlest.avg_load > sgs.avg_load,
            GroupType::HasSpare => {
                !(idlest.idle_cpus > sgs.idle_cpus
                    || (idlest.idle_cpus == sgs.idle_cpus && idlest.group_util <= sgs.group_util))
            }
            _ => false,
        }
    }

    /// `sched_balance_find_dst_group()`: the least busy group of `this_cpu`'s domain at
    /// `level`, if it is worth moving there.
    fn sched_balance_find_dst_group(&self, this_cpu: u32, level: usize, task: u32) -> Option<usize> {
        let sd = &self.smp().topo.cpus[this_cpu as usize].domains[level];
        let allowed = self.smp().tasks[task as usize].allowed;
        let mut idlest: Option<usize> = None;
        let mut idlest_sgs =
            SgLbStats { avg_load: u32::MAX as u64, group_type: GroupType::Overloaded, ..Default::default() };
        let mut local: Option<SgLbStats> = None;
        for (g, group) in sd.groups.iter().enumerate() {
            if !group.span.intersects(allowed) {
                continue;
            }
            let sgs = self.update_sg_wakeup_stats(this_cpu, level, g, task);
            if group.span.contains(this_cpu as usize) {
                local = Some(sgs);
            } else if Self::update_pick_idlest(&idlest_sgs, &sgs) {
                idlest = Some(g);
                idlest_sgs = sgs;
            }
        }
        let idlest = idlest?;
        let Some(local) = local else { return Some(idlest) };
        if local.group_type != idlest_sgs.group_type {
            return (local.group_type > idlest_sgs.group_type).then_some(idlest);
        }
        match local.group_type {
            GroupType::Overloaded | GroupType::FullyBusy => {
                let imbalance = SCHED_CAPACITY_SCALE * (sd.imbalance_pct as u64 - 100) / 100;
                if sd.flags & SD_NUMA != 0 && idlest_sgs.avg_load + imbalance >= local.avg_load {
                    return None;
                }
                if idlest_sgs.avg_load >= local.avg_load + imbalance {
                    return None;
                }
                if 100 * local.avg_load <= sd.imbalance_pct as u64 * idlest_sgs.avg_load {
                    return None;
                }
                Some(idlest)
            }
            GroupType::HasSpare => (local.idle_cpus < idlest_sgs.idle_cpus).then_some(idlest),
            _ => None,
        }
    }

    /// `sched_balance_find_dst_group_cpu()`.
    fn sched_balance_find_dst_group_cpu(&self, this_cpu: u32, level: usize, g: usize, task: u32) -> u32 {
        let group = &self.smp().topo.cpus[this_cpu as usize].domains[level].groups[g];
        if group.group_weight == 1 {
            return group.span.first().expect("non-empty group") as u32;
        }
        let allowed = self.smp().tasks[task as usize].allowed;
        let (mut min_load, mut least_loaded, mut latest_idle, mut shallowest) = (u64::MAX, this_cpu, 0u64, None);
        for i in group.span.and(allowed).iter() {
            let cpu = i as u32;
            if self.sched_idle_cpu(cpu) {
                return cpu;
            }
            if self.available_idle_cpu(cpu) {
                let stamp = self.smp().lb.idle_stamp[i];
                if stamp > latest_idle {
                    latest_idle = stamp;
                    shallowest = Some(cpu);
                }
            } else if shallowest.is_none() {
                let load = self.cpu_load(cpu);
                if load < min_load {
                    min_load = load;
                    least_loaded = cpu;
                }
            }
        }
        shallowest.unwrap_or(least_loaded)
    }

    /// `sched_balance_find_dst_cpu()`: fork and exec balancing from the domain at `level` of
    /// `cpu` down.
    pub fn sched_balance_find_dst_cpu(
        &mut self,
        level: usize,
        p: EntityId,
        cpu: u32,
        prev_cpu: u32,
        sd_flag: u32,
    ) -> u32 {
        let task = self.task_of(p);
        let allowed = self.smp().tasks[task as usize].allowed;
        if !self.smp().topo.cpus[cpu as usize].domains[level].span.intersects(allowed) {
            return prev_cpu;
        }
        let (mut cpu, mut new_cpu) = (cpu, cpu);
        let mut sd = Some(level);
        while let Some(l) = sd {
            let child = l.checked_sub(1);
            if self.smp().topo.cpus[cpu as usize].domains[l].flags & sd_flag == 0 {
                sd = child;
                continue;
            }
            let Some(g) = self.sched_balance_find_dst_group(cpu, l, task) else {
                sd = child;
                continue;
            };
            new_cpu = self.sched_balance_find_dst_group_cpu(cpu, l, g, task);
            if new_cpu == cpu {
                sd = child;
                continue;
            }
            let weight = self.smp().topo.cpus[cpu as usize].domains[l].span_weight;
            cpu = new_cpu;
            sd = None;
            for (tl, tmp) in self.smp().topo.cpus[cpu as usize].domains.iter().enumerate() {
                if weight <= tmp.span_weight {
                    break;
                }
                if tmp.flags & sd_flag != 0 {
                    sd = Some(tl);
                }
            }
        }
        new_cpu
    }
}
