//! `cpu_attach_domain()`'s removal of the domains that do not contribute (`sd_degenerate()`,
//! `sd_parent_degenerate()`) and the attached result with `update_top_cache_domain()`'s per-CPU
//! values (kernel/sched/topology.c, Linux 6.18.26).

use super::build::{Builder, Raw};
use super::*;

impl Builder<'_> {
    fn sd_degenerate(&self, sd: &Raw) -> bool {
        if sd.span.weight() == 1 {
            return true;
        }
        if sd.flags & SD_DEGENERATE_GROUPS_MASK != 0 && sd.groups.len() > 1 {
            return false;
        }
        sd.flags & SD_WAKE_AFFINE == 0
    }

    fn sd_parent_degenerate(&self, sd: &Raw, parent: &Raw) -> bool {
        if self.sd_degenerate(parent) {
            return true;
        }
        if sd.span != parent.span {
            return false;
        }
        let mut pflags = parent.flags;
        if parent.groups.len() == 1 {
            pflags &= !SD_DEGENERATE_GROUPS_MASK;
        }
        !sd.flags & pflags == 0
    }

    /// `cpu_attach_domain()`'s removal of the domains that do not contribute; returns the levels
    /// left, bottom-up. Group objects are shared between CPUs, so their flags change for all.
    pub(super) fn cpu_attach_domain(&mut self, cpu: usize) -> Vec<usize> {
        let mut chain: Vec<usize> = (0..self.chains[cpu].len()).collect();
        let mut t = 0;
        while t + 1 < chain.len() {
            let (c, p) = (chain[t], chain[t + 1]);
            if self.sd_parent_degenerate(&self.chains[cpu][c], &self.chains[cpu][p]) {
                if let Some(&gp) = chain.get(t + 2) {
                    let first = self.chains[cpu][gp].groups[0];
                    self.groups[first].flags = self.chains[cpu][c].flags;
                }
                if self.chains[cpu][p].flags & SD_PREFER_SIBLING != 0 {
                    self.chains[cpu][c].flags |= SD_PREFER_SIBLING;
                }
                chain.remove(t + 1);
            } else {
                t += 1;
            }
        }
        if chain.first().is_some_and(|&b| self.sd_degenerate(&self.chains[cpu][b])) {
            chain.remove(0);
            // 6.18's loop clearing the groups' flags never advances: only the first group.
            if let Some(&b) = chain.first() {
                let first = self.chains[cpu][b].groups[0];
                self.groups[first].flags = 0;
            }
        }
        chain
    }

    /// The attached domains of `cpu` and `update_top_cache_domain()`'s per-CPU values.
    pub(super) fn snapshot(&self, cpu: usize, chain: &[usize]) -> CpuDomains {
        let smt_cores = |span: CpuMask| {
            let mut cores: Vec<u32> = span.iter().map(|c| self.host.cpus[c].core).collect();
            cores.sort_unstable();
            cores.dedup();
            cores.len() as u32
        };
        let domains: Vec<Domain> = chain
            .iter()
            .enumerate()
            .map(|(pos, &k)| {
                let sd = &self.chains[cpu][k];
                let groups = sd
                    .groups
                    .iter()
                    .map(|&g| {
                        let (sg, sgc) = (&self.groups[g], &self.sgcs[self.groups[g].sgc]);
                        Group {
                            span: sg.span,
                            balance_mask: sgc.balance_mask.unwrap_or(sg.span),
                            group_weight: sg.span.weight(),
                            cores: smt_cores(sg.span),
                            flags: sg.flags,
                            asym_prefer_cpu: 0,
                            capacity: sgc.capacity,
                            min_capacity: SCHED_CAPACITY_SCALE,
                            max_capacity: SCHED_CAPACITY_SCALE,
                            sgc_id: sgc.id,
                        }
                    })
                    .collect();
                Domain {
                    name: sd.name,
                    level: sd.level,
                    flags: sd.flags,
                    span: sd.span,
                    span_weight: sd.span.weight(),
                    imbalance_pct: sd.imbalance_pct,
                    cache_nice_tries: sd.cache_nice_tries,
                    busy_factor: 16,
                    min_interval: u64::from(sd.sd_weight),
                    max_interval: 2 * u64::from(sd.sd_weight),
                    balance_interval: sd.sd_weight,
                    nr_balance_failed: 0,
                    max_newidle_lb_cost: 0,
                    imb_numa_nr: sd.imb_numa_nr,
                    newidle_call: 512,
                    newidle_success: 256,
                    newidle_ratio: 512,
                    has_child: pos > 0,
                    shared_nr_busy_cpus: sd.shared.then_some(sd.sd_weight),
                    groups,
                }
            })
            .collect();
        let sd_llc = domains.iter().rposition(|d| d.flags & SD_SHARE_LLC != 0);
        let (sd_llc_size, sd_llc_id) = match sd_llc {
            Some(i) => (domains[i].span.weight(), domains[i].span.first().unwrap_or(cpu)),
            None => (1, cpu),
        };
        let cluster = domains.iter().find(|d| d.flags & SD_CLUSTER != 0);
        let sd_share_id = cluster.and_then(|d| d.span.first()).unwrap_or(sd_llc_id);
        let sd_numa = domains.iter().position(|d| d.flags & SD_NUMA != 0);
        CpuDomains { domains, cpu_capacity: SCHED_CAPACITY_SCALE, sd_llc, sd_llc_size, sd_llc_id, sd_share_id, sd_numa }
    }
}
