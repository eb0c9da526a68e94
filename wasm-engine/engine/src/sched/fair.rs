//! The EEVDF accounting core of kernel/sched/fair.c (Linux 6.18.44): `update_curr`,
//! `update_deadline`, `avg_vruntime`, lag, `place_entity`, `enqueue_entity`,
//! `dequeue_entity` with delayed dequeue, and the tick.
//!
//! Picking lives in `pick.rs`, yield in `yield_.rs`, wakeup preemption in `wakeup.rs`.

use super::cfs_rq::{floor_div, CfsRq};
use super::entity::{vbefore, vdiff, CfsRqId, EntityId, SchedEntity};
use super::features::SchedFeatures;
use super::group_pelt::{DO_ATTACH, UPDATE_TG};
use super::weight::calc_delta_fair;
use crate::obs::log::{flag, BuddySource, EventKind, EventLog, SwitchReason, NO_TASK};

/// `ENQUEUE_WAKEUP`.
pub const ENQUEUE_WAKEUP: u32 = 0x01;
/// `ENQUEUE_INITIAL` (a new task: PLACE_DEADLINE_INITIAL applies).
pub const ENQUEUE_INITIAL: u32 = 0x02;
/// `ENQUEUE_MIGRATED`.
pub const ENQUEUE_MIGRATED: u32 = 0x04;
/// `DEQUEUE_SLEEP`.
pub const DEQUEUE_SLEEP: u32 = 0x01;
/// `DEQUEUE_DELAYED`: finishing a delayed dequeue.
pub const DEQUEUE_DELAYED: u32 = 0x02;
/// `DEQUEUE_SPECIAL`: never delay (used here for exit, see `Sim::exit_task`).
pub const DEQUEUE_SPECIAL: u32 = 0x04;
/// `DEQUEUE_THROTTLE` (6.18, the kernel's value): the task-based throttle's dequeue
/// (`throttle_cfs_rq_work`). Like `DEQUEUE_SPECIAL` it forbids a delayed dequeue, but
/// `dequeue_entities()` keeps it on the way up, so no group entity of a throttled hierarchy is
/// left delayed in its parent.
pub const DEQUEUE_THROTTLE: u32 = 0x800;

/// How `yield_task_fair()` treats the yielder. Named as in the scenario file's `yield`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum YieldFlavour {
    /// 79104becf42b (6.19; in 6.18.y stable since 6.18.2; measured on 6.18.44): an eligible yielder
    /// forfeits: vruntime = deadline, deadline += slice. An ineligible one is untouched.
    Forfeit,
    /// 6.12 … 6.18.1: deadline += slice, vruntime unchanged.
    DeadlineBump,
    /// K Prateek Nayak (Nov 2025): forfeit at each level while eligible, stopping where
    /// another runnable task sits below.
    Hierarchical,
}

/// How `update_entity_lag()` bounds the saved lag. Named as in the scenario file's `lag_clamp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum LagClamp {
    /// ±calc_delta_fair(max_slice + TICK_NSEC), max_slice being the largest slice of curr
    /// and the queued entities ("fix lag clamp", 6.18.y stable as of 6.18.26). Measured on 6.18.44.
    MaxSliceTick,
    /// ±calc_delta_fair(max(2·slice, TICK_NSEC)) of the entity itself (6.6 … 6.18.2).
    TwoSliceOrTick,
}

