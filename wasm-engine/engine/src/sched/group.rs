//! Group scheduling (CONFIG_FAIR_GROUP_SCHED, Linux 6.18.44): task groups with one group
//! sched_entity and one cfs_rq per CPU, `calc_group_shares()`, `update_cfs_group()` and
//! `reweight_entity()`.
//!
//! Named model shortcut (no PELT; the default, `group_shares = instant`): a group cfs_rq's
//! load is its runnable weight (`scale_load_down(cfs_rq->load.weight)`) and its contribution to
//! `tg->load_avg` is updated at every load change, so `tg_weight` = Σ over CPUs of those loads.
//! The kernel uses decaying load averages updated at most once per ms: `group_shares = pelt`
//! does that (`group_pelt.rs`). With all tasks of a group on one CPU for good both give group
//! weight = the group's shares; the captures' first milliseconds, where the tasks had just
//! come from CPU 0, show the kernel's lower weights (bpftrace `gw=` 586423, 596523, 747731 in
//! yield-in-cgroup; the replay under `pelt` gives 583555–600526 and 749819 there, `instant`
//! the shares).

use super::cfs_rq::CfsRq;
use super::entity::{vdiff, CfsRqId, EntityId, SchedEntity};
use super::fair::Fair;
use super::weight::{scale_load, scale_load_down, LoadWeight, NICE_0_LOAD};

/// Marks a group entity in log task columns: `GROUP_NODE | task-group id`.
pub const GROUP_NODE: u32 = 0x8000_0000;
/// `MIN_SHARES`: the smallest group entity weight.
pub const MIN_SHARES: u64 = 2;

/// `struct task_group` (the fair part).
#[derive(Debug, Clone)]
pub struct TaskGroup {
    /// Id (0 = the root group).
    pub id: u32,
    /// cgroup path ("/" for the root).
    pub path: String,
    /// Parent group (None for the root).
    pub parent: Option<u32>,
    /// Depth of this group's entities (0 for children of the root).
    pub depth: u32,
    /// `tg->shares`, scaled (cpu.shares 1024 = NICE_0_LOAD).
    pub shares: u64,
    /// Group entity per CPU (None for the root group).
    pub se: Vec<Option<EntityId>>,
    /// cfs_rq per CPU (the rq's root cfs_rq for the root group).
    pub cfs_rq: Vec<CfsRqId>,
    /// `tg->load_avg`: Σ of the per-CPU contributions.
    pub load_sum: u64,
    /// `cfs_rq->tg_load_avg_contrib` per CPU.
    pub contrib: Vec<u64>,
    /// CFS bandwidth (None: no quota).
    pub bw: Option<super::bandwidth::CfsBandwidth>,
}

/// cgroup v1 `cpu.shares` → `tg->shares` (scale_load, clamped to 2 … 262144).
pub fn shares_from_v1(shares: u64) -> u64 {
    scale_load(shares.clamp(2, 1 << 18))
}

/// cgroup v2 `cpu.weight` (1 … 10000, default 100) → `tg->shares`, as
/// `cpu_weight_write_u64` does: scale_load(weight × 1024 / 100), rounded.
pub fn shares_from_v2_weight(weight: u64) -> u64 {
    let w = weight.clamp(1, 10_000);
    scale_load((w * 1024 + 50) / 100)
}

impl Fair {
    /// Creates a task group under `parent` with its per-CPU cfs_rqs and group entities
    /// (`alloc_fair_sched_group` + `init_tg_cfs_entry`). The root group must exist (id 0).
    pub fn add_task_group(&mut self, path: &str, parent: u32, shares: u64) -> u32 {
        let id = self.tgs.len() as u32;
        let ncpus = self.rqs.len();
        let pdepth = self.tgs[parent as usize].parent.map(|_| self.tgs[parent as usize].depth + 1).unwrap_or(0);
        let mut se = Vec::with_capacity(ncpus);
        let mut qs = Vec::with_capacity(ncpus);
        for cpu in 0..ncpus {
            let q = self.qs.len() as CfsRqId;
            let e = self.ents.len() as EntityId;
            let mut cq = CfsRq::new(q, cpu as u32, Some(e));
            cq.tg = id;
            self.qs.push(cq);
            let parent_q = self.tgs[parent as usize].cfs_rq[cpu];
            let parent_se = self.tgs[parent as usize].se[cpu];
            let mut ent =
                SchedEntity::new_task(0, LoadWeight::lazy(NICE_0_LOAD), self.params.base_slice, false, parent_q, false);
            ent.task = None;
            ent.avg = super::group_pelt::init_entity_runnable_average(NICE_0_LOAD, false);
            ent.my_q = Some(q);
            ent.parent = parent_se;
            ent.depth = pdepth;
            self.ents.push(ent);
            se.push(Some(e));
            qs.push(q);
        }
        self.tgs.push(TaskGroup {
            id,
            path: path.to_string(),
            parent: Some(parent),
            depth: pdepth,
            shares,
            se,
            cfs_rq: qs,
            load_sum: 0,
            contrib: vec![0; ncpus],
            bw: None,
        });
        id
    }
}

