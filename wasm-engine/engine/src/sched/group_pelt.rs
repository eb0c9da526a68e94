//! Group entity weights from PELT (`group_shares = pelt`): the load tracking of
//! kernel/sched/fair.c (Linux 6.18) wired onto the arithmetic of `pelt.rs`, for
//! `calc_group_shares()`.
//!
//! Every sched_entity and cfs_rq carries a [`SchedAvg`]. `update_load_avg()` ages the entity,
//! then its cfs_rq (folding in loads removed by migrations), propagates a group entity's
//! pending change from its own cfs_rq (`propagate_entity_load_avg()`: `update_tg_cfs_util`,
//! `_runnable` and `_load`, all three as the kernel does them), attaches an entity that has no
//! PELT history on this queue yet (`attach_entity_load_avg()`: a new task, or one that
//! migrated), and refreshes `tg->load_avg` (`update_tg_load_avg()`: only when the cfs_rq's
//! average moved by more than 1/64 of its last contribution, and at most once per ms per
//! cfs_rq, the 6.18 rate limit). `calc_group_shares()` then reads those averages (`group.rs`).
//!
//! Call sites of `update_load_avg()` modelled (the kernel's flags):
//! * `enqueue_entity()` (UPDATE_TG | DO_ATTACH), after `update_curr()`, before `update_cfs_group()`;
//! * `dequeue_entity()`: before a delayed dequeue (0), and before the real one (UPDATE_TG);
//! * `set_next_entity()` (UPDATE_TG) and `put_prev_entity()` (0) for a queued entity;
//! * `entity_tick()` (UPDATE_TG), before `update_cfs_group()`;
//! * `requeue_delayed_entity()` (0);
//! * `enqueue_task_fair()`/`dequeue_entities()` on the levels already queued (UPDATE_TG);
//! * `__update_blocked_fair()` (the blocked-load update of the periodic balance), see
//!   [`Fair::pelt_periodic`].
//!
//! `DO_DETACH`: a queued task moved by the load balancer (`sched/balance`) is detached at its
//! dequeue (`detach_entity_load_avg()`), as `task_on_rq_migrating()` makes the kernel do;
//! wakeup migrations and cgroup moves go through `remove_entity_load_avg()`.
//!
//! Not modelled: `attach/detach_task_cfs_rq()`
//! of class and cgroup changes (same removal path); `task_dead_fair()` (an exiting task's load
//! decays as blocked load instead of being removed); the throttle paths (`tg_throttle_down()`
//! etc.); util_est; cpufreq hooks.
//!
//! Named shortcuts:
//! * PELT clock: the simulator's `now` (plus a constant offset so that no clock reads 0, which
//!   the kernel uses as "not attached"): no capacity or frequency scaling (our VM's CPUs are at
//!   1024, no cpufreq), no `clock_pelt` catch-up/lost-idle-time adjustment at idle
//!   (`update_idle_rq_clock_pelt()`), and no stop of a throttled cfs_rq's PELT clock
//!   (`throttled_clock_pelt_time`). `update_tg_load_avg()`'s `sched_clock_cpu()` is the same clock.
//! * Blocked load is aged by [`Fair::pelt_periodic`]: at every tick of a CPU for that CPU (the
//!   kernel's periodic balance runs `sched_balance_update_blocked_averages()` every balance
//!   interval, a few ticks), and every 32 ms for idle CPUs (the nohz idle balancer's
//!   `nohz.next_blocked`, LOAD_AVG_PERIOD ms).
//! * A group entity's `runnable_weight` is read at its update (the kernel updates it just after).
//! * A task's PELT history before the simulation (or the trace) is that of a new task:
//!   `load_avg` = its weight, no sums.