/// Scheduler tunables of one simulated kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchedParams {
    /// `sysctl_sched_base_slice` (ns) after tunable scaling.
    pub base_slice: u64,
    /// `normalized_sysctl_sched_base_slice` (ns, default 700 µs).
    pub normalized_base_slice: u64,
    /// `TICK_NSEC` = 10^9 / HZ.
    pub tick_nsec: u64,
    /// When the jiffies begin (`host.tick_phase`, below `tick_nsec`): the ticks fire at this
    /// offset plus each multiple of `tick_nsec`.
    pub tick_phase: u64,
    /// yield_task_fair flavour.
    pub yield_flavour: YieldFlavour,
    /// Lag clamp flavour.
    pub lag_clamp: LagClamp,
    /// Kuba Piecuch's `yield_interval_ns` (0 = off, mainline).
    pub yield_interval_ns: u64,
    /// The debooster's 6 ms rate limiter is active.
    pub debooster_rate_limit: bool,
    /// What `yield_to_task_fair()` does.
    pub yield_to: super::yield_to::YieldToFlavour,
    /// Which `check_preempt_wakeup_fair()` runs.
    pub wakeup_preempt: super::wakeup::WakeupPreempt,
    /// `sched_vcpu_pack=` of this build's vendor wake placement (`select_vendor.rs`): 15 on
    /// the machine, 0 = 6.18.y stable's placement.
    pub vcpu_pack: u32,
}

/// Per-CPU `struct rq` (the fair part of it).
#[derive(Debug, Clone)]
pub struct Rq {
    /// CPU number.
    pub cpu: u32,
    /// The root cfs_rq (`rq->cfs`).
    pub cfs: CfsRqId,
    /// Task entity running on this CPU (`rq->curr`), None when idle.
    pub curr: Option<EntityId>,
    /// `rq->nr_running`: tasks queued on this CPU, delayed ones included.
    pub nr_running: u32,
    /// `TIF_NEED_RESCHED` with the reason the resched was raised.
    pub need_resched: Option<SwitchReason>,
}

/// The scheduler state of the whole host: entities, queues and rqs.
#[derive(Debug, Clone)]
pub struct Fair {
    /// Every sched_entity; task entities first, indexed by task id.
    pub ents: Vec<SchedEntity>,
    /// Every cfs_rq; the first `ncpus` are the root queues.
    pub qs: Vec<CfsRq>,
    /// Per-CPU rqs.
    pub rqs: Vec<Rq>,
    /// Feature bits.
    pub feat: SchedFeatures,
    /// Tunables.
    pub params: SchedParams,
    /// The observation log.
    pub log: EventLog,
    /// Current simulated time (the rq clock of every CPU; no irq time is modeled).
    pub now: u64,
    /// Reason a resched raised by update_curr is attributed to (tick vs other points).
    pub resched_ctx: SwitchReason,
    /// CPUs whose need_resched was raised since the simulation last looked (unordered).
    pub resched_pending: Vec<u32>,
    /// Task groups; 0 is the root group.
    pub tgs: Vec<super::group::TaskGroup>,
    /// CFS bandwidth implementation.
    pub throttle_mode: super::bandwidth::ThrottleMode,
    /// Bandwidth timers to arm (drained by the simulation).
    pub bw_timers: Vec<super::bandwidth::BwTimer>,
    /// Tasks re-enqueued by an unthrottle (drained by the simulation).
    pub unthrottled_tasks: Vec<EntityId>,
    /// Tasks picked through a throttled hierarchy, owed the throttle task_work at their return
    /// to user space (drained by the simulation, which arms it).
    pub throttle_work: Vec<EntityId>,
    /// Bandwidth counters.
    pub bw_stats: super::bandwidth::BandwidthStats,
    /// Cost model of distribute_cfs_runtime().
    pub distribute_cost: super::bandwidth::DistributeCost,
    /// Per-task `last_yield` (yield throttling RFC).
    pub last_yield: Vec<u64>,
    /// Per-rq state of the yield_to proposals (debooster rate limit and debounce, sustained
    /// buddy).
    pub yield_to_state: Vec<super::yield_to::YieldToRqState>,
    /// Counters of the yield_to proposals.
    pub yield_to_stats: super::yield_to::YieldToStats,
    /// How group entity weights are computed (`group_shares` knob).
    pub group_shares: super::group_pelt::GroupShares,
    /// Whether PELT averages are tracked (`pelt()`): set with `group_shares = pelt` or the
    /// SMP model.
    pub pelt_tracking: bool,
    /// The SMP state under `smp = "fair"` (`smp.rs`), else None.
    pub smp: Option<Box<super::smp::Smp>>,
    /// Per CPU, when its blocked PELT averages were last updated (`group_shares = pelt`).
    pub last_blocked: Vec<Option<u64>>,
    /// The per-CPU load, util and nr_running counters (`record_cpu_counters()`); None: not
    /// logged (on only under `smp = "fair"` with movable tasks).
    pub cpu_counters: Option<Box<super::smp::CpuCounters>>,
}

