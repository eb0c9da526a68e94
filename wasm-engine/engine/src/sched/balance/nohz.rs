//! Nohz idle balancing (Linux 6.18 fair.c): `nohz_balance_enter_idle()`/`_exit_idle()`
//! with `set_cpu_sd_state_idle()`/`_busy()` (`nr_busy_cpus`), `nohz_balancer_kick()`,
//! `kick_ilb()`/`find_new_ilb()`, `nohz_idle_balance()`, `_nohz_idle_balance()` and
//! `update_nohz_stats()`; and `sched_balance_update_blocked_averages()`.
//!
//! The kick is an IPI of latency 0: the idle load balancer's softirq runs at the end of
//! the kicking tick event (the simulation drains `Balance::ilb_pending`).

use super::super::fair::Fair;
use super::CpuIdle;

/// `NOHZ_BALANCE_KICK`.
pub const NOHZ_BALANCE_KICK: u32 = 1;
/// `NOHZ_STATS_KICK`.
pub const NOHZ_STATS_KICK: u32 = 2;
/// `NOHZ_NEXT_KICK`.
pub const NOHZ_NEXT_KICK: u32 = 8;
/// `NOHZ_KICK_MASK`.
pub const NOHZ_KICK_MASK: u32 = NOHZ_BALANCE_KICK | NOHZ_STATS_KICK | NOHZ_NEXT_KICK;

impl Fair {
    /// `sched_balance_update_blocked_averages()`: age `cpu`'s blocked load, note the tick and
    /// whether load is left to decay (`rq->has_blocked_load`; read from the root cfs_rq).
    pub(super) fn sched_balance_update_blocked_averages(&mut self, cpu: u32) {
        self.update_blocked_averages(cpu);
        let now = self.jiffies();
        let a = self.qs[self.rqs[cpu as usize].cfs as usize].avg;
        let lb = self.lb();
        lb.last_blocked_tick[cpu as usize] = now;
        lb.has_blocked_load[cpu as usize] = a.load_avg != 0 || a.util_avg != 0 || a.runnable_avg != 0;
    }

    /// `nohz_balance_enter_idle()`: `cpu`'s tick stopped while idle.
    pub fn nohz_balance_enter_idle(&mut self, cpu: u32) {
        if !self.lb_enabled() {
            return;
        }
        let c = cpu as usize;
        let llc = self.smp().topo.cpus[c].sd_llc_id;
        let smp = self.smp.as_deref_mut().expect("smp");
        let lb = &mut smp.lb;
        lb.has_blocked_load[c] = true;
        if !lb.tick_stopped[c] {
            lb.tick_stopped[c] = true;
            lb.nohz.idle_cpus_mask = lb.nohz.idle_cpus_mask.with(c);
            lb.nohz.nr_cpus += 1;
            // set_cpu_sd_state_idle()
            if !lb.llc_nohz_idle[c] {
                lb.llc_nohz_idle[c] = true;
                smp.llc_shared[llc].nr_busy_cpus -= 1;
            }
            lb.nohz.needs_update = true;
        }
        lb.nohz.has_blocked = true;
    }

    /// `nohz_balance_exit_idle()`.
    fn nohz_balance_exit_idle(&mut self, cpu: u32) {
        let c = cpu as usize;
        let llc = self.smp().topo.cpus[c].sd_llc_id;
        let smp = self.smp.as_deref_mut().expect("smp");
        let lb = &mut smp.lb;
        if !lb.tick_stopped[c] {
            return;
        }
        lb.tick_stopped[c] = false;
        lb.nohz.idle_cpus_mask = lb.nohz.idle_cpus_mask.without(c);
        lb.nohz.nr_cpus -= 1;
        if lb.llc_nohz_idle[c] {
            lb.llc_nohz_idle[c] = false;
            smp.llc_shared[llc].nr_busy_cpus += 1;
        }
    }

    /// `nohz_balancer_kick()` at a busy tick of `cpu`.
    pub(super) fn nohz_balancer_kick(&mut self, cpu: u32) {
        self.nohz_balance_exit_idle(cpu);
        let now = self.jiffies();
        let lb = &self.smp().lb;
        if lb.nohz.nr_cpus == 0 {
            return;
        }
        let mut flags = 0;
        if lb.nohz.has_blocked && now > lb.nohz.next_blocked {
            flags = NOHZ_STATS_KICK;
        }
        if now >= lb.nohz.next_balance {
            if self.rqs[cpu as usize].nr_running >= 2 {
                flags = NOHZ_STATS_KICK | NOHZ_BALANCE_KICK;
            } else {
                let llc = self.smp().topo.cpus[cpu as usize].sd_llc_id;
                if self.smp().topo.cpus[cpu as usize].sd_llc.is_some() && self.smp().llc_shared[llc].nr_busy_cpus > 1 {
                    flags = NOHZ_STATS_KICK | NOHZ_BALANCE_KICK;
                }
            }
        }
        if self.smp().lb.nohz.needs_update {
            flags |= NOHZ_NEXT_KICK;
        }
        if flags != 0 {
            self.kick_ilb(cpu, flags);
        }
    }