use super::entity::{CfsRqId, EntityId};
use super::fair::Fair;
use super::pelt::{
    __update_load_avg_blocked_se, __update_load_avg_cfs_rq, __update_load_avg_se, get_pelt_divider, scale_load_down,
    SchedAvg, LOAD_AVG_PERIOD, PELT_MIN_DIVIDER, SCHED_CAPACITY_SHIFT,
};

/// `UPDATE_TG`: refresh `tg->load_avg` if the cfs_rq's average decayed.
pub const UPDATE_TG: u32 = 0x1;
/// `SKIP_AGE_LOAD`: do not age the entity first.
pub const SKIP_AGE_LOAD: u32 = 0x2;
/// `DO_ATTACH`: attach an entity without PELT history on this cfs_rq.
pub const DO_ATTACH: u32 = 0x4;
/// `DO_DETACH`: detach a migrating entity from this cfs_rq (`dequeue_entity()` of a task
/// being moved by the load balancer).
pub const DO_DETACH: u32 = 0x8;

/// Offset of the PELT clock over the simulator's `now`, so that no update time is 0.
pub const PELT_CLOCK_BASE: u64 = 1 << 32;
/// `NSEC_PER_MSEC`: the rate limit of `update_tg_load_avg()` (6.18).
pub const TG_LOAD_AVG_RATE_NS: u64 = 1_000_000;
/// The nohz idle balancer's blocked-load period: LOAD_AVG_PERIOD ms.
pub const NOHZ_BLOCKED_NS: u64 = LOAD_AVG_PERIOD * 1_000_000;

/// How group entity weights are computed (`group_shares` knob).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GroupShares {
    /// The instantaneous runnable weights (the engine's historical shortcut, `group.rs`).
    #[default]
    Instant,
    /// The kernel's PELT averages (this module).
    Pelt,
}

/// `cfs_rq->removed`: loads of entities that left the cfs_rq, folded in at its next update.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Removed {
    pub nr: u32,
    pub load_avg: u64,
    pub util_avg: u64,
    pub runnable_avg: u64,
}

/// `add_positive()`: var += val, 0 if it would go below 0.
fn add_positive(var: &mut u64, val: i64) {
    let res = var.wrapping_add(val as u64);
    *var = if val < 0 && res > *var { 0 } else { res };
}

/// `sub_positive()`: var -= val, 0 if it would go below 0.
fn sub_positive(var: &mut u64, val: u64) {
    *var = var.saturating_sub(val);
}

/// `add_positive()` on the u32 `util_sum`.
fn add_positive_u32(var: &mut u32, val: i64) {
    let res = var.wrapping_add(val as u32);
    *var = if val < 0 && res > *var { 0 } else { res };
}

/// `max_t(u32, sum, avg * PELT_MIN_DIVIDER)`: both operands cut to 32 bits, as the kernel does.
fn floor_sum(sum: u64, avg: u64) -> u64 {
    (sum as u32).max((avg.wrapping_mul(PELT_MIN_DIVIDER as u64)) as u32) as u64
}

impl Fair {
    /// Whether PELT averages are tracked: for PELT group shares, and for the SMP model
    /// (wakeup placement and load balancing read `cpu_load()`/`cpu_util()`).
    #[inline]
    pub fn pelt(&self) -> bool {
        self.pelt_tracking
    }

    /// Whether group weights come from PELT (`group_shares = pelt`).
    #[inline]
    pub fn pelt_shares(&self) -> bool {
        self.group_shares == GroupShares::Pelt
    }

    /// `cfs_rq_clock_pelt()`: see the module's shortcuts.
    #[inline]
    pub fn clock_pelt(&self) -> u64 {
        self.now.wrapping_add(PELT_CLOCK_BASE)
    }

    /// `se_runnable()`.
    fn se_runnable(&self, se: EntityId) -> u64 {
        let e = &self.ents[se as usize];
        if e.sched_delayed {
            return 0;
        }
        match e.my_q {
            Some(gq) => self.qs[gq as usize].h_nr_runnable as u64,
            None => e.on_rq as u64,
        }
    }

