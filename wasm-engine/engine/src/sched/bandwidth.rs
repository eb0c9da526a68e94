//! CFS bandwidth control (CONFIG_CFS_BANDWIDTH): runtime accounting, the global pool and
//! its 5 ms slices, throttle/unthrottle, the period timer with `distribute_cfs_runtime()`, and
//! slack return (kernel/sched/fair.c).
//!
//! Two implementations, a scenario knob:
//! * `TaskBased` (merged for 6.18, what 6.18.44 runs): throttling a cfs_rq dequeues nothing;
//!   a task picked from a throttled hierarchy is moved to its cfs_rq's limbo list when it would
//!   return to user space, and unthrottling re-enqueues the limbo tasks one by one.
//!   The return to user space takes `RETURN_TO_USER_NS` after the switch (calibrated from the
//!   capture); kernel-mode overrun beyond that is not modeled.
//! * `CfsRq` (up to 6.17): throttling dequeues the group entity from its parent at once, and
//!   unthrottling enqueues it back.
//!
//! The cost of `distribute_cfs_runtime()` is modeled (see `DistributeCost`) and reported as a
//! histogram; it is not charged to any CPU.

use super::entity::{CfsRqId, EntityId};
use super::fair::{Fair, DEQUEUE_SLEEP, DEQUEUE_SPECIAL, DEQUEUE_THROTTLE, ENQUEUE_WAKEUP};
use crate::obs::log::{CounterKind, EventKind, SwitchReason, NO_TASK};

/// `RUNTIME_INF`.
pub const RUNTIME_INF: u64 = u64::MAX;
/// `sysctl_sched_cfs_bandwidth_slice` (default 5 ms; measured 5000 µs on 6.18.44).
pub const BANDWIDTH_SLICE_NS: u64 = 5_000_000;
/// Time from a task's switch-in to its return to user space, when the throttle task_work
/// runs. Calibrated from linux-6.18/bandwidth-30-of-100: the 30 tasks picked through a
/// throttled hierarchy ran 17–32 µs (median 27 µs) before leaving the CPU as `R+`.
pub const RETURN_TO_USER_NS: u64 = 27_000;
/// `min_cfs_rq_runtime`: runtime a cfs_rq keeps when returning slack (1 ms).
pub const MIN_CFS_RQ_RUNTIME_NS: i64 = 1_000_000;
/// `min_bandwidth_expiration` (2 ms).
pub const MIN_BANDWIDTH_EXPIRATION_NS: u64 = 2_000_000;
/// `cfs_bandwidth_slack_period` (5 ms).
pub const SLACK_PERIOD_NS: u64 = 5_000_000;

/// Which throttle implementation runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThrottleMode {
    /// 6.18: throttle at return to user, limbo lists, per-task re-enqueue.
    TaskBased,
    /// ≤6.17: dequeue the whole cfs_rq's group entity at once.
    CfsRq,
}

/// Cost model of one `distribute_cfs_runtime()` call: `per_cfs_rq_ns` for every cfs_rq whose
/// throttle count drops to zero (`tg_unthrottle_up`) and `per_task_ns` for every limbo task
/// re-enqueued. Calibration (seed 002, Aaron Lu, on a 5.15-based RFC kernel): one call that
/// unthrottled 422,784 cfs_rqs and re-enqueued 10,000 tasks took 67.3 ms by its timestamps.
/// One equation, two unknowns: we assume a task re-enqueue (a full enqueue_task_fair walk)
/// costs 3× a cfs_rq visit, giving 67.3 ms / (422,784 + 3 × 10,000) = 148.7 ns per cfs_rq
/// and 446 ns per task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DistributeCost {
    /// ns per cfs_rq unthrottled.
    pub per_cfs_rq_ns: u64,
    /// ns per task re-enqueued.
    pub per_task_ns: u64,
    /// Fixed cost of a call (lock, list walk start).
    pub base_ns: u64,
}

impl Default for DistributeCost {
    fn default() -> Self {
        DistributeCost { per_cfs_rq_ns: 149, per_task_ns: 446, base_ns: 4_000 }
    }
}