impl Fair {
    /// A host with `ncpus` empty root queues.
    pub fn new(ncpus: u32, feat: SchedFeatures, params: SchedParams) -> Fair {
        let qs = (0..ncpus).map(|c| CfsRq::new(c, c, None)).collect();
        let rqs = (0..ncpus).map(|c| Rq { cpu: c, cfs: c, curr: None, nr_running: 0, need_resched: None }).collect();
        Fair {
            ents: Vec::new(),
            qs,
            rqs,
            feat,
            params,
            log: EventLog::new(),
            now: 0,
            resched_ctx: SwitchReason::Preempt,
            resched_pending: Vec::new(),
            tgs: vec![super::group::TaskGroup::root(ncpus)],
            throttle_mode: super::bandwidth::ThrottleMode::TaskBased,
            bw_timers: Vec::new(),
            unthrottled_tasks: Vec::new(),
            throttle_work: Vec::new(),
            bw_stats: Default::default(),
            distribute_cost: Default::default(),
            last_yield: Vec::new(),
            yield_to_state: vec![Default::default(); ncpus as usize],
            yield_to_stats: Default::default(),
            group_shares: Default::default(),
            pelt_tracking: false,
            smp: None,
            last_blocked: vec![None; ncpus as usize],
            cpu_counters: None,
        }
    }

    /// `calc_delta_fair(delta, se)`.
    #[inline]
    pub fn vs(&mut self, delta: u64, se: EntityId) -> u64 {
        calc_delta_fair(delta, &mut self.ents[se as usize].load)
    }

    /// Task id of an entity (NO_TASK for group entities).
    #[inline]
    pub fn task_of(&self, se: EntityId) -> u32 {
        self.ents[se as usize].task.unwrap_or(NO_TASK)
    }

    /// Models `avg_vruntime()` of 6.18.44 (zero_vruntime tracking as in b3d99f43c72b): returns
    /// V and moves `zero_vruntime` to it, rebasing `sum_w_vruntime`.
    pub fn avg_vruntime(&mut self, q: CfsRqId) -> u64 {
        let cq = &self.qs[q as usize];
        let curr = cq.curr_on_rq(&self.ents);
        let delta = if cq.sum_weight != 0 {
            let (num, den) = cq.avg_parts(&self.ents);
            floor_div(num, den)
        } else if let Some(c) = curr {
            vdiff(self.ents[c as usize].vruntime, cq.zero_vruntime)
        } else {
            0
        };
        let cq = &mut self.qs[q as usize];
        cq.sum_w_vruntime = cq.sum_w_vruntime.wrapping_sub((cq.sum_weight as i64).wrapping_mul(delta));
        cq.zero_vruntime = cq.zero_vruntime.wrapping_add(delta as u64);
        cq.zero_vruntime
    }

    /// Raises `TIF_NEED_RESCHED` on `cpu` (`resched_curr`).
    pub fn resched(&mut self, cpu: u32, reason: SwitchReason) {
        let rq = &mut self.rqs[cpu as usize];
        if rq.need_resched.is_none() {
            rq.need_resched = Some(reason);
            self.resched_pending.push(cpu);
            let task = rq.curr.map(|c| self.ents[c as usize].task.unwrap_or(NO_TASK)).unwrap_or(NO_TASK);
            self.log.event(self.now, EventKind::Resched, cpu, task, NO_TASK, reason as i64);
        }
    }