    /// `kick_ilb()` with `find_new_ilb()`: the first idle CPU of the nohz mask (not `cpu`)
    /// gets the flags and, if it had none pending, the IPI.
    fn kick_ilb(&mut self, cpu: u32, flags: u32) {
        let now = self.jiffies();
        if flags & NOHZ_BALANCE_KICK != 0 {
            self.lb().nohz.next_balance = now + 1;
        }
        let mask = self.smp().lb.nohz.idle_cpus_mask;
        let Some(ilb) = mask.iter().map(|c| c as u32).find(|&c| c != cpu && self.idle_cpu(c)) else { return };
        let lb = self.lb();
        let old = lb.nohz_flags[ilb as usize];
        if old & flags == flags {
            return;
        }
        lb.nohz_flags[ilb as usize] |= flags;
        if old & NOHZ_KICK_MASK != 0 {
            return;
        }
        lb.ilb_pending.push(ilb);
    }

    /// The kicked CPU's `nohz_csd_func()` and SCHED softirq.
    pub fn run_ilb(&mut self, ilb: u32) {
        let lb = self.lb();
        let flags = lb.nohz_flags[ilb as usize] & NOHZ_KICK_MASK;
        lb.nohz_flags[ilb as usize] &= !NOHZ_KICK_MASK;
        lb.nohz_idle_balance[ilb as usize] = flags;
        if flags != 0 {
            let idle = if self.idle_cpu(ilb) { CpuIdle::Idle } else { CpuIdle::NotIdle };
            self.sched_balance_softirq(ilb, idle);
        }
    }

    /// `nohz_idle_balance()`: run the pending nohz work if `cpu` is idle.
    pub(super) fn nohz_idle_balance(&mut self, cpu: u32, idle: CpuIdle) -> bool {
        let flags = std::mem::take(&mut self.lb().nohz_idle_balance[cpu as usize]);
        if flags == 0 || idle != CpuIdle::Idle {
            return false;
        }
        self._nohz_idle_balance(cpu, flags);
        true
    }

    /// `update_nohz_stats()`: whether `cpu` still has blocked load.
    fn update_nohz_stats(&mut self, cpu: u32) -> bool {
        let lb = &self.smp().lb;
        let c = cpu as usize;
        if !lb.has_blocked_load[c] || !lb.nohz.idle_cpus_mask.contains(c) {
            return false;
        }
        if self.jiffies() <= lb.last_blocked_tick[c] {
            return true;
        }
        self.sched_balance_update_blocked_averages(cpu);
        self.smp().lb.has_blocked_load[c]
    }

    /// `_nohz_idle_balance()`: on `this_cpu`, for every idle CPU of the nohz mask (starting
    /// after it, ending with it): blocked-load updates and the idle balance that is due.
    #[allow(non_snake_case)]
    pub(super) fn _nohz_idle_balance(&mut self, this_cpu: u32, flags: u32) {
        let now = self.jiffies();
        let mut next_balance = now + 60 * self.hz();
        let mut has_blocked_load = false;
        let mut update = false;
        if flags & NOHZ_STATS_KICK != 0 {
            self.lb().nohz.has_blocked = false;
        }
        if flags & NOHZ_NEXT_KICK != 0 {
            self.lb().nohz.needs_update = false;
        }
        let n = self.rqs.len();
        let mask = self.smp().lb.nohz.idle_cpus_mask;
        let mut aborted = false;
        for b in mask.iter_wrap((this_cpu as usize + 1) % n) {
            let bc = b as u32;
            if !self.idle_cpu(bc) {
                continue;
            }
            if !self.idle_cpu(this_cpu) && self.rqs[this_cpu as usize].need_resched.is_some() {
                if flags & NOHZ_STATS_KICK != 0 {
                    has_blocked_load = true;
                }
                if flags & NOHZ_NEXT_KICK != 0 {
                    self.lb().nohz.needs_update = true;
                }
                aborted = true;
                break;
            }
            if flags & NOHZ_STATS_KICK != 0 {
                has_blocked_load |= self.update_nohz_stats(bc);
            }
            if now >= self.smp().lb.next_balance[b] && flags & NOHZ_BALANCE_KICK != 0 {
                self.lb().nohz_pass = true;
                self.sched_balance_domains(bc, CpuIdle::Idle);
                self.lb().nohz_pass = false;
            }
            let nb = self.smp().lb.next_balance[b];
            if next_balance > nb {
                next_balance = nb;
                update = true;
            }
        }
        if !aborted {
            if update {
                self.lb().nohz.next_balance = next_balance;
            }
            if flags & NOHZ_STATS_KICK != 0 {
                let nb = now + self.msecs_to_jiffies(super::super::pelt::LOAD_AVG_PERIOD);
                self.lb().nohz.next_blocked = nb;
            }
        }
        if has_blocked_load {
            self.lb().nohz.has_blocked = true;
        }
    }
}
