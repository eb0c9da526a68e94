//! `sched_yield()` for fair tasks: `yield_task_fair()` (kernel/sched/fair.c) and the yield
//! proposals from the review threads.
//!
//! Linux 6.18.44 carries 79104becf42b ("Forfeit vruntime on yield", 6.19, backported to
//! 6.18.2): the yield-vs-hog capture shows the yielder's vruntime landing exactly on its
//! previous deadline after every yield; the live code calls `update_deadline()` right after
//! moving vruntime. The pre-backport behaviour is `DeadlineBump`. `Hierarchical` is K Prateek
//! Nayak's Nov 2025 proposal. Kuba Piecuch's yield throttling (RFC, Aug 2025) is the
//! `yield_interval_ns` knob.

use super::entity::EntityId;
use super::fair::{Fair, YieldFlavour};

impl Fair {
    /// Models `yield_task_fair()` for the task running on `cpu`. Returns whether the caller
    /// goes on to `schedule()`: always in mainline (`do_sched_yield` calls it
    /// unconditionally); with Kuba Piecuch's throttling (`yield_interval_ns` > 0) a lone task
    /// (patch 2/3) or a yield inside the interval (patch 3/3) returns without scheduling.
    pub fn yield_task(&mut self, cpu: u32) -> bool {
        let Some(se) = self.rqs[cpu as usize].curr else { return true };
        let throttling = self.params.yield_interval_ns > 0;
        if self.rqs[cpu as usize].nr_running == 1 {
            return !throttling;
        }
        let q = self.ents[se as usize].cfs_rq;
        self.clear_buddies(q, se);
        if throttling {
            let (now, interval) = (self.now, self.params.yield_interval_ns);
            let last = self.last_yield(se);
            if *last != 0 && now < *last + interval {
                return false;
            }
            *last = now;
        }
        self.update_curr(q);
        match self.params.yield_flavour {
            YieldFlavour::Forfeit => {
                self.forfeit(se);
            }
            YieldFlavour::DeadlineBump => {
                let vslice = self.vs(self.ents[se as usize].slice, se);
                let e = &mut self.ents[se as usize];
                e.deadline = e.deadline.wrapping_add(vslice);
            }
            YieldFlavour::Hierarchical => self.yield_hierarchical(se),
        }
        self.sample_chain(se);
        true
    }

    /// Whether `yield_task()` on `cpu` would return without scheduling (yield throttling),
    /// without changing anything.
    pub fn yield_would_return_early(&self, cpu: u32) -> bool {
        if self.params.yield_interval_ns == 0 {
            return false;
        }
        let Some(se) = self.rqs[cpu as usize].curr else { return false };
        if self.rqs[cpu as usize].nr_running == 1 {
            return true;
        }
        let last = self.last_yield.get(se as usize).copied().unwrap_or(0);
        last != 0 && self.now < last + self.params.yield_interval_ns
    }

    /// The forfeit of 79104becf42b at `se`'s level: an eligible entity's vruntime jumps to its
    /// deadline and the deadline is renewed. Returns whether it was eligible.
    fn forfeit(&mut self, se: EntityId) -> bool {
        let q = self.ents[se as usize].cfs_rq;
        if !self.qs[q as usize].entity_eligible(&self.ents, se) {
            return false;
        }
        let e = &mut self.ents[se as usize];
        e.vruntime = e.deadline;
        self.update_deadline(q, se);
        true
    }

    /// K Prateek Nayak's hierarchical yield (Nov 2025, on top of forfeit): forfeit at the
    /// task's level and at each ancestor while the entity is eligible there, stopping at the
    /// first queue that has another runnable task below it (`h_nr_runnable > 1`).
    fn yield_hierarchical(&mut self, se: EntityId) {
        let mut cur = Some(se);
        while let Some(s) = cur {
            let q = self.ents[s as usize].cfs_rq;
            if s != se {
                self.update_curr(q);
            }
            if !self.forfeit(s) {
                return;
            }
            if self.qs[q as usize].h_nr_runnable > 1 {
                return;
            }
            cur = self.ents[s as usize].parent;
        }
    }

    /// Per-task `last_yield` of the yield-throttling RFC (zero at fork).
    fn last_yield(&mut self, se: EntityId) -> &mut u64 {
        let i = se as usize;
        if self.last_yield.len() <= i {
            self.last_yield.resize(i + 1, 0);
        }
        &mut self.last_yield[i]
    }
}