    /// Models `update_curr()` (fair.c, 6.18): charge the running entity of `q` for the time
    /// since `exec_start`, advance its vruntime, renew an expired deadline, and resched when
    /// the slice is used up or the RUN_TO_PARITY protection is over.
    pub fn update_curr(&mut self, q: CfsRqId) {
        let Some(c) = self.qs[q as usize].curr else { return };
        let now = self.now;
        let se = &mut self.ents[c as usize];
        let delta = vdiff(now, se.exec_start);
        if delta <= 0 {
            return;
        }
        let delta = delta as u64;
        se.exec_start = now;
        se.sum_exec_runtime += delta;
        let dv = calc_delta_fair(delta, &mut se.load);
        se.vruntime = se.vruntime.wrapping_add(dv);
        let resched = self.update_deadline(q, c);
        self.account_cfs_rq_runtime(q, delta);
        if self.qs[q as usize].nr_queued == 1 {
            return;
        }
        if resched || !protect_slice(&self.ents[c as usize]) {
            let cpu = self.qs[q as usize].cpu;
            let reason = self.resched_ctx;
            self.resched(cpu, reason);
            self.clear_buddies(q, c);
        }
    }

    /// Models `update_deadline()`: once vruntime reaches the deadline, request a new slice:
    /// deadline = vruntime + slice/w (re-based on the current vruntime).
    pub fn update_deadline(&mut self, q: CfsRqId, se: EntityId) -> bool {
        let e = &self.ents[se as usize];
        if vbefore(e.vruntime, e.deadline) {
            return false;
        }
        if !e.custom_slice {
            self.ents[se as usize].slice = self.params.base_slice;
        }
        let slice = self.ents[se as usize].slice;
        let vslice = self.vs(slice, se);
        let e = &mut self.ents[se as usize];
        e.deadline = e.vruntime.wrapping_add(vslice);
        // 6.18.44 carries the zero_vruntime tracking: the deadline update calls avg_vruntime().
        self.avg_vruntime(q);
        true
    }

    /// Models `entity_lag()` + `update_entity_lag()`: vlag = V − vruntime, clamped per
    /// `LagClamp` (6.18.44: ±calc_delta_fair(max_slice + TICK_NSEC)).
    pub fn update_entity_lag(&mut self, q: CfsRqId, se: EntityId) {
        let v = self.avg_vruntime(q);
        let e = &self.ents[se as usize];
        let lag = vdiff(v, e.vruntime);
        let limit_ns = match self.params.lag_clamp {
            LagClamp::MaxSliceTick => self.qs[q as usize].max_slice(&self.ents).max(e.slice) + self.params.tick_nsec,
            LagClamp::TwoSliceOrTick => (2 * e.slice).max(self.params.tick_nsec),
        };
        let limit = self.vs(limit_ns, se) as i64;
        self.ents[se as usize].vlag = lag.clamp(-limit, limit);
    }

