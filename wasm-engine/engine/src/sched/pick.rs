//! Picking the next entity: `pick_eevdf`, `pick_next_entity`, `pick_task_fair`, and the
//! put_prev/set_next pair of `pick_next_task_fair` (kernel/sched/fair.c, Linux 6.18.44).

use super::cfs_rq::CfsRq;
use super::entity::SchedEntity;
use super::entity::{vbefore, CfsRqId, EntityId};
use super::fair::{protect_slice, Fair, DEQUEUE_DELAYED, DEQUEUE_SLEEP};
use super::group::GROUP_NODE;
use crate::obs::log::{flag, EventKind, PickReason, NO_TASK};

/// Log id of an entity without borrowing the whole `Fair` (see `Fair::node_of`).
fn node_of_entity(qs: &[CfsRq], e: &SchedEntity) -> u32 {
    match (e.task, e.my_q) {
        (Some(t), _) => t,
        (None, Some(q)) => GROUP_NODE | qs[q as usize].tg,
        (None, None) => NO_TASK,
    }
}

impl Fair {
    /// Models `__pick_eevdf(cfs_rq, protect)` (6.18): the eligible entity with the earliest
    /// virtual deadline, curr included; a protected eligible curr wins outright. Pure: it
    /// reads the queue without changing it.
    #[doc(alias = "__pick_eevdf")]
    pub fn pick_eevdf(&self, q: CfsRqId, protect: bool) -> (Option<EntityId>, PickReason) {
        let cq = &self.qs[q as usize];
        let ents = &self.ents;
        let first = cq.first();
        if cq.nr_queued == 1 {
            return (cq.curr_on_rq(ents).or(first), PickReason::OnlyEntity);
        }
        let curr = cq.curr.filter(|&c| ents[c as usize].on_rq && cq.entity_eligible(ents, c));
        if let Some(c) = curr {
            if protect && protect_slice(&ents[c as usize]) {
                return (Some(c), PickReason::Protected);
            }
        }
        // The augmented-rbtree descent finds the eligible entity with the earliest deadline;
        // scanning the deadline-sorted timeline finds the same one.
        let elig = cq.eligibility(ents);
        let best = cq.timeline.iter().copied().find(|&x| elig.eligible(ents[x as usize].vruntime));
        match (best, curr) {
            (None, Some(c)) => (Some(c), PickReason::CurrEarlierDeadline),
            (Some(b), Some(c)) if vbefore(ents[c as usize].deadline, ents[b as usize].deadline) => {
                (Some(c), PickReason::CurrEarlierDeadline)
            }
            (Some(b), _) => (Some(b), PickReason::EarliestEligibleDeadline),
            // Unreachable in exact arithmetic (someone is always eligible); fall back to the
            // earliest deadline like an unguarded tree walk would.
            (None, None) => (first, PickReason::EarliestEligibleDeadline),
        }
    }