    /// `se_weight()`: the entity's weight at the 1024 scale.
    fn se_weight(&self, se: EntityId) -> u64 {
        scale_load_down(self.ents[se as usize].load.weight)
    }

    /// Models `update_load_avg()` (see the module docs). No-op unless `group_shares = pelt`.
    pub fn update_load_avg(&mut self, q: CfsRqId, se: EntityId, flags: u32) {
        if !self.pelt() {
            return;
        }
        self.touch_cpu_counters(self.qs[q as usize].cpu);
        let now = self.clock_pelt();
        if self.ents[se as usize].my_q.is_some() && self.ents[se as usize].avg.last_update_time == 0 {
            // A group entity is attached, empty, when its group comes online
            // (`online_fair_sched_group()` → `attach_entity_cfs_rq()`), before any load below it
            // propagates up: attached here at its first update, which is the same (nothing has
            // aged it), so that the propagation below adds its child's load to the parent once.
            self.update_cfs_rq_load_avg(now, q);
            self.attach_entity_load_avg(q, se);
        }
        if self.ents[se as usize].avg.last_update_time != 0 && flags & SKIP_AGE_LOAD == 0 {
            let (weight, on_rq) = (self.ents[se as usize].load.weight, self.ents[se as usize].on_rq);
            let runnable = self.se_runnable(se);
            let curr = self.qs[q as usize].curr == Some(se);
            __update_load_avg_se(now, &mut self.ents[se as usize].avg, weight, on_rq, runnable, curr);
        }
        let mut decayed = self.update_cfs_rq_load_avg(now, q);
        decayed |= self.propagate_entity_load_avg(se);
        if self.ents[se as usize].avg.last_update_time == 0 && flags & DO_ATTACH != 0 {
            self.attach_entity_load_avg(q, se);
            self.update_tg_load_avg(q);
        } else if flags & DO_DETACH != 0 {
            self.detach_entity_load_avg(q, se);
            self.update_tg_load_avg(q);
        } else if decayed && flags & UPDATE_TG != 0 {
            self.update_tg_load_avg(q);
        }
    }

    /// Models `update_cfs_rq_load_avg()`: fold in removed loads, then age the cfs_rq.
    fn update_cfs_rq_load_avg(&mut self, now: u64, q: CfsRqId) -> bool {
        let mut decayed = false;
        let cq = &mut self.qs[q as usize];
        if cq.removed.nr != 0 {
            let r = std::mem::take(&mut cq.removed);
            let sa = &mut cq.avg;
            let divider = get_pelt_divider(sa) as u64;
            sub_positive(&mut sa.load_avg, r.load_avg);
            sub_positive(&mut sa.load_sum, r.load_avg * divider);
            sa.load_sum = floor_sum(sa.load_sum, sa.load_avg);
            sub_positive(&mut sa.util_avg, r.util_avg);
            let mut util_sum = sa.util_sum as u64;
            sub_positive(&mut util_sum, r.util_avg * divider);
            sa.util_sum = floor_sum(util_sum, sa.util_avg) as u32;
            sub_positive(&mut sa.runnable_avg, r.runnable_avg);
            sub_positive(&mut sa.runnable_sum, r.runnable_avg * divider);
            sa.runnable_sum = floor_sum(sa.runnable_sum, sa.runnable_avg);
            let prop = (-((r.runnable_avg * divider) as i64)) >> SCHED_CAPACITY_SHIFT;
            add_tg_cfs_propagate(cq, prop);
            decayed = true;
        }
        let (w, h, has_curr) = (cq.load_weight, cq.h_nr_runnable as u64, cq.curr.is_some());
        decayed | __update_load_avg_cfs_rq(now, &mut cq.avg, w, h, has_curr)
    }