    /// Models `place_entity()` (fair.c, 6.18): vruntime = V − inflated lag; deadline =
    /// vruntime + slice/w (half a slice for a new task with PLACE_DEADLINE_INITIAL).
    pub fn place_entity(&mut self, q: CfsRqId, se: EntityId, flags: u32) {
        let v = self.avg_vruntime(q);
        if !self.ents[se as usize].custom_slice {
            self.ents[se as usize].slice = self.params.base_slice;
        }
        let slice = self.ents[se as usize].slice;
        let mut vslice = self.vs(slice, se);
        let mut lag: i64 = 0;
        let cq = &self.qs[q as usize];
        let vlag = self.ents[se as usize].vlag;
        if self.feat.place_lag && cq.nr_queued > 0 && vlag != 0 {
            let mut load = cq.sum_weight as i64;
            if let Some(c) = cq.curr_on_rq(&self.ents) {
                load += self.ents[c as usize].w() as i64;
            }
            let w = self.ents[se as usize].w() as i64;
            let den = if load == 0 { 1 } else { load };
            // In 64 bits when the product cannot overflow, else in i128 (tested by magnitude:
            // a checked multiply is a 128-bit library call in wasm32).
            lag = if vlag.unsigned_abs() <= u32::MAX as u64 && (load + w).unsigned_abs() <= i32::MAX as u64 {
                vlag * (load + w) / den
            } else {
                (vlag as i128 * (load + w) as i128 / den as i128) as i64
            };
        }
        let e = &mut self.ents[se as usize];
        e.vruntime = v.wrapping_sub(lag as u64);
        if e.rel_deadline {
            e.deadline = e.deadline.wrapping_add(e.vruntime);
            e.rel_deadline = false;
        } else {
            if self.feat.place_deadline_initial && flags & ENQUEUE_INITIAL != 0 {
                vslice /= 2;
            }
            e.deadline = e.vruntime.wrapping_add(vslice);
        }
        let cpu = self.qs[q as usize].cpu;
        let task = self.task_of(se);
        self.log.event(self.now, EventKind::Place, cpu, task, NO_TASK, lag);
        self.sample(se);
    }

    /// Models `enqueue_entity()`.
    pub fn enqueue_entity(&mut self, q: CfsRqId, se: EntityId, flags: u32) {
        let is_curr = self.qs[q as usize].curr == Some(se);
        if is_curr {
            self.place_entity(q, se, flags);
        }
        self.update_curr(q);
        self.update_load_avg(q, se, UPDATE_TG | DO_ATTACH);
        // A group entity is re-weighed before it is placed (update_cfs_group).
        self.update_cfs_group(se);
        if !is_curr {
            self.place_entity(q, se, flags);
        }
        let w = self.ents[se as usize].load.weight;
        let cq = &mut self.qs[q as usize];
        cq.load_weight += w;
        cq.nr_queued += 1;
        self.update_tg_load(q);
        if flags & ENQUEUE_MIGRATED != 0 {
            self.ents[se as usize].exec_start = 0;
        }
        if !is_curr {
            self.qs[q as usize].enqueue_timeline(&self.ents, se);
        }
        self.ents[se as usize].on_rq = true;
        // account_entity_enqueue(): a task goes to the head of its CPU's cfs_tasks.
        if let Some(t) = self.ents[se as usize].task {
            self.cfs_tasks_head(t);
        }
        if self.qs[q as usize].nr_queued == 1 {
            self.check_enqueue_throttle(q);
        }
    }

    /// Models `dequeue_entity()` with DELAY_DEQUEUE (6.12+). Returns false when the entity
    /// was kept on the queue as delayed.
    pub fn dequeue_entity(&mut self, q: CfsRqId, se: EntityId, flags: u32) -> bool {
        let sleep = flags & DEQUEUE_SLEEP != 0;
        self.update_curr(q);
        self.clear_buddies(q, se);
        if flags & DEQUEUE_DELAYED == 0 {
            // Special task states and the throttle's dequeue are never delayed.
            let delay = sleep && flags & (DEQUEUE_SPECIAL | DEQUEUE_THROTTLE) == 0;
            debug_assert!(!(delay && self.ents[se as usize].sched_delayed));
            if self.feat.delay_dequeue && delay && !self.qs[q as usize].entity_eligible(&self.ents, se) {
                self.update_load_avg(q, se, 0);
                self.set_delayed(se);
                return false;
            }
        } else {
            debug_assert!(self.ents[se as usize].sched_delayed);
        }
        // A task being migrated (TASK_ON_RQ_MIGRATING) leaves its cfs_rq's PELT sums at once.
        let detach = self.smp.as_deref().is_some_and(|s| s.lb.migrating == Some(se));
        self.update_load_avg(q, se, UPDATE_TG | if detach { super::group_pelt::DO_DETACH } else { 0 });
        self.update_entity_lag(q, se);
        if self.feat.place_rel_deadline && !sleep {
            let e = &mut self.ents[se as usize];
            e.deadline = e.deadline.wrapping_sub(e.vruntime);
            e.rel_deadline = true;
        }
        if self.qs[q as usize].curr != Some(se) {
            self.qs[q as usize].dequeue_timeline(&self.ents, se);
        }
        self.ents[se as usize].on_rq = false;
        let w = self.ents[se as usize].load.weight;
        let cq = &mut self.qs[q as usize];
        cq.load_weight -= w;
        cq.nr_queued -= 1;
        self.update_tg_load(q);
        self.return_cfs_rq_runtime(q);
        if flags & DEQUEUE_DELAYED != 0 {
            self.clear_delayed(se);
            if self.feat.delay_zero && self.ents[se as usize].vlag > 0 {
                self.ents[se as usize].vlag = 0;
            }
        }
        true
    }

