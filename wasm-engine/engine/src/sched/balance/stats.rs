//! Group statistics of a balance pass (Linux 6.18 fair.c): `struct sg_lb_stats`,
//! `update_sg_lb_stats()`, `group_classify()` with `group_is_overloaded()` and
//! `group_has_capacity()`, `update_sd_pick_busiest()` and `update_sd_lb_stats()` (which
//! also sets `rd->overloaded` at the root domain and calls `update_idle_cpu_scan()`).
//! Misfit, asym packing and SMT balance are left out (module doc of `balance`).

use super::super::fair::Fair;
use super::super::topology::SCHED_CAPACITY_SCALE;
use super::LbEnv;

/// `enum group_type`, least busy first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
#[repr(u8)]
pub enum GroupType {
    #[default]
    HasSpare = 0,
    FullyBusy = 1,
    MisfitTask = 2,
    SmtBalance = 3,
    AsymPacking = 4,
    Imbalanced = 5,
    Overloaded = 6,
}

/// `struct sg_lb_stats`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SgLbStats {
    pub avg_load: u64,
    pub group_load: u64,
    pub group_capacity: u64,
    pub group_util: u64,
    pub group_runnable: u64,
    pub sum_nr_running: u32,
    pub sum_h_nr_running: u32,
    pub idle_cpus: u32,
    pub group_weight: u32,
    pub group_type: GroupType,
}

/// `struct sd_lb_stats`: group indices in the domain's ring.
#[derive(Debug, Clone, Copy, Default)]
pub struct SdLbStats {
    pub busiest: Option<usize>,
    pub local: usize,
    pub total_load: u64,
    pub total_capacity: u64,
    pub avg_load: u64,
    pub prefer_sibling: bool,
    pub busiest_stat: SgLbStats,
    pub local_stat: SgLbStats,
}

/// `group_has_capacity()`.
pub fn group_has_capacity(pct: u64, sgs: &SgLbStats) -> bool {
    if sgs.sum_nr_running < sgs.group_weight {
        return true;
    }
    if sgs.group_capacity * pct < sgs.group_runnable * 100 {
        return false;
    }
    sgs.group_capacity * 100 > sgs.group_util * pct
}

/// `group_is_overloaded()`.
pub fn group_is_overloaded(pct: u64, sgs: &SgLbStats) -> bool {
    if sgs.sum_nr_running <= sgs.group_weight {
        return false;
    }
    sgs.group_capacity * 100 < sgs.group_util * pct || sgs.group_capacity * pct < sgs.group_runnable * 100
}

/// `group_classify()` (no imbalanced, asym, SMT or misfit groups: module doc).
pub fn group_classify(pct: u64, sgs: &SgLbStats) -> GroupType {
    if group_is_overloaded(pct, sgs) {
        GroupType::Overloaded
    } else if !group_has_capacity(pct, sgs) {
        GroupType::FullyBusy
    } else {
        GroupType::HasSpare
    }
}

impl Fair {
    /// `update_sg_lb_stats()` for group `g` of the balancing domain; sets `*overloaded` when
    /// balancing at the root domain finds a CPU with two or more tasks.
    fn update_sg_lb_stats(&self, env: &LbEnv, g: usize, overloaded: &mut bool) -> SgLbStats {
        let sd = &self.smp().topo.cpus[env.sd_cpu as usize].domains[env.level];
        let at_root = env.level + 1 == self.smp().topo.cpus[env.sd_cpu as usize].domains.len();
        let group = &sd.groups[g];
        let mut sgs = SgLbStats::default();
        for i in group.span.and(env.cpus).iter() {
            let cpu = i as u32;
            let rq = &self.rqs[i];
            let q = &self.qs[rq.cfs as usize];
            sgs.group_load += q.avg.load_avg;
            sgs.group_util += self.cpu_util_cfs(cpu);
            sgs.group_runnable += q.avg.runnable_avg;
            sgs.sum_h_nr_running += q.h_nr_runnable;
            sgs.sum_nr_running += rq.nr_running;
            if rq.nr_running == 0 && self.idle_cpu(cpu) {
                sgs.idle_cpus += 1;
                continue;
            }
            if at_root && rq.nr_running > 1 {
                *overloaded = true;
            }
        }
        sgs.group_capacity = group.capacity;
        sgs.group_weight = group.group_weight;
        sgs.group_type = group_classify(sd.imbalance_pct as u64, &sgs);
        if sgs.group_type == GroupType::Overloaded {
            sgs.avg_load = sgs.group_load * SCHED_CAPACITY_SCALE / sgs.group_capacity;
        }
        sgs
    }

    /// `update_sd_pick_busiest()` (the types a symmetric machine reaches).
    fn update_sd_pick_busiest(sds: &SdLbStats, sgs: &SgLbStats) -> bool {
        let busiest = &sds.busiest_stat;
        if sgs.sum_h_nr_running == 0 {
            return false;
        }
        if sgs.group_type != busiest.group_type {
            return sgs.group_type > busiest.group_type;
        }
        match sgs.group_type {
            GroupType::Overloaded => sgs.avg_load > busiest.avg_load,
            GroupType::Imbalanced | GroupType::AsymPacking | GroupType::MisfitTask | GroupType::SmtBalance => false,
            // avg_load is 0 for fully busy groups: the later one wins (the kernel's `break`).
            GroupType::FullyBusy => sgs.avg_load >= busiest.avg_load,
            GroupType::HasSpare => {
                !(sgs.idle_cpus > busiest.idle_cpus
                    || (sgs.idle_cpus == busiest.idle_cpus && sgs.sum_nr_running <= busiest.sum_nr_running))
            }
        }
    }

    /// `update_sd_lb_stats()`.
    pub(super) fn update_sd_lb_stats(&mut self, env: &LbEnv) -> SdLbStats {
        let mut sds =
            SdLbStats { busiest_stat: SgLbStats { idle_cpus: u32::MAX, ..Default::default() }, ..Default::default() };
        let mut sum_util = 0;
        let mut overloaded = false;
        let ngroups = self.smp().topo.cpus[env.sd_cpu as usize].domains[env.level].groups.len();
        for g in 0..ngroups {
            let span = self.smp().topo.cpus[env.sd_cpu as usize].domains[env.level].groups[g].span;
            let local = span.contains(env.dst_cpu as usize);
            let sgs = self.update_sg_lb_stats(env, g, &mut overloaded);
            if local {
                sds.local = g;
                sds.local_stat = sgs;
            } else if Self::update_sd_pick_busiest(&sds, &sgs) {
                sds.busiest = Some(g);
                sds.busiest_stat = sgs;
            }
            sds.total_load += sgs.group_load;
            sds.total_capacity += sgs.group_capacity;
            sum_util += sgs.group_util;
        }
        if let Some(b) = sds.busiest {
            let flags = self.smp().topo.cpus[env.sd_cpu as usize].domains[env.level].groups[b].flags;
            sds.prefer_sibling = flags & super::super::topology::SD_PREFER_SIBLING != 0;
        }
        if env.level + 1 == self.smp().topo.cpus[env.sd_cpu as usize].domains.len() {
            self.smp.as_deref_mut().expect("smp").lb.overloaded = overloaded;
        }
        if env.idle != super::CpuIdle::NewlyIdle {
            self.update_idle_cpu_scan(env.sd_cpu, env.level, sum_util);
        }
        sds
    }
}