    /// Models `attach_entity_load_avg()`: align the entity's window with the cfs_rq's,
    /// rebuild its sums from its averages, and add it to the cfs_rq.
    fn attach_entity_load_avg(&mut self, q: CfsRqId, se: EntityId) {
        let w = self.se_weight(se);
        let qa = self.qs[q as usize].avg;
        let divider = get_pelt_divider(&qa) as u64;
        let sa = &mut self.ents[se as usize].avg;
        sa.last_update_time = qa.last_update_time;
        sa.period_contrib = qa.period_contrib;
        sa.util_sum = (sa.util_avg * divider) as u32;
        sa.runnable_sum = sa.runnable_avg * divider;
        sa.load_sum = sa.load_avg * divider;
        sa.load_sum = if w < sa.load_sum { sa.load_sum / w } else { 1 };
        let sa = *sa;
        let cq = &mut self.qs[q as usize];
        cq.avg.load_avg += sa.load_avg;
        cq.avg.load_sum += w * sa.load_sum;
        cq.avg.util_avg += sa.util_avg;
        cq.avg.util_sum = cq.avg.util_sum.wrapping_add(sa.util_sum);
        cq.avg.runnable_avg += sa.runnable_avg;
        cq.avg.runnable_sum += sa.runnable_sum;
        add_tg_cfs_propagate(cq, sa.load_sum as i64);
    }

    /// Models `detach_entity_load_avg()`: take the entity's averages out of the cfs_rq now.
    fn detach_entity_load_avg(&mut self, q: CfsRqId, se: EntityId) {
        let w = self.se_weight(se);
        let sa = self.ents[se as usize].avg;
        let cq = &mut self.qs[q as usize];
        // dequeue_load_avg()
        sub_positive(&mut cq.avg.load_avg, sa.load_avg);
        sub_positive(&mut cq.avg.load_sum, w * sa.load_sum);
        cq.avg.load_sum = floor_sum(cq.avg.load_sum, cq.avg.load_avg);
        let mut util_sum = cq.avg.util_sum as u64;
        sub_positive(&mut cq.avg.util_avg, sa.util_avg);
        sub_positive(&mut util_sum, sa.util_sum as u64);
        cq.avg.util_sum = floor_sum(util_sum, cq.avg.util_avg) as u32;
        sub_positive(&mut cq.avg.runnable_avg, sa.runnable_avg);
        sub_positive(&mut cq.avg.runnable_sum, sa.runnable_sum);
        cq.avg.runnable_sum = floor_sum(cq.avg.runnable_sum, cq.avg.runnable_avg);
        add_tg_cfs_propagate(cq, -(sa.load_sum as i64));
    }

    /// Models `remove_entity_load_avg()` (from `migrate_task_rq_fair()` and the cgroup/CPU
    /// change in `set_task_rq`): sync the entity to its old cfs_rq's clock and leave its
    /// averages for that cfs_rq to subtract at its next update; the entity re-attaches at its
    /// next enqueue.
    pub fn remove_entity_load_avg(&mut self, se: EntityId) {
        if !self.pelt() || self.ents[se as usize].avg.last_update_time == 0 {
            return;
        }
        let q = self.ents[se as usize].cfs_rq;
        let lut = self.qs[q as usize].avg.last_update_time;
        let weight = self.ents[se as usize].load.weight;
        let sa = &mut self.ents[se as usize].avg;
        __update_load_avg_blocked_se(lut, sa, weight);
        let sa = *sa;
        let r = &mut self.qs[q as usize].removed;
        r.nr += 1;
        r.util_avg += sa.util_avg;
        r.load_avg += sa.load_avg;
        r.runnable_avg += sa.runnable_avg;
        self.ents[se as usize].avg.last_update_time = 0;
    }