    /// Models `set_delayed()`: mark delayed and drop it from h_nr_runnable up the chain.
    fn set_delayed(&mut self, se: EntityId) {
        self.mark_delayed(se, true);
    }

    /// Models `clear_delayed()`: the reverse of `set_delayed()`.
    fn clear_delayed(&mut self, se: EntityId) {
        self.mark_delayed(se, false);
    }

    pub(crate) fn mark_delayed(&mut self, se: EntityId, delayed: bool) {
        self.ents[se as usize].sched_delayed = delayed;
        if self.ents[se as usize].task.is_none() {
            return;
        }
        // ≤6.17's cfs_rq-based throttle stops at a throttled cfs_rq (the levels above
        // already dropped the hierarchy's counts); 6.18's task-based throttle walks them all.
        let legacy = self.throttle_mode == super::bandwidth::ThrottleMode::CfsRq;
        let mut cur = Some(se);
        while let Some(s) = cur {
            let q = &mut self.qs[self.ents[s as usize].cfs_rq as usize];
            if delayed {
                q.h_nr_runnable -= 1;
            } else {
                q.h_nr_runnable += 1;
            }
            if legacy && q.throttled {
                break;
            }
            cur = self.ents[s as usize].parent;
        }
    }

    /// Models `requeue_delayed_entity()`: a delayed task woke before it was picked. With
    /// DELAY_ZERO a positive lag is dropped and the entity re-placed at V.
    pub fn requeue_delayed_entity(&mut self, se: EntityId) {
        let q = self.ents[se as usize].cfs_rq;
        debug_assert!(self.ents[se as usize].sched_delayed && self.ents[se as usize].on_rq);
        if self.feat.delay_zero {
            self.update_entity_lag(q, se);
            if self.ents[se as usize].vlag > 0 {
                let is_curr = self.qs[q as usize].curr == Some(se);
                self.qs[q as usize].nr_queued -= 1;
                if !is_curr {
                    self.qs[q as usize].dequeue_timeline(&self.ents, se);
                }
                self.ents[se as usize].vlag = 0;
                self.place_entity(q, se, 0);
                if !is_curr {
                    self.qs[q as usize].enqueue_timeline(&self.ents, se);
                }
                self.qs[q as usize].nr_queued += 1;
            }
        }
        self.update_load_avg(q, se, 0);
        self.clear_delayed(se);
    }