/// `struct cfs_bandwidth` of a task group.
#[derive(Debug, Clone)]
pub struct CfsBandwidth {
    /// Quota per period (ns).
    pub quota: u64,
    /// Period (ns).
    pub period: u64,
    /// Burst (ns).
    pub burst: u64,
    /// The global pool (`runtime`).
    pub runtime: u64,
    /// `runtime_snap`.
    pub runtime_snap: u64,
    /// Period timer running.
    pub period_active: bool,
    /// `idle`: no runtime consumed in the last period.
    pub idle: bool,
    /// `throttled_cfs_rq`, in list order.
    pub throttled: Vec<CfsRqId>,
    /// A slack timer is pending.
    pub slack_pending: bool,
    /// `nr_periods`.
    pub nr_periods: u64,
    /// `nr_throttled`.
    pub nr_throttled: u64,
    /// The period timer expires this far into each period (ns from time 0, less than the
    /// period): the hrtimer keeps the phase it got when the quota was set.
    pub phase: u64,
}

impl CfsBandwidth {
    /// A group with `quota` per `period` and `burst`; the pool starts full.
    pub fn new(quota: u64, period: u64, burst: u64) -> Self {
        CfsBandwidth {
            quota,
            period,
            burst,
            runtime: quota,
            runtime_snap: quota,
            period_active: false,
            idle: false,
            throttled: Vec::new(),
            slack_pending: false,
            nr_periods: 0,
            nr_throttled: 0,
            phase: 0,
        }
    }
}

/// A timer the simulation must arm (Fair has no event queue of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BwTimer {
    /// The period timer of a task group fires at this time.
    Period { tg: u32, at: u64 },
    /// The slack timer of a task group fires at this time.
    Slack { tg: u32, at: u64 },
}

/// Bandwidth counters of a run.
#[derive(Debug, Clone, Default)]
pub struct BandwidthStats {
    /// Durations of every distribute_cfs_runtime() call under the cost model (ns).
    pub distribute_ns: Vec<u64>,
    /// cfs_rqs unthrottled per call.
    pub distribute_cfs_rqs: Vec<u64>,
    /// Tasks re-enqueued per call.
    pub distribute_tasks: Vec<u64>,
    /// Throttle events.
    pub throttles: u64,
    /// Unthrottle events.
    pub unthrottles: u64,
}

impl Fair {
    fn bw_of(&self, q: CfsRqId) -> Option<u32> {
        let tg = self.qs[q as usize].tg;
        self.tgs[tg as usize].bw.as_ref().map(|_| tg)
    }

    /// Models `account_cfs_rq_runtime()`: charge `delta` to `q`'s local runtime; when it runs
    /// out, pull a slice from the pool, or resched if the pool is empty.
    pub fn account_cfs_rq_runtime(&mut self, q: CfsRqId, delta: u64) {
        if !self.qs[q as usize].runtime_enabled {
            return;
        }
        self.qs[q as usize].runtime_remaining -= delta as i64;
        self.counter(CounterKind::RuntimeRemaining, q, self.qs[q as usize].runtime_remaining);
        if self.qs[q as usize].runtime_remaining > 0 || self.qs[q as usize].throttled {
            return;
        }
        if !self.assign_cfs_rq_runtime(q, BANDWIDTH_SLICE_NS) && self.qs[q as usize].curr.is_some() {
            let cpu = self.qs[q as usize].cpu;
            self.resched(cpu, SwitchReason::Preempt);
        }
    }