    /// Models `propagate_entity_load_avg()` with `update_tg_cfs_util()`,
    /// `update_tg_cfs_runnable()` and `update_tg_cfs_load()`.
    fn propagate_entity_load_avg(&mut self, se: EntityId) -> bool {
        let Some(gq) = self.ents[se as usize].my_q else { return false };
        if !self.qs[gq as usize].propagate {
            return false;
        }
        self.qs[gq as usize].propagate = false;
        let q = self.ents[se as usize].cfs_rq;
        let prs = self.qs[gq as usize].prop_runnable_sum;
        add_tg_cfs_propagate(&mut self.qs[q as usize], prs);
        let g = self.qs[gq as usize].avg;
        let divider = get_pelt_divider(&self.qs[q as usize].avg) as u64;
        // update_tg_cfs_util()
        let delta_avg = g.util_avg as i64 - self.ents[se as usize].avg.util_avg as i64;
        if delta_avg != 0 {
            let sa = &mut self.ents[se as usize].avg;
            sa.util_avg = g.util_avg;
            let new_sum = (sa.util_avg * divider) as u32;
            let delta_sum = new_sum as i64 - sa.util_sum as i64;
            sa.util_sum = new_sum;
            let pa = &mut self.qs[q as usize].avg;
            add_positive(&mut pa.util_avg, delta_avg);
            add_positive_u32(&mut pa.util_sum, delta_sum);
            pa.util_sum = floor_sum(pa.util_sum as u64, pa.util_avg) as u32;
        }
        // update_tg_cfs_runnable()
        let delta_avg = g.runnable_avg as i64 - self.ents[se as usize].avg.runnable_avg as i64;
        if delta_avg != 0 {
            let sa = &mut self.ents[se as usize].avg;
            sa.runnable_avg = g.runnable_avg;
            let new_sum = (sa.runnable_avg * divider) as u32;
            let delta_sum = new_sum as i64 - sa.runnable_sum as i64;
            sa.runnable_sum = new_sum as u64;
            let pa = &mut self.qs[q as usize].avg;
            add_positive(&mut pa.runnable_avg, delta_avg);
            add_positive(&mut pa.runnable_sum, delta_sum);
            pa.runnable_sum = floor_sum(pa.runnable_sum, pa.runnable_avg);
        }
        // update_tg_cfs_load()
        let mut runnable_sum = self.qs[gq as usize].prop_runnable_sum;
        if runnable_sum != 0 {
            self.qs[gq as usize].prop_runnable_sum = 0;
            let w = self.se_weight(se);
            let sa = self.ents[se as usize].avg;
            if runnable_sum >= 0 {
                runnable_sum = (runnable_sum + sa.load_sum as i64).min(divider as i64);
            } else {
                let gw = scale_load_down(self.qs[gq as usize].load_weight);
                let load_sum = g.load_sum.checked_div(gw).unwrap_or(0);
                runnable_sum = sa.load_sum.min(load_sum) as i64;
            }
            let running_sum = (sa.util_sum >> SCHED_CAPACITY_SHIFT) as i64;
            runnable_sum = runnable_sum.max(running_sum);
            let load_sum = w.wrapping_mul(runnable_sum as u64);
            let load_avg = load_sum / divider;
            let delta_avg = load_avg as i64 - sa.load_avg as i64;
            if delta_avg != 0 {
                let delta_sum = load_sum as i64 - (w * sa.load_sum) as i64;
                let sa = &mut self.ents[se as usize].avg;
                sa.load_sum = runnable_sum as u64;
                sa.load_avg = load_avg;
                let pa = &mut self.qs[q as usize].avg;
                add_positive(&mut pa.load_avg, delta_avg);
                add_positive(&mut pa.load_sum, delta_sum);
                pa.load_sum = floor_sum(pa.load_sum, pa.load_avg);
            }
        }
        true
    }