    /// Models `task_tick_fair()` → `entity_tick()` at every level of the running task.
    pub fn task_tick(&mut self, cpu: u32) {
        let Some(curr) = self.rqs[cpu as usize].curr else { return };
        let saved = self.resched_ctx;
        self.resched_ctx = SwitchReason::Tick;
        let mut cur = Some(curr);
        while let Some(s) = cur {
            let q = self.ents[s as usize].cfs_rq;
            self.update_curr(q);
            self.update_load_avg(q, s, UPDATE_TG);
            self.update_cfs_group(s);
            cur = self.ents[s as usize].parent;
        }
        self.resched_ctx = saved;
        self.pelt_periodic(cpu);
        // A resched at this tick samples the entity when it is put back; sample only when the
        // tick leaves it running.
        if self.rqs[cpu as usize].need_resched.is_none() {
            self.sample_chain(curr);
        }
    }

    /// Models `clear_buddies()`: drop `next` hints that point at `se`'s path.
    pub fn clear_buddies(&mut self, q: CfsRqId, se: EntityId) {
        if self.qs[q as usize].next != Some(se) {
            return;
        }
        let mut cur = Some(se);
        while let Some(s) = cur {
            let q = self.ents[s as usize].cfs_rq;
            if self.qs[q as usize].next != Some(s) {
                break;
            }
            self.qs[q as usize].next = None;
            cur = self.ents[s as usize].parent;
        }
    }

    /// Models `set_next_buddy()`: mark `se` and its ancestors as `next` on their queues.
    /// `src` records who set it (for "why this pick"; the kernel keeps no such field).
    pub fn set_next_buddy(&mut self, se: EntityId, src: BuddySource) {
        let mut cur = Some(se);
        while let Some(s) = cur {
            let e = &self.ents[s as usize];
            if !e.on_rq || e.idle {
                return;
            }
            let q = &mut self.qs[e.cfs_rq as usize];
            q.next = Some(s);
            q.next_src = src;
            cur = e.parent;
        }
    }

    /// Samples `se` and every group entity above it.
    pub fn sample_chain(&mut self, se: EntityId) {
        let mut cur = Some(se);
        while let Some(s) = cur {
            self.sample(s);
            cur = self.ents[s as usize].parent;
        }
    }

    /// Records one counter value (CFS bandwidth runtime) in the counters table.
    pub fn counter(&mut self, kind: crate::obs::log::CounterKind, key: u32, value: i64) {
        if self.log.detailed {
            let t = self.log.stamp(self.now);
            let c = &mut self.log.counters;
            c.t.push(t);
            c.kind.push(kind as u8);
            c.key.push(key);
            c.value.push(value);
        }
    }

    /// Records the current state of an entity (task or group) in the samples table; group
    /// entities are keyed `GROUP_NODE | task group`.
    pub fn sample(&mut self, se: EntityId) {
        if !self.log.detailed {
            return;
        }
        let task = self.node_of(se);
        let e = &self.ents[se as usize];
        let cq = &self.qs[e.cfs_rq as usize];
        let mut f = 0u8;
        if e.on_rq {
            f |= flag::ON_RQ;
        }
        if e.on_rq && cq.entity_eligible(&self.ents, se) {
            f |= flag::ELIGIBLE;
        }
        if e.sched_delayed {
            f |= flag::DELAYED;
        }
        if cq.curr == Some(se) {
            f |= flag::CURR;
            if protect_slice(e) {
                f |= flag::PROTECTED;
            }
        }
        if cq.next == Some(se) {
            f |= flag::BUDDY;
        }
        let v = cq.peek_avg_vruntime(&self.ents);
        let t = self.log.stamp(self.now);
        let s = &mut self.log.samples;
        s.t.push(t);
        s.task.push(task);
        s.cpu.push(cq.cpu as u16);
        s.vruntime.push(e.vruntime);
        s.deadline.push(e.deadline);
        s.vlag.push(e.vlag);
        s.vprot.push(e.vprot);
        s.avg_vruntime.push(v);
        s.flags.push(f);
    }
}

/// Models `protect_slice()` (≥6.17): curr is protected while vruntime < vprot.
#[inline]
pub fn protect_slice(se: &SchedEntity) -> bool {
    vdiff(se.vprot, se.vruntime) > 0
}