    /// Models `__assign_cfs_rq_runtime()`: top the local runtime up to `target` from the pool.
    pub fn assign_cfs_rq_runtime(&mut self, q: CfsRqId, target: u64) -> bool {
        let Some(tg) = self.bw_of(q) else { return true };
        let want = (target as i64 - self.qs[q as usize].runtime_remaining).max(0) as u64;
        let now = self.now;
        let mut arm = None;
        let b = self.tgs[tg as usize].bw.as_mut().expect("bandwidth");
        let amount = if b.quota == RUNTIME_INF {
            want
        } else {
            if !b.period_active {
                b.period_active = true;
                // start_cfs_bandwidth(): hrtimer_forward_now() keeps the timer's phase.
                arm = Some(match now.checked_sub(b.phase) {
                    Some(since) => b.phase + (since / b.period + 1) * b.period,
                    None => b.phase,
                });
            }
            let got = b.runtime.min(want);
            b.runtime -= got;
            if got > 0 {
                b.idle = false;
            }
            got
        };
        if let Some(at) = arm {
            self.bw_timers.push(BwTimer::Period { tg, at });
        }
        self.qs[q as usize].runtime_remaining += amount as i64;
        if amount > 0 {
            self.counter(CounterKind::RuntimeRemaining, q, self.qs[q as usize].runtime_remaining);
            let pool = self.tgs[tg as usize].bw.as_ref().map(|b| b.runtime).unwrap_or(0);
            self.counter(CounterKind::PoolRuntime, tg, pool.min(i64::MAX as u64) as i64);
        }
        self.qs[q as usize].runtime_remaining > 0
    }

    /// Models `check_cfs_rq_runtime()`: throttle `q` if it has run out. Returns whether `q`
    /// is throttled.
    pub fn check_cfs_rq_runtime(&mut self, q: CfsRqId) -> bool {
        let cq = &self.qs[q as usize];
        if !cq.runtime_enabled || cq.runtime_remaining > 0 {
            return false;
        }
        if cq.throttled {
            return true;
        }
        self.throttle_cfs_rq(q)
    }

    /// Models `check_enqueue_throttle()`: a queue that becomes non-empty with no runtime left
    /// is throttled at once.
    pub fn check_enqueue_throttle(&mut self, q: CfsRqId) {
        let cq = &self.qs[q as usize];
        if !cq.runtime_enabled || cq.curr.is_some() || cq.throttled {
            return;
        }
        self.account_cfs_rq_runtime(q, 0);
        if self.qs[q as usize].runtime_remaining <= 0 {
            self.throttle_cfs_rq(q);
        }
    }

    /// The cfs_rqs of `q`'s task group and all its descendant groups on `q`'s CPU, in the
    /// order `walk_tg_tree_from(tg, tg_nop, up)` calls `up`: post-order, every child before
    /// its parent, and among siblings the newest first (`sched_online_group()` adds a group at
    /// the head of its parent's `children` list). `q` itself comes last.
    fn subtree_post_order(&self, q: CfsRqId) -> Vec<CfsRqId> {
        let cpu = self.qs[q as usize].cpu as usize;
        let mut out = Vec::new();
        // Explicit stack of (group, children visited): no recursion depth limit.
        let mut stack = vec![(self.qs[q as usize].tg, false)];
        while let Some((tg, expanded)) = stack.pop() {
            if expanded {
                out.push(self.tgs[tg as usize].cfs_rq[cpu]);
                continue;
            }
            stack.push((tg, true));
            // Task groups are numbered in creation order; pushed oldest first, the newest
            // child is popped, and so visited, first.
            for child in self.tgs.iter().filter(|g| g.parent == Some(tg)) {
                stack.push((child.id, false));
            }
        }
        out
    }

    /// Models `throttle_cfs_rq()`: unless a last-moment refill gives it 1 ns, put `q` on the
    /// group's throttled list and raise the throttle count of its subtree; the cfs_rq-based
    /// variant also dequeues the group entity from its parent.
    pub fn throttle_cfs_rq(&mut self, q: CfsRqId) -> bool {
        if self.assign_cfs_rq_runtime(q, 1) {
            return false;
        }
        let tg = self.qs[q as usize].tg;
        self.tgs[tg as usize].bw.as_mut().expect("bandwidth").throttled.push(q);
        // tg_throttle_down over the subtree (the order of the increments does not matter).
        for d in self.subtree_post_order(q) {
            self.qs[d as usize].throttle_count += 1;
        }
        self.qs[q as usize].throttled = true;
        // ≤6.17 starts the throttled clock here; 6.18 when a task is throttled out of the
        // hierarchy (`record_throttle_clock`).
        if self.throttle_mode == ThrottleMode::CfsRq {
            self.qs[q as usize].throttled_clock = self.now;
        }
        self.bw_stats.throttles += 1;
        let cpu = self.qs[q as usize].cpu;
        self.log.event(self.now, EventKind::Throttle, cpu, super::group::GROUP_NODE | tg, NO_TASK, 0);
        if self.throttle_mode == ThrottleMode::CfsRq {
            self.dequeue_throttled_group(q);
        }
        true
    }

