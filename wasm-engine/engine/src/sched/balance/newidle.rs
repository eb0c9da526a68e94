//! Newidle balancing (Linux 6.18 fair.c, core.c): `sched_balance_newidle()` (gated by
//! `rd->overloaded` and `avg_idle` against `max_newidle_lb_cost`; NI_RANDOM's proportional
//! dice on `newidle_ratio`), `nohz_newidle_balance()`, and `avg_idle`'s update at a wakeup
//! (`ttwu_do_activate()`'s `idle_stamp` part).

use super::super::fair::Fair;
use super::super::topology::SD_BALANCE_NEWIDLE;
use super::super::wakeup::SYSCTL_SCHED_MIGRATION_COST_NS;
use super::nohz::NOHZ_STATS_KICK;
use super::CpuIdle;

impl Fair {
    /// `sched_balance_newidle()`: `cpu` found nothing to run. Returns whether it now has a
    /// task (pulled one).
    pub fn sched_balance_newidle(&mut self, cpu: u32) -> bool {
        if !self.lb_enabled() {
            return false;
        }
        let c = cpu as usize;
        let mut next_balance = self.jiffies() + self.hz();
        self.lb().idle_stamp[c] = self.now.max(1);
        let mut pulled = false;
        let ndom = self.smp().topo.cpus[c].domains.len();
        if ndom > 0 {
            let avg_idle = self.smp().lb.avg_idle[c];
            if !self.smp().lb.overloaded || avg_idle < self.smp().topo.cpus[c].domains[0].max_newidle_lb_cost {
                self.update_next_balance(cpu, 0, &mut next_balance);
            } else {
                self.sched_balance_update_blocked_averages(cpu);
                let mut curr_cost = 0u64;
                let mut continue_balancing = true;
                for level in 0..ndom {
                    self.update_next_balance(cpu, level, &mut next_balance);
                    let sd = &self.smp().topo.cpus[c].domains[level];
                    if avg_idle < curr_cost + sd.max_newidle_lb_cost {
                        break;
                    }
                    if sd.flags & SD_BALANCE_NEWIDLE != 0 {
                        let mut weight = 1;
                        if self.feat.ni_random {
                            let ratio = sd.newidle_ratio;
                            let d1k = (self.lb().rng[c].next_u64() as u32) % 1024;
                            weight = 1 + ratio;
                            if d1k > weight {
                                self.update_newidle_stats(cpu, level, 0);
                                continue;
                            }
                            weight = (1024 + weight / 2) / weight;
                        }
                        pulled = self.sched_balance_rq(cpu, level, CpuIdle::NewlyIdle, &mut continue_balancing) > 0;
                        let cost = self.smp().lb.newidle_domain_cost_ns;
                        curr_cost += cost;
                        self.update_newidle_cost(cpu, level, true, cost, weight * u32::from(pulled));
                    }
                    if pulled || !continue_balancing {
                        break;
                    }
                }
                if curr_cost > self.smp().lb.max_idle_balance_cost[c] {
                    self.lb().max_idle_balance_cost[c] = curr_cost;
                }
                if self.qs[self.rqs[c].cfs as usize].h_nr_queued > 0 {
                    pulled = true;
                }
            }
        }
        if self.smp().lb.next_balance[c] > next_balance {
            self.lb().next_balance[c] = next_balance;
        }
        if pulled {
            self.lb().idle_stamp[c] = 0;
        } else {
            self.nohz_newidle_balance(cpu);
        }
        pulled
    }

    /// `nohz_newidle_balance()` and the `nohz_run_idle_balance()` it leads to before the CPU
    /// idles: update the blocked load of idle CPUs if that is due.
    fn nohz_newidle_balance(&mut self, cpu: u32) {
        let lb = &self.smp().lb;
        if lb.avg_idle[cpu as usize] < SYSCTL_SCHED_MIGRATION_COST_NS {
            return;
        }
        if !lb.nohz.has_blocked || self.jiffies() < lb.nohz.next_blocked {
            return;
        }
        self._nohz_idle_balance(cpu, NOHZ_STATS_KICK);
    }

    /// The `idle_stamp` part of `ttwu_do_activate()`: a task woke onto `cpu`, which had gone
    /// newly idle: `avg_idle` averages the idle period (capped at twice
    /// `max_idle_balance_cost`).
    pub fn ttwu_update_avg_idle(&mut self, cpu: u32) {
        let now = self.now;
        let Some(smp) = self.smp.as_deref_mut() else { return };
        let lb = &mut smp.lb;
        let c = cpu as usize;
        if lb.idle_stamp[c] == 0 {
            return;
        }
        let delta = now.saturating_sub(lb.idle_stamp[c]) as i64;
        let avg = lb.avg_idle[c] as i64;
        let mut v = (avg + (delta - avg) / 8) as u64;
        v = v.min(2 * lb.max_idle_balance_cost[c]);
        lb.avg_idle[c] = v;
        lb.idle_stamp[c] = 0;
    }
}