    /// Models `update_tg_load_avg()` (6.18): at most once per ms per cfs_rq, and only when the
    /// cfs_rq's `load_avg` moved by more than 1/64 of its last contribution.
    pub fn update_tg_load_avg(&mut self, q: CfsRqId) {
        if !self.pelt_shares() {
            // `tg->load_avg` is read only by calc_group_shares(); the instantaneous shortcut
            // keeps its own sums in the same fields (`update_tg_load`).
            return;
        }
        let now = self.clock_pelt();
        let cq = &mut self.qs[q as usize];
        if cq.tg == 0 {
            return;
        }
        if let Some(last) = cq.last_update_tg_load_avg {
            if now.wrapping_sub(last) < TG_LOAD_AVG_RATE_NS {
                return;
            }
        }
        let (tg, cpu) = (cq.tg as usize, cq.cpu as usize);
        let contrib = self.tgs[tg].contrib[cpu];
        let delta = cq.avg.load_avg as i64 - contrib as i64;
        if delta.unsigned_abs() > contrib / 64 {
            let g = &mut self.tgs[tg];
            g.load_sum = g.load_sum.wrapping_add(delta as u64);
            g.contrib[cpu] = cq.avg.load_avg;
            cq.last_update_tg_load_avg = Some(now);
        }
    }

    /// The load-average part of `reweight_entity()`: `dequeue_load_avg()`, the new weight,
    /// `se->avg.load_avg` recomputed from its sum, `enqueue_load_avg()`. `set_weight` changes
    /// the entity's weight.
    pub fn reweight_load_avg(&mut self, q: CfsRqId, se: EntityId, set_weight: impl FnOnce(&mut Fair)) {
        if !self.pelt() {
            set_weight(self);
            return;
        }
        self.touch_cpu_counters(self.qs[q as usize].cpu);
        let (w, sa) = (self.se_weight(se), self.ents[se as usize].avg);
        let pa = &mut self.qs[q as usize].avg;
        sub_positive(&mut pa.load_avg, sa.load_avg);
        sub_positive(&mut pa.load_sum, w * sa.load_sum);
        pa.load_sum = floor_sum(pa.load_sum, pa.load_avg);
        set_weight(self);
        let w = self.se_weight(se);
        let sa = &mut self.ents[se as usize].avg;
        sa.load_avg = w * sa.load_sum / get_pelt_divider(sa) as u64;
        let sa = *sa;
        let pa = &mut self.qs[q as usize].avg;
        pa.load_avg += sa.load_avg;
        pa.load_sum += w * sa.load_sum;
    }

    /// Models `__update_blocked_fair()` for `cpu`: every cfs_rq of the CPU, children before
    /// parents, is aged (and refreshes its `tg->load_avg` contribution), then its group entity
    /// unless it has nothing left to decay (`skip_blocked_update()`).
    pub fn update_blocked_averages(&mut self, cpu: u32) {
        self.touch_cpu_counters(cpu);
        let now = self.clock_pelt();
        for tg in (0..self.tgs.len()).rev() {
            let q = self.tgs[tg].cfs_rq[cpu as usize];
            if self.update_cfs_rq_load_avg(now, q) {
                self.update_tg_load_avg(q);
            }
            if let Some(se) = self.tgs[tg].se[cpu as usize] {
                let sa = self.ents[se as usize].avg;
                if sa.load_avg != 0 || sa.util_avg != 0 || self.qs[q as usize].propagate {
                    let pq = self.ents[se as usize].cfs_rq;
                    self.update_load_avg(pq, se, UPDATE_TG);
                }
            }
        }
        self.last_blocked[cpu as usize] = Some(self.now);
    }

    /// `post_init_entity_util_avg()` (`wake_up_new_task()`, after the CPU is chosen): a new
    /// task's utilization starts at its weight's share of its cfs_rq's, capped at half the
    /// CPU's spare capacity (half the capacity on an idle queue); runnable starts equal.
    pub fn post_init_entity_util_avg(&mut self, se: EntityId) {
        self.post_init_entity_util_avg_on(se, self.ents[se as usize].cfs_rq);
    }