    /// The cfs_rq-based throttle's dequeue of the group entity chain above `q`.
    fn dequeue_throttled_group(&mut self, q: CfsRqId) {
        let queued = self.qs[q as usize].h_nr_queued;
        let runnable = self.qs[q as usize].h_nr_runnable;
        let mut se = self.qs[q as usize].tg_se;
        let mut dequeuing = true;
        while let Some(s) = se {
            let pq = self.ents[s as usize].cfs_rq;
            if dequeuing {
                if !self.ents[s as usize].on_rq {
                    return;
                }
                // DEQUEUE_SPECIAL keeps the dequeue from being delayed; an entity already
                // delayed is finished with DEQUEUE_DELAYED, as ≤6.17's throttle_cfs_rq() does.
                let delayed = if self.ents[s as usize].sched_delayed { super::fair::DEQUEUE_DELAYED } else { 0 };
                self.dequeue_entity(pq, s, DEQUEUE_SLEEP | DEQUEUE_SPECIAL | delayed);
                if self.qs[pq as usize].load_weight != 0 {
                    dequeuing = false;
                }
            } else {
                self.update_cfs_group(s);
            }
            let cq = &mut self.qs[pq as usize];
            cq.h_nr_queued -= queued;
            cq.h_nr_runnable -= runnable;
            if cq.throttled {
                return;
            }
            se = self.ents[s as usize].parent;
        }
        let cpu = self.qs[q as usize].cpu as usize;
        self.rqs[cpu].nr_running -= queued;
        self.touch_cpu_counters(cpu as u32);
        if self.rqs[cpu].curr.is_some() {
            self.resched(cpu as u32, SwitchReason::Preempt);
        }
    }

    /// Models `unthrottle_cfs_rq()`. Returns (cfs_rqs whose throttle count reached 0, tasks
    /// re-enqueued) for the cost model.
    ///
    /// The task-based throttle re-enqueues in `tg_unthrottle_up()`'s order: the subtree is
    /// visited post-order (children first, the newest child first), each queue's throttle
    /// count drops at its own visit, and a queue whose count reaches 0 re-enqueues its limbo
    /// list from the head: the task throttled last comes back first.
    pub fn unthrottle_cfs_rq(&mut self, q: CfsRqId) -> (u64, u64) {
        if self.throttle_mode == ThrottleMode::TaskBased && self.qs[q as usize].runtime_remaining <= 0 {
            return (0, 0);
        }
        let tg = self.qs[q as usize].tg;
        let b = self.tgs[tg as usize].bw.as_mut().expect("bandwidth");
        b.throttled.retain(|&x| x != q);
        self.qs[q as usize].throttled = false;
        self.qs[q as usize].throttled_clock = 0;
        self.bw_stats.unthrottles += 1;
        let cpu = self.qs[q as usize].cpu;
        self.log.event(self.now, EventKind::Unthrottle, cpu, super::group::GROUP_NODE | tg, NO_TASK, 0);
        let (mut cfs_rqs, mut tasks) = (0, 0);
        for d in self.subtree_post_order(q) {
            self.qs[d as usize].throttle_count -= 1;
            if self.qs[d as usize].throttle_count > 0 {
                continue;
            }
            cfs_rqs += 1;
            // The limbo Vec is the list back to front: its last element is the list's head.
            let limbo = std::mem::take(&mut self.qs[d as usize].limbo);
            for se in limbo.into_iter().rev() {
                tasks += 1;
                self.enqueue_task(se, ENQUEUE_WAKEUP);
                self.unthrottled_tasks.push(se);
            }
        }
        if self.throttle_mode == ThrottleMode::CfsRq {
            self.enqueue_unthrottled_group(q);
        }
        let cpu = cpu as usize;
        if self.rqs[cpu].curr.is_none() && self.qs[self.rqs[cpu].cfs as usize].nr_queued > 0 {
            self.resched(cpu as u32, SwitchReason::FromIdle);
        }
        (cfs_rqs, tasks)
    }

