//! `struct cfs_rq`: one fair runqueue with its EEVDF bookkeeping.
//!
//! The kernel keeps queued entities in an rbtree ordered by deadline and augmented with the
//! subtree's minimum vruntime and slice. Here `timeline` is a vector kept sorted by deadline
//! (ties after existing entries, like the rbtree insertion) and the augmented minima are
//! computed by a scan. `pick_eevdf` scans in deadline order for the first eligible entity,
//! which is the same entity the kernel's augmented descent finds. This is a named model
//! shortcut: O(n) per pick instead of O(log n), identical decisions.

use super::entity::{vbefore, vdiff, CfsRqId, EntityId, SchedEntity};
use crate::obs::log::BuddySource;

/// Initial `zero_vruntime` of a cfs_rq: (u64)(−(1 << 20)), as the kernel initialises it.
pub const INITIAL_ZERO_VRUNTIME: u64 = (-(1i64 << 20)) as u64;

/// Models `struct cfs_rq` (kernel/sched/sched.h, Linux 6.18.y stable as of 6.18.26 and our
/// 6.18.44 machines' BTF: zero_vruntime, sum_w_vruntime, sum_weight).
#[derive(Debug, Clone)]
pub struct CfsRq {
    /// CPU of the rq this queue belongs to.
    pub cpu: u32,
    /// This queue's id.
    pub id: CfsRqId,
    /// `load.weight`: Σ scaled weights of all queued entities, curr included.
    pub load_weight: u64,
    /// `nr_queued`: entities on this queue, curr and delayed ones included.
    pub nr_queued: u32,
    /// `h_nr_queued`: tasks queued in the whole hierarchy below, delayed ones included.
    pub h_nr_queued: u32,
    /// `h_nr_runnable`: like h_nr_queued without delayed tasks.
    pub h_nr_runnable: u32,
    /// `sum_w_vruntime`: Σ (vruntime − zero_vruntime) · w over the tree (curr excluded).
    pub sum_w_vruntime: i64,
    /// `sum_weight`: Σ w over the tree (1024-scale, curr excluded).
    pub sum_weight: u64,
    /// `zero_vruntime`: the reference point v0 of the sums.
    pub zero_vruntime: u64,
    /// `tasks_timeline`: queued entities except curr, sorted by deadline.
    pub timeline: Vec<EntityId>,
    /// `curr`: the entity running at this level (not in the timeline).
    pub curr: Option<EntityId>,
    /// `next`: the next-buddy hint.
    pub next: Option<EntityId>,
    /// Who set `next` (an observation annotation, not kernel state; read only while `next`
    /// is set).
    pub next_src: BuddySource,
    /// The group entity owning this queue (None for a root cfs_rq).
    pub tg_se: Option<EntityId>,
    /// The task group this queue belongs to (0 = root).
    pub tg: u32,
    /// `throttle_count`: throttled ancestors, this queue included (CFS bandwidth).
    pub throttle_count: u32,
    /// `runtime_enabled`: this queue's group has a quota.
    pub runtime_enabled: bool,
    /// `runtime_remaining`: local runtime (ns, may go negative).
    pub runtime_remaining: i64,
    /// `throttled`: this queue itself is throttled.
    pub throttled: bool,
    /// When it was last throttled.
    pub throttled_clock: u64,
    /// `throttled_limbo_list` (task-based throttle): tasks waiting for the unthrottle.
    pub limbo: Vec<EntityId>,
    /// `avg`: PELT averages (read only under `group_shares = pelt`, `group_pelt.rs`).
    pub avg: super::pelt::SchedAvg,
    /// `removed`: loads of entities that left, subtracted at the next update.
    pub removed: super::group_pelt::Removed,
    /// `propagate`: a change to pass up to the group entity.
    pub propagate: bool,
    /// `prop_runnable_sum`: the load_sum change to pass up.
    pub prop_runnable_sum: i64,
    /// `last_update_tg_load_avg` (None: never, as for the kernel's 0 on a long-running clock).
    pub last_update_tg_load_avg: Option<u64>,
    /// Trace replay only (`replay::decisions::seed`): the group entity's weight the kernel
    /// recorded last (an EEVDF dump's `gw`), which `calc_group_shares()` returns instead of its
    /// own until the next record. None in a simulation.
    pub recorded_shares: Option<u64>,
}

impl CfsRq {
    /// An empty queue.
    pub fn new(id: CfsRqId, cpu: u32, tg_se: Option<EntityId>) -> Self {
        CfsRq {
            cpu,
            id,
            load_weight: 0,
            nr_queued: 0,
            h_nr_queued: 0,
            h_nr_runnable: 0,
            sum_w_vruntime: 0,
            sum_weight: 0,
            zero_vruntime: INITIAL_ZERO_VRUNTIME,
            timeline: Vec::new(),
            curr: None,
            next: None,
            next_src: BuddySource::None,
            tg_se,
            tg: 0,
            throttle_count: 0,
            runtime_enabled: false,
            runtime_remaining: 0,
            throttled: false,
            throttled_clock: 0,
            limbo: Vec::new(),
            avg: Default::default(),
            removed: Default::default(),
            propagate: false,
            prop_runnable_sum: 0,
            last_update_tg_load_avg: None,
            recorded_shares: None,
        }
    }

    /// `entity_key()`: vruntime relative to zero_vruntime.
    #[inline]
    pub fn key(&self, se: &SchedEntity) -> i64 {
        vdiff(se.vruntime, self.zero_vruntime)
    }

    /// The running entity if it is still queued (`curr && curr->on_rq`).
    #[inline]
    pub fn curr_on_rq(&self, ents: &[SchedEntity]) -> Option<EntityId> {
        self.curr.filter(|&c| ents[c as usize].on_rq)
    }