impl TaskGroup {
    /// The root task group over the rqs' root cfs_rqs.
    pub fn root(ncpus: u32) -> TaskGroup {
        TaskGroup {
            id: 0,
            path: "/".to_string(),
            parent: None,
            depth: 0,
            shares: NICE_0_LOAD,
            se: vec![None; ncpus as usize],
            cfs_rq: (0..ncpus).collect(),
            load_sum: 0,
            contrib: vec![0; ncpus as usize],
            bw: None,
        }
    }
}

impl Fair {
    /// Sets a quota on a task group (`tg_set_cfs_bandwidth`): every cfs_rq of the group gets
    /// runtime accounting, starting with no local runtime.
    pub fn set_bandwidth(&mut self, tg: u32, quota: u64, period: u64, burst: u64) {
        self.tgs[tg as usize].bw = Some(super::bandwidth::CfsBandwidth::new(quota, period, burst));
        for q in self.tgs[tg as usize].cfs_rq.clone() {
            let cq = &mut self.qs[q as usize];
            cq.runtime_enabled = true;
            cq.runtime_remaining = 0;
        }
    }

    /// Models `set_task_rq()`: points task entity `se` of task group `tg` at that group's
    /// cfs_rq and group entity on `cpu` (the entity is off its runqueue).
    pub fn set_task_rq(&mut self, se: EntityId, tg: u32, cpu: u32) {
        let g = &self.tgs[tg as usize];
        let (q, parent, depth) = (g.cfs_rq[cpu as usize], g.se[cpu as usize], g.depth);
        if self.ents[se as usize].cfs_rq != q {
            // migrate_task_rq_fair() / the cgroup change: the old cfs_rq drops its load.
            self.remove_entity_load_avg(se);
        }
        let e = &mut self.ents[se as usize];
        e.cfs_rq = q;
        e.parent = parent;
        e.depth = parent.map(|_| depth + 1).unwrap_or(0);
    }

    /// Log id of an entity: the task id, or `GROUP_NODE | tg` for a group entity.
    pub fn node_of(&self, se: EntityId) -> u32 {
        match self.ents[se as usize].task {
            Some(t) => t,
            None => GROUP_NODE | self.qs[self.ents[se as usize].my_q.expect("group entity") as usize].tg,
        }
    }

    /// Keeps `tg->load_avg` equal to Σ per-CPU loads after `q`'s load changed.
    /// Under `group_shares = pelt` this is `update_tg_load_avg()`'s job (`group_pelt.rs`).
    pub fn update_tg_load(&mut self, q: CfsRqId) {
        let cq = &self.qs[q as usize];
        if cq.tg == 0 || self.pelt_shares() {
            return;
        }
        let (tg, cpu, load) = (cq.tg as usize, cq.cpu as usize, scale_load_down(cq.load_weight));
        let g = &mut self.tgs[tg];
        g.load_sum = g.load_sum - g.contrib[cpu] + load;
        g.contrib[cpu] = load;
    }

    /// Models `calc_group_shares()`: the group's shares split across CPUs by load. Under
    /// `group_shares = pelt` as the kernel does it: the queue's load is the larger of its
    /// runnable weight and its PELT `load_avg`, `tg_weight` is `tg->load_avg` with this queue's
    /// stale contribution replaced by that load; otherwise the instantaneous shortcut (module
    /// docs), where load_sum/contrib hold runnable weights.
    pub fn calc_group_shares(&self, gq: CfsRqId) -> u64 {
        let cq = &self.qs[gq as usize];
        if let Some(w) = cq.recorded_shares {
            return w;
        }
        let g = &self.tgs[cq.tg as usize];
        let mut load = scale_load_down(cq.load_weight);
        if self.pelt_shares() {
            load = load.max(cq.avg.load_avg);
        }
        let tg_weight = g.load_sum - g.contrib[cq.cpu as usize] + load;
        let shares = g.shares * load;
        shares.checked_div(tg_weight).unwrap_or(shares).clamp(MIN_SHARES, g.shares)
    }