    /// The cfs_rq-based unthrottle's re-enqueue of the group entity chain above `q`.
    fn enqueue_unthrottled_group(&mut self, q: CfsRqId) {
        if self.qs[q as usize].load_weight == 0 {
            return;
        }
        let queued = self.qs[q as usize].h_nr_queued;
        let runnable = self.qs[q as usize].h_nr_runnable;
        let mut se = self.qs[q as usize].tg_se;
        let mut enqueuing = true;
        while let Some(s) = se {
            let pq = self.ents[s as usize].cfs_rq;
            if enqueuing {
                if self.ents[s as usize].sched_delayed {
                    self.dequeue_entity(pq, s, DEQUEUE_SLEEP | super::fair::DEQUEUE_DELAYED);
                } else if self.ents[s as usize].on_rq {
                    enqueuing = false;
                }
                if enqueuing {
                    self.enqueue_entity(pq, s, ENQUEUE_WAKEUP);
                }
            } else {
                self.update_cfs_group(s);
            }
            let cq = &mut self.qs[pq as usize];
            cq.h_nr_queued += queued;
            cq.h_nr_runnable += runnable;
            if cq.throttled {
                return;
            }
            se = self.ents[s as usize].parent;
        }
        let cpu = self.qs[q as usize].cpu as usize;
        self.rqs[cpu].nr_running += queued;
        self.touch_cpu_counters(cpu as u32);
    }

    /// Models the throttle task_work (`throttle_cfs_rq_work`): `task` was picked from a
    /// throttled hierarchy; on its way back to user space it leaves the queue with
    /// `DEQUEUE_SLEEP | DEQUEUE_THROTTLE` (never delayed, at no level) and goes to the head of
    /// its cfs_rq's limbo list. Returns false when the hierarchy was unthrottled in the
    /// meantime (nothing to do).
    pub fn throttle_task(&mut self, se: EntityId) -> bool {
        if !self.throttled_hierarchy(se) || !self.ents[se as usize].on_rq {
            return false;
        }
        let q = self.ents[se as usize].cfs_rq;
        self.dequeue_task(se, DEQUEUE_SLEEP | DEQUEUE_THROTTLE);
        // `list_add()` at the head; the Vec holds the list back to front.
        self.qs[q as usize].limbo.push(se);
        let cpu = self.qs[q as usize].cpu;
        let task = self.task_of(se);
        self.log.event(self.now, EventKind::TaskThrottled, cpu, task, NO_TASK, 0);
        true
    }

    /// Models `record_throttle_clock()`: a task throttled out of `q` starts `q`'s throttled
    /// clock if `q` is the throttled queue and the clock is not running yet.
    pub(crate) fn record_throttle_clock(&mut self, q: CfsRqId) {
        let cq = &mut self.qs[q as usize];
        if cq.throttle_count > 0 && cq.throttled && cq.throttled_clock == 0 {
            cq.throttled_clock = self.now;
        }
    }

    /// Whether any level of `se`'s chain is throttled (`throttled_hierarchy`).
    pub fn throttled_hierarchy(&self, se: EntityId) -> bool {
        self.qs[self.ents[se as usize].cfs_rq as usize].throttle_count > 0
    }