    /// Numerator and denominator of V − v0 with curr added back, as `avg_vruntime()` and
    /// `vruntime_eligible()` compute them.
    #[inline]
    pub fn avg_parts(&self, ents: &[SchedEntity]) -> (i64, i64) {
        let mut num = self.sum_w_vruntime;
        let mut den = self.sum_weight as i64;
        if let Some(c) = self.curr_on_rq(ents) {
            let se = &ents[c as usize];
            let w = se.w() as i64;
            num = num.wrapping_add(self.key(se).wrapping_mul(w));
            den += w;
        }
        (num, den)
    }

    /// V without side effects (for observation); the kernel's `avg_vruntime()` also moves
    /// zero_vruntime, see `fair::avg_vruntime`.
    pub fn peek_avg_vruntime(&self, ents: &[SchedEntity]) -> u64 {
        let (num, den) = self.avg_parts(ents);
        if self.sum_weight == 0 {
            return match self.curr_on_rq(ents) {
                Some(c) => ents[c as usize].vruntime,
                None => self.zero_vruntime,
            };
        }
        self.zero_vruntime.wrapping_add(floor_div(num, den) as u64)
    }

    /// Models `vruntime_eligible()` (fair.c, 6.18): lag ≥ 0 without dividing.
    #[inline]
    pub fn vruntime_eligible(&self, ents: &[SchedEntity], vruntime: u64) -> bool {
        self.eligibility(ents).eligible(vruntime)
    }

    /// The V numerator/denominator captured once, to test many entities against the same V.
    #[inline]
    pub fn eligibility(&self, ents: &[SchedEntity]) -> Eligibility {
        let (num, den) = self.avg_parts(ents);
        Eligibility { num, den, zero: self.zero_vruntime }
    }

    /// Models `entity_eligible()`.
    #[inline]
    pub fn entity_eligible(&self, ents: &[SchedEntity], se: EntityId) -> bool {
        self.vruntime_eligible(ents, ents[se as usize].vruntime)
    }

    /// Models `__enqueue_entity()`: add to the sums and insert by deadline.
    pub fn enqueue_timeline(&mut self, ents: &[SchedEntity], id: EntityId) {
        debug_assert!(!self.timeline.contains(&id), "entity {id} already in the timeline");
        debug_assert!(self.curr != Some(id), "curr is never in the timeline");
        let se = &ents[id as usize];
        self.sum_w_vruntime = self.sum_w_vruntime.wrapping_add(self.key(se).wrapping_mul(se.w() as i64));
        self.sum_weight += se.w();
        let d = se.deadline;
        let pos = self.timeline.partition_point(|&x| !vbefore(d, ents[x as usize].deadline));
        self.timeline.insert(pos, id);
    }

    /// Models `__dequeue_entity()`: remove from the timeline and the sums.
    pub fn dequeue_timeline(&mut self, ents: &[SchedEntity], id: EntityId) {
        let pos = self.timeline.iter().position(|&x| x == id);
        debug_assert!(pos.is_some(), "entity {id} not in the timeline of cfs_rq {}", self.id);
        if let Some(pos) = pos {
            self.timeline.remove(pos);
        }
        let se = &ents[id as usize];
        self.sum_w_vruntime = self.sum_w_vruntime.wrapping_sub(self.key(se).wrapping_mul(se.w() as i64));
        self.sum_weight -= se.w();
    }

    /// `__pick_first_entity()`: earliest deadline in the tree.
    #[inline]
    pub fn first(&self) -> Option<EntityId> {
        self.timeline.first().copied()
    }

    /// Models `cfs_rq_min_slice()`: smallest slice of curr (if queued) and the tree.
    pub fn min_slice(&self, ents: &[SchedEntity]) -> u64 {
        let mut m = u64::MAX;
        if let Some(c) = self.curr_on_rq(ents) {
            m = ents[c as usize].slice;
        }
        for &x in &self.timeline {
            m = m.min(ents[x as usize].slice);
        }
        m
    }
}

impl CfsRq {
    /// `cfs_rq_max_slice()` ("fix lag clamp", 6.18.y stable): largest slice of curr and the tree.
    pub fn max_slice(&self, ents: &[SchedEntity]) -> u64 {
        let mut m = 0;
        if let Some(c) = self.curr_on_rq(ents) {
            m = ents[c as usize].slice;
        }
        for &x in &self.timeline {
            m = m.max(ents[x as usize].slice);
        }
        m
    }
}

/// A snapshot of a queue's V for eligibility tests (`vruntime_eligible`).
#[derive(Debug, Clone, Copy)]
pub struct Eligibility {
    num: i64,
    den: i64,
    zero: u64,
}

impl Eligibility {
    /// Whether an entity at `vruntime` has lag ≥ 0: key·den ≤ num.
    #[inline]
    pub fn eligible(&self, vruntime: u64) -> bool {
        let key = vdiff(vruntime, self.zero);
        // In 64 bits when the product cannot overflow (the kernel's s64 test), else in i128.
        // Tested by magnitude: a checked multiply is a 128-bit library call in wasm32.
        if key.unsigned_abs() <= u32::MAX as u64 && self.den.unsigned_abs() <= i32::MAX as u64 {
            self.num >= key * self.den
        } else {
            self.num as i128 >= key as i128 * self.den as i128
        }
    }
}

/// Floor division with the kernel's left bias for negative numerators (`avg_vruntime`).
#[inline]
pub fn floor_div(num: i64, den: i64) -> i64 {
    if den == 0 {
        return 0;
    }
    let mut n = num;
    if n < 0 {
        n -= den - 1;
    }
    n / den
}
