//! Wakeup preemption: `check_preempt_wakeup_fair()` and `find_matching_se()`
//! (kernel/sched/fair.c, Linux 6.18.44).

use super::entity::EntityId;
use super::fair::{Fair, DEQUEUE_DELAYED, DEQUEUE_SLEEP};
use crate::obs::log::{BuddySource, SwitchReason};

impl Fair {
    /// Models `find_matching_se()`: walk both entities up to siblings on a common cfs_rq.
    pub fn find_matching_se(&self, mut se: EntityId, mut pse: EntityId) -> (EntityId, EntityId) {
        let depth = |e: EntityId| self.ents[e as usize].depth;
        while depth(se) > depth(pse) {
            se = self.ents[se as usize].parent.expect("deeper entity has a parent");
        }
        while depth(pse) > depth(se) {
            pse = self.ents[pse as usize].parent.expect("deeper entity has a parent");
        }
        while self.ents[se as usize].cfs_rq != self.ents[pse as usize].cfs_rq {
            se = self.ents[se as usize].parent.expect("entities meet at the root cfs_rq");
            pse = self.ents[pse as usize].parent.expect("entities meet at the root cfs_rq");
        }
        (se, pse)
    }

    /// Models `wakeup_preempt()` → `check_preempt_wakeup_fair()` (6.18) for task entity
    /// `pse` just enqueued on `cpu`. `fork` marks WF_FORK; `wakee_normal` is false for
    /// SCHED_BATCH and SCHED_IDLE wakees (they never preempt).
    pub fn check_preempt_wakeup(&mut self, cpu: u32, pse: EntityId, fork: bool, wakee_normal: bool) {
        let Some(curr) = self.rqs[cpu as usize].curr else {
            // The idle class is preempted by any fair wakeup.
            self.resched(cpu, SwitchReason::FromIdle);
            return;
        };
        if curr == pse {
            return;
        }
        if self.feat.next_buddy && !fork && !self.ents[pse as usize].sched_delayed {
            self.set_next_buddy(pse, BuddySource::Wakeup);
        }
        if self.rqs[cpu as usize].need_resched.is_some() || !self.feat.wakeup_preemption {
            return;
        }
        let (se, pse_m) = self.find_matching_se(curr, pse);
        let (cse_idle, pse_idle) = (self.ents[se as usize].idle, self.ents[pse_m as usize].idle);
        if cse_idle && !pse_idle {
            // A non-idle entity preempts an idle one without leaving it slice protection.
            self.cancel_protect_slice(se);
            self.resched(cpu, SwitchReason::WakeupPreempt);
            return;
        }
        if cse_idle != pse_idle || !wakee_normal {
            return;
        }
        let q = self.ents[se as usize].cfs_rq;
        self.update_curr(q);
        let short = self.feat.preempt_short && self.ents[pse_m as usize].slice < self.ents[se as usize].slice;
        // 6.18.44 carries the reworked wakeup path: a delayed entity that wins this pick is
        // dequeued for good on the spot and the pick is retried.
        let best = loop {
            match self.pick_eevdf(q, !short).0 {
                Some(b)
                    if b != pse_m && self.ents[b as usize].sched_delayed && self.ents[b as usize].task.is_some() =>
                {
                    self.dequeue_task(b, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
                }
                other => break other,
            }
        };
        if best == Some(pse_m) {
            if short {
                self.cancel_protect_slice(se);
            }
            self.resched(cpu, SwitchReason::WakeupPreempt);
            return;
        }
        if self.feat.run_to_parity && short {
            self.update_protect_slice(q, se);
        }
    }
}