    /// Models `do_sched_cfs_period_timer()`: refill the pool and distribute it to throttled
    /// cfs_rqs. Returns the time of the next expiry, or None when the timer goes idle.
    pub fn bw_period_timer(&mut self, tg: u32) -> Option<u64> {
        let b = self.tgs[tg as usize].bw.as_mut().expect("bandwidth");
        b.nr_periods += 1;
        b.runtime = (b.runtime.saturating_add(b.quota)).min(b.quota + b.burst);
        b.runtime_snap = b.runtime;
        let pool = b.runtime as i64;
        self.counter(CounterKind::PoolRuntime, tg, pool);
        let b = self.tgs[tg as usize].bw.as_mut().expect("bandwidth");
        let throttled = !b.throttled.is_empty();
        if b.idle && !throttled {
            b.period_active = false;
            return None;
        }
        let next = self.now + b.period;
        if !throttled {
            b.idle = true;
            return Some(next);
        }
        b.nr_throttled += 1;
        while !self.tgs[tg as usize].bw.as_ref().expect("bandwidth").throttled.is_empty()
            && self.tgs[tg as usize].bw.as_ref().expect("bandwidth").runtime > 0
        {
            if !self.distribute_cfs_runtime(tg) {
                break;
            }
        }
        self.tgs[tg as usize].bw.as_mut().expect("bandwidth").idle = false;
        Some(next)
    }

    /// Models `distribute_cfs_runtime()`: hand the pool to throttled cfs_rqs in list order and
    /// unthrottle those that get positive runtime. Returns whether some remain throttled.
    pub fn distribute_cfs_runtime(&mut self, tg: u32) -> bool {
        let list = self.tgs[tg as usize].bw.as_ref().expect("bandwidth").throttled.clone();
        let (mut cfs_rqs, mut tasks) = (0u64, 0u64);
        let mut still = false;
        for q in list {
            let b = self.tgs[tg as usize].bw.as_mut().expect("bandwidth");
            if b.runtime == 0 {
                still = true;
                break;
            }
            if !self.qs[q as usize].throttled {
                continue;
            }
            let need = (-self.qs[q as usize].runtime_remaining + 1) as u64;
            let give = b.runtime.min(need);
            b.runtime -= give;
            self.qs[q as usize].runtime_remaining += give as i64;
            self.counter(CounterKind::RuntimeRemaining, q, self.qs[q as usize].runtime_remaining);
            if self.qs[q as usize].runtime_remaining > 0 {
                let (c, t) = self.unthrottle_cfs_rq(q);
                cfs_rqs += c;
                tasks += t;
            } else {
                still = true;
            }
        }
        let c = self.distribute_cost;
        self.bw_stats.distribute_ns.push(c.base_ns + c.per_cfs_rq_ns * cfs_rqs + c.per_task_ns * tasks);
        self.bw_stats.distribute_cfs_rqs.push(cfs_rqs);
        self.bw_stats.distribute_tasks.push(tasks);
        still
    }

    /// Models `return_cfs_rq_runtime()`: an emptied cfs_rq gives back all but 1 ms of its
    /// runtime, and arms the slack timer when others wait for it.
    pub fn return_cfs_rq_runtime(&mut self, q: CfsRqId) {
        let cq = &self.qs[q as usize];
        if !cq.runtime_enabled || cq.nr_queued > 0 {
            return;
        }
        let slack = cq.runtime_remaining - MIN_CFS_RQ_RUNTIME_NS;
        if slack <= 0 {
            return;
        }
        let tg = cq.tg;
        let now = self.now;
        let b = self.tgs[tg as usize].bw.as_mut().expect("bandwidth");
        if b.quota != RUNTIME_INF {
            b.runtime += slack as u64;
            // Arm the slack timer unless the period timer fires soon or one is pending.
            let period_end = (now / b.period + 1) * b.period;
            if b.runtime > BANDWIDTH_SLICE_NS
                && !b.throttled.is_empty()
                && !b.slack_pending
                && period_end - now >= SLACK_PERIOD_NS + MIN_BANDWIDTH_EXPIRATION_NS
            {
                b.slack_pending = true;
                self.bw_timers.push(BwTimer::Slack { tg, at: now + SLACK_PERIOD_NS });
            }
        }
        self.qs[q as usize].runtime_remaining -= slack;
    }

    /// The slack timer: distribute returned runtime if enough is left.
    pub fn bw_slack_timer(&mut self, tg: u32) {
        let b = self.tgs[tg as usize].bw.as_mut().expect("bandwidth");
        b.slack_pending = false;
        if b.runtime > BANDWIDTH_SLICE_NS && !b.throttled.is_empty() {
            self.distribute_cfs_runtime(tg);
        }
    }
}