    /// Models `update_cfs_group()` (6.18): re-weigh a group entity from its queue's share of
    /// the group's load. Skipped for tasks and for empty group queues (an emptied group keeps
    /// its weight, for DELAY_DEQUEUE). A throttled hierarchy is re-weighed too: only ≤6.17
    /// (the cfs_rq-based throttle, kept as that variant) skipped it.
    pub fn update_cfs_group(&mut self, se: EntityId) {
        let Some(gq) = self.ents[se as usize].my_q else { return };
        if self.qs[gq as usize].load_weight == 0 || self.legacy_throttled_hierarchy(gq) {
            return;
        }
        let shares = self.calc_group_shares(gq);
        if self.ents[se as usize].load.weight != shares {
            let q = self.ents[se as usize].cfs_rq;
            self.reweight_entity(q, se, shares);
        }
    }

    /// Models `reweight_entity()` (6.18.y): save lag, make the deadline relative, change the
    /// weight scaling vlag and the relative deadline by old/new, and re-place.
    ///
    /// The running entity's RUN_TO_PARITY limit, as 6.18.y does it (`rel_vprot`: ff38424030f9
    /// "sched/eevdf: Update se->vprot in reweight_entity()", in 6.18.y stable since March 2026,
    /// present in 6.18.26, absent in 6.18.2):
    /// if curr is still protected, `vprot − vruntime` is scaled by old/new like the deadline
    /// and re-based on the new vruntime. On 6.18.y `vlag` and `vprot` share one field (a
    /// union, `include/linux/sched.h`) and `update_entity_lag()` writes it just before the
    /// protection is tested, so the test reads the lag as if it were vprot: it passes only
    /// while vruntime < vlag (signed), and the relative value it carries is `vlag − vruntime`.
    /// Otherwise the field keeps the rescaled lag and the protection is over. The engine keeps
    /// the two apart elsewhere (see `SchedEntity`), so it writes the union's effect here.
    pub fn reweight_entity(&mut self, q: CfsRqId, se: EntityId, weight: u64) {
        let is_curr = self.qs[q as usize].curr == Some(se);
        let on_rq = self.ents[se as usize].on_rq;
        let mut rel_vprot: Option<i64> = None;
        if on_rq {
            self.update_curr(q);
            self.update_entity_lag(q, se);
            let e = &mut self.ents[se as usize];
            if is_curr {
                // The union: writing vlag overwrote curr's vprot.
                e.vprot = e.vlag as u64;
            }
            e.deadline = e.deadline.wrapping_sub(e.vruntime);
            e.rel_deadline = true;
            if is_curr && super::fair::protect_slice(e) {
                rel_vprot = Some(vdiff(e.vprot, e.vruntime));
            }
            self.qs[q as usize].nr_queued -= 1;
            if !is_curr {
                self.qs[q as usize].dequeue_timeline(&self.ents, se);
            }
            self.qs[q as usize].load_weight -= self.ents[se as usize].load.weight;
        }
        let e = &mut self.ents[se as usize];
        let old = e.load.weight as i128;
        // div_s64: truncation toward zero, as the i128 divisions do.
        e.vlag = (e.vlag as i128 * old / weight as i128) as i64;
        if e.rel_deadline {
            e.deadline = ((e.deadline as i64) as i128 * old / weight as i128) as i64 as u64;
        }
        if is_curr && on_rq {
            // The union again: the rescaled lag is what the field holds from here on.
            e.vprot = e.vlag as u64;
        }
        let rel_vprot = rel_vprot.map(|v| (v as i128 * old / weight as i128) as i64);
        // dequeue_load_avg(), update_load_set(), se->avg.load_avg rescaled, enqueue_load_avg().
        self.reweight_load_avg(q, se, |f| f.ents[se as usize].load = LoadWeight::lazy(weight));
        if on_rq {
            self.place_entity(q, se, 0);
            if let Some(v) = rel_vprot {
                let e = &mut self.ents[se as usize];
                e.vprot = e.vruntime.wrapping_add(v as u64);
            }
            self.qs[q as usize].load_weight += self.ents[se as usize].load.weight;
            if !is_curr {
                self.qs[q as usize].enqueue_timeline(&self.ents, se);
            }
            self.qs[q as usize].nr_queued += 1;
        }
        self.update_tg_load(q);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cgroup_weights() {
        assert_eq!(shares_from_v1(1024), NICE_0_LOAD);
        assert_eq!(shares_from_v1(2048), 2 * NICE_0_LOAD);
        assert_eq!(shares_from_v1(1), scale_load(2));
        assert_eq!(shares_from_v2_weight(100), NICE_0_LOAD);
        assert_eq!(shares_from_v2_weight(1), scale_load(10));
        assert_eq!(shares_from_v2_weight(10_000), scale_load(102_400));
    }
}
