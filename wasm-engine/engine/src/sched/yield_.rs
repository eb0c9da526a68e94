//! `sched_yield()` for fair tasks: `yield_task_fair()` (kernel/sched/fair.c) and the yield
//! proposals from the review threads.
//!
//! Linux 6.18.y stable carries 79104becf42b ("Forfeit vruntime on yield", 6.19) since 6.18.2,
//! and so do our 6.18.44 machines: the yield-vs-hog capture shows the yielder's vruntime landing exactly on its
//! previous deadline after every yield; the live code calls `update_deadline()` right after
//! moving vruntime. 6.18.0's and 6.18.1's behaviour is `DeadlineBump`. `Hierarchical` is K Prateek
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

#[cfg(test)]
mod tests {
    /// k_y loops on sched_yield() alone in its cgroup; a hog runs in a sibling cgroup (the
    /// start of traces/linux-6.18/yield-in-cgroup, before k_y's sibling arrived).
    const LONE_YIELDER_IN_A_GROUP: &str = r#"
version = 1
name = "lone-yielder"
seed = 1
duration = "100ms"

[host]
cpus = 2
hz = 250

[[cgroups]]
path = "/sl_Y"
shares = 1024

[[cgroups]]
path = "/sl_Z"
shares = 1024

[[tasks]]
name = "k_y"
cgroup = "/sl_Y"
affinity = [1]
program = [{ loop = { body = [{ run = "10us" }, { sched_yield = 1 }] } }]

[[tasks]]
name = "k_g"
cgroup = "/sl_Z"
affinity = [1]
program = [{ run = "forever" }]
"#;

    /// What one `sched_yield()` of k_y does at the start of its group's turn: whether k_y's
    /// entity forfeited (vruntime = its old deadline, deadline one slice later), whether its
    /// group entity was left alone, and whether the pick that follows runs k_y again.
    fn one_yield(variants: &[(String, String)]) -> (bool, bool, bool) {
        let (_, mut sim) = crate::load("lone-yielder.toml", LONE_YIELDER_IN_A_GROUP, variants).expect("loads");
        let (ky, kg) = (sim.tasks[0].se, sim.tasks[1].se);
        // Step until k_y is switched in after k_g: the start of sl_Y's turn on CPU 1.
        let (mut t, mut prev) = (0, None);
        loop {
            t += 5_000;
            assert!(t < 50_000_000, "k_y never followed k_g on CPU 1");
            sim.run_until(t);
            let curr = sim.fair.rqs[1].curr;
            if curr == Some(ky) && prev == Some(kg) {
                break;
            }
            prev = curr;
        }
        let g = sim.fair.ents[ky as usize].parent.expect("k_y sits in sl_Y");
        let (y, grp) = (sim.fair.ents[ky as usize].clone(), sim.fair.ents[g as usize].clone());
        assert!(sim.fair.yield_task(1), "do_sched_yield() goes on to schedule()");
        let (y2, g2) = (&sim.fair.ents[ky as usize], &sim.fair.ents[g as usize]);
        let forfeited = y2.vruntime == y.deadline && y2.deadline == y.deadline + y.slice;
        let group_untouched = g2.vruntime == grp.vruntime && g2.deadline == grp.deadline;
        let picked_again = sim.fair.pick_next_task(1) == Some(ky);
        (forfeited, group_untouched, picked_again)
    }

    /// `yield_task_fair()` (kernel/sched/fair.c, 6.18.26 lines 9049-9087; the forfeit of
    /// 79104becf42b, in 6.18.y stable since 6.18.2, measured on 6.18.44) moves only the yielder's
    /// own entity: `se = &curr->se`, `cfs_rq = task_cfs_rq(curr)`. Its group entity keeps its
    /// vruntime, deadline and slice protection, so when the yielder has no runnable sibling
    /// in its group, `pick_task_fair()` walks down the same group entity and the same task:
    /// the yield does not switch, and the loop burns its group's turn. The yield-in-cgroup
    /// capture shows it: 540 yields in one 475 us turn of sl_Y before k_h arrived, and the
    /// dump's group entity (`G` lines) never forfeited. K Prateek Nayak's hierarchical yield
    /// (`yield = "hierarchical"`) forfeits the group entity too.
    #[test]
    fn yield_task_fair_forfeits_the_task_entity_not_its_group_entity() {
        assert_eq!(one_yield(&[]), (true, true, true), "6.18: task entity only, the yielder runs on");
        let hier = [("yield".to_string(), "hierarchical".to_string())];
        let (forfeited, group_untouched, _) = one_yield(&hier);
        assert!(forfeited && !group_untouched, "hierarchical: the group entity forfeits too");
    }
}
