//! `sched_yield()` for fair tasks: `yield_task_fair()` (kernel/sched/fair.c).
//!
//! Linux 6.18.44 carries 79104becf42b ("Forfeit vruntime on yield", 6.19, backported to
//! 6.18.2): the yield-vs-hog capture shows the yielder's vruntime landing exactly on its
//! previous deadline after every yield. The pre-backport behaviour is `DeadlineBump`.

use super::fair::{Fair, YieldFlavour};

impl Fair {
    /// Models `yield_task_fair()` for the task running on `cpu`. The caller then calls
    /// `schedule()` (do_sched_yield).
    pub fn yield_task(&mut self, cpu: u32) {
        let Some(se) = self.rqs[cpu as usize].curr else { return };
        if self.rqs[cpu as usize].nr_running == 1 {
            return;
        }
        let q = self.ents[se as usize].cfs_rq;
        self.clear_buddies(q, se);
        self.update_curr(q);
        let slice = self.ents[se as usize].slice;
        match self.params.yield_flavour {
            YieldFlavour::Forfeit => {
                if self.qs[q as usize].entity_eligible(&self.ents, se) {
                    let vslice = self.vs(slice, se);
                    let e = &mut self.ents[se as usize];
                    e.vruntime = e.deadline;
                    e.deadline = e.deadline.wrapping_add(vslice);
                }
            }
            YieldFlavour::DeadlineBump => {
                let vslice = self.vs(slice, se);
                let e = &mut self.ents[se as usize];
                e.deadline = e.deadline.wrapping_add(vslice);
            }
        }
        self.sample(se);
    }
}