    /// `post_init_entity_util_avg()` reading cfs_rq `q`: the one the task is forked into, which
    /// the replay may know to be its parent's group rather than the task's later one.
    pub fn post_init_entity_util_avg_on(&mut self, se: EntityId, q: super::entity::CfsRqId) {
        if !self.pelt() {
            return;
        }
        let (cq_util, cq_load) = (self.qs[q as usize].avg.util_avg, self.qs[q as usize].avg.load_avg);
        let cap = (1i64 << SCHED_CAPACITY_SHIFT) - cq_util as i64;
        let cap = cap / 2;
        let w = self.se_weight(se);
        let sa = &mut self.ents[se as usize].avg;
        if cap > 0 {
            sa.util_avg = if cq_util != 0 { (cq_util * w / (cq_load + 1)).min(cap as u64) } else { cap as u64 };
        }
        sa.runnable_avg = sa.util_avg;
    }

    /// Sets a CPU's root cfs_rq averages from outside the model, as of now: at time 0 (scenario
    /// `host.cfs_rq_avg`: the blocked load and utilization of tasks the run does not model,
    /// which decay from the start as `update_cfs_rq_load_avg()` decays any blocked
    /// contribution), or the kernel's recorded values during a replay (`replay --cpu-avg`).
    /// The sums follow from the averages as `attach_entity_load_avg()` derives an entity's.
    pub fn start_cfs_rq_avg(&mut self, cpu: u32, load_avg: u64, runnable_avg: u64, util_avg: u64) {
        let now = self.clock_pelt();
        let q = self.rqs[cpu as usize].cfs as usize;
        let sa = &mut self.qs[q].avg;
        *sa = SchedAvg { last_update_time: now, ..Default::default() };
        let divider = get_pelt_divider(sa) as u64;
        sa.load_avg = load_avg;
        sa.load_sum = load_avg * divider;
        sa.runnable_avg = runnable_avg;
        sa.runnable_sum = runnable_avg * divider;
        sa.util_avg = util_avg;
        sa.util_sum = (util_avg * divider) as u32;
    }

    /// The periodic blocked-load updates, run at a tick of `cpu` (module docs): `cpu` itself,
    /// and every idle CPU not updated for 32 ms. No-op unless `group_shares = pelt`.
    pub fn pelt_periodic(&mut self, cpu: u32) {
        if !self.pelt() {
            return;
        }
        self.update_blocked_averages(cpu);
        if self.lb_enabled() {
            // The nohz idle balancer ages idle CPUs (`sched/balance`).
            return;
        }
        for c in 0..self.rqs.len() as u32 {
            let stale = self.last_blocked[c as usize].is_none_or(|t| self.now.saturating_sub(t) >= NOHZ_BLOCKED_NS);
            if c != cpu && self.rqs[c as usize].curr.is_none() && stale {
                self.update_blocked_averages(c);
            }
        }
    }
}

/// `add_tg_cfs_propagate()`.
fn add_tg_cfs_propagate(cq: &mut super::cfs_rq::CfsRq, runnable_sum: i64) {
    cq.propagate = true;
    cq.prop_runnable_sum += runnable_sum;
}

/// The averages a task that existed before the run brings (scenario `existing`), in place of
/// `init_entity_runnable_average()`'s: unattached until its first enqueue, where
/// `attach_entity_load_avg()` derives the sums from them, as for a migrated task.
pub fn existing_entity_avg(ex: &crate::scenario::schema::ExistingSpec) -> SchedAvg {
    SchedAvg { load_avg: ex.load_avg, runnable_avg: ex.runnable_avg, util_avg: ex.util_avg, ..Default::default() }
}

/// A fresh entity's averages (`init_entity_runnable_average()`): a task starts with its
/// weight as load, a group entity with nothing.
pub fn init_entity_runnable_average(weight: u64, is_task: bool) -> SchedAvg {
    SchedAvg { load_avg: if is_task { scale_load_down(weight) } else { 0 }, ..Default::default() }
}