    /// Models `pick_next_entity()` (6.18): an eligible next buddy wins (PICK_BUDDY); else
    /// pick_eevdf; a delayed winner is dequeued for good and None is returned (re-pick).
    pub fn pick_next_entity(&mut self, q: CfsRqId) -> Option<EntityId> {
        let cq = &self.qs[q as usize];
        let (se, reason) = match cq.next {
            Some(n) if self.feat.pick_buddy && cq.entity_eligible(&self.ents, n) => (Some(n), PickReason::Buddy),
            _ => self.pick_eevdf(q, true),
        };
        let se = se?;
        if self.ents[se as usize].sched_delayed {
            self.record_pick(q, se, PickReason::DelayedDequeued);
            self.dequeue_entities(se, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
            return None;
        }
        self.record_pick(q, se, reason);
        Some(se)
    }

    /// Models `pick_task_fair()`: walk down from the root cfs_rq, one pick per level, checking
    /// each level's bandwidth. Returns the task and whether its path crossed a throttled queue
    /// (the task-based throttle then sends it to limbo; the cfs_rq-based one restarts).
    pub fn pick_task_fair(&mut self, cpu: u32) -> Option<(EntityId, bool)> {
        'again: loop {
            let mut q = self.rqs[cpu as usize].cfs;
            if self.qs[q as usize].nr_queued == 0 {
                return None;
            }
            let mut throttled = false;
            loop {
                if self.qs[q as usize].curr_on_rq(&self.ents).is_some() {
                    self.update_curr(q);
                }
                if self.check_cfs_rq_runtime(q) {
                    if self.throttle_mode == super::bandwidth::ThrottleMode::CfsRq {
                        continue 'again;
                    }
                    throttled = true;
                }
                let Some(se) = self.pick_next_entity(q) else { continue 'again };
                match self.ents[se as usize].my_q {
                    Some(my_q) => q = my_q,
                    None => return Some((se, throttled)),
                }
            }
        }
    }

    /// Models `pick_next_task_fair()` plus the fair part of `__schedule()`: pick, then put
    /// the previous chain and set the next one, touching only the levels that change. A
    /// re-picked prev is not put/set again (its protection and exec_start carry on).
    /// Returns the task entity that runs next (None: idle).
    pub fn pick_next_task(&mut self, cpu: u32) -> Option<EntityId> {
        let prev = self.rqs[cpu as usize].curr;
        let next = self.pick_task(cpu);
        self.switch_chains(cpu, prev, next);
        next
    }

    /// Trace replay (`replay::decisions`): makes the pick `pick_next_task()` would make,
    /// with every side effect that precedes the choice (accounting, delayed dequeues), then
    /// switches to `next`, the task the real kernel ran, instead. Returns the model's pick.
    /// `next` must be queued on `cpu`, or None.
    pub fn pick_and_force(&mut self, cpu: u32, next: Option<EntityId>) -> Option<EntityId> {
        let prev = self.rqs[cpu as usize].curr;
        let model = self.pick_task(cpu);
        self.throttle_work.clear();
        self.switch_chains(cpu, prev, next);
        model
    }

    /// The choosing half of `pick_next_task()`.
    fn pick_task(&mut self, cpu: u32) -> Option<EntityId> {
        if self.params.yield_to == super::yield_to::YieldToFlavour::LastBuddy {
            self.sustain_buddy(cpu);
        }
        // Task-based throttle: a task picked through a throttled queue gets the throttle
        // task_work; it runs when the task returns to user space (the simulation arms it).
        match self.pick_task_fair(cpu) {
            Some((se, throttled)) => {
                if throttled && self.throttle_mode == super::bandwidth::ThrottleMode::TaskBased {
                    self.throttle_work.push(se);
                }
                Some(se)
            }
            None => None,
        }
    }

    /// Makes `next` the running task of `cpu` without a pick (trace replay): the put/set walk
    /// of `pick_next_task_fair()` between the current chain and `next`'s. `next` must be
    /// queued on `cpu`, or None (the CPU leaves the fair class: a real-time task runs).
    pub fn force_next(&mut self, cpu: u32, next: Option<EntityId>) {
        let prev = self.rqs[cpu as usize].curr;
        self.switch_chains(cpu, prev, next);
    }

    /// The put_prev/set_next part of `pick_next_task()`, then `rq->curr = next`.
    fn switch_chains(&mut self, cpu: u32, prev: Option<EntityId>, next: Option<EntityId>) {
        match (prev, next) {
            (Some(p), Some(n)) if p == n => {}
            (Some(p), Some(n)) => self.put_prev_set_next(p, n),
            (None, Some(n)) => {
                let mut cur = Some(n);
                while let Some(s) = cur {
                    let q = self.ents[s as usize].cfs_rq;
                    self.set_next_entity(q, s);
                    cur = self.ents[s as usize].parent;
                }
            }
            (Some(p), None) => {
                let mut cur = Some(p);
                while let Some(s) = cur {
                    let q = self.ents[s as usize].cfs_rq;
                    self.put_prev_entity(q, s);
                    cur = self.ents[s as usize].parent;
                }
            }
            (None, None) => {}
        }
        let rq = &mut self.rqs[cpu as usize];
        rq.curr = next;
        rq.need_resched = None;
        if let Some(p) = prev {
            self.sample_chain(p);
        }
        if let Some(n) = next {
            if Some(n) != prev {
                self.sample_chain(n);
            }
        }
    }

    /// The `is_same_group()` walk of `pick_next_task_fair()`.
    fn put_prev_set_next(&mut self, mut pse: EntityId, mut se: EntityId) {
        loop {
            let q = self.ents[se as usize].cfs_rq;
            if q == self.ents[pse as usize].cfs_rq {
                self.put_prev_entity(q, pse);
                self.set_next_entity(q, se);
                return;
            }
            let (sd, pd) = (self.ents[se as usize].depth, self.ents[pse as usize].depth);
            if sd <= pd {
                let pq = self.ents[pse as usize].cfs_rq;
                self.put_prev_entity(pq, pse);
                pse = self.ents[pse as usize].parent.expect("deeper prev has a parent");
            }
            if sd >= pd {
                self.set_next_entity(q, se);
                se = self.ents[se as usize].parent.expect("deeper next has a parent");
            }
        }
    }

    /// Models `set_next_entity()` (6.18): take `se` out of the tree, set its RUN_TO_PARITY
    /// protection (`set_protect_slice`), start its accounting.
    pub fn set_next_entity(&mut self, q: CfsRqId, se: EntityId) {
        self.clear_buddies(q, se);
        if self.ents[se as usize].on_rq {
            self.qs[q as usize].dequeue_timeline(&self.ents, se);
            self.update_load_avg(q, se, super::group_pelt::UPDATE_TG);
            self.set_protect_slice(q, se);
            // __set_next_task_fair(): the task moves to the head of cfs_tasks (MRU).
            if let Some(t) = self.ents[se as usize].task {
                self.cfs_tasks_head(t);
            }
        }
        let now = self.now;
        let e = &mut self.ents[se as usize];
        e.exec_start = now;
        e.prev_sum_exec_runtime = e.sum_exec_runtime;
        self.qs[q as usize].curr = Some(se);
    }

    /// Models `put_prev_entity()`: account and put a still-queued prev back into the tree.
    pub fn put_prev_entity(&mut self, q: CfsRqId, se: EntityId) {
        let on_rq = self.ents[se as usize].on_rq;
        if on_rq {
            self.update_curr(q);
        }
        self.check_cfs_rq_runtime(q);
        let on_rq = self.ents[se as usize].on_rq;
        // The kernel updates prev's load average while it is still cfs_rq->curr, then clears
        // curr: the update credits prev's time since its last one as running (its util_sum,
        // and the cfs_rq's). It re-inserts prev into the tree first; the update does not read
        // the tree, and here it runs before the insertion so that no one sees curr in it.
        if on_rq {
            self.update_load_avg(q, se, 0);
        }
        self.qs[q as usize].curr = None;
        if on_rq {
            self.qs[q as usize].enqueue_timeline(&self.ents, se);
        }
    }

    /// Models `set_protect_slice()` (6.18): protect until the deadline, or for the smallest
    /// queued slice (RUN_TO_PARITY) / the normalized base slice (NO_RUN_TO_PARITY) when that
    /// is shorter than the entity's own slice.
    pub fn set_protect_slice(&mut self, q: CfsRqId, se: EntityId) {
        let mut slice = self.params.normalized_base_slice;
        if self.feat.run_to_parity {
            slice = self.qs[q as usize].min_slice(&self.ents);
        }
        let own = self.ents[se as usize].slice;
        slice = slice.min(own);
        let mut vprot = self.ents[se as usize].deadline;
        if slice != own {
            let limit = self.ents[se as usize].vruntime.wrapping_add(self.vs(slice, se));
            if vbefore(limit, vprot) {
                vprot = limit;
            }
        }
        self.ents[se as usize].vprot = vprot;
    }

    /// Models `update_protect_slice()`: tighten protection to the queue's minimum slice.
    pub fn update_protect_slice(&mut self, q: CfsRqId, se: EntityId) {
        let slice = self.qs[q as usize].min_slice(&self.ents);
        let limit = self.ents[se as usize].vruntime.wrapping_add(self.vs(slice, se));
        if vbefore(limit, self.ents[se as usize].vprot) {
            self.ents[se as usize].vprot = limit;
        }
    }

    /// Models `cancel_protect_slice()`.
    pub fn cancel_protect_slice(&mut self, se: EntityId) {
        let e = &mut self.ents[se as usize];
        if protect_slice(e) {
            e.vprot = e.vruntime;
        }
    }

    /// Appends a pick decision with every entity queued at that level.
    fn record_pick(&mut self, q: CfsRqId, se: EntityId, reason: PickReason) {
        let cq = &self.qs[q as usize];
        let idx = self.log.picks.t.len() as u32;
        let winner = if reason == PickReason::DelayedDequeued { NO_TASK } else { self.node_of(se) };
        self.log.event(self.now, EventKind::Pick, cq.cpu, winner, idx, reason as i64);
        if !self.log.detailed {
            return;
        }
        let ents = &self.ents;
        let start = self.log.cands.task.len() as u32;
        let curr = cq.curr_on_rq(ents);
        let elig = cq.eligibility(ents);
        for id in curr.into_iter().chain(cq.timeline.iter().copied()) {
            let e = &ents[id as usize];
            let mut f = flag::ON_RQ;
            if elig.eligible(e.vruntime) {
                f |= flag::ELIGIBLE;
            }
            if e.sched_delayed {
                f |= flag::DELAYED;
            }
            if Some(id) == curr {
                f |= flag::CURR;
                if protect_slice(e) {
                    f |= flag::PROTECTED;
                }
            }
            if cq.next == Some(id) {
                f |= flag::BUDDY;
            }
            let c = &mut self.log.cands;
            c.task.push(node_of_entity(&self.qs, e));
            c.vruntime.push(e.vruntime);
            c.deadline.push(e.deadline);
            c.vprot.push(e.vprot);
            c.flags.push(f);
        }
        let len = self.log.cands.task.len() as u32 - start;
        let v = cq.peek_avg_vruntime(ents);
        let t = self.log.stamp(self.now);
        let p = &mut self.log.picks;
        p.t.push(t);
        p.cpu.push(cq.cpu as u16);
        p.task.push(winner);
        p.reason.push(reason as u8);
        p.avg_vruntime.push(v);
        p.cand_start.push(start);
        p.cand_len.push(len);
        p.buddy_src.push(if cq.next.is_some() { cq.next_src as u8 } else { 0 });
    }
}
