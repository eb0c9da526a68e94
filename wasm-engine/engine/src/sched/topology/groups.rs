//! The group builders of `build_sched_domains()` (kernel/sched/topology.c, Linux 6.18.26):
//! `get_group()`/`build_sched_groups()` for levels without `SD_NUMA`, one group object per child
//! domain shared by every CPU that sees it, and `build_overlap_sched_groups()` for `SD_NUMA`
//! levels, a new group per sibling with its balance mask.

use super::build::{Builder, RawGroup, Sgc};
use super::{CpuMask, SCHED_CAPACITY_SCALE};

impl Builder<'_> {
    /// `per_cpu_ptr(sdd->sgc, cpu)` of level `k`: one `sched_group_capacity` per level and CPU.
    pub(super) fn sgc(&mut self, k: usize, cpu: usize) -> usize {
        let next = self.sgcs.len();
        let id = *self.sgc_of.entry((k, cpu)).or_insert(next);
        if id == next {
            self.sgcs.push(Sgc { id: cpu, balance_mask: None, capacity: 0 });
        }
        id
    }

    /// `get_group()`: the shared group of CPU `i` at level `k`, initialised on the first visit.
    pub(super) fn get_group(&mut self, i: usize, k: usize) -> usize {
        let child = (k > 0).then(|| (self.chains[i][k - 1].span, self.chains[i][k - 1].flags));
        let owner = child.map_or(i, |(span, _)| span.first().expect("a domain spans its CPU"));
        if let Some(&g) = self.sg_of.get(&(k, owner)) {
            return g;
        }
        let (span, flags) = child.unwrap_or((CpuMask::of(owner), 0));
        let sgc = self.sgc(k, owner);
        self.sgcs[sgc].balance_mask = Some(span);
        self.sgcs[sgc].capacity = SCHED_CAPACITY_SCALE * u64::from(span.weight());
        self.groups.push(RawGroup { span, flags, sgc });
        self.sg_of.insert((k, owner), self.groups.len() - 1);
        self.groups.len() - 1
    }

    /// `build_sched_groups()`: the ring of child-domain groups, starting with `cpu`'s own.
    pub(super) fn build_sched_groups(&mut self, cpu: usize, k: usize) -> Vec<usize> {
        let span = self.chains[cpu][k].span;
        let mut covered = CpuMask::default();
        let mut ring = Vec::new();
        for i in span.iter_wrap(cpu) {
            if covered.contains(i) {
                continue;
            }
            let g = self.get_group(i, k);
            covered = covered.or(self.groups[g].span);
            ring.push(g);
        }
        ring
    }

    /// `find_descended_sibling()`: from CPU `i`'s domain at level `k`, go down while its child
    /// spans outside `span`, then past children equal to their parent.
    pub(super) fn find_descended_sibling(&self, span: CpuMask, i: usize, mut k: usize) -> usize {
        let chain = &self.chains[i];
        while k > 0 && !chain[k - 1].span.is_subset(span) {
            k -= 1;
        }
        while k > 0 && chain[k - 1].span == chain[k].span {
            k -= 1;
        }
        k
    }

    /// `build_overlap_sched_groups()` with `build_group_from_child_sched_domain()`,
    /// `init_overlap_sched_group()` and `build_balance_mask()`: one new group per sibling.
    pub(super) fn build_overlap_sched_groups(&mut self, cpu: usize, k: usize) -> Vec<usize> {
        let span = self.chains[cpu][k].span;
        let mut covered = CpuMask::default();
        let mut ring = Vec::new();
        for i in span.iter_wrap(cpu) {
            if covered.contains(i) {
                continue;
            }
            // A CPU whose chain stopped below level k has an empty (never initialised) domain.
            if !self.chains[i].get(k).is_some_and(|s| s.span.contains(i)) {
                continue;
            }
            let mut sk = k;
            if k > 0 && !self.chains[i][k - 1].span.is_subset(span) {
                sk = self.find_descended_sibling(span, i, k);
            }
            let (sg_span, flags) = if sk > 0 {
                (self.chains[i][sk - 1].span, self.chains[i][sk - 1].flags)
            } else {
                (self.chains[i][sk].span, 0)
            };
            covered = covered.or(sg_span);
            let mut mask = CpuMask::default();
            for j in sg_span.iter() {
                let built = self.chains[j].get(sk).is_some();
                if built && sk > 0 && self.chains[j][sk - 1].span == sg_span {
                    mask.set(j);
                }
            }
            let sgc = self.sgc(sk, mask.first().unwrap_or(i));
            if self.sgcs[sgc].balance_mask.is_none() {
                self.sgcs[sgc].balance_mask = Some(mask);
            }
            self.sgcs[sgc].capacity = SCHED_CAPACITY_SCALE * u64::from(sg_span.weight());
            self.groups.push(RawGroup { span: sg_span, flags, sgc });
            ring.push(self.groups.len() - 1);
        }
        ring
    }
}
